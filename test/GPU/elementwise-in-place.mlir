// mpt-elementwise-in-place: an elementwise op whose destination is a
// tensor.empty (not read by its payload) takes an input of the result's
// type, read at the result's indices, that nothing else reads and an op of
// the block makes; bufferization then writes the result over it.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-elementwise-in-place))" | FileCheck %s
// After bufferization: one buffer for the GELU backward's input gradient
// and output gradient.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-elementwise-in-place),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" | FileCheck %s --check-prefix=BUF

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// The gradient of a GELU's input (x * g, a stand-in payload) overwrites
// its output's gradient %g, the product of a matmul read by nothing else;
// %x is read again after, so it is not taken.
// CHECK-LABEL: func.func @gelu_grad(
// CHECK: %[[G:.*]] = linalg.matmul
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[G]], %{{.*}} : tensor<8x16xf32>, tensor<8x16xf32>) outs(%[[G]] : tensor<8x16xf32>)
// CHECK: return %[[D]]
// BUF-LABEL: func.func @gelu_grad(
// BUF-COUNT-1: memref.alloc() {{.*}} : memref<8x16xf32>
// BUF-NOT: memref.alloc
// BUF: return
func.func @gelu_grad(%dy: tensor<8x4xf32>, %w: tensor<4x16xf32>,
                     %x: tensor<8x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %g = linalg.matmul ins(%dy, %w : tensor<8x4xf32>, tensor<4x16xf32>)
                     outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%g, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %d, %x : tensor<8x16xf32>, tensor<8x16xf32>
}

// Not taken: a function argument (the caller's buffer), an input read
// again later, an input of another element type, a broadcast input, and a
// view of another tensor.
// CHECK-LABEL: func.func @kept(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%[[E]] :
// CHECK: %[[C:.*]] = linalg.generic {{.*}} outs(%[[E]] :
// CHECK: linalg.generic {{.*}} outs(%[[E]] :
// CHECK: linalg.generic {{.*}} outs(%[[E]] :
// CHECK: linalg.generic {{.*}} outs(%[[E]] :
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<4x8xf32>) outs(%[[C]] : tensor<4x8xf32>)
func.func @kept(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>, %b: tensor<8xf32>,
                %v: tensor<32xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<32xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  // The argument %x.
  %a = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  // %a is read here and returned.
  %c = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.mulf %p, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  // f16 in, f32 out.
  %hh_e = tensor.empty() : tensor<4x8xf16>
  %hh = linalg.negf ins(%h : tensor<4x8xf16>) outs(%hh_e : tensor<4x8xf16>) -> tensor<4x8xf16>
  %d = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%hh : tensor<4x8xf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f16, %o: f32):
    %s = arith.extf %p : f16 to f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  // A row broadcast of a vector.
  %bb_e = tensor.empty() : tensor<8xf32>
  %bb = linalg.negf ins(%b : tensor<8xf32>) outs(%bb_e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%bb : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<4x8xf32>
  // A view of %vv, which is returned too.
  %vv_e = tensor.empty() : tensor<32xf32>
  %vv = linalg.negf ins(%v : tensor<32xf32>) outs(%vv_e : tensor<32xf32>) -> tensor<32xf32>
  %view = tensor.expand_shape %vv [[0, 1]] output_shape [4, 8]
      : tensor<32xf32> into tensor<4x8xf32>
  %w = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%view : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  // Taken: the last reader of %c, which is a product of this block.
  %z = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %a, %d, %r, %w, %z, %vv : tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<32xf32>
}

// A reduction, and an op whose payload reads its destination, keep it.
// CHECK-LABEL: func.func @not_elementwise(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.negf
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E2]] : tensor<4x8xf32>)
func.func @not_elementwise(%x: tensor<4x8xf32>)
    -> (tensor<4xf32>, tensor<4x8xf32>) {
  %x2_e = tensor.empty() : tensor<4x8xf32>
  %x2 = linalg.negf ins(%x : tensor<4x8xf32>) outs(%x2_e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x2 : tensor<4x8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %x3_e = tensor.empty() : tensor<4x8xf32>
  %x3 = linalg.negf ins(%x : tensor<4x8xf32>) outs(%x3_e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x3 : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %sum, %acc : tensor<4xf32>, tensor<4x8xf32>
}
