// RUN: mpt-opt %s --mpt-master-weights=recompute-bytes=0 | FileCheck %s
// RUN: mpt-opt %s --mpt-master-weights=recompute-bytes=-1 | FileCheck %s --check-prefix=KEEP

// A working copy that only a pad reads (mpt-pad-for-tensor-cores: the
// zero-padded f16 copy of a 7x7 weight) is made with its pad: both right
// before the forward pass's reader, and both again, marked mpt.recomputed,
// before the backward pass's, so the padded copy is not kept from one pass
// to the other. With recompute-bytes=-1 the chain is made once and kept.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<7x7xf32>
// CHECK: mpt.exp
// CHECK-NEXT: %[[WH:.*]] = mpt.cast %[[W]] : tensor<7x7xf32> to tensor<7x7xf16>
// CHECK-NEXT: %[[WP:.*]] = mpt.pad %[[WH]] low = [0, 0] high = [1, 1] : tensor<7x7xf16> -> tensor<8x8xf16>
// CHECK-NEXT: mpt.matmul %{{.*}}, %[[WP]] acc(f32)
// CHECK: mpt.backward_seed
// CHECK: %[[WH2:.*]] = mpt.cast %[[W]] {mpt.recomputed} : tensor<7x7xf32> to tensor<7x7xf16>
// CHECK-NEXT: %[[WP2:.*]] = mpt.pad %[[WH2]] low = [0, 0] high = [1, 1] {mpt.recomputed} : tensor<7x7xf16> -> tensor<8x8xf16>
// CHECK-NEXT: mpt.matmul %{{.*}}, %[[WP2]] transpose_b acc(f32)
// KEEP-LABEL: func.func @step(
// KEEP-NEXT: mpt.cast
// KEEP-NEXT: mpt.pad
// KEEP-NOT: mpt.recomputed
// KEEP: return
func.func @step(%w: tensor<7x7xf32> {mpt.role = #mpt.role<parameter>},
                %x: tensor<4x8xf16> {mpt.role = #mpt.role<input>},
                %t: tensor<4x8xf16> {mpt.role = #mpt.role<label>})
    -> (tensor<f16> {mpt.role = #mpt.role<loss>}, tensor<7x7xf32> {mpt.role = #mpt.role<parameter>}) {
  %wh = mpt.cast %w : tensor<7x7xf32> to tensor<7x7xf16>
  %wp = mpt.pad %wh low = [0, 0] high = [1, 1] : tensor<7x7xf16> -> tensor<8x8xf16>
  %e = mpt.exp %x : tensor<4x8xf16>
  %y = mpt.matmul %e, %wp acc(f32) : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
  %l = mpt.mse_loss %y, %t : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<f16>
  %s = mpt.backward_seed %l : tensor<f16>
  %d = mpt.sub %y, %t : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %gx = mpt.matmul %d, %wp transpose_b acc(f32) : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
  %gw = mpt.matmul %e, %gx transpose_a acc(f32) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<8x8xf16>
  %g32 = mpt.cast %gw : tensor<8x8xf16> to tensor<8x8xf32>
  %gs = mpt.slice %g32 offsets = [0, 0] sizes = [7, 7] : tensor<8x8xf32> -> tensor<7x7xf32>
  %new = mpt.sgd_update %w, %gs lr = 0.1 {mpt.precision = #mpt.precision<fp32>} : tensor<7x7xf32>
  return %l, %new : tensor<f16>, tensor<7x7xf32>
}
