//===- Jit.h - lowering and calling the entry function ----------*- C++ -*-===//
//
// Lowers an mpt module with mpt-lower-to-cpu, JIT-compiles it with MLIR's
// ExecutionEngine, and calls the entry function on host tensors.
//
// Calling convention. The LLVM lowering expands every memref argument into
// the fields of its descriptor: allocated pointer, aligned pointer, offset,
// sizes[rank], strides[rank]. ExecutionEngine::invokePacked takes one pointer
// per field. Tensor results come back one of two ways, told apart from the
// lowered signature:
//  - out-parameters (what mpt-lower-to-cpu does, with
//    buffer-results-to-out-params{modify-public-functions}): one more
//    descriptor argument per result, after the inputs, into buffers the
//    caller allocates;
//  - returned (buffer-results-to-out-params left the function alone): the
//    function returns a struct of result descriptors, whose buffers the
//    callee allocated (mpt-run copies them out and frees the ones it owns;
//    see JitEntry::call).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TOOLS_MPT_RUN_JIT_H
#define MPT_TOOLS_MPT_RUN_JIT_H

#include "Signature.h"
#include "Tensors.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mpt::run {

/// Runs mpt-lower-to-cpu on `module`, or, with `emulateGPU` (the options
/// of mpt-emulate-gpu, e.g. "chip=sm_80"; "-" for the defaults), the GPU
/// kernels of mpt-lower-to-nvvm run by mpt's GPU emulator. Diagnostics go
/// to the context's handler; the error says that the pipeline failed.
llvm::Error lowerToCPU(mlir::ModuleOp module, llvm::StringRef emulateGPU = {});

/// Options of the JIT compilation.
struct JitOptions {
  /// LLVM optimization level, 0 to 3.
  unsigned optLevel = 2;
  /// Shared libraries whose symbols the compiled code may call.
  llvm::SmallVector<std::string> sharedLibs;
  /// Pass each argument in a copy whose first element lies this many bytes
  /// past a 64-byte boundary (0: the tensor's own buffer, 64-byte aligned),
  /// to check what a lowered function requires of its callers' buffers.
  unsigned misalignArguments = 0;
};

/// The results of one call and the time it took.
struct CallResult {
  llvm::SmallVector<HostTensor> results;
  /// Milliseconds spent in invokePacked.
  double ms = 0;
};

/// The entry function, compiled.
class JitEntry {
public:
  /// JIT-compiles `module`, already lowered to the LLVM dialect, whose
  /// function `signature.name` was described by `signature` before lowering.
  static llvm::Expected<std::unique_ptr<JitEntry>>
  create(mlir::ModuleOp module, const EntrySignature &signature,
         const JitOptions &options);

  ~JitEntry();

  /// Calls the entry on `arguments`, one per argument of the signature with
  /// its type. The compiled code may write into the arguments' buffers only
  /// if the program writes into its arguments, which mpt programs do not.
  llvm::Expected<CallResult> call(llvm::ArrayRef<HostTensor> arguments);

  /// Whether results are returned through caller-allocated out-parameters.
  bool usesOutParams() const { return outParams; }

private:
  JitEntry(std::unique_ptr<mlir::ExecutionEngine> engine,
           const EntrySignature &signature, bool outParams,
           unsigned misalignArguments);

  std::unique_ptr<mlir::ExecutionEngine> engine;
  EntrySignature signature;
  bool outParams;
  unsigned misalignArguments;
};

} // namespace mpt::run

#endif // MPT_TOOLS_MPT_RUN_JIT_H
