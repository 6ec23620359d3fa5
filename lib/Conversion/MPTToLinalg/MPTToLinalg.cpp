//===- MPTToLinalg.cpp - convert-mpt-to-linalg ----------------------------===//
//
// Lowers every mpt op to linalg (named ops where they exist, linalg.generic
// otherwise), tensor, arith and math ops on tensors. Narrow float types
// (f16, bf16, f8) compute in f32 inside each op and round its result once;
// contractions accumulate in their `acc` type when they have one.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/ConvWindow.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <numeric>

namespace mpt {
#define GEN_PASS_DEF_CONVERTMPTTOLINALG
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// The type an op on `element` computes in: f32 for narrower floats.
Type computeType(Type element) {
  auto f = dyn_cast<FloatType>(element);
  if (f && f.getWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

/// Rounds an f64 scalar to a float type narrower than f32 with a single
/// rounding: f64 -> f32 rounds to odd (to nearest, stepped back toward zero
/// when that went up in magnitude, then the last bit set when inexact), and
/// the final f32 -> `to` rounds to nearest even. A plain f64 -> f32 -> `to`
/// would round twice.
Value truncFromF64(OpBuilder &b, Location loc, Value v, Type to) {
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), i32 = b.getI32Type();
  auto i32Const = [&](int32_t c) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(c));
  };
  Value nearest = arith::TruncFOp::create(b, loc, f32, v);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  // |nearest| > |v|: one step toward zero (the bits of an IEEE magnitude are
  // ordered, so that is bits - 1; inf becomes the largest finite float).
  Value absNearest =
      math::AbsFOp::create(b, loc, arith::ExtFOp::create(b, loc, f64, nearest));
  Value absV = math::AbsFOp::create(b, loc, v);
  Value up = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                   absNearest, absV);
  Value towardZero = arith::SelectOp::create(
      b, loc, up, arith::SubIOp::create(b, loc, bits, i32Const(1)), bits);
  Value truncated = arith::BitcastOp::create(b, loc, f32, towardZero);
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                            arith::ExtFOp::create(b, loc, f64, truncated), v);
  Value odd = arith::SelectOp::create(
      b, loc, inexact, arith::OrIOp::create(b, loc, towardZero, i32Const(1)),
      towardZero);
  return arith::TruncFOp::create(b, loc, to,
                                 arith::BitcastOp::create(b, loc, f32, odd));
}

/// Converts a scalar between numeric types (extf/truncf for floats, rounding
/// to nearest even; sitofp/fptosi/ext/trunc otherwise). Floats of the same
/// width with different formats (f16 <-> bf16) go through f32 exactly once.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto ff = dyn_cast<FloatType>(from), tf = dyn_cast<FloatType>(to);
  if (ff && tf) {
    if (APFloat::isRepresentableBy(ff.getFloatSemantics(),
                                   tf.getFloatSemantics()))
      return arith::ExtFOp::create(b, loc, to, v);
    if (ff.getWidth() > 32 && tf.getWidth() < 32 && !tf.isF16())
      return truncFromF64(b, loc, v, to);
    if (ff.getWidth() > tf.getWidth())
      return arith::TruncFOp::create(b, loc, to, v);
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (!ff && tf) {
    // Integers convert exactly to f64 (below 2^53); one truncf then rounds
    // once. A direct sitofp to bf16/f8 would be emulated through f32 and
    // round twice.
    if (tf.getWidth() < 32 && !tf.isF16()) {
      Value wide = arith::SIToFPOp::create(b, loc, b.getF64Type(), v);
      return truncFromF64(b, loc, wide, to);
    }
    return arith::SIToFPOp::create(b, loc, to, v);
  }
  if (ff && !tf)
    return arith::FPToSIOp::create(b, loc, to, v);
  auto fi = cast<IntegerType>(from), ti = cast<IntegerType>(to);
  if (fi.getWidth() < ti.getWidth())
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
}

/// 1 / sqrt(x), correctly rounded parts (libm has no rsqrt for
/// convert-math-to-libm to call).
Value reciprocalSqrt(OpBuilder &b, Location loc, Value x) {
  return arith::DivFOp::create(
      b, loc,
      arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0)),
      math::SqrtOp::create(b, loc, x));
}

Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type element) {
  return tensor::EmptyOp::create(b, loc, shape, element);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type element, Value scalar) {
  Value empty = emptyTensor(b, loc, shape, element);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

/// The map from a `rank`-D iteration space to an operand of shape `shape`
/// broadcast (numpy rules) into the result shape `result`.
AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> result) {
  int64_t rank = result.size(), offset = rank - shape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    int64_t r = result[offset + i];
    exprs.push_back(dim == 1 && r != 1 ? getAffineConstantExpr(0, ctx)
                                       : getAffineDimExpr(offset + i, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// The map from a `rank`-D iteration space that drops the dimensions in
/// `dropped` (a reduced tensor read back in the full space).
AffineMap droppingMap(MLIRContext *ctx, int64_t rank,
                      ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dropped, d))
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A parallel linalg.generic producing a tensor of `shape` x `element` from
/// `inputs` read through `maps`. The body gets the input scalars converted to
/// `compute` (when set) and its result is converted to `element`.
Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type element, ValueRange inputs, ArrayRef<AffineMap> maps,
                   Type compute, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shape.size();
  SmallVector<AffineMap> indexing(maps);
  indexing.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, shape, element);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, indexing,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> converted;
        for (Value arg : args.drop_back())
          converted.push_back(compute ? convertScalar(nb, nl, arg, compute)
                                      : arg);
        Value result = body(nb, nl, converted);
        linalg::YieldOp::create(nb, nl, convertScalar(nb, nl, result, element));
      });
  return generic.getResult(0);
}

/// Elementwise over the result shape with numpy broadcasting of `inputs`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType result,
                       ValueRange inputs, BodyFn body) {
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(b.getContext(), tensorType(in).getShape(),
                                result.getShape()));
  return buildGeneric(b, loc, result.getShape(), result.getElementType(),
                      inputs, maps, computeType(result.getElementType()), body);
}

enum class Combine { sum, max };

/// Reduces the iteration space `shape` over `axes` (sorted, in range) into a
/// tensor of the remaining dimensions, accumulating in `acc`. `inputs` are
/// read through `maps` and converted to `acc`; `value` maps them to what is
/// accumulated.
Value buildReduction(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ValueRange inputs,
    ArrayRef<AffineMap> maps, ArrayRef<int64_t> axes, Type acc, Combine combine,
    function_ref<Value(OpBuilder &, Location, ValueRange)> value) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shape.size();
  SmallVector<int64_t> outShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      outShape.push_back(shape[d]);
  double initValue =
      combine == Combine::sum ? 0.0 : -std::numeric_limits<double>::infinity();
  Value init =
      filledTensor(b, loc, outShape, acc, floatConst(b, loc, acc, initValue));
  SmallVector<AffineMap> indexing(maps);
  indexing.push_back(droppingMap(ctx, rank, axes));
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d)
    iterators.push_back(llvm::is_contained(axes, d)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, indexing,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> converted;
        for (Value arg : args.drop_back())
          converted.push_back(convertScalar(nb, nl, arg, acc));
        Value x = value(nb, nl, converted);
        Value r =
            combine == Combine::sum
                ? arith::AddFOp::create(nb, nl, args.back(), x).getResult()
                : arith::MaximumFOp::create(nb, nl, args.back(), x).getResult();
        linalg::YieldOp::create(nb, nl, r);
      });
  return generic.getResult(0);
}

/// Reduces `input` over `axes` (sorted, in range) into a tensor of the
/// remaining dimensions, accumulating in `acc` from `init`. `value` maps each
/// input scalar (already converted to `acc`) to what is accumulated.
Value buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes, Type acc,
    Combine combine,
    function_ref<Value(OpBuilder &, Location, Value)> value = nullptr) {
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  return buildReduction(
      b, loc, shape, input,
      {AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext())}, axes,
      acc, combine, [&](OpBuilder &nb, Location nl, ValueRange args) {
        return value ? value(nb, nl, args[0]) : args[0];
      });
}

/// Converts every element of a tensor to `element`.
Value convertTensor(OpBuilder &b, Location loc, Value input, Type element) {
  RankedTensorType type = tensorType(input);
  if (type.getElementType() == element)
    return input;
  return buildGeneric(
      b, loc, type.getShape(), element, input,
      {AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext())},
      nullptr, [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

/// Pads `input` with `value` (a scalar of the element type).
Value padTensor(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high, Value value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return input;
  RankedTensorType type = tensorType(input);
  SmallVector<int64_t> shape;
  for (auto [d, l, h] : llvm::zip(type.getShape(), low, high))
    shape.push_back(d + l + h);
  auto result = RankedTensorType::get(shape, type.getElementType());
  SmallVector<OpFoldResult> lo, hi;
  for (auto [l, h] : llvm::zip(low, high)) {
    lo.push_back(b.getIndexAttr(l));
    hi.push_back(b.getIndexAttr(h));
  }
  return tensor::PadOp::create(b, loc, result, input, lo, hi, value,
                               /*nofold=*/false);
}

/// The input transposed by `perm` (linalg.transpose).
Value transposeTensor(OpBuilder &b, Location loc, Value input,
                      ArrayRef<int64_t> perm) {
  RankedTensorType type = tensorType(input);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = emptyTensor(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
}

/// Reshapes a static tensor by collapsing it to 1-D and expanding it (rank 0
/// goes through tensor<1x...>).
Value reshapeTensor(OpBuilder &b, Location loc, Value input,
                    RankedTensorType result) {
  RankedTensorType type = tensorType(input);
  if (type == result)
    return input;
  auto flatType =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  auto all = [](int64_t rank) {
    ReassociationIndices indices(rank);
    std::iota(indices.begin(), indices.end(), 0);
    return SmallVector<ReassociationIndices>{indices};
  };
  Value flat = input;
  if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, input,
                                         SmallVector<ReassociationIndices>{});
  else if (type.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                           all(type.getRank()));
  if (result.getRank() == 1)
    return flat;
  if (result.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, result, flat,
                                           SmallVector<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, result, flat,
                                       all(result.getRank()));
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Shared checks: the CPU lowering handles static shapes.
LogicalResult checkStatic(Operation *op, PatternRewriter &rewriter) {
  for (Type t :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      if (!tensor.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "dynamic shape");
  return success();
}

template <typename OpTy>
struct MPTPattern : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    if (failed(checkStatic(op, rewriter)))
      return failure();
    Operation *before = op->getPrevNode();
    Value result = lower(op, rewriter);
    if (!result)
      return failure();
    // A copy that the backward pass recomputes stays apart from the
    // original through the lowering too: every op of its lowering (made
    // right before it) is marked, so that CSE merges none of them (a
    // softmax's row statistics, a contraction's zero fill) with the
    // original's.
    if (op->hasAttr(mpt::MPTDialect::getRecomputedAttrName()))
      for (Operation *made = before ? before->getNextNode()
                                    : &op->getBlock()->front();
           made != op.getOperation(); made = made->getNextNode())
        made->setAttr(mpt::MPTDialect::getRecomputedAttrName(),
                      rewriter.getUnitAttr());
    rewriter.replaceOp(op, result);
    return success();
  }
  virtual Value lower(OpTy op, PatternRewriter &b) const = 0;
};

/// Elementwise unary ops: `fn` computes the op on one scalar of the compute
/// type.
template <typename OpTy>
struct UnaryPattern : public MPTPattern<OpTy> {
  using Fn = Value (*)(OpBuilder &, Location, Value, OpTy);
  UnaryPattern(MLIRContext *ctx, Fn fn) : MPTPattern<OpTy>(ctx), fn(fn) {}
  Value lower(OpTy op, PatternRewriter &b) const override {
    return buildElementwise(b, op.getLoc(), op.getType(), op.getInput(),
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              return fn(nb, l, args[0], op);
                            });
  }
  Fn fn;
};

template <typename OpTy>
struct BinaryPattern : public MPTPattern<OpTy> {
  using Fn = Value (*)(OpBuilder &, Location, Value, Value);
  BinaryPattern(MLIRContext *ctx, Fn fn) : MPTPattern<OpTy>(ctx), fn(fn) {}
  Value lower(OpTy op, PatternRewriter &b) const override {
    return buildElementwise(b, op.getLoc(), op.getType(),
                            {op.getLhs(), op.getRhs()},
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              return fn(nb, l, args[0], args[1]);
                            });
  }
  Fn fn;
};

