// RUN: mpt-opt %s --mpt-auto-mixed-precision | FileCheck %s --implicit-check-not="tensor<8x4xf16>"

// The edge rule of allow-propagation: an edge counts for "between allow
// ops" (and for clear-propagation) only when it would carry a low-precision
// value, from a result that changes type into an operand that changes type.
// A linalg contraction's result and its `outs` (the accumulator) stay f32, so
// neither the edge from the first matmul into the addf nor the edge from the
// addf into the second matmul's `outs` counts. Without that rule the addf
// would count as between allow ops, run in f16 and be cast back to f32 for
// the `outs`: a rounding of the accumulator's initial value through f16 for
// nothing.

// matmul -> addf -> `outs` of a second matmul: the addf works on f32 data
// only (an f32 result in, an f32 accumulator out), so it stays f32 and no
// cast touches it.
// CHECK-LABEL: func.func @infer_feeds_accumulator(
// CHECK: %[[M0:.*]] = linalg.matmul ins({{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: mpt.cast %[[M0]]
// CHECK: %[[INIT:.*]] = arith.addf %[[M0]], %{{.*}} : tensor<8x4xf32>
// CHECK-NOT: mpt.cast %[[INIT]]
// CHECK: %[[M1:.*]] = linalg.matmul ins({{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[INIT]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: return %[[M1]]
func.func @infer_feeds_accumulator(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %bias: tensor<8x4xf32>, %o: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%o : tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = arith.addf %0, %bias : tensor<8x4xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}
