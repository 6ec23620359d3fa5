// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" | FileCheck %s --check-prefix=SGD
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1 weight-decay=0.01" | FileCheck %s --check-prefix=SGD-WD
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=momentum lr=0.1 momentum=0.8" | FileCheck %s --check-prefix=MOM
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=momentum lr=0.1 momentum=0.8 weight-decay=0.5" | FileCheck %s --check-prefix=MOM-WD
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=adam lr=0.001 beta1=0.8 beta2=0.99" | FileCheck %s --check-prefix=ADAM
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=adam lr=0.001 eps=1e-6 weight-decay=0.25" | FileCheck %s --check-prefix=ADAM-WD
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1 clip-norm=2.0" | FileCheck %s --check-prefix=CLIP
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" | FileCheck %s --check-prefix=NOCLIP
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd name=step" | FileCheck %s --check-prefix=NAME
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=momentum clip-norm=1.0 return-gradients" | FileCheck %s --check-prefix=GRADS
// The structure of @train_step for each optimizer: the signature (parameters
// first, then the optimizer state, then the other arguments of the forward
// function), the roles of every argument and result, and the update ops.
// (Training runs in test/Integration/train.test.)

// The forward function: its input comes first, before the parameters.
func.func @net(%x: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
               %w: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
               %b: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
               %labels: tensor<4xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %0 = mpt.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = mpt.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = mpt.softmax_cross_entropy %1, %labels : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %2 : tensor<f32>
}

// The forward function stays; @train_step follows it.
// SGD-LABEL: func.func @net(
// SGD-LABEL: func.func @train_step(
// SGD-SAME: %[[W:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// SGD-SAME: %[[B:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
// SGD-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
// SGD-SAME: %[[L:[a-z0-9]+]]: tensor<4xi64> {mpt.role = #mpt.role<label>})
// SGD-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>},
// SGD-SAME: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// SGD-SAME: tensor<3xf32> {mpt.role = #mpt.role<parameter>}) {
// SGD: %[[MM:.*]] = mpt.matmul %[[X]], %[[W]] :
// SGD: %[[LOGITS:.*]] = mpt.add %[[MM]], %[[B]] :
// SGD: %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[LOGITS]], %[[L]] :
// SGD: %[[DL:.*]] = mpt.softmax_cross_entropy_grad %[[LOGITS]], %[[L]],
// SGD-DAG: %[[DB:.*]] = mpt.reduce_sum %[[DL]] axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// SGD-DAG: %[[DW:.*]] = mpt.matmul %[[X]], %[[DL]] transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// One mpt.sgd_update per parameter, no weight decay by default.
// SGD: %[[NW:.*]] = mpt.sgd_update %[[W]], %[[DW]] lr = 1.000000e-01 {{(\{.*\} )?}}: tensor<8x3xf32>
// SGD-NEXT: %[[NB:.*]] = mpt.sgd_update %[[B]], %[[DB]] lr = 1.000000e-01 {{(\{.*\} )?}}: tensor<3xf32>
// SGD-NEXT: return %[[LOSS]], %[[NW]], %[[NB]] : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>
// SGD-NOT: sgd_update

// SGD-WD-LABEL: func.func @train_step(
// SGD-WD: mpt.sgd_update %{{.*}}, %{{.*}} lr = 1.000000e-01 weight_decay = 1.000000e-02 {{.*}}: tensor<8x3xf32>
// SGD-WD: mpt.sgd_update %{{.*}}, %{{.*}} lr = 1.000000e-01 weight_decay = 1.000000e-02 {{.*}}: tensor<3xf32>

// Momentum: one velocity per parameter, as optimizer state after the
// parameters (arguments) and after the new parameters (results). One
// mpt.momentum_update per parameter (v' = momentum * v + g, p' = p - lr * v')
// takes the parameter, its gradient and its velocity, and returns the new
// parameter and velocity; no weight_decay attribute by default; the update
// runs in fp32. No composition of elementwise ops is left.
// MOM-LABEL: func.func @train_step(
// MOM-SAME: %[[W:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// MOM-SAME: %[[B:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
// MOM-SAME: %[[VW:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// MOM-SAME: %[[VB:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// MOM-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
// MOM-SAME: %[[L:[a-z0-9]+]]: tensor<4xi64> {mpt.role = #mpt.role<label>})
// MOM-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>},
// MOM-SAME: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// MOM-SAME: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
// MOM-SAME: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// MOM-SAME: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>}) {
// MOM-NOT: mpt.{{(mul|sub|div|pow|sqrt) }}
// MOM: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// MOM-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// MOM-DAG: %[[DW:.*]] = mpt.matmul %[[X]], %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// MOM-NOT: mpt.{{(mul|sub|div|pow|sqrt) }}
// MOM: %[[NW:[a-z0-9_]+]], %[[NVW:[a-z0-9_]+]] = mpt.momentum_update %[[W]], %[[DW]], %[[VW]] lr = 1.000000e-01 momentum = 8.000000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<8x3xf32>
// MOM-NEXT: %[[NB:[a-z0-9_]+]], %[[NVB:[a-z0-9_]+]] = mpt.momentum_update %[[B]], %[[DB]], %[[VB]] lr = 1.000000e-01 momentum = 8.000000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<3xf32>
// Results: loss, new parameters, new velocities.
// MOM-NEXT: return %[[LOSS]], %[[NW]], %[[NB]], %[[NVW]], %[[NVB]] : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>
// MOM-NOT: sgd_update
// MOM-NOT: momentum_update

