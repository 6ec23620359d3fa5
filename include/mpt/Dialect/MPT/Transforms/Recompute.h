//===- Recompute.h - recomputing activations in the backward pass -*- C++
//-*-===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_RECOMPUTE_H
#define MPT_DIALECT_MPT_TRANSFORMS_RECOMPUTE_H

#include <cstdint>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mpt {

/// In `func`, a training step with an mpt.backward_seed, computes each
/// activation (gelu, tanh, sigmoid, relu) of the forward pass that the
/// backward pass reads again right before its first backward reader, when
/// the backward pass reads the activation's input too; the copy is marked
/// mpt.recomputed. An activation only the backward pass reads is moved
/// there. Returns the number of activations recomputed or moved.
unsigned recomputeActivations(mlir::func::FuncOp func);

/// In `func`, a training step with an mpt.backward_seed, moves each working
/// copy of at least `minBytes` bytes (a cast of an argument to a narrower
/// float type, before the seed) to right before its first reader, and,
/// where both passes read it, makes it again (marked mpt.recomputed) right
/// before its first backward reader, which then reads the new copy. A
/// negative `minBytes` changes nothing. Returns the number of copies made
/// again or moved to the backward pass.
unsigned recomputeWorkingCopies(mlir::func::FuncOp func, int64_t minBytes);

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_RECOMPUTE_H
