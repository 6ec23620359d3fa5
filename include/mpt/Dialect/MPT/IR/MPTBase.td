//===- MPTBase.td - mpt dialect definition, types and attributes -*- tablegen -*-===//
//
// The dialect, the element type constraints and the enum attributes shared by
// the ops of mpt.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_IR_MPTBASE_TD
#define MPT_DIALECT_MPT_IR_MPTBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def MPT_Dialect : Dialect {
  let name = "mpt";
  let cppNamespace = "::mpt";
  let summary = "Training graphs for mixed-precision compilation";
  let description = [{
    The `mpt` dialect represents neural-network training graphs (forward,
    backward and optimizer update) on ranked tensors with value semantics.
    Precision is explicit: every value has one element type, operands of an
    op share their element type, and conversions are `mpt.cast` ops, so the
    mixed-precision passes can reason about every rounding in the program.

    Function arguments and results carry their role in training as the
    `mpt.role` attribute (`#mpt.role<parameter>`, `#mpt.role<input>`, ...),
    so passes find the parameters, the inputs and the labels without
    guessing.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The name of the argument/result attribute that holds an `mpt::RoleAttr`.
    static constexpr ::llvm::StringLiteral getRoleAttrName() {
      return ::llvm::StringLiteral("mpt.role");
    }
    /// The name of the argument attribute that holds the real (unpadded)
    /// shape of an argument padded for Tensor Cores.
    static constexpr ::llvm::StringLiteral getLogicalShapeAttrName() {
      return ::llvm::StringLiteral("mpt.logical_shape");
    }
    /// The name of the argument attribute that holds the value a training
    /// state argument (such as the loss scale) starts from.
    static constexpr ::llvm::StringLiteral getInitialValueAttrName() {
      return ::llvm::StringLiteral("mpt.initial_value");
    }
    /// The name of the op attribute that holds an `mpt::PrecisionAttr`.
    static constexpr ::llvm::StringLiteral getPrecisionAttrName() {
      return ::llvm::StringLiteral("mpt.precision");
    }
    /// The name of the unit attribute of an op that the backward pass
    /// computes again instead of keeping the forward pass's result
    /// (mpt-recompute-activations): it keeps the copy apart from the
    /// original, which CSE would otherwise merge it back into.
    static constexpr ::llvm::StringLiteral getRecomputedAttrName() {
      return ::llvm::StringLiteral("mpt.recomputed");
    }
    /// The name of the unit attribute of a TMA descriptor
    /// (`nvgpu.tma.create.descriptor`) that a kernel stores through: the
    /// kernel writes its tensor (mpt-linalg-to-tensor-cores).
    static constexpr ::llvm::StringLiteral getTmaStoreAttrName() {
      return ::llvm::StringLiteral("mpt.tma_store");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Floating-point element types of mpt data. f64 is accepted so that gradients
/// can be checked against finite differences in double precision.
def MPT_Float : AnyTypeOf<[F64, F32, F16, BF16, F8E4M3FN, F8E5M2],
                          "floating-point (f64, f32, f16, bf16, f8E4M3FN or f8E5M2)">;
def MPT_Integer : AnyTypeOf<[AnySignlessInteger]>;

def MPT_FloatTensor : RankedTensorOf<[MPT_Float]>;
def MPT_IntegerTensor : RankedTensorOf<[MPT_Integer]>;
def MPT_Tensor : RankedTensorOf<[MPT_Float, MPT_Integer]>;
def MPT_ScalarFloatTensor : 0DTensorOf<[MPT_Float]>;
/// Rank-0 f32, i32 and i1 tensors: the loss scale state and flags.
def MPT_F32Scalar : 0DTensorOf<[F32]> {
  let builderCall =
      "::mlir::RankedTensorType::get({}, $_builder.getF32Type())";
}
def MPT_I32Scalar : 0DTensorOf<[I32]> {
  let builderCall =
      "::mlir::RankedTensorType::get({}, $_builder.getI32Type())";
}
def MPT_I1Scalar : 0DTensorOf<[I1]> {
  let builderCall =
      "::mlir::RankedTensorType::get({}, $_builder.getI1Type())";
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def MPT_RoleEnum : I32EnumAttr<"Role", "role of a function argument or result", [
    I32EnumAttrCase<"parameter", 0>,
    I32EnumAttrCase<"input", 1>,
    I32EnumAttrCase<"label", 2>,
    I32EnumAttrCase<"loss", 3>,
    I32EnumAttrCase<"gradient", 4>,
    I32EnumAttrCase<"optimizer_state", 5>,
    I32EnumAttrCase<"loss_scale_state", 6>,
    I32EnumAttrCase<"parameter_copy", 7>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mpt";
}

def MPT_RoleAttr : EnumAttr<MPT_Dialect, MPT_RoleEnum, "role"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Role of a function argument or result in training";
}

def MPT_LayoutEnum : I32EnumAttr<"Layout", "data layout of images", [
    I32EnumAttrCase<"nchw", 0>,
    I32EnumAttrCase<"nhwc", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mpt";
}

def MPT_LayoutAttr : EnumAttr<MPT_Dialect, MPT_LayoutEnum, "layout"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Image layout: NCHW (filters FCHW) or NHWC (filters HWCF)";
}

def MPT_GeluApproximationEnum : I32EnumAttr<"GeluApproximation",
    "approximation used by gelu", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"tanh", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mpt";
}

def MPT_GeluApproximationAttr : EnumAttr<MPT_Dialect, MPT_GeluApproximationEnum,
                                         "approximation"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Exact (erf) or tanh-approximated gelu";
}

def MPT_PrecisionClassEnum : I32EnumAttr<"PrecisionClass",
    "precision class of an op for the auto-mixed-precision pass", [
    I32EnumAttrCase<"allow", 0>,
    I32EnumAttrCase<"deny", 1>,
    I32EnumAttrCase<"infer", 2>,
    I32EnumAttrCase<"clear", 3>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mpt";
}

def MPT_PrecisionEnum : I32EnumAttr<"Precision",
    "precision forced on one op", [
    I32EnumAttrCase<"fp32", 0>,
    I32EnumAttrCase<"low", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mpt";
}

def MPT_PrecisionAttr : EnumAttr<MPT_Dialect, MPT_PrecisionEnum, "precision"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Precision forced on one op: fp32, or the low type of the pass";
  let description = [{
    Set as `mpt.precision = #mpt.precision<fp32>` (or `<low>`) on any op to
    override the auto-mixed-precision pass's decision for that op: `fp32`
    treats the op as deny, `low` as allow.
  }];
}

#endif // MPT_DIALECT_MPT_IR_MPTBASE_TD