// Weight decay with momentum: an attribute of mpt.momentum_update (g + wd * p
// is computed inside the op), the gradient goes in unchanged.
// MOM-WD-LABEL: func.func @train_step(
// MOM-WD-SAME: %[[W:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// MOM-WD-SAME: %[[B:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
// MOM-WD-SAME: %[[VW:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// MOM-WD-SAME: %[[VB:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// MOM-WD-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// MOM-WD-DAG: %[[DW:.*]] = mpt.matmul %{{.*}}, %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// MOM-WD-NOT: mpt.{{(mul|add) }}
// MOM-WD: %[[NW:[a-z0-9_]+]], %[[NVW:[a-z0-9_]+]] = mpt.momentum_update %[[W]], %[[DW]], %[[VW]] lr = 1.000000e-01 momentum = 8.000000e-01 weight_decay = 5.000000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<8x3xf32>
// MOM-WD-NEXT: %[[NB:[a-z0-9_]+]], %[[NVB:[a-z0-9_]+]] = mpt.momentum_update %[[B]], %[[DB]], %[[VB]] lr = 1.000000e-01 momentum = 8.000000e-01 weight_decay = 5.000000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<3xf32>
// MOM-WD-NEXT: return %{{.*}}, %[[NW]], %[[NB]], %[[NVW]], %[[NVB]] :

// Adam: first moments of all parameters, then second moments, then the step
// count (f32 scalar), all optimizer state, in the arguments and the results.
// ADAM-LABEL: func.func @train_step(
// ADAM-SAME: %[[W:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// ADAM-SAME: %[[B:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
// ADAM-SAME: %[[MW:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: %[[MB:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: %[[VW:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: %[[VB:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: %[[T:[a-z0-9]+]]: tensor<f32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32> {mpt.role = #mpt.role<input>},
// ADAM-SAME: %[[L:[a-z0-9]+]]: tensor<4xi64> {mpt.role = #mpt.role<label>})
// ADAM-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>},
// ADAM-SAME: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// ADAM-SAME: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
// ADAM-SAME: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-SAME: tensor<f32> {mpt.role = #mpt.role<optimizer_state>}) {
// ADAM-NOT: mpt.{{(mul|sub|div|pow|sqrt) }}
// ADAM: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// ADAM-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// ADAM-DAG: %[[DW:.*]] = mpt.matmul %[[X]], %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// ADAM-NOT: mpt.{{(mul|sub|div|pow|sqrt) }}
// The step count goes up by one (in fp32), once for all parameters.
// ADAM: %[[ONE:.*]] = mpt.constant {mpt.precision = #mpt.precision<fp32>} dense<1.000000e+00> : tensor<f32>
// ADAM-NEXT: %[[T1:.*]] = mpt.add %[[T]], %[[ONE]] {mpt.precision = #mpt.precision<fp32>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// One mpt.adam_update per parameter: the parameter, its gradient, its first
// and second moments and the incremented step count; no weight_decay
// attribute by default.
// ADAM-NEXT: %[[NW:[a-z0-9_]+]], %[[MWN:[a-z0-9_]+]], %[[VWN:[a-z0-9_]+]] = mpt.adam_update %[[W]], %[[DW]], %[[MW]], %[[VW]], %[[T1]] lr = 1.000000e-03 beta1 = 8.000000e-01 beta2 = 0.98999999999999999 eps = 1.000000e-08 {mpt.precision = #mpt.precision<fp32>} : tensor<8x3xf32>, tensor<f32>
// ADAM-NEXT: %[[NB:[a-z0-9_]+]], %[[MBN:[a-z0-9_]+]], %[[VBN:[a-z0-9_]+]] = mpt.adam_update %[[B]], %[[DB]], %[[MB]], %[[VB]], %[[T1]] lr = 1.000000e-03 beta1 = 8.000000e-01 beta2 = 0.98999999999999999 eps = 1.000000e-08 {mpt.precision = #mpt.precision<fp32>} : tensor<3xf32>, tensor<f32>
// Results: loss, new parameters, all new first moments, all new second
// moments, the new step count.
// ADAM-NEXT: return %[[LOSS]], %[[NW]], %[[NB]], %[[MWN]], %[[MBN]], %[[VWN]], %[[VBN]], %[[T1]] : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<f32>
// ADAM-NOT: sgd_update
// ADAM-NOT: adam_update

