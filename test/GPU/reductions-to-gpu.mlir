// mpt-reductions-to-gpu: a reduction of a whole buffer to a scalar becomes
// one kernel: strided per-thread loops, a shared-memory tree per block, the
// blocks' partial results reduced by the last block to count itself done
// (counters zeroed by a gpu.memset before the launch). The fill of the
// output becomes the initial value in the kernel. Consecutive independent reductions share a kernel; what reads
// their results moves below it. The numbers are checked against float64
// references in split-reductions.test (100352 elements: 49 blocks of 256
// threads, 8 elements each) and emulate-reductions.test.
// mpt-lower-to-nvvm runs mpt-copies-to-fills before, as here. The CHECK
// lines have a thread take one element at a time (vector-bytes=1); VEC,
// the default: vectors of 16 bytes of the inputs read along the last loop.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-copies-to-fills,mpt-reductions-to-gpu{vector-bytes=1}),canonicalize,cse)" | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-copies-to-fills,mpt-reductions-to-gpu{fuse=1 vector-bytes=1}),canonicalize,cse)" | FileCheck %s --check-prefix=SINGLE
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-copies-to-fills,mpt-reductions-to-gpu),canonicalize,cse)" | FileCheck %s --check-prefix=VEC

// 100352 f32 in vectors of 4: the same 49 blocks, 2 vectors a thread.
// VEC-LABEL: func.func @sum(
// VEC: gpu.launch blocks({{.*}}) in ({{.*}} = %c49, {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256,
// VEC: scf.for %[[V:.*]] = %{{.*}} to %c25088 step %c12544 iter_args(%{{.*}} = %cst{{.*}}) -> (f32)
// VEC: %[[COL:.*]] = arith.remui %[[V]], %c32
// VEC: %[[ROW:.*]] = arith.divui %[[V]], %c32
// VEC: %[[FIRST:.*]] = arith.muli %[[COL]], %c4
// VEC: vector.load %{{.*}}[%[[ROW]], %[[FIRST]]] {alignment = 16 : i64} : memref<784x128xf32>, vector<4xf32>
// VEC-COUNT-4: arith.addf
// VEC: scf.yield

// CHECK-LABEL: func.func @sum(
// CHECK-SAME: %[[X:.*]]: memref<784x128xf32>, %[[OUT:.*]]: memref<f32>
// CHECK-NOT: linalg.fill
// CHECK: %[[P:.*]] = memref.alloc() : memref<49xf32>
// CHECK: %[[N:.*]] = memref.alloc() : memref<1xi32>
// CHECK: gpu.memset %[[N]], %{{.*}} : memref<1xi32>, i32
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c49, {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256, {{.*}}) dynamic_shared_memory_size %c1032_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c100352 step %c12544 iter_args(%{{.*}} = %cst{{.*}}) -> (f32)
// CHECK: memref.load %[[X]]
// CHECK: arith.addf
// CHECK-COUNT-9: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<49xf32>
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK-NEXT: memref.atomic_rmw addi %{{.*}}, %[[N]][%{{.*}}] : (i32, memref<1xi32>) -> i32
// CHECK: arith.cmpi eq, %{{.*}}, %c48_i32
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: scf.for %{{.*}} = %[[T]] to %c49 step %c256
// CHECK: memref.load %[[P]]
// CHECK-COUNT-9: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[OUT]][]
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[P]]
// CHECK: memref.dealloc %[[N]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @sum(%x: memref<784x128xf32>, %out: memref<f32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<784x128xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// Below min-size (256 elements): left alone.
// CHECK-LABEL: func.func @small(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @small(%x: memref<128xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<128xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// One block (300 elements): no partial results, no counter; the initial
// value read from the output (no fill to fold).
// CHECK-LABEL: func.func @one_block(
// CHECK-SAME: %[[X:.*]]: memref<300xf32>, %[[OUT:.*]]: memref<f32>
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK: scf.for %{{.*}} = %{{.*}} to %c300 step %c256
// CHECK: arith.maximumf
// CHECK-NOT: memref.atomic_rmw
// CHECK: %[[INIT:.*]] = memref.load %[[OUT]][]
// CHECK: %[[R:.*]] = arith.maximumf %{{.*}}, %[[INIT]]
// CHECK: memref.store %[[R]], %[[OUT]][]
// CHECK: gpu.terminator
func.func @one_block(%x: memref<300xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<300xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  }
  return
}

