//===- SimtMatmul.cpp - the tiled SIMT matmul kernel ----------------------===//
//
// The kernel for the matmuls that Tensor Cores do not take (f32 without
// tf32, shapes that are not multiples of 8 or 16, bf16 before sm_80): C +=
// A B with f32 accumulation, operands of any float type converted to f32 as
// they are staged.
//
// Block: 256 threads (16 x 16) on a T x T tile of C, T = 128 (8 x 8 outputs
// per thread) when the grid still fills the GPU (`sms` blocks, 132 by
// default: an H100/H200), otherwise
// T = 64 (4 x 4); K in steps of BK = 1024 / T, so that each thread stages
// four elements of A and four of B per step. A thread's outputs are rows
// ty + 16 i and columns tx + 16 j: consecutive threads read consecutive
// words of B's slice and write consecutive columns of C, and the 16 threads
// of a half-warp read one word of A's slice (a broadcast).
//
// Pipeline: two shared buffers of A's slice (transposed, rows padded by 4
// words so that the threads that stage one row of A write different banks)
// and B's. Step s computes from buffer s % 2 while the loads of step s + 1
// are in flight into registers; they go to the other buffer after the
// products, and one barrier per step orders both (a thread writes buffer
// (s + 1) % 2 only after every thread passed the barrier that ended step
// s - 1, the last to read it). Loads outside A and B (edges, the step past
// K) read nothing and give zero.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

