//===- Pipelines.h - mpt lowering pipelines ---------------------*- C++ -*-===//

#ifndef MPT_CONVERSION_PIPELINES_H
#define MPT_CONVERSION_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mpt {

/// mpt-lower-to-cpu: convert-mpt-to-linalg, bufferization, loops, LLVM.
void buildLowerToCPUPipeline(mlir::OpPassManager &pm);

void registerLowerToCPUPipeline();

/// The kernel options that mpt-lower-to-nvvm and mpt-emulate-gpu share:
/// those of mpt-linalg-to-tensor-cores, which both hand on to it.
template <typename Derived>
struct GPUKernelOptions : public mlir::PassPipelineOptions<Derived> {
  template <typename T>
  using Opt = mlir::detail::PassOptions::Option<T>;
  Opt<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU architecture: sm_70, sm_75, sm_80, sm_86, sm_89, "
                     "sm_90, sm_90a"),
      llvm::cl::init("sm_80")};
  Opt<std::string> blockTile{
      *this, "block-tile",
      llvm::cl::desc("Tensor Core block tile BMxBNxBK (default: by shape)"),
      llvm::cl::init("")};
  Opt<std::string> warpTile{
      *this, "warp-tile",
      llvm::cl::desc("Tensor Core warp tile WMxWN (default: by shape)"),
      llvm::cl::init("")};
  Opt<bool> tf32{*this, "tf32",
                 llvm::cl::desc("f32 matmuls on Tensor Cores with operands "
                                "rounded to tf32 (sm_80+)"),
                 llvm::cl::init(false)};
  Opt<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("Tensor Core shared-memory pipeline stages (default 0: "
                     "by kernel)"),
      llvm::cl::init(0)};
  Opt<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("wgmma kernels (sm_90a) with a producer warpgroup for "
                     "the TMA copies"),
      llvm::cl::init(false)};
  Opt<bool> persistent{
      *this, "persistent",
      llvm::cl::desc("wgmma kernels (sm_90a) as persistent warp-specialized "
                     "kernels: a block per SM of the device at run time, "
                     "each loops over tiles"),
      llvm::cl::init(false)};
  Opt<bool> tmaStore{
      *this, "tma-store",
      llvm::cl::desc("Persistent wgmma kernels (sm_90a) that store their "
                     "outputs through shared memory with TMA (implies "
                     "persistent)"),
      llvm::cl::init(false)};
  Opt<bool> pingpong{
      *this, "pingpong",
      llvm::cl::desc("Persistent wgmma kernels (sm_90a) whose two consumer "
                     "warpgroups take alternate tiles (implies persistent)"),
      llvm::cl::init(false)};
  Opt<int64_t> clusterM{
      *this, "cluster-m",
      llvm::cl::desc("wgmma kernels (sm_90a) in thread-block clusters of this "
                     "many blocks along M that share B's tiles through TMA "
                     "multicast (1 or 2; 2 implies warp-specialize)"),
      llvm::cl::init(1)};
  Opt<int64_t> clusterN{
      *this, "cluster-n",
      llvm::cl::desc("wgmma kernels (sm_90a) in thread-block clusters of this "
                     "many blocks along N that share A's tiles through TMA "
                     "multicast (1 or 2; 2 implies warp-specialize)"),
      llvm::cl::init(1)};
  Opt<int64_t> groupM{
      *this, "group-m",
      llvm::cl::desc("Tensor Core kernels take their tiles in groups of this "
                     "many rows of tiles, for L2 reuse (1: row by row)"),
      llvm::cl::init(8)};
  Opt<int64_t> fuse{
      *this, "fuse",
      llvm::cl::desc("SIMT kernels: at most this many independent consecutive "
                     "loops share one kernel (1: one loop per kernel)"),
      llvm::cl::init(16)};
  Opt<int64_t> simtVectorBytes{
      *this, "simt-vector-bytes",
      llvm::cl::desc("SIMT and whole-tensor reduction kernels: a thread "
                     "runs consecutive iterations of a loop's innermost "
                     "dimension, loading and storing up to this many bytes "
                     "at once (1, 2, 4, 8 or 16; 1: one iteration a thread); "
                     "the tiled SIMT matmul stages and reads vectors of up "
                     "to this many bytes of f32"),
      llvm::cl::init(16)};
  Opt<int64_t> registerColumns{
      *this, "register-columns",
      llvm::cl::desc("Row kernels (softmax, layer norm): keep the values "
                     "their ops pass on in registers where a lane takes at "
                     "most this many columns of a row, and per-row values "
                     "unless 0 (0: through memory)"),
      llvm::cl::init(8)};
  Opt<int64_t> sms{
      *this, "sms",
      llvm::cl::desc("Streaming multiprocessors of the target GPU, which the "
                     "tile choices aim to fill (default 132: H100/H200 SXM; "
                     "persistent grids follow the device's count at run "
                     "time)"),
      llvm::cl::init(132)};
  Opt<bool> columnSums{
      *this, "column-sums",
      llvm::cl::desc("sm_80 and later: the column sums of a matmul's B (a "
                     "bias gradient) in the matmul's Tensor Core kernel, "
                     "not a reduction kernel of their own"),
      llvm::cl::init(true)};
  Opt<bool> castOnLoad{
      *this, "cast-on-load",
      llvm::cl::desc("Small matmuls (at most 2^30 multiply-adds) read the "
                     "f32 input of the cast that made an f16/bf16 operand "
                     "and round it as they load (mma.sync; on sm_90a "
                     "instead of wgmma): no working copy"),
      llvm::cl::init(true)};
  Opt<int64_t> splitK{
      *this, "split-k",
      llvm::cl::desc("Matmuls whose output has too few tiles for `sms` SMs "
                     "as a batch over up to this many slices of K, summed "
                     "in f32 (mpt-split-k; 1: none)"),
      llvm::cl::init(1)};
  Opt<int64_t> deviceSms{
      *this, "device-sms",
      llvm::cl::desc("Streaming multiprocessors that host code takes for "
                     "the device (mpt.sm_count: the grids of persistent "
                     "kernels): 0 asks the device when the program runs "
                     "(mpt-lower-to-nvvm) or takes `sms` (the emulated "
                     "device of mpt-emulate-gpu); N > 0: N, fixed"),
      llvm::cl::init(0)};
};

