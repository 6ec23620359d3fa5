// A padded parameter (mpt.logical_shape: only its leading 5x12 corner is
// drawn, the padding is zero), for bench-step-check.test.
func.func @padded(%w: tensor<8x16xf32> {mpt.logical_shape = array<i64: 5, 12>, mpt.role = #mpt.role<parameter>},
                  %x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
                  %labels: tensor<4xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4x16xf32>) {
  %y = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %loss = mpt.softmax_cross_entropy %y, %labels : (tensor<4x16xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss, %y : tensor<f32>, tensor<4x16xf32>
}
