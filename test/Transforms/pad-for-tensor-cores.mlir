// The main run pads every low-precision case (max-overhead=2); its stderr is
// dropped because mpt-opt reports the expected-remark annotations (meant for
// the second run) as not produced when -verify-diagnostics is absent.
// RUN: mpt-opt %s --mpt-pad-for-tensor-cores=max-overhead=2 -split-input-file 2>/dev/null | FileCheck %s
// With the default max-overhead (0.25) the cases that add more FLOPs than that
// are skipped with a remark and left as they are.
// RUN: mpt-opt %s --mpt-pad-for-tensor-cores -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=DEFAULT
// The pass is idempotent.
// RUN: mpt-opt %s --mpt-pad-for-tensor-cores=max-overhead=2 -split-input-file 2>/dev/null > %t.once
// RUN: mpt-opt %t.once --mpt-pad-for-tensor-cores=max-overhead=2 -split-input-file > %t.twice
// RUN: diff %t.once %t.twice
// Every padded program still lowers to the CPU pipeline.
// RUN: mpt-opt %t.once -split-input-file --mpt-lower-to-cpu > /dev/null

// The rewrites of mpt-pad-for-tensor-cores, one case per split. The main run
// uses max-overhead=2 so that every low-precision case is padded.

// Only N (10 -> 16) is unaligned: the rhs is padded and the result sliced back.
// CHECK-LABEL: func.func @matmul_n_only(
// CHECK-SAME: %[[A:.*]]: tensor<16x32xf16>, %[[B:.*]]: tensor<32x10xf16>) -> tensor<16x10xf16>
// CHECK-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0, 0] high = [0, 6] : tensor<32x10xf16> -> tensor<32x16xf16>
// CHECK-NEXT: %[[M:.*]] = mpt.matmul %[[A]], %[[BP]] : (tensor<16x32xf16>, tensor<32x16xf16>) -> tensor<16x16xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.slice %[[M]] offsets = [0, 0] sizes = [16, 10] : tensor<16x16xf16> -> tensor<16x10xf16>
// CHECK-NEXT: return %[[S]] : tensor<16x10xf16>
// DEFAULT-LABEL: func.func @matmul_n_only(
// DEFAULT-NOT: mpt.pad
// DEFAULT: mpt.matmul %{{.*}}, %{{.*}} : (tensor<16x32xf16>, tensor<32x10xf16>) -> tensor<16x10xf16>
func.func @matmul_n_only(%a: tensor<16x32xf16>, %b: tensor<32x10xf16>) -> tensor<16x10xf16> {
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 16x10x32 -> 16x16x32 adds 60.0% FLOPs, above max-overhead=}}
  %0 = mpt.matmul %a, %b : (tensor<16x32xf16>, tensor<32x10xf16>) -> tensor<16x10xf16>
  return %0 : tensor<16x10xf16>
}

// -----

// M, N and K all unaligned with transpose_b: 30x100 . (20x100)^T becomes
// 32x104 . (24x104)^T; K is padded on the second dimension of both operands.
// CHECK-LABEL: func.func @matmul_mnk_transpose_b(
// CHECK-SAME: %[[A:.*]]: tensor<30x100xf16>, %[[B:.*]]: tensor<20x100xf16>) -> tensor<30x20xf16>
// CHECK-NEXT: %[[AP:.*]] = mpt.pad %[[A]] low = [0, 0] high = [2, 4] : tensor<30x100xf16> -> tensor<32x104xf16>
// CHECK-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0, 0] high = [4, 4] : tensor<20x100xf16> -> tensor<24x104xf16>
// CHECK-NEXT: %[[M:.*]] = mpt.matmul %[[AP]], %[[BP]] transpose_b acc(f32) : (tensor<32x104xf16>, tensor<24x104xf16>) -> tensor<32x24xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.slice %[[M]] offsets = [0, 0] sizes = [30, 20] : tensor<32x24xf16> -> tensor<30x20xf16>
// CHECK-NEXT: return %[[S]] : tensor<30x20xf16>
func.func @matmul_mnk_transpose_b(%a: tensor<30x100xf16>, %b: tensor<20x100xf16>) -> tensor<30x20xf16> {
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 30x20x100 -> 32x24x104 adds 33.1% FLOPs}}
  %0 = mpt.matmul %a, %b transpose_b acc(f32) : (tensor<30x100xf16>, tensor<20x100xf16>) -> tensor<30x20xf16>
  return %0 : tensor<30x20xf16>
}

