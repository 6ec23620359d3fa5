//===- MPTOps.cpp - mpt dialect operations --------------------------------===//
//
// Result-type inference (which also checks the shape rules of each op),
// verifiers and folders.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mpt;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool isDynamic(int64_t d) { return ShapedType::isDynamic(d); }

/// Two dimensions agree unless both are static and different.
static bool dimsAgree(int64_t a, int64_t b) {
  return isDynamic(a) || isDynamic(b) || a == b;
}

namespace {
/// A diagnostic of result-type inference, which also runs when an op is
/// verified: it is emitted as `'<op>' op <message>` when a location is given,
/// dropped otherwise, and converts to failure in both cases.
class InferError {
public:
  InferError(std::optional<Location> loc, StringRef opName) {
    if (loc) {
      diag.emplace(emitError(*loc));
      *diag << "'" << opName << "' op ";
    }
  }
  template <typename T>
  InferError &operator<<(T &&value) {
    if (diag)
      *diag << std::forward<T>(value);
    return *this;
  }
  operator LogicalResult() const { return failure(); }

private:
  std::optional<InFlightDiagnostic> diag;
};
} // namespace

template <typename OpTy>
static InferError inferError(std::optional<Location> loc) {
  return InferError(loc, OpTy::getOperationName());
}

/// Result-type inference may see an adaptor built from a generic attribute
/// list, whose default-valued attributes are not filled in yet: these read an
/// attribute or its default.
static ArrayRef<int64_t> valueOr(DenseI64ArrayAttr attr,
                                 ArrayRef<int64_t> fallback) {
  return attr ? attr.asArrayRef() : fallback;
}
static int64_t valueOr(IntegerAttr attr, int64_t fallback) {
  return attr ? attr.getInt() : fallback;
}
static double valueOr(FloatAttr attr, double fallback) {
  return attr ? attr.getValueAsDouble() : fallback;
}
static Layout valueOr(LayoutAttr attr, Layout fallback) {
  return attr ? attr.getValue() : fallback;
}
static constexpr int64_t kOnes[] = {1, 1};
static constexpr int64_t kZeros[] = {0, 0, 0, 0};

/// Prints a shape as `4x?x8` for diagnostics.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (shape.empty())
    return "scalar";
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}

/// Normalizes `axis` (negative counts from the end) into [0, rank), or
/// returns failure.
static FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SmallVector<int64_t>> mpt::broadcastShapes(ArrayRef<int64_t> lhs,
                                                     ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t r;
    if (a == 1)
      r = b;
    else if (b == 1)
      r = a;
    else if (isDynamic(a))
      r = b;
    else if (isDynamic(b) || a == b)
      r = a;
    else
      return failure();
    result[rank - 1 - i] = r;
  }
  return result;
}

Value mpt::createFloatSplat(OpBuilder &builder, Location loc,
                            RankedTensorType type, double value) {
  auto element = cast<FloatType>(type.getElementType());
  APFloat v(value);
  bool losesInfo;
  v.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
            &losesInfo);
  return ConstantOp::create(builder, loc, type,
                            DenseElementsAttr::get(type, v));
}

bool mpt::isLosslessFloatCast(Type from, Type to) {
  auto f = dyn_cast<FloatType>(from);
  auto t = dyn_cast<FloatType>(to);
  if (!f || !t)
    return false;
  if (f == t)
    return true;
  return llvm::APFloatBase::isRepresentableBy(f.getFloatSemantics(),
                                              t.getFloatSemantics());
}

/// Checks an accumulator type against the operand element type.
static LogicalResult verifyAccType(Operation *op, std::optional<Type> acc,
                                   Type elementType) {
  if (!acc)
    return success();
  auto accFloat = cast<FloatType>(*acc);
  auto elemFloat = cast<FloatType>(elementType);
  if (!isLosslessFloatCast(elemFloat, accFloat))
    return op->emitOpError("accumulator type ")
           << *acc << " cannot hold every value of the operand type "
           << elementType << "; use a type at least as wide, such as f32";
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp / BatchMatmulOp
//===----------------------------------------------------------------------===//

/// Infers `[batch..., M, N]` from `[batch..., M, K] x [batch..., K, N]`
/// (with optional transposes of the last two dimensions).
template <typename OpTy>
static LogicalResult inferContraction(std::optional<Location> loc,
                                      typename OpTy::Adaptor adaptor,
                                      int64_t minRank, int64_t maxRank,
                                      SmallVectorImpl<Type> &inferred) {
  auto lhs = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhs || !rhs)
    return failure();
  int64_t rank = lhs.getRank();
  if (rank != rhs.getRank() || rank < minRank || rank > maxRank) {
    auto diag = inferError<OpTy>(loc);
    if (minRank == maxRank)
      diag << "expects rank-" << minRank << " operands";
    else
      diag << "expects operands of equal rank, at least " << minRank;
    return diag << ", got lhs of rank " << lhs.getRank() << " and rhs of rank "
                << rhs.getRank();
  }
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i + 2 < rank; ++i) {
    if (!dimsAgree(a[i], b[i]))
      return inferError<OpTy>(loc)
             << "batch dimension " << i << " differs: lhs has " << a[i]
             << ", rhs has " << b[i];
    shape.push_back(isDynamic(a[i]) ? b[i] : a[i]);
  }
  bool ta = adaptor.getTransposeA(), tb = adaptor.getTransposeB();
  int64_t m = ta ? a[rank - 1] : a[rank - 2];
  int64_t ka = ta ? a[rank - 2] : a[rank - 1];
  int64_t kb = tb ? b[rank - 1] : b[rank - 2];
  int64_t n = tb ? b[rank - 2] : b[rank - 1];
  if (!dimsAgree(ka, kb))
    return inferError<OpTy>(loc)
           << "contracting dimensions differ: lhs " << formatShape(a)
           << (ta ? " (transposed)" : "") << " has K = " << ka << ", rhs "
           << formatShape(b) << (tb ? " (transposed)" : "")
           << " has K = " << kb;
  shape.push_back(m);
  shape.push_back(n);
  inferred.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferContraction<MatmulOp>(loc, adaptor, 2, 2, inferred);
}

