//===- MPTDialect.cpp - the mpt dialect -----------------------------------===//
//
// Dialect registration, constant materialization, and the verification of the
// `mpt.role` argument and result attributes.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mpt;

#include "mpt/Dialect/MPT/IR/MPTDialect.cpp.inc"
#include "mpt/Dialect/MPT/IR/MPTEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mpt/Dialect/MPT/IR/MPTAttrs.cpp.inc"

void MPTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mpt/Dialect/MPT/IR/MPTOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mpt/Dialect/MPT/IR/MPTAttrs.cpp.inc"
      >();
}

Operation *MPTDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

/// Verifies an `mpt.*` attribute on a function argument or result.
static LogicalResult verifyValueAttribute(Operation *op, StringRef where,
                                          unsigned index, NamedAttribute attr) {
  if (attr.getName() == MPTDialect::getLogicalShapeAttrName()) {
    if (!isa<DenseI64ArrayAttr>(attr.getValue()))
      return op->emitError()
             << "'" << MPTDialect::getLogicalShapeAttrName() << "' on " << where
             << " #" << index
             << " must be an array of sizes such as array<i64: 128, 10>";
    return success();
  }
  if (attr.getName() == MPTDialect::getInitialValueAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    auto value = dyn_cast<DenseElementsAttr>(attr.getValue());
    if (where != "argument" || !func)
      return op->emitError()
             << "'" << MPTDialect::getInitialValueAttrName()
             << "' is an attribute of function arguments, not of " << where
             << " #" << index;
    // Checked by shape and element type: bufferization makes the argument
    // a memref of the same shape.
    Type argType = func.getArgumentTypes()[index];
    auto shaped = dyn_cast<ShapedType>(argType);
    if (!value || !shaped || !shaped.hasRank() ||
        shaped.getShape() != value.getType().getShape() ||
        shaped.getElementType() != value.getElementType())
      return op->emitError()
             << "'" << MPTDialect::getInitialValueAttrName()
             << "' on argument #" << index
             << " must be a dense elements attribute of the argument's type "
             << argType << ", got " << attr.getValue();
    return success();
  }
  if (attr.getName() != MPTDialect::getRoleAttrName())
    return op->emitError() << "unknown attribute '" << attr.getName().str()
                           << "' on " << where << " #" << index
                           << "; the mpt dialect defines '"
                           << MPTDialect::getRoleAttrName() << "', '"
                           << MPTDialect::getLogicalShapeAttrName() << "' and '"
                           << MPTDialect::getInitialValueAttrName() << "'";
  if (!isa<RoleAttr>(attr.getValue()))
    return op->emitError()
           << "'" << MPTDialect::getRoleAttrName() << "' on " << where << " #"
           << index << " must be a role such as #mpt.role<parameter>, got "
           << attr.getValue();
  return success();
}

LogicalResult MPTDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  return verifyValueAttribute(op, "argument", argIndex, attr);
}

LogicalResult MPTDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  return verifyValueAttribute(op, "result", resultIndex, attr);
}

LogicalResult MPTDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getTmaStoreAttrName()) {
    if (op->getName().getStringRef() != "nvgpu.tma.create.descriptor" ||
        !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getTmaStoreAttrName()
             << "' is a unit attribute of nvgpu.tma.create.descriptor (a "
                "tensor map that a kernel stores through), not of '"
             << op->getName() << "' with value " << attr.getValue();
    return success();
  }
  if (attr.getName() == getRecomputedAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getRecomputedAttrName()
             << "' is a unit attribute (an op the backward pass recomputes), "
                "got "
             << attr.getValue();
    return success();
  }
  if (attr.getName() != getPrecisionAttrName())
    return op->emitError() << "unknown attribute '" << attr.getName().str()
                           << "' on an operation; the mpt dialect defines "
                              "only '"
                           << getPrecisionAttrName() << "', '"
                           << getRecomputedAttrName() << "' and '"
                           << getTmaStoreAttrName() << "' on operations";
  if (!isa<PrecisionAttr>(attr.getValue()))
    return op->emitError() << "'" << getPrecisionAttrName()
                           << "' must be #mpt.precision<fp32> or "
                              "#mpt.precision<low>, got "
                           << attr.getValue();
  return success();
}

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

std::optional<Role> mpt::getArgumentRole(FunctionOpInterface func,
                                         unsigned index) {
  if (auto role =
          func.getArgAttrOfType<RoleAttr>(index, MPTDialect::getRoleAttrName()))
    return role.getValue();
  return std::nullopt;
}

std::optional<Role> mpt::getResultRole(FunctionOpInterface func,
                                       unsigned index) {
  if (auto role = func.getResultAttrOfType<RoleAttr>(
          index, MPTDialect::getRoleAttrName()))
    return role.getValue();
  return std::nullopt;
}

void mpt::setArgumentRole(FunctionOpInterface func, unsigned index, Role role) {
  func.setArgAttr(index, MPTDialect::getRoleAttrName(),
                  RoleAttr::get(func->getContext(), role));
}

void mpt::setResultRole(FunctionOpInterface func, unsigned index, Role role) {
  func.setResultAttr(index, MPTDialect::getRoleAttrName(),
                     RoleAttr::get(func->getContext(), role));
}