// -----

// transpose_a and transpose_b: the lhs (K x M = 100x30) is padded to 104x32.
// CHECK-LABEL: func.func @matmul_mnk_transpose_ab(
// CHECK-SAME: %[[A:.*]]: tensor<100x30xf16>, %[[B:.*]]: tensor<20x100xf16>) -> tensor<30x20xf16>
// CHECK-NEXT: %[[AP:.*]] = mpt.pad %[[A]] low = [0, 0] high = [4, 2] : tensor<100x30xf16> -> tensor<104x32xf16>
// CHECK-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0, 0] high = [4, 4] : tensor<20x100xf16> -> tensor<24x104xf16>
// CHECK-NEXT: %[[M:.*]] = mpt.matmul %[[AP]], %[[BP]] transpose_a transpose_b : (tensor<104x32xf16>, tensor<24x104xf16>) -> tensor<32x24xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.slice %[[M]] offsets = [0, 0] sizes = [30, 20] : tensor<32x24xf16> -> tensor<30x20xf16>
// CHECK-NEXT: return %[[S]] : tensor<30x20xf16>
func.func @matmul_mnk_transpose_ab(%a: tensor<100x30xf16>, %b: tensor<20x100xf16>) -> tensor<30x20xf16> {
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 30x20x100 -> 32x24x104 adds 33.1% FLOPs}}
  %0 = mpt.matmul %a, %b transpose_a transpose_b : (tensor<100x30xf16>, tensor<20x100xf16>) -> tensor<30x20xf16>
  return %0 : tensor<30x20xf16>
}

// -----

// An f32 matmul is left alone whatever its shapes (and gets no remark).
// CHECK-LABEL: func.func @matmul_f32(
// CHECK-SAME: %[[A:.*]]: tensor<30x100xf32>, %[[B:.*]]: tensor<100x20xf32>) -> tensor<30x20xf32>
// CHECK-NEXT: %[[M:.*]] = mpt.matmul %[[A]], %[[B]] : (tensor<30x100xf32>, tensor<100x20xf32>) -> tensor<30x20xf32>
// CHECK-NEXT: return %[[M]] : tensor<30x20xf32>
func.func @matmul_f32(%a: tensor<30x100xf32>, %b: tensor<100x20xf32>) -> tensor<30x20xf32> {
  %0 = mpt.matmul %a, %b : (tensor<30x100xf32>, tensor<100x20xf32>) -> tensor<30x20xf32>
  return %0 : tensor<30x20xf32>
}

// -----

