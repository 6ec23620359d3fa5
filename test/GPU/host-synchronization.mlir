// The host code of a lowered function runs on one stream, with no host
// synchronization between its kernels: gpu-async-region ends the stream
// (mgpuStreamSynchronize) before any host op with effects, and the TMA
// descriptors of the wgmma kernels are such ops. mpt-gpu-host-memory puts
// them after the allocations, at the start: one synchronization there,
// while only the allocations are in flight, rather than one before each
// wgmma kernel; and the one at the end.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s
// CHECK-LABEL: llvm.func @two_matmuls(
// CHECK: llvm.call @mgpuStreamCreate
// CHECK: llvm.call @mgpuMemAlloc
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK-NOT: gpu.launch_func
// CHECK-COUNT-4: llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK: llvm.call @mgpuStreamCreate
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK-COUNT-6: gpu.launch_func
// CHECK-NOT: llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.return
func.func @two_matmuls(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %d: tensor<128x128xf16>) -> tensor<128x128xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
  %s = mpt.reduce_sum %c axes = [0] : tensor<128x128xf16> -> tensor<128xf16>
  %e = mpt.add %c, %s : (tensor<128x128xf16>, tensor<128xf16>) -> tensor<128x128xf16>
  %f = mpt.matmul %e, %d acc(f32) : (tensor<128x128xf16>, tensor<128x128xf16>) -> tensor<128x128xf16>
  return %f : tensor<128x128xf16>
}
