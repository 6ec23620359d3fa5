// RUN: mpt-opt %s --mpt-recompute-activations | FileCheck %s

// An activation that only the backward pass reads moves there, right before
// its first reader (no copy); one whose input the backward pass does not
// read stays.
// CHECK-LABEL: func.func @step(
// CHECK: %[[SEED:.*]] = mpt.backward_seed
// CHECK-NEXT: %[[T:.*]] = mpt.sigmoid %arg0 : tensor<4xf32>
// CHECK-NEXT: mpt.mul %[[T]], %arg0
// CHECK-NOT: mpt.recomputed
func.func @step(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %t = mpt.sigmoid %x : tensor<4xf32>
  %r = mpt.relu %y : tensor<4xf32>
  %s = mpt.reduce_sum %r axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %s : tensor<f32>
  %g = mpt.mul %t, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %h = mpt.mul %r, %seed : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %seed, %g, %h : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// A function without a backward seed is left alone.
// CHECK-LABEL: func.func @forward(
// CHECK-NEXT: mpt.gelu
func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = mpt.gelu %x : tensor<4xf32>
  %b = mpt.mul %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