template <typename ArithOp>
Value binary(OpBuilder &b, Location loc, Value x, Value y) {
  return ArithOp::create(b, loc, x, y);
}

template <typename MathOp, typename OpTy>
Value unary(OpBuilder &b, Location loc, Value x, OpTy) {
  return MathOp::create(b, loc, x);
}

template <typename OpTy>
Value sigmoid(OpBuilder &b, Location loc, Value x, OpTy) {
  Value one = floatConst(b, loc, x.getType(), 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

template <typename OpTy>
Value reciprocal(OpBuilder &b, Location loc, Value x, OpTy) {
  return arith::DivFOp::create(b, loc, floatConst(b, loc, x.getType(), 1.0), x);
}

template <typename OpTy>
Value relu(OpBuilder &b, Location loc, Value x, OpTy) {
  return arith::MaximumFOp::create(b, loc, x,
                                   floatConst(b, loc, x.getType(), 0.0));
}

/// The two gelu factors written without cancellation in the left tail:
/// Phi(x) = 0.5 erfc(-x / sqrt(2)), and for the tanh form
/// 0.5 (1 + tanh(u)) = sigmoid(2u).
Value geluCdf(OpBuilder &b, Location loc, Value x, bool tanhForm,
              Value *sigmoidOut = nullptr) {
  Type t = x.getType();
  auto c = [&](double v) { return floatConst(b, loc, t, v); };
  if (!tanhForm)
    return arith::MulFOp::create(
        b, loc, c(0.5),
        math::ErfcOp::create(b, loc,
                             arith::MulFOp::create(b, loc, x, c(-M_SQRT1_2))));
  // u = sqrt(2/pi) (x + 0.044715 x^3); sigmoid(2u) = 1 / (1 + exp(-2u))
  Value x3 =
      arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
  Value u = arith::MulFOp::create(
      b, loc, c(std::sqrt(2.0 / M_PI)),
      arith::AddFOp::create(b, loc, x,
                            arith::MulFOp::create(b, loc, c(0.044715), x3)));
  Value e =
      math::ExpOp::create(b, loc, arith::MulFOp::create(b, loc, c(-2.0), u));
  Value s = arith::DivFOp::create(b, loc, c(1.0),
                                  arith::AddFOp::create(b, loc, c(1.0), e));
  if (sigmoidOut)
    *sigmoidOut = s;
  return s;
}

Value gelu(OpBuilder &b, Location loc, Value x, GeluOp op) {
  return arith::MulFOp::create(
      b, loc, x,
      geluCdf(b, loc, x, op.getApproximate() == GeluApproximation::tanh));
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// Swaps the last two dimensions.
Value transposeLastTwo(OpBuilder &b, Location loc, Value v) {
  int64_t rank = tensorType(v).getRank();
  SmallVector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return transposeTensor(b, loc, v, perm);
}

/// Rounds an accumulator tensor to the result element type.
Value roundTo(OpBuilder &b, Location loc, Value acc, Type element) {
  return convertTensor(b, loc, acc, element);
}

struct MatmulPattern : public MPTPattern<MatmulOp> {
  using MPTPattern::MPTPattern;
  Value lower(MatmulOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    if (op.getTransposeA())
      lhs = transposeLastTwo(b, loc, lhs);
    if (op.getTransposeB())
      rhs = transposeLastTwo(b, loc, rhs);
    RankedTensorType type = op.getType();
    Type acc = op.getAccType().value_or(type.getElementType());
    Value init = filledTensor(b, loc, type.getShape(), acc,
                              floatConst(b, loc, acc, 0.0));
    Value product =
        linalg::MatmulOp::create(b, loc, ValueRange{lhs, rhs}, ValueRange{init})
            .getResult(0);
    return roundTo(b, loc, product, type.getElementType());
  }
};

struct BatchMatmulPattern : public MPTPattern<BatchMatmulOp> {
  using MPTPattern::MPTPattern;
  Value lower(BatchMatmulOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    if (op.getTransposeA())
      lhs = transposeLastTwo(b, loc, lhs);
    if (op.getTransposeB())
      rhs = transposeLastTwo(b, loc, rhs);
    RankedTensorType type = op.getType();
    Type acc = op.getAccType().value_or(type.getElementType());
    // Collapse the batch dimensions into one.
    auto collapse = [&](Value v) {
      RankedTensorType t = tensorType(v);
      int64_t batch = 1;
      for (int64_t d : t.getShape().drop_back(2))
        batch *= d;
      auto flat = RankedTensorType::get(
          {batch, t.getDimSize(t.getRank() - 2), t.getDimSize(t.getRank() - 1)},
          t.getElementType());
      return reshapeTensor(b, loc, v, flat);
    };
    Value l = collapse(lhs), r = collapse(rhs);
    SmallVector<int64_t> shape = {tensorType(l).getDimSize(0),
                                  tensorType(l).getDimSize(1),
                                  tensorType(r).getDimSize(2)};
    Value init = filledTensor(b, loc, shape, acc, floatConst(b, loc, acc, 0.0));
    Value product = linalg::BatchMatmulOp::create(b, loc, ValueRange{l, r},
                                                  ValueRange{init})
                        .getResult(0);
    Value rounded = roundTo(b, loc, product, type.getElementType());
    return reshapeTensor(b, loc, rounded, type);
  }
};

struct Conv2DPattern : public MPTPattern<Conv2DOp> {
  using MPTPattern::MPTPattern;
  Value lower(Conv2DOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Type acc = op.getAccType().value_or(element);
    bool nchw = op.getLayout() == Layout::nchw;
    ArrayRef<int64_t> pad = op.getPadding(), strides = op.getStrides(),
                      dilation = op.getDilation();
    SmallVector<int64_t> low = nchw
                                   ? SmallVector<int64_t>{0, 0, pad[0], pad[2]}
                                   : SmallVector<int64_t>{0, pad[0], pad[2], 0};
    SmallVector<int64_t> high =
        nchw ? SmallVector<int64_t>{0, 0, pad[1], pad[3]}
             : SmallVector<int64_t>{0, pad[1], pad[3], 0};
    Value input = padTensor(b, loc, op.getInput(), low, high,
                            floatConst(b, loc, element, 0.0));
    Value init = filledTensor(b, loc, type.getShape(), acc,
                              floatConst(b, loc, acc, 0.0));
    Value result;
    if (op.getGroups() == 1) {
      auto stridesAttr = b.getI64TensorAttr(strides);
      auto dilationAttr = b.getI64TensorAttr(dilation);
      result = nchw ? linalg::Conv2DNchwFchwOp::create(
                          b, loc, TypeRange{init.getType()},
                          ValueRange{input, op.getFilter()}, ValueRange{init},
                          stridesAttr, dilationAttr)
                          .getResult(0)
                    : linalg::Conv2DNhwcHwcfOp::create(
                          b, loc, TypeRange{init.getType()},
                          ValueRange{input, op.getFilter()}, ValueRange{init},
                          stridesAttr, dilationAttr)
                          .getResult(0);
    } else {
      // Grouped: a linalg.generic over (n, f, oh, ow, c, kh, kw) where the
      // input channel of filter f is (f floordiv F/G) * C/G + c.
      ArrayRef<int64_t> f = tensorType(op.getFilter()).getShape();
      int64_t filters = nchw ? f[0] : f[3], cg = nchw ? f[1] : f[2];
      int64_t fg = filters / op.getGroups();
      AffineExpr n, fo, oh, ow, c, kh, kw;
      bindDims(ctx, n, fo, oh, ow, c, kh, kw);
      AffineExpr ic = fo.floorDiv(fg) * cg + c;
      AffineExpr ih = oh * strides[0] + kh * dilation[0];
      AffineExpr iw = ow * strides[1] + kw * dilation[1];
      SmallVector<AffineMap> maps = {
          AffineMap::get(7, 0,
                         nchw ? ArrayRef<AffineExpr>{n, ic, ih, iw}
                              : ArrayRef<AffineExpr>{n, ih, iw, ic},
                         ctx),
          AffineMap::get(7, 0,
                         nchw ? ArrayRef<AffineExpr>{fo, c, kh, kw}
                              : ArrayRef<AffineExpr>{kh, kw, c, fo},
                         ctx),
          AffineMap::get(7, 0,
                         nchw ? ArrayRef<AffineExpr>{n, fo, oh, ow}
                              : ArrayRef<AffineExpr>{n, oh, ow, fo},
                         ctx)};
      auto par = utils::IteratorType::parallel,
           red = utils::IteratorType::reduction;
      result =
          linalg::GenericOp::create(
              b, loc, TypeRange{init.getType()},
              ValueRange{input, op.getFilter()}, ValueRange{init}, maps,
              ArrayRef<utils::IteratorType>{par, par, par, par, red, red, red},
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value x = convertScalar(nb, nl, args[0], acc);
                Value w = convertScalar(nb, nl, args[1], acc);
                Value p = arith::MulFOp::create(nb, nl, x, w);
                linalg::YieldOp::create(
                    nb, nl,
                    arith::AddFOp::create(nb, nl, args[2], p).getResult());
              })
              .getResult(0);
    }
    return roundTo(b, loc, result, element);
  }
};

struct EmbeddingPattern : public MPTPattern<EmbeddingOp> {
  using MPTPattern::MPTPattern;
  Value lower(EmbeddingOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Value table = op.getTable();
    // out[i..., d] = table[indices[i...], d]
    AffineMap indicesMap =
        AffineMap::getMultiDimIdentityMap(rank, ctx).getMajorSubMap(rank - 1);
    return buildGeneric(
        b, loc, type.getShape(), type.getElementType(), op.getIndices(),
        {indicesMap}, nullptr, [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value row =
              arith::IndexCastOp::create(nb, nl, nb.getIndexType(), a[0]);
          Value col = linalg::IndexOp::create(nb, nl, rank - 1);
          return tensor::ExtractOp::create(nb, nl, table, ValueRange{row, col})
              .getResult();
        });
  }
};

//===----------------------------------------------------------------------===//
// Normalization and reductions
//===----------------------------------------------------------------------===//

/// The statistics of a softmax of `input` along `axis`, tensors of the
/// other dimensions in the compute type: the maximum and the sum of
/// exp(x - max). Nothing of the input's size is made: x - max is recomputed
/// inside the sum, as the users recompute it. A softmax cross-entropy and its
/// gradient build the same ops, which CSE merges.
std::pair<Value, Value> buildSoftmaxStatistics(OpBuilder &b, Location loc,
                                               Value input, int64_t axis) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = tensorType(input);
  int64_t rank = type.getRank();
  Type acc = computeType(type.getElementType());
  Value max = buildReduction(b, loc, input, axis, acc, Combine::max);
  Value sum = buildReduction(
      b, loc, type.getShape(), {input, max},
      {AffineMap::getMultiDimIdentityMap(rank, ctx),
       droppingMap(ctx, rank, axis)},
      axis, acc, Combine::sum, [](OpBuilder &nb, Location nl, ValueRange a) {
        return math::ExpOp::create(nb, nl,
                                   arith::SubFOp::create(nb, nl, a[0], a[1]))
            .getResult();
      });
  return {max, sum};
}

/// softmax / log_softmax along `axis`, computed in f32 (or f64) from the
/// statistics and the input, and rounded once.
Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t axis,
                   bool log) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = tensorType(input);
  int64_t rank = type.getRank();
  Type acc = computeType(type.getElementType());
  auto [max, sum] = buildSoftmaxStatistics(b, loc, input, axis);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap reduced = droppingMap(ctx, rank, axis);
  return buildGeneric(
      b, loc, type.getShape(), type.getElementType(), {input, max, sum},
      {id, reduced, reduced}, acc,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value shifted = arith::SubFOp::create(nb, nl, a[0], a[1]);
        if (log)
          return arith::SubFOp::create(nb, nl, shifted,
                                       math::LogOp::create(nb, nl, a[2]))
              .getResult();
        return arith::DivFOp::create(nb, nl,
                                     math::ExpOp::create(nb, nl, shifted), a[2])
            .getResult();
      });
}

