//===- MasterWeights.cpp - mpt-master-weights -----------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"
#include "mpt/Dialect/MPT/Transforms/Recompute.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

namespace mpt {
#define GEN_PASS_DEF_MASTERWEIGHTS
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

struct MasterWeightsPass
    : public mpt::impl::MasterWeightsBase<MasterWeightsPass> {
  using MasterWeightsBase::MasterWeightsBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      bool isStep = false;
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        isStep |= getResultRole(func, i) == Role::parameter;
      if (isStep && failed(process(func)))
        return signalPassFailure();
      if (isStep)
        recomputeWorkingCopies(func, recomputeBytes);
    }
  }

  LogicalResult process(func::FuncOp func) {
    Block &entry = func.getBody().front();
    // Master copies and their updates are fp32.
    for (BlockArgument arg : entry.getArguments()) {
      std::optional<Role> role = getArgumentRole(func, arg.getArgNumber());
      if ((role == Role::parameter || role == Role::optimizer_state) &&
          !isF32Tensor(arg.getType()))
        return func.emitError()
               << "mpt-master-weights: " << stringifyRole(*role)
               << " argument #" << arg.getArgNumber() << " has type "
               << arg.getType()
               << "; the master copy must be an f32 tensor (run the pass "
                  "on a step whose parameters are f32)";
    }
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      std::optional<Role> role = getResultRole(func, i);
      if (role != Role::parameter && role != Role::optimizer_state)
        continue;
      Operation *def = value.getDefiningOp();
      if (!isF32Tensor(value.getType()) || (def && isa<CastOp>(def)))
        return func.emitError()
               << "mpt-master-weights: result #" << i << " ("
               << stringifyRole(*role)
               << ") is not computed in f32; the update must run on the fp32 "
                  "master copy (mpt-build-train-step forces it with "
                  "mpt.precision<fp32>)";
    }

    // One working copy per (parameter, type), at the start of the step.
    OpBuilder b(&entry, entry.begin());
    llvm::MapVector<std::pair<Value, Type>, CastOp> copies;
    for (BlockArgument arg : entry.getArguments()) {
      if (getArgumentRole(func, arg.getArgNumber()) != Role::parameter)
        continue;
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
        auto cast = dyn_cast<CastOp>(user);
        // A copy made again for the backward pass stays apart.
        if (!cast || cast->hasAttr(MPTDialect::getRecomputedAttrName()))
          continue;
        auto [it, inserted] = copies.try_emplace({arg, cast.getType()}, cast);
        if (inserted) {
          cast->moveBefore(&entry, entry.begin());
        } else {
          cast.replaceAllUsesWith(it->second.getResult());
          cast.erase();
        }
      }
    }
    if (!keepLowCopy || copies.empty())
      return success();

    // Carry the copies in the state: arguments in, casts of the updated
    // parameters out.
    SmallVector<Value> results(ret.getOperands());
    SmallVector<Type> resultTypes(func.getResultTypes());
    SmallVector<DictionaryAttr> resultAttrs;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      resultAttrs.push_back(func.getResultAttrDict(i));
    // The updated value of parameter argument k is the k-th parameter
    // result.
    SmallVector<Value> updated;
    for (auto [i, value] : llvm::enumerate(ret.getOperands()))
      if (getResultRole(func, i) == Role::parameter)
        updated.push_back(value);
    SmallVector<BlockArgument> params;
    for (BlockArgument arg : entry.getArguments())
      if (getArgumentRole(func, arg.getArgNumber()) == Role::parameter)
        params.push_back(arg);
    b.setInsertionPoint(ret);
    MLIRContext *ctx = &getContext();
    for (auto &[key, cast] : copies) {
      auto [param, type] = key;
      unsigned index = llvm::find(params, param) - params.begin();
      unsigned argIndex = func.getNumArguments();
      if (failed(func.insertArgument(argIndex, type, DictionaryAttr::get(ctx),
                                     param.getLoc())))
        return failure();
      setArgumentRole(func, argIndex, Role::parameter_copy);
      cast.replaceAllUsesWith(entry.getArgument(argIndex));
      cast.erase();
      Value next = CastOp::create(b, ret.getLoc(), type, updated[index]);
      results.push_back(next);
      resultTypes.push_back(type);
      resultAttrs.push_back(DictionaryAttr::get(
          ctx,
          {NamedAttribute(StringAttr::get(ctx, MPTDialect::getRoleAttrName()),
                          RoleAttr::get(ctx, Role::parameter_copy))}));
    }
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    func.setType(FunctionType::get(ctx, func.getArgumentTypes(), resultTypes));
    for (auto [i, attrs] : llvm::enumerate(resultAttrs))
      func.setResultAttrs(i, attrs);
    return success();
  }
};

} // namespace
