//===- BufferAccesses.cpp - which buffers ops read and write --------------===//

#include "BufferAccesses.h"

#include "mpt/Dialect/MPT/IR/MPTDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

Value mpt::rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

namespace {
/// Adds to `a` the buffer that effect `e` reads or writes (freeing counts as
/// writing); an effect on no particular value makes `a` unknown.
void addEffect(const MemoryEffects::EffectInstance &e, mpt::Accesses &a) {
  bool read = isa<MemoryEffects::Read>(e.getEffect());
  bool write = isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect());
  if (!read && !write)
    return;
  Value value = e.getValue();
  if (!value) {
    a.unknown = true;
    return;
  }
  (write ? a.writes : a.reads).push_back(mpt::rootOf(value));
}

/// Adds to `a` the tensor of a TMA tensor map, which kernels load through,
/// and store through when it carries `mpt.tma_store`.
void addTensorMap(nvgpu::TmaCreateDescriptorOp map, mpt::Accesses &a) {
  Value tensor = mpt::rootOf(map.getTensor());
  a.reads.push_back(tensor);
  if (map->hasAttr(mpt::MPTDialect::getTmaStoreAttrName()))
    a.writes.push_back(tensor);
}
} // namespace

mpt::Accesses mpt::accessesOf(Operation *op) {
  Accesses a;
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    for (Value operand : launch.getKernelOperands()) {
      if (isa<BaseMemRefType>(operand.getType())) {
        a.reads.push_back(rootOf(operand));
        a.writes.push_back(rootOf(operand));
        continue;
      }
      if (!isa<LLVM::LLVMPointerType>(operand.getType()))
        continue;
      // A TMA descriptor, cast to a pointer for the kernel (the wgmma
      // kernels): the kernel reads its tensor (TMA loads only). Any other
      // pointer may point anywhere.
      auto cast = operand.getDefiningOp<UnrealizedConversionCastOp>();
      auto descriptor = cast && cast->getNumOperands() == 1
                            ? cast->getOperand(0)
                                  .getDefiningOp<nvgpu::TmaCreateDescriptorOp>()
                            : nullptr;
      if (!descriptor) {
        a.unknown = true;
        continue;
      }
      addTensorMap(descriptor, a);
    }
    return a;
  }
  op->walk([&](Operation *nested) {
    // Ops whose effects are their body's (loops, branches) have none of
    // their own; a linalg op on buffers has both.
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (isa<scf::YieldOp, scf::ReduceOp>(nested) ||
        (!effects && nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()))
      return;
    if (!effects) {
      a.unknown = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list)
      addEffect(e, a);
  });
  return a;
}

mpt::Accesses mpt::kernelAccesses(Operation *kernel) {
  Accesses a;
  auto outside = [&](Value v) {
    return isa<BaseMemRefType>(v.getType()) &&
           !kernel->isAncestor(v.getParentRegion()->getParentOp());
  };
  kernel->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    SmallVector<MemoryEffects::EffectInstance> list;
    if (effects)
      effects.getEffects(list);
    bool valueless = !effects || llvm::any_of(list, [](auto &e) {
      return !e.getValue() && !isa<MemoryEffects::Allocate>(e.getEffect());
    });
    if (valueless && llvm::any_of(nested->getOperands(), outside))
      a.unknown = true;
    for (const MemoryEffects::EffectInstance &e : list)
      if (e.getValue() && outside(e.getValue()))
        addEffect(e, a);
  });
  return a;
}

bool mpt::mayAlias(Value x, Value y) {
  if (x == y)
    return true;
  auto allocated = [](Value v) {
    Operation *def = v.getDefiningOp();
    return def && isa<memref::AllocOp, memref::AllocaOp>(def);
  };
  if (allocated(x) || allocated(y))
    return false;
  // A function's result buffers (the out-parameters of
  // buffer-results-to-out-params{add-result-attr}, which stand for the
  // fresh buffers the function returned) and `llvm.noalias` arguments
  // overlap no other buffer.
  auto distinct = [](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || !arg.getOwner()->isEntryBlock())
      return false;
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    return func && (func.getArgAttr(arg.getArgNumber(), "bufferize.result") ||
                    func.getArgAttr(arg.getArgNumber(),
                                    LLVM::LLVMDialect::getNoAliasAttrName()));
  };
  if (distinct(x) || distinct(y))
    return false;
  auto global = [](Value v) { return v.getDefiningOp<memref::GetGlobalOp>(); };
  if (auto gx = global(x), gy = global(y); gx && gy)
    return gx.getName() == gy.getName();
  return true;
}

mpt::Accesses mpt::builtAccessesOf(Operation *op) {
  if (auto descriptor = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op)) {
    Accesses a;
    addTensorMap(descriptor, a);
    return a;
  }
  return isa<gpu::LaunchOp>(op) ? kernelAccesses(op) : accessesOf(op);
}