// Two independent reductions into result buffers (bufferize.result: they
// overlap nothing else) share one kernel, blocks [0, 4) and [4, 5); the
// scalar code between them that reads the first result moves below the
// kernel, the elementwise loop that writes the second's input stays above.
// The init of the second comes through a copy of a filled buffer, which
// mpt-copies-to-fills makes a fill, folded into the kernel.
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[A:[^:]*]]: memref<8192xf32>, %[[B:[^:]*]]: memref<512xf32>, %[[O1:[^:]*]]: memref<f32> {bufferize.result}, %[[O2:[^:]*]]: memref<f32> {bufferize.result}, %[[O3:[^:]*]]: memref<f32> {bufferize.result}
// CHECK: %[[C:.*]] = memref.alloc() : memref<512xf32>
// CHECK: linalg.generic {{.*}} ins(%[[B]] : memref<512xf32>) outs(%[[C]] : memref<512xf32>)
// CHECK-NOT: memref.copy
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c5, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK: arith.cmpi ult, %{{.*}}, %c4 : index
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[O1]][]
// CHECK: } else {
// CHECK: memref.load %[[C]]
// CHECK: arith.mulf
// CHECK: memref.store %{{.*}}, %[[O2]][]
// CHECK: gpu.terminator
// CHECK: %[[L:.*]] = memref.load %[[O1]][]
// CHECK: %[[H:.*]] = arith.mulf %[[L]], %cst
// CHECK: memref.store %[[H]], %[[O3]][]
// CHECK: return
// SINGLE-LABEL: func.func @two(
// SINGLE-COUNT-2: gpu.launch
// SINGLE-NOT: gpu.launch
// SINGLE: return
func.func @two(%a: memref<8192xf32>, %b: memref<512xf32>,
               %o1: memref<f32> {bufferize.result}, %o2: memref<f32> {bufferize.result},
               %o3: memref<f32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  linalg.fill ins(%zero : f32) outs(%o1 : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a : memref<8192xf32>) outs(%o1 : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  %l = memref.load %o1[] : memref<f32>
  %h = arith.mulf %l, %half : f32
  memref.store %h, %o3[] : memref<f32>
  %c = memref.alloc() : memref<512xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%b : memref<512xf32>) outs(%c : memref<512xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %init = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%init : memref<f32>)
  memref.copy %init, %o2 : memref<f32> to memref<f32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%c : memref<512xf32>) outs(%o2 : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  }
  memref.dealloc %init : memref<f32>
  memref.dealloc %c : memref<512xf32>
  return
}

// With plain arguments, which may alias one another: the loop between may
// write what the first reduction reads, so it cannot run before it, and
// the second reduction, which reads what that loop writes, gets a kernel
// of its own.
// CHECK-LABEL: func.func @aliasing(
// CHECK: gpu.launch
// CHECK: memref.load
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @aliasing(%a: memref<8192xf32>, %b: memref<512xf32>, %c: memref<512xf32>,
                    %o1: memref<f32>, %o2: memref<f32>, %o3: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a : memref<8192xf32>) outs(%o1 : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  %l = memref.load %o1[] : memref<f32>
  memref.store %l, %o3[] : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%b : memref<512xf32>) outs(%c : memref<512xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%c : memref<512xf32>) outs(%o2 : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// A reduction that reads the result of the one before: a kernel each.
// CHECK-LABEL: func.func @dependent(
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @dependent(%a: memref<1024xf32>, %m: memref<f32> {bufferize.result},
                     %s: memref<f32> {bufferize.result}) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a : memref<1024xf32>) outs(%m : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %x = arith.maximumf %acc, %in : f32
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a, %m : memref<1024xf32>, memref<f32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %max: f32, %acc: f32):
    %d = arith.subf %in, %max : f32
    %e = math.exp %d : f32
    %x = arith.addf %acc, %e : f32
    linalg.yield %x : f32
  }
  return
}

