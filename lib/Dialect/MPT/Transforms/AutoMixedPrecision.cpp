//===- AutoMixedPrecision.cpp - mpt-auto-mixed-precision ------------------===//
//
// Decides, for every op of every function, whether it runs in the low type
// (f16/bf16) or in fp32, then rewrites types and inserts the fewest casts.
// The coloring follows TensorFlow's grappler AMP pass; see the pass
// description in Passes.td and docs/Rationale/RationaleAMP.md.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"
#include "mpt/Dialect/MPT/Transforms/PrecisionLists.h"
#include "mpt/Dialect/MPT/Transforms/Targets.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mpt {
#define GEN_PASS_DEF_AUTOMIXEDPRECISION
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {

//===----------------------------------------------------------------------===//
// Op queries
//===----------------------------------------------------------------------===//

/// Interface queries with the interface's defaults for ops that have no model
/// (ops named only in the lists file).
bool isLowOperand(Operation *op, unsigned index) {
  if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op))
    return policy.isLowPrecisionOperand(index);
  auto type = dyn_cast<RankedTensorType>(op->getOperand(index).getType());
  return type && isa<FloatType>(type.getElementType());
}

bool isLowResult(Operation *op, unsigned index) {
  if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op))
    return policy.isLowPrecisionResult(index);
  auto type = dyn_cast<RankedTensorType>(op->getResult(index).getType());
  return type && isa<FloatType>(type.getElementType());
}

/// Whether `op`, staying fp32, reads operand `index` in low precision too.
bool widensOperand(Operation *op, unsigned index) {
  auto policy = dyn_cast<PrecisionPolicyOpInterface>(op);
  return policy && policy.widensLowPrecisionOperand(index);
}

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

bool hasFloatTensor(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && isa<FloatType>(tensor.getElementType());
  });
}