LogicalResult MatmulOp::verify() {
  return verifyAccType(*this, getAccType(),
                       getLhs().getType().getElementType());
}

LogicalResult BatchMatmulOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  return inferContraction<BatchMatmulOp>(
      loc, adaptor, 3, std::numeric_limits<int64_t>::max(), inferred);
}

LogicalResult BatchMatmulOp::verify() {
  return verifyAccType(*this, getAccType(),
                       getLhs().getType().getElementType());
}

//===----------------------------------------------------------------------===//
// Windows (convolution and pooling)
//===----------------------------------------------------------------------===//

/// Checks the stride/padding/dilation arrays of a 2-D window op.
template <typename OpTy>
static LogicalResult
checkWindowAttrs(std::optional<Location> loc, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation) {
  if (strides.size() != 2 ||
      llvm::any_of(strides, [](int64_t s) { return s < 1; }))
    return inferError<OpTy>(loc)
           << "expects 2 strides of at least 1 (one per spatial dimension)";
  if (padding.size() != 4 ||
      llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return inferError<OpTy>(loc) << "expects 4 non-negative paddings "
                                    "[top, bottom, left, right]";
  if (dilation.size() != 2 ||
      llvm::any_of(dilation, [](int64_t d) { return d < 1; }))
    return inferError<OpTy>(loc)
           << "expects 2 dilations of at least 1 (one per spatial dimension)";
  return success();
}

/// The output size of one spatial dimension of a window op, or failure when
/// the (dilated) window does not fit in the padded input.
static FailureOr<int64_t> windowOutputSize(int64_t in, int64_t k,
                                           int64_t stride, int64_t padLow,
                                           int64_t padHigh, int64_t dilation) {
  if (isDynamic(in) || isDynamic(k))
    return ShapedType::kDynamic;
  int64_t span, padded;
  if (llvm::MulOverflow(dilation, k - 1, span) ||
      llvm::AddOverflow(span, int64_t(1), span) ||
      llvm::AddOverflow(in, padLow, padded) ||
      llvm::AddOverflow(padded, padHigh, padded) || span > padded)
    return failure();
  return (padded - span) / stride + 1;
}

/// Spatial (H, W) and channel dimension indices of a rank-4 image.
struct ImageDims {
  int64_t c, h, w;
};
static ImageDims imageDims(Layout layout) {
  return layout == Layout::nchw ? ImageDims{1, 2, 3} : ImageDims{3, 1, 2};
}

//===----------------------------------------------------------------------===//
// Conv2DOp
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = dyn_cast<RankedTensorType>(adaptor.getFilter().getType());
  if (!input || !filter)
    return failure();
  Layout layout = valueOr(adaptor.getLayoutAttr(), Layout::nchw);
  bool nchw = layout == Layout::nchw;
  if (input.getRank() != 4 || filter.getRank() != 4)
    return inferError<Conv2DOp>(loc)
           << "expects a rank-4 input (" << (nchw ? "NCHW" : "NHWC")
           << ") and a rank-4 filter (" << (nchw ? "FCHW" : "HWCF")
           << "), got ranks " << input.getRank() << " and " << filter.getRank();
  ArrayRef<int64_t> strides = valueOr(adaptor.getStridesAttr(), kOnes);
  ArrayRef<int64_t> padding = valueOr(adaptor.getPaddingAttr(), kZeros);
  ArrayRef<int64_t> dilation = valueOr(adaptor.getDilationAttr(), kOnes);
  if (failed(checkWindowAttrs<Conv2DOp>(loc, strides, padding, dilation)))
    return failure();
  int64_t groups = valueOr(adaptor.getGroupsAttr(), 1);
  if (groups < 1)
    return inferError<Conv2DOp>(loc) << "expects groups >= 1, got " << groups;

  ImageDims dims = imageDims(layout);
  ArrayRef<int64_t> in = input.getShape(), f = filter.getShape();
  int64_t channels = in[dims.c];
  int64_t filters = nchw ? f[0] : f[3];
  int64_t filterChannels = nchw ? f[1] : f[2];
  int64_t kh = nchw ? f[2] : f[0], kw = nchw ? f[3] : f[1];
  if (!isDynamic(channels) && channels % groups != 0)
    return inferError<Conv2DOp>(loc)
           << "input channels (" << channels
           << ") are not divisible by groups (" << groups << ")";
  if (!isDynamic(filters) && filters % groups != 0)
    return inferError<Conv2DOp>(loc)
           << "filter count (" << filters << ") is not divisible by groups ("
           << groups << ")";
  if (!isDynamic(channels) && !dimsAgree(filterChannels, channels / groups))
    return inferError<Conv2DOp>(loc)
           << "filter has " << filterChannels
           << " input channels, expected input channels / groups = "
           << channels / groups;
  FailureOr<int64_t> oh = windowOutputSize(in[dims.h], kh, strides[0],
                                           padding[0], padding[1], dilation[0]);
  FailureOr<int64_t> ow = windowOutputSize(in[dims.w], kw, strides[1],
                                           padding[2], padding[3], dilation[1]);
  if (failed(oh) || failed(ow))
    return inferError<Conv2DOp>(loc)
           << "the dilated " << kh << "x" << kw
           << " filter is larger than the padded input";
  SmallVector<int64_t> shape =
      nchw ? SmallVector<int64_t>{in[0], filters, *oh, *ow}
           : SmallVector<int64_t>{in[0], *oh, *ow, filters};
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult Conv2DOp::verify() {
  return verifyAccType(*this, getAccType(),
                       getInput().getType().getElementType());
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto table = dyn_cast<RankedTensorType>(adaptor.getTable().getType());
  auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  if (!table || !indices)
    return failure();
  if (table.getRank() != 2)
    return inferError<EmbeddingOp>(loc)
           << "expects a rank-2 table (rows x features), got rank "
           << table.getRank();
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(table.getDimSize(1));
  inferred.push_back(RankedTensorType::get(shape, table.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult inferBroadcast(std::optional<Location> loc,
                                    typename OpTy::Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  auto lhs = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!lhs || !rhs)
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(lhs.getShape(), rhs.getShape());
  if (failed(shape))
    return inferError<OpTy>(loc)
           << "operand shapes " << formatShape(lhs.getShape()) << " and "
           << formatShape(rhs.getShape())
           << " do not broadcast: trailing-aligned dimensions must be equal "
              "or 1";
  inferred.push_back(RankedTensorType::get(*shape, lhs.getElementType()));
  return success();
}

#define MPT_DEFINE_BINARY_INFER(OP)                                            \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferBroadcast<OP>(loc, adaptor, inferred);                         \
  }
MPT_DEFINE_BINARY_INFER(AddOp)
MPT_DEFINE_BINARY_INFER(SubOp)
MPT_DEFINE_BINARY_INFER(MulOp)
MPT_DEFINE_BINARY_INFER(DivOp)
MPT_DEFINE_BINARY_INFER(MaxOp)
MPT_DEFINE_BINARY_INFER(MinOp)
MPT_DEFINE_BINARY_INFER(PowOp)
#undef MPT_DEFINE_BINARY_INFER

//===----------------------------------------------------------------------===//
// Softmax / LogSoftmax
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult verifyAxis(OpTy op, int64_t axis, int64_t rank) {
  if (rank == 0)
    return op.emitOpError("expects an input of rank at least 1");
  if (failed(normalizeAxis(axis, rank)))
    return op.emitOpError("axis ")
           << axis << " is out of range for a rank-" << rank
           << " input; expected a value in [" << -rank << ", " << rank << ")";
  return success();
}

/// The verifier and normalized axis of an op along one axis of `OPERAND`.
#define MPT_DEFINE_AXIS_OP(OP, OPERAND)                                        \
  LogicalResult OP::verify() {                                                 \
    return verifyAxis(*this, getAxis(), OPERAND().getType().getRank());        \
  }                                                                            \
  int64_t OP::getNormalizedAxis() {                                            \
    return *normalizeAxis(getAxis(), OPERAND().getType().getRank());           \
  }
MPT_DEFINE_AXIS_OP(SoftmaxOp, getInput)
MPT_DEFINE_AXIS_OP(LogSoftmaxOp, getInput)
MPT_DEFINE_AXIS_OP(SoftmaxGradOp, getGrad)
MPT_DEFINE_AXIS_OP(LogSoftmaxGradOp, getGrad)
#undef MPT_DEFINE_AXIS_OP

//===----------------------------------------------------------------------===//
// LayerNormOp / BatchNormOp
//===----------------------------------------------------------------------===//

/// Normalization parameters have the input's element type, or f32 with a
/// narrower input (the statistics are then computed in f32).
static bool isNormParamType(Type input, Type param) {
  return param == input || param.isF32();
}

/// The error of scale parameters of element type `param` for an input of
/// element type `input`.
template <typename Diag>
static Diag &&paramTypeError(Diag &&diag, Type input, Type param) {
  diag << "scale and bias have element type " << param
       << ", expected the input's element type " << input
       << " or f32 (f32 parameters with a narrower input)";
  return std::forward<Diag>(diag);
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto scale = dyn_cast<RankedTensorType>(adaptor.getScale().getType());
  auto bias = dyn_cast<RankedTensorType>(adaptor.getBias().getType());
  if (!input || !scale || !bias)
    return failure();
  int64_t rank = input.getRank();
  int64_t axisAttr = valueOr(adaptor.getAxisAttr(), -1);
  FailureOr<int64_t> axis = normalizeAxis(axisAttr, rank);
  if (rank == 0 || failed(axis))
    return inferError<LayerNormOp>(loc)
           << "axis " << axisAttr << " is out of range for a rank-" << rank
           << " input";
  if (valueOr(adaptor.getEpsilonAttr(), 0.0) < 0)
    return inferError<LayerNormOp>(loc) << "expects epsilon >= 0";
  if (!isNormParamType(input.getElementType(), scale.getElementType()))
    return paramTypeError(inferError<LayerNormOp>(loc), input.getElementType(),
                          scale.getElementType());
  ArrayRef<int64_t> normalized = input.getShape().drop_front(*axis);
  for (auto [name, type] :
       {std::make_pair("scale", scale), std::make_pair("bias", bias)}) {
    if (type.getRank() != static_cast<int64_t>(normalized.size()) ||
        !llvm::all_of(llvm::zip(type.getShape(), normalized), [](auto p) {
          return dimsAgree(std::get<0>(p), std::get<1>(p));
        }))
      return inferError<LayerNormOp>(loc)
             << name << " has shape " << formatShape(type.getShape())
             << ", expected the normalized shape " << formatShape(normalized);
  }
  inferred.push_back(input);
  return success();
}

int64_t LayerNormOp::getNormalizedAxis() {
  return *normalizeAxis(getAxis(), getInput().getType().getRank());
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto scale = dyn_cast<RankedTensorType>(adaptor.getScale().getType());
  auto bias = dyn_cast<RankedTensorType>(adaptor.getBias().getType());
  if (!input || !scale || !bias)
    return failure();
  int64_t rank = input.getRank();
  if (rank < 2)
    return inferError<BatchNormOp>(loc)
           << "expects an input of rank at least 2 (batch and channels), "
              "got rank "
           << rank;
  int64_t axisAttr = valueOr(adaptor.getAxisAttr(), 1);
  FailureOr<int64_t> axis = normalizeAxis(axisAttr, rank);
  if (failed(axis))
    return inferError<BatchNormOp>(loc)
           << "channel axis " << axisAttr << " is out of range for a rank-"
           << rank << " input";
  if (valueOr(adaptor.getEpsilonAttr(), 0.0) < 0)
    return inferError<BatchNormOp>(loc) << "expects epsilon >= 0";
  if (!isNormParamType(input.getElementType(), scale.getElementType()))
    return paramTypeError(inferError<BatchNormOp>(loc), input.getElementType(),
                          scale.getElementType());
  int64_t channels = input.getDimSize(*axis);
  for (auto [name, type] :
       {std::make_pair("scale", scale), std::make_pair("bias", bias)}) {
    if (type.getRank() != 1 || !dimsAgree(type.getDimSize(0), channels))
      return inferError<BatchNormOp>(loc)
             << name << " has shape " << formatShape(type.getShape())
             << ", expected one value per channel (" << channels << ")";
  }
  inferred.push_back(input);
  return success();
}

int64_t BatchNormOp::getNormalizedAxis() {
  return *normalizeAxis(getAxis(), getInput().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Normalizes and sorts `axes`; failure when one is out of range or repeated.
static FailureOr<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes,
                                                     int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t a : axes) {
    FailureOr<int64_t> n = normalizeAxis(a, rank);
    if (failed(n) || llvm::is_contained(result, *n))
      return failure();
    result.push_back(*n);
  }
  llvm::sort(result);
  return result;
}

template <typename OpTy>
static LogicalResult inferReduction(std::optional<Location> loc,
                                    typename OpTy::Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return failure();
  int64_t rank = input.getRank();
  FailureOr<SmallVector<int64_t>> axes = normalizeAxes(adaptor.getAxes(), rank);
  if (failed(axes))
    return inferError<OpTy>(loc)
           << "axes must be distinct and in [" << -rank << ", " << rank
           << ") for a rank-" << rank << " input";
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!llvm::is_contained(*axes, i))
      shape.push_back(input.getDimSize(i));
    else if (adaptor.getKeepDims())
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

#define MPT_DEFINE_REDUCTION(OP)                                               \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduction<OP>(loc, adaptor, inferred);                         \
  }                                                                            \
  SmallVector<int64_t> OP::getNormalizedAxes() {                               \
    return *normalizeAxes(getAxes(), getInput().getType().getRank());          \
  }
MPT_DEFINE_REDUCTION(ReduceSumOp)
MPT_DEFINE_REDUCTION(ReduceMeanOp)
MPT_DEFINE_REDUCTION(ReduceMaxOp)
#undef MPT_DEFINE_REDUCTION

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult inferPool(std::optional<Location> loc,
                               typename OpTy::Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return failure();
  if (input.getRank() != 4)
    return inferError<OpTy>(loc)
           << "expects a rank-4 input, got rank " << input.getRank();
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  if (kernel.size() != 2 ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return inferError<OpTy>(loc) << "expects a kernel of 2 sizes of at least 1";
  ArrayRef<int64_t> strides = valueOr(adaptor.getStridesAttr(), kOnes);
  ArrayRef<int64_t> padding = valueOr(adaptor.getPaddingAttr(), kZeros);
  if (failed(checkWindowAttrs<OpTy>(loc, strides, padding, kOnes)))
    return failure();
  if (padding[0] >= kernel[0] || padding[1] >= kernel[0] ||
      padding[2] >= kernel[1] || padding[3] >= kernel[1])
    return inferError<OpTy>(loc)
           << "padding must be smaller than the kernel, or a window could "
              "hold only padding";
  ImageDims dims = imageDims(valueOr(adaptor.getLayoutAttr(), Layout::nchw));
  ArrayRef<int64_t> in = input.getShape();
  FailureOr<int64_t> oh = windowOutputSize(in[dims.h], kernel[0], strides[0],
                                           padding[0], padding[1], 1);
  FailureOr<int64_t> ow = windowOutputSize(in[dims.w], kernel[1], strides[1],
                                           padding[2], padding[3], 1);
  if (failed(oh) || failed(ow))
    return inferError<OpTy>(loc) << "the " << kernel[0] << "x" << kernel[1]
                                 << " kernel is larger than the padded input";
  SmallVector<int64_t> shape(in);
  shape[dims.h] = *oh;
  shape[dims.w] = *ow;
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool<MaxPool2DOp>(loc, adaptor, inferred);
}

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool<AvgPool2DOp>(loc, adaptor, inferred);
}

LogicalResult
GlobalAvgPoolOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return failure();
  if (input.getRank() != 4)
    return inferError<GlobalAvgPoolOp>(loc)
           << "expects a rank-4 input, got rank " << input.getRank();
  ImageDims dims = imageDims(valueOr(adaptor.getLayoutAttr(), Layout::nchw));
  inferred.push_back(RankedTensorType::get(
      {input.getDimSize(0), input.getDimSize(dims.c)}, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (!out.hasStaticShape())
    return emitOpError("expects a static result shape, got ")
           << formatShape(out.getShape());
  if (in.hasStaticShape() && out.hasStaticShape() &&
      in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << formatShape(in.getShape()) << " (" << in.getNumElements()
           << " elements) to " << formatShape(out.getShape()) << " ("
           << out.getNumElements() << " elements)";
  // A dynamic input's static dimensions must divide the result's count.
  auto staticProduct = [](RankedTensorType t) {
    int64_t p = 1;
    for (int64_t d : t.getShape())
      if (!isDynamic(d))
        p *= d;
    return p;
  };
  if (!in.hasStaticShape() && staticProduct(in) != 0 &&
      out.getNumElements() % staticProduct(in) != 0)
    return emitOpError("cannot reshape ")
           << formatShape(in.getShape()) << " to "
           << formatShape(out.getShape()) << ": " << out.getNumElements()
           << " elements are not a multiple of the static dimensions' "
              "product "
           << staticProduct(in);
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    setOperand(inner.getInput());
    return getResult();
  }
  if (auto elements =
          dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return elements.reshape(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

static bool isPermutation(ArrayRef<int64_t> perm) {
  llvm::SmallBitVector seen(perm.size());
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen.test(p))
      return false;
    seen.set(p);
  }
  return true;
}

static bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != input.getRank() ||
      !isPermutation(perm))
    return inferError<TransposeOp>(loc)
           << "perm must be a permutation of [0, " << input.getRank()
           << ") for a rank-" << input.getRank() << " input";
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(input.getDimSize(p));
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (isIdentity(perm) && getInput().getType() == getType())
    return getInput();
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // Result dim i = inner result dim perm[i] = inner input dim inner[perm[i]].
  SmallVector<int64_t> composed;
  for (int64_t p : perm)
    composed.push_back(inner.getPerm()[p]);
  if (isIdentity(composed) && inner.getInput().getType() == getType())
    return inner.getInput();
  setOperand(inner.getInput());
  setPerm(composed);
  return getResult();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getType().getShape();
  bool ok = in.size() <= out.size();
  for (size_t i = 0; ok && i < in.size(); ++i) {
    int64_t a = in[in.size() - 1 - i], b = out[out.size() - 1 - i];
    ok = a == 1 || dimsAgree(a, b);
  }
  if (!ok)
    return emitOpError("cannot broadcast ")
           << formatShape(in) << " to " << formatShape(out)
           << ": each trailing-aligned input dimension must equal the result "
              "dimension or be 1";
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return SplatElementsAttr::get(getType(),
                                    splat.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return inferError<ConcatOp>(loc) << "expects at least one operand";
  auto first = dyn_cast<RankedTensorType>(inputs.front().getType());
  if (!first)
    return failure();
  int64_t rank = first.getRank();
  FailureOr<int64_t> axis = normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axis))
    return inferError<ConcatOp>(loc)
           << "axis " << adaptor.getAxis() << " is out of range for rank-"
           << rank << " operands";
  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return failure();
    if (type.getElementType() != first.getElementType())
      return inferError<ConcatOp>(loc)
             << "operand #" << index + 1 << " has element type "
             << type.getElementType() << ", expected " << first.getElementType()
             << " like operand #0";
    if (type.getRank() != rank)
      return inferError<ConcatOp>(loc)
             << "operand #" << index + 1 << " has rank " << type.getRank()
             << ", expected " << rank << " like operand #0";
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = type.getDimSize(d);
      if (d == *axis) {
        shape[d] = isDynamic(shape[d]) || isDynamic(size) ? ShapedType::kDynamic
                                                          : shape[d] + size;
      } else if (!dimsAgree(shape[d], size)) {
        return inferError<ConcatOp>(loc)
               << "operand #" << index + 1 << " has size " << size
               << " in dimension " << d << ", expected " << shape[d]
               << " (only the concatenated axis may differ)";
      }
    }
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return failure();
  int64_t rank = input.getRank();
  ArrayRef<int64_t> offsets = adaptor.getOffsets(), sizes = adaptor.getSizes();
  SmallVector<int64_t> strides(rank, 1);
  if (auto s = adaptor.getStrides())
    strides.assign(s->begin(), s->end());
  if (static_cast<int64_t>(offsets.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return inferError<SliceOp>(loc)
           << "expects " << rank
           << " offsets, sizes and strides (one per dimension)";
  for (int64_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0 || sizes[d] < 0 || strides[d] < 1)
      return inferError<SliceOp>(loc)
             << "dimension " << d
             << ": expects offset >= 0, size >= 0 and stride >= 1";
    int64_t dim = input.getDimSize(d), last;
    bool overflows = llvm::MulOverflow(sizes[d] - 1, strides[d], last) ||
                     llvm::AddOverflow(last, offsets[d], last);
    if (!isDynamic(dim) && sizes[d] > 0 && (overflows || last >= dim))
      return inferError<SliceOp>(loc)
             << "dimension " << d << ": the slice (offset " << offsets[d]
             << ", size " << sizes[d] << ", stride " << strides[d]
             << ") reads past the input size " << dim;
  }
  inferred.push_back(RankedTensorType::get(sizes, input.getElementType()));
  return success();
}

