// Attention's head split and merge around f16 matmuls: batch 2, sequence 40
// (tiles of the sequence are partial), 2 heads of 32, width 64.
//   q, k, v : [80, 64] rows of (batch, position), split into heads
//   s   = q_h k_h^T   [4, 40, 40]   (k_h^T: split, then swapped)
//   ctx = s v_h       [4, 40, 32]
//   out = merge(ctx) w  [80, 64]
//   db  = column sums of merge(ctx) in f32 [64] (a bias gradient: a
//         reduction that reads the merge, as the matmul does)
func.func @attention(%q: tensor<80x64xf16>, %k: tensor<80x64xf16>,
                     %v: tensor<80x64xf16>, %w: tensor<64x64xf16>)
    -> (tensor<4x40x40xf16>, tensor<80x64xf16>, tensor<64xf32>) {
  %q4 = mpt.reshape %q : tensor<80x64xf16> to tensor<2x40x2x32xf16>
  %qt = mpt.transpose %q4 perm = [0, 2, 1, 3] : tensor<2x40x2x32xf16> -> tensor<2x2x40x32xf16>
  %qh = mpt.reshape %qt : tensor<2x2x40x32xf16> to tensor<4x40x32xf16>
  %k4 = mpt.reshape %k : tensor<80x64xf16> to tensor<2x40x2x32xf16>
  %kt = mpt.transpose %k4 perm = [0, 2, 1, 3] : tensor<2x40x2x32xf16> -> tensor<2x2x40x32xf16>
  %kh = mpt.reshape %kt : tensor<2x2x40x32xf16> to tensor<4x40x32xf16>
  %v4 = mpt.reshape %v : tensor<80x64xf16> to tensor<2x40x2x32xf16>
  %vt = mpt.transpose %v4 perm = [0, 2, 1, 3] : tensor<2x40x2x32xf16> -> tensor<2x2x40x32xf16>
  %vh = mpt.reshape %vt : tensor<2x2x40x32xf16> to tensor<4x40x32xf16>
  %s = mpt.batch_matmul %qh, %kh transpose_b acc(f32) : (tensor<4x40x32xf16>, tensor<4x40x32xf16>) -> tensor<4x40x40xf16>
  %ctx = mpt.batch_matmul %s, %vh acc(f32) : (tensor<4x40x40xf16>, tensor<4x40x32xf16>) -> tensor<4x40x32xf16>
  %c4 = mpt.reshape %ctx : tensor<4x40x32xf16> to tensor<2x2x40x32xf16>
  %ct = mpt.transpose %c4 perm = [0, 2, 1, 3] : tensor<2x2x40x32xf16> -> tensor<2x40x2x32xf16>
  %merged = mpt.reshape %ct : tensor<2x40x2x32xf16> to tensor<80x64xf16>
  %out = mpt.matmul %merged, %w acc(f32) : (tensor<80x64xf16>, tensor<64x64xf16>) -> tensor<80x64xf16>
  %m32 = mpt.cast %merged : tensor<80x64xf16> to tensor<80x64xf32>
  %db = mpt.reduce_sum %m32 axes = [0] : tensor<80x64xf32> -> tensor<64xf32>
  return %s, %out, %db : tensor<4x40x40xf16>, tensor<80x64xf16>, tensor<64xf32>
}
