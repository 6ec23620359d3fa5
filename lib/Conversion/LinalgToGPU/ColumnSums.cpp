//===- ColumnSums.cpp - a bias gradient in the weight gradient's kernel ---===//
//
// A linear layer's backward pass computes dW = X^T dY and db, the sum of
// dY over the tokens: a matmul whose B is dY, and a reduction of B's
// columns over K that reads dY once more in a kernel of its own (cuBLASLt
// offers the same fusion as its BGRADB epilogue). The blocks of the
// matmul's first row of tiles see every K tile of their columns of B in
// shared memory; they add them up as well, in f32, and store the sums
// after their last K tile. The other blocks skip it (a branch the whole
// block takes).
//
// A thread's slot is 8 elements of a K tile that lie together in shared
// memory: 8 columns of a row of B, the rows k % 8 == r of 8 consecutive
// threads (combined by shuffles at the end), or, B transposed (N x K), 8
// consecutive K of one column. The order of the additions is fixed: the
// same sums on every run and every GPU.
//
//===----------------------------------------------------------------------===//

#include "ColumnSums.h"

#include "BufferAccesses.h"
#include "TensorCoreKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

bool mpt::sumsColumnsOf(linalg::GenericOp generic, Value b) {
  bool buffers = generic.hasPureBufferSemantics();
  if ((!buffers && !generic.hasPureTensorSemantics()) ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != 2 || generic.getNumReductionLoops() != 1 ||
      generic.getDpsInputOperand(0)->get() != b)
    return false;
  unsigned k =
      generic.getIteratorTypesArray()[0] == utils::IteratorType::reduction ? 0
                                                                           : 1;
  MLIRContext *ctx = generic.getContext();
  AffineExpr kDim = getAffineDimExpr(k, ctx),
             nDim = getAffineDimExpr(1 - k, ctx);
  AffineMap in = generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
  AffineMap out = generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
  if (in.getNumResults() != 2 || in.getResult(0) != kDim ||
      in.getResult(1) != nDim || out.getNumResults() != 1 ||
      out.getResult(0) != nDim)
    return false;
  auto plain = [](Type type, int64_t rank) {
    auto shaped = dyn_cast<ShapedType>(type);
    auto memref = dyn_cast<MemRefType>(type);
    return shaped && shaped.getRank() == rank && shaped.hasStaticShape() &&
           (!memref || memref.getLayout().isIdentity());
  };
  Type outType = generic.getDpsInitOperand(0)->get().getType();
  if (!plain(b.getType(), 2) || !plain(outType, 1) ||
      !cast<ShapedType>(outType).getElementType().isF32() ||
      cast<ShapedType>(outType).getDimSize(0) !=
          cast<ShapedType>(b.getType()).getDimSize(1))
    return false;
  // The body: (extf of) the element added to the sum.
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  Value element = body.getArgument(0), sum = body.getArgument(1);
  if (!add ||
      body.getOperations().size() != (element.getType().isF32() ? 2u : 3u))
    return false;
  Value term = add.getLhs() == sum   ? add.getRhs()
               : add.getRhs() == sum ? add.getLhs()
                                     : Value();
  if (!term)
    return false;
  if (auto ext = term.getDefiningOp<arith::ExtFOp>())
    term = ext.getIn();
  return term == element;
}

/// The type of the B whose columns `generic` (on tensors) sums, where B is
/// a static 2-D tensor that a linalg.matmul with an f32 result (and a
/// static A of B's element type, without user-defined maps) takes as B.
static RankedTensorType summedMatmulB(linalg::GenericOp generic) {
  if (!generic.hasPureTensorSemantics() || generic.getNumDpsInputs() != 1)
    return {};
  Value b = generic.getDpsInputOperand(0)->get();
  auto type = dyn_cast<RankedTensorType>(b.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !mpt::sumsColumnsOf(generic, b))
    return {};
  bool readByMatmul = llvm::any_of(b.getUsers(), [&](Operation *user) {
    auto matmul = dyn_cast<linalg::MatmulOp>(user);
    if (!matmul || matmul.hasUserDefinedMaps() ||
        matmul.getDpsInputs()[1] != b ||
        !getElementTypeOrSelf(matmul.getDpsInits()[0].getType()).isF32())
      return false;
    // (Any M: the kernels' partial tiles zero-fill rows past it.)
    auto a = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
    return a && a.hasStaticShape() &&
           a.getElementType() == type.getElementType();
  });
  return readByMatmul ? type : RankedTensorType();
}