// bf16 pads to 8 as f16 does; only K (60 -> 64) moves, so the result needs no
// slice (6.7% extra FLOPs: padded with the default limit too).
// CHECK-LABEL: func.func @matmul_bf16(
// CHECK-SAME: %[[A:.*]]: tensor<64x60xbf16>, %[[B:.*]]: tensor<60x64xbf16>) -> tensor<64x64xbf16>
// CHECK-NEXT: %[[AP:.*]] = mpt.pad %[[A]] low = [0, 0] high = [0, 4] : tensor<64x60xbf16> -> tensor<64x64xbf16>
// CHECK-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0, 0] high = [4, 0] : tensor<60x64xbf16> -> tensor<64x64xbf16>
// CHECK-NEXT: %[[M:.*]] = mpt.matmul %[[AP]], %[[BP]] : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
// CHECK-NEXT: return %[[M]] : tensor<64x64xbf16>
// DEFAULT-LABEL: func.func @matmul_bf16(
// DEFAULT: mpt.matmul %{{.*}}, %{{.*}} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
func.func @matmul_bf16(%a: tensor<64x60xbf16>, %b: tensor<60x64xbf16>) -> tensor<64x64xbf16> {
  %0 = mpt.matmul %a, %b : (tensor<64x60xbf16>, tensor<60x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

// 8-bit floats pad to 16: K = 40 -> 48 (a multiple of 8 already, not of 16).
// CHECK-LABEL: func.func @matmul_f8(
// CHECK-SAME: %[[A:.*]]: tensor<64x40xf8E4M3FN>, %[[B:.*]]: tensor<40x64xf8E4M3FN>) -> tensor<64x64xf8E4M3FN>
// CHECK-NEXT: %[[AP:.*]] = mpt.pad %[[A]] low = [0, 0] high = [0, 8] : tensor<64x40xf8E4M3FN> -> tensor<64x48xf8E4M3FN>
// CHECK-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0, 0] high = [8, 0] : tensor<40x64xf8E4M3FN> -> tensor<48x64xf8E4M3FN>
// CHECK-NEXT: %[[M:.*]] = mpt.matmul %[[AP]], %[[BP]] acc(f16) : (tensor<64x48xf8E4M3FN>, tensor<48x64xf8E4M3FN>) -> tensor<64x64xf8E4M3FN>
// CHECK-NEXT: return %[[M]] : tensor<64x64xf8E4M3FN>
func.func @matmul_f8(%a: tensor<64x40xf8E4M3FN>, %b: tensor<40x64xf8E4M3FN>) -> tensor<64x64xf8E4M3FN> {
  %0 = mpt.matmul %a, %b acc(f16) : (tensor<64x40xf8E4M3FN>, tensor<40x64xf8E4M3FN>) -> tensor<64x64xf8E4M3FN>
  return %0 : tensor<64x64xf8E4M3FN>
}

// -----

// batch_matmul pads its last two dimensions (M 60 -> 64, K 62 -> 64,
// N 60 -> 64); the batch dimensions 3x5 are not touched.
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME: %[[Q:.*]]: tensor<3x5x60x62xf16>, %[[K:.*]]: tensor<3x5x62x60xf16>) -> tensor<3x5x60x60xf16>
// CHECK-NEXT: %[[QP:.*]] = mpt.pad %[[Q]] low = [0, 0, 0, 0] high = [0, 0, 4, 2] : tensor<3x5x60x62xf16> -> tensor<3x5x64x64xf16>
// CHECK-NEXT: %[[KP:.*]] = mpt.pad %[[K]] low = [0, 0, 0, 0] high = [0, 0, 2, 4] : tensor<3x5x62x60xf16> -> tensor<3x5x64x64xf16>
// CHECK-NEXT: %[[M:.*]] = mpt.batch_matmul %[[QP]], %[[KP]] : (tensor<3x5x64x64xf16>, tensor<3x5x64x64xf16>) -> tensor<3x5x64x64xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.slice %[[M]] offsets = [0, 0, 0, 0] sizes = [3, 5, 60, 60] : tensor<3x5x64x64xf16> -> tensor<3x5x60x60xf16>
// CHECK-NEXT: return %[[S]] : tensor<3x5x60x60xf16>
func.func @batch_matmul(%q: tensor<3x5x60x62xf16>, %k: tensor<3x5x62x60xf16>) -> tensor<3x5x60x60xf16> {
  %0 = mpt.batch_matmul %q, %k : (tensor<3x5x60x62xf16>, tensor<3x5x62x60xf16>) -> tensor<3x5x60x60xf16>
  return %0 : tensor<3x5x60x60xf16>
}

// -----

// conv2d nchw with 3 input channels (an RGB stem): input and filter channels
// 3 -> 8; the output channels (16) are aligned, so there is no slice. It adds
// 166.7% FLOPs, so the default limit skips it with a remark.
// CHECK-LABEL: func.func @conv_nchw_in_channels(
// CHECK-SAME: %[[X:.*]]: tensor<8x3x32x32xf16>, %[[W:.*]]: tensor<16x3x3x3xf16>) -> tensor<8x16x30x30xf16>
// CHECK-NEXT: %[[XP:.*]] = mpt.pad %[[X]] low = [0, 0, 0, 0] high = [0, 5, 0, 0] : tensor<8x3x32x32xf16> -> tensor<8x8x32x32xf16>
// CHECK-NEXT: %[[WP:.*]] = mpt.pad %[[W]] low = [0, 0, 0, 0] high = [0, 5, 0, 0] : tensor<16x3x3x3xf16> -> tensor<16x8x3x3xf16>
// CHECK-NEXT: %[[C:.*]] = mpt.conv2d %[[XP]], %[[WP]] acc(f32) : (tensor<8x8x32x32xf16>, tensor<16x8x3x3xf16>) -> tensor<8x16x30x30xf16>
// CHECK-NEXT: return %[[C]] : tensor<8x16x30x30xf16>
// DEFAULT-LABEL: func.func @conv_nchw_in_channels(
// DEFAULT-SAME: %[[X:.*]]: tensor<8x3x32x32xf16>, %[[W:.*]]: tensor<16x3x3x3xf16>) -> tensor<8x16x30x30xf16>
// DEFAULT-NEXT: %[[C:.*]] = mpt.conv2d %[[X]], %[[W]] acc(f32) : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>) -> tensor<8x16x30x30xf16>
// DEFAULT-NEXT: return %[[C]] : tensor<8x16x30x30xf16>
func.func @conv_nchw_in_channels(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf16>) -> tensor<8x16x30x30xf16> {
  // expected-remark @+1 {{not padded for Tensor Cores: channels in x out 3x16 -> 8x16 adds 166.7% FLOPs, above max-overhead=2.500000e-01}}
  %0 = mpt.conv2d %x, %w acc(f32) : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>) -> tensor<8x16x30x30xf16>
  return %0 : tensor<8x16x30x30xf16>
}

