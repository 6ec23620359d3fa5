//===- TensorCoreKernels.h - Tensor Core kernel builders --------*- C++ -*-===//
//
// What mpt-linalg-to-tensor-cores shares between its kernel builders: the
// matmul it rewrites, index arithmetic, and the Hopper (wgmma + TMA) kernel,
// which lives in its own file.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_LIB_CONVERSION_LINALGTOGPU_TENSORCOREKERNELS_H
#define MPT_LIB_CONVERSION_LINALGTOGPU_TENSORCOREKERNELS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mpt {
struct Accesses;
} // namespace mpt

namespace mpt::tc {

/// An operand the mma.sync kernel reads through a view of another buffer
/// (the input of the transposes that wrote it): element (batch, row, col) of
/// the operand as the kernel reads it (M x K or, transposed, K x M for A;
/// K x N or N x K for B) is the element of `source` whose indices along
/// the dimensions `batch`, `rows` and `cols` are the batch, row and column
/// taken row-major over them. `source` has the identity layout, and its
/// last dimension is the last of `cols`.
struct OperandView {
  mlir::Value source;
  llvm::SmallVector<int64_t, 4> batch, rows, cols;
};

/// A matmul the pass can take: its operands, shape and batch.
struct MatmulInfo {
  mlir::Value a, b, c;
  int64_t batch = 0; // 0: linalg.matmul
  int64_t m, n, k;
  mlir::Type element;
  /// `a` (or `viewA`) holds A transposed (K x M, batch first), `b` B
  /// transposed (N x K): the input of a linalg.transpose the matmul read
  /// (wgmma reads such operands as M-major A and K-major B tiles, mma.sync
  /// as K x M and N x K tiles; WMMA and the tf32 kernel never get them).
  bool transposedA = false, transposedB = false;
  /// Set when the mma.sync kernel reads A or B through a view that is not
  /// a plain matrix (a head-split or head-merge transpose folded): then
  /// `a` or `b` is unused.
  std::optional<OperandView> viewA, viewB;
  /// Set when the mma.sync kernel reads A or B from the f32 buffer that a
  /// cast rounded into `a` or `b` (a working copy of a weight or a batch),
  /// rounding as it loads: then `a` or `b` gives only the shape. With
  /// `castInteriorA` / `B` (the f32 buffer's rows and columns), the cast
  /// filled only that corner of a zero-filled operand (a zero-padded
  /// copy): the kernel reads zeros outside it.
  mlir::Value castA, castB;
  llvm::SmallVector<int64_t, 2> castInteriorA, castInteriorB;
};

/// Index arithmetic on `index` values.
struct IndexMath {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Value c(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value add(mlir::Value x, int64_t y) { return y ? add(x, c(y)) : x; }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return mlir::arith::SubIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, int64_t y) {
    return y == 1 ? x
                  : mlir::arith::MulIOp::create(b, loc, x, c(y)).getResult();
  }
  mlir::Value div(mlir::Value x, int64_t y) {
    return y == 1 ? x
                  : mlir::arith::DivUIOp::create(b, loc, x, c(y)).getResult();
  }
  mlir::Value rem(mlir::Value x, int64_t y) {
    return mlir::arith::RemUIOp::create(b, loc, x, c(y));
  }
  /// row < rows and col < cols (unsigned).
  mlir::Value inside(mlir::Value row, int64_t rows, mlir::Value col,
                     int64_t cols) {
    auto lt = [&](mlir::Value x, int64_t bound) {
      return mlir::arith::CmpIOp::create(
          b, loc, mlir::arith::CmpIPredicate::ult, x, c(bound));
    };
    return mlir::arith::AndIOp::create(b, loc, lt(row, rows), lt(col, cols));
  }
};

/// The indices of element (row, col) of a matmul operand, with the batch
/// index first for batch_matmul.
inline llvm::SmallVector<mlir::Value> at(mlir::Value batch, mlir::Value row,
                                         mlir::Value col) {
  if (batch)
    return {batch, row, col};
  return {row, col};
}

/// The indices in `view.source` of element (batch, row, col).
llvm::SmallVector<mlir::Value> at(IndexMath &im, const OperandView &view,
                                  mlir::Value batch, mlir::Value row,
                                  mlir::Value col);

/// A matmul operand as the input of the linalg.transposes that last wrote
/// it (through reshapes of both, composed along a chain of them).
struct FoldedOperand {
  mlir::Value buffer;               // what the first transpose read
  llvm::SmallVector<int64_t> shape; // its row-major shape in the view
  llvm::SmallVector<int64_t, 4> batch, rows, cols; // A: M x K, B: K x N
  bool transposed = false; // `shape`'s last dim is the last of rows
  llvm::SmallVector<mlir::Operation *> transposes; // nearest the matmul first

