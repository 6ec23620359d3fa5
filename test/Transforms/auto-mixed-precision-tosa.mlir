// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file | FileCheck %s
// The output verifies and parses back, and no value is cast twice.
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file | mpt-opt -split-input-file -o /dev/null
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file | %python %S/Inputs/check_unique_casts.py
// The pass is idempotent: a second run changes nothing.
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file > %t.once
// RUN: mpt-opt %t.once --mpt-auto-mixed-precision -split-input-file > %t.twice
// RUN: diff %t.once %t.twice

// mpt-auto-mixed-precision on tosa graphs (classes from the external models
// of PrecisionPolicyExternalModels.cpp), one scenario per function.

// tosa.matmul (allow): f16 operands through mpt.cast, f32 output kept; the
// zero points (tosa.const, clear) are converted at compile time to f16
// constants and the f32 ones disappear.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
// CHECK-DAG: %[[BH:.*]] = mpt.cast %[[B]] : tensor<2x16x4xf32> to tensor<2x16x4xf16>
// CHECK-DAG: %[[AH:.*]] = mpt.cast %[[A]] : tensor<2x8x16xf32> to tensor<2x8x16xf16>
// CHECK-DAG: %[[AZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
// CHECK-DAG: %[[BZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
// CHECK-NOT: tensor<1xf32>
// CHECK: %[[M:.*]] = tosa.matmul %[[AH]], %[[BH]], %[[AZP]], %[[BZP]] : (tensor<2x8x16xf16>, tensor<2x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x4xf32>
// CHECK-NOT: mpt.cast
// CHECK: return %[[M]] : tensor<2x8x4xf32>
func.func @matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x4xf32>) -> tensor<2x8x4xf32> {
  %azp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %bzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<2x8x16xf32>, tensor<2x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

// tosa.conv2d (allow): input, weight, bias and zero points in f16, f16
// result, acc_type f32; the result is cast back to f32 for tosa.exp (deny).
// CHECK-LABEL: func.func @conv2d_then_exp(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<8x3x3x4xf32>, %[[BIAS:.*]]: tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-DAG: %[[XH:.*]] = mpt.cast %[[X]] : tensor<1x8x8x4xf32> to tensor<1x8x8x4xf16>
// CHECK-DAG: %[[WH:.*]] = mpt.cast %[[W]] : tensor<8x3x3x4xf32> to tensor<8x3x3x4xf16>
// CHECK-DAG: %[[BH:.*]] = mpt.cast %[[BIAS]] : tensor<8xf32> to tensor<8xf16>
// CHECK-DAG: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
// CHECK: %[[C:.*]] = tosa.conv2d %[[XH]], %[[WH]], %[[BH]], %[[ZP]], %[[ZP]] {acc_type = f32, {{.*}}} : (tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16>, tensor<8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8x8xf16>
// CHECK-NEXT: %[[CF:.*]] = mpt.cast %[[C]] : tensor<1x8x8x8xf16> to tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[E:.*]] = tosa.exp %[[CF]] : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: return %[[E]] : tensor<1x8x8x8xf32>
func.func @conv2d_then_exp(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>, %bias: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %1 = tosa.exp %0 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %1 : tensor<1x8x8x8xf32>
}

// -----

// matmul -> add (infer) -> matmul: allow-propagation only follows edges
// that would carry a low-precision value, from a result that changes type
// into an operand that changes type. tosa.matmul keeps its f32 output, so
// the edge from the first matmul into the add carries f32 and the add is not
// downstream of an allow op: it is not between allow ops and stays f32. It
// adds the bias to the unrounded matmul output, and its result is cast to
// f16 once, for the second matmul (one rounding instead of rounding the
// matmul output and then the sum). The bias is not cast.
// CHECK-LABEL: func.func @infer_between_matmuls(
// CHECK-SAME: %[[A:.*]]: tensor<1x8x16xf32>, %[[B:.*]]: tensor<1x16x16xf32>, %[[BIAS:.*]]: tensor<1x8x16xf32>, %[[C:.*]]: tensor<1x16x4xf32>, %[[ZP:.*]]: tensor<1xf32>)
// CHECK-DAG: %[[ZPH:.*]] = mpt.cast %[[ZP]] : tensor<1xf32> to tensor<1xf16>
// CHECK-DAG: %[[CH:.*]] = mpt.cast %[[C]] : tensor<1x16x4xf32> to tensor<1x16x4xf16>
// CHECK-NOT: mpt.cast %[[BIAS]]
// CHECK: %[[M0:.*]] = tosa.matmul %{{.*}}, %{{.*}}, %[[ZPH]], %[[ZPH]] : (tensor<1x8x16xf16>, tensor<1x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x16xf32>
// CHECK-NEXT: %[[S:.*]] = tosa.add %[[M0]], %[[BIAS]] : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
// CHECK-NEXT: %[[SH:.*]] = mpt.cast %[[S]] : tensor<1x8x16xf32> to tensor<1x8x16xf16>
// CHECK-NEXT: %[[M1:.*]] = tosa.matmul %[[SH]], %[[CH]], %[[ZPH]], %[[ZPH]] : (tensor<1x8x16xf16>, tensor<1x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf32>
// CHECK-NEXT: return %[[M1]] : tensor<1x8x4xf32>
func.func @infer_between_matmuls(%a: tensor<1x8x16xf32>, %b: tensor<1x16x16xf32>, %bias: tensor<1x8x16xf32>, %c: tensor<1x16x4xf32>, %zp: tensor<1xf32>) -> tensor<1x8x4xf32> {
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %1 = tosa.add %0, %bias : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %2 = tosa.matmul %1, %c, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  return %2 : tensor<1x8x4xf32>
}

// -----

// An infer op after a single matmul is not between allow ops: it stays f32
// and takes the matmul's f32 output with no cast.
// CHECK-LABEL: func.func @infer_after_matmul(
// CHECK: %[[M:.*]] = tosa.matmul {{.*}} -> tensor<1x8x4xf32>
// CHECK-NEXT: %[[S:.*]] = tosa.add %[[M]], %{{.*}} : (tensor<1x8x4xf32>, tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @infer_after_matmul(%a: tensor<1x8x16xf32>, %b: tensor<1x16x4xf32>, %bias: tensor<1x8x4xf32>, %zp: tensor<1xf32>) -> tensor<1x8x4xf32> {
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %1 = tosa.add %0, %bias : (tensor<1x8x4xf32>, tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  return %1 : tensor<1x8x4xf32>
}

// -----

// exp (deny) -> add (infer) -> reshape (clear) -> matmul (allow): deny
// spreads to the add (an infer op) and stops there; the reshape is clear next
// to the matmul and runs in f16, with one cast between the add and it.
// CHECK-LABEL: func.func @deny_stops_at_clear(
// CHECK-SAME: %[[X:.*]]: tensor<8x16xf32>, %[[Y:.*]]: tensor<8x16xf32>
// CHECK: %[[SHAPE:.*]] = tosa.const_shape
// CHECK-NEXT: %[[E:.*]] = tosa.exp %[[X]] : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[S:.*]] = tosa.add %[[E]], %[[Y]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[SH:.*]] = mpt.cast %[[S]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-NEXT: %[[R:.*]] = tosa.reshape %[[SH]], %[[SHAPE]] : (tensor<8x16xf16>, !tosa.shape<3>) -> tensor<1x8x16xf16>
// CHECK-NEXT: tosa.matmul %[[R]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8x16xf16>, tensor<1x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf32>
func.func @deny_stops_at_clear(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %w: tensor<1x16x4xf32>, %zp: tensor<1xf32>) -> tensor<1x8x4xf32> {
  %s = tosa.const_shape {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %0 = tosa.exp %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = tosa.add %0, %y : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %2 = tosa.reshape %1, %s : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<1x8x16xf32>
  %3 = tosa.matmul %2, %w, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  return %3 : tensor<1x8x4xf32>
}

// -----

// Clear ops next to a conv2d go low through the clear-propagation step:
// transpose (NCHW -> NHWC) before it, maximum (ReLU against a zero
// constant) and reshape after it. The f32 input is cast before the
// transpose, the result back to f32 at the return.
// CHECK-LABEL: func.func @clear_around_conv2d(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x8x8xf32>
// CHECK: %[[XH:.*]] = mpt.cast %[[X]] : tensor<1x4x8x8xf32> to tensor<1x4x8x8xf16>
// CHECK-DAG: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1x1xf16>}> : () -> tensor<1x1x1x1xf16>
// CHECK-DAG: %[[T:.*]] = tosa.transpose %[[XH]] {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x8x8xf16>) -> tensor<1x8x8x4xf16>
// CHECK: %[[C:.*]] = tosa.conv2d %[[T]], {{.*}} -> tensor<1x8x8x8xf16>
// CHECK-NEXT: %[[R:.*]] = tosa.maximum %[[C]], %[[ZERO]] : (tensor<1x8x8x8xf16>, tensor<1x1x1x1xf16>) -> tensor<1x8x8x8xf16>
// CHECK-NEXT: %[[F:.*]] = tosa.reshape %[[R]], %{{.*}} : (tensor<1x8x8x8xf16>, !tosa.shape<2>) -> tensor<64x8xf16>
// CHECK-NEXT: %[[FF:.*]] = mpt.cast %[[F]] : tensor<64x8xf16> to tensor<64x8xf32>
// CHECK-NEXT: return %[[FF]] : tensor<64x8xf32>
func.func @clear_around_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x4xf32>, %bias: tensor<8xf32>, %zp: tensor<1xf32>) -> tensor<64x8xf32> {
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %s = tosa.const_shape {values = dense<[64, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
  %1 = tosa.conv2d %0, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %2 = tosa.maximum %1, %zero : (tensor<1x8x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x8xf32>
  %3 = tosa.reshape %2, %s : (tensor<1x8x8x8xf32>, !tosa.shape<2>) -> tensor<64x8xf32>
  return %3 : tensor<64x8xf32>
}

// -----

// A clear op next to a deny op only (no allow op around) stays f32, and an
// infer op between two deny ops is deny.
// CHECK-LABEL: func.func @no_allow(
// CHECK-NOT: mpt.cast
// CHECK-NOT: f16
// CHECK: return
func.func @no_allow(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %1 = tosa.log %0 : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %2 = tosa.tanh %1 : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %3 = tosa.exp %2 : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
}

// -----

// A value used by several low-precision ops is cast once, right after its
// definition, and the cast is shared.
// CHECK-LABEL: func.func @shared_cast(
// CHECK-SAME: %[[A:.*]]: tensor<1x8x8xf32>
// CHECK: %[[AH:.*]] = mpt.cast %[[A]] : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-NOT: mpt.cast %[[A]]
// CHECK: tosa.matmul %[[AH]], %[[AH]],
// CHECK-NOT: mpt.cast %[[A]]
// CHECK: tosa.matmul %[[AH]], %[[AH]],
func.func @shared_cast(%a: tensor<1x8x8xf32>, %zp: tensor<1xf32>) -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>) {
  %0 = tosa.matmul %a, %a, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %1 = tosa.matmul %a, %a, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  return %0, %1 : tensor<1x8x8xf32>, tensor<1x8x8xf32>
}
