//===- FoldTransposesIntoLoads.cpp - mpt-fold-transposes-into-loads -------===//
//
// A transpose whose result only loop nests read (a reduction, an
// elementwise op: what becomes a SIMT kernel) costs a kernel and a buffer
// of its own. Its readers are lowered to loops here, and their loads of the
// result read the transpose's input instead, at the permuted indices; the
// transpose and its buffer go. The indices go through the shapes of one
// buffer (a head merge is a transpose of [B, H, T, D] to [B, T, H, D] read
// as [B*T, H*D]): each index of the view read is split into the dimensions
// of a common refinement of the view's shape and the transpose's, which are
// joined again as the transpose's indices (affine.delinearize_index and
// linearize_index; nothing where the shapes agree).
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "BufferAccesses.h"
#include "Reshapes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

namespace mpt {
#define GEN_PASS_DEF_FOLDTRANSPOSESINTOLOADS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

bool staticIdentity(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() && type.getLayout().isIdentity();
}

/// A transpose to fold and the ops that read its result.
struct Fold {
  linalg::TransposeOp transpose;
  memref::AllocOp buffer;
  SmallVector<Operation *> readers; // in program order
};

struct FoldTransposesIntoLoadsPass
    : public mpt::impl::FoldTransposesIntoLoadsBase<
          FoldTransposesIntoLoadsPass> {
  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk(
        [&](linalg::TransposeOp op) { transposes.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::TransposeOp op : transposes)
      if (std::optional<Fold> fold = foldable(op))
        apply(rewriter, *fold);
  }

  /// Whether a loop nest reads `op` as well as linalg's loops would: not a
  /// matmul or convolution (their kernels are tiled, not loops), not a
  /// transpose (which may fold itself).
  static bool loopReader(Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && linalgOp.hasPureBufferSemantics() &&
           !isa<linalg::TransposeOp>(op) &&
           !linalg::isaContractionOpInterface(linalgOp) &&
           !linalg::isaConvolutionOpInterface(linalgOp);
  }

  /// `op` and its readers, if every use of its result buffer (through
  /// reshapes) is `op` writing it, a loop reader after it in its block
  /// reading it, or its free; if nothing from `op` to the last reader writes
  /// the transpose's input; and if folding does not make reads strided
  /// that were not: the innermost dimension stays innermost, or one op
  /// reads the result (it then reads the input as the transpose did).
  static std::optional<Fold> foldable(linalg::TransposeOp op) {
    if (!op.hasPureBufferSemantics() || !staticIdentity(op.getInit()))
      return std::nullopt;
    auto inputType = dyn_cast<MemRefType>(op.getInput().getType());
    if (!inputType || !inputType.hasStaticShape())
      return std::nullopt;
    Fold fold;
    fold.transpose = op;
    fold.buffer = mpt::rootOf(op.getInit()).getDefiningOp<memref::AllocOp>();
    if (!fold.buffer || fold.buffer->getBlock() != op->getBlock() ||
        mpt::reshapeSource(op.getInit()) != fold.buffer.getResult())
      return std::nullopt;
    ArrayRef<int64_t> result =
        cast<MemRefType>(op.getInit().getType()).getShape();
    llvm::SetVector<Operation *> readers;
    SmallVector<Value> views{fold.buffer.getResult()};
    while (!views.empty()) {
      Value view = views.pop_back_val();
      for (OpOperand &use : view.getUses()) {
        Operation *user = use.getOwner();
        if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
          views.push_back(user->getResult(0));
          continue;
        }
        if (isa<memref::DeallocOp>(user) ||
            (user == op.getOperation() && op.isDpsInit(&use)))
          continue;
        if (!loopReader(user) || user->getBlock() != op->getBlock() ||
            !op->isBeforeInBlock(user) ||
            !cast<linalg::LinalgOp>(user).isDpsInput(&use) ||
            !mpt::commonRefinement(cast<MemRefType>(view.getType()).getShape(),
                                   result))
          return std::nullopt;
        readers.insert(user);
      }
    }
    if (readers.empty())
      return std::nullopt;
    fold.readers = readers.takeVector();
    ArrayRef<int64_t> perm = op.getPermutation();
    if (fold.readers.size() > 1 && perm.back() != int64_t(perm.size()) - 1)
      return std::nullopt;
    llvm::sort(
        fold.readers.begin(), fold.readers.end(),
        [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    // (A reader writing the buffer it reads through the transpose would
    // read its own writes: the loop above allows its inputs only.)
    Value input = mpt::rootOf(op.getInput());
    for (Operation *next = op->getNextNode();; next = next->getNextNode()) {
      mpt::Accesses a = mpt::builtAccessesOf(next);
      if (a.unknown || llvm::any_of(a.writes, [&](Value w) {
            return mpt::mayAlias(w, input);
          }))
        return std::nullopt;
      if (next == fold.readers.back())
        break;
    }
    return fold;
  }

  static void apply(IRRewriter &rewriter, Fold fold) {
    linalg::TransposeOp op = fold.transpose;
    bool all = true;
    for (Operation *reader : fold.readers) {
      llvm::SmallPtrSet<Value, 4> views;
      for (Value input : cast<linalg::LinalgOp>(reader).getDpsInputs())
        if (mpt::rootOf(input) == fold.buffer.getResult())
          views.insert(input);
      Operation *before = reader->getPrevNode();
      rewriter.setInsertionPoint(reader);
      if (failed(linalg::linalgOpToParallelLoops(
              rewriter, cast<linalg::LinalgOp>(reader)))) {
        all = false; // (the readers already lowered read the input)
        continue;
      }
      SmallVector<memref::LoadOp> loads;
      for (Operation *made = before ? before->getNextNode()
                                    : &reader->getBlock()->front();
           made != reader; made = made->getNextNode())
        made->walk([&](memref::LoadOp load) {
          if (views.contains(load.getMemRef()))
            loads.push_back(load);
        });
      rewriter.eraseOp(reader);
      for (memref::LoadOp load : loads)
        redirect(rewriter, op, load);
    }
    if (!all)
      return;
    rewriter.eraseOp(op);
    mpt::eraseIfUnread(fold.buffer);
  }

  /// Makes `load`, of a view of the result of `op`, load the element of
  /// `op`'s input that `op` would have stored there.
  static void redirect(IRRewriter &rewriter, linalg::TransposeOp op,
                       memref::LoadOp load) {
    rewriter.setInsertionPoint(load);
    Location loc = load.getLoc();
    ArrayRef<int64_t> viewShape = load.getMemRefType().getShape();
    ArrayRef<int64_t> resultShape =
        cast<MemRefType>(op.getInit().getType()).getShape();
    SmallVector<int64_t> fine = *mpt::commonRefinement(viewShape, resultShape);
    SmallVector<Value> fineIndex(fine.size());
    for (auto [index, pieces] :
         llvm::zip_equal(load.getIndices(), mpt::piecesOf(viewShape, fine))) {
      if (pieces.size() == 1) {
        fineIndex[pieces[0]] = index;
      } else if (pieces.size() > 1) {
        SmallVector<int64_t> basis;
        for (int64_t piece : pieces)
          basis.push_back(fine[piece]);
        auto split = affine::AffineDelinearizeIndexOp::create(
            rewriter, loc, index, basis, /*hasOuterBound=*/true);
        for (auto [piece, value] : llvm::zip_equal(pieces, split.getResults()))
          fineIndex[piece] = value;
      }
    }
    // Result dim j is input dim perm[j].
    ArrayRef<int64_t> perm = op.getPermutation();
    SmallVector<Value> inputIndex(perm.size());
    for (auto [j, pieces] : llvm::enumerate(mpt::piecesOf(resultShape, fine))) {
      Value index;
      if (pieces.empty()) {
        index = arith::ConstantIndexOp::create(rewriter, loc, 0);
      } else if (pieces.size() == 1) {
        index = fineIndex[pieces[0]];
      } else {
        SmallVector<Value> parts;
        SmallVector<int64_t> basis;
        for (int64_t piece : pieces) {
          parts.push_back(fineIndex[piece]);
          basis.push_back(fine[piece]);
        }
        index = affine::AffineLinearizeIndexOp::create(
            rewriter, loc, parts, basis, /*disjoint=*/true);
      }
      inputIndex[perm[j]] = index;
    }
    rewriter.replaceOpWithNewOp<memref::LoadOp>(load, op.getInput(),
                                                inputIndex);
  }
};

} // namespace
