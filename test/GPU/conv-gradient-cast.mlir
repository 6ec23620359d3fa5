// A convolution gradient whose filter or input is cast right before it (a
// working copy that mpt-master-weights makes again for the backward pass),
// or whose output gradient an elementwise op makes for it alone (the batch
// norm's backward before a network's first convolution), still runs on
// Tensor Cores: mpt-fuse-elementwise fuses no producer into the gradients
// that mpt-conv-to-gemm rewrites, which would then stay SIMT loops. Into an
// f32 gradient without tf32 (a direct loop either way), the elementwise
// producer still fuses.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_80 format=isa" -o /dev/null 2>&1 | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(convert-mpt-to-linalg{gpu=1},canonicalize,cse,func.func(mpt-fuse-elementwise))" | FileCheck %s --check-prefix=FUSE
// RUN: mpt-opt %s --pass-pipeline="builtin.module(convert-mpt-to-linalg{gpu=1},canonicalize,cse,func.func(mpt-fuse-elementwise{tf32=1}))" | FileCheck %s --check-prefix=TF32
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_80 format=isa tf32=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TF32-TC

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

// The output gradient of an RGB input's convolution, made by one
// elementwise op for the filter gradient alone: dW (16 x 27, padded to 32)
// = dy (16 x 128) cols (128 x 32).
// CHECK: remark: matmul 16x32x128 on Tensor Cores: mma.sync m16n8k16
// FUSE-LABEL: func.func @filter_producer(
// FUSE: %[[G:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x16x8x8xf16>, tensor<2x16x8x8xf16>) outs(%{{.*}} : tensor<2x16x8x8xf16>)
// FUSE: linalg.generic {{.*}} ins(%{{.*}}, %[[G]] : tensor<2x3x10x10xf16>, tensor<2x16x8x8xf16>) {{.*}}mpt_filter_gradient
func.func @filter_producer(%x: tensor<2x3x8x8xf16>, %dy: tensor<2x16x8x8xf16>, %m: tensor<2x16x8x8xf16>) -> tensor<16x3x3x3xf16> {
  %g = mpt.mul %dy, %m : (tensor<2x16x8x8xf16>, tensor<2x16x8x8xf16>) -> tensor<2x16x8x8xf16>
  %r = mpt.conv2d_backward_filter %x, %g pad [1, 1, 1, 1] acc(f32) : (tensor<2x3x8x8xf16>, tensor<2x16x8x8xf16>) -> tensor<16x3x3x3xf16>
  return %r : tensor<16x3x3x3xf16>
}

// The same in f32: the product fuses into the gradient, which stays a loop,
// unless tf32 takes it to Tensor Cores (27 columns padded to 28, rows of 16
// bytes of f32).
// FUSE-LABEL: func.func @filter_producer_f32(
// FUSE-NOT: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16x8x8xf32>)
// FUSE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x10x10xf32>, tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>) outs(%{{.*}} : tensor<16x3x3x3xf32>)
// TF32-LABEL: func.func @filter_producer_f32(
// TF32: %[[G:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16x8x8xf32>)
// TF32: linalg.generic {{.*}} ins(%{{.*}}, %[[G]] : tensor<2x3x10x10xf32>, tensor<2x16x8x8xf32>) {{.*}}mpt_filter_gradient
// TF32-TC: remark: matmul 16x28x128 on Tensor Cores: mma.sync m16n8k8 tf32
func.func @filter_producer_f32(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x8x8xf32>, %m: tensor<2x16x8x8xf32>) -> tensor<16x3x3x3xf32> {
  %g = mpt.mul %dy, %m : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32>
  %r = mpt.conv2d_backward_filter %x, %g pad [1, 1, 1, 1] acc(f32) : (tensor<2x3x8x8xf32>, tensor<2x16x8x8xf32>) -> tensor<16x3x3x3xf32>
  return %r : tensor<16x3x3x3xf32>
}
