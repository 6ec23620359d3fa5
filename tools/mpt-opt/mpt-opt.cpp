//===- mpt-opt.cpp - the mpt optimizer driver -----------------------------===//
//
// An mlir-opt style driver with the mpt dialect, the upstream dialects that
// mpt programs and their lowerings use, and the passes of the project.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/PrecisionPolicy.h"
#include "mpt/Dialect/MPT/Transforms/Targets.h"
#include "mpt/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

/// Prints the default class lists as a Markdown table.
static void printPrecisionPolicy(llvm::raw_ostream &os) {
  os << "| op | class | reason |\n| --- | --- | --- |\n";
  for (auto table :
       {mpt::getMPTPrecisionPolicy(), mpt::getUpstreamPrecisionPolicy()})
    for (const mpt::PrecisionPolicyEntry &entry : table)
      os << "| `" << entry.opName << "` | "
         << mpt::stringifyPrecisionClass(entry.precisionClass) << " | "
         << entry.reason << " |\n";
}

int main(int argc, char **argv) {
  // Informational flags: print and exit.
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--mpt-list-targets") {
      mpt::printGpuTargetTable(llvm::outs());
      return 0;
    }
    if (arg == "--mpt-list-precision-policy") {
      printPrecisionPolicy(llvm::outs());
      return 0;
    }
  }

  mlir::DialectRegistry registry;
  mpt::registerAllDialects(registry);
  mpt::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mpt optimizer driver: mixed-precision training graphs\n",
      registry));
}
