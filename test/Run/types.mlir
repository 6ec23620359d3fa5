// f64, i32 and i64 tensors of rank 0 to 6 in and out.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/reference.py gen types %t
// RUN: mpt-run %s --input=%t/a.npy --input=%t/b.npy --input=%t/c.npy \
// RUN:   --output-dir=%t | FileCheck %s
// RUN: %python %S/Inputs/reference.py check types %t \
// RUN:   | FileCheck %s --check-prefix=REF

// CHECK: argument #0 (%a): tensor<f64> from
// CHECK: argument #1 (%b): tensor<1x2x1x2x1x2xi32> from
// CHECK: argument #2 (%c): tensor<3x2xi64> from
// CHECK: result #0: tensor<1x2x1x2x1x2xf64> min
// CHECK: result #1: tensor<8xi64> min
// CHECK: result #2: tensor<2x3xi64> min
// REF: types: ok

func.func @types(%a: tensor<f64>, %b: tensor<1x2x1x2x1x2xi32>,
                 %c: tensor<3x2xi64>)
    -> (tensor<1x2x1x2x1x2xf64>, tensor<8xi64>, tensor<2x3xi64>) {
  %bf = mpt.cast %b : tensor<1x2x1x2x1x2xi32> to tensor<1x2x1x2x1x2xf64>
  %sum = mpt.add %bf, %a : (tensor<1x2x1x2x1x2xf64>, tensor<f64>) -> tensor<1x2x1x2x1x2xf64>
  %bi = mpt.cast %b : tensor<1x2x1x2x1x2xi32> to tensor<1x2x1x2x1x2xi64>
  %flat = mpt.reshape %bi : tensor<1x2x1x2x1x2xi64> to tensor<8xi64>
  %ct = mpt.transpose %c perm = [1, 0] : tensor<3x2xi64> -> tensor<2x3xi64>
  func.return %sum, %flat, %ct : tensor<1x2x1x2x1x2xf64>, tensor<8xi64>, tensor<2x3xi64>
}
