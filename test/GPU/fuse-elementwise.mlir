// mpt-fuse-elementwise: upstream's elementwise fusion, except that reshapes
// are not propagated into named matmuls nor into the ops of their epilogue
// chains (the rounding after a matmul and the elementwise ops that read it),
// and that an elementwise op reading an expand_shape of such a chain runs
// at the unexpanded shape instead, so that it fuses into the chain. A
// projection of a batch of tokens (collapse, matmul, rounding, expand,
// residual add) keeps its linalg.matmul, and the rounding and the residual
// add become one generic that reads the matmul's result (the Tensor Core
// kernel's epilogue); upstream's pass turns the matmul into a 3-d
// linalg.generic contraction (UPSTREAM). Elementwise ops still fuse, and
// reshapes still propagate through elementwise ops elsewhere.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-fuse-elementwise))" | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(linalg-fuse-elementwise-ops))" | FileCheck %s --check-prefix=UPSTREAM

#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>

// CHECK-LABEL: func.func @projection(
// CHECK-SAME: %[[XIN:[^:]*]]: tensor<4x16x64xf16>, %[[W:[^:]*]]: tensor<64x64xf16>, %[[RES:[^:]*]]: tensor<4x16x64xf16>
// CHECK: %[[X:.*]] = tensor.collapse_shape %[[XIN]] {{\[\[}}0, 1], [2]] : tensor<4x16x64xf16> into tensor<64x64xf16>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<64x64xf16>, tensor<64x64xf16>)
// CHECK: %[[R2:.*]] = tensor.collapse_shape %[[RES]] {{\[\[}}0, 1], [2]] : tensor<4x16x64xf16> into tensor<64x64xf16>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[R2]] : tensor<64x64xf32>, tensor<64x64xf16>)
// CHECK: arith.truncf
// CHECK-NEXT: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %[[Y]]
// UPSTREAM-LABEL: func.func @projection(
// UPSTREAM-NOT: linalg.matmul
// UPSTREAM: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @projection(%x: tensor<4x16x64xf16>, %w: tensor<64x64xf16>, %res: tensor<4x16x64xf16>) -> tensor<4x16x64xf16> {
  %zero = arith.constant 0.0 : f32
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<4x16x64xf16> into tensor<64x64xf16>
  %e = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %p = linalg.matmul ins(%flat, %w : tensor<64x64xf16>, tensor<64x64xf16>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e16 = tensor.empty() : tensor<64x64xf16>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x64xf32>) outs(%e16 : tensor<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x64xf16>
  %y = tensor.expand_shape %r [[0, 1], [2]] output_shape [4, 16, 64] : tensor<64x64xf16> into tensor<4x16x64xf16>
  %e3 = tensor.empty() : tensor<4x16x64xf16>
  %sum = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %res : tensor<4x16x64xf16>, tensor<4x16x64xf16>) outs(%e3 : tensor<4x16x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<4x16x64xf16>
  return %sum : tensor<4x16x64xf16>
}

// Two elementwise ops on a collapsed tensor: one generic, expanded to the
// source's shape, and the collapse after it.
// CHECK-LABEL: func.func @elementwise(
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<4x16x64xf32> into tensor<64x64xf32>
func.func @elementwise(%x: tensor<4x16x64xf32>) -> tensor<64x64xf32> {
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<4x16x64xf32> into tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%flat : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %inc = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %a = arith.addf %in, %one : f32
    linalg.yield %a : f32
  } -> tensor<64x64xf32>
  return %inc : tensor<64x64xf32>
}
