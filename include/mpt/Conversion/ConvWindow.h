//===- ConvWindow.h - windows of 2-D convolutions --------------*- C++ -*-===//
//
// Index arithmetic shared by the lowering of convolution gradients
// (convert-mpt-to-linalg) and their rewrite as matmuls (mpt-conv-to-gemm).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CONVERSION_CONVWINDOW_H
#define MPT_CONVERSION_CONVWINDOW_H

#include "mlir/IR/Builders.h"

#include <utility>

namespace mpt {

/// The index of a window's output position that reads input position `i`
/// through kernel offset `k` (i + padLow = o * stride + k * dilation),
/// clamped to 0 where there is none, and whether there is one (i1).
std::pair<mlir::Value, mlir::Value>
windowSource(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
             mlir::Value k, int64_t padLow, int64_t stride, int64_t dilation,
             int64_t outSize);

} // namespace mpt

#endif // MPT_CONVERSION_CONVWINDOW_H
