//===- PadForTensorCores.cpp - mpt-pad-for-tensor-cores -------------------===//
//
// Pads low-precision contractions to Tensor Core multiples with zeros and
// slices their results back; then moves slices past zero-preserving ops and
// cancels pad(slice(x)) when x is known to be zero where the slice cut it, so
// a chain of layers is padded once.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpt {
#define GEN_PASS_DEF_PADFORTENSORCORES
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

bool isLowPrecision(Type element) {
  auto f = dyn_cast<FloatType>(element);
  return f && f.getWidth() <= 16;
}

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// A slice that keeps the leading corner of its input (offsets 0, strides 1).
SliceOp getCornerSlice(Value v) {
  auto slice = v.getDefiningOp<SliceOp>();
  if (!slice || llvm::any_of(slice.getOffsets(), [](int64_t o) { return o; }) ||
      llvm::any_of(slice.getStridesOrOnes(), [](int64_t s) { return s != 1; }))
    return {};
  return slice;
}

//===----------------------------------------------------------------------===//
// Zero regions
//===----------------------------------------------------------------------===//

/// Whether every element of `x` with index >= `size` in dimension `dim` is
/// zero (conservatively: false when unknown).
bool zeroBeyond(Value x, int64_t dim, int64_t size, unsigned depth = 0);

/// The same question for operand `v` of an elementwise op whose result has
/// rank `rank` (numpy broadcasting: `v` may have fewer or size-1 dims).
bool operandZeroBeyond(Value v, int64_t rank, int64_t dim, int64_t size,
                       unsigned depth) {
  RankedTensorType type = tensorType(v);
  int64_t d = dim - (rank - type.getRank());
  if (d < 0 || type.getDimSize(d) == 1)
    return false;
  return zeroBeyond(v, d, size, depth + 1);
}

bool zeroBeyond(Value x, int64_t dim, int64_t size, unsigned depth) {
  if (depth > 32)
    return false;
  if (tensorType(x).getDimSize(dim) <= size)
    return true;
  if (auto arg = dyn_cast<BlockArgument>(x)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getFunctionBody().front())
      return false;
    auto logical = func.getArgAttrOfType<DenseI64ArrayAttr>(
        arg.getArgNumber(), MPTDialect::getLogicalShapeAttrName());
    return logical && logical.asArrayRef()[dim] <= size;
  }
  Operation *op = x.getDefiningOp();
  if (auto pad = dyn_cast<PadOp>(op))
    return pad.getValue().isZero() && pad.getLow()[dim] == 0 &&
           zeroBeyond(pad.getInput(), dim, size, depth + 1);
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    if (dim == 0)
      return zeroBeyond(mm.getLhs(), mm.getTransposeA() ? 1 : 0, size,
                        depth + 1);
    return zeroBeyond(mm.getRhs(), mm.getTransposeB() ? 0 : 1, size, depth + 1);
  }
  if (auto bmm = dyn_cast<BatchMatmulOp>(op)) {
    int64_t rank = bmm.getType().getRank();
    if (dim == rank - 2)
      return zeroBeyond(bmm.getLhs(), bmm.getTransposeA() ? rank - 1 : rank - 2,
                        size, depth + 1);
    if (dim == rank - 1)
      return zeroBeyond(bmm.getRhs(), bmm.getTransposeB() ? rank - 2 : rank - 1,
                        size, depth + 1);
    return zeroBeyond(bmm.getLhs(), dim, size, depth + 1) ||
           zeroBeyond(bmm.getRhs(), dim, size, depth + 1);
  }
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    bool nchw = conv.getLayout() == Layout::nchw;
    if (dim == (nchw ? 1 : 3))
      return zeroBeyond(conv.getFilter(), nchw ? 0 : 3, size, depth + 1);
    return false;
  }
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return zeroBeyond(transpose.getInput(), transpose.getPerm()[dim], size,
                      depth + 1);
  // f(0) = 0 elementwise ops.
  if (isa<NegOp, AbsOp, ReluOp, TanhOp, GeluOp, SqrtOp>(op) ||
      (isa<CastOp>(op) &&
       isa<FloatType>(tensorType(op->getOperand(0)).getElementType())))
    return zeroBeyond(op->getOperand(0), dim, size, depth + 1);
  int64_t rank = tensorType(x).getRank();
  if (isa<AddOp, SubOp, MaxOp, MinOp>(op))
    return operandZeroBeyond(op->getOperand(0), rank, dim, size, depth) &&
           operandZeroBeyond(op->getOperand(1), rank, dim, size, depth);
  // Both factors zero: one zero factor is not enough, since 0 * inf = NaN.
  if (isa<MulOp>(op))
    return operandZeroBeyond(op->getOperand(0), rank, dim, size, depth) &&
           operandZeroBeyond(op->getOperand(1), rank, dim, size, depth);
  return false;
}

