//===- BufferAccesses.h - which buffers ops read and write ------*- C++ -*-===//
//
// What the passes that put several ops into one kernel (horizontal fusion of
// loops, grouped reductions) need to know to reorder them: the buffers an
// op reads and writes, told apart by the value they are views of.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_LIB_CONVERSION_LINALGTOGPU_BUFFERACCESSES_H
#define MPT_LIB_CONVERSION_LINALGTOGPU_BUFFERACCESSES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace mpt {

/// The buffers an op (and the ops nested in it) reads and writes, by the
/// value they are views of. Freeing a buffer counts as writing it.
struct Accesses {
  llvm::SmallVector<mlir::Value> reads, writes;
  bool unknown = false; // an op with memory effects that are not known
};

/// The buffer `v` is a view of (through subviews, casts, reshapes).
mlir::Value rootOf(mlir::Value v);

/// What `op` reads and writes. A kernel launch (gpu.launch_func) may read
/// and write every buffer it is given, and reads the tensors of the TMA
/// descriptors it is given (writes them too, with `mpt.tma_store`).
Accesses accessesOf(mlir::Operation *op);

/// What a kernel (a gpu.launch) does to the buffers from outside it: the
/// effects of its ops on them. Ops inside that take none of them (barriers,
/// fences, register arithmetic) do not count, even without known effects;
/// one that takes such a buffer without known effects makes it unknown.
/// (Reads through values that are not memrefs, such as TMA descriptors, are
/// not seen: the caller accounts for those.)
Accesses kernelAccesses(mlir::Operation *kernel);

/// What `op` does to buffers in a function whose kernels mpt built (every
/// gpu.launch is one of its Tensor Core or reduction kernels): a kernel's
/// effects by kernelAccesses, a TMA descriptor reads its tensor (writes it,
/// with `mpt.tma_store`: MPTDialect::getTmaStoreAttrName()), anything else
/// by accessesOf.
Accesses builtAccessesOf(mlir::Operation *op);

/// Whether two buffers may be the same memory: the same value, or two
/// function arguments (a caller may pass one buffer twice), or anything not
/// made by an allocation in the function. A function's result buffers (an
/// argument with `bufferize.result`) and `llvm.noalias` arguments are
/// distinct from every other buffer.
bool mayAlias(mlir::Value x, mlir::Value y);

/// Whether the ops of `x` and `y` may run in either order.
bool independent(const Accesses &x, const Accesses &y);

/// Erases the allocation `buffer` if nothing reads it: its only users are
/// views of it, frees, and ops that only write it (fills, transposes and
/// copies into it), which go with it. Returns whether it did.
bool eraseIfUnread(mlir::Value buffer);

/// Erases `writer`, an op that only writes the allocation `buffer` (in the
/// same block), if no op after it in the block may read the buffer, and
/// then the buffer if nothing reads it at all. Returns whether `writer` went.
bool eraseDeadWrite(mlir::Operation *writer, mlir::Value buffer);

} // namespace mpt

#endif // MPT_LIB_CONVERSION_LINALGTOGPU_BUFFERACCESSES_H
