// Data gradients of 2-D convolutions for test/GPU/emulate-conv-data-grad.test.
func.func @nchw(%dy: tensor<2x16x8x8xf16>, %w: tensor<16x16x3x3xf16>) -> tensor<2x16x8x8xf16> {
  %r = mpt.conv2d_backward_data %dy, %w pad [1, 1, 1, 1] acc(f32) : (tensor<2x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<2x16x8x8xf16>
  return %r : tensor<2x16x8x8xf16>
}
func.func @nchw_stride(%dy: tensor<1x16x4x4xf16>, %w: tensor<16x8x3x3xf16>) -> tensor<1x8x8x7xf16> {
  %r = mpt.conv2d_backward_data %dy, %w stride [2, 2] pad [1, 1, 1, 2] acc(f32) : (tensor<1x16x4x4xf16>, tensor<16x8x3x3xf16>) -> tensor<1x8x8x7xf16>
  return %r : tensor<1x8x8x7xf16>
}
func.func @nhwc_dilation(%dy: tensor<2x5x3x16xf16>, %w: tensor<2x3x8x16xf16>) -> tensor<2x9x9x8xf16> {
  %r = mpt.conv2d_backward_data %dy, %w layout<nhwc> stride [2, 2] pad [1, 1, 0, 1] dilation [2, 2] acc(f32) : (tensor<2x5x3x16xf16>, tensor<2x3x8x16xf16>) -> tensor<2x9x9x8xf16>
  return %r : tensor<2x9x9x8xf16>
}
func.func @bf16_grouped(%dy: tensor<1x8x6x6xbf16>, %w: tensor<8x4x3x3xbf16>) -> tensor<1x8x6x6xbf16> {
  %r = mpt.conv2d_backward_data %dy, %w pad [1, 1, 1, 1] groups 2 acc(f32) : (tensor<1x8x6x6xbf16>, tensor<8x4x3x3xbf16>) -> tensor<1x8x6x6xbf16>
  return %r : tensor<1x8x6x6xbf16>
}