/// The same tensor type with element type `element`.
Type withElement(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

std::string formatLoc(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                         file.getLine(), file.getColumn());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (isa<FileLineColLoc>(inner))
        return formatLoc(inner);
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

std::string describe(Operation *op) {
  return llvm::formatv("{0} at {1}", op->getName().getStringRef(),
                       formatLoc(op->getLoc()));
}

/// The float constant an op produces, if it is a constant op.
DenseFPElementsAttr getFloatConstant(Operation *op) {
  DenseFPElementsAttr value;
  if (op->getNumResults() == 1 &&
      matchPattern(op->getResult(0), m_Constant(&value)))
    return value;
  return {};
}

/// The largest |x| of `value` that does not fit `target` (overflows to
/// infinity when rounded), or std::nullopt when every element fits.
std::optional<double> firstOverflow(DenseFPElementsAttr value,
                                    FloatType target) {
  for (APFloat x : value.getValues<APFloat>()) {
    if (!x.isFinite())
      continue;
    APFloat rounded = x;
    bool losesInfo;
    APFloat::opStatus status = rounded.convert(
        target.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    if ((status & APFloat::opOverflow) || !rounded.isFinite())
      return std::abs(x.convertToDouble());
  }
  return std::nullopt;
}

/// FLOPs of a contraction (2 per multiply-add), or 0 for other ops.
uint64_t contractionFlops(Operation *op) {
  auto shape = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto product = [](ArrayRef<int64_t> dims) {
    uint64_t p = 1;
    for (int64_t d : dims)
      p *= ShapedType::isDynamic(d) ? 1 : d;
    return p;
  };
  if (auto mm = dyn_cast<MatmulOp>(op))
    return 2 * product(shape(mm.getResult())) *
           shape(mm.getLhs())[mm.getTransposeA() ? 0 : 1];
  if (auto bmm = dyn_cast<BatchMatmulOp>(op)) {
    ArrayRef<int64_t> lhs = shape(bmm.getLhs());
    return 2 * product(shape(bmm.getResult())) *
           lhs[lhs.size() - (bmm.getTransposeA() ? 2 : 1)];
  }
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    ArrayRef<int64_t> filter = shape(conv.getFilter());
    // Per output element: (C/groups) * KH * KW multiply-adds.
    uint64_t perOutput =
        product(filter) / filter[conv.getLayout() == Layout::nchw ? 0 : 3];
    return 2 * product(shape(conv.getResult())) * perOutput;
  }
  if (auto mm = dyn_cast<tosa::MatMulOp>(op))
    return 2 * product(shape(mm.getOutput())) * shape(mm.getA())[2];
  if (isa<tosa::Conv2DOp, tosa::Conv3DOp>(op)) {
    ArrayRef<int64_t> weight = shape(op->getOperand(1)); // O, [D,] H, W, I
    return 2 * product(shape(op->getResult(0))) * product(weight.drop_front());
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!isa<PrecisionPolicyOpInterface>(op))
      return 0;
    return 2 * product(linalgOp.getStaticLoopRanges());
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// The decision for each op
//===----------------------------------------------------------------------===//

struct Node {
  Operation *op;
  /// std::nullopt: no policy.
  std::optional<PrecisionClass> cls;
  /// Forced by the `mpt.precision` attribute.
  bool forced = false;
  /// Its low operands and results are all f32 (so it can move to the low
  /// type), and there is at least one.
  bool eligible = false;
  bool low = false;
  bool deny = false;
  /// Why it ended up in its precision.
  std::string rule;
};

class Coloring {
public:
  Coloring(FunctionOpInterface func, const PrecisionLists *lists,
           FloatType lowType)
      : lowType(lowType) {
    func->walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
      if (op == func.getOperation() || op->hasTrait<OpTrait::IsTerminator>())
        return WalkResult::advance();
      // Structural ops (loops, ...) are not nodes; their bodies are walked.
      // Ops whose regions are their own implementation (linalg) are nodes.
      if (op->getNumRegions() > 0) {
        if (!isa<PrecisionPolicyOpInterface>(op))
          return WalkResult::advance();
        if (hasFloatTensor(op->getOperandTypes()) ||
            hasFloatTensor(op->getResultTypes()))
          nodes.insert({op, classify(op, lists)});
        return WalkResult::skip();
      }
      if (!hasFloatTensor(op->getOperandTypes()) &&
          !hasFloatTensor(op->getResultTypes()))
        return WalkResult::advance();
      nodes.insert({op, classify(op, lists)});
      return WalkResult::advance();
    });
  }

  /// Runs the coloring steps in order.
  void run() {
    paintAllow();
    propagateDeny();
    paintBetweenAllow();
    propagateAllowThroughClear();
    absorbCasts();
    for (auto &[op, node] : nodes)
      if (node.rule.empty())
        node.rule = defaultRule(node);
  }

  llvm::MapVector<Operation *, Node> nodes;

private:
  Node classify(Operation *op, const PrecisionLists *lists) {
    Node node;
    node.op = op;
    std::optional<PrecisionClass> byDefault;
    if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op))
      byDefault = policy.getPrecisionClass();
    node.cls = lists ? lists->apply(op->getName().getStringRef(), byDefault)
                     : byDefault;
    if (auto forced = op->getAttrOfType<PrecisionAttr>(
            MPTDialect::getPrecisionAttrName())) {
      node.forced = true;
      node.cls = forced.getValue() == Precision::low ? PrecisionClass::allow
                                                     : PrecisionClass::deny;
      node.rule = forced.getValue() == Precision::low
                      ? "forced low by mpt.precision"
                      : "forced fp32 by mpt.precision";
    } else if (node.cls != byDefault) {
      node.rule = node.cls
                      ? "class " + stringifyPrecisionClass(*node.cls).str() +
                            " from the lists file"
                      : "removed from its class by the lists file";
    }

    // Eligible: every operand and result that changes type is f32.
    bool any = false, allF32 = true;
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (isLowOperand(op, i)) {
        any = true;
        allF32 &= isF32Tensor(operand.getType());
      }
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      if (isLowResult(op, i)) {
        any = true;
        allF32 &= isF32Tensor(result.getType());
      }
    node.eligible = any && allF32;
    if (!node.eligible && node.rule.empty())
      node.rule = "not fp32 data; left unchanged";

    // A constant whose values overflow the low type stays fp32 and acts as
    // a deny op; so does an allow op that consumes it.
    if (node.eligible && !node.forced)
      if (DenseFPElementsAttr value = getFloatConstant(op))
        if (std::optional<double> big = firstOverflow(value, lowType)) {
          node.cls = PrecisionClass::deny;
          node.rule = llvm::formatv("constant out of {0} range (|x| = {1}); "
                                    "kept fp32",
                                    lowType, *big);
          op->emitRemark() << "constant has values beyond the range of "
                           << lowType << " (|x| = " << *big
                           << "); kept in fp32";
        }
    return node;
  }

  Node *lookup(Operation *op) {
    auto it = nodes.find(op);
    return it == nodes.end() ? nullptr : &it->second;
  }

  /// Nodes that consume a result of `node`. With `lowOnly`, only edges that
  /// would carry a low-precision value count: from a result that changes
  /// type to an operand that does (not, say, a contraction's fp32 output or
  /// accumulator).
  SmallVector<Node *> consumers(Node &node, bool lowOnly = false) {
    SmallVector<Node *> result;
    for (OpResult r : node.op->getResults()) {
      if (lowOnly && !isLowResult(node.op, r.getResultNumber()))
        continue;
      for (OpOperand &use : r.getUses())
        if (Node *n = lookup(use.getOwner()))
          if (!lowOnly || isLowOperand(n->op, use.getOperandNumber()))
            result.push_back(n);
    }
    return result;
  }

  /// Nodes that produce an operand of `node` (`lowOnly` as for consumers).
  SmallVector<Node *> producers(Node &node, bool lowOnly = false) {
    SmallVector<Node *> result;
    for (OpOperand &operand : node.op->getOpOperands()) {
      if (lowOnly && !isLowOperand(node.op, operand.getOperandNumber()))
        continue;
      auto r = dyn_cast<OpResult>(operand.get());
      if (!r)
        continue;
      if (Node *n = lookup(r.getOwner()))
        if (!lowOnly || isLowResult(n->op, r.getResultNumber()))
          result.push_back(n);
    }
    return result;
  }

  /// Infer and clear ops that may change color. Constants never change
  /// color: their low-precision users get a converted copy.
  bool isFollower(const Node &n) {
    return n.eligible && !n.forced && !isa<CastOp>(n.op) &&
           !getFloatConstant(n.op) &&
           (n.cls == PrecisionClass::infer || n.cls == PrecisionClass::clear);
  }

  void paintAllow() {
    for (auto &[op, n] : nodes)
      if (n.eligible && n.cls == PrecisionClass::allow && !isa<CastOp>(op)) {
        n.low = true;
        if (n.rule.empty())
          n.rule = "allow list";
      }
    // An allow op fed by an out-of-range constant stays fp32.
    for (auto &[op, n] : nodes) {
      if (!n.low || n.forced)
        continue;
      for (Node *p : producers(n))
        if (p->cls == PrecisionClass::deny && getFloatConstant(p->op)) {
          n.low = false;
          n.rule = "consumes " + describe(p->op) +
                   ", a constant out of the low type's range; kept fp32";
          op->emitRemark() << "kept in fp32: operand " << describe(p->op)
                           << " does not fit " << lowType;
        }
    }
  }

  /// Deny spreads forward through infer/clear ops that lie on a path from a
  /// deny op to another infer or deny op. It follows only edges that would
  /// carry a low-precision value: an operand that stays fp32 in low precision
  /// (the loss scale a loss gradient reads) does not hold its op in fp32.
  void propagateDeny() {
    llvm::DenseMap<Operation *, Operation *> origin; // reached -> deny root
    SmallVector<Node *> worklist;
    for (auto &[op, n] : nodes)
      if (n.cls == PrecisionClass::deny && !n.low) {
        n.deny = true;
        worklist.push_back(&n);
        origin[op] = op;
      }
    llvm::SetVector<Node *> reached;
    while (!worklist.empty()) {
      Node *n = worklist.pop_back_val();
      for (Node *c : consumers(*n, /*lowOnly=*/true))
        if (isFollower(*c) && reached.insert(c)) {
          origin[c->op] = origin[n->op];
          worklist.push_back(c);
        }
    }
    // Sinks: infer ops reached, and deny ops fed by a reached op.
    SmallVector<Node *> paint;
    for (Node *n : reached)
      if (n->cls == PrecisionClass::infer)
        paint.push_back(n);
    for (auto &[op, n] : nodes)
      if (n.deny)
        for (Node *p : producers(n))
          if (reached.contains(p))
            paint.push_back(p);
    llvm::DenseSet<Node *> painted;
    while (!paint.empty()) {
      Node *n = paint.pop_back_val();
      if (!painted.insert(n).second)
        continue;
      n->deny = true;
      n->rule = "deny propagated from " + describe(origin[n->op]);
      for (Node *p : producers(*n))
        if (reached.contains(p))
          paint.push_back(p);
    }
  }

  /// Infer/clear ops downstream of one allow op and upstream of another
  /// join allow.
  void paintBetweenAllow() {
    auto reach = [&](bool forward) {
      llvm::DenseMap<Node *, Node *> seen; // node -> allow op it came from
      SmallVector<std::pair<Node *, Node *>> worklist;
      for (auto &[op, n] : nodes)
        if (n.low)
          worklist.push_back({&n, &n});
      while (!worklist.empty()) {
        auto [n, from] = worklist.pop_back_val();
        for (Node *m : forward ? consumers(*n, /*lowOnly=*/true)
                               : producers(*n, /*lowOnly=*/true))
          if (isFollower(*m) && !m->deny && seen.try_emplace(m, from).second)
            worklist.push_back({m, from});
      }
      return seen;
    };
    llvm::DenseMap<Node *, Node *> down = reach(true), up = reach(false);
    for (auto &[n, from] : down)
      if (up.count(n)) {
        n->low = true;
        n->rule =
            "between allow ops (downstream of " + describe(from->op) + ")";
      }
  }

  /// Allow spreads through clear ops, forward and backward; but not
  /// backward into a clear op that selects part of an input that no
  /// low-precision op produces (an embedding's table, a slice of an
  /// argument): the cast then converts the part, after the op, and not the
  /// whole input before it. The values are the same either way.
  void propagateAllowThroughClear() {
    SmallVector<Node *> worklist;
    for (auto &[op, n] : nodes)
      if (n.low)
        worklist.push_back(&n);
    while (!worklist.empty()) {
      Node *n = worklist.pop_back_val();
      SmallVector<Node *> neighbours = consumers(*n, /*lowOnly=*/true);
      size_t numConsumers = neighbours.size();
      llvm::append_range(neighbours, producers(*n, /*lowOnly=*/true));
      for (auto [i, m] : llvm::enumerate(neighbours)) {
        if (!isFollower(*m) || m->cls != PrecisionClass::clear || m->deny ||
            m->low)
          continue;
        if (i >= numConsumers && castsMoreBefore(*m)) {
          m->rule = "clear, selects part of an fp32 input: the cast for " +
                    describe(n->op) + " converts its result";
          continue;
        }
        m->low = true;
        m->rule = "clear, next to low-precision " + describe(n->op);
        worklist.push_back(m);
      }
    }
  }

  /// Whether painting `node` low would cast more elements before it (its
  /// low operands that no low op produces; constants are converted at
  /// compile time) than its low results hold.
  bool castsMoreBefore(Node &node) {
    int64_t before = 0, after = 0;
    for (OpOperand &operand : node.op->getOpOperands()) {
      if (!isLowOperand(node.op, operand.getOperandNumber()))
        continue;
      if (Operation *def = operand.get().getDefiningOp()) {
        Node *p = lookup(def);
        if (getFloatConstant(def) || (p && p->low))
          continue;
      }
      before += numElements(operand.get().getType());
    }
    for (auto [i, result] : llvm::enumerate(node.op->getResults()))
      if (isLowResult(node.op, i))
        after += numElements(result.getType());
    return before > after;
  }

  static int64_t numElements(Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 0;
  }

  /// An existing cast to f32 whose users all take its result in low
  /// precision casts straight to the low type.
  void absorbCasts() {
    for (auto &[op, n] : nodes) {
      auto cast = dyn_cast<CastOp>(op);
      if (!cast || !n.eligible || n.forced || cast.getResult().use_empty())
        continue;
      bool allLow = llvm::all_of(cast->getUses(), [&](OpOperand &use) {
        Node *user = lookup(use.getOwner());
        return user && user->low &&
               isLowOperand(use.getOwner(), use.getOperandNumber());
      });
      if (allLow) {
        n.low = true;
        n.rule = "existing cast absorbed: every user runs in low precision";
      }
    }
  }

  std::string defaultRule(const Node &n) {
    if (!n.cls)
      return "no precision policy; kept fp32";
    switch (*n.cls) {
    case PrecisionClass::allow:
      return "allow list";
    case PrecisionClass::deny:
      return "deny list";
    case PrecisionClass::infer:
      return "infer, not between allow ops; stays fp32";
    case PrecisionClass::clear:
      if (isa<CastOp>(n.op))
        return "existing cast; a user needs fp32";
      if (getFloatConstant(n.op))
        return "constant; low-precision users get a copy converted at "
               "compile time";
      return "clear, not next to a low-precision op; stays fp32";
    }
    llvm_unreachable("covered switch");
  }

  FloatType lowType;
};

