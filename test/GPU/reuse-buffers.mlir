// mpt-gpu-reuse-buffers: device buffers whose lifetimes (first to last use,
// in ops of the body, seen through views) do not overlap share one arena;
// buffers used by one op, returned, not freed, or freed twice keep their own
// allocation.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-gpu-reuse-buffers))" | FileCheck %s

func.func private @use(memref<*xf32>)
func.func private @use2(memref<256xf32>, memref<64xf32>)

// a (1 KiB) is dead before d (1 KiB) is first used: d takes a's memory. c
// is live with both and goes after them (offset 1024, a multiple of 256);
// b is live with c and is used with d in one op, so it may overlap
// neither: it goes after c.
// CHECK-LABEL: func.func @disjoint(
// CHECK-DAG: %[[ARENA:.*]] = gpu.alloc () : memref<1792xi8>
// CHECK-DAG: %[[O0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[O1024:.*]] = arith.constant 1024 : index
// CHECK-DAG: %[[O1536:.*]] = arith.constant 1536 : index
// CHECK-DAG: %[[A:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<1792xi8> to memref<256xf32>
// CHECK-DAG: %[[B:.*]] = memref.view %[[ARENA]][%[[O1536]]][] : memref<1792xi8> to memref<64xf32>
// CHECK-DAG: %[[C:.*]] = memref.view %[[ARENA]][%[[O1024]]][] : memref<1792xi8> to memref<128xf32>
// CHECK-DAG: %[[D:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<1792xi8> to memref<256xf32>
// CHECK-NOT: gpu.alloc
// CHECK: call @use2(%[[D]], %[[B]])
// CHECK-NOT: gpu.dealloc
// CHECK: gpu.dealloc %[[ARENA]] : memref<1792xi8>
// CHECK-NEXT: return
func.func @disjoint() {
  %a = gpu.alloc () : memref<256xf32>
  %b = gpu.alloc () : memref<64xf32>
  %c = gpu.alloc () : memref<128xf32>
  %d = gpu.alloc () : memref<256xf32>
  %ua = memref.cast %a : memref<256xf32> to memref<*xf32>
  %uc = memref.cast %c : memref<128xf32> to memref<*xf32>
  %ub = memref.cast %b : memref<64xf32> to memref<*xf32>
  func.call @use(%ua) : (memref<*xf32>) -> ()
  func.call @use(%uc) : (memref<*xf32>) -> ()
  func.call @use(%ua) : (memref<*xf32>) -> ()
  func.call @use(%ub) : (memref<*xf32>) -> ()
  func.call @use2(%d, %b) : (memref<256xf32>, memref<64xf32>) -> ()
  func.call @use(%uc) : (memref<*xf32>) -> ()
  gpu.dealloc %a : memref<256xf32>
  gpu.dealloc %b : memref<64xf32>
  gpu.dealloc %c : memref<128xf32>
  gpu.dealloc %d : memref<256xf32>
  return
}

// A kernel that reads one buffer and writes another: they stay apart (the
// uses inside the launch count as the launch's); z, dead before the
// kernel, takes x's memory.
// CHECK-LABEL: func.func @one_kernel(
// CHECK: %[[ARENA:.*]] = gpu.alloc () : memref<320xi8>
// CHECK-DAG: %[[O0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[O256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[X:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<320xi8> to memref<16xf32>
// CHECK-DAG: %[[Y:.*]] = memref.view %[[ARENA]][%[[O256]]][] : memref<320xi8> to memref<16xf32>
// CHECK-DAG: %[[Z:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<320xi8> to memref<16xf32>
// CHECK: memref.cast %[[Z]]
// CHECK: gpu.launch
// CHECK: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[Y]]
func.func @one_kernel() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = gpu.alloc () : memref<16xf32>
  %y = gpu.alloc () : memref<16xf32>
  %z = gpu.alloc () : memref<16xf32>
  %uz = memref.cast %z : memref<16xf32> to memref<*xf32>
  func.call @use(%uz) : (memref<*xf32>) -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%c0] : memref<16xf32>
    memref.store %v, %y[%c0] : memref<16xf32>
    gpu.terminator
  }
  gpu.dealloc %x : memref<16xf32>
  gpu.dealloc %y : memref<16xf32>
  gpu.dealloc %z : memref<16xf32>
  return
}

