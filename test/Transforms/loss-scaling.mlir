// RUN: mpt-opt %s --mpt-build-train-step="optimizer=adam clip-norm=1.0" -canonicalize -cse --mpt-auto-mixed-precision=type=f16 --mpt-master-weights --mpt-loss-scaling -canonicalize | FileCheck %s --check-prefix=DYN
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse --mpt-auto-mixed-precision=type=f16 --mpt-master-weights --mpt-loss-scaling="mode=dynamic init-scale=1024 growth-factor=4 backoff-factor=0.25 growth-interval=100 hysteresis=3 min-scale=2 max-scale=65536" | FileCheck %s --check-prefix=OPTS
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=momentum" -canonicalize -cse --mpt-auto-mixed-precision=type=f16 --mpt-master-weights --mpt-loss-scaling="mode=static init-scale=128" -canonicalize | FileCheck %s --check-prefix=STATIC
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse --mpt-auto-mixed-precision=type=f16 --mpt-loss-scaling=mode=none -canonicalize | FileCheck %s --check-prefix=NONE
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse --mpt-auto-mixed-precision=type=bf16 --mpt-master-weights --mpt-loss-scaling 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" --mpt-loss-scaling 2>&1 | FileCheck %s --check-prefix=FP32
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse --mpt-auto-mixed-precision=type=bf16 --mpt-master-weights --mpt-loss-scaling=mode=dynamic | FileCheck %s --check-prefix=BF16-FORCED
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse --mpt-auto-mixed-precision=type=f16 --mpt-master-weights=keep-low-copy --mpt-loss-scaling -canonicalize | FileCheck %s --check-prefix=COPY
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse --mpt-auto-mixed-precision=type=f16 --mpt-master-weights --mpt-loss-scaling=mode=adaptive -canonicalize -cse | FileCheck %s --check-prefix=ADAPTIVE
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -cse --mpt-auto-mixed-precision=type=f16 --mpt-master-weights --mpt-loss-scaling -canonicalize --mpt-loss-scaling=mode=none | FileCheck %s --check-prefix=TWICE

