// mpt-linalg-to-tensor-cores: a matmul operand that a linalg.transpose (of
// the last two dimensions) wrote is read from the transpose's input. On
// sm_90a (wgmma): A^T as M-major tiles (64 x 64 boxes, wgmma layout col, PTX
// imm-trans-a 1) and B^T as K-major tiles (one BN x 64 box, layout col,
// imm-trans-b 0, where B as it is, N-major, has 1). On sm_80 to sm_90a
// (mma.sync): K x M and N x K tiles, A's fragments loaded with ldmatrix.trans
// and B's without. The transpose goes when nothing after it reads its
// result. It stays when its result is read elsewhere (the matmul still reads
// the input), and is not folded when something between it and the matmul
// writes its input, when the fused epilogue writes its input, and by WMMA
// (before sm_80; bf16 there takes the tiled SIMT kernel, which folds as
// mma.sync does, for f32 operands too). wgmma folds the swap of the last two
// dimensions, and any permutation (or chain of transposes, through
// reshapes) whose view has the input's contiguous dimension last among its
// columns: its tile is TMA boxes of the input, 1 along the other (batch)
// dimensions, of a sequence's rows where the rows span several dimensions
// and of a head's columns for heads of 8, 16 or 32; mma.sync any permutation
// that keeps the input's contiguous dimension the last of the operand's
// rows or columns, reading the input through a strided view
// (emulate-head-split.test runs attention's head split and merge).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-linalg-to-tensor-cores=chip=sm_90a 2> %t/remarks.txt | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks.txt
// RUN: mpt-opt %s --mpt-linalg-to-tensor-cores="chip=sm_90a block-tile=64x256x64" 2> /dev/null | FileCheck %s --check-prefix=WIDE
// RUN: mpt-opt %s --mpt-linalg-to-tensor-cores=chip=sm_80 2>&1 > /dev/null | FileCheck %s --check-prefix=SM80
// RUN: mpt-opt %s --mpt-linalg-to-tensor-cores=chip=sm_80 2> /dev/null | FileCheck %s --check-prefix=SM80-IR
// RUN: mpt-opt %s --mpt-linalg-to-tensor-cores=chip=sm_75 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: mpt-opt %S/Inputs/transposed_matmuls.mlir --mpt-lower-to-nvvm="chip=sm_90a format=isa" -o %t/isa.mlir 2> /dev/null
// RUN: %extract_kernels %t/isa.mlir %t/ptx > /dev/null && cat %t/ptx/dw_kernel.ptx | FileCheck %s --check-prefix=PTX-A
// RUN: cat %t/ptx/dx_kernel.ptx | FileCheck %s --check-prefix=PTX-B

// dW = X^T dY: A is the transpose of dY (256 x 192 -> 192 x 256).
// CHECK-LABEL: func.func @dw(
// CHECK-SAME: %[[X:[^:]*]]: memref<256x128xf16>, %[[DY:[^:]*]]: memref<256x192xf16>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.alloc
// CHECK: %[[CA:.*]] = memref.cast %[[DY]] : memref<256x192xf16> to memref<*xf16>
// CHECK: nvgpu.tma.create.descriptor %[[CA]] box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<64x64xf16
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
// CHECK-NOT: linalg.transpose
// CHECK: return
// REMARK: remark: matmul 192x128x256 on Tensor Cores: wgmma {{.*}}, A read from the transpose's input (M-major tiles)
// SM80-IR-LABEL: func.func @dw(
// SM80-IR-NOT: linalg.transpose
// SM80-IR: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// SM80-IR: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// SM80-IR-LABEL: func.func @dx(
// SM80-IR-NOT: linalg.transpose
// SM80-IR: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// SM80-IR: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = false}
// SM80: remark: matmul 192x128x256 on Tensor Cores: mma.sync {{.*}}, A read from the transpose's input (K x M tiles, ldmatrix.trans)
// SM75: remark: matmul 192x128x256 on Tensor Cores: WMMA
// SM75-NOT: transpose's input
// SM75: remark: matmul not on Tensor Cores (SIMT kernel): bf16 Tensor Core instructions need sm_80 or later; tiled SIMT kernel: {{.*}}, B read from the transpose's input (N x K){{$}}
// SM75-NOT: transpose's input
// PTX-A: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1, 1;
func.func @dw(%x: memref<256x128xf16>, %dy: memref<256x192xf16>,
              %dw: memref<192x128xf32> {llvm.noalias}) {
  %zero = arith.constant 0.0 : f32
  %dyt = memref.alloc() : memref<192x256xf16>
  linalg.transpose ins(%dy : memref<256x192xf16>) outs(%dyt : memref<192x256xf16>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%dw : memref<192x128xf32>)
  linalg.matmul ins(%dyt, %x : memref<192x256xf16>, memref<256x128xf16>) outs(%dw : memref<192x128xf32>)
  memref.dealloc %dyt : memref<192x256xf16>
  return
}

