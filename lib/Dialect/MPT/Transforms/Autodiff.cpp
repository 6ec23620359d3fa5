//===- Autodiff.cpp - reverse-mode differentiation of mpt graphs ----------===//
//
// Walks the ops of a function backward from the loss and builds, with mpt
// ops, the gradient of every float value the loss depends on. Gradients of
// values used more than once are summed; broadcast operands get their
// gradient summed back to their shape; integer values get none.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/Transforms/Autodiff.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mpt;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

class Differentiator {
public:
  explicit Differentiator(OpBuilder &b) : b(b) {}

  /// Builds an op whose result type is inferred and returns its result.
  template <typename OpTy>
  Value make(Location loc, ValueRange operands,
             ArrayRef<NamedAttribute> attrs = {}) {
    return OpTy::create(b, loc, operands, attrs)->getResult(0);
  }

  /// A constant tensor of `type` with every element `value`.
  Value splat(Location loc, RankedTensorType type, double value) {
    return createFloatSplat(b, loc, type, value);
  }

  /// A rank-0 constant of `element`.
  Value scalar(Location loc, Type element, double value) {
    return splat(loc, RankedTensorType::get({}, element), value);
  }

  /// Sums `g` over the dimensions along which a value of type `target` was
  /// broadcast, and reshapes it to `target`.
  Value unbroadcast(Location loc, Value g, RankedTensorType target) {
    RankedTensorType type = tensorType(g);
    if (type.getShape() == target.getShape())
      return g;
    int64_t offset = type.getRank() - target.getRank();
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d < offset ||
          (target.getDimSize(d - offset) == 1 && type.getDimSize(d) != 1))
        axes.push_back(d);
    Value reduced = g;
    if (!axes.empty())
      reduced = make<ReduceSumOp>(
          loc, g, {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes))});
    if (tensorType(reduced).getShape() != target.getShape())
      reduced = ReshapeOp::create(b, loc, target, reduced);
    return reduced;
  }

  /// `g` (of a reduced shape) broadcast back to `type`, where `axes` were
  /// reduced (and dropped unless `keepDims`).
  Value expand(Location loc, Value g, RankedTensorType type,
               ArrayRef<int64_t> axes, bool keepDims) {
    if (!keepDims) {
      SmallVector<int64_t> kept(type.getShape());
      for (int64_t a : axes)
        kept[a] = 1;
      g = ReshapeOp::create(b, loc, type.clone(kept), g);
    }
    return BroadcastOp::create(b, loc, type, g);
  }

  void accumulate(Value v, Value g) {
    if (!isFloatTensor(v))
      return;
    auto [it, inserted] = adjoints.try_emplace(v, g);
    if (!inserted)
      it->second = make<AddOp>(g.getLoc(), {it->second, g});
  }

  Value adjoint(Value v) const { return adjoints.lookup(v); }

  /// For max/min: the gradient goes to `a` where `diff` > 0 and to `b`
  /// elsewhere, summed back over broadcast dimensions.
  void accumulateSelected(Location loc, Value g, Value diff, Value a,
                          Value bv) {
    Value ga = ReluGradOp::create(b, loc, g, diff);
    Value gb = make<SubOp>(loc, {g, ga});
    accumulate(a, unbroadcast(loc, ga, tensorType(a)));
    accumulate(bv, unbroadcast(loc, gb, tensorType(bv)));
  }

  /// The gradients of a matmul's or a convolution's operands 0 and 1,
  /// built by `makeLhs` and `makeRhs`: operand 1's first where that lets a
  /// value die before operand 0's gradient is allocated. Operand 0's
  /// gradient reads operand 1 and operand 1's reads operand 0; so when
  /// operand 0 is read by nothing else (an activation: the input of a
  /// linear layer or a convolution) and operand 1 lives on (a parameter, or
  /// a value used elsewhere), computing operand 1's gradient (the weight
  /// gradient) first frees the activation before the input gradient is
  /// made. Otherwise operand 0's first.
  template <typename MakeLhs, typename MakeRhs>
  std::pair<Value, Value> inOrder(Operation *op, MakeLhs makeLhs,
                                  MakeRhs makeRhs) {
    auto dies = [&](Value v) {
      return !isa<BlockArgument>(v) && v.hasOneUse();
    };
    if (dies(op->getOperand(0)) && !dies(op->getOperand(1))) {
      Value rhs = makeRhs();
      return {makeLhs(), rhs};
    }
    Value lhs = makeLhs();
    return {lhs, makeRhs()};
  }

  /// Propagates the adjoints of `op`'s results to its operands.
  LogicalResult visit(Operation *op);

