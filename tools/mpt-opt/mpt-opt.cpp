//===- mpt-opt.cpp - the mpt optimizer driver -----------------------------===//
//
// An mlir-opt style driver with the mpt dialect, the upstream dialects that
// mpt programs and their lowerings use, and the passes of the project.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/Transforms/Targets.h"
#include "mpt/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // `--mpt-list-targets` prints the GPU support matrix and exits.
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]) == "--mpt-list-targets") {
      mpt::printGpuTargetTable(llvm::outs());
      return 0;
    }

  mlir::DialectRegistry registry;
  mpt::registerAllDialects(registry);
  mpt::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mpt optimizer driver: mixed-precision training graphs\n",
      registry));
}
