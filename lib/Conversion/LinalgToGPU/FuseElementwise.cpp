//===- FuseElementwise.cpp - mpt-fuse-elementwise -------------------------===//
//
// Upstream's elementwise fusion (linalg-fuse-elementwise-ops: the same
// patterns and clean-ups) with a control function that keeps named matmuls
// and their epilogue chains out of reshape propagation, so that they reach
// the Tensor Core kernels as matmuls with their rounding (and what follows
// it elementwise) right after them: the fused epilogue.
//
// Pads and slices of elementwise results are rewritten so that the op
// computes only what is read, into the padded tensor itself: no unpadded
// copy of a padded weight, batch or gradient is made.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
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

/// Whether elementwise fusion may still take `op` into a matmul's epilogue
/// chain: it reads a matmul's result, or the one use of a value of a chain.
bool mayJoinChain(Operation *op) {
  return llvm::any_of(op->getOperands(), [](Value v) {
    Operation *def = producer(v);
    return isMatmul(def) ||
           (def && def->hasOneUse() && inChain(def, kChainDepth - 1));
  });
}

/// An elementwise generic: all loops parallel, one result with one user,
/// its payload not reading the output.
bool isElementwise(linalg::GenericOp op) {
  return op && op.hasPureTensorSemantics() && op->getNumResults() == 1 &&
         op->hasOneUse() && op.getNumParallelLoops() == op.getNumLoops() &&
         !op.payloadUsesValueFromOperand(op.getDpsInitOperand(0));
}

/// One that the patterns below may rewrite: not one that may become part
/// of a matmul's epilogue, which the Tensor Core kernel computes from the
/// accumulators.
bool isPlainElementwise(linalg::GenericOp op) {
  return isElementwise(op) && !mayJoinChain(op);
}

/// A pad of an elementwise op's result (the zero-padded f16 copy of a
/// weight: a cast, then a pad to a multiple of 8) becomes the result
/// inserted into a fill of the padded tensor, made before the op:
///
///   %f = linalg.fill ins(%zero) outs(tensor.empty)
///   %g = linalg.generic ... outs(tensor.empty)
///   %p = tensor.insert_slice %g into %f [low] [source sizes]
///
/// eliminate-empty-tensors then has the op write into the fill's interior
/// (an extract_slice of %f as its output), and bufferization makes one
/// buffer that the op writes a view of: the unpadded copy is never made (a
/// buffer, and a pass over it, fewer).
struct PadIntoProducer : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    auto producer = pad.getSource().getDefiningOp<linalg::GenericOp>();
    Attribute value;
    RankedTensorType type = pad.getResultType();
    if (!isPlainElementwise(producer) || !type.hasStaticShape() ||
        !pad.getSourceType().hasStaticShape() ||
        !matchPattern(pad.getConstantPaddingValue(), m_Constant(&value)))
      return failure();
    Location loc = pad.getLoc();
    rewriter.setInsertionPoint(producer);
    Value constant =
        arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(value));
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    Value fill =
        linalg::FillOp::create(rewriter, loc, constant, empty).getResult(0);
    SmallVector<OpFoldResult> sizes,
        strides(type.getRank(), rewriter.getIndexAttr(1));
    for (int64_t d : pad.getSourceType().getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    rewriter.setInsertionPoint(pad);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        pad, producer->getResult(0), fill, pad.getMixedLowPad(), sizes,
        strides);
    return success();
  }
};

/// Whether `slice` has static offsets and sizes, unit strides and the rank
/// of its source.
bool isStaticSlice(tensor::ExtractSliceOp slice) {
  return slice.hasUnitStride() && slice.getType().hasStaticShape() &&
         slice.getType().getRank() == slice.getSourceType().getRank() &&
         !ShapedType::isDynamicShape(slice.getStaticOffsets());
}