// -----

// conv2d nhwc (filter HWCF): input channels 30 -> 32 (input dim 3, filter
// dim 2), output channels 12 -> 16 (filter dim 3, result dim 3, sliced back).
// CHECK-LABEL: func.func @conv_nhwc(
// CHECK-SAME: %[[X:.*]]: tensor<8x32x32x30xf16>, %[[W:.*]]: tensor<3x3x30x12xf16>) -> tensor<8x30x30x12xf16>
// CHECK-NEXT: %[[XP:.*]] = mpt.pad %[[X]] low = [0, 0, 0, 0] high = [0, 0, 0, 2] : tensor<8x32x32x30xf16> -> tensor<8x32x32x32xf16>
// CHECK-NEXT: %[[WP:.*]] = mpt.pad %[[W]] low = [0, 0, 0, 0] high = [0, 0, 2, 4] : tensor<3x3x30x12xf16> -> tensor<3x3x32x16xf16>
// CHECK-NEXT: %[[C:.*]] = mpt.conv2d %[[XP]], %[[WP]] layout<nhwc> : (tensor<8x32x32x32xf16>, tensor<3x3x32x16xf16>) -> tensor<8x30x30x16xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.slice %[[C]] offsets = [0, 0, 0, 0] sizes = [8, 30, 30, 12] : tensor<8x30x30x16xf16> -> tensor<8x30x30x12xf16>
// CHECK-NEXT: return %[[S]] : tensor<8x30x30x12xf16>
func.func @conv_nhwc(%x: tensor<8x32x32x30xf16>, %w: tensor<3x3x30x12xf16>) -> tensor<8x30x30x12xf16> {
  // expected-remark @+1 {{not padded for Tensor Cores: channels in x out 30x12 -> 32x16 adds 42.2% FLOPs}}
  %0 = mpt.conv2d %x, %w layout<nhwc> : (tensor<8x32x32x30xf16>, tensor<3x3x30x12xf16>) -> tensor<8x30x30x12xf16>
  return %0 : tensor<8x30x30x12xf16>
}

// -----

