// Shapes the tiles do not divide still run on Tensor Cores when N and K are
// multiples of 8 (16-byte rows): mma.sync copies fewer bytes at the edges
// (cp.async's source size; the rest of the 16 bytes is zero-filled) and
// guards its loads and stores of C; wgmma relies on TMA's zero fill and
// guards its stores. K tiles past K add zeros.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 -o %t/sm_80.mlir 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: %extract_kernels %t/sm_80.mlir %t/sm_80 > /dev/null && cat %t/sm_80/*.ptx | FileCheck %s --check-prefix=MMA-PTX
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_90a -o %t/sm_90a.mlir 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: %extract_kernels %t/sm_90a.mlir %t/sm_90a > /dev/null && cat %t/sm_90a/*.ptx | FileCheck %s --check-prefix=WGMMA-PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_80/*.ptx; do %ptxas -arch=sm_80 $ptx -o $ptx.cubin || exit 1; done %}
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_90a/*.ptx; do %ptxas -arch=sm_90a $ptx -o $ptx.cubin || exit 1; done %}

// MMA: remark: matmul 1000x1000x1000 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline, ldmatrix
// MMA: remark: matmul 100x24x40 (batch 3) on Tensor Cores: mma.sync m16n8k16, block 128x32x32, 4 warps of 64x16, 2-stage cp.async pipeline, ldmatrix, fused rounding to f16
// MMA: remark: matmul not on Tensor Cores (SIMT kernel): N and K (12, 40) are not multiples of 8
// WGMMA: remark: matmul 1000x1000x1000 on Tensor Cores: wgmma m64n64k16 from TMA tiles (128-byte swizzle), block 64x64x64
// A batch: each batch a coordinate of 3-d tensor maps, so K tiles past K
// read zeros, not the next batch.
// WGMMA: remark: matmul 100x24x40 (batch 3) on Tensor Cores: wgmma m64n64k16 from TMA tiles (128-byte swizzle), block 64x64x64, {{.*}}, fused rounding to f16

// MMA-PTX-LABEL: .entry batched_kernel
// MMA-PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// MMA-PTX-LABEL: .entry square_kernel
// MMA-PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// MMA-PTX: setp.{{.*}}, {{999|1000}};
// MMA-PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// WGMMA-PTX-LABEL: .entry square_kernel
// WGMMA-PTX: cp.async.bulk.tensor.2d
// WGMMA-PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WGMMA-PTX: setp.gt.{{.*}}, 999;

func.func @square(%a: memref<1000x1000xf16>, %b: memref<1000x1000xf16>, %c: memref<1000x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1000x1000xf16>, memref<1000x1000xf16>) outs(%c : memref<1000x1000xf32>)
  return
}

func.func @batched(%a: tensor<3x100x40xf16>, %b: tensor<3x40x24xf16>) -> tensor<3x100x24xf16> {
  %c = mpt.batch_matmul %a, %b acc(f32) : (tensor<3x100x40xf16>, tensor<3x40x24xf16>) -> tensor<3x100x24xf16>
  return %c : tensor<3x100x24xf16>
}

func.func @unaligned(%a: tensor<100x40xf16>, %b: tensor<40x12xf16>) -> tensor<100x12xf16> {
  %c = mpt.matmul %a, %b acc(f32) : (tensor<100x40xf16>, tensor<40x12xf16>) -> tensor<100x12xf16>
  return %c : tensor<100x12xf16>
}
