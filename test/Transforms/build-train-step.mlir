// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" | FileCheck %s --check-prefix=SGD
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1 weight-decay=0.01" | FileCheck %s --check-prefix=SGD-WD
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=momentum lr=0.1 momentum=0.8" | FileCheck %s --check-prefix=MOM
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=momentum lr=0.1 momentum=0.8 weight-decay=0.5" | FileCheck %s --check-prefix=MOM-WD
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=adam lr=0.001 beta1=0.8 beta2=0.99" | FileCheck %s --check-prefix=ADAM
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1 clip-norm=2.0" | FileCheck %s --check-prefix=CLIP
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" | FileCheck %s --check-prefix=NOCLIP
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd name=step" | FileCheck %s --check-prefix=NAME
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
// parameters (arguments) and after the new parameters (results);
// v' = momentum * v + g, p' = p - lr * v'.
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
// MOM: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// MOM-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// MOM-DAG: %[[DW:.*]] = mpt.matmul %[[X]], %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// MOM: %[[MU:.*]] = mpt.constant {{.*}}dense<8.000000e-01> : tensor<f32>
// MOM-NEXT: %[[VWS:.*]] = mpt.mul %[[VW]], %[[MU]]
// MOM-NEXT: %[[VWN:.*]] = mpt.add %[[VWS]], %[[DW]]
// MOM-NEXT: %[[LR:.*]] = mpt.constant {{.*}}dense<1.000000e-01> : tensor<f32>
// MOM-NEXT: %[[STEP:.*]] = mpt.mul %[[VWN]], %[[LR]]
// MOM-NEXT: %[[NW:.*]] = mpt.sub %[[W]], %[[STEP]]
// MOM: %[[VBS:.*]] = mpt.mul %[[VB]], %{{.*}}
// MOM-NEXT: %[[VBN:.*]] = mpt.add %[[VBS]], %[[DB]]
// MOM: %[[NB:.*]] = mpt.sub %[[B]], %{{.*}}
// MOM-NEXT: return %[[LOSS]], %[[NW]], %[[NB]], %[[VWN]], %[[VBN]] : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>
// MOM-NOT: sgd_update

// Weight decay with momentum: g' = g + wd * p before the velocity update.
// MOM-WD-LABEL: func.func @train_step(
// MOM-WD-SAME: %[[W:[a-z0-9]+]]: tensor<8x3xf32> {mpt.role = #mpt.role<parameter>},
// MOM-WD: %[[WD:.*]] = mpt.constant {{.*}}dense<5.000000e-01> : tensor<f32>
// MOM-WD-NEXT: %[[DECAY:.*]] = mpt.mul %[[W]], %[[WD]]
// MOM-WD-NEXT: %[[G:.*]] = mpt.add %{{.*}}, %[[DECAY]]
// MOM-WD: mpt.add %{{.*}}, %[[G]]

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
// ADAM: %[[LOSS:.*]] = mpt.softmax_cross_entropy
// ADAM-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// ADAM-DAG: %[[DW:.*]] = mpt.matmul %[[X]], %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// The step count goes up by one.
// ADAM: %[[ONE:.*]] = mpt.constant {{.*}}dense<1.000000e+00> : tensor<f32>
// ADAM-NEXT: %[[T1:.*]] = mpt.add %[[T]], %[[ONE]]
// m' = beta1 m + (1 - beta1) g
// ADAM: %[[B1:.*]] = mpt.constant {{.*}}dense<8.000000e-01> : tensor<f32>
// ADAM-NEXT: %[[MWS:.*]] = mpt.mul %[[MW]], %[[B1]]
// ADAM-NEXT: %[[OMB1:.*]] = mpt.constant {{.*}}dense<2.000000e-01> : tensor<f32>
// ADAM-NEXT: %[[GS:.*]] = mpt.mul %[[DW]], %[[OMB1]]
// ADAM-NEXT: %[[MWN:.*]] = mpt.add %[[MWS]], %[[GS]]
// v' = beta2 v + (1 - beta2) g^2
// ADAM-NEXT: %[[B2:.*]] = mpt.constant {{.*}}dense<9.900000e-01> : tensor<f32>
// ADAM-NEXT: %[[VWS:.*]] = mpt.mul %[[VW]], %[[B2]]
// ADAM-NEXT: %[[G2:.*]] = mpt.mul %[[DW]], %[[DW]]
// ADAM: %[[VWN:.*]] = mpt.add %[[VWS]],
// Bias correction: 1 - beta^t with mpt.pow.
// ADAM: %[[P1:.*]] = mpt.pow %{{.*}}, %[[T1]] {{.*}}: (tensor<f32>, tensor<f32>) -> tensor<f32>
// ADAM: %[[C1:.*]] = mpt.sub %{{.*}}, %[[P1]]
// ADAM: %[[P2:.*]] = mpt.pow %{{.*}}, %[[T1]]
// ADAM: %[[C2:.*]] = mpt.sub %{{.*}}, %[[P2]]
// ADAM: %[[MHAT:.*]] = mpt.div %[[MWN]], %[[C1]]
// ADAM: %[[VHAT:.*]] = mpt.div %[[VWN]], %[[C2]]
// ADAM: %[[SQ:.*]] = mpt.sqrt %[[VHAT]]
// ADAM: %[[DEN:.*]] = mpt.add %[[SQ]], %{{.*}}
// ADAM: mpt.div %[[MHAT]], %[[DEN]]
// ADAM: %[[NW:.*]] = mpt.sub %[[W]],
// ADAM: %[[MBN:.*]] = mpt.add
// ADAM: %[[VBN:.*]] = mpt.add
// ADAM: %[[NB:.*]] = mpt.sub %[[B]],
// ADAM-NEXT: return %[[LOSS]], %[[NW]], %[[NB]], %[[MWN]], %[[MBN]], %[[VWN]], %[[VBN]], %[[T1]] :
// ADAM-NOT: sgd_update

