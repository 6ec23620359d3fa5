// mpt-untie-empty-tensors: the users of one tensor.empty (what CSE makes of
// the empties of unrelated outputs) are split into chains, a user joining
// the chain of another when it reads a value that bufferization writes into
// that one's buffer (its result, or the result of an op that took it as its
// destination). Each chain after the first gets its own empty, made right
// after the original (which dominates every user); a chain keeps one empty,
// so bufferization may still write a result over the value it reads.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-untie-empty-tensors))" | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @chains(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[E3:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x8xf32>)
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} outs(%[[F]] : tensor<8x8xf32>)
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%[[E]] : tensor<8x8xf32>)
// CHECK: %[[V:.*]] = linalg.generic {{.*}} outs(%[[E2]] : tensor<8x8xf32>)
// CHECK: %[[T:.*]] = linalg.generic {{.*}} outs(%[[E3]] : tensor<8x8xf32>)
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<8x8xf32>) outs(%[[E2]] : tensor<8x8xf32>)
// CHECK-NOT: tensor.empty
// CHECK: return %[[U]], %[[W]], %[[T]]
func.func @chains(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>,
                  %x: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  // The matmul accumulates into the fill, and the bias add reads the
  // matmul: one chain.
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>)
                     outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  // Unrelated to the first chain: a chain of two of its own (%v, then %w
  // reading it).
  %v = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.mulf %p, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  // Unrelated to both.
  %t = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %w = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %u, %w, %t : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// An empty with one user is left alone.
// CHECK-LABEL: func.func @single(
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: tensor.empty
func.func @single(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %c = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// Dynamic sizes: the clone takes the same sizes.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[N:[^:]*]]: index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT: %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: linalg.copy {{.*}} outs(%[[E]] : tensor<?xf32>)
// CHECK: linalg.copy {{.*}} outs(%[[E2]] : tensor<?xf32>)
func.func @dynamic(%n: index, %x: tensor<?xf32>, %y: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %c = linalg.copy ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %d = linalg.copy ins(%y : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %c, %d : tensor<?xf32>, tensor<?xf32>
}

// A user inside a region: its clone is made after the original, outside,
// where it dominates the region.
// CHECK-LABEL: func.func @nested(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.copy {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK: scf.if
// CHECK-NEXT: linalg.copy {{.*}} outs(%[[E2]] : tensor<4xf32>)
func.func @nested(%c: i1, %x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.if %c -> tensor<4xf32> {
    %b = linalg.copy ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  } else {
    scf.yield %y : tensor<4xf32>
  }
  return %a, %r : tensor<4xf32>, tensor<4xf32>
}

// One zero fill that two matmuls start from (CSE merges equal fills): each
// gets a fill of its own, so that the two matmuls, and the bias adds that
// read them, are two chains, not one through the shared fill. (Until
// 2026-12-07 they were one: bufferization wrote the Q, K and V projections
// of the transformer block's fp32 step into one buffer, and the head split
// of Q and K had to be copied out before the next projection overwrote it.)
// CHECK-LABEL: func.func @shared_fill(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x8xf32>)
// CHECK-NEXT: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8x8xf32>)
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} outs(%[[F]] : tensor<8x8xf32>)
// CHECK: %[[N:.*]] = linalg.matmul {{.*}} outs(%[[F2]] : tensor<8x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%[[E]] : tensor<8x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[N]], %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%[[E2]] : tensor<8x8xf32>)
// CHECK-NOT: tensor.empty
func.func @shared_fill(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
                       %c: tensor<8x8xf32>, %x: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %n = linalg.matmul ins(%a, %c : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%n, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %u, %v : tensor<8x8xf32>, tensor<8x8xf32>
}

// The clone of a shared fill is made as late as its user's operands allow,
// right after the last of them (here the producer of %late, which the
// second reduction reads in its body, not as an operand), not next to the
// original fill: a fill is the first write of its buffer, and the buffer
// lives from there (`mpt-gpu-reuse-buffers`). Until 2026-12-07 the clone of
// the max pool gradient's zero fill sat at the top of the CNN step, and its
// f32 buffer was live through the whole forward pass (524,288 bytes more at
// the peak of the CNN's steps).
// CHECK-LABEL: func.func @late_fill(
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E:.*]] : tensor<8xf32>)
// CHECK-NEXT: %[[S:.*]] = linalg.generic {{.*}} outs(%[[F]] : tensor<8xf32>)
// CHECK: %[[LATE:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}} : tensor<8x8xf32>) outs(%[[F2]] : tensor<8xf32>)
// CHECK: tensor.extract %[[LATE]]
func.func @late_fill(%x: tensor<8x8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %o, %p : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %late = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.mulf %p, %p : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %l = tensor.extract %late[%i, %j] : tensor<8x8xf32>
    %m = arith.mulf %p, %l : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %t : tensor<8xf32>, tensor<8xf32>
}
