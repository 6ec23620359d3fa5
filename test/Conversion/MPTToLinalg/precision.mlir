// RUN: mpt-opt %s --convert-mpt-to-linalg -split-input-file | FileCheck %s

// Precision of the lowering: an op on f16/bf16 (and f8) reads its operands
// with arith.extf to f32, computes in f32, and rounds its result once with
// arith.truncf; reductions, normalizations and losses keep their
// intermediate tensors in f32; a contraction with acc(f32) accumulates in an
// f32 outs tensor and rounds once, one without acc accumulates in the element
// type; f32 and f64 ops convert nothing.

// -----

// A broadcasting f16 add: both operands extended, one f32 add, one truncf.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_f16(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf16>, %[[B:[a-z0-9_]+]]: tensor<8xf16>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf16>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8xf16>) outs(%[[E]] : tensor<4x8xf16>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f16, %[[Y:[a-z0-9_]+]]: f16, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[XE]], %[[YE]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]]
func.func @add_f16(%a: tensor<4x8xf16>, %b: tensor<8xf16>) -> tensor<4x8xf16> {
  %0 = mpt.add %a, %b : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// CHECK-LABEL: func.func @exp_bf16(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[Y:.*]] = math.exp %[[XE]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
func.func @exp_bf16(%a: tensor<16xbf16>) -> tensor<16xbf16> {
  %0 = mpt.exp %a : tensor<16xbf16>
  return %0 : tensor<16xbf16>
}

// -----

// A multi-step scalar formula (gelu, x * 0.5 erfc(-x / sqrt(2))) rounds only
// its final result.
// CHECK-LABEL: func.func @gelu_f16(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f16, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: math.erfc %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: %[[Y:.*]] = arith.mulf %[[XE]], %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @gelu_f16(%a: tensor<16xf16>) -> tensor<16xf16> {
  %0 = mpt.gelu %a : tensor<16xf16>
  return %0 : tensor<16xf16>
}

// -----

// The tanh gelu on bf16: x^3, u, exp(-2u) and the sigmoid 1 / (1 + exp(-2u))
// all in f32, one truncf.
// CHECK-LABEL: func.func @gelu_tanh_bf16(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: math.exp %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: %[[S:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[XE]], %[[S]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
func.func @gelu_tanh_bf16(%a: tensor<16xbf16>) -> tensor<16xbf16> {
  %0 = mpt.gelu %a approximate<tanh> : tensor<16xbf16>
  return %0 : tensor<16xbf16>
}

// -----

// gelu_grad on f16: both operands extended, Phi, phi and the product in f32,
// one truncf.
// CHECK-LABEL: func.func @gelu_grad_f16(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[G:[a-z0-9_]+]]: f16, %[[X:[a-z0-9_]+]]: f16, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[GE:.*]] = arith.extf %[[G]] : f16 to f32
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: math.erfc %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: math.exp %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: %[[Y:.*]] = arith.mulf %[[GE]], %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @gelu_grad_f16(%dy: tensor<16xf16>, %x: tensor<16xf16>) -> tensor<16xf16> {
  %0 = mpt.gelu_grad %dy, %x : tensor<16xf16>
  return %0 : tensor<16xf16>
}

// -----

// f8 computes in f32 too.
// CHECK-LABEL: func.func @mul_f8(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f8E4M3FN, %[[Y:[a-z0-9_]+]]: f8E4M3FN, %{{[a-z0-9_]+}}: f8E4M3FN):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : f8E4M3FN to f32
// CHECK-NEXT: %[[YE:.*]] = arith.extf %[[Y]] : f8E4M3FN to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XE]], %[[YE]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[P]] : f32 to f8E4M3FN
// CHECK-NEXT: linalg.yield %[[T]] : f8E4M3FN
func.func @mul_f8(%a: tensor<16xf8E4M3FN>) -> tensor<16xf8E4M3FN> {
  %0 = mpt.mul %a, %a : (tensor<16xf8E4M3FN>, tensor<16xf8E4M3FN>) -> tensor<16xf8E4M3FN>
  return %0 : tensor<16xf8E4M3FN>
}

// -----

// acc(f32) on f16: linalg.matmul with f16 ins and a zero-filled f32 outs,
// then a generic that only truncates.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_acc_f32(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<32x64xf16>, %[[B:[a-z0-9_]+]]: tensor<64x16xf16>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<32x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<32x16xf32>) -> tensor<32x16xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<32x64xf16>, tensor<64x16xf16>) outs(%[[INIT]] : tensor<32x16xf32>) -> tensor<32x16xf32>
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<32x16xf16>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[MM]] : tensor<32x16xf32>) outs(%[[OUT]] : tensor<32x16xf16>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]] : tensor<32x16xf16>
func.func @matmul_acc_f32(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>) -> tensor<32x16xf16> {
  %0 = mpt.matmul %a, %b acc(f32) : (tensor<32x64xf16>, tensor<64x16xf16>) -> tensor<32x16xf16>
  return %0 : tensor<32x16xf16>
}

