// Parses an mpt program with the installed dialect and counts its mpt ops.
#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstdio>

int main() {
  mlir::DialectRegistry registry;
  mpt::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  const char *source = R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
      %y = mpt.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
      %r = mpt.relu %y : tensor<2x4xf32>
      return %r : tensor<2x4xf32>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return 1;
  int count = 0;
  module->walk([&](mlir::Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "mpt")
      ++count;
  });
  std::printf("mpt ops: %d\n", count);
  return 0;
}
