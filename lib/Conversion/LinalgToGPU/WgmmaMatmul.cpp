//===- WgmmaMatmul.cpp - the Hopper Tensor Core matmul kernel -------------===//
//
// The sm_90a kernel of mpt-linalg-to-tensor-cores: TMA copies of 128-byte
// swizzled tiles into a ring of shared-memory stages, completion tracked by
// one mbarrier per stage, and warpgroup `wgmma.mma_async` reading both
// operands straight from shared memory through matrix descriptors.
//
// Block: `bm / 64` warpgroups; warpgroup w computes rows [64w, 64w + 64) of
// the block's bm x bn tile with one m64nBNk16 instruction per 16 of K. Stage
// s holds A's bm x 64 tile (one TMA box) and B's 64 x bn tile as bn / 64
// boxes of 64 x 64 (the widest box a 128-byte swizzle allows), side by side,
// which is the N-major layout the B descriptor describes (leading byte offset
// 64 x 128 bytes between boxes). A transposed operand (the input of a
// linalg.transpose the matmul read, MatmulInfo::transposedA/B) stays as it
// is in memory: A^T (K x M) as bm / 64 boxes of 64 x 64, M-major, one per
// warpgroup; B^T (N x K) as one box of bn x 64, K-major. The wgmmas are
// issued here (issueWgmmas), since nvgpu.warpgroup.mma steps through K-major
// A and N-major B only.
//
// Tensor maps: each operand's source tensor with a box of rows x 64 that
// is 1 along its batch dims (a batch's tiles never reach another batch), the
// source a matrix, a batch of them or a strided view (attention's head
// split: [1, rows, 1, 64] of [B, T, H, D]). Where a view's rows span
// several dims and the last (a sequence) is shorter than the tile, or its
// columns are heads that are not a multiple of 64 (8, 16, 24, 32, 48...), a
// tile is several boxes, of one sequence and 8, 16 or 32 columns of one
// head each (StageLayout): a box's rows are then 16, 32 or 64 bytes,
// swizzled by that much (16: not at all), and the descriptors (built here:
// upstream's take the 128-byte swizzle only) step from box to box.
//
// Pipeline: thread 0 issues the TMA copies of the first `stages` K tiles.
// Iteration kt waits for its stage's mbarrier phase, issues the products and
// waits until at most this group is in flight (the products of kt - 1 are
// done), then, after a block barrier, thread 0 refills the stage kt - 1 read
// with tile kt - 1 + stages. The copies of the next tiles and the products of
// this one overlap.
//
// Epilogue: the accumulators go to shared memory (pairs of columns, rows
// padded by 8 floats against bank conflicts), then every thread hands rows of
// four to the store function (coalesced): the fused epilogue (rounding to
// f16/bf16 and the elementwise ops after it), or an addition to C.
//
// Warp-specialized: one more warpgroup, whose thread issues every copy once
// the consumers have released the stage (a second mbarrier per stage).
// Persistent (warp-specialized too): at most `sms` blocks, each looping over
// tiles of C; the K tiles are counted over all of a block's tiles, so the
// producer fills the next tile's stages during the epilogue, which stores
// straight from the accumulator registers (pairs of columns) or, with TMA
// stores, through two small shared buffers per consumer warpgroup after
// the stages: 32 columns of the fused epilogue's output at a time, each
// stored by one thread with a TMA copy while the warpgroup writes the next
// (cp.async.bulk.wait_group.read 1 before a buffer is written again).
// Ping-pong (persistent too): the two consumer warpgroups take alternate
// tiles of the block, each a whole BM x BN tile (BM / 64 wgmmas per 16 of K),
// in turns (an mbarrier each): one starts a tile once the other has passed
// the waits of the tile before, so one consumer's products run while the
// other stores its tile.
// Clusters (warp-specialized too): cm x cn blocks (at most 2 x 2) whose
// tiles of C lie side by side; the blocks of a column of the cluster share
// their B tile, those of a row their A tile. Each producer copies its share
// of both to the blocks that share them (multicast TMA, completing bytes of
// each block's mbarrier), so a stage is refilled only once the consumers of
// those blocks have released it: the release barriers, in dynamic shared
// memory after the stages, count the consumers of a block's row and column
// (all of the cluster when it is 1 x 2 or 2 x 1), and each consumer arrives
// on the barriers of its row and column (mapa). The cluster synchronizes
// after the barriers are initialized and before it exits.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernels.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mpt::tc {

namespace {
/// The most dynamic shared memory a block can opt into on sm_90.
constexpr int64_t kMaxSharedBytes = 227 * 1024;
/// The swizzled tiles must start at a multiple of the 1024-byte swizzle
/// pattern; the dynamic shared memory is over-allocated by this much and the
/// base rounded up.
constexpr int64_t kSwizzleAlign = 1024;
/// Row padding of the f32 staging tile of the epilogue, in floats: rows 8
/// mod 32 words apart for N a multiple of 32 (8, 24 for 16).
constexpr int64_t kStagePad = 8;
constexpr int64_t kMaxStages = 4;
constexpr int64_t kMaxPingpongStages = 6;

int64_t stageBytes(int64_t bm, int64_t bn) {
  return (bm + bn) * kWgmmaBlockK * 2;
}
int64_t epilogueBytes(int64_t bm, int64_t bn) {
  return bm * (bn + kStagePad) * 4;
}

/// Where one operand's K tile lies in a stage: regions of `tileRows` rows
/// x 64 columns of the matrix as stored (K-major A: a block's share of its
/// BM rows; B^T: of its BN rows; A^T and B: 64 rows of K, one region per 64
/// of M or N), side by side. A region holds 64 / width atoms side by side,
/// the columns of one box each: tileRows rows of 2 * width bytes, swizzled
/// by that much (128 bytes, or 32 and 64 for boxes of 16 and 32 columns; of 8
/// not at all), filled by TMA boxes of `boxes.rows` rows.
struct StageLayout {
  int64_t tileRows;
  TmaBoxes boxes;
  int64_t rowBytes() const { return 2 * boxes.width; }
  /// The byte offset of element (r, c) of a region (before the swizzle).
  int64_t offset(int64_t r, int64_t c) const {
    return ((c / boxes.width) * tileRows + r) * rowBytes() +
           (c % boxes.width) * 2;
  }
  /// The byte offset of row r of the regions of a K-major operand.
  int64_t rowOffset(int64_t r) const {
    return (r / tileRows) * tileRows * 128 + offset(r % tileRows, 0);
  }
};

/// The wgmmas of one K tile for a warpgroup's `rows` x `bn` accumulators
/// `acc`: m64nBNk16 for each 64 rows and each 16 of K, between a fence and
/// a commit, then a wait until at most this group is in flight. `descA`
/// (i64) addresses the warpgroup's first 64 rows of A, `descB` the stage's
/// B; the wgmma of rows 64 m and K 16 k reads them `aSteps[4 m + k]` and
/// `bSteps[k]` bytes on (descriptors count in units of 16 bytes).
/// (nvgpu.warpgroup.mma steps through K-major A and N-major B in 128-byte
/// rows only.)
Value issueWgmmas(OpBuilder &b, Location loc, const MatmulInfo &info,
                  int64_t rows, int64_t bn, Value descA, Value descB,
                  ArrayRef<int64_t> aSteps, ArrayRef<int64_t> bSteps,
                  Value acc) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  auto cast = [&](Type type, Value value) {
    return UnrealizedConversionCastOp::create(b, loc, type, value).getResult(0);
  };
  Value a = descA, bDesc = descB;
  // The accumulators as the NVVM lowering holds them: one struct of bn / 2
  // floats per 64 rows; the casts cancel there.
  auto fragment =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(bn / 2, f32));
  auto whole = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(rows / 64, fragment));
  Value regs = cast(whole, acc);
  auto advance = [&](Value desc, int64_t bytes) -> Value {
    if (!bytes)
      return desc;
    return LLVM::AddOp::create(
        b, loc, desc,
        LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(bytes >> 4)));
  };
  NVVM::WGMMATypes type =
      info.element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  // NVVM's layouts: A row and B col are K-major.
  NVVM::MMALayout layoutA =
      info.transposedA ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  NVVM::MMALayout layoutB =
      info.transposedB ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t m = 0; m < rows / 64; ++m) {
    Value d = LLVM::ExtractValueOp::create(b, loc, regs, m);
    for (int64_t k = 0; k < kWgmmaBlockK / 16; ++k)
      d = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, fragment, d, advance(a, aSteps[4 * m + k]),
          advance(bDesc, bSteps[k]), NVVM::MMAShapeAttr::get(ctx, 64, bn, 16),
          type, type, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, layoutA, layoutB,
          NVVM::MMAIntOverflowAttr::get(ctx, NVVM::MMAIntOverflow::wrapped));
    regs = LLVM::InsertValueOp::create(b, loc, regs, d, m);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
  return cast(acc.getType(), regs);
}
} // namespace

