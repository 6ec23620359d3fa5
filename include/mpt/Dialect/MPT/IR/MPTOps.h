//===- MPTOps.h - mpt dialect operations ------------------------*- C++ -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPTOPS_H
#define MPT_DIALECT_MPT_IR_MPTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Dialect/MPT/IR/PrecisionPolicyInterface.h"

#define GET_OP_CLASSES
#include "mpt/Dialect/MPT/IR/MPTOps.h.inc"

namespace mpt {

/// The numpy broadcast of two shapes, or failure when a pair of dimensions
/// differs and neither is 1. Dynamic dimensions broadcast to dynamic.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// An `mpt.constant` of float tensor type `type` with every element `value`
/// (rounded to nearest even).
mlir::Value createFloatSplat(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::RankedTensorType type, double value);

/// Whether every value of float type `from` is exactly representable in
/// float type `to` (so that a cast `from -> to` is lossless).
bool isLosslessFloatCast(mlir::Type from, mlir::Type to);

} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_MPTOPS_H
