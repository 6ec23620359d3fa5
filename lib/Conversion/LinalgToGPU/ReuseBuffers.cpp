//===- ReuseBuffers.cpp - mpt-gpu-reuse-buffers ---------------------------===//
//
// Device buffers with disjoint lifetimes share one arena: lifetimes in ops
// of the host function's body, placed largest first at the lowest free
// offset (the greedy-by-size plan of TFLite's arena planner).
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mpt {
#define GEN_PASS_DEF_GPUREUSEBUFFERS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Offsets in the arena are multiples of this (cudaMalloc's alignment).
constexpr int64_t kAlignment = 256;

/// A buffer of the arena.
struct Buffer {
  gpu::AllocOp alloc;
  gpu::DeallocOp dealloc;
  int64_t bytes = 0;
  int64_t first = 0, last = -1; // lifetime, in ops of the body
  int64_t offset = 0;
  bool overlapsInTime(const Buffer &o) const {
    return first <= o.last && o.first <= last;
  }
};

/// Ops that only make another view or handle of a buffer: their users
/// are the buffer's users.
bool isView(Operation *op) {
  return isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
             memref::SubViewOp, memref::ReinterpretCastOp, memref::TransposeOp,
             memref::ViewOp, nvgpu::TmaCreateDescriptorOp,
             UnrealizedConversionCastOp>(op);
}

/// The bytes of a static, identity-layout device buffer with int or float
/// elements (sub-byte elements take a byte each, as the LLVM lowering
/// stores them), or nullopt.
std::optional<int64_t> bytesOf(MemRefType type) {
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace() || !element.isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() *
         llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
}

struct GPUReuseBuffersPass
    : public mpt::impl::GPUReuseBuffersBase<GPUReuseBuffersPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    llvm::DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = i;

    SmallVector<Buffer> buffers;
    for (Operation &op : body) {
      auto alloc = dyn_cast<gpu::AllocOp>(&op);
      if (!alloc || alloc.getAsyncToken() || alloc.getHostShared() ||
          !alloc.getAsyncDependencies().empty())
        continue;
      std::optional<int64_t> bytes = bytesOf(alloc.getType());
      if (!bytes)
        continue;
      if (std::optional<Buffer> buffer = lifetime(alloc, *bytes, position))
        buffers.push_back(*buffer);
    }
    if (buffers.size() < 2)
      return;

    // Each at the lowest aligned offset that no placed buffer live at the
    // same time covers, in the order of whichever of three orders gives the
    // smallest arena: largest first (TFLite's greedy by size), first used
    // first, largest footprint (bytes times ops live) first.
    auto place = [&](SmallVector<Buffer> &order) {
      int64_t arena = 0;
      for (size_t i = 0; i < order.size(); ++i) {
        Buffer &buffer = order[i];
        SmallVector<std::pair<int64_t, int64_t>> taken; // [begin, end)
        for (size_t j = 0; j < i; ++j)
          if (order[j].overlapsInTime(buffer))
            taken.push_back(
                {order[j].offset, order[j].offset + order[j].bytes});
        llvm::sort(taken);
        int64_t offset = 0;
        for (auto [begin, end] : taken) {
          if (offset + buffer.bytes <= begin)
            break;
          offset = std::max<int64_t>(offset, llvm::alignTo(end, kAlignment));
        }
        buffer.offset = offset;
        arena = std::max(arena, offset + buffer.bytes);
      }
      return arena;
    };
    auto key = [&](const Buffer &x, int order) {
      int64_t footprint = x.bytes * (x.last - x.first + 1);
      int64_t at = position.lookup(x.alloc);
      if (order == 0)
        return std::make_tuple(-x.bytes, x.first, at);
      if (order == 1)
        return std::make_tuple(x.first, -x.bytes, at);
      return std::make_tuple(-footprint, x.first, at);
    };
    int64_t arenaBytes = std::numeric_limits<int64_t>::max();
    SmallVector<Buffer> best;
    for (int order = 0; order < 3; ++order) {
      SmallVector<Buffer> candidate(buffers);
      llvm::sort(candidate, [&](const Buffer &x, const Buffer &y) {
        return key(x, order) < key(y, order);
      });
      int64_t arena = place(candidate);
      if (arena < arenaBytes) {
        arenaBytes = arena;
        best = std::move(candidate);
      }
    }
    buffers = std::move(best);
    // Only if some buffers share memory.
    bool shared = false;
    for (size_t i = 0; i < buffers.size() && !shared; ++i)
      for (size_t j = 0; j < i && !shared; ++j)
        shared = buffers[i].offset < buffers[j].offset + buffers[j].bytes &&
                 buffers[j].offset < buffers[i].offset + buffers[i].bytes;
    if (!shared)
      return;

    // The arena where the first of the buffers was allocated, freed where
    // the last of them was.
    auto byPosition = [&](Operation *x, Operation *y) {
      return position[x] < position[y];
    };
    Operation *firstAlloc = buffers.front().alloc;
    Operation *lastDealloc = buffers.front().dealloc;
    for (Buffer &buffer : buffers) {
      firstAlloc =
          std::min(firstAlloc, buffer.alloc.getOperation(), byPosition);
      lastDealloc =
          std::max(lastDealloc, buffer.dealloc.getOperation(), byPosition);
    }
    OpBuilder b(firstAlloc);
    Location loc = func.getLoc();
    auto arenaType = MemRefType::get({arenaBytes}, b.getI8Type());
    Value arena = gpu::AllocOp::create(b, loc, arenaType, /*asyncToken=*/Type(),
                                       ValueRange(), ValueRange(), ValueRange())
                      .getMemref();
    // One constant per offset, right after the arena.
    llvm::DenseMap<int64_t, Value> offsets;
    for (Buffer &buffer : buffers)
      if (!offsets.count(buffer.offset))
        offsets[buffer.offset] =
            arith::ConstantIndexOp::create(b, loc, buffer.offset);
    for (Buffer &buffer : buffers) {
      b.setInsertionPoint(buffer.alloc);
      Value offset = offsets[buffer.offset];
      Value view = memref::ViewOp::create(b, buffer.alloc.getLoc(),
                                          buffer.alloc.getType(), arena, offset,
                                          ValueRange());
      buffer.alloc.getMemref().replaceAllUsesWith(view);
      if (buffer.dealloc != lastDealloc)
        buffer.dealloc.erase();
    }
    b.setInsertionPoint(lastDealloc);
    gpu::DeallocOp::create(b, lastDealloc->getLoc(), /*asyncToken=*/Type(),
                           ValueRange(), arena);
    lastDealloc->erase();
    for (Buffer &buffer : buffers)
      buffer.alloc.erase();
  }

  /// The lifetime of `alloc`'s buffer of `bytes` in ops of the body, or
  /// nullopt if the buffer escapes (returned, or used outside the body's
  /// ops) or is not freed by one gpu.dealloc of the body after its uses.
  std::optional<Buffer>
  lifetime(gpu::AllocOp alloc, int64_t bytes,
           const llvm::DenseMap<Operation *, int64_t> &position) {
    Buffer buffer{alloc, {}, bytes};
    Block *body = alloc->getBlock();
    buffer.first = std::numeric_limits<int64_t>::max();
    SmallVector<Value> values{alloc.getMemref()};
    while (!values.empty()) {
      Value value = values.pop_back_val();
      for (Operation *user : value.getUsers()) {
        Operation *top = body->findAncestorOpInBlock(*user);
        if (!top || isa<func::ReturnOp>(top))
          return std::nullopt;
        if (auto dealloc = dyn_cast<gpu::DeallocOp>(user);
            dealloc && dealloc->getBlock() == body) {
          if (value != alloc.getMemref() || buffer.dealloc ||
              dealloc.getAsyncToken() ||
              !dealloc.getAsyncDependencies().empty())
            return std::nullopt;
          buffer.dealloc = dealloc;
          continue;
        }
        if (user == top && isView(user)) {
          llvm::append_range(values, user->getResults());
          continue;
        }
        int64_t at = position.lookup(top);
        buffer.first = std::min(buffer.first, at);
        buffer.last = std::max(buffer.last, at);
      }
    }
    if (!buffer.dealloc)
      return std::nullopt;
    if (buffer.last < 0) // never used: any time will do
      buffer.first = buffer.last = position.lookup(alloc);
    if (position.lookup(buffer.dealloc) < buffer.last)
      return std::nullopt;
    return buffer;
  }
};

} // namespace
