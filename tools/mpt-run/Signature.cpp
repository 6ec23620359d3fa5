//===- Signature.cpp - the entry function as mpt-run sees it --------------===//

#include "Signature.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mpt::run;

llvm::StringRef TensorSpec::getRoleName() const {
  return role ? mpt::stringifyRole(*role) : llvm::StringRef();
}

std::string TensorSpec::describe() const {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << (isResult ? "result #" : "argument #") << index;
  llvm::SmallVector<llvm::StringRef, 2> notes;
  if (!name.empty())
    notes.push_back(name);
  if (role)
    notes.push_back(getRoleName());
  if (!notes.empty())
    os << " (" << llvm::join(notes, ", ") << ")";
  return result;
}

llvm::SmallVector<func::FuncOp> mpt::run::getDefinedFunctions(ModuleOp module) {
  llvm::SmallVector<func::FuncOp> functions;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      functions.push_back(func);
  return functions;
}

llvm::Expected<func::FuncOp> mpt::run::findEntry(ModuleOp module,
                                                 llvm::StringRef name) {
  llvm::SmallVector<func::FuncOp> functions = getDefinedFunctions(module);
  for (func::FuncOp func : functions)
    if (name.empty() ? func.isPublic() : func.getSymName() == name)
      return func;

  std::string message;
  llvm::raw_string_ostream os(message);
  if (!name.empty())
    os << "no function @" << name << " ";
  if (functions.empty()) {
    os << (name.empty() ? "the module defines no function to run"
                        : "(the module defines no function)");
  } else {
    if (name.empty())
      os << "the module has no public function; pick one with --entry ";
    os << "(available: ";
    llvm::interleaveComma(functions, os, [&](func::FuncOp func) {
      os << "@" << func.getSymName();
    });
    os << ")";
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void mpt::run::eraseUnreachableFunctions(ModuleOp module, func::FuncOp entry) {
  SymbolTable symbolTable(module);
  llvm::SmallPtrSet<Operation *, 8> reachable;
  llvm::SmallVector<Operation *> worklist{entry};
  reachable.insert(entry);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    op->walk([&](Operation *nested) {
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(nested);
      if (!uses)
        return;
      for (const SymbolTable::SymbolUse &use : *uses) {
        Operation *symbol =
            symbolTable.lookup(use.getSymbolRef().getRootReference());
        if (symbol && reachable.insert(symbol).second)
          worklist.push_back(symbol);
      }
    });
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reachable.contains(func))
      func.erase();
}

/// The SSA name ("%x") that `arg` has in the source, read back at its
/// location, or "" when the location does not point into `sourceMgr`.
static std::string getSourceName(BlockArgument arg,
                                 llvm::SourceMgr &sourceMgr) {
  auto loc = dyn_cast<FileLineColLoc>(arg.getLoc());
  if (!loc || sourceMgr.getNumBuffers() == 0)
    return "";
  for (unsigned id = 1, e = sourceMgr.getNumBuffers(); id <= e; ++id) {
    const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(id);
    if (buffer->getBufferIdentifier() != loc.getFilename().getValue())
      continue;
    llvm::SMLoc start =
        sourceMgr.FindLocForLineAndColumn(id, loc.getLine(), loc.getColumn());
    if (!start.isValid())
      return "";
    llvm::StringRef text(start.getPointer(),
                         buffer->getBufferEnd() - start.getPointer());
    if (!text.starts_with("%"))
      return "";
    size_t end = text.find_if_not(
        [](char c) {
          return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' ||
                 c == '-';
        },
        1);
    return text.take_front(end).str();
  }
  return "";
}

/// Calls `callback` on every use of `value`, looking through mpt.cast and,
/// when `throughShapeOps`, through the ops that only move elements around.
static void forEachUse(Value value, bool throughShapeOps,
                       llvm::function_ref<void(OpOperand &)> callback,
                       llvm::SmallPtrSetImpl<Value> &visited) {
  if (!visited.insert(value).second)
    return;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    bool isView =
        isa<mpt::CastOp, mpt::PadOp>(user) ||
        (throughShapeOps &&
         isa<mpt::ReshapeOp, mpt::TransposeOp, mpt::BroadcastOp, mpt::SliceOp>(
             user));
    if (isView && user->getNumResults() == 1) {
      forEachUse(user->getResult(0), throughShapeOps, callback, visited);
      continue;
    }
    callback(use);
  }
}

static void forEachUse(Value value, bool throughShapeOps,
                       llvm::function_ref<void(OpOperand &)> callback) {
  llvm::SmallPtrSet<Value, 8> visited;
  forEachUse(value, throughShapeOps, callback, visited);
}

