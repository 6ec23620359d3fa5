//===- CopiesToFills.cpp - mpt-copies-to-fills ----------------------------===//
//
// A copy of a buffer that holds one constant everywhere as a fill of the
// copy's target. Bufferization allocates one buffer for a filled tensor
// with several users (the zeros that matmuls, reductions and gradients
// accumulate into) and copies it for each user that writes; on the GPU a
// copy is a stream operation of its own, while a fill is a loop that
// horizontal fusion puts into a neighbouring kernel.
//
// And a copy of a view onto the same view is erased: what bufferization
// leaves of an insert_slice whose source was written into the slice in
// place (a padded f16 copy of a weight, written into the interior of the
// zero-filled padded buffer).
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "BufferAccesses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace mpt {
#define GEN_PASS_DEF_COPIESTOFILLS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Whether `view` is all of the buffer it views: the buffer itself, or
/// reshapes and casts of it.
bool wholeBuffer(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
            def))
      return isa<memref::AllocOp, memref::AllocaOp>(def);
    view = def->getOperand(0);
  }
  return true; // a function argument
}

/// Whether `a` and `b` view the same elements of one buffer: the same
/// value, or equal subviews of one source (bufferizing an insert_slice of an
/// op that wrote into that slice in place copies the slice onto itself).
bool sameView(Value a, Value b) {
  if (a == b)
    return true;
  auto x = a.getDefiningOp<memref::SubViewOp>();
  auto y = b.getDefiningOp<memref::SubViewOp>();
  return x && y && x.getSource() == y.getSource() &&
         x.getType() == y.getType() && x.isSameAs(y, isEqualConstantIntOrValue);
}

struct CopiesToFillsPass
    : public mpt::impl::CopiesToFillsBase<CopiesToFillsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    llvm::SetVector<Value> sources;
    for (memref::CopyOp copy : copies)
      if (sameView(copy.getSource(), copy.getTarget())) {
        copy.erase();
      } else if (std::optional<Value> value = filledWith(copy)) {
        OpBuilder b(copy);
        linalg::FillOp::create(b, copy.getLoc(), *value, copy.getTarget());
        sources.insert(mpt::rootOf(copy.getSource()));
        copy.erase();
      }
    for (Value source : sources)
      mpt::eraseIfUnread(source);
  }

  /// The constant that the source of `copy` holds everywhere: the value of
  /// the last fill of the whole buffer the source views, if nothing in
  /// between may write that buffer.
  static std::optional<Value> filledWith(memref::CopyOp copy) {
    Value root = mpt::rootOf(copy.getSource());
    for (Operation *prev = copy->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      mpt::Accesses a = mpt::accessesOf(prev);
      if (a.unknown)
        return std::nullopt;
      bool writes = llvm::any_of(
          a.writes, [&](Value w) { return mpt::mayAlias(w, root); });
      if (!writes)
        continue;
      auto fill = dyn_cast<linalg::FillOp>(prev);
      if (!fill || !fill.hasPureBufferSemantics() ||
          mpt::rootOf(fill.getDpsInits()[0]) != root ||
          !wholeBuffer(fill.getDpsInits()[0]) ||
          !matchPattern(fill.getInputs()[0], m_Constant()))
        return std::nullopt;
      return fill.getInputs()[0];
    }
    return std::nullopt;
  }
};

} // namespace
