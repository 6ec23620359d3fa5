//===- ParallelLoopsToGPU.cpp - mpt-parallel-loops-to-gpu -----------------===//
//
// One GPU thread per iteration (or vector of iterations, below) of a
// top-level scf.parallel: simple, correct SIMT kernels for the elementwise,
// reduction and data-movement ops that do not run on Tensor Cores.
//
// Consecutive loops that are independent of one another (no buffer that one
// writes and another reads or writes) share one kernel (horizontal fusion):
// each loop gets its own range of blocks and runs as it would alone. A
// training step has many small independent loops (the casts of each weight,
// the unscaling and inf/NaN check of each gradient, the first stages of
// independent reductions), and a kernel launch costs microseconds whether it
// runs 64 threads or 64 thousand.
//
// A fill of a buffer followed by a loop that writes all of an interior view
// of it (a zero-padded copy) is first made one loop: one kernel, not two
// that must run in turn.
//
// A thread runs `width` consecutive iterations of the innermost loop where
// that lets it load and store up to `vector-bytes` bytes at once: the
// accesses whose last index is that loop's induction variable become one
// vector.load or vector.store of `width` elements, the ops that do not
// depend on the variable run once, and the others once per iteration.
//
// A serial loop in a thread's iteration that loads and stores one place
// of a buffer in each trip (a reduction's accumulator: a bias gradient's
// column sums) keeps the value in a register instead: one load before the
// loop and one store after it, where nothing else in the loop may touch
// the buffer (GPU kernel parameters carry no aliasing information, so the
// NVVM backend cannot do it).
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "BufferAccesses.h"
#include "VectorAccesses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_PARALLELLOOPSTOGPU
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using mpt::Accesses;
using mpt::accessesOf;
using mpt::independent;

namespace {

/// A top-level loop to convert: its constant bounds and trip counts, and
/// how a thread runs consecutive iterations of its innermost dimension.
struct Loop {
  mutable scf::ParallelOp op; // an op handle: const Loop still edits IR
  SmallVector<int64_t> lower, step, trips;
  int64_t total = 1;
  /// A thread's consecutive iterations of the innermost dimension.
  int64_t width = 1;
  /// Values and ops of the body that differ between those iterations (the
  /// innermost induction variable and what depends on it, including ops
  /// whose regions use it).
  DenseSet<Value> varying;
  DenseSet<Operation *> varyingOps;
  /// The loads and stores that become vector accesses of `width` elements.
  DenseSet<Operation *> vectors;

