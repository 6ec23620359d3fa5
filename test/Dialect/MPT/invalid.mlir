// RUN: mpt-opt %s -split-input-file -verify-diagnostics

// Checks every user-facing diagnostic of the mpt dialect: the shape rules of
// result-type inference and the op verifiers (MPTOps.cpp), the `mpt.role`
// argument/result attribute checks (MPTDialect.cpp), and the ODS-generated
// checks users commonly hit. Shape errors found by result-type inference are
// followed by the generic "failed to infer returned types" error.

//===----------------------------------------------------------------------===//
// Role attributes
//===----------------------------------------------------------------------===//

// Unknown mpt.* attribute on a function argument.
// expected-error @+1 {{unknown attribute 'mpt.foo' on argument #1; the mpt dialect defines 'mpt.role', 'mpt.logical_shape' and 'mpt.initial_value'}}
func.func @unknown_arg_attr(%a: tensor<4xf32>, %b: tensor<4xf32> {mpt.foo = 1}) {
  return
}

// -----

// Unknown mpt.* attribute on a function result.
// expected-error @+1 {{unknown attribute 'mpt.bar' on result #0; the mpt dialect defines 'mpt.role', 'mpt.logical_shape' and 'mpt.initial_value'}}
func.func @unknown_result_attr(%a: tensor<4xf32>) -> (tensor<4xf32> {mpt.bar}) {
  return %a : tensor<4xf32>
}

// -----

// mpt.role on an argument whose value is not a role.
// expected-error @+1 {{'mpt.role' on argument #0 must be a role such as #mpt.role<parameter>, got 1 : i64}}
func.func @role_not_a_role_arg(%a: tensor<4xf32> {mpt.role = 1}) {
  return
}

// -----

