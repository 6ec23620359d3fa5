// PTX for every target of mpt-lower-to-nvvm (format=isa needs no CUDA
// toolkit): low-precision matmuls run on Tensor Cores with f32 accumulation.
// The kernels are extracted from the gpu.binary ops and checked as PTX.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_70 -o %t/sm_70.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-WMMA
// RUN: %extract_kernels %t/sm_70.mlir %t/sm_70 > /dev/null && cat %t/sm_70/*.ptx | FileCheck %s --check-prefix=WMMA
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_75 -o %t/sm_75.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-WMMA
// RUN: %extract_kernels %t/sm_75.mlir %t/sm_75 > /dev/null && cat %t/sm_75/*.ptx | FileCheck %s --check-prefix=WMMA75
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 -o %t/sm_80.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-MMA
// RUN: %extract_kernels %t/sm_80.mlir %t/sm_80 > /dev/null && cat %t/sm_80/*.ptx | FileCheck %s --check-prefixes=MMA,MMA80
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_86 -o %t/sm_86.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-MMA
// RUN: %extract_kernels %t/sm_86.mlir %t/sm_86 > /dev/null && cat %t/sm_86/*.ptx | FileCheck %s --check-prefix=MMA
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_89 -o %t/sm_89.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-MMA
// RUN: %extract_kernels %t/sm_89.mlir %t/sm_89 > /dev/null && cat %t/sm_89/*.ptx | FileCheck %s --check-prefix=MMA
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_90 -o %t/sm_90.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-MMA
// RUN: %extract_kernels %t/sm_90.mlir %t/sm_90 > /dev/null && cat %t/sm_90/*.ptx | FileCheck %s --check-prefixes=MMA,SM90 --implicit-check-not=wgmma
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_90a -o %t/sm_90a.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-WGMMA
// RUN: %extract_kernels %t/sm_90a.mlir %t/sm_90a > /dev/null && cat %t/sm_90a/*.ptx | FileCheck %s --check-prefix=WGMMA
// RUN: FileCheck %s --check-prefix=TMA-HOST < %t/sm_90a.mlir
// Tile and pipeline overrides.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_80 block-tile=64x64x16 warp-tile=32x32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_80 stages=3" -o %t/stages.mlir 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: %extract_kernels %t/stages.mlir %t/stages > /dev/null && cat %t/stages/*.ptx | FileCheck %s --check-prefix=STAGES-PTX
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x256x64 stages=1" -o %t/wg-tiles.mlir 2>&1 | FileCheck %s --check-prefix=WG-TILES
// RUN: %extract_kernels %t/wg-tiles.mlir %t/wg-tiles > /dev/null && cat %t/wg-tiles/*.ptx | FileCheck %s --check-prefix=WG-TILES-PTX

// REMARK-WMMA: remark: matmul 128x256x64 on Tensor Cores: WMMA m16n16k16, block 128x128x32, 4 warps of 64x64, fused rounding to f16
// REMARK-WMMA: remark: matmul not on Tensor Cores (SIMT kernel): bf16 Tensor Core instructions need sm_80 or later
// REMARK-WMMA: remark: matmul 64x64x32 (batch 4) on Tensor Cores: WMMA m16n16k16, block 64x64x32, 4 warps of 32x32, fused rounding to f16
// The rounding of the f32 accumulators to the result type is fused into the
// kernel (one kernel per matmul, no f32 temporary).
// REMARK-MMA: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline, ldmatrix, fused rounding to f16
// REMARK-MMA: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline, ldmatrix, fused rounding to bf16
// REMARK-MMA: remark: matmul 64x64x32 (batch 4) on Tensor Cores: mma.sync m16n8k16, block 64x64x32, 4 warps of 32x32, 2-stage cp.async pipeline, ldmatrix, fused rounding to f16
// TILES: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k16, block 64x64x16, 4 warps of 32x32, 2-stage cp.async pipeline, ldmatrix
// STAGES: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 3-stage cp.async pipeline, ldmatrix, fused rounding to f16
// STAGES-PTX: cp.async.wait_group {{[[:space:]]*}}2;

