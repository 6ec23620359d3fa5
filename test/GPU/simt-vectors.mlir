// mpt-parallel-loops-to-gpu: a thread runs `width` consecutive iterations of
// a loop's innermost dimension, and the accesses along it become vector
// loads and stores of 16 bytes of the widest element (vector-bytes=16)
// that state their alignment. The numbers are checked by running such
// kernels in the emulator (emulate-simt-vectors.test), which also checks
// every stated alignment.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu),canonicalize)" | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{vector-bytes=8}),canonicalize)" | FileCheck %s --check-prefix=EIGHT
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{vector-bytes=1}),canonicalize)" | FileCheck %s --check-prefix=SCALAR

// A cast f32 -> f16 of 64x256: vectors of 4 (16 bytes of f32, 8 of f16),
// 4096 threads in 16 blocks of 256; the row index and the first column of
// a thread's four from the delinearized id.
// CHECK-LABEL: func.func @cast
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c16, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK: %[[ROW:.*]] = arith.divui %[[ID:.*]], %c64 : index
// CHECK: %[[COL:.*]] = arith.muli {{.*}}, %c4 : index
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<64x256xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.truncf
// CHECK: %[[H:.*]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK: vector.store %[[H]], %{{.*}}[%[[ROW]], %[[COL]]] {alignment = 8 : i64} : memref<64x256xf16>, vector<4xf16>
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// EIGHT-LABEL: func.func @cast
// EIGHT: threads({{.*}}) in ({{.*}} = %c256,
// EIGHT: vector.load {{.*}} {alignment = 8 : i64} : memref<64x256xf32>, vector<2xf32>
// EIGHT: vector.store {{.*}} {alignment = 4 : i64} : memref<64x256xf16>, vector<2xf16>
// SCALAR-LABEL: func.func @cast
// SCALAR: gpu.launch blocks({{.*}}) in ({{.*}} = %c64, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// SCALAR-NOT: vector.
// SCALAR: memref.load
// SCALAR-NOT: vector.
// SCALAR: memref.store
// SCALAR-NOT: vector.
// SCALAR: gpu.terminator
func.func @cast(%a: memref<64x256xf32>, %b: memref<64x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<64x256xf32>
    %h = arith.truncf %v : f32 to f16
    memref.store %h, %b[%i, %j] : memref<64x256xf16>
    scf.reduce
  }
  return
}

// A head merge (f16): both the load and the store run along the head
// dimension d, innermost in both; vectors of 8 (512 threads). A load that
// does not vary with the innermost index (a scale) runs once.
// CHECK-LABEL: func.func @head_merge
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<4x4x16x16xf16>, vector<8xf16>
// CHECK: memref.load %{{.*}}[] : memref<f16>
// CHECK-COUNT-8: arith.mulf
// CHECK: vector.from_elements {{.*}} : vector<8xf16>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<4x16x4x16xf16>, vector<8xf16>
// CHECK-NOT: memref.load
// CHECK: gpu.terminator
func.func @head_merge(%x: memref<4x4x16x16xf16>, %s: memref<f16>, %y: memref<4x16x4x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%b, %t, %h, %d) = (%c0, %c0, %c0, %c0) to (%c4, %c16, %c4, %c16) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%b, %h, %t, %d] : memref<4x4x16x16xf16>
    %scale = memref.load %s[] : memref<f16>
    %m = arith.mulf %v, %scale : f16
    memref.store %m, %y[%b, %t, %h, %d] : memref<4x16x4x16xf16>
    scf.reduce
  }
  return
}

// A transpose (f32): the store runs along the innermost dimension, the load
// across it; a vector store of 4, 4 loads of one element.
// CHECK-LABEL: func.func @transpose
// CHECK: threads({{.*}}) in ({{.*}} = %c256,
// CHECK-COUNT-4: memref.load %{{.*}} : memref<64x32xf32>
// CHECK: vector.from_elements {{.*}} : vector<4xf32>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<32x64xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: gpu.terminator
func.func @transpose(%x: memref<64x32xf32>, %y: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    %v = memref.load %x[%j, %i] : memref<64x32xf32>
    memref.store %v, %y[%i, %j] : memref<32x64xf32>
    scf.reduce
  }
  return
}

