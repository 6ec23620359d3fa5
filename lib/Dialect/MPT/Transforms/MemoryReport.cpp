//===- MemoryReport.cpp - mpt-memory-report -------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mpt {
#define GEN_PASS_DEF_MEMORYREPORT
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

enum Category {
  kParameters,
  kCopies,
  kGradients,
  kState,
  kScaleState,
  kActivations,
  kNumCategories
};
constexpr const char *kNames[] = {
    "parameters",      "low-precision copies", "gradients",
    "optimizer state", "loss-scale state",     "activations kept for backward"};

struct Entry {
  Category category;
  std::string what;
  RankedTensorType type;
};

int64_t bytes(RankedTensorType type, bool asFp32) {
  Type element = type.getElementType();
  int64_t width = element.getIntOrFloatBitWidth();
  if (asFp32 && isa<FloatType>(element))
    width = 32;
  return type.getNumElements() * width / 8;
}

std::string describe(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    os << "argument #" << arg.getArgNumber();
    return s;
  }
  Operation *op = v.getDefiningOp();
  os << op->getName() << " at ";
  op->getLoc().print(os);
  return s;
}

/// Ops the value `root` depends on, within `func`'s body.
llvm::DenseSet<Operation *> backwardSlice(Value root) {
  llvm::DenseSet<Operation *> slice;
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op || !slice.insert(op).second)
      continue;
    llvm::append_range(worklist, op->getOperands());
  }
  return slice;
}

SmallVector<Entry> analyze(func::FuncOp func) {
  SmallVector<Entry> entries;
  Block &body = func.getBody().front();
  SmallVector<BlockArgument> params;
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    std::optional<Role> role = getArgumentRole(func, arg.getArgNumber());
    if (role == Role::parameter) {
      params.push_back(arg);
      entries.push_back({kParameters, describe(arg), type});
      // One entry per copy: not its remaking for the backward pass.
      for (Operation *user : arg.getUsers())
        if (auto cast = dyn_cast<CastOp>(user);
            cast && !cast->hasAttr(MPTDialect::getRecomputedAttrName()))
          entries.push_back(
              {kCopies, "cast of " + describe(arg), cast.getType()});
    } else if (role == Role::optimizer_state) {
      entries.push_back({kState, describe(arg), type});
    } else if (role == Role::loss_scale_state) {
      entries.push_back({kScaleState, describe(arg), type});
    }
  }

  // The forward pass: what the loss depends on.
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  std::optional<unsigned> lossIndex;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (getResultRole(func, i) == Role::loss)
      lossIndex = i;
  if (!lossIndex)
    return entries;
  llvm::DenseSet<Operation *> forward =
      backwardSlice(ret.getOperand(*lossIndex));

  // Gradients: results with the gradient role, or the value of each
  // parameter's shape that enters the fp32 update.
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    if (getResultRole(func, i) == Role::gradient)
      entries.push_back({kGradients, describe(value),
                         cast<RankedTensorType>(value.getType())});
  llvm::SetVector<Value> updateInputs;
  for (Operation &op : body.without_terminator()) {
    auto forced =
        op.getAttrOfType<PrecisionAttr>(MPTDialect::getPrecisionAttrName());
    if (!forced || forced.getValue() != Precision::fp32)
      continue;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || forward.contains(def))
        continue;
      auto defForced =
          def->getAttrOfType<PrecisionAttr>(MPTDialect::getPrecisionAttrName());
      if (!defForced)
        updateInputs.insert(operand);
    }
  }
  for (BlockArgument p : params)
    for (Value v : updateInputs)
      if (cast<RankedTensorType>(v.getType()).getShape() ==
          cast<RankedTensorType>(p.getType()).getShape()) {
        // Count the gradient in the precision the backward produced it.
        Value source = v;
        if (auto cast = v.getDefiningOp<CastOp>())
          source = cast.getInput();
        entries.push_back({kGradients, "gradient of " + describe(p),
                           cast<RankedTensorType>(source.getType())});
        updateInputs.remove(v);
        break;
      }

  // Activations: forward results read by the backward pass.
  for (Operation *op : forward) {
    if (isa<ConstantOp>(op) ||
        (isa<CastOp>(op) && isa<BlockArgument>(op->getOperand(0))))
      continue;
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type)
        continue;
      bool readByBackward = llvm::any_of(result.getUsers(), [&](Operation *u) {
        // The seed of the backward pass does not read the loss's value.
        return !forward.contains(u) && !isa<func::ReturnOp, BackwardSeedOp>(u);
      });
      if (readByBackward)
        entries.push_back({kActivations, describe(result), type});
    }
  }
  return entries;
}

