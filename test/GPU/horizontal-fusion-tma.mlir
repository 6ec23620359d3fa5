// mpt-parallel-loops-to-gpu fuses a loop into the kernel of earlier loops
// only if it is independent of every op in between, and a wgmma kernel's
// launch reads the buffers of its TMA descriptors (its pointer arguments,
// casts of nvgpu.tma.create.descriptor): a loop that overwrites such a
// buffer after the launch stays after it. (In a bf16 training step, the
// in-place 1 - tanh^2 of the activations used to be hoisted above the
// weight-gradient matmul that reads them; test/GPU/emulate-step-sweep.test
// found it.) A pointer argument of unknown origin ends the group.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-parallel-loops-to-gpu{vector-bytes=1}),canonicalize)" | FileCheck %s

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%p: !llvm.ptr) kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: func.func @descriptor
  // CHECK: gpu.launch
  // CHECK: memref.store
  // CHECK-NOT: memref.store
  // CHECK: gpu.terminator
  // CHECK: nvgpu.tma.create.descriptor
  // CHECK: gpu.launch_func @k::@k
  // CHECK: gpu.launch
  // CHECK: arith.subf
  // CHECK: gpu.terminator
  func.func @descriptor(%x: memref<8x64xbf16>) -> memref<64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : bf16
    %y = memref.alloc() : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %v = arith.index_cast %i : index to i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %y[%i] : memref<64xf32>
      scf.reduce
    }
    %cast = memref.cast %x : memref<8x64xbf16> to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %cast box[%c64, %c64] : memref<*xbf16> -> !map
    %p = builtin.unrealized_conversion_cast %d : !map to !llvm.ptr
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<8x64xbf16>
      %w = arith.subf %one, %v : bf16
      memref.store %w, %x[%i, %j] : memref<8x64xbf16>
      scf.reduce
    }
    return %y : memref<64xf32>
  }

  // CHECK-LABEL: func.func @pointer
  // CHECK: gpu.launch
  // CHECK: gpu.terminator
  // CHECK: gpu.launch_func @k::@k
  // CHECK: gpu.launch
  // CHECK: arith.subf
  func.func @pointer(%x: memref<8x64xbf16>, %p: !llvm.ptr) -> memref<64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : bf16
    %y = memref.alloc() : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %v = arith.index_cast %i : index to i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %y[%i] : memref<64xf32>
      scf.reduce
    }
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<8x64xbf16>
      %w = arith.subf %one, %v : bf16
      memref.store %w, %x[%i, %j] : memref<8x64xbf16>
      scf.reduce
    }
    return %y : memref<64xf32>
  }
}
