// f32 matmuls run on Tensor Cores only when asked (tf32=1): their operands
// are rounded to tf32 (10-bit mantissa, cvt.rna) and accumulated in f32 by
// mma.sync m16n8k8, from sm_80 on. Without the option, or before sm_80, they
// stay exact f32 SIMT kernels, with a remark that says so.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_80 tf32=1" -o %t/sm_80.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %extract_kernels %t/sm_80.mlir %t/sm_80 > /dev/null && cat %t/sm_80/*.ptx | FileCheck %s --check-prefix=PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_80/*.ptx; do %ptxas -arch=sm_80 $ptx -o $ptx.cubin || exit 1; done %}
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_90a tf32=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOPPER
// RUN: mpt-opt %s --mpt-lower-to-nvvm="chip=sm_75 tf32=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TURING
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT

// REMARK: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k8 tf32 (operands rounded to tf32), block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline
// REMARK: remark: matmul 64x64x24 (batch 2) on Tensor Cores: mma.sync m16n8k8 tf32 (operands rounded to tf32), block 64x64x32, 4 warps of 32x32, 2-stage cp.async pipeline
// HOPPER: remark: matmul 128x256x64 on Tensor Cores: mma.sync m16n8k8 tf32 (operands rounded to tf32), {{.*}} (not wgmma: tf32 wgmma reads B only K-major, and B is N-major here)
// TURING: remark: matmul not on Tensor Cores (SIMT kernel): tf32 Tensor Core instructions need sm_80 or later
// EXACT: remark: matmul not on Tensor Cores (SIMT kernel): its operands are f32 (Tensor Cores take f16 and bf16; tf32=1 opts into rounding f32 operands to tf32)

// Tiles of 4 floats copied with cp.async; fragments loaded one element per
// thread, rounded, and multiplied.
// PTX-LABEL: .entry batched_kernel
// PTX: cp.async.cg.shared.global {{.*}}, 16;
// PTX: ld.shared.b32
// PTX: cvt.rna.tf32.f32
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-LABEL: .entry f32_kernel
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

func.func @f32(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %c = mpt.matmul %a, %b : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  return %c : tensor<128x256xf32>
}

func.func @batched(%a: tensor<2x64x24xf32>, %b: tensor<2x24x64xf32>) -> tensor<2x64x64xf32> {
  %c = mpt.batch_matmul %a, %b : (tensor<2x64x24xf32>, tensor<2x24x64xf32>) -> tensor<2x64x64xf32>
  return %c : tensor<2x64x64xf32>
}
