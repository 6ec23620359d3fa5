//===- Targets.h - the GPU support matrix -----------------------*- C++ -*-===//
//
// Which NVIDIA architectures have which Tensor Core types, and the default
// low-precision type mpt picks for each.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_TARGETS_H
#define MPT_DIALECT_MPT_TRANSFORMS_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mpt {

struct GpuTarget {
  llvm::StringLiteral name;     // sm_80
  llvm::StringLiteral arch;     // Ampere
  llvm::StringLiteral examples; // A100
  bool fp16TensorCores;
  bool bf16TensorCores;
  bool tf32TensorCores;
  bool fp8TensorCores;
  bool int8TensorCores;
  llvm::StringLiteral instructions; // Tensor Core instruction shapes
  llvm::StringLiteral defaultType;  // f16 or bf16
};

/// Every supported target, oldest first.
llvm::ArrayRef<GpuTarget> getGpuTargets();

/// The target named `name`, or null.
const GpuTarget *lookupGpuTarget(llvm::StringRef name);

/// Prints the support matrix as a table (`mpt-opt --mpt-list-targets`).
void printGpuTargetTable(llvm::raw_ostream &os);

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_TARGETS_H
