//===- SplitReductions.cpp - mpt-split-reductions -------------------------===//
//
// A reduction of a whole tensor to a scalar as partial results computed in
// parallel, each of about `chunk` elements, reduced again the same way until
// at most `chunk` remain for the last reduction. Partial result p of R
// reduces the elements p, p + R, p + 2 R, ...: adjacent threads read
// adjacent elements.
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
    if (parts < 2 || chunk < 2 || minSize < 1) {
      getOperation().emitError()
          << "mpt-split-reductions: expects parts >= 2, chunk >= 2 and "
             "min-size >= 1, got "
          << static_cast<int64_t>(parts) << ", " << static_cast<int64_t>(chunk)
          << " and " << static_cast<int64_t>(minSize);
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isFullReduction(op, minSize))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates)
      split(rewriter, op);
  }

  /// Every loop a reduction, one input read through the identity map, one
  /// rank-0 output, static shape of at least `least` elements.
  bool isFullReduction(linalg::GenericOp op, int64_t least) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 || op.getNumLoops() == 0 ||
        op.getNumReductionLoops() != op.getNumLoops())
      return false;
    auto in = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    auto out = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
    return in && out && in.hasStaticShape() && out.getRank() == 0 &&
           op.getIndexingMapsArray()[0].isIdentity() &&
           in.getNumElements() >= least;
  }

  /// The elements each partial result of a stage reduces for `size`
  /// elements: the smallest divisor of `size` of at least `chunk` (and of
  /// size / parts), or, where there is none below `size`, size / (the
  /// largest divisor up to `parts`). 0 where the size cannot be split.
  int64_t elementsPerPart(int64_t size) {
    int64_t least = std::max<int64_t>(chunk, llvm::divideCeil(size, parts));
    int64_t best = size;
    for (int64_t i = 1; i * i <= size; ++i) {
      if (size % i)
        continue;
      for (int64_t d : {i, size / i})
        if (d >= least && d < best)
          best = d;
    }
    if (best < size)
      return best;
    for (int64_t r = std::min<int64_t>(parts, size / 2); r >= 2; --r)
      if (size % r == 0)
        return size / r;
    return 0;
  }

  /// Splits `op` into partial results and a reduction of those, which is
  /// split again while more than `chunk` partial results remain.
  void split(IRRewriter &rewriter, linalg::GenericOp op) {
    auto in = cast<RankedTensorType>(op.getInputs()[0].getType());
    int64_t size = in.getNumElements();
    int64_t perPart = elementsPerPart(size);
    if (perPart == 0)
      return;
    int64_t ratio = size / perPart;
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
    // The partial results are reduced the same way while there are more
    // than `chunk` of them: no thread reduces more than a few chunks.
    auto combine = dyn_cast<linalg::GenericOp>(
        result->resultCombiningLinalgOp.getOperation());
    if (combine && ratio > chunk && isFullReduction(combine, /*least=*/1))
      split(rewriter, combine);
  }
};

} // namespace