  int64_t threads() const { return total / width; }
};

/// An op of a loop body that a thread's iterations share as structure where
/// its regions use the innermost variable: an scf.for or scf.if without
/// results whose bounds or condition do not vary. Its region runs once
/// and the ops in it are split as the body's are.
bool shareable(Operation *op, const Loop &loop) {
  if (op->getNumResults() != 0 || !isa<scf::ForOp, scf::IfOp>(op))
    return false;
  return llvm::none_of(op->getOperands(),
                       [&](Value v) { return loop.varying.contains(v); });
}

/// Marks what varies with the innermost induction variable (post-order:
/// an op whose regions hold a varying op varies).
void markVarying(Loop &loop) {
  loop.varying.insert(loop.op.getInductionVars().back());
  for (Operation &top : loop.op.getBody()->without_terminator())
    top.walk<WalkOrder::PostOrder>([&](Operation *op) {
      bool varies =
          llvm::any_of(op->getOperands(),
                       [&](Value v) { return loop.varying.contains(v); }) ||
          llvm::any_of(op->getRegions(), [&](Region &region) {
            return llvm::any_of(region.getOps(), [&](Operation &inner) {
              return loop.varyingOps.contains(&inner);
            });
          });
      if (!varies)
        return;
      loop.varyingOps.insert(op);
      loop.varying.insert(op->getResults().begin(), op->getResults().end());
    });
}

/// Chooses `loop.width` (at most `vectorBytes` bytes of the widest element
/// a vector access takes) and the accesses that become vectors: loads and
/// stores whose last index is the innermost induction variable and whose
/// other indices and buffer do not vary, in a strided buffer whose last
/// stride is 1, outside ops that run per iteration. Every such access must
/// then be aligned to its vector: the innermost loop's lower bound and trip
/// count, and the buffer's offset and other strides, multiples of `width`
/// (halved until they are). Width 1 where the body has an op with effects
/// other than loads and stores, or a store that does not vary (all
/// iterations would store there: running them op by op could reorder it
/// with their other accesses).
void chooseWidth(Loop &loop, int64_t vectorBytes) {
  if (vectorBytes <= 1 || loop.step.back() != 1)
    return;
  markVarying(loop);
  Value iv = loop.op.getInductionVars().back();
  bool safe = true;
  SmallVector<std::pair<Operation *, MemRefType>> candidates;
  for (Operation &top : loop.op.getBody()->without_terminator())
    top.walk([&](Operation *op) {
      if (isa<memref::StoreOp>(op) && !loop.varyingOps.contains(op))
        safe = false;
      if (!isa<memref::LoadOp, memref::StoreOp, scf::ForOp, scf::IfOp,
               scf::YieldOp>(op) &&
          !isMemoryEffectFree(op))
        safe = false;
      Value memref;
      ValueRange indices;
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        memref = load.getMemRef();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
        memref = store.getMemRef();
        indices = store.getIndices();
      } else {
        return;
      }
      if (indices.empty() || indices.back() != iv ||
          loop.varying.contains(memref) ||
          llvm::any_of(indices.drop_back(),
                       [&](Value v) { return loop.varying.contains(v); }))
        return;
      for (Operation *parent = op->getParentOp(); parent != loop.op;
           parent = parent->getParentOp())
        if (!shareable(parent, loop))
          return;
      auto type = cast<MemRefType>(memref.getType());
      if (mpt::vectorElementBytes(type))
        candidates.push_back({op, type});
    });
  if (!safe || candidates.empty())
    return;
  int64_t widest = 1;
  for (auto &[op, type] : candidates)
    widest = std::max(widest, mpt::vectorElementBytes(type));
  auto aligned = [&](int64_t width) {
    if (loop.trips.back() % width || loop.lower.back() % width)
      return false;
    return llvm::all_of(candidates, [&](auto &candidate) {
      return mpt::vectorsAligned(candidate.second, width);
    });
  };
  for (int64_t width = vectorBytes / widest; width > 1; width /= 2)
    if (aligned(width)) {
      loop.width = width;
      for (auto &[op, type] : candidates)
        loop.vectors.insert(op);
      return;
    }
}

/// Ops that a later loop of a group may use from between the loops: they
/// move above the group's kernel (no memory effects, or an allocation).
bool hoistable(Operation *op) {
  if (isa<memref::AllocOp>(op))
    return true;
  return isMemoryEffectFree(op) && op->getNumRegions() == 0;
}

/// Ops between the loops of a group that need no check: hoistable ones,
/// deallocations (they free buffers that no later loop uses), and what
/// makes the TMA descriptors of a kernel (the driver reads a buffer's
/// address and shape, not its data).
bool transparent(Operation &op) {
  return hoistable(&op) || isa<memref::DeallocOp, nvgpu::TmaCreateDescriptorOp,
                               UnrealizedConversionCastOp>(op);
}

/// Whether `loop` runs over `shape` from zero in steps of one.
bool spans(scf::ParallelOp loop, ArrayRef<int64_t> shape) {
  if (loop.getNumLoops() != shape.size())
    return false;
  for (auto [lb, ub, st, d] : llvm::zip(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), shape))
    if (!matchPattern(lb, m_Zero()) || !matchPattern(st, m_One()) ||
        getConstantIntValue(ub) != d)
      return false;
  return true;
}

/// The buffer and value of a fill loop: a loop over all of a static
/// identity-layout buffer from zero in steps of one, whose body only stores
/// one value defined outside it at the induction variables.
std::optional<std::pair<Value, Value>> fillOf(scf::ParallelOp loop) {
  Block *body = loop.getBody();
  auto store = dyn_cast<memref::StoreOp>(body->front());
  if (!store || loop.getNumResults() != 0 ||
      &body->front() != body->getTerminator()->getPrevNode() ||
      store.getIndices() != loop.getInductionVars() ||
      loop->isAncestor(store.getValueToStore().getParentBlock()->getParentOp()))
    return std::nullopt;
  auto type = cast<MemRefType>(store.getMemRef().getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !spans(loop, type.getShape()))
    return std::nullopt;
  return std::make_pair(store.getMemRef(), store.getValueToStore());
}

