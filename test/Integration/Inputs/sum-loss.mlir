// A loss that is the plain sum of a matmul's output, for the loss-scaling
// tests: its gradient is the seed itself, broadcast, so the loss scale
// reaches the f16 backward matmul unchanged. dL/dw = x^T 1, the column sums
// of x, whatever w is.
func.func @sum_loss(%x: tensor<16x32xf32> {mpt.role = #mpt.role<input>},
                    %w: tensor<32x8xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %y = mpt.matmul %x, %w : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %loss = mpt.reduce_sum %y axes = [0, 1] : tensor<16x8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
