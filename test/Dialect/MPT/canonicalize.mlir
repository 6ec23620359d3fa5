// RUN: mpt-opt %s -canonicalize -split-input-file | FileCheck %s

// The folders of the mpt dialect. Where an op must disappear, a CHECK-NOT
// between the function signature and its return proves it is gone.

//===----------------------------------------------------------------------===//
// mpt.cast
//===----------------------------------------------------------------------===//

// A cast to the operand's own type folds away.
// CHECK-LABEL: func.func @cast_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: mpt.cast
// CHECK: return %[[X]] : tensor<4xf32>
func.func @cast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mpt.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f16 -> f32 -> bf16: f32 holds every f16 exactly, so the chain is one cast.
// CHECK-LABEL: func.func @cast_exact_intermediate(
// CHECK-SAME: %[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: %[[C:.*]] = mpt.cast %[[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT: return %[[C]] : tensor<4xbf16>
func.func @cast_exact_intermediate(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = mpt.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = mpt.cast %0 : tensor<4xf32> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// f32 -> f16 -> f32 rounds through f16 and changes values: both casts stay.
// CHECK-LABEL: func.func @cast_narrow_round_trip_kept(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[H:.*]] = mpt.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[F:.*]] = mpt.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: return %[[F]] : tensor<4xf32>
func.func @cast_narrow_round_trip_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mpt.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = mpt.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// f16 -> f32 -> f16 is exact both ways: it folds to the original value.
// CHECK-LABEL: func.func @cast_wide_round_trip(
// CHECK-SAME: %[[X:.*]]: tensor<4xf16>)
// CHECK-NOT: mpt.cast
// CHECK: return %[[X]] : tensor<4xf16>
func.func @cast_wide_round_trip(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mpt.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = mpt.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// A cast of a float constant folds to the rounded constant: underflow to 0 in
// f16, overflow to inf in f16 (0x7C00) and to NaN in f8E4M3FN (0x7F, it has
// no inf), round to nearest in f16 and bf16.
// CHECK-LABEL: func.func @cast_constant(
// CHECK-NOT: mpt.cast
// CHECK: %[[TINY:.*]] = mpt.constant dense<0.000000e+00> : tensor<f16>
// CHECK-NEXT: %[[INF:.*]] = mpt.constant dense<0x7C00> : tensor<f16>
// CHECK-NEXT: %[[NAN:.*]] = mpt.constant dense<0x7F> : tensor<f8E4M3FN>
// CHECK-NEXT: %[[BIG:.*]] = mpt.constant dense<7.014400e+04> : tensor<bf16>
// CHECK-NEXT: %[[VEC:.*]] = mpt.constant dense<[9.997550e-02, 3.000000e+00]> : tensor<2xf16>
// CHECK-NOT: mpt.cast
// CHECK: return %[[TINY]], %[[INF]], %[[NAN]], %[[BIG]], %[[VEC]]
func.func @cast_constant() -> (tensor<f16>, tensor<f16>, tensor<f8E4M3FN>, tensor<bf16>, tensor<2xf16>) {
  %tiny = mpt.constant dense<1.0e-8> : tensor<f32>
  %0 = mpt.cast %tiny : tensor<f32> to tensor<f16>
  %big = mpt.constant dense<70000.0> : tensor<f32>
  %1 = mpt.cast %big : tensor<f32> to tensor<f16>
  %2 = mpt.cast %big : tensor<f32> to tensor<f8E4M3FN>
  %3 = mpt.cast %big : tensor<f32> to tensor<bf16>
  %vec = mpt.constant dense<[0.1, 3.0]> : tensor<2xf32>
  %4 = mpt.cast %vec : tensor<2xf32> to tensor<2xf16>
  return %0, %1, %2, %3, %4 : tensor<f16>, tensor<f16>, tensor<f8E4M3FN>, tensor<bf16>, tensor<2xf16>
}

// -----

//===----------------------------------------------------------------------===//
// mpt.reshape
//===----------------------------------------------------------------------===//

// A reshape to the operand's own type folds away.
// CHECK-LABEL: func.func @reshape_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.reshape
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @reshape_same_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.reshape %x : tensor<4x8xf32> to tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A reshape of a reshape is one reshape of the original value.
// CHECK-LABEL: func.func @reshape_of_reshape(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = mpt.reshape %[[X]] : tensor<4x8xf32> to tensor<2x16xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x16xf32>
func.func @reshape_of_reshape(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %0 = mpt.reshape %x : tensor<4x8xf32> to tensor<32xf32>
  %1 = mpt.reshape %0 : tensor<32xf32> to tensor<2x16xf32>
  return %1 : tensor<2x16xf32>
}

// -----

// A reshape of a constant is a constant of the new shape.
// CHECK-LABEL: func.func @reshape_of_constant(
// CHECK-NEXT: %[[C:.*]] = mpt.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x2xf32>
func.func @reshape_of_constant() -> tensor<2x2xf32> {
  %0 = mpt.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = mpt.reshape %0 : tensor<4xf32> to tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpt.transpose
//===----------------------------------------------------------------------===//

// A transpose with the identity permutation folds away.
// CHECK-LABEL: func.func @transpose_identity(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.transpose
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @transpose_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.transpose %x perm = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Two transposes that compose to the identity disappear.
// CHECK-LABEL: func.func @transpose_inverse_pair(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: mpt.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_inverse_pair(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = mpt.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = mpt.transpose %0 perm = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Two transposes that compose to a non-identity permutation become one:
// [0, 2, 1] then [1, 0, 2] is [2, 0, 1] (result dim i = input dim
// inner[outer[i]]; the opposite order of composition would give [1, 2, 0]).
// CHECK-LABEL: func.func @transpose_compose(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = mpt.transpose %[[X]] perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x2x3xf32>
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = mpt.transpose %x perm = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %1 = mpt.transpose %0 perm = [1, 0, 2] : tensor<2x4x3xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpt.broadcast
//===----------------------------------------------------------------------===//

// A broadcast to the operand's own type folds away.
// CHECK-LABEL: func.func @broadcast_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: mpt.broadcast
// CHECK: return %[[X]] : tensor<4xf32>
func.func @broadcast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mpt.broadcast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A broadcast of a splat constant is a splat constant of the result type.
// CHECK-LABEL: func.func @broadcast_splat(
// CHECK-NEXT: %[[C:.*]] = mpt.constant dense<5.000000e-01> : tensor<2x4xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x4xf32>
func.func @broadcast_splat() -> tensor<2x4xf32> {
  %0 = mpt.constant dense<0.5> : tensor<4xf32>
  %1 = mpt.broadcast %0 : tensor<4xf32> to tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// A broadcast of a non-splat constant is kept.
// CHECK-LABEL: func.func @broadcast_non_splat_kept(
// CHECK-NEXT: %[[C:.*]] = mpt.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[B:.*]] = mpt.broadcast %[[C]] : tensor<2xf32> to tensor<3x2xf32>
// CHECK-NEXT: return %[[B]] : tensor<3x2xf32>
func.func @broadcast_non_splat_kept() -> tensor<3x2xf32> {
  %0 = mpt.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = mpt.broadcast %0 : tensor<2xf32> to tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// mpt.concat, mpt.slice, mpt.pad
//===----------------------------------------------------------------------===//

// A concat of a single operand is that operand.
// CHECK-LABEL: func.func @concat_single(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.concat
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @concat_single(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.concat %x axis = 1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A slice covering the whole input (default or unit strides) folds away.
// CHECK-LABEL: func.func @slice_whole(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.slice
// CHECK: return %[[X]], %[[X]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @slice_whole(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.slice %x offsets = [0, 0] sizes = [4, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = mpt.slice %x offsets = [0, 0] sizes = [4, 8] strides = [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A partial slice is kept.
// CHECK-LABEL: func.func @slice_partial_kept(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[S:.*]] = mpt.slice %[[X]] offsets = [0, 0] sizes = [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[S]] : tensor<4x4xf32>
func.func @slice_partial_kept(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %0 = mpt.slice %x offsets = [0, 0] sizes = [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A pad with all-zero paddings folds away, whatever its value.
// CHECK-LABEL: func.func @pad_zero(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: mpt.pad
// CHECK: return %[[X]], %[[X]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @pad_zero(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = mpt.pad %x low = [0, 0] high = [0, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = mpt.pad %x low = [0, 0] high = [0, 0] value = 1.0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A pad with a non-zero padding is kept.
// CHECK-LABEL: func.func @pad_nonzero_kept(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[P:.*]] = mpt.pad %[[X]] low = [0, 0] high = [0, 1] : tensor<4x8xf32> -> tensor<4x9xf32>
// CHECK-NEXT: return %[[P]] : tensor<4x9xf32>
func.func @pad_nonzero_kept(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  %0 = mpt.pad %x low = [0, 0] high = [0, 1] : tensor<4x8xf32> -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// select folds a constant condition and equal values; a backward_seed never
// folds (mpt-loss-scaling must find it).
// CHECK-LABEL: func.func @select_fold(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>, %[[C:[a-z0-9]+]]: tensor<i1>, %[[L:[a-z0-9]+]]: tensor<f32>)
// CHECK-NEXT: %[[S:.*]] = mpt.select %[[C]], %[[A]], %[[B]]
// CHECK-NEXT: %[[SEED:.*]] = mpt.backward_seed %[[L]] : tensor<f32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[A]], %[[S]], %[[SEED]]
func.func @select_fold(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<i1>, %l: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %t = mpt.constant dense<true> : tensor<i1>
  %f = mpt.constant dense<false> : tensor<i1>
  %0 = mpt.select %t, %a, %b : tensor<i1>, tensor<4xf32>
  %1 = mpt.select %f, %a, %b : tensor<i1>, tensor<4xf32>
  %2 = mpt.select %c, %a, %a : tensor<i1>, tensor<4xf32>
  %3 = mpt.select %c, %a, %b : tensor<i1>, tensor<4xf32>
  %seed = mpt.backward_seed %l : tensor<f32>
  return %0, %1, %2, %3, %seed : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
