// RUN: mpt-opt %s --convert-mpt-to-linalg -split-input-file | FileCheck %s --implicit-check-not=mpt.

// One case per mpt op kind: the linalg op chosen (named where one exists),
// its indexing maps, the scalar body, and the fill/pad values. The cases are
// f32 except where an accumulator type is the point (precision.mlir covers
// the narrow types in depth). No mpt op may survive the conversion.

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// A zero-filled accumulator and linalg.matmul; f32 needs no rounding generic.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<8x16xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]] : tensor<4x16xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = mpt.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// transpose_a / transpose_b: linalg.transpose of each operand first.
// CHECK-LABEL: func.func @matmul_transposed(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<8x4xf32>, %[[B:[a-z0-9_]+]]: tensor<16x8xf32>
// CHECK: %[[EA:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[TA:.*]] = linalg.transpose ins(%[[A]] : tensor<8x4xf32>) outs(%[[EA]] : tensor<4x8xf32>) permutation = [1, 0]
// CHECK: %[[EB:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK: %[[TB:.*]] = linalg.transpose ins(%[[B]] : tensor<16x8xf32>) outs(%[[EB]] : tensor<8x16xf32>) permutation = [1, 0]
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[TA]], %[[TB]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>)
// CHECK: return %[[MM]]
func.func @matmul_transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %0 = mpt.matmul %a, %b transpose_a transpose_b : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// acc(f32) on f16: f16 ins, a zero-filled f32 outs, then one truncf generic.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_acc_f32(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf16>, %[[B:[a-z0-9_]+]]: tensor<8x16xf16>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8x16xf16>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<4x16xf16>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[MM]] : tensor<4x16xf32>) outs(%[[OUT]] : tensor<4x16xf16>)
// CHECK-NEXT: ^bb0(%[[IN:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[IN]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]] : tensor<4x16xf16>
func.func @matmul_acc_f32(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %0 = mpt.matmul %a, %b acc(f32) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// batch_matmul of rank 4: the batch dimensions are collapsed into one for
// linalg.batch_matmul and expanded back.
// CHECK-LABEL: func.func @batch_matmul_rank4(
// CHECK-SAME: %[[Q:[a-z0-9_]+]]: tensor<2x3x8x4xf32>, %[[K:[a-z0-9_]+]]: tensor<2x3x4x8xf32>
// CHECK: %[[QF:.*]] = tensor.collapse_shape %[[Q]] {{.*}} : tensor<2x3x8x4xf32> into tensor<192xf32>
// CHECK: %[[Q3:.*]] = tensor.expand_shape %[[QF]] {{.*}} output_shape [6, 8, 4] : tensor<192xf32> into tensor<6x8x4xf32>
// CHECK: %[[KF:.*]] = tensor.collapse_shape %[[K]] {{.*}} : tensor<2x3x4x8xf32> into tensor<192xf32>
// CHECK: %[[K3:.*]] = tensor.expand_shape %[[KF]] {{.*}} output_shape [6, 4, 8] : tensor<192xf32> into tensor<6x4x8xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<6x8x8xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<6x8x8xf32>)
// CHECK: %[[BMM:.*]] = linalg.batch_matmul ins(%[[Q3]], %[[K3]] : tensor<6x8x4xf32>, tensor<6x4x8xf32>) outs(%[[INIT]] : tensor<6x8x8xf32>) -> tensor<6x8x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[RF:.*]] = tensor.collapse_shape %[[BMM]] {{.*}} : tensor<6x8x8xf32> into tensor<384xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[RF]] {{.*}} output_shape [2, 3, 8, 8] : tensor<384xf32> into tensor<2x3x8x8xf32>
// CHECK: return %[[R]]
func.func @batch_matmul_rank4(%q: tensor<2x3x8x4xf32>, %k: tensor<2x3x4x8xf32>) -> tensor<2x3x8x8xf32> {
  %0 = mpt.batch_matmul %q, %k : (tensor<2x3x8x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

// batch_matmul of rank 3 needs no reshape; transpose_b swaps the last two
// dimensions; acc(f32) on bf16 accumulates in f32 and rounds once.
// CHECK-LABEL: func.func @batch_matmul_transpose_b_acc(
// CHECK-SAME: %[[Q:[a-z0-9_]+]]: tensor<6x8x4xbf16>, %[[K:[a-z0-9_]+]]: tensor<6x8x4xbf16>
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<6x8x4xbf16>) outs(%{{.*}} : tensor<6x4x8xbf16>) permutation = [0, 2, 1]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<6x8x8xf32>)
// CHECK: %[[BMM:.*]] = linalg.batch_matmul ins(%[[Q]], %[[KT]] : tensor<6x8x4xbf16>, tensor<6x4x8xbf16>) outs(%[[INIT]] : tensor<6x8x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[BMM]] : tensor<6x8x8xf32>) outs(%{{.*}} : tensor<6x8x8xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[R]]
func.func @batch_matmul_transpose_b_acc(%q: tensor<6x8x4xbf16>, %k: tensor<6x8x4xbf16>) -> tensor<6x8x8xbf16> {
  %0 = mpt.batch_matmul %q, %k transpose_b acc(f32) : (tensor<6x8x4xbf16>, tensor<6x8x4xbf16>) -> tensor<6x8x8xbf16>
  return %0 : tensor<6x8x8xbf16>
}

// -----

// conv2d nchw with the defaults: linalg.conv_2d_nchw_fchw, no padding.
// CHECK-LABEL: func.func @conv2d_nchw(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x3x32x32xf32>, %[[W:[a-z0-9_]+]]: tensor<16x3x3x3xf32>
// CHECK-NOT: tensor.pad
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NOT: arith.constant {{(0x|[1-9-])}}
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x16x30x30xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) outs(%[[INIT]] : tensor<8x16x30x30xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[C]]
func.func @conv2d_nchw(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32> {
  %0 = mpt.conv2d %x, %w : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return %0 : tensor<8x16x30x30xf32>
}

// -----

// stride, dilation and an asymmetric pad [top, bottom, left, right]: a zero
// tensor.pad of H by (1, 2) and W by (3, 4), then the strided dilated conv.
// CHECK-LABEL: func.func @conv2d_stride_pad_dilation(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x3x32x32xf32>, %[[W:[a-z0-9_]+]]: tensor<16x3x3x3xf32>
// CHECK: %[[PV:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 3] high[0, 0, 2, 4]
// CHECK: tensor.yield %[[PV]] : f32
// CHECK: } : tensor<8x3x32x32xf32> to tensor<8x3x35x39xf32>
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<8x3x35x39xf32>, tensor<16x3x3x3xf32>) outs(%[[INIT]] : tensor<8x16x16x18xf32>)
// CHECK: return %[[C]]
func.func @conv2d_stride_pad_dilation(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x16x18xf32> {
  %0 = mpt.conv2d %x, %w stride [2, 2] pad [1, 2, 3, 4] dilation [2, 2] : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x16x18xf32>
  return %0 : tensor<8x16x16x18xf32>
}

// -----

// layout<nhwc>: the pad applies to dimensions 1 and 2, and the named op is
// linalg.conv_2d_nhwc_hwcf.
// CHECK-LABEL: func.func @conv2d_nhwc(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x8x8x4xf32>, %[[W:[a-z0-9_]+]]: tensor<3x3x4x6xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 2, 0] high[0, 1, 0, 0]
// CHECK: } : tensor<2x8x8x4xf32> to tensor<2x9x10x4xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x7x8x6xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<2x9x10x4xf32>, tensor<3x3x4x6xf32>) outs(%[[INIT]] : tensor<2x7x8x6xf32>)
// CHECK: return %[[C]]
func.func @conv2d_nhwc(%x: tensor<2x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<2x7x8x6xf32> {
  %0 = mpt.conv2d %x, %w layout<nhwc> pad [0, 1, 2, 0] : (tensor<2x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<2x7x8x6xf32>
  return %0 : tensor<2x7x8x6xf32>
}

// -----

// groups = 2, nchw, dilation 2: a linalg.generic over
// (n, f, oh, ow, c, kh, kw); filter f reads input channel
// (f floordiv F/G) * C/G + c = (f floordiv 3) * 2 + c.
// CHECK-DAG: #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 3) * 2 + d4, d2 + d5 * 2, d3 + d6 * 2)>
// CHECK-DAG: #[[FILTER:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d_grouped_nchw(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x4x8x8xf32>, %[[W:[a-z0-9_]+]]: tensor<6x2x3x3xf32>
// CHECK-NOT: linalg.conv_2d
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NOT: arith.constant {{(0x|[1-9-])}}
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x6x4x4xf32>)
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[W]] : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) outs(%[[INIT]] : tensor<2x6x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[XV:[a-z0-9_]+]]: f32, %[[WV:[a-z0-9_]+]]: f32, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[C]]
func.func @conv2d_grouped_nchw(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32> {
  %0 = mpt.conv2d %x, %w dilation [2, 2] groups 2 : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// -----

// groups = 2, nhwc, stride [1, 2], pad [1, 1, 0, 0], acc(f32) on f16: the
// channel is the last input dimension, the filter is (kh, kw, c, f), the
// body extends both operands and accumulates in f32, and one generic rounds.
// CHECK-DAG: #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 * 2 + d6, (d1 floordiv 4) * 2 + d4)>
// CHECK-DAG: #[[FILTER:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d4, d1)>
// CHECK-DAG: #[[OUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @conv2d_grouped_nhwc(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x32x32x4xf16>, %[[W:[a-z0-9_]+]]: tensor<3x3x2x8xf16>
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 1, 0, 0] high[0, 1, 0, 0]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x32x15x8xf32>)
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[P]], %[[W]] : tensor<8x34x32x4xf16>, tensor<3x3x2x8xf16>) outs(%[[INIT]] : tensor<8x32x15x8xf32>)
// CHECK-NEXT: ^bb0(%[[XV:[a-z0-9_]+]]: f16, %[[WV:[a-z0-9_]+]]: f16, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[XV]] : f16 to f32
// CHECK-NEXT: %[[WE:.*]] = arith.extf %[[WV]] : f16 to f32
// CHECK-NEXT: %[[PR:.*]] = arith.mulf %[[XE]], %[[WE]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[PR]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<8x32x15x8xf32>) outs(%{{.*}} : tensor<8x32x15x8xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[R]]
func.func @conv2d_grouped_nhwc(%x: tensor<8x32x32x4xf16>, %w: tensor<3x3x2x8xf16>) -> tensor<8x32x15x8xf16> {
  %0 = mpt.conv2d %x, %w layout<nhwc> stride [1, 2] pad [1, 1, 0, 0] groups 2 acc(f32) : (tensor<8x32x32x4xf16>, tensor<3x3x2x8xf16>) -> tensor<8x32x15x8xf16>
  return %0 : tensor<8x32x15x8xf16>
}

