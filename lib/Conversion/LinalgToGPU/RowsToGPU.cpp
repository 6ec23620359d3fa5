//===- RowsToGPU.cpp - mpt-rows-to-gpu ------------------------------------===//
//
// The row-wise chains of softmax, layer norm and their gradients (a
// reduction along the last dimension, elementwise ops over the rows that
// read its result broadcast, more reductions of those) as one kernel: a
// team of threads per row, each thread taking the columns lane, lane +
// lanes, ... (adjacent threads read adjacent elements), a team's values
// combined by warp shuffles (and, for teams wider than a warp, the warps'
// values in shared memory). As loop nests they were one kernel
// per dependent op, and a row reduction was one thread per row walking the
// row alone.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "BufferAccesses.h"
#include "Reshapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/bit.h"

#include <map>

namespace mpt {
#define GEN_PASS_DEF_ROWSTOGPU
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Threads per block at least: teams of `lanes` threads, one row each.
constexpr int64_t kBlockThreads = 128;

/// Threads per warp: the width of a shuffle.
constexpr int64_t kWarp = 32;

/// What a row op is: over the rows only (a fill of a per-row buffer, an
/// elementwise op on per-row values), over the rows and their columns
/// (elementwise), or a reduction of each row.
enum class Kind { Rows, Columns, Reduction };

struct RowOp {
  Operation *op = nullptr;
  Kind kind = Kind::Rows;
  SmallVector<int64_t> rows; // the shape of the row dimensions
  int64_t columns = 0;       // Columns, Reduction: the last loop's range
  // Reduction: the op combining the accumulator and an element.
  Operation *combine = nullptr;
  Value element;
  TypedAttr neutral;
};

/// The type an accumulator has in shared memory: i1 as i8.
Type storageType(Type t) {
  return t.isInteger(1) ? IntegerType::get(t.getContext(), 8) : t;
}

bool supportedAccumulator(Type t) {
  if (!t.isIntOrFloat() || isa<IndexType>(t))
    return false;
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits == 1 || (bits % 8 == 0 && bits <= 64);
}

/// Threads per row: up to 32 for rows of up to 128 columns, else about a
/// quarter of the columns, at most 256.
int64_t lanesFor(int64_t columns) {
  if (columns <= 128)
    return std::min<int64_t>(32, llvm::PowerOf2Ceil(columns));
  return std::min<int64_t>(256, llvm::bit_floor(uint64_t(columns / 4)));
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// What the kernel knows of a buffer that the group's ops read or write at
/// their elements only (the row and the column, through any shape of the
/// buffer), or at the row only: the lane that owns a column keeps its value
/// in registers from op to op, and every lane of a team its row's value.
struct KeptBuffer {
  int64_t firstUse = 0, lastUse = 0; // ops of the group, by index
  int64_t lastWrite = -1;            // the one op that stores it
  bool registerOnly = false;         // never stored (see analyze)

  /// Whether op `op` of the group stores the buffer: once read from
  /// registers after its first write, it goes to memory at its last write
  /// only, if at all.
  bool storedBy(int64_t op) const { return !registerOnly && lastWrite == op; }
};

/// The kernel of a group, built at its last op: a team of threads per row,
/// the ops one after another. Every lane of a team holds the team's per-row
/// values (a max, a sum) and the values of its own columns, so no op needs
/// another thread's writes to memory and no block barrier separates them;
/// with register-columns=0 per-row values go through memory, written by the
/// team's first lane, and a block barrier follows every op.
class RowKernel {
public:
  RowKernel(ArrayRef<RowOp> group, int64_t rows, int64_t columns,
            int64_t registerColumns)
      : group(group), loc(group.back().op->getLoc()), rows(rows),
        columns(columns), rowValues(registerColumns > 0) {
    // Vectors of `width` adjacent columns a lane where the lane's columns
    // are unrolled with them; else one column at a time.
    for (int64_t w : {vectorWidth(group, columns), int64_t(1)}) {
      width = w;
      lanes = std::min<int64_t>(lanesFor(columns),
                                llvm::PowerOf2Ceil(columns / width));
      steps = llvm::divideCeil(columns / width, lanes);
      inRegisters = steps * width <= registerColumns;
      if (inRegisters || width == 1)
        break;
    }
  }

  /// The columns a lane loads and stores at once: 16 bytes of the widest
  /// element an op reads or writes along the row (halved until it divides
  /// the row), where every such operand is a row-major buffer of ints or
  /// floats (so a lane's vector is contiguous and aligned as the row is).
  static int64_t vectorWidth(ArrayRef<RowOp> group, int64_t columns) {
    int64_t maxBytes = 1;
    for (const RowOp &r : group) {
      if (r.kind == Kind::Rows)
        continue;
      auto op = cast<linalg::LinalgOp>(r.op);
      for (OpOperand &operand : r.op->getOpOperands()) {
        if (!alongColumns(r, operand))
          continue;
        auto type = cast<MemRefType>(operand.get().getType());
        Type element = type.getElementType();
        // (The column only in the last index: not a diagonal.)
        AffineMap map = op.getMatchingIndexingMap(&operand);
        if (!type.getLayout().isIdentity() || !element.isIntOrFloat() ||
            element.getIntOrFloatBitWidth() % 8 ||
            llvm::count_if(map.getResults(), [&](AffineExpr e) {
              return e.isFunctionOfDim(op.getNumLoops() - 1);
            }) != 1)
          return 1;
        maxBytes =
            std::max<int64_t>(maxBytes, element.getIntOrFloatBitWidth() / 8);
      }
    }
    int64_t width = 16 / maxBytes;
    while (width > 1 && columns % width)
      width /= 2;
    return width;
  }

  /// Whether `operand` of `r` is a buffer whose innermost dimension is the
  /// column (its map's last result is the last loop).
  static bool alongColumns(const RowOp &r, OpOperand &operand) {
    if (r.kind == Kind::Rows || !isa<MemRefType>(operand.get().getType()))
      return false;
    auto op = cast<linalg::LinalgOp>(r.op);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.getNumResults() == 0)
      return false;
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    return last && last.getPosition() == op.getNumLoops() - 1;
  }

  void emit() {
    analyze();
    // At the last op: the buffers and views of the group's ops are made
    // before it (allocations and views may come between them).
    OpBuilder b(group.back().op);
    const int64_t teams = std::max<int64_t>(1, kBlockThreads / lanes);
    threads = lanes * teams;
    // Shared memory only for teams wider than a warp: a slot per warp for
    // the widest accumulator (with per-row values in registers, two sets of
    // slots that reductions use in turn: a reduction's slots are read by
    // every lane, and the next reduction's barrier passes before the one
    // after it writes them again).
    int64_t maxBytes = 0;
    if (lanes > kWarp)
      for (const RowOp &r : group)
        if (r.kind == Kind::Reduction)
          maxBytes = std::max<int64_t>(
              maxBytes, storageType(r.combine->getResult(0).getType())
                                .getIntOrFloatBitWidth() /
                            8);
    Value one = c(b, 1);
    Value sharedBytes;
    if (maxBytes > 0)
      sharedBytes = arith::ConstantIntOp::create(
          b, loc, b.getI32Type(), slotBanks() * threads / kWarp * maxBytes);
    slotBytes = threads / kWarp * maxBytes;
    auto launch =
        gpu::LaunchOp::create(b, loc, c(b, llvm::divideCeil(rows, teams)), one,
                              one, c(b, threads), one, one, sharedBytes);

    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    tid = launch.getThreadIds().x;
    lane = arith::RemUIOp::create(kb, loc, tid, c(kb, lanes));
    Value team = arith::DivUIOp::create(kb, loc, tid, c(kb, lanes));
    Value row = arith::AddIOp::create(
        kb, loc,
        arith::MulIOp::create(kb, loc, launch.getBlockIds().x, c(kb, teams)),
        team);
    valid = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, row,
                                  c(kb, rows));
    // The row (row 0 for the teams past the end, which only take part in
    // the barriers and the shuffles).
    safeRow = arith::SelectOp::create(kb, loc, valid, row, c(kb, 0));
    leader = arith::AndIOp::create(
        kb, loc, valid,
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, lane,
                              c(kb, 0)));
    if (sharedBytes)
      dynamic = gpu::DynamicSharedMemoryOp::create(
          kb, loc,
          MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                          MemRefLayoutAttrInterface(),
                          gpu::AddressSpaceAttr::get(
                              b.getContext(), gpu::AddressSpace::Workgroup)));

    for (auto [i, r] : llvm::enumerate(group)) {
      current = i;
      SmallVector<Value> index(rowIndex(kb, r.rows)); // (before any branch)
      switch (r.kind) {
      case Kind::Rows: {
        if (rowValues) { // every lane; the leader stores
          emitBody(kb, r, index);
          break;
        }
        auto branch = scf::IfOp::create(kb, loc, leader, /*withElse=*/false);
        OpBuilder ib = branch.getThenBodyBuilder();
        emitBody(ib, r, index);
        break;
      }
      case Kind::Columns:
        emitColumns(kb, r, index);
        break;
      case Kind::Reduction:
        emitReduction(kb, r, index);
        break;
      }
      // Through memory, every op's writes before the next op's reads (a
      // per-row value the leader wrote, read by the team) and its reads
      // before the next op's writes.
      if (barrierAfterOps)
        gpu::BarrierOp::create(kb, loc);
    }
    gpu::TerminatorOp::create(kb, loc);
    for (const RowOp &r : group)
      r.op->erase();
    for (auto *kind : {&buffers, &rowBuffers})
      for (auto &[root, kept] : *kind)
        if (kept.registerOnly)
          eraseBuffer(root);
  }