template <typename OpTy>
struct SoftmaxPattern : public MPTPattern<OpTy> {
  using MPTPattern<OpTy>::MPTPattern;
  Value lower(OpTy op, PatternRewriter &b) const override {
    return buildSoftmax(b, op.getLoc(), op.getInput(), op.getNormalizedAxis(),
                        std::is_same_v<OpTy, LogSoftmaxOp>);
  }
};

/// The gradient of softmax (`y * (g - sum(g * y))`) or log_softmax
/// (`g - exp(y) * sum(g)`) along `axis`, from the result `y` and its
/// gradient `g`: one reduction and one generic that reads the operands again,
/// computed in f32 (or f64) and rounded once.
Value buildSoftmaxGrad(OpBuilder &b, Location loc, Value grad, Value result,
                       int64_t axis, bool log) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = tensorType(grad);
  int64_t rank = type.getRank();
  Type acc = computeType(type.getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap reduced = droppingMap(ctx, rank, axis);
  Value sum =
      log ? buildReduction(b, loc, grad, axis, acc, Combine::sum)
          : buildReduction(
                b, loc, type.getShape(), {grad, result}, {id, id}, axis, acc,
                Combine::sum, [](OpBuilder &nb, Location nl, ValueRange a) {
                  return arith::MulFOp::create(nb, nl, a[0], a[1]).getResult();
                });
  return buildGeneric(
      b, loc, type.getShape(), type.getElementType(), {grad, result, sum},
      {id, id, reduced}, acc, [&](OpBuilder &nb, Location nl, ValueRange a) {
        if (log)
          return arith::SubFOp::create(
                     nb, nl, a[0],
                     arith::MulFOp::create(
                         nb, nl, math::ExpOp::create(nb, nl, a[1]), a[2]))
              .getResult();
        return arith::MulFOp::create(nb, nl, a[1],
                                     arith::SubFOp::create(nb, nl, a[0], a[2]))
            .getResult();
      });
}

template <typename OpTy>
struct SoftmaxGradPattern : public MPTPattern<OpTy> {
  using MPTPattern<OpTy>::MPTPattern;
  Value lower(OpTy op, PatternRewriter &b) const override {
    return buildSoftmaxGrad(b, op.getLoc(), op.getGrad(), op.getResult(),
                            op.getNormalizedAxis(),
                            std::is_same_v<OpTy, LogSoftmaxGradOp>);
  }
};

/// Subtracts the mean: `x - mean`, of `a[0]` and `a[1]`.
Value centerScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::SubFOp::create(b, loc, a[0], a[1]);
}

/// The statistics of a normalization of `input` over `axes`: the mean and
/// 1 / sqrt(biased variance + epsilon), tensors of the other dimensions in
/// the compute type. Nothing of the input's size is made: `x - mean` is
/// recomputed inside the variance's reduction. The forward op and its
/// gradient build the same ops, which CSE merges.
std::pair<Value, Value> buildNormStatistics(OpBuilder &b, Location loc,
                                            Value input, ArrayRef<int64_t> axes,
                                            double epsilon) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = tensorType(input);
  int64_t rank = type.getRank();
  Type acc = computeType(type.getElementType());
  int64_t count = 1;
  for (int64_t a : axes)
    count *= type.getDimSize(a);
  auto onReduced = [&](Value v, auto fn) {
    ArrayRef<int64_t> shape = tensorType(v).getShape();
    return buildGeneric(b, loc, shape, acc, v,
                        {AffineMap::getMultiDimIdentityMap(shape.size(), ctx)},
                        acc, [&](OpBuilder &nb, Location nl, ValueRange a) {
                          Value average = arith::DivFOp::create(
                              nb, nl, a[0], floatConst(nb, nl, acc, count));
                          return fn(nb, nl, average);
                        });
  };
  Value mean = onReduced(buildReduction(b, loc, input, axes, acc, Combine::sum),
                         [](OpBuilder &, Location, Value m) { return m; });
  Value squares = buildReduction(
      b, loc, type.getShape(), {input, mean},
      {AffineMap::getMultiDimIdentityMap(rank, ctx),
       droppingMap(ctx, rank, axes)},
      axes, acc, Combine::sum, [](OpBuilder &nb, Location nl, ValueRange a) {
        Value c = centerScalar(nb, nl, a);
        return arith::MulFOp::create(nb, nl, c, c).getResult();
      });
  Value rstd = onReduced(squares, [&](OpBuilder &nb, Location nl, Value var) {
    return reciprocalSqrt(
        nb, nl,
        arith::AddFOp::create(nb, nl, var, floatConst(nb, nl, acc, epsilon)));
  });
  return {mean, rstd};
}

/// Normalizes `input` over `axes` (mean 0, biased variance 1, epsilon added
/// to the variance) and applies `scale * y + bias`, with scale and bias read
/// through `paramMap`, in one generic that reads the input and the
/// statistics.
Value buildNormalization(OpBuilder &b, Location loc, Value input,
                         ArrayRef<int64_t> axes, double epsilon, Value scale,
                         Value bias, AffineMap paramMap) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = tensorType(input);
  int64_t rank = type.getRank();
  Type acc = computeType(type.getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap reduced = droppingMap(ctx, rank, axes);
  auto [mean, rstd] = buildNormStatistics(b, loc, input, axes, epsilon);
  return buildGeneric(
      b, loc, type.getShape(), type.getElementType(),
      {input, mean, rstd, scale, bias},
      {id, reduced, reduced, paramMap, paramMap}, acc,
      [](OpBuilder &nb, Location nl, ValueRange a) {
        Value y = arith::MulFOp::create(nb, nl, centerScalar(nb, nl, a), a[2]);
        return arith::AddFOp::create(
                   nb, nl, arith::MulFOp::create(nb, nl, y, a[3]), a[4])
            .getResult();
      });
}

struct LayerNormPattern : public MPTPattern<LayerNormOp> {
  using MPTPattern::MPTPattern;
  Value lower(LayerNormOp op, PatternRewriter &b) const override {
    int64_t rank = op.getInput().getType().getRank();
    int64_t axis = op.getNormalizedAxis();
    SmallVector<int64_t> axes;
    for (int64_t d = axis; d < rank; ++d)
      axes.push_back(d);
    SmallVector<int64_t> leading(axis);
    std::iota(leading.begin(), leading.end(), 0);
    AffineMap paramMap = droppingMap(b.getContext(), rank, leading);
    return buildNormalization(b, op.getLoc(), op.getInput(), axes,
                              op.getEpsilon().convertToDouble(), op.getScale(),
                              op.getBias(), paramMap);
  }
};

struct BatchNormPattern : public MPTPattern<BatchNormOp> {
  using MPTPattern::MPTPattern;
  Value lower(BatchNormOp op, PatternRewriter &b) const override {
    MLIRContext *ctx = b.getContext();
    int64_t rank = op.getInput().getType().getRank();
    int64_t axis = op.getNormalizedAxis();
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        axes.push_back(d);
    AffineMap paramMap =
        AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx), ctx);
    return buildNormalization(b, op.getLoc(), op.getInput(), axes,
                              op.getEpsilon().convertToDouble(), op.getScale(),
                              op.getBias(), paramMap);
  }
};

/// Reshapes a reduction over `axes` to the op's result type (keep_dims).
template <typename OpTy>
struct ReducePattern : public MPTPattern<OpTy> {
  using MPTPattern<OpTy>::MPTPattern;
  Value lower(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    RankedTensorType in = op.getInput().getType(), type = op.getType();
    Type acc = computeType(type.getElementType());
    SmallVector<int64_t> axes = op.getNormalizedAxes();
    bool isMax = std::is_same_v<OpTy, ReduceMaxOp>;
    Value r = buildReduction(b, loc, op.getInput(), axes, acc,
                             isMax ? Combine::max : Combine::sum);
    if (std::is_same_v<OpTy, ReduceMeanOp>) {
      int64_t count = 1;
      for (int64_t a : axes)
        count *= in.getDimSize(a);
      ArrayRef<int64_t> shape = tensorType(r).getShape();
      r = buildGeneric(
          b, loc, shape, acc, r,
          {AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext())},
          acc, [&](OpBuilder &nb, Location nl, ValueRange a) {
            return arith::DivFOp::create(nb, nl, a[0],
                                         floatConst(nb, nl, acc, count))
                .getResult();
          });
    }
    r = convertTensor(b, loc, r, type.getElementType());
    return reshapeTensor(b, loc, r, type);
  }
};

/// Max and average pooling through linalg's named pooling ops.
template <typename OpTy>
struct PoolPattern : public MPTPattern<OpTy> {
  using MPTPattern<OpTy>::MPTPattern;
  Value lower(OpTy op, PatternRewriter &b) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPool2DOp>;
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Type acc = computeType(element);
    bool nchw = op.getLayout() == Layout::nchw;
    ArrayRef<int64_t> pad = op.getPadding();
    SmallVector<int64_t> low = nchw
                                   ? SmallVector<int64_t>{0, 0, pad[0], pad[2]}
                                   : SmallVector<int64_t>{0, pad[0], pad[2], 0};
    SmallVector<int64_t> high =
        nchw ? SmallVector<int64_t>{0, 0, pad[1], pad[3]}
             : SmallVector<int64_t>{0, pad[1], pad[3], 0};
    double padValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value input = convertTensor(b, loc, op.getInput(), acc);
    input =
        padTensor(b, loc, input, low, high, floatConst(b, loc, acc, padValue));
    auto pool = [&](Value source, bool max) {
      Value init = filledTensor(
          b, loc, type.getShape(), acc,
          floatConst(b, loc, acc,
                     max ? -std::numeric_limits<double>::infinity() : 0.0));
      Value window = emptyTensor(b, loc, op.getKernel(), acc);
      auto strides = b.getI64TensorAttr(op.getStrides());
      auto dilations = b.getI64TensorAttr({1, 1});
      SmallVector<Value> ins = {source, window};
      SmallVector<Type> results = {init.getType()};
      if (max)
        return nchw ? linalg::PoolingNchwMaxOp::create(b, loc, results, ins,
                                                       init, strides, dilations)
                          .getResult(0)
                    : linalg::PoolingNhwcMaxOp::create(b, loc, results, ins,
                                                       init, strides, dilations)
                          .getResult(0);
      return nchw ? linalg::PoolingNchwSumOp::create(b, loc, results, ins, init,
                                                     strides, dilations)
                        .getResult(0)
                  : linalg::PoolingNhwcSumOp::create(b, loc, results, ins, init,
                                                     strides, dilations)
                        .getResult(0);
    };
    if constexpr (isMax) {
      return convertTensor(b, loc, pool(input, true), element);
    } else {
      Value sum = pool(input, false);
      // The number of elements in each window: the kernel area, or (padding
      // excluded) a sum pooling of ones padded with zeros.
      Value count;
      if (op.getCountIncludePad() ||
          llvm::all_of(pad, [](int64_t p) { return p == 0; })) {
        int64_t area = op.getKernel()[0] * op.getKernel()[1];
        count = filledTensor(b, loc, type.getShape(), acc,
                             floatConst(b, loc, acc, area));
      } else {
        Value ones = filledTensor(b, loc, op.getInput().getType().getShape(),
                                  acc, floatConst(b, loc, acc, 1.0));
        count = pool(
            padTensor(b, loc, ones, low, high, floatConst(b, loc, acc, 0.0)),
            false);
      }
      AffineMap id =
          AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
      return buildGeneric(
          b, loc, type.getShape(), element, {sum, count}, {id, id}, acc,
          [](OpBuilder &nb, Location nl, ValueRange a) {
            return arith::DivFOp::create(nb, nl, a[0], a[1]).getResult();
          });
    }
  }
};

