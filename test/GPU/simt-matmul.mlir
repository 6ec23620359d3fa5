// The tiled SIMT matmul of mpt-linalg-to-tensor-cores (the matmuls Tensor
// Cores do not take) moves 16 bytes an access where it can: a thread
// stages its four elements of A as one vector along K and its four of B as
// one vector along N (fewer where K or N is not a multiple of 4), reads its
// micro-tile's rows and columns from the shared slices as vectors of 4,
// and updates C in vectors along N; each access states its alignment. The
// numbers are checked in the emulator (emulate-gemm.test, the simt_* cases;
// emulate-traffic.test counts the loads and stores by hand).
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores),canonicalize)" 2>&1 | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{simt-vector-bytes=1}),canonicalize)" 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 -o %t/k.mlir 2> /dev/null
// RUN: %extract_kernels %t/k.mlir %t > /dev/null && cat %t/f32_kernel.ptx | FileCheck %s --check-prefix=PTX
// RUN: cat %t/f16_kernel.ptx | FileCheck %s --check-prefix=PTX16

// f32, 64 x 64 x 64: vectors of 4 everywhere.
// CHECK: remark: matmul not on Tensor Cores (SIMT kernel): its operands are f32 {{.*}}, 4x4 per thread, vectors of 4 (A), 4 (B), 4 (C), 4 (shared)
// CHECK: remark: matmul not on Tensor Cores (SIMT kernel): N and K (10, 36) {{.*}}, vectors of 4 (A), 2 (B), 2 (C), 4 (shared)
// CHECK-LABEL: func.func @f32
// CHECK: gpu.launch
// Staging: A's vector goes to four rows of the transposed slice, B's is
// one vector store.
// CHECK: %[[A:.*]] = vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK: %[[B:.*]] = vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK-COUNT-4: memref.store {{.*}} : memref<2x16x68xf32, #gpu.address_space<workgroup>>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<2x16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// The products of a K step: per kk, one vector of A's slice and one of B's.
// CHECK: scf.for
// CHECK-COUNT-16: vector.load {{.*}} : memref<2x16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// C += in rows of one vector.
// CHECK-COUNT-4: vector.store {{.*}} {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK: gpu.terminator
// SCALAR: remark: {{.*}}, 4x4 per thread{{$}}
// SCALAR-LABEL: func.func @f32
// SCALAR-NOT: vector.
// SCALAR: gpu.terminator
// PTX: .entry f32_kernel
// PTX-COUNT-2: ld.global.v4.b32
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32
func.func @f32(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// f16 operands, N = 10: A in vectors of 4 f16 (8 bytes, extended to f32),
// B and C in vectors of 2.
// CHECK-LABEL: func.func @f16
// CHECK: vector.load %arg0[{{.*}}] {alignment = 8 : i64} : memref<2x40x36xf16>, vector<4xf16>
// CHECK: arith.extf {{.*}} : vector<4xf16> to vector<4xf32>
// CHECK: vector.load %arg1[{{.*}}] {alignment = 4 : i64} : memref<2x36x10xf16>, vector<2xf16>
// CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<2x40x10xf32>, vector<2xf32>
// PTX16: .entry f16_kernel
// PTX16-DAG: ld.global.v4.b16
// PTX16-DAG: ld.global.v2.b16
// PTX16-DAG: ld.shared.v4.b32
// PTX16-DAG: st.global.v2.b32
func.func @f16(%a: memref<2x40x36xf16>, %b: memref<2x36x10xf16>, %c: memref<2x40x10xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x40x36xf16>, memref<2x36x10xf16>) outs(%c : memref<2x40x10xf32>)
  return
}
