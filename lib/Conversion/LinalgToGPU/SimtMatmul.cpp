//===- SimtMatmul.cpp - the tiled SIMT matmul kernel ----------------------===//
//
// The kernel for the matmuls that Tensor Cores do not take (f32 without
// tf32, shapes that are not multiples of 8 or 16, bf16 before sm_80): C +=
// A B with f32 accumulation, operands of any float type converted to f32 as
// they are staged.
//
// Block: 256 threads (16 x 16) on a 64 x 64 tile of C; K in steps of 16.
// Each step stages A's 64 x 16 slice (transposed, so that a thread's four
// rows are one broadcast read each) and B's 16 x 64 slice in shared memory,
// with elements outside the matrices read as zero, and every thread
// accumulates a 4 x 4 micro-tile: rows ty + 16 i, columns tx + 16 j, so that
// consecutive threads read consecutive words of B's slice and write
// consecutive columns of C. Each element staged is read by 16 threads from
// shared memory instead of 64 times from global memory by the naive kernel.
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
constexpr int64_t kTile = 64, kStep = 16, kSide = 16, kMicro = 4;
} // namespace

bool simtMatmulApplies(const MatmulInfo &info) {
  auto isFloat = [](Type t) { return t.isF16() || t.isBF16() || t.isF32(); };
  auto cType = cast<MemRefType>(info.c.getType());
  return isFloat(info.element) && cType.getElementType().isF32() &&
         cast<MemRefType>(info.b.getType()).getElementType() == info.element;
}

void buildSimtMatmulKernel(OpBuilder &outer, Location loc,
                           const MatmulInfo &info) {
  MLIRContext *ctx = outer.getContext();
  Type f32 = outer.getF32Type();
  IndexMath hm{outer, loc};
  const int64_t sliceBytes = kTile * kStep * 4;
  Value sharedBytes = arith::ConstantIntOp::create(
      outer, loc, outer.getI32Type(), 2 * sliceBytes);
  auto launch =
      gpu::LaunchOp::create(outer, loc, hm.c(llvm::divideCeil(info.n, kTile)),
                            hm.c(llvm::divideCeil(info.m, kTile)),
                            hm.c(std::max<int64_t>(info.batch, 1)),
                            hm.c(kSide * kSide), hm.c(1), hm.c(1), sharedBytes);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  IndexMath im{b, loc};
  Value tid = launch.getThreadIds().x;
  Value tx = im.rem(tid, kSide), ty = im.div(tid, kSide);
  Value batch = info.batch ? launch.getBlockIds().z : Value();
  Value rowBase = im.mul(launch.getBlockIds().y, kTile);
  Value colBase = im.mul(launch.getBlockIds().x, kTile);

  Attribute shared =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), shared);
  auto sliceType =
      MemRefType::get({kStep, kTile}, f32, MemRefLayoutAttrInterface(), shared);
  Value dynamic = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  // as[k][row] (A's slice transposed) and bs[k][col].
  Value as =
      memref::ViewOp::create(b, loc, sliceType, dynamic, im.c(0), ValueRange());
  Value bs = memref::ViewOp::create(b, loc, sliceType, dynamic,
                                    im.c(sliceBytes), ValueRange());

  // Element (row, col) of `matrix` (rows x cols) as f32, zero outside.
  auto loadOrZero = [&](OpBuilder &lb, Value matrix, Value row, Value col,
                        int64_t rows, int64_t cols) -> Value {
    IndexMath lm{lb, loc};
    Value inside = arith::AndIOp::create(
        lb, loc,
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, row,
                              lm.c(rows)),
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, col,
                              lm.c(cols)));
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

  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> inits(kMicro * kMicro, zero);
  auto loop =
      scf::ForOp::create(b, loc, im.c(0), im.c(info.k), im.c(kStep), inits);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    IndexMath lm{lb, loc};
    Value k0 = loop.getInductionVar();
    // Stage the slices: 1024 elements of each, four per thread.
    constexpr int64_t perThread = kTile * kStep / (kSide * kSide);
    for (int64_t e = 0; e < perThread; ++e) {
      Value idx = lm.add(tid, e * kSide * kSide);
      Value aRow = lm.div(idx, kStep), aK = lm.rem(idx, kStep);
      memref::StoreOp::create(lb, loc,
                              loadOrZero(lb, info.a, lm.add(rowBase, aRow),
                                         lm.add(k0, aK), info.m, info.k),
                              as, ValueRange{aK, aRow});
      Value bK = lm.div(idx, kTile), bCol = lm.rem(idx, kTile);
      memref::StoreOp::create(lb, loc,
                              loadOrZero(lb, info.b, lm.add(k0, bK),
                                         lm.add(colBase, bCol), info.k, info.n),
                              bs, ValueRange{bK, bCol});
    }
    gpu::BarrierOp::create(lb, loc);
    SmallVector<Value> acc(loop.getRegionIterArgs());
    for (int64_t kk = 0; kk < kStep; ++kk) {
      SmallVector<Value> a, bv;
      for (int64_t i = 0; i < kMicro; ++i)
        a.push_back(memref::LoadOp::create(
            lb, loc, as, ValueRange{lm.c(kk), lm.add(ty, i * kSide)}));
      for (int64_t j = 0; j < kMicro; ++j)
        bv.push_back(memref::LoadOp::create(
            lb, loc, bs, ValueRange{lm.c(kk), lm.add(tx, j * kSide)}));
      for (int64_t i = 0; i < kMicro; ++i)
        for (int64_t j = 0; j < kMicro; ++j)
          acc[i * kMicro + j] =
              math::FmaOp::create(lb, loc, a[i], bv[j], acc[i * kMicro + j]);
    }
    // Every thread is done with the slices before they are restaged.
    gpu::BarrierOp::create(lb, loc);
    scf::YieldOp::create(lb, loc, acc);
  }
  // C += the micro-tile, where it lies in C.
  for (int64_t i = 0; i < kMicro; ++i)
    for (int64_t j = 0; j < kMicro; ++j) {
      Value row = im.add(im.add(rowBase, ty), i * kSide);
      Value col = im.add(im.add(colBase, tx), j * kSide);
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                im.c(info.m)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col,
                                im.c(info.n)));
      auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      SmallVector<Value> index = at(batch, row, col);
      Value c = memref::LoadOp::create(gb, loc, info.c, index);
      memref::StoreOp::create(
          gb, loc,
          arith::AddFOp::create(gb, loc, c, loop.getResult(i * kMicro + j)),
          info.c, index);
    }
  gpu::TerminatorOp::create(b, loc);
}

std::string describeSimtMatmul() {
  return "tiled SIMT kernel: 64x64 tiles of C, K in steps of 16 through "
         "shared memory, 4x4 per thread";
}

} // namespace mpt::tc