// Not in the arena: a returned buffer, one never freed, one freed twice,
// a dynamically shaped one, an async one. With fewer than two buffers
// left, nothing changes.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-5: gpu.alloc
// CHECK-NOT: memref.view
// CHECK: return
func.func @kept(%n: index) -> memref<8xf32> {
  %r = gpu.alloc () : memref<8xf32>
  %leak = gpu.alloc () : memref<8xf32>
  %twice = gpu.alloc () : memref<8xf32>
  %dyn = gpu.alloc (%n) : memref<?xf32>
  %t = gpu.wait async
  %async, %t2 = gpu.alloc async [%t] () : memref<8xf32>
  %ur = memref.cast %r : memref<8xf32> to memref<*xf32>
  %ul = memref.cast %leak : memref<8xf32> to memref<*xf32>
  %ut = memref.cast %twice : memref<8xf32> to memref<*xf32>
  func.call @use(%ur) : (memref<*xf32>) -> ()
  func.call @use(%ul) : (memref<*xf32>) -> ()
  func.call @use(%ut) : (memref<*xf32>) -> ()
  gpu.dealloc %twice : memref<8xf32>
  gpu.dealloc %twice : memref<8xf32>
  gpu.dealloc %dyn : memref<?xf32>
  %t3 = gpu.dealloc async [%t2] %async : memref<8xf32>
  gpu.wait [%t3]
  return %r : memref<8xf32>
}

// Buffers used inside a host loop live for the whole loop: nothing is
// shared, nothing changes.
// CHECK-LABEL: func.func @loop(
// CHECK-COUNT-2: gpu.alloc () : memref<8xf32>
// CHECK-NOT: memref.view
func.func @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = gpu.alloc () : memref<8xf32>
  %q = gpu.alloc () : memref<8xf32>
  %up = memref.cast %p : memref<8xf32> to memref<*xf32>
  %uq = memref.cast %q : memref<8xf32> to memref<*xf32>
  scf.for %i = %c0 to %n step %c1 {
    func.call @use(%up) : (memref<*xf32>) -> ()
    func.call @use(%uq) : (memref<*xf32>) -> ()
  }
  gpu.dealloc %p : memref<8xf32>
  gpu.dealloc %q : memref<8xf32>
  return
}

func.func private @u2a(memref<256xf32>, memref<192xf32>)
func.func private @u1(memref<256xf32>)
func.func private @u2b(memref<192xf32>, memref<192xf32>)
func.func private @u2c(memref<192xf32>, memref<256xf32>)

// Largest first would place b0 and b1 (1 KiB each) at 0, b2 after b1 (it
// meets b1) and b3 after b0 and b2: 2560 bytes. Placing them in the order
// of their first use gives 1792, the most that is live at once (b0 and b3;
// b2 and b1), and the pass keeps the smaller arena.
// CHECK-LABEL: func.func @first_use_order(
// CHECK: gpu.alloc () : memref<1792xi8>
// CHECK-NOT: gpu.alloc
func.func @first_use_order() {
  %b0 = gpu.alloc () : memref<256xf32>
  %b1 = gpu.alloc () : memref<256xf32>
  %b2 = gpu.alloc () : memref<192xf32>
  %b3 = gpu.alloc () : memref<192xf32>
  func.call @u2a(%b0, %b3) : (memref<256xf32>, memref<192xf32>) -> ()
  func.call @u1(%b0) : (memref<256xf32>) -> ()
  func.call @u2b(%b3, %b2) : (memref<192xf32>, memref<192xf32>) -> ()
  func.call @u2c(%b2, %b1) : (memref<192xf32>, memref<256xf32>) -> ()
  func.call @u1(%b1) : (memref<256xf32>) -> ()
  gpu.dealloc %b0 : memref<256xf32>
  gpu.dealloc %b1 : memref<256xf32>
  gpu.dealloc %b2 : memref<192xf32>
  gpu.dealloc %b3 : memref<192xf32>
  return
}
