//===- MatmulEpilogue.cpp - elementwise ops fused into Tensor Core kernels ===//
//
// After bufferization and elementwise fusion, a low-precision matmul is a
// zero fill of an f32 temporary, the matmul into it, and one elementwise
// linalg.generic that reads the temporary: the rounding to f16/bf16, fused
// with whatever elementwise ops followed (bias, activation, residual). The
// Tensor Core kernels evaluate that generic on their f32 results in
// registers and store its output: the temporary, the fill and the generic's
// own kernel go.
//
//===----------------------------------------------------------------------===//

#include "BufferAccesses.h"
#include "TensorCoreKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace mpt::tc {

namespace {
/// Whether the body op can be evaluated in the kernel's epilogue: an
/// elementwise op without regions or memory effects.
bool fusable(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         (OpTrait::hasElementwiseMappableTraits(op) ||
          op->hasTrait<OpTrait::ConstantLike>());
}
/// Whether `fill` fills with zero.
bool fillsZero(linalg::FillOp fill) {
  APFloat zero(0.0);
  return matchPattern(fill.getInputs()[0], m_ConstantFloat(&zero)) &&
         zero.isZero();
}

/// Whether `copy` copies zeros: from a buffer whose last write before the
/// copy is a zero fill (bufferization's copy of a zero tensor that several
/// matmuls start from; what the buffer holds after the copy does not
/// matter).
bool copiesZeros(memref::CopyOp copy) {
  // A buffer of this block (an allocation or an argument): all its users
  // are in sight.
  Value source = copy.getSource();
  Block *block = copy->getBlock();
  auto alloc = source.getDefiningOp<memref::AllocOp>();
  auto argument = dyn_cast<BlockArgument>(source);
  if (!(alloc && alloc->getBlock() == block) &&
      !(argument && argument.getOwner() == block))
    return false;
  linalg::FillOp last;
  for (Operation *user : source.getUsers()) {
    if (user->getBlock() != block)
      return false;
    if (user == copy.getOperation() || copy->isBeforeInBlock(user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (!last || last->isBeforeInBlock(fill))
        last = fill;
      continue;
    }
    // Before the copy, the buffer is only read (copied from).
    auto read = dyn_cast<memref::CopyOp>(user);
    if (!read || read.getSource() != source)
      return false;
  }
  return last && fillsZero(last);
}

/// The buffer that `op` fills with zeros: the target of a zero fill on
/// buffers, or of a copy of zeros (copiesZeros); else null.
Value zerosWrittenTo(Operation *op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.hasPureBufferSemantics() && fillsZero(fill)
               ? fill.getDpsInits()[0]
               : Value();
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return copiesZeros(copy) ? copy.getTarget() : Value();
  return Value();
}

/// Whether `generic` computes the same where `matmul` is: no op in between
/// writes what it reads, or reads or writes what it writes. Distinct
/// allocations and function arguments are taken not to alias (as
/// bufferization does).
bool canRunAt(linalg::GenericOp generic, Operation *matmul) {
  llvm::SmallPtrSet<Value, 4> inputs, outputs;
  for (Value input : generic.getDpsInputs())
    inputs.insert(mpt::rootOf(input));
  outputs.insert(mpt::rootOf(generic.getDpsInits()[0]));
  for (Operation *op = matmul->getNextNode(); op != generic.getOperation();
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op) && op->getNumRegions() == 0)
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || op->getNumRegions())
      return false;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &effect : list) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value)
        return false;
      Value root = mpt::rootOf(value);
      if (outputs.contains(root) ||
          (!isa<MemoryEffects::Read>(effect.getEffect()) &&
           inputs.contains(root)))
        return false;
    }
  }
  return true;
}

/// Whether `value` is defined before `op` (in its block or outside it), or
/// by an allocation or an op without memory effects (a view, a constant)
/// after it whose operands are: such ops may move above `op`.
bool availableAt(Value value, Operation *op) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != op->getBlock() || def->isBeforeInBlock(op))
    return true;
  if (def->getNumRegions() ||
      !(isa<memref::AllocOp>(def) || isMemoryEffectFree(def)))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value v) { return availableAt(v, op); });
}

