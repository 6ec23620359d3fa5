//===- Passes.td - mpt conversion passes -------------------*- tablegen -*-===//

#ifndef MPT_CONVERSION_PASSES_TD
#define MPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMPTToLinalg : Pass<"convert-mpt-to-linalg"> {
  let summary = "Lower every mpt op to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites mpt ops into named linalg ops where they exist (matmul,
    batch_matmul, conv_2d_nchw_fchw / nhwc_hwcf, pooling, transpose) and
    linalg.generic otherwise, plus tensor/arith/math ops, on tensors.

    Precision is explicit: an op on f16/bf16 data computes in f32 and rounds
    its result once to the element type, as a GPU kernel does; a contraction
    with `acc(f32)` extends its operands inside the contraction, accumulates
    in f32 and rounds once; without `acc` it accumulates in the element type.
    Reductions, normalizations and losses accumulate in f32 for narrower
    types.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // MPT_CONVERSION_PASSES_TD