// -----

// Without acc, a f16 matmul accumulates in f16: an f16 fill and outs, and no
// conversion anywhere.
// CHECK-LABEL: func.func @matmul_f16(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<32x64xf16>, %[[B:[a-z0-9_]+]]: tensor<64x16xf16>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f16) outs(%{{.*}} : tensor<32x16xf16>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<32x64xf16>, tensor<64x16xf16>) outs(%[[INIT]] : tensor<32x16xf16>) -> tensor<32x16xf16>
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]] : tensor<32x16xf16>
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
func.func @matmul_f16(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>) -> tensor<32x16xf16> {
  %0 = mpt.matmul %a, %b : (tensor<32x64xf16>, tensor<64x16xf16>) -> tensor<32x16xf16>
  return %0 : tensor<32x16xf16>
}

// -----

// acc(f32) on bf16 batch_matmul: same structure.
// CHECK-LABEL: func.func @batch_matmul_acc_bf16(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x8x8xf32>)
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x8x16xbf16>, tensor<4x16x8xbf16>) outs(%{{.*}} : tensor<4x8x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<4x8x8xf32>) outs(%{{.*}} : tensor<4x8x8xbf16>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT: arith.truncf %[[V]] : f32 to bf16
func.func @batch_matmul_acc_bf16(%a: tensor<4x8x16xbf16>, %b: tensor<4x16x8xbf16>) -> tensor<4x8x8xbf16> {
  %0 = mpt.batch_matmul %a, %b acc(f32) : (tensor<4x8x16xbf16>, tensor<4x16x8xbf16>) -> tensor<4x8x8xbf16>
  return %0 : tensor<4x8x8xbf16>
}

// -----

// acc(f32) on a f16 conv2d: the named conv with f16 ins and an f32 outs.
// CHECK-LABEL: func.func @conv2d_acc_f16(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<1x3x8x8xf16>, %[[W:[a-z0-9_]+]]: tensor<4x3x3x3xf16>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x6x6xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[W]] : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) outs(%[[INIT]] : tensor<1x4x6x6xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x6x6xf32>) outs(%{{.*}} : tensor<1x4x6x6xf16>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: arith.truncf %[[V]] : f32 to f16
// CHECK: return %[[R]]
func.func @conv2d_acc_f16(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16> {
  %0 = mpt.conv2d %x, %w acc(f32) : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16>
  return %0 : tensor<1x4x6x6xf16>
}

// -----

// softmax on f16: the max and the sum accumulate in f32, x - max is
// recomputed in f32 from the f16 input by the sum and the result (no tensor
// of it), and only the last generic rounds to f16.
// CHECK-LABEL: func.func @softmax_f16(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x10xf16>
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x10xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f16, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[VE:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: arith.maximumf %[[ACC]], %[[VE]] : f32
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<4x10xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f16, %[[M:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[VE:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[VE]], %[[M]] : f32
// CHECK-NOT: arith.truncf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<4x10xf16>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x10xf16>)
// CHECK: %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[Q]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]]
func.func @softmax_f16(%x: tensor<4x10xf16>) -> tensor<4x10xf16> {
  %0 = mpt.softmax %x : tensor<4x10xf16>
  return %0 : tensor<4x10xf16>
}

// -----

// layer_norm on bf16: every statistic is an f32 tensor, no tensor of the
// input's size is made in f32 (x - mean is recomputed where it is read),
// scale and bias are extended in the last generic, which rounds once.
// CHECK-LABEL: func.func @layer_norm_bf16(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x32xbf16>, %[[G:[a-z0-9_]+]]: tensor<32xbf16>, %[[B:[a-z0-9_]+]]: tensor<32xbf16>
// CHECK-NOT: tensor<4x32xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x32xbf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<4x32xbf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: arith.truncf
// CHECK: %[[SD:.*]] = math.sqrt %{{.*}} : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[SD]] : f32
// CHECK-NOT: arith.truncf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}}, %{{.*}}, %[[G]], %[[B]] : tensor<4x32xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<32xbf16>, tensor<32xbf16>) outs(%{{.*}} : tensor<4x32xbf16>)
// CHECK-NEXT: ^bb0(%[[XV:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: f32, %[[GV:[a-z0-9_]+]]: bf16, %[[BV:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[XV]] : bf16 to f32
// CHECK-NEXT: %[[GE:.*]] = arith.extf %[[GV]] : bf16 to f32
// CHECK-NEXT: %[[BE:.*]] = arith.extf %[[BV]] : bf16 to f32
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[XE]], %{{.*}} : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[C]], %{{.*}} : f32
// CHECK-NEXT: %[[YG:.*]] = arith.mulf %[[Y]], %[[GE]] : f32
// CHECK-NEXT: %[[YB:.*]] = arith.addf %[[YG]], %[[BE]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[YB]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
// CHECK-NOT: tensor<4x32xf32>
// CHECK: return %[[R]]
func.func @layer_norm_bf16(%x: tensor<4x32xbf16>, %g: tensor<32xbf16>, %b: tensor<32xbf16>) -> tensor<4x32xbf16> {
  %0 = mpt.layer_norm %x, %g, %b : (tensor<4x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<4x32xbf16>
  return %0 : tensor<4x32xbf16>
}

// -----

// batch_norm on f16: channel statistics in f32.
// CHECK-LABEL: func.func @batch_norm_f16(
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x3x3xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: arith.truncf
// CHECK: %[[SD:.*]] = math.sqrt %{{.*}} : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[SD]] : f32
// CHECK-NOT: arith.truncf
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x3x3xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: linalg.yield
func.func @batch_norm_f16(%x: tensor<2x4x3x3xf16>, %s: tensor<4xf16>) -> tensor<2x4x3x3xf16> {
  %0 = mpt.batch_norm %x, %s, %s : (tensor<2x4x3x3xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x4x3x3xf16>
  return %0 : tensor<2x4x3x3xf16>
}

// -----

// batch_norm with an f16 input and f32 scale and bias: the parameters are
// read as they are and the f16 result is rounded once.
// CHECK-LABEL: func.func @batch_norm_f32_params(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x4x3x3xf16>, %[[S:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-NOT: tensor<2x4x3x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}}, %{{.*}}, %[[S]], %[[S]] : tensor<2x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x3x3xf16>)
// CHECK-NEXT: ^bb0(%[[XV:[a-z0-9_]+]]: f16,
// CHECK-NEXT: arith.extf %[[XV]] : f16 to f32
// CHECK-NOT: arith.extf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: linalg.yield
// CHECK: return %[[R]]
func.func @batch_norm_f32_params(%x: tensor<2x4x3x3xf16>, %s: tensor<4xf32>) -> tensor<2x4x3x3xf16> {
  %0 = mpt.batch_norm %x, %s, %s : (tensor<2x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf16>
  return %0 : tensor<2x4x3x3xf16>
}

// -----

// batch_norm_grad with f16 data and f32 parameters: the input gradient is
// rounded once to f16, the scale and bias gradients are f32 sums, never
// rounded. No f32 tensor of the data's size is made: the normalized input and
// dy * scale are recomputed inside the reductions and dx's generic.
// CHECK-LABEL: func.func @batch_norm_grad_f32_params(
// CHECK-NOT: tensor<2x4x3x3xf32>
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x3x3xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[DG:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: arith.truncf
// CHECK: %[[DB:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: arith.truncf
// CHECK: return %[[DX]], %[[DG]], %[[DB]] : tensor<2x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>
func.func @batch_norm_grad_f32_params(%dy: tensor<2x4x3x3xf16>, %x: tensor<2x4x3x3xf16>, %s: tensor<4xf32>) -> (tensor<2x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>) {
  %0:3 = mpt.batch_norm_grad %dy, %x, %s : (tensor<2x4x3x3xf16>, tensor<2x4x3x3xf16>, tensor<4xf32>) -> (tensor<2x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>
}

// -----

// reduce_sum on f16 accumulates in an f32 tensor and rounds afterwards.
// CHECK-LABEL: func.func @reduce_sum_f16(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x1024xf16>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x1024xf16>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f16, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[VE:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[ACC]], %[[VE]] : f32
// CHECK-NEXT: linalg.yield %[[A]] : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: arith.truncf %[[V]] : f32 to f16
// CHECK: return %[[R]]
func.func @reduce_sum_f16(%x: tensor<4x1024xf16>) -> tensor<4xf16> {
  %0 = mpt.reduce_sum %x axes = [1] : tensor<4x1024xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// reduce_mean on bf16: sum and division in f32, one rounding at the end.
// CHECK-LABEL: func.func @reduce_mean_bf16(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT: arith.truncf %[[V]] : f32 to bf16
func.func @reduce_mean_bf16(%x: tensor<4x64xbf16>) -> tensor<4xbf16> {
  %0 = mpt.reduce_mean %x axes = [1] : tensor<4x64xbf16> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Pooling on f16: the input is extended to an f32 tensor, pooled in f32
// (the average's division too) and rounded once.
// CHECK-LABEL: func.func @avg_pool2d_f16(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<1x2x4x4xf16>
// CHECK: %[[XE:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x2x4x4xf16>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f16, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: arith.extf %[[V]] : f16 to f32
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {{.*}} ins(%[[XE]], %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x2x2xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[SUM]], %{{.*}} : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) outs(%{{.*}} : tensor<1x2x2x2xf16>)
// CHECK: %[[D:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[D]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]]
func.func @avg_pool2d_f16(%x: tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16> {
  %0 = mpt.avg_pool2d %x kernel [2, 2] stride [2, 2] : tensor<1x2x4x4xf16> -> tensor<1x2x2x2xf16>
  return %0 : tensor<1x2x2x2xf16>
}

// -----

// CHECK-LABEL: func.func @max_pool2d_bf16(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[M:.*]] = linalg.pooling_nchw_max {{.*}} outs(%{{.*}} : tensor<1x2x2x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<1x2x2x2xf32>) outs(%{{.*}} : tensor<1x2x2x2xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @max_pool2d_bf16(%x: tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16> {
  %0 = mpt.max_pool2d %x kernel [2, 2] stride [2, 2] : tensor<1x2x4x4xbf16> -> tensor<1x2x2x2xbf16>
  return %0 : tensor<1x2x2x2xbf16>
}

// -----

// global_avg_pool on f16: the sum in f32, the division and the rounding in
// one generic.
// CHECK-LABEL: func.func @global_avg_pool_f16(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4xf16>)
// CHECK: %[[D:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.truncf %[[D]] : f32 to f16
func.func @global_avg_pool_f16(%x: tensor<2x4x8x8xf16>) -> tensor<2x4xf16> {
  %0 = mpt.global_avg_pool %x : tensor<2x4x8x8xf16> -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// softmax_cross_entropy on bf16: the statistics and the picked logits are
// extended to f32 as they are read (no f32 copy of the logits), the whole
// loss is computed in f32 and only the mean is rounded to bf16.
// CHECK-LABEL: func.func @softmax_cross_entropy_bf16(
// CHECK-SAME: %[[L:[a-z0-9_]+]]: tensor<4x10xbf16>, %[[Y:[a-z0-9_]+]]: tensor<4xi32>
// CHECK-NOT: outs(%{{.*}} : tensor<4x10xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[L]] : tensor<4x10xbf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: tensor.extract %[[L]]{{.*}} : tensor<4x10xbf16>
// CHECK-NEXT: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: arith.truncf
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<bf16>)
// CHECK: %[[D:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.truncf %[[D]] : f32 to bf16
func.func @softmax_cross_entropy_bf16(%l: tensor<4x10xbf16>, %y: tensor<4xi32>) -> tensor<bf16> {
  %0 = mpt.softmax_cross_entropy %l, %y : (tensor<4x10xbf16>, tensor<4xi32>) -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// mse_loss on f16: the squared errors are computed in f32 inside the f32
// sum (no tensor of them).
// CHECK-LABEL: func.func @mse_loss_f16(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f16, %[[B:[a-z0-9_]+]]: f16, %[[S:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[AE:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: %[[BE:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[AE]], %[[BE]] : f32
// CHECK-NEXT: %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[S]], %[[D2]] : f32
// CHECK-NEXT: linalg.yield %[[N]] : f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<f16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @mse_loss_f16(%a: tensor<8x2xf16>, %b: tensor<8x2xf16>) -> tensor<f16> {
  %0 = mpt.mse_loss %a, %b : (tensor<8x2xf16>, tensor<8x2xf16>) -> tensor<f16>
  return %0 : tensor<f16>
}

// -----

// f32 ops convert nothing: no extf or truncf anywhere.
// CHECK-LABEL: func.func @f32_no_conversions(
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: linalg.matmul
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: math.erfc
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: math.sqrt
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: math.log
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @f32_no_conversions(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %g: tensor<8xf32>, %y: tensor<4xi64>) -> (tensor<4x8xf32>, tensor<f32>) {
  %0 = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = mpt.add %0, %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = mpt.gelu %1 : tensor<4x8xf32>
  %3 = mpt.layer_norm %2, %g, %g : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = mpt.reduce_mean %3 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %5 = mpt.softmax_cross_entropy %3, %y : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<f32>
  return %3, %5 : tensor<4x8xf32>, tensor<f32>
}

// -----

// f64 is wider than f32: it computes in f64 and converts nothing.
// CHECK-LABEL: func.func @f64_no_conversions(
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.constant 0.000000e+00 : f64
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: math.exp %{{.*}} : f64
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @f64_no_conversions(%x: tensor<4x8xf64>) -> (tensor<4x8xf64>, tensor<4x8xf64>) {
  %0 = mpt.relu %x : tensor<4x8xf64>
  %1 = mpt.softmax %0 : tensor<4x8xf64>
  return %0, %1 : tensor<4x8xf64>, tensor<4x8xf64>
}
