//===- TrainingPasses.cpp - mpt-autodiff and mpt-build-train-step ---------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Autodiff.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"
#include "mpt/Dialect/MPT/Transforms/Recompute.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mpt {
#define GEN_PASS_DEF_AUTODIFF
#define GEN_PASS_DEF_BUILDTRAINSTEP
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

/// Functions the training passes apply to: those with a parameter.
SmallVector<func::FuncOp> trainableFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> result;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        llvm::any_of(func.getArguments(), [&](BlockArgument arg) {
          return getArgumentRole(func, arg.getArgNumber()) == Role::parameter;
        }))
      result.push_back(func);
  return result;
}

struct AutodiffPass : public mpt::impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs = trainableFunctions(module);
    if (funcs.empty()) {
      module.emitError("mpt-autodiff: no function has a parameter; mark the "
                       "arguments to differentiate with "
                       "{mpt.role = #mpt.role<parameter>}");
      return signalPassFailure();
    }
    for (func::FuncOp forward : funcs)
      if (failed(process(forward)))
        return signalPassFailure();
  }

  LogicalResult process(func::FuncOp forward) {
    func::FuncOp func = forward;
    if (!extend) {
      func = forward.clone();
      func.setSymName((forward.getSymName() + "_grad").str());
      SymbolTable(getOperation()).insert(func, ++Block::iterator(forward));
    }
    FailureOr<unsigned> lossIndex = findLossResult(func);
    FailureOr<SmallVector<BlockArgument>> params = findParameters(func);
    if (failed(lossIndex) || failed(params))
      return failure();
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    Value loss = ret.getOperand(*lossIndex);
    SmallVector<Value> wrt(params->begin(), params->end());
    FailureOr<SmallVector<Value>> grads = differentiate(func, loss, wrt);
    if (failed(grads))
      return failure();
    SmallVector<Value> results;
    if (extend)
      results.append(ret.getOperands().begin(), ret.getOperands().end());
    else
      results.push_back(loss);
    unsigned firstGrad = results.size();
    results.append(grads->begin(), grads->end());
    OpBuilder b(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    SmallVector<DictionaryAttr> resultAttrs;
    if (extend)
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        resultAttrs.push_back(func.getResultAttrDict(i));
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    for (auto [i, attrs] : llvm::enumerate(resultAttrs))
      func.setResultAttrs(i, attrs);
    if (!extend) {
      // The clone's results are new: drop the forward's result attributes.
      func.removeResAttrsAttr();
      setResultRole(func, 0, Role::loss);
    }
    for (unsigned i = firstGrad; i < results.size(); ++i)
      setResultRole(func, i, Role::gradient);
    return success();
  }
};

