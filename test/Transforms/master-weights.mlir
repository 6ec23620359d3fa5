// RUN: mpt-opt %s --mpt-auto-mixed-precision --mpt-master-weights -split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-auto-mixed-precision --mpt-master-weights=keep-low-copy -split-input-file | FileCheck %s --check-prefix=COPY

// One f16 working copy per parameter, at the start of the step and shared by
// the forward and the backward matmul; the update runs on the fp32 master.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[W:.*]]: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>}
// CHECK-NEXT: %[[WH:.*]] = mpt.cast %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NOT: mpt.cast %[[W]] :
// CHECK: mpt.matmul %{{.*}}, %[[WH]]
// CHECK: mpt.matmul %{{.*}}, %[[WH]] transpose_b
// CHECK: %[[NEW:.*]] = mpt.sgd_update %[[W]], %{{.*}} lr = {{.*}} : tensor<8x8xf32>
// CHECK: return %{{.*}}, %[[NEW]] : tensor<f32>, tensor<8x8xf32>

// With keep-low-copy the copy is an argument, and the step returns the cast
// of the updated parameter.
// COPY-LABEL: func.func @step(
// COPY-SAME: %[[W:[a-z0-9]+]]: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>}
// COPY-SAME: %[[COPY:[a-z0-9]+]]: tensor<8x8xf16> {mpt.role = #mpt.role<parameter_copy>}
// COPY-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<8x8xf32> {mpt.role = #mpt.role<parameter>}, tensor<8x8xf16> {mpt.role = #mpt.role<parameter_copy>})
// COPY-NOT: mpt.cast %[[W]] :
// COPY: mpt.matmul %{{.*}}, %[[COPY]]
// COPY: %[[NEW:.*]] = mpt.sgd_update %[[W]]
// COPY: %[[NEXT:.*]] = mpt.cast %[[NEW]] : tensor<8x8xf32> to tensor<8x8xf16>
// COPY: return %{{.*}}, %[[NEW]], %[[NEXT]]
func.func @step(%w: tensor<8x8xf32> {mpt.role = #mpt.role<parameter>},
                %x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
                %t: tensor<4x8xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<8x8xf32> {mpt.role = #mpt.role<parameter>}) {
  %y = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l = mpt.mse_loss %y, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %c = mpt.constant dense<0.5> : tensor<f32>
  %d = mpt.sub %y, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = mpt.mul %d, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %gx = mpt.matmul %g, %w transpose_b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %gw = mpt.matmul %x, %gx transpose_a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %new = mpt.sgd_update %w, %gw lr = 0.1 {mpt.precision = #mpt.precision<fp32>} : tensor<8x8xf32>
  return %l, %new : tensor<f32>, tensor<8x8xf32>
}