// conv2d nchw output channels only (12 -> 16): the filter's F dimension is
// padded, the input is not, and the result is sliced back on dimension 1.
// CHECK-LABEL: func.func @conv_nchw_out_channels(
// CHECK-SAME: %[[X:.*]]: tensor<8x64x32x32xf16>, %[[W:.*]]: tensor<12x64x3x3xf16>) -> tensor<8x12x16x16xf16>
// CHECK-NEXT: %[[WP:.*]] = mpt.pad %[[W]] low = [0, 0, 0, 0] high = [4, 0, 0, 0] : tensor<12x64x3x3xf16> -> tensor<16x64x3x3xf16>
// CHECK-NEXT: %[[C:.*]] = mpt.conv2d %[[X]], %[[WP]] stride [2, 2] pad [1, 1, 1, 1] : (tensor<8x64x32x32xf16>, tensor<16x64x3x3xf16>) -> tensor<8x16x16x16xf16>
// CHECK-NEXT: %[[S:.*]] = mpt.slice %[[C]] offsets = [0, 0, 0, 0] sizes = [8, 12, 16, 16] : tensor<8x16x16x16xf16> -> tensor<8x12x16x16xf16>
// CHECK-NEXT: return %[[S]] : tensor<8x12x16x16xf16>
func.func @conv_nchw_out_channels(%x: tensor<8x64x32x32xf16>, %w: tensor<12x64x3x3xf16>) -> tensor<8x12x16x16xf16> {
  // expected-remark @+1 {{not padded for Tensor Cores: channels in x out 64x12 -> 64x16 adds 33.3% FLOPs}}
  %0 = mpt.conv2d %x, %w stride [2, 2] pad [1, 1, 1, 1] : (tensor<8x64x32x32xf16>, tensor<12x64x3x3xf16>) -> tensor<8x12x16x16xf16>
  return %0 : tensor<8x12x16x16xf16>
}

// -----

// A grouped convolution is left alone (padding would mix the groups).
// CHECK-LABEL: func.func @conv_grouped(
// CHECK-SAME: %[[X:.*]]: tensor<8x12x32x32xf16>, %[[W:.*]]: tensor<6x6x3x3xf16>) -> tensor<8x6x30x30xf16>
// CHECK-NEXT: %[[C:.*]] = mpt.conv2d %[[X]], %[[W]] groups 2 : (tensor<8x12x32x32xf16>, tensor<6x6x3x3xf16>) -> tensor<8x6x30x30xf16>
// CHECK-NEXT: return %[[C]] : tensor<8x6x30x30xf16>
func.func @conv_grouped(%x: tensor<8x12x32x32xf16>, %w: tensor<6x6x3x3xf16>) -> tensor<8x6x30x30xf16> {
  %0 = mpt.conv2d %x, %w groups 2 : (tensor<8x12x32x32xf16>, tensor<6x6x3x3xf16>) -> tensor<8x6x30x30xf16>
  return %0 : tensor<8x6x30x30xf16>
}

// -----