private:
  Value c(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  //===--------------------------------------------------------------------===//
  // Buffers kept in registers
  //===--------------------------------------------------------------------===//

  /// The buffer (through reshapes) that `operand` of `r` reads or writes at
  /// the op's elements, if it does: an identity map over all the loops of
  /// an op over columns or of a reduction's input.
  static Value elementBuffer(const RowOp &r, OpOperand &operand) {
    if (r.kind == Kind::Rows)
      return Value();
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getLayout().isIdentity() ||
        !cast<linalg::LinalgOp>(r.op)
             .getMatchingIndexingMap(&operand)
             .isIdentity())
      return Value();
    return mpt::reshapeSource(operand.get());
  }

  /// The buffer (through reshapes) that `operand` of `r` reads or writes
  /// at the row, if it does: a map to the row's loops (all the loops of an
  /// op over rows, all but the column of the others).
  static Value rowBuffer(const RowOp &r, OpOperand &operand) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    auto op = cast<linalg::LinalgOp>(r.op);
    if (!type || !type.getLayout().isIdentity() ||
        op.getMatchingIndexingMap(&operand) !=
            AffineMap::getMultiDimIdentityMap(op.getNumLoops(),
                                              r.op->getContext())
                .getMajorSubMap(r.rows.size()))
      return Value();
    return mpt::reshapeSource(operand.get());
  }

  /// Whether `r`'s body reads `operand` (its block argument has uses).
  static bool reads(const RowOp &r, OpOperand &operand) {
    auto generic = dyn_cast<linalg::GenericOp>(r.op);
    return generic && !generic.getMatchingBlockArgument(&operand).use_empty();
  }

  /// Whether every user of `v`, through reshapes, is an op of the group or
  /// a dealloc.
  bool usedOnlyByGroup(Value v) {
    for (Operation *user : v.getUsers()) {
      if (isa<memref::DeallocOp>(user) ||
          llvm::any_of(group, [&](const RowOp &r) { return r.op == user; }))
        continue;
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user) &&
          usedOnlyByGroup(user->getResult(0)))
        continue;
      return false;
    }
    return true;
  }

  /// The buffers to keep: those that every op of the group reads and
  /// writes at its elements only (if a lane's columns are unrolled), and
  /// those it reads and writes at the row only (per-row values, unless
  /// register-columns=0). One the group allocates, uses alone and writes
  /// before it reads (a softmax's exponentials, a layer norm's centered
  /// values, a softmax's max and sum) is never stored: its allocation goes.
  void analyze() {
    DenseSet<Value> other;
    auto use = [](llvm::MapVector<Value, KeptBuffer> &kind, Value root,
                  int64_t i, bool write) {
      auto [it, inserted] = kind.insert({root, KeptBuffer{}});
      if (inserted)
        it->second.firstUse = i;
      it->second.lastUse = i;
      if (write)
        it->second.lastWrite = i;
    };
    for (auto [i, r] : llvm::enumerate(group))
      for (OpOperand &operand : r.op->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()))
          continue;
        bool write =
            cast<DestinationStyleOpInterface>(r.op).isDpsInit(&operand);
        if (Value root = rowValues ? rowBuffer(r, operand) : Value())
          use(rowBuffers, root, i, write);
        else if (Value root = inRegisters ? elementBuffer(r, operand) : Value())
          use(buffers, root, i, write);
        else
          other.insert(mpt::reshapeSource(operand.get()));
      }
    for (auto *kind : {&buffers, &rowBuffers})
      kind->remove_if([&](auto &entry) {
        return other.contains(entry.first) ||
               (kind == &rowBuffers && buffers.contains(entry.first));
      });
    for (auto *kind : {&buffers, &rowBuffers})
      for (auto &entry : *kind) {
        Value root = entry.first;
        KeptBuffer &kept = entry.second;
        const RowOp &first = group[kept.firstUse];
        bool readFirst = llvm::any_of(first.op->getOpOperands(), [&](auto &o) {
          return (kind == &buffers ? elementBuffer(first, o)
                                   : rowBuffer(first, o)) == root &&
                 reads(first, o);
        });
        kept.registerOnly = root.getDefiningOp<memref::AllocOp>() &&
                            !readFirst && usedOnlyByGroup(root);
      }
    // A buffer the group writes at the row that is not kept (not expected:
    // the group reads such a buffer at the row only) goes through memory,
    // with the barriers that takes.
    barrierAfterOps = !rowValues;
    for (const RowOp &r : group)
      for (OpOperand &init :
           cast<DestinationStyleOpInterface>(r.op).getDpsInitsMutable())
        if (Value root = rowBuffer(r, init);
            root && (!rowValues || !rowBuffers.contains(root)))
          barrierAfterOps = true;
  }

  /// The kept buffer that `operand` of `r` reads or writes at its elements.
  Value kept(const RowOp &r, OpOperand &operand) {
    Value root = elementBuffer(r, operand);
    return root && buffers.contains(root) ? root : Value();
  }

  /// The kept buffers whose values at the current step the current op
  /// passes on to a later op (its region yields them): those it writes,
  /// and those it is the first to read.
  SmallVector<Value> passedOn(const RowOp &r) {
    llvm::SetVector<Value> roots;
    for (OpOperand &operand : r.op->getOpOperands()) {
      Value root = kept(r, operand);
      if (!root || buffers.lookup(root).lastUse <= current)
        continue;
      auto dps = cast<DestinationStyleOpInterface>(r.op);
      if (dps.isDpsInit(&operand) ||
          (reads(r, operand) && !known.count({root, sub})))
        roots.insert(root);
    }
    return roots.takeVector();
  }

  /// The kept per-row buffer that `operand` of `r` reads or writes.
  Value keptRow(const RowOp &r, OpOperand &operand) {
    if (!rowValues)
      return Value();
    Value root = rowBuffer(r, operand);
    return root && rowBuffers.contains(root) ? root : Value();
  }

  /// The team's value of the kept per-row buffer that `operand` of `r`
  /// reads: the last one written, or loaded from memory (at the kernel's
  /// top level: `b` must be there) by every lane.
  Value rowValue(OpBuilder &b, const RowOp &r, OpOperand &operand,
                 ArrayRef<Value> rowIdx) {
    Value root = keptRow(r, operand);
    if (Value v = rowKnown.lookup(root))
      return v;
    Value v = memref::LoadOp::create(
        b, loc, operand.get(),
        indicesOf(b,
                  cast<linalg::LinalgOp>(r.op).getMatchingIndexingMap(&operand),
                  rowIdx));
    rowKnown[root] = v;
    loadedRows.insert(root);
    return v;
  }

  /// Stores the team's value `v` of `r`'s output `operand` at the row (at
  /// the kernel's top level): every lane keeps it if the buffer is kept,
  /// the leader stores it if it is not, or if this is the group's last
  /// write of a buffer that is stored at all. A buffer the lanes loaded
  /// earlier gets a block barrier first, so that no lane still to load it
  /// sees the new value.
  void storeRow(OpBuilder &b, const RowOp &r, Value v, OpOperand &operand,
                ArrayRef<Value> rowIdx) {
    if (Value root = keptRow(r, operand)) {
      rowKnown[root] = v;
      KeptBuffer kept = rowBuffers.lookup(root);
      if (!kept.storedBy(current))
        return;
      if (loadedRows.contains(root)) {
        gpu::BarrierOp::create(b, loc);
        loadedRows.clear();
      }
    }
    auto branch = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
    OpBuilder ib = branch.getThenBodyBuilder();
    memref::StoreOp::create(
        ib, loc, v, operand.get(),
        indicesOf(ib,
                  cast<linalg::LinalgOp>(r.op).getMatchingIndexingMap(&operand),
                  rowIdx));
  }

  Value load(OpBuilder &b, const RowOp &r, OpOperand &operand,
             ArrayRef<Value> index) {
    if (Value v = perRow.lookup(&operand))
      return v;
    if (keptRow(r, operand)) // (an op over rows, at the top level)
      return rowValue(b, r, operand, index);
    Value root = kept(r, operand);
    if (root) {
      if (Value v = local.lookup(root))
        return v;
      if (Value v = known.lookup({root, sub}))
        return v;
    }
    AffineMap map =
        cast<linalg::LinalgOp>(r.op).getMatchingIndexingMap(&operand);
    Value v;
    if (width > 1 && alongColumns(r, operand)) {
      // The lane's vector, loaded at its first column, then its element.
      Value &vector = vectors[{operand.get(), map}];
      if (!vector) {
        SmallVector<Value> first(index);
        first.back() = vectorColumn;
        Type element =
            cast<MemRefType>(operand.get().getType()).getElementType();
        vector = vector::LoadOp::create(
            b, loc, VectorType::get({width}, element), operand.get(),
            indicesOf(b, map, first), /*nontemporal=*/false,
            llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8));
      }
      v = vector::ExtractOp::create(b, loc, vector,
                                    ArrayRef<int64_t>{vectorElement});
    } else {
      v = memref::LoadOp::create(b, loc, operand.get(),
                                 indicesOf(b, map, index));
    }
    if (root)
      local[root] = v;
    return v;
  }

  void store(OpBuilder &b, const RowOp &r, Value v, OpOperand &operand,
             ArrayRef<Value> index) {
    if (rowValues && r.kind == Kind::Rows)
      return storeRow(b, r, v, operand, index);
    Value root = kept(r, operand);
    if (root)
      local[root] = v;
    if (root && !buffers.lookup(root).storedBy(current))
      return;
    AffineMap map =
        cast<linalg::LinalgOp>(r.op).getMatchingIndexingMap(&operand);
    if (width > 1 && alongColumns(r, operand)) {
      // Stored as the lane's vector once all its columns are (storeVectors).
      auto &[first, values] = pending[{operand.get(), map}];
      if (values.empty()) {
        first.assign(index.begin(), index.end());
        first.back() = vectorColumn;
        values.resize(width);
      }
      values[vectorElement] = v;
      return;
    }
    memref::StoreOp::create(b, loc, v, operand.get(), indicesOf(b, map, index));
  }

  /// Stores the vectors of a step's columns that `store` collected.
  void storeVectors(OpBuilder &b) {
    for (auto &[key, entry] : pending) {
      auto &[first, values] = entry;
      Type element = values.front().getType();
      Value vector = vector::FromElementsOp::create(
          b, loc, VectorType::get({width}, element), values);
      vector::StoreOp::create(
          b, loc, vector, key.first, indicesOf(b, key.second, first),
          /*nontemporal=*/false,
          llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8));
    }
    pending.clear();
  }

  /// Erases a buffer that only the (erased) group used: its reshapes,
  /// deallocs and allocation.
  static void eraseBuffer(Value v) {
    for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
      if (user->getNumResults() == 1)
        eraseBuffer(user->getResult(0));
      user->erase();
    }
    if (Operation *def = v.getDefiningOp();
        def && def->use_empty() && isa<memref::AllocOp>(def))
      def->erase();
  }

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  /// The row's index for rows of `shape` (delinearized row-major).
  ArrayRef<Value> rowIndex(OpBuilder &kb, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> key(shape);
    auto it = indices.find(key);
    if (it != indices.end())
      return it->second;
    SmallVector<Value> index(shape.size());
    Value rest = safeRow;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      index[d] = d == 0
                     ? rest
                     : arith::RemUIOp::create(kb, loc, rest, c(kb, shape[d]));
      if (d > 0)
        rest = arith::DivUIOp::create(kb, loc, rest, c(kb, shape[d]));
    }
    return indices.emplace(key, index).first->second;
  }

  /// The indices of `map`'s results for the loop indices `index`.
  SmallVector<Value> indicesOf(OpBuilder &b, AffineMap map,
                               ArrayRef<Value> index) {
    SmallVector<Value> result;
    for (AffineExpr e : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        result.push_back(index[dim.getPosition()]);
      else
        result.push_back(c(b, cast<AffineConstantExpr>(e).getValue()));
    }
    return result;
  }

  /// Maps the block arguments of `r`'s body (but the skipped one) to its
  /// operands' values at `index`, and its linalg.index ops.
  void loadOperands(OpBuilder &b, const RowOp &r, ArrayRef<Value> index,
                    IRMapping &map, Value skip = Value()) {
    Block &body = r.op->getRegion(0).front();
    for (OpOperand &operand : r.op->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (arg == skip || arg.use_empty())
        continue;
      map.map(arg, isa<MemRefType>(operand.get().getType())
                       ? load(b, r, operand, index)
                       : operand.get());
    }
    body.walk(
        [&](linalg::IndexOp i) { map.map(i.getResult(), index[i.getDim()]); });
  }

  /// The body of a fill or elementwise op at `index`: its results stored.
  void emitBody(OpBuilder &b, const RowOp &r, ArrayRef<Value> index) {
    if (auto fill = dyn_cast<linalg::FillOp>(r.op)) {
      store(b, r, fill.getInputs()[0], fill.getDpsInitsMutable()[0], index);
      return;
    }
    auto generic = cast<linalg::GenericOp>(r.op);
    IRMapping map;
    loadOperands(b, r, index, map);
    Block &body = generic.getRegion().front();
    for (Operation &nested : body.without_terminator())
      if (!isa<linalg::IndexOp>(nested))
        b.clone(nested, map);
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    for (auto [value, out] :
         llvm::zip_equal(yield.getOperands(), generic.getDpsInitsMutable()))
      store(b, r, map.lookupOrDefault(value), out, index);
  }

  /// combine(x, y) with `r`'s combining op.
  static Value combine(OpBuilder &b, const RowOp &r, Value x, Value y) {
    auto generic = cast<linalg::GenericOp>(r.op);
    IRMapping map;
    map.map(generic.getRegion().front().getArguments().back(), x);
    map.map(r.element, y);
    return b.clone(*r.combine, map)->getResult(0);
  }

  /// The lane's element of `r` at `index` (its column last) combined into
  /// `acc`: the body but the combining op, then the combining op.
  Value combineElement(OpBuilder &b, const RowOp &r, ArrayRef<Value> index,
                       Value acc) {
    auto generic = cast<linalg::GenericOp>(r.op);
    Block &body = generic.getRegion().front();
    IRMapping map;
    loadOperands(b, r, index, map, body.getArguments().back());
    for (Operation &nested : body.without_terminator())
      if (&nested != r.combine && !isa<linalg::IndexOp>(nested))
        b.clone(nested, map);
    return combine(b, r, acc, map.lookupOrDefault(r.element));
  }

  /// The zero of `type`: what a region yields where it does not run.
  Value zero(OpBuilder &b, Type type) {
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  }

  /// Loads the operands of `r` that do not depend on the column (a
  /// softmax's max, a layer norm's mean) into `perRow`: once for all the
  /// lane's columns, by the lanes that have columns.
  void loadPerRow(OpBuilder &kb, const RowOp &r, ArrayRef<Value> rowIdx) {
    perRow.clear();
    auto op = cast<linalg::LinalgOp>(r.op);
    Block &body = r.op->getRegion(0).front();
    SmallVector<OpOperand *> operands;
    SmallVector<Type> types;
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          !op.getMatchingIndexingMap(input).isFunctionOfDim(rowIdx.size()) &&
          !body.getArgument(input->getOperandNumber()).use_empty()) {
        if (keptRow(r, *input)) {
          perRow[input] = rowValue(kb, r, *input, rowIdx);
          continue;
        }
        operands.push_back(input);
        types.push_back(
            cast<MemRefType>(input->get().getType()).getElementType());
      }
    if (operands.empty())
      return;
    Value hasColumns = valid;
    if (lanes * width > columns)
      hasColumns = arith::AndIOp::create(
          kb, loc, valid,
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, lane,
                                c(kb, columns / width)));
    auto branch = scf::IfOp::create(kb, loc, types, hasColumns,
                                    /*withElseRegion=*/true);
    OpBuilder tb = OpBuilder::atBlockBegin(&branch.getThenRegion().front());
    OpBuilder eb = OpBuilder::atBlockBegin(&branch.getElseRegion().front());
    SmallVector<Value> loaded, zeros;
    for (auto [input, type] : llvm::zip(operands, types)) {
      loaded.push_back(memref::LoadOp::create(
          tb, loc, input->get(),
          indicesOf(tb, op.getMatchingIndexingMap(input), rowIdx)));
      zeros.push_back(zero(eb, type));
    }
    scf::YieldOp::create(tb, loc, loaded);
    scf::YieldOp::create(eb, loc, zeros);
    for (auto [input, value] : llvm::zip(operands, branch.getResults()))
      perRow[input] = value;
  }

  /// The lane's columns of `r`, one step at a time (`steps` of them, each
  /// in a region run where the column is in the row; the values passed on
  /// yielded from it), or through memory in a loop when a lane has more
  /// than register-columns columns. `body` emits the op at an element and
  /// returns the new accumulator, if any (`acc`).
  template <typename Body>
  Value overColumns(OpBuilder &kb, const RowOp &r, ArrayRef<Value> rowIdx,
                    Value acc, Body body) {
    loadPerRow(kb, r, rowIdx);
    SmallVector<Value> index(rowIdx);
    index.push_back(Value());
    if (!inRegisters) {
      Value end =
          arith::SelectOp::create(kb, loc, valid, c(kb, columns), c(kb, 0));
      ValueRange init = acc ? ValueRange(acc) : ValueRange();
      auto loop = scf::ForOp::create(kb, loc, lane, end, c(kb, lanes), init);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      index.back() = loop.getInductionVar();
      Value next = body(lb, index, acc ? loop.getRegionIterArg(0) : Value());
      if (acc)
        scf::YieldOp::create(lb, loc, next);
      return acc ? loop.getResult(0) : Value();
    }
    // Lane l's columns at step s: width of them from (s * lanes + l) *
    // width.
    Value laneColumn =
        width == 1 ? lane : arith::MulIOp::create(kb, loc, lane, c(kb, width));
    for (int64_t step = 0; step < steps; ++step) {
      Value first = step == 0
                        ? laneColumn
                        : arith::AddIOp::create(kb, loc, laneColumn,
                                                c(kb, step * lanes * width))
                              .getResult();
      Value inRow = valid;
      if ((step + 1) * lanes * width > columns)
        inRow = arith::AndIOp::create(
            kb, loc, valid,
            arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, first,
                                  c(kb, columns)));
      sub = step * width;
      SmallVector<Value> roots = passedOn(r);
      SmallVector<Type> types;
      if (acc)
        types.push_back(acc.getType());
      for (Value root : roots)
        types.append(width, cast<MemRefType>(root.getType()).getElementType());
      auto branch = scf::IfOp::create(kb, loc, types, inRow,
                                      /*withElseRegion=*/!types.empty());
      OpBuilder ib = OpBuilder::atBlockBegin(&branch.getThenRegion().front());
      if (types.empty())
        ib.setInsertionPoint(branch.getThenRegion().front().getTerminator());
      // The step's columns one after another, the accumulator through them.
      vectorColumn = first;
      vectors.clear();
      SmallVector<llvm::MapVector<Value, Value>> locals;
      Value next = acc;
      for (vectorElement = 0; vectorElement < width; ++vectorElement) {
        sub = step * width + vectorElement;
        index.back() =
            vectorElement == 0
                ? first
                : arith::AddIOp::create(ib, loc, first, c(ib, vectorElement))
                      .getResult();
        local.clear();
        next = body(ib, index, next);
        locals.push_back(local);
      }
      storeVectors(ib);
      if (types.empty())
        continue;
      SmallVector<Value> results, otherwise;
      if (acc) {
        results.push_back(next);
        otherwise.push_back(acc);
      }
      OpBuilder eb = OpBuilder::atBlockBegin(&branch.getElseRegion().front());
      for (Value root : roots)
        for (int64_t e = 0; e < width; ++e) {
          results.push_back(locals[e].lookup(root));
          otherwise.push_back(
              zero(eb, cast<MemRefType>(root.getType()).getElementType()));
        }
      scf::YieldOp::create(ib, loc, results);
      scf::YieldOp::create(eb, loc, otherwise);
      ValueRange values = branch.getResults();
      if (acc) {
        acc = values.front();
        values = values.drop_front();
      }
      for (auto [i, root] : llvm::enumerate(roots))
        for (int64_t e = 0; e < width; ++e)
          known[{root, step * width + e}] = values[i * width + e];
    }
    return acc;
  }

  void emitColumns(OpBuilder &kb, const RowOp &r, ArrayRef<Value> rowIdx) {
    overColumns(kb, r, rowIdx, Value(),
                [&](OpBuilder &b, ArrayRef<Value> index, Value) {
                  emitBody(b, r, index);
                  return Value();
                });
  }

  /// `v` (an accumulator value) as the i32 words a shuffle moves: one, or
  /// two (low, high) for 64-bit values.
  SmallVector<Value> toWords(OpBuilder &b, Value v) {
    Type i32 = b.getI32Type();
    unsigned bits = v.getType().getIntOrFloatBitWidth();
    Type bitsType = b.getIntegerType(bits);
    if (v.getType() != bitsType)
      v = arith::BitcastOp::create(b, loc, bitsType, v);
    if (bits < 32)
      return {arith::ExtUIOp::create(b, loc, i32, v)};
    if (bits == 32)
      return {v};
    Value high = arith::ShRUIOp::create(
        b, loc, v, arith::ConstantIntOp::create(b, loc, bitsType, 32));
    return {arith::TruncIOp::create(b, loc, i32, v),
            arith::TruncIOp::create(b, loc, i32, high)};
  }

  /// The value of type `type` that toWords made `words` of.
  Value fromWords(OpBuilder &b, Type type, ArrayRef<Value> words) {
    unsigned bits = type.getIntOrFloatBitWidth();
    Type bitsType = b.getIntegerType(bits);
    Value v;
    if (bits < 32)
      v = arith::TruncIOp::create(b, loc, bitsType, words[0]);
    else if (bits == 32)
      v = words[0];
    else
      v = arith::OrIOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, bitsType, words[0]),
          arith::ShLIOp::create(
              b, loc, arith::ExtUIOp::create(b, loc, bitsType, words[1]),
              arith::ConstantIntOp::create(b, loc, bitsType, 32)));
    return type == bitsType ? v : arith::BitcastOp::create(b, loc, type, v);
  }

  /// A team's reduction of its row: each lane its columns, then the lanes
  /// of each warp combined by a butterfly of shuffles (every lane ends with
  /// the warp's value); a team wider than a warp puts its warps' values in
  /// shared memory and combines them in order. The result is combined with
  /// the output's value: by every lane, which keeps it, with per-row values
  /// in registers, else by the leader.
  void emitReduction(OpBuilder &kb, const RowOp &r, ArrayRef<Value> rowIdx) {
    Type accType = r.combine->getResult(0).getType();
    // Past the row's end (and for the teams past the last row) the lane's
    // value stays neutral.
    Value value = overColumns(
        kb, r, rowIdx, arith::ConstantOp::create(kb, loc, r.neutral),
        [&](OpBuilder &b, ArrayRef<Value> index, Value acc) {
          return combineElement(b, r, index, acc);
        });
    // The butterfly: every thread of the warp takes part (teams past the
    // last row with neutral values); offsets below the team's width keep
    // each team's lanes apart when a warp holds several teams.
    for (int64_t offset = std::min<int64_t>(lanes, kWarp) / 2; offset >= 1;
         offset /= 2) {
      SmallVector<Value> words;
      for (Value word : toWords(kb, value))
        words.push_back(gpu::ShuffleOp::create(kb, loc, word, offset, kWarp,
                                               gpu::ShuffleMode::XOR)
                            .getShuffleResult());
      value = combine(kb, r, value, fromWords(kb, accType, words));
    }
    auto generic = cast<linalg::GenericOp>(r.op);
    OpOperand &out = generic.getDpsInitsMutable()[0];
    bool everyLane = keptRow(r, out) != Value();
    SmallVector<Value> warpValues{value};
    if (lanes > kWarp)
      warpValues = exchangeWarps(kb, accType, value);
    OpBuilder ib = kb;
    if (!everyLane)
      ib = scf::IfOp::create(kb, loc, leader, /*withElse=*/false)
               .getThenBodyBuilder();
    Value total =
        everyLane
            ? rowValue(kb, r, out, rowIdx)
            : memref::LoadOp::create(ib, loc, out.get(), rowIdx).getResult();
    for (Value v : warpValues)
      total = combine(ib, r, total, v);
    if (everyLane)
      storeRow(kb, r, total, out, rowIdx);
    else
      memref::StoreOp::create(ib, loc, total, out.get(), rowIdx);
  }

  /// The values of a team's warps, in order, for a team wider than a warp:
  /// each warp's first lane puts its value in a shared slot, a barrier, and
  /// every lane reads the team's slots (of which only the leader's use
  /// remains when per-row values go through memory).
  SmallVector<Value> exchangeWarps(OpBuilder &kb, Type accType, Value value) {
    // The warps' values at warps[tid / 32]: the team's warps are adjacent.
    Type storage = storageType(accType);
    int64_t bank = wideReductions++ % slotBanks();
    auto warps = memref::ViewOp::create(
        kb, loc,
        MemRefType::get({threads / kWarp}, storage, MemRefLayoutAttrInterface(),
                        cast<MemRefType>(dynamic.getType()).getMemorySpace()),
        dynamic, c(kb, bank * slotBytes), ValueRange());
    Value first = arith::CmpIOp::create(
        kb, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(kb, loc, lane, c(kb, kWarp)), c(kb, 0));
    {
      auto branch = scf::IfOp::create(kb, loc, first, /*withElse=*/false);
      OpBuilder ib = branch.getThenBodyBuilder();
      Value stored = storage == accType
                         ? value
                         : arith::ExtUIOp::create(ib, loc, storage, value);
      memref::StoreOp::create(
          ib, loc, stored, warps,
          ValueRange{arith::DivUIOp::create(ib, loc, tid, c(ib, kWarp))});
    }
    gpu::BarrierOp::create(kb, loc);
    loadedRows.clear(); // (the barrier orders the loads before it)
    // The team's first warp: tid - lane, over 32.
    Value base = arith::DivUIOp::create(
        kb, loc, arith::SubIOp::create(kb, loc, tid, lane), c(kb, kWarp));
    SmallVector<Value> values;
    for (int64_t w = 0; w < lanes / kWarp; ++w) {
      Value v = memref::LoadOp::create(
          kb, loc, warps,
          ValueRange{arith::AddIOp::create(kb, loc, base, c(kb, w))});
      if (storage != accType)
        v = arith::TruncIOp::create(kb, loc, accType, v);
      values.push_back(v);
    }
    return values;
  }

  /// Sets of warp slots: two for a group of several reductions with per-row
  /// values in registers.
  int64_t slotBanks() const {
    return rowValues && llvm::count_if(group,
                                       [](const RowOp &r) {
                                         return r.kind == Kind::Reduction;
                                       }) > 1
               ? 2
               : 1;
  }

  ArrayRef<RowOp> group;
  Location loc;
  const int64_t rows, columns;
  const bool rowValues;     // per-row values kept by every lane
  int64_t width = 1;        // columns a lane loads and stores at once
  int64_t lanes = 1;        // threads a row
  int64_t steps = 1;        // vectors (of width columns) per lane
  bool inRegisters = false; // one region per step, not a loop
  bool barrierAfterOps = true;
  int64_t threads = 0, slotBytes = 0, wideReductions = 0;
  Value tid, lane, valid, safeRow, leader, dynamic;
  std::map<SmallVector<int64_t>, SmallVector<Value>> indices;
  // The kept buffers (by their reshape source), and their element values
  // at each step that the kernel's top level holds.
  llvm::MapVector<Value, KeptBuffer> buffers;
  DenseMap<std::pair<Value, int64_t>, Value> known;
  // While an op is emitted (the `current` of the group) at a column (`sub`
  // of the lane's, element `vectorElement` of the vector at column
  // `vectorColumn`): the values of kept buffers it loaded or stored, the
  // vectors it loaded, and those to store (a buffer and its map: the
  // vector's indices and values).
  int64_t current = 0, sub = 0, vectorElement = 0;
  Value vectorColumn;
  llvm::MapVector<Value, Value> local;
  DenseMap<std::pair<Value, AffineMap>, Value> vectors;
  llvm::MapVector<std::pair<Value, AffineMap>,
                  std::pair<SmallVector<Value>, SmallVector<Value>>>
      pending;
  // The current op's operands that do not depend on the column.
  DenseMap<OpOperand *, Value> perRow;
  // The kept per-row buffers (by their reshape source), their values at
  // the kernel's top level, and those loaded from memory since the last
  // block barrier.
  llvm::MapVector<Value, KeptBuffer> rowBuffers;
  DenseMap<Value, Value> rowKnown;
  DenseSet<Value> loadedRows;
};