struct GlobalAvgPoolPattern : public MPTPattern<GlobalAvgPoolOp> {
  using MPTPattern::MPTPattern;
  Value lower(GlobalAvgPoolOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    RankedTensorType in = op.getInput().getType(), type = op.getType();
    Type acc = computeType(type.getElementType());
    bool nchw = op.getLayout() == Layout::nchw;
    SmallVector<int64_t> axes =
        nchw ? SmallVector<int64_t>{2, 3} : SmallVector<int64_t>{1, 2};
    Value sum = buildReduction(b, loc, op.getInput(), axes, acc, Combine::sum);
    int64_t count = in.getDimSize(axes[0]) * in.getDimSize(axes[1]);
    return buildGeneric(b, loc, type.getShape(), type.getElementType(), sum,
                        {AffineMap::getMultiDimIdentityMap(2, b.getContext())},
                        acc, [&](OpBuilder &nb, Location nl, ValueRange a) {
                          return arith::DivFOp::create(
                                     nb, nl, a[0],
                                     floatConst(nb, nl, acc, count))
                              .getResult();
                        });
  }
};

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

struct ReshapePattern : public MPTPattern<ReshapeOp> {
  using MPTPattern::MPTPattern;
  Value lower(ReshapeOp op, PatternRewriter &b) const override {
    return reshapeTensor(b, op.getLoc(), op.getInput(), op.getType());
  }
};

struct TransposePattern : public MPTPattern<TransposeOp> {
  using MPTPattern::MPTPattern;
  Value lower(TransposeOp op, PatternRewriter &b) const override {
    return transposeTensor(b, op.getLoc(), op.getInput(), op.getPerm());
  }
};

struct BroadcastPattern : public MPTPattern<BroadcastOp> {
  using MPTPattern::MPTPattern;
  Value lower(BroadcastOp op, PatternRewriter &b) const override {
    RankedTensorType type = op.getType();
    return buildGeneric(
        b, op.getLoc(), type.getShape(), type.getElementType(), op.getInput(),
        {broadcastMap(b.getContext(), op.getInput().getType().getShape(),
                      type.getShape())},
        nullptr, [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  }
};

struct ConcatPattern : public MPTPattern<ConcatOp> {
  using MPTPattern::MPTPattern;
  Value lower(ConcatOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    Value result = emptyTensor(b, loc, type.getShape(), type.getElementType());
    int64_t offset = 0;
    for (Value in : op.getInputs()) {
      RankedTensorType t = tensorType(in);
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
          strides(rank, b.getIndexAttr(1));
      offsets[axis] = b.getIndexAttr(offset);
      for (int64_t d : t.getShape())
        sizes.push_back(b.getIndexAttr(d));
      result = tensor::InsertSliceOp::create(b, loc, in, result, offsets, sizes,
                                             strides);
      offset += t.getDimSize(axis);
    }
    return result;
  }
};

struct SlicePattern : public MPTPattern<SliceOp> {
  using MPTPattern::MPTPattern;
  Value lower(SliceOp op, PatternRewriter &b) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t o : op.getOffsets())
      offsets.push_back(b.getIndexAttr(o));
    for (int64_t s : op.getSizes())
      sizes.push_back(b.getIndexAttr(s));
    for (int64_t s : op.getStridesOrOnes())
      strides.push_back(b.getIndexAttr(s));
    return tensor::ExtractSliceOp::create(
        b, op.getLoc(), op.getType(), op.getInput(), offsets, sizes, strides);
  }
};

struct PadPattern : public MPTPattern<PadOp> {
  using MPTPattern::MPTPattern;
  Value lower(PadOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type element = op.getType().getElementType();
    Value value;
    if (isa<FloatType>(element))
      value = floatConst(b, loc, element, op.getValue().convertToDouble());
    else
      value = arith::ConstantOp::create(
          b, loc,
          b.getIntegerAttr(
              element, static_cast<int64_t>(op.getValue().convertToDouble())));
    return padTensor(b, loc, op.getInput(), op.getLow(), op.getHigh(), value);
  }
};

struct ConstantPattern : public MPTPattern<ConstantOp> {
  using MPTPattern::MPTPattern;
  Value lower(ConstantOp op, PatternRewriter &b) const override {
    return arith::ConstantOp::create(b, op.getLoc(), op.getType(),
                                     cast<TypedAttr>(op.getValue()));
  }
};

struct CastPattern : public MPTPattern<CastOp> {
  using MPTPattern::MPTPattern;
  Value lower(CastOp op, PatternRewriter &b) const override {
    return convertTensor(b, op.getLoc(), op.getInput(),
                         op.getType().getElementType());
  }
};

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// The mean over all elements of `value` of `inputs` (tensors of `shape`,
/// read at the same index and converted to `acc`), accumulated in `acc`,
/// as a rank-0 tensor of `element`. `value` runs inside the sum: nothing of
/// the inputs' size is made.
Value buildMean(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                ValueRange inputs, Type acc, Type element,
                function_ref<Value(OpBuilder &, Location, ValueRange)> value) {
  SmallVector<int64_t> all(shape.size());
  std::iota(all.begin(), all.end(), 0);
  SmallVector<AffineMap> maps(inputs.size(), AffineMap::getMultiDimIdentityMap(
                                                 shape.size(), b.getContext()));
  Value sum = buildReduction(b, loc, shape, inputs, maps, all, acc,
                             Combine::sum, value);
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  return buildGeneric(b, loc, {}, element, sum,
                      {AffineMap::get(0, 0, {}, b.getContext())}, acc,
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
                        return arith::DivFOp::create(
                                   nb, nl, a[0], floatConst(nb, nl, acc, count))
                            .getResult();
                      });
}

/// The mean of a tensor (in `acc`) as a rank-0 tensor of `element`.
Value buildMean(OpBuilder &b, Location loc, Value values, Type element) {
  RankedTensorType type = tensorType(values);
  return buildMean(b, loc, type.getShape(), values, type.getElementType(),
                   element,
                   [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

struct SoftmaxCrossEntropyPattern : public MPTPattern<SoftmaxCrossEntropyOp> {
  using MPTPattern::MPTPattern;
  Value lower(SoftmaxCrossEntropyOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value logits = op.getLogits();
    RankedTensorType type = tensorType(logits);
    int64_t rank = type.getRank();
    Type acc = computeType(type.getElementType());
    // -log_softmax(logits)[label] = log(sum) - (logits[label] - max), from
    // the row statistics and the one logit each row picks: no log-softmax
    // of the logits' size.
    auto [max, sum] = buildSoftmaxStatistics(b, loc, logits, rank - 1);
    ArrayRef<int64_t> batch = type.getShape().drop_back();
    AffineMap id = AffineMap::getMultiDimIdentityMap(batch.size(), ctx);
    Value picked = buildGeneric(
        b, loc, batch, acc, {op.getLabels(), max, sum}, {id, id, id}, nullptr,
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank - 1; ++d)
            indices.push_back(linalg::IndexOp::create(nb, nl, d));
          indices.push_back(
              arith::IndexCastOp::create(nb, nl, nb.getIndexType(), a[0]));
          Value x = convertScalar(
              nb, nl, tensor::ExtractOp::create(nb, nl, logits, indices), acc);
          Value shifted = arith::SubFOp::create(nb, nl, x, a[1]);
          Value lp = arith::SubFOp::create(nb, nl, shifted,
                                           math::LogOp::create(nb, nl, a[2]));
          return arith::NegFOp::create(nb, nl, lp).getResult();
        });
    return buildMean(b, loc, picked, op.getType().getElementType());
  }
};

template <typename OpTy>
struct RegressionLossPattern : public MPTPattern<OpTy> {
  using MPTPattern<OpTy>::MPTPattern;
  Value lower(OpTy op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getInput().getType();
    Type acc = computeType(type.getElementType());
    return buildMean(b, loc, type.getShape(), {op.getInput(), op.getTarget()},
                     acc, type.getElementType(),
                     [](OpBuilder &nb, Location nl, ValueRange a) {
                       Value d = arith::SubFOp::create(nb, nl, a[0], a[1]);
                       if constexpr (std::is_same_v<OpTy, MseLossOp>)
                         return arith::MulFOp::create(nb, nl, d, d).getResult();
                       else
                         return math::AbsFOp::create(nb, nl, d).getResult();
                     });
  }
};

//===----------------------------------------------------------------------===//
// Backward and optimizer ops
//===----------------------------------------------------------------------===//

struct ReluGradPattern : public MPTPattern<ReluGradOp> {
  using MPTPattern::MPTPattern;
  Value lower(ReluGradOp op, PatternRewriter &b) const override {
    return buildElementwise(
        b, op.getLoc(), op.getType(), {op.getGrad(), op.getInput()},
        [](OpBuilder &nb, Location l, ValueRange a) {
          Value zero = floatConst(nb, l, a[0].getType(), 0.0);
          Value positive = arith::CmpFOp::create(
              nb, l, arith::CmpFPredicate::OGT, a[1], zero);
          return arith::SelectOp::create(nb, l, positive, a[0], zero)
              .getResult();
        });
  }
};

struct GeluGradPattern : public MPTPattern<GeluGradOp> {
  using MPTPattern::MPTPattern;
  Value lower(GeluGradOp op, PatternRewriter &b) const override {
    bool tanhForm = op.getApproximate() == GeluApproximation::tanh;
    return buildElementwise(
        b, op.getLoc(), op.getType(), {op.getGrad(), op.getInput()},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Type t = a[0].getType();
          Value x = a[1];
          auto c = [&](double v) { return floatConst(nb, l, t, v); };
          auto mul = [&](Value p, Value q) {
            return arith::MulFOp::create(nb, l, p, q).getResult();
          };
          auto add = [&](Value p, Value q) {
            return arith::AddFOp::create(nb, l, p, q).getResult();
          };
          Value derivative;
          if (tanhForm) {
            // s + 2 x s (1 - s) u', s = sigmoid(2u) = 0.5 (1 + tanh u),
            // u' = k (1 + 3 * 0.044715 x^2), k = sqrt(2 / pi).
            double k = std::sqrt(2.0 / M_PI);
            Value sig = geluCdf(nb, l, x, /*tanhForm=*/true);
            Value one = c(1.0);
            Value du = mul(c(k), add(one, mul(c(3 * 0.044715), mul(x, x))));
            Value ds = mul(mul(c(2.0), sig),
                           arith::SubFOp::create(nb, l, one, sig).getResult());
            derivative = add(sig, mul(mul(x, ds), du));
          } else {
            // Phi(x) + x phi(x).
            Value cdf = geluCdf(nb, l, x, /*tanhForm=*/false);
            Value pdf =
                mul(c(0.5 * M_2_SQRTPI * M_SQRT1_2),
                    math::ExpOp::create(nb, l, mul(c(-0.5), mul(x, x))));
            derivative = add(cdf, mul(x, pdf));
          }
          return mul(a[0], derivative);
        });
  }
};

