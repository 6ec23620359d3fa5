// A convolution gradient whose filter or input is cast right before it (a
// working copy that mpt-master-weights makes again for the backward pass)
// still runs on Tensor Cores: mpt-fuse-elementwise does not fuse the cast
// into the gradients that mpt-conv-to-gemm rewrites, which would then read
// f32 and stay SIMT loops.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_80 format=isa" -o /dev/null 2>&1 | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(convert-mpt-to-linalg{gpu=1},canonicalize,cse,func.func(mpt-fuse-elementwise))" | FileCheck %s --check-prefix=FUSE

// The data gradient: cols (144 x 128) = W^T (144 x 32) dy (32 x 128).
// CHECK: remark: matmul 144x128x32 on Tensor Cores: mma.sync m16n8k16
// FUSE-LABEL: func.func @data(
// FUSE: %[[W:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<32x16x3x3xf32>) outs(%{{.*}} : tensor<32x16x3x3xf16>)
// FUSE: linalg.generic {{.*}} ins(%[[W]], %{{.*}} : tensor<32x16x3x3xf16>, {{.*}}) {{.*}}mpt_data_gradient
func.func @data(%dy: tensor<2x32x8x8xf16>, %w: tensor<32x16x3x3xf32>) -> tensor<2x16x8x8xf16> {
  %w16 = mpt.cast %w : tensor<32x16x3x3xf32> to tensor<32x16x3x3xf16>
  %r = mpt.conv2d_backward_data %dy, %w16 pad [1, 1, 1, 1] acc(f32) : (tensor<2x32x8x8xf16>, tensor<32x16x3x3xf16>) -> tensor<2x16x8x8xf16>
  return %r : tensor<2x16x8x8xf16>
}

// The filter gradient: dW (32 x 144) = dy (32 x 128) cols (128 x 144).
// CHECK: remark: matmul 32x144x128 on Tensor Cores: mma.sync m16n8k16
// FUSE-LABEL: func.func @filter(
// FUSE: %[[X:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x16x8x8xf32>) outs(%{{.*}} : tensor<2x16x8x8xf16>)
// FUSE: mpt_filter_gradient
func.func @filter(%x: tensor<2x16x8x8xf32>, %dy: tensor<2x32x8x8xf16>) -> tensor<32x16x3x3xf16> {
  %x16 = mpt.cast %x : tensor<2x16x8x8xf32> to tensor<2x16x8x8xf16>
  %r = mpt.conv2d_backward_filter %x16, %dy pad [1, 1, 1, 1] acc(f32) : (tensor<2x16x8x8xf16>, tensor<2x32x8x8xf16>) -> tensor<32x16x3x3xf16>
  return %r : tensor<32x16x3x3xf16>
}