SmallVector<int64_t> SliceOp::getStridesOrOnes() {
  if (auto strides = getStrides())
    return SmallVector<int64_t>(*strides);
  return SmallVector<int64_t>(getInput().getType().getRank(), 1);
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }) &&
      llvm::all_of(getStridesOrOnes(), [](int64_t s) { return s == 1; }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return failure();
  int64_t rank = input.getRank();
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return inferError<PadOp>(loc)
           << "expects " << rank << " low and high paddings, got " << low.size()
           << " and " << high.size();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return inferError<PadOp>(loc)
             << "paddings must be non-negative (use mpt.slice to crop)";
    int64_t dim = input.getDimSize(d), padded;
    if (!isDynamic(dim) && (llvm::AddOverflow(dim, low[d], padded) ||
                            llvm::AddOverflow(padded, high[d], padded)))
      return inferError<PadOp>(loc)
             << "padded size of dimension " << d << " overflows";
    shape.push_back(isDynamic(dim) ? dim : padded);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  if (!isa<IntegerType>(getType().getElementType()))
    return success();
  double value = getValue().convertToDouble();
  if (!std::isfinite(value) || value != std::trunc(value))
    return emitOpError("pads an integer tensor with ")
           << value << "; the padding value must be a finite integer";
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  auto zero = [](int64_t p) { return p == 0; };
  if (llvm::all_of(getLow(), zero) && llvm::all_of(getHigh(), zero))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getRank() != out.getRank() ||
      !llvm::all_of(llvm::zip(in.getShape(), out.getShape()), [](auto p) {
        return dimsAgree(std::get<0>(p), std::get<1>(p));
      }))
    return emitOpError("changes the shape from ")
           << formatShape(in.getShape()) << " to "
           << formatShape(out.getShape())
           << "; a cast changes only the element type (use mpt.reshape)";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  Type resultElement = getType().getElementType();
  // Drop an inner cast that is exact: x -> T1 -> T2 equals x -> T2 when T1
  // holds every value of x's type.
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    Type source = inner.getInput().getType().getElementType();
    Type middle = inner.getType().getElementType();
    if (isa<FloatType>(resultElement) && isLosslessFloatCast(source, middle)) {
      if (inner.getInput().getType() == getType())
        return inner.getInput();
      setOperand(inner.getInput());
      return getResult();
    }
  }
  // Round float constants at compile time.
  auto resultFloat = dyn_cast<FloatType>(resultElement);
  auto elements = dyn_cast_if_present<DenseFPElementsAttr>(adaptor.getInput());
  if (resultFloat && elements && getType().hasStaticShape()) {
    const llvm::fltSemantics &semantics = resultFloat.getFloatSemantics();
    return elements.mapValues(resultFloat, [&](const APFloat &value) {
      APFloat rounded = value;
      bool losesInfo;
      rounded.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
      return rounded.bitcastToAPInt();
    });
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxCrossEntropyOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto logits = dyn_cast<RankedTensorType>(adaptor.getLogits().getType());
  auto labels = dyn_cast<RankedTensorType>(adaptor.getLabels().getType());
  if (!logits || !labels)
    return failure();
  if (logits.getRank() < 1)
    return inferError<SoftmaxCrossEntropyOp>(loc)
           << "expects logits of rank at least 1 (a class dimension last)";
  ArrayRef<int64_t> batch = logits.getShape().drop_back();
  if (labels.getRank() != logits.getRank() - 1 ||
      !llvm::all_of(llvm::zip(batch, labels.getShape()), [](auto p) {
        return dimsAgree(std::get<0>(p), std::get<1>(p));
      }))
    return inferError<SoftmaxCrossEntropyOp>(loc)
           << "labels of shape " << formatShape(labels.getShape())
           << " do not match logits of shape " << formatShape(logits.getShape())
           << ": expected the logits' shape without its last (class) "
              "dimension";
  inferred.push_back(RankedTensorType::get({}, logits.getElementType()));
  return success();
}

