//===- Dialects.cpp - C API of the mpt dialect and passes -----------------===//

#include "mpt-c/Dialects.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(MPT, mpt, mpt::MPTDialect)

void mptRegisterAllDialects(MlirDialectRegistry registry) {
  mpt::registerAllDialects(*unwrap(registry));
}

void mptRegisterAllPasses(void) { mpt::registerAllPasses(); }