// matmul -> add(bias) -> relu -> matmul: the hidden width 100 is padded once
// to 104. The bias is zero-padded, the intermediates keep the padded width,
// and there is no slice (nor a pad of an intermediate) between the layers.
// CHECK-LABEL: func.func @chain_bias_relu(
// CHECK-SAME: %[[X:.*]]: tensor<32x64xf16>, %[[W1:.*]]: tensor<64x100xf16>, %[[B1:.*]]: tensor<100xf16>, %[[W2:.*]]: tensor<100x64xf16>) -> tensor<32x64xf16>
// CHECK-NOT: mpt.slice
// CHECK-NEXT: %[[W1P:.*]] = mpt.pad %[[W1]] low = [0, 0] high = [0, 4] : tensor<64x100xf16> -> tensor<64x104xf16>
// CHECK-NEXT: %[[H:.*]] = mpt.matmul %[[X]], %[[W1P]] acc(f32) : (tensor<32x64xf16>, tensor<64x104xf16>) -> tensor<32x104xf16>
// CHECK-NEXT: %[[B1P:.*]] = mpt.pad %[[B1]] low = [0] high = [4] : tensor<100xf16> -> tensor<104xf16>
// CHECK-NEXT: %[[HB:.*]] = mpt.add %[[H]], %[[B1P]] : (tensor<32x104xf16>, tensor<104xf16>) -> tensor<32x104xf16>
// CHECK-NEXT: %[[R:.*]] = mpt.relu %[[HB]] : tensor<32x104xf16>
// CHECK-NEXT: %[[W2P:.*]] = mpt.pad %[[W2]] low = [0, 0] high = [4, 0] : tensor<100x64xf16> -> tensor<104x64xf16>
// CHECK-NEXT: %[[Y:.*]] = mpt.matmul %[[R]], %[[W2P]] acc(f32) : (tensor<32x104xf16>, tensor<104x64xf16>) -> tensor<32x64xf16>
// CHECK-NEXT: return %[[Y]] : tensor<32x64xf16>
func.func @chain_bias_relu(%x: tensor<32x64xf16>, %w1: tensor<64x100xf16>, %b1: tensor<100xf16>, %w2: tensor<100x64xf16>) -> tensor<32x64xf16> {
  %0 = mpt.matmul %x, %w1 acc(f32) : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  %1 = mpt.add %0, %b1 : (tensor<32x100xf16>, tensor<100xf16>) -> tensor<32x100xf16>
  %2 = mpt.relu %1 : tensor<32x100xf16>
  %3 = mpt.matmul %2, %w2 acc(f32) : (tensor<32x100xf16>, tensor<100x64xf16>) -> tensor<32x64xf16>
  return %3 : tensor<32x64xf16>
}

// -----

// matmul -> tanh -> cast(f16 -> bf16) -> matmul: tanh(0) = 0 and casts keep
// zeros, so the slice sinks through both and cancels against the next pad.
// CHECK-LABEL: func.func @chain_tanh_cast(
// CHECK-SAME: %[[X:.*]]: tensor<32x64xf16>, %[[W1:.*]]: tensor<64x100xf16>, %[[W2:.*]]: tensor<100x64xbf16>) -> tensor<32x64xbf16>
// CHECK-NOT: mpt.slice
// CHECK-NEXT: %[[W1P:.*]] = mpt.pad %[[W1]] low = [0, 0] high = [0, 4] : tensor<64x100xf16> -> tensor<64x104xf16>
// CHECK-NEXT: %[[H:.*]] = mpt.matmul %[[X]], %[[W1P]] : (tensor<32x64xf16>, tensor<64x104xf16>) -> tensor<32x104xf16>
// CHECK-NEXT: %[[T:.*]] = mpt.tanh %[[H]] : tensor<32x104xf16>
// CHECK-NEXT: %[[C:.*]] = mpt.cast %[[T]] : tensor<32x104xf16> to tensor<32x104xbf16>
// CHECK-NEXT: %[[W2P:.*]] = mpt.pad %[[W2]] low = [0, 0] high = [4, 0] : tensor<100x64xbf16> -> tensor<104x64xbf16>
// CHECK-NEXT: %[[Y:.*]] = mpt.matmul %[[C]], %[[W2P]] : (tensor<32x104xbf16>, tensor<104x64xbf16>) -> tensor<32x64xbf16>
// CHECK-NEXT: return %[[Y]] : tensor<32x64xbf16>
func.func @chain_tanh_cast(%x: tensor<32x64xf16>, %w1: tensor<64x100xf16>, %w2: tensor<100x64xbf16>) -> tensor<32x64xbf16> {
  %0 = mpt.matmul %x, %w1 : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  %1 = mpt.tanh %0 : tensor<32x100xf16>
  %2 = mpt.cast %1 : tensor<32x100xf16> to tensor<32x100xbf16>
  %3 = mpt.matmul %2, %w2 : (tensor<32x100xbf16>, tensor<100x64xbf16>) -> tensor<32x64xbf16>
  return %3 : tensor<32x64xbf16>
}

// -----

