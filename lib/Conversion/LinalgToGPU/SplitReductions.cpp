//===- SplitReductions.cpp - mpt-split-reductions -------------------------===//
//
// A reduction of a whole tensor to a scalar as partial results computed in
// parallel, each of about `chunk` elements, reduced again the same way until
// at most `chunk` remain for the last reduction. Partial result p of R
// reduces the elements p, p + R, p + 2 R, ...: adjacent threads read
// adjacent elements.
//
//===----------------------------------------------------------------------===//

#include "ColumnSums.h"

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
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
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics, candidates, partial;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      if (!op.hasPureTensorSemantics())
        continue;
      parallelFirst(rewriter, op);
      // A bias gradient that the matmul's Tensor Core kernel computes.
      if ((keepColumnSums && mpt::sumsColumnsOfMatmulB(op, tf32)) ||
          (keepSimtColumnSums && mpt::sumsColumnsOfSimtMatmulB(op, tf32)))
        continue;
      if (!full) {
        if (partialRatio(op) > 1 && (rows || !alongRows(op)))
          partial.push_back(op);
        continue;
      }
      if (linalg::GenericOp reduction = separateElementwise(rewriter, op))
        op = reduction;
      if (isFullReduction(op, minSize))
        candidates.push_back(op);
      else if (partialRatio(op) > 1 && (rows || !alongRows(op)))
        partial.push_back(op);
    }
    for (linalg::GenericOp op : candidates)
      split(rewriter, op);
    for (linalg::GenericOp op : partial)
      splitPartial(rewriter, op);
  }

  /// Makes the parallel loops of `op` outermost (in their order, except
  /// that the one that indexes the innermost dimension of its first input,
  /// if parallel, goes last), the reductions innermost. On the GPU, the
  /// outermost parallel loops are one thread each, the innermost of them
  /// varying fastest over the threads, and the reductions run inside a
  /// thread: a reduction loop outside a parallel one (a sum over the batch
  /// for each column, as a bias gradient is) would otherwise leave the whole
  /// nest to a single thread.
  static void parallelFirst(IRRewriter &rewriter, linalg::GenericOp op) {
    SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
    std::optional<unsigned> fastest;
    if (op.getNumDpsInputs() > 0) {
      AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
      if (map.getNumResults() > 0)
        if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
          if (kinds[dim.getPosition()] == utils::IteratorType::parallel)
            fastest = dim.getPosition();
    }
    SmallVector<unsigned> order;
    for (auto [i, kind] : llvm::enumerate(kinds))
      if (kind == utils::IteratorType::parallel && i != fastest)
        order.push_back(i);
    if (fastest)
      order.push_back(*fastest);
    for (auto [i, kind] : llvm::enumerate(kinds))
      if (kind != utils::IteratorType::parallel)
        order.push_back(i);
    if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
      return;
    rewriter.setInsertionPoint(op);
    (void)linalg::interchangeGenericOp(rewriter, op, order);
  }

  /// A full reduction that elementwise fusion merged with its producers (a
  /// mean squared error: several inputs, a broadcast bias, the square before
  /// the sum) as an elementwise generic into a temporary, then a reduction
  /// of that alone (one input read in order), which `split` takes. Its body
  /// must end in one combining op of the accumulator and one other value,
  /// the accumulator used nowhere else. Returns the new reduction, or null.
  linalg::GenericOp separateElementwise(IRRewriter &rewriter,
                                        linalg::GenericOp op) {
    if (op.getNumDpsInits() != 1 || op.getNumLoops() == 0 ||
        op.getNumReductionLoops() != op.getNumLoops())
      return nullptr;
    auto out = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
    if (!out || out.getRank() != 0)
      return nullptr;
    bool simple =
        op.getNumDpsInputs() == 1 && op.getIndexingMapsArray()[0].isIdentity();
    SmallVector<int64_t> shape = op.getStaticLoopRanges();
    int64_t size = 1;
    for (int64_t d : shape) {
      if (ShapedType::isDynamic(d))
        return nullptr;
      size *= d;
    }
    if (simple || size < minSize)
      return nullptr;
    Block &body = op.getRegion().front();
    BlockArgument acc = body.getArguments().back();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    Operation *combine = yield.getOperand(0).getDefiningOp();
    if (!combine || combine->getBlock() != &body ||
        combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
        !acc.hasOneUse() || !llvm::is_contained(combine->getOperands(), acc))
      return nullptr;
    Value element = combine->getOperand(combine->getOperand(0) == acc ? 1 : 0);
    if (element == acc)
      return nullptr;
    // The elements are taken in another order: the body may not read the
    // loop indices.
    if (!body.getOps<linalg::IndexOp>().empty())
      return nullptr;
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    rewriter.setInsertionPoint(op);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, shape, element.getType());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps.back() = AffineMap::getMultiDimIdentityMap(shape.size(), ctx);
    auto elementwise = linalg::GenericOp::create(
        rewriter, loc, TypeRange{empty.getType()}, op.getInputs(),
        ValueRange{empty}, maps,
        SmallVector<utils::IteratorType>(shape.size(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location, ValueRange args) {
          IRMapping map;
          for (auto [from, to] :
               llvm::zip(body.getArguments().drop_back(), args.drop_back()))
            map.map(from, to);
          for (Operation &inner : body.without_terminator())
            if (&inner != combine)
              b.clone(inner, map);
          linalg::YieldOp::create(b, loc, map.lookupOrDefault(element));
        });
    auto reduction = linalg::GenericOp::create(
        rewriter, loc, op.getResultTypes(), elementwise.getResults(),
        op.getOutputs(),
        ArrayRef<AffineMap>{
            AffineMap::getMultiDimIdentityMap(shape.size(), ctx),
            op.getIndexingMapsArray().back()},
        op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location, ValueRange args) {
          IRMapping map;
          map.map(element, args[0]);
          map.map(acc, args[1]);
          Operation *c = b.clone(*combine, map);
          linalg::YieldOp::create(b, loc, c->getResult(0));
        });
    rewriter.replaceOp(op, reduction.getResults());
    return reduction;
  }

  /// For a reduction along one loop with parallel loops beside it (a bias
  /// gradient: a sum over the batch for each column), the number of parts
  /// to split that loop into: parts of at least `chunk` elements, and no
  /// more than it takes to give `parts` threads in all; 1 to leave the op
  /// alone (enough threads already, or a short reduction).
  int64_t partialRatio(linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 1 || op.getNumParallelLoops() == 0)
      return 1;
    int64_t threads = 1, length = 0;
    for (auto [range, kind] : llvm::zip_equal(op.getStaticLoopRanges(),
                                              op.getIteratorTypesArray())) {
      if (ShapedType::isDynamic(range))
        return 1;
      if (kind == utils::IteratorType::parallel)
        threads *= range;
      else
        length = range;
    }
    if (threads >= parts || length < 2 * chunk)
      return 1;
    int64_t most = std::min<int64_t>(length / chunk,
                                     llvm::divideCeil(int64_t(parts), threads));
    for (int64_t r = most; r >= 2; --r)
      if (length % r == 0)
        return r;
    return 1;
  }

  /// Whether `op` reduces along the innermost dimension of its first input
  /// (a softmax's or layer norm's row): its one reduction loop indexes it.
  static bool alongRows(linalg::GenericOp op) {
    if (op.getNumReductionLoops() != 1 || op.getNumDpsInputs() == 0)
      return false;
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    if (map.getNumResults() == 0)
      return false;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    return dim && op.getIteratorTypesArray()[dim.getPosition()] ==
                      utils::IteratorType::reduction;
  }

  /// Splits the reduction loop of `op` into `partialRatio` parts computed in
  /// parallel (partial result p reduces elements p, p + r, ... of each
  /// row: the threads of a part still read along the parallel dimensions,
  /// coalesced), then a reduction of the parts; the parallel loops of the
  /// partial results are made outermost, so that they stay one parallel
  /// loop nest.
  void splitPartial(IRRewriter &rewriter, linalg::GenericOp op) {
    int64_t ratio = partialRatio(op);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::SplitReductionResult> result = linalg::splitReduction(
        rewriter, cast<linalg::LinalgOp>(op.getOperation()),
        [&](linalg::LinalgOp) {
          return linalg::SplitReductionOptions{ratio, 0,
                                               /*innerParallel=*/true};
        });
    if (failed(result))
      return; // A combiner splitReduction does not know: left as it is.
    for (Operation *part : {result->splitLinalgOp.getOperation(),
                            result->resultCombiningLinalgOp.getOperation()})
      if (auto generic = dyn_cast<linalg::GenericOp>(part))
        parallelFirst(rewriter, generic);
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
