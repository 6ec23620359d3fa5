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
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_90a -o %t/sm_90a.mlir 2>&1 | FileCheck %s --check-prefix=REMARK-MMA
// RUN: %extract_kernels %t/sm_90a.mlir %t/sm_90a > /dev/null && cat %t/sm_90a/*.ptx | FileCheck %s --check-prefixes=MMA,SM90
// Tile overrides.
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_80 block-tile=64x64x16 warp-tile=32x32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILES

// REMARK-WMMA: remark: matmul 128x256x64 on Tensor Cores: WMMA m16n16k16, block 128x128x32, 4 warps of 64x64
// REMARK-WMMA: remark: matmul not on Tensor Cores (SIMT kernel): bf16 Tensor Core instructions need sm_80 or later
// REMARK-WMMA: remark: matmul 64x64x32 (batch 4) on Tensor Cores: WMMA m16n16k16, block 64x64x32, 4 warps of 32x32
// The rounding of the f32 accumulators to the result type is fused into the
// kernel (one kernel per matmul, no f32 temporary).
// REMARK-MMA: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, cp.async double buffering, ldmatrix, fused rounding to f16
// REMARK-MMA: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, cp.async double buffering, ldmatrix, fused rounding to bf16
// REMARK-MMA: remark: matmul 64x64x32 (batch 4) on Tensor Cores: mma.sync m16n8k16, block 64x64x32, 4 warps of 32x32, cp.async double buffering, ldmatrix, fused rounding to f16
// TILES: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k16, block 64x64x16, 4 warps of 32x32, cp.async double buffering, ldmatrix

// WMMA-DAG: .target sm_70
// WMMA-DAG: wmma.load.a.sync{{.*}}.row.m16n16k16.f16
// WMMA-DAG: wmma.load.b.sync{{.*}}.row.m16n16k16.f16
// WMMA-DAG: wmma.mma.sync{{.*}}.row.row.m16n16k16.f32.f32
// WMMA-DAG: wmma.store.d.sync{{.*}}.row.m16n16k16.f32
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
// SM90-DAG: .target sm_90a

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