struct RowsToGPUPass : public mpt::impl::RowsToGPUBase<RowsToGPUPass> {
  using RowsToGPUBase::RowsToGPUBase;

  void runOnOperation() override {
    if (maxOps < 1) {
      getOperation().emitError()
          << "mpt-rows-to-gpu: max-ops must be at least 1, got "
          << static_cast<int64_t>(maxOps);
      return signalPassFailure();
    }
    if (registerColumns < 0 || registerColumns > 32) {
      getOperation().emitError()
          << "mpt-rows-to-gpu: register-columns must be between 0 and 32, got "
          << static_cast<int64_t>(registerColumns);
      return signalPassFailure();
    }
    for (Block &block : getOperation().getBody()) {
      SmallVector<SmallVector<RowOp>> groups;
      SmallVector<RowOp> run;
      auto close = [&] {
        trimAndSplit(run, groups);
        run.clear();
      };
      for (Operation &op : block) {
        if (std::optional<RowOp> r = match(&op)) {
          if (!run.empty() && !sameRows(run, *r))
            close();
          run.push_back(*r);
          continue;
        }
        if (!passive(&op))
          close();
      }
      close();
      for (SmallVector<RowOp> &group : groups)
        convert(group);
    }
  }

  //===--------------------------------------------------------------------===//
  // Matching
  //===--------------------------------------------------------------------===//

