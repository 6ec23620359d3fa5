//===- UntieEmptyTensors.cpp - mpt-untie-empty-tensors --------------------===//
//
// One tensor.empty per use. CSE merges equal empties; one-shot bufferization
// then writes unrelated results into one buffer, an order the GPU kernels
// would have to keep.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

#include "llvm/ADT/EquivalenceClasses.h"

namespace mpt {
#define GEN_PASS_DEF_UNTIEEMPTYTENSORS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct UntieEmptyTensorsPass
    : public mpt::impl::UntieEmptyTensorsBase<UntieEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      order[op] = order.size();
      if (auto empty = dyn_cast<tensor::EmptyOp>(op))
        empties.push_back(empty);
    });
    for (tensor::EmptyOp empty : empties)
      untie(empty);
  }

  /// Splits the users of `empty` into chains and gives each chain but the
  /// first a clone of `empty`, made right after it. A user
  /// joins the chain of another if it reads a value that bufferization
  /// writes into the other's buffer: the other's result, or the result of
  /// an op that took that as its destination (a fill, then the matmul that
  /// accumulates into it), and so on.
  void untie(tensor::EmptyOp empty) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : empty->getUses())
      uses.push_back(&use);
    if (uses.size() < 2)
      return;
    llvm::EquivalenceClasses<Operation *> chains;
    llvm::DenseMap<Value, Operation *> writtenBy; // value -> user of `empty`
    for (OpOperand *use : uses) {
      Operation *user = use->getOwner();
      chains.insert(user);
      SmallVector<OpOperand *> destinations{use};
      while (!destinations.empty()) {
        OpOperand *destination = destinations.pop_back_val();
        auto dps =
            dyn_cast<DestinationStyleOpInterface>(destination->getOwner());
        if (!dps || !dps.isDpsInit(destination))
          continue;
        Value result = dps.getTiedOpResult(destination);
        if (!writtenBy.try_emplace(result, user).second)
          continue;
        for (OpOperand &next : result.getUses())
          destinations.push_back(&next);
      }
    }
    for (OpOperand *use : uses)
      for (Value operand : use->getOwner()->getOperands())
        if (Operation *other = writtenBy.lookup(operand))
          chains.unionSets(other, use->getOwner());
    // Uses in program order (the empty's use list has none).
    llvm::sort(uses, [&](OpOperand *x, OpOperand *y) {
      return order.lookup(x->getOwner()) < order.lookup(y->getOwner());
    });
    llvm::DenseMap<Operation *, Value> emptyOf; // chain leader -> its empty
    Operation *lastClone = empty;
    for (OpOperand *use : uses) {
      Operation *leader = chains.getLeaderValue(use->getOwner());
      auto [it, inserted] = emptyOf.try_emplace(leader, Value());
      if (inserted) {
        if (emptyOf.size() == 1) {
          it->second = empty.getResult();
        } else {
          // Right after `empty` (the clones in the order of their chains),
          // which dominates every user, wherever in the regions it is.
          OpBuilder b(empty->getContext());
          b.setInsertionPointAfter(lastClone);
          lastClone = b.clone(*empty);
          it->second = lastClone->getResult(0);
        }
      }
      use->set(it->second);
    }
  }

  /// The ops of the function in pre-order.
  llvm::DenseMap<Operation *, int64_t> order;
};

} // namespace