void buildSimtMatmulKernel(OpBuilder &outer, Location loc,
                           const MatmulInfo &info, int64_t sms) {
  MLIRContext *ctx = outer.getContext();
  Type f32 = outer.getF32Type();
  const int64_t tile = simtTile(info, sms), step = kThreads * 4 / tile;
  const int64_t micro = tile / kSide;
  const int64_t aBytes = 2 * step * (tile + kPadA) * 4;
  const int64_t bBytes = 2 * step * tile * 4;
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
  // bs[buffer][k][col].
  Value as = memref::ViewOp::create(
      b, loc,
      MemRefType::get({2, step, tile + kPadA}, f32, MemRefLayoutAttrInterface(),
                      shared),
      dynamic, im.c(0), ValueRange());
  Value bs = memref::ViewOp::create(b, loc,
                                    MemRefType::get({2, step, tile}, f32,
                                                    MemRefLayoutAttrInterface(),
                                                    shared),
                                    dynamic, im.c(aBytes), ValueRange());

  // Element (row, col) of `matrix` (rows x cols) as f32, zero outside.
  auto loadOrZero = [&](OpBuilder &lb, Value matrix, Value row, Value col,
                        int64_t rows, int64_t cols) -> Value {
    Value inside = IndexMath{lb, loc}.inside(row, rows, col, cols);
    auto guard = scf::IfOp::create(lb, loc, TypeRange{f32}, inside,
                                   /*withElseRegion=*/true);
    {
      OpBuilder tb = guard.getThenBodyBuilder();
      Value v = memref::LoadOp::create(tb, loc, matrix, at(batch, row, col));
      if (!v.getType().isF32())
        v = arith::ExtFOp::create(tb, loc, f32, v);
      scf::YieldOp::create(tb, loc, v);
    }
    {
      OpBuilder eb = guard.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc,
                           ValueRange{arith::ConstantOp::create(
                               eb, loc, eb.getF32FloatAttr(0.0f))});
    }
    return guard.getResult(0);
  };
  // This thread's four elements of A's and of B's slice at K offset `k0`
  // (consecutive threads on consecutive K of a row of A, on consecutive
  // columns of B), and where they go in a buffer.
  struct Staged {
    SmallVector<Value> a, b;
  };
  auto indexA = [&](IndexMath &lm, int64_t e) {
    Value idx = lm.add(tid, e * kThreads);
    return std::make_pair(lm.rem(idx, step), lm.div(idx, step)); // k, row
  };
  auto indexB = [&](IndexMath &lm, int64_t e) {
    Value idx = lm.add(tid, e * kThreads);
    return std::make_pair(lm.div(idx, tile), lm.rem(idx, tile)); // k, col
  };
  auto load = [&](OpBuilder &lb, Value k0) {
    IndexMath lm{lb, loc};
    Staged s;
    for (int64_t e = 0; e < 4; ++e) {
      auto [ak, row] = indexA(lm, e);
      s.a.push_back(loadOrZero(lb, info.a, lm.add(rowBase, row), lm.add(k0, ak),
                               info.m, info.k));
      auto [bk, col] = indexB(lm, e);
      s.b.push_back(loadOrZero(lb, info.b, lm.add(k0, bk), lm.add(colBase, col),
                               info.k, info.n));
    }
    return s;
  };
  auto store = [&](OpBuilder &sb, const Staged &s, Value buffer) {
    IndexMath sm{sb, loc};
    for (int64_t e = 0; e < 4; ++e) {
      auto [ak, row] = indexA(sm, e);
      memref::StoreOp::create(sb, loc, s.a[e], as, ValueRange{buffer, ak, row});
      auto [bk, col] = indexB(sm, e);
      memref::StoreOp::create(sb, loc, s.b[e], bs, ValueRange{buffer, bk, col});
    }
  };

  store(b, load(b, im.c(0)), im.c(0));
  gpu::BarrierOp::create(b, loc);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> inits(micro * micro, zero);
  int64_t steps = llvm::divideCeil(info.k, step);
  auto loop = scf::ForOp::create(b, loc, im.c(0), im.c(steps), im.c(1), inits);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    IndexMath lm{lb, loc};
    Value s = loop.getInductionVar();
    Value buffer = lm.rem(s, 2);
    // The next step's loads, in flight during the products.
    Staged next = load(lb, lm.mul(lm.add(s, 1), step));
    SmallVector<Value> acc(loop.getRegionIterArgs());
    for (int64_t kk = 0; kk < step; ++kk) {
      SmallVector<Value> a, bv;
      for (int64_t i = 0; i < micro; ++i)
        a.push_back(memref::LoadOp::create(
            lb, loc, as, ValueRange{buffer, lm.c(kk), lm.add(ty, i * kSide)}));
      for (int64_t j = 0; j < micro; ++j)
        bv.push_back(memref::LoadOp::create(
            lb, loc, bs, ValueRange{buffer, lm.c(kk), lm.add(tx, j * kSide)}));
      for (int64_t i = 0; i < micro; ++i)
        for (int64_t j = 0; j < micro; ++j)
          acc[i * micro + j] =
              math::FmaOp::create(lb, loc, a[i], bv[j], acc[i * micro + j]);
    }
    store(lb, next, lm.sub(lm.c(1), buffer));
    gpu::BarrierOp::create(lb, loc);
    scf::YieldOp::create(lb, loc, acc);
  }
  // C += the micro-tile, where it lies in C.
  for (int64_t i = 0; i < micro; ++i)
    for (int64_t j = 0; j < micro; ++j) {
      Value row = im.add(im.add(rowBase, ty), i * kSide);
      Value col = im.add(im.add(colBase, tx), j * kSide);
      auto guard =
          scf::IfOp::create(b, loc, im.inside(row, info.m, col, info.n),
                            /*withElseRegion=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      SmallVector<Value> index = at(batch, row, col);
      Value c = memref::LoadOp::create(gb, loc, info.c, index);
      memref::StoreOp::create(
          gb, loc,
          arith::AddFOp::create(gb, loc, c, loop.getResult(i * micro + j)),
          info.c, index);
    }
  gpu::TerminatorOp::create(b, loc);
}

std::string describeSimtMatmul(const MatmulInfo &info, int64_t sms) {
  int64_t tile = simtTile(info, sms), micro = tile / kSide;
  return "tiled SIMT kernel: " + std::to_string(tile) + "x" +
         std::to_string(tile) + " tiles of C, K in steps of " +
         std::to_string(kThreads * 4 / tile) +
         " through double-buffered shared memory, " + std::to_string(micro) +
         "x" + std::to_string(micro) + " per thread";
}

} // namespace mpt::tc
