// mpt-split-k: a matmul on tensors with an f32 output whose 64 x 64 tiles
// are too few for `sms` SMs becomes a batch_matmul over S slices of K (A's
// expanded shape transposed, B's expanded shape; f32 products from zero)
// and a generic that adds them to the matmul's output in order, joined by
// the elementwise op that is its only user. S: the
// largest power of two up to `splits` with tiles x S <= sms, slices of
// whole 64-element K tiles and at least `min-slice` long.
// RUN: rm -rf %t && split-file %s %t
// RUN: mpt-opt %t/split.mlir --mpt-split-k=splits=16 2>&1 | FileCheck %s --check-prefix=SPLIT16
// RUN: mpt-opt %t/split.mlir --mpt-split-k=splits=2 2>&1 | FileCheck %s --check-prefix=SPLIT2
// RUN: mpt-opt %t/split.mlir --mpt-split-k="splits=16 min-slice=2048" 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: mpt-opt %t/split.mlir --mpt-split-k 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: mpt-opt %t/keep.mlir --mpt-split-k=splits=16 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: mpt-opt %t/bad-splits.mlir --mpt-split-k=splits=0 -verify-diagnostics -o /dev/null
// RUN: mpt-opt %t/bad-slice.mlir --mpt-split-k="splits=4 min-slice=32" -verify-diagnostics -o /dev/null

//--- split.mlir
// 256 x 256 is 16 tiles: 8 slices of 1024 fill 128 of 132 SMs. C plus the
// slices, elementwise (one input per slice, in order).
// SPLIT16: remark: matmul 256x256x8192 split along K into 8 slices of 1024 (128 tiles of 64x64 for sms=132): a batch of 8 matmuls, their f32 products added in order
// SPLIT16: remark: matmul 128x64x4096 split along K into 16 slices of 256 (32 tiles of 64x64 for sms=132)
// SPLIT16-LABEL: func.func @weight_gradient
// SPLIT16-SAME: (%[[A:.*]]: tensor<256x8192xf16>, %[[B:.*]]: tensor<8192x256xf16>, %[[C:.*]]: tensor<256x256xf32>)
// SPLIT16: %[[AS:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0], [1, 2]] output_shape [256, 8, 1024] : tensor<256x8192xf16> into tensor<256x8x1024xf16>
// SPLIT16: %[[AT:.*]] = linalg.transpose ins(%[[AS]] : tensor<256x8x1024xf16>) outs(%{{.*}} : tensor<8x256x1024xf16>) permutation = [1, 0, 2]
// SPLIT16: %[[BS:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1], [2]] output_shape [8, 1024, 256] : tensor<8192x256xf16> into tensor<8x1024x256xf16>
// SPLIT16: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x256x256xf32>)
// SPLIT16: %[[P:.*]] = linalg.batch_matmul ins(%[[AT]], %[[BS]] : tensor<8x256x1024xf16>, tensor<8x1024x256xf16>) outs(%[[ZERO]] : tensor<8x256x256xf32>)
// SPLIT16: %[[P0:.*]] = tensor.extract_slice %[[P]][0, 0, 0] [1, 256, 256] [1, 1, 1] : tensor<8x256x256xf32> to tensor<256x256xf32>
// SPLIT16: %[[P1:.*]] = tensor.extract_slice %[[P]][1, 0, 0] [1, 256, 256] [1, 1, 1]
// SPLIT16-COUNT-5: tensor.extract_slice %[[P]]
// SPLIT16: %[[P7:.*]] = tensor.extract_slice %[[P]][7, 0, 0] [1, 256, 256] [1, 1, 1]
// SPLIT16: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[P0]], %[[P1]], {{.*}}, %[[P7]] : {{.*}}) outs(%[[C]] : tensor<256x256xf32>)
// SPLIT16-NEXT: ^bb0(%[[X0:[^:]*]]: f32, %[[X1:[^:]*]]: f32, {{.*}}, %[[X7:[^:]*]]: f32, %[[OUT:[^:]*]]: f32):
// SPLIT16-NEXT: %[[S0:.*]] = arith.addf %[[OUT]], %[[X0]] : f32
// SPLIT16-NEXT: %[[S1:.*]] = arith.addf %[[S0]], %[[X1]] : f32
// SPLIT16-COUNT-5: arith.addf
// SPLIT16-NEXT: %[[S7:.*]] = arith.addf %{{.*}}, %[[X7]] : f32
// SPLIT16-NEXT: linalg.yield %[[S7]] : f32
// SPLIT16: return %[[SUM]]
// SPLIT2: remark: matmul 256x256x8192 split along K into 2 slices of 4096 (32 tiles of 64x64 for sms=132)
// LONG: remark: matmul 256x256x8192 split along K into 4 slices of 2048
// OFF-NOT: remark
// OFF: linalg.matmul
func.func @weight_gradient(%a: tensor<256x8192xf16>, %b: tensor<8192x256xf16>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x8192xf16>, tensor<8192x256xf16>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// From a fill of zeros (as `acc(f32)` lowers), with the rounding after it:
// the sum starts from the first slice, and the rounding joins it (one
// elementwise op; no fill of C, no f32 C).
// SPLIT16-LABEL: func.func @rounded
// SPLIT16: %[[P:.*]] = linalg.batch_matmul {{.*}} -> tensor<16x128x64xf32>
// SPLIT16: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<128x64xf32>, {{.*}}) outs(%{{.*}} : tensor<128x64xf16>)
// SPLIT16-NEXT: ^bb0(%[[X0:[^:]*]]: f32, %[[X1:[^:]*]]: f32,
// SPLIT16-NEXT: %[[S1:.*]] = arith.addf %[[X0]], %[[X1]] : f32
// SPLIT16-COUNT-14: arith.addf
// SPLIT16-NEXT: %[[T:.*]] = arith.truncf %{{.*}} : f32 to f16
// SPLIT16-NEXT: linalg.yield %[[T]] : f16
// SPLIT16: return %[[R]]
// SPLIT16-NOT: linalg.matmul
func.func @rounded(%a: tensor<128x4096xbf16>, %b: tensor<4096x64xbf16>) -> tensor<128x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x4096xbf16>, tensor<4096x64xbf16>) outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  %e16 = tensor.empty() : tensor<128x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<128x64xf32>) outs(%e16 : tensor<128x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<128x64xf16>
  return %h : tensor<128x64xf16>
}