bool mpt::independent(const Accesses &x, const Accesses &y) {
  if (x.unknown || y.unknown)
    return false;
  auto conflict = [](ArrayRef<Value> writes, ArrayRef<Value> other) {
    for (Value w : writes)
      for (Value o : other)
        if (mayAlias(w, o))
          return true;
    return false;
  };
  return !conflict(x.writes, y.reads) && !conflict(x.writes, y.writes) &&
         !conflict(y.writes, x.reads);
}

namespace {
/// Whether `use` of a buffer only writes it (the target of a fill,
/// transpose or copy, which have no other effects).
bool writesOnly(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<linalg::FillOp, linalg::TransposeOp>(user))
    return cast<DestinationStyleOpInterface>(user).isDpsInit(&use);
  if (auto copy = dyn_cast<memref::CopyOp>(user))
    return use.get() == copy.getTarget() && copy.getSource() != use.get();
  return false;
}

/// The uses of `alloc` and of the views of it, views before their users.
SmallVector<OpOperand *> usesThroughViews(memref::AllocOp alloc) {
  SmallVector<OpOperand *> uses;
  SmallVector<Value> worklist{alloc};
  while (!worklist.empty()) {
    Value view = worklist.pop_back_val();
    for (OpOperand &use : view.getUses()) {
      uses.push_back(&use);
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
              memref::SubViewOp>(use.getOwner()))
        worklist.push_back(use.getOwner()->getResult(0));
    }
  }
  return uses;
}

/// Whether `use` reads the buffer: not a view, free or write-only use.
bool mayRead(OpOperand &use) {
  return !isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
              memref::SubViewOp, memref::DeallocOp>(use.getOwner()) &&
         !writesOnly(use);
}

/// Whether `use` (of `alloc` or a view of it, by an op of `alloc`'s block)
/// writes every element of the buffer and reads none: a fill, transpose or
/// copy into the whole buffer, or a linalg.generic of parallel loops whose
/// init it is (a permutation of its loops) and whose body does not read it,
/// the op using the buffer nowhere else (`uses`: every use of the buffer).
bool overwrites(OpOperand &use, memref::AllocOp alloc,
                ArrayRef<OpOperand *> uses) {
  Operation *user = use.getOwner();
  if (user->getBlock() != alloc->getBlock())
    return false;
  for (Value v = use.get(); v != alloc.getResult();) {
    Operation *view = v.getDefiningOp();
    if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp,
                         memref::CastOp>(view))
      return false;
    v = view->getOperand(0);
  }
  if (llvm::count_if(uses,
                     [&](OpOperand *u) { return u->getOwner() == user; }) != 1)
    return false;
  if (writesOnly(use))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(user);
  return generic && generic.hasPureBufferSemantics() &&
         generic.isDpsInit(&use) &&
         generic.getNumParallelLoops() == generic.getNumLoops() &&
         generic.getMatchingIndexingMap(&use).isPermutation() &&
         !generic.payloadUsesValueFromOperand(&use);
}
} // namespace

bool mpt::eraseDeadWrite(Operation *writer, Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != writer->getBlock())
    return false;
  // (The allocation is made anew each time the block runs: the uses before
  // the writer in the block read earlier values.)
  Block *block = writer->getBlock();
  SmallVector<OpOperand *> uses = usesThroughViews(alloc);
  // The first op after the writer that overwrites the whole buffer without
  // reading it: the ops after that one read its values, not the writer's.
  Operation *kill = nullptr;
  for (OpOperand *use : uses) {
    Operation *user = use->getOwner();
    if (user != writer && user->getBlock() == block &&
        writer->isBeforeInBlock(user) && overwrites(*use, alloc, uses) &&
        (!kill || user->isBeforeInBlock(kill)))
      kill = user;
  }
  for (OpOperand *use : uses) {
    Operation *user = block->findAncestorOpInBlock(*use->getOwner());
    if (!user)
      return false;
    if (user == writer || !writer->isBeforeInBlock(user) ||
        (kill && (user == kill || kill->isBeforeInBlock(user))))
      continue;
    if (mayRead(*use))
      return false;
  }
  writer->erase();
  eraseIfUnread(alloc);
  return true;
}

bool mpt::eraseIfUnread(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return false;
  SmallVector<Operation *> users;
  for (OpOperand *use : usesThroughViews(alloc)) {
    if (mayRead(*use))
      return false;
    users.push_back(use->getOwner());
  }
  // (An op may use two views of the buffer: references go first.)
  llvm::SetVector<Operation *> unique(users.begin(), users.end());
  for (Operation *user : unique)
    user->dropAllReferences();
  for (Operation *user : unique)
    user->erase();
  alloc.erase();
  return true;
}