/// Whether `x` is zero outside its leading corner of shape `shape`.
bool zeroOutside(Value x, ArrayRef<int64_t> shape) {
  for (auto [d, size] : llvm::enumerate(shape))
    if (!zeroBeyond(x, d, size))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Padding contractions
//===----------------------------------------------------------------------===//

struct PadStats {
  unsigned padded = 0, skipped = 0;
  double flops = 0, extraFlops = 0;
  uint64_t extraBytes = 0;
};

class Padder {
public:
  Padder(int64_t multipleOption, int64_t minSize, double maxOverhead,
         PadStats &stats)
      : multipleOption(multipleOption), minSize(minSize),
        maxOverhead(maxOverhead), stats(stats) {}

  int64_t multipleFor(Type element) const {
    if (multipleOption > 0)
      return multipleOption;
    return cast<FloatType>(element).getWidth() == 8 ? 16 : 8;
  }

  int64_t padded(int64_t d, int64_t multiple) const {
    return d < minSize ? d : roundUp(d, multiple);
  }

  /// `v` zero-padded (at the end) to `shape`; reuses the unpadded tensor a
  /// slice came from when its cut region is zero.
  Value padTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
    RankedTensorType type = tensorType(v);
    if (type.getShape() == shape)
      return v;
    if (SliceOp slice = getCornerSlice(v))
      if (tensorType(slice.getInput()).getShape() == shape &&
          zeroOutside(slice.getInput(), type.getShape()))
        return slice.getInput();
    SmallVector<int64_t> low(shape.size(), 0), high;
    for (auto [d, s] : llvm::zip(type.getShape(), shape))
      high.push_back(s - d);
    int64_t extra = 1, orig = type.getNumElements();
    for (int64_t s : shape)
      extra *= s;
    stats.extraBytes +=
        (extra - orig) * type.getElementType().getIntOrFloatBitWidth() / 8;
    return PadOp::create(b, loc, v, low, high, APFloat(0.0));
  }

  /// Pads one contraction; `dims` gives, per operand, the padded shape, and
  /// `resultShape` the padded result shape.
  void rewrite(Operation *op, ArrayRef<SmallVector<int64_t>> operandShapes,
               ArrayRef<int64_t> resultShape) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    RankedTensorType type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<Value> operands;
    for (auto [i, shape] : llvm::enumerate(operandShapes))
      operands.push_back(padTo(b, loc, op->getOperand(i), shape));
    Operation *clone = b.clone(*op);
    clone->setOperands(operands);
    clone->getResult(0).setType(type.clone(resultShape));
    SmallVector<int64_t> zeros(type.getRank(), 0);
    Value result = SliceOp::create(b, loc, clone->getResult(0), zeros,
                                   type.getShape(), nullptr);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }

  /// Decides and reports: false (with a remark) when the overhead is above
  /// the limit.
  bool accept(Operation *op, double flops, double paddedFlops,
              StringRef shapes) {
    double overhead = paddedFlops / flops - 1.0;
    if (overhead > maxOverhead) {
      ++stats.skipped;
      op->emitRemark() << "not padded for Tensor Cores: " << shapes << " adds "
                       << llvm::formatv("{0:F1}", overhead * 100.0)
                       << "% FLOPs, above max-overhead=" << maxOverhead;
      return false;
    }
    ++stats.padded;
    stats.flops += flops;
    stats.extraFlops += paddedFlops - flops;
    return true;
  }

  /// Pads matmul / batch_matmul on their last two dimensions.
  template <typename OpTy>
  void padContraction(OpTy op) {
    RankedTensorType lhsType = op.getLhs().getType(),
                     rhsType = op.getRhs().getType();
    if (!isLowPrecision(lhsType.getElementType()) ||
        !lhsType.hasStaticShape() || !rhsType.hasStaticShape())
      return;
    int64_t multiple = multipleFor(lhsType.getElementType());
    int64_t rank = lhsType.getRank();
    int64_t rowL = rank - 2, colL = rank - 1;
    int64_t mIdx = op.getTransposeA() ? colL : rowL;
    int64_t kIdxL = op.getTransposeA() ? rowL : colL;
    int64_t kIdxR = op.getTransposeB() ? colL : rowL;
    int64_t nIdx = op.getTransposeB() ? rowL : colL;
    int64_t m = lhsType.getDimSize(mIdx), k = lhsType.getDimSize(kIdxL),
            n = rhsType.getDimSize(nIdx);
    int64_t mp = padded(m, multiple), kp = padded(k, multiple),
            np = padded(n, multiple);
    if (mp == m && kp == k && np == n)
      return;
    double batch = 1;
    for (int64_t d : lhsType.getShape().drop_back(2))
      batch *= d;
    std::string shapes = llvm::formatv("M x N x K {0}x{1}x{2} -> {3}x{4}x{5}",
                                       m, n, k, mp, np, kp);
    if (!accept(op, 2.0 * batch * m * n * k, 2.0 * batch * mp * np * kp,
                shapes))
      return;
    SmallVector<int64_t> lhs(lhsType.getShape()), rhs(rhsType.getShape());
    lhs[mIdx] = mp;
    lhs[kIdxL] = kp;
    rhs[kIdxR] = kp;
    rhs[nIdx] = np;
    SmallVector<int64_t> result(op.getType().getShape());
    result[rank - 2] = mp;
    result[rank - 1] = np;
    rewrite(op, {lhs, rhs}, result);
  }

  /// Pads the input and output channels of a convolution.
  void padConv(Conv2DOp op) {
    RankedTensorType in = op.getInput().getType(),
                     filter = op.getFilter().getType();
    if (!isLowPrecision(in.getElementType()) || op.getGroups() != 1 ||
        !in.hasStaticShape() || !filter.hasStaticShape())
      return;
    int64_t multiple = multipleFor(in.getElementType());
    bool nchw = op.getLayout() == Layout::nchw;
    int64_t cIn = nchw ? 1 : 3, fOut = nchw ? 0 : 3, fIn = nchw ? 1 : 2;
    int64_t c = in.getDimSize(cIn), f = filter.getDimSize(fOut);
    int64_t cp = padded(c, multiple), fp = padded(f, multiple);
    if (cp == c && fp == f)
      return;
    double window = filter.getNumElements() / double(c * f);
    double outputs = op.getType().getNumElements() / double(f);
    std::string shapes =
        llvm::formatv("channels in x out {0}x{1} -> {2}x{3}", c, f, cp, fp);
    if (!accept(op, 2.0 * outputs * f * c * window,
                2.0 * outputs * fp * cp * window, shapes))
      return;
    SmallVector<int64_t> input(in.getShape()), weights(filter.getShape());
    input[cIn] = cp;
    weights[fIn] = cp;
    weights[fOut] = fp;
    SmallVector<int64_t> result(op.getType().getShape());
    result[nchw ? 1 : 3] = fp;
    rewrite(op, {input, weights}, result);
  }

