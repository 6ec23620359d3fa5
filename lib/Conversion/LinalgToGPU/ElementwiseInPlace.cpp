//===- ElementwiseInPlace.cpp - mpt-elementwise-in-place ------------------===//
//
// An elementwise op whose destination is a tensor.empty takes as its
// destination an input of its type that nothing else reads, so that
// bufferization writes the result over that input rather than into a
// buffer of its own.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mpt {
#define GEN_PASS_DEF_ELEMENTWISEINPLACE
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The input of `op` that its result may overwrite instead of its
/// destination `init`: one of `init`'s type, read at `init`'s indices, made
/// by an op of the same block and read by nothing but `op`; or null.
OpOperand *dyingInput(linalg::GenericOp op, OpOperand &init) {
  AffineMap initMap = op.getMatchingIndexingMap(&init);
  Type type = init.get().getType();
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    Operation *def = value.getDefiningOp();
    if (value.getType() != type || !def || def->getBlock() != op->getBlock() ||
        !value.hasOneUse() || op.getMatchingIndexingMap(input) != initMap)
      continue;
    // Not an alias of something else's buffer: a view, or a slice.
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
            tensor::ExtractSliceOp, tensor::CastOp>(def))
      continue;
    return input;
  }
  return nullptr;
}

struct ElementwiseInPlacePass
    : public mpt::impl::ElementwiseInPlaceBase<ElementwiseInPlacePass> {
  void runOnOperation() override {
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
          op.getNumParallelLoops() != op.getNumLoops())
        return;
      OpOperand &init = *op.getDpsInitOperand(0);
      if (!init.get().getDefiningOp<tensor::EmptyOp>() ||
          op.payloadUsesValueFromOperand(&init) ||
          !op.getMatchingIndexingMap(&init).isIdentity())
        return;
      if (OpOperand *input = dyingInput(op, init))
        init.set(input->get());
    });
  }
};

} // namespace
