// Programs for emulate-banks.test: an f32 matmul (the tiled SIMT kernel),
// an f16 matmul rounded to f16 (mma.sync, WMMA, wgmma) and one whose fused
// epilogue stores f32 (the TMA store of 128-byte rows), and one with N = 8
// (mma.sync tiles 8 wide), and a tf32 matmul of odd tiles (rows of 6 and 10
// 16-byte chunks).
func.func @gemm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @gemm16(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
  return %c : tensor<128x128xf16>
}

func.func @gemm16_f32(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf32> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
  %d = mpt.cast %c : tensor<128x128xf16> to tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

func.func @narrow(%a: tensor<128x112xf16>, %b: tensor<112x8xf16>) -> tensor<128x8xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<128x112xf16>, tensor<112x8xf16>) -> tensor<128x8xf16>
  return %c : tensor<128x8xf16>
}

func.func @odd_tf32(%a: tensor<48x24xf32>, %b: tensor<24x40xf32>) -> tensor<48x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<48x40xf32>) -> tensor<48x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<48x24xf32>, tensor<24x40xf32>) outs(%c : tensor<48x40xf32>) -> tensor<48x40xf32>
  return %r : tensor<48x40xf32>
}
