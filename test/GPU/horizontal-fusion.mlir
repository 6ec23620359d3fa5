// Horizontal fusion in mpt-parallel-loops-to-gpu: consecutive independent
// loops share one kernel, each loop on its own range of blocks (64, 300 and
// 16x16 iterations: blocks [0, 1), [1, 3), [3, 4) of 256 threads); a loop
// that reads what one of them wrote gets a kernel of its own. A copy
// between two loops stays where it is, and a later loop joins the kernel
// (which runs before the copy) only if it is independent of the copy too:
// the one that reads the copy's target does not. Function arguments may
// alias one another; an op whose effects are unknown (a call) ends a
// group. fuse=1: one kernel per loop. The numbers of training steps with
// fusion are checked against the CPU in emulate-train-step.test. One
// iteration a thread (vector-bytes=1), so that the blocks count
// iterations; a thread's vectors of iterations: simt-vectors.mlir.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{vector-bytes=1}),canonicalize)" | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{fuse=1 vector-bytes=1}),canonicalize)" | FileCheck %s --check-prefix=SINGLE

func.func private @opaque(memref<64xf32>)

// CHECK-LABEL: func.func @three
// CHECK-DAG: %[[X:.*]] = memref.alloc() : memref<64xf16>
// CHECK-DAG: %[[Y:.*]] = memref.alloc() : memref<300xf16>
// CHECK-DAG: %[[Z:.*]] = memref.alloc() : memref<16x16xf16>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK: arith.cmpi ult, %{{.*}}, %c1
// CHECK: memref.store {{.*}}, %[[X]]
// CHECK: } else {
// CHECK: arith.cmpi ult, %{{.*}}, %c3
// CHECK: memref.store {{.*}}, %[[Y]]
// CHECK: } else {
// CHECK: memref.store {{.*}}, %[[Z]]
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}}) threads({{.*}}) in ({{.*}} = %c64,
// CHECK: memref.load %[[X]]
// CHECK-NOT: gpu.launch
// CHECK: return
// SINGLE-LABEL: func.func @three
// SINGLE-COUNT-4: gpu.launch
// SINGLE-NOT: gpu.launch
// SINGLE: return
func.func @three(%a: memref<64xf32>, %b: memref<300xf32>, %c: memref<16x16xf32>, %out: memref<64xf32>) -> (memref<300xf16>, memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c300 = arith.constant 300 : index
  %x = memref.alloc() : memref<64xf16>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    %h = arith.truncf %v : f32 to f16
    memref.store %h, %x[%i] : memref<64xf16>
    scf.reduce
  }
  %y = memref.alloc() : memref<300xf16>
  scf.parallel (%i) = (%c0) to (%c300) step (%c1) {
    %v = memref.load %b[%i] : memref<300xf32>
    %h = arith.truncf %v : f32 to f16
    memref.store %h, %y[%i] : memref<300xf16>
    scf.reduce
  }
  %z = memref.alloc() : memref<16x16xf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    %v = memref.load %c[%i, %j] : memref<16x16xf32>
    %h = arith.truncf %v : f32 to f16
    memref.store %h, %z[%i, %j] : memref<16x16xf16>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %h = memref.load %x[%i] : memref<64xf16>
    %v = arith.extf %h : f16 to f32
    memref.store %v, %out[%i] : memref<64xf32>
    scf.reduce
  }
  return %y, %z : memref<300xf16>, memref<16x16xf16>
}

// A zero fill, a copy of it, a scaling that reads neither (it joins the
// fill's kernel, before the copy) and a sum into the copy (it reads the
// copy's target: after the copy, a kernel of its own).
// CHECK-LABEL: func.func @copy_between
// SINGLE-LABEL: func.func @copy_between
// SINGLE-COUNT-3: gpu.launch
// SINGLE-NOT: gpu.launch
// SINGLE: return
// CHECK: gpu.launch
// CHECK: memref.store %cst{{.*}}, %[[ZERO:[a-z0-9_]+]][
// CHECK: memref.store {{.*}}, %[[SCALED:[a-z0-9_]+]][
// CHECK: gpu.terminator
// CHECK: memref.copy %[[ZERO]], %[[SUM:[a-z0-9_]+]] :
// CHECK: gpu.launch
// CHECK: memref.load %[[SUM]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @copy_between(%in: memref<16x64xf32>, %w: memref<64xf32>) -> (memref<16xf32>, memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %init = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %zero, %init[%i] : memref<16xf32>
    scf.reduce
  }
  %sum = memref.alloc() : memref<16xf32>
  memref.copy %init, %sum : memref<16xf32> to memref<16xf32>
  %scaled = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %w[%i] : memref<64xf32>
    %s = arith.mulf %v, %half : f32
    memref.store %s, %scaled[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %in[%i, %k] : memref<16x64xf32>
      %s = memref.load %sum[%i] : memref<16xf32>
      %t = arith.addf %s, %v : f32
      memref.store %t, %sum[%i] : memref<16xf32>
    }
    scf.reduce
  }
  return %sum, %scaled : memref<16xf32>, memref<64xf32>
}

// Arguments may alias: a loop that reads %b after one that wrote %a gets
// its own kernel; so does a loop after a call.
// CHECK-LABEL: func.func @arguments_and_calls
// CHECK-COUNT-3: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @arguments_and_calls(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %one, %a[%i] : memref<64xf32>
    scf.reduce
  }
  %t = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %b[%i] : memref<64xf32>
    memref.store %v, %t[%i] : memref<64xf32>
    scf.reduce
  }
  func.call @opaque(%c) : (memref<64xf32>) -> ()
  %u = memref.alloc() : memref<64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %one, %u[%i] : memref<64xf32>
    scf.reduce
  }
  return %t, %u : memref<64xf32>, memref<64xf32>
}

// A function's result buffers (bufferize.result, as mpt-lower-to-nvvm's
// bufferization marks them) and llvm.noalias arguments overlap no other
// buffer: the updates of two parameters into their result buffers and the
// writes to two noalias arguments all share one kernel (with plain
// arguments, @arguments_and_calls, they would not).
// CHECK-LABEL: func.func @result_buffers
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4,
// CHECK-NOT: gpu.launch
// CHECK: return
// SINGLE-LABEL: func.func @result_buffers
// SINGLE-COUNT-4: gpu.launch
func.func @result_buffers(%w1: memref<64xf32>, %w2: memref<32xf32>,
                          %n1: memref<64xf32> {bufferize.result}, %n2: memref<32xf32> {bufferize.result},
                          %x: memref<64xf32> {llvm.noalias}, %y: memref<64xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %half = arith.constant 0.5 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %w1[%i] : memref<64xf32>
    %h = arith.mulf %v, %half : f32
    memref.store %h, %n1[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %v = memref.load %w2[%i] : memref<32xf32>
    %h = arith.mulf %v, %half : f32
    memref.store %h, %n2[%i] : memref<32xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %half, %x[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %half, %y[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
