//===- ReductionsToGPU.cpp - mpt-reductions-to-gpu ------------------------===//
//
// A reduction of a whole tensor to a scalar as one kernel launch: threads
// reduce strided elements, each block its threads' values in a shared-memory
// tree, and the last block to finish (counted with an atomic add) the
// blocks' partial results, in the same way. Consecutive independent
// reductions share the launch, each on its own range of blocks.
//
// A training step in mixed precision checks every gradient for inf/NaN
// (and takes its norm for clipping) and reduces the loss: as stages of
// one-thread-per-partial-result kernels (mpt-split-reductions) that was
// three or four launches per reduction; here it is one for all of them.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "BufferAccesses.h"
#include "VectorAccesses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_REDUCTIONSTOGPU
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Elements each thread reduces at least, before the blocks are capped.
constexpr int64_t kPerThread = 8;
/// Blocks per SM at most, for one reduction.
constexpr int64_t kBlocksPerSM = 8;

/// How a thread loads an input for its `width` consecutive elements of the
/// last loop: one vector (the input's last index is that loop's), one
/// element each (the loop elsewhere in its indices), or once (not indexed
/// by that loop: a broadcast).
enum class Load { Vector, Each, Once };

/// A reduction the pass takes.
struct Reduction {
  mutable linalg::GenericOp op; // an op handle: const Reduction still reads IR
  SmallVector<int64_t> ranges;  // static loop ranges
  int64_t total = 1;
  Operation *combine = nullptr; // combines the accumulator and an element
  Value element;                // the other operand of `combine`
  TypedAttr neutral;
  /// The output's initial value where a fill of a constant was folded;
  /// null: the kernel reads it from the output.
  TypedAttr init;
  int64_t blocks = 1;
  mpt::Accesses accesses;
  /// A thread's consecutive elements of the last loop at a time, and how
  /// each input is loaded for them.
  int64_t width = 1;
  SmallVector<Load> loads;

  BlockArgument acc() const {
    return op.getRegion().front().getArguments().back();
  }
  Type accType() const { return acc().getType(); }
  Value output() const { return op.getDpsInits()[0]; }
};

/// The type an accumulator has in memory: i1 as i8.
Type storageType(Type t) {
  return t.isInteger(1) ? IntegerType::get(t.getContext(), 8) : t;
}

int64_t storageBytes(Type t) {
  return storageType(t).getIntOrFloatBitWidth() / 8;
}

/// Whether `t` is an accumulator type the kernel keeps in shared memory.
bool supportedType(Type t) {
  if (!t.isIntOrFloat() || isa<IndexType>(t))
    return false;
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits == 1 || (bits % 8 == 0 && bits <= 64);
}

/// Groups of reductions that share a kernel, and the ops between them that
/// move below it.
struct Group {
  SmallVector<Reduction, 1> members;
  SmallVector<Operation *> sunk;
  SmallVector<mpt::Accesses> sunkAccesses;
  llvm::SmallPtrSet<Operation *, 16> sunkSet;
};

