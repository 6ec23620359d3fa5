//===- LowerToNVVM.cpp - the mpt-lower-to-nvvm pipeline -------------------===//
//
// mpt -> linalg -> buffers -> Tensor Core kernels for the low-precision
// matmuls, SIMT kernels for everything else -> outlined gpu.func kernels ->
// NVVM -> PTX / cubin / fatbin embedded in host code that calls the mgpu*
// runtime (lib/Runtime).
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"
#include "mpt/Conversion/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"

#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace mlir;

/// Bufferization as for the CPU: static buffers, results as out-parameters,
/// marked `bufferize.result`: a result was a fresh buffer, so the kernels'
/// grouping may take it to overlap no other buffer.
static constexpr const char *kBufferize =
    "eliminate-empty-tensors,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{add-result-attr hoist-static-allocs "
    "modify-public-functions},"
    "buffer-deallocation-pipeline";

/// The PTX ISA version each chip needs at least (PTX ISA, "Release Notes").
static std::string ptxFeature(StringRef chip, StringRef ptx) {
  if (!ptx.empty())
    return ("+ptx" + ptx).str();
  static const std::pair<const char *, const char *> kMinimum[] = {
      {"sm_70", "60"}, {"sm_72", "61"}, {"sm_75", "63"},
      {"sm_80", "70"}, {"sm_86", "71"}, {"sm_87", "74"},
      {"sm_89", "78"}, {"sm_90", "80"}, {"sm_90a", "80"}};
  for (auto [name, version] : kMinimum)
    if (chip == name)
      return std::string("+ptx") + version;
  return "+ptx80";
}

/// The CUDA toolkit: `path` if given, else $CUDA_ROOT, $CUDA_HOME,
/// $CUDA_PATH or /usr/local/cuda, the first that has libdevice; "" if none
/// (PTX is still generated; math functions stay calls to libdevice).
static std::string findCUDAToolkit(StringRef path) {
  if (!path.empty())
    return path.str();
  SmallVector<std::string> candidates;
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var))
      candidates.push_back(value);
  candidates.push_back("/usr/local/cuda");
  for (const std::string &candidate : candidates)
    if (llvm::sys::fs::exists(candidate + "/nvvm/libdevice/libdevice.10.bc"))
      return candidate;
  return "";
}

/// The number of `chip` (80 for sm_80, 90 for sm_90a), or 0 if it has none.
static unsigned chipNumber(StringRef chip) {
  unsigned sm = 0;
  if (!chip.consume_front("sm_") ||
      chip.take_while([](char c) { return llvm::isDigit(c); })
          .getAsInteger(10, sm))
    return 0;
  return sm;
}

static void parseInto(OpPassManager &pm, StringRef pipeline) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    llvm::report_fatal_error(llvm::Twine("mpt-lower-to-nvvm: ") + error);
}