/// Moves the definition of `value`, and of its operands, above `op` where
/// it is after it (see availableAt).
void moveAbove(Value value, Operation *op) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != op->getBlock() || def->isBeforeInBlock(op))
    return;
  for (Value operand : def->getOperands())
    moveAbove(operand, op);
  def->moveBefore(op);
}

/// Whether `v` is a view of `acc` from its origin (cornerOf) with fewer
/// elements, read by one op only.
bool isInteriorOf(Value v, Value acc) {
  return acc && cornerOf(v) == acc && v.hasOneUse() &&
         cast<MemRefType>(v.getType()).getNumElements() <
             cast<MemRefType>(acc.getType()).getNumElements();
}
} // namespace

Value cornerOf(Value v) {
  auto view = v.getDefiningOp<memref::SubViewOp>();
  if (!view || view.getType().getRank() != view.getSourceType().getRank() ||
      !view.getType().hasStaticShape() ||
      !llvm::all_of(view.getStaticOffsets(),
                    [](int64_t o) { return o == 0; }) ||
      !llvm::all_of(view.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return Value();
  return view.getSource();
}

bool fillsWithZeros(Operation *op, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  return fill && fill.hasPureBufferSemantics() &&
         fill.getDpsInits()[0] == buffer && fillsZero(fill);
}

std::optional<FusedEpilogue> findFusedEpilogue(Operation *matmul, Value acc) {
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  Block *block = matmul->getBlock();
  if (!alloc || alloc->getBlock() != block)
    return std::nullopt;
  auto accType = cast<MemRefType>(acc.getType());
  FusedEpilogue e;
  // The first generic after the matmul that reads the temporary (or a
  // view of its interior).
  linalg::GenericOp generic;
  for (Operation *op = matmul->getNextNode(); op && !generic;
       op = op->getNextNode())
    if (auto g = dyn_cast<linalg::GenericOp>(op);
        g && llvm::any_of(g->getOperands(), [&](Value v) {
          return v == acc || isInteriorOf(v, acc);
        }))
      generic = g;
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getNumLoops() != static_cast<unsigned>(accType.getRank()))
    return std::nullopt;
  // The temporary is read once, element for element; the other inputs
  // through dimensions only (bias: (i, j) -> (j)); the output is written
  // element for element and not read.
  // (Or a view of it from the origin, once: the interior of a padded
  // product.)
  std::optional<unsigned> accInput;
  ArrayRef<int64_t> readShape = accType.getShape();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    bool interior = isInteriorOf(input->get(), acc);
    if (input->get() == acc || interior) {
      if (accInput || !map.isIdentity())
        return std::nullopt;
      accInput = input->getOperandNumber();
      if (interior) {
        e.view = input->get().getDefiningOp();
        readShape = cast<MemRefType>(input->get().getType()).getShape();
        e.interior.assign(readShape.begin(), readShape.end());
      }
      continue;
    }
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type || !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
  }
  // (The interior's stores go element by element, to any layout; a batch
  // is read whole.)
  OpOperand *init = generic.getDpsInitOperand(0);
  auto outType = dyn_cast<MemRefType>(init->get().getType());
  if (!accInput || !outType || outType.getShape() != readShape ||
      (!e.view && !outType.getLayout().isIdentity()) ||
      (e.view && readShape.size() == 3 &&
       readShape.front() != accType.getShape().front()) ||
      !generic.getMatchingIndexingMap(init).isIdentity() ||
      !generic.getMatchingBlockArgument(init).use_empty())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  for (Operation &op : body.without_terminator())
    if (!fusable(&op))
      return std::nullopt;
  if (!canRunAt(generic, matmul))
    return std::nullopt;
  // What the generic takes must exist where the kernel runs: defined before
  // the matmul, or by allocations, views and constants after it, which
  // prepare() moves up.
  for (Value operand : generic->getOperands())
    if (!availableAt(operand, matmul))
      return std::nullopt;
  // Blocks store results while others still read A and B: the output must
  // not be either.
  Value outRoot = mpt::rootOf(init->get());
  for (Value operand : matmul->getOperands())
    if (operand != acc && mpt::rootOf(operand) == outRoot)
      return std::nullopt;
  // The temporary: filled with zeros (or a copy of zeros) before the matmul
  // (the kernel starts from zero), read by the generic, otherwise only freed
  // or, when the generic writes its result back into it, read after the
  // generic.
  Value out = init->get();
  if (e.view && outRoot == acc)
    return std::nullopt;
  for (Operation *user : acc.getUsers()) {
    if (user == matmul || user == generic.getOperation() || user == e.view ||
        isa<memref::DeallocOp>(user))
      continue;
    // Nothing else uses the temporary (not even through a view), so
    // nothing between the zeros and the matmul touches it.
    if (zerosWrittenTo(user) == acc) {
      if (e.fill || !user->isBeforeInBlock(matmul))
        return std::nullopt;
      e.fill = user;
      continue;
    }
    if (out == acc && user->getBlock() == block &&
        generic->isBeforeInBlock(user))
      continue;
    return std::nullopt;
  }
  if (!e.fill)
    return std::nullopt;
  e.generic = generic;
  e.accInput = *accInput;
  e.out = out;
  return e;
}

