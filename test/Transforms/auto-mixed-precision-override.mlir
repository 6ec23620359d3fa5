// The per-op override `mpt.precision = #mpt.precision<fp32>` (treated as
// deny) or `<low>` (treated as allow) wins over the op's class, and the
// verifier rejects any other value.

// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/override.mlir --mpt-auto-mixed-precision | FileCheck %s
// RUN: mpt-opt %t/override.mlir --mpt-auto-mixed-precision=type=bf16 | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %t/invalid.mlir -split-input-file -verify-diagnostics

//--- override.mlir

// fp32 on an allow op: the matmul stays fp32, with no cast and no acc(f32).
// CHECK-LABEL: func.func @matmul_fp32(
// CHECK-SAME:      %[[A:.*]]: tensor<16x16xf32>, %[[B:.*]]: tensor<16x16xf32>)
// CHECK-NEXT:    %[[C:.*]] = mpt.matmul %[[A]], %[[B]] {mpt.precision = #mpt.precision<fp32>} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT:    return %[[C]] : tensor<16x16xf32>
func.func @matmul_fp32(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = mpt.matmul %a, %b {mpt.precision = #mpt.precision<fp32>} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// low on a deny op: the exp runs in the low type on its own.
// CHECK-LABEL: func.func @exp_low(
// CHECK-SAME:      %[[A:.*]]: tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT:    %[[A16:.*]] = mpt.cast %[[A]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-NEXT:    %[[E:.*]] = mpt.exp %[[A16]] {mpt.precision = #mpt.precision<low>} : tensor<16x16xf16>
// CHECK-NEXT:    %[[R:.*]] = mpt.cast %[[E]] : tensor<16x16xf16> to tensor<16x16xf32>
// CHECK-NEXT:    return %[[R]] : tensor<16x16xf32>
// BF16-LABEL: func.func @exp_low(
// BF16:          mpt.exp %{{.*}} {mpt.precision = #mpt.precision<low>} : tensor<16x16xbf16>
func.func @exp_low(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = mpt.exp %a {mpt.precision = #mpt.precision<low>} : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// Forced low between two matmuls: no cast on either side of the exp.
// CHECK-LABEL: func.func @exp_low_between(
// CHECK:         %[[M:.*]] = mpt.matmul {{.*}} acc(f32) : {{.*}} -> tensor<16x16xf16>
// CHECK-NEXT:    %[[E:.*]] = mpt.exp %[[M]] {mpt.precision = #mpt.precision<low>} : tensor<16x16xf16>
// CHECK-NEXT:    mpt.matmul %[[E]], {{.*}} acc(f32) : {{.*}} -> tensor<16x16xf16>
func.func @exp_low_between(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = mpt.matmul %a, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = mpt.exp %0 {mpt.precision = #mpt.precision<low>} : tensor<16x16xf32>
  %2 = mpt.matmul %1, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %2 : tensor<16x16xf32>
}

// Forced fp32 on an infer op between two matmuls keeps it (and only it) fp32.
// CHECK-LABEL: func.func @add_fp32_between(
// CHECK:         %[[M:.*]] = mpt.matmul {{.*}} acc(f32) : {{.*}} -> tensor<16x16xf16>
// CHECK-NEXT:    %[[M32:.*]] = mpt.cast %[[M]] : tensor<16x16xf16> to tensor<16x16xf32>
// CHECK-NEXT:    %[[S:.*]] = mpt.add %[[M32]], %[[M32]] {mpt.precision = #mpt.precision<fp32>} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT:    %[[S16:.*]] = mpt.cast %[[S]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK-NEXT:    mpt.matmul %[[S16]], {{.*}} acc(f32) : {{.*}} -> tensor<16x16xf16>
func.func @add_fp32_between(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = mpt.matmul %a, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = mpt.add %0, %0 {mpt.precision = #mpt.precision<fp32>} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = mpt.matmul %1, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %2 : tensor<16x16xf32>
}

//--- invalid.mlir

func.func @not_a_precision(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'mpt.precision' must be #mpt.precision<fp32> or #mpt.precision<low>, got "low"}}
  %0 = mpt.exp %a {mpt.precision = "low"} : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @not_a_precision_value(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+2 {{expected ::mpt::Precision to be one of: fp32, low}}
  // expected-error @+1 {{failed to parse MPT_PrecisionAttr parameter 'value' which is to be a `::mpt::Precision`}}
  %0 = mpt.exp %a {mpt.precision = #mpt.precision<f16>} : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @misspelled(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{unknown attribute 'mpt.precison' on an operation; the mpt dialect defines only 'mpt.precision', 'mpt.recomputed' and 'mpt.tma_store' on operations}}
  %0 = mpt.exp %a {mpt.precison = #mpt.precision<low>} : tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
