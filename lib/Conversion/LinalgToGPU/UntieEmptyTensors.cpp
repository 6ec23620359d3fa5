//===- UntieEmptyTensors.cpp - mpt-untie-empty-tensors --------------------===//
//
// One tensor.empty per use. CSE merges equal empties (and equal zero fills
// of them); one-shot bufferization then writes unrelated results into one
// buffer, an order the GPU kernels would have to keep.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
    // A fill of an empty that several ops take as their destination (CSE
    // merges the zero fills that matmuls start from): a fill each, so that
    // the chains below do not join those ops, and everything that reads
    // their results, through the shared fill.
    SmallVector<linalg::FillOp> fills;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      order[op] = order.size();
      auto fill = dyn_cast<linalg::FillOp>(op);
      if (fill && fill.hasPureTensorSemantics() &&
          fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      SmallVector<OpOperand *> destinations;
      for (OpOperand &use : fill->getResult(0).getUses()) {
        auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (dps && dps.isDpsInit(&use))
          destinations.push_back(&use);
      }
      if (destinations.size() < 2)
        continue;
      // The first in program order keeps the fill; each other gets a clone
      // as late as its user's other operands (those its body uses too)
      // allow: right after the last of them made in the fill's block (or
      // after the fill). A fill is the first write of its buffer, so where
      // it runs is where the buffer's lifetime starts; fills for users of
      // the same operands stay next to one another, so that they, and then
      // their users, can still share kernels.
      llvm::sort(destinations, [&](OpOperand *x, OpOperand *y) {
        return order.lookup(x->getOwner()) < order.lookup(y->getOwner());
      });
      Block *block = fill->getBlock();
      OpBuilder b(fill);
      for (OpOperand *use : llvm::drop_begin(destinations)) {
        Operation *user = block->findAncestorOpInBlock(*use->getOwner());
        Operation *after = fill;
        user->walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            if (Operation *def = operand.getDefiningOp())
              if (def->getBlock() == block && after->isBeforeInBlock(def))
                after = def;
        });
        b.setInsertionPointAfter(after);
        use->set(b.clone(*fill)->getResult(0));
      }
    }
    // (The order again, with the clones.)
    SmallVector<tensor::EmptyOp> empties;
    order.clear();
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
