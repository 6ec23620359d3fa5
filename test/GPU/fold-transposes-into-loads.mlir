// mpt-fold-transposes-into-loads: a transpose whose result only loop nests
// read is folded into their loads, which read the transpose's input at the
// permuted indices; the transpose and its buffer go.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-fold-transposes-into-loads))" | FileCheck %s

#rows = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A bias gradient over a head merge: [B, H, T, D] -> [B, T, H, D] read as
// [B*T, H*D] and summed over the rows. The loads split the row into
// (b, t) and the column into (h, d) and read the input at (b, h, t, d).
// CHECK-LABEL: func.func @head_merge_bias(
// CHECK-SAME: %[[IN:[^:]*]]: memref<2x4x8x16xf16> {llvm.noalias}
// CHECK-NOT: linalg.transpose
// CHECK: scf.parallel (%[[C:.*]]) =
// CHECK: scf.for %[[R:.*]] =
// CHECK-DAG: %[[RI:.*]] = affine.apply {{.*}}(%[[R]])
// CHECK-DAG: %[[CI:.*]] = affine.apply {{.*}}(%[[C]])
// CHECK-DAG: %[[BT:.*]]:2 = affine.delinearize_index %[[RI]] into (2, 8)
// CHECK-DAG: %[[HD:.*]]:2 = affine.delinearize_index %[[CI]] into (4, 16)
// CHECK: memref.load %[[IN]][%[[BT]]#0, %[[HD]]#0, %[[BT]]#1, %[[HD]]#1] : memref<2x4x8x16xf16>
// CHECK-NOT: memref.alloc() {{.*}} : memref<2x8x4x16xf16>
// CHECK: return
func.func @head_merge_bias(%in: memref<2x4x8x16xf16> {llvm.noalias}, %out: memref<64xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<2x8x4x16xf16>
  linalg.transpose ins(%in : memref<2x4x8x16xf16>) outs(%t : memref<2x8x4x16xf16>) permutation = [0, 2, 1, 3]
  %m = memref.collapse_shape %t [[0, 1], [2, 3]] : memref<2x8x4x16xf16> into memref<16x64xf16>
  linalg.generic {indexing_maps = [#rows, #col], iterator_types = ["parallel", "reduction"]}
      ins(%m : memref<16x64xf16>) outs(%out : memref<64xf32>) {
  ^bb0(%x: f16, %acc: f32):
    %e = arith.extf %x : f16 to f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<2x8x4x16xf16>
  return
}

// Two readers, the innermost dimension kept: both read the input (one
// through the transpose's own shape: no index arithmetic but the
// permutation).
// CHECK-LABEL: func.func @two_readers(
// CHECK-SAME: %[[IN:[^:]*]]: memref<4x8x16xf32> {llvm.noalias}
// CHECK-NOT: linalg.transpose
// CHECK: scf.parallel (%[[I:[^,]*]], %[[J:[^,]*]], %[[K:[^)]*]]) =
// CHECK-NEXT: %[[AI:.*]] = affine.apply {{.*}}(%[[I]])
// CHECK-NEXT: %[[AJ:.*]] = affine.apply {{.*}}(%[[J]])
// CHECK-NEXT: %[[AK:.*]] = affine.apply {{.*}}(%[[K]])
// CHECK-NEXT: memref.load %[[IN]][%[[AJ]], %[[AI]], %[[AK]]] : memref<4x8x16xf32>
// CHECK: scf.parallel
// CHECK: affine.delinearize_index
// CHECK: memref.load %[[IN]]
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @two_readers(%in: memref<4x8x16xf32> {llvm.noalias}, %a: memref<8x4x16xf32> {llvm.noalias}, %b: memref<32x16xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<8x4x16xf32>
  linalg.transpose ins(%in : memref<4x8x16xf32>) outs(%t : memref<8x4x16xf32>) permutation = [1, 0, 2]
  linalg.copy ins(%t : memref<8x4x16xf32>) outs(%a : memref<8x4x16xf32>)
  %c = memref.collapse_shape %t [[0, 1], [2]] : memref<8x4x16xf32> into memref<32x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x16xf32>) outs(%b : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<8x4x16xf32>
  return
}

// A swap of the last two dimensions read by one op: folded (the op reads
// the input strided as the transpose did).
// CHECK-LABEL: func.func @swap_one_reader(
// CHECK-SAME: %[[IN:[^:]*]]: memref<16x32xf32> {llvm.noalias}
// CHECK-NOT: linalg.transpose
// CHECK: scf.parallel (%[[I:[^,]*]], %[[J:[^)]*]]) =
// CHECK-NEXT: %[[AI:.*]] = affine.apply {{.*}}(%[[I]])
// CHECK-NEXT: %[[AJ:.*]] = affine.apply {{.*}}(%[[J]])
// CHECK-NEXT: memref.load %[[IN]][%[[AJ]], %[[AI]]] : memref<16x32xf32>
func.func @swap_one_reader(%in: memref<16x32xf32> {llvm.noalias}, %out: memref<32x16xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<32x16xf32>
  linalg.transpose ins(%in : memref<16x32xf32>) outs(%t : memref<32x16xf32>) permutation = [1, 0]
  linalg.copy ins(%t : memref<32x16xf32>) outs(%out : memref<32x16xf32>)
  memref.dealloc %t : memref<32x16xf32>
  return
}

// Kept: a swap read by two ops (each would read strided), a matmul reader
// (its kernel is tiled, not loops), the input written before the reader,
// the result leaving the function.
// CHECK-LABEL: func.func @swap_two_readers(
// CHECK: linalg.transpose
// CHECK: linalg.copy
// CHECK: linalg.copy
func.func @swap_two_readers(%in: memref<16x32xf32> {llvm.noalias}, %a: memref<32x16xf32> {llvm.noalias}, %b: memref<32x16xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<32x16xf32>
  linalg.transpose ins(%in : memref<16x32xf32>) outs(%t : memref<32x16xf32>) permutation = [1, 0]
  linalg.copy ins(%t : memref<32x16xf32>) outs(%a : memref<32x16xf32>)
  linalg.copy ins(%t : memref<32x16xf32>) outs(%b : memref<32x16xf32>)
  memref.dealloc %t : memref<32x16xf32>
  return
}

// CHECK-LABEL: func.func @matmul_reader(
// CHECK: linalg.transpose
// CHECK: linalg.matmul
func.func @matmul_reader(%in: memref<16x32xf16> {llvm.noalias}, %w: memref<16x8xf16> {llvm.noalias}, %out: memref<32x8xf32> {llvm.noalias}) {
  %t = memref.alloc() : memref<32x16xf16>
  linalg.transpose ins(%in : memref<16x32xf16>) outs(%t : memref<32x16xf16>) permutation = [1, 0]
  linalg.matmul ins(%t, %w : memref<32x16xf16>, memref<16x8xf16>) outs(%out : memref<32x8xf32>)
  memref.dealloc %t : memref<32x16xf16>
  return
}

// CHECK-LABEL: func.func @input_written(
// CHECK: linalg.transpose
// CHECK: linalg.fill
// CHECK: linalg.copy
func.func @input_written(%in: memref<16x32xf32> {llvm.noalias}, %out: memref<32x16xf32> {llvm.noalias}) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x16xf32>
  linalg.transpose ins(%in : memref<16x32xf32>) outs(%t : memref<32x16xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%in : memref<16x32xf32>)
  linalg.copy ins(%t : memref<32x16xf32>) outs(%out : memref<32x16xf32>)
  memref.dealloc %t : memref<32x16xf32>
  return
}

// CHECK-LABEL: func.func @escapes(
// CHECK: linalg.transpose
// CHECK: linalg.copy
func.func @escapes(%in: memref<16x32xf32> {llvm.noalias}, %out: memref<32x16xf32> {llvm.noalias}) -> memref<32x16xf32> {
  %t = memref.alloc() : memref<32x16xf32>
  linalg.transpose ins(%in : memref<16x32xf32>) outs(%t : memref<32x16xf32>) permutation = [1, 0]
  linalg.copy ins(%t : memref<32x16xf32>) outs(%out : memref<32x16xf32>)
  return %t : memref<32x16xf32>
}

// Kept: the reader's output may be the transpose's input (two arguments
// without llvm.noalias), which it would then overwrite while reading it.
// CHECK-LABEL: func.func @may_alias(
// CHECK: linalg.transpose
// CHECK: linalg.copy
func.func @may_alias(%in: memref<16x32xf32>, %out: memref<32x16xf32>) {
  %t = memref.alloc() : memref<32x16xf32>
  linalg.transpose ins(%in : memref<16x32xf32>) outs(%t : memref<32x16xf32>) permutation = [1, 0]
  linalg.copy ins(%t : memref<32x16xf32>) outs(%out : memref<32x16xf32>)
  memref.dealloc %t : memref<32x16xf32>
  return
}
