//===- mpt-opt.cpp - the mpt optimizer driver -----------------------------===//
//
// An mlir-opt style driver with the mpt dialect, the upstream dialects that
// mpt programs and their lowerings use, and the passes of the project.
//
//===----------------------------------------------------------------------===//

#include "mpt/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mpt::registerAllDialects(registry);
  mpt::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mpt optimizer driver: mixed-precision training graphs\n",
      registry));
}
