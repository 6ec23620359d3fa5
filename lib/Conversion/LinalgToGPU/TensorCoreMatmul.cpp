//===- TensorCoreMatmul.cpp - mpt-linalg-to-tensor-cores ------------------===//
//
// Builds a Tensor Core kernel (a gpu.launch) for every low-precision
// linalg.matmul / linalg.batch_matmul on memrefs: WMMA fragments on Volta
// and Turing, mma.sync m16n8k16 with a cp.async pipeline and ldmatrix from
// Ampere on, warpgroup wgmma fed by TMA on sm_90a (WgmmaMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernels.h"

#include "BufferAccesses.h"

#include "mpt/Conversion/Passes.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <numeric>
#include <tuple>

namespace mpt {
#define GEN_PASS_DEF_CONVERTLINALGTOTENSORCORES
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt::tc;

std::optional<SmallVector<int64_t>> mpt::tc::parseSizes(StringRef text,
                                                        unsigned n) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  if (parts.size() != n)
    return std::nullopt;
  SmallVector<int64_t> sizes;
  for (StringRef part : parts) {
    int64_t v;
    if (part.getAsInteger(10, v) || v <= 0)
      return std::nullopt;
    sizes.push_back(v);
  }
  return sizes;
}

BlockOrder BlockOrder::of(const MatmulInfo &info, int64_t bm, int64_t bn,
                          int64_t groupM) {
  return {static_cast<int64_t>(llvm::divideCeil(info.m, bm)),
          static_cast<int64_t>(llvm::divideCeil(info.n, bn)), groupM};
}

std::pair<Value, Value> BlockOrder::tileOf(IndexMath &im, Value bx,
                                           Value by) const {
  if (!grouped())
    return {by, bx};
  return tileOfLinear(im, im.add(im.mul(by, nTiles), bx));
}

std::pair<Value, Value> BlockOrder::tileOfLinear(IndexMath &im,
                                                 Value linear) const {
  if (!grouped())
    return {im.div(linear, nTiles), im.rem(linear, nTiles)};
  int64_t g = std::min(groupM, mTiles);
  Value first = im.mul(im.div(linear, g * nTiles), g);
  Value inGroup = im.rem(linear, g * nTiles);
  if (mTiles % g == 0)
    return {im.add(first, im.rem(inGroup, g)), im.div(inGroup, g)};
  // The last group has the rows that are left.
  Value rows = arith::MinUIOp::create(im.b, im.loc, im.sub(im.c(mTiles), first),
                                      im.c(g));
  return {im.add(first, arith::RemUIOp::create(im.b, im.loc, inGroup, rows)),
          arith::DivUIOp::create(im.b, im.loc, inGroup, rows)};
}

mpt::tc::QuarterWarpChunks::QuarterWarpChunks(int64_t rows, int64_t perRow,
                                              int64_t rowUnits)
    : perRow(perRow), phaseRows(std::max<int64_t>(1, 8 / perRow)) {
  // The plain order as blocks (whole rows a quarter-warp), or, where a
  // quarter-warp's chunks wrap from one row into the next (rows of 6
  // chunks), as itself (phaseRows 0). Then any block with fewer conflicts.
  int64_t best;
  if (perRow % std::max<int64_t>(1, 8 / phaseRows) || rows % phaseRows) {
    phaseRows = 0;
    best = plainConflicts(rows, perRow, rowUnits);
  } else {
    best = conflicts(perRow, phaseRows, rowUnits);
  }
  for (int64_t h = 1; h <= 8; h *= 2)
    if (perRow % (8 / h) == 0 && rows % h == 0) {
      int64_t n = conflicts(perRow, h, rowUnits);
      if (n < best) {
        best = n;
        phaseRows = h;
      }
    }
}

int64_t mpt::tc::QuarterWarpChunks::conflicts(int64_t perRow, int64_t phaseRows,
                                              int64_t rowUnits) {
  const int64_t width = 8 / phaseRows, blocks = perRow / width;
  int64_t extra = 0;
  for (int64_t p = 0; p < perRow; ++p) { // the quarter-warps of 8 rows
    int64_t perGroup[8] = {}, most = 0;
    for (int64_t q = 0; q < 8; ++q) {
      int64_t row = p / blocks * phaseRows + q / width;
      int64_t chunk = p % blocks * width + q % width;
      most = std::max(most, ++perGroup[(row * rowUnits + chunk) % 8]);
    }
    extra += most - 1;
  }
  return extra;
}

int64_t mpt::tc::QuarterWarpChunks::plainConflicts(int64_t rows, int64_t perRow,
                                                   int64_t rowUnits) {
  // Chunk c at row c / perRow; 8 rows later the banks repeat.
  const int64_t total = std::min<int64_t>(rows, 8) * perRow;
  int64_t extra = 0;
  for (int64_t first = 0; first < total; first += 8) {
    int64_t perGroup[8] = {}, most = 0;
    for (int64_t c = first; c < std::min(first + 8, total); ++c)
      most =
          std::max(most, ++perGroup[(c / perRow * rowUnits + c % perRow) % 8]);
    extra += most - 1;
  }
  return extra;
}

std::pair<Value, Value> mpt::tc::QuarterWarpChunks::at(IndexMath &im,
                                                       Value c) const {
  if (phaseRows == 0)
    return {im.div(c, perRow), im.rem(c, perRow)};
  const int64_t width = 8 / phaseRows, blocks = perRow / width;
  Value p = im.div(c, 8), q = im.rem(c, 8);
  Value row = im.add(im.mul(im.div(p, blocks), phaseRows), im.div(q, width));
  Value chunk = im.add(im.mul(im.rem(p, blocks), width), im.rem(q, width));
  return {row, chunk};
}

void mpt::tc::storeStagedRows(OpBuilder &b, Location loc, Value staging,
                              int64_t rows, int64_t cols, Value tx,
                              int64_t threads, Value batch, Value rowBase,
                              Value colBase,
                              std::optional<std::pair<int64_t, int64_t>> bounds,
                              StoreFn store) {
  IndexMath im{b, loc};
  int64_t perRow = cols / 4;
  QuarterWarpChunks order(
      rows, perRow, cast<MemRefType>(staging.getType()).getDimSize(1) / 4);
  auto copy =
      scf::ForOp::create(b, loc, tx, im.c(rows * perRow), im.c(threads));
  OpBuilder cb = OpBuilder::atBlockBegin(copy.getBody());
  IndexMath cm{cb, loc};
  auto [row, chunk] = order.at(cm, copy.getInductionVar());
  Value col = cm.mul(chunk, 4);
  Value v =
      vector::LoadOp::create(cb, loc, VectorType::get({4}, b.getF32Type()),
                             staging, ValueRange{row, col},
                             /*nontemporal=*/false, llvm::Align(16));
  Value gRow = cm.add(rowBase, row), gCol = cm.add(colBase, col);
  if (bounds) {
    auto guard = scf::IfOp::create(
        cb, loc, cm.inside(gRow, bounds->first, gCol, bounds->second),
        /*withElseRegion=*/false);
    OpBuilder gb = guard.getThenBodyBuilder();
    store(gb, v, batch, gRow, gCol);
  } else {
    store(cb, v, batch, gRow, gCol);
  }
}

std::string BlockOrder::describe() const {
  if (!grouped())
    return "";
  return ", blocks in groups of " + std::to_string(std::min(groupM, mTiles)) +
         " rows of tiles";
}