int64_t WgmmaTiles::releaseBarrierOffset() const {
  // The persistent kernel's epilogue stores from registers, or through the
  // TMA store buffers after the stages.
  if (storeBytes)
    return stages * stageBytes(bm, bn) + 2 * warpgroups() * storeBufferBytes();
  int64_t epilogue = persistentBlocks ? 0 : epilogueBytes(bm, bn);
  return std::max(stages * stageBytes(bm, bn), epilogue);
}

int64_t WgmmaTiles::sharedBytes() const {
  // A cluster's release barriers: one per stage, and ping-pong's extra one.
  int64_t barriers =
      clusterBlocks() > 1 ? 8 * (stages + (pingpong ? 1 : 0)) : 0;
  return releaseBarrierOffset() + barriers + kSwizzleAlign;
}

std::optional<WgmmaTiles> chooseWgmmaTiles(const MatmulInfo &info,
                                           const WgmmaOptions &options,
                                           std::string &reason) {
  StringRef blockTile = options.blockTile;
  auto fail = [&](const Twine &why) -> std::optional<WgmmaTiles> {
    reason = why.str();
    return std::nullopt;
  };
  if (info.element.isF32())
    return fail(info.transposedB
                    ? "tf32 wgmma (which reads B only K-major) is not built"
                    : "tf32 wgmma reads B only K-major, and B is N-major "
                      "here");
  // TMA zero-fills what lies outside A and B (each batch a coordinate of
  // its own) and the epilogue stores only inside C, so tiles need not
  // divide the shape; but tensor-map rows start at 16 bytes.
  if (info.n % 8 || info.k % 8)
    return fail("N and K (" + Twine(info.n) + ", " + Twine(info.k) +
                ") are not multiples of 8 (tensor-map rows of 16 bytes)");
  if (info.transposedA && info.m % 8)
    return fail("M = " + Twine(info.m) +
                " is not a multiple of 8 (the rows of the transposed A, "
                "tensor-map rows of 16 bytes)");
  WgmmaTiles t;
  bool persistent = options.persistent || options.pingpong || options.tmaStore;
  t.storeBytes = options.tmaStore ? options.storeBytes : 0;
  t.clusterM = options.clusterM;
  t.clusterN = options.clusterN;
  const int64_t cm = t.clusterM, cn = t.clusterN;
  t.specialized = options.specialized || persistent || cm * cn > 1;
  t.pingpong = options.pingpong;
  // A block of a cluster copies 1 / cm of B's tile for the blocks of its
  // column: whole 64-column boxes of N-major B, or rows of K-major B (B^T);
  // and 1 / cn of A's for the blocks of its row: rows of K-major A, or whole
  // 64 x 64 boxes of M-major A (A^T).
  // K-major A in heads that are not a multiple of 64 (attention's head
  // merge) lies in the stage box by box, each box's rows 2 * width bytes
  // apart: a block's share of A's rows (BM / CN) holds whole warpgroups'
  // rows.
  auto head = [](const std::optional<OperandView> &view) -> int64_t {
    return view ? tmaBoxes(*view, 64)->head : 0;
  };
  const bool narrowA = !info.transposedA && head(info.viewA);
  const int64_t minBn = !info.transposedB ? 64 * cm : 64;
  const int64_t minBm = info.transposedA || narrowA ? 64 * cn : 64;
  if (info.transposedB && head(info.viewB) && cm > 1)
    return fail("cluster-m=" + Twine(cm) + " with B^T in heads of " +
                Twine(head(info.viewB)) +
                ": one descriptor reads the N rows of B^T, which the blocks' "
                "shares would split head by head (cluster-m=1 reads them)");
  // Boxes of a view whose rows span several dims (attention's head merge:
  // rows of (batch, position)) stay within the last of them: A's rows
  // (BM / CN a box) unless transposed, B^T's (BN / CM).
  auto aFits = [&] {
    return !info.viewA || info.transposedA ||
           tmaBoxes(*info.viewA, t.bm / cn).has_value();
  };
  auto bFits = [&] {
    return !info.viewB || !info.transposedB ||
           tmaBoxes(*info.viewB, t.bn / cm).has_value();
  };
  if (!blockTile.empty()) {
    SmallVector<int64_t> s = *parseSizes(blockTile, 3);
    if (s[2] != kWgmmaBlockK || s[0] % 64 || s[0] > 256 || s[1] % 64 ||
        s[1] > 256)
      return fail("block-tile=" + blockTile +
                  " is not BMxBNx64 with BM and BN multiples of 64 up to 256 "
                  "(one warpgroup per 64 rows, one wgmma per 16 of K)");
    t.bm = s[0];
    t.bn = s[1];
    if (t.bn % minBn)
      return fail("block-tile=" + blockTile + " with cluster-m=" + Twine(cm) +
                  ": each block of the cluster multicasts " +
                  "whole 64-column boxes of B's 64 x BN tile, so BN must be a "
                  "multiple of " +
                  Twine(minBn));
    if (t.bm % minBm)
      return fail("block-tile=" + blockTile + " with cluster-n=" + Twine(cn) +
                  ": each block of the cluster multicasts whole 64 x 64 "
                  "boxes of the transposed A's 64 x BM tile, so BM must be a "
                  "multiple of " +
                  Twine(minBm));
    if (t.pingpong && t.bm * t.bn > 128 * 128)
      return fail("block-tile=" + blockTile +
                  " holds more than 128 accumulators per thread of the one "
                  "warpgroup that computes a ping-pong tile (BM x BN at most "
                  "64x256 or 128x128)");
  } else {
    // Two warpgroups of 64 x 256 (128 accumulators per thread), or with
    // ping-pong one of 128 x 128 per tile, halved (N first) while the grid
    // would leave SMs (ping-pong: consumers) idle.
    t.bm = 128;
    t.bn = t.pingpong ? 128 : 256;
    auto blocks = [&]() -> int64_t {
      return llvm::divideCeil(info.m, t.bm * cm) * cm *
             llvm::divideCeil(info.n, t.bn * cn) * cn *
             std::max<int64_t>(info.batch, 1);
    };
    int64_t fill = t.pingpong ? 2 * options.sms : options.sms;
    while (blocks() < fill && (t.bn > minBn || t.bm > minBm)) {
      if (t.bn > minBn)
        t.bn /= 2;
      else
        t.bm /= 2;
    }
    while (!aFits() && t.bm > minBm)
      t.bm /= 2;
    while (!bFits() && t.bn > minBn)
      t.bn /= 2;
  }
  // (tmaReadable took views whose boxes of 64 rows fit.)
  auto crossing = [&](const char *name, const OperandView &view,
                      int64_t boxRows) -> std::optional<WgmmaTiles> {
    auto shape = cast<MemRefType>(view.source.getType()).getShape();
    return fail(Twine("the rows of ") + name + " span several dims and " +
                Twine(shape[view.rows.back()]) +
                ", the size of the last, is not a multiple of the " +
                Twine(boxRows) +
                " rows of a tile, nor a multiple of 8 that divides them "
                "into at most 64 TMA boxes");
  };
  if (!aFits())
    return crossing("A", *info.viewA, t.bm / cn);
  if (!bFits())
    return crossing("B^T", *info.viewB, t.bn / cm);
  int64_t kTiles = llvm::divideCeil(info.k, kWgmmaBlockK);
  // Tiles of the clusters (cm x cn tiles of C).
  int64_t tiles = llvm::divideCeil(info.m, t.bm * cm) *
                  llvm::divideCeil(info.n, t.bn * cn) *
                  std::max<int64_t>(info.batch, 1);
  if (persistent)
    t.persistentBlocks =
        cm * cn *
        std::min(tiles, std::max<int64_t>(options.sms / (cm * cn), 1));
  if (options.stages > 0) {
    t.stages = options.stages;
  } else {
    // A persistent kernel's stages run on into the next tile's K tiles;
    // ping-pong's stages are half as large (one consumer's tile) and carry
    // the handover from one consumer to the other.
    t.stages = t.pingpong   ? kMaxPingpongStages
               : persistent ? kMaxStages
                            : std::min(kMaxStages, kTiles);
    while (t.stages > 1 && WgmmaTiles(t).sharedBytes() > kMaxSharedBytes)
      --t.stages;
  }
  // One stage that a later K tile reuses deadlocks: its refill would wait
  // for the products that wait for it.
  if (t.stages < 2 && (persistent || kTiles > 1))
    return fail("stages=1 leaves the wgmma pipeline no stage to load into "
                "while the products read the other (at least 2 where a stage "
                "is reused)");
  if (t.sharedBytes() > kMaxSharedBytes)
    return fail("the tiles " + Twine(t.bm) + "x" + Twine(t.bn) + "x64 with " +
                Twine(t.stages) + " stages need " + Twine(t.sharedBytes()) +
                " bytes of shared memory; at most " + Twine(kMaxSharedBytes));
  return t;
}