  /// The view as the kernel reads it (rows and columns swapped when
  /// transposed), the reshape of `buffer` to `shape` made at `b`.
  OperandView materialize(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Whether that view is a plain matrix: a batch of the leading dims in
  /// order (if any), then one dim of rows and one of columns (a matrix or,
  /// batch collapsed, a batch of them).
  bool plain() const;
};

/// The fold of the transposes that wrote `operand` of `matmul` (rank 2 or
/// 3, identity layout) into a view of their input, taking each transpose
/// that is the last write of the buffer before the matmul (or before the
/// transpose after it in the chain) and whose input nothing writes from
/// then to the matmul, as long as the view stays one the mma.sync kernel
/// reads in 16-byte rows (`chunk` elements along the contiguous
/// dimension), and at most `maxTransposes` of them (0: any number).
/// `accesses` says what an op does to buffers. Nullopt if no transpose
/// folds.
std::optional<FoldedOperand>
foldTransposes(mlir::Operation *matmul, mlir::Value operand, int64_t chunk,
               llvm::function_ref<mpt::Accesses(mlir::Operation *)> accesses,
               int64_t maxTransposes = 0);

//===----------------------------------------------------------------------===//
// Block order
//===----------------------------------------------------------------------===//

/// The block order of a kernel with an `nTiles` x `mTiles` grid of tiles of
/// C: blocks in groups of `groupM` rows of tiles (Triton's GROUP_SIZE_M).
/// The GPU starts blocks in the order of their linear id (x fastest); taken
/// in groups, the blocks that run at once go down `groupM` rows of tiles
/// before they move to the next column, so they share fewer, more reused
/// panels of A and B in L2 than a whole row of tiles would. groupM 1 (or a
/// grid of one row or one column): row by row, block (x, y) is tile (y, x).
struct BlockOrder {
  int64_t mTiles = 1, nTiles = 1, groupM = 1;
  /// The order of tiles `bm` x `bn` of `info`'s C.
  static BlockOrder of(const MatmulInfo &info, int64_t bm, int64_t bn,
                       int64_t groupM);
  /// Whether the order differs from row by row.
  bool grouped() const { return groupM > 1 && mTiles > 1 && nTiles > 1; }
  /// The M and N tile indices of block (`bx`, `by`).
  std::pair<mlir::Value, mlir::Value> tileOf(IndexMath &im, mlir::Value bx,
                                             mlir::Value by) const;
  /// The M and N tile indices of the tile with linear id `linear` (below
  /// mTiles * nTiles), as tileOf(linear % nTiles, linear / nTiles).
  std::pair<mlir::Value, mlir::Value> tileOfLinear(IndexMath &im,
                                                   mlir::Value linear) const;
  /// ", blocks in groups of G rows of tiles" when grouped, otherwise "".
  std::string describe() const;
};

//===----------------------------------------------------------------------===//
// Epilogues
//===----------------------------------------------------------------------===//

/// How a kernel stores its f32 results: `values` (vector<W x f32>) are the
/// results at (batch, row, col .. col + W - 1); `batch` is null without one.
using StoreFn = llvm::function_ref<void(mlir::OpBuilder &, mlir::Value values,
                                        mlir::Value batch, mlir::Value row,
                                        mlir::Value col)>;

/// The elementwise linalg.generic that reads a matmul's zero-filled f32
/// temporary right after it (the rounding to f16/bf16 and whatever
/// elementwise ops fusion put with it): the kernel starts from zero and
/// evaluates the generic on its results (MatmulEpilogue.cpp). Without a
/// generic, the kernel stores its products into C, whose zero fill goes
/// (C = A B rather than C += A B: C is not read).
///
/// The generic may read a view of the temporary from its origin instead
/// (`interior`: the unpadded part of a padded matmul's product, which the
/// unscaling of a padded weight gradient reads): the kernel then evaluates
/// it and stores only there, and the padded temporary is never written.
struct FusedEpilogue {
  mlir::Operation *fill = nullptr;        // zero fill (or copy of zeros)
  mlir::Operation *generic = nullptr;     // the elementwise linalg.generic
  unsigned accInput = 0;                  // its operand that is the temporary
  mlir::Value out;                        // its output (C without a generic)
  mlir::Operation *view = nullptr;        // the view of the temporary it reads
  llvm::SmallVector<int64_t, 3> interior; // the view's sizes (with `view`)

