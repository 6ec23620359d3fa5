// mpt-fuse-elementwise and pads: a pad of an elementwise op's result (the
// zero-padded f16 copy of a weight: a cast, then a pad to a multiple of 8)
// becomes its result inserted into a fill of the padded tensor made before
// it, so that eliminate-empty-tensors has it write into the fill's
// interior and bufferization makes one buffer and no unpadded copy
// (emulate-padded-step.test). A slice of an
// elementwise op's result becomes the op over slices of its inputs, and a
// slice of a pad that lies within the pad's source a slice of the source:
// the zero-padded f16 loss gradient (a cast of (y - pad(t)) * s, sliced to
// the model's size and padded again) is one op writing the interior of the
// padded tensor, reading the label itself. Not rewritten: an op whose
// result has another user, whose payload reads its output, or that reads a
// matmul's result (the rounding that the Tensor Core kernel's epilogue
// computes), and a slice that reaches into the padding. Except that a
// rounding that keeps f32 (a padded weight gradient's), sliced from the
// origin, reads the slice of the product and fuses with the unscaling that
// reads it: the Tensor Core kernel's epilogue then stores the unpadded
// gradient (epilogue.mlir).
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-fuse-elementwise))" | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>

// CHECK-LABEL: func.func @pad_of_cast(
// CHECK-SAME: %[[W:[^:]*]]: tensor<6x7xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f16
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x8xf16>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ONE]] : f16) outs(%[[E]] : tensor<8x8xf16>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<6x7xf32>) outs(%{{.*}} : tensor<6x7xf16>)
// CHECK: arith.truncf
// CHECK: %[[P:.*]] = tensor.insert_slice %[[C]] into %[[F]][1, 0] [6, 7] [1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return %[[P]]
func.func @pad_of_cast(%w: tensor<6x7xf32>) -> tensor<8x8xf16> {
  %one = arith.constant 1.0 : f16
  %e = tensor.empty() : tensor<6x7xf16>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<6x7xf32>) outs(%e : tensor<6x7xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6x7xf16>
  %p = tensor.pad %c low[1, 0] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %one : f16
  } : tensor<6x7xf16> to tensor<8x8xf16>
  return %p : tensor<8x8xf16>
}

