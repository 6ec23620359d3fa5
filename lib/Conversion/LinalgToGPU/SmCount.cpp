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

/// The runtime function (lib/Runtime/CudaRuntime.cpp).
constexpr const char kRuntimeFunction[] = "mgpuDeviceMultiprocessorCount";

struct LowerSmCountPass : public mpt::impl::LowerSmCountBase<LowerSmCountPass> {
  using LowerSmCountBase::LowerSmCountBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (sms < 0) {
      module.emitError() << "mpt-lower-sm-count: sms=" << int64_t(sms)
                         << "; expects 0 (ask the runtime) or a count of "
                            "multiprocessors";
      return signalPassFailure();
    }
    // The queries of each function.
    llvm::MapVector<FunctionOpInterface, SmallVector<mpt::SmCountOp>> queries;
    WalkResult outside = module.walk([&](mpt::SmCountOp op) {
      auto func = op->getParentOfType<FunctionOpInterface>();
      if (!func || func.isExternal()) {
        op.emitError("mpt-lower-sm-count: expects mpt.sm_count in the body "
                     "of a function (host code)");
        return WalkResult::interrupt();
      }
      queries[func].push_back(op);
      return WalkResult::advance();
    });
    if (outside.wasInterrupted())
      return signalPassFailure();
    if (queries.empty())
      return;
    func::FuncOp callee;
    if (sms == 0) {
      FailureOr<func::FuncOp> declared = declare(module);
      if (failed(declared))
        return signalPassFailure();
      callee = *declared;
    }
    for (auto &[func, ops] : queries) {
      OpBuilder b = OpBuilder::atBlockBegin(&func.getFunctionBody().front());
      Location loc = ops.front().getLoc();
      Value count;
      if (callee) {
        Value call = func::CallOp::create(b, loc, callee).getResult(0);
        count = arith::IndexCastOp::create(b, loc, b.getIndexType(), call);
      } else {
        count = arith::ConstantIndexOp::create(b, loc, sms);
      }
      for (mpt::SmCountOp op : ops) {
        op.getResult().replaceAllUsesWith(count);
        op.erase();
      }
    }
  }

  /// `func.func private @mgpuDeviceMultiprocessorCount() -> i32`, or the
  /// module's own declaration of it.
  FailureOr<func::FuncOp> declare(ModuleOp module) {
    OpBuilder b(module.getContext());
    auto type = b.getFunctionType({}, {b.getI32Type()});
    Operation *existing = SymbolTable::lookupSymbolIn(module, kRuntimeFunction);
    if (existing) {
      auto func = dyn_cast<func::FuncOp>(existing);
      if (!func || func.getFunctionType() != type) {
        existing->emitError()
            << "mpt-lower-sm-count: @" << kRuntimeFunction
            << " is the mpt runtime's function that mpt.sm_count calls, "
               "of type () -> i32; this module defines another";
        return failure();
      }
      return func;
    }
    b.setInsertionPointToEnd(module.getBody());
    auto func =
        func::FuncOp::create(b, module.getLoc(), kRuntimeFunction, type);
    func.setPrivate();
    return func;
  }
};

} // namespace