// The structure of the loss-scaled training step, per mode and option. The
// model: relu(x @ w + b) @ v, softmax cross-entropy.
func.func @model(%x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
                 %w: tensor<8x16xf32> {mpt.role = #mpt.role<parameter>},
                 %b: tensor<16xf32> {mpt.role = #mpt.role<parameter>},
                 %v: tensor<16x3xf32> {mpt.role = #mpt.role<parameter>},
                 %y: tensor<4xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %hb = mpt.add %h, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %r = mpt.relu %hb : tensor<4x16xf32>
  %l = mpt.matmul %r, %v : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %loss = mpt.softmax_cross_entropy %l, %y : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// dynamic (the default for f16), Adam with clipping: three scale-state
// arguments with their initial values and results; the backward pass starts
// at the scale; one unscale_and_check of the f16 and f32 gradients with the
// clip fused in (max_norm); every parameter, moment and the step count falls
// back to its argument on overflow; update_scale with the defaults
// (GradScaler's, max-scale 2^24).
// DYN-LABEL: func.func @train_step(
// DYN-SAME: %[[W:[a-z0-9]+]]: tensor<8x16xf32> {mpt.role = #mpt.role<parameter>}, %[[B:[a-z0-9]+]]: tensor<16xf32> {mpt.role = #mpt.role<parameter>}, %[[V:[a-z0-9]+]]: tensor<16x3xf32> {mpt.role = #mpt.role<parameter>},
// DYN-SAME: %[[T:[a-z0-9]+]]: tensor<f32> {mpt.role = #mpt.role<optimizer_state>},
// DYN-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {mpt.initial_value = dense<6.553600e+04> : tensor<f32>, mpt.role = #mpt.role<loss_scale_state>},
// DYN-SAME: %[[G:[a-z0-9]+]]: tensor<i32> {mpt.initial_value = dense<0> : tensor<i32>, mpt.role = #mpt.role<loss_scale_state>},
// DYN-SAME: %[[H:[a-z0-9]+]]: tensor<i32> {mpt.initial_value = dense<1> : tensor<i32>, mpt.role = #mpt.role<loss_scale_state>})
// DYN-SAME: tensor<f32> {mpt.role = #mpt.role<optimizer_state>}, tensor<f32> {mpt.role = #mpt.role<loss_scale_state>}, tensor<i32> {mpt.role = #mpt.role<loss_scale_state>}, tensor<i32> {mpt.role = #mpt.role<loss_scale_state>}) {
// DYN-NOT: mpt.backward_seed
// DYN: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// DYN-NEXT: mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %[[S]] :
// DYN-NOT: mpt.clip_by_global_norm
// DYN: %[[U:.*]]:3, %[[F:.*]] = mpt.unscale_and_check %{{.*}}, %{{.*}}, %{{.*}} scales(%[[S]]) max_norm = 1.000000e+00 {mpt.precision = #mpt.precision<fp32>} : (tensor<8x16xf16>, tensor<16xf32>, tensor<16x3xf16>, tensor<f32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<i1>)
// DYN-NOT: mpt.clip_by_global_norm
// DYN: %[[T1:.*]] = mpt.add %[[T]]
// DYN: mpt.adam_update %[[W]], %[[U]]#0,
// DYN: mpt.adam_update %[[B]], %[[U]]#1,
// DYN: mpt.adam_update %[[V]], %[[U]]#2,
// DYN-COUNT-9: mpt.select %[[F]], %arg{{[0-9]+}}, %{{.*}} {mpt.precision = #mpt.precision<fp32>} : tensor<i1>, tensor<
// DYN-NEXT: %[[TS:.*]] = mpt.select %[[F]], %[[T]], %[[T1]] {mpt.precision = #mpt.precision<fp32>} : tensor<i1>, tensor<f32>
// DYN-NEXT: %[[NS:[a-z_0-9]+]], %[[NG:[a-z_0-9]+]], %[[NH:[a-z_0-9]+]] = mpt.update_scale %[[S]], %[[G]], %[[H]], %[[F]] growth_factor = 2.000000e+00 backoff_factor = 5.000000e-01 growth_interval = 2000 hysteresis = 1 min_scale = 1.000000e+00 max_scale = 0x4170000000000000
// DYN-NEXT: return %[[LOSS]], {{.*}}, %[[TS]], %[[NS]], %[[NG]], %[[NH]] :

// Every option reaches the state's initial values and mpt.update_scale; SGD
// without clipping unscales the gradients of the updates.
// OPTS-LABEL: func.func @train_step(
// OPTS-SAME: %{{.*}}: tensor<f32> {mpt.initial_value = dense<1.024000e+03> : tensor<f32>, mpt.role = #mpt.role<loss_scale_state>}, %{{.*}}: tensor<i32> {mpt.initial_value = dense<0> : tensor<i32>, mpt.role = #mpt.role<loss_scale_state>}, %{{.*}}: tensor<i32> {mpt.initial_value = dense<3> : tensor<i32>, mpt.role = #mpt.role<loss_scale_state>})
// OPTS: mpt.unscale_and_check %{{.*}}, %{{.*}}, %{{.*}} scales(%{{.*}}) {mpt.precision = #mpt.precision<fp32>} :
// OPTS: mpt.update_scale %{{.*}} growth_factor = 4.000000e+00 backoff_factor = 2.500000e-01 growth_interval = 100 hysteresis = 3 min_scale = 2.000000e+00 max_scale = 6.553600e+04

// static: the seed is the constant scale, the gradients are unscaled by it
// and an overflowing step is still skipped (parameters and velocities); no
// state.
// STATIC-LABEL: func.func @train_step(
// STATIC-NOT: loss_scale_state
// STATIC: %[[S:.*]] = mpt.constant dense<1.280000e+02> : tensor<f32>
// STATIC: mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %[[S]] :
// STATIC: %{{.*}}:3, %[[F:.*]] = mpt.unscale_and_check %{{.*}} scales(%[[S]])
// STATIC-COUNT-6: mpt.select %[[F]],
// STATIC-NOT: mpt.update_scale
// STATIC: return

// none: the seed is one; nothing else changes.
// NONE-LABEL: func.func @train_step(
// NONE-NOT: mpt.backward_seed
// NONE-NOT: mpt.unscale_and_check
// NONE-NOT: mpt.select
// NONE: return

// bf16 (auto): no scaling, with a remark.
// BF16: remark: mpt-loss-scaling: @train_step computes in bf16, whose exponent range is fp32's; no loss scaling (force it with mode=dynamic, static or adaptive)
// BF16-LABEL: func.func @train_step(
// BF16-NOT: mpt.unscale_and_check
// BF16: return
// FP32: remark: mpt-loss-scaling: @train_step has no f16 values; no loss scaling
// FP32-NOT: mpt.unscale_and_check

// A forced mode works on bf16.
// BF16-FORCED-LABEL: func.func @train_step(
// BF16-FORCED: mpt.unscale_and_check %{{.*}} : (tensor<8x16xbf16>, tensor<16xf32>, tensor<16x3xbf16>, tensor<f32>)
// BF16-FORCED: mpt.update_scale

// keep-low-copy: the low-precision copies fall back too.
// COPY-LABEL: func.func @train_step(
// COPY: %[[F:[a-z_0-9]+]] = mpt.unscale_and_check
// COPY-COUNT-3: mpt.select %[[F]], %arg{{[0-9]+}}, %{{.*}} : tensor<i1>, tensor<{{[0-9x]+}}xf32>
// COPY-COUNT-3: mpt.select %[[F]], %arg{{[0-9]+}}, %{{.*}} : tensor<i1>, tensor<{{[0-9x]+}}xf16>
// COPY: mpt.update_scale

// adaptive: the seed is one; before each f16 contraction of the backward
// pass, mpt.layer_scale computes a factor from the f32 gradient (before its
// cast) or the f16 one, the gradient is multiplied by it in f32, and each
// parameter gradient is unscaled by its own accumulated scale (w: the product
// of two factors, b: the first, v: its own).
// ADAPTIVE-LABEL: func.func @train_step(
// ADAPTIVE-NOT: loss_scale_state
// ADAPTIVE: %[[ONE:.*]] = mpt.constant dense<1.000000e+00> : tensor<f32>
// ADAPTIVE: %[[DL:.*]] = mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %[[ONE]] :
// (v's gradient first: it reads the relu's output, which nothing else reads.)
// ADAPTIVE-NEXT: %[[A2:.*]] = mpt.layer_scale %[[DL]], %[[R:.*]], %[[ONE]] fan_in = 4 {{.*}} : tensor<4x3xf32>, tensor<4x16xf16>
// ADAPTIVE-NEXT: %[[S2:.*]] = mpt.mul %[[DL]], %[[A2]]
// ADAPTIVE-NEXT: %[[S2H:.*]] = mpt.cast %[[S2]]
// ADAPTIVE-NEXT: %[[DV:.*]] = mpt.matmul %[[R]], %[[S2H]] transpose_a acc(f32)
// ADAPTIVE-NEXT: %[[A1:.*]] = mpt.layer_scale %[[DL]], %[[VH:.*]], %[[ONE]] fan_in = 3 min_value = 5.9604644775390625E-8 max_value = 6.550400e+04 max_scale = 0x4170000000000000 : tensor<4x3xf32>, tensor<16x3xf16>
// ADAPTIVE-NEXT: %[[S1:.*]] = mpt.mul %[[DL]], %[[A1]] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
// ADAPTIVE-NEXT: %[[S1H:.*]] = mpt.cast %[[S1]] : tensor<4x3xf32> to tensor<4x3xf16>
// ADAPTIVE-NEXT: %[[DH:.*]] = mpt.matmul %[[S1H]], %[[VH]] transpose_b acc(f32)
// ADAPTIVE-NEXT: %[[DR:.*]] = mpt.relu_grad %[[DH]], %{{.*}} : tensor<4x16xf16>
// ADAPTIVE-NEXT: %[[DR32:.*]] = mpt.cast %[[DR]] : tensor<4x16xf16> to tensor<4x16xf32>
// ADAPTIVE-NEXT: %[[DB:.*]] = mpt.reduce_sum %[[DR32]]
// ADAPTIVE-NEXT: %[[A3:.*]] = mpt.layer_scale %[[DR]], %{{.*}}, %[[A1]] fan_in = 4 {{.*}} : tensor<4x16xf16>, tensor<4x8xf16>
// ADAPTIVE-NEXT: %[[S3:.*]] = mpt.mul %[[DR32]], %[[A3]]
// ADAPTIVE-NEXT: %[[S3H:.*]] = mpt.cast %[[S3]]
// ADAPTIVE-NEXT: %[[A13:.*]] = mpt.mul %[[A1]], %[[A3]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// ADAPTIVE-NEXT: %[[DW:.*]] = mpt.matmul %{{.*}}, %[[S3H]] transpose_a acc(f32)
// ADAPTIVE-NEXT: %{{.*}}:3, %{{.*}} = mpt.unscale_and_check %[[DW]], %[[DB]], %[[DV]] scales(%[[A13]], %[[A1]], %[[A2]])
// ADAPTIVE-NOT: mpt.update_scale

// The pass is idempotent in effect: a second run finds no seed left and, with
// mode=none, changes nothing.
// TWICE-LABEL: func.func @train_step(
// TWICE-COUNT-1: mpt.unscale_and_check
// TWICE-COUNT-1: mpt.update_scale