//===----------------------------------------------------------------------===//
// Rewriting: types and casts
//===----------------------------------------------------------------------===//

class CastInserter {
public:
  explicit CastInserter(MLIRContext *ctx) : builder(ctx) {}

  /// `value` as type `type`: the value itself, a folded round trip, a
  /// converted constant, an existing cast, or a new cast right after the
  /// value's definition.
  Value get(Value value, Type type) {
    if (value.getType() == type)
      return value;
    auto key = std::make_pair(value, type);
    if (Value cached = cache.lookup(key))
      return cached;
    Value result = create(value, type);
    cache[key] = result;
    return result;
  }

  /// Whether constant `op` was given a converted copy.
  bool converted(Operation *op) const {
    return convertedConstants.contains(op);
  }

  /// Moves each new cast of an op's result (not of a block argument) down
  /// to right before its first user in its block: made right after the
  /// value, a cast that only the backward pass reads (an activation it
  /// needs in the other type) would hold a copy from the forward pass on.
  /// Casts of arguments (the weights) stay together at the top, where they
  /// share a kernel (mpt-master-weights moves the large ones).
  void sink() {
    for (CastOp cast : created) {
      if (isa<BlockArgument>(cast.getInput()) || cast->use_empty())
        continue;
      Block *block = cast->getBlock();
      Operation *first = nullptr;
      for (Operation *user : cast->getUsers()) {
        Operation *at = block->findAncestorOpInBlock(*user);
        if (at && (!first || at->isBeforeInBlock(first)))
          first = at;
      }
      if (first && cast->isBeforeInBlock(first))
        cast->moveBefore(first);
    }
  }