/// A fill of a buffer followed by a loop that writes every element of a
/// static interior view of it (the zero-padded f16 copy of a weight: a
/// fill, then the cast into the interior) becomes one loop over the buffer
/// whose iterations in the interior run the second loop's body and the
/// others store the fill's value: one kernel rather than two that must run
/// in turn, and no element written twice. The second loop must run over
/// the view from zero in steps of one, store to it at its induction
/// variables outside any nested region, and not otherwise touch the buffer;
/// between the two loops, only ops that need no check.
void mergeFillsIntoInteriors(func::FuncOp func) {
  SmallVector<std::tuple<scf::ParallelOp, scf::ParallelOp, memref::SubViewOp>>
      pairs;
  for (Operation &op : func.getBody().getOps()) {
    auto fill = dyn_cast<scf::ParallelOp>(op);
    std::optional<std::pair<Value, Value>> filled;
    if (!fill || !(filled = fillOf(fill)))
      continue;
    Value buffer = filled->first;
    Operation *next = fill->getNextNode();
    while (next && !isa<scf::ParallelOp>(next) && transparent(*next) &&
           !isa<memref::DeallocOp>(next))
      next = next->getNextNode();
    auto interior = dyn_cast_or_null<scf::ParallelOp>(next);
    if (!interior || interior.getNumResults() != 0)
      continue;
    // The view: the only buffer of `buffer` that the loop stores to.
    memref::SubViewOp view;
    bool coversView = false, other = false;
    interior.getBody()->walk([&](Operation *inner) {
      auto store = dyn_cast<memref::StoreOp>(inner);
      for (Value v : inner->getOperands()) {
        if (!isa<MemRefType>(v.getType()) || mpt::rootOf(v) != buffer)
          continue;
        auto sub = v.getDefiningOp<memref::SubViewOp>();
        if (!store || v != store.getMemRef() || !sub ||
            sub.getSource() != buffer || (view && sub != view)) {
          other = true;
          continue;
        }
        view = sub;
        coversView |= inner->getBlock() == interior.getBody() &&
                      store.getIndices() == interior.getInductionVars();
      }
    });
    if (!other && view && coversView && view.hasUnitStride() &&
        view.getOffsets().empty() && view.getSizes().empty() &&
        spans(interior, view.getType().getShape()))
      pairs.push_back({fill, interior, view});
  }
  for (auto [fill, interior, view] : pairs) {
    auto [buffer, value] = *fillOf(fill);
    OpBuilder b(interior);
    Location loc = interior.getLoc();
    auto merged = scf::ParallelOp::create(b, loc, fill.getLowerBound(),
                                          fill.getUpperBound(), fill.getStep());
    b.setInsertionPointToStart(merged.getBody());
    Value inside;
    IRMapping map;
    for (auto [iv, offset, size, inner] :
         llvm::zip(merged.getInductionVars(), view.getStaticOffsets(),
                   view.getType().getShape(), interior.getInductionVars())) {
      Value at = iv;
      if (offset != 0)
        at = arith::SubIOp::create(
            b, loc, iv, arith::ConstantIndexOp::create(b, loc, offset));
      // at < size, as unsigned: at >= 0 too.
      Value in =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at,
                                arith::ConstantIndexOp::create(b, loc, size));
      inside = inside ? arith::AndIOp::create(b, loc, inside, in) : in;
      map.map(inner, at);
    }
    auto branch = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
    b.setInsertionPointToStart(branch.thenBlock());
    for (Operation &op : interior.getBody()->without_terminator())
      b.clone(op, map);
    b.setInsertionPointToStart(branch.elseBlock());
    memref::StoreOp::create(b, loc, value, buffer, merged.getInductionVars());
    interior.erase();
    fill.erase();
  }
}

