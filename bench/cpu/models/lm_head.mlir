// A language model's output layer and loss: 2048 tokens of width 512
// projected onto a vocabulary of 32000, softmax cross-entropy. The logits
// (2048 x 32000) dominate the step's memory, as in real language models:
// bench/cpu/bench_step_memory.py --model bench/cpu/models/lm_head.mlir
// shows what the loss and its gradient keep besides them.
func.func @lm_head(%h: tensor<2048x512xf32> {mpt.role = #mpt.role<input>},
                   %w: tensor<512x32000xf32> {mpt.role = #mpt.role<parameter>},
                   %labels: tensor<2048xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %logits = mpt.matmul %h, %w : (tensor<2048x512xf32>, tensor<512x32000xf32>) -> tensor<2048x32000xf32>
  %loss = mpt.softmax_cross_entropy %logits, %labels : (tensor<2048x32000xf32>, tensor<2048xi64>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
