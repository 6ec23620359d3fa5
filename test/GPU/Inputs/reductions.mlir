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
