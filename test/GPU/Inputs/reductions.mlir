// Whole-tensor reductions for split-reductions.test: a sum, and the
// unscale-and-check of loss scaling with its fused clip (a max of inf/NaN
// flags and a sum of squares).
func.func @sum(%x: tensor<784x128xf32>) -> tensor<f32> {
  %s = mpt.reduce_sum %x axes = [0, 1] : tensor<784x128xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @check(%g: tensor<784x128xf16>, %b: tensor<128xf32>, %s: tensor<f32>) -> (tensor<784x128xf32>, tensor<128xf32>, tensor<i1>) {
  %u:3 = mpt.unscale_and_check %g, %b scales(%s) max_norm = 1.0 : (tensor<784x128xf16>, tensor<128xf32>, tensor<f32>) -> (tensor<784x128xf32>, tensor<128xf32>, tensor<i1>)
  return %u#0, %u#1, %u#2 : tensor<784x128xf32>, tensor<128xf32>, tensor<i1>
}
// Reductions along one axis: a bias gradient (a sum over the batch for each
// column; the reduction loop outermost as convert-mpt-to-linalg writes it),
// a row sum, and a short column sum that is only reordered.
func.func @columns(%x: tensor<512x256xf32>) -> tensor<256xf32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<512x256xf32> -> tensor<256xf32>
  return %s : tensor<256xf32>
}
func.func @rows(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
  %s = mpt.reduce_sum %x axes = [1] : tensor<64x1024xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
func.func @short(%x: tensor<100x30xf32>) -> tensor<30xf32> {
  %s = mpt.reduce_sum %x axes = [0] : tensor<100x30xf32> -> tensor<30xf32>
  return %s : tensor<30xf32>
}
// A loss that elementwise fusion merges with its producers: the bias add,
// the difference and the square go into the reduction's body.
func.func @mse(%y: tensor<64x128xf32>, %bias: tensor<128xf32>, %t: tensor<64x128xf32>) -> tensor<f32> {
  %a = mpt.add %y, %bias : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %l = mpt.mse_loss %a, %t : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