// mpt.role on an argument holding another mpt attribute (a layout).
// expected-error @+1 {{'mpt.role' on argument #0 must be a role such as #mpt.role<parameter>, got #mpt.layout<nchw>}}
func.func @role_layout_arg(%a: tensor<4xf32> {mpt.role = #mpt.layout<nchw>}) {
  return
}

// -----

// mpt.role on a result whose value is not a role.
// expected-error @+1 {{'mpt.role' on result #0 must be a role such as #mpt.role<parameter>, got "loss"}}
func.func @role_not_a_role_result(%a: tensor<4xf32>) -> (tensor<4xf32> {mpt.role = "loss"}) {
  return %a : tensor<4xf32>
}

// -----

// A role that does not exist is a parse error.
// expected-error @+2 {{expected ::mpt::Role to be one of: parameter, input, label, loss, gradient, optimizer_state, loss_scale_state}}
// expected-error @+1 {{failed to parse MPT_RoleAttr parameter 'value'}}
func.func @role_unknown_value(%a: tensor<4xf32> {mpt.role = #mpt.role<weights>}) {
  return
}

//===----------------------------------------------------------------------===//
// matmul / batch_matmul
//===----------------------------------------------------------------------===//

// -----

// matmul: operands must be rank 2.
func.func @matmul_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+2 {{'mpt.matmul' op expects rank-2 operands, got lhs of rank 3 and rhs of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// matmul: contracting dimensions differ (no transposes).
func.func @matmul_contracting(%a: tensor<4x8xf32>, %b: tensor<9x3xf32>) {
  // expected-error @+2 {{'mpt.matmul' op contracting dimensions differ: lhs 4x8 has K = 8, rhs 9x3 has K = 9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.matmul %a, %b : (tensor<4x8xf32>, tensor<9x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// matmul: contracting dimensions differ with transpose_a.
func.func @matmul_contracting_transpose_a(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+2 {{'mpt.matmul' op contracting dimensions differ: lhs 4x8 (transposed) has K = 4, rhs 8x3 has K = 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.matmul %a, %b transpose_a : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
  return
}

// -----

// matmul: contracting dimensions differ with transpose_b.
func.func @matmul_contracting_transpose_b(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+2 {{'mpt.matmul' op contracting dimensions differ: lhs 4x8 has K = 8, rhs 8x3 (transposed) has K = 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.matmul %a, %b transpose_b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x8xf32>
  return
}

// -----

// matmul: contracting dimensions differ with both transposes.
func.func @matmul_contracting_transpose_ab(%a: tensor<8x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'mpt.matmul' op contracting dimensions differ: lhs 8x4 (transposed) has K = 8, rhs 3x4 (transposed) has K = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.matmul %a, %b transpose_a transpose_b : (tensor<8x4xf32>, tensor<3x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// matmul: accumulator narrower than the operands.
func.func @matmul_acc_narrow(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{'mpt.matmul' op accumulator type 'f16' cannot hold every value of the operand type 'f32'; use a type at least as wide, such as f32}}
  %0 = mpt.matmul %a, %b acc(f16) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// matmul: bf16 does not hold every f16 value (fewer mantissa bits).
func.func @matmul_acc_bf16_on_f16(%a: tensor<4x8xf16>, %b: tensor<8x3xf16>) {
  // expected-error @+1 {{accumulator type 'bf16' cannot hold every value of the operand type 'f16'}}
  %0 = mpt.matmul %a, %b acc(bf16) : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf16>
  return
}

// -----

// matmul: the accumulator must be a float type (ODS).
func.func @matmul_acc_integer(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{'mpt.matmul' op attribute 'acc_type' failed to satisfy constraint: type attribute of floating-point}}
  %0 = mpt.matmul %a, %b acc(i32) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// matmul: integer operands are rejected (ODS element type).
func.func @matmul_integer(%a: tensor<4x8xi32>, %b: tensor<8x3xi32>) {
  // expected-error @+1 {{'mpt.matmul' op operand #0 must be ranked tensor of floating-point (f64, f32, f16, bf16, f8E4M3FN or f8E5M2) values, but got 'tensor<4x8xi32>'}}
  %0 = mpt.matmul %a, %b : (tensor<4x8xi32>, tensor<8x3xi32>) -> tensor<4x3xi32>
  return
}

// -----

// matmul: operands of different element types (AllElementTypesMatch).
func.func @matmul_mixed_types(%a: tensor<4x8xf32>, %b: tensor<8x3xf16>) {
  // expected-error @+1 {{'mpt.matmul' op failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = mpt.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

// matmul: the declared result shape differs from the inferred one.
func.func @matmul_wrong_result(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+2 {{'mpt.matmul' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x4xf32>
  return
}

// -----

// matmul: unranked operands are rejected (ODS).
func.func @matmul_unranked(%a: tensor<*xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{'mpt.matmul' op operand #0 must be ranked tensor of floating-point}}
  %0 = mpt.matmul %a, %b : (tensor<*xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// batch_matmul: operands of rank 2 (at least 3 required).
func.func @batch_matmul_rank_low(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+2 {{'mpt.batch_matmul' op expects operands of equal rank, at least 3, got lhs of rank 2 and rhs of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// batch_matmul: operands of different ranks.
func.func @batch_matmul_rank_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<5x2x8x3xf32>) {
  // expected-error @+2 {{'mpt.batch_matmul' op expects operands of equal rank, at least 3, got lhs of rank 3 and rhs of rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<5x2x8x3xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

// batch_matmul: batch dimensions differ.
func.func @batch_matmul_batch_dim(%a: tensor<5x2x4x8xf32>, %b: tensor<5x3x8x3xf32>) {
  // expected-error @+2 {{'mpt.batch_matmul' op batch dimension 1 differs: lhs has 2, rhs has 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_matmul %a, %b : (tensor<5x2x4x8xf32>, tensor<5x3x8x3xf32>) -> tensor<5x2x4x3xf32>
  return
}

// -----

// batch_matmul: contracting dimensions differ (with transpose_b).
func.func @batch_matmul_contracting(%q: tensor<8x64x32xf32>, %k: tensor<8x64x16xf32>) {
  // expected-error @+2 {{'mpt.batch_matmul' op contracting dimensions differ: lhs 8x64x32 has K = 32, rhs 8x64x16 (transposed) has K = 16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_matmul %q, %k transpose_b : (tensor<8x64x32xf32>, tensor<8x64x16xf32>) -> tensor<8x64x64xf32>
  return
}

// -----

// batch_matmul: accumulator narrower than the operands.
func.func @batch_matmul_acc_narrow(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) {
  // expected-error @+1 {{'mpt.batch_matmul' op accumulator type 'f16' cannot hold every value of the operand type 'f32'}}
  %0 = mpt.batch_matmul %a, %b acc(f16) : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

// -----

// conv2d: input must be rank 4 (NCHW message).
func.func @conv2d_rank_nchw(%x: tensor<3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects a rank-4 input (NCHW) and a rank-4 filter (FCHW), got ranks 3 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w : (tensor<3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<16x30x30xf32>
  return
}

// -----

// conv2d: filter must be rank 4 (NHWC message).
func.func @conv2d_rank_nhwc(%x: tensor<8x32x32x3xf32>, %w: tensor<3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects a rank-4 input (NHWC) and a rank-4 filter (HWCF), got ranks 4 and 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w layout<nhwc> : (tensor<8x32x32x3xf32>, tensor<3x3x3xf32>) -> tensor<8x30x30x3xf32>
  return
}

// -----

// conv2d: wrong number of strides.
func.func @conv2d_stride_count(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects 2 strides of at least 1 (one per spatial dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w stride [2, 2, 2] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x15x15xf32>
  return
}

// -----

// conv2d: a zero stride.
func.func @conv2d_stride_zero(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects 2 strides of at least 1 (one per spatial dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w stride [1, 0] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: wrong number of paddings.
func.func @conv2d_pad_count(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects 4 non-negative paddings [top, bottom, left, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w pad [1, 1] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// conv2d: a negative padding.
func.func @conv2d_pad_negative(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects 4 non-negative paddings [top, bottom, left, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w pad [1, 1, -1, 1] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x31xf32>
  return
}

// -----

// conv2d: wrong number of dilations.
func.func @conv2d_dilation_count(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects 2 dilations of at least 1 (one per spatial dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w dilation [2] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x28x28xf32>
  return
}

// -----

// conv2d: a zero dilation.
func.func @conv2d_dilation_zero(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects 2 dilations of at least 1 (one per spatial dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w dilation [0, 1] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: groups must be at least 1.
func.func @conv2d_groups_zero(%x: tensor<8x4x32x32xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op expects groups >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w groups 0 : (tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: input channels not divisible by groups.
func.func @conv2d_channels_groups(%x: tensor<8x6x32x32xf32>, %w: tensor<16x1x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op input channels (6) are not divisible by groups (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w groups 4 : (tensor<8x6x32x32xf32>, tensor<16x1x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: filter count not divisible by groups.
func.func @conv2d_filters_groups(%x: tensor<8x4x32x32xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op filter count (6) is not divisible by groups (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w groups 4 : (tensor<8x4x32x32xf32>, tensor<6x1x3x3xf32>) -> tensor<8x6x30x30xf32>
  return
}

// -----

// conv2d: filter channels differ from input channels / groups (NCHW).
func.func @conv2d_filter_channels(%x: tensor<8x4x32x32xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op filter has 4 input channels, expected input channels / groups = 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w groups 2 : (tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: filter channels differ from input channels (NHWC, HWCF filter).
func.func @conv2d_filter_channels_nhwc(%x: tensor<8x32x32x3xf32>, %w: tensor<3x3x4x16xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op filter has 4 input channels, expected input channels / groups = 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w layout<nhwc> : (tensor<8x32x32x3xf32>, tensor<3x3x4x16xf32>) -> tensor<8x30x30x16xf32>
  return
}

// -----

// conv2d: filter window larger than the (padded) input (NCHW).
func.func @conv2d_window_nchw(%x: tensor<8x3x4x4xf32>, %w: tensor<16x3x5x5xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op the dilated 5x5 filter is larger than the padded input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w : (tensor<8x3x4x4xf32>, tensor<16x3x5x5xf32>) -> tensor<8x16x1x1xf32>
  return
}

// -----

// conv2d: filter window larger than the input in W only (NHWC).
func.func @conv2d_window_nhwc(%x: tensor<8x32x4x3xf32>, %w: tensor<3x5x3x16xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op the dilated 3x5 filter is larger than the padded input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w layout<nhwc> : (tensor<8x32x4x3xf32>, tensor<3x5x3x16xf32>) -> tensor<8x30x1x16xf32>
  return
}

// -----

// conv2d: the window fits only before dilation.
func.func @conv2d_window_dilated(%x: tensor<8x3x6x6xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op the dilated 3x3 filter is larger than the padded input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w dilation [3, 3] : (tensor<8x3x6x6xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x1x1xf32>
  return
}

// -----

// conv2d: accumulator narrower than the operands.
func.func @conv2d_acc_narrow(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op accumulator type 'bf16' cannot hold every value of the operand type 'f32'}}
  %0 = mpt.conv2d %x, %w acc(bf16) : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: input and filter of different element types.
func.func @conv2d_mixed_types(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d' op failed to verify that all of {input, filter, result} have same element type}}
  %0 = mpt.conv2d %x, %w : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf16>
  return
}

// -----

// conv2d: the declared result has the wrong spatial size.
func.func @conv2d_wrong_result(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op inferred type(s) 'tensor<8x16x16x16xf32>' are incompatible with return type(s) of operation 'tensor<8x16x32x32xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w stride [2, 2] pad [1, 1, 1, 1] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

// -----

// embedding: the table must be rank 2.
func.func @embedding_table_rank(%t: tensor<1000xf32>, %i: tensor<8x16xi64>) {
  // expected-error @+2 {{'mpt.embedding' op expects a rank-2 table (rows x features), got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.embedding %t, %i : (tensor<1000xf32>, tensor<8x16xi64>) -> tensor<8x16xf32>
  return
}

// -----

// embedding: indices must be integers (ODS).
func.func @embedding_float_indices(%t: tensor<1000x64xf32>, %i: tensor<8x16xf32>) {
  // expected-error @+1 {{'mpt.embedding' op operand #1 must be ranked tensor of signless integer values, but got 'tensor<8x16xf32>'}}
  %0 = mpt.embedding %t, %i : (tensor<1000x64xf32>, tensor<8x16xf32>) -> tensor<8x16x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// -----

// add: operand shapes do not broadcast.
func.func @add_broadcast(%a: tensor<32x128xf32>, %b: tensor<64xf32>) {
  // expected-error @+2 {{'mpt.add' op operand shapes 32x128 and 64 do not broadcast: trailing-aligned dimensions must be equal or 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.add %a, %b : (tensor<32x128xf32>, tensor<64xf32>) -> tensor<32x128xf32>
  return
}

// -----

// sub: operand shapes do not broadcast (leading dimension).
func.func @sub_broadcast(%a: tensor<4x1x8xf32>, %b: tensor<3x5x8xf32>) {
  // expected-error @+2 {{'mpt.sub' op operand shapes 4x1x8 and 3x5x8 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.sub %a, %b : (tensor<4x1x8xf32>, tensor<3x5x8xf32>) -> tensor<4x5x8xf32>
  return
}

// -----

// mul: operand shapes do not broadcast (a dynamic dimension does not help).
func.func @mul_broadcast(%a: tensor<?x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'mpt.mul' op operand shapes ?x3 and 4 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.mul %a, %b : (tensor<?x3xf32>, tensor<4xf32>) -> tensor<?x3xf32>
  return
}

// -----

// div: operand shapes do not broadcast.
func.func @div_broadcast(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'mpt.div' op operand shapes 2 and 3 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.div %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// max: operand shapes do not broadcast.
func.func @max_broadcast(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+2 {{'mpt.max' op operand shapes 2x3 and 3x2 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.max %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

// min: operand shapes do not broadcast.
func.func @min_broadcast(%a: tensor<5xf32>, %b: tensor<6xf32>) {
  // expected-error @+2 {{'mpt.min' op operand shapes 5 and 6 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.min %a, %b : (tensor<5xf32>, tensor<6xf32>) -> tensor<5xf32>
  return
}

// -----

// pow: operand shapes do not broadcast.
func.func @pow_broadcast(%a: tensor<5x2xf32>, %b: tensor<6x1xf32>) {
  // expected-error @+2 {{'mpt.pow' op operand shapes 5x2 and 6x1 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.pow %a, %b : (tensor<5x2xf32>, tensor<6x1xf32>) -> tensor<5x2xf32>
  return
}

// -----

// add: operands of different element types (AllElementTypesMatch).
func.func @add_mixed_types(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'mpt.add' op failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = mpt.add %a, %b : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

// add: declared result is not the broadcast shape.
func.func @add_wrong_result(%a: tensor<32x128xf32>, %b: tensor<128xf32>) {
  // expected-error @+2 {{'mpt.add' op inferred type(s) 'tensor<32x128xf32>' are incompatible with return type(s) of operation 'tensor<128xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.add %a, %b : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<128xf32>
  return
}

// -----

// add: unranked operands are rejected (ODS).
func.func @add_unranked(%a: tensor<*xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.add' op operand #0 must be ranked tensor of floating-point}}
  %0 = mpt.add %a, %b : (tensor<*xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// exp: i1 tensors are rejected (ODS element type).
func.func @exp_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'mpt.exp' op operand #0 must be ranked tensor of floating-point (f64, f32, f16, bf16, f8E4M3FN or f8E5M2) values, but got 'tensor<4xi1>'}}
  %0 = mpt.exp %a : tensor<4xi1>
  return
}

// -----

// exp: f128 is not an mpt float type (ODS element type).
func.func @exp_f128(%a: tensor<4xf128>) {
  // expected-error @+1 {{'mpt.exp' op operand #0 must be ranked tensor of floating-point (f64, f32, f16, bf16, f8E4M3FN or f8E5M2) values, but got 'tensor<4xf128>'}}
  %0 = mpt.exp %a : tensor<4xf128>
  return
}

// -----

// exp: result type differs from the operand type (generic form).
func.func @exp_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.exp' op requires the same type for all operands and results}}
  %0 = "mpt.exp"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// relu: an unranked type cannot even be written in the custom form.
func.func @relu_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'mpt.relu' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = mpt.relu %a : tensor<*xf32>
  return
}

// -----

// relu: unranked operand is rejected (ODS, generic form).
func.func @relu_unranked_generic(%a: tensor<*xf32>) {
  // expected-error @+1 {{'mpt.relu' op operand #0 must be ranked tensor of floating-point}}
  %0 = "mpt.relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// gelu: unknown approximation is a parse error.
func.func @gelu_approximation(%a: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mpt::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse MPT_GeluApproximationAttr parameter 'value'}}
  %0 = mpt.gelu %a approximate<erf> : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// softmax / log_softmax
//===----------------------------------------------------------------------===//

// -----

// softmax: axis beyond the rank.
func.func @softmax_axis(%a: tensor<32x10xf32>) {
  // expected-error @+1 {{'mpt.softmax' op axis 2 is out of range for a rank-2 input; expected a value in [-2, 2)}}
  %0 = mpt.softmax %a axis = 2 : tensor<32x10xf32>
  return
}

// -----

// softmax: negative axis below -rank.
func.func @softmax_axis_negative(%a: tensor<32x10xf32>) {
  // expected-error @+1 {{'mpt.softmax' op axis -3 is out of range for a rank-2 input; expected a value in [-2, 2)}}
  %0 = mpt.softmax %a axis = -3 : tensor<32x10xf32>
  return
}

// -----

// softmax: a rank-0 input has no axis to normalize over.
func.func @softmax_rank0(%a: tensor<f32>) {
  // expected-error @+1 {{'mpt.softmax' op expects an input of rank at least 1}}
  %0 = mpt.softmax %a : tensor<f32>
  return
}

// -----

// log_softmax: axis out of range.
func.func @log_softmax_axis(%a: tensor<32x10xf32>) {
  // expected-error @+1 {{'mpt.log_softmax' op axis 5 is out of range for a rank-2 input; expected a value in [-2, 2)}}
  %0 = mpt.log_softmax %a axis = 5 : tensor<32x10xf32>
  return
}

// -----

// softmax: integer input (ODS element type).
func.func @softmax_integer(%a: tensor<32x10xi32>) {
  // expected-error @+1 {{'mpt.softmax' op operand #0 must be ranked tensor of floating-point}}
  %0 = mpt.softmax %a : tensor<32x10xi32>
  return
}

// -----

// softmax_grad: axis beyond the rank.
func.func @softmax_grad_axis(%g: tensor<32x10xf32>, %y: tensor<32x10xf32>) {
  // expected-error @+1 {{'mpt.softmax_grad' op axis 2 is out of range for a rank-2 input; expected a value in [-2, 2)}}
  %0 = mpt.softmax_grad %g, %y axis = 2 : tensor<32x10xf32>
  return
}

// -----

// log_softmax_grad: a rank-0 gradient has no axis.
func.func @log_softmax_grad_rank0(%g: tensor<f32>, %y: tensor<f32>) {
  // expected-error @+1 {{'mpt.log_softmax_grad' op expects an input of rank at least 1}}
  %0 = mpt.log_softmax_grad %g, %y : tensor<f32>
  return
}

// -----

// softmax_grad: the gradient and the result differ in type (generic form:
// the custom form names one type for all three).
func.func @softmax_grad_types(%g: tensor<32x10xf16>, %y: tensor<32x10xf32>) {
  // expected-error @+1 {{'mpt.softmax_grad' op requires the same type for all operands and results}}
  %0 = "mpt.softmax_grad"(%g, %y) : (tensor<32x10xf16>, tensor<32x10xf32>) -> tensor<32x10xf16>
  return
}

//===----------------------------------------------------------------------===//
// layer_norm
//===----------------------------------------------------------------------===//

// -----

// layer_norm: axis out of range.
func.func @layer_norm_axis(%x: tensor<8x64x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) {
  // expected-error @+2 {{'mpt.layer_norm' op axis 3 is out of range for a rank-3 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.layer_norm %x, %g, %b axis = 3 : (tensor<8x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
  return
}

// -----

// layer_norm: a rank-0 input has no axis to normalize.
func.func @layer_norm_rank0(%x: tensor<f32>, %g: tensor<f32>, %b: tensor<f32>) {
  // expected-error @+2 {{'mpt.layer_norm' op axis -1 is out of range for a rank-0 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.layer_norm %x, %g, %b : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// layer_norm: negative epsilon.
func.func @layer_norm_epsilon(%x: tensor<8x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) {
  // expected-error @+2 {{'mpt.layer_norm' op expects epsilon >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.layer_norm %x, %g, %b epsilon = -1.0e-5 : (tensor<8x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  return
}

// -----

// layer_norm: scale does not have the normalized shape.
func.func @layer_norm_scale(%x: tensor<8x256xf32>, %g: tensor<128xf32>, %b: tensor<256xf32>) {
  // expected-error @+2 {{'mpt.layer_norm' op scale has shape 128, expected the normalized shape 256}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.layer_norm %x, %g, %b : (tensor<8x256xf32>, tensor<128xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  return
}

// -----

// layer_norm: bias has the wrong rank for a multi-dimension normalization.
func.func @layer_norm_bias(%x: tensor<8x64x256xf32>, %g: tensor<64x256xf32>, %b: tensor<256xf32>) {
  // expected-error @+2 {{'mpt.layer_norm' op bias has shape 256, expected the normalized shape 64x256}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.layer_norm %x, %g, %b axis = 1 : (tensor<8x64x256xf32>, tensor<64x256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
  return
}

// -----

// layer_norm: f16 parameters with a bf16 input (f32 parameters are the only
// other type allowed).
func.func @layer_norm_param_type(%x: tensor<8x256xbf16>, %g: tensor<256xf16>, %b: tensor<256xf16>) {
  // expected-error @+2 {{'mpt.layer_norm' op scale and bias have element type 'f16', expected the input's element type 'bf16' or f32 (f32 parameters with a narrower input)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.layer_norm %x, %g, %b : (tensor<8x256xbf16>, tensor<256xf16>, tensor<256xf16>) -> tensor<8x256xbf16>
  return
}

// -----

// layer_norm: scale and bias of different element types.
func.func @layer_norm_scale_bias_types(%x: tensor<8x256xf16>, %g: tensor<256xf32>, %b: tensor<256xf16>) {
  // expected-error @+1 {{'mpt.layer_norm' op failed to verify that all of {scale, bias} have same element type}}
  %0 = mpt.layer_norm %x, %g, %b : (tensor<8x256xf16>, tensor<256xf32>, tensor<256xf16>) -> tensor<8x256xf16>
  return
}

// -----

// layer_norm: the result takes the input's type.
func.func @layer_norm_result_type(%x: tensor<8x256xf16>, %g: tensor<256xf32>, %b: tensor<256xf32>) {
  // expected-error @+2 {{'mpt.layer_norm' op inferred type(s) 'tensor<8x256xf16>' are incompatible with return type(s) of operation 'tensor<8x256xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.layer_norm %x, %g, %b : (tensor<8x256xf16>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  return
}

// -----

// layer_norm_grad: axis out of range.
func.func @layer_norm_grad_axis(%dy: tensor<8x256xf32>, %x: tensor<8x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op axis 2 is out of range for a rank-2 input}}
  %0:3 = mpt.layer_norm_grad %dy, %x, %g axis = 2 : (tensor<8x256xf32>, tensor<8x256xf32>, tensor<256xf32>) -> (tensor<8x256xf32>, tensor<256xf32>, tensor<256xf32>)
  return
}

// -----

// layer_norm_grad: negative epsilon.
func.func @layer_norm_grad_epsilon(%dy: tensor<8x256xf32>, %x: tensor<8x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op expects epsilon >= 0}}
  %0:3 = mpt.layer_norm_grad %dy, %x, %g epsilon = -1.0 : (tensor<8x256xf32>, tensor<8x256xf32>, tensor<256xf32>) -> (tensor<8x256xf32>, tensor<256xf32>, tensor<256xf32>)
  return
}

// -----

// layer_norm_grad: scale does not have the normalized shape.
func.func @layer_norm_grad_scale(%dy: tensor<8x256xf32>, %x: tensor<8x256xf32>, %g: tensor<8x256xf32>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op scale has shape 8x256, expected the normalized shape 256}}
  %0:3 = mpt.layer_norm_grad %dy, %x, %g : (tensor<8x256xf32>, tensor<8x256xf32>, tensor<8x256xf32>) -> (tensor<8x256xf32>, tensor<8x256xf32>, tensor<8x256xf32>)
  return
}

// -----

// layer_norm_grad: an f16 scale with a bf16 input.
func.func @layer_norm_grad_param_type(%dy: tensor<8x256xbf16>, %x: tensor<8x256xbf16>, %g: tensor<256xf16>) {
  // expected-error @+1 {{'mpt.layer_norm_grad' op scale and bias have element type 'f16', expected the input's element type 'bf16' or f32 (f32 parameters with a narrower input)}}
  %0:3 = mpt.layer_norm_grad %dy, %x, %g : (tensor<8x256xbf16>, tensor<8x256xbf16>, tensor<256xf16>) -> (tensor<8x256xbf16>, tensor<256xf16>, tensor<256xf16>)
  return
}

//===----------------------------------------------------------------------===//
// batch_norm
//===----------------------------------------------------------------------===//

// -----

// batch_norm: input of rank below 2.
func.func @batch_norm_rank(%x: tensor<16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{'mpt.batch_norm' op expects an input of rank at least 2 (batch and channels), got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_norm %x, %g, %b : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

// batch_norm: channel axis out of range.
func.func @batch_norm_axis(%x: tensor<8x16x32x32xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{'mpt.batch_norm' op channel axis -5 is out of range for a rank-4 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_norm %x, %g, %b axis = -5 : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// batch_norm: negative epsilon.
func.func @batch_norm_epsilon(%x: tensor<8x16x32x32xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{'mpt.batch_norm' op expects epsilon >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_norm %x, %g, %b epsilon = -0.1 : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// batch_norm: scale size differs from the channel count.
func.func @batch_norm_scale(%x: tensor<8x16x32x32xf32>, %g: tensor<32xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{'mpt.batch_norm' op scale has shape 32, expected one value per channel (16)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_norm %x, %g, %b : (tensor<8x16x32x32xf32>, tensor<32xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// batch_norm: bias is not 1-D (channel axis 3, NHWC).
func.func @batch_norm_bias(%x: tensor<8x32x32x16xf32>, %g: tensor<16xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+2 {{'mpt.batch_norm' op bias has shape 1x16, expected one value per channel (16)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_norm %x, %g, %b axis = 3 : (tensor<8x32x32x16xf32>, tensor<16xf32>, tensor<1x16xf32>) -> tensor<8x32x32x16xf32>
  return
}

// -----

// batch_norm: f32 input with f16 parameters (parameters are never narrower
// than the input).
func.func @batch_norm_param_type(%x: tensor<8x16x4x4xf32>, %g: tensor<16xf16>, %b: tensor<16xf16>) {
  // expected-error @+2 {{'mpt.batch_norm' op scale and bias have element type 'f16', expected the input's element type 'f32' or f32 (f32 parameters with a narrower input)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.batch_norm %x, %g, %b : (tensor<8x16x4x4xf32>, tensor<16xf16>, tensor<16xf16>) -> tensor<8x16x4x4xf32>
  return
}

// -----

// batch_norm: scale and bias of different element types.
func.func @batch_norm_scale_bias_types(%x: tensor<8x16x4x4xf16>, %g: tensor<16xf16>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'mpt.batch_norm' op failed to verify that all of {scale, bias} have same element type}}
  %0 = mpt.batch_norm %x, %g, %b : (tensor<8x16x4x4xf16>, tensor<16xf16>, tensor<16xf32>) -> tensor<8x16x4x4xf16>
  return
}

// -----

// batch_norm_grad: channel axis out of range.
func.func @batch_norm_grad_axis(%dy: tensor<8x16x4x4xf32>, %x: tensor<8x16x4x4xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_grad' op channel axis 4 is out of range for a rank-4 input}}
  %0:3 = mpt.batch_norm_grad %dy, %x, %g axis = 4 : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

// batch_norm_grad: negative epsilon.
func.func @batch_norm_grad_epsilon(%dy: tensor<8x16x4x4xf32>, %x: tensor<8x16x4x4xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_grad' op expects epsilon >= 0}}
  %0:3 = mpt.batch_norm_grad %dy, %x, %g epsilon = -1.0 : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

// batch_norm_grad: scale size differs from the channel count.
func.func @batch_norm_grad_scale(%dy: tensor<8x16x4x4xf32>, %x: tensor<8x16x4x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.batch_norm_grad' op scale has shape 4, expected one value per channel (16)}}
  %0:3 = mpt.batch_norm_grad %dy, %x, %g : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<4xf32>) -> (tensor<8x16x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// batch_norm_grad: an f16 scale with an f32 input.
func.func @batch_norm_grad_param_type(%dy: tensor<8x16x4x4xf32>, %x: tensor<8x16x4x4xf32>, %g: tensor<16xf16>) {
  // expected-error @+1 {{'mpt.batch_norm_grad' op scale and bias have element type 'f16', expected the input's element type 'f32' or f32 (f32 parameters with a narrower input)}}
  %0:3 = mpt.batch_norm_grad %dy, %x, %g : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf16>) -> (tensor<8x16x4x4xf32>, tensor<16xf16>, tensor<16xf16>)
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

// reduce_sum: axis out of range.
func.func @reduce_sum_axis(%x: tensor<32x128xf32>) {
  // expected-error @+2 {{'mpt.reduce_sum' op axes must be distinct and in [-2, 2) for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.reduce_sum %x axes = [2] : tensor<32x128xf32> -> tensor<32xf32>
  return
}

// -----

// reduce_mean: the same axis twice (once as a negative index).
func.func @reduce_mean_duplicate(%x: tensor<32x128xf32>) {
  // expected-error @+2 {{'mpt.reduce_mean' op axes must be distinct and in [-2, 2) for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.reduce_mean %x axes = [1, -1] : tensor<32x128xf32> -> tensor<32xf32>
  return
}

// -----

// reduce_max: negative axis below -rank.
func.func @reduce_max_axis(%x: tensor<4x32x128xf32>) {
  // expected-error @+2 {{'mpt.reduce_max' op axes must be distinct and in [-3, 3) for a rank-3 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.reduce_max %x axes = [-4] : tensor<4x32x128xf32> -> tensor<32x128xf32>
  return
}

// -----

// reduce_sum: declared result ignores keep_dims.
func.func @reduce_sum_keep_dims(%x: tensor<32x128xf32>) {
  // expected-error @+2 {{'mpt.reduce_sum' op inferred type(s) 'tensor<32x1xf32>' are incompatible with return type(s) of operation 'tensor<32xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.reduce_sum %x axes = [1] keep_dims : tensor<32x128xf32> -> tensor<32xf32>
  return
}

// -----

// reduce_sum: result of another element type (AllElementTypesMatch).
func.func @reduce_sum_result_type(%x: tensor<32x128xf16>) {
  // expected-error @+1 {{'mpt.reduce_sum' op failed to verify that all of {input, result} have same element type}}
  %0 = mpt.reduce_sum %x axes = [1] : tensor<32x128xf16> -> tensor<32xf32>
  return
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

// max_pool2d: input must be rank 4.
func.func @max_pool_rank(%x: tensor<16x32x32xf32>) {
  // expected-error @+2 {{'mpt.max_pool2d' op expects a rank-4 input, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.max_pool2d %x kernel [2, 2] : tensor<16x32x32xf32> -> tensor<16x31x31xf32>
  return
}

// -----

// max_pool2d: kernel with the wrong number of sizes.
func.func @max_pool_kernel_count(%x: tensor<8x16x32x32xf32>) {
  // expected-error @+2 {{'mpt.max_pool2d' op expects a kernel of 2 sizes of at least 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.max_pool2d %x kernel [2] : tensor<8x16x32x32xf32> -> tensor<8x16x31x31xf32>
  return
}

// -----

// avg_pool2d: a zero kernel size.
func.func @avg_pool_kernel_zero(%x: tensor<8x16x32x32xf32>) {
  // expected-error @+2 {{'mpt.avg_pool2d' op expects a kernel of 2 sizes of at least 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.avg_pool2d %x kernel [2, 0] : tensor<8x16x32x32xf32> -> tensor<8x16x31x33xf32>
  return
}

// -----

// max_pool2d: a zero stride.
func.func @max_pool_stride_zero(%x: tensor<8x16x32x32xf32>) {
  // expected-error @+2 {{'mpt.max_pool2d' op expects 2 strides of at least 1 (one per spatial dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.max_pool2d %x kernel [2, 2] stride [0, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  return
}

// -----

// avg_pool2d: wrong number of strides.
func.func @avg_pool_stride_count(%x: tensor<8x16x32x32xf32>) {
  // expected-error @+2 {{'mpt.avg_pool2d' op expects 2 strides of at least 1 (one per spatial dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.avg_pool2d %x kernel [2, 2] stride [2] : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  return
}

// -----

// max_pool2d: wrong number of paddings.
func.func @max_pool_pad_count(%x: tensor<8x16x32x32xf32>) {
  // expected-error @+2 {{'mpt.max_pool2d' op expects 4 non-negative paddings [top, bottom, left, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.max_pool2d %x kernel [3, 3] pad [1, 1] : tensor<8x16x32x32xf32> -> tensor<8x16x32x32xf32>
  return
}

// -----

// avg_pool2d: a negative padding.
func.func @avg_pool_pad_negative(%x: tensor<8x16x32x32xf32>) {
  // expected-error @+2 {{'mpt.avg_pool2d' op expects 4 non-negative paddings [top, bottom, left, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.avg_pool2d %x kernel [3, 3] pad [-1, 0, 0, 0] : tensor<8x16x32x32xf32> -> tensor<8x16x29x30xf32>
  return
}

// -----

// max_pool2d: padding as large as the kernel.
func.func @max_pool_pad_kernel(%x: tensor<8x16x32x32xf32>) {
  // expected-error @+2 {{'mpt.max_pool2d' op padding must be smaller than the kernel, or a window could hold only padding}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.max_pool2d %x kernel [3, 2] pad [1, 1, 0, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x32x34xf32>
  return
}

// -----

// avg_pool2d: kernel larger than the padded input (NCHW).
func.func @avg_pool_window_nchw(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+2 {{'mpt.avg_pool2d' op the 5x5 kernel is larger than the padded input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.avg_pool2d %x kernel [5, 5] : tensor<8x16x4x4xf32> -> tensor<8x16x1x1xf32>
  return
}

// -----

// max_pool2d: kernel larger than the padded input in W (NHWC).
func.func @max_pool_window_nhwc(%x: tensor<8x32x2x16xf32>) {
  // expected-error @+2 {{'mpt.max_pool2d' op the 2x4 kernel is larger than the padded input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.max_pool2d %x layout<nhwc> kernel [2, 4] pad [0, 0, 1, 0] : tensor<8x32x2x16xf32> -> tensor<8x31x1x16xf32>
  return
}

// -----

// global_avg_pool: input must be rank 4.
func.func @global_avg_pool_rank(%x: tensor<8x64xf32>) {
  // expected-error @+2 {{'mpt.global_avg_pool' op expects a rank-4 input, got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.global_avg_pool %x : tensor<8x64xf32> -> tensor<8x64xf32>
  return
}

// -----

// global_avg_pool: NHWC result takes C from the last dimension.
func.func @global_avg_pool_layout(%x: tensor<8x7x7x64xf32>) {
  // expected-error @+2 {{'mpt.global_avg_pool' op inferred type(s) 'tensor<8x64xf32>' are incompatible with return type(s) of operation 'tensor<8x7xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.global_avg_pool %x layout<nhwc> : tensor<8x7x7x64xf32> -> tensor<8x7xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

// reshape: the result's shape must be static (the element count comes from
// the input's).
func.func @reshape_dynamic(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.reshape' op expects a static result shape, got ?}}
  %0 = mpt.reshape %x : tensor<4xf32> to tensor<?xf32>
  return
}

// -----

// reshape: element counts differ.
func.func @reshape_count(%x: tensor<8x16x7x7xf32>) {
  // expected-error @+1 {{'mpt.reshape' op cannot reshape 8x16x7x7 (6272 elements) to 8x700 (5600 elements)}}
  %0 = mpt.reshape %x : tensor<8x16x7x7xf32> to tensor<8x700xf32>
  return
}

// -----

// reshape: a scalar cannot become two elements.
func.func @reshape_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'mpt.reshape' op cannot reshape scalar (1 elements) to 2 (2 elements)}}
  %0 = mpt.reshape %x : tensor<f32> to tensor<2xf32>
  return
}

// -----

// reshape: element type changes (AllElementTypesMatch).
func.func @reshape_element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.reshape' op failed to verify that all of {input, result} have same element type}}
  %0 = mpt.reshape %x : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

// transpose: perm is not a permutation (repeated entry).
func.func @transpose_not_perm(%x: tensor<8x64x4xf32>) {
  // expected-error @+2 {{'mpt.transpose' op perm must be a permutation of [0, 3) for a rank-3 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.transpose %x perm = [0, 1, 1] : tensor<8x64x4xf32> -> tensor<8x64x64xf32>
  return
}

// -----

// transpose: perm entry out of range.
func.func @transpose_out_of_range(%x: tensor<8x64xf32>) {
  // expected-error @+2 {{'mpt.transpose' op perm must be a permutation of [0, 2) for a rank-2 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.transpose %x perm = [2, 0] : tensor<8x64xf32> -> tensor<64x8xf32>
  return
}

// -----

// transpose: perm of the wrong length.
func.func @transpose_length(%x: tensor<8x64x4xf32>) {
  // expected-error @+2 {{'mpt.transpose' op perm must be a permutation of [0, 3) for a rank-3 input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.transpose %x perm = [1, 0] : tensor<8x64x4xf32> -> tensor<64x8xf32>
  return
}

// -----

// broadcast: input dimension neither 1 nor the result dimension.
func.func @broadcast_incompatible(%x: tensor<64xf32>) {
  // expected-error @+1 {{'mpt.broadcast' op cannot broadcast 64 to 32x128: each trailing-aligned input dimension must equal the result dimension or be 1}}
  %0 = mpt.broadcast %x : tensor<64xf32> to tensor<32x128xf32>
  return
}

// -----

// broadcast: the result has fewer dimensions than the input.
func.func @broadcast_rank(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{'mpt.broadcast' op cannot broadcast 4x128 to 128}}
  %0 = mpt.broadcast %x : tensor<4x128xf32> to tensor<128xf32>
  return
}

// -----

// broadcast: element type changes (AllElementTypesMatch).
func.func @broadcast_element_type(%x: tensor<128xf32>) {
  // expected-error @+1 {{'mpt.broadcast' op failed to verify that all of {input, result} have same element type}}
  %0 = mpt.broadcast %x : tensor<128xf32> to tensor<32x128xf16>
  return
}

// -----

// concat: zero operands (the parser accepts an empty operand list).
func.func @concat_empty() {
  // expected-error @+2 {{'mpt.concat' op expects at least one operand}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.concat axis = 0 : () -> tensor<4xf32>
  return
}

// -----

// concat: axis out of range.
func.func @concat_axis(%a: tensor<8x16xf32>, %b: tensor<8x32xf32>) {
  // expected-error @+2 {{'mpt.concat' op axis 2 is out of range for rank-2 operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.concat %a, %b axis = 2 : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf32>
  return
}

// -----

// concat: operands of different element types.
func.func @concat_element_type(%a: tensor<8x16xf32>, %b: tensor<8x32xf16>) {
  // expected-error @+2 {{'mpt.concat' op operand #1 has element type 'f16', expected 'f32' like operand #0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.concat %a, %b axis = 1 : (tensor<8x16xf32>, tensor<8x32xf16>) -> tensor<8x48xf32>
  return
}

// -----

// concat: operands of different ranks.
func.func @concat_rank(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %c: tensor<8x16x1xf32>) {
  // expected-error @+2 {{'mpt.concat' op operand #2 has rank 3, expected 2 like operand #0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.concat %a, %b, %c axis = 0 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16x1xf32>) -> tensor<24x16xf32>
  return
}

// -----

// concat: a non-concatenated dimension differs.
func.func @concat_dim(%a: tensor<8x16xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+2 {{'mpt.concat' op operand #1 has size 4 in dimension 0, expected 8 (only the concatenated axis may differ)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.concat %a, %b axis = 1 : (tensor<8x16xf32>, tensor<4x32xf32>) -> tensor<8x48xf32>
  return
}

// -----

// concat: the declared result element type differs from the operands'.
func.func @concat_result_type(%a: tensor<8x16xf32>, %b: tensor<8x32xf32>) {
  // expected-error @+2 {{'mpt.concat' op inferred type(s) 'tensor<8x48xf32>' are incompatible with return type(s) of operation 'tensor<8x48xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.concat %a, %b axis = 1 : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf16>
  return
}

// -----

// slice: wrong number of offsets.
func.func @slice_offsets_count(%x: tensor<32x1008xf32>) {
  // expected-error @+2 {{'mpt.slice' op expects 2 offsets, sizes and strides (one per dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0] sizes = [32, 1000] : tensor<32x1008xf32> -> tensor<32x1000xf32>
  return
}

// -----

// slice: wrong number of sizes.
func.func @slice_sizes_count(%x: tensor<32x1008xf32>) {
  // expected-error @+2 {{'mpt.slice' op expects 2 offsets, sizes and strides (one per dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0, 0] sizes = [32, 1000, 1] : tensor<32x1008xf32> -> tensor<32x1000x1xf32>
  return
}

// -----

// slice: wrong number of strides.
func.func @slice_strides_count(%x: tensor<32x1008xf32>) {
  // expected-error @+2 {{'mpt.slice' op expects 2 offsets, sizes and strides (one per dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0, 0] sizes = [32, 1000] strides = [1] : tensor<32x1008xf32> -> tensor<32x1000xf32>
  return
}

// -----

// slice: a negative offset.
func.func @slice_negative_offset(%x: tensor<32x1008xf32>) {
  // expected-error @+2 {{'mpt.slice' op dimension 1: expects offset >= 0, size >= 0 and stride >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0, -1] sizes = [32, 1000] : tensor<32x1008xf32> -> tensor<32x1000xf32>
  return
}

// -----

// slice: a negative size.
func.func @slice_negative_size(%x: tensor<32x1008xf32>) {
  // expected-error @+2 {{'mpt.slice' op dimension 0: expects offset >= 0, size >= 0 and stride >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0, 0] sizes = [-2, 1000] : tensor<32x1008xf32> -> tensor<32x1000xf32>
  return
}

// -----

// slice: a zero stride.
func.func @slice_zero_stride(%x: tensor<32x1008xf32>) {
  // expected-error @+2 {{'mpt.slice' op dimension 1: expects offset >= 0, size >= 0 and stride >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0, 0] sizes = [32, 1000] strides = [1, 0] : tensor<32x1008xf32> -> tensor<32x1000xf32>
  return
}

// -----

// slice: the box reads past the end of the input.
func.func @slice_past_end(%x: tensor<32x1008xf32>) {
  // expected-error @+2 {{'mpt.slice' op dimension 1: the slice (offset 9, size 1000, stride 1) reads past the input size 1008}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0, 9] sizes = [32, 1000] : tensor<32x1008xf32> -> tensor<32x1000xf32>
  return
}

// -----

// slice: a strided box reads past the end of the input.
func.func @slice_past_end_strided(%x: tensor<32x10xf32>) {
  // expected-error @+2 {{'mpt.slice' op dimension 1: the slice (offset 1, size 6, stride 2) reads past the input size 10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [0, 1] sizes = [32, 6] strides = [1, 2] : tensor<32x10xf32> -> tensor<32x6xf32>
  return
}

// -----

// pad: wrong number of paddings.
func.func @pad_count(%x: tensor<32x1000xf32>) {
  // expected-error @+2 {{'mpt.pad' op expects 2 low and high paddings, got 2 and 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.pad %x low = [0, 0] high = [8] : tensor<32x1000xf32> -> tensor<32x1008xf32>
  return
}

// -----

// pad: a negative padding.
func.func @pad_negative(%x: tensor<32x1000xf32>) {
  // expected-error @+2 {{'mpt.pad' op paddings must be non-negative (use mpt.slice to crop)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.pad %x low = [0, -8] high = [0, 0] : tensor<32x1000xf32> -> tensor<32x992xf32>
  return
}

// -----

// cast: changes the shape.
func.func @cast_shape(%x: tensor<32x784xf32>) {
  // expected-error @+1 {{'mpt.cast' op changes the shape from 32x784 to 32x783; a cast changes only the element type (use mpt.reshape)}}
  %0 = mpt.cast %x : tensor<32x784xf32> to tensor<32x783xf16>
  return
}

// -----

// cast: changes the rank.
func.func @cast_rank(%x: tensor<32x784xf32>) {
  // expected-error @+1 {{'mpt.cast' op changes the shape from 32x784 to 25088}}
  %0 = mpt.cast %x : tensor<32x784xf32> to tensor<25088xf16>
  return
}

// -----

// cast: an unranked type cannot be written in the custom form.
func.func @cast_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'mpt.cast' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = mpt.cast %x : tensor<*xf32> to tensor<4xf16>
  return
}

// -----

// cast: unranked operand is rejected (ODS, generic form).
func.func @cast_unranked_generic(%x: tensor<*xf32>) {
  // expected-error @+1 {{'mpt.cast' op operand #0 must be ranked tensor of}}
  %0 = "mpt.cast"(%x) : (tensor<*xf32>) -> tensor<4xf16>
  return
}

// -----

// constant: the value's type differs from the result type (generic form).
func.func @constant_type() {
  // expected-error @+1 {{'mpt.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "mpt.constant"() {value = dense<1.0> : tensor<4xf16>} : () -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// -----

// softmax_cross_entropy: labels of the wrong rank.
func.func @sce_label_rank(%l: tensor<32x10xf32>, %y: tensor<32x10xi64>) {
  // expected-error @+2 {{'mpt.softmax_cross_entropy' op labels of shape 32x10 do not match logits of shape 32x10: expected the logits' shape without its last (class) dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.softmax_cross_entropy %l, %y : (tensor<32x10xf32>, tensor<32x10xi64>) -> tensor<f32>
  return
}

// -----

// softmax_cross_entropy: labels of the wrong batch size.
func.func @sce_label_batch(%l: tensor<32x10xf32>, %y: tensor<16xi64>) {
  // expected-error @+2 {{'mpt.softmax_cross_entropy' op labels of shape 16 do not match logits of shape 32x10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.softmax_cross_entropy %l, %y : (tensor<32x10xf32>, tensor<16xi64>) -> tensor<f32>
  return
}

// -----

// softmax_cross_entropy: rank-0 logits have no class dimension.
func.func @sce_scalar_logits(%l: tensor<f32>, %y: tensor<i64>) {
  // expected-error @+2 {{'mpt.softmax_cross_entropy' op expects logits of rank at least 1 (a class dimension last)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.softmax_cross_entropy %l, %y : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

// softmax_cross_entropy: float labels are rejected (ODS element type).
func.func @sce_float_labels(%l: tensor<32x10xf32>, %y: tensor<32xf32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op operand #1 must be ranked tensor of signless integer values, but got 'tensor<32xf32>'}}
  %0 = mpt.softmax_cross_entropy %l, %y : (tensor<32x10xf32>, tensor<32xf32>) -> tensor<f32>
  return
}

// -----

// softmax_cross_entropy: the loss has the logits' element type (or f32 with
// narrower logits).
func.func @sce_result_type(%l: tensor<32x10xf32>, %y: tensor<32xi64>) {
  // expected-error @+2 {{'mpt.softmax_cross_entropy' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<f16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.softmax_cross_entropy %l, %y : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f16>
  return
}

// -----

// softmax_cross_entropy: f16 logits give an f16 or f32 loss, not bf16.
func.func @sce_loss_type_narrow(%l: tensor<32x10xf16>, %y: tensor<32xi64>) {
  // expected-error @+2 {{'mpt.softmax_cross_entropy' op inferred type(s) 'tensor<f16>' are incompatible with return type(s) of operation 'tensor<bf16>'}}
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op failed to infer returned types}}
  %0 = mpt.softmax_cross_entropy %l, %y : (tensor<32x10xf16>, tensor<32xi64>) -> tensor<bf16>
  return
}

// -----

// mse_loss: input and target shapes differ.
func.func @mse_shape(%p: tensor<32x1xf32>, %t: tensor<32x2xf32>) {
  // expected-error @+2 {{'mpt.mse_loss' op input of shape 32x1 and target of shape 32x2 differ; they must have the same shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.mse_loss %p, %t : (tensor<32x1xf32>, tensor<32x2xf32>) -> tensor<f32>
  return
}

// -----

// l1_loss: input and target ranks differ (no broadcasting).
func.func @l1_shape(%p: tensor<32x1xf32>, %t: tensor<32xf32>) {
  // expected-error @+2 {{'mpt.l1_loss' op input of shape 32x1 and target of shape 32 differ; they must have the same shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.l1_loss %p, %t : (tensor<32x1xf32>, tensor<32xf32>) -> tensor<f32>
  return
}

// -----

// mse_loss: the result must be rank 0 (ODS).
func.func @mse_result_rank(%p: tensor<32x1xf32>, %t: tensor<32x1xf32>) {
  // expected-error @+1 {{'mpt.mse_loss' op result #0 must be 0D tensor of floating-point}}
  %0 = mpt.mse_loss %p, %t : (tensor<32x1xf32>, tensor<32x1xf32>) -> tensor<1xf32>
  return
}

// -----

// l1_loss: input and target of different element types (AllElementTypesMatch).
func.func @l1_mixed_types(%p: tensor<32x1xf16>, %t: tensor<32x1xf32>) {
  // expected-error @+1 {{'mpt.l1_loss' op failed to verify that all of {input, target, result} have same element type}}
  %0 = mpt.l1_loss %p, %t : (tensor<32x1xf16>, tensor<32x1xf32>) -> tensor<f16>
  return
}

//===----------------------------------------------------------------------===//
// Required attributes (generic form)
//===----------------------------------------------------------------------===//

// -----

// transpose: perm is required.
func.func @transpose_no_perm(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{'mpt.transpose' op requires attribute 'perm'}}
  %0 = "mpt.transpose"(%x) : (tensor<8x32xf32>) -> tensor<32x8xf32>
  return
}

// -----

// concat: axis is required.
func.func @concat_no_axis(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{'mpt.concat' op requires attribute 'axis'}}
  %0 = "mpt.concat"(%x, %x) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
  return
}

// -----

// reshape: the result shape must be static (there is no shape operand).
func.func @reshape_dynamic_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mpt.reshape' op expects a static result shape}}
  %0 = mpt.reshape %x : tensor<4x8xf32> to tensor<?xf32>
  return
}

// -----

// reshape: a dynamic input cannot fill a static result that its static
// dimensions do not divide.
func.func @reshape_dynamic_input(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mpt.reshape' op cannot reshape ?x4 to 3x5: 15 elements are not a multiple of the static dimensions' product 4}}
  %0 = mpt.reshape %x : tensor<?x4xf32> to tensor<3x5xf32>
  return
}

// -----

// pad: an integer tensor is padded with an integer.
func.func @pad_integer_fraction(%x: tensor<4xi64>) {
  // expected-error @+1 {{'mpt.pad' op pads an integer tensor with 5.000000e-01; the padding value must be a finite integer}}
  %0 = mpt.pad %x low = [1] high = [0] value = 0.5 : tensor<4xi64> -> tensor<5xi64>
  return
}

// -----

// pad: the padded size must not overflow.
func.func @pad_overflow(%x: tensor<4xf32>) {
  // expected-error @+2 {{'mpt.pad' op padded size of dimension 0 overflows}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.pad %x low = [1] high = [9223372036854775807] : tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

// slice: a huge stride overflows instead of wrapping around.
func.func @slice_stride_overflow(%x: tensor<4xf32>) {
  // expected-error @+2 {{'mpt.slice' op dimension 0: the slice (offset 1, size 2, stride 9223372036854775807) reads past the input size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.slice %x offsets = [1] sizes = [2] strides = [9223372036854775807] : tensor<4xf32> -> tensor<2xf32>
  return
}

// -----

// conv2d: a dilation that overflows the window span is rejected.
func.func @conv2d_dilation_overflow(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'mpt.conv2d' op the dilated 3x3 filter is larger than the padded input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mpt.conv2d %x, %w dilation [4611686018427387904, 1] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// Attributes of the mpt namespace on operations are not defined.
func.func @mpt_attr_on_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown attribute 'mpt.junk' on an operation; the mpt dialect defines only 'mpt.precision', 'mpt.recomputed' and 'mpt.tma_store' on operations}}
  %0 = mpt.exp %x {mpt.junk} : tensor<4xf32>
  return
}

// -----

// mpt.recomputed marks an op the backward pass computes again: a unit
// attribute.
func.func @recomputed_not_unit(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.recomputed' is a unit attribute (an op the backward pass recomputes), got 1 : i64}}
  %0 = mpt.gelu %x {mpt.recomputed = 1} : tensor<4xf32>
  return
}

// -----

// mpt.tma_store marks a tensor map that a kernel stores through: a unit
// attribute of nvgpu.tma.create.descriptor only.
func.func @tma_store_on_other_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.tma_store' is a unit attribute of nvgpu.tma.create.descriptor (a tensor map that a kernel stores through), not of 'mpt.exp' with value unit}}
  %0 = mpt.exp %x {mpt.tma_store} : tensor<4xf32>
  return
}

// -----

// mpt.precision takes a precision attribute.
func.func @mpt_precision_value(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.precision' must be #mpt.precision<fp32> or #mpt.precision<low>, got "fp32"}}
  %0 = mpt.exp %x {mpt.precision = "fp32"} : tensor<4xf32>
  return
}

// -----

// mpt.logical_shape holds sizes.
// expected-error @+1 {{'mpt.logical_shape' on argument #0 must be an array of sizes such as array<i64: 128, 10>}}
func.func @logical_shape_value(%w: tensor<128x16xf32> {mpt.logical_shape = 10 : i64}) {
  return
}

// -----

// softmax_cross_entropy: classes within the class dimension.
func.func @sce_classes(%l: tensor<4x16xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy' op classes = 17 must be in [1, 16], the size of the class dimension}}
  %0 = mpt.softmax_cross_entropy %l, %y classes = 17 : (tensor<4x16xf32>, tensor<4xi64>) -> tensor<f32>
  return
}

// -----

// momentum_update: the momentum must be below 1 (1.0 never forgets the velocity).
func.func @momentum_update_momentum_one(%p: tensor<8xf32>, %g: tensor<8xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.momentum_update' op expects lr >= 0, momentum in [0, 1) and weight_decay >= 0, got lr = 1.000000e-01, momentum = 1.000000e+00, weight_decay = 0.000000e+00}}
  %0:2 = mpt.momentum_update %p, %g, %v lr = 0.1 momentum = 1.0 : tensor<8xf32>
  return
}

// -----

// adam_update: eps must be positive (eps = 0 divides by zero where v is 0).
func.func @adam_update_eps_zero(%p: tensor<8xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %t: tensor<f32>) {
  // expected-error @+1 {{'mpt.adam_update' op expects lr >= 0, beta1 and beta2 in [0, 1), eps > 0 and weight_decay >= 0, got lr = 1.000000e-03, beta1 = 9.000000e-01, beta2 = 9.990000e-01, eps = 0.000000e+00}}
  %0:3 = mpt.adam_update %p, %g, %m, %v, %t lr = 0.001 beta1 = 0.9 beta2 = 0.999 eps = 0.0 : tensor<8xf32>, tensor<f32>
  return
}

// -----

func.func @clip_no_gradient() {
  // expected-error @+1 {{'mpt.clip_by_global_norm' op expects at least one gradient}}
  mpt.clip_by_global_norm max_norm = 1.0 : () -> ()
  return
}

// -----

func.func @clip_result_count(%g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.clip_by_global_norm' op expects one result per gradient, got 1 gradients and 2 results}}
  %0:2 = mpt.clip_by_global_norm %g max_norm = 1.0 : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @clip_result_shape(%g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.clip_by_global_norm' op result #0 must have the shape of gradient #0, got 'tensor<5xf32>' for 'tensor<4xf32>'}}
  %0 = mpt.clip_by_global_norm %g max_norm = 1.0 : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @clip_max_norm(%g: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.clip_by_global_norm' op expects a finite max_norm > 0, got 0.000000e+00}}
  %0 = mpt.clip_by_global_norm %g max_norm = 0.0 : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unscale_scale_count(%g: tensor<4xf32>, %h: tensor<2xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.unscale_and_check' op expects one scale, or one per gradient (2), got 3}}
  %0:3 = mpt.unscale_and_check %g, %h scales(%s, %s, %s) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<i1>)
  return
}

// -----

func.func @unscale_result_shape(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.unscale_and_check' op result #0 must have the shape of gradient #0, got 'tensor<8xf32>' for 'tensor<4xf16>'}}
  %0:2 = mpt.unscale_and_check %g scales(%s) : (tensor<4xf16>, tensor<f32>) -> (tensor<8xf32>, tensor<i1>)
  return
}

// -----

func.func @unscale_max_norm(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.unscale_and_check' op expects a finite max_norm > 0, got -1.000000e+00}}
  %0:2 = mpt.unscale_and_check %g scales(%s) max_norm = -1.0 : (tensor<4xf16>, tensor<f32>) -> (tensor<4xf32>, tensor<i1>)
  return
}

// -----

func.func @unscale_scale_type(%g: tensor<4xf16>, %s: tensor<f16>) {
  // expected-error @+1 {{'mpt.unscale_and_check' op operand #1 must be variadic of 0D tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0:2 = mpt.unscale_and_check %g scales(%s) : (tensor<4xf16>, tensor<f16>) -> (tensor<4xf32>, tensor<i1>)
  return
}

// -----

func.func @unscale_flag_type(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.unscale_and_check' op result #1 must be 0D tensor of 1-bit signless integer values, but got 'tensor<f32>'}}
  %0:2 = mpt.unscale_and_check %g scales(%s) : (tensor<4xf16>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)
  return
}

// -----

func.func @seed_not_scalar(%l: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.backward_seed' op operand #0 must be 0D tensor of floating-point}}
  %0 = mpt.backward_seed %l : tensor<4xf32>
  return
}

// -----

func.func @select_condition_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.select' op expects a rank-0 condition or one of shape 'tensor<4xf32>', got 'tensor<3xi1>'}}
  %0 = mpt.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return
}

// -----

func.func @select_condition_type(%c: tensor<i32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'mpt.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<i32>'}}
  %0 = mpt.select %c, %a, %a : tensor<i32>, tensor<4xf32>
  return
}

// -----

func.func @layer_scale_fan_in(%g: tensor<4x4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.layer_scale' op expects fan_in >= 1, got 0}}
  %0 = mpt.layer_scale %g, %g, %s fan_in = 0 min_value = 1.0e-7 max_value = 65504.0 max_scale = 1024.0 : tensor<4x4xf16>, tensor<4x4xf16>
  return
}

// -----

func.func @layer_scale_range(%g: tensor<4x4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.layer_scale' op expects 0 < min_value < max_value, both finite, got 6.550400e+04 and 1.000000e+00}}
  %0 = mpt.layer_scale %g, %g, %s fan_in = 4 min_value = 65504.0 max_value = 1.0 max_scale = 1024.0 : tensor<4x4xf16>, tensor<4x4xf16>
  return
}

// -----

func.func @layer_scale_max_scale(%g: tensor<4x4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mpt.layer_scale' op expects a finite max_scale >= 1, got 5.000000e-01}}
  %0 = mpt.layer_scale %g, %g, %s fan_in = 4 min_value = 1.0e-7 max_value = 65504.0 max_scale = 0.5 : tensor<4x4xf16>, tensor<4x4xf16>
  return
}

// -----

func.func @update_scale_growth(%s: tensor<f32>, %n: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op expects a finite growth_factor > 1, got 1.000000e+00}}
  %0:3 = mpt.update_scale %s, %n, %n, %f growth_factor = 1.0 backoff_factor = 0.5 growth_interval = 10 hysteresis = 1 min_scale = 1.0 max_scale = 1024.0
  return
}

// -----

func.func @update_scale_backoff(%s: tensor<f32>, %n: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op expects backoff_factor in (0, 1), got 1.000000e+00}}
  %0:3 = mpt.update_scale %s, %n, %n, %f growth_factor = 2.0 backoff_factor = 1.0 growth_interval = 10 hysteresis = 1 min_scale = 1.0 max_scale = 1024.0
  return
}

// -----

func.func @update_scale_interval(%s: tensor<f32>, %n: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op expects growth_interval in [1, 2^31), got 0}}
  %0:3 = mpt.update_scale %s, %n, %n, %f growth_factor = 2.0 backoff_factor = 0.5 growth_interval = 0 hysteresis = 1 min_scale = 1.0 max_scale = 1024.0
  return
}

// -----

func.func @update_scale_hysteresis(%s: tensor<f32>, %n: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op expects hysteresis in [1, 2^31), got 0}}
  %0:3 = mpt.update_scale %s, %n, %n, %f growth_factor = 2.0 backoff_factor = 0.5 growth_interval = 10 hysteresis = 0 min_scale = 1.0 max_scale = 1024.0
  return
}

// -----

func.func @update_scale_bounds(%s: tensor<f32>, %n: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op expects 0 < min_scale <= max_scale <= the largest f32, got 2.048000e+03 and 1.024000e+03}}
  %0:3 = mpt.update_scale %s, %n, %n, %f growth_factor = 2.0 backoff_factor = 0.5 growth_interval = 10 hysteresis = 1 min_scale = 2048.0 max_scale = 1024.0
  return
}

// -----

func.func @update_scale_state_type(%s: tensor<f32>, %n: tensor<i64>, %f: tensor<i1>) {
  // expected-error @+1 {{'mpt.update_scale' op operand #1 must be 0D tensor of 32-bit signless integer values, but got 'tensor<i64>'}}
  %0:3 = "mpt.update_scale"(%s, %n, %n, %f) {growth_factor = 2.0 : f64, backoff_factor = 0.5 : f64, growth_interval = 10 : i64, hysteresis = 1 : i64, min_scale = 1.0 : f64, max_scale = 1024.0 : f64} : (tensor<f32>, tensor<i64>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<i32>)
  return
}

// -----

// expected-error @+1 {{'mpt.initial_value' on argument #0 must be a dense elements attribute of the argument's type 'tensor<f32>', got dense<1> : tensor<i32>}}
func.func @initial_value_type(%s: tensor<f32> {mpt.initial_value = dense<1> : tensor<i32>}) {
  return
}

// -----

// expected-error @+1 {{'mpt.initial_value' is an attribute of function arguments, not of result #0}}
func.func @initial_value_result() -> (tensor<f32> {mpt.initial_value = dense<1.0> : tensor<f32>}) {
  %0 = mpt.constant dense<1.0> : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @sm_count_in_kernel() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{'mpt.sm_count' op is host code (the device's multiprocessor count, asked before a launch), not part of a GPU kernel: found inside 'gpu.launch'}}
    %n = mpt.sm_count
    gpu.terminator
  }
  return
}

// -----

func.func @sm_count_cluster_of_none() -> index {
  // expected-error @+1 {{'mpt.sm_count' op expects a cluster of 1 to 16 blocks (the most that an sm_90 GPU runs), got 0}}
  %n = mpt.sm_count cluster 0
  return %n : index
}

// -----

func.func @sm_count_cluster_too_large() -> index {
  // expected-error @+1 {{'mpt.sm_count' op expects a cluster of 1 to 16 blocks (the most that an sm_90 GPU runs), got 32}}
  %n = mpt.sm_count cluster 32
  return %n : index
}

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

// -----

// softmax_cross_entropy_grad: labels that are not the logits' leading shape.
func.func @sce_grad_labels(%l: tensor<8x10xf32>, %y: tensor<4xi64>, %g: tensor<f32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op labels of shape 4 do not match logits of shape 8x10: expected the logits' shape without its last (class) dimension}}
  %0 = mpt.softmax_cross_entropy_grad %l, %y, %g : (tensor<8x10xf32>, tensor<4xi64>, tensor<f32>) -> tensor<8x10xf32>
  return
}

// -----

// softmax_cross_entropy_grad: a loss gradient of another type than the
// logits (f32 is allowed with narrower logits only).
func.func @sce_grad_type(%l: tensor<8x10xf32>, %y: tensor<8xi64>, %g: tensor<f16>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op the loss gradient has element type 'f16', expected 'f32' like the logits}}
  %0 = mpt.softmax_cross_entropy_grad %l, %y, %g : (tensor<8x10xf32>, tensor<8xi64>, tensor<f16>) -> tensor<8x10xf32>
  return
}

// -----

// softmax_cross_entropy_grad: with f16 logits, an f16 or f32 loss gradient.
func.func @sce_grad_type_narrow(%l: tensor<8x10xf16>, %y: tensor<8xi64>, %g: tensor<bf16>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op the loss gradient has element type 'bf16', expected 'f16' like the logits or f32}}
  %0 = mpt.softmax_cross_entropy_grad %l, %y, %g : (tensor<8x10xf16>, tensor<8xi64>, tensor<bf16>) -> tensor<8x10xf16>
  return
}

// -----

// softmax_cross_entropy_grad: the result has the logits' shape.
func.func @sce_grad_shape(%l: tensor<8x10xf32>, %y: tensor<8xi64>, %g: tensor<f32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op result of shape 8x16 differs from the logits' 8x10}}
  %0 = mpt.softmax_cross_entropy_grad %l, %y, %g : (tensor<8x10xf32>, tensor<8xi64>, tensor<f32>) -> tensor<8x16xf32>
  return
}

// -----

// softmax_cross_entropy_grad: an f32 result only with narrower logits.
func.func @sce_grad_result_type(%l: tensor<8x10xbf16>, %y: tensor<8xi64>, %g: tensor<f32>) {
  // expected-error @+1 {{'mpt.softmax_cross_entropy_grad' op result has element type 'f16', expected 'bf16' like the logits or f32}}
  %0 = mpt.softmax_cross_entropy_grad %l, %y, %g : (tensor<8x10xbf16>, tensor<8xi64>, tensor<f32>) -> tensor<8x10xf16>
  return
}

// -----

// conv2d_backward_data: a gradient that the convolution of the result type
// with the filter does not give.
func.func @conv_data_grad_shape(%dy: tensor<2x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_backward_data' op the gradient has shape 2x4x6x6, but the convolution of input 2x3x8x8 with filter 4x3x3x3 gives 2x4x8x8}}
  %0 = mpt.conv2d_backward_data %dy, %w pad [1, 1, 1, 1] : (tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// conv2d_backward_data: the convolution itself is invalid (channels).
func.func @conv_data_grad_channels(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_backward_data' op the filter has 3 channels a group, expected 5 (input channels 5 / groups 1)}}
  %0 = mpt.conv2d_backward_data %dy, %w pad [1, 1, 1, 1] : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x5x8x8xf32>
  return
}

// -----

// conv2d_backward_data: an accumulator narrower than the operands.
func.func @conv_data_grad_acc(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_backward_data' op accumulator type 'f16' cannot hold every value of the operand type 'f32'; use a type at least as wide, such as f32}}
  %0 = mpt.conv2d_backward_data %dy, %w pad [1, 1, 1, 1] acc(f16) : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// conv2d_backward_data: groups that do not divide the input channels.
func.func @conv_data_grad_groups(%dy: tensor<2x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{'mpt.conv2d_backward_data' op input channels (3) are not divisible by groups (2)}}
  %0 = mpt.conv2d_backward_data %dy, %w pad [1, 1, 1, 1] groups 2 : (tensor<2x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// conv2d_backward_filter: groups that do not divide the filter count.
func.func @conv_filter_grad_groups(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.conv2d_backward_filter' op filter count (3) is not divisible by groups (2)}}
  %0 = mpt.conv2d_backward_filter %x, %dy pad [1, 1, 1, 1] groups 2 : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<3x2x3x3xf32>
  return
}

// -----

// conv2d_backward_filter: a filter larger than the padded input.
func.func @conv_filter_grad_large(%x: tensor<1x1x2x2xf32>, %dy: tensor<1x1x1x1xf32>) {
  // expected-error @+1 {{'mpt.conv2d_backward_filter' op the dilated filter is larger than the padded input (input 1x1x2x2, filter 1x1x3x3)}}
  %0 = mpt.conv2d_backward_filter %x, %dy : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

// conv2d_backward_filter: a gradient of the wrong spatial size (stride 2).
func.func @conv_filter_grad_shape(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{'mpt.conv2d_backward_filter' op the gradient has shape 2x4x8x8, but the convolution of input 2x3x8x8 with filter 4x3x3x3 gives 2x4x4x4}}
  %0 = mpt.conv2d_backward_filter %x, %dy stride [2, 2] pad [1, 1, 1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

// max_pool2d_grad: a gradient that pooling the input does not give.
func.func @max_pool_grad_shape(%dy: tensor<2x3x3x3xf32>, %x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'mpt.max_pool2d_grad' op the gradient has shape 2x3x3x3, but pooling the input gives 2x3x4x4}}
  %0 = mpt.max_pool2d_grad %dy, %x kernel [2, 2] stride [2, 2] : (tensor<2x3x3x3xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d_grad: a gradient that pooling the result type does not give.
func.func @avg_pool_grad_shape(%dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'mpt.avg_pool2d_grad' op the gradient has shape 2x3x4x4, but pooling the result type gives 2x3x3x3}}
  %0 = mpt.avg_pool2d_grad %dy kernel [2, 2] stride [2, 2] : tensor<2x3x4x4xf32> -> tensor<2x3x6x6xf32>
  return
}

// -----

// embedding_grad: a gradient that is not the indices' shape and the row width.
func.func @embedding_grad_shape(%g: tensor<2x5x4xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+1 {{'mpt.embedding_grad' op expects a rank-2 table gradient and a gradient of shape 2x5x6 (the indices' shape and the row width), got 2x5x4 and 100x6}}
  %0 = mpt.embedding_grad %g, %i : (tensor<2x5x4xf32>, tensor<2x5xi64>) -> tensor<100x6xf32>
  return
}

// -----

// embedding_grad: a table gradient that is not rank 2.
func.func @embedding_grad_rank(%g: tensor<2x5x6xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+1 {{'mpt.embedding_grad' op expects a rank-2 table gradient and a gradient of shape 2x5 (the indices' shape and the row width), got 2x5x6 and 600}}
  %0 = mpt.embedding_grad %g, %i : (tensor<2x5x6xf32>, tensor<2x5xi64>) -> tensor<600xf32>
  return
}

// -----

// sgd_update: a negative learning rate.
func.func @sgd_negative_lr(%p: tensor<8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'mpt.sgd_update' op expects lr >= 0 and weight_decay >= 0, got lr = -1.000000e-01, weight_decay = 0.000000e+00}}
  %0 = mpt.sgd_update %p, %g lr = -0.1 : tensor<8xf32>
  return
}
