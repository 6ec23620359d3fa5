// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file 2>/dev/null | mpt-opt -split-input-file -o /dev/null
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file 2>/dev/null | %python %S/Inputs/check_unique_casts.py
// The pass is idempotent: a second run changes nothing.
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file 2>/dev/null > %t.once
// RUN: mpt-opt %t.once --mpt-auto-mixed-precision -split-input-file 2>/dev/null > %t.twice
// RUN: diff %t.once %t.twice

// mpt-auto-mixed-precision on arith/math ops on tensors (external models of
// PrecisionPolicyExternalModels.cpp), with tosa.matmul as the allow op.

// arith.addf (infer) and math.tanh (infer) lie on the path from one matmul
// to another but are not between allow ops: allow-propagation only follows
// edges that would carry a low-precision value, and tosa.matmul keeps its
// f32 output, so the edge from the first matmul into the addf carries f32
// and the addf (and the tanh after it) is not downstream of an allow op.
// Both stay f32, the bias is not cast, and the tanh result is cast to f16
// once for the second matmul. math.exp (deny) stays f32 and spreads deny to
// the arith.mulf (infer) after it, which takes the first matmul's f32 output
// with no cast.
// CHECK-LABEL: func.func @arith_math(
// CHECK-SAME: %[[A:.*]]: tensor<1x8x16xf32>, %[[B:.*]]: tensor<1x16x16xf32>, %[[C:.*]]: tensor<1x16x4xf32>, %[[BIAS:.*]]: tensor<1x8x16xf32>, %[[ZP:.*]]: tensor<1xf32>)
// CHECK-DAG: %[[CH:.*]] = mpt.cast %[[C]] : tensor<1x16x4xf32> to tensor<1x16x4xf16>
// CHECK: %[[M0:.*]] = tosa.matmul {{.*}} -> tensor<1x8x16xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[M0]], %[[BIAS]] : tensor<1x8x16xf32>
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[S]] : tensor<1x8x16xf32>
// CHECK-NEXT: %[[TH:.*]] = mpt.cast %[[T]] : tensor<1x8x16xf32> to tensor<1x8x16xf16>
// CHECK-NEXT: %[[M1:.*]] = tosa.matmul %[[TH]], %[[CH]], {{.*}} : (tensor<1x8x16xf16>, tensor<1x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[M0]] : tensor<1x8x16xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[E]], %[[BIAS]] : tensor<1x8x16xf32>
// CHECK-NEXT: return %[[M1]], %[[P]] : tensor<1x8x4xf32>, tensor<1x8x16xf32>
func.func @arith_math(%a: tensor<1x8x16xf32>, %b: tensor<1x16x16xf32>, %c: tensor<1x16x4xf32>, %bias: tensor<1x8x16xf32>, %zp: tensor<1xf32>) -> (tensor<1x8x4xf32>, tensor<1x8x16xf32>) {
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %1 = arith.addf %0, %bias : tensor<1x8x16xf32>
  %2 = math.tanh %1 : tensor<1x8x16xf32>
  %3 = tosa.matmul %2, %c, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %4 = math.exp %0 : tensor<1x8x16xf32>
  %5 = arith.mulf %4, %bias : tensor<1x8x16xf32>
  return %3, %5 : tensor<1x8x4xf32>, tensor<1x8x16xf32>
}

// -----

// math.log (deny) -> arith.negf (clear) -> math.sqrt (infer) -> matmul: deny
// spreads through the clear op to the infer op; one cast before the matmul.
// CHECK-LABEL: func.func @deny_through_negf(
// CHECK: %[[L:.*]] = math.log %{{.*}} : tensor<1x8x16xf32>
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[L]] : tensor<1x8x16xf32>
// CHECK-NEXT: %[[Q:.*]] = math.sqrt %[[N]] : tensor<1x8x16xf32>
// CHECK-NEXT: %[[QH:.*]] = mpt.cast %[[Q]] : tensor<1x8x16xf32> to tensor<1x8x16xf16>
// CHECK-NEXT: tosa.matmul %[[QH]],
func.func @deny_through_negf(%x: tensor<1x8x16xf32>, %w: tensor<1x16x4xf32>, %zp: tensor<1xf32>) -> tensor<1x8x4xf32> {
  %0 = math.log %x : tensor<1x8x16xf32>
  %1 = arith.negf %0 : tensor<1x8x16xf32>
  %2 = math.sqrt %1 : tensor<1x8x16xf32>
  %3 = tosa.matmul %2, %w, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  return %3 : tensor<1x8x4xf32>
}

