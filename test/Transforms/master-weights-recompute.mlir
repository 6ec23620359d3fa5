// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" --mpt-auto-mixed-precision --mpt-master-weights=recompute-bytes=0 | FileCheck %s
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" --mpt-auto-mixed-precision --mpt-master-weights=recompute-bytes=1024 | FileCheck %s
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" --mpt-auto-mixed-precision --mpt-master-weights=recompute-bytes=1025 | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" --mpt-auto-mixed-precision --mpt-master-weights | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd lr=0.1" --mpt-auto-mixed-precision --mpt-master-weights=recompute-bytes=-1 | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %s --mpt-amp-pipeline="optimizer=sgd lr=0.1 recompute-bytes=0" | FileCheck %s --check-prefix=PIPE
// RUN: mpt-opt %s --mpt-amp-pipeline="optimizer=sgd lr=0.1 recompute-bytes=0 recompute=0" | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %s --mpt-amp-pipeline="optimizer=sgd lr=0.1 recompute-bytes=0" --mpt-master-weights=recompute-bytes=0 | FileCheck %s --check-prefix=PIPE
// RUN: mpt-opt %s --mpt-amp-pipeline="optimizer=sgd lr=0.1 recompute-bytes=0" --mpt-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Working copies of at least recompute-bytes bytes (here every f16 copy is
// 1024 bytes or more: x 16x32, w1 32x64, w2 64x8) are made right before
// their first reader, and made again from the fp32 argument right before
// the backward pass's first reader. w1's copy has no backward reader (the
// gradient of x is not needed); x's copy is read again by the gradient of
// w1, w2's by the gradient of h.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<32x64xf32> {mpt.role = #mpt.role<parameter>}, %[[W2:[a-z0-9]+]]: tensor<64x8xf32> {mpt.role = #mpt.role<parameter>}, %[[X:[a-z0-9]+]]: tensor<16x32xf32> {mpt.role = #mpt.role<input>}
// CHECK-NEXT: %[[W1H:.*]] = mpt.cast %[[W1]] : tensor<32x64xf32> to tensor<32x64xf16>
// CHECK-NEXT: %[[XH:.*]] = mpt.cast %[[X]] : tensor<16x32xf32> to tensor<16x32xf16>
// CHECK-NEXT: %[[H0:.*]] = mpt.matmul %[[XH]], %[[W1H]]
// CHECK-NEXT: %[[H:.*]] = mpt.relu %[[H0]]
// CHECK-NEXT: %[[W2H:.*]] = mpt.cast %[[W2]] : tensor<64x8xf32> to tensor<64x8xf16>
// CHECK-NEXT: mpt.matmul %[[H]], %[[W2H]]
// CHECK: mpt.backward_seed
// CHECK-NOT: %[[W2H]]{{[ ,)]}}
// CHECK: %[[W2R:.*]] = mpt.cast %[[W2]] {mpt.recomputed} : tensor<64x8xf32> to tensor<64x8xf16>
// CHECK-NEXT: mpt.matmul %{{.*}}, %[[W2R]] transpose_b
// CHECK-NOT: %[[XH]]{{[ ,)]}}
// CHECK: %[[XR:.*]] = mpt.cast %[[X]] {mpt.recomputed} : tensor<16x32xf32> to tensor<16x32xf16>
// CHECK-NEXT: mpt.matmul %[[XR]], %{{.*}} transpose_a
// CHECK-NOT: %[[W1H]]{{[ ,)]}}
// CHECK-NOT: %[[XH]]{{[ ,)]}}
// CHECK-NOT: %[[W2H]]{{[ ,)]}}
// CHECK: return

// Below the threshold, or with -1, the copies stay together at the start of
// the step (one kernel on the GPU) and the backward pass reads them there.
// KEEP-LABEL: func.func @train_step(
// KEEP-COUNT-3: mpt.cast %arg
// KEEP-NEXT: mpt.matmul
// KEEP-NOT: mpt.recomputed

// The pipeline passes recompute-bytes on (recompute=0 turns it off, above);
// the loss scaling that follows replaces the seed, so that running
// mpt-master-weights again changes nothing, nor merges the copies.
// PIPE-LABEL: func.func @train_step(
// PIPE-COUNT-2: mpt.recomputed
// PIPE-NOT: mpt.recomputed
// PIPE: return

// The memory report counts each copy once.
// REPORT: @train_step (2560 parameters)
// REPORT: low-precision copies                       5120
func.func @mlp(%x: tensor<16x32xf32> {mpt.role = #mpt.role<input>},
               %w1: tensor<32x64xf32> {mpt.role = #mpt.role<parameter>},
               %w2: tensor<64x8xf32> {mpt.role = #mpt.role<parameter>},
               %t: tensor<16x8xf32> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %h0 = mpt.matmul %x, %w1 : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
  %h = mpt.relu %h0 : tensor<16x64xf32>
  %y = mpt.matmul %h, %w2 : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
  %l = mpt.mse_loss %y, %t : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