std::optional<FusedEpilogue>
findZeroStart(Operation *matmul, Value c,
              function_ref<mpt::Accesses(Operation *)> accesses) {
  Value root = mpt::rootOf(c);
  auto cType = cast<MemRefType>(c.getType());
  auto rootType = dyn_cast<MemRefType>(root.getType());
  // Blocks store results while others still read A and B.
  for (Value operand : matmul->getOperands())
    if (operand != c && mpt::mayAlias(mpt::rootOf(operand), root))
      return std::nullopt;
  // Whether `target` is all of C: C's buffer through reshapes (as many
  // elements of the same type, identity layouts).
  auto allOfC = [&](Value target) {
    auto type = dyn_cast<MemRefType>(target.getType());
    auto same = [&](MemRefType t) {
      return t && t.hasStaticShape() && t.getLayout().isIdentity() &&
             t.getElementType() == cType.getElementType() &&
             t.getNumElements() == cType.getNumElements();
    };
    return mpt::rootOf(target) == root && same(type) && same(rootType) &&
           same(cType);
  };
  auto touches = [&](ArrayRef<Value> buffers) {
    return llvm::any_of(buffers,
                        [&](Value v) { return mpt::mayAlias(v, root); });
  };
  // The last op before the matmul that reads or writes C.
  for (Operation *prev = matmul->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    mpt::Accesses a = accesses(prev);
    if (a.unknown)
      return std::nullopt;
    if (!touches(a.reads) && !touches(a.writes))
      continue;
    Value zeros = zerosWrittenTo(prev);
    auto copy = dyn_cast<memref::CopyOp>(prev);
    if (!zeros || !allOfC(zeros) ||
        (copy && mpt::mayAlias(mpt::rootOf(copy.getSource()), root)))
      return std::nullopt;
    FusedEpilogue e;
    e.fill = prev;
    e.out = c;
    return e;
  }
  return std::nullopt;
}

void FusedEpilogue::prepare(Operation *matmul) const {
  if (!generic)
    return;
  // The buffers (and views of them) the generic takes, its output among
  // them, must exist where the kernel runs.
  for (Value operand : generic->getOperands())
    moveAbove(operand, matmul);
}

std::string FusedEpilogue::describe() const {
  if (!this->generic)
    return "products stored into C (its zero fill dropped)";
  auto generic = cast<linalg::GenericOp>(this->generic);
  std::string text;
  llvm::raw_string_ostream os(text);
  Type element = cast<MemRefType>(out.getType()).getElementType();
  Block &body = generic.getRegion().front();
  bool roundOnly = generic.getNumDpsInputs() == 1 &&
                   body.getOperations().size() == 2 &&
                   isa<arith::TruncFOp>(body.front());
  if (roundOnly) {
    os << "fused rounding to " << element;
  } else {
    // The kinds of ops, in order of first appearance.
    llvm::SetVector<StringRef> kinds;
    for (Operation &op : body.without_terminator())
      kinds.insert(op.getName().stripDialect());
    os << "fused epilogue (" << llvm::join(kinds, ", ") << ") into " << element;
  }
  if (view) {
    SmallVector<std::string> sizes;
    for (int64_t d : interior)
      sizes.push_back(std::to_string(d));
    os << ", stored inside " << llvm::join(sizes, "x")
       << " (the products outside are dropped)";
  }
  return text;
}