bool mpt::sumsColumnsOfMatmulB(linalg::GenericOp generic, bool tf32) {
  RankedTensorType type = summedMatmulB(generic);
  if (!type)
    return false;
  // 16-bit rows of K and N a multiple of 8 elements (16 bytes); tf32 (f32)
  // K a multiple of 4, N of 8 (the sums' groups of 8 columns).
  Type element = type.getElementType();
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  bool sixteen = element.isF16() || element.isBF16();
  return sixteen ? k % 8 == 0 && n % 8 == 0
                 : tf32 && element.isF32() && k % 4 == 0 && n % 8 == 0;
}

bool mpt::sumsColumnsOfSimtMatmulB(linalg::GenericOp generic, bool tf32) {
  RankedTensorType type = summedMatmulB(generic);
  if (!type)
    return false;
  // Rows of B (or of A, K) that no asynchronous copy takes: not 16 bytes.
  // f32 operands take the SIMT kernel unless tf32 sends them to mma.sync.
  Type element = type.getElementType();
  int64_t perChunk = element.isF32() ? 4 : 8;
  bool unaligned =
      type.getDimSize(0) % perChunk || type.getDimSize(1) % perChunk;
  return (element.isF32() && (!tf32 || unaligned)) ||
         ((element.isF16() || element.isBF16()) && unaligned);
}

namespace mpt::tc {

std::optional<ColumnSums>
findColumnSums(Operation *matmul, Value b, Operation *epilogue,
               function_ref<mpt::Accesses(Operation *)> accesses, bool simt) {
  auto bType = dyn_cast<MemRefType>(b.getType());
  if (!isa<linalg::MatmulOp>(matmul) || !bType || bType.getRank() != 2 ||
      !bType.hasStaticShape() || !bType.getLayout().isIdentity())
    return std::nullopt;
  // (The Tensor Core kernels' sums go by groups of 8 columns; f32 B is
  // tf32's.)
  Type element = bType.getElementType();
  if (!(element.isF16() || element.isBF16() || element.isF32()) ||
      (!simt && bType.getDimSize(1) % 8))
    return std::nullopt;
  Value bRoot = mpt::rootOf(b);
  auto any = [](ArrayRef<Value> buffers, Value buffer) {
    return llvm::any_of(buffers,
                        [&](Value v) { return mpt::mayAlias(v, buffer); });
  };
  // The sums of `generic` at the matmul, `between` them the ops that lie
  // between the two: none of them may write B or touch the sums (but for
  // their zero fill, which goes), nor may the matmul's epilogue.
  auto at = [&](linalg::GenericOp generic,
                ArrayRef<Operation *> between) -> std::optional<ColumnSums> {
    ColumnSums sums;
    sums.reduction = generic;
    sums.out = generic.getDpsInitOperand(0)->get();
    Value outRoot = mpt::rootOf(sums.out);
    if (mpt::mayAlias(outRoot, bRoot) ||
        llvm::any_of(matmul->getOperands(), [&](Value v) {
          return mpt::mayAlias(mpt::rootOf(v), outRoot);
        }))
      return std::nullopt;
    if (std::optional<FusedEpilogue> zero =
            findZeroStart(generic, sums.out, accesses))
      sums.fill = zero->fill;
    SmallVector<Operation *> checked(between);
    if (epilogue)
      checked.push_back(epilogue);
    for (Operation *op : checked) {
      if (op == sums.fill)
        continue;
      mpt::Accesses a = accesses(op);
      if (a.unknown || any(a.writes, bRoot) || any(a.reads, outRoot) ||
          any(a.writes, outRoot))
        return std::nullopt;
    }
    return sums;
  };
  // The nearest such generic before the matmul, or after it.
  SmallVector<Operation *> between;
  for (Operation *prev = matmul->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    auto generic = dyn_cast<linalg::GenericOp>(prev);
    if (generic && mpt::sumsColumnsOf(generic, b))
      return at(generic, between);
    between.push_back(prev);
  }
  between.clear();
  for (Operation *next = matmul->getNextNode(); next;
       next = next->getNextNode()) {
    auto generic = dyn_cast<linalg::GenericOp>(next);
    if (generic && mpt::sumsColumnsOf(generic, b))
      return at(generic, between);
    if (next != epilogue)
      between.push_back(next);
  }
  return std::nullopt;
}

void ColumnSums::erase() const {
  reduction->erase();
  if (fill)
    fill->erase();
}

std::string ColumnSums::describe() const {
  return std::string(", B's column sums (a bias gradient) added up in the "
                     "kernel") +
         (fill ? "" : " and added to their buffer");
}

int64_t ColumnSumsBuilder::slots() const {
  return llvm::divideCeil(bn, threads);
}

SmallVector<Value> ColumnSumsBuilder::zeros(OpBuilder &b, Location loc) const {
  auto type = VectorType::get({8}, b.getF32Type());
  Value zero = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  return SmallVector<Value>(slots(), zero);
}

SmallVector<Value> ColumnSumsBuilder::accumulate(OpBuilder &outer, Location loc,
                                                 Value when, Value tid,
                                                 ValueRange partial,
                                                 LoadFn load) const {
  auto add = scf::IfOp::create(outer, loc, TypeRange(partial), when,
                               /*withElseRegion=*/true);
  OpBuilder eb = add.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, partial);
  OpBuilder b = add.getThenBodyBuilder();
  auto f32x8 = VectorType::get({8}, b.getF32Type());
  SmallVector<Value> sums;
  for (int64_t r = 0; r < slots(); ++r) {
    auto add = [&](OpBuilder &ab) {
      IndexMath am{ab, loc};
      Value slot = am.add(tid, r * threads);
      Value sum = partial[r];
      // Rows r % 8 of 8 columns, or the K tile's 8-element runs of a column.
      for (int64_t i = 0; i < bk / 8; ++i) {
        Value v = transposedB ? load(ab, am.c(8 * i), slot)
                              : load(ab, am.add(am.rem(slot, 8), 8 * i),
                                     am.mul(am.div(slot, 8), 8));
        if (v.getType() != f32x8)
          v = arith::ExtFOp::create(ab, loc, f32x8, v);
        sum = arith::AddFOp::create(ab, loc, sum, v);
      }
      return sum;
    };
    if ((r + 1) * threads <= bn) {
      sums.push_back(add(b));
      continue;
    }
    // A slot past the tile's columns (or column groups) adds nothing.
    IndexMath im{b, loc};
    auto guard = scf::IfOp::create(
        b, loc, TypeRange{f32x8},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                              im.add(tid, r * threads), im.c(bn)),
        /*withElseRegion=*/true);
    OpBuilder tb = guard.getThenBodyBuilder();
    scf::YieldOp::create(tb, loc, add(tb));
    OpBuilder eb = guard.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, partial[r]);
    sums.push_back(guard.getResult(0));
  }
  scf::YieldOp::create(b, loc, sums);
  return SmallVector<Value>(add.getResults());
}

