// An embedding lookup (128 tokens in a table of 1000 x 64), a feed-forward
// block and a mean squared error, for test/GPU/emulate-embedding-step.test.
func.func @embedding(%ids: tensor<128xi64> {mpt.role = #mpt.role<input>},
                     %table: tensor<1000x64xf32> {mpt.role = #mpt.role<parameter>},
                     %w1: tensor<64x256xf32> {mpt.role = #mpt.role<parameter>},
                     %w2: tensor<256x64xf32> {mpt.role = #mpt.role<parameter>},
                     %target: tensor<128x64xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %e = mpt.embedding %table, %ids : (tensor<1000x64xf32>, tensor<128xi64>) -> tensor<128x64xf32>
  %h0 = mpt.matmul %e, %w1 : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %h = mpt.relu %h0 : tensor<128x256xf32>
  %y = mpt.matmul %h, %w2 : (tensor<128x256xf32>, tensor<256x64xf32>) -> tensor<128x64xf32>
  %loss = mpt.mse_loss %y, %target : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