  /// Moves what the kernel needs (the buffers and views the generic takes,
  /// its output among them) before `matmul`.
  void prepare(mlir::Operation *matmul) const;
  /// Evaluates the generic on `values` (vector<W x f32>, the results at
  /// (batch, row, col .. col + W - 1)): its output there, vector<W x T>.
  mlir::Value evaluate(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value values, mlir::Value batch, mlir::Value row,
                       mlir::Value col) const;
  /// Evaluates the generic on `values` and stores the result (a StoreFn).
  void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value values,
             mlir::Value batch, mlir::Value row, mlir::Value col) const;
  /// The bytes of an element of the output when a TMA store can write it
  /// (a static shape of at most 5 dims, rows of a multiple of 16 bytes),
  /// else 0.
  int64_t tmaStoreBytes() const;
  /// "fused rounding to f16", "fused epilogue (truncf addf ...) into f16"
  /// or, without a generic, "products stored into C (its zero fill
  /// dropped)".
  std::string describe() const;
  /// Erases the fill, the generic and, unless it is the output, the
  /// temporary `acc`.
  void erase(mlir::Value acc) const;
};

/// How consecutive threads take the 16-byte chunks of a shared tile of
/// `rows` rows of `perRow` chunks, `rowUnits` 16-byte units apart, against
/// bank conflicts. Shared memory serves 16-byte accesses a quarter-warp (8
/// threads, 128 bytes of the 32 banks) at a time; thread c's quarter-warp
/// takes a block of `phaseRows` rows x 8 / `phaseRows` chunks (thread c %
/// 8 row-major in it), the blocks row-major over the tile. Along whole rows
/// (one row, or 8 / perRow rows of short ones: the plain row-major order)
/// unless another block has fewer conflicts, as for rows of 4 chunks padded
/// to 5, where the plain order puts chunks 0-3 and 5-8 of a quarter-warp
/// in the same banks and 8 rows of one chunk cover them all, or rows of 6
/// padded to 7 (tf32), whose plain order wraps. A warp's 32
/// threads read the same rows and chunks of global memory either way when
/// rows have at most 4 chunks.
struct QuarterWarpChunks {
  int64_t perRow = 1, phaseRows = 1;
  QuarterWarpChunks(int64_t rows, int64_t perRow, int64_t rowUnits);
  /// (row, chunk) of thread-ordered chunk `c`.
  std::pair<mlir::Value, mlir::Value> at(IndexMath &im, mlir::Value c) const;
  /// The bank conflicts (extra wavefronts) of one pass of 8 perRow chunks.
  static int64_t conflicts(int64_t perRow, int64_t phaseRows, int64_t rowUnits);
  /// The same in the plain row-major order (phaseRows 0).
  static int64_t plainConflicts(int64_t rows, int64_t perRow, int64_t rowUnits);
};

/// Hands `rows` x `cols` f32 of the shared `staging` tile (from its origin)
/// to `store` four columns at a time, as (`rowBase` + r, `colBase` + c):
/// thread `tx` of `threads` takes rows of four tx, tx + threads, ...,
/// consecutive threads on consecutive columns (coalesced). With `bounds`
/// (M, N), only the rows of four inside them (N a multiple of 4).
void storeStagedRows(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Value staging, int64_t rows, int64_t cols,
                     mlir::Value tx, int64_t threads, mlir::Value batch,
                     mlir::Value rowBase, mlir::Value colBase,
                     std::optional<std::pair<int64_t, int64_t>> bounds,
                     StoreFn store);

/// The buffer that `v` views from its origin (a memref.subview of static
/// sizes and unit strides, of its source's rank: the unpadded corner of a
/// padded buffer), or null.
mlir::Value cornerOf(mlir::Value v);

/// Whether `op` fills all of `buffer` with zeros (a linalg.fill on buffers).
bool fillsWithZeros(mlir::Operation *op, mlir::Value buffer);

/// The epilogue of `matmul` into the temporary `acc`, if it has one.
std::optional<FusedEpilogue> findFusedEpilogue(mlir::Operation *matmul,
                                               mlir::Value acc);

/// The epilogue without a generic of `matmul` into `c`, if the last op
/// before it (in its block) that touches C is a zero fill (or a copy of
/// zeros) of all of C: the kernel may store its products rather than add
/// them, and the fill goes. `accesses` tells what an op reads and writes.
std::optional<FusedEpilogue>
findZeroStart(mlir::Operation *matmul, mlir::Value c,
              llvm::function_ref<mpt::Accesses(mlir::Operation *)> accesses);

//===----------------------------------------------------------------------===//
// Column sums of B (a bias gradient) in the matmul's kernel
//===----------------------------------------------------------------------===//

/// A linalg.generic before a matmul C = A B that sums B's columns into an
/// f32 vector, `out`[n] (+)= sum over k of B[k, n]: the bias gradient of a
/// linear layer, whose weight gradient is X^T dY with B = dY. The blocks of
/// the matmul's first row of tiles read all of B's columns, K tile by K
/// tile, through shared memory: they add them up there as well, and the
/// generic (a kernel that reads B once more) goes (ColumnSums.cpp).
struct ColumnSums {
  mlir::Operation *reduction = nullptr; // the generic
  mlir::Operation *fill = nullptr;      // the zero fill of `out` before it
  mlir::Value out;                      // memref<N x f32>

