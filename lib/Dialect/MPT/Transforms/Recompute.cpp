//===- Recompute.cpp - mpt-recompute-activations --------------------------===//
//
// Activations that the backward pass reads are computed again there, from
// the input their gradient keeps anyway, instead of being kept from the
// forward pass.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/Transforms/Recompute.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_RECOMPUTEACTIVATIONS
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

unsigned mpt::recomputeActivations(func::FuncOp func) {
  if (func.isExternal())
    return 0;
  Block &block = func.getBody().front();
  Operation *seed = nullptr;
  for (Operation &op : block)
    if (isa<BackwardSeedOp>(op))
      seed = &op;
  if (!seed)
    return 0;
  // The op of `block` that holds `user`, if it comes after the seed.
  auto backward = [&](Operation *user) -> Operation * {
    Operation *at = block.findAncestorOpInBlock(*user);
    return at && seed->isBeforeInBlock(at) ? at : nullptr;
  };
  SmallVector<Operation *> activations;
  for (Operation &op : block) {
    if (&op == seed)
      break;
    if (isa<GeluOp, TanhOp, SigmoidOp, ReluOp>(op))
      activations.push_back(&op);
  }
  unsigned changed = 0;
  for (Operation *op : activations) {
    Value input = op->getOperand(0), result = op->getResult(0);
    bool inputKept = llvm::any_of(input.getUsers(), [&](Operation *user) {
      return user != op && backward(user);
    });
    SmallVector<OpOperand *> late;
    bool early = false;
    Operation *first = nullptr;
    for (OpOperand &use : result.getUses()) {
      Operation *at = backward(use.getOwner());
      if (!at) {
        early = true;
        continue;
      }
      late.push_back(&use);
      if (!first || at->isBeforeInBlock(first))
        first = at;
    }
    if (!inputKept || late.empty())
      continue;
    if (!early) {
      op->moveBefore(first);
    } else {
      OpBuilder b(first);
      Operation *copy = b.clone(*op);
      copy->setAttr(MPTDialect::getRecomputedAttrName(), b.getUnitAttr());
      for (OpOperand *use : late)
        use->set(copy->getResult(0));
    }
    ++changed;
  }
  return changed;
}

namespace {
struct RecomputeActivationsPass
    : public mpt::impl::RecomputeActivationsBase<RecomputeActivationsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      recomputeActivations(func);
  }
};
} // namespace