// matmul -> sigmoid -> matmul: sigmoid(0) = 0.5, so the padded columns must
// not reach the second matmul. The slice stays before the sigmoid and its
// result is padded again with zeros: no cancellation.
// CHECK-LABEL: func.func @chain_sigmoid_no_cancel(
// CHECK-SAME: %[[X:.*]]: tensor<32x64xf16>, %[[W1:.*]]: tensor<64x100xf16>, %[[W2:.*]]: tensor<100x64xf16>) -> tensor<32x64xf16>
// CHECK-NEXT: %[[W1P:.*]] = mpt.pad %[[W1]] low = [0, 0] high = [0, 4] : tensor<64x100xf16> -> tensor<64x104xf16>
// CHECK-NEXT: %[[H:.*]] = mpt.matmul %[[X]], %[[W1P]] : (tensor<32x64xf16>, tensor<64x104xf16>) -> tensor<32x104xf16>
// CHECK-NEXT: %[[HS:.*]] = mpt.slice %[[H]] offsets = [0, 0] sizes = [32, 100] : tensor<32x104xf16> -> tensor<32x100xf16>
// CHECK-NEXT: %[[G:.*]] = mpt.sigmoid %[[HS]] : tensor<32x100xf16>
// CHECK-NEXT: %[[GP:.*]] = mpt.pad %[[G]] low = [0, 0] high = [0, 4] : tensor<32x100xf16> -> tensor<32x104xf16>
// CHECK-NEXT: %[[W2P:.*]] = mpt.pad %[[W2]] low = [0, 0] high = [4, 0] : tensor<100x64xf16> -> tensor<104x64xf16>
// CHECK-NEXT: %[[Y:.*]] = mpt.matmul %[[GP]], %[[W2P]] : (tensor<32x104xf16>, tensor<104x64xf16>) -> tensor<32x64xf16>
// CHECK-NEXT: return %[[Y]] : tensor<32x64xf16>
func.func @chain_sigmoid_no_cancel(%x: tensor<32x64xf16>, %w1: tensor<64x100xf16>, %w2: tensor<100x64xf16>) -> tensor<32x64xf16> {
  %0 = mpt.matmul %x, %w1 : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  %1 = mpt.sigmoid %0 : tensor<32x100xf16>
  %2 = mpt.matmul %1, %w2 : (tensor<32x100xf16>, tensor<100x64xf16>) -> tensor<32x64xf16>
  return %2 : tensor<32x64xf16>
}

// -----

// Same with exp (exp(0) = 1): the slice and a new zero pad remain.
// CHECK-LABEL: func.func @chain_exp_no_cancel(
// CHECK: %[[H:.*]] = mpt.matmul %{{.*}}, %{{.*}} : (tensor<32x64xf16>, tensor<64x104xf16>) -> tensor<32x104xf16>
// CHECK-NEXT: %[[HS:.*]] = mpt.slice %[[H]] offsets = [0, 0] sizes = [32, 100] : tensor<32x104xf16> -> tensor<32x100xf16>
// CHECK-NEXT: %[[E:.*]] = mpt.exp %[[HS]] : tensor<32x100xf16>
// CHECK-NEXT: %[[EP:.*]] = mpt.pad %[[E]] low = [0, 0] high = [0, 4] : tensor<32x100xf16> -> tensor<32x104xf16>
// CHECK: mpt.matmul %[[EP]], %{{.*}} : (tensor<32x104xf16>, tensor<104x64xf16>) -> tensor<32x64xf16>
func.func @chain_exp_no_cancel(%x: tensor<32x64xf16>, %w1: tensor<64x100xf16>, %w2: tensor<100x64xf16>) -> tensor<32x64xf16> {
  %0 = mpt.matmul %x, %w1 : (tensor<32x64xf16>, tensor<64x100xf16>) -> tensor<32x100xf16>
  %1 = mpt.exp %0 : tensor<32x100xf16>
  %2 = mpt.matmul %1, %w2 : (tensor<32x100xf16>, tensor<100x64xf16>) -> tensor<32x64xf16>
  return %2 : tensor<32x64xf16>
}

// -----

