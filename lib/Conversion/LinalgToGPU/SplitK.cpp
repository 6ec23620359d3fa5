//===- SplitK.cpp - mpt-split-k -------------------------------------------===//
//
// A matmul whose output has too few tiles to fill the GPU (a weight
// gradient: M and N the layer's sizes, K the tokens of the batch) as a batch
// of S matmuls over slices of K, and an elementwise sum that adds their f32
// products in order. On tensors, before bufferization:
//
//   C[m, n] += sum_k A[m, k] B[k, n]
// becomes
//   P[s, m, n] = sum_k' A[m, s * Ks + k'] B[s * Ks + k', n]
//   C[m, n] += P[0, m, n] + P[1, m, n] + ... + P[S - 1, m, n]
//
// (elementwise, one input per slice; from P[0] where C is a fill of zeros)
//
// A's slices are a transpose of its expanded shape (M x S x Ks to
// S x M x Ks), which mpt-linalg-to-tensor-cores reads in place (a strided
// view); B's are its expanded shape (S x Ks x N).
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

namespace mpt {
#define GEN_PASS_DEF_SPLITK
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The output tile whose count the slices multiply: the smallest block tile
/// of the Tensor Core kernels.
constexpr int64_t kTile = 64;

/// The 64 x 64 tiles of an M x N output.
int64_t outputTiles(int64_t m, int64_t n) {
  return llvm::divideCeil(m, kTile) * llvm::divideCeil(n, kTile);
}

struct SplitKPass : public mpt::impl::SplitKBase<SplitKPass> {
  using SplitKBase::SplitKBase;

  void runOnOperation() override {
    if (splits < 1 || sms < 1 || minSlice < kTile) {
      getOperation().emitError()
          << "mpt-split-k: expects splits >= 1, sms >= 1 and min-slice >= "
          << kTile << " (a K tile); got splits=" << int64_t(splits)
          << ", sms=" << int64_t(sms) << ", min-slice=" << int64_t(minSlice);
      return signalPassFailure();
    }
    if (splits == 1)
      return;
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
    for (linalg::MatmulOp op : matmuls)
      if (int64_t slices = choose(op); slices > 1)
        split(op, slices);
  }

  /// The slices for `op`: the most, a power of two up to `splits`, for
  /// which the output's 64 x 64 tiles times the slices stay within `sms`
  /// and each slice is whole K tiles and at least `min-slice` long; 1 for
  /// a matmul this does not apply to (on buffers, with indexing maps of its
  /// own, without an f32 output).
  int64_t choose(linalg::MatmulOp op) {
    if (!op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
      return 1;
    auto a = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
    auto b = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    auto c = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
    if (!a || !b || !c || !a.hasStaticShape() || !b.hasStaticShape() ||
        !c.getElementType().isF32() || !isa<FloatType>(a.getElementType()) ||
        !isa<FloatType>(b.getElementType()))
      return 1;
    int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
    int64_t tiles = outputTiles(m, n);
    int64_t slices = 1;
    while (2 * slices <= splits && 2 * slices * tiles <= sms &&
           k % (2 * slices * kTile) == 0 && k / (2 * slices) >= minSlice)
      slices *= 2;
    return slices;
  }

  void split(linalg::MatmulOp op, int64_t slices) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value a = op.getDpsInputs()[0], bMat = op.getDpsInputs()[1];
    Value init = op.getDpsInits()[0];
    auto aType = cast<RankedTensorType>(a.getType());
    auto bType = cast<RankedTensorType>(bMat.getType());
    auto cType = cast<RankedTensorType>(init.getType());
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
            n = bType.getDimSize(1), slice = k / slices;
    // A: M x K as M x S x Ks, transposed to S x M x Ks.
    Value aSlices = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({m, slices, slice}, aType.getElementType()), a,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}});
    Value aBatch = tensor::EmptyOp::create(b, loc, {slices, m, slice},
                                           aType.getElementType());
    aBatch = linalg::TransposeOp::create(b, loc, aSlices, aBatch,
                                         ArrayRef<int64_t>{1, 0, 2})
                 .getResult()[0];
    // B: K x N as S x Ks x N.
    Value bBatch = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({slices, slice, n}, bType.getElementType()), bMat,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    // The slices' products, from zero.
    auto partialType = RankedTensorType::get({slices, m, n}, b.getF32Type());
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    Value partials =
        tensor::EmptyOp::create(b, loc, partialType.getShape(), b.getF32Type());
    partials = linalg::FillOp::create(b, loc, zero, partials).getResult(0);
    partials = linalg::BatchMatmulOp::create(b, loc, TypeRange{partialType},
                                             ValueRange{aBatch, bBatch},
                                             ValueRange{partials})
                   .getResult(0);
    // C plus the products, slice after slice, elementwise: one input per
    // slice (a contiguous M x N part of the products). A C of zeros (the
    // fill that matmuls start from) is left out: the sum starts from the
    // first slice, and no fill or read of C is left to do.
    SmallVector<Value> inputs;
    for (int64_t i = 0; i < slices; ++i)
      inputs.push_back(tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({m, n}, b.getF32Type()), partials,
          ValueRange{}, ValueRange{}, ValueRange{},
          b.getDenseI64ArrayAttr({i, 0, 0}), b.getDenseI64ArrayAttr({1, m, n}),
          b.getDenseI64ArrayAttr({1, 1, 1})));
    auto fill = init.getDefiningOp<linalg::FillOp>();
    bool fromZero = fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
    Value out = fromZero ? tensor::EmptyOp::create(b, loc, cType.getShape(),
                                                   cType.getElementType())
                               .getResult()
                         : init;
    MLIRContext *ctx = b.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    auto sum = linalg::GenericOp::create(
        b, loc, TypeRange{cType}, inputs, ValueRange{out},
        SmallVector<AffineMap>(slices + 1, identity),
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value total = fromZero ? args[0] : args[slices];
          for (int64_t i = fromZero ? 1 : 0; i < slices; ++i)
            total = arith::AddFOp::create(nb, nl, total, args[i]);
          linalg::YieldOp::create(nb, nl, total);
        });
    op.emitRemark() << "matmul " << m << "x" << n << "x" << k
                    << " split along K into " << slices << " slices of "
                    << slice << " (" << slices * outputTiles(m, n)
                    << " tiles of 64x64 for sms=" << int64_t(sms)
                    << "): a batch of " << slices
                    << " matmuls, their f32 products added in order";
    op.getResult(0).replaceAllUsesWith(sum.getResult(0));
    op.erase();
    fuseIntoUser(sum);
  }

  /// The sum fused into the elementwise op that is its only user (the
  /// rounding of `acc(f32)`, with the bias and activation that
  /// mpt-fuse-elementwise put with it): one kernel for both.
  void fuseIntoUser(linalg::GenericOp sum) {
    Value result = sum.getResult(0);
    if (!result.hasOneUse())
      return;
    OpOperand &use = *result.getUses().begin();
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!user || user.getNumLoops() != user.getNumParallelLoops() ||
        !linalg::areElementwiseOpsFusable(&use))
      return;
    IRRewriter rewriter(sum.getContext());
    rewriter.setInsertionPoint(user);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, &use);
    if (failed(fused))
      return;
    for (auto [from, to] : fused->replacements)
      rewriter.replaceAllUsesExcept(from, to, fused->fusedOp);
    rewriter.eraseOp(user);
    if (sum->use_empty())
      rewriter.eraseOp(sum);
  }
};

} // namespace
