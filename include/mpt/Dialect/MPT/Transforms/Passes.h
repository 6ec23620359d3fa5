//===- Passes.h - mpt transformation passes ---------------------*- C++ -*-===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_PASSES_H
#define MPT_DIALECT_MPT_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mpt {

#define GEN_PASS_DECL
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_PASSES_H
