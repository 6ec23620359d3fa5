//===- PrecisionPolicyExternalModels.cpp - classes of upstream ops --------===//
//
// Attaches mpt::PrecisionPolicyOpInterface to tosa graph ops, arith/math
// elementwise float ops (on tensors) and linalg named contractions, so that
// mpt-auto-mixed-precision runs on their graphs too.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/IR/PrecisionPolicy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mpt;

static constexpr PrecisionClass kAllow = PrecisionClass::allow;
static constexpr PrecisionClass kDeny = PrecisionClass::deny;
static constexpr PrecisionClass kInfer = PrecisionClass::infer;
static constexpr PrecisionClass kClear = PrecisionClass::clear;

static const PrecisionPolicyEntry kUpstreamPolicy[] = {
    // tosa
    {"tosa.matmul", kAllow, "Tensor Core GEMM; f16 x f16 -> f32 output"},
    {"tosa.conv2d", kAllow, "Tensor Core convolution, acc_type f32"},
    {"tosa.conv3d", kAllow, "Tensor Core convolution, acc_type f32"},
    {"tosa.depthwise_conv2d", kAllow, "convolution, acc_type f32"},
    {"tosa.transpose_conv2d", kAllow, "convolution, acc_type f32"},
    {"tosa.exp", kDeny, "overflows f16 above x = 11.1"},
    {"tosa.log", kDeny, "loses precision near 1 and for tiny inputs"},
    {"tosa.pow", kDeny, "overflows and underflows quickly"},
    {"tosa.rsqrt", kDeny, "overflows f16 for tiny inputs"},
    {"tosa.reduce_sum", kDeny, "large sums lose precision and overflow"},
    {"tosa.reduce_product", kDeny, "products overflow and underflow"},
    {"tosa.add", kInfer, "rounds once; safe in either precision"},
    {"tosa.sub", kInfer, "rounds once; safe in either precision"},
    {"tosa.mul", kInfer, "rounds once; safe in either precision"},
    {"tosa.reciprocal", kInfer, "rounds once (TensorFlow: infer)"},
    {"tosa.tanh", kInfer, "bounded output"},
    {"tosa.sigmoid", kInfer, "bounded output"},
    {"tosa.erf", kInfer, "bounded output"},
    {"tosa.avg_pool2d", kInfer, "a small window mean"},
    {"tosa.clamp", kClear, "order-preserving"},
    {"tosa.maximum", kClear, "selects an input"},
    {"tosa.minimum", kClear, "selects an input"},
    {"tosa.reduce_max", kClear, "selects an input"},
    {"tosa.reduce_min", kClear, "selects an input"},
    {"tosa.max_pool2d", kClear, "selects an input"},
    {"tosa.abs", kClear, "exact"},
    {"tosa.negate", kClear, "exact"},
    {"tosa.select", kClear, "selects an input"},
    {"tosa.reshape", kClear, "data movement"},
    {"tosa.transpose", kClear, "data movement"},
    {"tosa.concat", kClear, "data movement"},
    {"tosa.slice", kClear, "data movement"},
    {"tosa.pad", kClear, "data movement"},
    {"tosa.tile", kClear, "data movement"},
    {"tosa.identity", kClear, "data movement"},
    {"tosa.gather", kClear, "gathers rows"},
    {"tosa.const", kClear, "converted at compile time when it fits"},
    // arith / math on tensors
    {"arith.addf", kInfer, "rounds once; safe in either precision"},
    {"arith.subf", kInfer, "rounds once; safe in either precision"},
    {"arith.mulf", kInfer, "rounds once; safe in either precision"},
    {"arith.divf", kInfer, "rounds once; safe in either precision"},
    {"arith.maximumf", kClear, "selects an input"},
    {"arith.minimumf", kClear, "selects an input"},
    {"arith.negf", kClear, "exact"},
    {"arith.constant", kClear, "converted at compile time when it fits"},
    {"math.exp", kDeny, "overflows f16 above x = 11.1"},
    {"math.exp2", kDeny, "overflows f16 above x = 16"},
    {"math.expm1", kDeny, "overflows f16 above x = 11.1"},
    {"math.log", kDeny, "loses precision near 1 and for tiny inputs"},
    {"math.log1p", kDeny, "loses precision for tiny inputs"},
    {"math.log2", kDeny, "loses precision near 1 and for tiny inputs"},
    {"math.powf", kDeny, "overflows and underflows quickly"},
    {"math.rsqrt", kDeny, "overflows f16 for tiny inputs"},
    {"math.sqrt", kInfer, "bounded relative error, no overflow"},
    {"math.tanh", kInfer, "bounded output"},
    {"math.erf", kInfer, "bounded output"},
    {"math.absf", kClear, "exact"},
    // linalg named contractions on tensors: inputs in low precision, the
    // output (the accumulator) stays fp32.
    {"linalg.matmul", kAllow, "Tensor Core GEMM; fp32 output accumulates"},
    {"linalg.batch_matmul", kAllow,
     "Tensor Core GEMM; fp32 output accumulates"},
    {"linalg.conv_2d_nchw_fchw", kAllow,
     "convolution; fp32 output accumulates"},
    {"linalg.conv_2d_nhwc_hwcf", kAllow,
     "convolution; fp32 output accumulates"},
};

ArrayRef<PrecisionPolicyEntry> mpt::getUpstreamPrecisionPolicy() {
  return kUpstreamPolicy;
}

static PrecisionClass lookupUpstreamClass(Operation *op) {
  return lookupPrecisionClass(kUpstreamPolicy, op->getName().getStringRef());
}