private:
  OpBuilder &b;
  llvm::DenseMap<Value, Value> adjoints;
};

LogicalResult Differentiator::visit(Operation *op) {
  Location loc = op->getLoc();
  if (op->getNumResults() == 0)
    return success();
  Value g = adjoint(op->getResult(0));
  bool anyAdjoint =
      llvm::any_of(op->getResults(), [&](Value r) { return adjoint(r); });
  if (!anyAdjoint)
    return success();
  auto elementType = [](Value v) { return tensorType(v).getElementType(); };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AddOp add) {
        accumulate(add.getLhs(), unbroadcast(loc, g, add.getLhs().getType()));
        accumulate(add.getRhs(), unbroadcast(loc, g, add.getRhs().getType()));
        return success();
      })
      .Case([&](SubOp sub) {
        accumulate(sub.getLhs(), unbroadcast(loc, g, sub.getLhs().getType()));
        accumulate(sub.getRhs(), unbroadcast(loc, make<NegOp>(loc, g),
                                             sub.getRhs().getType()));
        return success();
      })
      .Case([&](MulOp mul) {
        accumulate(mul.getLhs(),
                   unbroadcast(loc, make<MulOp>(loc, {g, mul.getRhs()}),
                               mul.getLhs().getType()));
        accumulate(mul.getRhs(),
                   unbroadcast(loc, make<MulOp>(loc, {g, mul.getLhs()}),
                               mul.getRhs().getType()));
        return success();
      })
      .Case([&](DivOp div) {
        Value a = div.getLhs(), d = div.getRhs();
        accumulate(a, unbroadcast(loc, make<DivOp>(loc, {g, d}),
                                  div.getLhs().getType()));
        // d(a/d)/dd = -(a/d)/d
        Value q = make<DivOp>(loc, {div.getResult(), d});
        Value gd = make<NegOp>(loc, make<MulOp>(loc, {g, q}));
        accumulate(d, unbroadcast(loc, gd, div.getRhs().getType()));
        return success();
      })
      .Case([&](MatmulOp mm) {
        bool ta = mm.getTransposeA(), tb = mm.getTransposeB();
        TypeAttr acc = mm.getAccTypeAttr();
        Value a = mm.getLhs(), bb = mm.getRhs();
        auto makeDa = [&] {
          return ta ? MatmulOp::create(b, loc, bb, g, tb, true, acc).getResult()
                    : MatmulOp::create(b, loc, g, bb, false, !tb, acc)
                          .getResult();
        };
        auto makeDb = [&] {
          return tb ? MatmulOp::create(b, loc, g, a, true, ta, acc).getResult()
                    : MatmulOp::create(b, loc, a, g, !ta, false, acc)
                          .getResult();
        };
        auto [da, db] = inOrder(mm, makeDa, makeDb);
        accumulate(a, da);
        accumulate(bb, db);
        return success();
      })
      .Case([&](BatchMatmulOp mm) {
        bool ta = mm.getTransposeA(), tb = mm.getTransposeB();
        TypeAttr acc = mm.getAccTypeAttr();
        Value a = mm.getLhs(), bb = mm.getRhs();
        auto makeDa = [&] {
          return ta ? BatchMatmulOp::create(b, loc, bb, g, tb, true, acc)
                          .getResult()
                    : BatchMatmulOp::create(b, loc, g, bb, false, !tb, acc)
                          .getResult();
        };
        auto makeDb = [&] {
          return tb ? BatchMatmulOp::create(b, loc, g, a, true, ta, acc)
                          .getResult()
                    : BatchMatmulOp::create(b, loc, a, g, !ta, false, acc)
                          .getResult();
        };
        auto [da, db] = inOrder(mm, makeDa, makeDb);
        accumulate(a, da);
        accumulate(bb, db);
        return success();
      })
      .Case([&](NegOp neg) {
        accumulate(neg.getInput(), make<NegOp>(loc, g));
        return success();
      })
      .Case([&](ExpOp exp) {
        accumulate(exp.getInput(), make<MulOp>(loc, {g, exp.getResult()}));
        return success();
      })
      .Case([&](LogOp log) {
        accumulate(log.getInput(), make<DivOp>(loc, {g, log.getInput()}));
        return success();
      })
      .Case([&](SqrtOp sqrt) {
        // g / (2 sqrt(x))
        Value twoY = make<MulOp>(
            loc, {sqrt.getResult(), scalar(loc, elementType(g), 2.0)});
        accumulate(sqrt.getInput(), make<DivOp>(loc, {g, twoY}));
        return success();
      })
      .Case([&](RsqrtOp rsqrt) {
        // -0.5 g y^3
        Value y = rsqrt.getResult();
        Value y3 = make<MulOp>(loc, {y, make<MulOp>(loc, {y, y})});
        accumulate(rsqrt.getInput(),
                   make<MulOp>(loc, {make<MulOp>(loc, {g, y3}),
                                     scalar(loc, elementType(g), -0.5)}));
        return success();
      })
      .Case([&](ReciprocalOp rec) {
        Value y = rec.getResult();
        accumulate(
            rec.getInput(),
            make<NegOp>(loc, make<MulOp>(loc, {g, make<MulOp>(loc, {y, y})})));
        return success();
      })
      .Case([&](TanhOp tanh) {
        Value y = tanh.getResult();
        Value one = scalar(loc, elementType(g), 1.0);
        Value d = make<SubOp>(loc, {one, make<MulOp>(loc, {y, y})});
        accumulate(tanh.getInput(), make<MulOp>(loc, {g, d}));
        return success();
      })
      .Case([&](SigmoidOp sig) {
        Value y = sig.getResult();
        Value one = scalar(loc, elementType(g), 1.0);
        Value d = make<MulOp>(loc, {y, make<SubOp>(loc, {one, y})});
        accumulate(sig.getInput(), make<MulOp>(loc, {g, d}));
        return success();
      })
      .Case([&](ReluOp relu) {
        // relu(x) > 0 exactly where x > 0: the gradient may read either.
        // The output, when the relu is the input's only reader: the
        // input (a pre-activation) is then dead once the relu has run,
        // while the output is usually kept anyway (the next layer's
        // weight gradient reads it).
        Value x = relu.getInput();
        Value mask = x.hasOneUse() ? relu.getResult() : x;
        accumulate(x, ReluGradOp::create(b, loc, g, mask));
        return success();
      })
      .Case([&](GeluOp gelu) {
        accumulate(gelu.getInput(),
                   GeluGradOp::create(b, loc, g, gelu.getInput(),
                                      gelu.getApproximateAttr()));
        return success();
      })
      .Case([&](SoftmaxOp softmax) {
        accumulate(softmax.getInput(),
                   SoftmaxGradOp::create(b, loc, g, softmax.getResult(),
                                         softmax.getAxisAttr()));
        return success();
      })
      .Case([&](LogSoftmaxOp logSoftmax) {
        accumulate(logSoftmax.getInput(),
                   LogSoftmaxGradOp::create(b, loc, g, logSoftmax.getResult(),
                                            logSoftmax.getAxisAttr()));
        return success();
      })
      .Case([&](LayerNormOp ln) {
        auto grads = LayerNormGradOp::create(
            b, loc,
            TypeRange{ln.getInput().getType(), ln.getScale().getType(),
                      ln.getBias().getType()},
            g, ln.getInput(), ln.getScale(), ln.getAxisAttr(),
            ln.getEpsilonAttr());
        accumulate(ln.getInput(), grads.getInputGrad());
        accumulate(ln.getScale(), grads.getScaleGrad());
        accumulate(ln.getBias(), grads.getBiasGrad());
        return success();
      })
      .Case([&](ReduceSumOp sum) {
        accumulate(sum.getInput(),
                   expand(loc, g, sum.getInput().getType(),
                          sum.getNormalizedAxes(), sum.getKeepDims()));
        return success();
      })
      .Case([&](ReduceMeanOp mean) {
        RankedTensorType in = mean.getInput().getType();
        int64_t count = 1;
        for (int64_t a : mean.getNormalizedAxes())
          count *= in.getDimSize(a);
        Value e =
            expand(loc, g, in, mean.getNormalizedAxes(), mean.getKeepDims());
        accumulate(
            mean.getInput(),
            make<MulOp>(loc, {e, scalar(loc, elementType(g), 1.0 / count)}));
        return success();
      })
      .Case([&](GlobalAvgPoolOp pool) {
        RankedTensorType in = pool.getInput().getType();
        bool nchw = pool.getLayout() == Layout::nchw;
        SmallVector<int64_t> axes =
            nchw ? SmallVector<int64_t>{2, 3} : SmallVector<int64_t>{1, 2};
        int64_t count = in.getDimSize(axes[0]) * in.getDimSize(axes[1]);
        Value e = expand(loc, g, in, axes, /*keepDims=*/false);
        accumulate(
            pool.getInput(),
            make<MulOp>(loc, {e, scalar(loc, elementType(g), 1.0 / count)}));
        return success();
      })
      .Case([&](ReshapeOp reshape) {
        accumulate(reshape.getInput(),
                   ReshapeOp::create(b, loc, reshape.getInput().getType(), g));
        return success();
      })
      .Case([&](TransposeOp transpose) {
        ArrayRef<int64_t> perm = transpose.getPerm();
        SmallVector<int64_t> inverse(perm.size());
        for (auto [i, p] : llvm::enumerate(perm))
          inverse[p] = i;
        accumulate(
            transpose.getInput(),
            make<TransposeOp>(
                loc, g,
                {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(inverse))}));
        return success();
      })
      .Case([&](BroadcastOp broadcast) {
        accumulate(broadcast.getInput(),
                   unbroadcast(loc, g, broadcast.getInput().getType()));
        return success();
      })
      .Case([&](CastOp cast) {
        if (isFloatTensor(cast.getInput()))
          accumulate(cast.getInput(),
                     CastOp::create(b, loc, cast.getInput().getType(), g));
        return success();
      })
      .Case([&](SliceOp slice) {
        // Spread each strided dimension back: element k of the gradient
        // goes to offset + k * stride, zeros in between (reshape to
        // [..., size, 1, ...], pad to [..., size, stride, ...], reshape to
        // [..., size * stride, ...]), then pad the offsets and crop to the
        // input.
        RankedTensorType in = slice.getInput().getType();
        SmallVector<int64_t> strides = slice.getStridesOrOnes();
        Value spread = g;
        for (auto [d, stride] : llvm::enumerate(strides)) {
          if (stride == 1)
            continue;
          SmallVector<int64_t> shape(tensorType(spread).getShape());
          int64_t size = shape[d];
          SmallVector<int64_t> split(shape);
          split.insert(split.begin() + d + 1, 1);
          Value v = ReshapeOp::create(b, loc, tensorType(spread).clone(split),
                                      spread);
          SmallVector<int64_t> low(split.size(), 0), high(split.size(), 0);
          high[d + 1] = stride - 1;
          v = PadOp::create(b, loc, v, low, high, APFloat(0.0));
          shape[d] = size * stride;
          spread =
              ReshapeOp::create(b, loc, tensorType(spread).clone(shape), v);
        }
        // Crop what runs past the input, then pad to the input's shape.
        SmallVector<int64_t> keep(tensorType(spread).getShape()), high;
        for (auto [d, o] : llvm::enumerate(slice.getOffsets())) {
          keep[d] = std::min(keep[d], in.getDimSize(d) - o);
          high.push_back(in.getDimSize(d) - o - keep[d]);
        }
        if (ArrayRef<int64_t>(keep) != tensorType(spread).getShape())
          spread = SliceOp::create(b, loc, spread,
                                   SmallVector<int64_t>(keep.size(), 0), keep,
                                   nullptr);
        accumulate(slice.getInput(),
                   PadOp::create(b, loc, spread, slice.getOffsets(), high,
                                 APFloat(0.0)));
        return success();
      })
      .Case([&](PadOp pad) {
        accumulate(pad.getInput(),
                   SliceOp::create(b, loc, g, pad.getLow(),
                                   pad.getInput().getType().getShape(),
                                   nullptr));
        return success();
      })
      .Case([&](ConcatOp concat) {
        int64_t rank = concat.getType().getRank();
        int64_t axis = static_cast<int64_t>(concat.getAxis());
        if (axis < 0)
          axis += rank;
        int64_t offset = 0;
        for (Value in : concat.getInputs()) {
          SmallVector<int64_t> offsets(rank, 0);
          offsets[axis] = offset;
          accumulate(in, SliceOp::create(b, loc, g, offsets,
                                         tensorType(in).getShape(), nullptr));
          offset += tensorType(in).getDimSize(axis);
        }
        return success();
      })
      .Case([&](SoftmaxCrossEntropyOp sce) {
        accumulate(sce.getLogits(), SoftmaxCrossEntropyGradOp::create(
                                        b, loc, sce.getLogits().getType(),
                                        sce.getLogits(), sce.getLabels(), g));
        return success();
      })
      .Case([&](MseLossOp mse) {
        // d/dx mean((x - t)^2) = 2 (x - t) / N
        RankedTensorType in = mse.getInput().getType();
        Value diff = make<SubOp>(loc, {mse.getInput(), mse.getTarget()});
        Value scale =
            make<MulOp>(loc, {g, scalar(loc, elementType(g),
                                        2.0 / double(in.getNumElements()))});
        Value dx = make<MulOp>(loc, {diff, scale});
        accumulate(mse.getInput(), dx);
        accumulate(mse.getTarget(), make<NegOp>(loc, dx));
        return success();
      })
      .Case([&](MaxOp max) {
        // da = g where a > b; db = g elsewhere (ties go to b).
        Value diff = make<SubOp>(loc, {max.getLhs(), max.getRhs()});
        accumulateSelected(loc, g, diff, max.getLhs(), max.getRhs());
        return success();
      })
      .Case([&](MinOp min) {
        Value diff = make<SubOp>(loc, {min.getRhs(), min.getLhs()});
        accumulateSelected(loc, g, diff, min.getLhs(), min.getRhs());
        return success();
      })
      .Case([&](AbsOp abs) {
        // g * sign(x), 0 at 0.
        Value x = abs.getInput();
        Value pos = ReluGradOp::create(b, loc, g, x);
        Value neg = ReluGradOp::create(b, loc, g, make<NegOp>(loc, x));
        accumulate(x, make<SubOp>(loc, {pos, neg}));
        return success();
      })
      .Case([&](PowOp pow) {
        // d(a^b)/da = b a^(b-1) (finite at a = 0); d(a^b)/db = y log(a).
        Value a = pow.getLhs(), e = pow.getRhs(), y = pow.getResult();
        Value em1 = make<SubOp>(loc, {e, scalar(loc, elementType(g), 1.0)});
        Value da = make<MulOp>(loc, {e, make<PowOp>(loc, {a, em1})});
        accumulate(a, unbroadcast(loc, make<MulOp>(loc, {g, da}),
                                  pow.getLhs().getType()));
        Value db = make<MulOp>(loc, {y, make<LogOp>(loc, a)});
        accumulate(e, unbroadcast(loc, make<MulOp>(loc, {g, db}),
                                  pow.getRhs().getType()));
        return success();
      })
      .Case([&](ReduceMaxOp max) {
        // g where x equals the maximum (every tie gets it).
        RankedTensorType in = max.getInput().getType();
        Value ge =
            expand(loc, g, in, max.getNormalizedAxes(), max.getKeepDims());
        Value me = expand(loc, max.getResult(), in, max.getNormalizedAxes(),
                          max.getKeepDims());
        Value below = ReluGradOp::create(
            b, loc, ge, make<SubOp>(loc, {me, max.getInput()}));
        accumulate(max.getInput(), make<SubOp>(loc, {ge, below}));
        return success();
      })
      .Case([&](L1LossOp l1) {
        // sign(x - t) * g / N
        RankedTensorType in = l1.getInput().getType();
        Value d = make<SubOp>(loc, {l1.getInput(), l1.getTarget()});
        Value s =
            make<MulOp>(loc, {g, scalar(loc, elementType(g),
                                        1.0 / double(in.getNumElements()))});
        Value sb = BroadcastOp::create(b, loc, in, s);
        Value dx = make<SubOp>(
            loc, {ReluGradOp::create(b, loc, sb, d),
                  ReluGradOp::create(b, loc, sb, make<NegOp>(loc, d))});
        accumulate(l1.getInput(), dx);
        accumulate(l1.getTarget(), make<NegOp>(loc, dx));
        return success();
      })
      .Case([&](Conv2DOp conv) {
        auto makeDx = [&]() -> Value {
          return Conv2DBackwardDataOp::create(
              b, loc, conv.getInput().getType(), g, conv.getFilter(),
              conv.getStridesAttr(), conv.getPaddingAttr(),
              conv.getDilationAttr(), conv.getGroupsAttr(),
              conv.getLayoutAttr(), conv.getAccTypeAttr());
        };
        auto makeDw = [&]() -> Value {
          return Conv2DBackwardFilterOp::create(
              b, loc, conv.getFilter().getType(), conv.getInput(), g,
              conv.getStridesAttr(), conv.getPaddingAttr(),
              conv.getDilationAttr(), conv.getGroupsAttr(),
              conv.getLayoutAttr(), conv.getAccTypeAttr());
        };
        auto [dx, dw] = inOrder(conv, makeDx, makeDw);
        accumulate(conv.getInput(), dx);
        accumulate(conv.getFilter(), dw);
        return success();
      })
      .Case([&](MaxPool2DOp pool) {
        accumulate(pool.getInput(),
                   MaxPool2DGradOp::create(
                       b, loc, pool.getInput().getType(), g, pool.getInput(),
                       pool.getKernelAttr(), pool.getStridesAttr(),
                       pool.getPaddingAttr(), pool.getLayoutAttr()));
        return success();
      })
      .Case([&](AvgPool2DOp pool) {
        accumulate(
            pool.getInput(),
            AvgPool2DGradOp::create(b, loc, pool.getInput().getType(), g,
                                    pool.getKernelAttr(), pool.getStridesAttr(),
                                    pool.getPaddingAttr(), pool.getLayoutAttr(),
                                    pool.getCountIncludePadAttr()));
        return success();
      })
      .Case([&](EmbeddingOp emb) {
        accumulate(emb.getTable(),
                   EmbeddingGradOp::create(b, loc, emb.getTable().getType(), g,
                                           emb.getIndices()));
        return success();
      })
      .Case([&](BatchNormOp bn) {
        auto grads = BatchNormGradOp::create(
            b, loc,
            TypeRange{bn.getInput().getType(), bn.getScale().getType(),
                      bn.getBias().getType()},
            g, bn.getInput(), bn.getScale(), bn.getAxisAttr(),
            bn.getEpsilonAttr());
        accumulate(bn.getInput(), grads.getInputGrad());
        accumulate(bn.getScale(), grads.getScaleGrad());
        accumulate(bn.getBias(), grads.getBiasGrad());
        return success();
      })
      .Case([&](ConstantOp) { return success(); })
      .Default([&](Operation *other) {
        return other->emitOpError(
            "has no gradient rule in mpt-autodiff; the loss depends on it "
            "through a float value");
      });
}

} // namespace