/// The loss has the logits' element type, or f32 with narrower logits.
bool SoftmaxCrossEntropyOp::isCompatibleReturnTypes(TypeRange inferred,
                                                    TypeRange actual) {
  if (inferred == actual)
    return true;
  if (inferred.size() != 1 || actual.size() != 1)
    return false;
  auto logits = dyn_cast<RankedTensorType>(inferred.front());
  auto loss = dyn_cast<RankedTensorType>(actual.front());
  if (!logits || !loss || logits.getShape() != loss.getShape())
    return false;
  auto narrow = dyn_cast<FloatType>(logits.getElementType());
  return narrow && narrow.getWidth() < 32 && loss.getElementType().isF32();
}

LogicalResult SoftmaxCrossEntropyOp::verify() {
  if (std::optional<uint64_t> classes = getNumClasses()) {
    int64_t c = getLogits().getType().getShape().back();
    if (*classes < 1 || (!isDynamic(c) && int64_t(*classes) > c))
      return emitOpError("classes = ") << *classes << " must be in [1, " << c
                                       << "], the size of the class dimension";
  }
  return success();
}

template <typename OpTy>
static LogicalResult inferRegressionLoss(std::optional<Location> loc,
                                         typename OpTy::Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto target = dyn_cast<RankedTensorType>(adaptor.getTarget().getType());
  if (!input || !target)
    return failure();
  if (input.getRank() != target.getRank() ||
      !llvm::all_of(llvm::zip(input.getShape(), target.getShape()), [](auto p) {
        return dimsAgree(std::get<0>(p), std::get<1>(p));
      }))
    return inferError<OpTy>(loc)
           << "input of shape " << formatShape(input.getShape())
           << " and target of shape " << formatShape(target.getShape())
           << " differ; they must have the same shape";
  inferred.push_back(RankedTensorType::get({}, input.getElementType()));
  return success();
}

