// The backward pass's matmuls with a transposed operand, for
// transposed-operands.mlir (PTX) and ptxas.test.
func.func @dw(%x: tensor<256x128xf16>, %dy: tensor<256x192xf16>) -> tensor<192x128xf16> {
  %dw = mpt.matmul %dy, %x transpose_a acc(f32) : (tensor<256x192xf16>, tensor<256x128xf16>) -> tensor<192x128xf16>
  return %dw : tensor<192x128xf16>
}

func.func @dx(%x: tensor<128x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<128x256xbf16> {
  %y = mpt.matmul %x, %w transpose_b acc(f32) : (tensor<128x128xbf16>, tensor<256x128xbf16>) -> tensor<128x256xbf16>
  return %y : tensor<128x256xbf16>
}
