// RUN: mpt-opt %s --mpt-master-weights=recompute-bytes=0 | FileCheck %s
// RUN: mpt-opt %s --mpt-master-weights=recompute-bytes=-1 | FileCheck %s --check-prefix=KEEP

// A working copy that only the backward pass reads is moved there, right
// before its first reader, rather than made at the start of the step and
// kept through the forward pass (nothing is made twice).
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<8x8xf32>
// CHECK-NOT: mpt.cast %[[W]]
// CHECK: mpt.backward_seed
// CHECK-NOT: mpt.cast %[[W]]
// CHECK: mpt.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[WH:.*]] = mpt.cast %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT: mpt.matmul %{{.*}}, %[[WH]] transpose_b
// CHECK-NOT: mpt.recomputed
// KEEP-LABEL: func.func @step(
// KEEP-NEXT: mpt.cast
// KEEP: mpt.backward_seed
func.func @step(%w: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>},
                %x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
                %t: tensor<4x8xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<8x8xf32> {mpt.role = #mpt.role<parameter>}) {
  %wh = mpt.cast %w : tensor<8x8xf32> to tensor<8x8xf16>
  %y = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l = mpt.mse_loss %y, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %s = mpt.backward_seed %l : tensor<f32>
  %d = mpt.sub %y, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %dh = mpt.cast %d : tensor<4x8xf32> to tensor<4x8xf16>
  %gx = mpt.matmul %dh, %wh transpose_b acc(f32) : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
  %gx32 = mpt.cast %gx : tensor<4x8xf16> to tensor<4x8xf32>
  %gw = mpt.matmul %x, %gx32 transpose_a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %new = mpt.sgd_update %w, %gw lr = 0.1 {mpt.precision = #mpt.precision<fp32>} : tensor<8x8xf32>
  return %l, %new : tensor<f32>, tensor<8x8xf32>
}
