//===- LossScaling.cpp - mpt-loss-scaling ---------------------------------===//
//
// Rewrites a training step so that the backward pass runs on scaled
// gradients: the seed becomes the loss scale, the gradients are unscaled and
// checked for inf/NaN before the update, an overflowing step is skipped and,
// in dynamic mode, the scale state is updated and threaded through the step.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mpt {
#define GEN_PASS_DEF_LOSSSCALING
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

enum class Mode { none, staticScale, dynamic, adaptive };

RankedTensorType scalarType(Type element) {
  return RankedTensorType::get({}, element);
}

Type elementType(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Whether `type` is a float type narrower than f32.
bool isNarrowFloat(Type type) {
  auto f = dyn_cast<FloatType>(type);
  return f && f.getWidth() < 32;
}

/// The casts to a float type narrower than f32 that receive the seed's
/// value unchanged: of the seed itself, or of a reshape, broadcast or
/// transpose of it (how the gradient of a sum starts). Every such cast holds
/// the loss scale itself.
SmallVector<CastOp> narrowCastsOfSeed(Value seed) {
  SmallVector<CastOp> casts;
  SmallVector<Value> worklist = {seed};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (auto cast = dyn_cast<CastOp>(user);
          cast && isNarrowFloat(elementType(cast.getResult())))
        casts.push_back(cast);
      else if (isa<ReshapeOp, BroadcastOp, TransposeOp>(user))
        worklist.push_back(user->getResult(0));
    }
  }
  return casts;
}

/// `scale` rounded to `type` (infinity when it overflows).
double roundTo(double scale, FloatType type) {
  APFloat x(scale);
  bool losesInfo;
  x.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return x.convertToDouble();
}

/// `x` with the fewest digits that read back as `x` (65536, not 6.5536e+04).
std::string formatScale(double x) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, x);
    if (std::strtod(text, nullptr) == x)
      break;
  }
  return text;
}

/// The largest power of two that `type` holds.
double largestPowerOfTwo(FloatType type) {
  APFloat largest = APFloat::getLargest(type.getFloatSemantics());
  return std::ldexp(1.0, ilogb(largest));
}

/// A gradient as the optimizer sees it: `value` (whose uses take the unscaled
/// gradient) and `source`, the value to unscale (the input of a widening
/// cast of `value`, or `value` itself).
struct Gradient {
  Value value;
  Value source;
};

/// The gradients of a training step and the clip op between them and the
/// update, if any.
struct StepGradients {
  SmallVector<Gradient> grads;
  ClipByGlobalNormOp clip;
};

/// Moves the ops of `unscale`'s block that read an unscaled gradient but
/// come before `unscale` (an update whose own gradient, a cast or a slice
/// of it, sits right before it, after the updates of other parameters) to
/// right after it, in their order. Fails, with an error at the op, for an
/// op that has memory effects or whose result is read by `unscale` or,
/// before it, by an op that does not move.
LogicalResult moveUsersAfter(UnscaleAndCheckOp unscale) {
  Block *block = unscale->getBlock();
  llvm::SetVector<Operation *> early;
  for (Value u : unscale.getUnscaled())
    for (Operation *user : u.getUsers())
      if (Operation *at = block->findAncestorOpInBlock(*user);
          at && at->isBeforeInBlock(unscale))
        early.insert(at);
  SmallVector<Operation *> moving(early.begin(), early.end());
  llvm::sort(moving,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : moving) {
    bool readEarly = llvm::any_of(op->getUsers(), [&](Operation *user) {
      Operation *at = block->findAncestorOpInBlock(*user);
      return at == unscale.getOperation() ||
             (at && at->isBeforeInBlock(unscale) && !early.contains(at));
    });
    if (!isMemoryEffectFree(op) || readEarly)
      return op->emitError()
             << "mpt-loss-scaling: this op uses a gradient before the last "
                "gradient is computed and cannot move after it; expected the "
                "optimizer updates after the backward pass";
  }
  Operation *after = unscale;
  for (Operation *op : moving) {
    op->moveAfter(after);
    after = op;
  }
  return success();
}

struct LossScalingPass : public mpt::impl::LossScalingBase<LossScalingPass> {
  using LossScalingBase::LossScalingBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<std::optional<Mode>> requested = parseMode();
    if (!requested || failed(checkOptions()))
      return signalPassFailure();

