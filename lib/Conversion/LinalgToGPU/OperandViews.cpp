//===- OperandViews.cpp - Transposes folded into matmul operands ----------===//
//
// A matmul operand that linalg.transposes wrote (the head split of
// attention, [B, T, H, D] -> [B, H, T, D], its merge, the swap of a
// backward matmul, or a chain of them, through reshapes) is read by the
// mma.sync kernel from the first transpose's input, as a view: each of the
// operand's batch, row and column indices is taken row-major over a group
// of dimensions of that input, refined to a common shape of all the
// reshapes on the way. The wgmma kernel takes the views whose tiles are
// TMA boxes of that input (tmaReadable, WgmmaMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernels.h"

#include "BufferAccesses.h"
#include "Reshapes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <numeric>

using namespace mlir;
using namespace mpt::tc;
using mpt::commonRefinement;
using mpt::piecesOf;
using mpt::reshapeSource;

namespace {

bool plainBuffer(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() && type.getLayout().isIdentity();
}

/// The state of the walk: the operand is `buffer` (of row-major `shape`)
/// read through the groups.
struct View {
  Value buffer;
  SmallVector<int64_t> shape;
  SmallVector<int64_t, 4> batch, rows, cols;

  int64_t sizeOf(ArrayRef<int64_t> group) const {
    int64_t size = 1;
    for (int64_t d : group)
      size *= shape[d];
    return size;
  }
  /// Whether the mma.sync kernel reads it (and how): the contiguous dim
  /// last of the columns, or (transposed) of the rows, its size and that of
  /// its group multiples of `chunk`.
  std::optional<bool> readable(int64_t chunk) const {
    if (shape.empty() || shape.back() % chunk)
      return std::nullopt;
    int64_t last = shape.size() - 1;
    if (!cols.empty() && cols.back() == last)
      return sizeOf(cols) % chunk ? std::nullopt : std::optional<bool>(false);
    if (!rows.empty() && rows.back() == last)
      return sizeOf(rows) % chunk ? std::nullopt : std::optional<bool>(true);
    return std::nullopt;
  }

  /// The view before `transpose`, which wrote `buffer` through a reshape:
  /// the same elements of the transpose's input.
  std::optional<View> through(linalg::TransposeOp transpose) const {
    Value input = transpose.getInput();
    auto initType = cast<MemRefType>(transpose.getInit().getType());
    std::optional<SmallVector<int64_t>> fine =
        commonRefinement(shape, initType.getShape());
    if (!fine)
      return std::nullopt;
    auto ours = piecesOf(shape, *fine);
    auto init = piecesOf(initType.getShape(), *fine);
    // Init dim j is input dim perm[j]: the input's fine dims are the pieces
    // of the init dims in the order of the input's dims.
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> inputPosition(fine->size());
    View before;
    before.buffer = reshapeSource(input);
    for (int64_t i = 0, e = perm.size(); i < e; ++i)
      for (int64_t j = 0; j < e; ++j)
        if (perm[j] == i)
          for (int64_t piece : init[j]) {
            inputPosition[piece] = before.shape.size();
            before.shape.push_back((*fine)[piece]);
          }
    auto map = [&](ArrayRef<int64_t> group) {
      SmallVector<int64_t, 4> mapped;
      for (int64_t d : group)
        for (int64_t piece : ours[d])
          mapped.push_back(inputPosition[piece]);
      return mapped;
    };
    before.batch = map(batch);
    before.rows = map(rows);
    before.cols = map(cols);
    return before;
  }
};

} // namespace

SmallVector<Value> mpt::tc::at(IndexMath &im, const OperandView &view,
                               Value batch, Value row, Value col) {
  auto type = cast<MemRefType>(view.source.getType());
  SmallVector<Value> index(type.getRank(), Value());
  auto spread = [&](Value linear, ArrayRef<int64_t> dims) {
    for (int64_t i = dims.size() - 1; i >= 0; --i) {
      int64_t size = type.getDimSize(dims[i]);
      index[dims[i]] = i == 0 ? linear : im.rem(linear, size);
      if (i > 0)
        linear = im.div(linear, size);
    }
  };
  if (batch)
    spread(batch, view.batch);
  spread(row, view.rows);
  spread(col, view.cols);
  for (Value &v : index)
    if (!v)
      v = im.c(0); // a dim of size 1
  return index;
}