void FusedEpilogue::erase(Value acc) const {
  Operation *accDef = acc.getDefiningOp();
  // A copy of zeros goes with the zeros' buffer if nothing else reads it.
  Value zeros;
  if (auto copy = dyn_cast<memref::CopyOp>(fill))
    zeros = copy.getSource();
  fill->erase();
  if (zeros && zeros.getDefiningOp<memref::AllocOp>())
    mpt::eraseIfUnread(zeros);
  if (!generic)
    return;
  generic->erase();
  if (view)
    view->erase();
  if (out == acc)
    return;
  for (Operation *user : llvm::make_early_inc_range(acc.getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  if (accDef->use_empty())
    accDef->erase();
}

Value FusedEpilogue::evaluate(OpBuilder &b, Location loc, Value values,
                              Value batch, Value row, Value col) const {
  if (!this->generic)
    return values;
  auto generic = cast<linalg::GenericOp>(this->generic);
  auto valuesType = cast<VectorType>(values.getType());
  int64_t width = valuesType.getNumElements();
  Block &body = generic.getRegion().front();
  IndexMath im{b, loc};
  SmallVector<Value> iv;
  if (batch)
    iv.push_back(batch);
  iv.push_back(row);
  // Arithmetic runs on vectors of `width` (what the 16-bit conversions
  // pair up); math functions, which the GPU lowering calls per element,
  // run on each element.
  bool vectorize = llvm::all_of(body.without_terminator(), [](Operation &op) {
    return isa<arith::ArithDialect>(op.getDialect());
  });
  // The indices of `input` at the iteration (batch, row, `column`).
  auto indicesAt = [&](OpOperand *input, Value column) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    SmallVector<Value> dims(iv);
    dims.push_back(column);
    SmallVector<Value> indices;
    for (AffineExpr result : map.getResults())
      indices.push_back(dims[cast<AffineDimExpr>(result).getPosition()]);
    return indices;
  };
  auto inputAt = [&](OpOperand *input, int64_t w) {
    return memref::LoadOp::create(b, loc, input->get(),
                                  indicesAt(input, im.add(col, w)))
        .getResult();
  };
  // The `width` elements of an input whose innermost dim is the column
  // (a bias, a residual) as one vector load: they are consecutive, and
  // aligned to the vector where the buffer has an identity layout (its
  // base is aligned: an allocation, an argument checked on entry, a view
  // of the arena at a multiple of 256 bytes; 16 bytes at most is claimed)
  // and rows of a multiple of `width` (`col` is a multiple of it). Null
  // otherwise.
  auto vectorAt = [&](OpOperand *input) -> Value {
    AffineMap map = generic.getMatchingIndexingMap(input);
    auto type = cast<MemRefType>(input->get().getType());
    if (map.getNumResults() == 0 ||
        map.getResults().back() !=
            getAffineDimExpr(map.getNumDims() - 1, b.getContext()) ||
        !type.getLayout().isIdentity() ||
        type.isDynamicDim(type.getRank() - 1) || type.getShape().back() % width)
      return Value();
    Type element = type.getElementType();
    return vector::LoadOp::create(
        b, loc, VectorType::get({width}, element), input->get(),
        indicesAt(input, col),
        /*nontemporal=*/false,
        llvm::Align(std::min<int64_t>(
            16, width * element.getIntOrFloatBitWidth() / 8)));
  };
  // Evaluates the body on `args` (one per block argument but the output).
  auto evaluate = [&](ArrayRef<Value> args, int64_t lanes) {
    IRMapping map;
    for (auto [arg, value] : llvm::zip(body.getArguments(), args))
      map.map(arg, value);
    auto widen = [&](Type t) -> Type {
      return lanes == 1 ? t : VectorType::get({lanes}, t);
    };
    for (Operation &op : body.without_terminator()) {
      // Values from outside the body (constants) are broadcast.
      for (Value operand : op.getOperands())
        if (!map.contains(operand) && lanes > 1)
          map.map(operand, vector::BroadcastOp::create(
                               b, loc, widen(operand.getType()), operand));
      if (op.hasTrait<OpTrait::ConstantLike>() && lanes > 1) {
        Operation *scalar = b.clone(op);
        map.map(op.getResult(0), vector::BroadcastOp::create(
                                     b, loc, widen(op.getResult(0).getType()),
                                     scalar->getResult(0)));
        continue;
      }
      Operation *clone = b.clone(op, map);
      for (OpResult result : clone->getResults())
        result.setType(widen(result.getType()));
    }
    return map.lookup(body.getTerminator()->getOperand(0));
  };
  SmallVector<Value> results;
  // (One lane, as the SIMT kernel's scalar stores give: element by element.)
  if (vectorize && width > 1) {
    SmallVector<Value> args;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      if (input->getOperandNumber() == accInput) {
        args.push_back(values);
        continue;
      }
      if (Value vector = vectorAt(input)) {
        args.push_back(vector);
        continue;
      }
      SmallVector<Value> elems;
      for (int64_t w = 0; w < width; ++w)
        elems.push_back(inputAt(input, w));
      args.push_back(vector::FromElementsOp::create(
          b, loc, VectorType::get({width}, elems[0].getType()), elems));
    }
    results.push_back(evaluate(args, width));
  } else {
    SmallVector<Value> elems;
    for (int64_t w = 0; w < width; ++w) {
      SmallVector<Value> args;
      for (OpOperand *input : generic.getDpsInputOperands())
        args.push_back(
            input->getOperandNumber() == accInput
                ? vector::ExtractOp::create(b, loc, values, w).getResult()
                : inputAt(input, w));
      elems.push_back(evaluate(args, 1));
    }
    results.push_back(vector::FromElementsOp::create(
        b, loc, VectorType::get({width}, elems[0].getType()), elems));
  }
  return results.front();
}