struct ReductionsToGPUPass
    : public mpt::impl::ReductionsToGPUBase<ReductionsToGPUPass> {
  using ReductionsToGPUBase::ReductionsToGPUBase;

  void runOnOperation() override {
    if (threads < 1 || threads > 1024 || !llvm::isPowerOf2_64(threads)) {
      getOperation().emitError()
          << "mpt-reductions-to-gpu: threads must be a power of 2 in [1, "
             "1024], got "
          << static_cast<int64_t>(threads);
      return signalPassFailure();
    }
    if (vectorBytes < 1 || vectorBytes > 16 ||
        !llvm::isPowerOf2_64(vectorBytes)) {
      getOperation().emitError()
          << "mpt-reductions-to-gpu: vector-bytes must be 1, 2, 4, 8 or 16, "
             "got "
          << static_cast<int64_t>(vectorBytes);
      return signalPassFailure();
    }
    if (fuse < 1 || sms < 1 || minSize < 1) {
      getOperation().emitError()
          << "mpt-reductions-to-gpu: expects fuse, sms and min-size of at "
             "least 1, got "
          << static_cast<int64_t>(fuse) << ", " << static_cast<int64_t>(sms)
          << " and " << static_cast<int64_t>(minSize);
      return signalPassFailure();
    }
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    // The reductions first (folding the fills of their outputs), then the
    // groups.
    llvm::DenseMap<Operation *, Reduction> reductions;
    for (auto generic :
         llvm::make_early_inc_range(body.getOps<linalg::GenericOp>()))
      if (std::optional<Reduction> r = match(generic))
        reductions[generic] = std::move(*r);
    std::vector<Group> groups;
    bool open = false;
    for (Operation &op : body) {
      if (auto it = reductions.find(&op); it != reductions.end()) {
        if (open && canJoin(groups.back(), it->second))
          groups.back().members.push_back(std::move(it->second));
        else
          groups.push_back(Group{{std::move(it->second)}, {}, {}, {}});
        open = true;
        continue;
      }
      if (!open)
        continue;
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        open = false;
        continue;
      }
      open = admitBetween(groups.back(), &op);
    }
    for (Group &group : groups)
      convert(group);
  }

  //===--------------------------------------------------------------------===//
  // Matching
  //===--------------------------------------------------------------------===//

  std::optional<Reduction> match(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumLoops() == 0 || op.getNumReductionLoops() != op.getNumLoops())
      return std::nullopt;
    auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
    if (!out || out.getRank() != 0)
      return std::nullopt;
    Reduction r;
    r.op = op;
    for (int64_t range : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return std::nullopt;
      r.ranges.push_back(range);
      r.total *= range;
    }
    if (r.total < minSize)
      return std::nullopt;
    // Inputs indexed by loop indices and constants (projected permutations,
    // broadcasts).
    for (OpOperand *input : op.getDpsInputOperands())
      for (AffineExpr e : op.getMatchingIndexingMap(input).getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(e))
          return std::nullopt;
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    BlockArgument acc = body.getArguments().back();
    Operation *combine = yield.getOperand(0).getDefiningOp();
    if (!combine || combine->getBlock() != &body ||
        combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
        !acc.hasOneUse() || !llvm::is_contained(combine->getOperands(), acc) ||
        combine->getOperand(0) == combine->getOperand(1) ||
        combine->getResult(0).getType() != acc.getType() ||
        !supportedType(acc.getType()))
      return std::nullopt;
    // Associative and commutative with a neutral element: the arith ops
    // that arith::getNeutralElement knows.
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combine);
    if (!neutral)
      return std::nullopt;
    r.combine = combine;
    r.element = combine->getOperand(combine->getOperand(0) == acc ? 1 : 0);
    r.neutral = *neutral;
    r.blocks = std::clamp<int64_t>(
        llvm::divideCeil(r.total, threads * kPerThread), 1, kBlocksPerSM * sms);
    foldFill(r);
    r.accesses = mpt::accessesOf(op);
    chooseWidth(r);
    return r;
  }

  /// `r.width`: 16 bytes (`vector-bytes`) of the widest input that a thread
  /// loads as vectors along the last loop, halved until the loop's range
  /// and each such input's offset and other strides are multiples of it;
  /// 1 without such an input.
  void chooseWidth(Reduction &r) {
    linalg::GenericOp op = r.op;
    int64_t last = op.getNumLoops() - 1;
    SmallVector<MemRefType> vectors;
    int64_t widest = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      auto type = dyn_cast<MemRefType>(input->get().getType());
      if (!type || !map.isFunctionOfDim(last)) {
        r.loads.push_back(Load::Once);
        continue;
      }
      auto along = dyn_cast<AffineDimExpr>(map.getResults().back());
      int64_t bytes = mpt::vectorElementBytes(type);
      if (!along || along.getPosition() != last || !bytes ||
          llvm::count_if(map.getResults(), [&](AffineExpr e) {
            return e.isFunctionOfDim(last);
          }) != 1) {
        r.loads.push_back(Load::Each);
        continue;
      }
      r.loads.push_back(Load::Vector);
      vectors.push_back(type);
      widest = std::max(widest, bytes);
    }
    if (vectors.empty())
      return;
    for (int64_t width = vectorBytes / widest; width > 1; width /= 2)
      if (r.ranges.back() % width == 0 &&
          llvm::all_of(vectors, [&](MemRefType type) {
            return mpt::vectorsAligned(type, width);
          })) {
        r.width = width;
        return;
      }
  }

  /// A fill of a constant into the output just before `r` (no op in between
  /// touches the output; mpt-copies-to-fills turns the copy of a filled
  /// buffer into such a fill): the constant becomes the initial value in
  /// the kernel, and the fill goes.
  void foldFill(Reduction &r) {
    Value out = r.output();
    for (OpOperand *input : r.op.getDpsInputOperands())
      if (mpt::mayAlias(mpt::rootOf(input->get()), mpt::rootOf(out)))
        return;
    for (Operation *prev = r.op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (auto fill = dyn_cast<linalg::FillOp>(prev);
          fill && fill.hasPureBufferSemantics() &&
          fill.getDpsInits()[0] == out) {
        Attribute value;
        if (!matchPattern(fill.getInputs()[0], m_Constant(&value)) ||
            !isa<TypedAttr>(value) ||
            cast<TypedAttr>(value).getType() != r.accType())
          return;
        r.init = cast<TypedAttr>(value);
        fill.erase();
        return;
      }
      mpt::Accesses a = mpt::accessesOf(prev);
      if (a.unknown)
        return;
      for (Value v : llvm::concat<Value>(a.reads, a.writes))
        if (mpt::mayAlias(v, mpt::rootOf(out)))
          return;
    }
  }

  //===--------------------------------------------------------------------===//
  // Grouping
  //===--------------------------------------------------------------------===//

  /// Whether `op` uses (in it or in its regions) a result of a sunk op.
  static bool usesSunk(Operation *op, const Group &group) {
    bool uses = false;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && group.sunkSet.contains(def))
          uses = true;
    });
    return uses;
  }

  /// Whether `r` may join `group`'s kernel, which runs where the group's
  /// last reduction is: it must be independent of the members and of the
  /// ops that move below the kernel, and use nothing they compute.
  bool canJoin(const Group &group, const Reduction &r) {
    if (group.members.size() >= static_cast<size_t>(fuse))
      return false;
    for (const Reduction &member : group.members)
      if (!mpt::independent(member.accesses, r.accesses))
        return false;
    for (const mpt::Accesses &a : group.sunkAccesses)
      if (!mpt::independent(a, r.accesses))
        return false;
    return !usesSunk(r.op, group);
  }

  /// An op between the reductions of `group`: it stays above the kernel if
  /// it can run before the group's reductions, else it moves below (with
  /// what it depends on among the moved ops). Returns whether the group
  /// stays open.
  bool admitBetween(Group &group, Operation *op) {
    mpt::Accesses a = mpt::accessesOf(op);
    if (a.unknown)
      return false;
    bool sink = usesSunk(op, group);
    for (const Reduction &member : group.members)
      sink = sink || !mpt::independent(member.accesses, a);
    for (const mpt::Accesses &other : group.sunkAccesses)
      sink = sink || !mpt::independent(other, a);
    if (sink) {
      group.sunk.push_back(op);
      group.sunkSet.insert(op);
      group.sunkAccesses.push_back(std::move(a));
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // The kernel
  //===--------------------------------------------------------------------===//

  void convert(Group &group) {
    Operation *last = group.members.back().op;
    Location loc = last->getLoc();
    OpBuilder b(last);
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    int64_t maxTotal = 0, maxBytes = 1, grid = 0;
    for (const Reduction &r : group.members) {
      maxTotal = std::max(maxTotal, r.total);
      maxBytes = std::max(maxBytes, storageBytes(r.accType()));
    }
    const int64_t t = std::max<int64_t>(
        1, std::min<int64_t>(threads, llvm::PowerOf2Ceil(maxTotal)));
    // Partial results and counters of the reductions with several blocks.
    SmallVector<int64_t> firstBlock;
    SmallVector<Value> partials;
    SmallVector<int64_t> counterOf;
    int64_t counters = 0;
    for (const Reduction &r : group.members) {
      firstBlock.push_back(grid);
      grid += r.blocks;
      if (r.blocks > 1) {
        partials.push_back(memref::AllocOp::create(
            b, loc, MemRefType::get({r.blocks}, storageType(r.accType()))));
        counterOf.push_back(counters++);
      } else {
        partials.push_back(Value());
        counterOf.push_back(-1);
      }
    }
    Value counter;
    if (counters) {
      counter = memref::AllocOp::create(
          b, loc, MemRefType::get({counters}, b.getI32Type()));
      gpu::MemsetOp::create(
          b, loc, Type(), ValueRange(), counter,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    }
    const int64_t flagOffset = llvm::alignTo(t * maxBytes, 8);
    Value sharedBytes =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), flagOffset + 8);
    Value one = c(b, 1);
    auto launch = gpu::LaunchOp::create(b, loc, c(b, grid), one, one, c(b, t),
                                        one, one, sharedBytes);
    for (Value p : partials)
      if (p)
        memref::DeallocOp::create(b, loc, p);
    if (counter)
      memref::DeallocOp::create(b, loc, counter);
    // The ops that depend on the reductions, below the kernel, in order.
    for (Operation *op : group.sunk)
      if (op->isBeforeInBlock(last))
        op->moveBefore(last);

    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    Kernel kernel{kb, loc, launch.getThreadIds().x, t, Value(), Value()};
    MLIRContext *ctx = b.getContext();
    Attribute shared =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value dynamic = gpu::DynamicSharedMemoryOp::create(
        kb, loc,
        MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                        MemRefLayoutAttrInterface(), shared));
    kernel.flag = memref::ViewOp::create(
        kb, loc,
        MemRefType::get({1}, kb.getI32Type(), MemRefLayoutAttrInterface(),
                        shared),
        dynamic, c(kb, flagOffset), ValueRange());
    Value block = launch.getBlockIds().x;
    OpBuilder cb = kb;
    for (auto [k, r] : llvm::enumerate(group.members)) {
      OpBuilder rb = cb;
      if (k + 1 < group.members.size()) {
        Value mine = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::ult,
                                           block, c(cb, firstBlock[k + 1]));
        auto branch = scf::IfOp::create(cb, loc, mine, /*withElse=*/true);
        rb = branch.getThenBodyBuilder();
        cb = branch.getElseBodyBuilder();
      }
      kernel.b = rb;
      kernel.tree = memref::ViewOp::create(
          rb, loc,
          MemRefType::get({t}, storageType(r.accType()),
                          MemRefLayoutAttrInterface(), shared),
          dynamic, c(rb, 0), ValueRange());
      Value local = arith::SubIOp::create(rb, loc, block, c(rb, firstBlock[k]));
      emitReduction(kernel, r, local, partials[k], counter,
                    counterOf[k] < 0 ? Value() : c(rb, counterOf[k]));
    }
    gpu::TerminatorOp::create(kb, loc);
    for (Reduction &r : group.members)
      r.op.erase();
  }

  /// Where the code of one reduction goes.
  struct Kernel {
    OpBuilder b;
    Location loc;
    Value tid;
    int64_t threads;
    Value tree; // shared memory: one value per thread
    Value flag; // shared memory: whether this block finishes the reduction
  };

  static Value toStorage(OpBuilder &b, Location loc, Value v) {
    Type s = storageType(v.getType());
    return s == v.getType() ? v : arith::ExtUIOp::create(b, loc, s, v);
  }

  static Value fromStorage(OpBuilder &b, Location loc, Value v, Type t) {
    return v.getType() == t ? v : arith::TruncIOp::create(b, loc, t, v);
  }

  /// combine(x, y) with `r`'s combining op.
  static Value combine(OpBuilder &b, const Reduction &r, Value x, Value y) {
    IRMapping map;
    map.map(r.acc(), x);
    map.map(r.element, y);
    return b.clone(*r.combine, map)->getResult(0);
  }

  /// Combines the threads' `value`s in the shared-memory tree; thread 0
  /// finds the block's in tree[0] (after the last barrier).
  static void blockTree(Kernel &k, const Reduction &r, Value value) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    memref::StoreOp::create(b, loc, toStorage(b, loc, value), k.tree, k.tid);
    gpu::BarrierOp::create(b, loc);
    for (int64_t s = k.threads / 2; s >= 1; s /= 2) {
      Value active =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, k.tid,
                                arith::ConstantIndexOp::create(b, loc, s));
      auto branch = scf::IfOp::create(b, loc, active, /*withElse=*/false);
      OpBuilder ib = branch.getThenBodyBuilder();
      Value other = arith::AddIOp::create(
          ib, loc, k.tid, arith::ConstantIndexOp::create(ib, loc, s));
      Value x = fromStorage(
          ib, loc, memref::LoadOp::create(ib, loc, k.tree, k.tid), r.accType());
      Value y = fromStorage(
          ib, loc, memref::LoadOp::create(ib, loc, k.tree, other), r.accType());
      memref::StoreOp::create(ib, loc, toStorage(ib, loc, combine(ib, r, x, y)),
                              k.tree, k.tid);
      gpu::BarrierOp::create(b, loc);
    }
  }

  /// Thread 0: the block's value combined with the output's initial value,
  /// into the output.
  static void finish(OpBuilder &b, Location loc, const Reduction &r,
                     Value total) {
    Value init = r.init
                     ? arith::ConstantOp::create(b, loc, r.init).getResult()
                     : memref::LoadOp::create(b, loc, r.output()).getResult();
    memref::StoreOp::create(b, loc, combine(b, r, total, init), r.output());
  }

  static scf::IfOp ifThreadZero(OpBuilder &b, Location loc, Value tid) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    return scf::IfOp::create(b, loc, first, /*withElse=*/false);
  }

  /// The code of reduction `r` for its block `local` (of r.blocks).
  void emitReduction(Kernel &k, const Reduction &r, Value local, Value partial,
                     Value counter, Value counterIndex) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    Value neutral = arith::ConstantOp::create(b, loc, r.neutral);
    // This thread's elements: start, start + stride, ... (in vectors of
    // `width` elements of the last loop).
    Value start = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, local, c(b, k.threads)), k.tid);
    auto loop =
        scf::ForOp::create(b, loc, start, c(b, r.total / r.width),
                           c(b, r.blocks * k.threads), ValueRange{neutral});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      // The loop indices of the first element, the last fastest.
      SmallVector<Value> ivs(r.ranges.size());
      Value rest = loop.getInductionVar();
      for (int64_t d = r.ranges.size() - 1; d >= 0; --d) {
        int64_t range = d + 1 == int64_t(r.ranges.size())
                            ? r.ranges[d] / r.width
                            : r.ranges[d];
        if (d == 0) {
          ivs[d] = rest;
          break;
        }
        ivs[d] = arith::RemUIOp::create(lb, loc, rest, c(lb, range));
        rest = arith::DivUIOp::create(lb, loc, rest, c(lb, range));
      }
      if (r.width > 1)
        ivs.back() = arith::MulIOp::create(lb, loc, ivs.back(), c(lb, r.width));
      // Each element's indices: the last one's `j` further.
      SmallVector<SmallVector<Value>> elementIvs(r.width, ivs);
      for (int64_t j = 1; j < r.width; ++j)
        elementIvs[j].back() =
            arith::AddIOp::create(lb, loc, ivs.back(), c(lb, j));
      Block &body = r.op.getRegion().front();
      SmallVector<IRMapping> maps(r.width);
      auto indicesAt = [&](OpOperand *input, ArrayRef<Value> at) {
        SmallVector<Value> indices;
        for (AffineExpr e : r.op.getMatchingIndexingMap(input).getResults()) {
          if (auto dim = dyn_cast<AffineDimExpr>(e))
            indices.push_back(at[dim.getPosition()]);
          else
            indices.push_back(c(lb, cast<AffineConstantExpr>(e).getValue()));
        }
        return indices;
      };
      for (auto [input, load] :
           llvm::zip(r.op.getDpsInputOperands(), r.loads)) {
        BlockArgument arg = r.op.getMatchingBlockArgument(input);
        Value buffer = input->get();
        if (!isa<MemRefType>(buffer.getType())) {
          for (IRMapping &map : maps)
            map.map(arg, buffer);
        } else if (load == Load::Vector && r.width > 1) {
          auto type = cast<MemRefType>(buffer.getType());
          Value vector = vector::LoadOp::create(
              lb, loc, VectorType::get({r.width}, type.getElementType()),
              buffer, indicesAt(input, ivs), /*nontemporal=*/false,
              llvm::MaybeAlign(r.width * mpt::vectorElementBytes(type)));
          for (auto [j, map] : llvm::enumerate(maps))
            map.map(arg, vector::ExtractOp::create(
                             lb, loc, vector, ArrayRef<int64_t>{int64_t(j)}));
        } else if (load == Load::Once) {
          Value v =
              memref::LoadOp::create(lb, loc, buffer, indicesAt(input, ivs));
          for (IRMapping &map : maps)
            map.map(arg, v);
        } else {
          for (auto [map, at] : llvm::zip(maps, elementIvs))
            map.map(arg, memref::LoadOp::create(lb, loc, buffer,
                                                indicesAt(input, at)));
        }
      }
      // The body for each element in turn, each combining into the last's
      // accumulator.
      Value acc = loop.getRegionIterArgs()[0];
      for (auto [map, at] : llvm::zip(maps, elementIvs)) {
        map.map(r.acc(), acc);
        for (Operation &op : body.without_terminator()) {
          if (auto index = dyn_cast<linalg::IndexOp>(op)) {
            map.map(index.getResult(), at[index.getDim()]);
            continue;
          }
          lb.clone(op, map);
        }
        acc = map.lookup(body.getTerminator()->getOperand(0));
      }
      scf::YieldOp::create(lb, loc, acc);
    }
    blockTree(k, r, loop.getResult(0));
    if (r.blocks == 1) {
      auto first = ifThreadZero(b, loc, k.tid);
      OpBuilder fb = first.getThenBodyBuilder();
      Value total = fromStorage(
          fb, loc, memref::LoadOp::create(fb, loc, k.tree, c(fb, 0)),
          r.accType());
      finish(fb, loc, r, total);
      return;
    }
    // Thread 0: the block's partial result, visible to the device before
    // the block counts itself done; the last block to count finishes.
    {
      auto first = ifThreadZero(b, loc, k.tid);
      OpBuilder fb = first.getThenBodyBuilder();
      Value mine = memref::LoadOp::create(fb, loc, k.tree, c(fb, 0));
      memref::StoreOp::create(fb, loc, mine, partial, local);
      NVVM::MembarOp::create(fb, loc, NVVM::MemScopeKind::GPU);
      Value done = memref::AtomicRMWOp::create(
          fb, loc, arith::AtomicRMWKind::addi,
          arith::ConstantIntOp::create(fb, loc, fb.getI32Type(), 1), counter,
          counterIndex);
      Value lastBlock = arith::CmpIOp::create(
          fb, loc, arith::CmpIPredicate::eq, done,
          arith::ConstantIntOp::create(fb, loc, fb.getI32Type(), r.blocks - 1));
      memref::StoreOp::create(
          fb, loc, arith::ExtUIOp::create(fb, loc, fb.getI32Type(), lastBlock),
          k.flag, c(fb, 0));
    }
    gpu::BarrierOp::create(b, loc);
    Value flag = memref::LoadOp::create(b, loc, k.flag, c(b, 0));
    Value finishing = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, flag,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    auto branch = scf::IfOp::create(b, loc, finishing, /*withElse=*/false);
    Kernel fk = k;
    fk.b = branch.getThenBodyBuilder();
    OpBuilder &fb = fk.b;
    NVVM::MembarOp::create(fb, loc, NVVM::MemScopeKind::GPU);
    auto gather = scf::ForOp::create(fb, loc, k.tid, c(fb, r.blocks),
                                     c(fb, k.threads), ValueRange{neutral});
    {
      OpBuilder gb = OpBuilder::atBlockBegin(gather.getBody());
      Value v = fromStorage(
          gb, loc,
          memref::LoadOp::create(gb, loc, partial, gather.getInductionVar()),
          r.accType());
      scf::YieldOp::create(gb, loc,
                           combine(gb, r, gather.getRegionIterArgs()[0], v));
    }
    blockTree(fk, r, gather.getResult(0));
    auto first = ifThreadZero(fb, loc, k.tid);
    OpBuilder zb = first.getThenBodyBuilder();
    Value total =
        fromStorage(zb, loc, memref::LoadOp::create(zb, loc, k.tree, c(zb, 0)),
                    r.accType());
    finish(zb, loc, r, total);
  }
};

} // namespace
