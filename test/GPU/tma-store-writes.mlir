// A kernel that stores through a TMA tensor map (tma-store=1) writes the
// map's tensor: the map carries mpt.tma_store, and the passes after
// mpt-linalg-to-tensor-cores count it as a write of the buffer. Here a
// transpose of the buffer, taken before the kernel, is not folded into the
// loop after the kernel that reads it (which would then read the kernel's
// results).
// RUN: mpt-opt %s --pass-pipeline="builtin.module(func.func(mpt-linalg-to-tensor-cores{chip=sm_90a tma-store=1},mpt-fold-transposes-into-loads))" 2> /dev/null | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// The kernel's fused epilogue TMA-stores the rounding into the transposed
// buffer, which the kernel does not otherwise take.
// CHECK-LABEL: func.func @transpose_before_epilogue(
// CHECK: linalg.transpose
// CHECK: nvgpu.tma.create.descriptor {{.*}} {mpt.tma_store} : memref<*xf16>
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @transpose_before_epilogue(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %x: memref<128x128xf16> {bufferize.result}, %y: memref<128x128xf16> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<128x128xf16>
  linalg.transpose ins(%x : memref<128x128xf16>) outs(%t : memref<128x128xf16>) permutation = [1, 0]
  %acc = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%acc : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<128x128xf32>) outs(%x : memref<128x128xf16>) {
  ^bb0(%v: f32, %o: f16):
    %r = arith.truncf %v : f32 to f16
    linalg.yield %r : f16
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<128x128xf16>) outs(%y : memref<128x128xf16>) {
  ^bb0(%v: f16, %o: f16):
    %n = arith.negf %v : f16
    linalg.yield %n : f16
  }
  return
}

// The same where the kernel stores its f32 products into a zero-filled C.
// CHECK-LABEL: func.func @transpose_before_store(
// CHECK: linalg.transpose
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @transpose_before_store(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %x: memref<128x128xf32> {bufferize.result}, %y: memref<128x128xf32> {bufferize.result}) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<128x128xf32>
  linalg.transpose ins(%x : memref<128x128xf32>) outs(%t : memref<128x128xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%x : memref<128x128xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%x : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<128x128xf32>) outs(%y : memref<128x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  }
  return
}
