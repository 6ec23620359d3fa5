// Reshapes from and to rank-0 tensors (also reached by reductions over all
// axes with keep_dims) use expand_shape/collapse_shape with an empty
// reassociation.
// RUN: mpt-opt %s --convert-mpt-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @reshape_rank0(
// CHECK: return %{{.*}} : tensor<1x1xf32>
func.func @reshape_rank0(%x: tensor<f32>) -> tensor<1x1xf32> {
  %0 = mpt.reshape %x : tensor<f32> to tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_all_keep_dims(
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: return %{{.*}} : tensor<1x1xf32>
func.func @reduce_sum_all_keep_dims(%x: tensor<32x128xf32>) -> tensor<1x1xf32> {
  %0 = mpt.reduce_sum %x axes = [0, 1] keep_dims : tensor<32x128xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_vector_keep_dims(
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK: return %{{.*}} : tensor<1xf32>
func.func @reduce_max_vector_keep_dims(%x: tensor<4xf32>) -> tensor<1xf32> {
  %0 = mpt.reduce_max %x axes = [0] keep_dims : tensor<4xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
