//===- HostMemory.cpp - mpt-gpu-host-memory -------------------------------===//
//
// Once the loops of a function are gpu.launch ops, the function body is host
// code: its buffers must be device memory, and whatever still touches memory
// on the host runs as a single-thread kernel.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mpt {
#define GEN_PASS_DEF_GPUHOSTMEMORY
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Ops that stay on the host: kernel launches, allocation, views of buffers
/// (pointer arithmetic only), TMA descriptors (made by the driver from a
/// buffer's address and shape) and the casts that pass them to kernels,
/// constants, the device's SM count, scalar arithmetic on them and the
/// terminator. Copies join the
/// runs of host code around them (inside a kernel they are a memcpy); alone,
/// they become gpu.memcpy.
bool staysOnHost(Operation *op) {
  if (isa<gpu::GPUDialect>(op->getDialect()) ||
      isa<nvgpu::TmaCreateDescriptorOp, UnrealizedConversionCastOp,
          memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
          memref::CopyOp, memref::SubViewOp, memref::ExpandShapeOp,
          memref::CollapseShapeOp, memref::ReinterpretCastOp, memref::CastOp,
          memref::ViewOp, arith::ConstantOp, mpt::SmCountOp, func::ReturnOp>(
          op))
    return true;
  // Scalar arithmetic on what the host has (the grid of a persistent
  // kernel from the device's SM count): no memory, no regions.
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); }) &&
         llvm::all_of(op->getOperands(), [](Value v) {
           Operation *def = v.getDefiningOp();
           return !def || staysOnHost(def);
         });
}

/// Whether `op` (or an op nested in it) reads or writes memory.
bool touchesMemory(Operation *op) {
  bool touches = false;
  op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (effects ? !effects.hasNoEffect()
                : !nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                      nested->getNumRegions() == 0)
      touches = true;
  });
  return touches;
}

