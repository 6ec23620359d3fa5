func.func @padded_mlp(%x: tensor<16x63xf32> {mpt.role = #mpt.role<input>},
                      %w1: tensor<63x63xf32> {mpt.role = #mpt.role<parameter>},
                      %w2: tensor<63x63xf32> {mpt.role = #mpt.role<parameter>},
                      %t: tensor<16x63xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h0 = mpt.matmul %x, %w1 : (tensor<16x63xf32>, tensor<63x63xf32>) -> tensor<16x63xf32>
  %h = mpt.relu %h0 : tensor<16x63xf32>
  %y = mpt.matmul %h, %w2 : (tensor<16x63xf32>, tensor<63x63xf32>) -> tensor<16x63xf32>
  %l = mpt.mse_loss %y, %t : (tensor<16x63xf32>, tensor<16x63xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
