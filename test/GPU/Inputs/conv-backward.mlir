// Filter gradients for conv-to-gemm.test: NCHW with stride and padding
// (f16), NHWC with dilation (bf16).
func.func @nchw(%x: tensor<2x16x10x10xf16>, %dy: tensor<2x32x5x5xf16>) -> tensor<32x16x3x3xf16> {
  %dw = mpt.conv2d_backward_filter %x, %dy stride [2, 2] pad [1, 1, 1, 1] acc(f32) : (tensor<2x16x10x10xf16>, tensor<2x32x5x5xf16>) -> tensor<32x16x3x3xf16>
  return %dw : tensor<32x16x3x3xf16>
}
func.func @nhwc(%x: tensor<2x12x12x16xbf16>, %dy: tensor<2x8x8x32xbf16>) -> tensor<3x3x16x32xbf16> {
  %dw = mpt.conv2d_backward_filter %x, %dy layout<nhwc> dilation [2, 2] acc(f32) : (tensor<2x12x12x16xbf16>, tensor<2x8x8x32xbf16>) -> tensor<3x3x16x32xbf16>
  return %dw : tensor<3x3x16x32xbf16>
}
// Three input channels (RGB): the patch columns, 27, are padded to 32.
func.func @nchw_rgb(%x: tensor<2x3x8x8xf16>, %dy: tensor<2x16x8x8xf16>) -> tensor<16x3x3x3xf16> {
  %dw = mpt.conv2d_backward_filter %x, %dy pad [1, 1, 1, 1] acc(f32) : (tensor<2x3x8x8xf16>, tensor<2x16x8x8xf16>) -> tensor<16x3x3x3xf16>
  return %dw : tensor<16x3x3x3xf16>
}