// Y = X W^T with W 256 x 128 (N x K): B is one BN x 64 box per stage (with
// BN = 256 too).
// CHECK-LABEL: func.func @dx(
// CHECK-SAME: %[[X:[^:]*]]: memref<128x128xbf16>, %[[W:[^:]*]]: memref<256x128xbf16>
// CHECK-NOT: linalg.transpose
// CHECK: %[[CB:.*]] = memref.cast %[[W]] : memref<256x128xbf16> to memref<*xbf16>
// CHECK: nvgpu.tma.create.descriptor %[[CB]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WIDE-LABEL: func.func @dx(
// WIDE: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<256x64xbf16
// WIDE: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, {{.*}} B[<bf16>, <one>, <col>]
// REMARK: remark: matmul 128x256x128 on Tensor Cores: wgmma {{.*}}, B read from the transpose's input (K-major tiles)
// PTX-B: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
func.func @dx(%x: memref<128x128xbf16>, %w: memref<256x128xbf16>,
              %y: memref<128x256xf32> {llvm.noalias}) {
  %wt = memref.alloc() : memref<128x256xbf16>
  linalg.transpose ins(%w : memref<256x128xbf16>) outs(%wt : memref<128x256xbf16>) permutation = [1, 0]
  linalg.matmul ins(%x, %wt : memref<128x128xbf16>, memref<128x256xbf16>) outs(%y : memref<128x256xf32>)
  memref.dealloc %wt : memref<128x256xbf16>
  return
}

// A batch: permutation [0, 2, 1]; each batch is a coordinate of the maps
// (boxes of 1 x 64 x 64).
// CHECK-LABEL: func.func @batch(
// CHECK-NOT: linalg.transpose
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: linalg.transpose
// CHECK: return
// REMARK: remark: matmul 64x64x128 (batch 2) on Tensor Cores: wgmma {{.*}}, A read from the transpose's input (M-major tiles), B read from the transpose's input (K-major tiles)
func.func @batch(%a: memref<2x128x64xf16>, %b: memref<2x64x128xf16>,
                 %c: memref<2x64x64xf32> {llvm.noalias}) {
  %at = memref.alloc() : memref<2x64x128xf16>
  linalg.transpose ins(%a : memref<2x128x64xf16>) outs(%at : memref<2x64x128xf16>) permutation = [0, 2, 1]
  %bt = memref.alloc() : memref<2x128x64xf16>
  linalg.transpose ins(%b : memref<2x64x128xf16>) outs(%bt : memref<2x128x64xf16>) permutation = [0, 2, 1]
  linalg.batch_matmul ins(%at, %bt : memref<2x64x128xf16>, memref<2x128x64xf16>) outs(%c : memref<2x64x64xf32>)
  memref.dealloc %at : memref<2x64x128xf16>
  memref.dealloc %bt : memref<2x128x64xf16>
  return
}