struct MemoryReportPass : public mpt::impl::MemoryReportBase<MemoryReportPass> {
  using MemoryReportBase::MemoryReportBase;

  void runOnOperation() override {
    llvm::json::Array functions;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<Entry> entries = analyze(func);
      if (entries.empty())
        continue;
      int64_t now[kNumCategories] = {}, fp32[kNumCategories] = {},
              numParams = 0;
      llvm::json::Array tensors;
      for (const Entry &e : entries) {
        now[e.category] += bytes(e.type, false);
        fp32[e.category] += e.category == kCopies ? 0 : bytes(e.type, true);
        if (e.category == kParameters)
          numParams += e.type.getNumElements();
        std::string type;
        llvm::raw_string_ostream os(type);
        os << e.type;
        tensors.push_back(llvm::json::Object{
            {"category", kNames[e.category]},
            {"tensor", e.what},
            {"type", type},
            {"bytes", bytes(e.type, false)},
            {"fp32_bytes", e.category == kCopies ? 0 : bytes(e.type, true)}});
      }
      int64_t totalNow = 0, totalFp32 = 0;
      llvm::errs() << "mpt-memory-report: @" << func.getSymName() << " ("
                   << numParams << " parameters)\n";
      llvm::errs() << llvm::formatv("  {0,-32} {1,14} {2,14}\n", "category",
                                    "bytes", "fp32 bytes");
      llvm::json::Object categories;
      for (int c = 0; c < kNumCategories; ++c) {
        totalNow += now[c];
        totalFp32 += fp32[c];
        llvm::errs() << llvm::formatv("  {0,-32} {1,14} {2,14}\n", kNames[c],
                                      now[c], fp32[c]);
        categories[kNames[c]] =
            llvm::json::Object{{"bytes", now[c]}, {"fp32_bytes", fp32[c]}};
      }
      int64_t stateNow =
          now[kParameters] + now[kCopies] + now[kGradients] + now[kState];
      int64_t stateFp32 = fp32[kParameters] + fp32[kGradients] + fp32[kState];
      llvm::errs() << llvm::formatv("  {0,-32} {1,14} {2,14}\n", "total",
                                    totalNow, totalFp32);
      if (numParams)
        llvm::errs() << llvm::formatv(
            "  bytes per parameter (parameters, copies, gradients, state): "
            "{0:F1} (fp32: {1:F1})\n",
            double(stateNow) / numParams, double(stateFp32) / numParams);
      functions.push_back(
          llvm::json::Object{{"function", func.getSymName().str()},
                             {"parameters", numParams},
                             {"categories", std::move(categories)},
                             {"total_bytes", totalNow},
                             {"total_fp32_bytes", totalFp32},
                             {"tensors", std::move(tensors)}});
    }
    if (report.empty())
      return;
    std::string error;
    auto file = mlir::openOutputFile(report, &error);
    if (!file) {
      getOperation().emitError()
          << "mpt-memory-report: cannot write report: " << error;
      return signalPassFailure();
    }
    file->os() << llvm::formatv("{0:2}",
                                llvm::json::Value(std::move(functions)))
               << "\n";
    file->keep();
  }
};

} // namespace
