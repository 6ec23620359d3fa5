// mpt-run on inputs written by numpy: relu(x @ w + b) with the result
// written to --output-dir and compared with numpy (1e-5 relative).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/reference.py gen dense_relu %t
// RUN: mpt-run %s --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy \
// RUN:   --output-dir=%t | FileCheck %s
// RUN: %python %S/Inputs/reference.py check dense_relu %t \
// RUN:   | FileCheck %s --check-prefix=REF

// CHECK: argument #0 (%x, input): tensor<4x8xf32> from {{.*}}x.npy
// CHECK-NEXT: argument #1 (%w, parameter): tensor<8x5xf32> from {{.*}}w.npy
// CHECK-NEXT: argument #2 (%b, parameter): tensor<5xf32> from {{.*}}b.npy
// CHECK-NEXT: result #0: tensor<4x5xf32> min {{[0-9.e+-]+}} max {{[0-9.e+-]+}} mean {{[0-9.e+-]+}} zeros {{[0-9]+}} [{{([0-9.e+-]+, )+}}...]
// CHECK-NEXT: wrote 1 result to
// CHECK-NEXT: time: lower {{[0-9.]+}} ms, jit {{[0-9.]+}} ms, run {{[0-9.]+}} ms
// REF: dense_relu: ok

func.func @dense(%x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
                 %w: tensor<8x5xf32> {mpt.role = #mpt.role<parameter>},
                 %b: tensor<5xf32> {mpt.role = #mpt.role<parameter>})
    -> tensor<4x5xf32> {
  %m = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  %a = mpt.add %m, %b : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %r = mpt.relu %a : tensor<4x5xf32>
  func.return %r : tensor<4x5xf32>
}