//--- keep.mlir
// Left alone: an output of 256 tiles (already more than 132 SMs), an f16
// output (the sum would be rounded per slice), K without two whole slices
// of at least 256 (1000 is not a multiple of 128; 384 is too short),
// indexing maps of its own, buffers.
// KEEP-NOT: remark
// KEEP-NOT: linalg.batch_matmul
// KEEP-COUNT-6: linalg.matmul
func.func @keep(%a: tensor<1024x4096xf16>, %b: tensor<4096x1024xf16>, %c: tensor<1024x1024xf32>,
                %d: tensor<64x4096xf16>, %e: tensor<4096x64xf16>, %f: tensor<64x64xf16>,
                %g: tensor<64x1000xf16>, %h: tensor<1000x64xf16>, %i: tensor<64x64xf32>,
                %j: tensor<64x384xf16>, %k: tensor<384x64xf16>,
                %l: tensor<4096x64xf16>,
                %ma: memref<64x4096xf16>, %mb: memref<4096x64xf16>, %mc: memref<64x64xf32>)
    -> (tensor<1024x1024xf32>, tensor<64x64xf16>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<1024x4096xf16>, tensor<4096x1024xf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<64x4096xf16>, tensor<4096x64xf16>) outs(%f : tensor<64x64xf16>) -> tensor<64x64xf16>
  %2 = linalg.matmul ins(%g, %h : tensor<64x1000xf16>, tensor<1000x64xf16>) outs(%i : tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = linalg.matmul ins(%j, %k : tensor<64x384xf16>, tensor<384x64xf16>) outs(%i : tensor<64x64xf32>) -> tensor<64x64xf32>
  %4 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%l, %e : tensor<4096x64xf16>, tensor<4096x64xf16>) outs(%i : tensor<64x64xf32>) -> tensor<64x64xf32>
  linalg.matmul ins(%ma, %mb : memref<64x4096xf16>, memref<4096x64xf16>) outs(%mc : memref<64x64xf32>)
  return %0, %1, %2, %3, %4 : tensor<1024x1024xf32>, tensor<64x64xf16>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}

//--- bad-splits.mlir
// expected-error @+1 {{mpt-split-k: expects splits >= 1, sms >= 1 and min-slice >= 64 (a K tile); got splits=0, sms=132, min-slice=256}}
func.func @f() {
  return
}

//--- bad-slice.mlir
// expected-error @+1 {{mpt-split-k: expects splits >= 1, sms >= 1 and min-slice >= 64 (a K tile); got splits=4, sms=132, min-slice=32}}
func.func @f() {
  return
}