struct SoftmaxCrossEntropyGradPattern
    : public MPTPattern<SoftmaxCrossEntropyGradOp> {
  using MPTPattern::MPTPattern;
  Value lower(SoftmaxCrossEntropyGradOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Type acc = computeType(type.getElementType());
    // softmax(logits) from the row statistics, in the generic that
    // subtracts the one-hot labels: no probabilities of the logits' size.
    auto [max, sum] = buildSoftmaxStatistics(b, loc, op.getLogits(), rank - 1);
    int64_t batch = type.getNumElements() / type.getDimSize(rank - 1);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap rows = droppingMap(ctx, rank, {rank - 1});
    AffineMap scalar = AffineMap::get(rank, 0, {}, ctx);
    return buildGeneric(
        b, loc, type.getShape(), type.getElementType(),
        {op.getLogits(), op.getLabels(), op.getGrad(), max, sum},
        {id, rows, scalar, rows, rows}, nullptr,
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value x = convertScalar(nb, nl, a[0], acc);
          Value p = arith::DivFOp::create(
              nb, nl,
              math::ExpOp::create(nb, nl,
                                  arith::SubFOp::create(nb, nl, x, a[3])),
              a[4]);
          Value cls = arith::IndexCastOp::create(
              nb, nl, a[1].getType(),
              linalg::IndexOp::create(nb, nl, rank - 1));
          Value hit = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                            cls, a[1]);
          Value one =
              arith::SelectOp::create(nb, nl, hit, floatConst(nb, nl, acc, 1.0),
                                      floatConst(nb, nl, acc, 0.0));
          Value diff = arith::SubFOp::create(nb, nl, p, one);
          Value g = convertScalar(nb, nl, a[2], acc);
          Value scaled = arith::DivFOp::create(
              nb, nl, g, floatConst(nb, nl, acc, double(batch)));
          return arith::MulFOp::create(nb, nl, diff, scaled).getResult();
        });
  }
};

/// Gradients of layer_norm (statistics over the trailing dimensions, scale
/// per normalized element) and batch_norm (statistics over all but the
/// channel, scale per channel): `axes` are the normalized dimensions and
/// `leading` the dimensions the scale and bias gradients sum over.
template <typename OpTy>
struct NormGradPattern : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &b) const override {
    if (failed(checkStatic(op, b)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getInput().getType();
    int64_t rank = type.getRank(), axis = op.getNormalizedAxis();
    Type element = type.getElementType(), acc = computeType(element);
    SmallVector<int64_t> axes, leading;
    constexpr bool isLayerNorm = std::is_same_v<OpTy, LayerNormGradOp>;
    for (int64_t d = 0; d < rank; ++d) {
      if (isLayerNorm)
        (d >= axis ? axes : leading).push_back(d);
      else if (d != axis)
        axes.push_back(d);
    }
    if (!isLayerNorm)
      leading = axes;
    int64_t count = 1;
    for (int64_t a : axes)
      count *= type.getDimSize(a);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap reduced = droppingMap(ctx, rank, axes);
    AffineMap param = droppingMap(ctx, rank, leading);
    auto divCount = [&](OpBuilder &nb, Location nl, Value x) {
      return arith::DivFOp::create(nb, nl, x, floatConst(nb, nl, acc, count))
          .getResult();
    };
    // No tensor of the input's size is made but dx: x^ = (x - mean) * rstd
    // and dx^ = dy * scale are recomputed where they are read.
    auto [mean, rstd] = buildNormStatistics(b, loc, op.getInput(), axes,
                                            op.getEpsilon().convertToDouble());
    Value dy = op.getGrad(), x = op.getInput(), scale = op.getScale();
    // a = (x, mean, rstd)
    auto xhat = [](OpBuilder &nb, Location nl, ValueRange a) {
      return arith::MulFOp::create(nb, nl, centerScalar(nb, nl, a), a[2])
          .getResult();
    };
    // a = (dy, scale)
    auto dxhat = [](OpBuilder &nb, Location nl, ValueRange a) {
      return arith::MulFOp::create(nb, nl, a[0], a[1]).getResult();
    };
    ArrayRef<int64_t> shape = type.getShape();
    Value sum1 = buildReduction(b, loc, shape, {dy, scale}, {id, param}, axes,
                                acc, Combine::sum, dxhat);
    Value sum2 = buildReduction(
        b, loc, shape, {dy, scale, x, mean, rstd},
        {id, param, id, reduced, reduced}, axes, acc, Combine::sum,
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          return arith::MulFOp::create(nb, nl, dxhat(nb, nl, a.take_front(2)),
                                       xhat(nb, nl, a.drop_front(2)))
              .getResult();
        });
    // dx = rstd * (dx^ - sum1 / N - x^ * sum2 / N)
    Value dx = buildGeneric(
        b, loc, shape, element, {dy, scale, x, mean, rstd, sum1, sum2},
        {id, param, id, reduced, reduced, reduced, reduced}, acc,
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value t = arith::SubFOp::create(
              nb, nl, dxhat(nb, nl, a.take_front(2)), divCount(nb, nl, a[5]));
          Value u = arith::MulFOp::create(nb, nl, xhat(nb, nl, a.slice(2, 3)),
                                          divCount(nb, nl, a[6]));
          return arith::MulFOp::create(nb, nl, a[4],
                                       arith::SubFOp::create(nb, nl, t, u))
              .getResult();
        });
    // The scale and bias gradients take the scale's type (f32 with f32
    // parameters and a narrower input).
    Type paramElement = op.getScale().getType().getElementType();
    Value dscale = convertTensor(
        b, loc,
        buildReduction(b, loc, shape, {dy, x, mean, rstd},
                       {id, id, reduced, reduced}, leading, acc, Combine::sum,
                       [&](OpBuilder &nb, Location nl, ValueRange a) {
                         return arith::MulFOp::create(
                                    nb, nl, a[0], xhat(nb, nl, a.drop_front()))
                             .getResult();
                       }),
        paramElement);
    Value dbias = convertTensor(
        b, loc, buildReduction(b, loc, dy, leading, acc, Combine::sum),
        paramElement);
    b.replaceOp(op, {dx, dscale, dbias});
    return success();
  }
};

/// The padding of a window op as (low, high) per image dimension.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
imagePadding(ArrayRef<int64_t> pad, bool nchw) {
  SmallVector<int64_t> low = nchw ? SmallVector<int64_t>{0, 0, pad[0], pad[2]}
                                  : SmallVector<int64_t>{0, pad[0], pad[2], 0};
  SmallVector<int64_t> high = nchw ? SmallVector<int64_t>{0, 0, pad[1], pad[3]}
                                   : SmallVector<int64_t>{0, pad[1], pad[3], 0};
  return {low, high};
}

/// dw[f, c, kh, kw] = sum_{n, oh, ow} dy[n, f, oh, ow] *
///                    x[n, group(f) * C/G + c, oh * s + kh * d, ...]
struct ConvBackwardFilterPattern : public MPTPattern<Conv2DBackwardFilterOp> {
  using MPTPattern::MPTPattern;
  Value lower(Conv2DBackwardFilterOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Type acc = op.getAccType().value_or(element);
    bool nchw = op.getLayout() == Layout::nchw;
    auto [low, high] = imagePadding(op.getPadding(), nchw);
    Value x = padTensor(b, loc, op.getInput(), low, high,
                        floatConst(b, loc, element, 0.0));
    ArrayRef<int64_t> f = type.getShape();
    int64_t filters = nchw ? f[0] : f[3], cg = nchw ? f[1] : f[2];
    int64_t fg = filters / op.getGroups();
    ArrayRef<int64_t> s = op.getStrides(), d = op.getDilation();
    AffineExpr fo, c, kh, kw, n, oh, ow;
    bindDims(ctx, fo, c, kh, kw, n, oh, ow);
    AffineExpr ic = fo.floorDiv(fg) * cg + c;
    AffineExpr ih = oh * s[0] + kh * d[0], iw = ow * s[1] + kw * d[1];
    auto map = [&](ArrayRef<AffineExpr> e) {
      return AffineMap::get(7, 0, e, ctx);
    };
    SmallVector<AffineMap> maps = {
        nchw ? map({n, ic, ih, iw}) : map({n, ih, iw, ic}),
        nchw ? map({n, fo, oh, ow}) : map({n, oh, ow, fo}),
        nchw ? map({fo, c, kh, kw}) : map({kh, kw, c, fo})};
    Value init = filledTensor(b, loc, type.getShape(), acc,
                              floatConst(b, loc, acc, 0.0));
    auto par = utils::IteratorType::parallel,
         red = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{x, op.getGrad()},
        ValueRange{init}, maps,
        ArrayRef<utils::IteratorType>{par, par, par, par, red, red, red},
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value p =
              arith::MulFOp::create(nb, nl, convertScalar(nb, nl, a[0], acc),
                                    convertScalar(nb, nl, a[1], acc));
          linalg::YieldOp::create(
              nb, nl, arith::AddFOp::create(nb, nl, a[2], p).getResult());
        });
    // What mpt-conv-to-gemm needs to rewrite it as im2col and a matmul.
    if (op.getGroups() == 1)
      generic->setAttr(
          kFilterGradientAttrName,
          b.getDictionaryAttr({b.getNamedAttr("strides", op.getStridesAttr()),
                               b.getNamedAttr("dilation", op.getDilationAttr()),
                               b.getNamedAttr("nchw", b.getBoolAttr(nchw))}));
    return roundTo(b, loc, generic.getResult(0), element);
  }
};

