//===- PrecisionPolicy.cpp - default precision classes of mpt ops ---------===//
//
// The allow/deny/infer/clear class of every mpt op, with the reason. The
// classes follow TensorFlow's AMP lists and PyTorch autocast where they agree,
// and the stricter of the two where they do not.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/PrecisionPolicy.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mpt;

#include "mpt/Dialect/MPT/IR/PrecisionPolicyInterface.cpp.inc"

static constexpr PrecisionClass kAllow = PrecisionClass::allow;
static constexpr PrecisionClass kDeny = PrecisionClass::deny;
static constexpr PrecisionClass kInfer = PrecisionClass::infer;
static constexpr PrecisionClass kClear = PrecisionClass::clear;

static const PrecisionPolicyEntry kMPTPolicy[] = {
    // allow: Tensor Core contractions; the pass sets acc(f32) on them.
    {"mpt.matmul", kAllow, "Tensor Core GEMM, accumulates in fp32"},
    {"mpt.batch_matmul", kAllow, "Tensor Core GEMM, accumulates in fp32"},
    {"mpt.conv2d", kAllow,
     "Tensor Core GEMM of im2col patches, accumulates in fp32"},
    // deny: need fp32 range or precision.
    {"mpt.exp", kDeny, "overflows f16 above x = 11.1"},
    {"mpt.log", kDeny, "loses precision near 1 and for tiny inputs"},
    {"mpt.pow", kDeny, "overflows and underflows quickly"},
    {"mpt.rsqrt", kDeny,
     "overflows f16 for inputs below 2^-32 (PyTorch autocast: fp32)"},
    {"mpt.reduce_sum", kDeny, "large sums lose precision and overflow"},
    {"mpt.reduce_mean", kDeny, "the sum behind the mean loses precision"},
    {"mpt.global_avg_pool", kDeny, "a mean over the whole image"},
    {"mpt.softmax", kInfer,
     "exp and the sum in f32 whatever the data type; bounded output "
     "(TensorFlow: infer)"},
    {"mpt.log_softmax", kDeny, "exp, sum and log along the axis"},
    {"mpt.layer_norm", kDeny,
     "low, it would pull the residual stream it reads into f16 (PyTorch "
     "autocast: fp32)"},
    {"mpt.softmax_cross_entropy", kDeny,
     "a loss: log-sum-exp and a mean; reads f16 logits without an f32 copy"},
    {"mpt.mse_loss", kDeny, "a loss: squares and a mean"},
    {"mpt.l1_loss", kDeny, "a loss: a mean over all elements"},
    // infer: safe in either precision; follow the neighbours.
    {"mpt.add", kInfer, "rounds once; safe in either precision"},
    {"mpt.sub", kInfer, "rounds once; safe in either precision"},
    {"mpt.mul", kInfer, "rounds once; safe in either precision"},
    {"mpt.div", kInfer, "rounds once; safe in either precision"},
    {"mpt.sqrt", kInfer, "bounded relative error, no overflow"},
    {"mpt.reciprocal", kInfer, "rounds once (TensorFlow: infer)"},
    {"mpt.tanh", kInfer, "bounded output"},
    {"mpt.sigmoid", kInfer, "bounded output"},
    {"mpt.gelu", kInfer, "follows its input's magnitude"},
    {"mpt.avg_pool2d", kInfer, "a small window mean (TensorFlow: infer)"},
    {"mpt.batch_norm", kInfer,
     "statistics in f32 whatever the data type; f32 scale and bias "
     "(TensorFlow: "
     "infer)"},
    // clear: exact or order-preserving; never changes a value's precision.
    {"mpt.neg", kClear, "exact"},
    {"mpt.abs", kClear, "exact"},
    {"mpt.relu", kClear, "exact"},
    {"mpt.max", kClear, "selects an input"},
    {"mpt.min", kClear, "selects an input"},
    {"mpt.reduce_max", kClear, "selects an input"},
    {"mpt.max_pool2d", kClear, "selects an input"},
    {"mpt.embedding", kClear, "gathers rows"},
    {"mpt.reshape", kClear, "data movement"},
    {"mpt.transpose", kClear, "data movement"},
    {"mpt.broadcast", kClear, "data movement"},
    {"mpt.concat", kClear, "data movement"},
    {"mpt.slice", kClear, "data movement"},
    {"mpt.pad", kClear, "data movement"},
    {"mpt.constant", kClear,
     "converted at compile time when its values fit the low type"},
    {"mpt.cast", kClear,
     "an existing cast whose users all run in low precision is absorbed"},
    // Backward and optimizer ops.
    {"mpt.relu_grad", kClear, "selects the upstream gradient"},
    {"mpt.gelu_grad", kInfer, "bounded derivative times the gradient"},
    {"mpt.softmax_cross_entropy_grad", kInfer,
     "softmax of the logits in f32 whatever the data type; bounded output"},
    {"mpt.softmax_grad", kInfer,
     "the sum in f32 whatever the data type; follows the softmax"},
    {"mpt.log_softmax_grad", kDeny, "exp and a sum; follows the log_softmax"},
    {"mpt.layer_norm_grad", kDeny,
     "the gradient of the fp32 residual stream; recomputes the statistics"},
    {"mpt.conv2d_backward_data", kAllow,
     "Tensor Core GEMM of im2col patches, accumulates in fp32"},
    {"mpt.conv2d_backward_filter", kAllow,
     "Tensor Core GEMM of im2col patches, accumulates in fp32"},
    {"mpt.max_pool2d_grad", kClear, "routes the gradient to the maxima"},
    {"mpt.batch_norm_grad", kInfer,
     "statistics and sums in f32; f32 scale and bias gradients (TensorFlow: "
     "infer)"},
    {"mpt.avg_pool2d_grad", kInfer, "a small window mean of the gradient"},
    {"mpt.embedding_grad", kDeny, "sums the gradients of repeated rows"},
    {"mpt.momentum_update", kDeny,
     "the update of an fp32 master weight and its velocity"},
    {"mpt.adam_update", kDeny,
     "the update of an fp32 master weight and its moments"},
    {"mpt.sgd_update", kDeny,
     "the update of an fp32 master weight; small steps vanish in f16"},
    {"mpt.clip_by_global_norm", kDeny, "a sum of squares over all gradients"},
    // Loss scaling (mpt-loss-scaling runs after this pass).
    {"mpt.backward_seed", kDeny,
     "the gradient of the fp32 loss; becomes the loss scale"},
    {"mpt.unscale_and_check", kDeny, "unscales in fp32 and checks for inf/NaN"},
    {"mpt.layer_scale", kDeny, "statistics over whole tensors"},
    {"mpt.update_scale", kDeny, "the fp32 loss scale state"},
    {"mpt.select", kClear, "selects an input"},
    // GPU host code.
    {"mpt.sm_count", kClear, "an index: no floating-point value"},
};