private:
  int64_t multipleOption, minSize;
  double maxOverhead;
  PadStats &stats;
};

//===----------------------------------------------------------------------===//
// Moving and cancelling slices
//===----------------------------------------------------------------------===//

/// pad(slice(x)) -> x when the pad restores x's shape with zeros and x is
/// zero where the slice cut it.
struct CancelPadOfSlice : public OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp pad,
                                PatternRewriter &rewriter) const override {
    SliceOp slice = getCornerSlice(pad.getInput());
    if (!slice || !pad.getValue().isZero() ||
        llvm::any_of(pad.getLow(), [](int64_t l) { return l; }) ||
        pad.getType() != slice.getInput().getType() ||
        !zeroOutside(slice.getInput(), slice.getType().getShape()))
      return failure();
    rewriter.replaceOp(pad, slice.getInput());
    return success();
  }
};

/// f(slice(x)) -> slice(f(x)) for zero-preserving unary ops and casts, so
/// that a later pad meets the slice and cancels it.
struct SinkSliceThroughUnary : public RewritePattern {
  SinkSliceThroughUnary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<NegOp, AbsOp, ReluOp, TanhOp, GeluOp, SqrtOp, CastOp>(op))
      return failure();
    SliceOp slice = getCornerSlice(op->getOperand(0));
    if (!slice)
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Operation *moved = rewriter.clone(*op);
    moved->setOperand(0, slice.getInput());
    moved->getResult(0).setType(
        resultType.clone(tensorType(slice.getInput()).getShape()));
    SmallVector<int64_t> zeros(resultType.getRank(), 0);
    rewriter.replaceOpWithNewOp<SliceOp>(op, moved->getResult(0), zeros,
                                         resultType.getShape(), nullptr);
    return success();
  }
};