/// dx[n, c, i, j] = sum over filters f of c's group and kernel offsets
/// (kh, kw) of dy[n, f, oh, ow] * w[f, c mod C/G, kh, kw], where (oh, ow)
/// is the output position reading (i, j) through (kh, kw).
struct ConvBackwardDataPattern : public MPTPattern<Conv2DBackwardDataOp> {
  using MPTPattern::MPTPattern;
  Value lower(Conv2DBackwardDataOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Type acc = op.getAccType().value_or(element);
    bool nchw = op.getLayout() == Layout::nchw;
    ArrayRef<int64_t> w = op.getFilter().getType().getShape();
    ArrayRef<int64_t> dyShape = op.getGrad().getType().getShape();
    int64_t filters = nchw ? w[0] : w[3], cg = nchw ? w[1] : w[2];
    int64_t kh = nchw ? w[2] : w[0], kw = nchw ? w[3] : w[1];
    int64_t fg = filters / op.getGroups();
    int64_t oh = nchw ? dyShape[2] : dyShape[1];
    int64_t ow = nchw ? dyShape[3] : dyShape[2];
    ArrayRef<int64_t> s = op.getStrides(), d = op.getDilation(),
                      pad = op.getPadding();
    // Iteration (n, ic, i, j, fo, kh, kw).
    AffineExpr n, ic, i, j, fo, ekh, ekw;
    bindDims(ctx, n, ic, i, j, fo, ekh, ekw);
    AffineExpr f = ic.floorDiv(cg) * fg + fo, c = ic % cg;
    auto map = [&](ArrayRef<AffineExpr> e) {
      return AffineMap::get(7, 0, e, ctx);
    };
    // The (fo, kh, kw) bounds come from a shape-only "window" operand: the
    // filter map (with floordiv and mod) cannot give them.
    Value window = emptyTensor(b, loc, {fg, kh, kw}, acc);
    SmallVector<AffineMap> maps = {
        nchw ? map({f, c, ekh, ekw}) : map({ekh, ekw, c, f}),
        map({fo, ekh, ekw}), nchw ? map({n, ic, i, j}) : map({n, i, j, ic})};
    Value init = filledTensor(b, loc, type.getShape(), acc,
                              floatConst(b, loc, acc, 0.0));
    Value grad = op.getGrad();
    auto par = utils::IteratorType::parallel,
         red = utils::IteratorType::reduction;
    auto dxOp = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{op.getFilter(), window},
        ValueRange{init}, maps,
        ArrayRef<utils::IteratorType>{par, par, par, par, red, red, red},
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          auto idx = [&](unsigned dim) {
            return linalg::IndexOp::create(nb, nl, dim).getResult();
          };
          auto [ohIdx, okH] =
              windowSource(nb, nl, idx(2), idx(5), pad[0], s[0], d[0], oh);
          auto [owIdx, okW] =
              windowSource(nb, nl, idx(3), idx(6), pad[2], s[1], d[1], ow);
          Value fIdx = arith::AddIOp::create(
              nb, nl,
              arith::MulIOp::create(nb, nl,
                                    arith::DivSIOp::create(
                                        nb, nl, idx(1), indexConst(nb, nl, cg)),
                                    indexConst(nb, nl, fg)),
              idx(4));
          SmallVector<Value> at =
              nchw ? SmallVector<Value>{idx(0), fIdx, ohIdx, owIdx}
                   : SmallVector<Value>{idx(0), ohIdx, owIdx, fIdx};
          Value g = tensor::ExtractOp::create(nb, nl, grad, at);
          Value p = arith::MulFOp::create(nb, nl, convertScalar(nb, nl, g, acc),
                                          convertScalar(nb, nl, a[0], acc));
          Value ok = arith::AndIOp::create(nb, nl, okH, okW);
          Value term = arith::SelectOp::create(nb, nl, ok, p,
                                               floatConst(nb, nl, acc, 0.0));
          linalg::YieldOp::create(
              nb, nl, arith::AddFOp::create(nb, nl, a[2], term).getResult());
        });
    // What mpt-conv-to-gemm needs to rewrite it as a matmul and col2im.
    if (op.getGroups() == 1)
      dxOp->setAttr(
          kDataGradientAttrName,
          b.getDictionaryAttr({b.getNamedAttr("strides", op.getStridesAttr()),
                               b.getNamedAttr("dilation", op.getDilationAttr()),
                               b.getNamedAttr("padding", op.getPaddingAttr()),
                               b.getNamedAttr("nchw", b.getBoolAttr(nchw))}));
    return roundTo(b, loc, dxOp.getResult(0), element);
  }
};

/// dx[n, c, i, j] = sum over the windows reading (i, j) whose maximum equals
/// x[n, c, i, j] of dy at that window.
struct MaxPoolGradPattern : public MPTPattern<MaxPool2DGradOp> {
  using MPTPattern::MPTPattern;
  Value lower(MaxPool2DGradOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    Type element = type.getElementType(), acc = computeType(element);
    bool nchw = op.getLayout() == Layout::nchw;
    Value y = MaxPool2DOp::create(b, loc, op.getInput(), op.getKernelAttr(),
                                  op.getStridesAttr(), op.getPaddingAttr(),
                                  op.getLayoutAttr());
    Value grad = op.getGrad();
    ArrayRef<int64_t> dyShape = op.getGrad().getType().getShape();
    int64_t oh = nchw ? dyShape[2] : dyShape[1];
    int64_t ow = nchw ? dyShape[3] : dyShape[2];
    ArrayRef<int64_t> s = op.getStrides(), pad = op.getPadding();
    // Iteration (n, c, i, j, kh, kw) in the image's own dimension order.
    AffineExpr d0, d1, d2, d3, ekh, ekw;
    bindDims(ctx, d0, d1, d2, d3, ekh, ekw);
    AffineMap id = AffineMap::get(6, 0, {d0, d1, d2, d3}, ctx);
    SmallVector<int64_t> kernelShape(op.getKernel());
    Value window = emptyTensor(b, loc, kernelShape, acc);
    AffineMap windowMap = AffineMap::get(6, 0, {ekh, ekw}, ctx);
    Value init = filledTensor(b, loc, type.getShape(), acc,
                              floatConst(b, loc, acc, 0.0));
    auto par = utils::IteratorType::parallel,
         red = utils::IteratorType::reduction;
    unsigned hDim = nchw ? 2 : 1, wDim = nchw ? 3 : 2;
    Value dx =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()},
            ValueRange{op.getInput(), window}, ValueRange{init},
            {id, windowMap, id},
            ArrayRef<utils::IteratorType>{par, par, par, par, red, red},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              auto idx = [&](unsigned dim) {
                return linalg::IndexOp::create(nb, nl, dim).getResult();
              };
              auto [ohIdx, okH] =
                  windowSource(nb, nl, idx(hDim), idx(4), pad[0], s[0], 1, oh);
              auto [owIdx, okW] =
                  windowSource(nb, nl, idx(wDim), idx(5), pad[2], s[1], 1, ow);
              SmallVector<Value> at = {idx(0), idx(1), idx(2), idx(3)};
              at[hDim] = ohIdx;
              at[wDim] = owIdx;
              Value max = tensor::ExtractOp::create(nb, nl, y, at);
              Value g = tensor::ExtractOp::create(nb, nl, grad, at);
              Value hit = arith::CmpFOp::create(
                  nb, nl, arith::CmpFPredicate::OEQ, a[0], max);
              Value ok = arith::AndIOp::create(
                  nb, nl, hit, arith::AndIOp::create(nb, nl, okH, okW));
              Value term = arith::SelectOp::create(
                  nb, nl, ok, convertScalar(nb, nl, g, acc),
                  floatConst(nb, nl, acc, 0.0));
              linalg::YieldOp::create(
                  nb, nl,
                  arith::AddFOp::create(nb, nl, a[2], term).getResult());
            })
            .getResult(0);
    return convertTensor(b, loc, dx, element);
  }
};

/// dx[n, c, i, j] = sum over the windows reading (i, j) of dy / count, with
/// count the window's element count (padding excluded unless
/// count_include_pad).
struct AvgPoolGradPattern : public MPTPattern<AvgPool2DGradOp> {
  using MPTPattern::MPTPattern;
  Value lower(AvgPool2DGradOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    Type element = type.getElementType(), acc = computeType(element);
    bool nchw = op.getLayout() == Layout::nchw;
    Value grad = op.getGrad();
    ArrayRef<int64_t> dyShape = op.getGrad().getType().getShape();
    unsigned hDim = nchw ? 2 : 1, wDim = nchw ? 3 : 2;
    int64_t oh = dyShape[hDim], ow = dyShape[wDim];
    int64_t height = type.getDimSize(hDim), width = type.getDimSize(wDim);
    ArrayRef<int64_t> s = op.getStrides(), pad = op.getPadding(),
                      k = op.getKernel();
    bool includePad = op.getCountIncludePad();
    AffineExpr d0, d1, d2, d3, ekh, ekw;
    bindDims(ctx, d0, d1, d2, d3, ekh, ekw);
    SmallVector<int64_t> kernelShape(k);
    Value window = emptyTensor(b, loc, kernelShape, acc);
    Value init = filledTensor(b, loc, type.getShape(), acc,
                              floatConst(b, loc, acc, 0.0));
    auto par = utils::IteratorType::parallel,
         red = utils::IteratorType::reduction;
    Value dx =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{window},
            ValueRange{init},
            {AffineMap::get(6, 0, {ekh, ekw}, ctx),
             AffineMap::get(6, 0, {d0, d1, d2, d3}, ctx)},
            ArrayRef<utils::IteratorType>{par, par, par, par, red, red},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              auto idx = [&](unsigned dim) {
                return linalg::IndexOp::create(nb, nl, dim).getResult();
              };
              auto c = [&](int64_t v) { return indexConst(nb, nl, v); };
              auto [ohIdx, okH] =
                  windowSource(nb, nl, idx(hDim), idx(4), pad[0], s[0], 1, oh);
              auto [owIdx, okW] =
                  windowSource(nb, nl, idx(wDim), idx(5), pad[2], s[1], 1, ow);
              SmallVector<Value> at = {idx(0), idx(1), idx(2), idx(3)};
              at[hDim] = ohIdx;
              at[wDim] = owIdx;
              Value g = convertScalar(
                  nb, nl, tensor::ExtractOp::create(nb, nl, grad, at), acc);
              // Elements of the window inside the image along one axis.
              auto extent = [&](Value o, int64_t stride, int64_t padLow,
                                int64_t kernel, int64_t size) -> Value {
                if (includePad)
                  return c(kernel);
                Value start = arith::SubIOp::create(
                    nb, nl, arith::MulIOp::create(nb, nl, o, c(stride)),
                    c(padLow));
                Value end = arith::AddIOp::create(nb, nl, start, c(kernel));
                Value lo = arith::MaxSIOp::create(nb, nl, start, c(0));
                Value hi = arith::MinSIOp::create(nb, nl, end, c(size));
                return arith::SubIOp::create(nb, nl, hi, lo);
              };
              Value count = arith::MulIOp::create(
                  nb, nl, extent(ohIdx, s[0], pad[0], k[0], height),
                  extent(owIdx, s[1], pad[2], k[1], width));
              Value countF = arith::SIToFPOp::create(
                  nb, nl, acc,
                  arith::IndexCastOp::create(nb, nl, nb.getI64Type(), count));
              Value term = arith::DivFOp::create(nb, nl, g, countF);
              Value ok = arith::AndIOp::create(nb, nl, okH, okW);
              term = arith::SelectOp::create(nb, nl, ok, term,
                                             floatConst(nb, nl, acc, 0.0));
              linalg::YieldOp::create(
                  nb, nl,
                  arith::AddFOp::create(nb, nl, a[1], term).getResult());
            })
            .getResult(0);
    return convertTensor(b, loc, dx, element);
  }
};

/// dtable[r, d] = sum_{i...} (indices[i...] == r) * dy[i..., d]
struct EmbeddingGradPattern : public MPTPattern<EmbeddingGradOp> {
  using MPTPattern::MPTPattern;
  Value lower(EmbeddingGradOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    Type element = type.getElementType(), acc = computeType(element);
    int64_t batchRank = op.getIndices().getType().getRank();
    unsigned dims = 2 + batchRank;
    // Iteration (r, d, i...).
    SmallVector<AffineExpr> batch;
    for (int64_t i = 0; i < batchRank; ++i)
      batch.push_back(getAffineDimExpr(2 + i, ctx));
    SmallVector<AffineExpr> gradExprs(batch);
    gradExprs.push_back(getAffineDimExpr(1, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(dims, 0, batch, ctx),
        AffineMap::get(dims, 0, gradExprs, ctx),
        AffineMap::get(dims, 0,
                       {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)},
                       ctx)};
    SmallVector<utils::IteratorType> iterators(2,
                                               utils::IteratorType::parallel);
    iterators.append(batchRank, utils::IteratorType::reduction);
    Value init = filledTensor(b, loc, type.getShape(), acc,
                              floatConst(b, loc, acc, 0.0));
    Value sum =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()},
            ValueRange{op.getIndices(), op.getGrad()}, ValueRange{init}, maps,
            iterators,
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value row = arith::IndexCastOp::create(
                  nb, nl, a[0].getType(), linalg::IndexOp::create(nb, nl, 0));
              Value hit = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::eq, row, a[0]);
              Value term = arith::SelectOp::create(
                  nb, nl, hit, convertScalar(nb, nl, a[1], acc),
                  floatConst(nb, nl, acc, 0.0));
              linalg::YieldOp::create(
                  nb, nl,
                  arith::AddFOp::create(nb, nl, a[2], term).getResult());
            })
            .getResult(0);
    return convertTensor(b, loc, sum, element);
  }
};

