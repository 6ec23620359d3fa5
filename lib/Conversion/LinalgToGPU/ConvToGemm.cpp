//===- ConvToGemm.cpp - mpt-conv-to-gemm ----------------------------------===//
//
// A 2-D convolution as im2col and one matmul, so that Tensor Cores run it.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/ConvWindow.h"
#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <tuple>

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

/// (F, C, KH, KW, N, OH, OW) of a convolution gradient, from the filter's
/// shape (FCHW or HWCF) and the output gradient's (NCHW or NHWC).
using GradientSizes =
    std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
GradientSizes gradientSizes(ArrayRef<int64_t> f, ArrayRef<int64_t> g,
                            bool nchw) {
  if (nchw)
    return {f[0], f[1], f[2], f[3], g[0], g[2], g[3]};
  return {f[3], f[2], f[0], f[1], g[0], g[1], g[2]};
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
    for (linalg::GenericOp op : marked(mpt::kFilterGradientAttrName))
      rewriteFilterGradient(op);
    for (linalg::GenericOp op : marked(mpt::kDataGradientAttrName))
      rewriteDataGradient(op);
  }

  /// The generics convert-mpt-to-linalg marked with `attr`.
  SmallVector<linalg::GenericOp> marked(StringRef attr) {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr(attr))
        ops.push_back(op);
    });
    return ops;
  }

  /// The data gradient marked by convert-mpt-to-linalg (inputs: the filter
  /// and a shape-only window; the output gradient read in its body; init:
  /// the zero-filled accumulator) as one matmul and a col2im:
  /// NCHW: cols (C·KH·KW x N·OH·OW) = Wᵀ (C·KH·KW x F) · dy (F x N·OH·OW);
  /// NHWC: colsᵀ (N·OH·OW x KH·KW·C) = dy (N·OH·OW x F) · Wᵀ (F x KH·KW·C);
  /// then dx[n, c, i, j] = the sum over (kh, kw) of the cols entry of the
  /// output position that reads (i, j) through (kh, kw), where there is one.
  void rewriteDataGradient(linalg::GenericOp op) {
    auto info = op->getAttrOfType<DictionaryAttr>(mpt::kDataGradientAttrName);
    auto stridesAttr = info.getAs<DenseI64ArrayAttr>("strides");
    auto dilationAttr = info.getAs<DenseI64ArrayAttr>("dilation");
    auto paddingAttr = info.getAs<DenseI64ArrayAttr>("padding");
    auto nchwAttr = info.getAs<BoolAttr>("nchw");
    Value w = op.getInputs()[0], init = op.getOutputs()[0], dy;
    op.getRegion().walk([&](tensor::ExtractOp e) { dy = e.getTensor(); });
    if (!stridesAttr || !dilationAttr || !paddingAttr || !nchwAttr || !dy ||
        paddingAttr.size() != 4)
      return;
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    auto dyType = dyn_cast<RankedTensorType>(dy.getType());
    auto type = dyn_cast<RankedTensorType>(init.getType());
    if (!wType || !dyType || !type || !wType.hasStaticShape() ||
        !dyType.hasStaticShape() || !type.hasStaticShape() ||
        !onTensorCores(wType.getElementType()) ||
        dyType.getElementType() != wType.getElementType())
      return;
    bool nchw = nchwAttr.getValue();
    ArrayRef<int64_t> s = stridesAttr.asArrayRef(),
                      d = dilationAttr.asArrayRef(),
                      pad = paddingAttr.asArrayRef();
    int64_t filters, c, kh, kw, n, oh, ow;
    std::tie(filters, c, kh, kw, n, oh, ow) =
        gradientSizes(wType.getShape(), dyType.getShape(), nchw);
    int64_t pixels = n * oh * ow, depth = c * kh * kw;
    ArrayRef<int64_t> g = dyType.getShape();
    Type element = wType.getElementType(), acc = type.getElementType();
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    OpBuilder b(op);
    auto transpose = [&](Value v, ArrayRef<int64_t> shape,
                         ArrayRef<int64_t> perm) {
      Value empty = tensor::EmptyOp::create(b, loc, shape, element);
      return linalg::TransposeOp::create(b, loc, v, empty, perm).getResult()[0];
    };
    auto collapse = [&](Value v, ArrayRef<int64_t> shape,
                        ArrayRef<ReassociationIndices> groups) {
      return tensor::CollapseShapeOp::create(
                 b, loc, RankedTensorType::get(shape, element), v, groups)
          .getResult();
    };
    Value lhs, rhs;
    SmallVector<int64_t> colsShape;
    if (nchw) {
      Value wFlat = collapse(w, {filters, depth}, {{0}, {1, 2, 3}});
      lhs = transpose(wFlat, {depth, filters}, {1, 0});
      Value dyT = transpose(dy, {g[1], g[0], g[2], g[3]}, {1, 0, 2, 3});
      rhs = collapse(dyT, {filters, pixels}, {{0}, {1, 2, 3}});
      colsShape = {c, kh, kw, n, oh, ow};
    } else {
      lhs = collapse(dy, {pixels, filters}, {{0, 1, 2}, {3}});
      Value wFlat = collapse(w, {depth, filters}, {{0, 1, 2}, {3}});
      rhs = transpose(wFlat, {filters, depth}, {1, 0});
      colsShape = {n, oh, ow, kh, kw, c};
    }
    int64_t rows = nchw ? depth : pixels, cols = nchw ? pixels : depth;
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(acc, 0.0));
    Value filled =
        linalg::FillOp::create(
            b, loc, zero,
            tensor::EmptyOp::create(b, loc, {rows, cols}, acc).getResult())
            .getResult(0);
    Value product = linalg::MatmulOp::create(b, loc, ValueRange{lhs, rhs},
                                             ValueRange{filled})
                        .getResult(0);
    Value cols6 = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(colsShape, acc), product,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});

    // col2im: iteration (n, c, i, j, kh, kw) (NCHW) or (n, i, j, c, kh, kw)
    // (NHWC); a shape-only window operand bounds (kh, kw).
    AffineExpr e0, e1, e2, e3, ekh, ekw;
    bindDims(ctx, e0, e1, e2, e3, ekh, ekw);
    Value window = tensor::EmptyOp::create(b, loc, {kh, kw}, acc);
    SmallVector<AffineMap> maps = {AffineMap::get(6, 0, {ekh, ekw}, ctx),
                                   AffineMap::get(6, 0, {e0, e1, e2, e3}, ctx)};
    auto par = utils::IteratorType::parallel,
         red = utils::IteratorType::reduction;
    Value dx =
        linalg::GenericOp::create(
            b, loc, TypeRange{type}, ValueRange{window}, ValueRange{init}, maps,
            ArrayRef<utils::IteratorType>{par, par, par, par, red, red},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              auto idx = [&](unsigned dim) {
                return linalg::IndexOp::create(nb, nl, dim).getResult();
              };
              Value i = idx(nchw ? 2 : 1), j = idx(nchw ? 3 : 2);
              Value ch = idx(nchw ? 1 : 3);
              auto [oy, okY] =
                  mpt::windowSource(nb, nl, i, idx(4), pad[0], s[0], d[0], oh);
              auto [ox, okX] =
                  mpt::windowSource(nb, nl, j, idx(5), pad[2], s[1], d[1], ow);
              SmallVector<Value> at =
                  nchw ? SmallVector<Value>{ch, idx(4), idx(5), idx(0), oy, ox}
                       : SmallVector<Value>{idx(0), oy, ox, idx(4), idx(5), ch};
              Value v = tensor::ExtractOp::create(nb, nl, cols6, at);
              Value term = arith::SelectOp::create(
                  nb, nl, arith::AndIOp::create(nb, nl, okY, okX), v,
                  arith::ConstantOp::create(nb, nl, nb.getFloatAttr(acc, 0.0)));
              linalg::YieldOp::create(
                  nb, nl,
                  arith::AddFOp::create(nb, nl, a[1], term).getResult());
            })
            .getResult(0);
    op->getResult(0).replaceAllUsesWith(dx);
    op->erase();
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
    ArrayRef<int64_t> g = dyType.getShape();
    int64_t filters, c, kh, kw, n, oh, ow;
    std::tie(filters, c, kh, kw, n, oh, ow) =
        gradientSizes(type.getShape(), g, nchw);
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
    // NCHW: the patch columns are the product's columns, which the Tensor
    // Core kernels take in rows of 16 bytes (8 16-bit or 4 f32 elements).
    // Pad them with zero columns (3 input channels: 27 -> 32 in f16) and
    // take the product's first `depth` columns.
    int64_t padded =
        llvm::alignTo(depth, 128 / element.getIntOrFloatBitWidth());
    if (nchw && padded != depth) {
      auto pad = [&](Value v, Type type) -> Value {
        SmallVector<OpFoldResult> lo(2, b.getIndexAttr(0)),
            hi = {b.getIndexAttr(0), b.getIndexAttr(padded - depth)};
        auto shaped = cast<RankedTensorType>(v.getType());
        Value zero =
            arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
        return tensor::PadOp::create(
            b, loc, RankedTensorType::get({shaped.getDimSize(0), padded}, type),
            v, lo, hi, zero);
      };
      rhs = pad(rhs, element);
      init2d = pad(init2d, acc);
    }
    Value product = linalg::MatmulOp::create(b, loc, ValueRange{lhs, rhs},
                                             ValueRange{init2d})
                        .getResult(0);
    if (nchw && padded != depth)
      product = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({filters, depth}, acc), product,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(filters),
                                 b.getIndexAttr(depth)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
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