  unsigned numCasts = 0;
  unsigned numConstants = 0;

private:
  Value create(Value value, Type type) {
    // Round trip: (x : T) -> cast -> value, asked back as T, is x.
    if (auto cast = value.getDefiningOp<CastOp>())
      if (cast.getInput().getType() == type)
        return cast.getInput();
    // A constant is converted at compile time.
    if (Operation *def = value.getDefiningOp())
      if (DenseFPElementsAttr attr = getFloatConstant(def)) {
        auto target =
            cast<FloatType>(cast<RankedTensorType>(type).getElementType());
        DenseElementsAttr converted =
            attr.mapValues(target, [&](const APFloat &x) {
              APFloat y = x;
              bool losesInfo;
              y.convert(target.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &losesInfo);
              return y.bitcastToAPInt();
            });
        builder.setInsertionPointAfter(def);
        if (Operation *c = def->getDialect()->materializeConstant(
                builder, converted, type, def->getLoc())) {
          ++numConstants;
          convertedConstants.insert(def);
          return c->getResult(0);
        }
      }
    // Reuse an existing cast of the value, moved up so it dominates.
    for (Operation *user : value.getUsers())
      if (auto cast = dyn_cast<CastOp>(user))
        if (cast.getType() == type) {
          if (Operation *def = value.getDefiningOp())
            cast->moveAfter(def);
          else
            cast->moveBefore(&value.getParentBlock()->front());
          return cast.getResult();
        }
    builder.setInsertionPointAfterValue(value);
    ++numCasts;
    auto cast = CastOp::create(builder, value.getLoc(), type, value);
    created.push_back(cast);
    return cast;
  }