LogicalResult MseLossOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferRegressionLoss<MseLossOp>(loc, adaptor, inferred);
}

LogicalResult L1LossOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferRegressionLoss<L1LossOp>(loc, adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  RankedTensorType logits = getLogits().getType();
  RankedTensorType labels = getLabels().getType();
  if (logits.getRank() < 1 || labels.getRank() != logits.getRank() - 1 ||
      !llvm::all_of(
          llvm::zip(logits.getShape().drop_back(), labels.getShape()),
          [](auto p) { return dimsAgree(std::get<0>(p), std::get<1>(p)); }))
    return emitOpError("labels of shape ")
           << formatShape(labels.getShape()) << " do not match logits of shape "
           << formatShape(logits.getShape())
           << ": expected the logits' shape without its last (class) "
              "dimension";
  auto narrow = dyn_cast<FloatType>(logits.getElementType());
  bool widens = narrow && narrow.getWidth() < 32;
  auto expected = [&](InFlightDiagnostic &&diag) -> InFlightDiagnostic && {
    diag << ", expected " << logits.getElementType() << " like the logits";
    if (widens)
      diag << " or f32";
    return std::move(diag);
  };
  Type grad = getGrad().getType().getElementType();
  if (grad != logits.getElementType() && !(widens && grad.isF32()))
    return expected(emitOpError("the loss gradient has element type ") << grad);
  RankedTensorType result = getType();
  if (result.getShape() != logits.getShape())
    return emitOpError("result of shape ")
           << formatShape(result.getShape()) << " differs from the logits' "
           << formatShape(logits.getShape());
  if (result.getElementType() != logits.getElementType() &&
      !(widens && result.getElementType().isF32()))
    return expected(emitOpError("result has element type ")
                    << result.getElementType());
  return success();
}

