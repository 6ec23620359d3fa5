//===- Reshapes.cpp - row-major reshapes of one buffer --------------------===//

#include "Reshapes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <functional>
#include <set>

using namespace mlir;

Value mpt::reshapeSource(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

std::optional<SmallVector<int64_t>> mpt::commonRefinement(ArrayRef<int64_t> a,
                                                          ArrayRef<int64_t> b) {
  std::set<int64_t, std::greater<int64_t>> strides{1};
  int64_t totalA = 1, totalB = 1;
  for (int64_t d : llvm::reverse(a))
    strides.insert(totalA *= d);
  for (int64_t d : llvm::reverse(b))
    strides.insert(totalB *= d);
  if (totalA != totalB || totalA == 0)
    return std::nullopt;
  SmallVector<int64_t> shape;
  int64_t outer = *strides.begin();
  for (int64_t stride : llvm::drop_begin(strides)) {
    if (outer % stride)
      return std::nullopt;
    shape.push_back(outer / stride);
    outer = stride;
  }
  return shape;
}

SmallVector<SmallVector<int64_t, 4>> mpt::piecesOf(ArrayRef<int64_t> shape,
                                                   ArrayRef<int64_t> refined) {
  SmallVector<SmallVector<int64_t, 4>> pieces;
  size_t next = 0;
  for (int64_t size : shape) {
    SmallVector<int64_t, 4> dims;
    for (int64_t covered = 1; covered < size; ++next) {
      covered *= refined[next];
      dims.push_back(next);
    }
    pieces.push_back(dims);
  }
  return pieces;
}
