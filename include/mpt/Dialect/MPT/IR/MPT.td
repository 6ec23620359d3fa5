//===- MPT.td - the mpt dialect umbrella -------------------*- tablegen -*-===//

#ifndef MPT_DIALECT_MPT_IR_MPT_TD
#define MPT_DIALECT_MPT_IR_MPT_TD

include "mpt/Dialect/MPT/IR/MPTBase.td"
include "mpt/Dialect/MPT/IR/MPTOps.td"

#endif // MPT_DIALECT_MPT_IR_MPT_TD
