// Errors of the passes of mpt-lower-to-nvvm: bad options.
// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/chip.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_12}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/chip-99.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_99}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/chip-80a.mlir --mpt-lower-to-nvvm=chip=sm_80a -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/parallel-reduction.mlir --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/parallel-reduction-interior.mlir --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/block-tile.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{block-tile=64x64}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/warp-tile.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{warp-tile=32x0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/stages.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{stages=9}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/cluster-m.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{cluster-m=4}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/cluster-n.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{cluster-n=0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/group-m.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{group-m=0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/sms.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{sms=0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/simt-vector-bytes.mlir --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{simt-vector-bytes=12}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/threads.mlir --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{threads=2048}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/fuse.mlir --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{fuse=0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/vector-bytes.mlir --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{vector-bytes=3}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/vector-bytes-32.mlir --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{vector-bytes=32}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/reduction-vector-bytes.mlir --pass-pipeline="builtin.module(func.func(mpt-reductions-to-gpu{vector-bytes=0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/parts.mlir --pass-pipeline="builtin.module(func.func(mpt-split-reductions{parts=1}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/reduction-threads.mlir --pass-pipeline="builtin.module(func.func(mpt-reductions-to-gpu{threads=96}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/reduction-fuse.mlir --pass-pipeline="builtin.module(func.func(mpt-reductions-to-gpu{fuse=0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/rows-max-ops.mlir --pass-pipeline="builtin.module(func.func(mpt-rows-to-gpu{max-ops=0}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/rows-register-columns.mlir --pass-pipeline="builtin.module(func.func(mpt-rows-to-gpu{register-columns=33}))" -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/dynamic.mlir --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu))" -verify-diagnostics -o /dev/null

//--- chip.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: unknown chip 'sm_12'; expected sm_70, sm_75, sm_80, sm_86, sm_89, sm_90 or sm_90a}}
func.func @f() {
  return
}

//--- chip-99.mlir
// A chip number the kernels are not built for (before, any sm_NN from 50
// passed, and LLVM only warned).
// expected-error @+1 {{mpt-linalg-to-tensor-cores: unknown chip 'sm_99'; expected sm_70, sm_75, sm_80, sm_86, sm_89, sm_90 or sm_90a}}
func.func @f() {
  return
}

//--- chip-80a.mlir
// Only sm_90 has an architecture-specific variant; through the pipeline.
// expected-error @+1 {{mpt-linalg-to-tensor-cores: unknown chip 'sm_80a'; expected sm_70, sm_75, sm_80, sm_86, sm_89, sm_90 or sm_90a}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = mpt.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

//--- parallel-reduction.mlir
// An scf.parallel with a reduction result (the lowering makes reductions
// linalg reductions, which mpt-reductions-to-gpu takes before this pass).
func.func @f(%m: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{mpt-parallel-loops-to-gpu: a parallel loop with a reduction result is not supported}}
  %s = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%z) -> f32 {
    %v = memref.load %m[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      scf.reduce.return %r : f32
    }
  }
  return %s : f32
}

//--- parallel-reduction-interior.mlir
// The same after a fill of the buffer whose interior it writes: the loop is
// not merged with the fill (which would drop its reduction).
func.func @f(%m: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %z = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10xf32>
  scf.parallel (%i) = (%c0) to (%c10) step (%c1) {
    memref.store %z, %p[%i] : memref<10xf32>
    scf.reduce
  }
  %v = memref.subview %p[1] [8] [1] : memref<10xf32> to memref<8xf32, strided<[1], offset: 1>>
  // expected-error @+1 {{mpt-parallel-loops-to-gpu: a parallel loop with a reduction result is not supported}}
  %s = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%z) -> f32 {
    %x = memref.load %m[%i] : memref<8xf32>
    memref.store %x, %v[%i] : memref<8xf32, strided<[1], offset: 1>>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      scf.reduce.return %r : f32
    }
  }
  memref.dealloc %p : memref<10xf32>
  return %s : f32
}

//--- block-tile.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: block-tile='64x64' is not BMxBNxBK (three positive sizes such as 128x128x32)}}
func.func @f() {
  return
}

//--- warp-tile.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: warp-tile='32x0' is not WMxWN (two positive sizes such as 64x64)}}
func.func @f() {
  return
}

//--- stages.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: stages=9 is out of range; expected 0 (by target and shape) to 8}}
func.func @f() {
  return
}

//--- cluster-m.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: cluster-m=4 is out of range; expected 1 (no clusters) or 2 (pairs of blocks along M that share B's tiles)}}
func.func @f() {
  return
}

//--- cluster-n.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: cluster-n=0 is out of range; expected 1 (no clusters) or 2 (pairs of blocks along N that share A's tiles)}}
func.func @f() {
  return
}

//--- group-m.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: group-m=0 is out of range; expected 1 (blocks row by row) or more}}
func.func @f() {
  return
}

//--- sms.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: sms=0 is out of range; expected the GPU's streaming multiprocessors, 1 to 1024 (132 on an H100/H200 SXM)}}
func.func @f() {
  return
}

//--- simt-vector-bytes.mlir
// expected-error @+1 {{mpt-linalg-to-tensor-cores: simt-vector-bytes must be 1, 2, 4, 8 or 16, got 12}}
func.func @f() {
  return
}

//--- threads.mlir
// expected-error @+1 {{mpt-parallel-loops-to-gpu: threads must be in [1, 1024], got 2048}}
func.func @f() {
  return
}

//--- fuse.mlir
// expected-error @+1 {{mpt-parallel-loops-to-gpu: fuse must be at least 1 (one loop per kernel), got 0}}
func.func @f() {
  return
}

//--- vector-bytes.mlir
// expected-error @+1 {{mpt-parallel-loops-to-gpu: vector-bytes must be 1, 2, 4, 8 or 16, got 3}}
func.func @f() {
  return
}

//--- vector-bytes-32.mlir
// expected-error @+1 {{mpt-parallel-loops-to-gpu: vector-bytes must be 1, 2, 4, 8 or 16, got 32}}
func.func @f() {
  return
}

//--- reduction-vector-bytes.mlir
// expected-error @+1 {{mpt-reductions-to-gpu: vector-bytes must be 1, 2, 4, 8 or 16, got 0}}
func.func @f() {
  return
}

//--- reduction-threads.mlir
// expected-error @+1 {{mpt-reductions-to-gpu: threads must be a power of 2 in [1, 1024], got 96}}
func.func @f() {
  return
}

//--- reduction-fuse.mlir
// expected-error @+1 {{mpt-reductions-to-gpu: expects fuse, sms and min-size of at least 1, got 0, 132 and 256}}
func.func @f() {
  return
}

//--- parts.mlir
// expected-error @+1 {{mpt-split-reductions: expects parts >= 2, chunk >= 2 and min-size >= 1, got 1, 64 and 256}}
func.func @f() {
  return
}

//--- dynamic.mlir
func.func @f(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{mpt-parallel-loops-to-gpu: loop bounds and steps must be constants (static shapes)}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %m[%i] : memref<?xf32>
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}

//--- rows-register-columns.mlir
// expected-error @+1 {{mpt-rows-to-gpu: register-columns must be between 0 and 32, got 33}}
func.func @f() {
  return
}

//--- rows-max-ops.mlir
// expected-error @+1 {{mpt-rows-to-gpu: max-ops must be at least 1, got 0}}
func.func @f() {
  return
}
