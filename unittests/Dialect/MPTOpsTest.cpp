//===- MPTOpsTest.cpp - building mpt graphs through the C++ API -----------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mpt;

namespace {

class MPTOpsTest : public ::testing::Test {
protected:
  MPTOpsTest() : builder(&context) {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element = nullptr) {
    return RankedTensorType::get(shape,
                                 element ? element : builder.getF32Type());
  }

  /// Creates a function with the given argument types and returns its entry
  /// block arguments; ops are then built at the end of its body.
  func::FuncOp makeFunction(TypeRange args, TypeRange results = {}) {
    auto fn = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                   builder.getFunctionType(args, results));
    builder.setInsertionPointToEnd(fn.addEntryBlock());
    return fn;
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(MPTOpsTest, MatmulInfersItsResultShape) {
  func::FuncOp fn = makeFunction({tensor({4, 8}), tensor({16, 8})});
  Location loc = builder.getUnknownLoc();
  auto mm = MatmulOp::create(
      builder, loc, ValueRange{fn.getArgument(0), fn.getArgument(1)},
      {builder.getNamedAttr("transpose_b", builder.getUnitAttr())});
  EXPECT_EQ(mm.getType(), tensor({4, 16}));
}

TEST_F(MPTOpsTest, InferenceReportsContractionMismatch) {
  func::FuncOp fn = makeFunction({tensor({4, 8}), tensor({7, 16})});
  SmallVector<Type> inferred;
  MatmulOp::Properties properties;
  SmallVector<Value> operands = {fn.getArgument(0), fn.getArgument(1)};
  MatmulOp::Adaptor adaptor(operands, DictionaryAttr(), properties);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(MatmulOp::inferReturnTypes(
      &context, builder.getUnknownLoc(), adaptor, inferred)));
  EXPECT_NE(message.find("contracting dimensions differ"), std::string::npos)
      << message;
  // Without a location the failure is silent.
  message.clear();
  EXPECT_TRUE(failed(
      MatmulOp::inferReturnTypes(&context, std::nullopt, adaptor, inferred)));
  EXPECT_TRUE(message.empty());
}

TEST_F(MPTOpsTest, Conv2DInfersBothLayouts) {
  Location loc = builder.getUnknownLoc();
  func::FuncOp fn =
      makeFunction({tensor({8, 3, 32, 32}), tensor({16, 3, 3, 3}),
                    tensor({8, 32, 32, 3}), tensor({3, 3, 3, 16})});
  auto nchw = Conv2DOp::create(
      builder, loc, ValueRange{fn.getArgument(0), fn.getArgument(1)},
      {builder.getNamedAttr("strides", builder.getDenseI64ArrayAttr({2, 2})),
       builder.getNamedAttr("padding",
                            builder.getDenseI64ArrayAttr({1, 1, 1, 1}))});
  EXPECT_EQ(nchw.getType(), tensor({8, 16, 16, 16}));
  auto nhwc = Conv2DOp::create(
      builder, loc, ValueRange{fn.getArgument(2), fn.getArgument(3)},
      {builder.getNamedAttr("layout",
                            LayoutAttr::get(&context, Layout::nhwc))});
  EXPECT_EQ(nhwc.getType(), tensor({8, 30, 30, 16}));
}

TEST_F(MPTOpsTest, ReductionsAndLossesInferShapes) {
  Location loc = builder.getUnknownLoc();
  func::FuncOp fn =
      makeFunction({tensor({32, 10}), tensor({32}, builder.getI64Type())});
  Value logits = fn.getArgument(0);
  auto sum = ReduceSumOp::create(
      builder, loc, ValueRange{logits},
      {builder.getNamedAttr("axes", builder.getDenseI64ArrayAttr({-1})),
       builder.getNamedAttr("keep_dims", builder.getUnitAttr())});
  EXPECT_EQ(sum.getType(), tensor({32, 1}));
  EXPECT_EQ(sum.getNormalizedAxes(), SmallVector<int64_t>{1});
  auto loss = SoftmaxCrossEntropyOp::create(
      builder, loc, ValueRange{logits, fn.getArgument(1)});
  EXPECT_EQ(loss.getType(), tensor({}));
}

TEST_F(MPTOpsTest, BuildsAVerifiedMlpWithRoles) {
  Location loc = builder.getUnknownLoc();
  func::FuncOp fn =
      makeFunction({tensor({32, 784}), tensor({784, 128}), tensor({128}),
                    tensor({32}, builder.getI64Type())},
                   {tensor({})});
  setArgumentRole(fn, 0, Role::input);
  setArgumentRole(fn, 1, Role::parameter);
  setArgumentRole(fn, 2, Role::parameter);
  setArgumentRole(fn, 3, Role::label);
  setResultRole(fn, 0, Role::loss);
  Value h = MatmulOp::create(builder, loc,
                             ValueRange{fn.getArgument(0), fn.getArgument(1)})
                .getResult();
  h = AddOp::create(builder, loc, ValueRange{h, fn.getArgument(2)}).getResult();
  h = ReluOp::create(builder, loc, h).getResult();
  EXPECT_EQ(h.getType(), tensor({32, 128}));
  Value loss = SoftmaxCrossEntropyOp::create(builder, loc,
                                             ValueRange{h, fn.getArgument(3)})
                   .getResult();
  func::ReturnOp::create(builder, loc, loss);
  EXPECT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(getArgumentRole(fn, 1), Role::parameter);
  EXPECT_EQ(getArgumentRole(fn, 3), Role::label);
  EXPECT_EQ(getResultRole(fn, 0), Role::loss);
}

TEST(MPTShapes, BroadcastFollowsNumpy) {
  constexpr int64_t dyn = ShapedType::kDynamic;
  using Shape = SmallVector<int64_t>;
  EXPECT_EQ(*broadcastShapes({32, 128}, {128}), (Shape{32, 128}));
  EXPECT_EQ(*broadcastShapes({4, 1, 8}, {3, 1}), (Shape{4, 3, 8}));
  EXPECT_EQ(*broadcastShapes({}, {2, 3}), (Shape{2, 3}));
  EXPECT_EQ(*broadcastShapes({dyn, 8}, {4, 8}), (Shape{4, 8}));
  EXPECT_EQ(*broadcastShapes({dyn, 8}, {1, 8}), (Shape{dyn, 8}));
  EXPECT_TRUE(failed(broadcastShapes({3, 8}, {4, 8})));
}

TEST(MPTCasts, LosslessFloatCasts) {
  MLIRContext context;
  Builder b(&context);
  Type f64 = b.getF64Type(), f32 = b.getF32Type(), f16 = b.getF16Type(),
       bf16 = b.getBF16Type(), e4m3 = b.getType<Float8E4M3FNType>(),
       e5m2 = b.getType<Float8E5M2Type>();
  EXPECT_TRUE(isLosslessFloatCast(f16, f32));
  EXPECT_TRUE(isLosslessFloatCast(bf16, f32));
  EXPECT_TRUE(isLosslessFloatCast(f32, f64));
  EXPECT_TRUE(isLosslessFloatCast(e4m3, f16));
  EXPECT_TRUE(isLosslessFloatCast(e5m2, f16));
  EXPECT_TRUE(isLosslessFloatCast(e4m3, bf16));
  EXPECT_FALSE(isLosslessFloatCast(f32, f16));
  EXPECT_FALSE(isLosslessFloatCast(f16, bf16)); // bf16 has 8 mantissa bits
  EXPECT_FALSE(isLosslessFloatCast(bf16, f16)); // f16 lacks bf16's range
  EXPECT_FALSE(isLosslessFloatCast(f16, e4m3));
}

} // namespace
