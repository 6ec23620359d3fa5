// A generic that sums the columns of a matmul's B over K into f32 (the
// bias gradient beside a weight gradient dW = X^T dY) is computed in the
// mma.sync and wgmma kernels, and in the tiled SIMT kernel (f32 operands,
// or rows of B that are not 16 bytes): the generic and the zero fill of its
// output go. It stays where the kernel is WMMA, with column-sums=0, or when
// an op between the two writes B or reads the sums.
// mpt-split-reductions{keep-column-sums} leaves such a reduction whole
// where the matmul takes a Tensor Core kernel, keep-simt-column-sums where
// it takes the tiled SIMT kernel.
// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/fuse.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: mpt-opt %t/fuse.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_90a}))" 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: mpt-opt %t/fuse.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_75}))" 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %t/fuse.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80 column-sums=0}))" 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %t/keep.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" 2>&1 | FileCheck %s --check-prefix=BETWEEN
// RUN: mpt-opt %t/split.mlir --mpt-split-reductions="full=0 keep-column-sums=1" | FileCheck %s --check-prefix=WHOLE
// RUN: mpt-opt %t/split.mlir --mpt-split-reductions="full=0" | FileCheck %s --check-prefix=SPLIT
// RUN: mpt-opt %t/split.mlir --mpt-split-reductions="full=0 keep-column-sums=1 keep-simt-column-sums=1" | FileCheck %s --check-prefix=SIMT-WHOLE
// RUN: mpt-opt %t/split.mlir --mpt-split-reductions="full=0 keep-column-sums=1 keep-simt-column-sums=1 tf32=1" | FileCheck %s --check-prefix=TF32
// RUN: mpt-opt %t/simt.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" 2>&1 | FileCheck %s --check-prefix=SIMT
// RUN: mpt-opt %t/simt.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_70}))" 2>&1 | FileCheck %s --check-prefix=SIMT
// RUN: mpt-opt %t/simt.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80 column-sums=0}))" 2>&1 | FileCheck %s --check-prefix=SIMT-OFF
// RUN: mpt-opt %t/simt.mlir --mpt-lower-to-nvvm=chip=sm_80 -o %t/simt_80.mlir 2> /dev/null
// RUN: %extract_kernels %t/simt_80.mlir %t/simt_80 > /dev/null
// RUN: %if cuda-toolkit %{ for ptx in %t/simt_80/*.ptx; do %ptxas -arch=sm_80 $ptx -o $ptx.cubin || exit 1; done %}
// RUN: mpt-opt %t/fuse.mlir --mpt-lower-to-nvvm=chip=sm_80 -o %t/sm_80.mlir 2> /dev/null
// RUN: mpt-opt %t/fuse.mlir --mpt-lower-to-nvvm=chip=sm_90a -o %t/sm_90a.mlir 2> /dev/null
// RUN: %extract_kernels %t/sm_80.mlir %t/sm_80 > /dev/null && cat %t/sm_80/*.ptx | FileCheck %s --check-prefix=PTX
// RUN: %extract_kernels %t/sm_90a.mlir %t/sm_90a > /dev/null && cat %t/sm_90a/*.ptx | FileCheck %s --check-prefix=PTX
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_80/*.ptx; do %ptxas -arch=sm_80 $ptx -o $ptx.cubin || exit 1; done %}
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_90a/*.ptx; do %ptxas -arch=sm_90a $ptx -o $ptx.cubin || exit 1; done %}

//--- fuse.mlir
#kn = affine_map<(d0, d1) -> (d1, d0)>
#n = affine_map<(d0, d1) -> (d0)>

// MMA: remark: matmul 256x128x512 on Tensor Cores: mma.sync m16n8k16, {{.*}}, products stored into C (its zero fill dropped), B's column sums (a bias gradient) added up in the kernel
// MMA-LABEL: func.func @grads(
// MMA-NOT: linalg.
// MMA: gpu.launch
// MMA: nvgpu.mma.sync
// MMA: gpu.shuffle xor
// MMA: vector.store {{.*}} %arg3{{.*}} : memref<128xf32>, vector<8xf32>
// MMA-NOT: linalg.
// MMA: return
// WGMMA: remark: matmul 256x128x512 on Tensor Cores: wgmma {{.*}}, B's column sums (a bias gradient) added up in the kernel
// WGMMA-LABEL: func.func @grads(
// WGMMA-NOT: linalg.
// WGMMA: nvgpu.warpgroup.mma
// WGMMA: gpu.shuffle xor
// WGMMA-NOT: linalg.
// WGMMA: return
// KEEP-NOT: column sums
// KEEP-LABEL: func.func @grads(
// KEEP: linalg.fill {{.*}} outs(%arg3 : memref<128xf32>)
// KEEP: linalg.generic
// KEEP-SAME: ins(%arg1 : memref<512x128xf16>) outs(%arg3 : memref<128xf32>)
// KEEP: gpu.launch
// PTX: shfl.sync.bfly.b32
func.func @grads(%x: memref<256x512xf16>, %dy: memref<512x128xf16>, %dw: memref<256x128xf32> {bufferize.result}, %db: memref<128xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%db : memref<128xf32>)
  linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : memref<512x128xf16>) outs(%db : memref<128xf32>) {
  ^bb0(%v: f16, %s: f32):
    %e = arith.extf %v : f16 to f32
    %t = arith.addf %e, %s : f32
    linalg.yield %t : f32
  }
  linalg.fill ins(%zero : f32) outs(%dw : memref<256x128xf32>)
  linalg.matmul ins(%x, %dy : memref<256x512xf16>, memref<512x128xf16>) outs(%dw : memref<256x128xf32>)
  return
}

//--- keep.mlir
#kn = affine_map<(d0, d1) -> (d1, d0)>
#n = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// An op between the sums and the matmul writes B: the sums stay.
// BETWEEN-NOT: column sums
// BETWEEN-LABEL: func.func @b_written(
// BETWEEN: linalg.generic
// BETWEEN-SAME: outs(%arg3 : memref<128xf32>)
// BETWEEN: gpu.launch
func.func @b_written(%x: memref<256x512xf16>, %dy: memref<512x128xf16>, %dw: memref<256x128xf32> {bufferize.result}, %db: memref<128xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f16
  linalg.fill ins(%zero : f32) outs(%db : memref<128xf32>)
  linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : memref<512x128xf16>) outs(%db : memref<128xf32>) {
  ^bb0(%v: f16, %s: f32):
    %e = arith.extf %v : f16 to f32
    %t = arith.addf %e, %s : f32
    linalg.yield %t : f32
  }
  linalg.fill ins(%one : f16) outs(%dy : memref<512x128xf16>)
  linalg.fill ins(%zero : f32) outs(%dw : memref<256x128xf32>)
  linalg.matmul ins(%x, %dy : memref<256x512xf16>, memref<512x128xf16>) outs(%dw : memref<256x128xf32>)
  return
}

// An op between the matmul and the sums after it reads the sums' buffer.
// BETWEEN-LABEL: func.func @sums_read(
// BETWEEN: gpu.launch
// BETWEEN: memref.copy %arg3
// BETWEEN: linalg.generic
// BETWEEN-SAME: outs(%arg3 : memref<128xf32>)
func.func @sums_read(%x: memref<256x512xf16>, %dy: memref<512x128xf16>, %dw: memref<256x128xf32> {bufferize.result}, %db: memref<128xf32> {bufferize.result}, %old: memref<128xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%dw : memref<256x128xf32>)
  linalg.matmul ins(%x, %dy : memref<256x512xf16>, memref<512x128xf16>) outs(%dw : memref<256x128xf32>)
  memref.copy %db, %old : memref<128xf32> to memref<128xf32>
  linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : memref<512x128xf16>) outs(%db : memref<128xf32>) {
  ^bb0(%v: f16, %s: f32):
    %e = arith.extf %v : f16 to f32
    %t = arith.addf %e, %s : f32
    linalg.yield %t : f32
  }
  return
}

//--- split.mlir
#kn = affine_map<(d0, d1) -> (d1, d0)>
#n = affine_map<(d0, d1) -> (d0)>

// WHOLE-LABEL: func.func @grads(
// WHOLE-COUNT-1: linalg.generic
// WHOLE: linalg.matmul
// SPLIT-LABEL: func.func @grads(
// SPLIT-COUNT-2: linalg.generic
// SPLIT: linalg.matmul
func.func @grads(%x: tensor<256x512xf16>, %dy: tensor<512x128xf16>) -> (tensor<256x128xf32>, tensor<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<128xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %db = linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : tensor<512x128xf16>) outs(%z0 : tensor<128xf32>) {
  ^bb0(%v: f16, %s: f32):
    %e = arith.extf %v : f16 to f32
    %t = arith.addf %e, %s : f32
    linalg.yield %t : f32
  } -> tensor<128xf32>
  %e1 = tensor.empty() : tensor<256x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %dw = linalg.matmul ins(%x, %dy : tensor<256x512xf16>, tensor<512x128xf16>) outs(%z1 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %dw, %db : tensor<256x128xf32>, tensor<128xf32>
}

// M = 250 is no multiple of 8: the Tensor Core kernels' partial tiles take
// it all the same (rows past M are zeros), and the sums. (Until 2026-12-07
// such sums were split, as if the matmul became a SIMT kernel.)
// WHOLE-LABEL: func.func @odd_m(
// WHOLE-COUNT-1: linalg.generic
// WHOLE: linalg.matmul
func.func @odd_m(%x: tensor<250x512xf16>, %dy: tensor<512x128xf16>) -> (tensor<250x128xf32>, tensor<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<128xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %db = linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : tensor<512x128xf16>) outs(%z0 : tensor<128xf32>) {
  ^bb0(%v: f16, %s: f32):
    %e = arith.extf %v : f16 to f32
    %t = arith.addf %e, %s : f32
    linalg.yield %t : f32
  } -> tensor<128xf32>
  %e1 = tensor.empty() : tensor<250x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<250x128xf32>) -> tensor<250x128xf32>
  %dw = linalg.matmul ins(%x, %dy : tensor<250x512xf16>, tensor<512x128xf16>) outs(%z1 : tensor<250x128xf32>) -> tensor<250x128xf32>
  return %dw, %db : tensor<250x128xf32>, tensor<128xf32>
}

// N = 10: the rows of B are 20 bytes, which no asynchronous copy takes, so
// the matmul is a SIMT kernel on every chip: keep-column-sums alone splits
// the sums, keep-simt-column-sums leaves them whole. So do f32 operands.
// WHOLE-LABEL: func.func @narrow(
// WHOLE-COUNT-2: linalg.generic
// WHOLE: linalg.matmul
// SIMT-WHOLE-LABEL: func.func @narrow(
// SIMT-WHOLE-COUNT-1: linalg.generic
// SIMT-WHOLE: linalg.matmul
func.func @narrow(%x: tensor<256x512xf16>, %dy: tensor<512x10xf16>) -> (tensor<256x10xf32>, tensor<10xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<10xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<10xf32>) -> tensor<10xf32>
  %db = linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : tensor<512x10xf16>) outs(%z0 : tensor<10xf32>) {
  ^bb0(%v: f16, %s: f32):
    %e = arith.extf %v : f16 to f32
    %t = arith.addf %e, %s : f32
    linalg.yield %t : f32
  } -> tensor<10xf32>
  %e1 = tensor.empty() : tensor<256x10xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x10xf32>) -> tensor<256x10xf32>
  %dw = linalg.matmul ins(%x, %dy : tensor<256x512xf16>, tensor<512x10xf16>) outs(%z1 : tensor<256x10xf32>) -> tensor<256x10xf32>
  return %dw, %db : tensor<256x10xf32>, tensor<10xf32>
}

// With tf32, an f32 matmul whose N and K are multiples of 4 is tf32
// mma.sync, which adds up the sums where N is a multiple of 8 (128), not
// where it is not (12: they are split).
// TF32-LABEL: func.func @exact(
// TF32-COUNT-1: linalg.generic
// TF32: linalg.matmul
// TF32-LABEL: func.func @exact12(
// TF32-COUNT-2: linalg.generic
// TF32: linalg.matmul
// WHOLE-LABEL: func.func @exact(
// WHOLE-COUNT-2: linalg.generic
// WHOLE: linalg.matmul
// SIMT-WHOLE-LABEL: func.func @exact(
// SIMT-WHOLE-COUNT-1: linalg.generic
// SIMT-WHOLE: linalg.matmul
func.func @exact(%x: tensor<256x512xf32>, %dy: tensor<512x128xf32>) -> (tensor<256x128xf32>, tensor<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<128xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %db = linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : tensor<512x128xf32>) outs(%z0 : tensor<128xf32>) {
  ^bb0(%v: f32, %s: f32):
    %t = arith.addf %v, %s : f32
    linalg.yield %t : f32
  } -> tensor<128xf32>
  %e1 = tensor.empty() : tensor<256x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %dw = linalg.matmul ins(%x, %dy : tensor<256x512xf32>, tensor<512x128xf32>) outs(%z1 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %dw, %db : tensor<256x128xf32>, tensor<128xf32>
}

func.func @exact12(%x: tensor<256x512xf32>, %dy: tensor<512x12xf32>) -> (tensor<256x12xf32>, tensor<12xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<12xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<12xf32>) -> tensor<12xf32>
  %db = linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : tensor<512x12xf32>) outs(%z0 : tensor<12xf32>) {
  ^bb0(%v: f32, %s: f32):
    %t = arith.addf %v, %s : f32
    linalg.yield %t : f32
  } -> tensor<12xf32>
  %e1 = tensor.empty() : tensor<256x12xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x12xf32>) -> tensor<256x12xf32>
  %dw = linalg.matmul ins(%x, %dy : tensor<256x512xf32>, tensor<512x12xf32>) outs(%z1 : tensor<256x12xf32>) -> tensor<256x12xf32>
  return %dw, %db : tensor<256x12xf32>, tensor<12xf32>
}

//--- simt.mlir
#kn = affine_map<(d0, d1) -> (d1, d0)>
#n = affine_map<(d0, d1) -> (d0)>

// The tiled SIMT kernel: thread t of the first row of blocks adds up column
// t of each step's slice of B, and stores it where it is a column of B.
// SIMT: remark: matmul not on Tensor Cores (SIMT kernel): its operands are f32 {{.*}}, products stored into C (its zero fill dropped), B's column sums (a bias gradient) added up in the kernel
// SIMT-LABEL: func.func @exact(
// SIMT-NOT: linalg.
// SIMT: gpu.launch
// SIMT: memref.store {{.*}}, %arg3[{{.*}}] : memref<100xf32>
// SIMT-NOT: linalg.
// SIMT: return
// SIMT-OFF-NOT: column sums
// SIMT-OFF-LABEL: func.func @exact(
// SIMT-OFF: linalg.generic
// SIMT-OFF-SAME: ins(%arg1 : memref<512x100xf32>) outs(%arg3 : memref<100xf32>)
func.func @exact(%x: memref<256x512xf32>, %dy: memref<512x100xf32>, %dw: memref<256x100xf32> {bufferize.result}, %db: memref<100xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%db : memref<100xf32>)
  linalg.generic {indexing_maps = [#kn, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dy : memref<512x100xf32>) outs(%db : memref<100xf32>) {
  ^bb0(%v: f32, %s: f32):
    %t = arith.addf %v, %s : f32
    linalg.yield %t : f32
  }
  linalg.fill ins(%zero : f32) outs(%dw : memref<256x100xf32>)
  linalg.matmul ins(%x, %dy : memref<256x512xf32>, memref<512x100xf32>) outs(%dw : memref<256x100xf32>)
  return
}
