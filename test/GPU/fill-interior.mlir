// mpt-parallel-loops-to-gpu: a fill of a buffer followed by a loop that
// writes every element of a static interior view of it (the zero-padded
// f16 copy of a weight: a fill, then the cast into the interior) is one
// loop over the buffer, and one kernel: the iterations inside the view run
// the second loop's body (its induction variables less the view's offsets),
// the others store the fill's value. The two would otherwise be two kernels
// that run in turn, and the interior would be written twice. Kept apart: a
// second loop that does not store every element of the view, that reads
// the buffer, that does not start at zero, or with another op between the
// two. The emulated padded training step: emulate-padded-step.test.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{vector-bytes=1}),canonicalize)" | FileCheck %s

// CHECK-LABEL: func.func @padded_copy(
// CHECK-SAME: %[[W:[^:]*]]: memref<6x7xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[P:.*]] = memref.alloc() : memref<8x8xf16>
// CHECK: %[[V:.*]] = memref.subview %[[P]][1, 0] [6, 7] [1, 1]
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}}) threads({{.*}}) in ({{.*}} = %c64,
// CHECK: %[[J:.*]] = arith.remui %{{.*}}, %c8
// CHECK: %[[R:.*]] = arith.divui %{{.*}}, %c8
// CHECK: %[[I:.*]] = arith.subi %[[R]], %c1 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %c6 : index
// CHECK: %[[JN:.*]] = arith.cmpi ult, %[[J]], %c7 : index
// CHECK: %[[BOTH:.*]] = arith.andi %[[IN]], %[[JN]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK: %[[X:.*]] = memref.load %[[W]][%[[I]], %[[J]]]
// CHECK: %[[H:.*]] = arith.truncf %[[X]] : f32 to f16
// CHECK: memref.store %[[H]], %[[V]][%[[I]], %[[J]]]
// CHECK: } else {
// CHECK: memref.store %[[Z]], %[[P]][%[[R]], %[[J]]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @padded_copy(%w: memref<6x7xf32>) -> memref<8x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f16
  %p = memref.alloc() : memref<8x8xf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %zero, %p[%i, %j] : memref<8x8xf16>
    scf.reduce
  }
  %v = memref.subview %p[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c7) step (%c1, %c1) {
    %x = memref.load %w[%i, %j] : memref<6x7xf32>
    %h = arith.truncf %x : f32 to f16
    memref.store %h, %v[%i, %j] : memref<6x7xf16, strided<[8, 1], offset: 8>>
    scf.reduce
  }
  return %p : memref<8x8xf16>
}

// Stores one column of the view only.
// CHECK-LABEL: func.func @one_column(
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @one_column(%w: memref<6x7xf32>, %a: memref<8x8xf16>) -> memref<8x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f16
  %p = memref.alloc() : memref<8x8xf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %zero, %p[%i, %j] : memref<8x8xf16>
    scf.reduce
  }
  %v = memref.subview %p[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c7) step (%c1, %c1) {
    %x = memref.load %w[%i, %j] : memref<6x7xf32>
    %h = arith.truncf %x : f32 to f16
    memref.store %h, %v[%i, %c0] : memref<6x7xf16, strided<[8, 1], offset: 8>>
    scf.reduce
  }
  return %p : memref<8x8xf16>
}

// Reads the buffer.
// CHECK-LABEL: func.func @reads_buffer(
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @reads_buffer(%w: memref<6x7xf32>, %a: memref<8x8xf16>) -> memref<8x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f16
  %p = memref.alloc() : memref<8x8xf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %zero, %p[%i, %j] : memref<8x8xf16>
    scf.reduce
  }
  %v = memref.subview %p[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c7) step (%c1, %c1) {
    %x = memref.load %p[%c0, %j] : memref<8x8xf16>
    memref.store %x, %v[%i, %j] : memref<6x7xf16, strided<[8, 1], offset: 8>>
    scf.reduce
  }
  return %p : memref<8x8xf16>
}

// Does not start at zero.
// CHECK-LABEL: func.func @not_from_zero(
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @not_from_zero(%w: memref<6x7xf32>, %a: memref<8x8xf16>) -> memref<8x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f16
  %p = memref.alloc() : memref<8x8xf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %zero, %p[%i, %j] : memref<8x8xf16>
    scf.reduce
  }
  %v = memref.subview %p[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  scf.parallel (%i, %j) = (%c1, %c0) to (%c6, %c7) step (%c1, %c1) {
    %x = memref.load %w[%i, %j] : memref<6x7xf32>
    %h = arith.truncf %x : f32 to f16
    memref.store %h, %v[%i, %j] : memref<6x7xf16, strided<[8, 1], offset: 8>>
    scf.reduce
  }
  return %p : memref<8x8xf16>
}

// A copy between the two.
// CHECK-LABEL: func.func @copy_between(
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @copy_between(%w: memref<6x7xf32>, %a: memref<8x8xf16>) -> memref<8x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f16
  %p = memref.alloc() : memref<8x8xf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    memref.store %zero, %p[%i, %j] : memref<8x8xf16>
    scf.reduce
  }
  memref.copy %a, %p : memref<8x8xf16> to memref<8x8xf16>
  %v = memref.subview %p[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c7) step (%c1, %c1) {
    %x = memref.load %w[%i, %j] : memref<6x7xf32>
    %h = arith.truncf %x : f32 to f16
    memref.store %h, %v[%i, %j] : memref<6x7xf16, strided<[8, 1], offset: 8>>
    scf.reduce
  }
  return %p : memref<8x8xf16>
}