// One buffer that two transposes write in turn (bufferization's reuse):
// it goes once neither matmul reads it.
// CHECK-LABEL: func.func @reused(
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @reused(%x: memref<64x64xf16>, %y: memref<64x64xf16>,
                  %c: memref<64x64xf32> {llvm.noalias},
                  %d: memref<64x64xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<64x64xf16>
  linalg.transpose ins(%x : memref<64x64xf16>) outs(%t : memref<64x64xf16>) permutation = [1, 0]
  linalg.matmul ins(%t, %y : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  linalg.transpose ins(%y : memref<64x64xf16>) outs(%t : memref<64x64xf16>) permutation = [1, 0]
  linalg.matmul ins(%x, %t : memref<64x64xf16>, memref<64x64xf16>) outs(%d : memref<64x64xf32>)
  memref.dealloc %t : memref<64x64xf16>
  return
}

// The transposed buffer is also copied out: the transpose stays, the
// matmul reads its input all the same.
// CHECK-LABEL: func.func @read_elsewhere(
// CHECK: %[[T:.*]] = memref.alloc() : memref<64x64xf16>
// CHECK: linalg.transpose
// CHECK: memref.copy %[[T]]
// REMARK: remark: matmul 64x64x64 on Tensor Cores: wgmma {{.*}}, A read from the transpose's input (M-major tiles)
func.func @read_elsewhere(%x: memref<64x64xf16>, %y: memref<64x64xf16>,
                          %c: memref<64x64xf32> {llvm.noalias},
                          %out: memref<64x64xf16> {llvm.noalias}) {
  %t = memref.alloc() : memref<64x64xf16>
  linalg.transpose ins(%x : memref<64x64xf16>) outs(%t : memref<64x64xf16>) permutation = [1, 0]
  linalg.matmul ins(%t, %y : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  memref.copy %t, %out : memref<64x64xf16> to memref<64x64xf16>
  memref.dealloc %t : memref<64x64xf16>
  return
}

// The transpose's input is written between the two ops: no folding.
// CHECK-LABEL: func.func @input_written(
// CHECK: linalg.transpose
// REMARK: remark: matmul 64x64x64 on Tensor Cores: wgmma {{.*}} bytes of shared memory{{$}}
func.func @input_written(%x: memref<64x64xf16>, %y: memref<64x64xf16>,
                         %c: memref<64x64xf32> {llvm.noalias}) {
  %one = arith.constant 1.0 : f16
  %t = memref.alloc() : memref<64x64xf16>
  linalg.transpose ins(%x : memref<64x64xf16>) outs(%t : memref<64x64xf16>) permutation = [1, 0]
  linalg.fill ins(%one : f16) outs(%x : memref<64x64xf16>)
  linalg.matmul ins(%t, %y : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  memref.dealloc %t : memref<64x64xf16>
  return
}

// The batch dimension moves: wgmma reads boxes of 64 x 1 x 64 of the input
// (rows, batch, columns); mma.sync reads the input through a strided view
// (batch stride 64, row stride 128).
// CHECK-LABEL: func.func @batch_moves(
// CHECK-NOT: linalg.transpose
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<64x1x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: linalg.transpose
// CHECK: return
// SM80-IR-LABEL: func.func @batch_moves(
// SM80-IR-SAME: %[[A:[^:]*]]: memref<64x2x64xf16>
// SM80-IR-NOT: linalg.transpose
// SM80-IR: nvgpu.device_async_copy %[[A]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], 8
// SM80-IR: return
// SM80: remark: matmul 64x64x64 (batch 2) on Tensor Cores: mma.sync {{.*}}, A read from the transpose's input (strided view){{$}}
// REMARK: remark: matmul 64x64x64 (batch 2) on Tensor Cores: wgmma {{.*}} bytes of shared memory, A read from the transpose's input (strided view){{$}}
func.func @batch_moves(%a: memref<64x2x64xf16>, %b: memref<2x64x64xf16>,
                       %c: memref<2x64x64xf32> {llvm.noalias}) {
  %at = memref.alloc() : memref<2x64x64xf16>
  linalg.transpose ins(%a : memref<64x2x64xf16>) outs(%at : memref<2x64x64xf16>) permutation = [1, 0, 2]
  linalg.batch_matmul ins(%at, %b : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%c : memref<2x64x64xf32>)
  memref.dealloc %at : memref<2x64x64xf16>
  return
}

// The fused epilogue writes the transpose's input, which other blocks would
// still be reading: no folding (the epilogue still fuses).
// CHECK-LABEL: func.func @epilogue_into_input(
// CHECK: linalg.transpose
// REMARK: remark: matmul 64x64x64 on Tensor Cores: wgmma {{.*}} bytes of shared memory, fused rounding to f16{{$}}
#id = affine_map<(i, j) -> (i, j)>
func.func @epilogue_into_input(%x: memref<64x64xf16>, %y: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x64xf16>
  linalg.transpose ins(%x : memref<64x64xf16>) outs(%t : memref<64x64xf16>) permutation = [1, 0]
  %acc = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  linalg.matmul ins(%t, %y : memref<64x64xf16>, memref<64x64xf16>) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<64x64xf32>) outs(%x : memref<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  }
  memref.dealloc %t : memref<64x64xf16>
  memref.dealloc %acc : memref<64x64xf32>
  return
}

// A batch_matmul with two batch dimensions: the transpose writes a view of
// the operand that splits its batch (permutation [0, 1, 3, 2]); the matmul
// reads the input with its batch dimensions collapsed.
// CHECK-LABEL: func.func @heads(
// CHECK-SAME: %[[Q:[^:]*]]: memref<2x2x64x64xf16>, %[[K:[^:]*]]: memref<2x2x64x64xf16>
// CHECK-NOT: linalg.transpose
// CHECK: %[[KC:.*]] = memref.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : memref<2x2x64x64xf16> into memref<4x64x64xf16>
// CHECK-NOT: linalg.transpose
// CHECK: return
// REMARK: remark: matmul 64x64x64 (batch 4) on Tensor Cores: wgmma {{.*}}, B read from the transpose's input (K-major tiles)
func.func @heads(%q: memref<2x2x64x64xf16>, %k: memref<2x2x64x64xf16>,
                 %s: memref<4x64x64xf32> {llvm.noalias}) {
  %kt = memref.alloc() : memref<4x64x64xf16>
  %view = memref.expand_shape %kt [[0, 1], [2], [3]] output_shape [2, 2, 64, 64] : memref<4x64x64xf16> into memref<2x2x64x64xf16>
  linalg.transpose ins(%k : memref<2x2x64x64xf16>) outs(%view : memref<2x2x64x64xf16>) permutation = [0, 1, 3, 2]
  %qc = memref.collapse_shape %q [[0, 1], [2], [3]] : memref<2x2x64x64xf16> into memref<4x64x64xf16>
  linalg.batch_matmul ins(%qc, %kt : memref<4x64x64xf16>, memref<4x64x64xf16>) outs(%s : memref<4x64x64xf32>)
  memref.dealloc %kt : memref<4x64x64xf16>
  return
}

// The view splits the batch but the permutation moves a batch dimension:
// wgmma reads K-major boxes of 1 x 1 x 64 x 64 of the input, mma.sync N x K
// tiles of a strided view.
// CHECK-LABEL: func.func @heads_moved(
// CHECK-NOT: linalg.transpose
// CHECK: nvgpu.tma.create.descriptor %{{.*}} : memref<*xf16> -> <tensor = memref<1x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: linalg.transpose
// CHECK: return
// SM80: remark: matmul 64x64x64 (batch 4) on Tensor Cores: mma.sync {{.*}}, B read from the transpose's input (strided view, N x K tiles, ldmatrix){{$}}
// REMARK: remark: matmul 64x64x64 (batch 4) on Tensor Cores: wgmma {{.*}} bytes of shared memory, B read from the transpose's input (strided view, K-major tiles){{$}}
func.func @heads_moved(%q: memref<2x2x64x64xf16>, %k: memref<2x2x64x64xf16>,
                       %s: memref<4x64x64xf32> {llvm.noalias}) {
  %kt = memref.alloc() : memref<4x64x64xf16>
  %view = memref.expand_shape %kt [[0, 1], [2], [3]] output_shape [2, 2, 64, 64] : memref<4x64x64xf16> into memref<2x2x64x64xf16>
  linalg.transpose ins(%k : memref<2x2x64x64xf16>) outs(%view : memref<2x2x64x64xf16>) permutation = [1, 0, 3, 2]
  %qc = memref.collapse_shape %q [[0, 1], [2], [3]] : memref<2x2x64x64xf16> into memref<4x64x64xf16>
  linalg.batch_matmul ins(%qc, %kt : memref<4x64x64xf16>, memref<4x64x64xf16>) outs(%s : memref<4x64x64xf32>)
  memref.dealloc %kt : memref<4x64x64xf16>
  return
}

// The other form: the transpose writes a 4-d buffer and the operand is a
// view of it that collapses the batch.
// CHECK-LABEL: func.func @heads_collapsed(
// CHECK-SAME: %[[Q:[^:]*]]: memref<2x2x64x64xf16>, %[[K:[^:]*]]: memref<2x2x64x64xf16>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.alloc
// CHECK: memref.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : memref<2x2x64x64xf16> into memref<4x64x64xf16>
// CHECK: return
// REMARK: remark: matmul 64x64x64 (batch 4) on Tensor Cores: wgmma {{.*}}, A read from the transpose's input (M-major tiles)
func.func @heads_collapsed(%q: memref<2x2x64x64xf16>, %k: memref<2x2x64x64xf16>,
                           %s: memref<4x64x64xf32> {llvm.noalias}) {
  %kt = memref.alloc() : memref<2x2x64x64xf16>
  linalg.transpose ins(%k : memref<2x2x64x64xf16>) outs(%kt : memref<2x2x64x64xf16>) permutation = [0, 1, 3, 2]
  %ktc = memref.collapse_shape %kt [[0, 1], [2], [3]] : memref<2x2x64x64xf16> into memref<4x64x64xf16>
  %qc = memref.collapse_shape %q [[0, 1], [2], [3]] : memref<2x2x64x64xf16> into memref<4x64x64xf16>
  linalg.batch_matmul ins(%ktc, %qc : memref<4x64x64xf16>, memref<4x64x64xf16>) outs(%s : memref<4x64x64xf32>)
  memref.dealloc %kt : memref<2x2x64x64xf16>
  return
}

// One transpose read by two matmuls: the second reads the input too (the
// kernel of the first, TMA descriptors included, neither writes it), and the
// transpose goes after it.
// CHECK-LABEL: func.func @two_readers(
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.alloc
// CHECK: return
// REMARK-COUNT-2: remark: matmul 64x64x64 on Tensor Cores: wgmma {{.*}}, A read from the transpose's input (M-major tiles)
// SM80-IR-LABEL: func.func @two_readers(
// SM80-IR-NOT: linalg.transpose
// SM80-IR: return
func.func @two_readers(%x: memref<64x64xf16>, %y: memref<64x64xf16>, %z: memref<64x64xf16>,
                       %c: memref<64x64xf32> {llvm.noalias}, %d: memref<64x64xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<64x64xf16>
  linalg.transpose ins(%x : memref<64x64xf16>) outs(%t : memref<64x64xf16>) permutation = [1, 0]
  linalg.matmul ins(%t, %y : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%t, %z : memref<64x64xf16>, memref<64x64xf16>) outs(%d : memref<64x64xf32>)
  memref.dealloc %t : memref<64x64xf16>
  return
}

// The input's contiguous dimension becomes a batch dimension: no 16-byte
// rows to copy, no folding on either kernel.
// CHECK-LABEL: func.func @contiguous_to_batch(
// CHECK: linalg.transpose
// SM80-IR-LABEL: func.func @contiguous_to_batch(
// SM80-IR: linalg.transpose
// SM80: remark: matmul 64x64x64 (batch 8) on Tensor Cores: mma.sync {{.*}} ldmatrix{{$}}
func.func @contiguous_to_batch(%a: memref<64x64x8xf16>, %b: memref<8x64x64xf16>,
                               %c: memref<8x64x64xf32> {llvm.noalias}) {
  %at = memref.alloc() : memref<8x64x64xf16>
  linalg.transpose ins(%a : memref<64x64x8xf16>) outs(%at : memref<8x64x64xf16>) permutation = [2, 0, 1]
  linalg.batch_matmul ins(%at, %b : memref<8x64x64xf16>, memref<8x64x64xf16>) outs(%c : memref<8x64x64xf32>)
  memref.dealloc %at : memref<8x64x64xf16>
  return
}

// Attention's head merge before the output projection: rows of (batch,
// position), columns of (head, dim) read from the [B, H, T, D] context on
// mma.sync and on wgmma; the transpose goes. wgmma's A tile is two TMA
// boxes of one head each (1 x 1 x 64 x 32 at (b, h, t, d), the second at
// the next head), in rows of 64 bytes with the 64-byte swizzle.
// CHECK-LABEL: func.func @head_merge(
// CHECK-NOT: linalg.transpose
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<1x1x64x32xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b,
// CHECK-NOT: linalg.transpose
// CHECK-COUNT-2: nvgpu.tma.async.load %{{.*}} : <tensor = memref<1x1x64x32xf16, {{.*}}swizzle = swizzle_64b
// CHECK-NOT: nvgpu.tma.async.load %{{.*}} : <tensor = memref<1x1x64x32xf16
// CHECK: return
// REMARK: remark: matmul 128x64x64 on Tensor Cores: wgmma m64n64k16 from TMA tiles, {{.*}}, A read from the transpose's input (strided view, heads of 32 in 64-byte swizzled rows){{$}}
// SM80-IR-LABEL: func.func @head_merge(
// SM80-IR-SAME: %[[CTX:[^:]*]]: memref<4x64x32xf16>
// SM80-IR-NOT: linalg.transpose
// SM80-IR: %[[V:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] output_shape [2, 2, 64, 32] : memref<8192xf16> into memref<2x2x64x32xf16>
// SM80-IR: nvgpu.device_async_copy %[[V]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], 8
// SM80-IR: return
// SM80: remark: matmul 128x64x64 on Tensor Cores: mma.sync {{.*}}, A read from the transpose's input (strided view){{$}}
func.func @head_merge(%ctx: memref<4x64x32xf16>, %w: memref<64x64xf16>,
                      %out: memref<128x64xf32> {llvm.noalias}) {
  %c4 = memref.expand_shape %ctx [[0, 1], [2], [3]] output_shape [2, 2, 64, 32] : memref<4x64x32xf16> into memref<2x2x64x32xf16>
  %m = memref.alloc() : memref<2x64x2x32xf16>
  linalg.transpose ins(%c4 : memref<2x2x64x32xf16>) outs(%m : memref<2x64x2x32xf16>) permutation = [0, 2, 1, 3]
  %rows = memref.collapse_shape %m [[0, 1], [2, 3]] : memref<2x64x2x32xf16> into memref<128x64xf16>
  linalg.matmul ins(%rows, %w : memref<128x64xf16>, memref<64x64xf16>) outs(%out : memref<128x64xf32>)
  memref.dealloc %m : memref<2x64x2x32xf16>
  return
}

// C += C^T B: the transpose's input is C, which the kernel's blocks write
// while others would still read it, so the transpose stays (the tiled SIMT
// kernel, f32, on every chip).
// CHECK-LABEL: func.func @transposed_c(
// CHECK: linalg.transpose
// SM80-IR-LABEL: func.func @transposed_c(
// SM80-IR: linalg.transpose
// SM80: remark: matmul not on Tensor Cores (SIMT kernel): its operands are f32 {{.*}}, 4 (shared){{$}}
func.func @transposed_c(%c: memref<64x64xf32>, %b: memref<64x64xf32>) {
  %t = memref.alloc() : memref<64x64xf32>
  linalg.transpose ins(%c : memref<64x64xf32>) outs(%t : memref<64x64xf32>) permutation = [1, 0]
  linalg.matmul ins(%t, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  memref.dealloc %t : memref<64x64xf32>
  return
}

// The transpose's buffer is written again, whole and without being read
// (an elementwise op into it), before another matmul reads it: the first
// matmul reads the transpose's input, and the transpose goes, since what
// the second reads is the elementwise op's.
// CHECK-LABEL: func.func @overwritten(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic
// CHECK-NOT: linalg.transpose
// CHECK: return
// SM80-IR-LABEL: func.func @overwritten(
// SM80-IR-NOT: linalg.transpose
// SM80-IR: return
func.func @overwritten(%x: memref<128x64xf16>, %dy: memref<128x64xf16>,
                       %y: memref<64x128xf16>, %w: memref<128x64xf16>,
                       %dw: memref<64x64xf32> {llvm.noalias},
                       %c: memref<64x64xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<64x128xf16>
  linalg.transpose ins(%x : memref<128x64xf16>) outs(%t : memref<64x128xf16>) permutation = [1, 0]
  linalg.matmul ins(%t, %dy : memref<64x128xf16>, memref<128x64xf16>) outs(%dw : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%y : memref<64x128xf16>) outs(%t : memref<64x128xf16>) {
  ^bb0(%in: f16, %out: f16):
    %d = arith.addf %in, %in : f16
    linalg.yield %d : f16
  }
  linalg.matmul ins(%t, %w : memref<64x128xf16>, memref<128x64xf16>) outs(%c : memref<64x64xf32>)
  memref.dealloc %t : memref<64x128xf16>
  return
}
