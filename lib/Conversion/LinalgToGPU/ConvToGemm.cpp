//===- ConvToGemm.cpp - mpt-conv-to-gemm ----------------------------------===//
//
// A 2-D convolution as im2col and one matmul, so that Tensor Cores run it.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_CONVTOGEMM
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

bool isNarrowFloat(Type t) {
  auto f = dyn_cast<FloatType>(t);
  return f && f.getWidth() < 32;
}

SmallVector<int64_t> values(DenseIntElementsAttr attr) {
  SmallVector<int64_t> out;
  for (const APInt &v : attr.getValues<APInt>())
    out.push_back(v.getSExtValue());
  return out;
}

/// The logical dimensions of a convolution's patch matrix.
enum PatchDim { kN, kOH, kOW, kC, kKH, kKW };

/// The patches of a 2-D convolution's (padded) input, one element per
/// (n, oh, ow, c, kh, kw): input[n, c, oh·s + kh·d, ow·s + kw·d] (NCHW) or
/// input[n, oh·s + kh·d, ow·s + kw·d, c] (NHWC). `sizes` holds the size of
/// each PatchDim; the result's dimensions are those of `order`.
Value gatherPatches(OpBuilder &b, Location loc, Value input, bool nchw,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilation,
                    ArrayRef<int64_t> sizes, ArrayRef<PatchDim> order) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr, 6> dim(6);
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(order)) {
    dim[d] = getAffineDimExpr(i, ctx);
    shape.push_back(sizes[d]);
  }
  AffineExpr ih = dim[kOH] * strides[0] + dim[kKH] * dilation[0];
  AffineExpr iw = dim[kOW] * strides[1] + dim[kKW] * dilation[1];
  AffineMap inMap =
      AffineMap::get(6, 0,
                     nchw ? ArrayRef<AffineExpr>{dim[kN], dim[kC], ih, iw}
                          : ArrayRef<AffineExpr>{dim[kN], ih, iw, dim[kC]},
                     ctx);
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  SmallVector<utils::IteratorType> par(6, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{empty.getType()}, ValueRange{input},
             ValueRange{empty},
             ArrayRef<AffineMap>{inMap,
                                 AffineMap::getMultiDimIdentityMap(6, ctx)},
             par,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

struct ConvToGemmPass : public mpt::impl::ConvToGemmBase<ConvToGemmPass> {
  using ConvToGemmBase::ConvToGemmBase;

  /// f16/bf16 operands; f32 ones when they go to Tensor Cores as tf32.
  bool onTensorCores(Type t) { return isNarrowFloat(t) || (tf32 && t.isF32()); }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> convs;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNchwFchwOp>(op))
        convs.push_back(op);
    });
    for (linalg::LinalgOp op : convs)
      rewrite(op);
    SmallVector<linalg::GenericOp> filterGradients;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr(mpt::kFilterGradientAttrName))
        filterGradients.push_back(op);
    });
    for (linalg::GenericOp op : filterGradients)
      rewriteFilterGradient(op);
  }

  /// The filter gradient marked by convert-mpt-to-linalg (inputs: the padded
  /// input and the output gradient; init: the zero-filled accumulator) as
  /// one matmul of an im2col of the input with the output gradient:
  /// NCHW: dW (F x C·KH·KW) = dy (F x N·OH·OW) · col (N·OH·OW x C·KH·KW);
  /// NHWC: dW (KH·KW·C x F) = colT (KH·KW·C x N·OH·OW) · dy (N·OH·OW x F).
  void rewriteFilterGradient(linalg::GenericOp op) {
    auto info = op->getAttrOfType<DictionaryAttr>(mpt::kFilterGradientAttrName);
    auto stridesAttr = info.getAs<DenseI64ArrayAttr>("strides");
    auto dilationAttr = info.getAs<DenseI64ArrayAttr>("dilation");
    auto nchwAttr = info.getAs<BoolAttr>("nchw");
    Value x = op.getInputs()[0], dy = op.getInputs()[1];
    Value init = op.getOutputs()[0];
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto dyType = dyn_cast<RankedTensorType>(dy.getType());
    auto type = dyn_cast<RankedTensorType>(init.getType());
    if (!stridesAttr || !dilationAttr || !nchwAttr || !xType || !dyType ||
        !type || !xType.hasStaticShape() || !dyType.hasStaticShape() ||
        !type.hasStaticShape() || !onTensorCores(xType.getElementType()) ||
        dyType.getElementType() != xType.getElementType())
      return;
    bool nchw = nchwAttr.getValue();
    ArrayRef<int64_t> s = stridesAttr.asArrayRef(),
                      d = dilationAttr.asArrayRef();
    ArrayRef<int64_t> f = type.getShape(), g = dyType.getShape();
    int64_t filters = nchw ? f[0] : f[3], c = nchw ? f[1] : f[2];
    int64_t kh = nchw ? f[2] : f[0], kw = nchw ? f[3] : f[1];
    int64_t n = g[0], oh = nchw ? g[2] : g[1], ow = nchw ? g[3] : g[2];
    int64_t pixels = n * oh * ow, depth = c * kh * kw;
    Type element = xType.getElementType(), acc = type.getElementType();
    Location loc = op.getLoc();
    OpBuilder b(op);
    // The patch matrix: col (n, oh, ow, c, kh, kw) for NCHW, colT
    // (kh, kw, c, n, oh, ow) for NHWC.
    Value patches =
        gatherPatches(b, loc, x, nchw, s, d, {n, oh, ow, c, kh, kw},
                      nchw ? ArrayRef<PatchDim>{kN, kOH, kOW, kC, kKH, kKW}
                           : ArrayRef<PatchDim>{kKH, kKW, kC, kN, kOH, kOW});
    SmallVector<ReassociationIndices> halves = {{0, 1, 2}, {3, 4, 5}};
    Value lhs, rhs, init2d;
    if (nchw) {
      Value transposedInit =
          tensor::EmptyOp::create(b, loc, {g[1], g[0], g[2], g[3]}, element);
      Value dyT = linalg::TransposeOp::create(b, loc, dy, transposedInit,
                                              ArrayRef<int64_t>{1, 0, 2, 3})
                      .getResult()[0];
      lhs = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({filters, pixels}, element), dyT,
          SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
      rhs = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({pixels, depth}, element), patches,
          halves);
      init2d = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({filters, depth}, acc), init,
          SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    } else {
      lhs = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({depth, pixels}, element), patches,
          halves);
      rhs = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({pixels, filters}, element), dy,
          SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
      init2d = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({depth, filters}, acc), init,
          SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    }
    Value product = linalg::MatmulOp::create(b, loc, ValueRange{lhs, rhs},
                                             ValueRange{init2d})
                        .getResult(0);
    Value dw = tensor::ExpandShapeOp::create(
        b, loc, type, product,
        nchw ? SmallVector<ReassociationIndices>{{0}, {1, 2, 3}}
             : SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    op->getResult(0).replaceAllUsesWith(dw);
    op->erase();
  }

  void rewrite(linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics())
      return;
    bool nhwc = isa<linalg::Conv2DNhwcHwcfOp>(op);
    Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
    Value init = op.getDpsInits()[0];
    auto inType = cast<RankedTensorType>(input.getType());
    auto fType = cast<RankedTensorType>(filter.getType());
    auto outType = cast<RankedTensorType>(init.getType());
    if (!inType.hasStaticShape() || !fType.hasStaticShape() ||
        !outType.hasStaticShape() || !onTensorCores(inType.getElementType()) ||
        fType.getElementType() != inType.getElementType())
      return;
    SmallVector<int64_t> strides, dilations;
    if (auto c = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation())) {
      strides = values(c.getStrides());
      dilations = values(c.getDilations());
    } else {
      auto d = cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
      strides = values(d.getStrides());
      dilations = values(d.getDilations());
    }
    ArrayRef<int64_t> o = outType.getShape(), f = fType.getShape();
    int64_t n = o[0], oh = nhwc ? o[1] : o[2], ow = nhwc ? o[2] : o[3];
    int64_t filters = nhwc ? f[3] : f[0], c = nhwc ? f[2] : f[1];
    int64_t kh = nhwc ? f[0] : f[2], kw = nhwc ? f[1] : f[3];
    Type element = inType.getElementType(), acc = outType.getElementType();
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    OpBuilder b(op);

    // im2col: col[n, oh, ow, (kh, kw, c) or (c, kh, kw)], the patch order
    // that matches the filter's memory order.
    Value col = gatherPatches(
        b, loc, input, !nhwc, strides, dilations, {n, oh, ow, c, kh, kw},
        nhwc ? ArrayRef<PatchDim>{kN, kOH, kOW, kKH, kKW, kC}
             : ArrayRef<PatchDim>{kN, kOH, kOW, kC, kKH, kKW});
    int64_t rows = n * oh * ow, depth = c * kh * kw;
    auto colType = RankedTensorType::get({rows, depth}, element);
    Value col2d = tensor::CollapseShapeOp::create(
        b, loc, colType, col,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});

    // The filter as a depth x F matrix.
    Value filter2d;
    if (nhwc) {
      filter2d = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({depth, filters}, element), filter,
          SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    } else {
      Value flat = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({filters, depth}, element), filter,
          SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
      Value empty = tensor::EmptyOp::create(b, loc, {depth, filters}, element);
      filter2d = linalg::TransposeOp::create(b, loc, flat, empty,
                                             ArrayRef<int64_t>{1, 0})
                     .getResult()[0];
    }

    // Tensor Cores take K in steps of 16: pad the patch matrix and the
    // filter with zero columns and rows (the products they add are zero).
    int64_t padded = (depth + 15) / 16 * 16;
    if (padded != depth) {
      Value zero =
          arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
      auto pad = [&](Value v, ArrayRef<int64_t> high,
                     ArrayRef<int64_t> shape) -> Value {
        SmallVector<OpFoldResult> lo(2, b.getIndexAttr(0)), hi;
        for (int64_t h : high)
          hi.push_back(b.getIndexAttr(h));
        return tensor::PadOp::create(
            b, loc, RankedTensorType::get(shape, element), v, lo, hi, zero);
      };
      col2d = pad(col2d, {0, padded - depth}, {rows, padded});
      filter2d = pad(filter2d, {padded - depth, 0}, {padded, filters});
    }

    Value result;
    if (nhwc) {
      // The output is rows x F in place.
      Value init2d = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({rows, filters}, acc), init,
          SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
      Value mm = linalg::MatmulOp::create(b, loc, ValueRange{col2d, filter2d},
                                          ValueRange{init2d})
                     .getResult(0);
      result = tensor::ExpandShapeOp::create(
          b, loc, outType, mm,
          SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    } else {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(acc, 0.0));
      Value empty = tensor::EmptyOp::create(b, loc, {rows, filters}, acc);
      Value filled = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
      Value mm = linalg::MatmulOp::create(b, loc, ValueRange{col2d, filter2d},
                                          ValueRange{filled})
                     .getResult(0);
      Value mm4 = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get({n, oh, ow, filters}, acc), mm,
          SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
      // out[n, f, oh, ow] = init[n, f, oh, ow] + mm[n, oh, ow, f].
      AffineExpr a0, a1, a2, a3;
      bindDims(ctx, a0, a1, a2, a3);
      AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
      AffineMap fromNhwc = AffineMap::get(4, 0, {a0, a2, a3, a1}, ctx);
      SmallVector<utils::IteratorType> par4(4, utils::IteratorType::parallel);
      result = linalg::GenericOp::create(
                   b, loc, TypeRange{outType}, ValueRange{mm4},
                   ValueRange{init}, ArrayRef<AffineMap>{fromNhwc, id}, par4,
                   [](OpBuilder &nb, Location nl, ValueRange args) {
                     linalg::YieldOp::create(
                         nb, nl,
                         arith::AddFOp::create(nb, nl, args[1], args[0])
                             .getResult());
                   })
                   .getResult(0);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
};

} // namespace
