// Matmuls the Tensor Cores cannot take run as SIMT kernels, with a remark
// that says why; so do every other op (one thread per iteration).
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 2>&1 | FileCheck %s
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_70 2>&1 | FileCheck %s --check-prefix=WMMA
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=256x256x64 stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a block-tile=128x128x32" 2>&1 | FileCheck %s --check-prefix=TILE90

// CHECK: remark: matmul not on Tensor Cores (SIMT kernel): N and K (10, 128) are not multiples of 8 (rows of 16 bytes for asynchronous copies; mpt-pad-for-tensor-cores pads them)
func.func @unpadded(%a: tensor<32x128xf16>, %b: tensor<128x10xf16>) -> tensor<32x10xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<32x128xf16>, tensor<128x10xf16>) -> tensor<32x10xf16>
  return %c : tensor<32x10xf16>
}

// CHECK: remark: matmul not on Tensor Cores (SIMT kernel): its operands are f32 (Tensor Cores take f16 and bf16; tf32=1 opts into rounding f32 operands to tf32)
func.func @fp32(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c = mpt.matmul %a, %b : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %c : tensor<32x32xf32>
}

// CHECK: remark: matmul not on Tensor Cores (SIMT kernel): it does not accumulate in f32 (mpt.matmul needs acc(f32))
func.func @f16_accumulator(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf16> {
  %c = mpt.matmul %a, %b : (tensor<32x32xf16>, tensor<32x32xf16>) -> tensor<32x32xf16>
  return %c : tensor<32x32xf16>
}

// WMMA: remark: matmul 32x32x32 on Tensor Cores
// WMMA: remark: matmul not on Tensor Cores (SIMT kernel): M x N x K = 32x24x32 is not a multiple of 16x16x16 (mpt-pad-for-tensor-cores pads it)
func.func @wmma_only(%a: tensor<32x32xf16>, %b: tensor<32x24xf16>, %d: tensor<32x32xf16>) -> tensor<32x24xf16> {
  %x = mpt.matmul %a, %d acc(f32) : (tensor<32x32xf16>, tensor<32x32xf16>) -> tensor<32x32xf16>
  %c = mpt.matmul %x, %b acc(f32) : (tensor<32x32xf16>, tensor<32x24xf16>) -> tensor<32x24xf16>
  return %c : tensor<32x24xf16>
}

// Shared memory is the limit: neither the wgmma kernel nor the mma.sync one
// fits four stages of 256 x 256 tiles.
// SMEM: remark: matmul not on Tensor Cores (SIMT kernel): the tiles with 4 stages need 282624 bytes of shared memory; sm_90a has at most 232448 per block; not wgmma: the tiles 256x256x64 with 4 stages need 271360 bytes of shared memory; at most 232448
// A block tile that wgmma cannot take (BK = 32) leaves the mma.sync kernel.
// TILE90: remark: matmul 256x256x256 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline, ldmatrix (not wgmma: block-tile=128x128x32 is not BMxBNx64 with BM and BN multiples of 64 up to 256 (one warpgroup per 64 rows, one wgmma per 16 of K)), fused rounding to f16
func.func @large(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
  return %c : tensor<256x256xf16>
}

// Every function becomes host code (LLVM) that allocates device memory and
// launches the kernels embedded in gpu.binary ops.
// CHECK-DAG: llvm.func @unpadded(
// CHECK-DAG: llvm.func @fp32(
// CHECK-DAG: gpu.binary @unpadded_kernel
// CHECK-DAG: gpu.launch_func
// CHECK-DAG: llvm.call @mgpuMemAlloc
