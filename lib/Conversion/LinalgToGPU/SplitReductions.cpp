//===- SplitReductions.cpp - mpt-split-reductions -------------------------===//
//
// A reduction of a whole tensor to a scalar as partial results computed in
// parallel, then one small reduction. Partial result p reduces the elements
// p, p + parts, p + 2 parts, ...: adjacent threads read adjacent elements.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mpt {
#define GEN_PASS_DEF_SPLITREDUCTIONS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct SplitReductionsPass
    : public mpt::impl::SplitReductionsBase<SplitReductionsPass> {
  using SplitReductionsBase::SplitReductionsBase;

  void runOnOperation() override {
    if (parts < 2 || minSize < 1) {
      getOperation().emitError()
          << "mpt-split-reductions: expects parts >= 2 and min-size >= 1, got "
          << static_cast<int64_t>(parts) << " and "
          << static_cast<int64_t>(minSize);
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isFullReduction(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates)
      split(rewriter, op);
  }

  /// Every loop a reduction, one input read through the identity map, one
  /// rank-0 output, static shape of at least min-size elements.
  bool isFullReduction(linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 || op.getNumLoops() == 0 ||
        op.getNumReductionLoops() != op.getNumLoops())
      return false;
    auto in = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    auto out = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
    return in && out && in.hasStaticShape() && out.getRank() == 0 &&
           op.getIndexingMapsArray()[0].isIdentity() &&
           in.getNumElements() >= minSize;
  }

  void split(IRRewriter &rewriter, linalg::GenericOp op) {
    auto in = cast<RankedTensorType>(op.getInputs()[0].getType());
    int64_t size = in.getNumElements();
    int64_t ratio = 1;
    for (int64_t r = std::min<int64_t>(parts, size / 2); r >= 2; --r)
      if (size % r == 0) {
        ratio = r;
        break;
      }
    if (ratio < 2)
      return;
    // The reduction over a 1-D view of the input.
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value flat = op.getInputs()[0];
    if (in.getRank() != 1) {
      ReassociationIndices all;
      for (int64_t d = 0; d < in.getRank(); ++d)
        all.push_back(d);
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc, RankedTensorType::get({size}, in.getElementType()),
          flat, SmallVector<ReassociationIndices>{all});
    }
    MLIRContext *ctx = op.getContext();
    auto reduce1d = linalg::GenericOp::create(
        rewriter, loc, op.getResultTypes(), ValueRange{flat}, op.getOutputs(),
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx),
                            AffineMap::get(1, 0, {}, ctx)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::reduction});
    rewriter.cloneRegionBefore(op.getRegion(), reduce1d.getRegion(),
                               reduce1d.getRegion().end());
    FailureOr<linalg::SplitReductionResult> result = linalg::splitReduction(
        rewriter, cast<linalg::LinalgOp>(reduce1d.getOperation()),
        [&](linalg::LinalgOp) {
          return linalg::SplitReductionOptions{ratio, 0,
                                               /*innerParallel=*/true};
        });
    if (failed(result)) {
      // The combiner is not one splitReduction knows: keep the original.
      rewriter.eraseOp(reduce1d);
      if (flat != op.getInputs()[0])
        rewriter.eraseOp(flat.getDefiningOp());
      return;
    }
    // The partial results innermost in memory (partial p reduces elements
    // p, p + ratio, ...), so that the threads computing them read adjacent
    // elements at each step (coalesced), but outermost in the loop nest, so
    // that they stay one parallel loop (one thread each).
    if (auto partials =
            dyn_cast<linalg::GenericOp>(result->splitLinalgOp.getOperation()))
      if (partials.getNumLoops() == 2 && partials.getIteratorTypesArray()[0] ==
                                             utils::IteratorType::reduction) {
        rewriter.setInsertionPoint(partials);
        (void)linalg::interchangeGenericOp(rewriter, partials, {1, 0});
      }
    rewriter.replaceOp(op, result->resultCombiningLinalgOp->getResults());
  }
};

} // namespace