// Several loops, broadcast inputs and loop indices: the indices of the
// linear element (rows of 64, the last loop fastest) feed the loads and
// linalg.index. An i1 accumulator is kept as i8 in shared memory.
// CHECK-LABEL: func.func @indexed(
// CHECK-SAME: %[[X:[^:]*]]: memref<32x64xf32>, %[[R:[^:]*]]: memref<64xf32>
// CHECK: gpu.launch
// CHECK: memref.view {{.*}} to memref<256xi8, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c2048 step %c256 iter_args(%{{.*}} = %false) -> (i1)
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[I]], %c64
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[I]], %c64
// CHECK-DAG: memref.load %[[X]][%[[ROW]], %[[COL]]]
// CHECK-DAG: memref.load %[[R]][%[[COL]]]
// CHECK: arith.index_cast %[[ROW]]
// CHECK: arith.ori
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK-NOT: linalg.index
// CHECK: return
func.func @indexed(%x: memref<32x64xf32>, %r: memref<64xf32>, %out: memref<i1> {bufferize.result}) {
  %false = arith.constant false
  linalg.fill ins(%false : i1) outs(%out : memref<i1>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x, %r : memref<32x64xf32>, memref<64xf32>) outs(%out : memref<i1>) {
  ^bb0(%in: f32, %ref: f32, %acc: i1):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %lim = arith.addf %ref, %fi : f32
    %big = arith.cmpf ogt, %in, %lim : f32
    %any = arith.ori %acc, %big : i1
    linalg.yield %any : i1
  }
  return
}

// Rows of 64 in vectors of 4: x and r along the last loop as vectors, the
// row index (linalg.index 0) once per vector, each element's test in turn.
// VEC-LABEL: func.func @indexed(
// VEC: scf.for %{{.*}} = %{{.*}} to %c512 step %c256 iter_args(%{{.*}} = %false) -> (i1)
// VEC: vector.load {{.*}} {alignment = 16 : i64} : memref<32x64xf32>, vector<4xf32>
// VEC: vector.load {{.*}} {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// VEC-COUNT-4: arith.ori
// VEC: scf.yield

// A sum of x * y^T * s (f16 x, f32 y transposed, s indexed by rows): x in
// vectors of 8 (16 bytes of the widest such input), y one element each, s
// once per vector.
// CHECK-LABEL: func.func @mixed_loads(
// VEC-LABEL: func.func @mixed_loads(
// VEC-SAME: %[[X:[^:]*]]: memref<64x32xf16>, %[[Y:[^:]*]]: memref<32x64xf32>, %[[S:[^:]*]]: memref<64xf32>
// VEC: scf.for %{{.*}} = %{{.*}} to %c256 step %c256
// VEC: vector.load %[[X]]{{.*}} {alignment = 16 : i64} : memref<64x32xf16>, vector<8xf16>
// VEC-COUNT-8: memref.load %[[Y]]
// VEC: memref.load %[[S]]
// VEC-NOT: memref.load %[[S]]
// VEC-COUNT-8: arith.addf
// VEC: scf.yield
func.func @mixed_loads(%x: memref<64x32xf16>, %y: memref<32x64xf32>, %s: memref<64xf32>, %out: memref<f32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x, %y, %s : memref<64x32xf16>, memref<32x64xf32>, memref<64xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f16, %b: f32, %c: f32, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %p = arith.mulf %w, %b : f32
    %q = arith.mulf %p, %c : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %t : f32
  }
  return
}

// A combining op that is not associative (a difference): left alone.
// CHECK-LABEL: func.func @difference(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @difference(%x: memref<1024xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<1024xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.subf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}
