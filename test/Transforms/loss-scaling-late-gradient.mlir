// RUN: mpt-opt %s --mpt-amp-pipeline="type=f16 optimizer=sgd lr=0.01" 2>/dev/null | FileCheck %s

// A gradient made between the updates: W1's gradient is padded for Tensor
// Cores (24x100 -> 24x104), and the widening cast of its f16 value and the
// slice back to 24x100 sit right before its update (mpt-auto-mixed-precision
// makes a cast right before its first user), after W0's update.
// mpt-loss-scaling unscales after that last gradient and moves W0's update,
// which nothing before reads, after the unscale. (Until 2026-12-07 the pass
// failed: "this op uses a gradient before the last gradient is computed".)
// CHECK-LABEL: func.func @train_step(
// CHECK-NOT: mpt.sgd_update
// CHECK: mpt.slice %{{.*}} offsets = [0, 0] sizes = [24, 100] : tensor<24x104xf32> -> tensor<24x100xf32>
// CHECK-NOT: mpt.sgd_update
// CHECK: %[[U:.*]]:2, %[[F:.*]] = mpt.unscale_and_check
// CHECK-NEXT: mpt.sgd_update %{{.*}}, %[[U]]#0 {{.*}} : tensor<24x24xf32>
// CHECK-NEXT: mpt.sgd_update %{{.*}}, %[[U]]#1 {{.*}} : tensor<24x100xf32>
func.func @model(%x: tensor<8x24xf32> {mpt.role = #mpt.role<input>},
                 %w0: tensor<24x24xf32> {mpt.role = #mpt.role<parameter>},
                 %w1: tensor<24x100xf32> {mpt.role = #mpt.role<parameter>},
                 %t: tensor<8x100xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h = mpt.matmul %x, %w0 : (tensor<8x24xf32>, tensor<24x24xf32>) -> tensor<8x24xf32>
  %z = mpt.matmul %h, %w1 : (tensor<8x24xf32>, tensor<24x100xf32>) -> tensor<8x100xf32>
  %loss = mpt.mse_loss %z, %t : (tensor<8x100xf32>, tensor<8x100xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
