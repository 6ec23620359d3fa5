/* Uses the installed C API: registers the dialects and parses a program. */
#include "mpt-c/Dialects.h"

#include <stdio.h>

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mptRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @f(%x: tensor<4xf16>) -> tensor<4xf16> {\n"
               "  %y = mpt.exp %x : tensor<4xf16>\n"
               "  return %y : tensor<4xf16>\n}\n"));
  printf("C API parsed: %d\n", !mlirModuleIsNull(module));
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