  OpBuilder builder;
  SmallVector<CastOp> created;
  llvm::DenseMap<std::pair<Value, Type>, Value> cache;
  llvm::DenseSet<Operation *> convertedConstants;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The pass's counters. They are kept here as well as in the pass
/// statistics because LLVM builds without statistics (NDEBUG and no
/// LLVM_FORCE_ENABLE_STATS, as Debian's) turn those into no-ops.
struct Counters {
  uint64_t allow = 0, deny = 0, infer = 0, clear = 0, noPolicy = 0;
  uint64_t converted = 0, casts = 0, constants = 0;
  uint64_t totalFlops = 0, lowFlops = 0;
  uint64_t lowFlopsPercent() const {
    return totalFlops ? lowFlops * 100 / totalFlops : 0;
  }
};

struct AutoMixedPrecisionPass
    : public mpt::impl::AutoMixedPrecisionBase<AutoMixedPrecisionPass> {
  using AutoMixedPrecisionBase::AutoMixedPrecisionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<FloatType> low = chooseLowType();
    if (failed(low))
      return signalPassFailure();
    std::optional<PrecisionLists> lists;
    if (!this->lists.empty()) {
      std::string error;
      FailureOr<PrecisionLists> loaded =
          PrecisionLists::load(this->lists, error);
      if (failed(loaded)) {
        module.emitError() << "mpt-auto-mixed-precision: " << error;
        return signalPassFailure();
      }
      lists = std::move(*loaded);
    }

    llvm::json::Array entries;
    Counters counters;
    for (auto func : module.getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      if (failed(processFunction(func, lists ? &*lists : nullptr, *low, entries,
                                 counters)))
        return signalPassFailure();
    }
    numAllow = counters.allow;
    numDeny = counters.deny;
    numInfer = counters.infer;
    numClear = counters.clear;
    numNoPolicy = counters.noPolicy;
    numConverted = counters.converted;
    numCasts = counters.casts;
    numConstantsConverted = counters.constants;
    lowFlopsPercent = counters.lowFlopsPercent();
    if (printStats)
      printCounters(counters, *low);
    if (!report.empty() &&
        failed(writeReport(std::move(entries), *low, counters)))
      return signalPassFailure();
  }

