// mpt-rows-to-gpu: a run of ops over the same rows (and columns) with a
// reduction along the rows becomes one kernel, a team of threads per row.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-rows-to-gpu))" | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-rows-to-gpu{max-ops=1}))" | FileCheck %s --check-prefix=ONE
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-rows-to-gpu{register-columns=0}))" | FileCheck %s --check-prefix=MEM

#rc = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0, d1) -> (d1)>
#cr = affine_map<(d0, d1) -> (d1, d0)>
#p = affine_map<(d0) -> (d0)>

// A softmax of 6 rows of 40: max, exp(x - max) and its sum, the quotient.
// A lane takes vectors of 4 columns (16 bytes of f32), so teams of 16
// threads (10 vectors a row), 8 teams a block, 1 block. A lane starts from
// the neutral element (-inf for the max, 0 for the sum), loads its 4
// columns at 4 lane as one vector (where 4 lane < 40), and the team's
// values meet in a butterfly of shuffles (xor 8, 4, 2, 1) with no shared
// memory and no barrier; every lane combines the result with the output's
// value (the fill's constant) and keeps it. The lane's elements stay in
// registers from op to op: x is loaded once (by the max, which passes it
// on to exp), the exponentials are never stored (their buffer goes), the
// quotient is stored once, as a vector. The max and the sum are not stored
// either (their buffers go): the kernel reads x and writes y, and has no
// barrier.
// CHECK-LABEL: func.func @softmax(
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) {
// CHECK-NOT: gpu.dynamic_shared_memory
// CHECK-NOT: gpu.barrier
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c16 : index
// CHECK: arith.divui
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %{{.*}}, %c6
// CHECK: %[[ROW:.*]] = arith.select %[[VALID]]
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[FIRST:.*]] = arith.muli %[[LANE]], %c4
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[FIRST]], %c40
// CHECK: %[[STEP:.*]] = arith.andi %[[VALID]], %[[IN]]
// CHECK: %[[M:.*]]:5 = scf.if %[[STEP]] -> (f32, f32, f32, f32, f32) {
// CHECK-NEXT: %[[X:.*]] = vector.load %{{.*}}[%[[ROW]], %[[FIRST]]] {alignment = 16 : i64} : memref<6x40xf32>, vector<4xf32>
// CHECK-NEXT: %[[X0:.*]] = vector.extract %[[X]][0]
// CHECK-NEXT: %[[MAX0:.*]] = arith.maximumf %[[X0]], %[[NINF]]
// CHECK: %[[X3:.*]] = vector.extract %[[X]][3]
// CHECK-NEXT: %[[MAX3:.*]] = arith.maximumf %[[X3]], %{{.*}}
// CHECK-NEXT: scf.yield %[[MAX3]], %[[X0]], %{{.*}}, %{{.*}}, %[[X3]]
// CHECK: } else {
// CHECK: scf.yield %[[NINF]],
// CHECK-NOT: vector.load
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK: %[[W:.*]] = arith.maximumf
// CHECK-NEXT: %[[MAXV:.*]] = arith.maximumf %[[W]], %{{.*}} : f32
// CHECK: %[[E:.*]]:4 = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK-NEXT: arith.subf %[[M]]#1, %[[MAXV]]
// CHECK-NEXT: %[[EXP0:.*]] = math.exp
// CHECK: arith.subf %[[M]]#4, %[[MAXV]]
// CHECK: arith.addf %[[E]]#0,
// CHECK: arith.addf %[[E]]#3,
// CHECK-COUNT-4: gpu.shuffle
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %cst{{.*}} : f32
// CHECK: scf.if
// CHECK-NEXT: %[[Q0:.*]] = arith.divf %[[E]]#0, %[[SUM]]
// CHECK: %[[Q3:.*]] = arith.divf %[[E]]#3, %[[SUM]]
// CHECK-NEXT: %[[Q:.*]] = vector.from_elements %[[Q0]], %{{.*}}, %{{.*}}, %[[Q3]] : vector<4xf32>
// CHECK-NEXT: vector.store %[[Q]], %{{.*}}[%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<6x40xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: memref.load
// CHECK-NOT: store
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
// CHECK-NOT: memref.dealloc
// CHECK: return
// With register-columns=0 each op walks the lane's columns in a loop and
// reads its operands from memory: the exponentials are stored and read,
// and the team's first lane stores a per-row value, which the team reads
// after a block barrier.
// MEM-LABEL: func.func @softmax(
// MEM: memref.alloc() : memref<6x40xf32>
// MEM: gpu.launch
// MEM: scf.for {{.*}} iter_args
// MEM: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<6x40xf32>
// MEM: arith.maximumf
// MEM-COUNT-5: gpu.shuffle
// MEM: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<6xf32>
// MEM: gpu.barrier
// MEM: scf.for
// MEM: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<6x40xf32>
// MEM: math.exp
// MEM: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<6x40xf32>
// MEM: scf.for {{.*}} iter_args
// MEM: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<6x40xf32>
// MEM: arith.addf
// MEM: scf.for
// MEM: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<6x40xf32>
// MEM: arith.divf
// MEM: gpu.terminator
// MEM: memref.dealloc %{{.*}} : memref<6x40xf32>
// ONE-LABEL: func.func @softmax(
// ONE: linalg.fill
// ONE: gpu.launch
// ONE: linalg.generic
// ONE: linalg.fill
// ONE: gpu.launch
// ONE: linalg.generic
func.func @softmax(%x: memref<6x40xf32>, %y: memref<6x40xf32> {bufferize.result}) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : memref<6xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<6xf32>)
  linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<6x40xf32>) outs(%max : memref<6xf32>) {
  ^bb0(%a: f32, %m: f32):
    %n = arith.maximumf %a, %m : f32
    linalg.yield %n : f32
  }
  %e = memref.alloc() : memref<6x40xf32>
  linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<6x40xf32>, memref<6xf32>) outs(%e : memref<6x40xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  }
  %sum = memref.alloc() : memref<6xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<6xf32>)
  linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<6x40xf32>) outs(%sum : memref<6xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %a, %s : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : memref<6x40xf32>, memref<6xf32>) outs(%y : memref<6x40xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  }
  memref.dealloc %e : memref<6x40xf32>
  memref.dealloc %sum : memref<6xf32>
  memref.dealloc %max : memref<6xf32>
  return
}

