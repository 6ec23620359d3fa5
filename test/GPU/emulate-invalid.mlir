// RUN: mpt-opt %s --mpt-gpu-emulation -split-input-file -verify-diagnostics \
// RUN:   --allow-unregistered-dialect

// An op the emulator does not know.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @subgroup_reduce(%x: f32) kernel {
      // expected-error @below {{'gpu.subgroup_reduce' op cannot be emulated on the CPU (mpt-gpu-emulation runs the SIMT, WMMA, mma.sync and wgmma kernels of chips sm_70 to sm_90a)}}
      %r = gpu.subgroup_reduce add %x : (f32) -> f32
      gpu.return
    }
  }
}

// -----

// Shuffles of other than 32-bit values (mpt's kernels shuffle i32).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @shuffle(%x: vector<2xf16>) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @below {{'gpu.shuffle' op is emulated for i32 and f32 values only}}
      %r, %valid = gpu.shuffle xor %x, %c1, %c32 : vector<2xf16>
      gpu.return
    }
  }
}

// -----

// mma.sync shapes other than m16n8k16 (f16, bf16).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @mma(%a: vector<2x2xf16>, %b: vector<1x2xf16>, %c: vector<2x2xf32>) kernel {
      // expected-error @below {{'nvgpu.mma.sync' op is emulated for m16n8k16 with f16 or bf16 operands only}}
      %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xf16>, vector<1x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      gpu.return
    }
  }
}

// -----

// Static shared memory as workgroup attributions.
module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @below {{'gpu.func' op has workgroup or private attributions, which the emulator does not support (mpt's kernels use dynamic shared memory)}}
    gpu.func @attributions() workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

// Asynchronous launches (mpt-emulate-gpu runs before gpu-async-region).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @empty() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.launch_func' op is emulated without async tokens only}}
    %u = gpu.launch_func async @k::@empty blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// A copy token that travels through a loop.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @token(%g: memref<64xf16>) kernel {
      %c0 = arith.constant 0 : index
      %s = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.view %s[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf16, #gpu.address_space<workgroup>>
      %t = nvgpu.device_async_copy %g[%c0], %v[%c0], 8 : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
      // expected-error @below {{'test.use' op uses an asynchronous copy token; the emulator supports tokens used by nvgpu.device_async_create_group and nvgpu.device_async_wait only}}
      "test.use"(%t) : (!nvgpu.device.async.token) -> ()
      gpu.return
    }
  }
}

// -----

// A tensor map of an unranked memref that is not cast from a ranked one.
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @host(%t: memref<*xf16>) {
  %c64 = arith.constant 64 : index
  // expected-error @below {{'nvgpu.tma.create.descriptor' op is emulated for a tensor cast from a ranked memref only}}
  %m = nvgpu.tma.create.descriptor %t box[%c64, %c64] : memref<*xf16> -> !map
  return
}

// -----

// A tensor map used other than cast to the !llvm.ptr a kernel takes.
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @host(%r: memref<128x64xf16>) {
  %c64 = arith.constant 64 : index
  %t = memref.cast %r : memref<128x64xf16> to memref<*xf16>
  %m = nvgpu.tma.create.descriptor %t box[%c64, %c64] : memref<*xf16> -> !map
  // expected-error @below {{'test.use' op uses a tensor map; the emulator passes tensor maps to kernels as !llvm.ptr only}}
  "test.use"(%m) : (!map) -> ()
  return
}

// -----

// A TMA copy through a tensor map the kernel does not get as !llvm.ptr.
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @tma(%m: !map) kernel {
      %c0 = arith.constant 0 : index
      %s = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.view %s[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %b = nvgpu.mbarrier.create -> !barriers
      // expected-error @below {{'nvgpu.tma.async.load' op uses a tensor map that is not a kernel argument; the emulator takes tensor maps passed to the kernel as !llvm.ptr}}
      nvgpu.tma.async.load %m[%c0, %c0], %b[%c0] to %v : !map, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Predicated mbarrier operations.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @init(%p: i1) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %b = nvgpu.mbarrier.create -> !barriers
      // expected-error @below {{'nvgpu.mbarrier.init' op is emulated without a predicate only}}
      nvgpu.mbarrier.init %b[%c0], %c1, predicate = %p : !barriers
      gpu.return
    }
  }
}

// -----

