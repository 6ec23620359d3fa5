//===- SimtMatmul.cpp - the tiled SIMT matmul kernel ----------------------===//
//
// The kernel for the matmuls that Tensor Cores do not take (f32 without
// tf32, shapes that are not multiples of 8 or 16, bf16 before sm_80): C +=
// A B with f32 accumulation, operands of any float type converted to f32 as
// they are staged.
//
// Where C was zero-filled just before, the kernel stores its sums without
// reading C (the fill goes), or, where an elementwise op reads C next (a
// bias add and activation, a rounding to f16), that op's result
// (FusedEpilogue, as the Tensor Core kernels do).
//
// Block: 256 threads (16 x 16) on a T x T tile of C, T = 128 (8 x 8 outputs
// per thread) when the grid still fills the GPU (`sms` blocks, 132 by
// default: an H100/H200), otherwise
// T = 64 (4 x 4); K in steps of BK = 1024 / T, so that each thread stages
// four elements of A and four of B per step. A thread's outputs are groups
// of V consecutive rows and columns, the 16 threads' groups side by side
// (rows V ty + 16 V i + e, columns V tx + 16 V j + e, e < V): it reads
// them from the shared slices as vectors of V, consecutive threads read
// consecutive vectors of B's slice and write consecutive columns of C, and
// the 16 threads of a half-warp read one vector of A's slice (a
// broadcast). V is 4 (16 bytes of f32) unless `simt-vector-bytes` is
// smaller; V = 1 is the classic layout, rows ty + 16 i.
//
// Staging: a thread loads its four elements of A as vectors of up to V
// consecutive K of a row (as many as divide K), of B as vectors of
// consecutive columns (as many as divide N), consecutive threads on
// consecutive vectors; with identity layouts and aligned bases, a vector
// at a multiple of its width is aligned. C is updated the same way. A
// transposed operand is read as it lies in memory (MatmulInfo::transposedA
// and B, the input of the transpose the matmul read): A^T (K x M) in
// vectors along M, stored straight into the slice; B^T (N x K) in vectors
// along K, stored transposed as A is (its slice's rows padded too). An
// operand read through a view (OperandView: attention's head split and
// merge) is loaded at the view's indices, its vectors within the view's
// last dim.
//
// Pipeline: two shared buffers of A's slice (transposed, rows padded by 4
// words so that the threads that stage one row of A write different banks)
// and B's. Step s computes from buffer s % 2 while the loads of step s + 1
// are in flight into registers; they go to the other buffer after the
// products, and one barrier per step orders both (a thread writes buffer
// (s + 1) % 2 only after every thread passed the barrier that ended step
// s - 1, the last to read it). Loads outside A and B (edges, the step past
// K) read nothing and give zero: a vector lies either inside or past the
// last column, as its width divides K or N.
//
// Column sums (a bias gradient, ColumnSums): in the blocks of C's first row
// of tiles, thread t < T also adds up column t of each step's slice of B
// (zeros past K and N) in an f32 register, in order, and stores it at the
// end. The slice's rows are consecutive words: no bank conflicts.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;

