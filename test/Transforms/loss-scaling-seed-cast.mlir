// The gradient of a sum loss is the seed itself, broadcast; the mixed
// precision pass casts the scalar seed to f16 (the fewest casts), so the cast
// holds the loss scale, which f16 holds only up to 65504. mpt-loss-scaling
// keeps the scale at most 32768 there (dynamic), refuses a static scale the
// type does not hold exactly, and leaves scales that fit (and bf16) alone.

// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/step.mlir --mpt-loss-scaling=mode=dynamic 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: mpt-opt %t/step.mlir --mpt-loss-scaling="mode=dynamic init-scale=1024 max-scale=16384" 2>&1 | FileCheck %s --check-prefix=FITS --implicit-check-not=remark
// RUN: mpt-opt %t/step.mlir --mpt-loss-scaling="mode=dynamic init-scale=1024" 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: mpt-opt %t/step.mlir --mpt-loss-scaling="mode=static init-scale=32768" 2>&1 | FileCheck %s --check-prefix=STATIC --implicit-check-not=remark
// RUN: mpt-opt %t/step.mlir --mpt-loss-scaling=mode=adaptive 2>&1 | FileCheck %s --check-prefix=ADAPTIVE --implicit-check-not=remark
// RUN: mpt-opt %t/bf16.mlir --mpt-loss-scaling=mode=dynamic 2>&1 | FileCheck %s --check-prefix=BF16 --implicit-check-not=remark
// RUN: mpt-opt %t/static-range.mlir --mpt-loss-scaling=mode=static -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/static-inexact.mlir --mpt-loss-scaling="mode=static init-scale=50000" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/min-scale.mlir --mpt-loss-scaling="mode=dynamic init-scale=65536 min-scale=65536" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/model.mlir --mpt-amp-pipeline=type=f16 2>&1 | FileCheck %s --check-prefix=PIPE