// sm_90a: warpgroup MMA on TMA tiles where M, N and K are multiples of 64;
// tiles shrink to fill the grid on these small shapes. A batch_matmul
// with K = 32 (each batch a TMA coordinate of its own: 3-d copies, K
// zero-filled past 32) too.
// REMARK-WGMMA: remark: matmul 128x256x64 on Tensor Cores: wgmma m64n64k16 from TMA tiles (128-byte swizzle), block 64x64x64, 1 warpgroup of 64x64, 1-stage mbarrier pipeline, 19456 bytes of shared memory, fused rounding to f16
// REMARK-WGMMA: remark: matmul 128x256x64 on Tensor Cores: wgmma m64n64k16 from TMA tiles (128-byte swizzle), block 64x64x64, 1 warpgroup of 64x64, 1-stage mbarrier pipeline, 19456 bytes of shared memory, fused rounding to bf16
// REMARK-WGMMA: remark: matmul 64x64x32 (batch 4) on Tensor Cores: wgmma m64n64k16 from TMA tiles (128-byte swizzle), block 64x64x64, 1 warpgroup of 64x64, 1-stage mbarrier pipeline, 19456 bytes of shared memory, fused rounding to f16
// WG-TILES: remark: matmul 128x256x64 on Tensor Cores: wgmma m64n256k16 from TMA tiles (128-byte swizzle), block 128x256x64, 2 warpgroups of 64x256, 1-stage mbarrier pipeline, 136192 bytes of shared memory, fused rounding to f16
// The batch_matmul with the same block tile, larger than its matrices:
// zero-filled boxes and guarded stores.
// WG-TILES: remark: matmul 64x64x32 (batch 4) on Tensor Cores: wgmma m64n256k16 from TMA tiles (128-byte swizzle), block 128x256x64, 2 warpgroups of 64x256, 1-stage mbarrier pipeline, 136192 bytes of shared memory, fused rounding to f16
// WG-TILES-PTX-DAG: .maxntid 256, 1, 1
// WG-TILES-PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// WG-TILES-PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16

// WMMA-DAG: .target sm_70
// WMMA-DAG: wmma.load.a.sync{{.*}}.row.m16n16k16.f16
// WMMA-DAG: wmma.load.b.sync{{.*}}.row.m16n16k16.f16
// WMMA-DAG: wmma.mma.sync{{.*}}.row.row.m16n16k16.f32.f32
// The fused epilogue stages the accumulators in shared memory.
// WMMA-DAG: wmma.store.d.sync.row.m16n16k16.shared.f32
// WMMA75-DAG: .target sm_75
// WMMA75-DAG: wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32

// MMA80-DAG: .target sm_80
// MMA-DAG: cp.async.cg.shared.global
// MMA-DAG: cp.async.commit_group
// MMA-DAG: cp.async.wait_group {{[[:space:]]*}}1;
// MMA-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// MMA-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MMA-DAG: cvt.rn.f16x2.f32
// MMA-DAG: cvt.rn.bf16x2.f32
// MMA-DAG: st.global.b32
// SM90-DAG: .target sm_90

// The descriptors are made on the host (cuTensorMapEncodeTiled) and passed
// to the kernel.
// TMA-HOST: %[[MAPA:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// TMA-HOST: %[[MAPB:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// TMA-HOST: gpu.launch_func {{.*}} @f16_kernel::@f16_kernel {{.*}} dynamic_shared_memory_size {{.*}} args(%[[MAPA]] : !llvm.ptr, %[[MAPB]] : !llvm.ptr

// Barriers initialized once, thread 0 arms a stage with its byte count and
// issues the 2-D TMA copies; every thread waits on the stage's phase; four
// m64n64k16 products per 64 of K; the products of a tile stay in flight
// while the next tile is waited for; the accumulators go through shared
// memory and are stored rounded to 16 bits.
// WGMMA-LABEL: .entry batched_kernel
// WGMMA: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// WGMMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WGMMA-LABEL: .entry bf16_kernel
// WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// WGMMA: cvt.rn.bf16x2.f32
// WGMMA-LABEL: .entry f16_kernel
// WGMMA: mbarrier.init.shared.b64
// WGMMA: fence.mbarrier_init.release.cluster
// WGMMA: prefetch.tensormap
// WGMMA: mov.b32 [[BYTES:%r[0-9]+]], 16384;
// WGMMA: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[BYTES]];
// WGMMA: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// WGMMA: mbarrier.try_wait.parity.shared.b64
// WGMMA: wgmma.fence.sync.aligned
// WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// WGMMA: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// WGMMA: ld.shared.v4
// WGMMA: cvt.rn.f16x2.f32

func.func @f16(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>) -> tensor<128x256xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<128x64xf16>, tensor<64x256xf16>) -> tensor<128x256xf16>
  return %c : tensor<128x256xf16>
}

func.func @bf16(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) -> tensor<128x256xbf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<128x64xbf16>, tensor<64x256xbf16>) -> tensor<128x256xbf16>
  return %c : tensor<128x256xbf16>
}

func.func @batched(%a: tensor<4x64x32xf16>, %b: tensor<4x32x64xf16>) -> tensor<4x64x64xf16> {
  %c = mpt.batch_matmul %a, %b acc(f32) : (tensor<4x64x32xf16>, tensor<4x32x64xf16>) -> tensor<4x64x64xf16>
  return %c : tensor<4x64x64xf16>
}