/// Fills in the hints for random values of argument `arg`.
static void addUseHints(BlockArgument arg, TensorSpec &spec) {
  if (auto func = dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp()))
    if (auto initial = func.getArgAttrOfType<mlir::DenseElementsAttr>(
            arg.getArgNumber(), mpt::MPTDialect::getInitialValueAttrName())) {
      if (isa<mlir::FloatType>(initial.getElementType()))
        for (llvm::APFloat value : initial.getValues<llvm::APFloat>())
          spec.initialValue.push_back(value.convertToDouble());
      else
        for (llvm::APInt value : initial.getValues<llvm::APInt>())
          spec.initialValue.push_back(static_cast<double>(
              value.getBitWidth() == 1 ? value.getZExtValue()
                                       : value.getSExtValue()));
    }
  if (!isFloatKind(spec.kind)) {
    forEachUse(arg, /*throughShapeOps=*/true, [&](OpOperand &use) {
      std::optional<int64_t> bound;
      if (auto loss = dyn_cast<mpt::SoftmaxCrossEntropyOp>(use.getOwner())) {
        if (use.get() == loss.getLabels())
          bound = loss.getNumClasses()
                      ? int64_t(*loss.getNumClasses())
                      : loss.getLogits().getType().getShape().back();
      } else if (auto grad =
                     dyn_cast<mpt::SoftmaxCrossEntropyGradOp>(use.getOwner())) {
        if (use.get() == grad.getLabels())
          bound = grad.getLogits().getType().getShape().back();
      } else if (auto embedding = dyn_cast<mpt::EmbeddingOp>(use.getOwner())) {
        if (use.get() == embedding.getIndices())
          bound = embedding.getTable().getType().getShape().front();
      }
      if (bound && !ShapedType::isDynamic(*bound) &&
          (!spec.indexBound || *bound < *spec.indexBound))
        spec.indexBound = *bound;
    });
    return;
  }

  if (auto func = dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp()))
    if (auto logical = func.getArgAttrOfType<mlir::DenseI64ArrayAttr>(
            arg.getArgNumber(), mpt::MPTDialect::getLogicalShapeAttrName()))
      spec.logicalShape.assign(logical.asArrayRef().begin(),
                               logical.asArrayRef().end());
  llvm::ArrayRef<int64_t> realShape =
      spec.logicalShape.empty() ? llvm::ArrayRef<int64_t>(spec.shape)
                                : llvm::ArrayRef<int64_t>(spec.logicalShape);
  if (realShape.size() >= 2) {
    spec.fanIn = 1;
    for (int64_t dim : realShape.drop_back())
      spec.fanIn *= dim;
  }
  forEachUse(arg, /*throughShapeOps=*/false, [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto conv = dyn_cast<mpt::Conv2DOp>(user)) {
      if (use.get() != conv.getFilter() || spec.shape.size() != 4)
        return;
      // FCHW (nchw) or HWCF (nhwc): every dimension but F feeds one output.
      int64_t outputChannels = conv.getLayout() == mpt::Layout::nchw
                                   ? spec.shape.front()
                                   : spec.shape.back();
      int64_t numElements = 1;
      for (int64_t dim : spec.shape)
        numElements *= dim;
      if (outputChannels > 0)
        spec.fanIn = numElements / outputChannels;
      return;
    }
    if (auto norm = dyn_cast<mpt::LayerNormOp>(user))
      spec.isNormScale |= use.get() == norm.getScale();
    else if (auto norm = dyn_cast<mpt::BatchNormOp>(user))
      spec.isNormScale |= use.get() == norm.getScale();
  });
}

/// Checks `type` and fills in `spec` from it.
static llvm::Error readTensorType(Type type, TensorSpec &spec) {
  auto unsupported = [&](const llvm::Twine &why) {
    std::string typeString;
    llvm::raw_string_ostream os(typeString);
    os << type;
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        spec.describe() + " has type " + typeString + ", " + why +
            "; mpt-run supports statically shaped ranked tensors of rank 0 "
            "to " +
            llvm::Twine(kMaxRank) + " of f32, f64, f16, bf16, i64 or i32");
  };
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return unsupported(isa<TensorType>(type) ? "an unranked tensor"
                                             : "not a tensor");
  if (!tensorType.hasStaticShape())
    return unsupported("a dynamic shape");
  if (tensorType.getRank() > kMaxRank)
    return unsupported("rank " + llvm::Twine(tensorType.getRank()));
  std::optional<ElementKind> kind = getElementKind(tensorType.getElementType());
  if (!kind)
    return unsupported("an unsupported element type");
  spec.kind = *kind;
  spec.shape.assign(tensorType.getShape().begin(), tensorType.getShape().end());
  return llvm::Error::success();
}

llvm::Expected<EntrySignature>
mpt::run::getEntrySignature(func::FuncOp func, llvm::SourceMgr &sourceMgr) {
  EntrySignature signature;
  signature.name = func.getSymName().str();
  FunctionType type = func.getFunctionType();
  for (auto [index, argType] : llvm::enumerate(type.getInputs())) {
    TensorSpec spec;
    spec.index = index;
    spec.name = getSourceName(func.getArgument(index), sourceMgr);
    spec.role = mpt::getArgumentRole(func, index);
    if (llvm::Error error = readTensorType(argType, spec))
      return std::move(error);
    addUseHints(func.getArgument(index), spec);
    signature.arguments.push_back(std::move(spec));
  }
  for (auto [index, resultType] : llvm::enumerate(type.getResults())) {
    TensorSpec spec;
    spec.isResult = true;
    spec.index = index;
    spec.role = mpt::getResultRole(func, index);
    if (llvm::Error error = readTensorType(resultType, spec))
      return std::move(error);
    signature.results.push_back(std::move(spec));
  }
  return signature;
}
