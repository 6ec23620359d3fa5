// A language model's input layer: 2048 tokens looked up in an embedding
// table of 32000 x 512, then a feed-forward block (512 -> 2048 -> 512, relu)
// and a mean squared error against targets. The table is the largest
// parameter, and a step reads 2048 of its rows: in mixed precision the
// rows are cast after the lookup, not the table before it
// (bench/cpu/bench_step_memory.py --model bench/cpu/models/embedding.mlir).
func.func @embedding(%ids: tensor<2048xi64> {mpt.role = #mpt.role<input>},
                     %table: tensor<32000x512xf32> {mpt.role = #mpt.role<parameter>},
                     %w1: tensor<512x2048xf32> {mpt.role = #mpt.role<parameter>},
                     %w2: tensor<2048x512xf32> {mpt.role = #mpt.role<parameter>},
                     %target: tensor<2048x512xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %e = mpt.embedding %table, %ids : (tensor<32000x512xf32>, tensor<2048xi64>) -> tensor<2048x512xf32>
  %h0 = mpt.matmul %e, %w1 : (tensor<2048x512xf32>, tensor<512x2048xf32>) -> tensor<2048x2048xf32>
  %h = mpt.relu %h0 : tensor<2048x2048xf32>
  %y = mpt.matmul %h, %w2 : (tensor<2048x2048xf32>, tensor<2048x512xf32>) -> tensor<2048x512xf32>
  %loss = mpt.mse_loss %y, %target : (tensor<2048x512xf32>, tensor<2048x512xf32>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
