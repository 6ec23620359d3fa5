// One SGD step (lr = 1) on f16 weights and on fp32 master weights.
func.func @f16_step(%w: tensor<4xf16> {mpt.role = #mpt.role<parameter>},
                    %g: tensor<4xf16> {mpt.role = #mpt.role<input>})
    -> (tensor<4xf16> {mpt.role = #mpt.role<parameter>}) {
  %n = mpt.sgd_update %w, %g lr = 1.0 : tensor<4xf16>
  return %n : tensor<4xf16>
}

func.func @f32_step(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                    %g: tensor<4xf32> {mpt.role = #mpt.role<input>})
    -> (tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %n = mpt.sgd_update %w, %g lr = 1.0 : tensor<4xf32>
  return %n : tensor<4xf32>
}