template <typename Derived>
void mpt::buildGPUKernelsPipeline(OpPassManager &pm,
                                  const GPUKernelOptions<Derived> &options) {
  pm.addPass(createConvertMPTToLinalg(ConvertMPTToLinalgOptions{/*gpu=*/true}));
  // Elementwise fusion that keeps matmuls named (Tensor Core kernels) and
  // their roundings next to them (epilogues), and the convolution gradients
  // that go to Tensor Cores as mpt-conv-to-gemm takes them.
  parseInto(pm, "canonicalize,cse");
  FuseElementwiseOptions fuse;
  fuse.tf32 = options.tf32;
  pm.addNestedPass<func::FuncOp>(createFuseElementwise(fuse));
  // Low-precision convolutions become im2col and a matmul (Tensor Cores),
  // after elementwise fusion, which would fuse the im2col back.
  ConvToGemmOptions convs;
  convs.tf32 = options.tf32;
  pm.addNestedPass<func::FuncOp>(createConvToGemm(convs));
  // Matmuls with few output tiles (weight gradients, the filter gradients
  // of convolutions) over slices of K, when asked for.
  SplitKOptions splitK;
  splitK.splits = options.splitK;
  splitK.sms = options.sms;
  pm.addNestedPass<func::FuncOp>(createSplitK(splitK));
  // Reductions along an axis as parallel partial results, rather than one
  // thread for a whole column; whole-tensor reductions (loss, norms, the
  // inf/NaN check) are left to mpt-reductions-to-gpu, and those along rows
  // (softmax, layer norm) to mpt-rows-to-gpu.
  SplitReductionsOptions split;
  split.full = false;
  split.rows = false; // mpt-rows-to-gpu: a team of threads per row
  // Bias gradients that the mma.sync and wgmma kernels compute (sm_80+).
  split.keepColumnSums = options.columnSums && chipNumber(options.chip) >= 80;
  // And those of the tiled SIMT kernel (f32 matmuls unless tf32 takes them
  // to mma.sync; 16-bit ones whose rows no asynchronous copy takes).
  split.keepSimtColumnSums = options.columnSums;
  split.tf32 = options.tf32 && chipNumber(options.chip) >= 80;
  pm.addNestedPass<func::FuncOp>(createSplitReductions(split));
  // Elementwise ops that free more than they take (the unscaling of a
  // padded gradient's slice) right after their operands are made.
  pm.addNestedPass<func::FuncOp>(createConsumeEarly());
  // Each result its own buffer: no order between unrelated kernels that a
  // shared buffer would impose.
  pm.addNestedPass<func::FuncOp>(createUntieEmptyTensors());
  // Except an elementwise result over an input that dies there.
  pm.addNestedPass<func::FuncOp>(createElementwiseInPlace());
  // A buffer of its own for each result.
  pm.addNestedPass<func::FuncOp>(createDistinctResults());
  // (kBufferize first eliminates the tensor.empty of a result that is
  // inserted into a larger tensor, such as a padded f16 copy: the result is
  // computed in place in that tensor's buffer.)
  parseInto(pm, kBufferize);
  // Fills rather than copies of filled buffers (the zeros that matmuls and
  // reductions start from).
  pm.addNestedPass<func::FuncOp>(createCopiesToFills());
  // One allocation per value an allocation holds in turn.
  pm.addNestedPass<func::FuncOp>(createSplitBuffers());
  ConvertLinalgToTensorCoresOptions tc;
  tc.chip = options.chip;
  tc.blockTile = options.blockTile;
  tc.warpTile = options.warpTile;
  tc.stages = options.stages;
  tc.tf32 = options.tf32;
  tc.warpSpecialize = options.warpSpecialize;
  tc.persistent = options.persistent;
  tc.pingpong = options.pingpong;
  tc.tmaStore = options.tmaStore;
  tc.clusterM = options.clusterM;
  tc.clusterN = options.clusterN;
  tc.groupM = options.groupM;
  tc.sms = options.sms;
  tc.simtVectorBytes = options.simtVectorBytes;
  tc.columnSums = options.columnSums;
  tc.castOnLoad = options.castOnLoad;
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToTensorCores(tc));
  // Whole-tensor reductions: one kernel each, consecutive independent ones
  // together.
  ReductionsToGPUOptions reductions;
  reductions.fuse = options.fuse;
  reductions.sms = options.sms;
  reductions.vectorBytes = options.simtVectorBytes;
  pm.addNestedPass<func::FuncOp>(createReductionsToGPU(reductions));
  // Transposes that only loop nests read (a bias gradient over a head
  // merge): the loops read the transpose's input.
  pm.addNestedPass<func::FuncOp>(createFoldTransposesIntoLoads());
  // Row-wise chains (softmax, layer norm): one kernel, a team per row.
  RowsToGPUOptions rows;
  rows.maxOps = options.fuse;
  rows.registerColumns = options.registerColumns;
  pm.addNestedPass<func::FuncOp>(createRowsToGPU(rows));
  // Outline the Tensor Core kernels first: canonicalization would hoist
  // their constants out of gpu.launch and pass them as kernel arguments.
  parseInto(pm, "gpu-kernel-outlining");
  // SIMT kernels: a thread per iteration of each parallel loop, or per
  // vector of iterations of its innermost dimension, up to `fuse`
  // independent loops per kernel.
  parseInto(pm, "func.func(convert-linalg-to-parallel-loops),canonicalize");
  ParallelLoopsToGPUOptions simt;
  simt.fuse = options.fuse;
  simt.vectorBytes = options.simtVectorBytes;
  pm.addNestedPass<func::FuncOp>(createParallelLoopsToGPU(simt));
  pm.addNestedPass<func::FuncOp>(createGPUHostMemory());
  // Buffers whose lifetimes do not overlap share memory.
  pm.addNestedPass<func::FuncOp>(createGPUReuseBuffers());
  parseInto(pm, "lower-affine,gpu-kernel-outlining");
  // Buffer arguments must be 16-byte aligned: checked on entry.
  pm.addPass(createGPUCheckAlignment());
}