    SmallVector<std::pair<func::FuncOp, BackwardSeedOp>> steps;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<BackwardSeedOp> seeds(
          func.getBody().front().getOps<BackwardSeedOp>());
      if (seeds.size() > 1) {
        seeds[1].emitError("mpt-loss-scaling: a training step has one "
                           "backward pass; this function has ")
            << seeds.size() << " mpt.backward_seed ops";
        return signalPassFailure();
      }
      if (!seeds.empty())
        steps.push_back({func, seeds.front()});
    }
    if (steps.empty()) {
      if (*requested && **requested != Mode::none) {
        module.emitError("mpt-loss-scaling: no training step in the module "
                         "(no function has an mpt.backward_seed); build one "
                         "with mpt-build-train-step");
        return signalPassFailure();
      }
      return;
    }
    for (auto [func, seed] : steps) {
      Mode m = *requested ? **requested : defaultMode(func);
      if (failed(process(func, seed, m)))
        return signalPassFailure();
    }
  }

  /// The mode option: a mode, std::nullopt for auto, or failure (outer
  /// std::nullopt) with an error.
  std::optional<std::optional<Mode>> parseMode() {
    StringRef m = mode;
    if (m == "auto")
      return std::optional<Mode>();
    if (m == "none")
      return std::optional<Mode>(Mode::none);
    if (m == "static")
      return std::optional<Mode>(Mode::staticScale);
    if (m == "dynamic")
      return std::optional<Mode>(Mode::dynamic);
    if (m == "adaptive")
      return std::optional<Mode>(Mode::adaptive);
    getOperation().emitError()
        << "mpt-loss-scaling: unknown mode '" << m
        << "'; expected auto, dynamic, static, adaptive or none";
    return std::nullopt;
  }

  LogicalResult checkOptions() {
    auto fail = [&]() {
      return getOperation().emitError("mpt-loss-scaling: ");
    };
    double init = initScale, growth = growthFactor, backoff = backoffFactor;
    double lo = minScale, hi = maxScale;
    int64_t interval = growthInterval, hyst = hysteresis;
    double largest = double(std::numeric_limits<float>::max());
    if (!(init > 0) || !(init <= largest))
      return fail() << "init-scale must be a positive finite f32, got " << init;
    if (!(growth > 1) || !std::isfinite(growth))
      return fail() << "growth-factor must be a finite number > 1, got "
                    << growth;
    if (!(backoff > 0 && backoff < 1))
      return fail() << "backoff-factor must be in (0, 1), got " << backoff;
    if (interval < 1 || interval > INT32_MAX)
      return fail() << "growth-interval must be in [1, 2^31), got " << interval;
    if (hyst < 1 || hyst > INT32_MAX)
      return fail() << "hysteresis must be in [1, 2^31), got " << hyst;
    if (!(lo > 0) || !(hi >= lo) || !(hi <= largest))
      return fail() << "expects 0 < min-scale <= max-scale <= the largest "
                       "f32, got min-scale "
                    << lo << " and max-scale " << hi;
    if (init < lo || init > hi)
      return fail() << "init-scale " << init << " is outside [min-scale " << lo
                    << ", max-scale " << hi << "]";
    return success();
  }

  /// auto: dynamic when the step computes in f16, none otherwise (with a
  /// remark for bf16).
  Mode defaultMode(func::FuncOp func) {
    bool hasF16 = false, hasBF16 = false;
    func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(t)) {
          hasF16 |= tensor.getElementType().isF16();
          hasBF16 |= tensor.getElementType().isBF16();
        }
    });
    if (hasF16)
      return Mode::dynamic;
    if (hasBF16)
      func.emitRemark()
          << "mpt-loss-scaling: @" << func.getSymName()
          << " computes in bf16, whose exponent range is fp32's; no loss "
             "scaling (force it with mode=dynamic, static or adaptive)";
    else
      func.emitRemark() << "mpt-loss-scaling: @" << func.getSymName()
                        << " has no f16 values; no loss scaling";
    return Mode::none;
  }

  /// The gradients that reach the optimizer updates of `func`.
  FailureOr<StepGradients> findGradients(func::FuncOp func) {
    SmallVector<Value> grads;
    SmallVector<ClipByGlobalNormOp> clips;
    func.walk([&](Operation *op) {
      Value grad;
      if (auto sgd = dyn_cast<SgdUpdateOp>(op))
        grad = sgd.getGrad();
      else if (auto momentum = dyn_cast<MomentumUpdateOp>(op))
        grad = momentum.getGrad();
      else if (auto adam = dyn_cast<AdamUpdateOp>(op))
        grad = adam.getGrad();
      if (!grad)
        return;
      if (auto clip = grad.getDefiningOp<ClipByGlobalNormOp>()) {
        if (!llvm::is_contained(clips, clip))
          clips.push_back(clip);
        return;
      }
      if (!llvm::is_contained(grads, grad))
        grads.push_back(grad);
    });
    if (grads.empty() && clips.empty())
      return func.emitError()
             << "mpt-loss-scaling: @" << func.getSymName()
             << " has a backward pass but no optimizer update "
                "(mpt.sgd_update, mpt.momentum_update, mpt.adam_update); "
                "build the step with mpt-build-train-step";
    if (clips.size() > 1 || (!clips.empty() && !grads.empty()))
      return func.emitError()
             << "mpt-loss-scaling: @" << func.getSymName()
             << " clips some gradients apart from the others; expected one "
                "mpt.clip_by_global_norm of every gradient";
    StepGradients result;
    if (!clips.empty()) {
      result.clip = clips.front();
      grads.assign(result.clip.getGrads().begin(),
                   result.clip.getGrads().end());
    }
    for (Value g : grads) {
      Value source = g;
      // Unscale the narrow gradient itself: the op widens it exactly.
      if (auto cast = g.getDefiningOp<CastOp>())
        if (isNarrowFloat(elementType(cast.getInput())) &&
            !isNarrowFloat(elementType(g)))
          source = cast.getInput();
      result.grads.push_back({g, source});
    }
    return result;
  }

  LogicalResult process(func::FuncOp func, BackwardSeedOp seed, Mode m) {
    OpBuilder b(func.getContext());
    Location loc = seed.getLoc();
    if (m == Mode::none) {
      b.setInsertionPoint(seed);
      seed.replaceAllUsesWith(createFloatSplat(b, loc, seed.getType(), 1.0));
      seed.erase();
      return success();
    }
    Type seedElement = seed.getType().getElementType();
    if (!seedElement.isF32() && !seedElement.isF64())
      return seed.emitError()
             << "mpt-loss-scaling: the loss is " << seed.getType()
             << "; loss scaling needs an f32 (or f64) loss";
    // Where the gradient of the loss is cast to a narrower type unchanged
    // (the seed of a sum, cast where the mixed-precision pass found it
    // cheapest), that cast holds the scale itself: a scale the type does not
    // hold overflows every step.
    double init = initScale, hi = maxScale;
    if (m == Mode::staticScale || m == Mode::dynamic)
      for (CastOp narrow : narrowCastsOfSeed(seed)) {
        auto type = cast<FloatType>(elementType(narrow.getResult()));
        double limit = largestPowerOfTwo(type);
        if (m == Mode::staticScale) {
          double rounded = roundTo(init, type);
          if (rounded != init)
            return narrow.emitError()
                   << "mpt-loss-scaling: the gradient of the loss is cast to "
                   << narrow.getType() << " unchanged, so it holds the loss "
                   << "scale, and the static scale " << formatScale(init)
                   << " is "
                   << (std::isinf(rounded) ? "beyond its range"
                                           : "not exact in it")
                   << "; use an init-scale that " << type
                   << " holds exactly, at most " << formatScale(limit);
          continue;
        }
        if (minScale > limit)
          return narrow.emitError()
                 << "mpt-loss-scaling: the gradient of the loss is cast to "
                 << narrow.getType() << " unchanged, so it holds the loss "
                 << "scale, which must stay at most " << formatScale(limit)
                 << "; min-scale is " << formatScale(minScale);
        if (init <= limit && hi <= limit)
          continue;
        InFlightDiagnostic remark = narrow.emitRemark();
        remark << "mpt-loss-scaling: the gradient of the loss is cast to "
               << narrow.getType() << " unchanged, so it holds the loss scale; "
               << "the scale stays at most " << formatScale(limit)
               << " (the largest power of two " << type << " holds):";
        if (init > limit)
          remark << " init-scale " << formatScale(init) << " -> "
                 << formatScale(limit);
        if (hi > limit)
          remark << (init > limit ? "," : "") << " max-scale "
                 << formatScale(hi) << " -> " << formatScale(limit);
        init = std::min(init, limit);
        hi = std::min(hi, limit);
      }

    FailureOr<StepGradients> gradients = findGradients(func);
    if (failed(gradients))
      return failure();

    // The scale: a constant, the state argument, or (adaptive) one per
    // gradient from the propagation below.
    MLIRContext *ctx = func.getContext();
    Block &body = func.getBody().front();
    RankedTensorType f32Scalar = scalarType(b.getF32Type());
    RankedTensorType i32Scalar = scalarType(b.getI32Type());
    Value scale, growthTracker, hysteresisTracker;
    if (m == Mode::staticScale || m == Mode::adaptive) {
      b.setInsertionPointToStart(&body);
      scale =
          createFloatSplat(b, loc, f32Scalar, m == Mode::adaptive ? 1.0 : init);
    } else {
      unsigned first = func.getNumArguments();
      auto attrs = [&](Attribute initial) {
        return DictionaryAttr::get(
            ctx,
            {NamedAttribute(StringAttr::get(ctx, MPTDialect::getRoleAttrName()),
                            RoleAttr::get(ctx, Role::loss_scale_state)),
             NamedAttribute(
                 StringAttr::get(ctx, MPTDialect::getInitialValueAttrName()),
                 initial)});
      };
      SmallVector<unsigned> indices = {first, first, first};
      SmallVector<Type> types = {f32Scalar, i32Scalar, i32Scalar};
      SmallVector<DictionaryAttr> argAttrs = {
          attrs(DenseElementsAttr::get(f32Scalar, float(init))),
          attrs(DenseElementsAttr::get(i32Scalar, int32_t(0))),
          attrs(DenseElementsAttr::get(i32Scalar, int32_t(hysteresis)))};
      SmallVector<Location> locs(3, func.getLoc());
      if (failed(func.insertArguments(indices, types, argAttrs, locs)))
        return failure();
      scale = func.getArgument(first);
      growthTracker = func.getArgument(first + 1);
      hysteresisTracker = func.getArgument(first + 2);
    }

    // Seed the backward pass with the scale.
    b.setInsertionPoint(seed);
    Value seedValue =
        seedElement.isF32()
            ? scale
            : CastOp::create(b, loc, seed.getType(), scale).getResult();
    seed.replaceAllUsesWith(seedValue);
    seed.erase();

    SmallVector<Value> scales = {scale};
    if (m == Mode::adaptive) {
      widenLossGradients(func);
      FailureOr<SmallVector<Value>> perGradient =
          propagateLayerScales(func, seedValue, scale, *gradients);
      if (failed(perGradient))
        return failure();
      scales = *perGradient;
    }

    // Unscale and check, after the last gradient is computed.
    Operation *after = nullptr;
    for (Value v : scales)
      if (Operation *def = v.getDefiningOp();
          def && (!after || after->isBeforeInBlock(def)))
        after = def;
    for (const Gradient &g : gradients->grads)
      if (Operation *def = g.source.getDefiningOp();
          def && (!after || after->isBeforeInBlock(def)))
        after = def;
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(&body);
    SmallVector<Value> sources;
    SmallVector<Type> resultTypes;
    for (const Gradient &g : gradients->grads) {
      sources.push_back(g.source);
      resultTypes.push_back(g.value.getType());
    }
    resultTypes.push_back(RankedTensorType::get({}, b.getI1Type()));
    FloatAttr maxNorm =
        gradients->clip ? gradients->clip.getMaxNormAttr() : FloatAttr();
    auto unscale = UnscaleAndCheckOp::create(b, loc, resultTypes, sources,
                                             scales, maxNorm);
    unscale->setAttr(MPTDialect::getPrecisionAttrName(),
                     PrecisionAttr::get(ctx, Precision::fp32));
    if (gradients->clip) {
      gradients->clip.replaceAllUsesWith(unscale.getUnscaled());
      gradients->clip.erase();
    } else {
      for (auto [g, u] : llvm::zip(gradients->grads, unscale.getUnscaled()))
        g.value.replaceUsesWithIf(
            u, [&](OpOperand &use) { return use.getOwner() != unscale; });
    }
    if (failed(moveUsersAfter(unscale)))
      return failure();
    Value found = unscale.getFoundInf();

    // Skip: the k-th result of a state role is the k-th argument of that role
    // when the step overflowed.
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    b.setInsertionPoint(ret);
    SmallVector<Value> results(ret.getOperands());
    for (Role role :
         {Role::parameter, Role::optimizer_state, Role::parameter_copy}) {
      SmallVector<BlockArgument> args;
      for (BlockArgument arg : func.getArguments())
        if (getArgumentRole(func, arg.getArgNumber()) == role)
          args.push_back(arg);
      unsigned k = 0;
      for (unsigned i = 0; i < results.size(); ++i) {
        if (getResultRole(func, i) != role)
          continue;
        if (k >= args.size() || args[k].getType() != results[i].getType())
          return func.emitError()
                 << "mpt-loss-scaling: result #" << i << " ("
                 << stringifyRole(role) << ") has no argument of that role "
                 << "and type " << results[i].getType()
                 << " to fall back to when a step overflows";
        if (results[i] != args[k])
          results[i] = SelectOp::create(b, loc, found, args[k], results[i]);
        ++k;
      }
    }
    if (m == Mode::dynamic) {
      auto update = UpdateScaleOp::create(
          b, loc, scale, growthTracker, hysteresisTracker, found,
          b.getF64FloatAttr(growthFactor), b.getF64FloatAttr(backoffFactor),
          b.getI64IntegerAttr(growthInterval), b.getI64IntegerAttr(hysteresis),
          b.getF64FloatAttr(minScale), b.getF64FloatAttr(hi));
      unsigned first = results.size();
      results.append(update->getResults().begin(), update->getResults().end());
      SmallVector<unsigned> indices(3, first);
      SmallVector<Type> types = {f32Scalar, i32Scalar, i32Scalar};
      DictionaryAttr role = DictionaryAttr::get(
          ctx,
          {NamedAttribute(StringAttr::get(ctx, MPTDialect::getRoleAttrName()),
                          RoleAttr::get(ctx, Role::loss_scale_state))});
      SmallVector<DictionaryAttr> resultAttrs(3, role);
      if (failed(func.insertResults(indices, types, resultAttrs)))
        return failure();
    }
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    for (Operation &op : body)
      if (isa<SelectOp, UpdateScaleOp>(op))
        op.setAttr(MPTDialect::getPrecisionAttrName(),
                   PrecisionAttr::get(ctx, Precision::fp32));
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Adaptive (layer-wise) scaling
  //===--------------------------------------------------------------------===//

  /// Adaptive scaling multiplies each gradient by its layer's factor before
  /// it is rounded to the low type, and the loss gradient's seed is one: a
  /// low-precision loss gradient, which would round (p - onehot) / B to
  /// f16 before any factor (flushing the small probabilities), returns f32
  /// instead, rounded where it is read.
  static void widenLossGradients(func::FuncOp func) {
    func.walk([](SoftmaxCrossEntropyGradOp op) {
      RankedTensorType type = op.getType();
      if (!isNarrowFloat(type.getElementType()))
        return;
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      Value wide = op.getResult();
      wide.setType(type.clone(b.getF32Type()));
      Value narrow = CastOp::create(b, op.getLoc(), type, wide);
      wide.replaceAllUsesExcept(narrow, narrow.getDefiningOp());
    });
  }

  /// `x * factor` for a tensor of any float type and a rank-0 f32 factor,
  /// computed in f32 (a narrow `x` that is a cast of an f32 value is scaled
  /// before the cast) and returned in `x`'s type.
  Value scaleInF32(OpBuilder &b, Location loc, Value x, Value factor) {
    auto type = cast<RankedTensorType>(x.getType());
    Value wide = x;
    if (auto cast = x.getDefiningOp<CastOp>();
        cast && elementType(cast.getInput()).isF32())
      wide = cast.getInput();
    else if (!type.getElementType().isF32())
      wide = CastOp::create(b, loc, type.clone(b.getF32Type()), x);
    Value product = MulOp::create(b, loc, wide, factor);
    if (type.getElementType().isF32())
      return product;
    return CastOp::create(b, loc, type, product);
  }

  /// The number of products summed into each result element of `op`, or 0
  /// when `op` is not a low-precision contraction.
  static int64_t contractionFanIn(Operation *op) {
    auto shape = [&](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    if (!isNarrowFloat(elementType(op->getOperand(0))))
      return 0;
    auto matmulK = [&](Value lhs, bool transposeA) {
      ArrayRef<int64_t> s = shape(lhs);
      return transposeA ? s[s.size() - 2] : s.back();
    };
    if (auto mm = dyn_cast<MatmulOp>(op))
      return matmulK(mm.getLhs(), mm.getTransposeA());
    if (auto bmm = dyn_cast<BatchMatmulOp>(op))
      return matmulK(bmm.getLhs(), bmm.getTransposeA());
    if (auto data = dyn_cast<Conv2DBackwardDataOp>(op)) {
      // Output channels of the group times the kernel window.
      ArrayRef<int64_t> f = shape(data.getFilter());
      bool nchw = data.getLayout() == Layout::nchw;
      int64_t outChannels = nchw ? f[0] : f[3];
      int64_t window = nchw ? f[2] * f[3] : f[0] * f[1];
      return std::max<int64_t>(1, outChannels / data.getGroups() * window);
    }
    if (auto filter = dyn_cast<Conv2DBackwardFilterOp>(op)) {
      // Batch times output positions.
      ArrayRef<int64_t> g = shape(filter.getGrad());
      bool nchw = filter.getLayout() == Layout::nchw;
      int64_t channels = nchw ? g[1] : g[3];
      return std::max<int64_t>(
          1,
          cast<RankedTensorType>(filter.getGrad().getType()).getNumElements() /
              std::max<int64_t>(channels, 1));
    }
    return 0;
  }

  /// Walks the backward pass from the seed, giving every value that carries
  /// a gradient its accumulated scale (a rank-0 f32 value): ops pass their
  /// gradient operand's scale on; ops that combine several gradients first
  /// rescale them to the smallest scale; a low-precision contraction
  /// multiplies its gradient operand by the mpt.layer_scale factor and
  /// passes on the product of the scales. Returns the scale of each
  /// gradient of `gradients`.
  FailureOr<SmallVector<Value>>
  propagateLayerScales(func::FuncOp func, Value seedValue, Value seedScale,
                       const StepGradients &gradients) {
    OpBuilder b(func.getContext());
    llvm::DenseMap<Value, Value> scaleOf;
    scaleOf[seedValue] = seedScale;
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front().without_terminator())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (isa<ClipByGlobalNormOp, SgdUpdateOp, MomentumUpdateOp, AdamUpdateOp,
              SelectOp>(op))
        continue;
      SmallVector<unsigned> gradOperands;
      for (OpOperand &operand : op->getOpOperands())
        if (scaleOf.count(operand.get()))
          gradOperands.push_back(operand.getOperandNumber());
      if (gradOperands.empty())
        continue;
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      Value scale = scaleOf[op->getOperand(gradOperands.front())];
      if (gradOperands.size() > 1) {
        for (unsigned i : ArrayRef(gradOperands).drop_front())
          scale = MinOp::create(b, loc, scale, scaleOf[op->getOperand(i)]);
        for (unsigned i : gradOperands) {
          Value g = op->getOperand(i);
          if (scaleOf[g] == scale)
            continue;
          Value ratio = DivOp::create(b, loc, scale, scaleOf[g]);
          op->setOperand(i, scaleInF32(b, loc, g, ratio));
        }
      } else if (int64_t fanIn = contractionFanIn(op)) {
        unsigned gi = gradOperands.front();
        Value g = op->getOperand(gi);
        Value other = op->getOperand(gi == 0 ? 1 : 0);
        Type low = elementType(g);
        const llvm::fltSemantics &sem =
            cast<FloatType>(low).getFloatSemantics();
        double minValue = APFloat::getSmallest(sem).convertToDouble();
        double maxValue = APFloat::getLargest(sem).convertToDouble();
        Value stats = g;
        if (auto cast = g.getDefiningOp<CastOp>();
            cast && elementType(cast.getInput()).isF32())
          stats = cast.getInput();
        Value alpha = LayerScaleOp::create(
            b, loc, stats, other, scale, b.getI64IntegerAttr(fanIn),
            b.getF64FloatAttr(minValue), b.getF64FloatAttr(maxValue),
            b.getF64FloatAttr(maxScale));
        op->setOperand(gi, scaleInF32(b, loc, g, alpha));
        // The seed scale of adaptive mode is one.
        scale = scale == seedScale
                    ? alpha
                    : MulOp::create(b, loc, scale, alpha).getResult();
      }
      for (Value r : op->getResults())
        if (isa<FloatType>(elementType(r)))
          scaleOf[r] = scale;
    }
    SmallVector<Value> result;
    for (const Gradient &g : gradients.grads) {
      auto it = scaleOf.find(g.source);
      // A gradient that does not depend on the loss (zeros) is unscaled by
      // one: any scale leaves zeros as they are.
      result.push_back(it != scaleOf.end() ? it->second : seedScale);
    }
    return result;
  }
};

} // namespace
