// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file | FileCheck %s
// The output verifies (the named ops' bodies match the new operand types),
// parses back, and no value is cast twice.
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file | mpt-opt -split-input-file -o /dev/null
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file | %python %S/Inputs/check_unique_casts.py
// The pass is idempotent: a second run changes nothing.
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file > %t.once
// RUN: mpt-opt %t.once --mpt-auto-mixed-precision -split-input-file > %t.twice
// RUN: diff %t.once %t.twice

// The rebuilt named op's implicit body extends the f16 inputs to f32 and
// accumulates in f32.
// RUN: mpt-opt %s --mpt-auto-mixed-precision -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=BODY

// mpt-auto-mixed-precision on linalg named contractions on tensors: the `ins`
// take f16, the `outs` (the accumulator) and the result stay f32, and the op
// is rebuilt so that its implicit body matches the new `ins` types.

// linalg.matmul: ins cast to f16, outs and result f32.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x4xf32>, %[[O:.*]]: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[AH:.*]] = mpt.cast %[[A]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-DAG: %[[BH:.*]] = mpt.cast %[[B]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK-NOT: mpt.cast %[[O]]
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[AH]], %[[BH]] : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[O]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: return %[[M]] : tensor<8x4xf32>
// BODY-LABEL: sym_name = "matmul"
// BODY: "linalg.matmul"
// BODY-NEXT: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// BODY-NEXT: %[[XF:.*]] = "arith.extf"(%[[X]]) : (f16) -> f32
// BODY-NEXT: %[[YF:.*]] = "arith.extf"(%[[Y]]) : (f16) -> f32
// BODY-NEXT: %[[P:.*]] = "arith.mulf"(%[[XF]], %[[YF]]) {{.*}} : (f32, f32) -> f32
// BODY-NEXT: %[[S:.*]] = "arith.addf"(%[[ACC]], %[[P]]) {{.*}} : (f32, f32) -> f32
// BODY-NEXT: "linalg.yield"(%[[S]]) : (f32) -> ()
// BODY-NEXT: }) : (tensor<8x16xf16>, tensor<16x4xf16>, tensor<8x4xf32>) -> tensor<8x4xf32>
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %o: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%o : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// linalg.batch_matmul: the same, batched.
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME: %[[A:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<2x16x4xf32>, %[[O:.*]]: tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-DAG: %[[AH:.*]] = mpt.cast %[[A]] : tensor<2x8x16xf32> to tensor<2x8x16xf16>
// CHECK-DAG: %[[BH:.*]] = mpt.cast %[[B]] : tensor<2x16x4xf32> to tensor<2x16x4xf16>
// CHECK-NOT: mpt.cast %[[O]]
// CHECK: %[[M:.*]] = linalg.batch_matmul ins(%[[AH]], %[[BH]] : tensor<2x8x16xf16>, tensor<2x16x4xf16>) outs(%[[O]] : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT: return %[[M]] : tensor<2x8x4xf32>
func.func @batch_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x4xf32>, %o: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x4xf32>) outs(%o : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

// linalg.conv_2d_nhwc_hwcf: input and filter f16, outs and result f32.
// CHECK-LABEL: func.func @conv_2d_nhwc_hwcf(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<3x3x4x8xf32>, %[[O:.*]]: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
// CHECK-DAG: %[[XH:.*]] = mpt.cast %[[X]] : tensor<1x8x8x4xf32> to tensor<1x8x8x4xf16>
// CHECK-DAG: %[[WH:.*]] = mpt.cast %[[W]] : tensor<3x3x4x8xf32> to tensor<3x3x4x8xf16>
// CHECK-NOT: mpt.cast %[[O]]
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XH]], %[[WH]] : tensor<1x8x8x4xf16>, tensor<3x3x4x8xf16>) outs(%[[O]] : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
// CHECK-NEXT: return %[[C]] : tensor<1x6x6x8xf32>
func.func @conv_2d_nhwc_hwcf(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>, %o: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%o : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

// arith.addf (infer) between two linalg.matmul ops: as with tosa.matmul,
// allow-propagation only follows edges that would carry a low-precision
// value, and a linalg contraction's result (like its `outs`) stays f32. The
// edge from the first matmul into the addf carries f32, so the addf is not
// downstream of an allow op and stays f32: it adds the f32 bias (no cast) to
// the unrounded matmul result, and its sum is cast to f16 once for the second
// matmul's `ins`. math.exp (deny) on the same f32 result stays f32, with no
// cast.
// CHECK-LABEL: func.func @addf_between_matmuls(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x16xf32>, %[[BIAS:.*]]: tensor<8x16xf32>, %[[C:.*]]: tensor<16x4xf32>, %[[O0:.*]]: tensor<8x16xf32>, %[[O1:.*]]: tensor<8x4xf32>)
// CHECK-DAG: %[[CH:.*]] = mpt.cast %[[C]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK: %[[M0:.*]] = linalg.matmul ins({{.*}} : tensor<8x16xf16>, tensor<16x16xf16>) outs(%[[O0]] : tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[M0]], %[[BIAS]] : tensor<8x16xf32>
// CHECK-NEXT: %[[SH:.*]] = mpt.cast %[[S]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-NEXT: %[[M1:.*]] = linalg.matmul ins(%[[SH]], %[[CH]] : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[O1]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[M0]] : tensor<8x16xf32>
// CHECK-NEXT: return %[[M1]], %[[E]] : tensor<8x4xf32>, tensor<8x16xf32>
func.func @addf_between_matmuls(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>, %bias: tensor<8x16xf32>, %c: tensor<16x4xf32>, %o0: tensor<8x16xf32>, %o1: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x16xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%o0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = arith.addf %0, %bias : tensor<8x16xf32>
  %2 = linalg.matmul ins(%1, %c : tensor<8x16xf32>, tensor<16x4xf32>) outs(%o1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %3 = math.exp %0 : tensor<8x16xf32>
  return %2, %3 : tensor<8x4xf32>, tensor<8x16xf32>
}

// -----

// A dense arith.constant used as an `ins` operand is converted to an f16
// arith.constant at compile time; the f32 one disappears.
// CHECK-LABEL: func.func @constant_ins(
// CHECK-NOT: arith.constant dense<5.000000e-01> : tensor<16x4xf32>
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<16x4xf16>
// CHECK-NOT: mpt.cast %[[W]]
// CHECK: linalg.matmul ins(%{{.*}}, %[[W]] : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
func.func @constant_ins(%a: tensor<8x16xf32>, %o: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %w = arith.constant dense<0.5> : tensor<16x4xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%o : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
