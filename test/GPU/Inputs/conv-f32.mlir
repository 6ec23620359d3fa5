// An f32 convolution (NCHW, stride 2, padding 1, K = 27 padded to 32) for
// conv-to-gemm.test: rewritten only for tf32.
func.func @nchw_f32(%x: tensor<2x3x16x16xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32> {
  %y = mpt.conv2d %x, %w stride [2, 2] pad [1, 1, 1, 1] : (tensor<2x3x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32>
  return %y : tensor<2x16x8x8xf32>
}
