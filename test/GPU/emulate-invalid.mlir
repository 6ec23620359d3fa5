// RUN: mpt-opt %s --mpt-gpu-emulation -split-input-file -verify-diagnostics \
// RUN:   --allow-unregistered-dialect

// An op the emulator does not know.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @shuffle(%x: f32) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @below {{'gpu.shuffle' op cannot be emulated on the CPU (mpt-gpu-emulation runs the SIMT, WMMA and mma.sync kernels of chips sm_70 to sm_90; the wgmma kernels of sm_90a are not emulated)}}
      %r, %valid = gpu.shuffle xor %x, %c1, %c32 : f32
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
    // expected-error @below {{'gpu.launch_func' op is emulated without async tokens and clusters only}}
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
