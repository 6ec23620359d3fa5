//===- ColumnSums.h - the column sums of a matmul's B -----------*- C++ -*-===//
//
// What mpt-split-reductions and mpt-linalg-to-tensor-cores agree on: the
// reduction that sums the columns of a matmul's B (a bias gradient), which
// the Tensor Core kernels compute (ColumnSums.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_LIB_CONVERSION_LINALGTOGPU_COLUMNSUMS_H
#define MPT_LIB_CONVERSION_LINALGTOGPU_COLUMNSUMS_H

#include "mlir/IR/Value.h"

namespace mlir::linalg {
class GenericOp;
} // namespace mlir::linalg

namespace mpt {

/// Whether `generic` sums the columns of `b` (K x N, f16, bf16 or f32) over
/// K into an f32 vector of N: out[n] = out[n] + (extf) b[k, n], k its
/// reduction loop. On tensors or on buffers (static shapes, identity
/// layouts).
bool sumsColumnsOf(mlir::linalg::GenericOp generic, mlir::Value b);

/// Whether `generic` (on tensors) sums the columns of the f16 or bf16 B of
/// a linalg.matmul with an f32 result, N and K multiples of 8 (with `tf32`,
/// also an f32 B, K a multiple of 4 and N of 8): the reduction that
/// mpt-linalg-to-tensor-cores computes in the matmul's mma.sync or wgmma
/// kernel, which mpt-split-reductions then leaves whole.
bool sumsColumnsOfMatmulB(mlir::linalg::GenericOp generic, bool tf32 = false);

/// Whether `generic` (on tensors) sums the columns of the B of a
/// linalg.matmul with an f32 result that the tiled SIMT kernel takes: f32
/// operands (with `tf32`, only those whose N or K is not a multiple of 4),
/// or f16 or bf16 ones whose N or K is not a multiple of 8 (rows that no
/// asynchronous copy takes). The SIMT kernel computes those sums too.
bool sumsColumnsOfSimtMatmulB(mlir::linalg::GenericOp generic,
                              bool tf32 = false);

} // namespace mpt

#endif // MPT_LIB_CONVERSION_LINALGTOGPU_COLUMNSUMS_H