/// An elementwise linalg.generic over `inputs` (same shape as `type`, or
/// rank-0 scalars) with one output per value `body` returns.
SmallVector<Value> buildMultiElementwise(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    unsigned numOutputs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  Type element = type.getElementType(), acc = computeType(element);
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(tensorType(in).getRank() == 0
                       ? AffineMap::get(rank, 0, {}, ctx)
                       : AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<Value> inits;
  for (unsigned i = 0; i < numOutputs; ++i) {
    inits.push_back(emptyTensor(b, loc, type.getShape(), element));
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, ValueRange(inits).getTypes(), inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> in;
        for (Value a : args.take_front(inputs.size()))
          in.push_back(convertScalar(nb, nl, a, acc));
        SmallVector<Value> out;
        for (Value r : body(nb, nl, in))
          out.push_back(convertScalar(nb, nl, r, element));
        linalg::YieldOp::create(nb, nl, out);
      });
  return SmallVector<Value>(generic.getResults());
}

struct MomentumUpdatePattern : public OpRewritePattern<MomentumUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MomentumUpdateOp op,
                                PatternRewriter &b) const override {
    if (failed(checkStatic(op, b)))
      return failure();
    double lr = op.getLr().convertToDouble();
    double mu = op.getMomentum().convertToDouble();
    double wd = op.getWeightDecay().convertToDouble();
    SmallVector<Value> results = buildMultiElementwise(
        b, op.getLoc(), op.getParam().getType(),
        {op.getParam(), op.getGrad(), op.getVelocity()}, 2,
        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
          Type t = a[0].getType();
          auto c = [&](double v) { return floatConst(nb, l, t, v); };
          Value g = a[1];
          if (wd != 0.0)
            g = arith::AddFOp::create(
                nb, l, g, arith::MulFOp::create(nb, l, c(wd), a[0]));
          Value v = arith::AddFOp::create(
              nb, l, arith::MulFOp::create(nb, l, c(mu), a[2]), g);
          Value p = arith::SubFOp::create(
              nb, l, a[0], arith::MulFOp::create(nb, l, c(lr), v));
          return {p, v};
        });
    b.replaceOp(op, results);
    return success();
  }
};

struct AdamUpdatePattern : public OpRewritePattern<AdamUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdamUpdateOp op,
                                PatternRewriter &b) const override {
    if (failed(checkStatic(op, b)))
      return failure();
    double lr = op.getLr().convertToDouble();
    double b1 = op.getBeta1().convertToDouble();
    double b2 = op.getBeta2().convertToDouble();
    double eps = op.getEps().convertToDouble();
    double wd = op.getWeightDecay().convertToDouble();
    SmallVector<Value> results = buildMultiElementwise(
        b, op.getLoc(), op.getParam().getType(),
        {op.getParam(), op.getGrad(), op.getM(), op.getV(), op.getStep()}, 3,
        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
          Type t = a[0].getType();
          auto c = [&](double v) { return floatConst(nb, l, t, v); };
          auto mul = [&](Value x, Value y) {
            return arith::MulFOp::create(nb, l, x, y).getResult();
          };
          auto add = [&](Value x, Value y) {
            return arith::AddFOp::create(nb, l, x, y).getResult();
          };
          Value g = a[1];
          if (wd != 0.0)
            g = add(g, mul(c(wd), a[0]));
          Value m = add(mul(c(b1), a[2]), mul(c(1 - b1), g));
          Value v = add(mul(c(b2), a[3]), mul(c(1 - b2), mul(g, g)));
          Value step = convertScalar(nb, l, a[4], t);
          auto correction = [&](double beta) {
            return arith::SubFOp::create(
                nb, l, c(1.0), math::PowFOp::create(nb, l, c(beta), step));
          };
          Value mhat = arith::DivFOp::create(nb, l, m, correction(b1));
          Value vhat = arith::DivFOp::create(nb, l, v, correction(b2));
          Value denom = add(math::SqrtOp::create(nb, l, vhat), c(eps));
          Value p = arith::SubFOp::create(
              nb, l, a[0],
              mul(c(lr), arith::DivFOp::create(nb, l, mhat, denom)));
          return {p, m, v};
        });
    b.replaceOp(op, results);
    return success();
  }
};

struct SgdUpdatePattern : public MPTPattern<SgdUpdateOp> {
  using MPTPattern::MPTPattern;
  Value lower(SgdUpdateOp op, PatternRewriter &b) const override {
    double lr = op.getLr().convertToDouble();
    double wd = op.getWeightDecay().convertToDouble();
    return buildElementwise(
        b, op.getLoc(), op.getType(), {op.getParam(), op.getGrad()},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Type t = a[0].getType();
          Value g = a[1];
          if (wd != 0.0)
            g = arith::AddFOp::create(
                nb, l, g,
                arith::MulFOp::create(nb, l, floatConst(nb, l, t, wd), a[0]));
          return arith::SubFOp::create(
                     nb, l, a[0],
                     arith::MulFOp::create(nb, l, floatConst(nb, l, t, lr), g))
              .getResult();
        });
  }
};

//===----------------------------------------------------------------------===//
// Gradient clipping and loss scaling
//===----------------------------------------------------------------------===//

/// The scalar of a rank-0 tensor, and a rank-0 tensor of a scalar.
Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}
Value scalarTensor(OpBuilder &b, Location loc, Value scalar) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, scalar.getType()), scalar);
}

/// Reduces every element of `input` (converted to `acc`, then mapped by
/// `value`) with `combine` into one scalar of type `acc`.
Value reduceAll(OpBuilder &b, Location loc, Value input, Type acc,
                Combine combine,
                function_ref<Value(OpBuilder &, Location, Value)> value) {
  SmallVector<int64_t> all(tensorType(input).getRank());
  std::iota(all.begin(), all.end(), 0);
  return extractScalar(b, loc,
                       buildReduction(b, loc, input, all, acc, combine, value));
}

Value square(OpBuilder &b, Location loc, Value x) {
  return arith::MulFOp::create(b, loc, x, x);
}

/// Whether a float scalar is finite (false for NaN).
Value isFinite(OpBuilder &b, Location loc, Value x) {
  return arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, loc, x),
      floatConst(b, loc, x.getType(), std::numeric_limits<double>::infinity()));
}

/// `tensor * factor` (a rank-0 tensor), in f32, rounded once to `element`.
Value scaleTensor(OpBuilder &b, Location loc, Value tensor, Value factor,
                  Type element) {
  ArrayRef<int64_t> shape = tensorType(tensor).getShape();
  MLIRContext *ctx = b.getContext();
  return buildGeneric(
      b, loc, shape, element, {tensor, factor},
      {AffineMap::getMultiDimIdentityMap(shape.size(), ctx),
       AffineMap::get(shape.size(), 0, {}, ctx)},
      b.getF32Type(), [](OpBuilder &nb, Location nl, ValueRange a) {
        return arith::MulFOp::create(nb, nl, a[0], a[1]).getResult();
      });
}

/// The global norm of `tensors` (squares summed in f32) and the clipping
/// factor min(1, maxNorm / (norm + 1e-6)) of clip_grad_norm_, as f32 scalars.
std::pair<Value, Value> clipFactor(OpBuilder &b, Location loc,
                                   ValueRange tensors, double maxNorm) {
  Type f32 = b.getF32Type();
  Value total;
  for (Value t : tensors) {
    Value sq = reduceAll(b, loc, t, f32, Combine::sum, square);
    total = total ? arith::AddFOp::create(b, loc, total, sq).getResult() : sq;
  }
  Value norm = math::SqrtOp::create(b, loc, total);
  Value ratio = arith::DivFOp::create(
      b, loc, floatConst(b, loc, f32, maxNorm),
      arith::AddFOp::create(b, loc, norm, floatConst(b, loc, f32, 1e-6)));
  Value factor =
      arith::MinimumFOp::create(b, loc, floatConst(b, loc, f32, 1.0), ratio);
  return {norm, factor};
}

struct ClipByGlobalNormPattern : public OpRewritePattern<ClipByGlobalNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipByGlobalNormOp op,
                                PatternRewriter &b) const override {
    if (failed(checkStatic(op, b)))
      return failure();
    Location loc = op.getLoc();
    Value factor = scalarTensor(
        b, loc,
        clipFactor(b, loc, op.getGrads(), op.getMaxNorm().convertToDouble())
            .second);
    SmallVector<Value> results;
    for (auto [g, r] : llvm::zip(op.getGrads(), op.getResults()))
      results.push_back(
          scaleTensor(b, loc, g, factor, tensorType(r).getElementType()));
    b.replaceOp(op, results);
    return success();
  }
};

struct UnscaleAndCheckPattern : public OpRewritePattern<UnscaleAndCheckOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnscaleAndCheckOp op,
                                PatternRewriter &b) const override {
    if (failed(checkStatic(op, b)))
      return failure();
    Location loc = op.getLoc();
    Type f32 = b.getF32Type(), f64 = b.getF64Type();
    // 1 / scale in f64, rounded once to f32.
    llvm::SmallDenseMap<Value, Value> inverses;
    auto inverse = [&](Value scale) {
      Value &inv = inverses[scale];
      if (!inv) {
        Value wide =
            arith::ExtFOp::create(b, loc, f64, extractScalar(b, loc, scale));
        inv =
            scalarTensor(b, loc,
                         arith::TruncFOp::create(
                             b, loc, f32,
                             arith::DivFOp::create(
                                 b, loc, floatConst(b, loc, f64, 1.0), wide)));
      }
      return inv;
    };
    SmallVector<Value> unscaled;
    Value flag = floatConst(b, loc, f32, 0.0);
    for (auto [i, g] : llvm::enumerate(op.getGrads())) {
      Value scale = op.getScales()[op.getScales().size() == 1 ? 0 : i];
      Value u = scaleTensor(b, loc, g, inverse(scale), f32);
      unscaled.push_back(u);
      Value bad = reduceAll(b, loc, u, f32, Combine::max,
                            [](OpBuilder &nb, Location nl, Value x) -> Value {
                              return arith::SelectOp::create(
                                  nb, nl, isFinite(nb, nl, x),
                                  floatConst(nb, nl, x.getType(), 0.0),
                                  floatConst(nb, nl, x.getType(), 1.0));
                            });
      flag = arith::MaximumFOp::create(b, loc, flag, bad);
    }
    Value found = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, flag,
                                        floatConst(b, loc, f32, 0.0));
    Value factor;
    if (std::optional<APFloat> maxNorm = op.getMaxNorm()) {
      auto [norm, clip] =
          clipFactor(b, loc, unscaled, maxNorm->convertToDouble());
      found = arith::OrIOp::create(
          b, loc, found,
          arith::XOrIOp::create(
              b, loc, isFinite(b, loc, norm),
              arith::ConstantOp::create(b, loc, b.getBoolAttr(true))));
      factor = scalarTensor(b, loc, clip);
    }
    SmallVector<Value> results;
    for (auto [u, r] : llvm::zip(unscaled, op.getUnscaled())) {
      Type element = tensorType(r).getElementType();
      results.push_back(factor ? scaleTensor(b, loc, u, factor, element)
                               : convertTensor(b, loc, u, element));
    }
    results.push_back(scalarTensor(b, loc, found));
    b.replaceOp(op, results);
    return success();
  }
};

