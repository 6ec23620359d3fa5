// mpt.concat with a negative axis counts from the end.
// RUN: mpt-opt %s --convert-mpt-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @concat_negative_axis(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<8x16xf32>, %[[B:[a-z0-9_]+]]: tensor<8x32xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %{{.*}}[0, 0] [8, 16] [1, 1]
// CHECK: tensor.insert_slice %[[B]] into %[[I0]][0, 16] [8, 32] [1, 1]
func.func @concat_negative_axis(%a: tensor<8x16xf32>, %b: tensor<8x32xf32>) -> tensor<8x48xf32> {
  %0 = mpt.concat %a, %b axis = -1 : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf32>
  return %0 : tensor<8x48xf32>
}
