// Casts between float types of the same width where neither represents the
// other (f16 <-> bf16, f8E5M2 <-> f8E4M3FN) go through f32: one exact extf,
// then one truncf.
// RUN: mpt-opt %s --convert-mpt-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @cast_f16_to_bf16(
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @cast_f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = mpt.cast %x : tensor<4xf16> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @cast_bf16_to_f16(
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cast_bf16_to_f16(%x: tensor<4xbf16>) -> tensor<4xf16> {
  %0 = mpt.cast %x : tensor<4xbf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @cast_f8_e5m2_to_e4m3(
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f8E5M2 to
// CHECK: arith.truncf %{{.*}} to f8E4M3FN
func.func @cast_f8_e5m2_to_e4m3(%x: tensor<4xf8E5M2>) -> tensor<4xf8E4M3FN> {
  %0 = mpt.cast %x : tensor<4xf8E5M2> to tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}