void buildWgmmaKernel(OpBuilder &outer, Location loc, const MatmulInfo &info,
                      const WgmmaTiles &t, int64_t groupM, StoreFn store,
                      const FusedEpilogue *epilogue,
                      const ColumnSums *columnSums) {
  MLIRContext *ctx = outer.getContext();
  Attribute shared =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Type el = info.element, f32 = outer.getF32Type();
  const int64_t bk = kWgmmaBlockK;
  const int64_t aBytes = t.bm * bk * 2, boxBytes = bk * 64 * 2;
  const int64_t bBytes = bk * t.bn * 2, bRegion = t.stages * aBytes;
  const int64_t kTiles = llvm::divideCeil(info.k, bk);
  const int64_t threads = t.threads();
  const int64_t consumers = t.warpgroups();
  // Where A's and B's K tiles lie in a stage: K-major A in the blocks'
  // shares of its rows, A^T in 64 x 64 regions, one per 64 of M; B^T in
  // shares of its rows, B in 64 x 64 regions, one per 64 of N.
  auto layoutOf = [&](const std::optional<OperandView> &view,
                      int64_t tileRows) {
    StageLayout layout{tileRows, TmaBoxes{tileRows, 64}};
    if (view)
      layout.boxes = *tmaBoxes(*view, tileRows);
    return layout;
  };
  const StageLayout layoutA =
      layoutOf(info.viewA, info.transposedA ? bk : t.bm / t.clusterN);
  const StageLayout layoutB =
      layoutOf(info.viewB, info.transposedB ? t.bn / t.clusterM : bk);
  const bool persistent = t.persistentBlocks > 0;
  // Clusters: cm x cn blocks with tiles of C side by side, block (rm, rn)
  // of rank rm * cn + rn (x fastest); the block order and the persistent
  // loop go over their tiles of cm bm x cn bn, which the grid's clusters
  // (persistent) take in turn.
  const int64_t cm = t.clusterM, cn = t.clusterN, cs = cm * cn;
  BlockOrder order = BlockOrder::of(info, t.bm * cm, t.bn * cn, groupM);
  const int64_t tilesPerBatch = order.mTiles * order.nTiles;
  const int64_t tiles = tilesPerBatch * std::max<int64_t>(info.batch, 1);

  // How A and B lie in memory for TMA: a tensor whose dims are the batch
  // dims, the dims of the rows of the operand's tiles and those of their
  // columns (the contiguous last dim last), over each group of which an
  // index delinearizes row-major: a matrix, a batch of them, or a view of
  // another buffer (OperandView: attention's head split, K^T through it,
  // its merge: rows of (batch, position), columns of (head, dim)). A box
  // spans the last dim of the rows and of the columns, 1 along the others.
  struct TmaOperand {
    Value source;
    SmallVector<int64_t, 4> batch, rows, cols;
  };
  auto tmaOperand = [&](Value operand, const std::optional<OperandView> &v) {
    if (v)
      return TmaOperand{v->source, v->batch, v->rows, v->cols};
    int64_t rank = cast<MemRefType>(operand.getType()).getRank();
    TmaOperand o{operand, {}, {rank - 2}, {rank - 1}};
    for (int64_t d = 0; d < rank - 2; ++d)
      o.batch.push_back(d);
    return o;
  };
  const TmaOperand opA = tmaOperand(info.a, info.viewA);
  const TmaOperand opB = tmaOperand(info.b, info.viewB);
  // Host: TMA descriptors of A and B: boxes of `boxRows` x 64, 1 along the
  // batch dims.
  IndexMath hm{outer, loc};
  // The tensor map of `source` with boxes of `boxShape`, whose rows lie in
  // shared memory with a swizzle of `swizzleBytes` (the operands' 128-byte
  // rows, the store buffers' 64 or 128; 0: none).
  auto makeMap = [&](Value source, ArrayRef<int64_t> boxShape,
                     int64_t swizzleBytes) {
    Type element = cast<MemRefType>(source.getType()).getElementType();
    Value unranked = memref::CastOp::create(
        outer, loc, UnrankedMemRefType::get(element, Attribute()), source);
    auto box =
        MemRefType::get(boxShape, element, MemRefLayoutAttrInterface(), shared);
    auto type = nvgpu::TensorMapDescriptorType::get(
        ctx, box,
        swizzleBytes == 128  ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
        : swizzleBytes == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
        : swizzleBytes == 32 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_32B
                             : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
        swizzleBytes == 128 ? nvgpu::TensorMapL2PromoKind::L2PROMO_256B
                            : nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    SmallVector<Value> sizes;
    for (int64_t size : boxShape)
      sizes.push_back(hm.c(size));
    return nvgpu::TmaCreateDescriptorOp::create(outer, loc, type, unranked,
                                                sizes)
        .getResult();
  };
  auto tensorMap = [&](const TmaOperand &o, const StageLayout &layout) {
    int64_t rank = cast<MemRefType>(o.source.getType()).getRank();
    SmallVector<int64_t> boxShape(rank, 1);
    boxShape[o.rows.back()] = layout.boxes.rows;
    boxShape[o.cols.back()] = layout.boxes.width;
    return makeMap(o.source, boxShape, layout.rowBytes());
  };
  // The coordinates (innermost first) of the box of `o` whose first row is
  // `row` and first column `col`, in batch `batch` (null: none).
  auto coordinates = [&](IndexMath &cm, const TmaOperand &o, Value batch,
                         Value row, Value col) {
    ArrayRef<int64_t> shape = cast<MemRefType>(o.source.getType()).getShape();
    SmallVector<Value> at(shape.size());
    // `index` row-major over the dims `group` (null: 0 in each).
    auto delinearize = [&](Value index, ArrayRef<int64_t> group) {
      for (int64_t j = static_cast<int64_t>(group.size()) - 1; j >= 0; --j) {
        int64_t d = group[j];
        if (!index) {
          at[d] = cm.c(0);
          continue;
        }
        at[d] = j == 0 ? index : cm.rem(index, shape[d]);
        if (j)
          index = cm.div(index, shape[d]);
      }
    };
    delinearize(batch, o.batch);
    delinearize(row, o.rows);
    delinearize(col, o.cols);
    return SmallVector<Value>(llvm::reverse(at));
  };
  // The descriptors reach the kernel as pointers (what the NVVM lowering
  // makes of them): the kernel outlined from the launch then has LLVM
  // argument types, which the GPU-to-NVVM conversion accepts; the casts
  // cancel once the nvgpu ops are lowered.
  auto pointer = LLVM::LLVMPointerType::get(ctx);
  // A: regions of bm x 64 (a block's share: bm / cn), or (transposed,
  // M-major) 64 x 64 regions of K x M, bm / 64 side by side; B: 64 x 64
  // regions of K x N, bn / 64 side by side, or (transposed, K-major) one of
  // bn x 64 of N x K (a block's share: bn / cm). A region is one box, or
  // boxes of a sequence's rows and of a head's columns (StageLayout).
  Value hostA = tensorMap(opA, layoutA);
  Value hostB = tensorMap(opB, layoutB);
  auto toPointer = [&](Value map) {
    return UnrealizedConversionCastOp::create(outer, loc, pointer, map)
        .getResult(0);
  };
  Value ptrA = toPointer(hostA), ptrB = toPointer(hostB);
  // The TMA store epilogue: the fused epilogue's output ([batch,] M x N) in
  // boxes of a consumer's rows x 32, rows swizzled by their width (64 bytes
  // of f16, 128 of f32): a warp's pairs of 8 rows x 4 columns, all in 4
  // banks of 64-byte rows without, cover the 32 banks with the 64-byte
  // swizzle (f32 also needs the order of the column groups below).
  const int64_t chunk = WgmmaTiles::kStoreChunk;
  const int64_t storeRowBytes = chunk * t.storeBytes;
  SmallVector<int64_t> storeBox;
  Value hostOut, ptrOut;
  if (t.storeBytes) {
    int64_t rank = cast<MemRefType>(epilogue->out.getType()).getRank();
    storeBox.assign(rank, 1);
    storeBox[rank - 2] = t.consumerRows();
    storeBox[rank - 1] = chunk;
    hostOut = makeMap(epilogue->out, storeBox, storeRowBytes);
    // The kernel writes the tensor through this map (mpt::builtAccessesOf).
    hostOut.getDefiningOp()->setAttr(mpt::MPTDialect::getTmaStoreAttrName(),
                                     UnitAttr::get(ctx));
    ptrOut = toPointer(hostOut);
  }
  auto aBox = cast<nvgpu::TensorMapDescriptorType>(hostA.getType()).getTensor();
  auto bBox = cast<nvgpu::TensorMapDescriptorType>(hostB.getType()).getTensor();

  Value smemSize = arith::ConstantIntOp::create(outer, loc, outer.getI32Type(),
                                                t.sharedBytes());
  // One block per tile, or (persistent) one per SM, each looping over tiles;
  // clusters of cn x cm blocks along x and y (cs along x when persistent).
  // The SMs are the device's, counted when the program runs: whole
  // clusters, at least one, at most one per tile (t.persistentBlocks is the
  // same for `sms` SMs).
  auto clusterSize = [&](int64_t size) {
    return cs > 1 ? hm.c(size) : Value();
  };
  Value persistentBlocks;
  if (persistent) {
    // The SMs that clusters of cs fill (a cluster's blocks share a GPC).
    Value sms = mpt::SmCountOp::create(outer, loc, cs);
    Value clusters =
        arith::MaxUIOp::create(outer, loc, hm.div(sms, cs), hm.c(1));
    clusters = arith::MinUIOp::create(outer, loc, clusters, hm.c(tiles));
    persistentBlocks = hm.mul(clusters, cs);
  }
  auto launch =
      persistent
          ? gpu::LaunchOp::create(
                outer, loc, persistentBlocks, hm.c(1), hm.c(1), hm.c(threads),
                hm.c(1), hm.c(1), smemSize, nullptr, {}, {}, {},
                clusterSize(cs), clusterSize(1), clusterSize(1))
          : gpu::LaunchOp::create(
                outer, loc, hm.c(order.nTiles * cn), hm.c(order.mTiles * cm),
                hm.c(std::max<int64_t>(info.batch, 1)), hm.c(threads), hm.c(1),
                hm.c(1), smemSize, nullptr, {}, {}, {}, clusterSize(cn),
                clusterSize(cm), clusterSize(1));
  // (The builder leaves out the body's cluster ids and sizes.)
  if (cs > 1)
    for (int i = 0; i < 6; ++i)
      launch.getBody().front().addArgument(outer.getIndexType(), loc);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  IndexMath im{b, loc};
  Value tx = launch.getThreadIds().x;
  // The block's row and column in its cluster (clusters tile the grid),
  // null along a dim of one block.
  Value rankM, rankN;
  if (persistent && cs > 1) {
    Value rank = im.rem(launch.getBlockIds().x, cs);
    rankM = cm > 1 ? im.div(rank, cn) : Value();
    rankN = cn > 1 ? im.rem(rank, cn) : Value();
  } else if (cs > 1) {
    rankM = cm > 1 ? im.rem(launch.getBlockIds().y, cm) : Value();
    rankN = cn > 1 ? im.rem(launch.getBlockIds().x, cn) : Value();
  }
  Value warpgroup = im.div(tx, 128);
  auto fromPointer = [&](Value ptr, Type type) {
    return UnrealizedConversionCastOp::create(b, loc, type, ptr).getResult(0);
  };
  Value mapA = fromPointer(ptrA, hostA.getType());
  Value mapB = fromPointer(ptrB, hostB.getType());
  Value mapOut = ptrOut ? fromPointer(ptrOut, hostOut.getType()) : Value();

  // A tile of C: its batch (null without one) and the origin of its rows and
  // columns.
  struct Tile {
    Value batch, mBase, nBase;
  };
  // (A cluster's tile (mTile, nTile): block (rm, rn)'s is tile
  // (cm mTile + rm, cn nTile + rn) of C.)
  auto tileAt = [&](IndexMath &tm, Value mTile, Value nTile, Value batch) {
    if (rankM)
      mTile = tm.add(tm.mul(mTile, cm), rankM);
    if (rankN)
      nTile = tm.add(tm.mul(nTile, cn), rankN);
    return Tile{batch, tm.mul(mTile, t.bm), tm.mul(nTile, t.bn)};
  };
  // Calls `body` for each tile of this block with the tile's index among
  // the block's tiles (0, 1, ...): the block's own tile, or, persistent,
  // tiles blockIdx.x, blockIdx.x + gridDim.x, ... in the block order. With
  // `consumer` (ping-pong), only every other one of those, from the
  // consumer's (0 or 1).
  auto forEachTile = [&](OpBuilder &fb,
                         function_ref<void(OpBuilder &, Value, Tile)> body,
                         Value consumer = Value()) {
    IndexMath fm{fb, loc};
    if (!persistent) {
      auto [mTile, nTile] = order.tileOf(fm, fm.div(launch.getBlockIds().x, cn),
                                         fm.div(launch.getBlockIds().y, cm));
      body(fb, fm.c(0),
           tileAt(fm, mTile, nTile,
                  info.batch ? launch.getBlockIds().z : Value()));
      return;
    }
    // The grid's clusters, each a slot that takes every slots-th tile.
    Value slots = fm.div(launch.getGridSize().x, cs);
    Value first = fm.div(launch.getBlockIds().x, cs);
    Value start =
        consumer
            ? fm.add(first, arith::MulIOp::create(fb, loc, consumer, slots))
            : first;
    Value step = consumer ? fm.mul(slots, 2) : slots;
    auto loop = scf::ForOp::create(fb, loc, start, fm.c(tiles), step);
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    IndexMath lm{lb, loc};
    Value linear = loop.getInductionVar();
    Value index = arith::DivUIOp::create(lb, loc, lm.sub(linear, first), slots);
    Value batch = info.batch ? lm.div(linear, tilesPerBatch) : Value();
    auto [mTile, nTile] = order.tileOfLinear(
        lm, info.batch ? lm.rem(linear, tilesPerBatch) : linear);
    body(lb, index, tileAt(lm, mTile, nTile, batch));
  };

  // Views of the dynamic shared memory from a 1024-byte aligned base.
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), shared);
  Value dynamic = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dynamic);
  Value base =
      im.rem(im.sub(im.c(kSwizzleAlign), im.rem(address, 1024)), kSwizzleAlign);
  auto view = [&](OpBuilder &vb, Value offset, ArrayRef<int64_t> shape,
                  Type type) {
    IndexMath vm{vb, loc};
    return memref::ViewOp::create(vb, loc,
                                  MemRefType::get(shape, type,
                                                  MemRefLayoutAttrInterface(),
                                                  shared),
                                  dynamic, vm.add(base, offset), ValueRange())
        .getResult();
  };

  // One mbarrier per stage, armed by the thread that issues the copies with
  // the bytes of a stage; with warp specialization, a second one per stage
  // that the consumer warpgroups arrive on when they are done with it.
  // Ping-pong: one consumer reads a stage, and a release that must not
  // happen (before a tile's first K tile) goes to one more barrier, which
  // nobody waits on.
  auto barrierType = nvgpu::MBarrierGroupType::get(ctx, shared, t.stages);
  Value barriers = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  const int64_t emptyCount = t.stages + (t.pingpong ? 1 : 0);
  // Ping-pong: consumer c may start a tile once the other consumer has
  // passed every wait of the tile before (its `turn` barrier): a consumer
  // skips the other's K tiles, and without the order it could wait on a
  // stage's mbarrier two phases ahead, which a parity cannot tell from the
  // phase before.
  Value turns = t.pingpong
                    ? nvgpu::MBarrierCreateOp::create(
                          b, loc, nvgpu::MBarrierGroupType::get(ctx, shared, 2))
                          .getResult()
                    : Value();
  const int64_t releasers = t.pingpong ? 1 : consumers;
  Value empty =
      t.specialized && cs == 1
          ? nvgpu::MBarrierCreateOp::create(
                b, loc, nvgpu::MBarrierGroupType::get(ctx, shared, emptyCount))
                .getResult()
          : Value();
  // Clusters: the release barriers lie in the dynamic shared memory, at the
  // same place in every block, and NVVM ops address them. A block's copies
  // land in the blocks of its row (A) and column (B), so the consumers of a
  // block release a stage on the barriers of those blocks (mapa): the
  // blocks (rm, j) and then (rm + i, rn), i = 1 .. cm - 1 (modulo cm).
  auto toI32 = [&](OpBuilder &ib, Value index) {
    return arith::IndexCastOp::create(ib, loc, ib.getI32Type(), index)
        .getResult();
  };
  auto releaseBarrier = [&](OpBuilder &rb, Value index) -> Value {
    IndexMath rm{rb, loc};
    Value at = rm.add(rm.add(address, base),
                      rm.add(rm.mul(index, 8), t.releaseBarrierOffset()));
    return LLVM::IntToPtrOp::create(
        rb, loc, LLVM::LLVMPointerType::get(ctx, 3),
        arith::IndexCastOp::create(rb, loc, rb.getI64Type(), at).getResult());
  };
  // Stage `index` is released by this consumer warpgroup.
  auto release = [&](OpBuilder &rb, Value index) {
    if (empty) {
      nvgpu::MBarrierArriveOp::create(
          rb, loc, nvgpu::MBarrierTokenType::get(ctx), empty, index);
      return;
    }
    Value local = releaseBarrier(rb, index);
    IndexMath rm{rb, loc};
    auto arrive = [&](Value blockM, Value blockN) {
      Value rank = rm.c(0);
      if (blockM)
        rank = rm.mul(blockM, cn);
      if (blockN)
        rank = rm.add(rank, blockN);
      Value remote = NVVM::MapaOp::create(
          rb, loc, LLVM::LLVMPointerType::get(ctx, 7), local, toI32(rb, rank));
      NVVM::MBarrierArriveOp::create(rb, loc, Type(), remote, Value(),
                                     NVVM::MemScopeKind::CLUSTER);
    };
    // (A cluster of one row or column: every block, ranks 0, 1, ...)
    if (cm == 1 || cn == 1) {
      for (int64_t r = 0; r < cs; ++r)
        arrive(Value(), rm.c(r));
      return;
    }
    for (int64_t j = 0; j < cn; ++j)
      arrive(rankM, rm.c(j));
    for (int64_t i = 1; i < cm; ++i)
      arrive(rm.rem(rm.add(rankM, i), cm), rankN);
  };
  // Waits until the phase of parity `parity` (0 or 1, index) of stage
  // `index`'s release barrier has completed.
  auto waitRelease = [&](OpBuilder &wb, Value parity, Value index) {
    IndexMath wm{wb, loc};
    if (empty) {
      Value odd = arith::CmpIOp::create(wb, loc, arith::CmpIPredicate::ne,
                                        parity, wm.c(0));
      nvgpu::MBarrierTryWaitParityOp::create(wb, loc, empty, odd,
                                             wm.c(10000000), index);
      return;
    }
    NVVM::MBarrierTryWaitParityOp::create(wb, loc, releaseBarrier(wb, index),
                                          toI32(wb, parity),
                                          toI32(wb, wm.c(10000000)));
  };
  // The whole cluster, at the start (the barriers are initialized) and at
  // the end (no block exits while others may still arrive on its barriers).
  auto syncCluster = [&](OpBuilder &sb) {
    NVVM::ClusterArriveOp::create(sb, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(sb, loc, UnitAttr());
  };
  // The multicast masks (bit r: the block of rank r) of this block's
  // copies: A to the blocks of its row, B to those of its column; null
  // without a block to share them with.
  auto mask = [&](int64_t bits, Value shift) -> Value {
    Type i16 = b.getI16Type();
    Value value = arith::ConstantIntOp::create(b, loc, i16, bits);
    return arith::ShLIOp::create(
        b, loc, value,
        arith::IndexCastOp::create(b, loc, i16, shift).getResult());
  };
  int64_t columnBits = 0;
  for (int64_t i = 0; i < cm; ++i)
    columnBits |= int64_t(1) << (i * cn);
  const Value multicastA =
      cn > 1 ? mask((int64_t(1) << cn) - 1, rankM ? im.mul(rankM, cn) : im.c(0))
             : Value();
  const Value multicastB =
      cm > 1 ? mask(columnBits, rankN ? rankN : im.c(0)) : Value();
  Value leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tx, im.c(0));
  auto ifLeader = [&](OpBuilder &ib, Value cond,
                      function_ref<void(OpBuilder &)> then) {
    auto op = scf::IfOp::create(ib, loc, cond, /*withElseRegion=*/false);
    OpBuilder tb = op.getThenBodyBuilder();
    then(tb);
  };
  // The copies of K tile `kt` of `tile` into stage `stage`.
  auto loadTile = [&](OpBuilder &lb, const Tile &tile, Value kt, Value stage) {
    IndexMath lm{lb, loc};
    nvgpu::MBarrierArriveExpectTxOp::create(
        lb, loc, barriers, lm.c(aBytes + bBytes), stage, Value());
    Value k0 = lm.mul(kt, bk);
    // The region at `offset` of `o` from (`row`, `col`) of this tile's
    // batch: its boxes, by rows and by columns (StageLayout).
    auto load = [&](Value offset, MemRefType box, Value map,
                    const TmaOperand &o, const StageLayout &layout, Value col,
                    Value row, Value mask = Value()) {
      const TmaBoxes &boxes = layout.boxes;
      for (int64_t r = 0; r < layout.tileRows; r += boxes.rows)
        for (int64_t c = 0; c < 64; c += boxes.width)
          nvgpu::TmaAsyncLoadOp::create(
              lb, loc,
              view(lb, lm.add(offset, lm.c(layout.offset(r, c))),
                   box.getShape(), el),
              barriers, map,
              coordinates(lm, o, tile.batch, r ? lm.add(row, lm.c(r)) : row,
                          c ? lm.add(col, lm.c(c)) : col),
              stage, mask, Value());
    };
    // A: with clusters along N, this block's share (boxes of A^T, rows of
    // A) for the blocks of its row.
    if (info.transposedA) {
      const int64_t share = t.bm / 64 / cn;
      for (int64_t box = 0; box < share; ++box) {
        Value which = rankN ? lm.add(lm.mul(rankN, share), box) : lm.c(box);
        load(lm.add(lm.mul(stage, aBytes), lm.mul(which, boxBytes)), aBox, mapA,
             opA, layoutA, lm.add(tile.mBase, lm.mul(which, 64)), k0,
             multicastA);
      }
    } else {
      Value row = rankN ? lm.mul(rankN, t.bm / cn) : lm.c(0);
      load(lm.add(lm.mul(stage, aBytes), lm.mul(row, 128)), aBox, mapA, opA,
           layoutA, k0, lm.add(tile.mBase, row), multicastA);
    }
    // B: with clusters along M, this block's share (rows of B^T, boxes of
    // B) for the blocks of its column.
    if (info.transposedB) {
      Value row = rankM ? lm.mul(rankM, t.bn / cm) : lm.c(0);
      load(lm.add(lm.add(lm.mul(stage, bBytes), bRegion), lm.mul(row, 128)),
           bBox, mapB, opB, layoutB, k0, lm.add(tile.nBase, row), multicastB);
    } else {
      const int64_t share = t.bn / 64 / cm;
      for (int64_t box = 0; box < share; ++box) {
        Value which = rankM ? lm.add(lm.mul(rankM, share), box) : lm.c(box);
        load(lm.add(lm.add(lm.mul(stage, bBytes), bRegion),
                    lm.mul(which, boxBytes)),
             bBox, mapB, opB, layoutB, lm.add(tile.nBase, lm.mul(which, 64)),
             k0, multicastB);
      }
    }
  };
  // The K tiles of a block run through the stages in order, on from one
  // tile of C to the next: K tile `kt` of the block's tile number `index`
  // is the block's K tile number index * kTiles + kt.
  auto sequence = [&](IndexMath &sm, Value index, Value kt) {
    return sm.add(sm.mul(index, kTiles), kt);
  };
  int64_t prologue = std::min(t.stages, kTiles);
  ifLeader(b, leader, [&](OpBuilder &ib) {
    IndexMath lm{ib, loc};
    for (int64_t s = 0; s < t.stages; ++s)
      nvgpu::MBarrierInitOp::create(ib, loc, barriers, lm.c(1), lm.c(s),
                                    Value());
    for (int64_t s = 0; t.specialized && s < emptyCount; ++s) {
      if (empty)
        nvgpu::MBarrierInitOp::create(ib, loc, empty, lm.c(releasers), lm.c(s),
                                      Value());
      else
        NVVM::MBarrierInitOp::create(ib, loc, releaseBarrier(ib, lm.c(s)),
                                     toI32(ib, lm.c(releasers * (cm + cn - 1))),
                                     Value());
    }
    for (int64_t c = 0; turns && c < 2; ++c)
      nvgpu::MBarrierInitOp::create(ib, loc, turns, lm.c(1), lm.c(c), Value());
    NVVM::FenceMbarrierInitOp::create(ib, loc);
    nvgpu::TmaPrefetchOp::create(ib, loc, mapA, Value());
    nvgpu::TmaPrefetchOp::create(ib, loc, mapB, Value());
  });
  // Every thread (of the cluster) sees the initialized barriers before it
  // waits on them.
  if (cs > 1)
    syncCluster(b);
  else
    gpu::BarrierOp::create(b, loc);
  if (!t.specialized)
    forEachTile(b, [&](OpBuilder &fb, Value, Tile tile) {
      ifLeader(fb, leader, [&](OpBuilder &ib) {
        IndexMath lm{ib, loc};
        for (int64_t s = 0; s < prologue; ++s)
          loadTile(ib, tile, lm.c(s), lm.c(s));
      });
    });

  const int64_t rows = t.consumerRows();
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get({rows, t.bn}, f32));
  // The wgmma matrix descriptors (PTX ISA 9.7.15.5.1) of A and B at byte
  // `offset` of the stages: bits [4, 18) of the address, the leading and
  // stride byte offsets in 16-byte units, and the swizzle of the rows
  // (mode 1: 128 bytes, 2: 64, 3: 32; 0: none, rows of 16 bytes). 8-row
  // groups lie 8 rows apart; the atoms of MN-major A^T and B (64 / width
  // per region) lie a region's 64 rows apart (the leading offset, or
  // without a swizzle the stride offset, the 8-row groups then the
  // leading one). Swizzled K-major operands do not use the leading offset
  // (1, as CUTLASS sets it); unswizzled ones (boxes of 8 columns) find the
  // second 8 K of a k16 step, the next box, a region's rows on.
  auto descriptor = [&](OpBuilder &db, Value offset, const StageLayout &layout,
                        bool kMajor) -> Value {
    IndexMath dm{db, loc};
    Type i64 = db.getI64Type();
    auto constant = [&](uint64_t bits) -> Value {
      return arith::ConstantIntOp::create(db, loc, i64,
                                          static_cast<int64_t>(bits));
    };
    const uint64_t rowBytes = layout.rowBytes();
    const uint64_t atoms = layout.tileRows * rowBytes, groups = 8 * rowBytes;
    uint64_t leading = kMajor ? 16 : atoms, stride = groups;
    if (rowBytes == 16)
      std::tie(leading, stride) =
          kMajor ? std::pair(atoms, groups) : std::pair(groups, atoms);
    const uint64_t mode = rowBytes == 128  ? 1
                          : rowBytes == 64 ? 2
                          : rowBytes == 32 ? 3
                                           : 0;
    Value at = arith::IndexCastOp::create(
        db, loc, i64, dm.add(dm.add(address, base), offset));
    Value bits = arith::ShRUIOp::create(
        db, loc, arith::AndIOp::create(db, loc, at, constant(0x3ffff)),
        constant(4));
    return arith::OrIOp::create(
        db, loc, bits,
        constant((leading >> 4) << 16 | (stride >> 4) << 32 | mode << 62));
  };
  // The bytes the wgmma of rows 64 m and K 16 k reads A and B on from the
  // warpgroup's descriptors: K-major along a row (into the next box's
  // atom at a box's end) and down the regions' rows; MN-major down 16
  // rows and on to the next region.
  SmallVector<int64_t> aSteps, bSteps;
  for (int64_t m = 0; m < rows / 64; ++m)
    for (int64_t k = 0; k < bk / 16; ++k)
      aSteps.push_back(
          info.transposedA
              ? m * layoutA.tileRows * 128 + layoutA.offset(16 * k, 0)
              : layoutA.rowOffset(64 * m) + layoutA.offset(0, 16 * k));
  for (int64_t k = 0; k < bk / 16; ++k)
    bSteps.push_back(info.transposedB ? layoutB.offset(0, 16 * k)
                                      : layoutB.offset(16 * k, 0));
  // Stages are released (warp specialization) when a later K tile uses
  // them: by the tile of C that follows, in a persistent kernel.
  const bool releases = t.specialized && (persistent || t.stages < kTiles);
  // With warp specialization the consumer warpgroups run the products and
  // the last warpgroup (the producer) the copies; the consumers alone run the
  // epilogue.
  scf::IfOp roles;
  OpBuilder outerBody = b;
  if (t.specialized) {
    Value isConsumer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             warpgroup, im.c(consumers));
    roles = scf::IfOp::create(b, loc, TypeRange{}, isConsumer,
                              /*withElseRegion=*/true);
    // Registers move from the producer to the consumers (as CUTLASS's
    // warp-specialized kernels do) when two consumers hold 128 f32
    // accumulators per thread in a block of 384 threads.
    bool moveRegisters = consumers == 2 && rows * t.bn == 128 * 128;
    OpBuilder pb = roles.getElseBodyBuilder();
    if (moveRegisters)
      NVVM::SetMaxRegisterOp::create(
          pb, loc, pb.getI32IntegerAttr(40),
          NVVM::SetMaxRegisterActionAttr::get(
              ctx, NVVM::SetMaxRegisterAction::decrease));
    // One thread of the producer issues every copy, a stage once the
    // consumers have released it.
    Value issuer = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tx,
                                         IndexMath{pb, loc}.c(128 * consumers));
    ifLeader(pb, issuer, [&](OpBuilder &ib) {
      forEachTile(ib, [&](OpBuilder &tb, Value index, Tile tile) {
        IndexMath tm{tb, loc};
        auto produce =
            scf::ForOp::create(tb, loc, tm.c(0), tm.c(kTiles), tm.c(1));
        OpBuilder fb = OpBuilder::atBlockBegin(produce.getBody());
        IndexMath fm{fb, loc};
        Value kt = produce.getInductionVar();
        Value g = sequence(fm, index, kt);
        Value stage = fm.rem(g, t.stages);
        Value reuse = arith::CmpIOp::create(fb, loc, arith::CmpIPredicate::uge,
                                            g, fm.c(t.stages));
        ifLeader(fb, reuse, [&](OpBuilder &wb) {
          IndexMath wm{wb, loc};
          // Release number g / stages - 1 of this stage (from 0), one more
          // for the last stage without ping-pong (released once before any
          // K tile used it): that is (g + 1) / stages - 1.
          Value released = wm.div(t.pingpong ? g : wm.add(g, 1), t.stages);
          waitRelease(wb, wm.rem(wm.add(released, 1), 2), stage);
        });
        loadTile(fb, tile, kt, stage);
      });
    });
    b.setInsertionPointToStart(&roles.getThenRegion().front());
    if (moveRegisters)
      NVVM::SetMaxRegisterOp::create(
          b, loc, b.getI32IntegerAttr(232),
          NVVM::SetMaxRegisterActionAttr::get(
              ctx, NVVM::SetMaxRegisterAction::increase));
  }

  // The epilogue's threads and their barrier: with warp specialization the
  // consumers alone (named barrier 1; the producer has left), otherwise the
  // block.
  const int64_t epilogueThreads = t.specialized ? 128 * consumers : threads;
  auto sync = [&](OpBuilder &sb) {
    if (!t.specialized) {
      gpu::BarrierOp::create(sb, loc);
      return;
    }
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(sb, loc, sb.getI32Type(), v)
          .getResult();
    };
    NVVM::BarrierOp::create(sb, loc, TypeRange{}, i32(1), i32(epilogueThreads),
                            {}, Value());
  };
  // Partial tiles: the stores stay inside C (N is a multiple of 8, so a row
  // of four or a pair is all in or all out).
  // (The last cluster of a column may have blocks below C, of a row right
  // of it.)
  std::optional<std::pair<int64_t, int64_t>> bounds;
  if (info.m % (t.bm * cm) || info.n % (t.bn * cn))
    bounds = std::make_pair(info.m, info.n);

  // The TMA store epilogue of a consumer warpgroup's tile (rows from
  // `rowBase`): for each 32 columns, once the store issued from the buffer
  // two chunks before has read it, every thread writes the fused
  // epilogue's output at its accumulators (pairs of columns; row0, col0
  // its first, `pairAt` its registers) into the buffer, and after a proxy
  // fence and the warpgroup's barrier one thread stores the buffer (TMA
  // clips it at the tensor's edges) and commits the store.
  auto storeThroughTma = [&](OpBuilder &sb, const Tile &tile, Value rowBase,
                             Value row0, Value col0,
                             function_ref<Value(OpBuilder &, int64_t, int64_t)>
                                 pairAt) {
    IndexMath sm{sb, loc};
    Type outElement =
        cast<MemRefType>(epilogue->out.getType()).getElementType();
    auto outPair = VectorType::get({2}, outElement);
    const int64_t rows = t.consumerRows(), rank = storeBox.size();
    Value leads = arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::eq,
                                        sm.rem(tx, 128), sm.c(0));
    auto i32 = [&](Value v) { return toI32(sb, v); };
    // Named barriers 2, 3, ... (one a consumer warpgroup).
    auto syncWarpgroup = [&]() {
      NVVM::BarrierOp::create(sb, loc, TypeRange{}, i32(sm.add(warpgroup, 2)),
                              i32(sm.c(128)), {}, Value());
    };
    const int64_t region = t.stages * stageBytes(t.bm, t.bn);
    for (int64_t c = 0; c < t.bn / chunk; ++c) {
      Value buffer = view(sb,
                          sm.add(sm.mul(warpgroup, 2 * t.storeBufferBytes()),
                                 region + (c % 2) * t.storeBufferBytes()),
                          storeBox, outElement);
      ifLeader(sb, leads, [&](OpBuilder &ib) {
        NVVM::CpAsyncBulkWaitGroupOp::create(ib, loc, ib.getI32IntegerAttr(1),
                                             ib.getUnitAttr());
      });
      syncWarpgroup();
      // Register r of a thread holds column 8 (r / 4) + ..., so those of
      // chunk c are 2 chunk c / 8 .. (the 16 of each 64 rows).
      const int64_t perChunk = chunk / 2;
      // With f32, the lanes of row g (of 8) write the chunk's groups of 8
      // columns in the order j ^ (g % 4), each pair chosen among the four
      // by selects: a half-warp's 4 rows x 4 pairs then land in 8 distinct
      // 16-byte units of the 128-byte swizzle, where all on group j put
      // rows g and g ^ 1 on the same units (two-way).
      Value rowGroup = sm.rem(sm.div(sm.rem(tx, 32), 4), 4);
      for (int64_t m = 0; m < rows / 64; ++m)
        for (int64_t r = c * perChunk; r < (c + 1) * perChunk; r += 2) {
          Value row = sm.add(row0, 64 * m + 8 * ((r / 2) % 2));
          Value pair, col;
          if (t.storeBytes == 4) {
            const int64_t first = r / 4 - r / 4 % 4, half = r % 4;
            Value group =
                arith::XOrIOp::create(sb, loc, sm.c(r / 4 % 4), rowGroup);
            pair = pairAt(sb, m, 4 * first + half);
            for (int64_t q = 1; q < 4; ++q)
              pair = arith::SelectOp::create(
                  sb, loc,
                  arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::eq,
                                        group, sm.c(q)),
                  pairAt(sb, m, 4 * (first + q) + half), pair);
            col = sm.add(col0, sm.mul(sm.add(group, first), 8));
          } else {
            pair = pairAt(sb, m, r);
            col = sm.add(col0, 8 * (r / 4));
          }
          // Outside C (a partial tile) nothing is evaluated, since the
          // epilogue's other inputs end there; TMA does not store it.
          Value result;
          if (!bounds) {
            result = epilogue->evaluate(sb, loc, pair, tile.batch, row, col);
          } else {
            auto guard = scf::IfOp::create(
                sb, loc, TypeRange{outPair},
                sm.inside(row, bounds->first, col, bounds->second),
                /*withElseRegion=*/true);
            OpBuilder tb = guard.getThenBodyBuilder();
            scf::YieldOp::create(
                tb, loc,
                epilogue->evaluate(tb, loc, pair, tile.batch, row, col));
            OpBuilder eb = guard.getElseBodyBuilder();
            scf::YieldOp::create(
                eb, loc,
                arith::ConstantOp::create(
                    eb, loc,
                    DenseElementsAttr::get(outPair, eb.getZeroAttr(outElement)))
                    .getResult());
            result = guard.getResult(0);
          }
          // The box's row and column, the column's 16-byte unit XORed
          // with bits [7, ...) of the row's offset (the buffers are
          // aligned to the swizzle's 1024-byte pattern).
          Value boxRow = sm.sub(row, rowBase);
          Value byte =
              sm.mul(sm.sub(col, sm.add(tile.nBase, c * chunk)), t.storeBytes);
          Value unit = arith::XOrIOp::create(
              sb, loc, sm.div(byte, 16),
              sm.rem(sm.div(sm.mul(boxRow, storeRowBytes), 128),
                     storeRowBytes / 16));
          SmallVector<Value> index(rank - 2, sm.c(0));
          index.push_back(boxRow);
          index.push_back(
              sm.div(sm.add(sm.mul(unit, 16), sm.rem(byte, 16)), t.storeBytes));
          vector::StoreOp::create(sb, loc, result, buffer, index,
                                  /*nontemporal=*/false,
                                  llvm::Align(2 * t.storeBytes));
        }
      // The writes (generic proxy) before the store's reads (async proxy).
      NVVM::FenceProxyOp::create(
          sb, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      syncWarpgroup();
      ifLeader(sb, leads, [&](OpBuilder &ib) {
        IndexMath lm{ib, loc};
        SmallVector<Value> at;
        at.push_back(lm.add(tile.nBase, c * chunk));
        at.push_back(rowBase);
        if (tile.batch)
          at.push_back(tile.batch);
        nvgpu::TmaAsyncStoreOp::create(ib, loc, buffer, mapOut, at, Value());
        NVVM::CpAsyncBulkCommitGroupOp::create(ib, loc);
      });
    }
  };
  auto consume = [&](OpBuilder &cb, Value index, Tile tile) {
    IndexMath cm{cb, loc};
    Value leadsWarpgroup = arith::CmpIOp::create(
        cb, loc, arith::CmpIPredicate::eq, cm.rem(tx, 128), cm.c(0));
    if (t.pingpong) {
      // The j-th tile (j = index / 2) of consumer c waits for the other's
      // tile before it: its arrival number j - 1 + c on turn c, a phase of
      // parity (j + 1 + c) % 2 (the first tile of consumer 0 waits on the
      // phase before the first, complete from the start).
      Value parity = arith::CmpIOp::create(
          cb, loc, arith::CmpIPredicate::ne,
          cm.rem(cm.add(cm.add(cm.div(index, 2), 1), warpgroup), 2), cm.c(0));
      nvgpu::MBarrierTryWaitParityOp::create(cb, loc, turns, parity,
                                             cm.c(10000000), warpgroup);
    }
    Value zero = nvgpu::WarpgroupMmaInitAccumulatorOp::create(cb, loc, accType);
    // B's column sums: the consumers of the tiles of C's first row add up
    // each K tile of B (ping-pong: the tile's one consumer warpgroup).
    std::optional<ColumnSumsBuilder> sums;
    Value sumsTid, firstRow;
    SmallVector<Value> inits{zero};
    if (columnSums) {
      sums.emplace(ColumnSumsBuilder{*columnSums, t.bn, bk,
                                     t.pingpong ? 128 : 128 * consumers,
                                     info.transposedB, el});
      sumsTid = t.pingpong ? cm.rem(tx, 128) : tx;
      firstRow = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::eq,
                                       tile.mBase, cm.c(0));
      llvm::append_range(inits, sums->zeros(cb, loc));
    }
    auto loop =
        scf::ForOp::create(cb, loc, cm.c(0), cm.c(kTiles), cm.c(1), inits);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value kt = loop.getInductionVar();
      Value g = sequence(lm, index, kt);
      Value stage = lm.rem(g, t.stages);
      Value parity =
          arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ne,
                                lm.rem(lm.div(g, t.stages), 2), lm.c(0));
      nvgpu::MBarrierTryWaitParityOp::create(lb, loc, barriers, parity,
                                             lm.c(10000000), stage);
      // The column sums read the stage before this warp issues its
      // products: a stage goes back to the producer once the products of
      // every warp of the warpgroup are done, so after these reads.
      SmallVector<Value> partial;
      if (sums) {
        // B's K tile as laid out by TMA (StageLayout): N-major B in
        // regions of 64 columns side by side, K-major B^T one region of bn
        // rows of 64 K; the 16-byte units of a row of R bytes swizzled by
        // bits [7, ...) of its offset (unit u of row r at u ^ (r % 8) for
        // rows of 128 bytes).
        Value flat =
            view(lb, lm.add(lm.mul(stage, bBytes), bRegion), {bBytes / 2}, el);
        const StageLayout &lay = layoutB;
        auto load = [&](OpBuilder &ob, Value k, Value n) -> Value {
          IndexMath om{ob, loc};
          // (Row r, column c) of a region, the region's first byte.
          Value r = info.transposedB ? n : k;
          Value c = info.transposedB ? k : om.rem(n, 64);
          Value region = info.transposedB
                             ? om.c(0)
                             : om.mul(om.div(n, 64), lay.tileRows * 128);
          const int64_t w = lay.boxes.width, rowBytes = lay.rowBytes();
          Value bytes = om.add(
              om.add(region,
                     om.mul(om.add(om.mul(om.div(c, w), lay.tileRows), r),
                            rowBytes)),
              om.mul(om.rem(c, w), 2));
          Value swizzled = arith::XOrIOp::create(
              ob, loc, bytes,
              om.mul(om.rem(om.div(bytes, 128), rowBytes / 16), 16));
          return vector::LoadOp::create(ob, loc, VectorType::get({8}, el), flat,
                                        ValueRange{om.div(swizzled, 2)},
                                        /*nontemporal=*/false, llvm::Align(16));
        };
        partial = sums->accumulate(lb, loc, firstRow, sumsTid,
                                   loop.getRegionIterArgs().drop_front(), load);
      }
      // This warpgroup's 64 rows of A (ping-pong: all of them), and B: A^T
      // a region of 64 x 64 per warpgroup, K-major A rows 64 w (of the
      // block's share that holds them, whose rows are 2 x width bytes
      // apart).
      Value aOffset = lm.mul(stage, aBytes);
      if (!t.pingpong) {
        const int64_t perRegion = layoutA.tileRows / 64;
        aOffset =
            lm.add(aOffset, info.transposedA || perRegion <= 1
                                ? lm.mul(warpgroup, 64 * 128)
                                : lm.add(lm.mul(lm.div(warpgroup, perRegion),
                                                layoutA.tileRows * 128),
                                         lm.mul(lm.rem(warpgroup, perRegion),
                                                layoutA.offset(64, 0))));
      }
      Value descA = descriptor(lb, aOffset, layoutA, !info.transposedA);
      Value descB = descriptor(lb, lm.add(lm.mul(stage, bBytes), bRegion),
                               layoutB, info.transposedB);
      // The products of this tile stay in flight, those of the previous one
      // are done.
      Value acc = issueWgmmas(lb, loc, info, rows, t.bn, descA, descB, aSteps,
                              bSteps, loop.getRegionIterArgs()[0]);
      if (t.pingpong) {
        // The products of K tile g - 1 are done: its stage goes back to
        // the producer, unless g - 1 was the other consumer's (kt = 0: the
        // release goes to the extra barrier; a select, not a branch, for
        // the reason below).
        Value first = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq,
                                            kt, lm.c(0));
        Value target =
            arith::SelectOp::create(lb, loc, first, lm.c(t.stages),
                                    lm.rem(lm.add(g, t.stages - 1), t.stages));
        ifLeader(lb, leadsWarpgroup,
                 [&](OpBuilder &ib) { release(ib, target); });
      } else if (releases) {
        // The products of K tile g - 1 are done: one thread per consumer
        // warpgroup releases its stage to the producer. At g = 0 that is a
        // release of the last stage that no K tile used, which the producer
        // counts in: a condition on g here would have LLVM peel the first
        // iteration, and the zero accumulators then materialize after the
        // first wgmma.fence (ptxas C7519: an injected warpgroup.arrive). At
        // kt = 0 of a later tile of C, g - 1 is the previous tile's last K
        // tile, done before its epilogue.
        ifLeader(lb, leadsWarpgroup, [&](OpBuilder &ib) {
          IndexMath rm{ib, loc};
          release(ib, rm.rem(rm.add(g, t.stages - 1), t.stages));
        });
      } else if (!t.specialized && t.stages < kTiles) {
        // Every warpgroup is done with the stage of tile kt - 1: refill it
        // with tile kt - 1 + stages.
        gpu::BarrierOp::create(lb, loc);
        Value previous = lm.add(kt, t.stages - 1);
        Value refill = arith::AndIOp::create(
            lb, loc,
            arith::AndIOp::create(
                lb, loc, leader,
                arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::uge, kt,
                                      lm.c(1))),
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, previous,
                                  lm.c(kTiles)));
        ifLeader(lb, refill, [&](OpBuilder &ib) {
          IndexMath rm{ib, loc};
          loadTile(ib, tile, previous,
                   rm.rem(rm.add(kt, t.stages - 1), t.stages));
        });
      }
      SmallVector<Value> yielded{acc};
      llvm::append_range(yielded, partial);
      scf::YieldOp::create(lb, loc, yielded);
    }
    if (sums)
      sums->store(cb, loc, firstRow, sumsTid, loop.getResults().drop_front(),
                  tile.nBase, info.n);
    // Every wait of this tile is passed: the other consumer's turn.
    if (t.pingpong)
      ifLeader(cb, leadsWarpgroup, [&](OpBuilder &ib) {
        IndexMath rm{ib, loc};
        nvgpu::MBarrierArriveOp::create(ib, loc,
                                        nvgpu::MBarrierTokenType::get(ctx),
                                        turns, rm.sub(rm.c(1), warpgroup));
      });
    NVVM::WgmmaWaitGroupSyncOp::create(cb, loc, cb.getI64IntegerAttr(0));
    Value result = loop.getResult(0);
    if (t.pingpong) {
      // The tile's last stage too.
      ifLeader(cb, leadsWarpgroup, [&](OpBuilder &ib) {
        IndexMath rm{ib, loc};
        release(ib, rm.rem(sequence(rm, index, rm.c(kTiles - 1)), t.stages));
      });
    }
    Value rowBase =
        t.pingpong ? tile.mBase : cm.add(tile.mBase, cm.mul(warpgroup, 64));

    // In the m64nNk16 layout, register r of thread l of warp w of the
    // warpgroup is row 16 w + l / 4 + 8 ((r / 2) % 2), column
    // 8 (r / 4) + 2 (l % 4) + r % 2; pairs r, r + 1 are adjacent columns.
    // The accumulator is what the NVVM lowering makes of it, a struct of
    // one struct of bn / 2 floats per 64 rows; the casts cancel there.
    Value regs, row0, col0;
    auto pairType = VectorType::get({2}, f32);
    auto pairAt = [&](OpBuilder &pb, int64_t m, int64_t r) -> Value {
      return vector::FromElementsOp::create(
          pb, loc, pairType,
          ValueRange{LLVM::ExtractValueOp::create(pb, loc, regs,
                                                  ArrayRef<int64_t>{m, r}),
                     LLVM::ExtractValueOp::create(
                         pb, loc, regs, ArrayRef<int64_t>{m, r + 1})});
    };
    {
      auto fragment = LLVM::LLVMStructType::getLiteral(
          ctx, SmallVector<Type>(t.bn / 2, f32));
      regs = UnrealizedConversionCastOp::create(
                 cb, loc,
                 LLVM::LLVMStructType::getLiteral(
                     ctx, SmallVector<Type>(rows / 64, fragment)),
                 result)
                 .getResult(0);
      Value lane = cm.rem(tx, 32), warp = cm.rem(cm.div(tx, 32), 4);
      row0 = cm.add(cm.add(rowBase, cm.mul(warp, 16)), cm.div(lane, 4));
      col0 = cm.add(tile.nBase, cm.mul(cm.rem(lane, 4), 2));
    }
    if (persistent) {
      // Straight from the registers (the stages stay the producer's).
      if (t.storeBytes) {
        storeThroughTma(cb, tile, rowBase, row0, col0, pairAt);
        return;
      }
      for (int64_t m = 0; m < rows / 64; ++m)
        for (int64_t r = 0; r < t.bn / 2; r += 2) {
          Value pair = pairAt(cb, m, r);
          Value row = cm.add(row0, 64 * m + 8 * ((r / 2) % 2));
          Value col = cm.add(col0, 8 * (r / 4));
          if (!bounds) {
            store(cb, pair, tile.batch, row, col);
            continue;
          }
          auto guard = scf::IfOp::create(
              cb, loc, cm.inside(row, bounds->first, col, bounds->second),
              /*withElseRegion=*/false);
          OpBuilder gb = guard.getThenBodyBuilder();
          store(gb, pair, tile.batch, row, col);
        }
      return;
    }
    // The stages are free: stage the accumulators in shared memory, pairs
    // of columns (8-byte stores: a half-warp's 4 rows x 4 pairs, rows 8
    // mod 32 words apart, cover the 32 banks once).
    sync(cb);
    int64_t stride = t.bn + kStagePad;
    Value staging = view(cb, cm.c(0), {t.bm, stride}, f32);
    for (int64_t m = 0; m < rows / 64; ++m)
      for (int64_t r = 0; r < t.bn / 2; r += 2)
        vector::StoreOp::create(
            cb, loc, pairAt(cb, m, r), staging,
            ValueRange{
                cm.sub(cm.add(row0, 64 * m + 8 * ((r / 2) % 2)), tile.mBase),
                cm.sub(cm.add(col0, 8 * (r / 4)), tile.nBase)},
            /*nontemporal=*/false, llvm::Align(8));
    sync(cb);
    // Rows of four floats to global memory.
    storeStagedRows(cb, loc, staging, t.bm, t.bn, tx, epilogueThreads,
                    tile.batch, tile.mBase, tile.nBase, bounds, store);
  };
  forEachTile(b, consume, t.pingpong ? warpgroup : Value());
  // The stores have read the buffers before the block exits (and are done).
  if (t.storeBytes)
    ifLeader(b,
             arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   im.rem(tx, 128), im.c(0)),
             [&](OpBuilder &ib) {
               NVVM::CpAsyncBulkWaitGroupOp::create(
                   ib, loc, ib.getI32IntegerAttr(0), UnitAttr());
             });
  if (t.specialized)
    b = outerBody; // after the roles' scf.if
  if (cs > 1)
    syncCluster(b);
  gpu::TerminatorOp::create(b, loc);
}

} // namespace mpt::tc

