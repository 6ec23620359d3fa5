// RUN: mpt-opt %s --mpt-autodiff -split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-autodiff=extend=true -split-input-file | FileCheck %s --check-prefix=EXT
// The IR that mpt-autodiff builds: the signature of @<name>_grad, the
// gradient rules it composes and how it sums, reduces and zero-fills
// gradients. (Their values are checked in test/Integration/gradcheck.test.)

// An MLP: matmul, bias, relu, matmul, softmax cross-entropy. The forward
// function stays as it is; @mlp_grad repeats the forward ops and returns the
// loss, then one gradient per parameter in argument order.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
// CHECK-NOT: grad
// CHECK: return %{{.*}} : tensor<f32>

// CHECK-LABEL: func.func @mlp_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<8x16xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[B1:[a-z0-9]+]]: tensor<16xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[W2:[a-z0-9]+]]: tensor<16x3xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[L:[a-z0-9]+]]: tensor<4xi64> {mpt.role = #mpt.role<label>})
// CHECK-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>},
// CHECK-SAME: tensor<8x16xf32> {mpt.role = #mpt.role<gradient>},
// CHECK-SAME: tensor<16xf32> {mpt.role = #mpt.role<gradient>},
// CHECK-SAME: tensor<16x3xf32> {mpt.role = #mpt.role<gradient>}) {
// Forward.
// CHECK: %[[MM1:.*]] = mpt.matmul %[[X]], %[[W1]] :
// CHECK: %[[PRE:.*]] = mpt.add %[[MM1]], %[[B1]] :
// CHECK: %[[H:.*]] = mpt.relu %[[PRE]] : tensor<4x16xf32>
// CHECK: %[[LOGITS:.*]] = mpt.matmul %[[H]], %[[W2]] :
// CHECK: %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[LOGITS]], %[[L]] :
// Backward: the loss is seeded with 1.
// CHECK: %[[ONE:.*]] = mpt.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DLOGITS:.*]] = mpt.softmax_cross_entropy_grad %[[LOGITS]], %[[L]], %[[ONE]] : (tensor<4x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<4x3xf32>
// d(h @ w2): dh = dlogits @ w2^T, dw2 = h^T @ dlogits.
// CHECK-DAG: %[[DH:.*]] = mpt.matmul %[[DLOGITS]], %[[W2]] transpose_b : (tensor<4x3xf32>, tensor<16x3xf32>) -> tensor<4x16xf32>
// CHECK-DAG: %[[DW2:.*]] = mpt.matmul %[[H]], %[[DLOGITS]] transpose_a : (tensor<4x16xf32>, tensor<4x3xf32>) -> tensor<16x3xf32>
// relu: the upstream gradient where the relu input is positive, which is
// where its output is: it reads the output, which the backward pass keeps
// anyway (dw2 reads it), so that the pre-activation, read by the relu alone,
// is dead after the forward pass.
// CHECK: %[[DPRE:.*]] = mpt.relu_grad %[[DH]], %[[H]] : tensor<4x16xf32>
// The bias was broadcast over the batch: its gradient is summed over axis 0.
// CHECK-DAG: %[[DB1:.*]] = mpt.reduce_sum %[[DPRE]] axes = [0] : tensor<4x16xf32> -> tensor<16xf32>
// CHECK-DAG: %[[DW1:.*]] = mpt.matmul %[[X]], %[[DPRE]] transpose_a : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
// CHECK: return %[[LOSS]], %[[DW1]], %[[DB1]], %[[DW2]] : tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>