  void printCounters(const Counters &c, FloatType low) {
    llvm::errs() << llvm::formatv(
        "mpt-auto-mixed-precision ({0}): allow {1}, deny {2}, infer {3}, "
        "clear {4}, no policy {5}; ops converted {6}, casts inserted {7}, "
        "constants converted {8}; matmul/conv FLOPs in low precision: "
        "{9}%\n",
        low, c.allow, c.deny, c.infer, c.clear, c.noPolicy, c.converted,
        c.casts, c.constants, c.lowFlopsPercent());
  }

  FailureOr<FloatType> chooseLowType() {
    ModuleOp module = getOperation();
    const GpuTarget *gpu = nullptr;
    if (!target.empty()) {
      gpu = lookupGpuTarget(target);
      if (!gpu) {
        std::string names;
        llvm::raw_string_ostream os(names);
        llvm::interleaveComma(getGpuTargets(), os,
                              [&](const GpuTarget &t) { os << t.name; });
        return module.emitError()
               << "mpt-auto-mixed-precision: unknown target '" << target
               << "'; expected one of " << names;
      }
    }
    StringRef name = type;
    if (name.empty())
      name = gpu ? StringRef(gpu->defaultType) : StringRef("f16");
    Builder b(&getContext());
    FloatType low;
    if (name == "f16")
      low = b.getF16Type();
    else if (name == "bf16")
      low = b.getBF16Type();
    else
      return module.emitError() << "mpt-auto-mixed-precision: unknown type '"
                                << name << "'; expected f16 or bf16";
    if (gpu && !gpu->fp16TensorCores)
      module.emitWarning() << "target " << gpu->name << " (" << gpu->arch
                           << ") has no Tensor Cores: " << name
                           << " halves memory traffic but matmuls run on "
                              "CUDA cores";
    else if (gpu && low.isBF16() && !gpu->bf16TensorCores)
      module.emitWarning() << "target " << gpu->name << " (" << gpu->arch
                           << ") has no bf16 Tensor Cores; f16 is faster "
                              "there";
    return low;
  }

