//===- LowerToCPU.cpp - the mpt-lower-to-cpu pipeline ---------------------===//

#include "mpt/Conversion/Passes.h"
#include "mpt/Conversion/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// The upstream part of the pipeline, as a user would type it.
static constexpr const char *kCPUPipeline =
    "canonicalize,cse,"
    "func.func(linalg-fuse-elementwise-ops,mpt-distinct-results),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs "
    "modify-public-functions},"
    "buffer-deallocation-pipeline,"
    "convert-linalg-to-loops,canonicalize,"
    "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "arith-emulate-unsupported-floats{source-types=bf16,f8E4M3FN,f8E5M2 "
    "target-type=f32},"
    "arith-expand,convert-math-to-libm,convert-to-llvm,"
    "reconcile-unrealized-casts";

void mpt::buildLowerToCPUPipeline(OpPassManager &pm) {
  pm.addPass(createConvertMPTToLinalg());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(kCPUPipeline, pm, os)))
    llvm::report_fatal_error(llvm::Twine("mpt-lower-to-cpu: ") + error);
}

void mpt::registerLowerToCPUPipeline() {
  PassPipelineRegistration<>(
      "mpt-lower-to-cpu",
      "Lower an mpt program to the LLVM dialect for the CPU "
      "(convert-mpt-to-linalg, bufferization, loops, LLVM)",
      buildLowerToCPUPipeline);
}
