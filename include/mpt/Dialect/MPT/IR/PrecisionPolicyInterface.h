//===- PrecisionPolicyInterface.h - op precision classes --------*- C++ -*-===//

#ifndef MPT_DIALECT_MPT_IR_PRECISIONPOLICYINTERFACE_H
#define MPT_DIALECT_MPT_IR_PRECISIONPOLICYINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mpt/Dialect/MPT/IR/PrecisionPolicyInterface.h.inc"

#endif // MPT_DIALECT_MPT_IR_PRECISIONPOLICYINTERFACE_H
