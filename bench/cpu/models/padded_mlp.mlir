// Two layers whose dimensions are not multiples of 8 (512 x 1001 ->
// 1001 -> 1001, relu, mean squared error): in mixed precision
// mpt-pad-for-tensor-cores pads them to 1008, so each f16 copy of a weight
// or the batch is a cast and a pad, and the loss gradient is padded too
// (bench/cpu/bench_step_memory.py --model bench/cpu/models/padded_mlp.mlir).
func.func @padded_mlp(%x: tensor<512x1001xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<1001x1001xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<1001x1001xf32> {mpt.role = #mpt.role<parameter>},
               %t: tensor<512x1001xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h0 = mpt.matmul %x, %w1 : (tensor<512x1001xf32>, tensor<1001x1001xf32>) -> tensor<512x1001xf32>
  %h = mpt.relu %h0 : tensor<512x1001xf32>
  %y = mpt.matmul %h, %w2 : (tensor<512x1001xf32>, tensor<1001x1001xf32>) -> tensor<512x1001xf32>
  %l = mpt.mse_loss %y, %t : (tensor<512x1001xf32>, tensor<512x1001xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
