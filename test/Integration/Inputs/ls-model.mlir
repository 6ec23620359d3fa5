// A small two-layer perceptron for the loss-scaling tests: 32 samples of 16
// features, 32 hidden units, 10 classes.
func.func @mlp(%x: tensor<32x16xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<16x32xf32> {mpt.role = #mpt.role<parameter>},
               %b1: tensor<32xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<32x10xf32> {mpt.role = #mpt.role<parameter>},
               %b2: tensor<10xf32> {mpt.role = #mpt.role<parameter>},
               %labels: tensor<32xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.matmul %x, %w1 : (tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
  %hb = mpt.add %h, %b1 : (tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %r = mpt.relu %hb : tensor<32x32xf32>
  %l = mpt.matmul %r, %w2 : (tensor<32x32xf32>, tensor<32x10xf32>) -> tensor<32x10xf32>
  %lb = mpt.add %l, %b2 : (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>
  %loss = mpt.softmax_cross_entropy %lb, %labels : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
