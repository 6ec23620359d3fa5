//===- CheckAlignment.cpp - mpt-gpu-check-alignment -----------------------===//
//
// The kernels take every buffer to start on a 16-byte boundary; a host
// function checks it of its buffer arguments before it launches any, and
// stops with a message if one is not.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_GPUCHECKALIGNMENT
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The alignment the kernels' widest accesses need, in bytes.
constexpr int64_t kAlignment = 16;

struct GPUCheckAlignmentPass
    : public mpt::impl::GPUCheckAlignmentBase<GPUCheckAlignmentPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !launches(func))
        continue;
      if (failed(check(module, func)))
        return signalPassFailure();
    }
  }

  static bool launches(func::FuncOp func) {
    return func
        .walk([](Operation *op) {
          return isa<gpu::LaunchFuncOp, gpu::LaunchOp>(op)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// At the entry of `func`: for each buffer argument, if its first
  /// element's address is not a multiple of kAlignment, write a message to
  /// the standard error and abort.
  LogicalResult check(ModuleOp module, func::FuncOp func) {
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Location loc = func.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    FailureOr<LLVM::LLVMFuncOp> write = LLVM::lookupOrCreateFn(
        b, module, "write", {b.getI32Type(), ptr, b.getI64Type()},
        b.getI64Type());
    FailureOr<LLVM::LLVMFuncOp> abort = LLVM::lookupOrCreateFn(
        b, module, "abort", {}, LLVM::LLVMVoidType::get(b.getContext()));
    if (failed(write) || failed(abort))
      return func.emitError("mpt-gpu-check-alignment: cannot declare write "
                            "and abort for the alignment checks");
    b.setInsertionPointToStart(&func.getBody().front());
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat())
        continue;
      // The first element's address: the aligned pointer plus the offset.
      Value address =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, arg);
      auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, arg);
      int64_t bytes = std::max<int64_t>(
          type.getElementType().getIntOrFloatBitWidth() / 8, 1);
      address = arith::AddIOp::create(
          b, loc, address,
          arith::MulIOp::create(b, loc, metadata.getOffset(), index(bytes)));
      Value misaligned = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::RemUIOp::create(b, loc, address, index(kAlignment)), index(0));
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "mpt: @" << func.getSymName() << ": argument #"
         << arg.getArgNumber() << " (" << type << ") is not " << kAlignment
         << "-byte aligned; mpt's GPU kernels access buffers in " << kAlignment
         << "-byte vectors and copies (gpu.alloc, mgpuMemAlloc and "
            "cudaMalloc give 256-byte aligned buffers)\n";
      auto guard = scf::IfOp::create(b, loc, misaligned,
                                     /*withElseRegion=*/false);
      OpBuilder fb = guard.getThenBodyBuilder();
      Value text =
          LLVM::createGlobalString(loc, fb,
                                   ("mpt_misaligned_" + func.getSymName() +
                                    "_" + Twine(arg.getArgNumber()))
                                       .str(),
                                   message, LLVM::Linkage::Internal);
      Value fd = LLVM::ConstantOp::create(fb, loc, fb.getI32Type(), 2);
      Value length =
          LLVM::ConstantOp::create(fb, loc, fb.getI64Type(), message.size());
      LLVM::CallOp::create(fb, loc, *write, ValueRange{fd, text, length});
      LLVM::CallOp::create(fb, loc, *abort, ValueRange());
    }
    return success();
  }
};

} // namespace
