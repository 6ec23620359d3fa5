//===- Autodiff.h - reverse-mode differentiation of mpt graphs --*- C++ -*-===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_AUTODIFF_H
#define MPT_DIALECT_MPT_TRANSFORMS_AUTODIFF_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mpt {

/// Appends to the body of `func` (before its terminator) the backward pass of
/// the scalar `loss` with respect to each of `wrt`, and returns one gradient
/// per value of `wrt` (zeros for values the loss does not depend on). Fails,
/// with an error naming the op, when an op on the path has no gradient rule.
/// The backward pass is seeded with a constant one, or with an
/// `mpt.backward_seed` of the loss when `markSeed` is set (a seed that
/// survives canonicalization, for mpt-loss-scaling to find).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
differentiate(mlir::func::FuncOp func, mlir::Value loss,
              llvm::ArrayRef<mlir::Value> wrt, bool markSeed = false);

/// The loss of a training function: the result with `#mpt.role<loss>`, or
/// its only result when that is a float scalar. Emits an error otherwise.
mlir::FailureOr<unsigned> findLossResult(mlir::func::FuncOp func);

/// The arguments with `#mpt.role<parameter>`; emits an error when there are
/// none.
mlir::FailureOr<llvm::SmallVector<mlir::BlockArgument>>
findParameters(mlir::func::FuncOp func);

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_AUTODIFF_H