std::optional<mpt::tc::TmaBoxes> mpt::tc::tmaBoxes(const OperandView &view,
                                                   int64_t tileRows) {
  auto type = cast<MemRefType>(view.source.getType());
  int64_t rank = type.getRank();
  if (!type.hasStaticShape() || view.rows.empty() || view.cols.empty())
    return std::nullopt;
  mpt::tc::TmaBoxes boxes{tileRows, 64};
  // Columns of (head, dim): where the heads are not a multiple of 64 (64 x
  // 16-bit elements fill a 128-byte row), a box takes the largest part of
  // a head that a swizzle (or 16-byte rows, none) lays out: heads of 24 or
  // 40 in boxes of 8 columns, 48 in boxes of 16, 96 in boxes of 32.
  int64_t last = type.getDimSize(rank - 1);
  if (view.cols.size() > 1 && last % 64) {
    if (type.getElementTypeBitWidth() != 16 || last % 8)
      return std::nullopt;
    boxes.width = last % 32 == 0 ? 32 : last % 16 == 0 ? 16 : 8;
    boxes.head = last;
  }
  // Rows of (batch, position): a box stays within one sequence.
  int64_t sequence = type.getDimSize(view.rows.back());
  if (view.rows.size() > 1 && sequence % tileRows) {
    if (sequence % 8 || tileRows % sequence)
      return std::nullopt;
    boxes.rows = sequence;
  }
  if (boxes.copies(tileRows) > 64)
    return std::nullopt;
  return boxes;
}

bool mpt::tc::tmaReadable(const OperandView &view) {
  auto type = cast<MemRefType>(view.source.getType());
  int64_t rank = type.getRank();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  return type.hasStaticShape() && rank >= 2 && rank <= 5 &&
         !view.rows.empty() && !view.cols.empty() &&
         view.cols.back() == rank - 1 && view.rows.back() != rank - 1 &&
         static_cast<int64_t>(view.batch.size() + view.rows.size() +
                              view.cols.size()) == rank &&
         type.getDimSize(rank - 1) * bytes % 16 == 0 &&
         tmaBoxes(view, 64).has_value();
}