  /// Erases the generic, and the fill (the kernel stores rather than adds).
  void erase() const;
  /// ", B's column sums (a bias gradient) added up in the kernel".
  std::string describe() const;
};

/// The column sums of `b` (the K x N operand B of the linalg.matmul
/// `matmul`, a plain f16 or bf16 matrix, N a multiple of 8; for the tiled
/// SIMT kernel, `simt`, also f32 and any N) that a generic before the
/// matmul computes, if nothing between them writes B or touches the sums,
/// and `epilogue` (the matmul's fused epilogue generic, if any) does not
/// touch them either. `accesses` says what an op does to buffers.
std::optional<ColumnSums>
findColumnSums(mlir::Operation *matmul, mlir::Value b,
               mlir::Operation *epilogue,
               llvm::function_ref<mpt::Accesses(mlir::Operation *)> accesses,
               bool simt = false);

/// The kernel's part of ColumnSums: `threads` threads (index `tid`, from
/// 0) add up the columns of each K tile of B (`bk` x `bn`, or transposed
/// `bn` x `bk`, in shared memory) in f32 registers, and store the sums of
/// the tile's columns at the end. Every thread of the kernel's warps that
/// run the tile takes part (the stores shuffle across lanes). A thread
/// holds 8 columns of B (or 8 K of one column, transposed) per slot.
struct ColumnSumsBuilder {
  const ColumnSums &sums;
  int64_t bn, bk, threads;
  bool transposedB;
  mlir::Type element; // B's element type

  /// Loads 8 consecutive elements of B's K tile in shared memory, as
  /// vector<8 x element>: row k, columns n .. n + 7 (n a multiple of 8),
  /// or, transposed, column n, rows k .. k + 7 (k a multiple of 8).
  using LoadFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &,
                                                mlir::Value k, mlir::Value n)>;
  /// Slots of 8 a thread holds.
  int64_t slots() const;
  /// The partial sums at the start: slots() zero vector<8 x f32>.
  llvm::SmallVector<mlir::Value> zeros(mlir::OpBuilder &b,
                                       mlir::Location loc) const;
  /// The partial sums after adding this thread's part of a K tile where
  /// `when` (an i1, the same for the whole block: C's first row of tiles)
  /// holds, else `partial` unchanged.
  llvm::SmallVector<mlir::Value>
  accumulate(mlir::OpBuilder &b, mlir::Location loc, mlir::Value when,
             mlir::Value tid, mlir::ValueRange partial, LoadFn load) const;
  /// Where `when` holds, stores the sums of the tile's columns (`nBase` on,
  /// those below `n`): `out` = them, or `out` += them without a zero fill.
  void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value when,
             mlir::Value tid, mlir::ValueRange partial, mlir::Value nBase,
             int64_t n) const;
};

