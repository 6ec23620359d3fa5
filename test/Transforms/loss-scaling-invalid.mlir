// Errors of mpt-loss-scaling: bad options (each in its own section, checked
// before the module is looked at), and training steps the pass cannot
// rewrite (split with -split-input-file).

// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/bad-mode.mlir --mpt-loss-scaling="mode=always" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/negative-scale.mlir --mpt-loss-scaling="init-scale=-1" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/zero-scale.mlir --mpt-loss-scaling="init-scale=0" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/huge-scale.mlir --mpt-loss-scaling="init-scale=1e39" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/growth-one.mlir --mpt-loss-scaling="growth-factor=1" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/growth-below-one.mlir --mpt-loss-scaling="growth-factor=0.5" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/backoff-zero.mlir --mpt-loss-scaling="backoff-factor=0" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/backoff-one.mlir --mpt-loss-scaling="backoff-factor=1" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/backoff-above-one.mlir --mpt-loss-scaling="backoff-factor=2" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/interval-zero.mlir --mpt-loss-scaling="growth-interval=0" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/hysteresis-zero.mlir --mpt-loss-scaling="hysteresis=0" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/min-above-max.mlir --mpt-loss-scaling="min-scale=4096 max-scale=1024 init-scale=2048" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/min-zero.mlir --mpt-loss-scaling="min-scale=0" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/init-above-max.mlir --mpt-loss-scaling="max-scale=1024" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/no-step.mlir --mpt-loss-scaling="mode=dynamic" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/steps.mlir --mpt-loss-scaling=mode=dynamic -split-input-file -verify-diagnostics -o /dev/null

//--- bad-mode.mlir
// expected-error @+1 {{mpt-loss-scaling: unknown mode 'always'; expected auto, dynamic, static, adaptive or none}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- negative-scale.mlir
// expected-error @+1 {{mpt-loss-scaling: init-scale must be a positive finite f32, got -1.000000e+00}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- zero-scale.mlir
// expected-error @+1 {{mpt-loss-scaling: init-scale must be a positive finite f32, got 0.000000e+00}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- huge-scale.mlir
// expected-error @+1 {{mpt-loss-scaling: init-scale must be a positive finite f32, got 1.000000e+39}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- growth-one.mlir
// expected-error @+1 {{mpt-loss-scaling: growth-factor must be a finite number > 1, got 1.000000e+00}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- growth-below-one.mlir
// expected-error @+1 {{mpt-loss-scaling: growth-factor must be a finite number > 1, got 5.000000e-01}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- backoff-zero.mlir
// expected-error @+1 {{mpt-loss-scaling: backoff-factor must be in (0, 1), got 0.000000e+00}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- backoff-one.mlir
// expected-error @+1 {{mpt-loss-scaling: backoff-factor must be in (0, 1), got 1.000000e+00}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- backoff-above-one.mlir
// expected-error @+1 {{mpt-loss-scaling: backoff-factor must be in (0, 1), got 2.000000e+00}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- interval-zero.mlir
// expected-error @+1 {{mpt-loss-scaling: growth-interval must be in [1, 2^31), got 0}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- hysteresis-zero.mlir
// expected-error @+1 {{mpt-loss-scaling: hysteresis must be in [1, 2^31), got 0}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- min-above-max.mlir
// expected-error @+1 {{mpt-loss-scaling: expects 0 < min-scale <= max-scale <= the largest f32, got min-scale 4.096000e+03 and max-scale 1.024000e+03}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- min-zero.mlir
// expected-error @+1 {{mpt-loss-scaling: expects 0 < min-scale <= max-scale <= the largest f32, got min-scale 0.000000e+00 and max-scale 1.677722e+07}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- init-above-max.mlir
// expected-error @+1 {{mpt-loss-scaling: init-scale 6.553600e+04 is outside [min-scale 1.000000e+00, max-scale 1.024000e+03]}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- no-step.mlir
// expected-error @+1 {{mpt-loss-scaling: no training step in the module (no function has an mpt.backward_seed); build one with mpt-build-train-step}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

