// mpt-lower-to-cpu turns tensor results into caller-allocated
// out-parameters (buffer-results-to-out-params with modify-public-functions).
// RUN: mpt-opt %s --mpt-lower-to-cpu | FileCheck %s

// The four inputs (7 + 7 + 5 + 7 descriptor fields) are followed by the
// out-parameter descriptor of the 4x2 result, and the function returns
// nothing.
// CHECK-LABEL: llvm.func @mlp(
// CHECK-SAME: %arg19: !llvm.ptr, %arg20: !llvm.ptr, %arg21: i64, %arg22: i64, %arg23: i64, %arg24: i64, %arg25: i64,
// CHECK-SAME: %arg26: !llvm.ptr, %arg27: !llvm.ptr, %arg28: i64, %arg29: i64, %arg30: i64, %arg31: i64, %arg32: i64) {
// CHECK: llvm.return{{$}}
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
               %w2: tensor<16x2xf32>) -> tensor<4x2xf32> {
  %0 = mpt.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mpt.add %0, %b1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = mpt.relu %1 : tensor<4x16xf32>
  %3 = mpt.matmul %2, %w2 : (tensor<4x16xf32>, tensor<16x2xf32>) -> tensor<4x2xf32>
  %4 = mpt.softmax %3 : tensor<4x2xf32>
  return %4 : tensor<4x2xf32>
}