LogicalResult LayerNormGradOp::verify() {
  RankedTensorType input = getInput().getType();
  int64_t rank = input.getRank();
  FailureOr<int64_t> axis = normalizeAxis(getAxis(), rank);
  if (rank == 0 || failed(axis))
    return emitOpError("axis ")
           << getAxis() << " is out of range for a rank-" << rank << " input";
  if (getEpsilon().convertToDouble() < 0)
    return emitOpError("expects epsilon >= 0");
  Type param = getScale().getType().getElementType();
  if (!isNormParamType(input.getElementType(), param))
    return paramTypeError(emitOpError(), input.getElementType(), param);
  ArrayRef<int64_t> normalized = input.getShape().drop_front(*axis);
  if (getScale().getType().getShape() != normalized)
    return emitOpError("scale has shape ")
           << formatShape(getScale().getType().getShape())
           << ", expected the normalized shape " << formatShape(normalized);
  return success();
}

int64_t LayerNormGradOp::getNormalizedAxis() {
  return *normalizeAxis(getAxis(), getInput().getType().getRank());
}

/// The output shape of a 2-D convolution, or failure with a reason.
static FailureOr<SmallVector<int64_t>>
convOutputShape(ArrayRef<int64_t> in, ArrayRef<int64_t> f,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                ArrayRef<int64_t> dilation, int64_t groups, Layout layout,
                std::string &why) {
  if (in.size() != 4 || f.size() != 4) {
    why = "expects rank-4 input and filter";
    return failure();
  }
  if (strides.size() != 2 || padding.size() != 4 || dilation.size() != 2 ||
      groups < 1) {
    why = "expects 2 strides, 4 paddings, 2 dilations and groups >= 1";
    return failure();
  }
  bool nchw = layout == Layout::nchw;
  ImageDims dims = imageDims(layout);
  int64_t channels = in[dims.c], filters = nchw ? f[0] : f[3];
  int64_t filterChannels = nchw ? f[1] : f[2];
  llvm::raw_string_ostream os(why);
  if (channels % groups) {
    os << "input channels (" << channels << ") are not divisible by groups ("
       << groups << ")";
    return failure();
  }
  if (filters % groups) {
    os << "filter count (" << filters << ") is not divisible by groups ("
       << groups << ")";
    return failure();
  }
  if (filterChannels * groups != channels) {
    os << "the filter has " << filterChannels << " channels a group, expected "
       << channels / groups << " (input channels " << channels << " / groups "
       << groups << ")";
    return failure();
  }
  FailureOr<int64_t> oh =
      windowOutputSize(in[dims.h], nchw ? f[2] : f[0], strides[0], padding[0],
                       padding[1], dilation[0]);
  FailureOr<int64_t> ow =
      windowOutputSize(in[dims.w], nchw ? f[3] : f[1], strides[1], padding[2],
                       padding[3], dilation[1]);
  if (failed(oh) || failed(ow)) {
    os << "the dilated filter is larger than the padded input (input "
       << formatShape(in) << ", filter " << formatShape(f) << ")";
    return failure();
  }
  return nchw ? SmallVector<int64_t>{in[0], filters, *oh, *ow}
              : SmallVector<int64_t>{in[0], *oh, *ow, filters};
}

