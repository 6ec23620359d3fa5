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

// -----

// Attention: the softmax's gradient reads its result P, which would live
// from the forward pass to the backward pass. The backward pass computes P
// again from the queries and keys, which the gradients of the scores keep
// anyway: the batch matmul, the scale and the softmax are cloned (marked)
// right before P's first backward reader; the forward P dies after P V.
// CHECK-LABEL: func.func @train_step(
// CHECK: %[[C:.*]] = mpt.constant dense<2.500000e-01>
// CHECK: %[[S:.*]] = mpt.batch_matmul %[[Q:.*]], %[[K:.*]] transpose_b : (tensor<2x8x16xf32>
// CHECK: %[[SS:.*]] = mpt.mul %[[S]], %[[C]] :
// CHECK: %[[P:.*]] = mpt.softmax %[[SS]] : tensor<2x8x8xf32>
// CHECK: mpt.batch_matmul %[[P]], %{{.*}} : (tensor<2x8x8xf32>, tensor<2x8x16xf32>)
// CHECK-NOT: %[[P]]
// CHECK: mpt.backward_seed
// CHECK: %[[S2:.*]] = mpt.batch_matmul %[[Q]], %[[K]] transpose_b {mpt.recomputed}
// CHECK-NEXT: %[[SS2:.*]] = mpt.mul %[[S2]], %[[C]] {mpt.recomputed}
// CHECK-NEXT: %[[P2:.*]] = mpt.softmax %[[SS2]] {mpt.recomputed}
// CHECK: mpt.softmax_grad %{{.*}}, %[[P2]]
// CHECK-NOT: %[[P]]
// CHECK: return
// KEEP-LABEL: func.func @train_step(
// KEEP-NOT: mpt.recomputed
// KEEP: return
// AMP-LABEL: func.func @train_step(
// AMP: mpt.batch_matmul {{.*}} transpose_b acc(f32) {mpt.recomputed} : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x8xf16>
// AMP: mpt.softmax %{{.*}} {mpt.recomputed} : tensor<2x8x8xf16>
// AMPKEEP-LABEL: func.func @train_step(
// AMPKEEP-NOT: mpt.recomputed
func.func @attention(%q: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                     %k: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                     %v: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                     %t: tensor<2x8x16xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %s = mpt.batch_matmul %q, %k transpose_b : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
  %c = mpt.constant dense<0.25> : tensor<f32>
  %ss = mpt.mul %s, %c : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
  %p = mpt.softmax %ss : tensor<2x8x8xf32>
  %o = mpt.batch_matmul %p, %v : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %l = mpt.mse_loss %o, %t : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The scores made with an abs (not an op the recomputation repeats), whose
// output the backward pass does not keep: P is kept.
// CHECK-LABEL: func.func @train_step(
// CHECK-NOT: mpt.recomputed
// CHECK: return
func.func @abs_scores(%q: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                      %k: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                      %v: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                      %t: tensor<2x8x16xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %s = mpt.batch_matmul %q, %k transpose_b : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
  %e = mpt.abs %s : tensor<2x8x8xf32>
  %p = mpt.softmax %e : tensor<2x8x8xf32>
  %o = mpt.batch_matmul %p, %v : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %l = mpt.mse_loss %o, %t : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Scores of two contractions (Q K^T, then times a constant matrix, so that
// the backward pass keeps neither product): more than one contraction to
// repeat, so P is kept.
// CHECK-LABEL: func.func @train_step(
// CHECK-NOT: mpt.recomputed
// CHECK: return
func.func @two_contractions(%q: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                            %k: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                            %v: tensor<2x8x16xf32> {mpt.role = #mpt.role<parameter>},
                            %t: tensor<2x8x16xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %s = mpt.batch_matmul %q, %k transpose_b : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x8xf32>
  %m = mpt.constant dense<0.5> : tensor<2x8x8xf32>
  %s2 = mpt.batch_matmul %s, %m : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = mpt.softmax %s2 : tensor<2x8x8xf32>
  %o = mpt.batch_matmul %p, %v : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %l = mpt.mse_loss %o, %t : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
