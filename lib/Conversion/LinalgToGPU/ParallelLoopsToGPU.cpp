//===- ParallelLoopsToGPU.cpp - mpt-parallel-loops-to-gpu -----------------===//
//
// One GPU thread per iteration of a top-level scf.parallel: simple, correct
// SIMT kernels for the elementwise, reduction and data-movement ops that do
// not run on Tensor Cores.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mpt {
#define GEN_PASS_DEF_PARALLELLOOPSTOGPU
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

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
    SmallVector<scf::ParallelOp> loops;
    for (Operation &op : getOperation().getBody().getOps())
      if (auto loop = dyn_cast<scf::ParallelOp>(op))
        loops.push_back(loop);
    for (scf::ParallelOp loop : loops)
      if (failed(convert(loop)))
        return signalPassFailure();
  }

  LogicalResult convert(scf::ParallelOp loop) {
    if (!loop.getInitVals().empty())
      return loop.emitError("mpt-parallel-loops-to-gpu: a parallel loop with "
                            "a reduction result is not supported");
    SmallVector<int64_t> lower, upper, step, trips;
    for (auto [lb, ub, st] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
      APInt l, u, s;
      if (!matchPattern(lb, m_ConstantInt(&l)) ||
          !matchPattern(ub, m_ConstantInt(&u)) ||
          !matchPattern(st, m_ConstantInt(&s)) || s.getSExtValue() <= 0)
        return loop.emitError("mpt-parallel-loops-to-gpu: loop bounds and "
                              "steps must be constants (static shapes)");
      lower.push_back(l.getSExtValue());
      upper.push_back(u.getSExtValue());
      step.push_back(s.getSExtValue());
      int64_t n = (upper.back() - lower.back() + step.back() - 1) / step.back();
      trips.push_back(std::max<int64_t>(n, 0));
    }
    int64_t total = 1;
    for (int64_t t : trips)
      total *= t;
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    if (total == 0) {
      loop.erase();
      return success();
    }
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    int64_t blockSize = std::min<int64_t>(threads, total);
    int64_t grid = (total + blockSize - 1) / blockSize;
    Value one = c(b, 1);
    auto launch = gpu::LaunchOp::create(b, loc, c(b, grid), one, one,
                                        c(b, blockSize), one, one);
    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value id = arith::AddIOp::create(
        kb, loc,
        arith::MulIOp::create(kb, loc, launch.getBlockIds().x,
                              c(kb, blockSize)),
        launch.getThreadIds().x);
    Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                          id, c(kb, total));
    auto guard = scf::IfOp::create(kb, loc, inRange, false);
    gpu::TerminatorOp::create(kb, loc);
    OpBuilder gb = guard.getThenBodyBuilder();
    // Delinearize, the last dimension fastest (coalesced accesses).
    IRMapping mapping;
    Value rest = id;
    for (int64_t d = trips.size() - 1; d >= 0; --d) {
      Value index = d == 0
                        ? rest
                        : arith::RemUIOp::create(gb, loc, rest, c(gb, trips[d]))
                              .getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(gb, loc, rest, c(gb, trips[d]));
      Value iv = arith::AddIOp::create(
          gb, loc, arith::MulIOp::create(gb, loc, index, c(gb, step[d])),
          c(gb, lower[d]));
      mapping.map(loop.getInductionVars()[d], iv);
    }
    for (Operation &op : loop.getBody()->without_terminator())
      gb.clone(op, mapping);
    loop.erase();
    return success();
  }
};

} // namespace
