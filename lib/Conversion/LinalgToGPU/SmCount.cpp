//===- SmCount.cpp - mpt-lower-sm-count -----------------------------------===//
//
// The GPU's multiprocessor count that host code asks for (mpt.sm_count): a
// call of the runtime, once per function, or the count of an emulated
// device.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mpt {
#define GEN_PASS_DEF_LOWERSMCOUNT
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The runtime's functions (lib/Runtime/CudaRuntime.cpp): the SM count, and
/// the SMs that clusters of a given size fill.
constexpr const char kSmCount[] = "mgpuDeviceMultiprocessorCount";
constexpr const char kClusterSmCount[] = "mgpuDeviceClusterMultiprocessorCount";

struct LowerSmCountPass : public mpt::impl::LowerSmCountBase<LowerSmCountPass> {
  using LowerSmCountBase::LowerSmCountBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (sms < 0) {
      module.emitError() << "mpt-lower-sm-count: sms=" << int64_t(sms)
                         << " (the pipelines' device-sms); expects 0 (ask "
                            "the runtime) or a count of multiprocessors";
      return signalPassFailure();
    }
    // The queries of each function.
    llvm::MapVector<FunctionOpInterface, SmallVector<mpt::SmCountOp>> queries;
    bool clusters = false;
    WalkResult outside = module.walk([&](mpt::SmCountOp op) {
      auto func = op->getParentOfType<FunctionOpInterface>();
      if (!func || func.isExternal()) {
        op.emitError("mpt-lower-sm-count: expects mpt.sm_count in the body "
                     "of a function (host code)");
        return WalkResult::interrupt();
      }
      queries[func].push_back(op);
      clusters |= op.getCluster() > 1;
      return WalkResult::advance();
    });
    if (outside.wasInterrupted())
      return signalPassFailure();
    if (queries.empty())
      return;
    func::FuncOp smCount, clusterSmCount;
    if (sms == 0) {
      OpBuilder b(module.getContext());
      FailureOr<func::FuncOp> declared =
          declare(module, kSmCount, b.getFunctionType({}, {b.getI32Type()}));
      if (failed(declared))
        return signalPassFailure();
      smCount = *declared;
      if (clusters) {
        declared =
            declare(module, kClusterSmCount,
                    b.getFunctionType({b.getI32Type()}, {b.getI32Type()}));
        if (failed(declared))
          return signalPassFailure();
        clusterSmCount = *declared;
      }
    }
    for (auto &[func, ops] : queries) {
      // One value per cluster size, at the function's entry.
      OpBuilder b = OpBuilder::atBlockBegin(&func.getFunctionBody().front());
      llvm::SmallDenseMap<int64_t, Value> counts;
      for (mpt::SmCountOp op : ops) {
        int64_t cluster = op.getCluster();
        Value &count = counts[cluster];
        if (!count)
          count = lower(b, op.getLoc(), cluster, smCount, clusterSmCount);
        op.getResult().replaceAllUsesWith(count);
      }
      // After the calls: the builder inserts before the entry block's
      // first op, which may be a query.
      for (mpt::SmCountOp op : ops)
        op.erase();
    }
  }

  /// The runtime's answer for clusters of `cluster` blocks, or with `sms`,
  /// the SMs of whole clusters among them (an emulated device has no GPCs).
  Value lower(OpBuilder &b, Location loc, int64_t cluster, func::FuncOp smCount,
              func::FuncOp clusterSmCount) {
    if (!smCount)
      return arith::ConstantIndexOp::create(b, loc, sms / cluster * cluster);
    Value call;
    if (cluster == 1) {
      call = func::CallOp::create(b, loc, smCount).getResult(0);
    } else {
      Value size =
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), cluster);
      call = func::CallOp::create(b, loc, clusterSmCount, size).getResult(0);
    }
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), call);
  }

  /// `func.func private @<name>` of `type`, or the module's own declaration
  /// of it.
  FailureOr<func::FuncOp> declare(ModuleOp module, StringRef name,
                                  FunctionType type) {
    Operation *existing = SymbolTable::lookupSymbolIn(module, name);
    if (existing) {
      auto func = dyn_cast<func::FuncOp>(existing);
      if (!func || func.getFunctionType() != type) {
        existing->emitError()
            << "mpt-lower-sm-count: @" << name
            << " is the mpt runtime's function that mpt.sm_count calls, "
               "of type "
            << type << "; this module defines another";
        return failure();
      }
      return func;
    }
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), name, type);
    func.setPrivate();
    return func;
  }
};

} // namespace