struct LayerScalePattern : public MPTPattern<LayerScaleOp> {
  using MPTPattern::MPTPattern;
  Value lower(LayerScaleOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type f32 = b.getF32Type(), f64 = b.getF64Type();
    auto c = [&](double v) { return floatConst(b, loc, f64, v); };
    auto absValue = [](OpBuilder &nb, Location nl, Value x) -> Value {
      return math::AbsFOp::create(nb, nl, x);
    };
    // E[x^2] (= sd^2 + mean^2) and max |x|, accumulated in f64.
    auto stats = [&](Value t) -> std::pair<Value, Value> {
      Value sq = reduceAll(b, loc, t, f64, Combine::sum, square);
      Value meanSq = arith::DivFOp::create(
          b, loc, sq, c(double(tensorType(t).getNumElements())));
      return {meanSq, reduceAll(b, loc, t, f64, Combine::max, absValue)};
    };
    auto [gSq, gMax] = stats(op.getGrad());
    auto [oSq, oMax] = stats(op.getOther());
    double fanIn = double(op.getFanIn());
    auto mul = [&](Value x, Value y) -> Value {
      return arith::MulFOp::create(b, loc, x, y);
    };
    auto div = [&](Value x, Value y) -> Value {
      return arith::DivFOp::create(b, loc, x, y);
    };
    auto minimum = [&](Value x, Value y) -> Value {
      return arith::MinimumFOp::create(b, loc, x, y);
    };
    Value sigma =
        math::SqrtOp::create(b, loc, mul(mul(gSq, oSq), c(fanIn * 0.5)));
    // erfinv(1e-3) * sqrt(2): 0.1% of the sums may fall below min_value.
    constexpr double kUnderflowQuantile = 1.2533150147717427e-3;
    Value lower =
        arith::MaximumFOp::create(b, loc, c(1.0),
                                  div(c(op.getMinValue().convertToDouble()),
                                      mul(c(kUnderflowQuantile), sigma)));
    Value productMax = mul(mul(gMax, oMax), c(fanIn));
    Value upper = div(c(op.getMaxValue().convertToDouble()), productMax);
    Value scale = arith::ExtFOp::create(b, loc, f64,
                                        extractScalar(b, loc, op.getScale()));
    Value budget = div(c(op.getMaxScale().convertToDouble()), scale);
    Value alpha = minimum(minimum(lower, upper), budget);
    // Degenerate statistics (all zeros, inf or NaN) keep the scale.
    Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           mul(sigma, productMax), c(0.0));
    Value usable = arith::AndIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, positive, isFinite(b, loc, alpha)),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, alpha,
                              c(0.0)));
    alpha = arith::SelectOp::create(b, loc, usable, alpha, c(1.0));
    // Round down to a power of two, kept inside f32's normal range.
    Value exponent =
        math::FloorOp::create(b, loc, math::Log2Op::create(b, loc, alpha));
    exponent = arith::MaximumFOp::create(b, loc, exponent, c(-100.0));
    Value pot = math::Exp2Op::create(b, loc, exponent);
    return scalarTensor(b, loc, arith::TruncFOp::create(b, loc, f32, pot));
  }
};

struct UpdateScalePattern : public OpRewritePattern<UpdateScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UpdateScaleOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type f32 = b.getF32Type(), f64 = b.getF64Type();
    auto c = [&](double v) { return floatConst(b, loc, f64, v); };
    auto ci = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v))
          .getResult();
    };
    auto select = [&](Value cond, Value x, Value y) -> Value {
      return arith::SelectOp::create(b, loc, cond, x, y);
    };
    Value scale = arith::ExtFOp::create(b, loc, f64,
                                        extractScalar(b, loc, op.getScale()));
    Value growth = extractScalar(b, loc, op.getGrowthTracker());
    Value hysteresis = extractScalar(b, loc, op.getHysteresisTracker());
    Value found = extractScalar(b, loc, op.getFoundInf());
    // Overflow: one fewer tolerated overflow; back off when none is left.
    Value tolerated = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, hysteresis, ci(1)), ci(0));
    Value backoff = arith::MaximumFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, scale,
                              c(op.getBackoffFactor().convertToDouble())),
        c(op.getMinScale().convertToDouble()));
    Value backoffScale =
        select(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                     tolerated, ci(0)),
               backoff, scale);
    // A good step: count it; grow after growth_interval of them.
    Value counted = arith::AddIOp::create(b, loc, growth, ci(1));
    Value grow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       counted, ci(op.getGrowthInterval()));
    Value grown = arith::MinimumFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, scale,
                              c(op.getGrowthFactor().convertToDouble())),
        c(op.getMaxScale().convertToDouble()));
    Value goodScale = select(grow, grown, scale);
    Value goodGrowth = select(grow, ci(0), counted);
    Value goodHysteresis = select(grow, ci(op.getHysteresis()), hysteresis);
    Value newScale = arith::TruncFOp::create(
        b, loc, f32, select(found, backoffScale, goodScale));
    Value newGrowth = select(found, ci(0), goodGrowth);
    Value newHysteresis = select(found, tolerated, goodHysteresis);
    b.replaceOp(op, {scalarTensor(b, loc, newScale),
                     scalarTensor(b, loc, newGrowth),
                     scalarTensor(b, loc, newHysteresis)});
    return success();
  }
};

struct BackwardSeedPattern : public MPTPattern<BackwardSeedOp> {
  using MPTPattern::MPTPattern;
  Value lower(BackwardSeedOp op, PatternRewriter &b) const override {
    Type element = op.getType().getElementType();
    return filledTensor(b, op.getLoc(), {}, element,
                        floatConst(b, op.getLoc(), element, 1.0));
  }
};

struct SelectPattern : public MPTPattern<SelectOp> {
  using MPTPattern::MPTPattern;
  Value lower(SelectOp op, PatternRewriter &b) const override {
    MLIRContext *ctx = b.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap cond = op.getCondition().getType().getRank() == 0
                         ? AffineMap::get(rank, 0, {}, ctx)
                         : id;
    return buildGeneric(
        b, op.getLoc(), type.getShape(), type.getElementType(),
        {op.getCondition(), op.getTrueValue(), op.getFalseValue()},
        {cond, id, id}, Type(), [](OpBuilder &nb, Location nl, ValueRange a) {
          return arith::SelectOp::create(nb, nl, a[0], a[1], a[2]).getResult();
        });
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertMPTToLinalgPass
    : public mpt::impl::ConvertMPTToLinalgBase<ConvertMPTToLinalgPass> {
  using ConvertMPTToLinalgBase::ConvertMPTToLinalgBase;

  void runOnOperation() override {
    if (!gpu) {
      WalkResult query = getOperation()->walk([](SmCountOp op) {
        op.emitError("convert-mpt-to-linalg: mpt.sm_count asks for a GPU's "
                     "multiprocessor count, and this is a CPU program; lower "
                     "it with mpt-lower-to-nvvm or mpt-emulate-gpu (which "
                     "pass gpu=1)");
        return WalkResult::interrupt();
      });
      if (query.wasInterrupted())
        return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateMPTToLinalgPatterns(patterns);
    ConversionTarget target(getContext());
    target.addIllegalDialect<MPTDialect>();
    // Host code's query of the GPU, lowered with the host code.
    target.addLegalOp<SmCountOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns)))) {
      getOperation()->walk([](Operation *op) {
        if (isa<MPTDialect>(op->getDialect()))
          for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                                 op->getResultTypes()))
            if (auto tensor = dyn_cast<RankedTensorType>(t);
                tensor && !tensor.hasStaticShape()) {
              op->emitError("convert-mpt-to-linalg supports static shapes "
                            "only; got ")
                  << t;
              break;
            }
      });
      signalPassFailure();
    }
  }
};

} // namespace

void mpt::populateMPTToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<UnaryPattern<NegOp>>(
      ctx, +[](OpBuilder &b, Location l, Value x, NegOp) {
        return arith::NegFOp::create(b, l, x).getResult();
      });
  patterns.add<UnaryPattern<AbsOp>>(ctx, unary<math::AbsFOp, AbsOp>);
  patterns.add<UnaryPattern<ExpOp>>(ctx, unary<math::ExpOp, ExpOp>);
  patterns.add<UnaryPattern<LogOp>>(ctx, unary<math::LogOp, LogOp>);
  patterns.add<UnaryPattern<SqrtOp>>(ctx, unary<math::SqrtOp, SqrtOp>);
  patterns.add<UnaryPattern<RsqrtOp>>(
      ctx, +[](OpBuilder &b, Location l, Value x, RsqrtOp) {
        return reciprocalSqrt(b, l, x);
      });
  patterns.add<UnaryPattern<TanhOp>>(ctx, unary<math::TanhOp, TanhOp>);
  patterns.add<UnaryPattern<ReciprocalOp>>(ctx, reciprocal<ReciprocalOp>);
  patterns.add<UnaryPattern<SigmoidOp>>(ctx, sigmoid<SigmoidOp>);
  patterns.add<UnaryPattern<ReluOp>>(ctx, relu<ReluOp>);
  patterns.add<UnaryPattern<GeluOp>>(ctx, gelu);
  patterns.add<BinaryPattern<AddOp>>(ctx, binary<arith::AddFOp>);
  patterns.add<BinaryPattern<SubOp>>(ctx, binary<arith::SubFOp>);
  patterns.add<BinaryPattern<MulOp>>(ctx, binary<arith::MulFOp>);
  patterns.add<BinaryPattern<DivOp>>(ctx, binary<arith::DivFOp>);
  patterns.add<BinaryPattern<MaxOp>>(ctx, binary<arith::MaximumFOp>);
  patterns.add<BinaryPattern<MinOp>>(ctx, binary<arith::MinimumFOp>);
  patterns.add<BinaryPattern<PowOp>>(ctx, binary<math::PowFOp>);
  patterns.add<
      MatmulPattern, BatchMatmulPattern, Conv2DPattern, EmbeddingPattern,
      SoftmaxPattern<SoftmaxOp>, SoftmaxPattern<LogSoftmaxOp>,
      SoftmaxGradPattern<SoftmaxGradOp>, SoftmaxGradPattern<LogSoftmaxGradOp>,
      LayerNormPattern, BatchNormPattern, ReducePattern<ReduceSumOp>,
      ReducePattern<ReduceMeanOp>, ReducePattern<ReduceMaxOp>,
      PoolPattern<MaxPool2DOp>, PoolPattern<AvgPool2DOp>, GlobalAvgPoolPattern,
      ReshapePattern, TransposePattern, BroadcastPattern, ConcatPattern,
      SlicePattern, PadPattern, ConstantPattern, CastPattern,
      SoftmaxCrossEntropyPattern, RegressionLossPattern<MseLossOp>,
      RegressionLossPattern<L1LossOp>, ReluGradPattern, GeluGradPattern,
      SoftmaxCrossEntropyGradPattern, NormGradPattern<LayerNormGradOp>,
      NormGradPattern<BatchNormGradOp>, SgdUpdatePattern,
      ConvBackwardFilterPattern, ConvBackwardDataPattern, MaxPoolGradPattern,
      AvgPoolGradPattern, EmbeddingGradPattern, MomentumUpdatePattern,
      AdamUpdatePattern, ClipByGlobalNormPattern, UnscaleAndCheckPattern,
      LayerScalePattern, UpdateScalePattern, BackwardSeedPattern,
      SelectPattern>(ctx);
}

std::pair<Value, Value> mpt::windowSource(OpBuilder &b, Location loc, Value i,
                                          Value k, int64_t padLow,
                                          int64_t stride, int64_t dilation,
                                          int64_t outSize) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value num =
      arith::SubIOp::create(b, loc, arith::AddIOp::create(b, loc, i, c(padLow)),
                            arith::MulIOp::create(b, loc, k, c(dilation)));
  Value o = arith::DivSIOp::create(b, loc, num, c(stride));
  Value rem = arith::RemSIOp::create(b, loc, num, c(stride));
  Value ok = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, num, c(0)),
      arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, c(0)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, o,
                                c(outSize))));
  Value safe = arith::SelectOp::create(b, loc, ok, o, c(0));
  return {safe, ok};
}
