//===- PrecisionPolicyTest.cpp - the default class of every listed op -----===//
//
// One test per entry of the default class lists, against the classes the
// design fixes (allow: contractions; deny: exp/log/pow, large reductions,
// log_softmax, layer norm on the residual stream, losses; infer: arithmetic,
// and softmax and batch norm, whose exp, sums and statistics are f32
// whatever the data type; clear: data
// movement and order-preserving ops), and a check that every mpt op and every
// upstream op with an external model has an entry.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/PrecisionPolicy.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/InitAll.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mpt;

namespace {

struct Expected {
  const char *op;
  PrecisionClass cls;
};

constexpr PrecisionClass A = PrecisionClass::allow, D = PrecisionClass::deny,
                         I = PrecisionClass::infer, C = PrecisionClass::clear;

const Expected kExpected[] = {
    {"mpt.matmul", A},
    {"mpt.batch_matmul", A},
    {"mpt.conv2d", A},
    {"mpt.exp", D},
    {"mpt.log", D},
    {"mpt.pow", D},
    {"mpt.rsqrt", D},
    {"mpt.reduce_sum", D},
    {"mpt.reduce_mean", D},
    {"mpt.global_avg_pool", D},
    {"mpt.log_softmax", D},
    {"mpt.layer_norm", D},
    {"mpt.softmax_cross_entropy", D},
    {"mpt.mse_loss", D},
    {"mpt.l1_loss", D},
    {"mpt.add", I},
    {"mpt.sub", I},
    {"mpt.mul", I},
    {"mpt.div", I},
    {"mpt.sqrt", I},
    {"mpt.reciprocal", I},
    {"mpt.tanh", I},
    {"mpt.sigmoid", I},
    {"mpt.gelu", I},
    {"mpt.avg_pool2d", I},
    // Statistics (and softmax's exp and sum) in f32 whatever the data type
    // (TensorFlow: infer).
    {"mpt.batch_norm", I},
    {"mpt.softmax", I},
    {"mpt.neg", C},
    {"mpt.abs", C},
    {"mpt.relu", C},
    {"mpt.max", C},
    {"mpt.min", C},
    {"mpt.reduce_max", C},
    {"mpt.max_pool2d", C},
    {"mpt.embedding", C},
    {"mpt.reshape", C},
    {"mpt.transpose", C},
    {"mpt.broadcast", C},
    {"mpt.concat", C},
    {"mpt.slice", C},
    {"mpt.pad", C},
    {"mpt.constant", C},
    {"mpt.cast", C},
    {"mpt.relu_grad", C},
    {"mpt.gelu_grad", I},
    {"mpt.softmax_cross_entropy_grad", I},
    {"mpt.softmax_grad", I},
    {"mpt.log_softmax_grad", D},
    {"mpt.layer_norm_grad", D},
    {"mpt.sgd_update", D},
    {"mpt.momentum_update", D},
    {"mpt.adam_update", D},
    {"mpt.conv2d_backward_data", A},
    {"mpt.conv2d_backward_filter", A},
    {"mpt.max_pool2d_grad", C},
    {"mpt.batch_norm_grad", I},
    {"mpt.avg_pool2d_grad", I},
    {"mpt.embedding_grad", D},
    {"mpt.clip_by_global_norm", D},
    {"mpt.backward_seed", D},
    {"mpt.unscale_and_check", D},
    {"mpt.layer_scale", D},
    {"mpt.update_scale", D},
    {"mpt.select", C},
    {"mpt.sm_count", C},
    {"tosa.matmul", A},
    {"tosa.conv2d", A},
    {"tosa.depthwise_conv2d", A},
    {"tosa.exp", D},
    {"tosa.log", D},
    {"tosa.pow", D},
    {"tosa.reduce_sum", D},
    {"tosa.add", I},
    {"tosa.sub", I},
    {"tosa.mul", I},
    {"tosa.reciprocal", I},
    {"tosa.tanh", I},
    {"tosa.sigmoid", I},
    {"tosa.clamp", C},
    {"tosa.reshape", C},
    {"tosa.transpose", C},
    {"tosa.concat", C},
    {"tosa.slice", C},
    {"tosa.const", C},
    {"arith.addf", I},
    {"arith.mulf", I},
    {"arith.maximumf", C},
    {"math.exp", D},
    {"math.log", D},
    {"math.sqrt", I},
    {"math.tanh", I},
    {"linalg.matmul", A},
    {"linalg.batch_matmul", A},
    {"linalg.conv_2d_nchw_fchw", A},
    {"linalg.conv_2d_nhwc_hwcf", A},
};

/// A context with every dialect and external model mpt registers.
MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registerAllDialects(registry);
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

/// The class an op named `name` reports through the interface (the op is
/// created without operands; the class depends only on the op kind).
std::optional<PrecisionClass> classOf(StringRef name) {
  OperationState state(UnknownLoc::get(&context()), name);
  Operation *op = Operation::create(state);
  std::optional<PrecisionClass> cls;
  if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op))
    cls = policy.getPrecisionClass();
  op->destroy();
  return cls;
}

class DefaultClass : public ::testing::TestWithParam<Expected> {};

TEST_P(DefaultClass, MatchesTheDesign) {
  std::optional<PrecisionClass> cls = classOf(GetParam().op);
  ASSERT_TRUE(cls.has_value()) << GetParam().op << " has no policy";
  EXPECT_EQ(*cls, GetParam().cls)
      << GetParam().op << " is " << stringifyPrecisionClass(*cls).str();
}

INSTANTIATE_TEST_SUITE_P(Lists, DefaultClass, ::testing::ValuesIn(kExpected),
                         [](const ::testing::TestParamInfo<Expected> &info) {
                           std::string name = info.param.op;
                           for (char &c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(PrecisionPolicy, EveryMPTOpHasAnEntry) {
  unsigned count = 0;
  for (RegisteredOperationName name : context().getRegisteredOperations()) {
    if (name.getDialectNamespace() != "mpt")
      continue;
    ++count;
    EXPECT_TRUE(classOf(name.getStringRef()).has_value())
        << name.getStringRef().str() << " has no precision class";
    EXPECT_TRUE(llvm::any_of(getMPTPrecisionPolicy(),
                             [&](const PrecisionPolicyEntry &e) {
                               return e.opName == name.getStringRef();
                             }))
        << name.getStringRef().str() << " is missing from the policy table";
  }
  EXPECT_EQ(count, getMPTPrecisionPolicy().size());
}

TEST(PrecisionPolicy, EveryUpstreamEntryIsAttached) {
  for (const PrecisionPolicyEntry &entry : getUpstreamPrecisionPolicy()) {
    std::optional<PrecisionClass> cls = classOf(entry.opName);
    ASSERT_TRUE(cls.has_value())
        << entry.opName.str() << " has no model attached";
    EXPECT_EQ(*cls, entry.precisionClass) << entry.opName.str();
    EXPECT_FALSE(entry.reason.empty()) << entry.opName.str();
  }
}

} // namespace
