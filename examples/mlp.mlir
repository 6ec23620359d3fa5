// A two-layer perceptron for MNIST-sized inputs, forward pass and loss.
//
//   x      : 32x784   a batch of 32 flattened 28x28 images  (input)
//   w1, b1 : 784x128, 128                                    (parameters)
//   w2, b2 : 128x10,  10                                     (parameters)
//   labels : 32 (i64) class indices in [0, 10)               (label)
//
//   h      = relu(x @ w1 + b1)                               32x128
//   logits = h @ w2 + b2                                     32x10
//   loss   = mean softmax cross-entropy(logits, labels)      scalar f32
//
// The biases are added with numpy broadcasting (128 -> 32x128, 10 -> 32x10).
// Everything is fp32; 784 and 10 are not multiples of 8, so a Tensor-Core
// padding pass has work to do on both matmuls.
//
// Run it (parse, verify and print) from the repository root with:
//
//   build/bin/mpt-opt examples/mlp.mlir
//   build/bin/mpt-opt examples/mlp.mlir --print-op-stats -o /dev/null

func.func @mlp(%x: tensor<32x784xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<784x128xf32> {mpt.role = #mpt.role<parameter>},
               %b1: tensor<128xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<128x10xf32> {mpt.role = #mpt.role<parameter>},
               %b2: tensor<10xf32> {mpt.role = #mpt.role<parameter>},
               %labels: tensor<32xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  // Hidden layer: 32x784 @ 784x128 + 128, then relu.
  %h_lin = mpt.matmul %x, %w1
      : (tensor<32x784xf32>, tensor<784x128xf32>) -> tensor<32x128xf32>
  %h_pre = mpt.add %h_lin, %b1
      : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %h = mpt.relu %h_pre : tensor<32x128xf32>

  // Output layer: 32x128 @ 128x10 + 10.
  %logits_lin = mpt.matmul %h, %w2
      : (tensor<32x128xf32>, tensor<128x10xf32>) -> tensor<32x10xf32>
  %logits = mpt.add %logits_lin, %b2
      : (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>

  // Mean cross-entropy over the batch.
  %loss = mpt.softmax_cross_entropy %logits, %labels
      : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
