// A small convolutional classifier for CIFAR-10-sized images (NCHW), forward
// pass and loss.
//
//   x      : 8x3x32x32  a batch of 8 RGB 32x32 images         (input)
//   labels : 8 (i64)    class indices in [0, 10)              (label)
//   parameters:
//     w1 : 16x3x3x3  (filters FCHW)   g1, be1 : 16  (batch-norm scale/shift)
//     w2 : 32x16x3x3 (filters FCHW)   g2, be2 : 32  (batch-norm scale/shift)
//     wf : 32x10                       bf      : 10  (classifier)
//
//   conv2d 3->16, 3x3, pad 1      8x3x32x32  -> 8x16x32x32
//   batch_norm, relu              8x16x32x32
//   max_pool2d 2x2, stride 2      8x16x32x32 -> 8x16x16x16
//   conv2d 16->32, 3x3, pad 1     8x16x16x16 -> 8x32x16x16
//   batch_norm, relu              8x32x16x16
//   global_avg_pool               8x32x16x16 -> 8x32
//   linear (matmul + bias)        8x32       -> 8x10
//   softmax_cross_entropy         8x10, 8    -> scalar f32
//
// The convolutions have no bias: the batch norm that follows shifts every
// channel anyway. Everything is fp32; the 3 input channels and the 10 classes
// are not multiples of 8, so a Tensor-Core padding pass has work to do.
//
// Run it (parse, verify and print) from the repository root with:
//
//   build/bin/mpt-opt examples/cnn.mlir
//   build/bin/mpt-opt examples/cnn.mlir --print-op-stats -o /dev/null

func.func @cnn(%x: tensor<8x3x32x32xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<16x3x3x3xf32> {mpt.role = #mpt.role<parameter>},
               %g1: tensor<16xf32> {mpt.role = #mpt.role<parameter>},
               %be1: tensor<16xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<32x16x3x3xf32> {mpt.role = #mpt.role<parameter>},
               %g2: tensor<32xf32> {mpt.role = #mpt.role<parameter>},
               %be2: tensor<32xf32> {mpt.role = #mpt.role<parameter>},
               %wf: tensor<32x10xf32> {mpt.role = #mpt.role<parameter>},
               %bf: tensor<10xf32> {mpt.role = #mpt.role<parameter>},
               %labels: tensor<8xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  // Block 1: conv 3->16 (same padding), batch norm, relu, 2x2 max pool.
  %c1 = mpt.conv2d %x, %w1 pad [1, 1, 1, 1]
      : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %n1 = mpt.batch_norm %c1, %g1, %be1
      : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  %r1 = mpt.relu %n1 : tensor<8x16x32x32xf32>
  %p1 = mpt.max_pool2d %r1 kernel [2, 2] stride [2, 2]
      : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>

  // Block 2: conv 16->32 (same padding), batch norm, relu.
  %c2 = mpt.conv2d %p1, %w2 pad [1, 1, 1, 1]
      : (tensor<8x16x16x16xf32>, tensor<32x16x3x3xf32>) -> tensor<8x32x16x16xf32>
  %n2 = mpt.batch_norm %c2, %g2, %be2
      : (tensor<8x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x32x16x16xf32>
  %r2 = mpt.relu %n2 : tensor<8x32x16x16xf32>

  // Head: global average pool to 8x32, then a linear layer to 10 classes.
  %feat = mpt.global_avg_pool %r2 : tensor<8x32x16x16xf32> -> tensor<8x32xf32>
  %logits_lin = mpt.matmul %feat, %wf
      : (tensor<8x32xf32>, tensor<32x10xf32>) -> tensor<8x10xf32>
  %logits = mpt.add %logits_lin, %bf
      : (tensor<8x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>

  // Mean cross-entropy over the batch.
  %loss = mpt.softmax_cross_entropy %logits, %labels
      : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  func.return %loss : tensor<f32>
}