namespace mpt::tc {

namespace {
constexpr int64_t kSide = 16, kThreads = kSide * kSide;
/// Row padding of A's transposed slice, in words.
constexpr int64_t kPadA = 4;

/// The side of the tiles of C for `info`: 128 when that gives at least one
/// block per SM (`sms` of them), else 64.
int64_t simtTile(const MatmulInfo &info, int64_t sms) {
  int64_t blocks = llvm::divideCeil(info.m, 128) *
                   llvm::divideCeil(info.n, 128) *
                   std::max<int64_t>(info.batch, 1);
  return blocks >= sms ? 128 : 64;
}
} // namespace

bool simtMatmulApplies(const MatmulInfo &info) {
  auto isFloat = [](Type t) { return t.isF16() || t.isBF16() || t.isF32(); };
  auto cType = cast<MemRefType>(info.c.getType());
  return isFloat(info.element) && cType.getElementType().isF32() &&
         cast<MemRefType>(info.b.getType()).getElementType() == info.element;
}

SimtVectors simtVectors(const MatmulInfo &info, int64_t vectorBytes) {
  // The staged values are f32: vectors of up to vector-bytes of them, at
  // most 4 (the elements a thread stages of each operand per step), along
  // the contiguous dim of A and B as they lie in memory (K of A, M of A^T,
  // N of B, K of B^T; through a view, within its last dim).
  int64_t width = std::clamp<int64_t>(vectorBytes / 4, 1, 4);
  auto along = [&](int64_t extent,
                   const std::optional<OperandView> &view = std::nullopt) {
    int64_t w = width;
    int64_t last =
        view ? cast<MemRefType>(view->source.getType()).getShape().back() : w;
    while (extent % w || last % w)
      w /= 2;
    return w;
  };
  return {along(info.transposedA ? info.m : info.k, info.viewA),
          along(info.transposedB ? info.k : info.n, info.viewB), along(info.n),
          width};
}

Operation *buildSimtMatmulKernel(OpBuilder &outer, Location loc,
                                 const MatmulInfo &info, int64_t sms,
                                 int64_t vectorBytes,
                                 const FusedEpilogue *epilogue,
                                 const ColumnSums *columnSums) {
  const bool fromZero = epilogue != nullptr;
  MLIRContext *ctx = outer.getContext();
  Type f32 = outer.getF32Type();
  const int64_t tile = simtTile(info, sms), step = kThreads * 4 / tile;
  const int64_t micro = tile / kSide;
  // B^T is staged transposed as A is: its rows padded too.
  const int64_t padB = info.transposedB ? kPadA : 0;
  const int64_t aBytes = 2 * step * (tile + kPadA) * 4;
  const int64_t bBytes = 2 * step * (tile + padB) * 4;
  const SimtVectors vec = simtVectors(info, vectorBytes);
  IndexMath hm{outer, loc};
  Value sharedBytes = arith::ConstantIntOp::create(
      outer, loc, outer.getI32Type(), aBytes + bBytes);
  auto launch =
      gpu::LaunchOp::create(outer, loc, hm.c(llvm::divideCeil(info.n, tile)),
                            hm.c(llvm::divideCeil(info.m, tile)),
                            hm.c(std::max<int64_t>(info.batch, 1)),
                            hm.c(kThreads), hm.c(1), hm.c(1), sharedBytes);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  IndexMath im{b, loc};
  Value tid = launch.getThreadIds().x;
  Value tx = im.rem(tid, kSide), ty = im.div(tid, kSide);
  Value batch = info.batch ? launch.getBlockIds().z : Value();
  Value rowBase = im.mul(launch.getBlockIds().y, tile);
  Value colBase = im.mul(launch.getBlockIds().x, tile);

  Attribute shared =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), shared);
  Value dynamic = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  // as[buffer][k][row] (A's slice transposed, rows padded) and
  // bs[buffer][k][col]. Rows are multiples of 16 bytes, so vectors at
  // multiples of their width are aligned.
  Value as = memref::ViewOp::create(
      b, loc,
      MemRefType::get({2, step, tile + kPadA}, f32, MemRefLayoutAttrInterface(),
                      shared),
      dynamic, im.c(0), ValueRange());
  Value bs = memref::ViewOp::create(b, loc,
                                    MemRefType::get({2, step, tile + padB}, f32,
                                                    MemRefLayoutAttrInterface(),
                                                    shared),
                                    dynamic, im.c(aBytes), ValueRange());

  // `width` elements of `memref` from `index` on: a scalar for 1, else one
  // vector access stating its alignment.
  auto typeOf = [&](Type element, int64_t width) -> Type {
    return width == 1 ? element : VectorType::get({width}, element);
  };
  auto load = [&](OpBuilder &lb, Value memref, ValueRange index,
                  int64_t width) -> Value {
    if (width == 1)
      return memref::LoadOp::create(lb, loc, memref, index);
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    return vector::LoadOp::create(
        lb, loc, cast<VectorType>(typeOf(element, width)), memref, index,
        /*nontemporal=*/false,
        llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8));
  };
  auto store = [&](OpBuilder &sb, Value value, Value memref, ValueRange index) {
    auto vector = dyn_cast<VectorType>(value.getType());
    if (!vector) {
      memref::StoreOp::create(sb, loc, value, memref, index);
      return;
    }
    vector::StoreOp::create(sb, loc, value, memref, index,
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(vector.getNumElements() * 4));
  };
  auto element = [&](OpBuilder &eb, Value value, int64_t e) -> Value {
    if (!isa<VectorType>(value.getType()))
      return value;
    return vector::ExtractOp::create(eb, loc, value, ArrayRef<int64_t>{e});
  };

  // `width` elements (row, col..col + width - 1) of `matrix` (rows x cols
  // as it lies in memory, cols a multiple of width, col of it; through
  // `view` where it is read through one) as f32, zero outside.
  auto loadOrZero = [&](OpBuilder &lb, Value matrix,
                        const std::optional<OperandView> &view, Value row,
                        Value col, int64_t rows, int64_t cols,
                        int64_t width) -> Value {
    Type type = typeOf(f32, width);
    Value inside = IndexMath{lb, loc}.inside(row, rows, col, cols);
    auto guard = scf::IfOp::create(lb, loc, TypeRange{type}, inside,
                                   /*withElseRegion=*/true);
    {
      OpBuilder tb = guard.getThenBodyBuilder();
      IndexMath tm{tb, loc};
      Value v = view ? load(tb, view->source,
                            mpt::tc::at(tm, *view, batch, row, col), width)
                     : load(tb, matrix, at(batch, row, col), width);
      if (v.getType() != type)
        v = arith::ExtFOp::create(tb, loc, type, v);
      scf::YieldOp::create(tb, loc, v);
    }
    {
      OpBuilder eb = guard.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc,
                           ValueRange{arith::ConstantOp::create(
                               eb, loc, type, eb.getZeroAttr(type))});
    }
    return guard.getResult(0);
  };
  // This thread's four elements of A's and of B's slice at K offset `k0`,
  // as 4 / width vectors of `width` consecutive elements along the
  // operand's contiguous dim (consecutive threads on consecutive vectors),
  // and where they go in a buffer: K of A's rows and of B^T's go to
  // consecutive rows of the slice (transposed), M of A^T's and N of B's
  // along one row of it.
  struct Staged {
    SmallVector<Value> a, b;
  };
  // Transposed staging (A, B^T): a warp takes 8 consecutive K (a vector of
  // `width` at lane % (8 / width)) of 4 width consecutive rows (lane / (8 /
  // width)), the warps of a row of 8 K side by side along K: their
  // transposed stores of element e then hit distinct banks (row + 4 K mod
  // 32 with rows padded to 4 mod 32 words), where taking all `step` K of a
  // row (16 at 64x64) put K and K + 8 of one row in one bank. A warp reads
  // 32 bytes of each row, whole sectors, as before. Returns (k, row).
  auto transposing = [&](IndexMath &lm, int64_t v, int64_t width) {
    const int64_t perRow = 8 / width, rows = 4 * width, kBlocks = step / 8;
    Value q = lm.add(tid, v * kThreads);
    Value lane = lm.rem(q, 32), warp = lm.div(q, 32);
    Value k = lm.add(lm.mul(lm.rem(warp, kBlocks), 8),
                     lm.mul(lm.rem(lane, perRow), width));
    Value row =
        lm.add(lm.mul(lm.div(warp, kBlocks), rows), lm.div(lane, perRow));
    return std::make_pair(k, row);
  };
  // Direct staging (A^T, B): consecutive vectors along a row of the slice.
  // Returns (k, column).
  auto direct = [&](IndexMath &lm, int64_t v, int64_t width) {
    Value idx = lm.mul(lm.add(tid, v * kThreads), width);
    return std::make_pair(lm.div(idx, tile), lm.rem(idx, tile));
  };
  auto indexA = [&](IndexMath &lm, int64_t v) {
    return info.transposedA ? direct(lm, v, vec.a) : transposing(lm, v, vec.a);
  };
  auto indexB = [&](IndexMath &lm, int64_t v) {
    return info.transposedB ? transposing(lm, v, vec.b) : direct(lm, v, vec.b);
  };
  auto stage = [&](OpBuilder &lb, Value k0) {
    IndexMath lm{lb, loc};
    Staged s;
    for (int64_t v = 0; v < 4 / vec.a; ++v) {
      auto [ak, row] = indexA(lm, v);
      Value k = lm.add(k0, ak), m = lm.add(rowBase, row);
      s.a.push_back(info.transposedA ? loadOrZero(lb, info.a, info.viewA, k, m,
                                                  info.k, info.m, vec.a)
                                     : loadOrZero(lb, info.a, info.viewA, m, k,
                                                  info.m, info.k, vec.a));
    }
    for (int64_t v = 0; v < 4 / vec.b; ++v) {
      auto [bk, col] = indexB(lm, v);
      Value k = lm.add(k0, bk), n = lm.add(colBase, col);
      s.b.push_back(info.transposedB ? loadOrZero(lb, info.b, info.viewB, n, k,
                                                  info.n, info.k, vec.b)
                                     : loadOrZero(lb, info.b, info.viewB, k, n,
                                                  info.k, info.n, vec.b));
    }
    return s;
  };
  auto put = [&](OpBuilder &sb, const Staged &s, Value buffer) {
    IndexMath sm{sb, loc};
    // Transposed: the vector's elements go to consecutive rows of the
    // slice; direct: along one.
    auto place = [&](Value value, Value slice, Value k, Value col,
                     bool transposed, int64_t width) {
      if (!transposed) {
        store(sb, value, slice, ValueRange{buffer, k, col});
        return;
      }
      for (int64_t e = 0; e < width; ++e)
        memref::StoreOp::create(sb, loc, element(sb, value, e), slice,
                                ValueRange{buffer, sm.add(k, e), col});
    };
    for (auto [v, value] : llvm::enumerate(s.a)) {
      auto [ak, row] = indexA(sm, v);
      place(value, as, ak, row, !info.transposedA, vec.a);
    }
    for (auto [v, value] : llvm::enumerate(s.b)) {
      auto [bk, col] = indexB(sm, v);
      place(value, bs, bk, col, info.transposedB, vec.b);
    }
  };
  // A thread's rows (columns) are groups of `vec.shared` consecutive ones,
  // the groups of the 16 threads side by side, 16 * vec.shared apart:
  // row i of the micro-tile is this offset from the tile's first row plus
  // ty * vec.shared.
  auto spread = [&](int64_t i) {
    return i / vec.shared * kSide * vec.shared + i % vec.shared;
  };
  Value rowOf = im.mul(ty, vec.shared), colOf = im.mul(tx, vec.shared);

  put(b, stage(b, im.c(0)), im.c(0));
  gpu::BarrierOp::create(b, loc);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> inits(micro * micro, zero);
  // Column sums: thread tid of the first row's blocks takes column tid.
  Value sumsHere;
  if (columnSums) {
    sumsHere = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              launch.getBlockIds().y, im.c(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                              im.c(tile)));
    inits.push_back(zero);
  }
  int64_t steps = llvm::divideCeil(info.k, step);
  auto loop = scf::ForOp::create(b, loc, im.c(0), im.c(steps), im.c(1), inits);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    IndexMath lm{lb, loc};
    Value s = loop.getInductionVar();
    Value buffer = lm.rem(s, 2);
    // The next step's loads, in flight during the products.
    Staged next = stage(lb, lm.mul(lm.add(s, 1), step));
    SmallVector<Value> acc(loop.getRegionIterArgs().take_front(micro * micro));
    // This step's rows of column tid of B's slice, added in order.
    if (columnSums) {
      Value sum = loop.getRegionIterArgs().back();
      auto add = scf::IfOp::create(lb, loc, TypeRange{f32}, sumsHere,
                                   /*withElseRegion=*/true);
      OpBuilder tb = add.getThenBodyBuilder();
      IndexMath tm{tb, loc};
      Value partial = sum;
      for (int64_t kk = 0; kk < step; ++kk)
        partial = arith::AddFOp::create(
            tb, loc, partial,
            memref::LoadOp::create(tb, loc, bs,
                                   ValueRange{buffer, tm.c(kk), tid}));
      scf::YieldOp::create(tb, loc, partial);
      OpBuilder eb = add.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, sum);
      acc.push_back(add.getResult(0));
    }
    // The micro-tile's rows of as (columns of bs) at kk, a group at a time.
    auto slice = [&](Value memref, Value first, int64_t kk) {
      SmallVector<Value> values;
      for (int64_t i = 0; i < micro; i += vec.shared) {
        Value v = load(lb, memref,
                       ValueRange{buffer, lm.c(kk), lm.add(first, spread(i))},
                       vec.shared);
        for (int64_t e = 0; e < vec.shared; ++e)
          values.push_back(element(lb, v, e));
      }
      return values;
    };
    for (int64_t kk = 0; kk < step; ++kk) {
      SmallVector<Value> a = slice(as, rowOf, kk), bv = slice(bs, colOf, kk);
      // (acc's last element is the column sum, after the products'.)
      for (int64_t i = 0; i < micro; ++i)
        for (int64_t j = 0; j < micro; ++j)
          acc[i * micro + j] =
              math::FmaOp::create(lb, loc, a[i], bv[j], acc[i * micro + j]);
    }
    put(lb, next, lm.sub(lm.c(1), buffer));
    gpu::BarrierOp::create(lb, loc);
    scf::YieldOp::create(lb, loc, acc);
  }
  // C += the micro-tile (C = it, `fromZero`), where it lies in C: vec.c
  // columns at a time (N is a multiple of vec.c, so such a vector lies in C
  // or past its last column).
  Type cType = typeOf(f32, vec.c);
  for (int64_t i = 0; i < micro; ++i)
    for (int64_t j = 0; j < micro; j += vec.c) {
      Value row = im.add(im.add(rowBase, rowOf), spread(i));
      Value col = im.add(im.add(colBase, colOf), spread(j));
      auto guard =
          scf::IfOp::create(b, loc, im.inside(row, info.m, col, info.n),
                            /*withElseRegion=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      SmallVector<Value> index = at(batch, row, col);
      SmallVector<Value> sums(loop.getResults().slice(i * micro + j, vec.c));
      if (epilogue && epilogue->generic) {
        // The epilogue's generic on the vec.c sums, into its output.
        Value values = vector::FromElementsOp::create(
            gb, loc, VectorType::get({vec.c}, f32), sums);
        epilogue->store(gb, loc, values, batch, row, col);
        continue;
      }
      Value sum = vec.c == 1 ? sums.front()
                             : vector::FromElementsOp::create(
                                   gb, loc, cast<VectorType>(cType), sums)
                                   .getResult();
      if (!fromZero)
        sum =
            arith::AddFOp::create(gb, loc, load(gb, info.c, index, vec.c), sum);
      store(gb, sum, info.c, index);
    }
  // Column tid's sum, where it is a column of B: stored, or added to the
  // vector where no zero fill came before.
  if (columnSums) {
    Value column = im.add(colBase, tid);
    auto guard = scf::IfOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, sumsHere,
                              arith::CmpIOp::create(b, loc,
                                                    arith::CmpIPredicate::ult,
                                                    column, im.c(info.n))),
        /*withElseRegion=*/false);
    OpBuilder gb = guard.getThenBodyBuilder();
    Value sum = loop.getResults().back();
    if (!columnSums->fill)
      sum = arith::AddFOp::create(
          gb, loc,
          memref::LoadOp::create(gb, loc, columnSums->out, ValueRange{column}),
          sum);
    memref::StoreOp::create(gb, loc, sum, columnSums->out, ValueRange{column});
  }
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

std::string describeSimtMatmul(const MatmulInfo &info, int64_t sms,
                               int64_t vectorBytes) {
  int64_t tile = simtTile(info, sms), micro = tile / kSide;
  SimtVectors vec = simtVectors(info, vectorBytes);
  std::string text = "tiled SIMT kernel: " + std::to_string(tile) + "x" +
                     std::to_string(tile) + " tiles of C, K in steps of " +
                     std::to_string(kThreads * 4 / tile) +
                     " through double-buffered shared memory, " +
                     std::to_string(micro) + "x" + std::to_string(micro) +
                     " per thread";
  if (vec.shared > 1)
    text += ", vectors of " + std::to_string(vec.a) + " (A), " +
            std::to_string(vec.b) + " (B), " + std::to_string(vec.c) +
            " (C), " + std::to_string(vec.shared) + " (shared)";
  return text;
}

} // namespace mpt::tc
