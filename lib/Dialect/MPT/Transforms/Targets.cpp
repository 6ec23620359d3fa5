//===- Targets.cpp - the GPU support matrix -------------------------------===//
//
// Sources: NVIDIA's PTX ISA (mma/wmma/wgmma/tcgen05 shapes and types per
// architecture) and the CUDA programming guide's compute capability tables.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/Transforms/Targets.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mpt;

static const GpuTarget kTargets[] = {
    {"sm_60", "Pascal", "P100", false, false, false, false, false,
     "none (fp16 arithmetic on CUDA cores)", "f16"},
    {"sm_70", "Volta", "V100", true, false, false, false, false,
     "wmma m16n16k16, mma.sync m8n8k4", "f16"},
    {"sm_75", "Turing", "T4, RTX 20", true, false, false, false, true,
     "wmma m16n16k16, mma.sync m16n8k8", "f16"},
    {"sm_80", "Ampere", "A100", true, true, true, false, true,
     "mma.sync m16n8k16 (+ldmatrix, cp.async)", "bf16"},
    {"sm_86", "Ampere", "RTX 30, A10, A40", true, true, true, false, true,
     "mma.sync m16n8k16 (+ldmatrix, cp.async)", "bf16"},
    {"sm_89", "Ada", "L4, L40, RTX 40", true, true, true, true, true,
     "mma.sync m16n8k16, fp8 m16n8k32", "bf16"},
    {"sm_90", "Hopper", "H100, H200", true, true, true, true, true,
     "wgmma m64nNk16 (sm_90a), TMA, mma.sync", "bf16"},
    {"sm_100", "Blackwell", "B200", true, true, true, true, true,
     "tcgen05.mma (+fp6, fp4), TMA", "bf16"},
};

llvm::ArrayRef<GpuTarget> mpt::getGpuTargets() { return kTargets; }

const GpuTarget *mpt::lookupGpuTarget(llvm::StringRef name) {
  for (const GpuTarget &target : kTargets)
    if (target.name == name)
      return &target;
  return nullptr;
}

void mpt::printGpuTargetTable(llvm::raw_ostream &os) {
  auto yes = [](bool b) { return b ? "yes" : "-"; };
  os << llvm::format("%-7s %-10s %-17s %-5s %-5s %-5s %-4s %-5s %-8s %s\n",
                     "target", "arch", "examples", "fp16", "bf16", "tf32",
                     "fp8", "int8", "default", "Tensor Core instructions");
  for (const GpuTarget &t : kTargets)
    os << llvm::format(
        "%-7s %-10s %-17s %-5s %-5s %-5s %-4s %-5s %-8s %s\n", t.name.data(),
        t.arch.data(), t.examples.data(), yes(t.fp16TensorCores),
        yes(t.bf16TensorCores), yes(t.tf32TensorCores), yes(t.fp8TensorCores),
        yes(t.int8TensorCores), t.defaultType.data(), t.instructions.data());
}