//===----------------------------------------------------------------------===//
// wgmma + TMA (sm_90a)
//===----------------------------------------------------------------------===//

/// K of one pipeline stage: one 128-byte swizzle row of 16-bit elements.
inline constexpr int64_t kWgmmaBlockK = 64;

/// A block of `bm / 64` warpgroups, each computing 64 rows by `bn` columns,
/// fed by `stages` TMA buffers.
struct WgmmaTiles {
  int64_t bm, bn, stages;
  /// A producer warpgroup issues the copies; the others only compute.
  bool specialized = false;
  /// Persistent: at most this many blocks, each looping over tiles (and
  /// specialized); 0: one block per tile.
  int64_t persistentBlocks = 0;
  /// Ping-pong (persistent too): two consumer warpgroups take alternate
  /// tiles, each the whole `bm` x `bn` tile; otherwise they share each tile,
  /// 64 rows each.
  bool pingpong = false;
  /// Thread-block clusters of clusterM x clusterN blocks (specialized too):
  /// tiles of C side by side, the blocks of a row of the cluster sharing
  /// A's tile and those of a column B's; each block copies its share of
  /// both to the blocks that share them (TMA multicast).
  int64_t clusterM = 1, clusterN = 1;
  int64_t clusterBlocks() const { return clusterM * clusterN; }
  /// Persistent only: the epilogue stores through shared memory with TMA,
  /// chunks of 32 columns of an output of this many bytes an element (0:
  /// straight from the registers). Each consumer warpgroup has two
  /// buffers of consumerRows() x 32, after the stages.
  int64_t storeBytes = 0;
  /// The bytes of one TMA store buffer.
  int64_t storeBufferBytes() const {
    return consumerRows() * kStoreChunk * storeBytes;
  }
  static constexpr int64_t kStoreChunk = 32;
  /// Consumer warpgroups.
  int64_t warpgroups() const { return pingpong ? 2 : bm / 64; }
  /// The rows of a tile that one consumer warpgroup computes.
  int64_t consumerRows() const { return pingpong ? bm : 64; }
  int64_t threads() const { return 128 * (warpgroups() + specialized); }
  /// Where the stages' release mbarriers lie in the (1024-byte aligned)
  /// dynamic shared memory of a clustered kernel (other blocks of the
  /// cluster arrive on them), after the stages and the epilogue's staging.
  int64_t releaseBarrierOffset() const;
  /// Dynamic shared memory of the kernel, in bytes.
  int64_t sharedBytes() const;
};

