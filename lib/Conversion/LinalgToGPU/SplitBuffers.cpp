//===- SplitBuffers.cpp - mpt-split-buffers -------------------------------===//
//
// An allocation that holds several values in turn (one-shot bufferization
// writes results that share a tensor.empty into one buffer when their
// lifetimes do not meet) becomes one allocation per value, so that
// mpt-gpu-reuse-buffers can place each where it lives.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "BufferAccesses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_SPLITBUFFERS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Views that cover the whole buffer they are made from.
bool isWholeView(Operation *op) {
  return isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
      op);
}

/// Whether `op` writes every element of `buffer` through `operand` without
/// reading the old values, and reads `buffer` through no other operand.
bool writesWhole(Operation *op, OpOperand &operand, Value buffer) {
  for (OpOperand &other : op->getOpOperands())
    if (&other != &operand && mpt::rootOf(other.get()) == buffer)
      return false;
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return &operand == &copy.getTargetMutable();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      !linalgOp.isDpsInit(&operand) ||
      linalgOp.payloadUsesValueFromOperand(&operand) ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops())
    return false;
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  return type && type.hasStaticShape() &&
         linalgOp.getMatchingIndexingMap(&operand).isPermutation();
}

struct SplitBuffersPass : public mpt::impl::SplitBuffersBase<SplitBuffersPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    SmallVector<memref::AllocOp> allocs;
    for (Operation &op : body)
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
    for (memref::AllocOp alloc : allocs)
      split(alloc, body);
  }

  void split(memref::AllocOp alloc, Block &body) {
    Value buffer = alloc.getMemref();
    if (!alloc.getType().hasStaticShape())
      return;
    // Every use, through whole views made in the body.
    SmallVector<OpOperand *> uses;
    memref::DeallocOp dealloc;
    SmallVector<Value> values{buffer};
    while (!values.empty()) {
      Value value = values.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (user->getBlock() != &body)
          return;
        if (isWholeView(user)) {
          values.push_back(user->getResult(0));
          continue;
        }
        if (auto free = dyn_cast<memref::DeallocOp>(user)) {
          if (value != buffer || dealloc)
            return;
          dealloc = free;
          continue;
        }
        if (!isa<linalg::LinalgOp, memref::CopyOp>(user))
          return;
        uses.push_back(&use);
      }
    }
    if (!dealloc || uses.size() < 2)
      return;
    llvm::sort(uses, [](OpOperand *x, OpOperand *y) {
      return x->getOwner()->isBeforeInBlock(y->getOwner());
    });
    if (dealloc->isBeforeInBlock(uses.back()->getOwner()))
      return;
    // The values the buffer holds in turn: a whole write starts one.
    SmallVector<SmallVector<OpOperand *>> versions{{}};
    for (OpOperand *use : uses) {
      if (!versions.back().empty() &&
          versions.back().back()->getOwner() != use->getOwner() &&
          writesWhole(use->getOwner(), *use, buffer))
        versions.emplace_back();
      versions.back().push_back(use);
    }
    OpBuilder b(alloc);
    for (ArrayRef<OpOperand *> version : llvm::drop_begin(versions)) {
      b.setInsertionPoint(version.front()->getOwner());
      Value fresh = b.clone(*alloc)->getResult(0);
      for (OpOperand *use : version) {
        // The views from the buffer to the operand, made again on `fresh`.
        SmallVector<Operation *> chain;
        for (Value v = use->get(); v != buffer;
             v = v.getDefiningOp()->getOperand(0))
          chain.push_back(v.getDefiningOp());
        Value v = fresh;
        b.setInsertionPoint(use->getOwner());
        for (Operation *view : llvm::reverse(chain)) {
          Operation *copy = b.clone(*view);
          copy->setOperand(0, v);
          v = copy->getResult(0);
        }
        use->set(v);
      }
      b.setInsertionPoint(dealloc);
      memref::DeallocOp::create(b, dealloc.getLoc(), fresh);
    }
  }
};

} // namespace
