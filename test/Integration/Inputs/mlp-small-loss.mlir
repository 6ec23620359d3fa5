// examples/mlp.mlir with its loss multiplied by 1e-6: the gradients are
// around 1e-8 to 1e-10, below f16's smallest subnormal (2^-24 = 6e-8), so an
// f16 backward pass without loss scaling flushes most of them to zero. SGD
// with lr = 1e4 on this loss takes the steps lr = 0.01 takes on the
// unscaled one.
func.func @mlp(%x: tensor<32x784xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<784x128xf32> {mpt.role = #mpt.role<parameter>},
               %b1: tensor<128xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<128x10xf32> {mpt.role = #mpt.role<parameter>},
               %b2: tensor<10xf32> {mpt.role = #mpt.role<parameter>},
               %labels: tensor<32xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.matmul %x, %w1 : (tensor<32x784xf32>, tensor<784x128xf32>) -> tensor<32x128xf32>
  %hb = mpt.add %h, %b1 : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %r = mpt.relu %hb : tensor<32x128xf32>
  %l = mpt.matmul %r, %w2 : (tensor<32x128xf32>, tensor<128x10xf32>) -> tensor<32x10xf32>
  %lb = mpt.add %l, %b2 : (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>
  %ce = mpt.softmax_cross_entropy %lb, %labels : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  %small = mpt.constant dense<1.0e-6> : tensor<f32>
  %loss = mpt.mul %ce, %small : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