// clip-norm: the global norm is sqrt of the sum of the reduce_sums of the
// squared gradients; every gradient is scaled by min(1, clip / (norm + 1e-6))
// before the update.
// CLIP-LABEL: func.func @train_step(
// CLIP-DAG: %[[DB:.*]] = mpt.reduce_sum %{{.*}} axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// CLIP-DAG: %[[DW:.*]] = mpt.matmul %{{.*}}, %{{.*}} transpose_a : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// CLIP: %[[SQW:.*]] = mpt.mul %[[DW]], %[[DW]]
// CLIP-NEXT: %[[SW:.*]] = mpt.reduce_sum %[[SQW]] axes = [0, 1] {{.*}}: tensor<8x3xf32> -> tensor<f32>
// CLIP-NEXT: %[[SQB:.*]] = mpt.mul %[[DB]], %[[DB]]
// CLIP-NEXT: %[[SB:.*]] = mpt.reduce_sum %[[SQB]] axes = [0] {{.*}}: tensor<3xf32> -> tensor<f32>
// CLIP-NEXT: %[[SUM:.*]] = mpt.add %[[SW]], %[[SB]]
// CLIP-NEXT: %[[NORM:.*]] = mpt.sqrt %[[SUM]] {{.*}}: tensor<f32>
// CLIP-NEXT: %[[CLIP:.*]] = mpt.constant {{.*}}dense<2.000000e+00> : tensor<f32>
// CLIP-NEXT: %[[EPS:.*]] = mpt.constant {{.*}}dense<9.99999997E-7> : tensor<f32>
// CLIP-NEXT: %[[DEN:.*]] = mpt.add %[[NORM]], %[[EPS]]
// CLIP-NEXT: %[[RATIO:.*]] = mpt.div %[[CLIP]], %[[DEN]]
// CLIP-NEXT: %[[ONE:.*]] = mpt.constant {{.*}}dense<1.000000e+00> : tensor<f32>
// CLIP-NEXT: %[[F:.*]] = mpt.min %[[ONE]], %[[RATIO]]
// CLIP-NEXT: %[[CW:.*]] = mpt.mul %[[DW]], %[[F]]
// CLIP-NEXT: %[[CB:.*]] = mpt.mul %[[DB]], %[[F]]
// CLIP: mpt.sgd_update %{{.*}}, %[[CW]]
// CLIP: mpt.sgd_update %{{.*}}, %[[CB]]

// NOCLIP-LABEL: func.func @train_step(
// NOCLIP-NOT: mpt.sqrt
// NOCLIP-NOT: mpt.min
// NOCLIP: return

// name= names the function.
// NAME-NOT: @train_step
// NAME: func.func @step(
// NAME-NOT: @train_step