ArrayRef<PrecisionPolicyEntry> mpt::getMPTPrecisionPolicy() {
  return kMPTPolicy;
}

PrecisionClass mpt::lookupPrecisionClass(ArrayRef<PrecisionPolicyEntry> table,
                                         StringRef name) {
  for (const PrecisionPolicyEntry &entry : table)
    if (entry.opName == name)
      return entry.precisionClass;
  llvm_unreachable("every op with a precision policy has a table entry");
}

#define MPT_POLICY_FROM_TABLE(OP)                                              \
  PrecisionClass OP::getPrecisionClass() {                                     \
    return lookupPrecisionClass(kMPTPolicy, getOperationName());               \
  }
MPT_POLICY_FROM_TABLE(MatmulOp)
MPT_POLICY_FROM_TABLE(BatchMatmulOp)
MPT_POLICY_FROM_TABLE(Conv2DOp)
MPT_POLICY_FROM_TABLE(EmbeddingOp)
MPT_POLICY_FROM_TABLE(AddOp)
MPT_POLICY_FROM_TABLE(SubOp)
MPT_POLICY_FROM_TABLE(MulOp)
MPT_POLICY_FROM_TABLE(DivOp)
MPT_POLICY_FROM_TABLE(MaxOp)
MPT_POLICY_FROM_TABLE(MinOp)
MPT_POLICY_FROM_TABLE(PowOp)
MPT_POLICY_FROM_TABLE(NegOp)
MPT_POLICY_FROM_TABLE(AbsOp)
MPT_POLICY_FROM_TABLE(ExpOp)
MPT_POLICY_FROM_TABLE(LogOp)
MPT_POLICY_FROM_TABLE(SqrtOp)
MPT_POLICY_FROM_TABLE(RsqrtOp)
MPT_POLICY_FROM_TABLE(ReciprocalOp)
MPT_POLICY_FROM_TABLE(TanhOp)
MPT_POLICY_FROM_TABLE(SigmoidOp)
MPT_POLICY_FROM_TABLE(ReluOp)
MPT_POLICY_FROM_TABLE(GeluOp)
MPT_POLICY_FROM_TABLE(SoftmaxOp)
MPT_POLICY_FROM_TABLE(LogSoftmaxOp)
MPT_POLICY_FROM_TABLE(LayerNormOp)
MPT_POLICY_FROM_TABLE(BatchNormOp)
MPT_POLICY_FROM_TABLE(ReduceSumOp)
MPT_POLICY_FROM_TABLE(ReduceMeanOp)
MPT_POLICY_FROM_TABLE(ReduceMaxOp)
MPT_POLICY_FROM_TABLE(MaxPool2DOp)
MPT_POLICY_FROM_TABLE(AvgPool2DOp)
MPT_POLICY_FROM_TABLE(GlobalAvgPoolOp)
MPT_POLICY_FROM_TABLE(ReshapeOp)
MPT_POLICY_FROM_TABLE(TransposeOp)
MPT_POLICY_FROM_TABLE(BroadcastOp)
MPT_POLICY_FROM_TABLE(ConcatOp)
MPT_POLICY_FROM_TABLE(SliceOp)
MPT_POLICY_FROM_TABLE(PadOp)
MPT_POLICY_FROM_TABLE(ConstantOp)
MPT_POLICY_FROM_TABLE(CastOp)
MPT_POLICY_FROM_TABLE(SoftmaxCrossEntropyOp)
MPT_POLICY_FROM_TABLE(MseLossOp)
MPT_POLICY_FROM_TABLE(L1LossOp)
MPT_POLICY_FROM_TABLE(ReluGradOp)
MPT_POLICY_FROM_TABLE(GeluGradOp)
MPT_POLICY_FROM_TABLE(SoftmaxCrossEntropyGradOp)
MPT_POLICY_FROM_TABLE(SoftmaxGradOp)
MPT_POLICY_FROM_TABLE(LogSoftmaxGradOp)
MPT_POLICY_FROM_TABLE(LayerNormGradOp)
MPT_POLICY_FROM_TABLE(SgdUpdateOp)
MPT_POLICY_FROM_TABLE(MomentumUpdateOp)
MPT_POLICY_FROM_TABLE(AdamUpdateOp)
MPT_POLICY_FROM_TABLE(Conv2DBackwardDataOp)
MPT_POLICY_FROM_TABLE(Conv2DBackwardFilterOp)
MPT_POLICY_FROM_TABLE(MaxPool2DGradOp)
MPT_POLICY_FROM_TABLE(BatchNormGradOp)
MPT_POLICY_FROM_TABLE(AvgPool2DGradOp)
MPT_POLICY_FROM_TABLE(EmbeddingGradOp)
MPT_POLICY_FROM_TABLE(ClipByGlobalNormOp)
MPT_POLICY_FROM_TABLE(BackwardSeedOp)
MPT_POLICY_FROM_TABLE(UnscaleAndCheckOp)
MPT_POLICY_FROM_TABLE(LayerScaleOp)
MPT_POLICY_FROM_TABLE(UpdateScaleOp)
MPT_POLICY_FROM_TABLE(SelectOp)
MPT_POLICY_FROM_TABLE(SmCountOp)
#undef MPT_POLICY_FROM_TABLE