/// Checks that convolving `input` with `filter` gives `grad`'s shape.
template <typename OpTy>
static LogicalResult verifyConvBackward(OpTy op, RankedTensorType input,
                                        RankedTensorType filter,
                                        RankedTensorType grad) {
  std::string why;
  FailureOr<SmallVector<int64_t>> shape = convOutputShape(
      input.getShape(), filter.getShape(), op.getStrides(), op.getPadding(),
      op.getDilation(), op.getGroups(), op.getLayout(), why);
  if (failed(shape))
    return op.emitOpError() << why;
  if (ArrayRef<int64_t>(*shape) != grad.getShape())
    return op.emitOpError("the gradient has shape ")
           << formatShape(grad.getShape()) << ", but the convolution of input "
           << formatShape(input.getShape()) << " with filter "
           << formatShape(filter.getShape()) << " gives "
           << formatShape(*shape);
  return verifyAccType(op, op.getAccType(), grad.getElementType());
}

LogicalResult Conv2DBackwardDataOp::verify() {
  return verifyConvBackward(*this, getType(), getFilter().getType(),
                            getGrad().getType());
}

LogicalResult Conv2DBackwardFilterOp::verify() {
  return verifyConvBackward(*this, getInput().getType(), getType(),
                            getGrad().getType());
}

/// Checks that pooling `pooled` (the forward op's input) with the window
/// attributes of the gradient op `op` gives `op`'s gradient shape.
template <typename PoolOpTy, typename GradOpTy>
static LogicalResult verifyPoolGrad(GradOpTy op, Value pooled) {
  typename PoolOpTy::Properties props;
  props.kernel = op.getKernelAttr();
  props.strides = op.getStridesAttr();
  props.padding = op.getPaddingAttr();
  props.layout = op.getLayoutAttr();
  SmallVector<Value> operands = {pooled};
  typename PoolOpTy::Adaptor adaptor(operands, DictionaryAttr(), props);
  SmallVector<Type> inferred;
  if (failed(inferPool<PoolOpTy>(op.getLoc(), adaptor, inferred)))
    return failure();
  ArrayRef<int64_t> shape = cast<RankedTensorType>(inferred[0]).getShape();
  if (shape != op.getGrad().getType().getShape())
    return op.emitOpError("the gradient has shape ")
           << formatShape(op.getGrad().getType().getShape())
           << ", but pooling the "
           << (pooled == op->getResult(0) ? "result type" : "input")
           << " gives " << formatShape(shape);
  return success();
}

LogicalResult MaxPool2DGradOp::verify() {
  return verifyPoolGrad<MaxPool2DOp>(*this, getInput());
}

LogicalResult AvgPool2DGradOp::verify() {
  return verifyPoolGrad<AvgPool2DOp>(*this, getResult());
}

LogicalResult EmbeddingGradOp::verify() {
  RankedTensorType table = getType(), grad = getGrad().getType();
  ArrayRef<int64_t> indices = getIndices().getType().getShape();
  SmallVector<int64_t> expected(indices);
  if (table.getRank() == 2)
    expected.push_back(table.getDimSize(1));
  if (table.getRank() != 2 || grad.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("expects a rank-2 table gradient and a gradient of "
                       "shape ")
           << formatShape(expected)
           << " (the indices' shape and the row "
              "width), got "
           << formatShape(grad.getShape()) << " and "
           << formatShape(table.getShape());
  return success();
}

LogicalResult BatchNormGradOp::verify() {
  RankedTensorType input = getInput().getType();
  int64_t rank = input.getRank();
  FailureOr<int64_t> axis = normalizeAxis(getAxis(), rank);
  if (rank < 2 || failed(axis))
    return emitOpError("channel axis ")
           << getAxis() << " is out of range for a rank-" << rank << " input";
  if (getEpsilon().convertToDouble() < 0)
    return emitOpError("expects epsilon >= 0");
  Type param = getScale().getType().getElementType();
  if (!isNormParamType(input.getElementType(), param))
    return paramTypeError(emitOpError(), input.getElementType(), param);
  if (getScale().getType().getRank() != 1 ||
      getScale().getType().getDimSize(0) != input.getDimSize(*axis))
    return emitOpError("scale has shape ")
           << formatShape(getScale().getType().getShape())
           << ", expected one value per channel (" << input.getDimSize(*axis)
           << ")";
  return success();
}

int64_t BatchNormGradOp::getNormalizedAxis() {
  return *normalizeAxis(getAxis(), getInput().getType().getRank());
}

LogicalResult MomentumUpdateOp::verify() {
  double lr = getLr().convertToDouble(), mu = getMomentum().convertToDouble();
  if (lr < 0 || mu < 0 || mu >= 1 || getWeightDecay().convertToDouble() < 0)
    return emitOpError("expects lr >= 0, momentum in [0, 1) and "
                       "weight_decay >= 0, got lr = ")
           << lr << ", momentum = " << mu
           << ", weight_decay = " << getWeightDecay().convertToDouble();
  return success();
}

LogicalResult AdamUpdateOp::verify() {
  double lr = getLr().convertToDouble(), b1 = getBeta1().convertToDouble(),
         b2 = getBeta2().convertToDouble(), eps = getEps().convertToDouble();
  if (lr < 0 || b1 < 0 || b1 >= 1 || b2 < 0 || b2 >= 1 || eps <= 0 ||
      getWeightDecay().convertToDouble() < 0)
    return emitOpError("expects lr >= 0, beta1 and beta2 in [0, 1), eps > 0 "
                       "and weight_decay >= 0, got lr = ")
           << lr << ", beta1 = " << b1 << ", beta2 = " << b2
           << ", eps = " << eps;
  return success();
}

LogicalResult SgdUpdateOp::verify() {
  if (getLr().convertToDouble() < 0 || getWeightDecay().convertToDouble() < 0)
    return emitOpError("expects lr >= 0 and weight_decay >= 0, got lr = ")
           << getLr().convertToDouble()
           << ", weight_decay = " << getWeightDecay().convertToDouble();
  return success();
}

//===----------------------------------------------------------------------===//
// Gradient clipping and loss scaling
//===----------------------------------------------------------------------===//

/// Results match the gradients one to one, shape for shape.
static LogicalResult verifyGradientResults(Operation *op, ValueRange grads,
                                           ValueRange results) {
  if (grads.empty())
    return op->emitOpError("expects at least one gradient");
  if (grads.size() != results.size())
    return op->emitOpError("expects one result per gradient, got ")
           << grads.size() << " gradients and " << results.size() << " results";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(grads, results))) {
    auto in = cast<RankedTensorType>(std::get<0>(pair).getType());
    auto out = cast<RankedTensorType>(std::get<1>(pair).getType());
    if (in.getShape() != out.getShape())
      return op->emitOpError("result #")
             << i << " must have the shape of gradient #" << i << ", got "
             << out << " for " << in;
  }
  return success();
}

