/*===-- mpt-c/Dialects.h - C API of the mpt dialect and passes ----*- C -*-===*\
|*                                                                            *|
|* Registration of the mpt dialect and of mpt's passes for C and other        *|
|* language bindings.                                                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MPT_C_DIALECTS_H
#define MPT_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__mpt__(): the handle of the mpt dialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(MPT, mpt);

/* Adds the mpt dialect and the upstream dialects mpt programs use to
 * `registry`. */
MLIR_CAPI_EXPORTED void mptRegisterAllDialects(MlirDialectRegistry registry);

/* Registers mpt's passes and pipelines, and the upstream passes mpt uses, in
 * the global pass registry (so that mlirParsePassPipeline finds them). */
MLIR_CAPI_EXPORTED void mptRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* MPT_C_DIALECTS_H */
