// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse -split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd recompute=false" -canonicalize -cse -split-input-file | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd recompute=false" -split-input-file | mpt-opt --mpt-recompute-activations -canonicalize -cse -split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-amp-pipeline="type=f16 optimizer=sgd" -split-input-file | FileCheck %s --check-prefix=AMP
// RUN: mpt-opt %s --mpt-amp-pipeline="type=f16 optimizer=sgd recompute=false" -split-input-file | FileCheck %s --check-prefix=AMPKEEP

// mpt-amp-pipeline recomputes too (in f16, after the precision pass), and
// its recompute=false keeps the activation.
// AMP-LABEL: func.func @train_step(
// AMP: mpt.gelu %{{.*}} {mpt.recomputed} : tensor<8x32xf16>
// AMPKEEP-LABEL: func.func @train_step(
// AMPKEEP-NOT: mpt.recomputed

// A feed-forward layer: the GELU's output is read by the second matmul in
// the forward pass and by its weight gradient in the backward pass; its
// input by gelu_grad. The backward pass computes the GELU again (marked, so
// that CSE keeps it) right before the weight gradient, and the forward
// output dies after the second matmul.
// CHECK-LABEL: func.func @train_step(
// CHECK: %[[H:.*]] = mpt.matmul
// CHECK: %[[A:.*]] = mpt.gelu %[[H]] : tensor<8x32xf32>
// CHECK: mpt.matmul %[[A]], %{{.*}} : (tensor<8x32xf32>, tensor<32x4xf32>)
// CHECK-NOT: %[[A]]
// CHECK: mpt.backward_seed
// CHECK: %[[R:.*]] = mpt.gelu %[[H]] {mpt.recomputed} : tensor<8x32xf32>
// CHECK-NEXT: mpt.matmul %[[R]], %{{.*}} transpose_a
// CHECK: mpt.gelu_grad %{{.*}}, %[[H]] : tensor<8x32xf32>
// KEEP-LABEL: func.func @train_step(
// KEEP: %[[A:.*]] = mpt.gelu
// KEEP: mpt.backward_seed
// KEEP-NOT: mpt.recomputed
// KEEP: mpt.matmul %[[A]], %{{.*}} transpose_a
func.func @ffn(%x: tensor<8x16xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<16x32xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<32x4xf32> {mpt.role = #mpt.role<parameter>},
               %t: tensor<8x4xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = mpt.gelu %h : tensor<8x32xf32>
  %y = mpt.matmul %a, %w2 : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %l = mpt.mse_loss %y, %t : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// tanh's gradient reads its output, not its input: the input is not kept
// for the backward pass, so recomputing would keep it instead; nothing is
// recomputed.
// CHECK-LABEL: func.func @train_step(
// CHECK-NOT: mpt.recomputed
// CHECK: return
func.func @tanh_layer(%x: tensor<8x16xf32> {mpt.role = #mpt.role<input>},
                      %w1: tensor<16x32xf32> {mpt.role = #mpt.role<parameter>},
                      %w2: tensor<32x4xf32> {mpt.role = #mpt.role<parameter>},
               %t: tensor<8x4xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = mpt.tanh %h : tensor<8x32xf32>
  %y = mpt.matmul %a, %w2 : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %l = mpt.mse_loss %y, %t : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