namespace {

/// The largest matmul (M·N·K, batch included) that reads a cast's f32
/// input rather than its result (and that sm_90a runs on mma.sync rather
/// than wgmma for it): about 2 GFLOP, a few microseconds of Tensor Core
/// time, as long as the launch of the cast's kernel that it saves. Larger
/// ones keep the copy: their tiles would read twice the bytes of that
/// operand many times over, each block rounding its own.
constexpr int64_t kCastFoldMacs = int64_t(1) << 30;

bool smallForCastFold(const MatmulInfo &info) {
  return std::max<int64_t>(info.batch, 1) * info.m * info.n * info.k <=
         kCastFoldMacs;
}

/// The compute capability of `chip` ("sm_80" -> 80, "sm_90a" -> 90), one
/// of the chips the kernels are built and tested for; std::nullopt for
/// another (sm_99 would otherwise reach LLVM, which only warns).
std::optional<int> parseChip(StringRef chip) {
  static constexpr std::pair<const char *, int> kChips[] = {
      {"sm_70", 70}, {"sm_75", 75}, {"sm_80", 80}, {"sm_86", 86},
      {"sm_89", 89}, {"sm_90", 90}, {"sm_90a", 90}};
  for (auto [name, sm] : kChips)
    if (chip == name)
      return sm;
  return std::nullopt;
}

int64_t largestDivisor(int64_t n, ArrayRef<int64_t> candidates) {
  for (int64_t c : candidates)
    if (n % c == 0)
      return c;
  return 0;
}

/// The most shared memory a block can opt into.
int64_t maxSharedBytes(int sm) {
  if (sm >= 90)
    return 227 * 1024;
  if (sm == 80 || sm == 87)
    return 163 * 1024;
  if (sm >= 86)
    return 99 * 1024;
  return 48 * 1024;
}

/// Tiles of the WMMA and mma.sync kernels.
struct Tiles {
  int64_t bm, bn, bk, wm, wn;
  int64_t stages = 2; // shared-memory buffers of mma.sync
  int64_t numWarps() const { return (bm / wm) * (bn / wn); }
};

/// K of one mma.sync: m16n8k16 for 16-bit operands, m16n8k8 for tf32.
int64_t fragmentK(Type element) { return element.isF32() ? 8 : 16; }

/// Row padding, in elements, of a shared tile of A or B whose rows hold
/// `cols` elements, against bank conflicts. 16-bit elements: rows an odd
/// number of 16-byte units apart, so that the 8 rows an `ldmatrix` matrix
/// (and a quarter-warp's copies down a column) reads cover the 32 banks: 8
/// elements where a row is an even number of units, none where it is odd
/// (a tile 8 wide: rows of one unit, 32 bytes apart with 8 more, put rows
/// r and r + 4 in the same banks). tf32, whose fragments are loaded one
/// element per thread, lane 4 g + t taking row g and column t of a tile
/// whose rows are M or N (A, B transposed) and row t and column g of one
/// whose rows are K (`rowsAreK`: B, A transposed): rows 4 mod 8 words
/// apart in the first case (4 g + t covers the 32 banks), 8 mod 16 in the
/// second (8 t + g does).
static int64_t sharedPad(Type element, int64_t cols, bool rowsAreK) {
  if (element.isF32())
    return rowsAreK ? (24 - cols % 16) % 16 : (12 - cols % 8) % 8;
  return cols * 2 / 16 % 2 ? 0 : 8;
}

/// The shapes of a stage of the mma.sync kernel's shared tiles of A and B,
/// rows padded: BM x BK and BK x BN, or as the transposed operands lie,
/// BK x BM and BN x BK.
std::pair<SmallVector<int64_t, 2>, SmallVector<int64_t, 2>>
mmaSyncTileShapes(const Tiles &t, const MatmulInfo &info) {
  auto padded = [&](int64_t rows, int64_t cols, bool rowsAreK) {
    return SmallVector<int64_t, 2>{
        rows, cols + sharedPad(info.element, cols, rowsAreK)};
  };
  SmallVector<int64_t, 2> a =
      info.transposedA ? padded(t.bk, t.bm, true) : padded(t.bm, t.bk, false);
  SmallVector<int64_t, 2> b =
      info.transposedB ? padded(t.bn, t.bk, false) : padded(t.bk, t.bn, true);
  return {a, b};
}

/// The shared memory of the mma.sync kernel: `stages` tiles of A and B.
int64_t mmaSyncSharedBytes(const Tiles &t, const MatmulInfo &info) {
  auto [a, b] = mmaSyncTileShapes(t, info);
  int64_t bytes = info.element.getIntOrFloatBitWidth() / 8;
  return t.stages * bytes * (a[0] * a[1] + b[0] * b[1]);
}

/// ", A read from the transpose's input (K x M tiles, ...)" for the fold
/// of `name`: through how many transposes, a strided view, the wgmma TMA
/// boxes of a sequence's rows and of a head's columns (`boxes` for tiles of
/// `tileRows`), and `tiles` where the operand is read transposed.
static void describeFold(llvm::raw_ostream &os, const char *name,
                         const std::optional<FoldedOperand> &fold, bool view,
                         const char *tiles,
                         std::optional<TmaBoxes> boxes = std::nullopt,
                         int64_t tileRows = 0) {
  if (!fold)
    return;
  os << ", " << name << " read from the transpose's input";
  if (fold->transposes.size() > 1)
    os << " through " << fold->transposes.size() << " transposes";
  SmallVector<std::string> how;
  if (view)
    how.push_back("strided view");
  if (boxes && boxes->rows < tileRows)
    how.push_back("boxes of " + std::to_string(boxes->rows) + " rows");
  if (boxes && boxes->head)
    how.push_back(
        "heads of " + std::to_string(boxes->head) +
        (boxes->head != boxes->width
             ? " in boxes of " + std::to_string(boxes->width) + " columns:"
             : " in") +
        " " + std::to_string(2 * boxes->width) +
        (boxes->width > 8 ? "-byte swizzled rows"
                          : "-byte rows, not swizzled"));
  if (fold->transposed)
    how.push_back(tiles);
  if (!how.empty())
    os << " (" << llvm::join(how, ", ") << ")";
}

/// What `op` does to buffers (mpt::accessesOf), seeing through what this
/// pass built (mpt::builtAccessesOf): the kernels of `built` and the TMA
/// descriptors.
static mpt::Accesses
accessesSeeingKernels(Operation *op,
                      const llvm::SmallPtrSetImpl<Operation *> &built) {
  if (isa<gpu::LaunchOp>(op) && !built.contains(op))
    return mpt::accessesOf(op);
  return mpt::builtAccessesOf(op);
}

struct ConvertLinalgToTensorCoresPass
    : public mpt::impl::ConvertLinalgToTensorCoresBase<
          ConvertLinalgToTensorCoresPass> {
  using ConvertLinalgToTensorCoresBase::ConvertLinalgToTensorCoresBase;

  void runOnOperation() override {
    std::optional<int> sm = parseChip(chip);
    if (!sm) {
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: unknown chip '" << chip
          << "'; expected sm_70, sm_75, sm_80, sm_86, sm_89, sm_90 or sm_90a";
      return signalPassFailure();
    }
    if (!blockTile.empty() && !parseSizes(blockTile, 3)) {
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: block-tile='" << blockTile
          << "' is not BMxBNxBK (three positive sizes such as 128x128x32)";
      return signalPassFailure();
    }
    if (!warpTile.empty() && !parseSizes(warpTile, 2)) {
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: warp-tile='" << warpTile
          << "' is not WMxWN (two positive sizes such as 64x64)";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        candidates.push_back(op);
    });
    if (stages < 0 || stages > 8) {
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: stages=" << int64_t(stages)
          << " is out of range; expected 0 (by target and shape) to 8";
      return signalPassFailure();
    }
    for (auto [size, name, pairs] :
         {std::tuple{int64_t(clusterM), "cluster-m", "M that share B's"},
          std::tuple{int64_t(clusterN), "cluster-n", "N that share A's"}}) {
      if (size == 1 || size == 2)
        continue;
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: " << name << "=" << size
          << " is out of range; expected 1 (no clusters) or 2 (pairs of "
             "blocks along "
          << pairs << " tiles)";
      return signalPassFailure();
    }
    if (groupM < 1) {
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: group-m=" << int64_t(groupM)
          << " is out of range; expected 1 (blocks row by row) or more";
      return signalPassFailure();
    }
    if (sms < 1 || sms > 1024) {
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: sms=" << int64_t(sms)
          << " is out of range; expected the GPU's streaming multiprocessors, "
             "1 to 1024 (132 on an H100/H200 SXM)";
      return signalPassFailure();
    }
    if (simtVectorBytes < 1 || simtVectorBytes > 16 ||
        !llvm::isPowerOf2_64(simtVectorBytes)) {
      getOperation().emitError()
          << "mpt-linalg-to-tensor-cores: simt-vector-bytes must be 1, 2, 4, "
             "8 or 16, got "
          << int64_t(simtVectorBytes);
      return signalPassFailure();
    }
    // wgmma and TMA are sm_90a features (the "a" in the name).
    bool hopper = *sm == 90 && StringRef(chip).ends_with("a");
    // The Tensor Core kernels built so far.
    llvm::SmallPtrSet<Operation *, 16> built;
    auto accesses = [&](Operation *o) {
      return accessesSeeingKernels(o, built);
    };
    for (linalg::LinalgOp op : candidates) {
      std::string reason;
      std::optional<MatmulInfo> info = analyze(op, *sm, reason);
      if (!info) {
        buildSimt(op, reason, built);
        continue;
      }
      bool wmma = *sm < 80;
      // The elementwise op after the matmul, or at least the zero fill
      // before it: the kernel starts from zero and stores.
      std::optional<FusedEpilogue> epilogue = findFusedEpilogue(op, info->c);
      if (!epilogue)
        epilogue = findZeroStart(op, info->c, accesses);
      // A bias gradient: the column sums of B, which mma.sync and wgmma
      // add up as they go.
      std::optional<ColumnSums> columnSums;
      if (this->columnSums && !wmma)
        columnSums = findColumnSums(
            op, info->b, epilogue ? epilogue->generic : nullptr, accesses);
      std::string whyNotWgmma;
      std::optional<WgmmaTiles> hopperTiles;
      // The mma.sync and wgmma kernels read a transposed operand (a backward
      // matmul's) from the transpose's input, as it lies in memory; the
      // transpose goes. A^T's rows (M) must start at 16 bytes as well.
      // wgmma takes the swap of the last two dims (TMA boxes of a plain
      // matrix) and views whose tile is a TMA box (attention's head split:
      // one dim of rows, the contiguous dim as columns); mma.sync any chain
      // of transposes whose view keeps 16-byte rows (the head merge too).
      MatmulInfo kernelInfo = *info;
      std::optional<FoldedOperand> foldA, foldB;
      // (f32 operands get here with tf32 only: tf32 mma.sync, which reads
      // transposed tiles one element a lane.)
      bool lowPrecisionSync = !wmma;
      auto fold = [&](MatmulInfo &into, bool plainOnly) {
        foldA = foldB = std::nullopt;
        if (lowPrecisionSync)
          foldOperands(op, *info, epilogue, accesses, plainOnly,
                       16 / (info->element.getIntOrFloatBitWidth() / 8), into,
                       foldA, foldB);
      };
      WgmmaOptions wgmma;
      wgmma.blockTile = blockTile;
      wgmma.stages = stages;
      wgmma.specialized = warpSpecialize || persistent || pingpong || tmaStore;
      wgmma.persistent = persistent || pingpong || tmaStore;
      wgmma.pingpong = pingpong;
      wgmma.tmaStore = tmaStore;
      wgmma.storeBytes = epilogue ? epilogue->tmaStoreBytes() : 0;
      wgmma.clusterM = clusterM;
      wgmma.clusterN = clusterN;
      wgmma.sms = sms;
      if (hopper) {
        // wgmma reads the swap of the last two dims (TMA boxes of a plain
        // matrix, M-major A or K-major B).
        fold(kernelInfo, /*plainOnly=*/true);
        // TMA copies cannot round: a small matmul that reads a cast's
        // result (a working copy) runs on mma.sync, which reads the cast's
        // input, and the copy goes.
        if (castOnLoad && smallForCastFold(*info) &&
            (findCast(op, kernelInfo.a, *info, epilogue, accesses) ||
             findCast(op, kernelInfo.b, *info, epilogue, accesses)))
          whyNotWgmma = "an operand is a cast of f32 that mma.sync rounds as "
                        "it loads (TMA cannot), and the matmul is small "
                        "(M·N·K at most 2^30)";
        else
          hopperTiles = chooseWgmmaTiles(kernelInfo, wgmma, whyNotWgmma);
        if (!hopperTiles) {
          eraseUnusedViews({kernelInfo.a, kernelInfo.b});
          if (kernelInfo.viewA)
            eraseUnusedViews({kernelInfo.viewA->source});
          if (kernelInfo.viewB)
            eraseUnusedViews({kernelInfo.viewB->source});
          kernelInfo = *info;
        }
      }
      // mma.sync reads any chain of transposes whose view keeps 16-byte
      // rows (attention's head split and merge among them).
      if (!hopperTiles)
        fold(kernelInfo, /*plainOnly=*/false);
      std::optional<Tiles> tiles;
      if (!hopperTiles) {
        tiles = chooseTiles(kernelInfo, *sm, reason);
        if (!tiles) {
          // (Without the views of the inputs made for the kernel.)
          eraseUnusedViews({kernelInfo.a, kernelInfo.b});
          if (kernelInfo.viewA)
            eraseUnusedViews({kernelInfo.viewA->source});
          if (kernelInfo.viewB)
            eraseUnusedViews({kernelInfo.viewB->source});
          buildSimt(op, reason + (hopper ? "; not wgmma: " + whyNotWgmma : ""),
                    built);
          continue;
        }
      }
      // mma.sync reads a cast's f32 input instead of its result (a working
      // copy of a weight or a batch), rounding as it loads.
      std::optional<FoundCast> castA, castB;
      if (castOnLoad && tiles && !wmma && !info->element.isF32() &&
          smallForCastFold(*info)) {
        if (!kernelInfo.viewA &&
            (castA = findCast(op, kernelInfo.a, *info, epilogue, accesses))) {
          kernelInfo.castA = castA->source;
          kernelInfo.castInteriorA = castA->interior;
        }
        if (!kernelInfo.viewB &&
            (castB = findCast(op, kernelInfo.b, *info, epilogue, accesses))) {
          kernelInfo.castB = castB->source;
          kernelInfo.castInteriorB = castB->interior;
        }
      }
      // The WMMA epilogue stages a warp row of the block tile in shared
      // memory; without room for it, the epilogue stays a kernel of its own.
      if (epilogue && wmma && wmmaStagingBytes(*tiles) > maxSharedBytes(*sm))
        epilogue.reset();
      if (epilogue)
        epilogue->prepare(op);
      OpBuilder b(op);
      Location loc = op.getLoc();
      // The kernels' stores: through the fused epilogue, or into C (added to
      // it, for the wgmma kernel, whose accumulators start from zero).
      auto storeFused = [&](OpBuilder &sb, Value values, Value batch, Value row,
                            Value col) {
        epilogue->store(sb, loc, values, batch, row, col);
      };
      auto storeC = [&](OpBuilder &sb, Value values, Value batch, Value row,
                        Value col) {
        SmallVector<Value> index = at(batch, row, col);
        int64_t bytes = 4 * cast<VectorType>(values.getType()).getNumElements();
        if (hopperTiles)
          values = arith::AddFOp::create(
              sb, loc,
              vector::LoadOp::create(sb, loc, values.getType(), info->c, index,
                                     /*nontemporal=*/false, llvm::Align(bytes)),
              values);
        vector::StoreOp::create(sb, loc, values, info->c, index,
                                /*nontemporal=*/false, llvm::Align(bytes));
      };
      StoreFn store = epilogue ? StoreFn(storeFused) : StoreFn(storeC);
      std::string kernel;
      llvm::raw_string_ostream os(kernel);
      BlockOrder order;
      if (hopperTiles) {
        const WgmmaTiles &t = *hopperTiles;
        // (With clusters, the order goes over the clusters' tiles.)
        order =
            BlockOrder::of(*info, t.bm * t.clusterM, t.bn * t.clusterN, groupM);
        buildWgmmaKernel(b, loc, kernelInfo, t, groupM, store,
                         epilogue ? &*epilogue : nullptr,
                         columnSums ? &*columnSums : nullptr);
        auto boxesOf = [](const std::optional<OperandView> &view,
                          int64_t tileRows) -> std::optional<TmaBoxes> {
          if (!view)
            return std::nullopt;
          return tmaBoxes(*view, tileRows);
        };
        const int64_t aRows =
            kernelInfo.transposedA ? kWgmmaBlockK : t.bm / t.clusterN;
        const int64_t bRows =
            kernelInfo.transposedB ? t.bn / t.clusterM : kWgmmaBlockK;
        const std::optional<TmaBoxes> aBoxes = boxesOf(kernelInfo.viewA, aRows),
                                      bBoxes = boxesOf(kernelInfo.viewB, bRows);
        // (Tiles in heads narrower than 64 say their swizzle below.)
        bool narrow = (aBoxes && aBoxes->head) || (bBoxes && bBoxes->head);
        os << "wgmma m64n" << t.bn << "k16 from TMA tiles"
           << (narrow ? ", " : " (128-byte swizzle), ") << "block " << t.bm
           << "x" << t.bn << "x" << kWgmmaBlockK << ", " << t.warpgroups()
           << " warpgroup" << (t.warpgroups() > 1 ? "s" : "") << " of "
           << t.consumerRows() << "x" << t.bn
           << (t.pingpong ? " on alternate tiles" : "") << ", " << t.stages
           << "-stage mbarrier pipeline, " << t.sharedBytes()
           << " bytes of shared memory";
        describeFold(os, "A", foldA, kernelInfo.viewA.has_value(),
                     "M-major tiles", aBoxes, aRows);
        describeFold(os, "B", foldB, kernelInfo.viewB.has_value(),
                     "K-major tiles", bBoxes, bRows);
        if (t.specialized)
          os << ", warp-specialized (a producer warpgroup issues the copies)";
        if (t.clusterBlocks() > 1)
          os << ", clusters of " << t.clusterM << " x " << t.clusterN
             << " blocks (M x N) sharing "
             << (t.clusterM == 1   ? "A's"
                 : t.clusterN == 1 ? "B's"
                                   : "A's and B's")
             << " tiles (TMA multicast)";
        if (t.persistentBlocks) {
          int64_t tiles = llvm::divideCeil(info->m, t.bm) *
                          llvm::divideCeil(info->n, t.bn) *
                          std::max<int64_t>(info->batch, 1);
          os << ", persistent (" << t.persistentBlocks
             << (t.persistentBlocks > 1 ? " blocks" : " block") << " over "
             << tiles << (tiles > 1 ? " tiles" : " tile")
             << " with sms=" << int64_t(sms) << "; a block per SM at run time"
             << (t.storeBytes ? ", epilogue through shared memory, TMA stores "
                                "of " +
                                    std::to_string(t.consumerRows()) + "x" +
                                    std::to_string(WgmmaTiles::kStoreChunk)
                              : std::string(", epilogue from registers"))
             << (tmaStore && !t.storeBytes
                     ? (epilogue ? " (no TMA store: the output is not a "
                                   "static tensor of 16-byte rows)"
                                 : " (no TMA store: the kernel adds its "
                                   "products to C)")
                     : "")
             << (t.pingpong ? ", ping-pong" : "") << ")";
        }
      } else {
        const Tiles &t = *tiles;
        order = blockOrder(*info, t);
        if (wmma)
          buildWmmaKernel(b, loc, *info, t, epilogue ? store : StoreFn());
        else
          buildMmaSyncKernel(b, loc, kernelInfo, t,
                             /*fromZero=*/epilogue.has_value(), store,
                             columnSums ? &*columnSums : nullptr);
        bool tf32 = info->element.isF32();
        os << (wmma   ? "WMMA m16n16k16"
               : tf32 ? "mma.sync m16n8k8 tf32 (operands rounded to tf32)"
                      : "mma.sync m16n8k16")
           << ", block " << t.bm << "x" << t.bn << "x" << t.bk << ", "
           << t.numWarps() << " warps of " << t.wm << "x" << t.wn;
        if (!wmma)
          os << ", " << t.stages << "-stage cp.async pipeline"
             << (tf32 ? "" : ", ldmatrix");
        describeFold(os, "A", foldA, kernelInfo.viewA.has_value(),
                     tf32 ? "K x M tiles" : "K x M tiles, ldmatrix.trans");
        describeFold(os, "B", foldB, kernelInfo.viewB.has_value(),
                     tf32 ? "N x K tiles" : "N x K tiles, ldmatrix");
        for (auto [name, cast] : {std::pair{"A", castA}, {"B", castB}})
          if (cast)
            os << ", " << name << " rounded from the cast's f32 input as it "
               << "is loaded"
               << (cast->interior.empty() ? "" : " (zeros around it)");
        if (hopper)
          os << " (not wgmma: " << whyNotWgmma << ")";
      }
      if (epilogue)
        os << ", " << epilogue->describe();
      if (columnSums)
        os << columnSums->describe();
      os << order.describe();
      if (hopperTiles && hopperTiles->clusterBlocks() > 1 && order.grouped())
        os << " (of clusters)";
      op.emitRemark() << "matmul " << info->m << "x" << info->n << "x"
                      << info->k
                      << (info->batch
                              ? " (batch " + std::to_string(info->batch) + ")"
                              : std::string())
                      << " on Tensor Cores: " << kernel;
      // (The kernel is the last op built before the matmul.)
      if (auto launch = dyn_cast_or_null<gpu::LaunchOp>(op->getPrevNode()))
        built.insert(launch);
      op->erase();
      // The kernel computes the column sums: their generic goes (before the
      // transposes, which it may read).
      if (columnSums)
        columnSums->erase();
      // A transpose whose result nothing after it reads goes (and its
      // buffer, if nothing reads that at all).
      eraseFoldedTransposes(foldA, foldB);
      // A cast whose result nothing reads any more goes, with its buffer.
      for (const std::optional<FoundCast> &cast : {castA, castB})
        if (cast)
          mpt::eraseDeadWrite(cast->generic, cast->result);
      // The kernel starts from zero and stores the epilogue's results: the
      // fill, the generic and the temporary go.
      if (epilogue)
        epilogue->erase(info->c);
    }
  }