/// A slice of an elementwise op's result (unit strides, static) becomes
/// the op over slices of its inputs: the part that is read is the only
/// part computed. With the pattern above, the zero-padded f16 copy of a
/// sliced gradient (a cast, a slice back to the model's size, and a pad to
/// a multiple of 8) is one kernel writing the padded buffer.
///
/// The rounding right after a matmul is sliced too when the slice starts
/// at the origin (the unpadded part of a padded product) and the rounding
/// keeps the product's element type (f32, widened again for an f32
/// gradient): it then reads that part of the product, fuses with what
/// reads the slice (the unscaling of a padded weight gradient), and the
/// Tensor Core kernel evaluates the whole in its epilogue, storing only the
/// unpadded part. (A rounding to f16 stays whole: the Tensor Core kernel
/// writes the narrower tensor, which its reader slices.)
struct SliceIntoProducer : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto producer = slice.getSource().getDefiningOp<linalg::GenericOp>();
    if (!isStaticSlice(slice))
      return failure();
    bool fromOrigin = llvm::all_of(slice.getStaticOffsets(),
                                   [](int64_t o) { return o == 0; });
    bool roundsMatmul =
        isElementwise(producer) &&
        llvm::any_of(producer.getDpsInputs(), [&](Value v) {
          return isMatmul(v.getDefiningOp()) &&
                 getElementTypeOrSelf(v) ==
                     getElementTypeOrSelf(producer->getResult(0));
        });
    if (!(isPlainElementwise(producer) || (fromOrigin && roundsMatmul)) ||
        producer.hasIndexSemantics() ||
        !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isIdentity() ||
        !llvm::all_of(producer.getIndexingMapsArray(), [](AffineMap map) {
          return map.isProjectedPermutation();
        }))
      return failure();
    ArrayRef<int64_t> offsets = slice.getStaticOffsets();
    ArrayRef<int64_t> sizes = slice.getType().getShape();
    Location loc = producer.getLoc();
    rewriter.setInsertionPoint(producer);
    SmallVector<Value> inputs;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      Value v = input->get();
      AffineMap map = producer.getMatchingIndexingMap(input);
      if (map.getNumResults() == 0 || !isa<RankedTensorType>(v.getType())) {
        inputs.push_back(v);
        continue;
      }
      SmallVector<OpFoldResult> o, s,
          one(map.getNumResults(), rewriter.getIndexAttr(1));
      for (AffineExpr e : map.getResults()) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        o.push_back(rewriter.getIndexAttr(offsets[d]));
        s.push_back(rewriter.getIndexAttr(sizes[d]));
      }
      inputs.push_back(
          tensor::ExtractSliceOp::create(rewriter, loc, v, o, s, one));
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                         slice.getType().getElementType());
    auto sliced = linalg::GenericOp::create(
        rewriter, loc, TypeRange{slice.getType()}, inputs, ValueRange{init},
        producer.getIndexingMapsArray(), producer.getIteratorTypesArray());
    rewriter.inlineRegionBefore(producer.getRegion(), sliced.getRegion(),
                                sliced.getRegion().begin());
    rewriter.replaceOp(slice, sliced->getResults());
    rewriter.eraseOp(producer);
    return success();
  }
};

/// A slice of a pad that lies within the padded tensor's source is a slice
/// of the source (a padded label, sliced back for the loss gradient).
struct SliceOfPadInterior : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto pad = slice.getSource().getDefiningOp<tensor::PadOp>();
    if (!pad || !isStaticSlice(slice) ||
        !pad.getSourceType().hasStaticShape() ||
        ShapedType::isDynamicShape(pad.getStaticLow()))
      return failure();
    SmallVector<OpFoldResult> offsets;
    for (auto [o, s, low, d] :
         llvm::zip(slice.getStaticOffsets(), slice.getType().getShape(),
                   pad.getStaticLow(), pad.getSourceType().getShape())) {
      if (o < low || o + s > low + d)
        return failure();
      offsets.push_back(rewriter.getIndexAttr(o - low));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), pad.getSource(), offsets, slice.getMixedSizes(),
        slice.getMixedStrides());
    return success();
  }
};

struct FuseElementwisePass
    : public mpt::impl::FuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;

  /// Whether mpt-conv-to-gemm takes a convolution gradient over `t` to
  /// Tensor Cores.
  bool onTensorCores(Type t) const {
    auto f = dyn_cast<FloatType>(getElementTypeOrSelf(t));
    return f && (f.getWidth() < 32 || (tf32 && f.isF32()));
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Upstream's control: the producer has no other user. And nothing
    // fuses into the convolution gradients that mpt-conv-to-gemm takes to
    // Tensor Cores (16-bit operands; f32 ones with tf32), which it rewrites
    // only with the two operands convert-mpt-to-linalg gave them: the f16
    // copy of a filter or an input made right before its reader
    // (mpt-master-weights), or an output gradient that only the gradient
    // reads (the batch norm's backward before the first convolution),
    // fused in, would keep the gradient a SIMT loop.
    linalg::ControlFusionFn oneUse = [&](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !(isConvGradient(fused->getOwner()) &&
               onTensorCores(fused->get().getType()));
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
    patterns.add<CollapseIntoMatmulChain, PadIntoProducer, SliceIntoProducer,
                 SliceOfPadInterior>(context);
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