int64_t FusedEpilogue::tmaStoreBytes() const {
  auto type = cast<MemRefType>(out.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  if (view || !type.hasStaticShape() || type.getRank() > 5 ||
      !type.getLayout().isIdentity() || (bytes != 2 && bytes != 4) ||
      type.getShape().back() * bytes % 16)
    return 0;
  return bytes;
}

void FusedEpilogue::store(OpBuilder &b, Location loc, Value values, Value batch,
                          Value row, Value col) const {
  int64_t width = cast<VectorType>(values.getType()).getNumElements();
  auto indexAt = [&](Value column) {
    SmallVector<Value> index;
    if (batch)
      index.push_back(batch);
    index.push_back(row);
    index.push_back(column);
    return index;
  };
  if (view) {
    // Only inside the interior, element by element (its rows need not
    // hold a multiple of `width`, nor start aligned to it), is the generic
    // evaluated (its other inputs end there) and stored.
    IndexMath im{b, loc};
    const int64_t rows = interior[interior.size() - 2], cols = interior.back();
    auto rowInside = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                              im.c(rows)),
        /*withElseRegion=*/false);
    OpBuilder rb = rowInside.getThenBodyBuilder();
    IndexMath rm{rb, loc};
    for (int64_t w = 0; w < width; ++w) {
      Value column = rm.add(col, w);
      auto inside = scf::IfOp::create(
          rb, loc,
          arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::ult, column,
                                rm.c(cols)),
          /*withElseRegion=*/false);
      OpBuilder eb = inside.getThenBodyBuilder();
      Value one = vector::BroadcastOp::create(
          eb, loc,
          VectorType::get({1},
                          cast<VectorType>(values.getType()).getElementType()),
          vector::ExtractOp::create(eb, loc, values, w));
      Value result = evaluate(eb, loc, one, batch, row, column);
      memref::StoreOp::create(eb, loc,
                              vector::ExtractOp::create(eb, loc, result, 0),
                              out, indexAt(column));
    }
    return;
  }
  Value result = evaluate(b, loc, values, batch, row, col);
  auto outType = cast<MemRefType>(out.getType());
  int64_t bytes = outType.getElementTypeBitWidth() / 8;
  SmallVector<Value> index = indexAt(col);
  // `col` is a multiple of `width`, and rows hold a multiple of it.
  vector::StoreOp::create(b, loc, result, out, index, /*nontemporal=*/false,
                          llvm::Align(width * bytes));
}

} // namespace mpt::tc
