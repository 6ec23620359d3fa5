// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-split-buffers))" | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// One allocation holds three values in turn: a GELU-like result (read by a
// matmul), then a transpose of something else, then a zero fill that a
// matmul accumulates into. Each whole write without a read starts a new
// allocation, freed where the original was; the readers of each value use
// its allocation, through a copy of the view they read it by.
// CHECK-LABEL: func.func @three_values(
// CHECK: %[[B0:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<8x8xf32>) outs(%[[B0]] : memref<8x8xf32>)
// CHECK: linalg.matmul ins(%[[B0]], %arg1 : memref<8x8xf32>, memref<8x8xf32>) outs(%arg2 : memref<8x8xf32>)
// CHECK-NEXT: %[[B1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
// CHECK-NEXT: linalg.transpose ins(%arg1 : memref<8x8xf32>) outs(%[[B1]] : memref<8x8xf32>) permutation = [1, 0]
// CHECK-NEXT: %[[V1:.*]] = memref.collapse_shape %[[B1]] {{\[}}[0, 1]] : memref<8x8xf32> into memref<64xf32>
// CHECK-NEXT: linalg.copy ins(%[[V1]] : memref<64xf32>) outs(%arg3 : memref<64xf32>)
// CHECK-NEXT: %[[B2:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[B2]] : memref<8x8xf32>)
// CHECK-NEXT: linalg.matmul ins(%arg0, %arg1 : memref<8x8xf32>, memref<8x8xf32>) outs(%[[B2]] : memref<8x8xf32>)
// CHECK-NEXT: linalg.copy ins(%[[B2]] : memref<8x8xf32>) outs(%arg2 : memref<8x8xf32>)
// CHECK-NEXT: memref.dealloc %[[B1]]
// CHECK-NEXT: memref.dealloc %[[B2]]
// CHECK-NEXT: memref.dealloc %[[B0]]
func.func @three_values(%a: memref<8x8xf32>, %w: memref<8x8xf32>, %c: memref<8x8xf32>, %d: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  %flat = memref.collapse_shape %buf [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%buf : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  }
  linalg.matmul ins(%buf, %w : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.transpose ins(%w : memref<8x8xf32>) outs(%buf : memref<8x8xf32>) permutation = [1, 0]
  linalg.copy ins(%flat : memref<64xf32>) outs(%d : memref<64xf32>)
  linalg.fill ins(%zero : f32) outs(%buf : memref<8x8xf32>)
  linalg.matmul ins(%a, %w : memref<8x8xf32>, memref<8x8xf32>) outs(%buf : memref<8x8xf32>)
  linalg.copy ins(%buf : memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  memref.dealloc %buf : memref<8x8xf32>
  return
}

// Writes that read the old values (an accumulating matmul, an elementwise
// op over the buffer itself) or cover part of it (a subview), and buffers
// used inside a loop, keep one allocation.
// CHECK-LABEL: func.func @one_value(
// CHECK-COUNT-2: memref.alloc()
// CHECK-NOT: memref.alloc()
// CHECK: return
func.func @one_value(%a: memref<8x8xf32>, %w: memref<8x8xf32>, %c: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%buf : memref<8x8xf32>)
  linalg.matmul ins(%a, %w : memref<8x8xf32>, memref<8x8xf32>) outs(%buf : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%buf : memref<8x8xf32>) outs(%buf : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  }
  %part = memref.subview %buf[0, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.fill ins(%zero : f32) outs(%part : memref<4x8xf32, strided<[8, 1]>>)
  linalg.copy ins(%buf : memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  memref.dealloc %buf : memref<8x8xf32>
  %loop = memref.alloc() : memref<8x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.fill ins(%zero : f32) outs(%loop : memref<8x8xf32>)
    linalg.copy ins(%loop : memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  }
  memref.dealloc %loop : memref<8x8xf32>
  return
}
