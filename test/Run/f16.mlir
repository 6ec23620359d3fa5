// f16 arguments and results travel as numpy float16 (<f2); the arithmetic
// rounds like f16 storage. Small integers make the matmul exact; the
// sigmoid is compared within a few f16 ulps.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/reference.py gen f16 %t
// RUN: mpt-run %s --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy \
// RUN:   --input=%t/y.npy --output-dir=%t | FileCheck %s
// RUN: %python %S/Inputs/reference.py check f16 %t \
// RUN:   | FileCheck %s --check-prefix=REF

// CHECK: argument #0 (%x): tensor<4x8xf16> from
// CHECK: argument #3 (%y): tensor<3x5xf16> from
// CHECK: result #0: tensor<4x4xf16> min
// CHECK: result #1: tensor<3x5xf16> min
// REF: f16: ok

func.func @half(%x: tensor<4x8xf16>, %w: tensor<8x4xf16>, %b: tensor<4xf16>,
                %y: tensor<3x5xf16>) -> (tensor<4x4xf16>, tensor<3x5xf16>) {
  %m = mpt.matmul %x, %w : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  %a = mpt.add %m, %b : (tensor<4x4xf16>, tensor<4xf16>) -> tensor<4x4xf16>
  %r = mpt.relu %a : tensor<4x4xf16>
  %s = mpt.sigmoid %y : tensor<3x5xf16>
  func.return %r, %s : tensor<4x4xf16>, tensor<3x5xf16>
}
