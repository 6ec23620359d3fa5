//===- PrecisionPolicyInterface.td - op precision classes ---*- tablegen -*-===//
//
// The interface through which the auto-mixed-precision pass learns, for any
// op of any dialect, which precision class it belongs to and which of its
// operands and results change type when it runs in low precision.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_PRECISIONPOLICYINTERFACE_TD
#define MPT_DIALECT_MPT_IR_PRECISIONPOLICYINTERFACE_TD

include "mlir/IR/OpBase.td"

def MPT_PrecisionPolicyOpInterface : OpInterface<"PrecisionPolicyOpInterface"> {
  let cppNamespace = "::mpt";
  let description = [{
    The precision class of an op for `mpt-auto-mixed-precision`:
    - `allow`: Tensor Core ops that are fast and safe in half precision
      (matmul, convolution);
    - `deny`: ops that need fp32 range or precision (exp, log, pow, large
      reductions, log_softmax, layer norm, losses);
    - `infer`: ops that are safe either way and follow their neighbours
      (add, mul, tanh, ..., and softmax and batch norm, whose exp, sums and
      statistics are f32 inside the op whatever the data type);
    - `clear`: exact data movement and order-preserving ops (reshape,
      transpose, relu, max, ...).

    Every mpt op implements it; upstream tosa, arith, math and linalg ops get
    it as an external model, so the pass also runs on their graphs.
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/"The default precision class of this op.",
      /*retType=*/"::mpt::PrecisionClass",
      /*methodName=*/"getPrecisionClass">,
    InterfaceMethod<
      /*desc=*/[{Whether operand `index` takes the low-precision type when
                 the op runs in low precision (default: every float tensor
                 operand).}],
      /*retType=*/"bool",
      /*methodName=*/"isLowPrecisionOperand",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        auto type = ::llvm::dyn_cast<::mlir::RankedTensorType>(
            $_op->getOperand(index).getType());
        return type && ::llvm::isa<::mlir::FloatType>(type.getElementType());
      }]>,
    InterfaceMethod<
      /*desc=*/[{Whether result `index` takes the low-precision type when the
                 op runs in low precision (default: every float tensor
                 result). Contractions that accumulate into an fp32 output
                 keep it.}],
      /*retType=*/"bool",
      /*methodName=*/"isLowPrecisionResult",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        auto type = ::llvm::dyn_cast<::mlir::RankedTensorType>(
            $_op->getResult(index).getType());
        return type && ::llvm::isa<::mlir::FloatType>(type.getElementType());
      }]>,
    InterfaceMethod<
      /*desc=*/[{Whether the op, when it stays in fp32, reads operand `index`
                 in the low-precision type as well: it widens the operand as
                 it reads it and computes in fp32 anyway (a loss reading
                 half-precision logits), so that no cast, and no fp32 copy of
                 the operand, is made (default: none).}],
      /*retType=*/"bool",
      /*methodName=*/"widensLowPrecisionOperand",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return false;">,
    InterfaceMethod<
      /*desc=*/[{Records that the op, now in low precision, accumulates in
                 `type` (a no-op for ops that do not accumulate).}],
      /*retType=*/"void",
      /*methodName=*/"setAccumulatorType",
      /*args=*/(ins "::mlir::Type":$type),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return;">,
    InterfaceMethod<
      /*desc=*/[{Called once the op's operands and results have their low
                 types: adjusts what depends on them (typed attributes, an
                 implicit body) and returns the op, or the op that replaced
                 it.}],
      /*retType=*/"::mlir::Operation *",
      /*methodName=*/"finalizeLowPrecision",
      /*args=*/(ins "::mlir::OpBuilder &":$builder),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return $_op;">
  ];
}

#endif // MPT_DIALECT_MPT_IR_PRECISIONPOLICYINTERFACE_TD