// -----

// embedding: a generic over the result reading the index at (d0, d1) and
// extracting table[index, d2].
// CHECK-DAG: #[[IDX:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[T:[a-z0-9_]+]]: tensor<1000x64xf32>, %[[I:[a-z0-9_]+]]: tensor<8x16xi64>
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[IDX]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<8x16xi64>) outs(%{{.*}} : tensor<8x16x64xf32>)
// CHECK-NEXT: ^bb0(%[[IV:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[ROW:.*]] = arith.index_cast %[[IV]] : i64 to index
// CHECK-NEXT: %[[COL:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<1000x64xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[E]]
func.func @embedding(%t: tensor<1000x64xf32>, %ids: tensor<8x16xi64>) -> tensor<8x16x64xf32> {
  %0 = mpt.embedding %t, %ids : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16x64xf32>
  return %0 : tensor<8x16x64xf32>
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops (numpy broadcasting)
//===----------------------------------------------------------------------===//

// -----

// A rank-1 operand broadcast over the rows reads (d1).
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<32x128xf32>, %[[B:[a-z0-9_]+]]: tensor<128xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x128xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<32x128xf32>, tensor<128xf32>) outs(%[[E]] : tensor<32x128xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @add(%a: tensor<32x128xf32>, %b: tensor<128xf32>) -> tensor<32x128xf32> {
  %0 = mpt.add %a, %b : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

// Same shapes: identity maps everywhere.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sub(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @sub(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.sub %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A size-1 dimension broadcast against 4 reads the constant 0.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[B0:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @mul(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<1x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[B0]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<1x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @mul(%a: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.mul %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The broadcast operand on the left keeps the operand order.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @div(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<128xf32>, %[[B:[a-z0-9_]+]]: tensor<32x128xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<128xf32>, tensor<32x128xf32>) outs(%{{.*}} : tensor<32x128xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @div(%a: tensor<128xf32>, %b: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %0 = mpt.div %a, %b : (tensor<128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

// Both operands broadcast (4x1 and 1x8 to 4x8); max is arith.maximumf.
// CHECK-DAG: #[[COL:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @max(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x1xf32>, %[[B:[a-z0-9_]+]]: tensor<1x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x1xf32>, tensor<1x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @max(%a: tensor<4x1xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.max %a, %b : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A rank-0 operand reads () in every iteration.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @min(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<f32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.minimumf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @min(%a: tensor<4x8xf32>, %b: tensor<f32>) -> tensor<4x8xf32> {
  %0 = mpt.min %a, %b : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[B:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @pow(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<2x4x8xf32>, %[[E:[a-z0-9_]+]]: tensor<4x1xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[B]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[E]] : tensor<2x4x8xf32>, tensor<4x1xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[Y:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[S:.*]] = math.powf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @pow(%a: tensor<2x4x8xf32>, %e: tensor<4x1xf32>) -> tensor<2x4x8xf32> {
  %0 = mpt.pow %a, %e : (tensor<2x4x8xf32>, tensor<4x1xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

// -----

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @neg(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[Y:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK: return %[[R]]
func.func @neg(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.neg %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @abs(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[Y:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @abs(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.abs %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @exp(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[Y:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @exp(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.exp %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @log(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[Y:.*]] = math.log %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @log(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.log %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @sqrt(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[Y:.*]] = math.sqrt %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @sqrt(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.sqrt %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rsqrt is 1 / sqrt(x): libm has no rsqrt for convert-math-to-libm to call.
// CHECK-LABEL: func.func @rsqrt(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[S:.*]] = math.sqrt %[[X]] : f32
// CHECK: %[[Y:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: math.rsqrt
func.func @rsqrt(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.rsqrt %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reciprocal is 1 / x.
// CHECK-LABEL: func.func @reciprocal(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %[[ONE]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @reciprocal(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.reciprocal %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @tanh(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[Y:.*]] = math.tanh %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @tanh(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.tanh %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// sigmoid is 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @sigmoid(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.sigmoid %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// relu is maximumf(x, 0).
// CHECK-LABEL: func.func @relu(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[Y:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @relu(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.relu %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gelu (exact) is x Phi(x), Phi(x) = 0.5 erfc(-x / sqrt(2)): the same as
// 0.5 x (1 + erf(x / sqrt(2))) without the cancellation of 1 + erf in the
// left tail. (The constants may come in any order.)
// CHECK-LABEL: func.func @gelu(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[NRSQRT2:.*]] = arith.constant -0.707106769 : f32
// CHECK-DAG: %[[S:.*]] = arith.mulf %[[X]], %[[NRSQRT2]] : f32
// CHECK-DAG: %[[ERFC:.*]] = math.erfc %[[S]] : f32
// CHECK-DAG: %[[CDF:.*]] = arith.mulf %[[HALF]], %[[ERFC]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[CDF]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: math.erf{{ }}
// CHECK-NOT: math.tanh
func.func @gelu(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.gelu %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gelu approximate<tanh> is 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715
// x^3), computed as x sigmoid(2u) = x (1 / (1 + exp(-2u))), which does not
// cancel in the left tail. (The constants may come in any order.)
// CHECK-LABEL: func.func @gelu_tanh(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-DAG: %[[K:.*]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[C:.*]] = arith.constant 4.471500e-02 : f32
// CHECK-DAG: %[[M2:.*]] = arith.constant -2.000000e+00 : f32
// CHECK-DAG: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-DAG: %[[X3:.*]] = arith.mulf %[[X]], %[[X2]] : f32
// CHECK-DAG: %[[CX3:.*]] = arith.mulf %[[C]], %[[X3]] : f32
// CHECK-DAG: %[[IN:.*]] = arith.addf %[[X]], %[[CX3]] : f32
// CHECK-DAG: %[[U:.*]] = arith.mulf %[[K]], %[[IN]] : f32
// CHECK-DAG: %[[M2U:.*]] = arith.mulf %[[M2]], %[[U]] : f32
// CHECK-DAG: %[[E:.*]] = math.exp %[[M2U]] : f32
// CHECK-DAG: %[[DEN:.*]] = arith.addf %[[ONE_A:[a-z0-9_]+]], %[[E]] : f32
// CHECK-DAG: %[[ONE_A]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SIG:.*]] = arith.divf %[[ONE_B:[a-z0-9_]+]], %[[DEN]] : f32
// CHECK-DAG: %[[ONE_B]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[SIG]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
func.func @gelu_tanh(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.gelu %a approximate<tanh> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Softmax, normalization, reductions
//===----------------------------------------------------------------------===//

// -----

// softmax over the last axis: a max reduction from -inf, a sum of
// exp(x - max) from 0 that reads x and the max (no x - max tensor), and
// exp(x - max) / sum from x and both statistics.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x10xf32>
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<4x10xf32>) outs(%[[MAXINIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[Y:.*]] = arith.maximumf %[[M]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUMINIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]], %[[MAX]] : tensor<4x10xf32>, tensor<4xf32>) outs(%[[SUMINIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[S]], %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[MAX]], %[[SUM]] : tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x10xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %[[E]], %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK: return %[[R]]
func.func @softmax(%a: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = mpt.softmax %a : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// log_softmax over axis 0: the reductions drop d0, and the result is
// (x - max) - log(sum).
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x10xf32>
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<10xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%[[A]] : tensor<4x10xf32>) outs(%[[MAXINIT]] : tensor<10xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%[[A]], %[[MAX]] : tensor<4x10xf32>, tensor<10xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]], #[[ID]]], {{.*}} ins(%[[A]], %[[MAX]], %[[SUM]] : tensor<4x10xf32>, tensor<10xf32>, tensor<10xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[L:.*]] = math.log %[[S]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.subf %[[D]], %[[L]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: arith.divf
// CHECK: return %[[R]]
func.func @log_softmax(%a: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = mpt.log_softmax %a axis = 0 : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// softmax_grad of f16 operands: one f32 reduction of grad * result, then
// result * (grad - sum) in f32, rounded once to f16.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax_grad(
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<4x10xf16>, %[[Y:[a-z0-9_]+]]: tensor<4x10xf16>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[G]], %[[Y]] : tensor<4x10xf16>, tensor<4x10xf16>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f16, %[[B:[a-z0-9_]+]]: f16, %[[S:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[A32:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: %[[B32:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A32]], %[[B32]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[S]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[N]] : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[Y]], %[[SUM]] : tensor<4x10xf16>, tensor<4x10xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4x10xf16>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f16, %[[B:[a-z0-9_]+]]: f16, %[[S:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[A32:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: %[[B32:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A32]], %[[S]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[B32]], %[[D]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]]
func.func @softmax_grad(%g: tensor<4x10xf16>, %y: tensor<4x10xf16>) -> tensor<4x10xf16> {
  %0 = mpt.softmax_grad %g, %y : tensor<4x10xf16>
  return %0 : tensor<4x10xf16>
}

// -----

// log_softmax_grad over axis 0: a sum of grad along d0, then
// grad - exp(result) * sum.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @log_softmax_grad(
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<4x10xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x10xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%[[G]] : tensor<4x10xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[Y]], %[[SUM]] : tensor<4x10xf32>, tensor<4x10xf32>, tensor<10xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[B]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[E]], %[[S]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: return %[[R]]
func.func @log_softmax_grad(%g: tensor<4x10xf32>, %y: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = mpt.log_softmax_grad %g, %y axis = 0 : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// layer_norm over the last axis: mean = sum / 256, var = sum((x - mean)^2)
// / 256 in one reduction, 1 / sqrt(var + epsilon), then
// (x - mean) * inv_std * scale + bias with scale and bias read at (d2). No
// tensor of the input's size but the result: x - mean is recomputed where
// it is read.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[PARAM:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x64x256xf32>, %[[G:[a-z0-9_]+]]: tensor<256xf32>, %[[B:[a-z0-9_]+]]: tensor<256xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<8x64x256xf32>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[SUM]] : tensor<8x64xf32>)
// CHECK: %[[N:.*]] = arith.constant 2.560000e+02 : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[N]] : f32
// CHECK-NOT: tensor<8x64x256xf32>)
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<8x64x256xf32>, tensor<8x64xf32>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT: %[[C2:.*]] = arith.mulf %[[C]], %[[C]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[C2]] : f32
// CHECK: %[[INV:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[SQ]] : tensor<8x64xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.constant 2.560000e+02 : f32
// CHECK-NEXT: %[[VAR:.*]] = arith.divf %[[V]], %[[N]] : f32
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SD:.*]] = math.sqrt %[[VE]] : f32
// CHECK: %[[RS:.*]] = arith.divf %[[ONE]], %[[SD]] : f32
// CHECK-NEXT: linalg.yield %[[RS]] : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]], #[[PARAM]], #[[PARAM]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[INV]], %[[G]], %[[B]] : tensor<8x64x256xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<256xf32>, tensor<256xf32>) outs(%{{.*}} : tensor<8x64x256xf32>)
// CHECK-NEXT: ^bb0(%[[XV:[a-z0-9_]+]]: f32, %[[MV:[a-z0-9_]+]]: f32, %[[IV:[a-z0-9_]+]]: f32, %[[GV:[a-z0-9_]+]]: f32, %[[BV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[CV:.*]] = arith.subf %[[XV]], %[[MV]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[CV]], %[[IV]] : f32
// CHECK-NEXT: %[[YG:.*]] = arith.mulf %[[Y]], %[[GV]] : f32
// CHECK-NEXT: %[[YB:.*]] = arith.addf %[[YG]], %[[BV]] : f32
// CHECK-NEXT: linalg.yield %[[YB]] : f32
// CHECK: return %[[R]]
func.func @layer_norm(%x: tensor<8x64x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<8x64x256xf32> {
  %0 = mpt.layer_norm %x, %g, %b : (tensor<8x64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x64x256xf32>
  return %0 : tensor<8x64x256xf32>
}

// -----

// layer_norm over axes 1 and 2 with 2-D parameters read at (d1, d2).
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[PARAM:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm_axis1(
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: arith.constant 1.638400e+04 : f32
// CHECK: arith.constant 1.000000e-03 : f32
// CHECK: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[RED]], #[[RED]], #[[PARAM]], #[[PARAM]], #{{map[0-9]*}}]
func.func @layer_norm_axis1(%x: tensor<8x64x256xf32>, %g: tensor<64x256xf32>) -> tensor<8x64x256xf32> {
  %0 = mpt.layer_norm %x, %g, %g axis = 1 epsilon = 1.0e-3 : (tensor<8x64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<8x64x256xf32>
  return %0 : tensor<8x64x256xf32>
}

// -----

// batch_norm (nchw, channel axis 1): statistics over (d0, d2, d3), count
// 8 * 32 * 32, scale and bias read at (d1).
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16x32x32xf32>, %[[G:[a-z0-9_]+]]: tensor<16xf32>, %[[B:[a-z0-9_]+]]: tensor<16xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<8x16x32x32xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<16xf32>)
// CHECK: arith.constant 8.192000e+03 : f32
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<8x16x32x32xf32>, tensor<16xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<16xf32>)
// CHECK: arith.constant 8.192000e+03 : f32
// CHECK: arith.divf
// CHECK: %[[EPS:.*]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT: %[[VE:.*]] = arith.addf %{{.*}}, %[[EPS]] : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SD:.*]] = math.sqrt %[[VE]] : f32
// CHECK: %[[RS:.*]] = arith.divf %[[ONE]], %[[SD]] : f32
// CHECK-NEXT: linalg.yield %[[RS]] : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]], {{.*}} ins(%[[X]], %[[MEAN]], %[[INV]], %[[G]], %[[B]] : tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @batch_norm(%x: tensor<8x16x32x32xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16x32x32xf32> {
  %0 = mpt.batch_norm %x, %g, %b epsilon = 1.0e-2 : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
  return %0 : tensor<8x16x32x32xf32>
}

// -----

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x128xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<32xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<32x128xf32>) outs(%[[INIT]] : tensor<32xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[R]] : tensor<32xf32>
func.func @reduce_sum(%x: tensor<32x128xf32>) -> tensor<32xf32> {
  %0 = mpt.reduce_sum %x axes = [1] : tensor<32x128xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// keep_dims: the reduced tensor is expanded to 1x128.
// CHECK-DAG: #[[RED:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_sum_keep_dims(
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[RED]]], iterator_types = ["reduction", "parallel"]} {{.*}} outs(%{{.*}} : tensor<128xf32>)
// CHECK: arith.addf
// CHECK: %[[K:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [1, 128] : tensor<128xf32> into tensor<1x128xf32>
// CHECK: return %[[K]]
func.func @reduce_sum_keep_dims(%x: tensor<32x128xf32>) -> tensor<1x128xf32> {
  %0 = mpt.reduce_sum %x axes = [0] keep_dims : tensor<32x128xf32> -> tensor<1x128xf32>
  return %0 : tensor<1x128xf32>
}

// -----

// reduce_mean: the sum divided by the reduced count (128).
// CHECK-LABEL: func.func @reduce_mean_keep_dims(
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[S]] : tensor<32xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.constant 1.280000e+02 : f32
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[V]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: %[[K:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
// CHECK: return %[[K]]
func.func @reduce_mean_keep_dims(%x: tensor<32x128xf32>) -> tensor<32x1xf32> {
  %0 = mpt.reduce_mean %x axes = [1] keep_dims : tensor<32x128xf32> -> tensor<32x1xf32>
  return %0 : tensor<32x1xf32>
}

// -----

// reduce_max over every axis (one negative) into a rank-0 tensor, from -inf.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ALL:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x128xf32>
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ALL]]], iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<32x128xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: return %[[R]] : tensor<f32>
func.func @reduce_max(%x: tensor<32x128xf32>) -> tensor<f32> {
  %0 = mpt.reduce_max %x axes = [0, -1] : tensor<32x128xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

// max_pool2d without padding: linalg.pooling_nchw_max from -inf, with a
// kernel-shaped window tensor.
// CHECK-LABEL: func.func @max_pool2d(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16x32x32xf32>
// CHECK-NOT: tensor.pad
// CHECK: arith.constant 0xFF800000 : f32
// CHECK-NOT: arith.constant {{[0-9-]}}.
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x16x16x16xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[R:.*]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[X]], %[[WIN]] : tensor<8x16x32x32xf32>, tensor<2x2xf32>) outs(%[[INIT]] : tensor<8x16x16x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @max_pool2d(%x: tensor<8x16x32x32xf32>) -> tensor<8x16x16x16xf32> {
  %0 = mpt.max_pool2d %x kernel [2, 2] stride [2, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  return %0 : tensor<8x16x16x16xf32>
}

// -----

// max_pool2d nhwc with padding: the input is padded with -inf.
// CHECK-LABEL: func.func @max_pool2d_nhwc_pad(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x32x32x16xf32>
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: tensor.yield %[[NEGINF]] : f32
// CHECK: } : tensor<8x32x32x16xf32> to tensor<8x34x34x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x16x16x16xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[R:.*]] = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[WIN]] : tensor<8x34x34x16xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<8x16x16x16xf32>)
// CHECK: return %[[R]]
func.func @max_pool2d_nhwc_pad(%x: tensor<8x32x32x16xf32>) -> tensor<8x16x16x16xf32> {
  %0 = mpt.max_pool2d %x layout<nhwc> kernel [3, 3] stride [2, 2] pad [1, 1, 1, 1] : tensor<8x32x32x16xf32> -> tensor<8x16x16x16xf32>
  return %0 : tensor<8x16x16x16xf32>
}

// -----

// avg_pool2d count_include_pad: a zero pad, a sum pooling, and a division by
// a tensor filled with the kernel area (9).
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @avg_pool2d_count_include_pad(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16x32x32xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[P]], %{{.*}} : tensor<8x16x34x34xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<8x16x32x32xf32>)
// CHECK: %[[AREA:.*]] = arith.constant 9.000000e+00 : f32
// CHECK: %[[COUNT:.*]] = linalg.fill ins(%[[AREA]] : f32) outs(%{{.*}} : tensor<8x16x32x32xf32>)
// CHECK-NOT: linalg.pooling_nchw_sum
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], {{.*}} ins(%[[SUM]], %[[COUNT]] : tensor<8x16x32x32xf32>, tensor<8x16x32x32xf32>)
// CHECK-NEXT: ^bb0(%[[S:[a-z0-9_]+]]: f32, %[[N:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: return %[[R]]
func.func @avg_pool2d_count_include_pad(%x: tensor<8x16x32x32xf32>) -> tensor<8x16x32x32xf32> {
  %0 = mpt.avg_pool2d %x kernel [3, 3] pad [1, 1, 1, 1] count_include_pad : tensor<8x16x32x32xf32> -> tensor<8x16x32x32xf32>
  return %0 : tensor<8x16x32x32xf32>
}

// -----

// avg_pool2d excluding the padding: the count is a sum pooling of a ones
// tensor padded with zeros.
// CHECK-LABEL: func.func @avg_pool2d_exclude_pad(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16x32x32xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {{.*}} ins(%[[P]], %{{.*}} : tensor<8x16x34x34xf32>, tensor<3x3xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ONES:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%{{.*}} : tensor<8x16x32x32xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PONES:.*]] = tensor.pad %[[ONES]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: %[[COUNT:.*]] = linalg.pooling_nchw_sum {{.*}} ins(%[[PONES]], %{{.*}} : tensor<8x16x34x34xf32>, tensor<3x3xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[SUM]], %[[COUNT]] : tensor<8x16x32x32xf32>, tensor<8x16x32x32xf32>)
// CHECK: arith.divf
// CHECK: return %[[R]]
func.func @avg_pool2d_exclude_pad(%x: tensor<8x16x32x32xf32>) -> tensor<8x16x32x32xf32> {
  %0 = mpt.avg_pool2d %x kernel [3, 3] pad [1, 1, 1, 1] : tensor<8x16x32x32xf32> -> tensor<8x16x32x32xf32>
  return %0 : tensor<8x16x32x32xf32>
}

// -----

// avg_pool2d nhwc without padding: linalg.pooling_nhwc_sum, count 4.
// CHECK-LABEL: func.func @avg_pool2d_nhwc(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x32x32x16xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[SUM:.*]] = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[X]], %{{.*}} : tensor<8x32x32x16xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<8x16x16x16xf32>)
// CHECK: %[[AREA:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[COUNT:.*]] = linalg.fill ins(%[[AREA]] : f32)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[COUNT]] :
// CHECK: arith.divf
func.func @avg_pool2d_nhwc(%x: tensor<8x32x32x16xf32>) -> tensor<8x16x16x16xf32> {
  %0 = mpt.avg_pool2d %x layout<nhwc> kernel [2, 2] stride [2, 2] : tensor<8x32x32x16xf32> -> tensor<8x16x16x16xf32>
  return %0 : tensor<8x16x16x16xf32>
}

// -----

// global_avg_pool nchw: a sum over (d2, d3) and a division by 32 * 32.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NC:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @global_avg_pool(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16x32x32xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[NC]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<8x16x32x32xf32>) outs(%[[INIT]] : tensor<8x16xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[N:.*]] = arith.constant 1.024000e+03 : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: return %[[R]]
func.func @global_avg_pool(%x: tensor<8x16x32x32xf32>) -> tensor<8x16xf32> {
  %0 = mpt.global_avg_pool %x : tensor<8x16x32x32xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// global_avg_pool nhwc: the sum runs over (d1, d2).
// CHECK-DAG: #[[NC:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @global_avg_pool_nhwc(
// CHECK: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[NC]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}} : tensor<8x4x4x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: arith.constant 1.600000e+01 : f32
func.func @global_avg_pool_nhwc(%x: tensor<8x4x4x16xf32>) -> tensor<8x16xf32> {
  %0 = mpt.global_avg_pool %x layout<nhwc> : tensor<8x4x4x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

// reshape: collapse to 1-D, then expand to the result shape.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16x7x7xf32>
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2, 3]] : tensor<8x16x7x7xf32> into tensor<6272xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [8, 784] : tensor<6272xf32> into tensor<8x784xf32>
// CHECK: return %[[R]]
func.func @reshape(%x: tensor<8x16x7x7xf32>) -> tensor<8x784xf32> {
  %0 = mpt.reshape %x : tensor<8x16x7x7xf32> to tensor<8x784xf32>
  return %0 : tensor<8x784xf32>
}

// -----

// A reshape to 1-D is one collapse_shape (integers too).
// CHECK-LABEL: func.func @reshape_flatten(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x6xi64>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<4x6xi64> into tensor<24xi64>
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[R]]
func.func @reshape_flatten(%x: tensor<4x6xi64>) -> tensor<24xi64> {
  %0 = mpt.reshape %x : tensor<4x6xi64> to tensor<24xi64>
  return %0 : tensor<24xi64>
}

// -----

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16x7x5xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x7x16x5xf32>
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[X]] : tensor<8x16x7x5xf32>) outs(%[[E]] : tensor<8x7x16x5xf32>) permutation = [0, 2, 1, 3]
// CHECK: return %[[R]]
func.func @transpose(%x: tensor<8x16x7x5xf32>) -> tensor<8x7x16x5xf32> {
  %0 = mpt.transpose %x perm = [0, 2, 1, 3] : tensor<8x16x7x5xf32> -> tensor<8x7x16x5xf32>
  return %0 : tensor<8x7x16x5xf32>
}

// -----

// broadcast: a copying generic reading through the broadcast map (a new
// leading dimension is dropped, a size-1 dimension reads 0).
// CHECK-DAG: #[[B:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x1xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[B]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<4x1xf32>) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]]
func.func @broadcast(%x: tensor<4x1xf32>) -> tensor<2x4x8xf32> {
  %0 = mpt.broadcast %x : tensor<4x1xf32> to tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// concat: insert_slice of each operand at the running offset along the axis.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<8x16xf32>, %[[B:[a-z0-9_]+]]: tensor<8x32xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x48xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<8x48xf32>
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][0, 16] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<8x48xf32>
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<8x16xf32>, %b: tensor<8x32xf32>) -> tensor<8x48xf32> {
  %0 = mpt.concat %a, %b axis = 1 : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf32>
  return %0 : tensor<8x48xf32>
}

// -----

// concat of three integer operands along axis 0.
// CHECK-LABEL: func.func @concat3(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<2x3xi32>, %[[B:[a-z0-9_]+]]: tensor<1x3xi32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<5x3xi32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][2, 0] [1, 3] [1, 1]
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[A]] into %[[I1]][3, 0] [2, 3] [1, 1]
// CHECK: return %[[I2]]
func.func @concat3(%a: tensor<2x3xi32>, %b: tensor<1x3xi32>) -> tensor<5x3xi32> {
  %0 = mpt.concat %a, %b, %a axis = 0 : (tensor<2x3xi32>, tensor<1x3xi32>, tensor<2x3xi32>) -> tensor<5x3xi32>
  return %0 : tensor<5x3xi32>
}

// -----

// slice: extract_slice with the offsets, sizes and strides (1 by default).
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x32xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[X]][0, 0] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[X]][1, 1] [4, 8] [2, 4] : tensor<8x32xf32> to tensor<4x8xf32>
// CHECK: return %[[S0]], %[[S1]]
func.func @slice(%x: tensor<8x32xf32>) -> (tensor<8x16xf32>, tensor<4x8xf32>) {
  %0 = mpt.slice %x offsets = [0, 0] sizes = [8, 16] : tensor<8x32xf32> -> tensor<8x16xf32>
  %1 = mpt.slice %x offsets = [1, 1] sizes = [4, 8] strides = [2, 4] : tensor<8x32xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<8x16xf32>, tensor<4x8xf32>
}

// -----

// pad: tensor.pad yielding the value (a float, an integer).
// CHECK-LABEL: func.func @pad(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x16xf32>, %[[J:[a-z0-9_]+]]: tensor<2x5xi32>
// CHECK: %[[V:.*]] = arith.constant -1.500000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[1, 2] high[3, 4] {
// CHECK: tensor.yield %[[V]] : f32
// CHECK: } : tensor<8x16xf32> to tensor<12x22xf32>
// CHECK: %[[VI:.*]] = arith.constant 7 : i32
// CHECK: %[[PI:.*]] = tensor.pad %[[J]] low[0, 1] high[0, 0] {
// CHECK: tensor.yield %[[VI]] : i32
// CHECK: } : tensor<2x5xi32> to tensor<2x6xi32>
// CHECK: return %[[P]], %[[PI]]
func.func @pad(%x: tensor<8x16xf32>, %j: tensor<2x5xi32>) -> (tensor<12x22xf32>, tensor<2x6xi32>) {
  %0 = mpt.pad %x low = [1, 2] high = [3, 4] value = -1.5 : tensor<8x16xf32> -> tensor<12x22xf32>
  %1 = mpt.pad %j low = [0, 1] high = [0, 0] value = 7.0 : tensor<2x5xi32> -> tensor<2x6xi32>
  return %0, %1 : tensor<12x22xf32>, tensor<2x6xi32>
}

// -----

// CHECK-LABEL: func.func @constant(
// CHECK: %[[C0:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf16>
// CHECK: %[[C1:.*]] = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK: return %[[C0]], %[[C1]]
func.func @constant() -> (tensor<2xf16>, tensor<3xi64>) {
  %0 = mpt.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %1 = mpt.constant dense<[1, 2, 3]> : tensor<3xi64>
  return %0, %1 : tensor<2xf16>, tensor<3xi64>
}

// -----

// cast: one elementwise generic per cast with the scalar conversion.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[H:[a-z0-9_]+]]: tensor<4xf16>, %[[I:[a-z0-9_]+]]: tensor<4xi32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[C:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[C]] : f16
// CHECK: linalg.generic {{.*}} ins(%[[H]] : tensor<4xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f16, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: linalg.yield %[[C]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.sitofp %[[V]] : i32 to f32
// CHECK-NEXT: linalg.yield %[[C]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[C:.*]] = arith.fptosi %[[V]] : f32 to i32
// CHECK-NEXT: linalg.yield %[[C]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xi64>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i64):
// CHECK-NEXT: %[[C:.*]] = arith.extsi %[[V]] : i32 to i64
// CHECK-NEXT: linalg.yield %[[C]] : i64
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf64>)
// CHECK-NEXT: ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f64):
// CHECK-NEXT: %[[C:.*]] = arith.extf %[[V]] : f32 to f64
// CHECK-NEXT: linalg.yield %[[C]] : f64
func.func @cast(%x: tensor<4xf32>, %h: tensor<4xf16>, %i: tensor<4xi32>)
    -> (tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi64>, tensor<4xf64>) {
  %0 = mpt.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = mpt.cast %h : tensor<4xf16> to tensor<4xf32>
  %2 = mpt.cast %i : tensor<4xi32> to tensor<4xf32>
  %3 = mpt.cast %x : tensor<4xf32> to tensor<4xi32>
  %4 = mpt.cast %i : tensor<4xi32> to tensor<4xi64>
  %5 = mpt.cast %x : tensor<4xf32> to tensor<4xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi64>, tensor<4xf64>
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// -----

// softmax_cross_entropy: the rows' max and sum of exp(x - max), then
// log(sum) - (x[i, label[i]] - max) from the one logit each row picks
// (tensor.extract), and the mean over the batch. No log-softmax of the
// logits' size.
// CHECK-DAG: #[[ID1:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ALL:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @softmax_cross_entropy(
// CHECK-SAME: %[[L:[a-z0-9_]+]]: tensor<32x10xf32>, %[[Y:[a-z0-9_]+]]: tensor<32xi64>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[L]] : tensor<32x10xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[L]], %[[MAX]] : tensor<32x10xf32>, tensor<32xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK-NOT: tensor<32x10xf32>) outs
// CHECK: %[[NLL:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[Y]], %[[MAX]], %[[SUM]] : tensor<32xi64>, tensor<32xf32>, tensor<32xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK-NEXT: ^bb0(%[[LAB:[a-z0-9_]+]]: i64, %[[M:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[ROW:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[COL:.*]] = arith.index_cast %[[LAB]] : i64 to index
// CHECK-NEXT: %[[X:.*]] = tensor.extract %[[L]][%[[ROW]], %[[COL]]] : tensor<32x10xf32>
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[LS:.*]] = math.log %[[S]] : f32
// CHECK-NEXT: %[[LP:.*]] = arith.subf %[[D]], %[[LS]] : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[LP]] : f32
// CHECK-NEXT: linalg.yield %[[NEG]] : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[TOT:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ALL]]], iterator_types = ["reduction"]} ins(%[[NLL]] : tensor<32xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins(%[[TOT]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[N:.*]] = arith.constant 3.200000e+01 : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: return %[[R]] : tensor<f32>
func.func @softmax_cross_entropy(%logits: tensor<32x10xf32>, %labels: tensor<32xi64>) -> tensor<f32> {
  %0 = mpt.softmax_cross_entropy %logits, %labels : (tensor<32x10xf32>, tensor<32xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// softmax_cross_entropy_grad on f16: the same row statistics (in f32), then
// one generic over the logits that computes exp(x - max) / sum minus the
// one-hot label, times dloss / 4, in f32 and rounds it once. No
// probabilities of the logits' size.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @softmax_cross_entropy_grad(
// CHECK-SAME: %[[L:[a-z0-9_]+]]: tensor<4x10xf16>, %[[Y:[a-z0-9_]+]]: tensor<4xi64>, %[[G:[a-z0-9_]+]]: tensor<f16>
// CHECK-NOT: tensor<4x10xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<4x10xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[L]], %[[MAX]] : tensor<4x10xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[SCALAR]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[L]], %[[Y]], %[[G]], %[[MAX]], %[[SUM]] : tensor<4x10xf16>, tensor<4xi64>, tensor<f16>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x10xf16>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f16, %[[LAB:[a-z0-9_]+]]: i64, %[[D:[a-z0-9_]+]]: f16, %[[M:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[SH:.*]] = arith.subf %[[XE]], %[[M]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[SH]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.divf %[[E]], %[[S]] : f32
// CHECK-NEXT: %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK-NEXT: %[[HIT:.*]] = arith.cmpi eq, %[[CI]], %[[LAB]] : i64
// CHECK: %[[ONE:.*]] = arith.select %[[HIT]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[DIFF:.*]] = arith.subf %[[P]], %[[ONE]] : f32
// CHECK-NEXT: %[[DE:.*]] = arith.extf %[[D]] : f16 to f32
// CHECK-NEXT: %[[B:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[DB:.*]] = arith.divf %[[DE]], %[[B]] : f32
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[DIFF]], %[[DB]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]]
func.func @softmax_cross_entropy_grad(%l: tensor<4x10xf16>, %y: tensor<4xi64>, %g: tensor<f16>) -> tensor<4x10xf16> {
  %0 = mpt.softmax_cross_entropy_grad %l, %y, %g : (tensor<4x10xf16>, tensor<4xi64>, tensor<f16>) -> tensor<4x10xf16>
  return %0 : tensor<4x10xf16>
}

// -----

// mse_loss: one sum over all 64 elements of (x - t)^2, computed inside the
// reduction (no tensor of squares), then the mean.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ALL:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @mse_loss(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x2xf32>, %[[T:[a-z0-9_]+]]: tensor<32x2xf32>
// CHECK: %[[TOT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ALL]]], iterator_types = ["reduction", "reduction"]} ins(%[[X]], %[[T]] : tensor<32x2xf32>, tensor<32x2xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[S]], %[[D2]] : f32
// CHECK-NEXT: linalg.yield %[[N]] : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[TOT]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.constant 6.400000e+01 : f32
// CHECK: arith.divf
// CHECK: return %[[R]] : tensor<f32>
func.func @mse_loss(%x: tensor<32x2xf32>, %t: tensor<32x2xf32>) -> tensor<f32> {
  %0 = mpt.mse_loss %x, %t : (tensor<32x2xf32>, tensor<32x2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// l1_loss: the sum of |x - t|, then the mean.
// CHECK-LABEL: func.func @l1_loss(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<32x2xf32>, %[[T:[a-z0-9_]+]]: tensor<32x2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[X]], %[[T]] : tensor<32x2xf32>, tensor<32x2xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[AD:.*]] = math.absf %[[D]] : f32
// CHECK-NEXT: arith.addf %[[S]], %[[AD]] : f32
// CHECK: arith.constant 6.400000e+01 : f32
// CHECK: arith.divf
func.func @l1_loss(%x: tensor<32x2xf32>, %t: tensor<32x2xf32>) -> tensor<f32> {
  %0 = mpt.l1_loss %x, %t : (tensor<32x2xf32>, tensor<32x2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

// -----

// gelu_grad (exact) is dy (Phi(x) + x phi(x)) with the same Phi(x) = 0.5
// erfc(-x / sqrt(2)) as gelu and phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_grad(
// CHECK-SAME: %[[DY:[a-z0-9_]+]]: tensor<4x8xf32>, %[[X:[a-z0-9_]+]]: tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[DY]], %[[X]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[G:[a-z0-9_]+]]: f32, %[[XV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[NRSQRT2:.*]] = arith.constant -0.707106769 : f32
// CHECK-DAG: %[[MHALF:.*]] = arith.constant -5.000000e-01 : f32
// CHECK-DAG: %[[INVSQRT2PI:.*]] = arith.constant 0.398942292 : f32
// CHECK-DAG: %[[S:.*]] = arith.mulf %[[XV]], %[[NRSQRT2]] : f32
// CHECK-DAG: %[[ERFC:.*]] = math.erfc %[[S]] : f32
// CHECK-DAG: %[[CDF:.*]] = arith.mulf %[[HALF]], %[[ERFC]] : f32
// CHECK-DAG: %[[X2:.*]] = arith.mulf %[[XV]], %[[XV]] : f32
// CHECK-DAG: %[[Q:.*]] = arith.mulf %[[MHALF]], %[[X2]] : f32
// CHECK-DAG: %[[EQ:.*]] = math.exp %[[Q]] : f32
// CHECK-DAG: %[[PDF:.*]] = arith.mulf %[[INVSQRT2PI]], %[[EQ]] : f32
// CHECK-DAG: %[[XPDF:.*]] = arith.mulf %[[XV]], %[[PDF]] : f32
// CHECK-DAG: %[[D:.*]] = arith.addf %[[CDF]], %[[XPDF]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[G]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: math.erf{{ }}
// CHECK-NOT: math.tanh
func.func @gelu_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.gelu_grad %dy, %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gelu_grad approximate<tanh> is dy (s + 2 x s (1 - s) u') with the same
// s = sigmoid(2u) = 1 / (1 + exp(-2u)) as gelu and
// u' = sqrt(2/pi) (1 + 3 * 0.044715 x^2); no tanh.
// CHECK-LABEL: func.func @gelu_grad_tanh(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[G:[a-z0-9_]+]]: f32, %[[XV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-DAG: %[[M2:.*]] = arith.constant -2.000000e+00 : f32
// CHECK-DAG: %[[M2U:.*]] = arith.mulf %[[M2]], %{{[0-9]+}} : f32
// CHECK-DAG: %[[E:.*]] = math.exp %[[M2U]] : f32
// CHECK-DAG: %[[DEN:.*]] = arith.addf %{{cst[_0-9]*}}, %[[E]] : f32
// CHECK-DAG: %[[SIG:.*]] = arith.divf %{{cst[_0-9]*}}, %[[DEN]] : f32
// CHECK-DAG: %[[C3:.*]] = arith.constant 1.341450e-01 : f32
// CHECK-DAG: %[[DU2:.*]] = arith.mulf %[[C3]], %{{[0-9]+}} : f32
// CHECK-DAG: %[[DU1:.*]] = arith.addf %{{cst[_0-9]*}}, %[[DU2]] : f32
// CHECK-DAG: %[[DU:.*]] = arith.mulf %{{cst[_0-9]*}}, %[[DU1]] : f32
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[TWOS:.*]] = arith.mulf %[[TWO]], %[[SIG]] : f32
// CHECK-DAG: %[[OMS:.*]] = arith.subf %{{cst[_0-9]*}}, %[[SIG]] : f32
// CHECK-DAG: %[[DS:.*]] = arith.mulf %[[TWOS]], %[[OMS]] : f32
// CHECK-DAG: %[[XDS:.*]] = arith.mulf %[[XV]], %[[DS]] : f32
// CHECK-DAG: %[[XDSDU:.*]] = arith.mulf %[[XDS]], %[[DU]] : f32
// CHECK-DAG: %[[D:.*]] = arith.addf %[[SIG]], %[[XDSDU]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[G]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
func.func @gelu_grad_tanh(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = mpt.gelu_grad %dy, %x approximate<tanh> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