  LogicalResult processFunction(FunctionOpInterface func,
                                const PrecisionLists *lists, FloatType low,
                                llvm::json::Array &entries,
                                Counters &counters) {
    Coloring coloring(func, lists, low);
    coloring.run();

    // Statistics and remarks.
    for (auto &[op, n] : coloring.nodes) {
      if (!n.cls) {
        ++counters.noPolicy;
        if (n.eligible)
          op->emitRemark() << "no precision policy for '" << op->getName()
                           << "'; kept in fp32 (name it in a class of the "
                              "lists= file to change that)";
      } else {
        switch (*n.cls) {
        case PrecisionClass::allow:
          ++counters.allow;
          break;
        case PrecisionClass::deny:
          ++counters.deny;
          break;
        case PrecisionClass::infer:
          ++counters.infer;
          break;
        case PrecisionClass::clear:
          ++counters.clear;
          break;
        }
      }
      uint64_t flops = contractionFlops(op);
      counters.totalFlops += flops;
      if (n.low) {
        counters.lowFlops += flops;
        ++counters.converted;
      }
    }

    // Signature changes are only possible when nothing calls the function.
    auto funcOp = dyn_cast<func::FuncOp>(func.getOperation());
    bool changeSignature = !keepIoTypes && funcOp;
    if (changeSignature &&
        !SymbolTable::symbolKnownUseEmpty(funcOp, getOperation())) {
      return funcOp.emitError()
             << "mpt-auto-mixed-precision: keep-io-types=false cannot change "
                "the signature of @"
             << funcOp.getSymName() << ": it is called in the module";
    }
    // Results change type only with a single return.
    SmallVector<func::ReturnOp> returns;
    if (changeSignature)
      funcOp.walk([&](func::ReturnOp ret) {
        if (ret->getParentOp() == funcOp.getOperation())
          returns.push_back(ret);
      });
    bool changeResults = returns.size() == 1;

    // Retype the results of low-precision ops.
    llvm::DenseMap<Value, Type> originalType;
    for (auto &[op, n] : coloring.nodes) {
      if (!n.low)
        continue;
      for (auto [i, result] : llvm::enumerate(op->getResults()))
        if (isLowResult(op, i)) {
          originalType[result] = result.getType();
          result.setType(withElement(result.getType(), low));
        }
      if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op))
        policy.setAccumulatorType(Float32Type::get(&getContext()));
    }

    // Arguments used only in low precision take the low type.
    Block &entry = func.getFunctionBody().front();
    if (changeSignature)
      for (BlockArgument arg : entry.getArguments()) {
        if (!isF32Tensor(arg.getType()) || arg.use_empty())
          continue;
        bool allLow = llvm::all_of(arg.getUses(), [&](OpOperand &use) {
          auto it = coloring.nodes.find(use.getOwner());
          return it != coloring.nodes.end() && it->second.low &&
                 isLowOperand(use.getOwner(), use.getOperandNumber());
        });
        if (allLow)
          arg.setType(withElement(arg.getType(), low));
      }

    // Give every operand the type its user needs.
    CastInserter casts(&getContext());
    SmallVector<std::pair<OpOperand *, Type>> fixes;
    func->walk([&](Operation *op) {
      auto it = coloring.nodes.find(op);
      bool lowUser = it != coloring.nodes.end() && it->second.low;
      bool keepsLow = changeResults && op == returns.front().getOperation();
      for (OpOperand &use : op->getOpOperands()) {
        Value v = use.get();
        Type original = originalType.lookup(v);
        Type desired;
        if (lowUser && isLowOperand(op, use.getOperandNumber()))
          desired = withElement(original ? original : v.getType(), low);
        else if (original && !keepsLow &&
                 !widensOperand(op, use.getOperandNumber()))
          desired = original;
        if (desired && desired != v.getType())
          fixes.push_back({&use, desired});
      }
    });
    for (auto [use, desired] : fixes)
      use->set(casts.get(use->get(), desired));
    OpBuilder builder(&getContext());
    for (auto &[op, n] : coloring.nodes)
      if (n.low)
        if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(n.op))
          n.op = policy.finalizeLowPrecision(builder);
    casts.sink();
    counters.casts += casts.numCasts;
    counters.constants += casts.numConstants;

    if (!report.empty())
      for (auto &[key, n] : coloring.nodes) {
        entries.push_back(llvm::json::Object{
            {"function", func.getName().str()},
            {"op", n.op->getName().getStringRef().str()},
            {"loc", formatLoc(n.op->getLoc())},
            {"class", n.cls ? stringifyPrecisionClass(*n.cls).str()
                            : std::string("none")},
            {"precision",
             n.low ? llvm::formatv("{0}", low).str() : std::string("f32")},
            {"rule", n.rule},
        });
      }

    // Absorbed casts to their own type disappear, and so do constants whose
    // users all took a converted copy.
    for (auto &item : coloring.nodes) {
      Operation *op = item.second.op;
      auto cast = dyn_cast<CastOp>(op);
      if (cast && item.second.low &&
          cast.getInput().getType() == cast.getType()) {
        cast.replaceAllUsesWith(cast.getInput());
        cast.erase();
      } else if (getFloatConstant(op) && op->use_empty() &&
                 casts.converted(op)) {
        op->erase();
      }
    }

    if (changeSignature)
      funcOp.setType(FunctionType::get(
          &getContext(), entry.getArgumentTypes(),
          changeResults ? TypeRange(returns.front().getOperandTypes())
                        : TypeRange(funcOp.getResultTypes())));
    return success();
  }

  LogicalResult writeReport(llvm::json::Array entries, FloatType low,
                            const Counters &c) {
    std::string error;
    auto file = mlir::openOutputFile(report, &error);
    if (!file)
      return getOperation().emitError()
             << "mpt-auto-mixed-precision: cannot write report: " << error;
    auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };
    llvm::json::Object totals{
        {"allow", i64(c.allow)},
        {"deny", i64(c.deny)},
        {"infer", i64(c.infer)},
        {"clear", i64(c.clear)},
        {"no_policy", i64(c.noPolicy)},
        {"ops_converted", i64(c.converted)},
        {"casts_inserted", i64(c.casts)},
        {"constants_converted", i64(c.constants)},
        {"contraction_flops", i64(c.totalFlops)},
        {"low_precision_contraction_flops", i64(c.lowFlops)},
        {"low_precision_flops_percent", i64(c.lowFlopsPercent())},
    };
    llvm::json::Value root = llvm::json::Object{
        {"low_type", llvm::formatv("{0}", low).str()},
        {"target", target.getValue()},
        {"ops", std::move(entries)},
        {"totals", std::move(totals)},
    };
    file->os() << llvm::formatv("{0:2}", root) << "\n";
    file->keep();
    return success();
  }
};

} // namespace