// wgmma with a negated operand.
!acc = !llvm.struct<(f32, f32, f32, f32)>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @wgmma(%da: i64, %db: i64, %c: !acc) kernel {
      // expected-error @below {{'nvvm.wgmma.mma_async' op is emulated for m64 with f16, bf16 or tf32 operands from shared memory, f32 accumulators and unit scales only}}
      %d = nvvm.wgmma.mma_async %da, %db, %c, <m = 64, n = 8, k = 16>, D[<f32>, <one>, <wrapped>], A[<f16>, <neg>, <row>], B[<f16>, <one>, <col>] : !acc -> !acc
      gpu.return
    }
  }
}

// -----

// Predicated TMA copies.
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @tma(%m: !map, %p: i1) kernel {
      %c0 = arith.constant 0 : index
      %s = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.view %s[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %b = nvgpu.mbarrier.create -> !barriers
      // expected-error @below {{'nvgpu.tma.async.load' op is emulated without a predicate only}}
      nvgpu.tma.async.load %m[%c0, %c0], %b[%c0] to %v, predicate = %p : !map, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// A named barrier without its thread count.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @named() kernel {
      %c1 = arith.constant 1 : i32
      // expected-error @below {{'nvvm.barrier' op is emulated with both a barrier id and a thread count, or neither, only}}
      nvvm.barrier id = %c1
      gpu.return
    }
  }
}

// -----

// An mbarrier arrival whose state token is used.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @arrive(%p: !llvm.ptr<3>) kernel {
      // expected-error @below {{'nvvm.mbarrier.arrive' op is emulated without a count and an unused result only}}
      %t = nvvm.mbarrier.arrive %p : !llvm.ptr<3> -> i64
      "test.use"(%t) : (i64) -> ()
      gpu.return
    }
  }
}

// -----

// Asynchronous host operations (mpt-emulate-gpu runs before gpu-async-region):
// an allocation with a token.
module attributes {gpu.container_module} {
  func.func @f(%t: !gpu.async.token) {
    // expected-error @below {{'gpu.alloc' op is emulated when synchronous only}}
    %m, %t2 = gpu.alloc async [%t] () : memref<4xf32>
    return
  }
}

// -----

// A deallocation with a token.
module attributes {gpu.container_module} {
  func.func @f(%t: !gpu.async.token, %m: memref<4xf32>) {
    // expected-error @below {{'gpu.dealloc' op is emulated when synchronous only}}
    %t2 = gpu.dealloc async [%t] %m : memref<4xf32>
    return
  }
}

// -----

// A copy with a token.
module attributes {gpu.container_module} {
  func.func @f(%t: !gpu.async.token, %a: memref<4xf32>, %b: memref<4xf32>) {
    // expected-error @below {{'gpu.memcpy' op is emulated when synchronous only}}
    %t2 = gpu.memcpy async [%t] %a, %b : memref<4xf32>, memref<4xf32>
    return
  }
}

// -----

// A memset with a token.
module attributes {gpu.container_module} {
  func.func @f(%t: !gpu.async.token, %a: memref<4xf32>, %v: f32) {
    // expected-error @below {{'gpu.memset' op is emulated when synchronous only}}
    %t2 = gpu.memset async [%t] %a, %v : memref<4xf32>, f32
    return
  }
}

// -----

// A wait that makes a token.
module attributes {gpu.container_module} {
  func.func @f(%t: !gpu.async.token) {
    // expected-error @below {{'gpu.wait' op is emulated when synchronous only}}
    %t2 = gpu.wait async [%t]
    return
  }
}

// -----

// ldmatrix of 8-bit elements (mpt's kernels load f16 and bf16 tiles).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @ld(%s: memref<16x32xi8, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'nvgpu.ldmatrix' op is emulated for 16-bit elements only}}
      %r = nvgpu.ldmatrix %s[%c0, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x32xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
      gpu.return
    }
  }
}

// -----

// tf32 conversions other than round-to-nearest-away (what mpt's tf32
// kernels emit).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @tf32(%x: f32) kernel {
      // expected-error @below {{'nvvm.convert.float.to.tf32' op is emulated with rounding rna only}}
      %r = nvvm.convert.float.to.tf32 %x {rnd = #nvvm.fp_rnd_mode<rn>}
      gpu.return
    }
  }
}

// -----

// A block barrier that also reduces a predicate.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @bar(%p: i32) kernel {
      // expected-error @below {{'nvvm.barrier' op is emulated without a reduction only}}
      %r = nvvm.barrier #nvvm.reduction<popc> %p -> i32
      gpu.return
    }
  }
}