// With extend=true the gradients follow the function's own results.
// EXT-LABEL: func.func @mlp(
// EXT-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>},
// EXT-SAME: tensor<8x16xf32> {mpt.role = #mpt.role<gradient>},
// EXT-SAME: tensor<16xf32> {mpt.role = #mpt.role<gradient>},
// EXT-SAME: tensor<16x3xf32> {mpt.role = #mpt.role<gradient>}) {
// EXT: mpt.relu_grad
// EXT: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>
// EXT-NOT: func.func @mlp_grad
func.func @mlp(%x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<8x16xf32> {mpt.role = #mpt.role<parameter>},
               %b1: tensor<16xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<16x3xf32> {mpt.role = #mpt.role<parameter>},
               %labels: tensor<4xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %0 = mpt.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mpt.add %0, %b1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = mpt.relu %1 : tensor<4x16xf32>
  %3 = mpt.matmul %2, %w2 : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %4 = mpt.softmax_cross_entropy %3, %labels : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %4 : tensor<f32>
}

// -----

// A value used twice (both operands of one mul) gets the sum of its two
// gradient contributions.
// CHECK-LABEL: func.func @square(
// CHECK-LABEL: func.func @square_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32> {mpt.role = #mpt.role<parameter>})
// CHECK-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<gradient>})
// CHECK: %[[SQ:.*]] = mpt.mul %[[X]], %[[X]]
// CHECK: %[[LOSS:.*]] = mpt.reduce_sum %[[SQ]] axes = [0]
// The gradient of reduce_sum: the seed broadcast back to the input shape.
// CHECK: %[[ONE:.*]] = mpt.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[R:.*]] = mpt.reshape %[[ONE]] : tensor<f32> to tensor<1xf32>
// CHECK: %[[G:.*]] = mpt.broadcast %[[R]] : tensor<1xf32> to tensor<4xf32>
// CHECK: %[[C0:.*]] = mpt.mul %[[G]], %[[X]]
// CHECK: %[[C1:.*]] = mpt.mul %[[G]], %[[X]]
// CHECK: %[[SUM:.*]] = mpt.add %[[C0]], %[[C1]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[LOSS]], %[[SUM]]
func.func @square(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %y = mpt.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = mpt.reduce_sum %y axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A value used by two ops (exp and a residual add): the gradients of both
// uses are summed with mpt.add before they flow on to the parameter.
// CHECK-LABEL: func.func @two_uses_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x3xf32> {mpt.role = #mpt.role<input>},
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<3x3xf32> {mpt.role = #mpt.role<parameter>})
// CHECK: %[[H:.*]] = mpt.matmul %[[X]], %[[W]]
// CHECK: %[[E:.*]] = mpt.exp %[[H]]
// CHECK: %[[Y:.*]] = mpt.add %[[E]], %[[H]]
// CHECK: %[[DE:.*]] = mpt.mul %{{.*}}, %[[E]] : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[DH:.*]] = mpt.add %{{.*}}, %[[DE]] : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[DW:.*]] = mpt.matmul %[[X]], %[[DH]] transpose_a : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
// CHECK: return %{{.*}}, %[[DW]] :
func.func @two_uses(%x: tensor<4x3xf32> {mpt.role = #mpt.role<input>},
                    %w: tensor<3x3xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %h = mpt.matmul %x, %w : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %e = mpt.exp %h : tensor<4x3xf32>
  %y = mpt.add %e, %h : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %s = mpt.reduce_mean %y axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A parameter the loss does not depend on gets a zero gradient.
// CHECK-LABEL: func.func @unused_grad(
// CHECK-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<gradient>}, tensor<3x2xf32> {mpt.role = #mpt.role<gradient>})
// CHECK: %[[Z:.*]] = mpt.constant dense<0.000000e+00> : tensor<3x2xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[Z]] : tensor<f32>, tensor<4xf32>, tensor<3x2xf32>
func.func @unused(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                  %u: tensor<3x2xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// extend=true: the original results come first (with their roles), the
// gradients after them. Without extend, @<name>_grad returns only the loss
// (marked as such) and the gradients.
// EXT-LABEL: func.func @extend(
// EXT-SAME: -> (tensor<4xf32>, tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<gradient>}) {
// EXT: %[[E:.*]] = mpt.exp
// EXT: %[[LOSS:.*]] = mpt.mse_loss %[[E]],
// EXT: %[[G:.*]] = mpt.mul %{{.*}}, %[[E]]
// EXT: return %[[E]], %[[LOSS]], %[[G]] : tensor<4xf32>, tensor<f32>, tensor<4xf32>
// EXT-NOT: @extend_grad

// CHECK-LABEL: func.func @extend(
// CHECK-SAME: -> (tensor<4xf32>, tensor<f32> {mpt.role = #mpt.role<loss>}) {
// CHECK-LABEL: func.func @extend_grad(
// CHECK-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<gradient>}) {
// CHECK: %[[E:.*]] = mpt.exp
// CHECK: %[[LOSS:.*]] = mpt.mse_loss %[[E]],
// CHECK: return %[[LOSS]], %{{.*}} : tensor<f32>, tensor<4xf32>
func.func @extend(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                  %t: tensor<4xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<4xf32>, tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %e = mpt.exp %x : tensor<4xf32>
  %l = mpt.mse_loss %e, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %e, %l : tensor<4xf32>, tensor<f32>
}

// -----

// Integer labels get no gradient: nothing is cast back to i64, and the
// gradient of the float copy of the labels (the negated mse gradient) goes
// nowhere.
// CHECK-LABEL: func.func @int_labels_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[L:[a-z0-9]+]]: tensor<4xi64> {mpt.role = #mpt.role<label>})
// CHECK: %[[T:.*]] = mpt.cast %[[L]] : tensor<4xi64> to tensor<4xf32>
// CHECK: mpt.mse_loss %[[X]], %[[T]]
// CHECK-NOT: to tensor<4xi64>
// CHECK-NOT: tensor<4xi64> {mpt.role = #mpt.role<gradient>}
// CHECK: return
func.func @int_labels(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                      %l: tensor<4xi64> {mpt.role = #mpt.role<label>}) -> tensor<f32> {
  %t = mpt.cast %l : tensor<4xi64> to tensor<4xf32>
  %m = mpt.mse_loss %x, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// matmul with both operands transposed: C = A^T B^T, dA = B^T G^T, dB = G^T A^T.
// CHECK-LABEL: func.func @matmul_tt_grad(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<8x4xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<6x8xf32> {mpt.role = #mpt.role<parameter>})
// CHECK: %[[G:.*]] = mpt.broadcast %{{.*}} : tensor<1x1xf32> to tensor<4x6xf32>
// CHECK-DAG: %[[DA:.*]] = mpt.matmul %[[B]], %[[G]] transpose_a transpose_b : (tensor<6x8xf32>, tensor<4x6xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[DB:.*]] = mpt.matmul %[[G]], %[[A]] transpose_a transpose_b : (tensor<4x6xf32>, tensor<8x4xf32>) -> tensor<6x8xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @matmul_tt(%a: tensor<8x4xf32> {mpt.role = #mpt.role<parameter>},
                     %b: tensor<6x8xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %0 = mpt.matmul %a, %b transpose_a transpose_b : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %s = mpt.reduce_sum %0 axes = [0, 1] : tensor<4x6xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// batch_matmul (Q K^T): dQ = G K, dK = G^T Q, batched.
// CHECK-LABEL: func.func @bmm_grad(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<2x4x8xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<2x6x8xf32> {mpt.role = #mpt.role<parameter>})
// CHECK: %[[G:.*]] = mpt.broadcast %{{.*}} : tensor<1x1x1xf32> to tensor<2x4x6xf32>
// CHECK-DAG: %[[DQ:.*]] = mpt.batch_matmul %[[G]], %[[K]] : (tensor<2x4x6xf32>, tensor<2x6x8xf32>) -> tensor<2x4x8xf32>
// CHECK-DAG: %[[DK:.*]] = mpt.batch_matmul %[[G]], %[[Q]] transpose_a : (tensor<2x4x6xf32>, tensor<2x4x8xf32>) -> tensor<2x6x8xf32>
// CHECK: return %{{.*}}, %[[DQ]], %[[DK]]
func.func @bmm(%q: tensor<2x4x8xf32> {mpt.role = #mpt.role<parameter>},
               %k: tensor<2x6x8xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %0 = mpt.batch_matmul %q, %k transpose_b : (tensor<2x4x8xf32>, tensor<2x6x8xf32>) -> tensor<2x4x6xf32>
  %s = mpt.reduce_sum %0 axes = [0, 1, 2] : tensor<2x4x6xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// softmax and log_softmax: one backward op each, given the result and its
// gradient, on the forward op's axis.
// CHECK-LABEL: func.func @softmaxes_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x4x6xf32> {mpt.role = #mpt.role<parameter>}
// CHECK-DAG: %[[P:.*]] = mpt.softmax %[[X]] : tensor<2x4x6xf32>
// CHECK-DAG: %[[L:.*]] = mpt.log_softmax %[[X]] axis = 1 : tensor<2x4x6xf32>
// CHECK-DAG: %[[DP:.*]] = mpt.softmax_grad %{{.*}}, %[[P]] : tensor<2x4x6xf32>
// CHECK-DAG: %[[DL:.*]] = mpt.log_softmax_grad %{{.*}}, %[[L]] axis = 1 : tensor<2x4x6xf32>
// CHECK-NOT: mpt.reduce_sum %{{.*}} axes = [2]
// CHECK: mpt.add %{{.*}}, %{{.*}} : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
func.func @softmaxes(%x: tensor<2x4x6xf32> {mpt.role = #mpt.role<parameter>},
                     %w: tensor<2x4x6xf32> {mpt.role = #mpt.role<input>}) -> tensor<f32> {
  %p = mpt.softmax %x : tensor<2x4x6xf32>
  %l = mpt.log_softmax %x axis = 1 : tensor<2x4x6xf32>
  %a = mpt.mul %p, %w : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %b = mpt.mul %l, %w : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %c = mpt.add %a, %b : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %s = mpt.reduce_sum %c axes = [0, 1, 2] : tensor<2x4x6xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A broadcast operand of lower rank with a size-1 dimension: its gradient
// is summed over the leading and the stretched axes, then reshaped back.
// sub negates the right operand's gradient; reduce_mean scales by 1/24.
// CHECK-LABEL: func.func @unbroadcast_grad(
// CHECK: %[[S:.*]] = mpt.constant dense<0.0416666679> : tensor<f32>
// CHECK: %[[DX:.*]] = mpt.mul %{{.*}}, %[[S]] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
// CHECK: %[[N:.*]] = mpt.neg %[[DX]] : tensor<2x3x4xf32>
// CHECK: %[[R:.*]] = mpt.reduce_sum %[[N]] axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK: %[[DB:.*]] = mpt.reshape %[[R]] : tensor<3xf32> to tensor<3x1xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DB]] : tensor<f32>, tensor<2x3x4xf32>, tensor<3x1xf32>
func.func @unbroadcast(%x: tensor<2x3x4xf32> {mpt.role = #mpt.role<parameter>},
                       %b: tensor<3x1xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %0 = mpt.sub %x, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %s = mpt.reduce_mean %0 axes = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Functions without parameters are left alone (no @eval_grad).
// CHECK-LABEL: func.func @eval(
// CHECK-NOT: @eval_grad
// CHECK-LABEL: func.func @train(
// CHECK-LABEL: func.func @train_grad(
// CHECK-NOT: @eval_grad
func.func @eval(%x: tensor<4xf32>) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @train(%x: tensor<4xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The order of a matmul's and a convolution's two gradients: the weight
// gradient first where that frees the activation it reads before the input
// gradient is made (the activation is read by nothing else, the weight
// lives on); the input gradient first otherwise.
// CHECK-LABEL: func.func @order_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x4x4xf32> {mpt.role = #mpt.role<input>},
// CHECK-SAME: %[[WC:[a-z0-9]+]]: tensor<4x3x3x3xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<16x16xf32> {mpt.role = #mpt.role<parameter>},
// CHECK-SAME: %[[W2:[a-z0-9]+]]: tensor<16x8xf32> {mpt.role = #mpt.role<parameter>})
// CHECK: %[[XR:.*]] = mpt.relu %[[X]]
// CHECK: %[[C:.*]] = mpt.conv2d %[[XR]], %[[WC]]
// CHECK: %[[H:.*]] = mpt.reshape %[[C]]
// CHECK: %[[A:.*]] = mpt.relu %{{.*}} : tensor<2x16xf32>
// CHECK: %[[Y:.*]] = mpt.matmul %[[A]], %[[W2]] :
// The relu's output is read by the second matmul only: W2's gradient, the
// reader of that activation, comes first.
// CHECK: %[[DW2:.*]] = mpt.matmul %[[A]], %[[G:[^ ]*]] transpose_a :
// CHECK-NEXT: %[[DA:.*]] = mpt.matmul %[[G]], %[[W2]] transpose_b :
// The reshaped convolution output is read twice (by the first matmul and
// by the add): the input gradient first, as the operands come.
// CHECK: %[[DH:.*]] = mpt.matmul %{{.*}}, %[[W1]] transpose_b :
// CHECK-NEXT: %[[DW1:.*]] = mpt.matmul %[[H]], %{{.*}} transpose_a :
// The convolution's input is read by it alone: the filter gradient first.
// CHECK: mpt.conv2d_backward_filter %[[XR]]
// CHECK-NEXT: mpt.conv2d_backward_data %{{.*}}, %[[WC]]
// CHECK: return
func.func @order(%x: tensor<2x3x4x4xf32> {mpt.role = #mpt.role<input>},
                 %wc: tensor<4x3x3x3xf32> {mpt.role = #mpt.role<parameter>},
                 %w1: tensor<16x16xf32> {mpt.role = #mpt.role<parameter>},
                 %w2: tensor<16x8xf32> {mpt.role = #mpt.role<parameter>})
    -> tensor<f32> {
  %xr = mpt.relu %x : tensor<2x3x4x4xf32>
  %c = mpt.conv2d %xr, %wc : (tensor<2x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x2x2xf32>
  %hs = mpt.reshape %c : tensor<2x4x2x2xf32> to tensor<2x16xf32>
  %m = mpt.matmul %hs, %w1 : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  %r = mpt.add %m, %hs : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %a = mpt.relu %r : tensor<2x16xf32>
  %y = mpt.matmul %a, %w2 : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32>
  %l = mpt.reduce_sum %y axes = [0, 1] : tensor<2x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A relu whose input has another reader: its gradient reads the input,
// which is kept anyway, rather than keeping the output too.
// CHECK-LABEL: func.func @relu_shared_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32> {mpt.role = #mpt.role<parameter>})
// CHECK: %[[P:.*]] = mpt.mul %[[X]], %[[X]]
// CHECK: %[[R:.*]] = mpt.relu %[[P]]
// CHECK: mpt.relu_grad %{{.*}}, %[[P]] : tensor<4x8xf32>
func.func @relu_shared(%x: tensor<4x8xf32> {mpt.role = #mpt.role<parameter>}) -> tensor<f32> {
  %p = mpt.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = mpt.relu %p : tensor<4x8xf32>
  %s = mpt.add %r, %p : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = mpt.reduce_sum %s axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