// A classifier with 10 classes padded to 16 feeding softmax_cross_entropy:
// the logits stay 16 wide (no slice) and get a constant mask added, 0 for the
// 10 real classes and -inf (0xFF800000 in f32) for the 6 padded ones; the
// labels are used unchanged.
// CHECK-LABEL: func.func @softmax_cross_entropy_mask(
// CHECK-SAME: %[[H:.*]]: tensor<32x128xf16>, %[[W:.*]]: tensor<128x10xf16>, %[[B:.*]]: tensor<10xf16>, %[[L:.*]]: tensor<32xi64>) -> tensor<f32>
// CHECK-NOT: mpt.slice
// CHECK-NEXT: %[[MASK:.*]] = mpt.constant dense<[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]> : tensor<16xf32>
// CHECK-NEXT: %[[WP:.*]] = mpt.pad %[[W]] low = [0, 0] high = [0, 6] : tensor<128x10xf16> -> tensor<128x16xf16>
// CHECK-NEXT: %[[Z:.*]] = mpt.matmul %[[H]], %[[WP]] acc(f32) : (tensor<32x128xf16>, tensor<128x16xf16>) -> tensor<32x16xf16>
// CHECK-NEXT: %[[BP:.*]] = mpt.pad %[[B]] low = [0] high = [6] : tensor<10xf16> -> tensor<16xf16>
// CHECK-NEXT: %[[ZB:.*]] = mpt.add %[[Z]], %[[BP]] : (tensor<32x16xf16>, tensor<16xf16>) -> tensor<32x16xf16>
// CHECK-NEXT: %[[Z32:.*]] = mpt.cast %[[ZB]] : tensor<32x16xf16> to tensor<32x16xf32>
// CHECK-NEXT: %[[MASKED:.*]] = mpt.add %[[Z32]], %[[MASK]] : (tensor<32x16xf32>, tensor<16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT: %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[MASKED]], %[[L]] classes = 10 : (tensor<32x16xf32>, tensor<32xi64>) -> tensor<f32>
// CHECK-NEXT: return %[[LOSS]] : tensor<f32>
func.func @softmax_cross_entropy_mask(%h: tensor<32x128xf16>, %w: tensor<128x10xf16>, %b: tensor<10xf16>, %labels: tensor<32xi64>) -> tensor<f32> {
  // expected-remark @+1 {{not padded for Tensor Cores: M x N x K 32x10x128 -> 32x16x128 adds 60.0% FLOPs}}
  %0 = mpt.matmul %h, %w acc(f32) : (tensor<32x128xf16>, tensor<128x10xf16>) -> tensor<32x10xf16>
  %1 = mpt.add %0, %b : (tensor<32x10xf16>, tensor<10xf16>) -> tensor<32x10xf16>
  %2 = mpt.cast %1 : tensor<32x10xf16> to tensor<32x10xf32>
  %3 = mpt.softmax_cross_entropy %2, %labels : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  return %3 : tensor<f32>
}

// -----

// A broadcast operand that is a slice (one row of %a) keeps its own values:
// only the full-shape slice moves after the add.
// CHECK-LABEL: func.func @broadcast_slice(
// CHECK-SAME: %[[A:.*]]: tensor<32x104xf16>
// CHECK: %[[ROW:.*]] = mpt.slice %[[A]] offsets = [0, 0] sizes = [1, 100]
// CHECK: %[[ROWP:.*]] = mpt.pad %[[ROW]] low = [0, 0] high = [0, 4]
// CHECK: %[[SUM:.*]] = mpt.add %[[A]], %[[ROWP]] : (tensor<32x104xf16>, tensor<1x104xf16>)
// CHECK: mpt.slice %[[SUM]] offsets = [0, 0] sizes = [32, 100]
func.func @broadcast_slice(%a: tensor<32x104xf16>) -> tensor<32x100xf16> {
  %0 = mpt.slice %a offsets = [0, 0] sizes = [32, 100] : tensor<32x104xf16> -> tensor<32x100xf16>
  %1 = mpt.slice %a offsets = [0, 0] sizes = [1, 100] : tensor<32x104xf16> -> tensor<1x100xf16>
  %2 = mpt.add %0, %1 : (tensor<32x100xf16>, tensor<1x100xf16>) -> tensor<32x100xf16>
  return %2 : tensor<32x100xf16>
}
