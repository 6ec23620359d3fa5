// f64 and integer casts to bf16, rounded once.
func.func @main(%d: tensor<4xf64>, %i: tensor<2xi32>) -> (tensor<4xbf16>, tensor<2xbf16>) {
  %0 = mpt.cast %d : tensor<4xf64> to tensor<4xbf16>
  %1 = mpt.cast %i : tensor<2xi32> to tensor<2xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<2xbf16>
}
