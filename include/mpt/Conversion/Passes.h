//===- Passes.h - mpt conversion passes -------------------------*- C++ -*-===//

#ifndef MPT_CONVERSION_PASSES_H
#define MPT_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace mpt {

#define GEN_PASS_DECL
#include "mpt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Conversion/Passes.h.inc"

/// Adds the patterns that rewrite mpt ops into linalg/tensor/arith/math.
void populateMPTToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// The attribute with which convert-mpt-to-linalg marks the linalg.generic of
/// an ungrouped mpt.conv2d_backward_filter (strides, dilation, layout), for
/// mpt-conv-to-gemm.
constexpr const char kFilterGradientAttrName[] = "mpt_filter_gradient";
/// The same for the data gradient of an ungrouped mpt.conv2d_backward_data
/// (strides, dilation, padding, layout).
constexpr const char kDataGradientAttrName[] = "mpt_data_gradient";

} // namespace mpt

#endif // MPT_CONVERSION_PASSES_H