struct BuildTrainStepPass
    : public mpt::impl::BuildTrainStepBase<BuildTrainStepPass> {
  using BuildTrainStepBase::BuildTrainStepBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (optimizer != "sgd" && optimizer != "momentum" && optimizer != "adam") {
      module.emitError() << "mpt-build-train-step: unknown optimizer '"
                         << optimizer << "'; expected sgd, momentum or adam";
      return signalPassFailure();
    }
    if (lr <= 0 || momentum < 0 || momentum >= 1 || beta1 < 0 || beta1 >= 1 ||
        beta2 < 0 || beta2 >= 1 || eps <= 0 || weightDecay < 0 ||
        clipNorm < 0) {
      module.emitError("mpt-build-train-step: expects lr > 0, momentum, "
                       "beta1 and beta2 in [0, 1), eps > 0, weight-decay >= "
                       "0 and clip-norm >= 0");
      return signalPassFailure();
    }
    FailureOr<func::FuncOp> forward = findForward();
    if (failed(forward) || failed(build(*forward)))
      return signalPassFailure();
  }

  FailureOr<func::FuncOp> findForward() {
    ModuleOp module = getOperation();
    if (!function.empty()) {
      auto func = module.lookupSymbol<func::FuncOp>(function);
      if (!func)
        return module.emitError() << "mpt-build-train-step: no function @"
                                  << function << " in the module";
      return func;
    }
    // Gradient functions built by mpt-autodiff are not forward graphs.
    SmallVector<func::FuncOp> funcs;
    for (func::FuncOp func : trainableFunctions(module)) {
      bool hasGradients = false;
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        hasGradients |= getResultRole(func, i) == Role::gradient;
      if (!hasGradients)
        funcs.push_back(func);
    }
    if (funcs.size() != 1)
      return module.emitError()
             << "mpt-build-train-step: expected one function with "
                "parameters, found "
             << funcs.size() << "; name it with function=";
    return funcs.front();
  }

  LogicalResult build(func::FuncOp forward) {
    MLIRContext *ctx = &getContext();
    FailureOr<unsigned> lossIndex = findLossResult(forward);
    FailureOr<SmallVector<BlockArgument>> params = findParameters(forward);
    if (failed(lossIndex) || failed(params))
      return failure();

    // Signature: params, optimizer state, then the other arguments.
    unsigned numParams = params->size();
    unsigned statesPerParam =
        optimizer == "sgd" ? 0 : (optimizer == "momentum" ? 1 : 2);
    bool hasStepCount = optimizer == "adam";
    SmallVector<Type> argTypes;
    SmallVector<DictionaryAttr> argAttrs;
    auto roleDict = [&](Role role) {
      return DictionaryAttr::get(
          ctx,
          {NamedAttribute(StringAttr::get(ctx, MPTDialect::getRoleAttrName()),
                          RoleAttr::get(ctx, role))});
    };
    for (BlockArgument p : *params) {
      argTypes.push_back(p.getType());
      argAttrs.push_back(forward.getArgAttrDict(p.getArgNumber()));
    }
    for (unsigned s = 0; s < statesPerParam; ++s)
      for (BlockArgument p : *params) {
        argTypes.push_back(p.getType());
        argAttrs.push_back(roleDict(Role::optimizer_state));
      }
    Type f32Scalar = RankedTensorType::get({}, Float32Type::get(ctx));
    if (hasStepCount) {
      argTypes.push_back(f32Scalar);
      argAttrs.push_back(roleDict(Role::optimizer_state));
    }
    SmallVector<BlockArgument> others;
    for (BlockArgument arg : forward.getArguments())
      if (!llvm::is_contained(*params, arg)) {
        others.push_back(arg);
        argTypes.push_back(arg.getType());
        argAttrs.push_back(forward.getArgAttrDict(arg.getArgNumber()));
      }

    if (SymbolTable::lookupSymbolIn(getOperation(), stepName))
      return forward.emitError() << "mpt-build-train-step: the module "
                                    "already has a symbol @"
                                 << stepName << "; choose another name=";
    OpBuilder b(ctx);
    b.setInsertionPointAfter(forward);
    auto step = func::FuncOp::create(b, forward.getLoc(), stepName.getValue(),
                                     FunctionType::get(ctx, argTypes, {}));
    Block *body = step.addEntryBlock();
    IRMapping mapping;
    for (auto [i, p] : llvm::enumerate(*params))
      mapping.map(p, body->getArgument(i));
    unsigned othersStart = numParams * (1 + statesPerParam) + hasStepCount;
    for (auto [i, arg] : llvm::enumerate(others))
      mapping.map(arg, body->getArgument(othersStart + i));
    b.setInsertionPointToEnd(body);
    for (Operation &op : forward.getBody().front())
      b.clone(op, mapping);
    auto ret = cast<func::ReturnOp>(body->getTerminator());
    Value loss = ret.getOperand(*lossIndex);
    SmallVector<Value> newParams(body->getArguments().take_front(numParams));
    FailureOr<SmallVector<Value>> grads =
        differentiate(step, loss, SmallVector<Value>(newParams),
                      /*markSeed=*/true);
    if (failed(grads))
      return failure();

    b.setInsertionPoint(ret);
    Operation *lastBackwardOp = ret->getPrevNode();
    Location loc = forward.getLoc();
    SmallVector<Value> g = *grads;
    if (clipNorm > 0)
      clip(b, loc, g);
    SmallVector<Value> results = {loss}, updated, states;
    SmallVector<Value> stateArgs(
        body->getArguments().slice(numParams, numParams * statesPerParam));
    Value stepArg = hasStepCount ? body->getArgument(othersStart - 1) : Value();
    Value newStep;
    if (hasStepCount)
      newStep = add(b, loc, stepArg, scalar(b, loc, stepArg, 1.0));
    for (unsigned i = 0; i < numParams; ++i) {
      Value p = newParams[i], grad = g[i];
      if (optimizer == "sgd") {
        updated.push_back(SgdUpdateOp::create(b, loc, p, grad,
                                              b.getF64FloatAttr(lr),
                                              b.getF64FloatAttr(weightDecay)));
        continue;
      }
      if (optimizer == "momentum") {
        auto update = MomentumUpdateOp::create(
            b, loc, TypeRange{p.getType(), p.getType()}, p, grad, stateArgs[i],
            b.getF64FloatAttr(lr), b.getF64FloatAttr(momentum),
            b.getF64FloatAttr(weightDecay));
        updated.push_back(update.getNewParam());
        states.push_back(update.getNewVelocity());
        continue;
      }
      auto update = AdamUpdateOp::create(
          b, loc, TypeRange{p.getType(), p.getType(), p.getType()}, p, grad,
          stateArgs[i], stateArgs[numParams + i], newStep,
          b.getF64FloatAttr(lr), b.getF64FloatAttr(beta1),
          b.getF64FloatAttr(beta2), b.getF64FloatAttr(eps),
          b.getF64FloatAttr(weightDecay));
      updated.push_back(update.getNewParam());
      states.push_back(update.getNewM());
      states.push_back(update.getNewV());
    }
    if (optimizer == "adam") {
      // Moments in argument order: all first moments, then all second.
      SmallVector<Value> firsts, seconds;
      for (unsigned i = 0; i < numParams; ++i) {
        firsts.push_back(states[2 * i]);
        seconds.push_back(states[2 * i + 1]);
      }
      states = firsts;
      states.append(seconds);
      states.push_back(newStep);
    }
    results.append(updated);
    results.append(states);
    unsigned firstGradient = results.size();
    if (returnGradients)
      results.append(g);
    auto newRet = func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    // The update (and clipping) runs on fp32 master weights whatever the
    // precision passes decide for the rest of the step.
    auto fp32 = PrecisionAttr::get(ctx, Precision::fp32);
    for (Operation *op = lastBackwardOp->getNextNode(); op != newRet;
         op = op->getNextNode())
      op->setAttr(MPTDialect::getPrecisionAttrName(), fp32);
    step.setType(
        FunctionType::get(ctx, argTypes, ValueRange(results).getTypes()));
    for (auto [i, attrs] : llvm::enumerate(argAttrs))
      step.setArgAttrs(i, attrs);
    setResultRole(step, 0, Role::loss);
    for (unsigned i = 0; i < numParams; ++i)
      setResultRole(step, 1 + i, Role::parameter);
    for (unsigned i = 1 + numParams; i < firstGradient; ++i)
      setResultRole(step, i, Role::optimizer_state);
    for (unsigned i = firstGradient; i < results.size(); ++i)
      setResultRole(step, i, Role::gradient);
    if (recompute)
      recomputeActivations(step);
    return success();
  }

  static Value scalar(OpBuilder &b, Location loc, Value like, double value) {
    return createFloatSplat(
        b, loc,
        RankedTensorType::get(
            {}, cast<RankedTensorType>(like.getType()).getElementType()),
        value);
  }
  static Value add(OpBuilder &b, Location loc, Value x, Value y) {
    return AddOp::create(b, loc, x, y);
  }

  /// Scales every gradient by min(1, clip / (||g|| + 1e-6)), the global norm
  /// computed in f32.
  void clip(OpBuilder &b, Location loc, SmallVectorImpl<Value> &grads) {
    auto op = ClipByGlobalNormOp::create(b, loc, ValueRange(grads).getTypes(),
                                         grads, b.getF64FloatAttr(clipNorm));
    llvm::copy(op.getResults(), grads.begin());
  }
};

} // namespace