/// How the wgmma kernel's TMA boxes cover a tile of a view: boxes of `rows`
/// rows (along the last of the rows' dims) and `width` columns (along the
/// contiguous last dim), 1 along every other dim. A tile of R rows x 64
/// columns takes (R / rows) x (64 / width) boxes.
struct TmaBoxes {
  /// The tile's rows, or those of one sequence where the rows span several
  /// dims and the last is shorter than the tile (attention's head merge:
  /// rows of (batch, position)): a multiple of 8 that divides the tile's.
  int64_t rows;
  /// 64, or where the columns span a head dim whose heads are not a
  /// multiple of 64 (the head merge's columns of (head, dim)) the largest
  /// of 32, 16 and 8 that divides a head, so that no box crosses one: the
  /// box's rows of 2 * width bytes are then swizzled by that much (32 or 64
  /// bytes; rows of 16 bytes are not swizzled, the interleaved layout of 8
  /// x 16-byte core matrices) rather than by 128, and wgmma reads them so.
  int64_t width;
  /// The head (the columns' last dim) where `width` < 64, else 0.
  int64_t head = 0;
  int64_t copies(int64_t tileRows) const {
    return tileRows / rows * (64 / width);
  }
};
/// The boxes of tiles of `tileRows` rows of `view`, or nullopt where the
/// wgmma kernel cannot read such tiles through TMA: the rows' last dim is
/// neither a multiple of `tileRows` nor a multiple of 8 that divides it, or
/// a tile would take more than 64 copies.
std::optional<TmaBoxes> tmaBoxes(const OperandView &view, int64_t tileRows);
/// Whether the wgmma kernel reads `view` through TMA: of at most 5 static
/// dims whose strides are multiples of 16 bytes, the contiguous last dim
/// the last of the columns' dims and not a row dim; columns of one dim, or
/// of several where the last is a multiple of 64 or (16-bit elements) of 8
/// (see TmaBoxes::width); and boxes for tiles of 64 rows.
bool tmaReadable(const OperandView &view);
/// What the wgmma kernel's options ask for.
struct WgmmaOptions {
  llvm::StringRef blockTile; // "BMxBNx64", or "" to choose by shape
  int64_t stages = 0;        // pipeline depth, 0 to choose
  bool specialized = false;  // warp-specialize
  bool persistent = false;   // persistent (implies specialized)
  bool pingpong = false;     // ping-pong (implies persistent)
  int64_t clusterM = 1;      // blocks of a cluster along M (1 or 2)
  int64_t clusterN = 1;      // blocks of a cluster along N (1 or 2)
  bool tmaStore = false;     // TMA-store epilogue (implies persistent)
  int64_t storeBytes = 0;    // the output's element bytes if TMA can store it
  int64_t sms = 132;         // SMs the grid aims to fill
};

/// Tiles for `info`, or nullopt with `reason` set when the wgmma kernel
/// cannot take the matmul.
std::optional<WgmmaTiles> chooseWgmmaTiles(const MatmulInfo &info,
                                           const WgmmaOptions &options,
                                           std::string &reason);

/// Replaces nothing: builds, at `outer`'s insertion point, the TMA
/// descriptors and the gpu.launch of the wgmma kernel for `info`. The
/// accumulators start from zero; `store` gets them four columns at a time
/// (the persistent kernel: two), or, with `tiles.storeBytes`, `epilogue`
/// evaluates them and TMA stores its output. With `columnSums`, the tiles
/// of C's first row add up B's columns as well.
void buildWgmmaKernel(mlir::OpBuilder &outer, mlir::Location loc,
                      const MatmulInfo &info, const WgmmaTiles &tiles,
                      int64_t groupM, StoreFn store,
                      const FusedEpilogue *epilogue = nullptr,
                      const ColumnSums *columnSums = nullptr);

/// Whether the tiled SIMT kernel takes `info` (float operands of one type,
/// f32 C).
bool simtMatmulApplies(const MatmulInfo &info);
/// The widths (in elements, 1 = scalar) of the tiled SIMT kernel's
/// accesses: staging A along K, B along N, C += along N, and the shared
/// slices read by the products.
struct SimtVectors {
  int64_t a, b, c, shared;
};
/// Vectors of up to `vectorBytes` / 4 elements (the operands are staged as
/// f32), at most 4, halved along A and B and C until they divide K or N.
SimtVectors simtVectors(const MatmulInfo &info, int64_t vectorBytes);
/// The tiled SIMT matmul kernel (SimtMatmul.cpp): C += A B, or, with an
/// `epilogue` (C zero-filled before), C = A B or the epilogue's generic of
/// A B stored into its output (C is not read), with large tiles where they
/// still give `sms` blocks; with `columnSums`, the blocks of C's first row
/// of tiles add up B's columns as well. Returns its gpu.launch.
mlir::Operation *buildSimtMatmulKernel(mlir::OpBuilder &outer,
                                       mlir::Location loc,
                                       const MatmulInfo &info, int64_t sms,
                                       int64_t vectorBytes,
                                       const FusedEpilogue *epilogue,
                                       const ColumnSums *columnSums = nullptr);
std::string describeSimtMatmul(const MatmulInfo &info, int64_t sms,
                               int64_t vectorBytes);

/// "AxBxC" -> {A, B, C}.
std::optional<llvm::SmallVector<int64_t>> parseSizes(llvm::StringRef text,
                                                     unsigned n);

} // namespace mpt::tc

#endif // MPT_LIB_CONVERSION_LINALGTOGPU_TENSORCOREKERNELS_H