  /// Ops a group may span: they touch no buffer the group does
  /// (allocations, views, constants).
  static bool passive(Operation *op) {
    return isa<memref::AllocOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
               arith::ConstantOp>(op);
  }

  static bool staticBuffer(Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && type.hasStaticShape();
  }

  /// Whether every indexing map result is a loop index or a constant.
  /// The map of `loops` dims to the first `rank` of them.
  static AffineMap leading(int64_t loops, int64_t rank, MLIRContext *ctx) {
    return AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank);
  }

  static bool simpleMaps(linalg::LinalgOp op) {
    for (AffineMap map : op.getIndexingMapsArray())
      for (AffineExpr e : map.getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(e))
          return false;
    return true;
  }

  std::optional<RowOp> match(Operation *op) {
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      Value out = fill.getDpsInits()[0];
      if (!fill.hasPureBufferSemantics() || !staticBuffer(out))
        return std::nullopt;
      RowOp r;
      r.op = op;
      r.kind = Kind::Rows;
      r.rows = llvm::to_vector(cast<MemRefType>(out.getType()).getShape());
      return r;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || !generic.hasPureBufferSemantics() ||
        generic.getNumLoops() == 0 || !simpleMaps(generic))
      return std::nullopt;
    for (Value v : generic->getOperands())
      if (!staticBuffer(v))
        return std::nullopt;
    // Outputs written at the loop indices, in order.
    int64_t loops = generic.getNumLoops();
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    SmallVector<utils::IteratorType> kinds = generic.getIteratorTypesArray();
    int64_t parallel = generic.getNumParallelLoops();
    bool reduction = generic.getNumReductionLoops() == 1 &&
                     kinds.back() == utils::IteratorType::reduction &&
                     parallel == loops - 1;
    if (!reduction && parallel != loops)
      return std::nullopt;
    int64_t outRank = reduction ? loops - 1 : loops;
    for (OpOperand &init : generic.getDpsInitsMutable())
      if (generic.getMatchingIndexingMap(&init) !=
          leading(loops, outRank, op->getContext()))
        return std::nullopt;
    RowOp r;
    r.op = op;
    r.kind = Kind::Rows;
    if (reduction) {
      if (parallel == 0 || generic.getNumDpsInits() != 1)
        return std::nullopt;
      Block &body = generic.getRegion().front();
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      BlockArgument acc = body.getArguments().back();
      Operation *combine = yield.getOperand(0).getDefiningOp();
      if (!combine || combine->getBlock() != &body ||
          combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
          !acc.hasOneUse() ||
          !llvm::is_contained(combine->getOperands(), acc) ||
          combine->getOperand(0) == combine->getOperand(1) ||
          combine->getResult(0).getType() != acc.getType() ||
          !supportedAccumulator(acc.getType()))
        return std::nullopt;
      std::optional<TypedAttr> neutral = arith::getNeutralElement(combine);
      if (!neutral || !alongRows(generic))
        return std::nullopt;
      r.kind = Kind::Reduction;
      r.combine = combine;
      r.element = combine->getOperand(combine->getOperand(0) == acc ? 1 : 0);
      r.neutral = *neutral;
      r.rows.assign(ranges.begin(), ranges.end() - 1);
      r.columns = ranges.back();
      return r;
    }
    // Elementwise: over the rows only, or over the rows and their columns
    // (told apart by the group it joins; see sameRows).
    r.rows.assign(ranges.begin(), ranges.end());
    return r;
  }

  /// Whether the reduction loop (the last) indexes the innermost dimension
  /// of every input it indexes: the lanes of a team then read adjacent
  /// elements. (A sum over a column, a bias gradient, reads a row apart at
  /// each step; mpt-split-reductions gives it threads over the columns.)
  static bool alongRows(linalg::GenericOp op) {
    unsigned last = op.getNumLoops() - 1;
    bool reads = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!map.isFunctionOfDim(last))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!dim || dim.getPosition() != last)
        return false;
      reads = true;
    }
    return reads;
  }

  static int64_t product(ArrayRef<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }

  /// The rows of a group, counted (row-major over any shape of them), and
  /// its columns: those of its first reduction.
  static std::optional<std::pair<int64_t, int64_t>>
  groupRows(ArrayRef<RowOp> run) {
    for (const RowOp &r : run)
      if (r.kind == Kind::Reduction)
        return std::make_pair(product(r.rows), r.columns);
    return std::nullopt;
  }

  /// How `r` fits rows of `rows` x `columns`: a reduction of as many rows
  /// of as many columns, an op over as many rows (in any shape: the head
  /// split's [B, T] and the projection's B*T are the same rows), or an
  /// elementwise op over them and the columns. Nullopt if it does not.
  static std::optional<Kind> fit(const RowOp &r, int64_t rows,
                                 int64_t columns) {
    if (r.kind == Kind::Reduction)
      return product(r.rows) == rows && r.columns == columns
                 ? std::optional<Kind>(Kind::Reduction)
                 : std::nullopt;
    if (product(r.rows) == rows)
      return Kind::Rows;
    if (!r.rows.empty() && r.rows.back() == columns &&
        product(ArrayRef<int64_t>(r.rows).drop_back()) == rows)
      return Kind::Columns;
    return std::nullopt;
  }

  /// Whether `r` fits the rows of `run` (any op before its first
  /// reduction: the run is split when a reduction decides the rows).
  static bool sameRows(ArrayRef<RowOp> run, const RowOp &r) {
    auto rows = groupRows(run);
    return !rows || fit(r, rows->first, rows->second).has_value();
  }

  /// Classifies the ops of `run` against its rows, drops what cannot go
  /// into the kernel at its ends, checks that every op reads what the group
  /// writes from its own row, and adds the groups (at most maxOps ops
  /// each, one reduction at least) to `groups`.
  void trimAndSplit(SmallVector<RowOp> run,
                    SmallVector<SmallVector<RowOp>> &groups) {
    auto rows = groupRows(run);
    if (!rows)
      return;
    // Before the first reduction: only ops that fit the rows.
    SmallVector<RowOp> fitting;
    for (RowOp &r : run) {
      std::optional<Kind> kind = fit(r, rows->first, rows->second);
      if (!kind) {
        fitting.clear(); // an op of other loops ends what came before
        continue;
      }
      if (*kind == Kind::Columns) {
        r.rows.pop_back();
        r.columns = rows->second;
      }
      r.kind = *kind;
      fitting.push_back(r);
    }
    SmallVector<RowOp> group;
    auto flush = [&] {
      if (llvm::any_of(
              group, [](const RowOp &r) { return r.kind == Kind::Reduction; }))
        groups.push_back(group);
      group.clear();
    };
    for (const RowOp &r : fitting) {
      if (static_cast<int64_t>(group.size()) >= maxOps || !rowLocal(group, r))
        flush();
      // (An op that cannot go even alone ends the group, and stays.)
      if (rowLocal(group, r))
        group.push_back(r);
    }
    flush();
  }

  /// Whether `a` and `b` are the same memory element for element: the
  /// same value, or reshapes of one buffer (identity layouts, as many
  /// elements), whose row-major order is the buffer's.
  static bool sameMemory(Value a, Value b) {
    if (a == b)
      return true;
    auto ta = dyn_cast<MemRefType>(a.getType());
    auto tb = dyn_cast<MemRefType>(b.getType());
    return ta && tb && ta.hasStaticShape() && tb.hasStaticShape() &&
           ta.getLayout().isIdentity() && tb.getLayout().isIdentity() &&
           ta.getNumElements() == tb.getNumElements() &&
           mpt::reshapeSource(a) == mpt::reshapeSource(b);
  }

  /// Whether `r` joins `group` with every op reading what the group writes
  /// at its own row only, so that a team needs no other team's results: a
  /// buffer the group writes is read at the indices it is written at (the
  /// row, or the row and column), or, by an op over columns, a per-row
  /// buffer at the row. Ops may see a buffer in different shapes of the
  /// same rows ([B, T, D] and [B*T, D]): row r is the r-th row-major in
  /// each. Buffers that may be the same memory otherwise (another view,
  /// function arguments) do not go.
  static bool rowLocal(ArrayRef<RowOp> group, const RowOp &r) {
    SmallVector<Value> written;
    auto addOutputs = [&](const RowOp &o) {
      for (Value out : cast<DestinationStyleOpInterface>(o.op).getDpsInits())
        written.push_back(out);
    };
    for (const RowOp &g : group)
      addOutputs(g);
    addOutputs(r);
    // Whether `v` is the same memory as every written buffer it may alias,
    // and aliases one (in `aliases`).
    auto consistent = [&](Value v, bool &aliases) {
      aliases = false;
      for (Value w : written) {
        if (!mpt::mayAlias(mpt::rootOf(w), mpt::rootOf(v)))
          continue;
        aliases = true;
        if (!sameMemory(v, w))
          return false;
      }
      return true;
    };
    bool aliases;
    for (Value w : written)
      if (!consistent(w, aliases))
        return false;
    auto local = [&](const RowOp &o) {
      auto linalgOp = cast<linalg::LinalgOp>(o.op);
      int64_t rowRank = o.rows.size();
      for (OpOperand *input : linalgOp.getDpsInputOperands()) {
        Value v = input->get();
        if (!isa<MemRefType>(v.getType()))
          continue;
        if (!consistent(v, aliases))
          return false;
        if (!aliases)
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(input);
        int64_t loops = map.getNumDims();
        if (!map.isIdentity() &&
            map != leading(loops, rowRank, map.getContext()))
          return false;
      }
      return true;
    };
    return local(r) && llvm::all_of(group, local);
  }

  void convert(ArrayRef<RowOp> group) {
    auto [rows, columns] = *groupRows(group);
    RowKernel(group, rows, columns, registerColumns).emit();
  }
};

} // namespace