// Rows of 1000: teams of 128 threads (a quarter of the columns, a power
// of 2), one a block, vectors of 4 columns a lane (8 columns: two steps,
// the second only where its first column is below 1000); each warp's value
// in shared memory (one set of four slots: one reduction), one barrier,
// and every lane combining the four; the per-row op (the reciprocal) on
// every lane, lane 0 storing it.
// CHECK-LABEL: func.func @wide(
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c3{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}) dynamic_shared_memory_size %c16_i32
// CHECK-NOT: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c4
// CHECK: scf.if
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[FIRST]]] {{.*}} : memref<3x1000xf32>, vector<4xf32>
// CHECK: %[[SECOND:.*]] = arith.addi %[[FIRST]], %c512
// CHECK: arith.cmpi ult, %[[SECOND]], %c1000
// CHECK: scf.if
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[SECOND]]] {{.*}} : memref<3x1000xf32>, vector<4xf32>
// CHECK-NOT: load %{{.*}} : memref<3x1000xf32>
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK-NOT: scf.if
// CHECK-COUNT-4: memref.load %{{.*}}[%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: scf.if
// CHECK: arith.divf
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<3xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
// CHECK: return
func.func @wide(%x: memref<3x1000xf32>, %inv: memref<3xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %sum = memref.alloc() : memref<3xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<3xf32>)
  linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x1000xf32>) outs(%sum : memref<3xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %a, %s : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#p, #p], iterator_types = ["parallel"]}
      ins(%sum : memref<3xf32>) outs(%inv : memref<3xf32>) {
  ^bb0(%s: f32, %o: f32):
    %q = arith.divf %one, %s : f32
    linalg.yield %q : f32
  }
  memref.dealloc %sum : memref<3xf32>
  return
}

// An op that reads what the group wrote at another row (a transposed read)
// ends the group: it stays a loop nest. So does an op over other loops,
// and an elementwise run without a reduction is left alone.
// CHECK-LABEL: func.func @other_rows(
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}} : memref<8x8xf32>)
// CHECK-NEXT: ^bb
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}} : memref<8x8xf32>)
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @other_rows(%x: memref<8x8xf32>, %z: memref<8x8xf32> {bufferize.result}, %w: memref<8x8xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
  linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x8xf32>) outs(%sum : memref<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %a, %s : f32
    linalg.yield %n : f32
  }
  %y = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<8x8xf32>, memref<8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %s : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#cr, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x8xf32>) outs(%z : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#rc, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%z : memref<8x8xf32>) outs(%w : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.mulf %a, %a : f32
    linalg.yield %d : f32
  }
  memref.dealloc %y : memref<8x8xf32>
  memref.dealloc %sum : memref<8xf32>
  return
}

// Buffers that may be the same memory (arguments without
// bufferize.result, which may be one buffer passed twice): no kernel.
// CHECK-LABEL: func.func @may_alias(
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @may_alias(%x: memref<4x16xf32>, %s: memref<4xf32>, %y: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#rc, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x16xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %n = arith.addf %a, %acc : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<4x16xf32>, memref<4xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  return
}

// A sum over each column (a bias gradient: the reduction loop indexes the
// outer dimension) is not a row's: the lanes would read a row apart.
// CHECK-LABEL: func.func @columns(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @columns(%x: memref<64x32xf32>, %s: memref<32xf32> {bufferize.result}) {
  linalg.generic {indexing_maps = [#cr, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x32xf32>) outs(%s : memref<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %n = arith.addf %a, %acc : f32
    linalg.yield %n : f32
  }
  return
}

// Rows are matched by their count: a sum over [2, 3] rows of 16 and a
// difference over the [6, 16] reshape of the same buffers are the same 6
// rows, one kernel (teams of 4 lanes, a vector of 4 columns each, 32 teams
// a block). The sum's row index is
// the row delinearized over [2, 3]; the difference's the row itself. The
// team's lanes keep the sum, which the difference does not read back
// through the [6] view (the sum's buffer goes), and the lanes' elements of
// x, loaded once through either shape.
#rc3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @reshaped_rows(
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128
// CHECK: arith.remui %{{.*}}, %c3
// CHECK: arith.divui %{{.*}}, %c3
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} : memref<2x3x16xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store
// CHECK: arith.subf
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {{.*}} : memref<6x16xf32>, vector<4xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
// CHECK: return
func.func @reshaped_rows(%x: memref<2x3x16xf32>, %y: memref<6x16xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<2x3xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x3xf32>)
  linalg.generic {indexing_maps = [#rc3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<2x3x16xf32>) outs(%sum : memref<2x3xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %a, %s : f32
    linalg.yield %n : f32
  }
  %s6 = memref.collapse_shape %sum [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  %x6 = memref.collapse_shape %x [[0, 1], [2]] : memref<2x3x16xf32> into memref<6x16xf32>
  linalg.generic {indexing_maps = [#rc, #r, #rc], iterator_types = ["parallel", "parallel"]}
      ins(%x6, %s6 : memref<6x16xf32>, memref<6xf32>) outs(%y : memref<6x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<2x3xf32>
  return
}
