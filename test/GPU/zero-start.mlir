// A matmul whose C a zero fill wrote just before (the last op that touches
// C, all of it) stores its products: the Tensor Core and tiled SIMT kernels
// start from zero and do not read C, and the fill goes. Where something
// reads or writes C in between, the fill covers part of C or is not zero,
// or C may be A or B (two arguments a caller may pass the same buffer to),
// the fill stays and the kernel adds.
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" 2> /dev/null | FileCheck %s
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_80}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_90a tma-store=1}))" 2>&1 | FileCheck %s --check-prefix=TMA

// REMARK: remark: matmul 128x128x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, ldmatrix, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @stores(
// CHECK-SAME: %[[C:[^:]*]]: memref<128x128xf32> {bufferize.result})
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: vector.load %[[C]]
// CHECK: vector.store {{.*}}, %[[C]]
// CHECK-NOT: vector.load %[[C]]
// CHECK: return
// The TMA store kernel writes C through its tensor map.
// TMA: remark: matmul 128x128x64 on Tensor Cores: wgmma {{.*}} TMA stores of 64x32), products stored into C (its zero fill dropped)
// TMA-LABEL: func.func @stores(
// TMA: nvgpu.tma.create.descriptor {{.*}} {mpt.tma_store} : memref<*xf32>
func.func @stores(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}

// The tiled SIMT kernel (f32 operands) stores too.
// REMARK: remark: matmul not on Tensor Cores (SIMT kernel): {{.*}}; tiled SIMT kernel: {{.*}}, products stored into C (its zero fill dropped)
// CHECK-LABEL: func.func @simt(
// CHECK-SAME: %[[C:[^:]*]]: memref<100x100xf32> {bufferize.result})
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: {{memref|vector}}.load %[[C]]
// CHECK: {{memref|vector}}.store {{.*}}, %[[C]]
// CHECK-NOT: {{memref|vector}}.load %[[C]]
// CHECK: return
func.func @simt(%a: memref<100x100xf32>, %b: memref<100x100xf32>, %c: memref<100x100xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<100x100xf32>)
  linalg.matmul ins(%a, %b : memref<100x100xf32>, memref<100x100xf32>) outs(%c : memref<100x100xf32>)
  return
}

// A fill of all of C's buffer, C a view of it; ops between that do not
// touch C (a fill of another buffer, a view) do not matter.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: {{.*}}, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @whole_buffer(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<8xf32>)
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @whole_buffer(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %d: memref<8xf32> {bufferize.result}) -> memref<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<2x64x128xf32>
  linalg.fill ins(%zero : f32) outs(%buf : memref<2x64x128xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<8xf32>)
  %c = memref.collapse_shape %buf [[0, 1], [2]] : memref<2x64x128xf32> into memref<128x128xf32>
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return %c : memref<128x128xf32>
}

// bufferization's copy of a zero tensor that several matmuls start from:
// the copy goes, and the zeros with it when nothing else reads them.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: {{.*}}, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @copy_of_zeros(
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: gpu.launch
// CHECK-NOT: memref.copy
// CHECK: return
func.func @copy_of_zeros(%a: memref<128x64xf16>, %b: memref<64x128xf16>) -> memref<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<128x128xf32>)
  %c = memref.alloc() : memref<128x128xf32>
  memref.copy %z, %c : memref<128x128xf32> to memref<128x128xf32>
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return %c : memref<128x128xf32>
}

// Two matmuls from one buffer of zeros: the zeros stay for the second
// and go with its copy.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: {{.*}}, products stored into C (its zero fill dropped){{$}}
// REMARK: remark: matmul 128x128x64 on Tensor Cores: {{.*}}, products stored into C (its zero fill dropped){{$}}
// CHECK-LABEL: func.func @two_from_zeros(
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: gpu.launch
// CHECK-NOT: memref.copy
// CHECK: gpu.launch
// CHECK-NOT: memref.copy
// CHECK: return
func.func @two_from_zeros(%a: memref<128x64xf16>, %b: memref<64x128xf16>) -> (memref<128x128xf32>, memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<128x128xf32>)
  %c = memref.alloc() : memref<128x128xf32>
  memref.copy %z, %c : memref<128x128xf32> to memref<128x128xf32>
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  %d = memref.alloc() : memref<128x128xf32>
  memref.copy %z, %d : memref<128x128xf32> to memref<128x128xf32>
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%d : memref<128x128xf32>)
  return %c, %d : memref<128x128xf32>, memref<128x128xf32>
}

// Not dropped: an op between reads C.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, ldmatrix{{$}}
// CHECK-LABEL: func.func @read_between(
// CHECK: linalg.fill
// CHECK: linalg.copy
// CHECK: gpu.launch
// CHECK: vector.load
func.func @read_between(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32> {bufferize.result}, %d: memref<128x128xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  linalg.copy ins(%c : memref<128x128xf32>) outs(%d : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}

// Not dropped: the fill covers part of C's buffer.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, ldmatrix{{$}}
// CHECK-LABEL: func.func @part(
// CHECK: linalg.fill
// CHECK: gpu.launch
func.func @part(%a: memref<128x64xf16>, %b: memref<64x128xf16>) -> memref<2x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<2x128x128xf32>
  %c = memref.subview %buf[0, 0, 0] [1, 128, 128] [1, 1, 1] : memref<2x128x128xf32> to memref<128x128xf32, strided<[128, 1]>>
  %cc = memref.cast %c : memref<128x128xf32, strided<[128, 1]>> to memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%buf : memref<2x128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%cc : memref<128x128xf32>)
  return %buf : memref<2x128x128xf32>
}

// Not dropped: the fill is not zero.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, ldmatrix{{$}}
// CHECK-LABEL: func.func @ones(
// CHECK: linalg.fill
// CHECK: gpu.launch
func.func @ones(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32> {bufferize.result}) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}

// Not dropped: C and A are arguments, which a caller may pass one buffer to.
// REMARK: remark: matmul 128x128x64 on Tensor Cores: mma.sync m16n8k16, {{.*}}, ldmatrix{{$}}
// CHECK-LABEL: func.func @may_alias(
// CHECK: linalg.fill
// CHECK: gpu.launch
func.func @may_alias(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  return
}