static LogicalResult verifyMaxNorm(Operation *op, double maxNorm) {
  if (!(maxNorm > 0) || !std::isfinite(maxNorm))
    return op->emitOpError("expects a finite max_norm > 0, got ") << maxNorm;
  return success();
}

LogicalResult ClipByGlobalNormOp::verify() {
  if (failed(verifyGradientResults(*this, getGrads(), getResults())))
    return failure();
  return verifyMaxNorm(*this, getMaxNorm().convertToDouble());
}

LogicalResult UnscaleAndCheckOp::verify() {
  if (failed(verifyGradientResults(*this, getGrads(), getUnscaled())))
    return failure();
  if (getScales().size() != 1 && getScales().size() != getGrads().size())
    return emitOpError("expects one scale, or one per gradient (")
           << getGrads().size() << "), got " << getScales().size();
  if (std::optional<APFloat> maxNorm = getMaxNorm())
    return verifyMaxNorm(*this, maxNorm->convertToDouble());
  return success();
}

LogicalResult LayerScaleOp::verify() {
  double minValue = getMinValue().convertToDouble();
  double maxValue = getMaxValue().convertToDouble();
  double maxScale = getMaxScale().convertToDouble();
  if (getFanIn() < 1)
    return emitOpError("expects fan_in >= 1, got ") << getFanIn();
  if (!(minValue > 0) || !(maxValue > minValue) || !std::isfinite(maxValue))
    return emitOpError("expects 0 < min_value < max_value, both finite, got ")
           << minValue << " and " << maxValue;
  if (!(maxScale >= 1) || !std::isfinite(maxScale))
    return emitOpError("expects a finite max_scale >= 1, got ") << maxScale;
  return success();
}

LogicalResult SelectOp::verify() {
  auto cond = getCondition().getType();
  if (cond.getRank() != 0 && cond.getShape() != getType().getShape())
    return emitOpError("expects a rank-0 condition or one of shape ")
           << getType() << ", got " << cond;
  return success();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    return getTrueValue();
  auto cond = dyn_cast_if_present<DenseIntElementsAttr>(adaptor.getCondition());
  if (cond && cond.isSplat())
    return cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  return {};
}

LogicalResult SmCountOp::verify() {
  // By name: the dialect does not depend on the GPU dialect.
  for (Operation *parent = (*this)->getParentOp(); parent;
       parent = parent->getParentOp()) {
    StringRef name = parent->getName().getStringRef();
    if (name == "gpu.launch" || name == "gpu.func" || name == "gpu.module")
      return emitOpError("is host code (the device's multiprocessor count, "
                         "asked before a launch), not part of a GPU kernel: "
                         "found inside '")
             << name << "'";
  }
  // cuLaunchKernelEx runs clusters of up to 16 blocks (8 portably).
  if (getCluster() < 1 || getCluster() > 16)
    return emitOpError("expects a cluster of 1 to 16 blocks (the most that "
                       "an sm_90 GPU runs), got ")
           << getCluster();
  return success();
}

LogicalResult UpdateScaleOp::verify() {
  double growth = getGrowthFactor().convertToDouble();
  double backoff = getBackoffFactor().convertToDouble();
  double minScale = getMinScale().convertToDouble();
  double maxScale = getMaxScale().convertToDouble();
  if (!(growth > 1) || !std::isfinite(growth))
    return emitOpError("expects a finite growth_factor > 1, got ") << growth;
  if (!(backoff > 0 && backoff < 1))
    return emitOpError("expects backoff_factor in (0, 1), got ") << backoff;
  if (getGrowthInterval() < 1 || getGrowthInterval() > INT32_MAX)
    return emitOpError("expects growth_interval in [1, 2^31), got ")
           << getGrowthInterval();
  if (getHysteresis() < 1 || getHysteresis() > INT32_MAX)
    return emitOpError("expects hysteresis in [1, 2^31), got ")
           << getHysteresis();
  if (!(minScale > 0) || !(maxScale >= minScale) || !std::isfinite(maxScale) ||
      maxScale > double(std::numeric_limits<float>::max()))
    return emitOpError("expects 0 < min_scale <= max_scale <= the largest "
                       "f32, got ")
           << minScale << " and " << maxScale;
  return success();
}

#define GET_OP_CLASSES
#include "mpt/Dialect/MPT/IR/MPTOps.cpp.inc"
