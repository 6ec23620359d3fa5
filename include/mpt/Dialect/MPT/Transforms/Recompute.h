//===- Recompute.h - recomputing activations in the backward pass -*- C++
//-*-===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_RECOMPUTE_H
#define MPT_DIALECT_MPT_TRANSFORMS_RECOMPUTE_H

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

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_RECOMPUTE_H
