// mpt-consume-early: an elementwise op that is the last reader of tensors
// larger than its result moves up to right after the last op that makes a
// value it reads, with the slice that only it reads, its empty destination
// (shared or not) and the scalar arithmetic it reads (as early as that
// arithmetic's own operands allow). The unscaling of a padded gradient's
// slice then runs right after the gradient's matmul and its rounding, not
// after the last gradient; so does the rounding of a matmul's result,
// which frees as much as it takes (the Tensor Core kernel's epilogue). An
// op that frees only as much as it takes otherwise, reads a tensor that
// something else reads too, or reads an argument, stays.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-consume-early))" | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>

// CHECK-LABEL: func.func @padded_gradient(
// CHECK-SAME: %[[A:[^:]*]]: tensor<16x8xf16>, %[[B:[^:]*]]: tensor<8x16xf16>, %[[C:[^:]*]]: tensor<16x16xf16>, %[[S:[^:]*]]: tensor<f32>
// CHECK: %[[X:.*]] = tensor.extract %[[S]][]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[X]] : f32
// CHECK-NEXT: %[[IT:.*]] = tensor.from_elements %[[INV]] : tensor<f32>
// CHECK: %[[M1:.*]] = linalg.matmul ins(%[[A]], %[[B]]
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<16x16xf32>
// CHECK-NEXT: %[[R1:.*]] = linalg.generic {{.*}} ins(%[[M1]] : tensor<16x16xf32>) outs(%[[E1]] : tensor<16x16xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<15x15xf32>
// CHECK-NEXT: %[[S1:.*]] = tensor.extract_slice %[[R1]][0, 0] [15, 15] [1, 1]
// CHECK-NEXT: %[[U1:.*]] = linalg.generic {{.*}} ins(%[[S1]], %[[IT]] : tensor<15x15xf32>, tensor<f32>) outs(%[[E2]] : tensor<15x15xf32>)
// CHECK: %[[M2:.*]] = linalg.matmul ins(%[[C]], %[[C]]
// CHECK: %[[U2:.*]] = linalg.generic {{.*}} outs(%[[E2]] : tensor<15x15xf32>)
// CHECK: return %[[U1]], %[[U2]]
func.func @padded_gradient(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %c: tensor<16x16xf16>, %s: tensor<f32>)
    -> (tensor<15x15xf32>, tensor<15x15xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<16x8xf16>, tensor<8x16xf16>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m2 = linalg.matmul ins(%c, %c : tensor<16x16xf16>, tensor<16x16xf16>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %w = arith.extf %t : f16 to f32
    linalg.yield %w : f32
  } -> tensor<16x16xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2 : tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %w = arith.extf %t : f16 to f32
    linalg.yield %w : f32
  } -> tensor<16x16xf32>
  %x = tensor.extract %s[] : tensor<f32>
  %inv = arith.divf %one, %x : f32
  %it = tensor.from_elements %inv : tensor<f32>
  %e2 = tensor.empty() : tensor<15x15xf32>
  %s1 = tensor.extract_slice %r1[0, 0] [15, 15] [1, 1] : tensor<16x16xf32> to tensor<15x15xf32>
  %u1 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s1, %it : tensor<15x15xf32>, tensor<f32>) outs(%e2 : tensor<15x15xf32>) {
  ^bb0(%g: f32, %k: f32, %out: f32):
    %p = arith.mulf %g, %k : f32
    linalg.yield %p : f32
  } -> tensor<15x15xf32>
  %s2 = tensor.extract_slice %r2[0, 0] [15, 15] [1, 1] : tensor<16x16xf32> to tensor<15x15xf32>
  %u2 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s2, %it : tensor<15x15xf32>, tensor<f32>) outs(%e2 : tensor<15x15xf32>) {
  ^bb0(%g: f32, %k: f32, %out: f32):
    %p = arith.mulf %g, %k : f32
    linalg.yield %p : f32
  } -> tensor<15x15xf32>
  return %u1, %u2 : tensor<15x15xf32>, tensor<15x15xf32>
}

// CHECK-LABEL: func.func @kept(
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: %[[Z:.*]] = linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<16x16xf32>) outs(%{{.*}} : tensor<16x16xf16>)
// CHECK: linalg.generic {{.*}} ins(%[[G]] : tensor<16x16xf32>) outs(%{{.*}} : tensor<16x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<16x16xf32>) outs(%{{.*}} : tensor<16x16xf16>)
// CHECK: return
func.func @kept(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %w: tensor<16x16xf32>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf16>, tensor<16x16xf32>, tensor<16x16xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x8xf16>, tensor<8x16xf16>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  %z = linalg.matmul ins(%a, %b : tensor<16x8xf16>, tensor<8x16xf16>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e16 = tensor.empty() : tensor<16x16xf16>
  // M is returned too: nothing dies here.
  %n16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<16x16xf32>) outs(%e16 : tensor<16x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x16xf16>
  // G dies here, but as many bytes as it frees are taken, and G is not a
  // matmul's result.
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<16x16xf32>
  // An argument: the caller's memory.
  %d16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<16x16xf32>) outs(%e16 : tensor<16x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x16xf16>
  return %m, %z, %n16, %q, %d16 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf16>, tensor<16x16xf32>, tensor<16x16xf16>
}
