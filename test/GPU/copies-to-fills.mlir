// mpt-copies-to-fills: a copy of a buffer that a fill of a constant set as
// a whole (through reshapes too), with nothing in between that may write
// it, becomes a fill of the copy's target; a copy after a write to the
// source, of a partly filled buffer, or of a buffer that an argument may
// alias after a call, stays. A buffer that is then only filled and freed
// goes. A copy of a view onto the same view (two equal static subviews of
// one buffer: what bufferizing an insert_slice of a result computed in
// place leaves) goes; one between different subviews, or subviews of
// different buffers, stays.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-copies-to-fills))" | FileCheck %s

func.func private @opaque(memref<4x16xf32>)

// CHECK-LABEL: func.func @zeros(
// CHECK-SAME: %[[A:[^:]*]]: memref<4x16xf32>, %[[B:[^:]*]]: memref<64xf32>, %[[C:[^:]*]]: memref<4x16xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.0
// CHECK: %[[T:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK: linalg.fill ins(%[[Z]] : f32) outs(%[[T]] : memref<4x16xf32>)
// CHECK-NEXT: linalg.fill ins(%[[Z]] : f32) outs(%[[A]] : memref<4x16xf32>)
// CHECK-NEXT: memref.load
// CHECK: linalg.fill ins(%[[Z]] : f32) outs(%[[B]] : memref<64xf32>)
// CHECK: linalg.fill ins(%[[Z]] : f32) outs(%[[C]] : memref<4x16xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @zeros(%a: memref<4x16xf32>, %b: memref<64xf32>, %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<4x16xf32>)
  memref.copy %t, %a : memref<4x16xf32> to memref<4x16xf32>
  %v = memref.load %t[%c0, %c0] : memref<4x16xf32>
  %flat = memref.collapse_shape %t [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  memref.copy %flat, %b : memref<64xf32> to memref<64xf32>
  %sub = memref.subview %t[0, 0] [4, 16] [1, 1] : memref<4x16xf32> to memref<4x16xf32, strided<[16, 1]>>
  memref.copy %sub, %c : memref<4x16xf32, strided<[16, 1]>> to memref<4x16xf32>
  memref.dealloc %t : memref<4x16xf32>
  return
}

// CHECK-LABEL: func.func @kept(
// CHECK: memref.store
// CHECK-NEXT: memref.copy
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<2x16xf32, strided<[16, 1]>>)
// CHECK-NEXT: memref.copy
// CHECK: call @opaque
// CHECK-NEXT: memref.copy
// CHECK: return
func.func @kept(%a: memref<4x16xf32>, %b: memref<4x16xf32>, %arg: memref<4x16xf32>) {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%one : f32) outs(%t : memref<4x16xf32>)
  memref.store %one, %t[%c0, %c0] : memref<4x16xf32>
  memref.copy %t, %a : memref<4x16xf32> to memref<4x16xf32>
  %u = memref.alloc() : memref<4x16xf32>
  %half = memref.subview %u[0, 0] [2, 16] [1, 1] : memref<4x16xf32> to memref<2x16xf32, strided<[16, 1]>>
  linalg.fill ins(%one : f32) outs(%half : memref<2x16xf32, strided<[16, 1]>>)
  memref.copy %u, %b : memref<4x16xf32> to memref<4x16xf32>
  linalg.fill ins(%one : f32) outs(%arg : memref<4x16xf32>)
  func.call @opaque(%a) : (memref<4x16xf32>) -> ()
  memref.copy %arg, %b : memref<4x16xf32> to memref<4x16xf32>
  memref.dealloc %t : memref<4x16xf32>
  memref.dealloc %u : memref<4x16xf32>
  return
}

// CHECK-LABEL: func.func @unread(
// CHECK-SAME: %[[A:[^:]*]]: memref<64xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant
// CHECK-NEXT: linalg.fill ins(%[[Z]] : f32) outs(%[[A]] : memref<64xf32>)
// CHECK-NEXT: return
func.func @unread(%a: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x16xf32>
  %flat = memref.collapse_shape %t [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%flat : memref<64xf32>)
  memref.copy %flat, %a : memref<64xf32> to memref<64xf32>
  memref.dealloc %t : memref<4x16xf32>
  return
}

// CHECK-LABEL: func.func @self_copies(
// CHECK-SAME: %[[A:[^:]*]]: memref<8x8xf16>, %[[B:[^:]*]]: memref<8x8xf16>
// CHECK: %[[S1:.*]] = memref.subview %[[A]][1, 0] [6, 7] [1, 1]
// CHECK: %[[S3:.*]] = memref.subview %[[A]][0, 0] [6, 7] [1, 1]
// CHECK-NEXT: memref.copy %[[S1]], %[[S3]]
// CHECK-NEXT: %[[S4:.*]] = memref.subview %[[B]][1, 0] [6, 7] [1, 1]
// CHECK-NEXT: memref.copy %[[S1]], %[[S4]]
// CHECK-NOT: memref.copy
// CHECK: return
func.func @self_copies(%a: memref<8x8xf16>, %b: memref<8x8xf16>) {
  %s1 = memref.subview %a[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  %s2 = memref.subview %a[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  memref.copy %s1, %s2 : memref<6x7xf16, strided<[8, 1], offset: 8>> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  memref.copy %a, %a : memref<8x8xf16> to memref<8x8xf16>
  %s3 = memref.subview %a[0, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1]>>
  memref.copy %s1, %s3 : memref<6x7xf16, strided<[8, 1], offset: 8>> to memref<6x7xf16, strided<[8, 1]>>
  %s4 = memref.subview %b[1, 0] [6, 7] [1, 1] : memref<8x8xf16> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  memref.copy %s1, %s4 : memref<6x7xf16, strided<[8, 1], offset: 8>> to memref<6x7xf16, strided<[8, 1], offset: 8>>
  return
}
