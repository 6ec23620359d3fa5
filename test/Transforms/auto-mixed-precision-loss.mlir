// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -split-input-file | mpt-opt --mpt-auto-mixed-precision -split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-build-train-step="optimizer=sgd" -canonicalize -split-input-file | mpt-opt --mpt-auto-mixed-precision=type=f16 --mpt-master-weights --mpt-loss-scaling=mode=adaptive -canonicalize -split-input-file | FileCheck %s --check-prefix=ADAPTIVE

// The softmax cross-entropy widens the f16 logits of the matmul itself (deny,
// but no cast: no f32 copy of the logits) and returns an f32 loss; its
// gradient reads the same f16 logits and the f32 backward seed and writes an
// f16 gradient for the weight gradient's matmul (infer, between the two
// matmuls: the seed's operand stays f32 in low precision, so the deny seed
// does not hold it in fp32).
// CHECK-LABEL: func.func @train_step(
// CHECK: %[[LOGITS:.*]] = mpt.matmul {{.*}} -> tensor<32x16xf16>
// CHECK-NEXT: %[[LOSS:.*]] = mpt.softmax_cross_entropy %[[LOGITS]], %{{.*}} : (tensor<32x16xf16>, tensor<32xi64>) -> tensor<f32>
// CHECK-NEXT: %[[SEED:.*]] = mpt.backward_seed %[[LOSS]] : tensor<f32>
// CHECK-NEXT: %[[DL:.*]] = mpt.softmax_cross_entropy_grad %[[LOGITS]], %{{.*}}, %[[SEED]] : (tensor<32x16xf16>, tensor<32xi64>, tensor<f32>) -> tensor<32x16xf16>
// CHECK-NEXT: mpt.matmul %{{.*}}, %[[DL]] transpose_a acc(f32)

// Adaptive loss scaling scales the loss gradient before rounding it: the
// gradient returns f32, which the layer factor multiplies, and only the
// product is rounded to f16 for the matmul.
// ADAPTIVE-LABEL: func.func @train_step(
// ADAPTIVE: %[[LOGITS:.*]] = mpt.matmul {{.*}} -> tensor<32x16xf16>
// ADAPTIVE: %[[DL:.*]] = mpt.softmax_cross_entropy_grad %[[LOGITS]], %{{.*}}, %{{.*}} : (tensor<32x16xf16>, tensor<32xi64>, tensor<f32>) -> tensor<32x16xf32>
// ADAPTIVE-NEXT: %[[A:.*]] = mpt.layer_scale %[[DL]], {{.*}} : tensor<32x16xf32>, tensor<32x64xf16>
// ADAPTIVE-NEXT: %[[S:.*]] = mpt.mul %[[DL]], %[[A]] : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
// ADAPTIVE-NEXT: %[[SH:.*]] = mpt.cast %[[S]] : tensor<32x16xf32> to tensor<32x16xf16>
// ADAPTIVE-NEXT: mpt.matmul %{{.*}}, %[[SH]] transpose_a acc(f32)
func.func @classifier(%x: tensor<32x64xf32> {mpt.role = #mpt.role<input>},
                      %w: tensor<64x16xf32> {mpt.role = #mpt.role<parameter>},
                      %l: tensor<32xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %logits = mpt.matmul %x, %w : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %loss = mpt.softmax_cross_entropy %logits, %l : (tensor<32x16xf32>, tensor<32xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A bias add forced to fp32 makes f32 logits: the loss and its gradient read
// them, and the gradient is rounded to f16 for the matmul.
// CHECK-LABEL: func.func @train_step(
// CHECK: %[[M:.*]] = mpt.matmul {{.*}} -> tensor<32x16xf16>
// CHECK-NEXT: %[[MF:.*]] = mpt.cast %[[M]] : tensor<32x16xf16> to tensor<32x16xf32>
// CHECK-NEXT: %[[LOGITS:.*]] = mpt.add %[[MF]], %{{.*}} {mpt.precision = #mpt.precision<fp32>} : (tensor<32x16xf32>, tensor<16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT: mpt.softmax_cross_entropy %[[LOGITS]], %{{.*}} : (tensor<32x16xf32>, tensor<32xi64>) -> tensor<f32>
// CHECK: %[[DL:.*]] = mpt.softmax_cross_entropy_grad %[[LOGITS]], %{{.*}}, %{{.*}} : (tensor<32x16xf32>, tensor<32xi64>, tensor<f32>) -> tensor<32x16xf32>
// CHECK: mpt.cast %[[DL]] : tensor<32x16xf32> to tensor<32x16xf16>
func.func @forced_bias(%x: tensor<32x64xf32> {mpt.role = #mpt.role<input>},
                       %w: tensor<64x16xf32> {mpt.role = #mpt.role<parameter>},
                       %b: tensor<16xf32> {mpt.role = #mpt.role<parameter>},
                       %l: tensor<32xi64> {mpt.role = #mpt.role<label>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>}) {
  %m = mpt.matmul %x, %w : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %a = mpt.add %m, %b {mpt.precision = #mpt.precision<fp32>} : (tensor<32x16xf32>, tensor<16xf32>) -> tensor<32x16xf32>
  %loss = mpt.softmax_cross_entropy %a, %l : (tensor<32x16xf32>, tensor<32xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