struct ParallelLoopsToGPUPass
    : public mpt::impl::ParallelLoopsToGPUBase<ParallelLoopsToGPUPass> {
  using ParallelLoopsToGPUBase::ParallelLoopsToGPUBase;

  void runOnOperation() override {
    if (threads < 1 || threads > 1024) {
      getOperation().emitError()
          << "mpt-parallel-loops-to-gpu: threads must be in [1, 1024], got "
          << static_cast<int64_t>(threads);
      return signalPassFailure();
    }
    if (fuse < 1) {
      getOperation().emitError()
          << "mpt-parallel-loops-to-gpu: fuse must be at least 1 (one loop "
             "per kernel), got "
          << static_cast<int64_t>(fuse);
      return signalPassFailure();
    }
    if (vectorBytes < 1 || vectorBytes > 16 ||
        !llvm::isPowerOf2_64(vectorBytes)) {
      getOperation().emitError()
          << "mpt-parallel-loops-to-gpu: vector-bytes must be 1, 2, 4, 8 or "
             "16, got "
          << static_cast<int64_t>(vectorBytes);
      return signalPassFailure();
    }
    mergeFillsIntoInteriors(getOperation());
    // Groups of consecutive loops, each independent of the loops before it
    // in its group and of the ops between them (a loop joins the kernel of
    // the group's first loop, so it runs before those ops).
    std::vector<std::vector<Loop>> groups;
    SmallVector<Accesses> groupAccesses; // the group's loops and what is
                                         // between them
    bool open = false;
    for (Operation &op : getOperation().getBody().getOps()) {
      auto parallel = dyn_cast<scf::ParallelOp>(op);
      if (!parallel) {
        if (!open || transparent(op))
          continue;
        Accesses between = accessesOf(&op);
        open = !between.unknown;
        groupAccesses.push_back(std::move(between));
        continue;
      }
      FailureOr<Loop> loop = analyze(parallel);
      if (failed(loop))
        return signalPassFailure();
      Accesses accesses = accessesOf(parallel);
      bool joins = open && groups.back().size() < static_cast<size_t>(fuse) &&
                   llvm::all_of(groupAccesses,
                                [&](const Accesses &other) {
                                  return independent(accesses, other);
                                }) &&
                   usesOnlyHoistable(parallel, groups.back().front().op);
      if (!joins) {
        groups.emplace_back();
        groupAccesses.clear();
      }
      chooseWidth(*loop, vectorBytes);
      groups.back().push_back(std::move(*loop));
      groupAccesses.push_back(std::move(accesses));
      open = true;
    }
    llvm::SmallPtrSet<Operation *, 16> before;
    getOperation().walk([&](gpu::LaunchOp launch) { before.insert(launch); });
    for (std::vector<Loop> &group : groups)
      convert(group);
    // The serial loops of the new kernels, innermost first.
    SmallVector<scf::ForOp> serial;
    getOperation().walk([&](gpu::LaunchOp launch) {
      if (!before.contains(launch))
        launch.walk([&](scf::ForOp loop) { serial.push_back(loop); });
    });
    for (scf::ForOp loop : serial)
      promoteAccumulators(loop);
  }

  /// Keeps in registers (iter_args) the values that `loop` loads from and
  /// stores to one place in each trip: a load and a later store, both in the
  /// body's block (not nested), of the same buffer at the same indices (defined
  /// outside the loop), of the same type, where no other op in the loop
  /// may read or write the buffer. The load moves before the loop, the
  /// store after it.
  static void promoteAccumulators(scf::ForOp loop) {
    struct Access {
      Operation *op;
      Value memref;
      ValueRange indices;
      Type type;
    };
    auto access = [](Operation *op, bool store) -> std::optional<Access> {
      if (!store) {
        if (auto l = dyn_cast<memref::LoadOp>(op))
          return Access{op, l.getMemRef(), l.getIndices(), l.getType()};
        if (auto l = dyn_cast<vector::LoadOp>(op))
          return Access{op, l.getBase(), l.getIndices(), l.getType()};
        return std::nullopt;
      }
      if (auto st = dyn_cast<memref::StoreOp>(op))
        return Access{op, st.getMemRef(), st.getIndices(),
                      st.getValueToStore().getType()};
      if (auto st = dyn_cast<vector::StoreOp>(op))
        return Access{op, st.getBase(), st.getIndices(),
                      st.getValueToStore().getType()};
      return std::nullopt;
    };
    SmallVector<std::pair<Operation *, Operation *>> pairs;
    Block *body = loop.getBody();
    for (Operation &op : *body) {
      std::optional<Access> load = access(&op, /*store=*/false);
      if (!load ||
          !llvm::all_of(
              load->indices,
              [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }) ||
          !loop.isDefinedOutsideOfLoop(load->memref))
        continue;
      Value root = mpt::rootOf(load->memref);
      // The store, and no other access to the buffer in the loop.
      Operation *store = nullptr;
      bool alone = true;
      loop.getBody()->walk([&](Operation *other) {
        if (other == load->op || !alone)
          return;
        if (std::optional<Access> st = access(other, /*store=*/true);
            st && st->memref == load->memref && st->type == load->type &&
            other->getBlock() == body && load->op->isBeforeInBlock(other) &&
            llvm::equal(st->indices, load->indices) && !store) {
          store = other;
          return;
        }
        if (other->getNumRegions()) // their effects are their ops'
          return;
        Accesses a = accessesOf(other);
        alone = !a.unknown &&
                llvm::none_of(llvm::concat<Value>(a.reads, a.writes),
                              [&](Value v) { return mpt::mayAlias(v, root); });
      });
      if (store && alone)
        pairs.push_back({load->op, store});
    }
    for (auto [load, store] : pairs) {
      IRRewriter rewriter(loop.getContext());
      rewriter.setInsertionPoint(loop);
      Operation *init = rewriter.clone(*load);
      Value stored = store->getOperand(0); // (the value to store)
      FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
          rewriter, init->getResult(0), /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
            return SmallVector<Value>{stored};
          });
      if (failed(grown))
        return;
      loop = cast<scf::ForOp>(grown->getOperation());
      load->getResult(0).replaceAllUsesWith(loop.getRegionIterArgs().back());
      load->erase();
      rewriter.setInsertionPointAfter(loop);
      IRMapping map;
      map.map(stored, loop.getResults().back());
      rewriter.clone(*store, map);
      store->erase();
    }
  }

  FailureOr<Loop> analyze(scf::ParallelOp op) {
    if (!op.getInitVals().empty())
      return op.emitError("mpt-parallel-loops-to-gpu: a parallel loop with "
                          "a reduction result is not supported");
    Loop loop;
    loop.op = op;
    for (auto [lb, ub, st] :
         llvm::zip(op.getLowerBound(), op.getUpperBound(), op.getStep())) {
      APInt l, u, s;
      if (!matchPattern(lb, m_ConstantInt(&l)) ||
          !matchPattern(ub, m_ConstantInt(&u)) ||
          !matchPattern(st, m_ConstantInt(&s)) || s.getSExtValue() <= 0)
        return op.emitError("mpt-parallel-loops-to-gpu: loop bounds and "
                            "steps must be constants (static shapes)");
      loop.lower.push_back(l.getSExtValue());
      loop.step.push_back(s.getSExtValue());
      int64_t n = (u.getSExtValue() - l.getSExtValue() + s.getSExtValue() - 1) /
                  s.getSExtValue();
      loop.trips.push_back(std::max<int64_t>(n, 0));
      loop.total *= loop.trips.back();
    }
    return loop;
  }

  /// One kernel for `group`, where its first loop was: loop k gets blocks
  /// [first_k, first_k + ceil(threads_k / threads)), so that a block runs
  /// one loop only.
  void convert(ArrayRef<Loop> group) {
    SmallVector<const Loop *> loops;
    for (const Loop &loop : group) {
      if (loop.total > 0)
        loops.push_back(&loop);
      else
        loop.op.erase(); // no iteration
    }
    if (loops.empty())
      return;
    Operation *first = loops.front()->op;
    // What the later loops use from between the loops moves above the
    // kernel (ops without memory effects, allocations: mayStandBetween).
    for (const Loop *loop : ArrayRef(loops).drop_front())
      hoistOperands(loop->op, first);
    Location loc = first->getLoc();
    OpBuilder b(first);
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    int64_t maxThreads = 0;
    for (const Loop *loop : loops)
      maxThreads = std::max(maxThreads, loop->threads());
    int64_t blockSize = std::min<int64_t>(threads, maxThreads);
    SmallVector<int64_t> firstBlock;
    int64_t grid = 0;
    for (const Loop *loop : loops) {
      firstBlock.push_back(grid);
      grid += llvm::divideCeil(loop->threads(), blockSize);
    }
    Value one = c(b, 1);
    auto launch = gpu::LaunchOp::create(b, loc, c(b, grid), one, one,
                                        c(b, blockSize), one, one);
    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value block = launch.getBlockIds().x, tx = launch.getThreadIds().x;
    // The loops in turn: if the block is below loop k + 1's first block, it
    // runs loop k (else-if chain; one loop alone needs no test).
    OpBuilder cb = kb;
    for (size_t k = 0; k < loops.size(); ++k) {
      OpBuilder body = cb;
      if (k + 1 < loops.size()) {
        Value mine = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::ult,
                                           block, c(cb, firstBlock[k + 1]));
        auto branch = scf::IfOp::create(cb, loc, mine, /*withElse=*/true);
        body = branch.getThenBodyBuilder();
        cb = branch.getElseBodyBuilder();
      }
      Value local =
          arith::SubIOp::create(body, loc, block, c(body, firstBlock[k]));
      Value id = arith::AddIOp::create(
          body, loc,
          arith::MulIOp::create(body, loc, local, c(body, blockSize)), tx);
      emitLoop(body, *loops[k], id);
    }
    gpu::TerminatorOp::create(kb, loc);
    for (const Loop *loop : loops)
      loop->op.erase();
  }

  /// The ops between `first` and `loop` that `loop` uses, and what they use
  /// from there in turn.
  static llvm::SmallPtrSet<Operation *, 8> usedBetween(Operation *loop,
                                                       Operation *first) {
    auto between = [&](Value v) -> Operation * {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == first->getBlock() &&
          first->isBeforeInBlock(def))
        return def;
      return nullptr;
    };
    SmallVector<Operation *> worklist;
    loop->walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (Operation *def = between(operand))
          worklist.push_back(def);
    });
    llvm::SmallPtrSet<Operation *, 8> used;
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val();
      if (!used.insert(def).second)
        continue;
      for (Value operand : def->getOperands())
        if (Operation *inner = between(operand))
          worklist.push_back(inner);
    }
    return used;
  }

  /// Whether what `loop` uses from between `first` and it can move above
  /// `first`.
  static bool usesOnlyHoistable(Operation *loop, Operation *first) {
    return llvm::all_of(usedBetween(loop, first), hoistable);
  }

  /// Moves what `loop` uses from between `first` and it above `first`, in
  /// block order (operands before their users).
  void hoistOperands(Operation *loop, Operation *first) {
    llvm::SmallPtrSet<Operation *, 8> used = usedBetween(loop, first);
    for (Operation *op = first->getNextNode(); op != loop;) {
      Operation *next = op->getNextNode();
      if (used.contains(op))
        op->moveBefore(first);
      op = next;
    }
  }

  /// The body of `loop` for thread `id`, guarded (the last block): its
  /// `width` iterations of the innermost dimension.
  void emitLoop(OpBuilder &b, const Loop &loop, Value id) {
    Location loc = loop.op.getLoc();
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id,
                                          c(b, loop.threads()));
    auto guard = scf::IfOp::create(b, loc, inRange, false);
    OpBuilder gb = guard.getThenBodyBuilder();
    // Delinearize, the last dimension fastest (coalesced accesses); a
    // thread's iterations of it are `width` apart.
    SmallVector<IRMapping> copies(loop.width);
    Value rest = id;
    int64_t last = loop.trips.size() - 1;
    for (int64_t d = last; d >= 0; --d) {
      int64_t trips = d == last ? loop.trips[d] / loop.width : loop.trips[d];
      Value index =
          d == 0
              ? rest
              : arith::RemUIOp::create(gb, loc, rest, c(gb, trips)).getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(gb, loc, rest, c(gb, trips));
      int64_t scale = d == last ? loop.width : loop.step[d];
      Value iv = arith::AddIOp::create(
          gb, loc, arith::MulIOp::create(gb, loc, index, c(gb, scale)),
          c(gb, loop.lower[d]));
      for (int64_t j = 0; j < loop.width; ++j)
        copies[j].map(loop.op.getInductionVars()[d],
                      d == last && j > 0
                          ? arith::AddIOp::create(gb, loc, iv, c(gb, j))
                          : iv);
    }
    if (loop.width == 1) {
      for (Operation &op : loop.op.getBody()->without_terminator())
        gb.clone(op, copies.front());
      return;
    }
    emitBody(gb, *loop.op.getBody(), loop, copies);
  }

  /// The ops of `block` for a thread's iterations, `copies` mapping the
  /// values of each: an op that does not vary runs once (its results are
  /// every iteration's), a vector access once for all, a shared scf.for or
  /// scf.if once with its regions split in turn, any other op once per
  /// iteration. The iterations of a parallel loop are independent, so
  /// running them op by op rather than one after another changes no result.
  void emitBody(OpBuilder &b, Block &block, const Loop &loop,
                MutableArrayRef<IRMapping> copies) {
    for (Operation &op : block.without_terminator()) {
      if (!loop.varyingOps.contains(&op)) {
        Operation *once = b.clone(op, copies.front());
        for (IRMapping &copy : copies.drop_front())
          copy.map(op.getResults(), once->getResults());
      } else if (loop.vectors.contains(&op)) {
        emitVectorAccess(b, op, loop.width, copies);
      } else if (shareable(&op, loop)) {
        Operation *once = b.cloneWithoutRegions(op, copies.front());
        for (auto [from, to] : llvm::zip(op.getRegions(), once->getRegions())) {
          if (from.empty())
            continue;
          Block &source = from.front();
          OpBuilder::InsertionGuard guard(b); // createBlock moves it
          Block *target = b.createBlock(
              &to, {}, source.getArgumentTypes(),
              SmallVector<Location>(source.getNumArguments(), op.getLoc()));
          for (IRMapping &copy : copies)
            copy.map(source.getArguments(), target->getArguments());
          OpBuilder tb = OpBuilder::atBlockEnd(target);
          emitBody(tb, source, loop, copies);
          tb.clone(*source.getTerminator(), copies.front());
        }
      } else {
        for (IRMapping &copy : copies)
          b.clone(op, copy);
      }
    }
  }

  /// One vector load or store of `width` elements for a thread's
  /// iterations of `op`, at the first iteration's indices; it states the
  /// alignment that chooseWidth checked.
  static void emitVectorAccess(OpBuilder &b, Operation &op, int64_t width,
                               MutableArrayRef<IRMapping> copies) {
    Location loc = op.getLoc();
    IRMapping &first = copies.front();
    auto mapped = [&](ValueRange values) {
      return llvm::map_to_vector(
          values, [&](Value v) { return first.lookupOrDefault(v); });
    };
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      auto type = VectorType::get({width}, load.getType());
      Value vector = vector::LoadOp::create(
          b, loc, type, first.lookupOrDefault(load.getMemRef()),
          mapped(load.getIndices()), /*nontemporal=*/false,
          llvm::MaybeAlign(width *
                           mpt::vectorElementBytes(load.getMemRefType())));
      for (auto [j, copy] : llvm::enumerate(copies))
        copy.map(load.getResult(),
                 vector::ExtractOp::create(b, loc, vector,
                                           ArrayRef<int64_t>{int64_t(j)}));
      return;
    }
    auto store = cast<memref::StoreOp>(op);
    SmallVector<Value> elements;
    for (IRMapping &copy : copies)
      elements.push_back(copy.lookupOrDefault(store.getValueToStore()));
    Value vector = vector::FromElementsOp::create(
        b, loc, VectorType::get({width}, elements.front().getType()), elements);
    vector::StoreOp::create(
        b, loc, vector, first.lookupOrDefault(store.getMemRef()),
        mapped(store.getIndices()), /*nontemporal=*/false,
        llvm::MaybeAlign(width *
                         mpt::vectorElementBytes(store.getMemRefType())));
  }
};

} // namespace
