//===- MPTDialect.h - the mpt dialect ---------------------------*- C++ -*-===//
//
// The dialect class and its attributes (roles, layouts).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_MPTDIALECT_H
#define MPT_DIALECT_MPT_IR_MPTDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Dialect.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h.inc"
#include "mpt/Dialect/MPT/IR/MPTEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mpt/Dialect/MPT/IR/MPTAttrs.h.inc"

namespace mlir {
class FunctionOpInterface;
} // namespace mlir

namespace mpt {

/// The role of argument `index` of `func`, if it has one.
std::optional<Role> getArgumentRole(mlir::FunctionOpInterface func,
                                    unsigned index);
/// The role of result `index` of `func`, if it has one.
std::optional<Role> getResultRole(mlir::FunctionOpInterface func,
                                  unsigned index);
/// Sets the role of argument `index` of `func`.
void setArgumentRole(mlir::FunctionOpInterface func, unsigned index, Role role);
/// Sets the role of result `index` of `func`.
void setResultRole(mlir::FunctionOpInterface func, unsigned index, Role role);

} // namespace mpt

#endif // MPT_DIALECT_MPT_IR_MPTDIALECT_H