namespace {
/// An op whose class comes from kUpstreamPolicy; every float tensor operand
/// and result takes the low type.
template <typename OpTy>
struct TableModel
    : public PrecisionPolicyOpInterface::ExternalModel<TableModel<OpTy>, OpTy> {
  PrecisionClass getPrecisionClass(Operation *op) const {
    return lookupUpstreamClass(op);
  }
};

/// tosa.matmul: low-precision inputs, fp32 output.
template <typename OpTy>
struct FloatOutputModel
    : public PrecisionPolicyOpInterface::ExternalModel<FloatOutputModel<OpTy>,
                                                       OpTy> {
  PrecisionClass getPrecisionClass(Operation *op) const {
    return lookupUpstreamClass(op);
  }
  bool isLowPrecisionResult(Operation *, unsigned) const { return false; }
};

/// tosa convolutions: low-precision operands and result, accumulator type in
/// the `acc_type` attribute.
template <typename OpTy>
struct TosaConvModel
    : public PrecisionPolicyOpInterface::ExternalModel<TosaConvModel<OpTy>,
                                                       OpTy> {
  PrecisionClass getPrecisionClass(Operation *op) const {
    return lookupUpstreamClass(op);
  }
  void setAccumulatorType(Operation *op, Type type) const {
    op->setAttr("acc_type", TypeAttr::get(type));
  }
};

/// tosa.clamp: its bounds are attributes of the element type.
struct TosaClampModel
    : public PrecisionPolicyOpInterface::ExternalModel<TosaClampModel,
                                                       tosa::ClampOp> {
  PrecisionClass getPrecisionClass(Operation *op) const {
    return lookupUpstreamClass(op);
  }
  Operation *finalizeLowPrecision(Operation *op, OpBuilder &) const {
    auto clamp = cast<tosa::ClampOp>(op);
    auto type = cast<FloatType>(clamp.getType().getElementType());
    for (StringRef name : {"min_val", "max_val"}) {
      auto bound = op->getAttrOfType<FloatAttr>(name);
      if (!bound || bound.getType() == type)
        continue;
      APFloat value = bound.getValue();
      bool losesInfo;
      value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
      op->setAttr(name, FloatAttr::get(type, value));
    }
    return op;
  }
};

/// linalg contractions: the `ins` take the low type, the `outs` (the
/// accumulator) and the results stay fp32. The implicit body is rebuilt for
/// the new input types (it extends them to f32).
template <typename OpTy>
struct LinalgContractionModel
    : public PrecisionPolicyOpInterface::ExternalModel<
          LinalgContractionModel<OpTy>, OpTy> {
  PrecisionClass getPrecisionClass(Operation *op) const {
    return lookupUpstreamClass(op);
  }
  bool isLowPrecisionOperand(Operation *op, unsigned index) const {
    return index < cast<DestinationStyleOpInterface>(op).getNumDpsInputs();
  }
  bool isLowPrecisionResult(Operation *, unsigned) const { return false; }
  Operation *finalizeLowPrecision(Operation *op, OpBuilder &builder) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != "operandSegmentSizes")
        attrs.push_back(attr);
    builder.setInsertionPoint(op);
    auto rebuilt = OpTy::create(builder, op->getLoc(), op->getResultTypes(),
                                dps.getDpsInputs(), dps.getDpsInits(), attrs);
    op->replaceAllUsesWith(rebuilt);
    op->erase();
    return rebuilt;
  }
};
} // namespace

template <template <typename> class Model, typename... OpTys>
static void attach(MLIRContext *ctx) {
  (OpTys::template attachInterface<Model<OpTys>>(*ctx), ...);
}

void mpt::registerPrecisionPolicyExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    attach<FloatOutputModel, tosa::MatMulOp>(ctx);
    attach<TosaConvModel, tosa::Conv2DOp, tosa::Conv3DOp,
           tosa::DepthwiseConv2DOp, tosa::TransposeConv2DOp>(ctx);
    tosa::ClampOp::attachInterface<TosaClampModel>(*ctx);
    attach<TableModel, tosa::ExpOp, tosa::LogOp, tosa::PowOp, tosa::RsqrtOp,
           tosa::ReduceSumOp, tosa::ReduceProductOp, tosa::AddOp, tosa::SubOp,
           tosa::MulOp, tosa::ReciprocalOp, tosa::TanhOp, tosa::SigmoidOp,
           tosa::ErfOp, tosa::AvgPool2dOp, tosa::MaximumOp, tosa::MinimumOp,
           tosa::ReduceMaxOp, tosa::ReduceMinOp, tosa::MaxPool2dOp, tosa::AbsOp,
           tosa::NegateOp, tosa::SelectOp, tosa::ReshapeOp, tosa::TransposeOp,
           tosa::ConcatOp, tosa::SliceOp, tosa::PadOp, tosa::TileOp,
           tosa::IdentityOp, tosa::GatherOp, tosa::ConstOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attach<TableModel, arith::AddFOp, arith::SubFOp, arith::MulFOp,
           arith::DivFOp, arith::MaximumFOp, arith::MinimumFOp, arith::NegFOp,
           arith::ConstantOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attach<TableModel, math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
           math::Log1pOp, math::Log2Op, math::PowFOp, math::RsqrtOp,
           math::SqrtOp, math::TanhOp, math::ErfOp, math::AbsFOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attach<LinalgContractionModel, linalg::MatmulOp, linalg::BatchMatmulOp,
           linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp>(ctx);
  });
}