template void
mpt::buildGPUKernelsPipeline(OpPassManager &,
                             const GPUKernelOptions<LowerToNVVMOptions> &);
template void
mpt::buildGPUKernelsPipeline(OpPassManager &,
                             const GPUKernelOptions<EmulateGPUOptions> &);

void mpt::buildLowerToNVVMPipeline(OpPassManager &pm,
                                   const LowerToNVVMOptions &options) {
  buildGPUKernelsPipeline(pm, options);
  // The kernels' loops become branches here. The wgmma accumulators
  // (sm_90a) are loop-carried nvgpu values, which the nvgpu conversion
  // converts only on scf.for (structurally): convert them first. WMMA
  // fragments (before sm_80), in turn, are converted only once the loops are
  // branches; there the nvgpu conversion runs later, with the host's.
  unsigned sm = chipNumber(options.chip);
  bool beforeAmpere = sm && sm < 80;
  parseInto(pm, std::string("gpu.module(") +
                    (beforeAmpere ? "" : "convert-nvgpu-to-nvvm,") +
                    "convert-scf-to-cf),canonicalize,cse,"
                    "func.func(gpu-async-region)");
  // The device's SM count (persistent grids) from the runtime, once per
  // function, or device-sms: after gpu-async-region, to which the call is a
  // host op with effects.
  LowerSmCountOptions device;
  device.sms = options.deviceSms;
  pm.addPass(createLowerSmCount(device));
  // Upstream's gpu-lower-to-nvvm-pipeline, spelled out so that
  // gpu-module-to-binary gets the CUDA toolkit (libdevice for the math
  // functions of the SIMT kernels, ptxas for cubins).
  std::string toolkit = findCUDAToolkit(options.toolkit);
  std::string features = ptxFeature(options.chip, options.ptx);
  parseInto(pm, "convert-nvgpu-to-nvvm,convert-vector-to-scf,"
                "convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,"
                "expand-strided-metadata");
  parseInto(pm, "nvvm-attach-target{chip=" + options.chip + " features=" +
                    features + " O=" + std::to_string(options.optLevel) + "}");
  parseInto(pm, "lower-affine,convert-arith-to-llvm,convert-index-to-llvm,"
                "canonicalize,cse,"
                "gpu.module(strip-debuginfo,convert-gpu-to-nvvm,canonicalize,"
                "cse,reconcile-unrealized-casts),"
                "gpu-to-llvm");
  parseInto(pm, "gpu-module-to-binary{format=" + options.format +
                    (toolkit.empty() ? std::string() : " toolkit=" + toolkit) +
                    "}");
  parseInto(pm, "convert-math-to-llvm,canonicalize,cse,"
                "reconcile-unrealized-casts");
}

void mpt::registerLowerToNVVMPipeline() {
  PassPipelineRegistration<LowerToNVVMOptions>(
      "mpt-lower-to-nvvm",
      "Lower an mpt program to NVVM: Tensor Core kernels for low-precision "
      "matmuls, SIMT kernels for the rest, host code calling the mgpu* "
      "runtime, PTX/cubin/fatbin",
      buildLowerToNVVMPipeline);
}