/// add/sub/mul/max/min with a sliced operand: the other operand is
/// zero-padded to match (broadcast dimensions stay 1) and the slice moves
/// after the op.
struct SinkSliceThroughBinary : public RewritePattern {
  SinkSliceThroughBinary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<AddOp, SubOp, MulOp, MaxOp, MinOp>(op))
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    SliceOp slice;
    for (Value operand : op->getOperands())
      if (SliceOp s = getCornerSlice(operand))
        if (s.getType() == resultType) {
          slice = s;
          break;
        }
    if (!slice)
      return failure();
    ArrayRef<int64_t> full = tensorType(slice.getInput()).getShape();
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (SliceOp s = getCornerSlice(operand);
          s && s.getType() == resultType &&
          tensorType(s.getInput()).getShape() == full) {
        operands.push_back(s.getInput());
        continue;
      }
      RankedTensorType t = tensorType(operand);
      int64_t offset = rank - t.getRank();
      SmallVector<int64_t> low(t.getRank(), 0), high;
      bool pads = false;
      for (int64_t d = 0; d < t.getRank(); ++d) {
        int64_t size = t.getDimSize(d);
        int64_t extra = size == 1 ? 0 : full[offset + d] - size;
        high.push_back(extra);
        pads |= extra != 0;
      }
      operands.push_back(
          pads ? PadOp::create(rewriter, loc, operand, low, high, APFloat(0.0))
                     .getResult()
               : operand);
    }
    Operation *moved = rewriter.clone(*op);
    moved->setOperands(operands);
    moved->getResult(0).setType(resultType.clone(full));
    SmallVector<int64_t> zeros(rank, 0);
    rewriter.replaceOpWithNewOp<SliceOp>(op, moved->getResult(0), zeros,
                                         resultType.getShape(), nullptr);
    return success();
  }
};

/// softmax_cross_entropy over a sliced class dimension: the padded logits
/// (zero where the slice cut them) are masked to -inf instead, so the loss
/// runs on the padded width and is unchanged.
struct MaskPaddedClasses : public OpRewritePattern<SoftmaxCrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxCrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    SliceOp slice = getCornerSlice(op.getLogits());
    if (!slice)
      return failure();
    RankedTensorType sliced = slice.getType(),
                     full = tensorType(slice.getInput());
    int64_t last = sliced.getRank() - 1;
    for (int64_t d = 0; d < last; ++d)
      if (sliced.getDimSize(d) != full.getDimSize(d))
        return failure();
    int64_t classes = sliced.getDimSize(last);
    if (!zeroBeyond(slice.getInput(), last, classes))
      return failure();
    auto element = cast<FloatType>(full.getElementType());
    SmallVector<APFloat> mask;
    for (int64_t c = 0; c < full.getDimSize(last); ++c)
      mask.push_back(c < classes ? APFloat::getZero(element.getFloatSemantics())
                                 : APFloat::getInf(element.getFloatSemantics(),
                                                   /*Negative=*/true));
    auto maskType = RankedTensorType::get({full.getDimSize(last)}, element);
    Location loc = op.getLoc();
    Value maskValue = ConstantOp::create(
        rewriter, loc, maskType, DenseElementsAttr::get(maskType, mask));
    Value masked =
        AddOp::create(rewriter, loc, slice.getInput(), maskValue).getResult();
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, masked);
      op.setNumClasses(classes);
    });
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Padding parameters in the signature
//===----------------------------------------------------------------------===//