//--- step.mlir
// loss = sum(w * x): the seed reaches the f16 multiply through a cast, a
// reshape and a broadcast.
func.func @train_step(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                      %x: tensor<4xf16> {mpt.role = #mpt.role<input>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %w16 = mpt.cast %w : tensor<4xf32> to tensor<4xf16>
  %y = mpt.mul %w16, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %y32 = mpt.cast %y : tensor<4xf16> to tensor<4xf32>
  %loss = mpt.reduce_sum %y32 axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  %s16 = mpt.cast %seed : tensor<f32> to tensor<f16>
  %r = mpt.reshape %s16 : tensor<f16> to tensor<1xf16>
  %b = mpt.broadcast %r : tensor<1xf16> to tensor<4xf16>
  %g16 = mpt.mul %b, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %g = mpt.cast %g16 : tensor<4xf16> to tensor<4xf32>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}

// DYN: step.mlir:11:10: remark: mpt-loss-scaling: the gradient of the loss is cast to 'tensor<f16>' unchanged, so it holds the loss scale; the scale stays at most 32768 (the largest power of two 'f16' holds): init-scale 65536 -> 32768, max-scale 16777216 -> 32768
// DYN-LABEL: func.func @train_step
// DYN-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.initial_value = dense<3.276800e+04> : tensor<f32>, mpt.role = #mpt.role<loss_scale_state>}
// DYN: %[[S16:.*]] = mpt.cast %[[S]] : tensor<f32> to tensor<f16>
// DYN: mpt.reshape %[[S16]]
// DYN: mpt.update_scale {{.*}} min_scale = 1.000000e+00 max_scale = 3.276800e+04

// A scale and a bound that fit: no remark, the options as given.
// FITS: mpt.initial_value = dense<1.024000e+03>
// FITS: mpt.update_scale {{.*}} max_scale = 1.638400e+04

// Only the bound above f16's range is lowered (the remark says which).
// MAX: remark: mpt-loss-scaling: {{.*}} holds): max-scale 16777216 -> 32768{{$}}
// MAX: mpt.initial_value = dense<1.024000e+03>
// MAX: mpt.update_scale {{.*}} max_scale = 3.276800e+04

// STATIC: %[[S:.*]] = mpt.constant dense<3.276800e+04> : tensor<f32>
// STATIC: mpt.cast %[[S]] : tensor<f32> to tensor<f16>

// Adaptive seeds the backward pass with one; the layer factors come later.
// ADAPTIVE: %[[ONE:.*]] = mpt.constant dense<1.000000e+00> : tensor<f32>
// ADAPTIVE: mpt.cast %[[ONE]] : tensor<f32> to tensor<f16>

//--- bf16.mlir
// bf16 holds every f32 scale up to 2^127: nothing to bound.
func.func @train_step(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                      %x: tensor<4xbf16> {mpt.role = #mpt.role<input>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %w16 = mpt.cast %w : tensor<4xf32> to tensor<4xbf16>
  %y = mpt.mul %w16, %x : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %y32 = mpt.cast %y : tensor<4xbf16> to tensor<4xf32>
  %loss = mpt.reduce_sum %y32 axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  %s16 = mpt.cast %seed : tensor<f32> to tensor<bf16>
  %b = mpt.broadcast %s16 : tensor<bf16> to tensor<4xbf16>
  %g16 = mpt.mul %b, %x : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %g = mpt.cast %g16 : tensor<4xbf16> to tensor<4xf32>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}

// BF16: mpt.initial_value = dense<6.553600e+04>
// BF16: mpt.update_scale {{.*}} max_scale = 0x4170000000000000

//--- static-range.mlir
func.func @train_step(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                      %x: tensor<4xf16> {mpt.role = #mpt.role<input>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %w16 = mpt.cast %w : tensor<4xf32> to tensor<4xf16>
  %y = mpt.mul %w16, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %y32 = mpt.cast %y : tensor<4xf16> to tensor<4xf32>
  %loss = mpt.reduce_sum %y32 axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  %b = mpt.broadcast %seed : tensor<f32> to tensor<4xf32>
  // expected-error @+1 {{mpt-loss-scaling: the gradient of the loss is cast to 'tensor<4xf16>' unchanged, so it holds the loss scale, and the static scale 65536 is beyond its range; use an init-scale that 'f16' holds exactly, at most 32768}}
  %b16 = mpt.cast %b : tensor<4xf32> to tensor<4xf16>
  %g16 = mpt.mul %b16, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %g = mpt.cast %g16 : tensor<4xf16> to tensor<4xf32>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}

//--- static-inexact.mlir
func.func @train_step(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                      %x: tensor<4xf16> {mpt.role = #mpt.role<input>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %w16 = mpt.cast %w : tensor<4xf32> to tensor<4xf16>
  %y = mpt.mul %w16, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %y32 = mpt.cast %y : tensor<4xf16> to tensor<4xf32>
  %loss = mpt.reduce_sum %y32 axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  // expected-error @+1 {{mpt-loss-scaling: the gradient of the loss is cast to 'tensor<f16>' unchanged, so it holds the loss scale, and the static scale 50000 is not exact in it; use an init-scale that 'f16' holds exactly, at most 32768}}
  %s16 = mpt.cast %seed : tensor<f32> to tensor<f16>
  %b = mpt.broadcast %s16 : tensor<f16> to tensor<4xf16>
  %g16 = mpt.mul %b, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %g = mpt.cast %g16 : tensor<4xf16> to tensor<4xf32>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}

//--- min-scale.mlir
func.func @train_step(%w: tensor<4xf32> {mpt.role = #mpt.role<parameter>},
                      %x: tensor<4xf16> {mpt.role = #mpt.role<input>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<4xf32> {mpt.role = #mpt.role<parameter>}) {
  %w16 = mpt.cast %w : tensor<4xf32> to tensor<4xf16>
  %y = mpt.mul %w16, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %y32 = mpt.cast %y : tensor<4xf16> to tensor<4xf32>
  %loss = mpt.reduce_sum %y32 axes = [0] : tensor<4xf32> -> tensor<f32>
  %seed = mpt.backward_seed %loss : tensor<f32>
  // expected-error @+1 {{mpt-loss-scaling: the gradient of the loss is cast to 'tensor<f16>' unchanged, so it holds the loss scale, which must stay at most 32768; min-scale is 65536}}
  %s16 = mpt.cast %seed : tensor<f32> to tensor<f16>
  %b = mpt.broadcast %s16 : tensor<f16> to tensor<4xf16>
  %g16 = mpt.mul %b, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %g = mpt.cast %g16 : tensor<4xf16> to tensor<4xf32>
  %new = mpt.sgd_update %w, %g lr = 0.1 : tensor<4xf32>
  return %loss, %new : tensor<f32>, tensor<4xf32>
}

//--- model.mlir
// The whole pipeline on a model whose loss is a plain sum of a matmul (it
// stopped at the seed's cast before).
func.func @f(%x: tensor<16x32xf32> {mpt.role = #mpt.role<input>},
             %w: tensor<32x8xf32> {mpt.role = #mpt.role<parameter>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %y = mpt.matmul %x, %w : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %l = mpt.reduce_sum %y axes = [0, 1] : tensor<16x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// PIPE: remark: mpt-loss-scaling: the gradient of the loss is cast to 'tensor<f16>' unchanged, so it holds the loss scale; the scale stays at most 32768
// PIPE-LABEL: func.func @train_step
// PIPE-SAME: mpt.initial_value = dense<3.276800e+04>
// PIPE: %[[S16:.*]] = mpt.cast %arg2 : tensor<f32> to tensor<f16>
// PIPE: %[[R:.*]] = mpt.reshape %[[S16]] : tensor<f16> to tensor<1x1xf16>
// PIPE: %[[B:.*]] = mpt.broadcast %[[R]] : tensor<1x1xf16> to tensor<16x8xf16>
// PIPE: mpt.matmul %{{.*}}, %[[B]] transpose_a acc(f32)
// PIPE: mpt.update_scale {{.*}} max_scale = 3.276800e+04