//===----------------------------------------------------------------------===//
// Overrides of the interface defaults
//===----------------------------------------------------------------------===//

/// Contractions in low precision accumulate in `type`.
void MatmulOp::setAccumulatorType(Type type) { setAccType(type); }
void BatchMatmulOp::setAccumulatorType(Type type) { setAccType(type); }
void Conv2DOp::setAccumulatorType(Type type) { setAccType(type); }
void Conv2DBackwardDataOp::setAccumulatorType(Type type) { setAccType(type); }
void Conv2DBackwardFilterOp::setAccumulatorType(Type type) { setAccType(type); }

/// The loss reads low-precision logits as they are and computes in f32;
/// its gradient in low precision keeps the loss gradient (operand 2: the
/// loss scale) in f32.
bool SoftmaxCrossEntropyOp::widensLowPrecisionOperand(unsigned index) {
  return index == 0;
}
bool SoftmaxCrossEntropyGradOp::isLowPrecisionOperand(unsigned index) {
  return index == 0;
}

/// A cast keeps its input; only its result takes the low type.
bool CastOp::isLowPrecisionOperand(unsigned) { return false; }

/// A normalization in low precision reads and writes the low type but keeps
/// f32 scale and bias (operands 1 and 2) and f32 statistics; its gradient
/// takes the low gradient and input (operands 0 and 1), returns the input's
/// gradient in the low type and the scale and bias gradients in f32.
bool LayerNormOp::isLowPrecisionOperand(unsigned index) { return index == 0; }
bool BatchNormOp::isLowPrecisionOperand(unsigned index) { return index == 0; }
bool LayerNormGradOp::isLowPrecisionOperand(unsigned index) {
  return index < 2;
}
bool BatchNormGradOp::isLowPrecisionOperand(unsigned index) {
  return index < 2;
}
bool LayerNormGradOp::isLowPrecisionResult(unsigned index) {
  return index == 0;
}
bool BatchNormGradOp::isLowPrecisionResult(unsigned index) {
  return index == 0;
}