  /// Views made for a kernel that did not take them.
  static void eraseUnusedViews(ArrayRef<Value> values) {
    for (Value v : values)
      while (v &&
             (v.getDefiningOp<memref::CollapseShapeOp>() ||
              v.getDefiningOp<memref::ExpandShapeOp>()) &&
             v.use_empty()) {
        Operation *view = v.getDefiningOp();
        v = view->getOperand(0);
        view->erase();
      }
  }

  /// The folds of the transposes that wrote A and B of `op` (`info`, its
  /// plain operands) into `into` and `foldA`, `foldB`: for a kernel that
  /// reads plain views and TMA boxes only (wgmma, `plainOnly`) or any view
  /// whose rows along the contiguous dim are multiples of `chunk` elements
  /// (mma.sync: 16 bytes; the SIMT kernel: any). (Blocks store results
  /// while others still read the input: the fused epilogue's output must
  /// not be it.)
  void foldOperands(linalg::LinalgOp op, const MatmulInfo &info,
                    const std::optional<FusedEpilogue> &epilogue,
                    function_ref<mpt::Accesses(Operation *)> accesses,
                    bool plainOnly, int64_t chunk, MatmulInfo &into,
                    std::optional<FoldedOperand> &foldA,
                    std::optional<FoldedOperand> &foldB) {
    OpBuilder b(op);
    auto use = [&](Value operand, std::optional<FoldedOperand> &folded,
                   Value &kernelOperand, bool &transposed,
                   std::optional<OperandView> &view) {
      // The fold of at most `maxTransposes` transposes (0: any) and its
      // view, if the kernel takes it.
      auto attempt = [&](int64_t maxTransposes) -> std::optional<OperandView> {
        folded = foldTransposes(op, operand, chunk, accesses, maxTransposes);
        // (Nor may C itself, which the blocks write as they go.)
        if (folded &&
            ((epilogue && mpt::mayAlias(mpt::rootOf(epilogue->out),
                                        mpt::rootOf(folded->buffer))) ||
             mpt::mayAlias(mpt::rootOf(info.c), mpt::rootOf(folded->buffer))))
          folded.reset();
        if (folded && plainOnly && folded->plain() && !folded->transposed)
          folded.reset();
        if (!folded)
          return std::nullopt;
        OperandView v = folded->materialize(b, op.getLoc());
        if (plainOnly && !folded->plain() && !tmaReadable(v)) {
          eraseUnusedViews({v.source});
          folded.reset();
          return std::nullopt;
        }
        return v;
      };
      // wgmma: the whole chain where its view is a TMA box, otherwise
      // the last transpose alone (the swap of the last two dims).
      std::optional<OperandView> found = attempt(0);
      if (!found && plainOnly)
        found = attempt(1);
      if (!found)
        return;
      OperandView v = *found;
      transposed = folded->transposed;
      if (!folded->plain()) {
        view = v;
        return;
      }
      // A matrix, or a batch of them (batch dims collapsed into one).
      kernelOperand = v.source;
      auto type = cast<MemRefType>(v.source.getType());
      int64_t rank = type.getRank();
      if (info.batch && rank > 3) {
        ReassociationIndices batch(rank - 2);
        std::iota(batch.begin(), batch.end(), 0);
        kernelOperand = memref::CollapseShapeOp::create(
            b, op.getLoc(), kernelOperand,
            ArrayRef<ReassociationIndices>{batch, {rank - 2}, {rank - 1}});
      } else if (info.batch && rank == 2) {
        kernelOperand = memref::ExpandShapeOp::create(
            b, op.getLoc(),
            MemRefType::get({1, type.getDimSize(0), type.getDimSize(1)},
                            type.getElementType()),
            kernelOperand, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
      }
    };
    use(info.a, foldA, into.a, into.transposedA, into.viewA);
    use(info.b, foldB, into.b, into.transposedB, into.viewB);
  }

  /// A cast that wrote an operand of a Tensor Core kernel: its generic, its
  /// f32 input and the operand's buffer; with `interior` (the input's
  /// shape), into that corner of the zero-filled operand.
  struct FoundCast {
    Operation *generic;
    Value source, result;
    SmallVector<int64_t, 2> interior;
  };

  /// The cast that wrote `operand` (the buffer the kernel reads as A or B:
  /// an allocation of the matmul's block, a working copy), when mma.sync
  /// may read its f32 input instead: the last op before the matmul that
  /// writes `operand` is an elementwise linalg.generic from one f32 buffer
  /// of the same shape (identity maps and layouts) whose body is one
  /// arith.truncf to the operand's type (rounding to nearest even, as the
  /// kernel rounds), and no op in between writes that input; nor is it C
  /// or the epilogue's output, which the blocks write while others read.
  /// Or the generic writes a corner of a matrix operand from its origin (a
  /// view), and the op before it that writes the operand is a zero fill
  /// of all of it: a zero-padded copy.
  static std::optional<FoundCast>
  findCast(linalg::LinalgOp op, Value operand, const MatmulInfo &info,
           const std::optional<FusedEpilogue> &epilogue,
           function_ref<mpt::Accesses(Operation *)> accesses) {
    auto alloc = operand.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != op->getBlock())
      return std::nullopt;
    auto type = cast<MemRefType>(operand.getType());
    auto writes = [&](const mpt::Accesses &a, Value buffer) {
      return llvm::any_of(a.writes,
                          [&](Value w) { return mpt::mayAlias(w, buffer); });
    };
    // The last op before `from` that writes the operand (null if one may
    // without saying), and the ops in between.
    SmallVector<Operation *> between;
    auto lastWriter = [&](Operation *from) -> Operation * {
      for (Operation *prev = from->getPrevNode(); prev;
           prev = prev->getPrevNode()) {
        mpt::Accesses a = accesses(prev);
        if (a.unknown)
          return nullptr;
        if (writes(a, operand))
          return prev;
        between.push_back(prev);
      }
      return nullptr;
    };
    auto generic = dyn_cast_or_null<linalg::GenericOp>(lastWriter(op));
    if (!generic || generic.getNumDpsInputs() != 1 ||
        generic.getNumDpsInits() != 1 ||
        generic.getNumParallelLoops() != generic.getNumLoops() ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return std::nullopt;
    // All of the operand, or a corner of it over zeros.
    Value written = generic.getDpsInits()[0];
    SmallVector<int64_t, 2> interior;
    if (written != operand) {
      if (type.getRank() != 2 || cornerOf(written) != operand ||
          !fillsWithZeros(lastWriter(generic), operand))
        return std::nullopt;
      llvm::append_range(interior,
                         cast<MemRefType>(written.getType()).getShape());
    }
    Value source = generic.getDpsInputs()[0];
    auto sourceType = dyn_cast<MemRefType>(source.getType());
    ArrayRef<int64_t> shape =
        interior.empty() ? type.getShape() : ArrayRef<int64_t>(interior);
    Block &body = generic.getRegion().front();
    auto trunc = dyn_cast<arith::TruncFOp>(body.front());
    if (!sourceType || !sourceType.getElementType().isF32() ||
        sourceType.getShape() != shape ||
        !sourceType.getLayout().isIdentity() || !trunc ||
        body.getOperations().size() != 2 ||
        trunc.getIn() != body.getArgument(0) ||
        body.getTerminator()->getOperand(0) != trunc.getResult() ||
        trunc.getType() != type.getElementType() || trunc.getRoundingmodeAttr())
      return std::nullopt;
    Value root = mpt::rootOf(source);
    if (llvm::any_of(between,
                     [&](Operation *o) { return writes(accesses(o), root); }) ||
        mpt::mayAlias(root, mpt::rootOf(info.c)) ||
        (epilogue && mpt::mayAlias(root, mpt::rootOf(epilogue->out))))
      return std::nullopt;
    return FoundCast{generic, source, operand, interior};
  }

  /// Erases the transposes of `a` and `b` (nearest the matmul first) that
  /// nothing reads any more: a transpose goes when no op after it reads the
  /// buffer it wrote. (A buffer that two of them write is left alone: freeing
  /// it would take the other with it.)
  static void eraseFoldedTransposes(const std::optional<FoldedOperand> &a,
                                    const std::optional<FoldedOperand> &b) {
    llvm::SetVector<Operation *> transposes;
    for (const std::optional<FoldedOperand> &fold : {a, b})
      if (fold)
        transposes.insert(fold->transposes.begin(), fold->transposes.end());
    llvm::DenseMap<Value, int> writers;
    SmallVector<std::pair<Operation *, Value>> writes;
    for (Operation *t : transposes) {
      Value root = mpt::rootOf(cast<linalg::TransposeOp>(t).getInit());
      ++writers[root];
      writes.push_back({t, root});
    }
    for (auto [t, root] : writes)
      if (writers[root] == 1)
        mpt::eraseDeadWrite(t, root);
  }

  /// A matmul that is not for Tensor Cores: the tiled SIMT kernel where it
  /// applies (float operands, f32 accumulation, static shapes), otherwise
  /// left to the one-thread-per-element kernels of
  /// mpt-parallel-loops-to-gpu. The tiled kernel stores its products where
  /// C was zero-filled just before (the fill goes), through the elementwise
  /// op that reads C next where there is one (a bias add and activation).
  void buildSimt(linalg::LinalgOp op, const std::string &why,
                 llvm::SmallPtrSetImpl<Operation *> &built) {
    std::string ignored;
    std::optional<MatmulInfo> info = operands(op, ignored);
    bool tiled = info && simtMatmulApplies(*info);
    auto accesses = [&](Operation *o) {
      return accessesSeeingKernels(o, built);
    };
    // The elementwise op after the matmul, or at least the zero fill
    // before it, as for the Tensor Core kernels.
    std::optional<FusedEpilogue> epilogue;
    std::optional<ColumnSums> sums;
    if (tiled) {
      epilogue = findFusedEpilogue(op, info->c);
      if (!epilogue)
        epilogue = findZeroStart(op, info->c, accesses);
      // A bias gradient beside a weight gradient: B's column sums.
      if (columnSums && !info->batch)
        sums =
            findColumnSums(op, info->b, epilogue ? epilogue->generic : nullptr,
                           accesses, /*simt=*/true);
    }
    // The tiled kernel reads a transposed operand as it lies in memory,
    // and any chain of transposes through a strided view (attention's head
    // split and merge), as mma.sync does.
    MatmulInfo kernelInfo = info ? *info : MatmulInfo();
    std::optional<FoldedOperand> foldA, foldB;
    if (tiled)
      foldOperands(op, *info, epilogue, accesses, /*plainOnly=*/false,
                   /*chunk=*/1, kernelInfo, foldA, foldB);
    std::string folds;
    llvm::raw_string_ostream os(folds);
    describeFold(os, "A", foldA, kernelInfo.viewA.has_value(), "K x M");
    describeFold(os, "B", foldB, kernelInfo.viewB.has_value(), "N x K");
    op.emitRemark() << "matmul not on Tensor Cores (SIMT kernel): " << why
                    << (tiled ? "; " + describeSimtMatmul(kernelInfo, sms,
                                                          simtVectorBytes)
                              : "")
                    << folds << (epilogue ? ", " + epilogue->describe() : "")
                    << (sums ? sums->describe() : "");
    if (!tiled)
      return;
    if (epilogue)
      epilogue->prepare(op);
    OpBuilder b(op);
    built.insert(buildSimtMatmulKernel(
        b, op.getLoc(), kernelInfo, sms, simtVectorBytes,
        epilogue ? &*epilogue : nullptr, sums ? &*sums : nullptr));
    op->erase();
    // (The sums' generic before the transposes, which it may read.)
    if (sums)
      sums->erase();
    eraseFoldedTransposes(foldA, foldB);
    if (epilogue)
      epilogue->erase(info->c);
  }

  /// The operands and shape of a matmul on statically shaped memrefs.
  std::optional<MatmulInfo> operands(linalg::LinalgOp op, std::string &reason) {
    auto fail = [&](const Twine &why) -> std::optional<MatmulInfo> {
      reason = why.str();
      return std::nullopt;
    };
    if (!op.hasPureBufferSemantics())
      return fail("it works on tensors; run it after bufferization");
    bool userMaps = false;
    if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation()))
      userMaps = mm.hasUserDefinedMaps();
    if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
      userMaps = bmm.hasUserDefinedMaps();
    if (userMaps)
      return fail("it has user-defined indexing maps");
    MatmulInfo info;
    info.a = op.getDpsInputs()[0];
    info.b = op.getDpsInputs()[1];
    info.c = op.getDpsInits()[0];
    for (Value v : {info.a, info.b, info.c}) {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
        return fail("an operand is not a statically shaped memref with the "
                    "identity layout");
    }
    auto aType = cast<MemRefType>(info.a.getType());
    auto bType = cast<MemRefType>(info.b.getType());
    unsigned rank = aType.getRank();
    if (rank == 3)
      info.batch = aType.getShape()[0];
    info.m = aType.getShape()[rank - 2];
    info.k = aType.getShape()[rank - 1];
    info.n = bType.getShape()[rank - 1];
    info.element = aType.getElementType();
    return info;
  }

  std::optional<MatmulInfo> analyze(linalg::LinalgOp op, int sm,
                                    std::string &reason) {
    auto fail = [&](const Twine &why) -> std::optional<MatmulInfo> {
      reason = why.str();
      return std::nullopt;
    };
    std::optional<MatmulInfo> found = operands(op, reason);
    if (!found)
      return std::nullopt;
    MatmulInfo info = *found;
    auto cType = cast<MemRefType>(info.c.getType());
    if (cast<MemRefType>(info.b.getType()).getElementType() != info.element)
      return fail("its operands have different element types");
    if (info.element.isF32() && !tf32)
      return fail("its operands are f32 (Tensor Cores take f16 and bf16; "
                  "tf32=1 opts into rounding f32 operands to tf32)");
    if (!info.element.isF16() && !info.element.isBF16() &&
        !info.element.isF32())
      return fail("its operands are not f16, bf16 or f32");
    if (!cType.getElementType().isF32())
      return fail("it does not accumulate in f32 (mpt.matmul needs acc(f32))");
    if ((info.element.isBF16() || info.element.isF32()) && sm < 80)
      return fail(Twine(info.element.isF32() ? "tf32" : "bf16") +
                  " Tensor Core instructions need sm_80 or later");
    if (sm < 80) {
      if (info.m % 16 || info.k % 16 || info.n % 16)
        return fail("M x N x K = " + Twine(info.m) + "x" + Twine(info.n) + "x" +
                    Twine(info.k) +
                    " is not a multiple of 16x16x16 (mpt-pad-for-tensor-cores "
                    "pads it)");
      return info;
    }
    // Partial tiles are zero-filled and not stored; the rows of A and B must
    // start at 16 bytes for cp.async / TMA.
    int64_t chunk = 16 / (info.element.getIntOrFloatBitWidth() / 8);
    if (info.k % chunk || info.n % chunk)
      return fail("N and K (" + Twine(info.n) + ", " + Twine(info.k) +
                  ") are not multiples of " + Twine(chunk) +
                  " (rows of 16 bytes for asynchronous copies; "
                  "mpt-pad-for-tensor-cores pads them)");
    return info;
  }

  std::optional<Tiles> chooseTiles(const MatmulInfo &info, int sm,
                                   std::string &reason) {
    bool wmma = sm < 80;
    Tiles t;
    if (!blockTile.empty()) {
      SmallVector<int64_t> s = *parseSizes(blockTile, 3);
      t.bm = s[0];
      t.bn = s[1];
      t.bk = s[2];
    } else {
      // The largest power of two up to 128 x 128 x 32 that divides the
      // shape; where that is small and mma.sync predicates partial tiles,
      // the smallest one that covers it.
      auto tile = [&](int64_t size, int64_t most, int64_t least) {
        int64_t t = largestDivisor(size, {128, 64, 32, 16, 8});
        if (wmma || t >= std::min<int64_t>(64, most) || size <= t)
          return std::min(t, most);
        return std::clamp<int64_t>(llvm::PowerOf2Ceil(size), least, most);
      };
      t.bm = tile(info.m, 128, 16);
      t.bn = tile(info.n, 128, wmma ? 16 : 8);
      t.bk = tile(info.k, 32, fragmentK(info.element));
    }
    if (!warpTile.empty()) {
      SmallVector<int64_t> s = *parseSizes(warpTile, 2);
      t.wm = s[0];
      t.wn = s[1];
    } else {
      int64_t minN = wmma ? 16 : 8;
      t.wm = std::min<int64_t>(64, t.bm >= 32 ? t.bm / 2 : t.bm);
      t.wn = std::min<int64_t>(64, t.bn >= 2 * minN ? t.bn / 2 : t.bn);
    }
    int64_t fragN = wmma ? 16 : 8;
    auto fail = [&](const Twine &why) -> std::optional<Tiles> {
      reason = why.str();
      return std::nullopt;
    };
    if (wmma && (info.m % t.bm || info.n % t.bn || info.k % t.bk))
      return fail("the block tile " + Twine(t.bm) + "x" + Twine(t.bn) + "x" +
                  Twine(t.bk) + " does not divide " + Twine(info.m) + "x" +
                  Twine(info.n) + "x" + Twine(info.k));
    int64_t fragK = fragmentK(info.element);
    if (t.bk % fragK || t.bm % t.wm || t.bn % t.wn || t.wm % 16 || t.wn % fragN)
      return fail("the warp tile " + Twine(t.wm) + "x" + Twine(t.wn) +
                  " does not divide the block tile " + Twine(t.bm) + "x" +
                  Twine(t.bn) + " into " + Twine(16) + "x" + Twine(fragN) +
                  " fragments (and BK must be a multiple of " + Twine(fragK) +
                  ")");
    if (t.numWarps() * 32 > 1024)
      return fail("the tiles need " + Twine(t.numWarps()) +
                  " warps; a block has at most 32");
    if (!wmma) {
      if (stages > 0)
        t.stages = stages;
      int64_t bytes = mmaSyncSharedBytes(t, info), most = maxSharedBytes(sm);
      if (bytes > most)
        return fail("the tiles with " + Twine(t.stages) + " stages need " +
                    Twine(bytes) + " bytes of shared memory; " + chip +
                    " has at most " + Twine(most) + " per block");
    }
    return t;
  }

  BlockOrder blockOrder(const MatmulInfo &info, const Tiles &t) {
    return BlockOrder::of(info, t.bm, t.bn, groupM);
  }

  gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, const MatmulInfo &info,
                             const Tiles &t, int64_t sharedBytes = 0) {
    IndexMath im{b, loc};
    Value dynamicShared;
    if (sharedBytes)
      dynamicShared =
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), sharedBytes);
    return gpu::LaunchOp::create(b, loc, im.c(llvm::divideCeil(info.n, t.bn)),
                                 im.c(llvm::divideCeil(info.m, t.bm)),
                                 im.c(std::max<int64_t>(info.batch, 1)),
                                 im.c(t.numWarps() * 32), im.c(1), im.c(1),
                                 dynamicShared);
  }

  //===--------------------------------------------------------------------===//
  // WMMA (sm_70, sm_75)
  //===--------------------------------------------------------------------===//

  /// The shared memory of the WMMA epilogue: one warp row of the block tile
  /// (WM x BN f32, rows padded by 8 floats, which keeps them 32-byte
  /// aligned for wmma.store).
  static int64_t wmmaStagingBytes(const Tiles &t) {
    return t.wm * (t.bn + kWmmaStagePad) * 4;
  }
  static constexpr int64_t kWmmaStagePad = 8;

  /// With `fused` (the fused epilogue's store), the accumulators start from
  /// zero and reach global memory through it: each warp row of the block
  /// tile in turn is stored to shared memory (wmma.store) and handed to
  /// `fused` four columns at a time by all threads, consecutive threads on
  /// consecutive columns. Without, C is loaded and stored by wmma.
  void buildWmmaKernel(OpBuilder &outer, Location loc, const MatmulInfo &info,
                       const Tiles &t, StoreFn fused) {
    gpu::LaunchOp launch =
        createLaunch(outer, loc, info, t, fused ? wmmaStagingBytes(t) : 0);
    OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
    IndexMath im{b, loc};
    Value tx = launch.getThreadIds().x;
    Value batch = info.batch ? launch.getBlockIds().z : Value();
    Value warp = im.div(tx, 32);
    Value wm = im.div(warp, t.bn / t.wn), wn = im.rem(warp, t.bn / t.wn);
    auto [mTile, nTile] = blockOrder(info, t).tileOf(im, launch.getBlockIds().x,
                                                     launch.getBlockIds().y);
    Value rowBase = im.add(im.mul(mTile, t.bm), im.mul(wm, t.wm));
    Value colBase = im.add(im.mul(nTile, t.bn), im.mul(wn, t.wn));
    int64_t fm = t.wm / 16, fn = t.wn / 16;
    auto cFrag = gpu::MMAMatrixType::get({16, 16}, b.getF32Type(), "COp");
    auto aFrag = gpu::MMAMatrixType::get({16, 16}, info.element, "AOp");
    auto bFrag = gpu::MMAMatrixType::get({16, 16}, info.element, "BOp");
    IntegerAttr ldK = b.getIndexAttr(info.k), ldN = b.getIndexAttr(info.n);
    SmallVector<Value> accs;
    Value zero;
    if (fused)
      zero = gpu::SubgroupMmaConstantMatrixOp::create(
          b, loc, cFrag,
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f)));
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t j = 0; j < fn; ++j)
        accs.push_back(fused ? zero
                             : gpu::SubgroupMmaLoadMatrixOp::create(
                                   b, loc, cFrag, info.c,
                                   at(batch, im.add(rowBase, i * 16),
                                      im.add(colBase, j * 16)),
                                   ldN, UnitAttr())
                                   .getResult());
    auto loop =
        scf::ForOp::create(b, loc, im.c(0), im.c(info.k), im.c(16), accs);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value k = loop.getInductionVar();
      SmallVector<Value> as, bs, next;
      for (int64_t i = 0; i < fm; ++i)
        as.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            lb, loc, aFrag, info.a, at(batch, lm.add(rowBase, i * 16), k), ldK,
            UnitAttr()));
      for (int64_t j = 0; j < fn; ++j)
        bs.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            lb, loc, bFrag, info.b, at(batch, k, lm.add(colBase, j * 16)), ldN,
            UnitAttr()));
      for (int64_t i = 0; i < fm; ++i)
        for (int64_t j = 0; j < fn; ++j)
          next.push_back(gpu::SubgroupMmaComputeOp::create(
              lb, loc, cFrag, as[i], bs[j],
              loop.getRegionIterArgs()[i * fn + j], UnitAttr(), UnitAttr()));
      scf::YieldOp::create(lb, loc, next);
    }
    if (!fused) {
      for (int64_t i = 0; i < fm; ++i)
        for (int64_t j = 0; j < fn; ++j)
          gpu::SubgroupMmaStoreMatrixOp::create(
              b, loc, loop.getResult(i * fn + j), info.c,
              at(batch, im.add(rowBase, i * 16), im.add(colBase, j * 16)), ldN,
              UnitAttr());
      gpu::TerminatorOp::create(b, loc);
      return;
    }
    Attribute shared = gpu::AddressSpaceAttr::get(b.getContext(),
                                                  gpu::AddressSpace::Workgroup);
    int64_t stride = t.bn + kWmmaStagePad;
    Value dynamic = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), shared));
    Value staging = memref::ViewOp::create(
        b, loc,
        MemRefType::get({t.wm, stride}, b.getF32Type(),
                        MemRefLayoutAttrInterface(), shared),
        dynamic, im.c(0), ValueRange());
    IntegerAttr ldStage = b.getIndexAttr(stride);
    Value mBlock = im.mul(mTile, t.bm), nBlock = im.mul(nTile, t.bn);
    int64_t threads = t.numWarps() * 32;
    for (int64_t r = 0; r < t.bm / t.wm; ++r) {
      // The warps of row r stage their fragments...
      auto mine = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wm, im.c(r)),
          /*withElseRegion=*/false);
      {
        OpBuilder sb = mine.getThenBodyBuilder();
        IndexMath sm{sb, loc};
        for (int64_t i = 0; i < fm; ++i)
          for (int64_t j = 0; j < fn; ++j)
            gpu::SubgroupMmaStoreMatrixOp::create(
                sb, loc, loop.getResult(i * fn + j), staging,
                ValueRange{sm.c(i * 16), sm.add(sm.mul(wn, t.wn), j * 16)},
                ldStage, UnitAttr());
      }
      gpu::BarrierOp::create(b, loc);
      // ... and every thread stores rows of four of them.
      storeStagedRows(b, loc, staging, t.wm, t.bn, tx, threads, batch,
                      im.add(mBlock, r * t.wm), nBlock, std::nullopt, fused);
      // The next row overwrites the staging tile.
      gpu::BarrierOp::create(b, loc);
    }
    gpu::TerminatorOp::create(b, loc);
  }

  //===--------------------------------------------------------------------===//
  // mma.sync (sm_80 and later)
  //===--------------------------------------------------------------------===//

  /// nvvm.mma.sync on registers: `a` and `b` are the i32 words of the
  /// fragments, `acc` the 2x2 f32 accumulator.
  static Value mmaOnRegisters(OpBuilder &b, Location loc, ValueRange a,
                              ValueRange bv, Value acc, NVVM::MMATypes type,
                              int64_t k) {
    Type f32 = b.getF32Type();
    SmallVector<Value> c;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        c.push_back(
            vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{i, j}));
    auto structType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    Value d = NVVM::MmaOp::create(
        b, loc, structType, a, bv, c, {16, 8, static_cast<int>(k)},
        std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> elems;
    for (int64_t i = 0; i < 4; ++i)
      elems.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return vector::FromElementsOp::create(b, loc, VectorType::get({2, 2}, f32),
                                          elems);
  }

  /// One m16n8k16 product of `ldmatrix` fragments: nvgpu.mma.sync for f16;
  /// for bf16 (which nvgpu.mma.sync does not lower in MLIR 22),
  /// nvvm.mma.sync on the fragments' registers.
  static Value mma(OpBuilder &b, Location loc, Value a, Value bv, Value acc,
                   Type element) {
    if (element.isF16())
      return nvgpu::MmaSyncOp::create(b, loc, a, bv, acc,
                                      ArrayRef<int64_t>{16, 8, 16});
    Type i32 = b.getI32Type();
    auto registers = [&](Value frag, int64_t n) {
      SmallVector<Value> regs;
      for (int64_t i = 0; i < n; ++i) {
        Value pair = vector::ExtractOp::create(b, loc, frag, i);
        Value word =
            vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
        regs.push_back(vector::ExtractOp::create(b, loc, word, 0));
      }
      return regs;
    };
    return mmaOnRegisters(b, loc, registers(a, 4), registers(bv, 2), acc,
                          NVVM::MMATypes::bf16, 16);
  }

  /// The m16n8k8 tf32 products of one K tile in shared memory (`as`, `bs`
  /// at stage `buf`) into the warp's accumulators. The fragments are loaded
  /// one f32 per register (`ldmatrix` moves 16-bit elements and cannot
  /// transpose B's 32-bit ones) and rounded to tf32 (cvt.rna): A holds rows
  /// lane/4 (+8) and columns lane%4 (+4), B rows lane%4 (+4) and column
  /// lane/4. A transposed operand's tile lies as it does in memory (A^T: K
  /// x M, B^T: N x K) and is read at the swapped indices.
  static void mmaTf32(OpBuilder &b, Location loc, const MatmulInfo &info,
                      Value as, Value bs, Value buf, Value lane, Value warpRow,
                      Value warpCol, const Tiles &t, SmallVector<Value> &accs) {
    IndexMath m{b, loc};
    int64_t fm = t.wm / 16, fn = t.wn / 8;
    Value group = m.div(lane, 4), inGroup = m.rem(lane, 4);
    auto tf32 = [&](Value tile, Value row, Value col) {
      bool swapped = tile == as ? info.transposedA : info.transposedB;
      Value v = memref::LoadOp::create(b, loc, tile,
                                       swapped ? ValueRange{buf, col, row}
                                               : ValueRange{buf, row, col});
      return NVVM::ConvertFloatToTF32Op::create(b, loc, b.getI32Type(), v,
                                                NVVM::FPRoundingMode::RNA)
          .getResult();
    };
    for (int64_t kk = 0; kk < t.bk; kk += 8) {
      SmallVector<SmallVector<Value, 4>> aRegs(fm), bRegs(fn);
      Value col = m.add(inGroup, kk);
      for (int64_t i = 0; i < fm; ++i) {
        Value row = m.add(m.add(warpRow, i * 16), group);
        aRegs[i] = {tf32(as, row, col), tf32(as, m.add(row, 8), col),
                    tf32(as, row, m.add(col, 4)),
                    tf32(as, m.add(row, 8), m.add(col, 4))};
      }
      for (int64_t j = 0; j < fn; ++j) {
        Value n = m.add(m.add(warpCol, j * 8), group);
        bRegs[j] = {tf32(bs, col, n), tf32(bs, m.add(col, 4), n)};
      }
      for (int64_t i = 0; i < fm; ++i)
        for (int64_t j = 0; j < fn; ++j)
          accs[i * fn + j] =
              mmaOnRegisters(b, loc, aRegs[i], bRegs[j], accs[i * fn + j],
                             NVVM::MMATypes::tf32, 8);
    }
  }

  /// With `fromZero`, the accumulators start at zero (C is not read);
  /// otherwise from C. `store` gets them two columns at a time.
  void buildMmaSyncKernel(OpBuilder &outer, Location loc,
                          const MatmulInfo &info, const Tiles &t, bool fromZero,
                          StoreFn store, const ColumnSums *columnSums) {
    MLIRContext *ctx = outer.getContext();
    Attribute shared =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    bool tf32 = info.element.isF32();
    const int64_t bytes = info.element.getIntOrFloatBitWidth() / 8;
    const int64_t chunk = 16 / bytes; // elements per 16-byte copy
    auto [aTile, bTile] = mmaSyncTileShapes(t, info);
    auto aShared = MemRefType::get({t.stages, aTile[0], aTile[1]}, info.element,
                                   MemRefLayoutAttrInterface(), shared);
    auto bShared = MemRefType::get({t.stages, bTile[0], bTile[1]}, info.element,
                                   MemRefLayoutAttrInterface(), shared);
    // The stages in dynamic shared memory (more than the 48 KiB of static
    // shared memory when the pipeline is deep): A's, then B's.
    gpu::LaunchOp launch =
        createLaunch(outer, loc, info, t, mmaSyncSharedBytes(t, info));
    OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
    IndexMath im{b, loc};
    Value dynamic = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), shared));
    Value as =
        memref::ViewOp::create(b, loc, aShared, dynamic, im.c(0), ValueRange());
    Value bs = memref::ViewOp::create(b, loc, bShared, dynamic,
                                      im.c(aShared.getNumElements() * bytes),
                                      ValueRange());
    int64_t threads = t.numWarps() * 32;
    Value tx = launch.getThreadIds().x;
    Value batch = info.batch ? launch.getBlockIds().z : Value();
    Value lane = im.rem(tx, 32), warp = im.div(tx, 32);
    Value wm = im.div(warp, t.bn / t.wn), wn = im.rem(warp, t.bn / t.wn);
    auto [mTile, nTile] = blockOrder(info, t).tileOf(im, launch.getBlockIds().x,
                                                     launch.getBlockIds().y);
    Value mBlock = im.mul(mTile, t.bm);
    Value nBlock = im.mul(nTile, t.bn);
    Value warpRow = im.mul(wm, t.wm), warpCol = im.mul(wn, t.wn);
    int64_t fm = t.wm / 16, fn = t.wn / 8;
    int64_t kTiles = llvm::divideCeil(info.k, t.bk);
    // Partial tiles at the edges: copies zero-fill what lies outside A and
    // B, results outside C are neither loaded nor stored.
    bool partialM = info.m % t.bm, partialN = info.n % t.bn;
    Type f32 = b.getF32Type();
    auto accType = VectorType::get({2, 2}, f32);
    auto pairType = VectorType::get({2}, f32);
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);

    // Accumulator fragment (i, j): lane holds rows lane/4 and lane/4 + 8,
    // columns 2 (lane % 4) and the next.
    Value fragRow = im.div(lane, 4), fragCol = im.mul(im.rem(lane, 4), 2);
    auto accIndex = [&](IndexMath &m, int64_t i, int64_t j, int64_t half) {
      Value row =
          m.add(m.add(mBlock, warpRow), m.add(fragRow, i * 16 + half * 8));
      Value col = m.add(m.add(nBlock, warpCol), m.add(fragCol, j * 8));
      return at(batch, row, col);
    };
    // Whether the pair at `index` lies in C (null: always, no partial tile).
    auto insideC = [&](OpBuilder &ib, ArrayRef<Value> index) -> Value {
      if (!partialM && !partialN)
        return Value();
      return IndexMath{ib, loc}.inside(index[index.size() - 2], info.m,
                                       index.back(), info.n);
    };
    SmallVector<Value> accs;
    Value zero = arith::ConstantOp::create(
        b, loc, accType, DenseElementsAttr::get(accType, 0.0f));
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t j = 0; j < fn; ++j) {
        Value acc = zero;
        for (int64_t half = 0; half < 2 && !fromZero; ++half) {
          SmallVector<Value> index = accIndex(im, i, j, half);
          auto load = [&](OpBuilder &lb) {
            return vector::LoadOp::create(lb, loc, pairType, info.c, index,
                                          /*nontemporal=*/false, llvm::Align(8))
                .getResult();
          };
          Value v;
          if (Value inside = insideC(b, index)) {
            auto guard = scf::IfOp::create(b, loc, TypeRange{pairType}, inside,
                                           /*withElseRegion=*/true);
            OpBuilder tb = guard.getThenBodyBuilder();
            scf::YieldOp::create(tb, loc, load(tb));
            OpBuilder eb = guard.getElseBodyBuilder();
            scf::YieldOp::create(
                eb, loc,
                arith::ConstantOp::create(
                    eb, loc, pairType, DenseElementsAttr::get(pairType, 0.0f))
                    .getResult());
            v = guard.getResult(0);
          } else {
            v = load(b);
          }
          acc = vector::InsertOp::create(b, loc, v, acc, half);
        }
        accs.push_back(acc);
      }

    // The copies of K tile `kt` into buffer `buf`: 16 bytes per copy, spread
    // over the threads; one group. Unless `live` (an i1; null: always), the
    // copies read nothing and zero-fill their chunks: the prefetches past
    // the last K tile, which no warp reads, still make their group.
    // An operand read from a cast's f32 input is loaded (twice the bytes)
    // and rounded in registers instead, and stored to shared memory then,
    // or, with `deferred`, where the caller stores `deferred` (after the
    // products of the current tile: the loads' latency hides behind them).
    struct CastStore {
      Value rounded, dst;
      SmallVector<Value> index;
    };
    auto copyTile = [&](OpBuilder &cb, Value kt, Value buf, Value live,
                        SmallVectorImpl<CastStore> *deferred) {
      IndexMath cm{cb, loc};
      SmallVector<Value> tokens;
      Value kBase = cm.mul(kt, t.bk);
      // A tile of `rows` x `cols` of `src` (its row and column `rowBase`,
      // `colBase` first, `rowsIn` x `colsIn` in all) into `dst`.
      // (Through `view` when the operand is read through one.)
      auto copies = [&](int64_t rows, int64_t cols, Value src,
                        const std::optional<OperandView> &view, Value castFrom,
                        ArrayRef<int64_t> interior, Value dst, Value rowBase,
                        Value colBase, int64_t rowsIn, int64_t colsIn) {
        int64_t perRow = cols / chunk, total = rows * perRow;
        // A padded row, in 16-byte units.
        QuarterWarpChunks order(rows, perRow,
                                cast<MemRefType>(dst.getType()).getDimSize(2) *
                                    bytes / 16);
        for (int64_t first = 0; first < total; first += threads) {
          Value c = cm.add(tx, first);
          scf::IfOp guard;
          if (first + threads > total) {
            Value inRange = arith::CmpIOp::create(
                cb, loc, arith::CmpIPredicate::ult, c, cm.c(total));
            guard = scf::IfOp::create(cb, loc, inRange, false);
          }
          OpBuilder gb = guard ? guard.getThenBodyBuilder() : cb;
          IndexMath gm{gb, loc};
          auto [row, chunkIndex] = order.at(gm, c);
          Value col = gm.mul(chunkIndex, chunk);
          Value srcRow = gm.add(rowBase, row);
          Value srcCol = gm.add(colBase, col);
          // A chunk past the edge of A or B copies fewer elements (none
          // past the last row) from a clamped address and zero-fills the
          // rest.
          Value elements;
          if (rowsIn % rows || colsIn % cols) {
            Value left = arith::MaxSIOp::create(
                gb, loc, gm.sub(gm.c(colsIn), srcCol), gm.c(0));
            elements = arith::SelectOp::create(
                gb, loc,
                arith::CmpIOp::create(gb, loc, arith::CmpIPredicate::ult,
                                      srcRow, gm.c(rowsIn)),
                arith::MinSIOp::create(gb, loc, left, gm.c(chunk)), gm.c(0));
            srcRow = arith::MinUIOp::create(gb, loc, srcRow, gm.c(rowsIn - 1));
            srcCol =
                arith::MinUIOp::create(gb, loc, srcCol, gm.c(colsIn - chunk));
          }
          if (live)
            elements = arith::SelectOp::create(
                gb, loc, live, elements ? elements : gm.c(chunk), gm.c(0));
          if (castFrom) {
            // A chunk is all in the operand or all out (rows of a multiple
            // of `chunk`): outside, zeros (read from the clamped address).
            auto half = VectorType::get({chunk}, info.element);
            auto single = VectorType::get({chunk}, f32);
            Value loaded;
            if (interior.empty()) {
              loaded = vector::LoadOp::create(
                  gb, loc, single, castFrom, at(batch, srcRow, srcCol),
                  /*nontemporal=*/false, llvm::Align(16));
            } else {
              // A zero-padded copy: element by element, zero outside the
              // input's rows and columns (read at a clamped address; its
              // rows need not be 16-byte aligned).
              Value rowIn =
                  arith::CmpIOp::create(gb, loc, arith::CmpIPredicate::ult,
                                        srcRow, gm.c(interior[0]));
              Value row = arith::MinUIOp::create(gb, loc, srcRow,
                                                 gm.c(interior[0] - 1));
              Value zero =
                  arith::ConstantOp::create(gb, loc, gb.getF32FloatAttr(0));
              SmallVector<Value> values;
              for (int64_t e = 0; e < chunk; ++e) {
                Value col = gm.add(srcCol, e);
                Value inside = arith::AndIOp::create(
                    gb, loc, rowIn,
                    arith::CmpIOp::create(gb, loc, arith::CmpIPredicate::ult,
                                          col, gm.c(interior[1])));
                Value v = memref::LoadOp::create(
                    gb, loc, castFrom,
                    ValueRange{row, arith::MinUIOp::create(
                                        gb, loc, col, gm.c(interior[1] - 1))});
                values.push_back(
                    arith::SelectOp::create(gb, loc, inside, v, zero));
              }
              loaded = vector::FromElementsOp::create(gb, loc, single, values);
            }
            Value rounded = arith::TruncFOp::create(gb, loc, half, loaded);
            if (elements)
              rounded = arith::SelectOp::create(
                  gb, loc,
                  arith::CmpIOp::create(gb, loc, arith::CmpIPredicate::ne,
                                        elements, gm.c(0)),
                  rounded,
                  arith::ConstantOp::create(
                      gb, loc, half,
                      DenseElementsAttr::get(half,
                                             gb.getZeroAttr(info.element))));
            CastStore store{rounded, dst, {buf, row, col}};
            if (deferred && !guard)
              deferred->push_back(store);
            else
              vector::StoreOp::create(gb, loc, store.rounded, store.dst,
                                      store.index, /*nontemporal=*/false,
                                      llvm::Align(16));
            continue;
          }
          Value token = nvgpu::DeviceAsyncCopyOp::create(
              gb, loc, tokenType, dst, ValueRange{buf, row, col},
              view ? view->source : src,
              view ? at(gm, *view, batch, srcRow, srcCol)
                   : at(batch, srcRow, srcCol),
              gb.getIndexAttr(chunk), elements, gb.getUnitAttr());
          if (!guard)
            tokens.push_back(token);
        }
      };
      // A: M x K (K x M transposed), B: K x N (N x K transposed).
      if (info.transposedA)
        copies(t.bk, t.bm, info.a, info.viewA, info.castA, info.castInteriorA,
               as, kBase, mBlock, info.k, info.m);
      else
        copies(t.bm, t.bk, info.a, info.viewA, info.castA, info.castInteriorA,
               as, mBlock, kBase, info.m, info.k);
      if (info.transposedB)
        copies(t.bn, t.bk, info.b, info.viewB, info.castB, info.castInteriorB,
               bs, nBlock, kBase, info.n, info.k);
      else
        copies(t.bk, t.bn, info.b, info.viewB, info.castB, info.castInteriorB,
               bs, kBase, nBlock, info.k, info.n);
      // Guarded copies still belong to the group that cp.async.commit_group
      // closes, whose token takes only the unguarded ones (it may take none:
      // a thread whose copies are all guarded commits a group all the same).
      return nvgpu::DeviceAsyncCreateGroupOp::create(cb, loc, tokenType, tokens)
          .getResult();
    };

    // Prologue: tiles 0 .. stages - 2, one group each (empty past K).
    for (int64_t s = 0; s + 1 < t.stages; ++s)
      copyTile(b, im.c(std::min(s, kTiles - 1)), im.c(s),
               s < kTiles
                   ? Value()
                   : arith::ConstantIntOp::create(b, loc, 0, 1).getResult(),
               /*deferred=*/nullptr);
    // B's column sums: the blocks of C's first row of tiles add up each K
    // tile of B from shared memory.
    std::optional<ColumnSumsBuilder> sums;
    Value firstRow;
    SmallVector<Value> inits(accs);
    if (columnSums) {
      sums.emplace(ColumnSumsBuilder{*columnSums, t.bn, t.bk, threads,
                                     info.transposedB, info.element});
      firstRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mBlock,
                                       im.c(0));
      llvm::append_range(inits, sums->zeros(b, loc));
    }
    const int64_t numAccs = accs.size();
    auto loop =
        scf::ForOp::create(b, loc, im.c(0), im.c(kTiles), im.c(1), inits);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value kt = loop.getInductionVar();
      // Prefetch tile kt + stages - 1 into the buffer tile kt - 1 used; past
      // the last tile, an empty group (copies of nothing, at the last
      // tile's addresses, into a buffer no warp reads).
      Value ahead = lm.add(kt, t.stages - 1);
      Value next = arith::MinUIOp::create(lb, loc, ahead, lm.c(kTiles - 1));
      Value live = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult,
                                         ahead, lm.c(kTiles));
      // (With one stage, tile kt itself: stored before it is read.)
      SmallVector<CastStore> castStores;
      Value group = copyTile(lb, next, lm.rem(ahead, t.stages), live,
                             t.stages > 1 ? &castStores : nullptr);
      // Wait for tile kt: only the groups of the next stages - 1 tiles may
      // still be in flight.
      nvgpu::DeviceAsyncWaitOp::create(lb, loc, group,
                                       lb.getI32IntegerAttr(t.stages - 1));
      gpu::BarrierOp::create(lb, loc);
      Value buf = lm.rem(kt, t.stages);
      SmallVector<Value> current(loop.getRegionIterArgs().take_front(numAccs));
      SmallVector<Value> partial;
      if (sums) {
        auto load = [&](OpBuilder &ob, Value k, Value n) -> Value {
          if (!info.element.isF32())
            return vector::LoadOp::create(
                ob, loc, VectorType::get({8}, info.element), bs,
                info.transposedB ? ValueRange{buf, n, k}
                                 : ValueRange{buf, k, n},
                /*nontemporal=*/false, llvm::Align(16));
          // tf32's f32 B: two 16-byte halves (a lane's widest shared
          // access). B's rows (K) are 8 mod 16 words apart, so rows r and
          // r + 4 of the 8 lanes of a quarter-warp share banks: those of
          // rows 4-7 load the second half first. (B^T's lanes are on
          // consecutive rows, 4 mod 8 words apart: in order.)
          IndexMath om{ob, loc};
          auto half = [&](Value offset) -> Value {
            return vector::LoadOp::create(
                ob, loc, VectorType::get({4}, info.element), bs,
                info.transposedB ? ValueRange{buf, n, om.add(k, offset)}
                                 : ValueRange{buf, k, om.add(n, offset)},
                /*nontemporal=*/false, llvm::Align(16));
          };
          static constexpr int64_t both[] = {0, 1, 2, 3, 4, 5, 6, 7};
          if (info.transposedB)
            return vector::ShuffleOp::create(ob, loc, half(om.c(0)),
                                             half(om.c(4)), both);
          Value swap = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::uge,
                                             om.rem(k, 8), om.c(4));
          Value first =
              half(arith::SelectOp::create(ob, loc, swap, om.c(4), om.c(0)));
          Value second =
              half(arith::SelectOp::create(ob, loc, swap, om.c(0), om.c(4)));
          Value low = arith::SelectOp::create(ob, loc, swap, second, first);
          Value high = arith::SelectOp::create(ob, loc, swap, first, second);
          return vector::ShuffleOp::create(ob, loc, low, high, both);
        };
        partial = sums->accumulate(lb, loc, firstRow, tx,
                                   loop.getRegionIterArgs().drop_front(numAccs),
                                   load);
      }
      if (tf32)
        mmaTf32(lb, loc, info, as, bs, buf, lane, warpRow, warpCol, t, current);
      Value ldRow = lm.rem(lane, 16), ldCol = lm.mul(lm.div(lane, 16), 8);
      auto aFragType = VectorType::get({4, 2}, info.element);
      auto bFragType = VectorType::get({2, 2}, info.element);
      for (int64_t kk = 0; kk < (tf32 ? 0 : t.bk / 16); ++kk) {
        SmallVector<Value> aFrags, bFrags;
        // Lane l gives the address of row l % 8 of 8 x 8 matrix l / 8 (of
        // the first 16 lanes for two matrices). A's four are rows 0-7 and
        // 8-15 of K 0-7, then of K 8-15; B's two K 0-7 and 8-15 of 8
        // columns. Stored as their transposes (K x M, N x K), they are
        // loaded with .trans for A and without it for B.
        // Transposed: matrix q = lane / 8, row r = lane % 8; matrix q is
        // 8 (q % 2) on in M (B: in K), 8 (q / 2) on in K.
        auto lowHalf = [&] { return lm.mul(lm.rem(lm.div(lane, 8), 2), 8); };
        for (int64_t i = 0; i < fm; ++i) {
          Value m0 = lm.add(warpRow, i * 16);
          SmallVector<Value> index =
              info.transposedA
                  ? SmallVector<Value>{buf,
                                       lm.add(
                                           lm.add(lm.mul(lm.div(lane, 16), 8),
                                                  kk * 16),
                                           lm.rem(lane, 8)),
                                       lm.add(m0, lowHalf())}
                  : SmallVector<Value>{buf, lm.add(m0, ldRow),
                                       lm.add(ldCol, kk * 16)};
          aFrags.push_back(nvgpu::LdMatrixOp::create(
              lb, loc, aFragType, as, index, lb.getBoolAttr(info.transposedA),
              lb.getI32IntegerAttr(4)));
        }
        for (int64_t j = 0; j < fn; ++j) {
          Value n0 = lm.add(warpCol, j * 8);
          SmallVector<Value> index =
              info.transposedB
                  ? SmallVector<Value>{buf, lm.add(n0, lm.rem(lane, 8)),
                                       lm.add(lowHalf(), kk * 16)}
                  : SmallVector<Value>{buf, lm.add(ldRow, kk * 16), n0};
          bFrags.push_back(nvgpu::LdMatrixOp::create(
              lb, loc, bFragType, bs, index, lb.getBoolAttr(!info.transposedB),
              lb.getI32IntegerAttr(2)));
        }
        for (int64_t i = 0; i < fm; ++i)
          for (int64_t j = 0; j < fn; ++j)
            current[i * fn + j] = mma(lb, loc, aFrags[i], bFrags[j],
                                      current[i * fn + j], info.element);
      }
      // The rounded chunks of tile kt + stages - 1, into the buffer that no
      // warp reads in this iteration (tile kt - 1's).
      for (const CastStore &store : castStores)
        vector::StoreOp::create(lb, loc, store.rounded, store.dst, store.index,
                                /*nontemporal=*/false, llvm::Align(16));
      // No warp overwrites this buffer (in the next iteration) before every
      // warp is done with it.
      gpu::BarrierOp::create(lb, loc);
      llvm::append_range(current, partial);
      scf::YieldOp::create(lb, loc, current);
    }
    if (sums)
      sums->store(b, loc, firstRow, tx, loop.getResults().drop_front(numAccs),
                  nBlock, info.n);
    // The last iterations prefetched tiles no one reads: let them land
    // before the block's shared memory is released.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t j = 0; j < fn; ++j)
        for (int64_t half = 0; half < 2; ++half) {
          Value v = vector::ExtractOp::create(b, loc,
                                              loop.getResult(i * fn + j), half);
          SmallVector<Value> index = accIndex(im, i, j, half);
          Value inside = insideC(b, index);
          auto guard =
              inside ? scf::IfOp::create(b, loc, inside, false) : scf::IfOp();
          OpBuilder sb = guard ? guard.getThenBodyBuilder() : b;
          store(sb, v, batch, index[index.size() - 2], index.back());
        }
    gpu::TerminatorOp::create(b, loc);
  }
};

} // namespace