// Adam with weight decay and eps: attributes of mpt.adam_update, the gradient
// goes in unchanged.
// ADAM-WD-LABEL: func.func @train_step(
// ADAM-WD-SAME: %[[W:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// ADAM-WD-SAME: %[[B:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<parameter>},
// ADAM-WD-SAME: %[[MW:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-WD-SAME: %[[MB:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-WD-SAME: %[[VW:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-WD-SAME: %[[VB:[a-z0-9]+]]: tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-WD-SAME: %[[T:[a-z0-9]+]]: tensor<f32> {mpt.role = #mpt.role<optimizer_state>},
// ADAM-WD-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// ADAM-WD-DAG: %[[DW:.*]] = mpt.matmul %{{.*}}, %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// ADAM-WD: %[[T1:.*]] = mpt.add %[[T]], %{{.*}} {mpt.precision = #mpt.precision<fp32>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// ADAM-WD-NEXT: %[[NW:[a-z0-9_]+]], %[[MWN:[a-z0-9_]+]], %[[VWN:[a-z0-9_]+]] = mpt.adam_update %[[W]], %[[DW]], %[[MW]], %[[VW]], %[[T1]] lr = 1.000000e-03 beta1 = 9.000000e-01 beta2 = 0.99899999999999999 eps = 9.9999999999999995E-7 weight_decay = 2.500000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<8x3xf32>, tensor<f32>
// ADAM-WD-NEXT: %[[NB:[a-z0-9_]+]], %[[MBN:[a-z0-9_]+]], %[[VBN:[a-z0-9_]+]] = mpt.adam_update %[[B]], %[[DB]], %[[MB]], %[[VB]], %[[T1]] lr = 1.000000e-03 beta1 = 9.000000e-01 beta2 = 0.99899999999999999 eps = 9.9999999999999995E-7 weight_decay = 2.500000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<3xf32>, tensor<f32>
// ADAM-WD-NEXT: return %{{.*}}, %[[NW]], %[[NB]], %[[MWN]], %[[MBN]], %[[VWN]], %[[VBN]], %[[T1]] :

// clip-norm: one mpt.clip_by_global_norm of all gradients (fp32) before the
// update; the backward pass starts from an mpt.backward_seed of the loss.
// CLIP-LABEL: func.func @train_step(
// CLIP: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// CLIP-NEXT: %[[SEED:.*]] = mpt.backward_seed %[[LOSS]] : tensor<f32>
// CLIP-NEXT: mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %[[SEED]]
// CLIP-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// CLIP-DAG: %[[DW:.*]] = mpt.matmul %{{.*}}, %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// CLIP: %[[C:.*]]:2 = mpt.clip_by_global_norm %[[DW]], %[[DB]] max_norm = 2.000000e+00 {mpt.precision = #mpt.precision<fp32>} : (tensor<8x3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>)
// CLIP-NEXT: mpt.sgd_update %{{.*}}, %[[C]]#0
// CLIP-NEXT: mpt.sgd_update %{{.*}}, %[[C]]#1

// NOCLIP-LABEL: func.func @train_step(
// NOCLIP-NOT: mpt.clip_by_global_norm
// NOCLIP: return

// name= names the function.
// NAME-NOT: @train_step
// NAME: func.func @step(
// NAME-NOT: @train_step

// return-gradients: the gradients the update uses (here, clipped) follow the
// optimizer state, with the gradient role.
// GRADS-LABEL: func.func @train_step(
// GRADS-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<8x3xf32> {mpt.role = #mpt.role<parameter>}, tensor<3xf32> {mpt.role = #mpt.role<parameter>}, tensor<8x3xf32> {mpt.role = #mpt.role<optimizer_state>}, tensor<3xf32> {mpt.role = #mpt.role<optimizer_state>}, tensor<8x3xf32> {mpt.role = #mpt.role<gradient>}, tensor<3xf32> {mpt.role = #mpt.role<gradient>})
// GRADS: %[[C:.*]]:2 = mpt.clip_by_global_norm
// GRADS: return {{.*}}, %[[C]]#0, %[[C]]#1 :
