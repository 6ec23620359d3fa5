// mpt-amp-pipeline passes the optimizer's options to mpt-build-train-step:
// Adam's betas, epsilon and weight decay, the momentum, the forward
// function (when several have a loss) and the step's name.
// RUN: mpt-opt %s --mpt-amp-pipeline="type=bf16 optimizer=adam beta1=0.8 beta2=0.95 eps=1e-6 weight-decay=0.01 function=second name=step" | FileCheck %s --check-prefix=ADAM
// RUN: mpt-opt %s --mpt-amp-pipeline="type=bf16 optimizer=momentum momentum=0.5 function=first" | FileCheck %s --check-prefix=MOM

// ADAM-NOT: func.func @train_step
// ADAM-LABEL: func.func @step(
// ADAM-SAME: tensor<8x4xf32> {mpt.role = #mpt.role<parameter>}
// ADAM: mpt.adam_update {{.*}} beta1 = 8.000000e-01 beta2 = 0.94999999999999996 eps = 9.9999999999999995E-7 weight_decay = 1.000000e-02
// MOM-LABEL: func.func @train_step(
// MOM-SAME: tensor<16x4xf32> {mpt.role = #mpt.role<parameter>}
// MOM: mpt.momentum_update {{.*}} momentum = 5.000000e-01

func.func @first(%x: tensor<2x16xf32> {mpt.role = #mpt.role<input>},
                 %w: tensor<16x4xf32> {mpt.role = #mpt.role<parameter>},
                 %t: tensor<2x4xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %y = mpt.matmul %x, %w : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32>
  %l = mpt.mse_loss %y, %t : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @second(%x: tensor<2x8xf32> {mpt.role = #mpt.role<input>},
                  %w: tensor<8x4xf32> {mpt.role = #mpt.role<parameter>},
                  %t: tensor<2x4xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %y = mpt.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %l = mpt.mse_loss %y, %t : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
