//===- FuseElementwise.cpp - mpt-fuse-elementwise -------------------------===//
//
// Upstream's elementwise fusion (linalg-fuse-elementwise-ops: the same
// patterns and clean-ups) with a control function that keeps named matmuls
// and their epilogue chains out of reshape propagation, so that they reach
// the Tensor Core kernels as matmuls with their rounding (and what follows
// it elementwise) right after them: the fused epilogue.
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

/// How many elementwise ops back from a matmul an op may be and still count
/// as part of its epilogue chain.
constexpr int kChainDepth = 4;

/// Rewrites of the pass, at most.
constexpr int64_t kMaxRewrites = 1 << 16;

bool readsChain(Operation *op, int depth);

/// Whether `def` is a matmul, or an elementwise generic that reads the
/// result of one (at most `depth` ops back).
bool inChain(Operation *def, int depth) {
  if (isMatmul(def))
    return true;
  auto generic = dyn_cast_or_null<linalg::GenericOp>(def);
  return generic && generic.getNumParallelLoops() == generic.getNumLoops() &&
         readsChain(generic, depth);
}

/// The op that produces `v`, through reshapes.
Operation *producer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      return def;
    v = def->getOperand(0);
  }
  return nullptr;
}

/// Whether `op` reads a value of a matmul's chain (the rounding after it and
/// the elementwise ops that follow, which become the matmul's epilogue),
/// reshaped or not.
bool readsChain(Operation *op, int depth) {
  return depth > 0 && llvm::any_of(op->getOperands(), [&](Value v) {
           return inChain(producer(v), depth - 1);
         });
}

/// Whether `op` is a convolution gradient that mpt-conv-to-gemm rewrites.
bool isConvGradient(Operation *op) {
  return op->hasAttr(mpt::kDataGradientAttrName) ||
         op->hasAttr(mpt::kFilterGradientAttrName);
}

/// Whether `op` is an elementwise generic that changes the element type of
/// its input (a cast).
bool isCast(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  return getElementTypeOrSelf(generic.getDpsInputOperand(0)->get()) !=
         getElementTypeOrSelf(generic->getResult(0));
}

/// Whether reshape propagation may change `op` (the linalg op it would
/// expand): not a matmul, nor an op of a matmul's chain.
bool mayExpand(Operation *op) {
  return op && !isMatmul(op) && !readsChain(op, kChainDepth);
}

/// An elementwise generic that reads an expand_shape of a value of a
/// matmul's chain (a projection's rounding, expanded back to [B, T, D])
/// runs at the unexpanded shape instead, its iteration dimensions collapsed
/// as the expand_shape's groups; elementwise fusion then takes it into the
/// chain, and the chain becomes the matmul's epilogue (a bias, an
/// activation, a residual). It then belongs to the chain itself, which
/// reshape propagation leaves alone: the two do not undo each other.
struct CollapseIntoMatmulChain : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        op.getNumParallelLoops() != op.getNumLoops())
      return failure();
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand || !op.getMatchingIndexingMap(input).isIdentity() ||
          !inChain(producer(expand.getSrc()), kChainDepth - 1))
        continue;
      SmallVector<ReassociationIndices> groups;
      for (const ReassociationIndices &group : expand.getReassociationIndices())
        if (group.size() > 1)
          groups.push_back(group);
      if (groups.empty() ||
          !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), groups))
        continue;
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
      return success();
    }
    return failure();
  }
};

struct FuseElementwisePass
    : public mpt::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Upstream's control: the producer has no other user. And no cast
    // fuses into the convolution gradients that mpt-conv-to-gemm takes to
    // Tensor Cores: with the f16 copy of a filter or an input made right
    // before its reader (mpt-master-weights), the gradient would read f32
    // and stay a SIMT loop.
    linalg::ControlFusionFn oneUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !(isConvGradient(fused->getOwner()) && isCast(producer));
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
    patterns.add<CollapseIntoMatmulChain>(context);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapes);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, oneUse);
    // (A bound on the rewrites: patterns that undid one another would
    // otherwise grow the IR without end; the result is still correct.)
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setUseTopDownTraversal().setMaxNumRewrites(
                kMaxRewrites))))
      getOperation().emitWarning()
          << "mpt-fuse-elementwise: the fusion patterns did not converge "
             "within "
          << kMaxRewrites << " rewrites";
  }
};

} // namespace
