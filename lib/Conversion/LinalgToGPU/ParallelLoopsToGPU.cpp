//===- ParallelLoopsToGPU.cpp - mpt-parallel-loops-to-gpu -----------------===//
//
// One GPU thread per iteration of a top-level scf.parallel: simple, correct
// SIMT kernels for the elementwise, reduction and data-movement ops that do
// not run on Tensor Cores.
//
// Consecutive loops that are independent of one another (no buffer that one
// writes and another reads or writes) share one kernel (horizontal fusion):
// each loop gets its own range of blocks and runs as it would alone. A
// training step has many small independent loops (the casts of each weight,
// the unscaling and inf/NaN check of each gradient, the first stages of
// independent reductions), and a kernel launch costs microseconds whether it
// runs 64 threads or 64 thousand.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "BufferAccesses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// A top-level loop to convert: its constant bounds and trip counts.
struct Loop {
  mutable scf::ParallelOp op; // an op handle: const Loop still edits IR
  SmallVector<int64_t> lower, step, trips;
  int64_t total = 1;
};

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
    // Groups of consecutive loops, each independent of the loops before it
    // in its group and of the ops between them (a loop joins the kernel of
    // the group's first loop, so it runs before those ops).
    SmallVector<SmallVector<Loop>> groups;
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
      groups.back().push_back(*loop);
      groupAccesses.push_back(std::move(accesses));
      open = true;
    }
    for (SmallVector<Loop> &group : groups)
      convert(group);
  }

  FailureOr<Loop> analyze(scf::ParallelOp op) {
    if (!op.getInitVals().empty())
      return op.emitError("mpt-parallel-loops-to-gpu: a parallel loop with "
                          "a reduction result is not supported");
    Loop loop{op, {}, {}, {}, 1};
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
  /// [first_k, first_k + ceil(total_k / threads)), so that a block runs one
  /// loop only.
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
    int64_t maxTotal = 0;
    for (const Loop *loop : loops)
      maxTotal = std::max(maxTotal, loop->total);
    int64_t blockSize = std::min<int64_t>(threads, maxTotal);
    SmallVector<int64_t> firstBlock;
    int64_t grid = 0;
    for (const Loop *loop : loops) {
      firstBlock.push_back(grid);
      grid += (loop->total + blockSize - 1) / blockSize;
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

  /// The body of `loop` for linear iteration `id`, guarded (the last block).
  void emitLoop(OpBuilder &b, const Loop &loop, Value id) {
    Location loc = loop.op.getLoc();
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id,
                                          c(b, loop.total));
    auto guard = scf::IfOp::create(b, loc, inRange, false);
    OpBuilder gb = guard.getThenBodyBuilder();
    // Delinearize, the last dimension fastest (coalesced accesses).
    IRMapping mapping;
    Value rest = id;
    for (int64_t d = loop.trips.size() - 1; d >= 0; --d) {
      Value index =
          d == 0 ? rest
                 : arith::RemUIOp::create(gb, loc, rest, c(gb, loop.trips[d]))
                       .getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(gb, loc, rest, c(gb, loop.trips[d]));
      Value iv = arith::AddIOp::create(
          gb, loc, arith::MulIOp::create(gb, loc, index, c(gb, loop.step[d])),
          c(gb, loop.lower[d]));
      mapping.map(loop.op.getInductionVars()[d], iv);
    }
    for (Operation &op : loop.op.getBody()->without_terminator())
      gb.clone(op, mapping);
  }
};

} // namespace
