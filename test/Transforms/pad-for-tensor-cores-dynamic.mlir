// RUN: mpt-opt %s --mpt-pad-for-tensor-cores | FileCheck %s

// A convolution with a dynamic batch is left alone.
// CHECK-LABEL: func.func @dynamic_conv(
// CHECK-NEXT: mpt.conv2d %{{.*}}, %{{.*}} : (tensor<?x64x32x32xf16>, tensor<60x64x3x3xf16>) -> tensor<?x60x30x30xf16>
// CHECK-NEXT: return
func.func @dynamic_conv(%x: tensor<?x64x32x32xf16>, %w: tensor<60x64x3x3xf16>) -> tensor<?x60x30x30xf16> {
  %0 = mpt.conv2d %x, %w : (tensor<?x64x32x32xf16>, tensor<60x64x3x3xf16>) -> tensor<?x60x30x30xf16>
  return %0 : tensor<?x60x30x30xf16>
}

