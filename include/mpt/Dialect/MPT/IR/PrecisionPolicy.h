//===- PrecisionPolicy.h - default precision classes ------------*- C++ -*-===//
//
// The default precision class of every mpt op and of the upstream ops that
// get the precision-policy interface as an external model, with the reason
// for each.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_PRECISIONPOLICY_H
#define MPT_DIALECT_MPT_IR_PRECISIONPOLICY_H

#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mpt {

/// One entry of a default class list.
struct PrecisionPolicyEntry {
  llvm::StringLiteral opName;
  PrecisionClass precisionClass;
  llvm::StringLiteral reason;
};

/// The class `table` gives the op named `name`; every op looked up has an
/// entry.
PrecisionClass lookupPrecisionClass(llvm::ArrayRef<PrecisionPolicyEntry> table,
                                    llvm::StringRef name);

/// The default classes of the mpt ops.
llvm::ArrayRef<PrecisionPolicyEntry> getMPTPrecisionPolicy();

/// The default classes of the upstream ops (tosa, arith, math, linalg) that
/// get the interface as an external model.
llvm::ArrayRef<PrecisionPolicyEntry> getUpstreamPrecisionPolicy();

/// Attaches the precision-policy interface to the upstream ops listed in
/// getUpstreamPrecisionPolicy().
void registerPrecisionPolicyExternalModels(mlir::DialectRegistry &registry);

} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_PRECISIONPOLICY_H
