// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file -verify-diagnostics | FileCheck %s
// The pass is idempotent: a second run changes nothing.
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file 2>/dev/null > %t.once
// RUN: mpt-opt %t.once --mpt-auto-mixed-precision -split-input-file 2>/dev/null > %t.twice
// RUN: diff %t.once %t.twice
// The coloring rules of mpt-auto-mixed-precision on mpt graphs, one scenario
// per function.

// An allow op runs in f16, accumulates in f32, and is cast back at the
// function boundary (keep-io-types).
// CHECK-LABEL: func.func @allow(
// CHECK-SAME: %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-DAG: %[[BH:.*]] = mpt.cast %[[B]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-DAG: %[[AH:.*]] = mpt.cast %[[A]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[M:.*]] = mpt.matmul %[[AH]], %[[BH]] acc(f32) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK: %[[R:.*]] = mpt.cast %[[M]] : tensor<4x16xf16> to tensor<4x16xf32>
// CHECK: return %[[R]]
func.func @allow(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = mpt.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// deny -> infer -> clear -> allow: deny spreads to the infer op (it lies on a
// path to an infer op) but not to the clear op, which joins the allow op.
// CHECK-LABEL: func.func @deny_infer_clear_allow(
// CHECK: %[[E:.*]] = mpt.exp %{{.*}} : tensor<4x8xf32>
// CHECK: %[[S:.*]] = mpt.add %[[E]], %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[SH:.*]] = mpt.cast %[[S]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[R:.*]] = mpt.relu %[[SH]] : tensor<4x8xf16>
// CHECK: mpt.matmul %[[R]], %{{.*}} acc(f32) : (tensor<4x8xf16>, tensor<8x16xf16>)
func.func @deny_infer_clear_allow(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = mpt.exp %x : tensor<4x8xf32>
  %1 = mpt.add %0, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = mpt.relu %1 : tensor<4x8xf32>
  %3 = mpt.matmul %2, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// -----

// deny -> clear -> infer: the whole path to the infer op turns deny, so the
// clear op between them stays f32 even though an allow op follows.
// CHECK-LABEL: func.func @deny_through_clear_to_infer(
// CHECK: %[[L:.*]] = mpt.log %{{.*}} : tensor<4x8xf32>
// CHECK: %[[T:.*]] = mpt.transpose %[[L]] perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK: %[[M:.*]] = mpt.mul %[[T]], %[[T]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: %[[MH:.*]] = mpt.cast %[[M]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK: mpt.matmul %[[MH]]
func.func @deny_through_clear_to_infer(%x: tensor<4x8xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %0 = mpt.log %x : tensor<4x8xf32>
  %1 = mpt.transpose %0 perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %2 = mpt.mul %1, %1 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %3 = mpt.matmul %2, %w : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
}

// -----

// infer between two allow ops joins them: no cast between the matmuls.
// CHECK-LABEL: func.func @infer_between_allow(
// CHECK: %[[M1:.*]] = mpt.matmul {{.*}} -> tensor<4x8xf16>
// CHECK-NEXT: %[[A:.*]] = mpt.add %[[M1]], %{{.*}} : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: %[[G:.*]] = mpt.gelu %[[A]] : tensor<4x8xf16>
// CHECK-NEXT: mpt.matmul %[[G]], %{{.*}} acc(f32) : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
func.func @infer_between_allow(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %b: tensor<8xf32>, %w2: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = mpt.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = mpt.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = mpt.gelu %1 : tensor<4x8xf32>
  %3 = mpt.matmul %2, %w2 : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %3 : tensor<4x2xf32>
}

// -----

// An infer op after an allow op that feeds a deny op is not between allow
// ops: it stays f32, and the cast comes right after the matmul.
// CHECK-LABEL: func.func @infer_before_deny(
// CHECK: %[[M:.*]] = mpt.matmul {{.*}} -> tensor<4x10xf16>
// CHECK-NEXT: %[[MF:.*]] = mpt.cast %[[M]] : tensor<4x10xf16> to tensor<4x10xf32>
// CHECK-NEXT: %[[A:.*]] = mpt.add %[[MF]], %{{.*}} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: mpt.softmax %[[A]] : tensor<4x10xf32>
func.func @infer_before_deny(%x: tensor<4x8xf32>, %w: tensor<8x10xf32>, %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %0 = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x10xf32>) -> tensor<4x10xf32>
  %1 = mpt.add %0, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %2 = mpt.softmax %1 : tensor<4x10xf32>
  return %2 : tensor<4x10xf32>
}

// -----

// The softmax gradient between the attention's backward batch matmuls is
// infer like the softmax: it reads the f16 probabilities and the f16
// gradient of the P V matmul and feeds the f16 batch matmul of dS; no cast
// between them (only the function's results are widened).
// CHECK-LABEL: func.func @softmax_grad_between_matmuls(
// CHECK: %[[S:.*]] = mpt.batch_matmul {{.*}} -> tensor<2x4x4xf16>
// CHECK-NEXT: %[[P:.*]] = mpt.softmax %[[S]] : tensor<2x4x4xf16>
// CHECK: %[[DP:.*]] = mpt.batch_matmul {{.*}} -> tensor<2x4x4xf16>
// CHECK-NEXT: %[[DS:.*]] = mpt.softmax_grad %[[DP]], %[[P]] : tensor<2x4x4xf16>
// CHECK-NEXT: %[[DQ:.*]] = mpt.batch_matmul %[[DS]], {{.*}} -> tensor<2x4x8xf16>
// CHECK-NEXT: mpt.cast %{{.*}} : tensor<2x4x8xf16> to tensor<2x4x8xf32>
// CHECK-NEXT: mpt.cast %[[DQ]] : tensor<2x4x8xf16> to tensor<2x4x8xf32>
// CHECK-NEXT: return
func.func @softmax_grad_between_matmuls(%q: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %g: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %s = mpt.batch_matmul %q, %q transpose_b : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %p = mpt.softmax %s : tensor<2x4x4xf32>
  %o = mpt.batch_matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %dp = mpt.batch_matmul %g, %v transpose_b : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %ds = mpt.softmax_grad %dp, %p : tensor<2x4x4xf32>
  %dq = mpt.batch_matmul %ds, %q : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o, %dq : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// Allow propagates forward through clear ops (relu, reshape) ...
// CHECK-LABEL: func.func @clear_forward(
// CHECK: %[[M:.*]] = mpt.matmul {{.*}} -> tensor<4x8xf16>
// CHECK-NEXT: %[[R:.*]] = mpt.relu %[[M]] : tensor<4x8xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.reshape %[[R]] : tensor<4x8xf16> to tensor<32xf16>
// CHECK-NEXT: %[[SF:.*]] = mpt.cast %[[S]] : tensor<32xf16> to tensor<32xf32>
// CHECK-NEXT: return %[[SF]]
func.func @clear_forward(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<32xf32> {
  %0 = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = mpt.relu %0 : tensor<4x8xf32>
  %2 = mpt.reshape %1 : tensor<4x8xf32> to tensor<32xf32>
  return %2 : tensor<32xf32>
}

// -----

// ... and backward: the transpose of an argument runs in f16, so the cast is
// on the argument.
// CHECK-LABEL: func.func @clear_backward(
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf32>
// CHECK: %[[XH:.*]] = mpt.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK: %[[T:.*]] = mpt.transpose %[[XH]] perm = [1, 0] : tensor<8x4xf16> -> tensor<4x8xf16>
// CHECK: mpt.matmul %[[T]]
func.func @clear_backward(%x: tensor<8x4xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.transpose %x perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %1 = mpt.matmul %0, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A value used by several low-precision ops is cast once.
// CHECK-LABEL: func.func @one_cast_per_value(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>
// CHECK-COUNT-1: mpt.cast %[[X]] :
// CHECK-NOT: mpt.cast %[[X]] :
// CHECK: return
func.func @one_cast_per_value(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = mpt.matmul %x, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Values carried around a loop stay f32: the body casts the iteration
// argument, and the yield gets an f32 value. A loop-invariant operand is cast
// once, outside the loop.
// CHECK-LABEL: func.func @loop(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>
// CHECK: %[[WH:.*]] = mpt.cast %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK: scf.for {{.*}} iter_args(%[[H:.*]] = %[[X]]) -> (tensor<4x8xf32>)
// CHECK-NEXT: %[[HH:.*]] = mpt.cast %[[H]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[M:.*]] = mpt.matmul %[[HH]], %[[WH]] acc(f32)
// CHECK-NEXT: %[[MF:.*]] = mpt.cast %[[M]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[T:.*]] = mpt.tanh %[[MF]] : tensor<4x8xf32>
// CHECK-NEXT: scf.yield %[[T]] : tensor<4x8xf32>
func.func @loop(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<4x8xf32>) {
    %m = mpt.matmul %h, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %t = mpt.tanh %m : tensor<4x8xf32>
    scf.yield %t : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// An existing cast whose users all run in low precision is absorbed: bf16 ->
// f32 becomes bf16 -> f16.
// CHECK-LABEL: func.func @absorb_cast(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xbf16>
// CHECK: %[[XH:.*]] = mpt.cast %[[X]] : tensor<4x8xbf16> to tensor<4x8xf16>
// CHECK: mpt.matmul %[[XH]]
func.func @absorb_cast(%x: tensor<4x8xbf16>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.cast %x : tensor<4x8xbf16> to tensor<4x8xf32>
  %1 = mpt.matmul %0, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// An f16 value cast to f32 for a deny op is used directly by the allow op:
// the round trip f16 -> f32 -> f16 folds.
// CHECK-LABEL: func.func @round_trip(
// CHECK-SAME: %[[Y:.*]]: tensor<4x8xf16>
// CHECK: %[[YF:.*]] = mpt.cast %[[Y]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: mpt.exp %[[YF]]
// CHECK: mpt.matmul %[[Y]], %{{.*}} acc(f32) : (tensor<4x8xf16>
func.func @round_trip(%y: tensor<4x8xf16>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.cast %y : tensor<4x8xf16> to tensor<4x8xf32>
  %1 = mpt.exp %0 : tensor<4x8xf32>
  %2 = mpt.matmul %0, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An f32 value that was already cast to f16 reuses that cast; converting it
// back for a deny op uses the f32 original (f32 -> f16 -> f32 folds).
// CHECK-LABEL: func.func @reuse_existing_cast(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>
// CHECK: %[[XH:.*]] = mpt.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NOT: mpt.cast %[[X]] :
// CHECK: mpt.matmul %[[XH]]
// CHECK: mpt.exp %[[X]]
func.func @reuse_existing_cast(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %h = mpt.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  %m = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e = mpt.exp %x : tensor<4x8xf32>
  return %h, %m, %e : tensor<4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Constants that fit f16 are converted at compile time; a constant beyond
// f16's range stays f32 (with a remark), and so does the matmul using it.
// CHECK-LABEL: func.func @constants(
// CHECK-DAG: %[[C:.*]] = mpt.constant dense<5.000000e-01> : tensor<8x8xf16>
// CHECK-DAG: %[[BIG:.*]] = mpt.constant dense<1.000000e+05> : tensor<8x8xf32>
// CHECK-NOT: mpt.constant dense<5.000000e-01> : tensor<8x8xf32>
// CHECK: mpt.matmul %{{.*}}, %[[C]] acc(f32) : (tensor<4x8xf16>, tensor<8x8xf16>)
// CHECK: mpt.matmul %{{.*}}, %[[BIG]] : (tensor<4x8xf32>, tensor<8x8xf32>)
func.func @constants(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = mpt.constant dense<0.5> : tensor<8x8xf32>
  // expected-remark @+1 {{constant has values beyond the range of 'f16' (|x| = 1.000000e+05); kept in fp32}}
  %big = mpt.constant dense<1.0e5> : tensor<8x8xf32>
  %0 = mpt.matmul %x, %c : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{kept in fp32: operand mpt.constant}}
  %1 = mpt.matmul %x, %big : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An out-of-range constant acts as a deny op: the add it feeds stays f32.
// CHECK-LABEL: func.func @constant_as_deny(
// CHECK: %[[A:.*]] = mpt.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
func.func @constant_as_deny(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{constant has values beyond the range of 'f16'}}
  %big = mpt.constant dense<7.0e4> : tensor<8xf32>
  %0 = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = mpt.add %0, %big : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = mpt.matmul %1, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// Data that is not f32 (here f64) is left alone.
// CHECK-LABEL: func.func @f64_untouched(
// CHECK-NEXT: mpt.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf64>, tensor<8x8xf64>) -> tensor<4x8xf64>
// CHECK-NOT: mpt.cast
func.func @f64_untouched(%x: tensor<4x8xf64>, %w: tensor<8x8xf64>) -> tensor<4x8xf64> {
  %0 = mpt.matmul %x, %w : (tensor<4x8xf64>, tensor<8x8xf64>) -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

// Contractions of every kind get acc(f32): batch_matmul and conv2d.
// CHECK-LABEL: func.func @contractions(
// CHECK: mpt.batch_matmul %{{.*}}, %{{.*}} transpose_b acc(f32) : (tensor<2x4x8xf16>, tensor<2x4x8xf16>) -> tensor<2x4x4xf16>
// CHECK: mpt.conv2d %{{.*}}, %{{.*}} pad [1, 1, 1, 1] acc(f32) : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x8x8xf16>
func.func @contractions(%q: tensor<2x4x8xf32>, %x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) -> (tensor<2x4x4xf32>, tensor<1x4x8x8xf32>) {
  %0 = mpt.batch_matmul %q, %q transpose_b : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %1 = mpt.conv2d %x, %f pad [1, 1, 1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0, %1 : tensor<2x4x4xf32>, tensor<1x4x8x8xf32>
}

// -----

// conv -> batch_norm -> relu -> conv: batch_norm is infer, so between the
// convolutions it reads and writes f16; its scale and bias stay f32 (no
// cast) and its statistics are f32 inside the op. Its gradient, between the
// convolutions' gradients, takes f16 data and returns f32 scale and bias
// gradients.
// CHECK-LABEL: func.func @batch_norm_between_convs(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x8x4x4xf32>, %[[W1:[a-z0-9_]+]]: tensor<8x8x1x1xf32>, %[[G:[a-z0-9_]+]]: tensor<8xf32>, %[[B:[a-z0-9_]+]]: tensor<8xf32>
// CHECK-NOT: mpt.cast %[[G]]
// CHECK-NOT: mpt.cast %[[B]]
// CHECK: %[[C1:.*]] = mpt.conv2d %{{.*}} acc(f32) : (tensor<2x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<2x8x4x4xf16>
// CHECK: %[[N:.*]] = mpt.batch_norm %[[C1]], %[[G]], %[[B]] : (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf16>
// CHECK: %[[R:.*]] = mpt.relu %[[N]] : tensor<2x8x4x4xf16>
// CHECK: mpt.conv2d %[[R]], %{{.*}} acc(f32) : (tensor<2x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<2x8x4x4xf16>
// CHECK: %[[DR:.*]] = mpt.conv2d_backward_data %{{.*}} acc(f32) : (tensor<2x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<2x8x4x4xf16>
// CHECK: %[[DX:.*]], %[[DG:.*]], %[[DB:.*]] = mpt.batch_norm_grad %[[DR]], %[[C1]], %[[G]] : (tensor<2x8x4x4xf16>, tensor<2x8x4x4xf16>, tensor<8xf32>) -> (tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>)
// CHECK: mpt.conv2d_backward_filter %{{.*}}, %[[DX]] acc(f32)
// CHECK: return %{{.*}}, %{{.*}}, %[[DG]], %[[DB]] : tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>
func.func @batch_norm_between_convs(%x: tensor<2x8x4x4xf32>, %w1: tensor<8x8x1x1xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %w2: tensor<8x8x1x1xf32>, %dy: tensor<2x8x4x4xf32>) -> (tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = mpt.conv2d %x, %w1 : (tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %1 = mpt.batch_norm %0, %g, %b : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %2 = mpt.relu %1 : tensor<2x8x4x4xf32>
  %3 = mpt.conv2d %2, %w2 : (tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %4 = mpt.conv2d_backward_data %dy, %w2 : (tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %5:3 = mpt.batch_norm_grad %4, %0, %g : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
  %6 = mpt.conv2d_backward_filter %x, %5#0 : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<8x8x1x1xf32>
  return %3, %6, %5#1, %5#2 : tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// batch_norm feeding only a deny op stays f32 (infer, not between allow
// ops): the conv's f16 result is cast once before it.
// CHECK-LABEL: func.func @batch_norm_before_deny(
// CHECK: %[[C:.*]] = mpt.conv2d %{{.*}} acc(f32) : (tensor<2x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<2x8x4x4xf16>
// CHECK: %[[CF:.*]] = mpt.cast %[[C]] : tensor<2x8x4x4xf16> to tensor<2x8x4x4xf32>
// CHECK: mpt.batch_norm %[[CF]], %{{.*}} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
func.func @batch_norm_before_deny(%x: tensor<2x8x4x4xf32>, %w: tensor<8x8x1x1xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = mpt.conv2d %x, %w : (tensor<2x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %1 = mpt.batch_norm %0, %g, %g : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %2 = mpt.global_avg_pool %1 : tensor<2x8x4x4xf32> -> tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// -----

// layer_norm is deny by default (the residual stream stays f32). Forced low,
// it keeps its f32 scale and bias like batch_norm.
// CHECK-LABEL: func.func @layer_norm_default_and_forced(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[G:[a-z0-9_]+]]: tensor<8xf32>
// CHECK: %[[XH:.*]] = mpt.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[L:.*]] = mpt.layer_norm %[[X]], %[[G]], %[[G]] : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: mpt.cast %[[L]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[LH:.*]] = mpt.layer_norm %[[XH]], %[[G]], %[[G]] {mpt.precision = #mpt.precision<low>} : (tensor<4x8xf16>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf16>
func.func @layer_norm_default_and_forced(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.layer_norm %x, %g, %g : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = mpt.matmul %0, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %2 = mpt.layer_norm %x, %g, %g {mpt.precision = #mpt.precision<low>} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = mpt.matmul %2, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A cast of an op's result sits right before its first user, not right
// after the value: %e's f32 copy is only read by the exp at the end, so it
// is made there (had it been made after the matmul, it would be live, as
// large as %e, across everything between). Casts of arguments stay at the
// top, together.
// CHECK-LABEL: func.func @late_cast(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x8xf32>
// CHECK-DAG: %[[WH:.*]] = mpt.cast %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG: %[[XH:.*]] = mpt.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[E:.*]] = mpt.matmul %[[XH]], %[[WH]] acc(f32)
// CHECK-NEXT: %[[F:.*]] = mpt.matmul %[[E]], %[[WH]] acc(f32)
// CHECK-NEXT: %[[G:.*]] = mpt.matmul %[[F]], %[[WH]] acc(f32)
// CHECK-NEXT: %[[EF:.*]] = mpt.cast %[[E]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[H:.*]] = mpt.exp %[[EF]]
// CHECK-NEXT: %[[GF:.*]] = mpt.cast %[[G]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: return %[[GF]], %[[H]]
func.func @late_cast(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %f = mpt.matmul %e, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %g = mpt.matmul %f, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %h = mpt.exp %e : tensor<4x8xf32>
  return %g, %h : tensor<4x8xf32>, tensor<4x8xf32>
}