FailureOr<SmallVector<Value>> mpt::differentiate(func::FuncOp func, Value loss,
                                                 ArrayRef<Value> wrt,
                                                 bool markSeed) {
  Block &body = func.getBody().front();
  OpBuilder b(body.getTerminator());
  Differentiator diff(b);
  Location loc = loss.getLoc();
  diff.accumulate(loss, markSeed
                            ? BackwardSeedOp::create(b, loc, loss).getResult()
                            : diff.splat(loc, tensorType(loss), 1.0));
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    if (op->getNumRegions() > 0 && llvm::any_of(op->getResults(), [&](Value r) {
          return diff.adjoint(r);
        }))
      return op->emitOpError("has regions; mpt-autodiff differentiates "
                             "straight-line graphs only");
    if (failed(diff.visit(op)))
      return failure();
  }
  SmallVector<Value> grads;
  for (Value v : wrt) {
    Value g = diff.adjoint(v);
    grads.push_back(g ? g : diff.splat(v.getLoc(), tensorType(v), 0.0));
  }
  return grads;
}

FailureOr<unsigned> mpt::findLossResult(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (getResultRole(func, i) == Role::loss) {
      auto type = dyn_cast<RankedTensorType>(func.getResultTypes()[i]);
      if (!type || type.getRank() != 0 ||
          !isa<FloatType>(type.getElementType()))
        return func.emitError() << "the loss (result #" << i
                                << ") must be a rank-0 float tensor, got "
                                << func.getResultTypes()[i];
      return i;
    }
  if (func.getNumResults() == 1)
    if (auto type = dyn_cast<RankedTensorType>(func.getResultTypes()[0]);
        type && type.getRank() == 0 && isa<FloatType>(type.getElementType()))
      return 0u;
  return func.emitError()
         << "has no loss: mark a rank-0 float result with "
            "{mpt.role = #mpt.role<loss>} (or return only the loss)";
}

FailureOr<SmallVector<BlockArgument>> mpt::findParameters(func::FuncOp func) {
  SmallVector<BlockArgument> params;
  for (BlockArgument arg : func.getArguments())
    if (getArgumentRole(func, arg.getArgNumber()) == Role::parameter) {
      if (!isFloatTensor(arg))
        return func.emitError()
               << "parameter #" << arg.getArgNumber()
               << " must be a float tensor, got " << arg.getType();
      params.push_back(arg);
    }
  if (params.empty())
    return func.emitError() << "has no parameters: mark the arguments to "
                               "train with {mpt.role = #mpt.role<parameter>}";
  return params;
}