struct LowerToNVVMOptions : public GPUKernelOptions<LowerToNVVMOptions> {
  Opt<std::string> ptx{
      *this, "ptx",
      llvm::cl::desc("PTX ISA version, e.g. 80 for 8.0 (default: the "
                     "chip's minimum)"),
      llvm::cl::init("")};
  Opt<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary: isa (PTX, no toolkit needed), bin "
                     "(cubin) or fatbin (both need ptxas)"),
      llvm::cl::init("isa")};
  Opt<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (libdevice, ptxas); default: $CUDA_ROOT, "
                     "$CUDA_HOME, $CUDA_PATH or /usr/local/cuda"),
      llvm::cl::init("")};
  Opt<int> optLevel{*this, "opt-level",
                    llvm::cl::desc("Optimization level of the kernels"),
                    llvm::cl::init(3)};
};

struct EmulateGPUOptions : public GPUKernelOptions<EmulateGPUOptions> {
  Opt<bool> traffic{
      *this, "traffic",
      llvm::cl::desc("Count the bytes and instructions with which each "
                     "kernel's threads load from and store to device memory "
                     "(printed per kernel at exit)"),
      llvm::cl::init(false)};
  Opt<bool> banks{
      *this, "banks",
      llvm::cl::desc("Count the wavefronts and bank conflicts of each "
                     "kernel's shared memory accesses (printed per kernel "
                     "and access at exit)"),
      llvm::cl::init(false)};
};

/// The first part of mpt-lower-to-nvvm and mpt-emulate-gpu:
/// convert-mpt-to-linalg, bufferization, Tensor Core and SIMT kernels, host
/// memory, outlined gpu.func kernels launched by gpu.launch_func (before
/// NVVM). Instantiated for both pipelines' options.
template <typename Derived>
void buildGPUKernelsPipeline(mlir::OpPassManager &pm,
                             const GPUKernelOptions<Derived> &options);

/// mpt-lower-to-nvvm: convert-mpt-to-linalg, bufferization,
/// mpt-linalg-to-tensor-cores, mpt-parallel-loops-to-gpu for the other
/// loops, mpt-gpu-host-memory, kernel outlining, and the passes of upstream's
/// gpu-lower-to-nvvm-pipeline (NVVM, PTX and the binary, host code).
void buildLowerToNVVMPipeline(mlir::OpPassManager &pm,
                              const LowerToNVVMOptions &options);

void registerLowerToNVVMPipeline();

/// mpt-emulate-gpu: the kernels mpt-lower-to-nvvm builds for `chip`, as
/// host code for the CPU that runs them in mpt's GPU emulator
/// (mpt-gpu-emulation), lowered to the LLVM dialect like mpt-lower-to-cpu.
void buildEmulateGPUPipeline(mlir::OpPassManager &pm,
                             const EmulateGPUOptions &options);
void registerEmulateGPUPipeline();

} // namespace mpt

#endif // MPT_CONVERSION_PIPELINES_H
