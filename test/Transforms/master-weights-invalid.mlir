// RUN: mpt-opt %s --mpt-master-weights -split-input-file -verify-diagnostics

// The master copy must be fp32.
// expected-error @+1 {{mpt-master-weights: parameter argument #0 has type 'tensor<8xf16>'; the master copy must be an f32 tensor}}
func.func @f16_master(%w: tensor<8xf16> {mpt.role = #mpt.role<parameter>}, %g: tensor<8xf16>)
    -> (tensor<8xf16> {mpt.role = #mpt.role<parameter>}) {
  %n = mpt.sgd_update %w, %g lr = 0.1 : tensor<8xf16>
  return %n : tensor<8xf16>
}

// -----

// The update must produce an f32 value, not a cast of a low-precision one.
// expected-error @+1 {{mpt-master-weights: result #0 (parameter) is not computed in f32}}
func.func @low_update(%w: tensor<8xf32> {mpt.role = #mpt.role<parameter>}, %g: tensor<8xf16>)
    -> (tensor<8xf32> {mpt.role = #mpt.role<parameter>}) {
  %h = mpt.cast %w : tensor<8xf32> to tensor<8xf16>
  %n = mpt.sgd_update %h, %g lr = 0.1 : tensor<8xf16>
  %f = mpt.cast %n : tensor<8xf16> to tensor<8xf32>
  return %f : tensor<8xf32>
}
