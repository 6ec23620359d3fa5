//===- Recompute.cpp - mpt-recompute-activations --------------------------===//
//
// Activations that the backward pass reads are computed again there, from
// the input their gradient keeps anyway, instead of being kept from the
// forward pass.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/Transforms/Recompute.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"
#include "mpt/Dialect/MPT/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>

namespace mpt {
#define GEN_PASS_DEF_RECOMPUTEACTIVATIONS
#include "mpt/Dialect/MPT/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

/// Ops that the recomputation of a softmax's input may repeat: the scores
/// of an attention (a batch matmul of the queries and keys, scaled, masked),
/// and the shape ops between them.
static bool inScoreChain(Operation *op) {
  return isa<BatchMatmulOp, MulOp, AddOp, SubOp, DivOp, ReshapeOp, TransposeOp,
             BroadcastOp, CastOp>(op);
}

/// The most ops a softmax's input chain may have, and the most
/// contractions among them.
static constexpr unsigned kMaxChainOps = 8, kMaxChainContractions = 1;

/// The backward pass's seed in the body of `func` (the last one), if it
/// has one.
static Operation *findSeed(func::FuncOp func) {
  Operation *seed = nullptr;
  if (!func.isExternal())
    for (Operation &op : func.getBody().front())
      if (isa<BackwardSeedOp>(op))
        seed = &op;
  return seed;
}

namespace {
/// The readers of a value of a step's body, by pass: the first op of the
/// body that reads it before the seed and after it, and the uses after it.
struct Readers {
  Operation *firstForward = nullptr, *firstBackward = nullptr;
  SmallVector<OpOperand *> late;
};
} // namespace

static Readers readersOf(Value value, Block &block, Operation *seed) {
  Readers readers;
  for (OpOperand &use : value.getUses()) {
    Operation *at = block.findAncestorOpInBlock(*use.getOwner());
    bool backward = seed->isBeforeInBlock(at);
    Operation *&first = backward ? readers.firstBackward : readers.firstForward;
    if (backward)
      readers.late.push_back(&use);
    if (!first || at->isBeforeInBlock(first))
      first = at;
  }
  return readers;
}

/// Clones `chain` (in order, each marked mpt.recomputed) right before
/// `at`, and makes `uses` read the last clone's result.
static void recomputeBefore(Operation *at, ArrayRef<Operation *> chain,
                            ArrayRef<OpOperand *> uses) {
  OpBuilder b(at);
  IRMapping mapping;
  Operation *copy = nullptr;
  for (Operation *original : chain) {
    copy = b.clone(*original, mapping);
    copy->setAttr(MPTDialect::getRecomputedAttrName(), b.getUnitAttr());
  }
  for (OpOperand *use : uses)
    use->set(copy->getResult(0));
}

unsigned mpt::recomputeActivations(func::FuncOp func) {
  Operation *seed = findSeed(func);
  if (!seed)
    return 0;
  Block &block = func.getBody().front();
  // Dead ops first: autodiff leaves the gradients of constants (a scale of
  // the scores), whose reads would look like values the backward pass keeps.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isOpTriviallyDead(&op))
      op.erase();
  // The op of `block` that holds `user`, if it comes after the seed.
  auto backward = [&](Operation *user) -> Operation * {
    Operation *at = block.findAncestorOpInBlock(*user);
    return at && seed->isBeforeInBlock(at) ? at : nullptr;
  };
  // Whether the backward pass has `value` anyway: an argument, a constant,
  // or a value it reads.
  auto kept = [&](Value value) {
    Operation *def = value.getDefiningOp();
    return !def || isa<ConstantOp>(def) ||
           llvm::any_of(value.getUsers(),
                        [&](Operation *user) { return backward(user); });
  };
  SmallVector<Operation *> activations;
  for (Operation &op : block) {
    if (&op == seed)
      break;
    if (isa<GeluOp, TanhOp, SigmoidOp, ReluOp, SoftmaxOp>(op))
      activations.push_back(&op);
  }
  unsigned changed = 0;
  for (Operation *op : activations) {
    Value input = op->getOperand(0), result = op->getResult(0);
    // The ops that make the input again from what the backward pass keeps,
    // in order: none for an activation (its gradient reads its input); for
    // a softmax (whose gradient reads its result only) the attention's
    // scores from the queries and keys, which the gradients of both keep.
    SmallVector<Operation *> chain;
    bool inputKept = llvm::any_of(input.getUsers(), [&](Operation *user) {
      return user != op && backward(user);
    });
    if (!inputKept && isa<SoftmaxOp>(op)) {
      llvm::SmallPtrSet<Operation *, 8> seen;
      unsigned contractions = 0;
      std::function<bool(Value)> collect = [&](Value value) {
        if (kept(value))
          return true;
        Operation *def = value.getDefiningOp();
        if (!seen.insert(def).second)
          return true;
        if (!inScoreChain(def) || seen.size() > kMaxChainOps ||
            (isa<BatchMatmulOp>(def) && ++contractions > kMaxChainContractions))
          return false;
        for (Value operand : def->getOperands())
          if (!collect(operand))
            return false;
        chain.push_back(def);
        return true;
      };
      inputKept = collect(input);
    }
    Readers readers = readersOf(result, block, seed);
    if (!inputKept || readers.late.empty())
      continue;
    if (!readers.firstForward && chain.empty()) {
      op->moveBefore(readers.firstBackward);
    } else {
      chain.push_back(op);
      recomputeBefore(readers.firstBackward, chain, readers.late);
    }
    ++changed;
  }
  return changed;
}

/// The bytes of a working copy: a cast of an argument to a narrower float
/// type with a static shape; 0 for any other op.
static int64_t workingCopyBytes(Operation *op) {
  auto cast = dyn_cast<CastOp>(op);
  if (!cast || !isa<BlockArgument>(cast.getInput()))
    return 0;
  auto from = dyn_cast<RankedTensorType>(cast.getInput().getType());
  auto to = dyn_cast<RankedTensorType>(cast.getType());
  if (!from || !to || !to.hasStaticShape() ||
      !isa<FloatType>(from.getElementType()) ||
      !isa<FloatType>(to.getElementType()) ||
      to.getElementTypeBitWidth() >= from.getElementTypeBitWidth())
    return 0;
  return to.getNumElements() * to.getElementTypeBitWidth() / 8;
}

unsigned mpt::recomputeWorkingCopies(func::FuncOp func, int64_t minBytes) {
  Operation *seed = findSeed(func);
  if (!seed || minBytes < 0)
    return 0;
  Block &block = func.getBody().front();
  SmallVector<Operation *> copies;
  for (Operation &op : block) {
    if (&op == seed)
      break;
    int64_t bytes = workingCopyBytes(&op);
    if (bytes > 0 && bytes >= minBytes)
      copies.push_back(&op);
  }
  unsigned changed = 0;
  for (Operation *copy : copies) {
    // A copy that only a pad reads (mpt-pad-for-tensor-cores) is made with
    // its pad: the padded copy is what the passes read.
    SmallVector<Operation *> chain = {copy};
    if (copy->hasOneUse() && isa<PadOp>(*copy->user_begin()) &&
        copy->user_begin()->getBlock() == &block &&
        copy->user_begin()->isBeforeInBlock(seed))
      chain.push_back(*copy->user_begin());
    Readers readers = readersOf(chain.back()->getResult(0), block, seed);
    Operation *first =
        readers.firstForward ? readers.firstForward : readers.firstBackward;
    if (!first)
      continue;
    for (Operation *op : chain)
      op->moveBefore(first);
    if (!readers.firstForward || !readers.firstBackward) {
      // Only one pass reads it.
      changed += !readers.firstForward;
      continue;
    }
    recomputeBefore(readers.firstBackward, chain, readers.late);
    ++changed;
  }
  return changed;
}

namespace {
struct RecomputeActivationsPass
    : public mpt::impl::RecomputeActivationsBase<RecomputeActivationsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      recomputeActivations(func);
  }
};
} // namespace
