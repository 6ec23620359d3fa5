// RUN: mpt-opt %s --mpt-auto-mixed-precision | FileCheck %s
// RUN: mpt-opt %s --mpt-auto-mixed-precision | mpt-opt -o /dev/null

// transpose (clear) -> conv2d (allow) -> clamp (clear, ReLU6): all three run
// in f16 (the conv2d's result is f16, so the edge into the clamp carries a
// low-precision value and clear-propagation reaches it). tosa.clamp's
// min_val/max_val attributes must have its element type, so the pass
// converts them to f16 along with the clamp (tosa.clamp's verifier rejects
// f32 bounds on f16 data). The result is cast back to f32 at the return.
// CHECK-LABEL: func.func @clamp_after_conv2d(
// CHECK: %[[T:.*]] = tosa.transpose %{{.*}} {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x8x8xf16>) -> tensor<1x8x8x4xf16>
// CHECK: %[[C:.*]] = tosa.conv2d %[[T]], {{.*}} -> tensor<1x8x8x8xf16>
// CHECK-NEXT: %[[R:.*]] = tosa.clamp %[[C]] {max_val = 6.000000e+00 : f16, min_val = 0.000000e+00 : f16} : (tensor<1x8x8x8xf16>) -> tensor<1x8x8x8xf16>
// CHECK-NEXT: %[[RF:.*]] = mpt.cast %[[R]] : tensor<1x8x8x8xf16> to tensor<1x8x8x8xf32>
// CHECK-NEXT: return %[[RF]] : tensor<1x8x8x8xf32>
func.func @clamp_after_conv2d(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x4xf32>, %bias: tensor<8xf32>, %zp: tensor<1xf32>) -> tensor<1x8x8x8xf32> {
  %0 = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
  %1 = tosa.conv2d %0, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}
