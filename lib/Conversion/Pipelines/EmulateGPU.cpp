//===- EmulateGPU.cpp - the mpt-emulate-gpu pipeline ----------------------===//
//
// The kernels mpt-lower-to-nvvm builds, run on the CPU: the same passes up
// to outlined kernels, then mpt-gpu-emulation and the CPU's lowering to the
// LLVM dialect. mpt-run --emulate-gpu runs the result.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"
#include "mpt/Conversion/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// What mpt-lower-to-cpu runs after its loops, plus the vector ops of the
/// kernels.
static constexpr const char *kToLLVM =
    "canonicalize,cse,expand-strided-metadata,lower-affine,"
    "convert-vector-to-scf,convert-scf-to-cf,"
    "arith-emulate-unsupported-floats{source-types=bf16,f8E4M3FN,f8E5M2 "
    "target-type=f32},"
    "arith-expand,convert-math-to-libm,convert-vector-to-llvm,"
    "convert-to-llvm,reconcile-unrealized-casts";

void mpt::buildEmulateGPUPipeline(OpPassManager &pm,
                                  const EmulateGPUOptions &options) {
  buildGPUKernelsPipeline(pm, options);
  LowerSmCountOptions device;
  device.sms = options.deviceSms != 0 ? options.deviceSms : options.sms;
  pm.addPass(createLowerSmCount(device));
  GPUEmulationOptions emulation;
  emulation.traffic = options.traffic;
  emulation.banks = options.banks;
  pm.addPass(createGPUEmulation(emulation));
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(kToLLVM, pm, os)))
    llvm::report_fatal_error(llvm::Twine("mpt-emulate-gpu: ") + error);
}

void mpt::registerEmulateGPUPipeline() {
  PassPipelineRegistration<EmulateGPUOptions>(
      "mpt-emulate-gpu",
      "Lower an mpt program to the LLVM dialect for the CPU with the GPU "
      "kernels of mpt-lower-to-nvvm (SIMT, WMMA, mma.sync and wgmma) run by "
      "mpt's GPU emulator",
      buildEmulateGPUPipeline);
}
