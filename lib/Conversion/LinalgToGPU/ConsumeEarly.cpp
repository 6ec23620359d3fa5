//===- ConsumeEarly.cpp - mpt-consume-early -------------------------------===//
//
// An elementwise op that is the last reader of tensors larger than its
// result moves up to right after its operands are made: what it frees is
// free from there on, and what it takes is less. In a padded mixed step, the
// unscaling of each weight gradient (a slice of the gradient's padded f32
// accumulator) otherwise waits until every gradient is made, and the
// accumulators of all layers are alive together at the end of the backward
// pass.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <functional>

namespace mpt {
#define GEN_PASS_DEF_CONSUMEEARLY
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The bytes of a static tensor of int or float elements, or 0.
int64_t bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return 0;
  return tensor.getNumElements() *
         llvm::divideCeil(tensor.getElementType().getIntOrFloatBitWidth(), 8);
}

/// How many scalar ops back an op takes the arithmetic it reads along.
constexpr int kScalarDepth = 8;

/// Whether `op` is cheap scalar arithmetic that may move: no memory
/// effects and no regions, and only scalars or rank-0 tensors made.
bool isScalar(Operation *op) {
  return isMemoryEffectFree(op) && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), [](Type t) {
           auto tensor = dyn_cast<RankedTensorType>(t);
           return tensor ? tensor.getRank() == 0 : t.isIntOrIndexOrFloat();
         });
}

/// Whether `op` reads only the result of a matmul, which nothing else
/// reads, and makes a tensor of its type.
bool roundsMatmul(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1)
    return false;
  Value in = op.getDpsInputOperand(0)->get();
  return isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(
             in.getDefiningOp()) &&
         in.hasOneUse() && in.getType() == op->getResult(0).getType();
}

struct ConsumeEarlyPass : public mpt::impl::ConsumeEarlyBase<ConsumeEarlyPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    SmallVector<linalg::GenericOp> generics;
    for (Operation &op : body)
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        generics.push_back(generic);
    for (linalg::GenericOp generic : generics)
      moveUp(generic, body);
  }

  /// Moves `op` (with the slices that only it reads, its empty destination
  /// and the scalar arithmetic it reads) right after the last op of `body`
  /// that makes a value it needs, if it is elementwise and frees more bytes
  /// than its result takes (or as many, rounding a matmul's result).
  static void moveUp(linalg::GenericOp op, Block &body) {
    if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops())
      return;
    // The ops that move with it, and the bytes of the tensors that die in
    // it (made in this block: arguments are the caller's memory).
    SmallVector<Operation *> moving;
    int64_t freed = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value v = input->get();
      auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
      if (slice && slice->hasOneUse() && slice->getBlock() == &body) {
        moving.push_back(slice);
        v = slice.getSource();
      }
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == &body && v.hasOneUse())
        freed += bytesOf(v.getType());
    }
    // Or as much as it takes, where it only rounds a matmul's result (the
    // rounding of a low-precision gradient to f16 and back to f32, which
    // the Tensor Core kernel's epilogue computes): elementwise fusion with
    // the widening cast, made where the gradient is read, leaves it there.
    int64_t taken = bytesOf(op->getResult(0).getType());
    if (freed < taken || (freed == taken && !roundsMatmul(op)) || !freed)
      return;
    Value init = op.getDpsInitOperand(0)->get();
    auto empty = init.getDefiningOp<tensor::EmptyOp>();
    if (empty && !empty.getDynamicSizes().empty())
      empty = nullptr;
    // Where it can go: after every op of the block that makes a value that
    // it, its slices or its body read (its empty destination, which
    // others may share, moves up too). Scalar arithmetic that it reads (the
    // reciprocal of the loss scale), pure and cheap, moves up with it.
    Operation *after = nullptr;
    SmallVector<Operation *> scalars; // in the order they are made
    std::function<void(Value, int)> need = [&](Value v, int depth) {
      Operation *def = v.getDefiningOp();
      if (!def || llvm::is_contained(moving, def) || (empty && v == init) ||
          llvm::is_contained(scalars, def))
        return;
      def = body.findAncestorOpInBlock(*def);
      if (!def)
        return;
      if (depth > 0 && isScalar(def)) {
        for (Value operand : def->getOperands())
          need(operand, depth - 1);
        scalars.push_back(def);
        return;
      }
      if (!after || after->isBeforeInBlock(def))
        after = def;
    };
    for (Operation *slice : moving)
      for (Value v : slice->getOperands())
        need(v, kScalarDepth);
    for (Value v : op->getOperands())
      need(v, kScalarDepth);
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!op->isAncestor(v.getParentBlock()->getParentOp()))
          need(v, kScalarDepth);
    });
    Operation *first = op;
    for (Operation *slice : moving)
      if (slice->isBeforeInBlock(first))
        first = slice;
    if (!after || after->getNextNode() == first ||
        !after->isBeforeInBlock(first))
      return;
    Operation *anchor = after;
    // Each scalar op as early as its operands allow (where the other scalar
    // code of the step's start runs).
    for (Operation *scalar : scalars) {
      Operation *last = nullptr;
      for (Value v : scalar->getOperands())
        if (Operation *def = v.getDefiningOp())
          if ((def = body.findAncestorOpInBlock(*def)) &&
              (!last || last->isBeforeInBlock(def)))
            last = def;
      if (!last)
        scalar->moveBefore(&body, body.begin());
      else if (last->isBeforeInBlock(scalar))
        scalar->moveAfter(last);
    }
    if (empty && anchor->isBeforeInBlock(empty)) {
      empty->moveAfter(anchor);
      anchor = empty;
    }
    for (Operation *slice : moving) {
      slice->moveAfter(anchor);
      anchor = slice;
    }
    op->moveAfter(anchor);
  }
};

} // namespace
