// mpt-gpu-check-alignment: a function that launches kernels checks, on
// entry, that the first element of each of its buffer arguments (rank 1
// or more) is 16-byte aligned: the aligned pointer plus the offset in
// bytes. If not, it writes a message to the standard error and aborts.
// The pipelines run it after the host code is final, so the checks stay
// host code (no kernel of their own) and come before any launch.
// emulate-alignment.test runs it.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(mpt-gpu-check-alignment)" | FileCheck %s
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=HOST

// CHECK-DAG: llvm.mlir.global internal constant @mpt_misaligned_kernels_0("mpt: @kernels: argument #0 (memref<64xf32>) is not 16-byte aligned; mpt's GPU kernels access buffers in 16-byte vectors and copies (gpu.alloc, mgpuMemAlloc and cudaMalloc give 256-byte aligned buffers)\0A")
// CHECK-DAG: llvm.mlir.global internal constant @mpt_misaligned_kernels_2("mpt: @kernels: argument #2 (memref<8x8xf16, strided<[16, 1], offset: ?>>) is not 16-byte aligned;
// CHECK-DAG: llvm.func @abort()
// CHECK-DAG: llvm.func @write(i32, !llvm.ptr, i64) -> i64
// CHECK-LABEL: func.func @kernels(
// CHECK-SAME: %[[X:.*]]: memref<64xf32>, %[[S:.*]]: memref<f32>, %[[V:.*]]: memref<8x8xf16, strided<[16, 1], offset: ?>>
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[X]]
// CHECK: %[[B:.*]] = arith.muli %[[OFF]], %c4
// CHECK: %[[A:.*]] = arith.addi %[[P]], %[[B]]
// CHECK: %[[R:.*]] = arith.remui %[[A]], %c16
// CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[R]], %c0
// CHECK: scf.if %[[BAD]] {
// CHECK: %[[M:.*]] = llvm.mlir.addressof @mpt_misaligned_kernels_0
// CHECK: %[[T:.*]] = llvm.getelementptr %[[M]][0, 0]
// CHECK: %[[FD:.*]] = llvm.mlir.constant(2 : i32)
// CHECK: %[[N:.*]] = llvm.mlir.constant(202 : i64)
// CHECK: llvm.call @write(%[[FD]], %[[T]], %[[N]])
// CHECK: llvm.call @abort()
// CHECK: }
// A rank-0 buffer is never a vector: no check.
// CHECK-NOT: %[[S]]
// CHECK: memref.extract_aligned_pointer_as_index %[[V]]
// CHECK: memref.extract_strided_metadata %[[V]]
// CHECK: arith.muli %{{.*}}, %c2
// CHECK: llvm.mlir.addressof @mpt_misaligned_kernels_2
// CHECK: gpu.launch
// HOST-LABEL: llvm.func @kernels(
// HOST-COUNT-2: llvm.call @abort()
// HOST: gpu.launch_func
// HOST-NEXT: llvm.call @mgpuStreamSynchronize
func.func @kernels(%x: memref<64xf32>, %s: memref<f32>, %v: memref<8x8xf16, strided<[16, 1], offset: ?>>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %e = memref.load %s[] : memref<f32>
    memref.store %e, %x[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// No kernel, no check.
// CHECK-LABEL: func.func @host(
// CHECK-NEXT: return
func.func @host(%x: memref<64xf32>) {
  return
}
