// RUN: mpt-opt %s --mpt-lower-to-cpu | FileCheck %s \
// RUN:   --implicit-check-not=mpt. --implicit-check-not=linalg. \
// RUN:   --implicit-check-not=tensor. --implicit-check-not=bufferization. \
// RUN:   --implicit-check-not=memref. --implicit-check-not=func.func \
// RUN:   --implicit-check-not=arith. --implicit-check-not=math. \
// RUN:   --implicit-check-not=scf. --implicit-check-not=cf. \
// RUN:   --implicit-check-not=affine. --implicit-check-not=unrealized_conversion_cast

// mpt-lower-to-cpu takes an mpt program all the way to the llvm dialect: no
// op of any other dialect may remain (the implicit-check-nots above).

// A small MLP: matmul, bias add, relu, matmul, softmax. Each tensor argument
// becomes an expanded memref descriptor (allocated ptr, aligned ptr, offset,
// sizes, strides). Whether the result is a caller-allocated out-parameter is
// checked by pipeline-out-params.mlir.
// CHECK-LABEL: llvm.func @mlp(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64
// The matmul loops multiply-add in f32.
// CHECK: %[[P:.*]] = llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: llvm.fadd %{{.*}}, %[[P]] : f32
// softmax's exp is a libm call.
// CHECK: llvm.call @expf(%{{.*}}) : (f32) -> f32
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK: llvm.return
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
               %w2: tensor<16x2xf32>) -> tensor<4x2xf32> {
  %0 = mpt.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mpt.add %0, %b1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = mpt.relu %1 : tensor<4x16xf32>
  %3 = mpt.matmul %2, %w2 : (tensor<4x16xf32>, tensor<16x2xf32>) -> tensor<4x2xf32>
  %4 = mpt.softmax %3 : tensor<4x2xf32>
  return %4 : tensor<4x2xf32>
}

// Two f16 ops fused into one loop keep one rounding per op: the sum is
// truncated to f16 and extended again before the product.
// CHECK-LABEL: llvm.func @chain_f16(
// CHECK: %[[A:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK-NEXT: %[[B:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK-NEXT: %[[S:.*]] = llvm.fadd %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[SH:.*]] = llvm.fptrunc %[[S]] : f32 to f16
// CHECK-NEXT: %[[SE:.*]] = llvm.fpext %[[SH]] : f16 to f32
// CHECK-NEXT: %[[P:.*]] = llvm.fmul %[[SE]], %[[B]] : f32
// CHECK-NEXT: llvm.fptrunc %[[P]] : f32 to f16
// CHECK: llvm.return
func.func @chain_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mpt.add %a, %b : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %1 = mpt.mul %0, %b : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %1 : tensor<4xf16>
}

// The same on bf16.
// CHECK-LABEL: llvm.func @chain_bf16(
// CHECK: %[[A:.*]] = llvm.fpext %{{.*}} : bf16 to f32
// CHECK-NEXT: %[[B:.*]] = llvm.fpext %{{.*}} : bf16 to f32
// CHECK-NEXT: %[[S:.*]] = llvm.fadd %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[SH:.*]] = llvm.fptrunc %[[S]] : f32 to bf16
// CHECK-NEXT: %[[SE:.*]] = llvm.fpext %[[SH]] : bf16 to f32
// CHECK-NEXT: %[[P:.*]] = llvm.fmul %[[SE]], %[[B]] : f32
// CHECK-NEXT: llvm.fptrunc %[[P]] : f32 to bf16
// CHECK: llvm.return
func.func @chain_bf16(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = mpt.add %a, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %1 = mpt.mul %0, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}
