// The elementwise generic that reads a matmul's zero-filled f32 temporary
// (the rounding, with the bias and activation fusion put with it) runs in
// the Tensor Core kernel's epilogue: no temporary, no fill, no kernel of its
// own. It may not when it would change what it computes.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" 2> /dev/null | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_90a}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: rm -rf %t && mkdir -p %t
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_80 -o %t/sm_80.mlir 2> /dev/null
// RUN: %extract_kernels %t/sm_80.mlir %t/sm_80 > /dev/null && cat %t/sm_80/bias_relu_kernel.ptx | FileCheck %s --check-prefix=PTX
// RUN: mpt-opt %s --mpt-lower-to-nvvm=chip=sm_90a -o %t/sm_90a.mlir 2> /dev/null
// RUN: %extract_kernels %t/sm_90a.mlir %t/sm_90a > /dev/null && cat %t/sm_90a/bias_relu_kernel.ptx | FileCheck %s --check-prefix=PTX90
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_80/*.ptx; do %ptxas -arch=sm_80 $ptx -o $ptx.cubin || exit 1; done %}
// RUN: %if cuda-toolkit %{ for ptx in %t/sm_90a/*.ptx; do %ptxas -arch=sm_90a $ptx -o $ptx.cubin || exit 1; done %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// REMARK: remark: matmul 128x128x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, fused epilogue (truncf, extf, addf, constant, maximumf) into f16
// WGMMA: remark: matmul 128x128x64 on Tensor Cores: wgmma m64n64k16 {{.*}}, fused epilogue (truncf, extf, addf, constant, maximumf) into f16
// CHECK-LABEL: func.func @bias_relu(
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// The bias: one vector load of the two columns a lane holds.
// CHECK: vector.load %arg2[{{.*}}] {alignment = 4 : i64} : memref<128xf16>, vector<2xf16>
// CHECK: arith.maximumf {{.*}} : vector<2xf32>
// CHECK: vector.store {{.*}} %arg3{{.*}} : memref<128x128xf16>, vector<2xf16>
// CHECK-NOT: linalg.
// CHECK: return
func.func @bias_relu(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %bias: memref<128xf16>, %out: memref<128x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%t : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<128x128xf32>, memref<128xf16>) outs(%out : memref<128x128xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %r = arith.truncf %x : f32 to f16
    %e = arith.extf %r : f16 to f32
    %ce = arith.extf %c : f16 to f32
    %s = arith.addf %e, %ce : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %z : f32
    %y = arith.truncf %m : f32 to f16
    linalg.yield %y : f16
  }
  return
}

// Math functions are evaluated element by element; the f32 result is
// written back into the temporary, which a later op reads.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: {{.*}}, fused epilogue (exp) into f32
// CHECK-LABEL: func.func @exp_in_place(
// CHECK: memref.alloc() : memref<128x128xf32>
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-COUNT-2: math.exp {{.*}} : f32
// CHECK: linalg.copy
func.func @exp_in_place(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %out: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%t : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<128x128xf32>) outs(%t : memref<128x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  }
  linalg.copy ins(%t : memref<128x128xf32>) outs(%out : memref<128x128xf32>)
  return
}

// Not fused: the generic writes B, which other blocks still read. (The
// kernel still starts from zero and stores into the temporary.)
// REMARK: remark: matmul 128x128x128 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline, ldmatrix, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @writes_b(
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @writes_b(%a: memref<128x128xf16>, %b: memref<128x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x128xf16>, memref<128x128xf16>) outs(%t : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<128x128xf32>) outs(%b : memref<128x128xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  }
  return
}

// Not fused: an op between the matmul and the generic writes the bias.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: mma.sync m16n8k16, block 128x128x32, 4 warps of 64x64, 2-stage cp.async pipeline, ldmatrix, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @bias_written_between(
// CHECK: gpu.launch
// CHECK: linalg.fill
// CHECK: linalg.generic
func.func @bias_written_between(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %bias: memref<128xf32>, %out: memref<128x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%t : memref<128x128xf32>)
  linalg.fill ins(%zero : f32) outs(%bias : memref<128xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<128x128xf32>, memref<128xf32>) outs(%out : memref<128x128xf16>) {
  ^bb0(%x: f32, %c: f32, %o: f16):
    %s = arith.addf %x, %c : f32
    %y = arith.truncf %s : f32 to f16
    linalg.yield %y : f16
  }
  return
}

// The relu is max.NaN (arith.maximumf propagates NaN), results rounded in
// pairs and stored 32 bits at a time (mma.sync) or 64 (wgmma).
// PTX: max.NaN.f32
// PTX: cvt.rn.f16x2.f32
// PTX: st.global.b32
// PTX90: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX90: max.NaN.f32
// PTX90: cvt.rn.f16x2.f32
// PTX90: st.global.v2.b32

// The generic reads a view made after the matmul (a residual collapsed to
// the matmul's rows): the view moves above the kernel, which reads it
// (two columns a vector load).
// REMARK: remark: matmul 64x64x64 on Tensor Cores: mma.sync {{.*}}, fused epilogue (truncf, addf) into f16
// WGMMA: remark: matmul 64x64x64 on Tensor Cores: wgmma {{.*}}, fused epilogue (truncf, addf) into f16
// CHECK-LABEL: func.func @residual_view(
// CHECK-SAME: %{{[^:]*}}: memref<64x64xf16>, %{{[^:]*}}: memref<64x64xf16>, %[[RES:[^:]*]]: memref<4x16x64xf16>
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[RES]]
// CHECK: gpu.launch
// CHECK: vector.load %[[VIEW]]
// CHECK-NOT: linalg.
// CHECK: return
func.func @residual_view(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %res: memref<4x16x64xf16>, %out: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%t : memref<64x64xf32>)
  %r = memref.collapse_shape %res [[0, 1], [2]] : memref<4x16x64xf16> into memref<64x64xf16>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %r : memref<64x64xf32>, memref<64x64xf16>) outs(%out : memref<64x64xf16>) {
  ^bb0(%x: f32, %y: f16, %o: f16):
    %h = arith.truncf %x : f32 to f16
    %s = arith.addf %h, %y : f16
    linalg.yield %s : f16
  }
  return
}

// A padded weight gradient's unscaling reads the unpadded part of the
// product (a view from the origin): the kernel evaluates it there only,
// element by element, and stores into the 63 x 63 gradient; the padded f32
// temporary is never allocated. (A view elsewhere, or one another op reads
// as well, keeps the temporary.)
// REMARK: remark: matmul 64x64x16 on Tensor Cores: mma.sync {{.*}}, fused epilogue (mulf) into f32, stored inside 63x63 (the products outside are dropped)
// WGMMA: remark: matmul 64x64x16 on Tensor Cores: wgmma {{.*}}, fused epilogue (mulf) into f32, stored inside 63x63 (the products outside are dropped)
// CHECK-LABEL: func.func @padded_unscale(
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: nvgpu.mma.sync
// CHECK: %[[ROW:.*]] = arith.cmpi ult, %{{.*}}, %c63
// CHECK: scf.if %[[ROW]] {
// CHECK: %[[COL:.*]] = arith.cmpi ult, %{{.*}}, %c63
// CHECK: scf.if %[[COL]] {
// CHECK: %[[S:.*]] = memref.load %arg2[] : memref<f32>
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK: memref.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}] : memref<63x63xf32>
// CHECK-NOT: linalg.
// CHECK: return
func.func @padded_unscale(%a: memref<64x16xf16>, %b: memref<16x64xf16>, %s: memref<f32>, %out: memref<63x63xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf16>, memref<16x64xf16>) outs(%t : memref<64x64xf32>)
  %v = memref.subview %t[0, 0] [63, 63] [1, 1] : memref<64x64xf32> to memref<63x63xf32, strided<[64, 1]>>
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %s : memref<63x63xf32, strided<[64, 1]>>, memref<f32>) outs(%out : memref<63x63xf32>) {
  ^bb0(%x: f32, %k: f32, %o: f32):
    %y = arith.mulf %x, %k : f32
    linalg.yield %y : f32
  }
  return
}

// REMARK: remark: matmul 64x64x16 on Tensor Cores: mma.sync {{.*}}, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @offset_view(
// CHECK: memref.alloc() : memref<64x64xf32>
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @offset_view(%a: memref<64x16xf16>, %b: memref<16x64xf16>, %out: memref<63x63xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf16>, memref<16x64xf16>) outs(%t : memref<64x64xf32>)
  %v = memref.subview %t[1, 1] [63, 63] [1, 1] : memref<64x64xf32> to memref<63x63xf32, strided<[64, 1], offset: 65>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<63x63xf32, strided<[64, 1], offset: 65>>) outs(%out : memref<63x63xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// REMARK: remark: matmul 64x64x16 on Tensor Cores: mma.sync {{.*}}, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @view_read_twice(
// CHECK: memref.alloc() : memref<64x64xf32>
// CHECK: gpu.launch
// CHECK: linalg.generic
// CHECK: linalg.copy
func.func @view_read_twice(%a: memref<64x16xf16>, %b: memref<16x64xf16>, %out: memref<63x63xf32>, %copy: memref<63x63xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf16>, memref<16x64xf16>) outs(%t : memref<64x64xf32>)
  %v = memref.subview %t[0, 0] [63, 63] [1, 1] : memref<64x64xf32> to memref<63x63xf32, strided<[64, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<63x63xf32, strided<[64, 1]>>) outs(%out : memref<63x63xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.copy ins(%v : memref<63x63xf32, strided<[64, 1]>>) outs(%copy : memref<63x63xf32>)
  return
}

// The tiled SIMT kernel (K = 12 takes no asynchronous copies) stores the
// same way.
// REMARK: remark: matmul not on Tensor Cores (SIMT kernel): {{.*}}, fused epilogue (mulf) into f32, stored inside 63x63 (the products outside are dropped)
// CHECK-LABEL: func.func @padded_unscale_simt(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}] : memref<63x63xf32>
// CHECK: return
func.func @padded_unscale_simt(%a: memref<64x12xf16>, %b: memref<12x64xf16>, %s: memref<f32>, %out: memref<63x63xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x12xf16>, memref<12x64xf16>) outs(%t : memref<64x64xf32>)
  %v = memref.subview %t[0, 0] [63, 63] [1, 1] : memref<64x64xf32> to memref<63x63xf32, strided<[64, 1]>>
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %s : memref<63x63xf32, strided<[64, 1]>>, memref<f32>) outs(%out : memref<63x63xf32>) {
  ^bb0(%x: f32, %k: f32, %o: f32):
    %y = arith.mulf %x, %k : f32
    linalg.yield %y : f32
  }
  return
}