OperandView FoldedOperand::materialize(OpBuilder &b, Location loc) const {
  OperandView view;
  Value source = buffer;
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getShape() != ArrayRef<int64_t>(shape)) {
    if (type.getRank() > 1) {
      ReassociationIndices all(type.getRank());
      std::iota(all.begin(), all.end(), 0);
      source = memref::CollapseShapeOp::create(
          b, loc, source, ArrayRef<ReassociationIndices>{all});
    }
    if (shape.size() > 1) {
      ReassociationIndices all(shape.size());
      std::iota(all.begin(), all.end(), 0);
      source = memref::ExpandShapeOp::create(
          b, loc, MemRefType::get(shape, type.getElementType()), source,
          ArrayRef<ReassociationIndices>{all});
    }
  }
  view.source = source;
  view.batch = batch;
  view.rows = transposed ? cols : rows;
  view.cols = transposed ? rows : cols;
  return view;
}

bool FoldedOperand::plain() const {
  const auto &r = transposed ? cols : rows;
  const auto &c = transposed ? rows : cols;
  int64_t rank = shape.size();
  if (rank < 2 || r.size() != 1 || c.size() != 1 || r[0] != rank - 2 ||
      c[0] != rank - 1 || static_cast<int64_t>(batch.size()) != rank - 2)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (batch[d] != d)
      return false;
  return true;
}

std::optional<FoldedOperand>
mpt::tc::foldTransposes(Operation *matmul, Value operand, int64_t chunk,
                        function_ref<mpt::Accesses(Operation *)> accesses,
                        int64_t maxTransposes) {
  if (!plainBuffer(operand))
    return std::nullopt;
  auto type = cast<MemRefType>(operand.getType());
  int64_t rank = type.getRank();
  View view;
  view.buffer = reshapeSource(operand);
  if (!plainBuffer(view.buffer))
    return std::nullopt;
  view.shape = llvm::to_vector(type.getShape());
  if (rank == 3)
    view.batch = {0};
  view.rows = {rank - 2};
  view.cols = {rank - 1};

  std::optional<FoldedOperand> best;
  SmallVector<Operation *> chain;
  // The buffers written from the op the scan is at to the matmul.
  SmallVector<Value> written;
  auto writes = [](ArrayRef<Value> buffers, Value buffer) {
    return llvm::any_of(buffers,
                        [&](Value w) { return mpt::mayAlias(w, buffer); });
  };
  for (Operation *prev = matmul->getPrevNode();
       prev &&
       (!maxTransposes || static_cast<int64_t>(chain.size()) < maxTransposes);
       prev = prev->getPrevNode()) {
    mpt::Accesses a = accesses(prev);
    if (a.unknown)
      break;
    if (!writes(a.writes, mpt::rootOf(view.buffer))) {
      llvm::append_range(written, a.writes);
      continue;
    }
    // The last write of the buffer: a transpose of all of it, whose input
    // (a plain buffer through reshapes) nothing writes from here on.
    auto transpose = dyn_cast<linalg::TransposeOp>(prev);
    if (!transpose || !transpose.hasPureBufferSemantics() ||
        reshapeSource(transpose.getInit()) != view.buffer ||
        !plainBuffer(transpose.getInput()))
      break;
    std::optional<View> before = view.through(transpose);
    if (!before || !plainBuffer(before->buffer) ||
        writes(written, mpt::rootOf(before->buffer)))
      break;
    llvm::append_range(written, a.writes);
    view = *before;
    chain.push_back(transpose);
    if (std::optional<bool> transposed = view.readable(chunk)) {
      best = FoldedOperand{view.buffer, view.shape,  view.batch, view.rows,
                           view.cols,   *transposed, chain};
    }
  }
  return best;
}
