// A serial loop in a SIMT thread's iteration that loads and stores one
// place of a buffer in each trip (a reduction's accumulator: here column
// sums, as in a bias gradient) keeps the value in a register: one load
// before the loop, one store after it. Not where the place changes from
// trip to trip, or where something else in the loop may touch the buffer
// (a view of it, or another argument, which a caller may pass the same
// buffer to).
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(convert-linalg-to-parallel-loops,canonicalize,mpt-parallel-loops-to-gpu))" | FileCheck %s

#t = affine_map<(d0, d1) -> (d1, d0)>
#p = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @column_sums(
// CHECK-SAME: %[[X:[^:]*]]: memref<64x64xf32>, %[[Y:[^:]*]]: memref<64xf32> {bufferize.result})
// CHECK: gpu.launch
// CHECK: %[[INIT:.*]] = vector.load %[[Y]][%[[AT:.*]]] {{.*}} : memref<64xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf32>) {
// CHECK-NOT: %[[Y]][
// CHECK: vector.load %[[X]][
// CHECK-NOT: %[[Y]][
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: vector.store %[[SUM]], %[[Y]][%[[AT]]]
func.func @column_sums(%x: memref<64x64xf32>, %y: memref<64xf32> {bufferize.result}) {
  linalg.generic {indexing_maps = [#t, #p], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// X and Y are arguments a caller may pass one buffer to: the loop's loads
// of X may read what it stores to Y.
// CHECK-LABEL: func.func @may_alias(
// CHECK-SAME: %[[X:[^:]*]]: memref<64x64xf32>, %[[Y:[^:]*]]: memref<64xf32>)
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: vector.load %[[Y]][
// CHECK: vector.store {{.*}}, %[[Y]][
// CHECK: gpu.terminator
func.func @may_alias(%x: memref<64x64xf32>, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#t, #p], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// The loop also reads the accumulators through a view of their buffer.
// CHECK-LABEL: func.func @read_through_view(
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: gpu.terminator
func.func @read_through_view(%x: memref<64x64xf32>, %y: memref<64xf32> {bufferize.result}, %z: memref<64x64xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = memref.expand_shape %y [[0, 1]] output_shape [1, 64] : memref<64xf32> into memref<1x64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %a = memref.load %x[%k, %i] : memref<64x64xf32>
      %o = memref.load %y[%i] : memref<64xf32>
      %s = arith.addf %a, %o : f32
      memref.store %s, %y[%i] : memref<64xf32>
      %w = memref.load %v[%c0, %i] : memref<1x64xf32>
      memref.store %w, %z[%i, %k] : memref<64x64xf32>
    }
    scf.reduce
  }
  return
}

// The place changes from trip to trip (a running sum along each row).
// CHECK-LABEL: func.func @running_sums(
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: gpu.terminator
func.func @running_sums(%x: memref<64x64xf32>, %y: memref<64x64xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c1 to %c64 step %c1 {
      %km1 = arith.subi %k, %c1 : index
      %a = memref.load %x[%i, %k] : memref<64x64xf32>
      %o = memref.load %y[%i, %km1] : memref<64x64xf32>
      %s = arith.addf %a, %o : f32
      memref.store %s, %y[%i, %k] : memref<64x64xf32>
    }
    scf.reduce
  }
  return
}