// A column sum (a bias gradient) of 64x256 f16 into f32: one loop over the
// rows for a thread's 4 columns, a vector of each row's 4 columns (8
// bytes), the sums loaded and stored as vectors.
// CHECK-LABEL: func.func @column_sum
// CHECK: threads({{.*}}) in ({{.*}} = %c64,
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c64 step %c1 {
// CHECK-NEXT: vector.load %{{.*}}[%[[ROW]], %[[COL]]] {alignment = 8 : i64} : memref<64x256xf16>, vector<4xf16>
// CHECK: vector.load %{{.*}}[%[[COL]]] {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.addf
// CHECK: vector.store {{.*}}[%[[COL]]] {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NOT: scf.for
// CHECK: gpu.terminator
func.func @column_sum(%x: memref<64x256xf16>, %sum: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%j) = (%c0) to (%c256) step (%c1) {
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %j] : memref<64x256xf16>
      %s = memref.load %sum[%j] : memref<256xf32>
      %e = arith.extf %v : f16 to f32
      %t = arith.addf %s, %e : f32
      memref.store %t, %sum[%j] : memref<256xf32>
    }
    scf.reduce
  }
  return
}

// Widths halved to what divides: 6 columns of f32 (2), a lower bound of 2
// with 8 iterations (2), a view at offset 2 (2) and at offset 1 (none),
// 7 iterations (none), a step of 2 (none), f64 (2: 16 bytes).
// CHECK-LABEL: func.func @halved
// CHECK: vector.load {{.*}} : memref<5x6xf32>, vector<2xf32>
// CHECK: vector.store {{.*}} : memref<5x6xf32>, vector<2xf32>
// CHECK: vector.load {{.*}} : memref<16xf32>, vector<2xf32>
// CHECK: vector.load {{.*}} : memref<8xf32, strided<[1], offset: 2>>, vector<2xf32>
// CHECK: memref.load {{.*}} : memref<8xf32, strided<[1], offset: 1>>
// CHECK: memref.load {{.*}} : memref<7xf32>
// CHECK: memref.load {{.*}} : memref<16xf32>
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<8xf64>, vector<2xf64>
// CHECK: gpu.terminator
func.func @halved(%a: memref<5x6xf32>, %b: memref<16xf32>, %c: memref<8xf32, strided<[1], offset: 2>>, %d: memref<8xf32, strided<[1], offset: 1>>, %e: memref<7xf32>, %f: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %twod = arith.constant 2.0 : f64
  scf.parallel (%i, %j) = (%c0, %c0) to (%c5, %c6) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<5x6xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %a[%i, %j] : memref<5x6xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c2) to (%c10) step (%c1) {
    %v = memref.load %b[%i] : memref<16xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %b[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %c[%i] : memref<8xf32, strided<[1], offset: 2>>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %c[%i] : memref<8xf32, strided<[1], offset: 2>>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %d[%i] : memref<8xf32, strided<[1], offset: 1>>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %d[%i] : memref<8xf32, strided<[1], offset: 1>>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    %v = memref.load %e[%i] : memref<7xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %e[%i] : memref<7xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c2) {
    %v = memref.load %b[%i] : memref<16xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %b[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %f[%i] : memref<8xf64>
    %m = arith.mulf %v, %twod : f64
    memref.store %m, %f[%i] : memref<8xf64>
    scf.reduce
  }
  return
}

// One iteration a thread: a store that every iteration makes to the same
// place, an op with unknown effects (a call), no access along the
// innermost dimension (a transpose's strided store and load), i1 elements.
// CHECK-LABEL: func.func @kept_scalar
// CHECK-NOT: vector.
// CHECK: return
func.func private @opaque(f32)
func.func @kept_scalar(%a: memref<64xf32>, %s: memref<f32>, %t: memref<64x64xf32>, %u: memref<64x64xf32>, %m: memref<64xi1>, %n: memref<64xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %one, %s[] : memref<f32>
    memref.store %v, %a[%i] : memref<64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    func.call @opaque(%v) : (f32) -> ()
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %t[%j, %i] : memref<64x64xf32>
    memref.store %v, %u[%j, %i] : memref<64x64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %m[%i] : memref<64xi1>
    memref.store %v, %n[%i] : memref<64xi1>
    scf.reduce
  }
  return
}

// An access under a condition that varies with the iteration is made per
// iteration (the others in the loop still vectors): a ReLU's gradient that
// stores only where the input is positive.
// CHECK-LABEL: func.func @varying_condition
// CHECK: vector.load {{.*}} : memref<64xf32>, vector<4xf32>
// CHECK-COUNT-4: scf.if
// CHECK: gpu.terminator
func.func @varying_condition(%x: memref<64xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %x[%i] : memref<64xf32>
    %p = arith.cmpf ogt, %v, %zero : f32
    scf.if %p {
      memref.store %v, %y[%i] : memref<64xf32>
    }
    scf.reduce
  }
  return
}