void ColumnSumsBuilder::store(OpBuilder &outer, Location loc, Value when,
                              Value tid, ValueRange partial, Value nBase,
                              int64_t n) const {
  auto write = scf::IfOp::create(outer, loc, when, /*withElseRegion=*/false);
  OpBuilder b = write.getThenBodyBuilder();
  IndexMath im{b, loc};
  Type f32 = b.getF32Type();
  for (int64_t r = 0; r < slots(); ++r) {
    Value slot = im.add(tid, r * threads);
    Value sum = partial[r];
    Value column, mine;
    if (transposedB) {
      // One column: its 8 partial sums, in a fixed order.
      sum =
          vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, sum);
      column = im.add(nBase, slot);
      mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, slot,
                                   im.c(bn));
    } else {
      // 8 columns over the 8 lanes that hold their rows: every lane of the
      // warp shuffles, the first of the 8 stores.
      for (int32_t offset : {1, 2, 4}) {
        SmallVector<Value> lanes;
        for (int64_t e = 0; e < 8; ++e) {
          Value v = vector::ExtractOp::create(b, loc, sum, e);
          Value other = gpu::ShuffleOp::create(b, loc, v, offset, 32,
                                               gpu::ShuffleMode::XOR)
                            .getShuffleResult();
          lanes.push_back(arith::AddFOp::create(b, loc, v, other));
        }
        sum = vector::FromElementsOp::create(b, loc, VectorType::get({8}, f32),
                                             lanes);
      }
      column = im.add(nBase, im.mul(im.div(slot, 8), 8));
      mine = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                im.rem(slot, 8), im.c(0)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, slot,
                                im.c(bn)));
    }
    Value inside = arith::AndIOp::create(
        b, loc, mine,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column,
                              im.c(n)));
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder gb = guard.getThenBodyBuilder();
    int64_t width = transposedB ? 1 : 8;
    auto load = [&]() -> Value {
      if (width == 1)
        return memref::LoadOp::create(gb, loc, sums.out, ValueRange{column});
      return vector::LoadOp::create(gb, loc, VectorType::get({8}, f32),
                                    sums.out, ValueRange{column});
    };
    if (!sums.fill)
      sum = arith::AddFOp::create(gb, loc, load(), sum);
    if (width == 1)
      memref::StoreOp::create(gb, loc, sum, sums.out, ValueRange{column});
    else
      vector::StoreOp::create(gb, loc, sum, sums.out, ValueRange{column});
  }
}

} // namespace mpt::tc