/// The parameter argument a pad's input comes from through casts, if any.
BlockArgument parameterSource(Value v, func::FuncOp func) {
  while (auto cast = v.getDefiningOp<CastOp>())
    v = cast.getInput();
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &func.getBody().front() ||
      getArgumentRole(func, arg.getArgNumber()) != Role::parameter)
    return {};
  return arg;
}

/// Pads parameters that contractions pad: the argument takes the padded
/// shape (and records its real one); its old uses read a slice.
LogicalResult padParametersOf(func::FuncOp func, ModuleOp module) {
  llvm::MapVector<BlockArgument, SmallVector<int64_t>> shapes;
  func.walk([&](PadOp pad) {
    if (!pad.getValue().isZero() ||
        llvm::any_of(pad.getLow(), [](int64_t l) { return l; }))
      return;
    BlockArgument arg = parameterSource(pad.getInput(), func);
    if (!arg)
      return;
    auto [it, inserted] = shapes.try_emplace(
        arg, SmallVector<int64_t>(tensorType(arg).getShape()));
    for (auto [d, s] : llvm::enumerate(pad.getType().getShape()))
      it->second[d] = std::max(it->second[d], s);
  });
  if (shapes.empty())
    return success();
  if (!SymbolTable::symbolKnownUseEmpty(func, module))
    return func.emitError()
           << "mpt-pad-for-tensor-cores: pad-parameters cannot change the "
              "signature of @"
           << func.getSymName() << ": it is called in the module";
  OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
  for (auto &[arg, shape] : shapes) {
    RankedTensorType logical = tensorType(arg);
    func.setArgAttr(arg.getArgNumber(), MPTDialect::getLogicalShapeAttrName(),
                    b.getDenseI64ArrayAttr(logical.getShape()));
    arg.setType(logical.clone(shape));
    SmallVector<int64_t> zeros(shape.size(), 0);
    auto slice = SliceOp::create(b, arg.getLoc(), arg, zeros,
                                 logical.getShape(), nullptr);
    arg.replaceAllUsesExcept(slice, slice);
  }
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().front().getArgumentTypes(),
                                 func.getResultTypes()));
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct PadForTensorCoresPass
    : public mpt::impl::PadForTensorCoresBase<PadForTensorCoresPass> {
  using PadForTensorCoresBase::PadForTensorCoresBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (multiple < 0 || minSize < 0 || maxOverhead < 0) {
      module.emitError() << "mpt-pad-for-tensor-cores: multiple, min-size and "
                            "max-overhead must be non-negative";
      return signalPassFailure();
    }
    PadStats stats;
    Padder padder(multiple, minSize, maxOverhead, stats);
    SmallVector<Operation *> contractions;
    module.walk([&](Operation *op) {
      if (isa<MatmulOp, BatchMatmulOp, Conv2DOp>(op))
        contractions.push_back(op);
    });
    for (Operation *op : contractions) {
      if (auto mm = dyn_cast<MatmulOp>(op))
        padder.padContraction(mm);
      else if (auto bmm = dyn_cast<BatchMatmulOp>(op))
        padder.padContraction(bmm);
      else
        padder.padConv(cast<Conv2DOp>(op));
    }
    if (padParameters)
      for (auto func : module.getOps<func::FuncOp>())
        if (!func.isExternal() && failed(padParametersOf(func, module)))
          return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    patterns.add<CancelPadOfSlice, SinkSliceThroughUnary,
                 SinkSliceThroughBinary, MaskPaddedClasses>(&getContext());
    SliceOp::getCanonicalizationPatterns(patterns, &getContext());
    PadOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();

    numPadded = stats.padded;
    numSkipped = stats.skipped;
    uint64_t percent =
        stats.flops ? uint64_t(stats.extraFlops * 100.0 / stats.flops + 0.5)
                    : 0;
    extraFlopsPercent = percent;
    extraBytes = stats.extraBytes;
    if (printStats)
      llvm::errs() << llvm::formatv(
          "mpt-pad-for-tensor-cores: {0} contractions padded, {1} skipped; "
          "extra FLOPs {2}% of the padded contractions; extra bytes {3}\n",
          stats.padded, stats.skipped, percent, stats.extraBytes);
  }
};

} // namespace
