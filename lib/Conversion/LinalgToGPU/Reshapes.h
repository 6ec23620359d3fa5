//===- Reshapes.h - row-major reshapes of one buffer ------------*- C++ -*-===//
//
// What the passes that read a buffer through another shape of it need:
// reshapes of an identity-layout buffer keep its elements in row-major
// order, so two shapes of it meet at a common refinement, a shape whose
// dimensions split those of both.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_LIB_CONVERSION_LINALGTOGPU_RESHAPES_H
#define MPT_LIB_CONVERSION_LINALGTOGPU_RESHAPES_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mpt {

/// `v` through the memref.expand_shape and collapse_shape ops that made it.
mlir::Value reshapeSource(mlir::Value v);

/// The coarsest row-major shape that refines both `a` and `b` (shapes of
/// one buffer): its dimensions' strides are those of both. Nullopt when
/// the strides of one do not divide those of the other.
std::optional<llvm::SmallVector<int64_t>>
commonRefinement(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// The dims of `refined` (which refines `shape`) that make up each dim of
/// `shape`, outermost first (none for a dim of size 1).
llvm::SmallVector<llvm::SmallVector<int64_t, 4>>
piecesOf(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> refined);

} // namespace mpt

#endif // MPT_LIB_CONVERSION_LINALGTOGPU_RESHAPES_H
