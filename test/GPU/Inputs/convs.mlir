// Convolutions for conv-to-gemm.test: NCHW with stride and padding and 3
// input channels (K = 27, padded to 32), NHWC with 16 channels (K = 144) and
// dilation, in f16 and bf16.
func.func @nchw_f16(%x: tensor<2x3x16x16xf16>, %w: tensor<16x3x3x3xf16>) -> tensor<2x16x8x8xf16> {
  %y = mpt.conv2d %x, %w stride [2, 2] pad [1, 1, 1, 1] acc(f32) : (tensor<2x3x16x16xf16>, tensor<16x3x3x3xf16>) -> tensor<2x16x8x8xf16>
  return %y : tensor<2x16x8x8xf16>
}
func.func @nhwc_bf16(%x: tensor<2x12x12x16xbf16>, %w: tensor<3x3x16x32xbf16>) -> tensor<2x8x8x32xbf16> {
  %y = mpt.conv2d %x, %w layout<nhwc> dilation [2, 2] acc(f32) : (tensor<2x12x12x16xbf16>, tensor<3x3x16x32xbf16>) -> tensor<2x8x8x32xbf16>
  return %y : tensor<2x8x8x32xbf16>
}
