// RUN: mpt-opt %s | mpt-opt | FileCheck %s
// RUN: mpt-opt %s --mlir-print-op-generic | mpt-opt | FileCheck %s
// RUN: mpt-opt %s --emit-bytecode | mpt-opt | FileCheck %s

// Round trip of every op of the mpt dialect through the custom form, the
// generic form and bytecode. Optional attributes holding their default value
// are elided by the printer; the checks match the whole op so that they prove
// both that a non-default attribute is printed and that a default one is not.

//===----------------------------------------------------------------------===//
// Function argument and result roles
//===----------------------------------------------------------------------===//

// All seven roles on arguments and results.
// CHECK-LABEL: func.func @roles(
// CHECK-SAME: %[[P:.*]]: tensor<8xf32> {mpt.role = #mpt.role<parameter>}, %[[I:.*]]: tensor<8xf32> {mpt.role = #mpt.role<input>}, %[[L:.*]]: tensor<8xi64> {mpt.role = #mpt.role<label>}, %[[G:.*]]: tensor<8xf32> {mpt.role = #mpt.role<gradient>}, %[[O:.*]]: tensor<8xf32> {mpt.role = #mpt.role<optimizer_state>}, %[[S:.*]]: tensor<f32> {mpt.role = #mpt.role<loss_scale_state>})
// CHECK-SAME: -> (tensor<f32> {mpt.role = #mpt.role<loss>}, tensor<8xf32> {mpt.role = #mpt.role<parameter>})
// CHECK-NEXT: return %[[S]], %[[P]] : tensor<f32>, tensor<8xf32>
func.func @roles(%p: tensor<8xf32> {mpt.role = #mpt.role<parameter>},
                 %i: tensor<8xf32> {mpt.role = #mpt.role<input>},
                 %l: tensor<8xi64> {mpt.role = #mpt.role<label>},
                 %g: tensor<8xf32> {mpt.role = #mpt.role<gradient>},
                 %o: tensor<8xf32> {mpt.role = #mpt.role<optimizer_state>},
                 %s: tensor<f32> {mpt.role = #mpt.role<loss_scale_state>})
    -> (tensor<f32> {mpt.role = #mpt.role<loss>},
        tensor<8xf32> {mpt.role = #mpt.role<parameter>}) {
  return %s, %p : tensor<f32>, tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// Compute ops
//===----------------------------------------------------------------------===//

// matmul: transpose_a, transpose_b, acc(T), dynamic M, f8/f64 element types
// and a discardable attribute in the attr-dict.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<16x8xf16>, %[[AT:.*]]: tensor<8x4xf16>, %[[D:.*]]: tensor<?x8xf32>, %[[E:.*]]: tensor<8x16xf32>, %[[F8A:.*]]: tensor<16x32xf8E4M3FN>, %[[F8B:.*]]: tensor<32x8xf8E4M3FN>, %[[F8C:.*]]: tensor<4x4xf8E5M2>, %[[F64:.*]]: tensor<4x4xf64>)
func.func @matmul(%a: tensor<4x8xf16>, %b: tensor<16x8xf16>, %at: tensor<8x4xf16>,
                  %d: tensor<?x8xf32>, %e: tensor<8x16xf32>,
                  %f8a: tensor<16x32xf8E4M3FN>, %f8b: tensor<32x8xf8E4M3FN>,
                  %f8c: tensor<4x4xf8E5M2>, %f64: tensor<4x4xf64>) {
  // CHECK-NEXT: mpt.matmul %[[A]], %[[B]] transpose_b acc(f32) : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  %0 = mpt.matmul %a, %b transpose_b acc(f32) : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  // CHECK-NEXT: mpt.matmul %[[AT]], %[[B]] transpose_a transpose_b : (tensor<8x4xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  %1 = mpt.matmul %at, %b transpose_a transpose_b : (tensor<8x4xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  // CHECK-NEXT: mpt.matmul %[[AT]], %[[AT]] transpose_a : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  %2 = mpt.matmul %at, %at transpose_a : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  // CHECK-NEXT: mpt.matmul %[[D]], %[[E]] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  %3 = mpt.matmul %d, %e : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  // CHECK-NEXT: mpt.matmul %[[F8A]], %[[F8B]] acc(f16) : (tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>) -> tensor<16x8xf8E4M3FN>
  %4 = mpt.matmul %f8a, %f8b acc(f16) : (tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>) -> tensor<16x8xf8E4M3FN>
  // CHECK-NEXT: mpt.matmul %[[F8C]], %[[F8C]] {tag = "x"} : (tensor<4x4xf8E5M2>, tensor<4x4xf8E5M2>) -> tensor<4x4xf8E5M2>
  %5 = mpt.matmul %f8c, %f8c {tag = "x"} : (tensor<4x4xf8E5M2>, tensor<4x4xf8E5M2>) -> tensor<4x4xf8E5M2>
  // CHECK-NEXT: mpt.matmul %[[F64]], %[[F64]] acc(f64) : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  %6 = mpt.matmul %f64, %f64 acc(f64) : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  return
}

// batch_matmul: plain, transpose_a, transpose_b with acc(f32), on bf16.
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME: %[[Q:.*]]: tensor<2x3x8x4xbf16>, %[[K:.*]]: tensor<2x3x4x8xbf16>)
func.func @batch_matmul(%q: tensor<2x3x8x4xbf16>, %k: tensor<2x3x4x8xbf16>) {
  // CHECK-NEXT: mpt.batch_matmul %[[Q]], %[[K]] : (tensor<2x3x8x4xbf16>, tensor<2x3x4x8xbf16>) -> tensor<2x3x8x8xbf16>
  %0 = mpt.batch_matmul %q, %k : (tensor<2x3x8x4xbf16>, tensor<2x3x4x8xbf16>) -> tensor<2x3x8x8xbf16>
  // CHECK-NEXT: mpt.batch_matmul %[[Q]], %[[Q]] transpose_b acc(f32) : (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>) -> tensor<2x3x8x8xbf16>
  %1 = mpt.batch_matmul %q, %q transpose_b acc(f32) : (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>) -> tensor<2x3x8x8xbf16>
  // CHECK-NEXT: mpt.batch_matmul %[[Q]], %[[Q]] transpose_a : (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>) -> tensor<2x3x4x4xbf16>
  %2 = mpt.batch_matmul %q, %q transpose_a : (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>) -> tensor<2x3x4x4xbf16>
  return
}

// conv2d: defaults, stride/pad/dilation, layout<nhwc> with groups and
// acc(f32), and explicitly spelled defaults (elided when printed).
// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME: %[[X:.*]]: tensor<8x3x32x32xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[XH:.*]]: tensor<8x32x32x4xf16>, %[[WH:.*]]: tensor<3x3x2x8xf16>)
func.func @conv2d(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>,
                  %xh: tensor<8x32x32x4xf16>, %wh: tensor<3x3x2x8xf16>) {
  // CHECK-NEXT: mpt.conv2d %[[X]], %[[W]] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  %0 = mpt.conv2d %x, %w : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  // CHECK-NEXT: mpt.conv2d %[[X]], %[[W]] stride [2, 2] pad [1, 1, 1, 1] dilation [2, 2] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x15x15xf32>
  %1 = mpt.conv2d %x, %w stride [2, 2] pad [1, 1, 1, 1] dilation [2, 2] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x15x15xf32>
  // CHECK-NEXT: mpt.conv2d %[[XH]], %[[WH]] layout<nhwc> stride [1, 2] pad [1, 1, 0, 0] groups 2 acc(f32) : (tensor<8x32x32x4xf16>, tensor<3x3x2x8xf16>) -> tensor<8x32x15x8xf16>
  %2 = mpt.conv2d %xh, %wh layout<nhwc> stride [1, 2] pad [1, 1, 0, 0] groups 2 acc(f32) : (tensor<8x32x32x4xf16>, tensor<3x3x2x8xf16>) -> tensor<8x32x15x8xf16>
  // CHECK-NEXT: mpt.conv2d %[[X]], %[[W]] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  %3 = mpt.conv2d %x, %w layout<nchw> stride [1, 1] pad [0, 0, 0, 0] dilation [1, 1] groups 1 : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// embedding: i64 and i32 indices into a bf16 table.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[T:.*]]: tensor<1000x64xbf16>, %[[IDS:.*]]: tensor<8x16xi64>, %[[IDS32:.*]]: tensor<4xi32>)
func.func @embedding(%t: tensor<1000x64xbf16>, %ids: tensor<8x16xi64>, %ids32: tensor<4xi32>) {
  // CHECK-NEXT: mpt.embedding %[[T]], %[[IDS]] : (tensor<1000x64xbf16>, tensor<8x16xi64>) -> tensor<8x16x64xbf16>
  %0 = mpt.embedding %t, %ids : (tensor<1000x64xbf16>, tensor<8x16xi64>) -> tensor<8x16x64xbf16>
  // CHECK-NEXT: mpt.embedding %[[T]], %[[IDS32]] : (tensor<1000x64xbf16>, tensor<4xi32>) -> tensor<4x64xbf16>
  %1 = mpt.embedding %t, %ids32 : (tensor<1000x64xbf16>, tensor<4xi32>) -> tensor<4x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Binary ops with numpy broadcasting, including dynamic dimensions.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME: %[[A:.*]]: tensor<32x128xf32>, %[[B:.*]]: tensor<128xf32>, %[[C:.*]]: tensor<?x8xf32>, %[[D:.*]]: tensor<1x8xf32>)
func.func @binary(%a: tensor<32x128xf32>, %b: tensor<128xf32>, %c: tensor<?x8xf32>, %d: tensor<1x8xf32>) {
  // CHECK-NEXT: mpt.add %[[A]], %[[B]] : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %0 = mpt.add %a, %b : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  // CHECK-NEXT: mpt.sub %[[A]], %[[A]] : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  %1 = mpt.sub %a, %a : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  // CHECK-NEXT: mpt.mul %[[C]], %[[D]] : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  %2 = mpt.mul %c, %d : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  // CHECK-NEXT: mpt.div %[[B]], %[[A]] : (tensor<128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  %3 = mpt.div %b, %a : (tensor<128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  // CHECK-NEXT: mpt.max %[[C]], %[[C]] : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %4 = mpt.max %c, %c : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK-NEXT: mpt.min %[[D]], %[[C]] : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %5 = mpt.min %d, %c : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  // CHECK-NEXT: mpt.pow %[[A]], %[[B]] : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %6 = mpt.pow %a, %b : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  return
}

// Binary ops on every float element type.
// CHECK-LABEL: func.func @element_types(
// CHECK-SAME: %[[F32:.*]]: tensor<4xf32>, %[[F16:.*]]: tensor<4xf16>, %[[BF16:.*]]: tensor<4xbf16>, %[[E4M3:.*]]: tensor<4xf8E4M3FN>, %[[E5M2:.*]]: tensor<4xf8E5M2>, %[[F64:.*]]: tensor<4xf64>)
func.func @element_types(%f32: tensor<4xf32>, %f16: tensor<4xf16>, %bf16: tensor<4xbf16>,
                         %e4m3: tensor<4xf8E4M3FN>, %e5m2: tensor<4xf8E5M2>, %f64: tensor<4xf64>) {
  // CHECK-NEXT: mpt.add %[[F32]], %[[F32]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %0 = mpt.add %f32, %f32 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: mpt.add %[[F16]], %[[F16]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %1 = mpt.add %f16, %f16 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  // CHECK-NEXT: mpt.add %[[BF16]], %[[BF16]] : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %2 = mpt.add %bf16, %bf16 : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  // CHECK-NEXT: mpt.add %[[E4M3]], %[[E4M3]] : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  %3 = mpt.add %e4m3, %e4m3 : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  // CHECK-NEXT: mpt.add %[[E5M2]], %[[E5M2]] : (tensor<4xf8E5M2>, tensor<4xf8E5M2>) -> tensor<4xf8E5M2>
  %4 = mpt.add %e5m2, %e5m2 : (tensor<4xf8E5M2>, tensor<4xf8E5M2>) -> tensor<4xf8E5M2>
  // CHECK-NEXT: mpt.add %[[F64]], %[[F64]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %5 = mpt.add %f64, %f64 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return
}

// Unary ops; gelu with approximate<tanh>, and approximate<none> (the default,
// elided when printed).
// CHECK-LABEL: func.func @unary(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf16>)
func.func @unary(%x: tensor<4x8xf16>) {
  // CHECK-NEXT: mpt.neg %[[X]] : tensor<4x8xf16>
  %0 = mpt.neg %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.abs %[[X]] : tensor<4x8xf16>
  %1 = mpt.abs %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.exp %[[X]] : tensor<4x8xf16>
  %2 = mpt.exp %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.log %[[X]] : tensor<4x8xf16>
  %3 = mpt.log %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.sqrt %[[X]] : tensor<4x8xf16>
  %4 = mpt.sqrt %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.rsqrt %[[X]] : tensor<4x8xf16>
  %5 = mpt.rsqrt %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.reciprocal %[[X]] : tensor<4x8xf16>
  %6 = mpt.reciprocal %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.tanh %[[X]] : tensor<4x8xf16>
  %7 = mpt.tanh %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.sigmoid %[[X]] : tensor<4x8xf16>
  %8 = mpt.sigmoid %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.relu %[[X]] : tensor<4x8xf16>
  %9 = mpt.relu %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.gelu %[[X]] : tensor<4x8xf16>
  %10 = mpt.gelu %x : tensor<4x8xf16>
  // CHECK-NEXT: mpt.gelu %[[X]] approximate<tanh> : tensor<4x8xf16>
  %11 = mpt.gelu %x approximate<tanh> : tensor<4x8xf16>
  // CHECK-NEXT: mpt.gelu %[[X]] : tensor<4x8xf16>
  %12 = mpt.gelu %x approximate<none> : tensor<4x8xf16>
  return
}

//===----------------------------------------------------------------------===//
// Normalization and reductions
//===----------------------------------------------------------------------===//

// softmax / log_softmax: default axis, positive and negative axes; axis = -1
// is the default and is elided.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:.*]]: tensor<32x10xf32>)
func.func @softmax(%x: tensor<32x10xf32>) {
  // CHECK-NEXT: mpt.softmax %[[X]] : tensor<32x10xf32>
  %0 = mpt.softmax %x : tensor<32x10xf32>
  // CHECK-NEXT: mpt.softmax %[[X]] axis = 0 : tensor<32x10xf32>
  %1 = mpt.softmax %x axis = 0 : tensor<32x10xf32>
  // CHECK-NEXT: mpt.softmax %[[X]] : tensor<32x10xf32>
  %2 = mpt.softmax %x axis = -1 : tensor<32x10xf32>
  // CHECK-NEXT: mpt.log_softmax %[[X]] : tensor<32x10xf32>
  %3 = mpt.log_softmax %x : tensor<32x10xf32>
  // CHECK-NEXT: mpt.log_softmax %[[X]] axis = -2 : tensor<32x10xf32>
  %4 = mpt.log_softmax %x axis = -2 : tensor<32x10xf32>
  return
}

// softmax_grad / log_softmax_grad: the result's gradient and the result.
// CHECK-LABEL: func.func @softmax_grads(
// CHECK-SAME: %[[G:.*]]: tensor<8x64x64xf16>, %[[Y:.*]]: tensor<8x64x64xf16>)
func.func @softmax_grads(%g: tensor<8x64x64xf16>, %y: tensor<8x64x64xf16>) {
  // CHECK-NEXT: mpt.softmax_grad %[[G]], %[[Y]] : tensor<8x64x64xf16>
  %0 = mpt.softmax_grad %g, %y : tensor<8x64x64xf16>
  // CHECK-NEXT: mpt.softmax_grad %[[G]], %[[Y]] axis = 1 : tensor<8x64x64xf16>
  %1 = mpt.softmax_grad %g, %y axis = 1 : tensor<8x64x64xf16>
  // CHECK-NEXT: mpt.log_softmax_grad %[[G]], %[[Y]] axis = -3 : tensor<8x64x64xf16>
  %2 = mpt.log_softmax_grad %g, %y axis = -3 : tensor<8x64x64xf16>
  return
}

// layer_norm and batch_norm: defaults, axis and epsilon; epsilon = 1.0e-5 is
// the default and is elided.
// CHECK-LABEL: func.func @norms(
// CHECK-SAME: %[[X:.*]]: tensor<8x64x256xf32>, %[[G:.*]]: tensor<256xf32>, %[[B:.*]]: tensor<256xf32>, %[[G2:.*]]: tensor<64x256xf32>, %[[Y:.*]]: tensor<8x16x32x32xbf16>, %[[S:.*]]: tensor<16xbf16>, %[[S2:.*]]: tensor<32xbf16>)
func.func @norms(%x: tensor<8x64x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>,
                 %g2: tensor<64x256xf32>, %y: tensor<8x16x32x32xbf16>,
                 %s: tensor<16xbf16>, %s2: tensor<32xbf16>) {
  // CHECK-NEXT: mpt.layer_norm %[[X]], %[[G]], %[[B]] : (tensor<8x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
  %0 = mpt.layer_norm %x, %g, %b : (tensor<8x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
  // CHECK-NEXT: mpt.layer_norm %[[X]], %[[G2]], %[[G2]] axis = 1 epsilon = 1.000000e-03 : (tensor<8x64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<8x64x256xf32>
  %1 = mpt.layer_norm %x, %g2, %g2 axis = 1 epsilon = 1.0e-3 : (tensor<8x64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<8x64x256xf32>
  // CHECK-NEXT: mpt.layer_norm %[[X]], %[[G]], %[[B]] : (tensor<8x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
  %2 = mpt.layer_norm %x, %g, %b axis = -1 epsilon = 1.0e-5 : (tensor<8x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
  // CHECK-NEXT: mpt.batch_norm %[[Y]], %[[S]], %[[S]] : (tensor<8x16x32x32xbf16>, tensor<16xbf16>, tensor<16xbf16>) -> tensor<8x16x32x32xbf16>
  %3 = mpt.batch_norm %y, %s, %s : (tensor<8x16x32x32xbf16>, tensor<16xbf16>, tensor<16xbf16>) -> tensor<8x16x32x32xbf16>
  // CHECK-NEXT: mpt.batch_norm %[[Y]], %[[S2]], %[[S2]] axis = 3 epsilon = 1.000000e-02 : (tensor<8x16x32x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<8x16x32x32xbf16>
  %4 = mpt.batch_norm %y, %s2, %s2 axis = 3 epsilon = 1.0e-2 : (tensor<8x16x32x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<8x16x32x32xbf16>
  // CHECK-NEXT: mpt.batch_norm %[[Y]], %[[S2]], %[[S2]] axis = -1 : (tensor<8x16x32x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<8x16x32x32xbf16>
  %5 = mpt.batch_norm %y, %s2, %s2 axis = -1 : (tensor<8x16x32x32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<8x16x32x32xbf16>
  return
}

// Normalizations with f32 parameters and a narrower input, and their
// gradients (f32 scale and bias gradients).
// CHECK-LABEL: func.func @norms_f32_params(
func.func @norms_f32_params(%x: tensor<8x256xf16>, %g: tensor<256xf32>,
                            %y: tensor<8x16x4x4xbf16>, %s: tensor<16xf32>) {
  // CHECK: mpt.layer_norm %{{.*}} : (tensor<8x256xf16>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256xf16>
  %0 = mpt.layer_norm %x, %g, %g : (tensor<8x256xf16>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256xf16>
  // CHECK: mpt.layer_norm_grad %{{.*}} : (tensor<8x256xf16>, tensor<8x256xf16>, tensor<256xf32>) -> (tensor<8x256xf16>, tensor<256xf32>, tensor<256xf32>)
  %1:3 = mpt.layer_norm_grad %0, %x, %g : (tensor<8x256xf16>, tensor<8x256xf16>, tensor<256xf32>) -> (tensor<8x256xf16>, tensor<256xf32>, tensor<256xf32>)
  // CHECK: mpt.batch_norm %{{.*}} : (tensor<8x16x4x4xbf16>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4x4xbf16>
  %2 = mpt.batch_norm %y, %s, %s : (tensor<8x16x4x4xbf16>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4x4xbf16>
  // CHECK: mpt.batch_norm_grad %{{.*}} : (tensor<8x16x4x4xbf16>, tensor<8x16x4x4xbf16>, tensor<16xf32>) -> (tensor<8x16x4x4xbf16>, tensor<16xf32>, tensor<16xf32>)
  %3:3 = mpt.batch_norm_grad %2, %y, %s : (tensor<8x16x4x4xbf16>, tensor<8x16x4x4xbf16>, tensor<16xf32>) -> (tensor<8x16x4x4xbf16>, tensor<16xf32>, tensor<16xf32>)
  return
}

// Reductions: one axis, keep_dims, negative axes reducing to a rank-0 tensor.
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME: %[[X:.*]]: tensor<32x128xf32>)
func.func @reductions(%x: tensor<32x128xf32>) {
  // CHECK-NEXT: mpt.reduce_sum %[[X]] axes = [1] : tensor<32x128xf32> -> tensor<32xf32>
  %0 = mpt.reduce_sum %x axes = [1] : tensor<32x128xf32> -> tensor<32xf32>
  // CHECK-NEXT: mpt.reduce_sum %[[X]] axes = [0] keep_dims : tensor<32x128xf32> -> tensor<1x128xf32>
  %1 = mpt.reduce_sum %x axes = [0] keep_dims : tensor<32x128xf32> -> tensor<1x128xf32>
  // CHECK-NEXT: mpt.reduce_mean %[[X]] axes = [1] keep_dims : tensor<32x128xf32> -> tensor<32x1xf32>
  %2 = mpt.reduce_mean %x axes = [1] keep_dims : tensor<32x128xf32> -> tensor<32x1xf32>
  // CHECK-NEXT: mpt.reduce_max %[[X]] axes = [0, -1] : tensor<32x128xf32> -> tensor<f32>
  %3 = mpt.reduce_max %x axes = [0, -1] : tensor<32x128xf32> -> tensor<f32>
  return
}

// Pooling: nchw (default) and layout<nhwc>, stride, pad, count_include_pad.
// CHECK-LABEL: func.func @pools(
// CHECK-SAME: %[[X:.*]]: tensor<8x16x32x32xf32>, %[[Y:.*]]: tensor<8x32x32x16xf16>)
func.func @pools(%x: tensor<8x16x32x32xf32>, %y: tensor<8x32x32x16xf16>) {
  // CHECK-NEXT: mpt.max_pool2d %[[X]] kernel [2, 2] stride [2, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  %0 = mpt.max_pool2d %x kernel [2, 2] stride [2, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  // CHECK-NEXT: mpt.max_pool2d %[[Y]] layout<nhwc> kernel [3, 3] stride [2, 2] pad [1, 1, 1, 1] : tensor<8x32x32x16xf16> -> tensor<8x16x16x16xf16>
  %1 = mpt.max_pool2d %y layout<nhwc> kernel [3, 3] stride [2, 2] pad [1, 1, 1, 1] : tensor<8x32x32x16xf16> -> tensor<8x16x16x16xf16>
  // CHECK-NEXT: mpt.avg_pool2d %[[X]] kernel [3, 3] pad [1, 1, 1, 1] count_include_pad : tensor<8x16x32x32xf32> -> tensor<8x16x32x32xf32>
  %2 = mpt.avg_pool2d %x kernel [3, 3] pad [1, 1, 1, 1] count_include_pad : tensor<8x16x32x32xf32> -> tensor<8x16x32x32xf32>
  // CHECK-NEXT: mpt.avg_pool2d %[[Y]] layout<nhwc> kernel [2, 2] stride [2, 2] : tensor<8x32x32x16xf16> -> tensor<8x16x16x16xf16>
  %3 = mpt.avg_pool2d %y layout<nhwc> kernel [2, 2] stride [2, 2] : tensor<8x32x32x16xf16> -> tensor<8x16x16x16xf16>
  // CHECK-NEXT: mpt.avg_pool2d %[[X]] kernel [2, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x31x31xf32>
  %4 = mpt.avg_pool2d %x layout<nchw> kernel [2, 2] stride [1, 1] pad [0, 0, 0, 0] : tensor<8x16x32x32xf32> -> tensor<8x16x31x31xf32>
  // CHECK-NEXT: mpt.global_avg_pool %[[X]] : tensor<8x16x32x32xf32> -> tensor<8x16xf32>
  %5 = mpt.global_avg_pool %x : tensor<8x16x32x32xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: mpt.global_avg_pool %[[Y]] layout<nhwc> : tensor<8x32x32x16xf16> -> tensor<8x16xf16>
  %6 = mpt.global_avg_pool %y layout<nhwc> : tensor<8x32x32x16xf16> -> tensor<8x16xf16>
  return
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// reshape and transpose, on float and integer tensors.
// CHECK-LABEL: func.func @reshape_transpose(
// CHECK-SAME: %[[X:.*]]: tensor<8x16x7x7xf32>, %[[I:.*]]: tensor<4x6xi64>)
func.func @reshape_transpose(%x: tensor<8x16x7x7xf32>, %i: tensor<4x6xi64>) {
  // CHECK-NEXT: mpt.reshape %[[X]] : tensor<8x16x7x7xf32> to tensor<8x784xf32>
  %0 = mpt.reshape %x : tensor<8x16x7x7xf32> to tensor<8x784xf32>
  // CHECK-NEXT: mpt.reshape %[[I]] : tensor<4x6xi64> to tensor<24xi64>
  %1 = mpt.reshape %i : tensor<4x6xi64> to tensor<24xi64>
  // CHECK-NEXT: mpt.transpose %[[X]] perm = [0, 2, 1, 3] : tensor<8x16x7x7xf32> -> tensor<8x7x16x7xf32>
  %2 = mpt.transpose %x perm = [0, 2, 1, 3] : tensor<8x16x7x7xf32> -> tensor<8x7x16x7xf32>
  // CHECK-NEXT: mpt.transpose %[[I]] perm = [1, 0] : tensor<4x6xi64> -> tensor<6x4xi64>
  %3 = mpt.transpose %i perm = [1, 0] : tensor<4x6xi64> -> tensor<6x4xi64>
  return
}

// broadcast and concat (two and three operands, negative axis, integers).
// CHECK-LABEL: func.func @broadcast_concat(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x32xf32>, %[[V:.*]]: tensor<128xf32>, %[[I:.*]]: tensor<2x3xi32>, %[[J:.*]]: tensor<2x5xi32>, %[[K:.*]]: tensor<3xi8>)
func.func @broadcast_concat(%a: tensor<8x16xf32>, %b: tensor<8x32xf32>, %v: tensor<128xf32>,
                            %i: tensor<2x3xi32>, %j: tensor<2x5xi32>, %k: tensor<3xi8>) {
  // CHECK-NEXT: mpt.broadcast %[[V]] : tensor<128xf32> to tensor<32x128xf32>
  %0 = mpt.broadcast %v : tensor<128xf32> to tensor<32x128xf32>
  // CHECK-NEXT: mpt.broadcast %[[K]] : tensor<3xi8> to tensor<2x3xi8>
  %1 = mpt.broadcast %k : tensor<3xi8> to tensor<2x3xi8>
  // CHECK-NEXT: mpt.concat %[[A]], %[[B]] axis = 1 : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf32>
  %2 = mpt.concat %a, %b axis = 1 : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf32>
  // CHECK-NEXT: mpt.concat %[[A]], %[[A]], %[[A]] axis = -2 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<24x16xf32>
  %3 = mpt.concat %a, %a, %a axis = -2 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<24x16xf32>
  // CHECK-NEXT: mpt.concat %[[I]], %[[J]] axis = 1 : (tensor<2x3xi32>, tensor<2x5xi32>) -> tensor<2x8xi32>
  %4 = mpt.concat %i, %j axis = 1 : (tensor<2x3xi32>, tensor<2x5xi32>) -> tensor<2x8xi32>
  return
}

// slice (with and without strides) and pad (default value, a finite value,
// -inf, and an explicit 0.0 that is elided).
// CHECK-LABEL: func.func @slice_pad(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8x32xf32>, %[[J:.*]]: tensor<2x5xi32>)
func.func @slice_pad(%a: tensor<8x16xf32>, %b: tensor<8x32xf32>, %j: tensor<2x5xi32>) {
  // CHECK-NEXT: mpt.slice %[[B]] offsets = [0, 0] sizes = [8, 16] : tensor<8x32xf32> -> tensor<8x16xf32>
  %0 = mpt.slice %b offsets = [0, 0] sizes = [8, 16] : tensor<8x32xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: mpt.slice %[[B]] offsets = [1, 1] sizes = [4, 8] strides = [2, 4] : tensor<8x32xf32> -> tensor<4x8xf32>
  %1 = mpt.slice %b offsets = [1, 1] sizes = [4, 8] strides = [2, 4] : tensor<8x32xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: mpt.slice %[[J]] offsets = [0, 1] sizes = [2, 2] strides = [1, 2] : tensor<2x5xi32> -> tensor<2x2xi32>
  %2 = mpt.slice %j offsets = [0, 1] sizes = [2, 2] strides = [1, 2] : tensor<2x5xi32> -> tensor<2x2xi32>
  // CHECK-NEXT: mpt.pad %[[A]] low = [0, 0] high = [0, 8] : tensor<8x16xf32> -> tensor<8x24xf32>
  %3 = mpt.pad %a low = [0, 0] high = [0, 8] : tensor<8x16xf32> -> tensor<8x24xf32>
  // CHECK-NEXT: mpt.pad %[[A]] low = [1, 2] high = [3, 4] value = -1.500000e+00 : tensor<8x16xf32> -> tensor<12x22xf32>
  %4 = mpt.pad %a low = [1, 2] high = [3, 4] value = -1.5 : tensor<8x16xf32> -> tensor<12x22xf32>
  // CHECK-NEXT: mpt.pad %[[A]] low = [1, 1] high = [1, 1] value = 0xFFF0000000000000 : tensor<8x16xf32> -> tensor<10x18xf32>
  %5 = mpt.pad %a low = [1, 1] high = [1, 1] value = 0xFFF0000000000000 : tensor<8x16xf32> -> tensor<10x18xf32>
  // CHECK-NEXT: mpt.pad %[[A]] low = [1, 1] high = [1, 1] : tensor<8x16xf32> -> tensor<10x18xf32>
  %6 = mpt.pad %a low = [1, 1] high = [1, 1] value = 0.0 : tensor<8x16xf32> -> tensor<10x18xf32>
  // CHECK-NEXT: mpt.pad %[[J]] low = [0, 1] high = [0, 0] : tensor<2x5xi32> -> tensor<2x6xi32>
  %7 = mpt.pad %j low = [0, 1] high = [0, 0] : tensor<2x5xi32> -> tensor<2x6xi32>
  return
}

// constant: splat and dense values of every element type, and an attr-dict.
// CHECK-LABEL: func.func @constants(
func.func @constants() {
  // CHECK-NEXT: mpt.constant dense<5.000000e-01> : tensor<128xf32>
  %0 = mpt.constant dense<0.5> : tensor<128xf32>
  // CHECK-NEXT: mpt.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf16>
  %1 = mpt.constant dense<[1.0, 2.0]> : tensor<2xf16>
  // CHECK-NEXT: mpt.constant dense<1.500000e+00> : tensor<bf16>
  %2 = mpt.constant dense<1.5> : tensor<bf16>
  // CHECK-NEXT: mpt.constant dense<2.500000e-01> : tensor<2x2xf8E4M3FN>
  %3 = mpt.constant dense<0.25> : tensor<2x2xf8E4M3FN>
  // CHECK-NEXT: mpt.constant dense<2.000000e+00> : tensor<f8E5M2>
  %4 = mpt.constant dense<2.0> : tensor<f8E5M2>
  // CHECK-NEXT: mpt.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>
  %5 = mpt.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  // CHECK-NEXT: mpt.constant dense<[1, 2, 3]> : tensor<3xi64>
  %6 = mpt.constant dense<[1, 2, 3]> : tensor<3xi64>
  // CHECK-NEXT: mpt.constant {tag} dense<[1, 2]> : tensor<2xi32>
  %7 = mpt.constant {tag} dense<[1, 2]> : tensor<2xi32>
  return
}

// cast between every float type, to and from integers, with a dynamic dim.
// CHECK-LABEL: func.func @casts(
// CHECK-SAME: %[[X:.*]]: tensor<32x784xf32>, %[[I:.*]]: tensor<4xi32>, %[[D:.*]]: tensor<?x8xf16>, %[[E:.*]]: tensor<4x4xf8E5M2>)
func.func @casts(%x: tensor<32x784xf32>, %i: tensor<4xi32>, %d: tensor<?x8xf16>, %e: tensor<4x4xf8E5M2>) {
  // CHECK-NEXT: mpt.cast %[[X]] : tensor<32x784xf32> to tensor<32x784xf16>
  %0 = mpt.cast %x : tensor<32x784xf32> to tensor<32x784xf16>
  // CHECK-NEXT: mpt.cast %[[X]] : tensor<32x784xf32> to tensor<32x784xbf16>
  %1 = mpt.cast %x : tensor<32x784xf32> to tensor<32x784xbf16>
  // CHECK-NEXT: mpt.cast %[[X]] : tensor<32x784xf32> to tensor<32x784xf8E4M3FN>
  %2 = mpt.cast %x : tensor<32x784xf32> to tensor<32x784xf8E4M3FN>
  // CHECK-NEXT: mpt.cast %[[X]] : tensor<32x784xf32> to tensor<32x784xf8E5M2>
  %3 = mpt.cast %x : tensor<32x784xf32> to tensor<32x784xf8E5M2>
  // CHECK-NEXT: mpt.cast %[[X]] : tensor<32x784xf32> to tensor<32x784xf64>
  %4 = mpt.cast %x : tensor<32x784xf32> to tensor<32x784xf64>
  // CHECK-NEXT: mpt.cast %[[E]] : tensor<4x4xf8E5M2> to tensor<4x4xf8E4M3FN>
  %5 = mpt.cast %e : tensor<4x4xf8E5M2> to tensor<4x4xf8E4M3FN>
  // CHECK-NEXT: mpt.cast %[[I]] : tensor<4xi32> to tensor<4xf32>
  %6 = mpt.cast %i : tensor<4xi32> to tensor<4xf32>
  // CHECK-NEXT: mpt.cast %[[I]] : tensor<4xi32> to tensor<4xi64>
  %7 = mpt.cast %i : tensor<4xi32> to tensor<4xi64>
  // CHECK-NEXT: mpt.cast %[[X]] : tensor<32x784xf32> to tensor<32x784xi32>
  %8 = mpt.cast %x : tensor<32x784xf32> to tensor<32x784xi32>
  // CHECK-NEXT: mpt.cast %[[D]] : tensor<?x8xf16> to tensor<?x8xf32>
  %9 = mpt.cast %d : tensor<?x8xf16> to tensor<?x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// softmax_cross_entropy with i64 and i32 labels; mse_loss and l1_loss.
// CHECK-LABEL: func.func @losses(
// CHECK-SAME: %[[LOGITS:.*]]: tensor<32x10xf32>, %[[LABELS:.*]]: tensor<32xi64>, %[[P:.*]]: tensor<32x1xf16>, %[[T:.*]]: tensor<32x1xf16>, %[[L3:.*]]: tensor<4x8x10xbf16>, %[[LAB3:.*]]: tensor<4x8xi32>)
func.func @losses(%logits: tensor<32x10xf32>, %labels: tensor<32xi64>,
                  %p: tensor<32x1xf16>, %t: tensor<32x1xf16>,
                  %l3: tensor<4x8x10xbf16>, %lab3: tensor<4x8xi32>) {
  // CHECK-NEXT: mpt.softmax_cross_entropy %[[LOGITS]], %[[LABELS]] : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  %0 = mpt.softmax_cross_entropy %logits, %labels : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  // CHECK-NEXT: mpt.softmax_cross_entropy %[[L3]], %[[LAB3]] : (tensor<4x8x10xbf16>, tensor<4x8xi32>) -> tensor<bf16>
  %1 = mpt.softmax_cross_entropy %l3, %lab3 : (tensor<4x8x10xbf16>, tensor<4x8xi32>) -> tensor<bf16>
  // bf16 logits and an f32 loss.
  // CHECK-NEXT: mpt.softmax_cross_entropy %[[L3]], %[[LAB3]] : (tensor<4x8x10xbf16>, tensor<4x8xi32>) -> tensor<f32>
  %w = mpt.softmax_cross_entropy %l3, %lab3 : (tensor<4x8x10xbf16>, tensor<4x8xi32>) -> tensor<f32>
  // CHECK-NEXT: mpt.mse_loss %[[P]], %[[T]] : (tensor<32x1xf16>, tensor<32x1xf16>) -> tensor<f16>
  %2 = mpt.mse_loss %p, %t : (tensor<32x1xf16>, tensor<32x1xf16>) -> tensor<f16>
  // CHECK-NEXT: mpt.l1_loss %[[P]], %[[T]] : (tensor<32x1xf16>, tensor<32x1xf16>) -> tensor<f16>
  %3 = mpt.l1_loss %p, %t : (tensor<32x1xf16>, tensor<32x1xf16>) -> tensor<f16>
  return
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

// sgd_update, momentum_update and adam_update: weight_decay = 0.0 (the default)
// is elided, a non-zero one printed; f32, f16 and bf16; the step count of
// adam_update is a rank-0 f32 tensor whatever the parameter type; the
// precision attribute that mpt-build-train-step sets stays in the attr-dict.
// momentum_update has two results (parameter, velocity), adam_update three
// (parameter, first moment, second moment).
// CHECK-LABEL: func.func @optimizer_updates(
// CHECK-SAME: %[[P:.*]]: tensor<8x4xf32>, %[[G:.*]]: tensor<8x4xf32>, %[[V:.*]]: tensor<8x4xf32>, %[[M:.*]]: tensor<8x4xf32>, %[[T:.*]]: tensor<f32>, %[[PH:.*]]: tensor<16xf16>, %[[GH:.*]]: tensor<16xf16>, %[[VH:.*]]: tensor<16xf16>, %[[PB:.*]]: tensor<16xbf16>, %[[GB:.*]]: tensor<16xbf16>, %[[MB:.*]]: tensor<16xbf16>, %[[VB:.*]]: tensor<16xbf16>)
func.func @optimizer_updates(%p: tensor<8x4xf32>, %g: tensor<8x4xf32>, %v: tensor<8x4xf32>,
                             %m: tensor<8x4xf32>, %t: tensor<f32>,
                             %ph: tensor<16xf16>, %gh: tensor<16xf16>, %vh: tensor<16xf16>,
                             %pb: tensor<16xbf16>, %gb: tensor<16xbf16>, %mb: tensor<16xbf16>,
                             %vb: tensor<16xbf16>) {
  // CHECK-NEXT: mpt.sgd_update %[[P]], %[[G]] lr = 1.000000e-01 : tensor<8x4xf32>
  %0 = mpt.sgd_update %p, %g lr = 0.1 : tensor<8x4xf32>
  // CHECK-NEXT: mpt.sgd_update %[[PH]], %[[GH]] lr = 5.000000e-02 weight_decay = 1.000000e-02 : tensor<16xf16>
  %1 = mpt.sgd_update %ph, %gh lr = 0.05 weight_decay = 0.01 : tensor<16xf16>
  // CHECK-NEXT: {{^ *}}%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = mpt.momentum_update %[[P]], %[[G]], %[[V]] lr = 1.000000e-01 momentum = 9.000000e-01 : tensor<8x4xf32>
  %2:2 = mpt.momentum_update %p, %g, %v lr = 0.1 momentum = 0.9 : tensor<8x4xf32>
  // CHECK-NEXT: {{^ *}}%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = mpt.momentum_update %[[P]], %[[G]], %[[V]] lr = 1.000000e-01 momentum = 9.000000e-01 : tensor<8x4xf32>
  %3:2 = mpt.momentum_update %p, %g, %v lr = 0.1 momentum = 0.9 weight_decay = 0.0 : tensor<8x4xf32>
  // CHECK-NEXT: {{^ *}}%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = mpt.momentum_update %[[PH]], %[[GH]], %[[VH]] lr = 5.000000e-02 momentum = 0.000000e+00 weight_decay = 5.000000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<16xf16>
  %4:2 = mpt.momentum_update %ph, %gh, %vh lr = 0.05 momentum = 0.0 weight_decay = 0.5 {mpt.precision = #mpt.precision<fp32>} : tensor<16xf16>
  // CHECK-NEXT: {{^ *}}%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = mpt.adam_update %[[P]], %[[G]], %[[M]], %[[V]], %[[T]] lr = 1.000000e-03 beta1 = 9.000000e-01 beta2 = 0.99899999999999999 eps = 1.000000e-08 : tensor<8x4xf32>, tensor<f32>
  %5:3 = mpt.adam_update %p, %g, %m, %v, %t lr = 0.001 beta1 = 0.9 beta2 = 0.999 eps = 1.0e-8 : tensor<8x4xf32>, tensor<f32>
  // CHECK-NEXT: {{^ *}}%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = mpt.adam_update %[[P]], %[[G]], %[[M]], %[[V]], %[[T]] lr = 1.000000e-03 beta1 = 9.000000e-01 beta2 = 0.99899999999999999 eps = 1.000000e-08 : tensor<8x4xf32>, tensor<f32>
  %6:3 = mpt.adam_update %p, %g, %m, %v, %t lr = 0.001 beta1 = 0.9 beta2 = 0.999 eps = 1.0e-8 weight_decay = 0.0 : tensor<8x4xf32>, tensor<f32>
  // CHECK-NEXT: {{^ *}}%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = mpt.adam_update %[[PB]], %[[GB]], %[[MB]], %[[VB]], %[[T]] lr = 0.000000e+00 beta1 = 0.000000e+00 beta2 = 5.000000e-01 eps = 1.000000e-03 weight_decay = 2.500000e-01 {mpt.precision = #mpt.precision<fp32>} : tensor<16xbf16>, tensor<f32>
  %7:3 = mpt.adam_update %pb, %gb, %mb, %vb, %t lr = 0.0 beta1 = 0.0 beta2 = 0.5 eps = 1.0e-3 weight_decay = 0.25 {mpt.precision = #mpt.precision<fp32>} : tensor<16xbf16>, tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// Gradient clipping and loss scaling
//===----------------------------------------------------------------------===//

// clip_by_global_norm over gradients of different types; unscale_and_check
// with one scale and with one per gradient, with and without max_norm (f16
// gradients unscaled to f32); backward_seed; select with a rank-0 and an
// elementwise condition; layer_scale; update_scale with every attribute;
// mpt.initial_value on arguments.
// CHECK-LABEL: func.func @loss_scaling(
// CHECK-SAME: %[[G:.*]]: tensor<8x4xf16>, %[[B:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32> {mpt.initial_value = dense<6.553600e+04> : tensor<f32>, mpt.role = #mpt.role<loss_scale_state>}, %[[N:.*]]: tensor<i32> {mpt.initial_value = dense<0> : tensor<i32>, mpt.role = #mpt.role<loss_scale_state>}, %[[H:.*]]: tensor<i32> {mpt.initial_value = dense<2> : tensor<i32>, mpt.role = #mpt.role<loss_scale_state>}, %[[C:.*]]: tensor<8x4xi1>, %[[W:.*]]: tensor<4x4xf16>)
func.func @loss_scaling(%g: tensor<8x4xf16>, %b: tensor<4xf32>,
    %s: tensor<f32> {mpt.role = #mpt.role<loss_scale_state>, mpt.initial_value = dense<65536.0> : tensor<f32>},
    %n: tensor<i32> {mpt.role = #mpt.role<loss_scale_state>, mpt.initial_value = dense<0> : tensor<i32>},
    %h: tensor<i32> {mpt.role = #mpt.role<loss_scale_state>, mpt.initial_value = dense<2> : tensor<i32>},
    %c: tensor<8x4xi1>, %w: tensor<4x4xf16>) {
  // CHECK-NEXT: {{^ *}}%{{.*}}:2 = mpt.clip_by_global_norm %[[G]], %[[B]] max_norm = 1.000000e+00 : (tensor<8x4xf16>, tensor<4xf32>) -> (tensor<8x4xf16>, tensor<4xf32>)
  %0:2 = mpt.clip_by_global_norm %g, %b max_norm = 1.0 : (tensor<8x4xf16>, tensor<4xf32>) -> (tensor<8x4xf16>, tensor<4xf32>)
  // CHECK-NEXT: {{^ *}}%[[U:.*]]:2, %[[F:.*]] = mpt.unscale_and_check %[[G]], %[[B]] scales(%[[S]]) : (tensor<8x4xf16>, tensor<4xf32>, tensor<f32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<i1>)
  %1:3 = mpt.unscale_and_check %g, %b scales(%s) : (tensor<8x4xf16>, tensor<4xf32>, tensor<f32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<i1>)
  // CHECK-NEXT: mpt.unscale_and_check %[[G]], %[[B]] scales(%[[S]], %[[S]]) max_norm = 5.000000e-01 {mpt.precision = #mpt.precision<fp32>} : (tensor<8x4xf16>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<8x4xf16>, tensor<4xf32>, tensor<i1>)
  %2:3 = mpt.unscale_and_check %g, %b scales(%s, %s) max_norm = 0.5 {mpt.precision = #mpt.precision<fp32>} : (tensor<8x4xf16>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<8x4xf16>, tensor<4xf32>, tensor<i1>)
  // CHECK-NEXT: mpt.backward_seed %[[S]] : tensor<f32>
  %3 = mpt.backward_seed %s : tensor<f32>
  // CHECK-NEXT: mpt.select %[[F]], %[[B]], %[[U]]#1 : tensor<i1>, tensor<4xf32>
  %4 = mpt.select %1#2, %b, %1#1 : tensor<i1>, tensor<4xf32>
  // CHECK-NEXT: mpt.select %[[C]], %[[G]], %[[G]] : tensor<8x4xi1>, tensor<8x4xf16>
  %5 = mpt.select %c, %g, %g : tensor<8x4xi1>, tensor<8x4xf16>
  // CHECK-NEXT: mpt.layer_scale %[[G]], %[[W]], %[[S]] fan_in = 4 min_value = 5.9604644775390625E-8 max_value = 6.550400e+04 max_scale = 1.024000e+03 : tensor<8x4xf16>, tensor<4x4xf16>
  %6 = mpt.layer_scale %g, %w, %s fan_in = 4 min_value = 5.9604644775390625E-8 max_value = 65504.0 max_scale = 1024.0 : tensor<8x4xf16>, tensor<4x4xf16>
  // CHECK-NEXT: mpt.update_scale %[[S]], %[[N]], %[[H]], %[[F]] growth_factor = 2.000000e+00 backoff_factor = 5.000000e-01 growth_interval = 2000 hysteresis = 2 min_scale = 1.000000e+00 max_scale = 1.024000e+03
  %7:3 = mpt.update_scale %s, %n, %h, %1#2 growth_factor = 2.0 backoff_factor = 0.5 growth_interval = 2000 hysteresis = 2 min_scale = 1.0 max_scale = 1024.0
  return
}

// Backward ops.
// CHECK-LABEL: func.func @backward(
func.func @backward(%dy: tensor<8x16xf32>, %x: tensor<8x16xf32>, %g: tensor<16xf32>,
                    %logits: tensor<8x10xf32>, %labels: tensor<8xi64>, %dl: tensor<f32>,
                    %img: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %dc: tensor<2x4x8x8xf32>,
                    %dp: tensor<2x3x4x4xf32>, %emb: tensor<2x5x6xf32>, %ids: tensor<2x5xi64>) {
  // CHECK-NEXT: mpt.relu_grad %{{.*}}, %{{.*}} : tensor<8x16xf32>
  %0 = mpt.relu_grad %dy, %x : tensor<8x16xf32>
  // CHECK-NEXT: mpt.gelu_grad %{{.*}}, %{{.*}} approximate<tanh> : tensor<8x16xf32>
  %1 = mpt.gelu_grad %dy, %x approximate<tanh> : tensor<8x16xf32>
  // CHECK-NEXT: mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x10xf32>, tensor<8xi64>, tensor<f32>) -> tensor<8x10xf32>
  %2 = mpt.softmax_cross_entropy_grad %logits, %labels, %dl : (tensor<8x10xf32>, tensor<8xi64>, tensor<f32>) -> tensor<8x10xf32>
  // f16 logits with an f32 loss gradient (a loss scale), an f16 or an f32
  // result.
  %h = mpt.cast %logits : tensor<8x10xf32> to tensor<8x10xf16>
  // CHECK: mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x10xf16>, tensor<8xi64>, tensor<f32>) -> tensor<8x10xf16>
  %hg = mpt.softmax_cross_entropy_grad %h, %labels, %dl : (tensor<8x10xf16>, tensor<8xi64>, tensor<f32>) -> tensor<8x10xf16>
  // CHECK-NEXT: mpt.softmax_cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x10xf16>, tensor<8xi64>, tensor<f32>) -> tensor<8x10xf32>
  %wg = mpt.softmax_cross_entropy_grad %h, %labels, %dl : (tensor<8x10xf16>, tensor<8xi64>, tensor<f32>) -> tensor<8x10xf32>
  // CHECK-NEXT: mpt.layer_norm_grad %{{.*}}, %{{.*}}, %{{.*}} epsilon = 1.000000e-03 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  %3:3 = mpt.layer_norm_grad %dy, %x, %g epsilon = 1.0e-3 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  // CHECK-NEXT: mpt.batch_norm_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  %4:3 = mpt.batch_norm_grad %dy, %x, %g : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  // CHECK-NEXT: mpt.conv2d_backward_data %{{.*}}, %{{.*}} pad [1, 1, 1, 1] acc(f32) : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  %5 = mpt.conv2d_backward_data %dc, %w pad [1, 1, 1, 1] acc(f32) : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  // CHECK-NEXT: mpt.conv2d_backward_filter %{{.*}}, %{{.*}} pad [1, 1, 1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  %6 = mpt.conv2d_backward_filter %img, %dc pad [1, 1, 1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  // CHECK-NEXT: mpt.max_pool2d_grad %{{.*}}, %{{.*}} kernel [2, 2] stride [2, 2] : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %7 = mpt.max_pool2d_grad %dp, %img kernel [2, 2] stride [2, 2] : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  // CHECK-NEXT: mpt.avg_pool2d_grad %{{.*}} kernel [2, 2] stride [2, 2] count_include_pad : tensor<2x3x4x4xf32> -> tensor<2x3x8x8xf32>
  %8 = mpt.avg_pool2d_grad %dp kernel [2, 2] stride [2, 2] count_include_pad : tensor<2x3x4x4xf32> -> tensor<2x3x8x8xf32>
  // CHECK-NEXT: mpt.embedding_grad %{{.*}}, %{{.*}} : (tensor<2x5x6xf32>, tensor<2x5xi64>) -> tensor<100x6xf32>
  %9 = mpt.embedding_grad %emb, %ids : (tensor<2x5x6xf32>, tensor<2x5xi64>) -> tensor<100x6xf32>
  return
}

// The GPU's multiprocessor count, a host-side query (no operands, no type),
// and the SMs that clusters of 4 fill; `cluster 1` is the default and is
// not printed.
// CHECK-LABEL: func.func @sm_count
func.func @sm_count() -> (index, index, index) {
  // CHECK-NEXT: %[[N:.*]] = mpt.sm_count
  // CHECK-NEXT: %[[C:.*]] = mpt.sm_count cluster 4
  // CHECK-NEXT: %[[ONE:.*]] = mpt.sm_count
  // CHECK-NEXT: return %[[N]], %[[C]], %[[ONE]] : index, index, index
  %n = mpt.sm_count
  %c = mpt.sm_count cluster 4
  %one = mpt.sm_count cluster 1
  return %n, %c, %one : index, index, index
}