// -----

// Clear arith ops next to an allow op go f16: arith.maximumf before the
// matmul (and its constant operand is converted at compile time).
// CHECK-LABEL: func.func @clear_maximumf(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x16xf32>
// CHECK-DAG: %[[XH:.*]] = mpt.cast %[[X]] : tensor<1x8x16xf32> to tensor<1x8x16xf16>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<1x8x16xf16>
// CHECK: %[[R:.*]] = arith.maximumf %[[XH]], %[[ZERO]] : tensor<1x8x16xf16>
// CHECK-NEXT: tosa.matmul %[[R]],
func.func @clear_maximumf(%x: tensor<1x8x16xf32>, %w: tensor<1x16x4xf32>, %zp: tensor<1xf32>) -> tensor<1x8x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x8x16xf32>
  %0 = arith.maximumf %x, %zero : tensor<1x8x16xf32>
  %1 = tosa.matmul %0, %w, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  return %1 : tensor<1x8x4xf32>
}

// -----

// A dense arith.constant used by an allow op is converted to an f16
// arith.constant at compile time (no cast), and the f32 one disappears.
// CHECK-LABEL: func.func @constant_operand(
// CHECK-NOT: mpt.cast %cst
// CHECK-NOT: arith.constant dense<5.000000e-01> : tensor<1x16x4xf32>
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<1x16x4xf16>
// CHECK-NEXT: tosa.matmul %{{.*}}, %[[W]], %{{.*}}, %{{.*}} : (tensor<1x8x16xf16>, tensor<1x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf32>
func.func @constant_operand(%a: tensor<1x8x16xf32>, %zp: tensor<1xf32>) -> tensor<1x8x4xf32> {
  %w = arith.constant dense<0.5> : tensor<1x16x4xf32>
  %0 = tosa.matmul %a, %w, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  return %0 : tensor<1x8x4xf32>
}

// -----

// A constant beyond the f16 range stays f32 (with a remark) and keeps the
// allow op that consumes it in f32.
// CHECK-LABEL: func.func @constant_out_of_range(
// CHECK-NOT: mpt.cast
// CHECK: %[[W:.*]] = arith.constant dense<1.000000e+05> : tensor<1x16x4xf32>
// CHECK-NEXT: tosa.matmul %{{.*}}, %[[W]], %{{.*}}, %{{.*}} : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
func.func @constant_out_of_range(%a: tensor<1x8x16xf32>, %zp: tensor<1xf32>) -> tensor<1x8x4xf32> {
  // expected-remark @below {{constant has values beyond the range of 'f16' (|x| = 1.000000e+05); kept in fp32}}
  %w = arith.constant dense<1.0e+05> : tensor<1x16x4xf32>
  // expected-remark @below {{kept in fp32: operand arith.constant}}
  %0 = tosa.matmul %a, %w, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  return %0 : tensor<1x8x4xf32>
}

// -----

// Scalar arith/math ops are not tensor ops: untouched, even next to an
// allow op.
// CHECK-LABEL: func.func @scalars(
// CHECK-SAME: %[[A:.*]]: f32, %[[B:.*]]: f32
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT: return %[[E]],
func.func @scalars(%a: f32, %b: f32, %t: tensor<1x8x8xf32>, %zp: tensor<1xf32>) -> (f32, tensor<1x8x8xf32>) {
  %0 = tosa.matmul %t, %t, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %1 = arith.addf %a, %b : f32
  %2 = math.exp %1 : f32
  return %2, %0 : f32, tensor<1x8x8xf32>
}
