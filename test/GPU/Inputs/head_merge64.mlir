// Attention's head split and merge around f16 matmuls: batch 2, sequence
// 64, 2 heads of 64, width 128 (head_split.mlir at the shape where the
// merge is TMA boxes too: rows of (batch, position) within a sequence of a
// multiple of 64, columns of (head, dim) within a head of 64).
//   q, k, v : [128, 128] rows of (batch, position), split into heads
//   s   = q_h k_h^T   [4, 64, 64]   (k_h^T: split, then swapped)
//   ctx = s v_h       [4, 64, 64]
//   out = merge(ctx) w  [128, 128]
//   db  = column sums of merge(ctx) in f32 [128] (a bias gradient: a
//         reduction that reads the merge, as the matmul does)
func.func @attention(%q: tensor<128x128xf16>, %k: tensor<128x128xf16>,
                     %v: tensor<128x128xf16>, %w: tensor<128x128xf16>)
    -> (tensor<4x64x64xf16>, tensor<128x128xf16>, tensor<128xf32>) {
  %q4 = mpt.reshape %q : tensor<128x128xf16> to tensor<2x64x2x64xf16>
  %qt = mpt.transpose %q4 perm = [0, 2, 1, 3] : tensor<2x64x2x64xf16> -> tensor<2x2x64x64xf16>
  %qh = mpt.reshape %qt : tensor<2x2x64x64xf16> to tensor<4x64x64xf16>
  %k4 = mpt.reshape %k : tensor<128x128xf16> to tensor<2x64x2x64xf16>
  %kt = mpt.transpose %k4 perm = [0, 2, 1, 3] : tensor<2x64x2x64xf16> -> tensor<2x2x64x64xf16>
  %kh = mpt.reshape %kt : tensor<2x2x64x64xf16> to tensor<4x64x64xf16>
  %v4 = mpt.reshape %v : tensor<128x128xf16> to tensor<2x64x2x64xf16>
  %vt = mpt.transpose %v4 perm = [0, 2, 1, 3] : tensor<2x64x2x64xf16> -> tensor<2x2x64x64xf16>
  %vh = mpt.reshape %vt : tensor<2x2x64x64xf16> to tensor<4x64x64xf16>
  %s = mpt.batch_matmul %qh, %kh transpose_b acc(f32) : (tensor<4x64x64xf16>, tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %ctx = mpt.batch_matmul %s, %vh acc(f32) : (tensor<4x64x64xf16>, tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %c4 = mpt.reshape %ctx : tensor<4x64x64xf16> to tensor<2x2x64x64xf16>
  %ct = mpt.transpose %c4 perm = [0, 2, 1, 3] : tensor<2x2x64x64xf16> -> tensor<2x64x2x64xf16>
  %merged = mpt.reshape %ct : tensor<2x64x2x64xf16> to tensor<128x128xf16>
  %out = mpt.matmul %merged, %w acc(f32) : (tensor<128x128xf16>, tensor<128x128xf16>) -> tensor<128x128xf16>
  %m32 = mpt.cast %merged : tensor<128x128xf16> to tensor<128x128xf32>
  %db = mpt.reduce_sum %m32 axes = [0] : tensor<128x128xf32> -> tensor<128xf32>
  return %s, %out, %db : tensor<4x64x64xf16>, tensor<128x128xf16>, tensor<128xf32>
}