struct GPUHostMemoryPass
    : public mpt::impl::GPUHostMemoryBase<GPUHostMemoryPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkStraightLine(func)) || failed(wrapHostCode(func)))
      return signalPassFailure();
    moveBuffersToDevice(func);
  }

  /// Kernels are launched and buffers allocated from straight-line host
  /// code: an op with regions (a loop, a branch) around a launch or an
  /// allocation is an error.
  static LogicalResult checkStraightLine(func::FuncOp func) {
    for (Operation &op : func.getBody().front()) {
      if (op.getNumRegions() == 0 || isa<gpu::LaunchOp>(op))
        continue;
      WalkResult found = op.walk([](Operation *nested) {
        return isa<gpu::LaunchOp, gpu::LaunchFuncOp, memref::AllocOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (found.wasInterrupted())
        return op.emitError()
               << "mpt-gpu-host-memory: '" << op.getName()
               << "' launches kernels or allocates buffers in its body; "
                  "mpt-lower-to-nvvm takes functions whose kernels run once "
                  "each, in order (call the function in a loop instead, or "
                  "unroll the loop)";
    }
    return success();
  }

  /// Moves buffers, constants and views of them to the start of the function
  /// (in order), so that they do not split the runs of host code.
  void hoistBuffers(func::FuncOp func) {
    Block &body = func.getBody().front();
    llvm::SmallPtrSet<Operation *, 16> hoisted;
    Operation *last = nullptr;
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    // Moves the ops that `candidate` takes, in order, after what moved
    // before, once all their operands have moved (or are arguments).
    auto hoist = [&](function_ref<bool(Operation *)> candidate) {
      for (Operation *op : ops) {
        if (!candidate(op) || !llvm::all_of(op->getOperands(), [&](Value v) {
              Operation *def = v.getDefiningOp();
              return !def || hoisted.contains(def);
            }))
          continue;
        if (last)
          op->moveAfter(last);
        else
          op->moveBefore(&body, body.begin());
        last = op;
        hoisted.insert(op);
      }
    };
    // Buffers, constants, views and index arithmetic: anything without
    // memory effects or regions, and static allocations.
    hoist([](Operation *op) {
      return (isa<memref::AllocOp>(op) &&
              cast<memref::AllocOp>(op).getDynamicSizes().empty()) ||
             isa<memref::GetGlobalOp>(op) ||
             (op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
              !op->hasTrait<OpTrait::IsTerminator>());
    });
    // Then the TMA descriptors of the wgmma kernels, and the casts that
    // pass them on: the driver encodes a buffer's address and shape, not
    // its data. A host op with effects ends the stream that
    // gpu-async-region builds (a host synchronization): before each wgmma
    // kernel, where they were; once, when only the allocations are in
    // flight, here.
    hoist([](Operation *op) {
      return isa<nvgpu::TmaCreateDescriptorOp, UnrealizedConversionCastOp>(op);
    });
  }

  /// The maximal runs of ops between the ops that stay on the host.
  static SmallVector<SmallVector<Operation *>> findRuns(Block &body) {
    SmallVector<SmallVector<Operation *>> runs(1);
    for (Operation &op : body) {
      if (staysOnHost(&op)) {
        if (!runs.back().empty())
          runs.emplace_back();
        continue;
      }
      runs.back().push_back(&op);
    }
    return runs;
  }

  /// Wraps each maximal run of host ops that touch memory into a
  /// single-thread gpu.launch. A scalar one run computes and a later run
  /// uses passes through a one-element device buffer.
  LogicalResult wrapHostCode(func::FuncOp func) {
    hoistBuffers(func);
    Block &body = func.getBody().front();
    SmallVector<SmallVector<Operation *>> runs = findRuns(body);
    llvm::DenseMap<Operation *, unsigned> runOf;
    for (auto [i, run] : llvm::enumerate(runs))
      for (Operation *op : run)
        runOf[op] = i;
    for (auto [i, run] : llvm::enumerate(runs)) {
      for (Operation *op : run) {
        for (Value result : op->getResults()) {
          Value spill;
          for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
            Operation *user = body.findAncestorOpInBlock(*use.getOwner());
            auto it = runOf.find(user);
            if (it != runOf.end() && it->second == i)
              continue;
            if (it == runOf.end() || !result.getType().isIntOrIndexOrFloat())
              return use.getOwner()->emitError()
                     << "mpt-gpu-host-memory: this op uses a value that "
                        "host code computes from device memory; only "
                        "buffers and scalars can pass between kernels";
            if (!spill) {
              OpBuilder b(&body, body.begin());
              spill = memref::AllocOp::create(
                  b, op->getLoc(), MemRefType::get({}, result.getType()));
              b.setInsertionPoint(run.back()->getNextNode());
              memref::StoreOp::create(b, op->getLoc(), result, spill);
            }
            OpBuilder b(user);
            use.set(memref::LoadOp::create(b, op->getLoc(), spill));
          }
        }
      }
    }
    for (ArrayRef<Operation *> run : findRuns(body)) {
      if (run.empty() || !llvm::any_of(run, touchesMemory))
        continue;
      // A run of copies only stays on the host (as gpu.memcpy).
      if (llvm::all_of(run,
                       [](Operation *op) { return isa<memref::CopyOp>(op); }))
        continue;
      OpBuilder b(run.front());
      Location loc = run.front()->getLoc();
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
      Block &kernel = launch.getBody().front();
      for (Operation *op : run)
        op->moveBefore(&kernel, kernel.end());
      OpBuilder inner = OpBuilder::atBlockEnd(&kernel);
      gpu::TerminatorOp::create(inner, loc);
    }
    return success();
  }

  void moveBuffersToDevice(func::FuncOp func) {
    Block &body = func.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(
            b, loc, alloc.getType(), Type(), ValueRange(),
            alloc.getDynamicSizes(), alloc.getSymbolOperands(), UnitAttr());
        alloc.replaceAllUsesWith(device.getMemref());
        alloc.erase();
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, loc, Type(), ValueRange(),
                               dealloc.getMemref());
        dealloc.erase();
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), copy.getTarget(),
                              copy.getSource());
        copy.erase();
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        // Constants live in host memory: copy them to the device once.
        b.setInsertionPointAfter(global);
        auto device =
            gpu::AllocOp::create(b, loc, global.getType(), Type(), ValueRange(),
                                 ValueRange(), ValueRange(), UnitAttr());
        global.getResult().replaceAllUsesWith(device.getMemref());
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), device.getMemref(),
                              global.getResult());
      }
    }
  }
};

} // namespace