// CHECK-LABEL: func.func @loss_gradient(
// CHECK-SAME: %[[Y:[^:]*]]: tensor<4x8xf32>, %[[T:[^:]*]]: tensor<4x7xf32>, %[[SC:[^:]*]]: tensor<f32>
// CHECK: %[[YS:.*]] = tensor.extract_slice %[[Y]][0, 0] [4, 7] [1, 1] : tensor<4x8xf32> to tensor<4x7xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[YS]], %[[T]], %[[SC]] : tensor<4x7xf32>, tensor<4x7xf32>, tensor<f32>) outs(%{{.*}} : tensor<4x7xf16>)
// CHECK: tensor.insert_slice %[[G]] into %[[F]][0, 0] [4, 7] [1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @loss_gradient(%y: tensor<4x8xf32>, %t: tensor<4x7xf32>, %s: tensor<f32>) -> tensor<4x8xf16> {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  %tp = tensor.pad %t low[0, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x7xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf16>
  %g = linalg.generic {indexing_maps = [#id, #id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %tp, %s : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f16):
    %d = arith.subf %a, %b : f32
    %m = arith.mulf %d, %c : f32
    %h = arith.truncf %m : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x8xf16>
  %sl = tensor.extract_slice %g[0, 0] [4, 7] [1, 1] : tensor<4x8xf16> to tensor<4x7xf16>
  %p = tensor.pad %sl low[0, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero16 : f16
  } : tensor<4x7xf16> to tensor<4x8xf16>
  return %p : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @kept(
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: tensor.pad %[[C]]
// CHECK: %[[O:.*]] = linalg.generic
// CHECK: tensor.pad %[[O]]
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8x8xf32>)
// CHECK: tensor.pad %[[R]]
// CHECK: %[[R2:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8x8xf32>)
// CHECK: tensor.extract_slice %[[R2]]
// CHECK: %[[TP:.*]] = tensor.pad
// CHECK: tensor.extract_slice %[[TP]][0, 0] [6, 8] [1, 1]
// CHECK: return
func.func @kept(%w: tensor<6x7xf32>, %a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %t: tensor<6x7xf32>)
    -> (tensor<8x8xf16>, tensor<6x7xf16>, tensor<8x8xf16>, tensor<10x10xf16>, tensor<6x7xf16>, tensor<6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  // Two users.
  %e = tensor.empty() : tensor<6x7xf16>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<6x7xf32>) outs(%e : tensor<6x7xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t0 = arith.truncf %in : f32 to f16
    linalg.yield %t0 : f16
  } -> tensor<6x7xf16>
  %p = tensor.pad %c low[0, 0] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero16 : f16
  } : tensor<6x7xf16> to tensor<8x8xf16>
  // The payload reads the output.
  %o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<6x7xf32>) outs(%c : tensor<6x7xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t1 = arith.truncf %in : f32 to f16
    %s1 = arith.addf %t1, %out : f16
    linalg.yield %s1 : f16
  } -> tensor<6x7xf16>
  %po = tensor.pad %o low[0, 0] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero16 : f16
  } : tensor<6x7xf16> to tensor<8x8xf16>
  // The rounding after a matmul (its epilogue), padded and sliced.
  %ea = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e8 = tensor.empty() : tensor<8x8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x8xf32>) outs(%e8 : tensor<8x8xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t2 = arith.truncf %in : f32 to f16
    linalg.yield %t2 : f16
  } -> tensor<8x8xf16>
  %pr = tensor.pad %r low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero16 : f16
  } : tensor<8x8xf16> to tensor<10x10xf16>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x8xf32>) outs(%e8 : tensor<8x8xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t3 = arith.truncf %in : f32 to f16
    %n3 = arith.negf %t3 : f16
    linalg.yield %n3 : f16
  } -> tensor<8x8xf16>
  %sr = tensor.extract_slice %r2[0, 0] [6, 7] [1, 1] : tensor<8x8xf16> to tensor<6x7xf16>
  // A slice of a pad that takes some of the padding.
  %tp = tensor.pad %t low[0, 0] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<6x7xf32> to tensor<8x8xf32>
  %st = tensor.extract_slice %tp[0, 0] [6, 8] [1, 1] : tensor<8x8xf32> to tensor<6x8xf32>
  return %p, %c, %po, %pr, %sr, %st : tensor<8x8xf16>, tensor<6x7xf16>, tensor<8x8xf16>, tensor<10x10xf16>, tensor<6x7xf16>, tensor<6x8xf32>
}

// CHECK-LABEL: func.func @padded_gradient(
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[S:.*]] = tensor.extract_slice %[[M]][0, 0] [7, 7] [1, 1] : tensor<8x8xf32> to tensor<7x7xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[S]], %{{.*}} : tensor<7x7xf32>, tensor<f32>) outs(%{{.*}} : tensor<7x7xf32>)
// CHECK: arith.truncf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: tensor.extract_slice %[[R]][1, 1] [7, 7] [1, 1]
// CHECK: return
func.func @padded_gradient(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %s: tensor<f32>) -> (tensor<7x7xf32>, tensor<7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %round = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x8xf32>) outs(%ea : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %w = arith.extf %t : f16 to f32
    linalg.yield %w : f32
  } -> tensor<8x8xf32>
  %sl = tensor.extract_slice %round[0, 0] [7, 7] [1, 1] : tensor<8x8xf32> to tensor<7x7xf32>
  %e7 = tensor.empty() : tensor<7x7xf32>
  %g = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sl, %s : tensor<7x7xf32>, tensor<f32>) outs(%e7 : tensor<7x7xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %u = arith.mulf %in, %k : f32
    linalg.yield %u : f32
  } -> tensor<7x7xf32>
  // Not from the origin: the rounding stays whole.
  %round2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x8xf32>) outs(%ea : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %w = arith.extf %t : f16 to f32
    linalg.yield %w : f32
  } -> tensor<8x8xf32>
  %sl2 = tensor.extract_slice %round2[1, 1] [7, 7] [1, 1] : tensor<8x8xf32> to tensor<7x7xf32>
  return %g, %sl2 : tensor<7x7xf32>, tensor<7x7xf32>
}