//--- steps.mlir
// An f16 loss.
func.func @f16_loss(%w: tensor<4xf16> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f16> {mpt.role = #mpt.role<loss>}, tensor<4xf16> {mpt.role = #mpt.role<parameter>}) {
  %loss = mpt.reduce_sum %w axes = [0] : tensor<4xf16> -> tensor<f16>
  // expected-error @+1 {{mpt-loss-scaling: the loss is 'tensor<f16>'; loss scaling needs an f32 (or f64) loss}}
  %seed = mpt.backward_seed %loss : tensor<f16>
  %g = mpt.broadcast %seed : tensor<f16> to tensor<4xf16>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf16>
  return %loss, %new : tensor<f16>, tensor<4xf16>
}

// -----

// A backward pass without an optimizer update (a gradient function).
// expected-error @+1 {{mpt-loss-scaling: @grad has a backward pass but no optimizer update (mpt.sgd_update, mpt.momentum_update, mpt.adam_update); build the step with mpt-build-train-step}}
func.func @grad(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<gradient>}) {
  %loss = mpt.reduce_sum %w axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  %g = mpt.broadcast %seed : tensor<f32> to tensor<4xf32>
  return %loss, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Two backward passes in one function.
func.func @two_seeds(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %loss = mpt.reduce_sum %w axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  // expected-error @+1 {{mpt-loss-scaling: a training step has one backward pass; this function has 2 mpt.backward_seed ops}}
  %seed2 = mpt.backward_seed %loss {other} : tensor<f32>
  %g = mpt.broadcast %seed : tensor<f32> to tensor<4xf32>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}

// -----

// Two clips, each of some gradients.
// expected-error @+1 {{mpt-loss-scaling: @two_clips clips some gradients apart from the others; expected one mpt.clip_by_global_norm of every gradient}}
func.func @two_clips(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>}, %v: tensor<4xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %loss = mpt.reduce_sum %w axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  %g = mpt.broadcast %seed : tensor<f32> to tensor<4xf32>
  %c1 = mpt.clip_by_global_norm %g max_norm = 1.0 : (tensor<4xf32>) -> tensor<4xf32>
  %c2 = mpt.clip_by_global_norm %g max_norm = 2.0 : (tensor<4xf32>) -> tensor<4xf32>
  %new = mpt.sgd_update %w, %c1 lr = 0.1 : tensor<4xf32>
  %new2 = mpt.sgd_update %v, %c2 lr = 0.1 : tensor<4xf32>
  return %loss, %new, %new2 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A parameter result with no parameter argument to fall back to.
// expected-error @+1 {{mpt-loss-scaling: result #2 (parameter) has no argument of that role and type 'tensor<8xf32>' to fall back to when a step overflows}}
func.func @no_fallback(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}, tensor<8xf32> {mpt.role = #mpt.role<parameter>}) {
  %loss = mpt.reduce_sum %w axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  %g = mpt.broadcast %seed : tensor<f32> to tensor<4xf32>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  %extra = mpt.concat %new, %new axis = 0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %loss, %new, %extra : tensor<f32>, tensor<4xf32>, tensor<8xf32>
}

// -----

// An update before the last gradient is computed that cannot move after
// it: the last gradient reads the updated weight. (An update that nothing
// before the last gradient reads moves after the unscale:
// loss-scaling-late-gradient.mlir.)
func.func @early_update(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>}, %v: tensor<4xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %loss = mpt.reduce_sum %w axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  %g = mpt.broadcast %seed : tensor<f32> to tensor<4xf32>
  // expected-error @+1 {{mpt-loss-scaling: this op uses a gradient before the last gradient is computed and cannot move after it; expected the optimizer updates after the backward pass}}
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  %g2 = mpt.mul %new, %new : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %new2 = mpt.sgd_update %v, %g2 lr = 0.1 : tensor<4xf32>
  return %loss, %new, %new2 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
