//===- FuseElementwise.cpp - mpt-fuse-elementwise -------------------------===//
//
// Upstream's elementwise fusion (linalg-fuse-elementwise-ops: the same
// patterns and clean-ups) with a control function that keeps named matmuls
// out of reshape propagation, so that they reach the Tensor Core kernels as
// matmuls, with their rounding right after them (the fused epilogue).
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

bool isMatmul(Operation *op) {
  return op && isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
}

/// Whether reshape propagation may change `op` (the linalg op it would
/// expand): not a matmul, nor an op that reads a matmul's result (the
/// rounding that becomes the matmul's epilogue).
bool mayExpand(Operation *op) {
  if (!op || isMatmul(op))
    return false;
  return llvm::none_of(op->getOperands(),
                       [](Value v) { return isMatmul(v.getDefiningOp()); });
}

struct FuseElementwisePass
    : public mpt::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Upstream's control: the producer has no other user.
    linalg::ControlFusionFn oneUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // Reshapes: a collapse_shape into the op that uses it (the owner), or an
    // expand_shape of an op's result (the producer).
    linalg::ControlFusionFn reshapes = [&](OpOperand *fused) {
      Operation *owner = fused->getOwner();
      Operation *expanded =
          isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(owner)
              ? fused->get().getDefiningOp()
              : owner;
      return oneUse(fused) && mayExpand(expanded);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, oneUse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapes);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, oneUse);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
