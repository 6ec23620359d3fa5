//===- GPUEmulation.cpp - mpt-gpu-emulation -------------------------------===//
//
// Outlined GPU kernels as host functions that mpt's GPU emulator
// (lib/Runtime/GpuEmulator.cpp) runs: the kernels that mpt-lower-to-nvvm
// builds, before they become NVVM, executed on the CPU so that their
// indexing, tiling, pipelining and epilogues can be checked against numpy
// without a GPU.
//
// - Each gpu.func kernel becomes a func.func taking the kernel's arguments
//   and the block's dynamic shared memory; thread and block ids, barriers,
//   and the warp-wide and asynchronous instructions (nvgpu.ldmatrix,
//   nvgpu.mma.sync, nvvm.mma.sync, nvgpu.device_async_copy and its groups
//   and waits, nvvm.cvt.float.to.tf32, the gpu.subgroup_mma_* ops of WMMA,
//   gpu.shuffle of 32-bit values over whole warps)
//   become calls into the emulator, with operands passed through stack
//   buffers and memory as addresses. A WMMA fragment becomes a vector of
//   the whole matrix in every lane.
// - sm_90a: nvgpu's warpgroup ops are lowered by upstream's patterns first
//   (the descriptors and accumulator maps of the GPU), then the mbarrier
//   and TMA ops (nvgpu) and the wgmma ops (NVVM) become calls; on the host,
//   a tensor map becomes the emulator's, passed to kernels as !llvm.ptr.
// - Each gpu.launch_func packs its operands (memrefs as their LLVM
//   descriptors) into a struct and calls mpt_emu_launch with a trampoline
//   that unpacks them and calls the kernel function.
// - Device buffers become host buffers (aligned to 256 bytes, like
//   cudaMalloc's) filled with all-ones bits (NaN),
//   copies memref.copy, memsets loops of stores.
//
// Memory spaces are dropped: shared memory is a host buffer per block.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mpt {
#define GEN_PASS_DEF_GPUEMULATION
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// The emulator's functions (lib/Runtime/GpuEmulator.cpp).
struct Runtime {
  ModuleOp module;

  func::FuncOp get(StringRef name, TypeRange inputs, TypeRange results = {}) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto fn = func::FuncOp::create(
        b, module.getLoc(), name,
        FunctionType::get(module.getContext(), inputs, results));
    fn.setPrivate();
    return fn;
  }

  Value call(OpBuilder &b, Location loc, StringRef name, ValueRange args,
             TypeRange results = {}) {
    func::FuncOp fn = get(name, args.getTypes(), results);
    auto call = func::CallOp::create(b, loc, fn, args);
    return results.empty() ? Value() : call.getResult(0);
  }
};

Value i64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value pointerOf(OpBuilder &b, Location loc, Value memref) {
  return i64(b, loc,
             memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
}

/// The address of element `indices` of `memref`, and the bytes its elements
/// span: [base, base + span).
struct Address {
  Value addr, base, span;
};

Address addressOf(OpBuilder &b, Location loc, Value memref,
                  ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value one = cst(1);
  Value linear = meta.getOffset(), extent = one;
  for (auto [i, index] : llvm::enumerate(indices)) {
    Value stride = meta.getStrides()[i];
    linear = arith::AddIOp::create(
        b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
    Value last = arith::SubIOp::create(b, loc, meta.getSizes()[i], one);
    extent = arith::AddIOp::create(b, loc, extent,
                                   arith::MulIOp::create(b, loc, last, stride));
  }
  Value bytes = cst(type.getElementTypeBitWidth() / 8);
  auto scaled = [&](Value v) {
    return arith::MulIOp::create(b, loc, v, bytes).getResult();
  };
  Value addr = arith::AddIOp::create(b, loc, aligned, scaled(linear));
  Value base = arith::AddIOp::create(b, loc, aligned, scaled(meta.getOffset()));
  return {i64(b, loc, addr), i64(b, loc, base), i64(b, loc, scaled(extent))};
}

/// A memref or vector load or store: the memref, the indices, what moves
/// (a scalar or a vector) and the alignment a vector states (0 if none).
struct Access {
  Value memref;
  ValueRange indices;
  Type moved;
  bool store = false;
  uint64_t alignment = 0;

  static std::optional<Access> of(Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return Access{load.getMemRef(), load.getIndices(), load.getType()};
    if (auto st = dyn_cast<memref::StoreOp>(op))
      return Access{st.getMemRef(), st.getIndices(),
                    st.getValueToStore().getType(), true};
    if (auto load = dyn_cast<vector::LoadOp>(op))
      return Access{load.getBase(), load.getIndices(), load.getVectorType(),
                    false, load.getAlignment().value_or(0)};
    if (auto st = dyn_cast<vector::StoreOp>(op))
      return Access{st.getBase(), st.getIndices(), st.getVectorType(), true,
                    st.getAlignment().value_or(0)};
    return std::nullopt;
  }

  MemRefType type() const { return cast<MemRefType>(memref.getType()); }

  /// The bytes that move.
  int64_t bytes() const {
    auto vector = dyn_cast<VectorType>(moved);
    int64_t bits =
        vector ? vector.getNumElements() * vector.getElementTypeBitWidth()
               : moved.getIntOrFloatBitWidth();
    return llvm::divideCeil(bits, 8);
  }
};

/// Converts one outlined kernel into a host function.
class KernelConverter {
public:
  KernelConverter(func::FuncOp fn, Runtime &rt)
      : fn(fn), rt(rt), entry(OpBuilder::atBlockBegin(&fn.front())) {}

  LogicalResult run() {
    convertTypes();
    // Each mbarrier group is a range of keys of the emulator's mbarriers.
    int64_t groups = 0;
    fn.walk([&](nvgpu::MBarrierCreateOp op) {
      OpBuilder b(op);
      mbarrierGroups[op.getBarriers()] = arith::ConstantIntOp::create(
          b, op.getLoc(), b.getI64Type(), ++groups << 20);
    });
    readAccumulatorsThroughRuntime();
    SmallVector<Operation *> ops;
    fn.walk([&](Operation *op) { ops.push_back(op); });
    // Waits and groups before the copies whose tokens they use.
    for (Operation *op : llvm::reverse(ops))
      if (failed(convert(op)))
        return failure();
    WalkResult unsupported =
        fn.walk([&](Operation *op) {
          if (isa<gpu::GPUDialect, nvgpu::NVGPUDialect, NVVM::NVVMDialect>(
                  op->getDialect())) {
            op->emitOpError()
                << "cannot be emulated on the CPU (mpt-gpu-emulation runs the "
                   "SIMT, WMMA, mma.sync and wgmma kernels of chips sm_70 to "
                   "sm_90a)";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
    return failure(unsupported.wasInterrupted());
  }

private:
  /// In a kernel with wgmma, the registers that upstream's lowering takes out
  /// of the accumulator structs (the store of the accumulators) are read
  /// through mpt_emu_wgmma_read: the emulator's wgmma gives the threads tags
  /// of their accumulators, which this turns into the values once a
  /// wgmma.wait_group retired the wgmma, and reports a read before. (The
  /// wgmmas themselves take the tags, as the GPU takes the registers of
  /// wgmmas still in flight.)
  void readAccumulatorsThroughRuntime() {
    if (!fn.walk([](NVVM::WgmmaMmaAsyncOp) {
             return WalkResult::interrupt();
           }).wasInterrupted())
      return;
    SmallVector<LLVM::ExtractValueOp> reads;
    fn.walk([&](LLVM::ExtractValueOp op) {
      if (op.getType().isF32())
        reads.push_back(op);
    });
    for (LLVM::ExtractValueOp op : reads) {
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      Value value =
          rt.call(b, op.getLoc(), "mpt_emu_wgmma_read", {op}, {b.getF32Type()});
      op.getResult().replaceAllUsesExcept(value, value.getDefiningOp());
    }
  }

  func::FuncOp fn;
  Runtime &rt;
  OpBuilder entry; // allocas and ids, at the start of the function
  DenseMap<int, Value> ids;
  DenseMap<Value, Value> mbarrierGroups; // group -> its first key (i64)

  /// The emulator's key of mbarrier `index` of `group`.
  Value mbarrierKey(OpBuilder &b, Location loc, Value group, Value index) {
    return arith::AddIOp::create(b, loc, mbarrierGroups.lookup(group),
                                 i64(b, loc, index));
  }

  /// The tensor map (as an i64 address) behind a kernel's descriptor: the
  /// !llvm.ptr kernel argument it is cast from.
  FailureOr<Value> tensorMap(OpBuilder &b, Operation *user, Value desc) {
    auto cast = desc.getDefiningOp<UnrealizedConversionCastOp>();
    if (!cast || cast.getInputs().size() != 1 ||
        !isa<LLVM::LLVMPointerType>(cast.getInputs()[0].getType()))
      return user->emitOpError(
          "uses a tensor map that is not a kernel argument; the emulator "
          "takes tensor maps passed to the kernel as !llvm.ptr");
    return LLVM::PtrToIntOp::create(b, user->getLoc(), b.getI64Type(),
                                    cast.getInputs()[0])
        .getResult();
  }

  /// `type` with the address spaces of its LLVM pointers dropped.
  static Type stripPointers(Type type) {
    if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(type))
      return ptr.getAddressSpace()
                 ? LLVM::LLVMPointerType::get(ptr.getContext())
                 : type;
    if (auto st = dyn_cast<LLVM::LLVMStructType>(type)) {
      if (st.isIdentified())
        return type;
      SmallVector<Type> body;
      for (Type t : st.getBody())
        body.push_back(stripPointers(t));
      return LLVM::LLVMStructType::getLiteral(type.getContext(), body,
                                              st.isPacked());
    }
    if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
      return LLVM::LLVMArrayType::get(stripPointers(array.getElementType()),
                                      array.getNumElements());
    return type;
  }

  /// Drops memory spaces (of memrefs and of LLVM pointers); WMMA fragments
  /// become vectors of the whole matrix (every lane of the emulator holds
  /// all of it).
  void convertTypes() {
    auto strip = [](Value v) {
      if (auto frag = dyn_cast<gpu::MMAMatrixType>(v.getType())) {
        v.setType(VectorType::get(frag.getShape(), frag.getElementType()));
        return;
      }
      auto type = dyn_cast<MemRefType>(v.getType());
      if (type && type.getMemorySpace()) {
        v.setType(MemRefType::Builder(type).setMemorySpace(Attribute()));
        return;
      }
      if (isa<LLVM::LLVMPointerType, LLVM::LLVMStructType, LLVM::LLVMArrayType>(
              v.getType()))
        v.setType(stripPointers(v.getType()));
    };
    fn.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            strip(arg);
      for (Value result : op->getResults())
        strip(result);
    });
  }

  Value id(Location loc, int which) {
    Value &v = ids[which];
    if (!v)
      v = arith::IndexCastOp::create(entry, loc, entry.getIndexType(),
                                     rt.call(entry, loc, "mpt_emu_id",
                                             {constI32(entry, loc, which)},
                                             {entry.getI64Type()}));
    return v;
  }

  /// A stack buffer of `count` `element`s for one op's operands.
  Value buffer(Location loc, int64_t count, Type element) {
    return memref::AllocaOp::create(entry, loc,
                                    MemRefType::get({count}, element));
  }

  /// Stores `vec` (any shape) into a new buffer; returns its address.
  Value spill(OpBuilder &b, Location loc, Value vec) {
    auto type = cast<VectorType>(vec.getType());
    auto flat = VectorType::get({type.getNumElements()}, type.getElementType());
    Value buf = buffer(loc, flat.getNumElements(), flat.getElementType());
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    vector::StoreOp::create(
        b, loc, vector::ShapeCastOp::create(b, loc, flat, vec), buf, zero);
    return pointerOf(b, loc, buf);
  }

  /// Stores the scalars `values` into a new buffer; returns its address.
  Value spillScalars(OpBuilder &b, Location loc, ValueRange values) {
    Value buf = buffer(loc, values.size(), values.front().getType());
    for (auto [i, v] : llvm::enumerate(values))
      memref::StoreOp::create(
          b, loc, v, buf,
          ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
    return pointerOf(b, loc, buf);
  }

  /// Loads a vector of `type` from the buffer `buf`.
  Value reload(OpBuilder &b, Location loc, Value buf, VectorType type) {
    auto flat = VectorType::get({type.getNumElements()}, type.getElementType());
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value v = vector::LoadOp::create(b, loc, flat, buf, zero);
    return vector::ShapeCastOp::create(b, loc, type, v);
  }

  static int mmaKind(Type element) {
    if (element.isF16())
      return 1;
    if (element.isBF16())
      return 2;
    return 0;
  }

  LogicalResult convert(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto dimension = [](gpu::Dimension d) { return static_cast<int>(d); };
    if (auto o = dyn_cast<gpu::ThreadIdOp>(op))
      return replace(op, id(loc, dimension(o.getDimension())));
    if (auto o = dyn_cast<gpu::BlockIdOp>(op))
      return replace(op, id(loc, 3 + dimension(o.getDimension())));
    if (auto o = dyn_cast<gpu::BlockDimOp>(op))
      return replace(op, id(loc, 6 + dimension(o.getDimension())));
    if (auto o = dyn_cast<gpu::GridDimOp>(op))
      return replace(op, id(loc, 9 + dimension(o.getDimension())));
    if (isa<gpu::DynamicSharedMemoryOp>(op))
      return replace(op, fn.getArguments().back());
    if (isa<gpu::BarrierOp>(op)) {
      rt.call(b, loc, "mpt_emu_barrier", {});
      op->erase();
      return success();
    }
    // The blocks of a launch run one after another, and the threads of a
    // block on one host thread: every write is visible to the device.
    if (isa<NVVM::MembarOp>(op)) {
      op->erase();
      return success();
    }
    if (isa<gpu::ReturnOp>(op)) {
      func::ReturnOp::create(b, loc);
      op->erase();
      return success();
    }
    if (auto o = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      VectorType type = o.getRes().getType();
      if (type.getElementTypeBitWidth() != 16)
        return o.emitOpError("is emulated for 16-bit elements only");
      Address a = addressOf(b, loc, o.getSrcMemref(), o.getIndices());
      Value out = buffer(loc, type.getNumElements(), type.getElementType());
      rt.call(b, loc, "mpt_emu_ldmatrix",
              {a.addr, a.base, a.span, constI32(b, loc, o.getNumTiles()),
               constI32(b, loc, o.getTranspose()), pointerOf(b, loc, out)});
      return replace(op, reload(b, loc, out, type));
    }
    if (auto o = dyn_cast<nvgpu::MmaSyncOp>(op)) {
      auto aType = cast<VectorType>(o.getMatrixA().getType());
      int kind = mmaKind(aType.getElementType());
      auto shape = o.getMmaShapeAsArray();
      if (!kind || shape[0] != 16 || shape[1] != 8 || shape[2] != 16)
        return o.emitOpError("is emulated for m16n8k16 with f16 or bf16 "
                             "operands only");
      VectorType dType = o.getRes().getType();
      Value d = buffer(loc, dType.getNumElements(), dType.getElementType());
      rt.call(b, loc, "mpt_emu_mma",
              {constI32(b, loc, kind), spill(b, loc, o.getMatrixA()),
               spill(b, loc, o.getMatrixB()), spill(b, loc, o.getMatrixC()),
               pointerOf(b, loc, d)});
      return replace(op, reload(b, loc, d, dType));
    }
    if (auto o = dyn_cast<NVVM::MmaOp>(op))
      return convertNVVMMma(b, o);
    if (auto o = dyn_cast<gpu::SubgroupMmaLoadMatrixOp>(op)) {
      auto type = cast<VectorType>(o.getRes().getType());
      Value out = buffer(loc, type.getNumElements(), type.getElementType());
      callWmmaMemory(b, o, "mpt_emu_wmma_load", o.getSrcMemref(),
                     o.getIndices(), type, o.getLeadDimension(),
                     o.getTranspose().value_or(false), out);
      return replace(op, reload(b, loc, out, type));
    }
    if (auto o = dyn_cast<gpu::SubgroupMmaConstantMatrixOp>(op))
      return replace(op, vector::BroadcastOp::create(
                             b, loc, o.getResult().getType(), o.getValue()));
    if (auto o = dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(op)) {
      Value src = o.getSrc();
      callWmmaMemory(b, o, "mpt_emu_wmma_store", o.getDstMemref(),
                     o.getIndices(), cast<VectorType>(src.getType()),
                     o.getLeadDimension(), o.getTranspose().value_or(false),
                     Value());
      op->erase();
      return success();
    }
    if (auto o = dyn_cast<gpu::SubgroupMmaComputeOp>(op)) {
      auto aType = cast<VectorType>(o.getOpA().getType());
      auto cType = cast<VectorType>(o.getOpC().getType());
      int kind = mmaKind(aType.getElementType());
      if (!kind || !cType.getElementType().isF32() || o.getATranspose() ||
          o.getBTranspose())
        return o.emitOpError("is emulated for f16 or bf16 operands with f32 "
                             "accumulators, untransposed, only");
      Value d = buffer(loc, cType.getNumElements(), cType.getElementType());
      rt.call(b, loc, "mpt_emu_wmma_mma",
              {constI32(b, loc, kind), constI32(b, loc, cType.getDimSize(0)),
               constI32(b, loc, cType.getDimSize(1)),
               constI32(b, loc, aType.getDimSize(1)), spill(b, loc, o.getOpA()),
               spill(b, loc, o.getOpB()), spill(b, loc, o.getOpC()),
               pointerOf(b, loc, d)});
      return replace(op, reload(b, loc, d, cType));
    }
    if (auto o = dyn_cast<gpu::ShuffleOp>(op)) {
      Type type = o.getValue().getType();
      if (!type.isInteger(32) && !type.isF32())
        return o.emitOpError("is emulated for i32 and f32 values only");
      Type i32 = b.getI32Type();
      Value bits = type.isF32()
                       ? arith::BitcastOp::create(b, loc, i32, o.getValue())
                       : o.getValue();
      Value packed =
          rt.call(b, loc, "mpt_emu_shuffle",
                  {constI32(b, loc, static_cast<int32_t>(o.getMode())), bits,
                   o.getOffset(), o.getWidth()},
                  {b.getI64Type()});
      Value result = arith::TruncIOp::create(b, loc, i32, packed);
      if (type.isF32())
        result = arith::BitcastOp::create(b, loc, type, result);
      Value valid = arith::TruncIOp::create(
          b, loc, b.getI1Type(),
          arith::ShRUIOp::create(
              b, loc, packed,
              arith::ConstantIntOp::create(b, loc, b.getI64Type(), 32)));
      op->replaceAllUsesWith(ValueRange{result, valid});
      op->erase();
      return success();
    }
    if (auto o = dyn_cast<NVVM::ConvertFloatToTF32Op>(op)) {
      if (o.getRnd() != NVVM::FPRoundingMode::RNA || o.getRelu() ||
          o.getSat() != NVVM::SaturationMode::NONE)
        return o.emitOpError("is emulated with rounding rna only");
      return replace(
          op, rt.call(b, loc, "mpt_emu_tf32", {o.getSrc()}, {b.getI32Type()}));
    }
    if (LogicalResult r = convertHopper(b, op); succeeded(r) || isHopper(op))
      return r;
    if (auto o = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      auto dstType = cast<MemRefType>(o.getDst().getType());
      int64_t bytes = dstType.getElementTypeBitWidth() / 8;
      Address dst = addressOf(b, loc, o.getDst(), o.getDstIndices());
      Address src = addressOf(b, loc, o.getSrc(), o.getSrcIndices());
      Value srcBytes =
          constI32(b, loc, o.getDstElements().getSExtValue() * bytes);
      if (Value n = o.getSrcElements())
        srcBytes = arith::MulIOp::create(
            b, loc,
            arith::IndexCastOp::create(b, loc, b.getI32Type(), n).getResult(),
            constI32(b, loc, bytes));
      rt.call(b, loc, "mpt_emu_cp_async",
              {dst.addr, dst.base, dst.span, src.addr, src.base, src.span,
               constI32(b, loc, o.getDstElements().getSExtValue() * bytes),
               srcBytes});
      return eraseToken(op);
    }
    if (isa<nvgpu::DeviceAsyncCreateGroupOp>(op)) {
      rt.call(b, loc, "mpt_emu_cp_async_commit", {});
      return eraseToken(op);
    }
    if (auto o = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
      rt.call(b, loc, "mpt_emu_cp_async_wait",
              {constI32(b, loc, o.getNumGroups().value_or(0))});
      op->erase();
      return success();
    }
    if (auto o = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op)) {
      rt.call(b, loc, "mpt_emu_cp_async_wait", {constI32(b, loc, o.getN())});
      op->erase();
      return success();
    }
    return success();
  }

  static bool isHopper(Operation *op) {
    return isa<nvgpu::MBarrierCreateOp, nvgpu::MBarrierInitOp,
               nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierArriveOp,
               nvgpu::MBarrierTryWaitParityOp, NVVM::SetMaxRegisterOp,
               NVVM::BarrierOp, nvgpu::TmaAsyncLoadOp, nvgpu::TmaPrefetchOp,
               NVVM::FenceMbarrierInitOp, NVVM::WgmmaFenceAlignedOp,
               NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaGroupSyncAlignedOp,
               NVVM::WgmmaWaitGroupSyncOp, NVVM::ThreadIdXOp, NVVM::ThreadIdYOp,
               NVVM::ThreadIdZOp, LLVM::AddrSpaceCastOp, NVVM::MBarrierInitOp,
               NVVM::MBarrierArriveOp, NVVM::MBarrierTryWaitParityOp,
               NVVM::MapaOp, NVVM::ClusterArriveOp, NVVM::ClusterWaitOp,
               nvgpu::TmaAsyncStoreOp, NVVM::CpAsyncBulkCommitGroupOp,
               NVVM::CpAsyncBulkWaitGroupOp, NVVM::FenceProxyOp>(op);
  }

  /// The ops of the sm_90a kernels: mbarriers and TMA (nvgpu), wgmma (NVVM,
  /// after upstream's lowering of nvgpu's warpgroup ops). Fails for the
  /// others.
  LogicalResult convertHopper(OpBuilder &b, Operation *op) {
    Location loc = op->getLoc();
    auto i32 = [&](Value v) {
      return arith::ExtUIOp::create(b, loc, b.getI32Type(), v).getResult();
    };
    if (!isHopper(op))
      return failure();
    if (auto o = dyn_cast<NVVM::ThreadIdXOp>(op))
      return replaceWithI32(b, o, id(loc, 0));
    if (auto o = dyn_cast<NVVM::ThreadIdYOp>(op))
      return replaceWithI32(b, o, id(loc, 1));
    if (auto o = dyn_cast<NVVM::ThreadIdZOp>(op))
      return replaceWithI32(b, o, id(loc, 2));
    if (auto o = dyn_cast<LLVM::AddrSpaceCastOp>(op))
      return replace(op, o.getArg());
    // The mbarriers that NVVM ops address (the clusters' release barriers)
    // are keyed by their addresses.
    auto address = [&](Value ptr) {
      return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr).getResult();
    };
    if (auto o = dyn_cast<NVVM::MapaOp>(op)) {
      Value mapped = rt.call(b, loc, "mpt_emu_mapa",
                             {address(o.getA()), o.getB()}, {b.getI64Type()});
      return replace(op, LLVM::IntToPtrOp::create(b, loc, o.getType(), mapped));
    }
    if (auto o = dyn_cast<NVVM::MBarrierInitOp>(op)) {
      if (o.getPredicate())
        return o.emitOpError("is emulated without a predicate only");
      rt.call(b, loc, "mpt_emu_mbarrier_init",
              {address(o.getAddr()),
               arith::ExtUIOp::create(b, loc, b.getI64Type(), o.getCount())});
    } else if (auto o = dyn_cast<NVVM::MBarrierArriveOp>(op)) {
      if (o.getCount() || (o.getRes() && !o.getRes().use_empty()))
        return o.emitOpError(
            "is emulated without a count and an unused result only");
      rt.call(b, loc, "mpt_emu_mbarrier_arrive", {address(o.getAddr())});
    } else if (auto o = dyn_cast<NVVM::MBarrierTryWaitParityOp>(op)) {
      rt.call(b, loc, "mpt_emu_mbarrier_wait",
              {address(o.getAddr()), o.getPhase()});
    } else if (isa<NVVM::ClusterArriveOp>(op)) {
      rt.call(b, loc, "mpt_emu_cluster_arrive", {});
    } else if (isa<NVVM::ClusterWaitOp>(op)) {
      rt.call(b, loc, "mpt_emu_cluster_wait", {});
    }
    if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
            NVVM::MBarrierTryWaitParityOp, NVVM::ClusterArriveOp,
            NVVM::ClusterWaitOp>(op)) {
      op->erase();
      return success();
    }
    if (isa<nvgpu::MBarrierCreateOp>(op)) {
      op->getResult(0).replaceAllUsesWith(
          mbarrierGroups.lookup(op->getResult(0)));
      op->erase();
      return success();
    }
    if (auto o = dyn_cast<nvgpu::MBarrierInitOp>(op)) {
      if (o.getPredicate())
        return o.emitOpError("is emulated without a predicate only");
      rt.call(b, loc, "mpt_emu_mbarrier_init",
              {mbarrierKey(b, loc, o.getBarriers(), o.getMbarId()),
               i64(b, loc, o.getCount())});
    } else if (auto o = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op)) {
      if (o.getPredicate())
        return o.emitOpError("is emulated without a predicate only");
      rt.call(b, loc, "mpt_emu_mbarrier_arrive_expect_tx",
              {mbarrierKey(b, loc, o.getBarriers(), o.getMbarId()),
               i64(b, loc, o.getTxcount())});
    } else if (auto o = dyn_cast<NVVM::BarrierOp>(op)) {
      if (o.getReductionOp() || o->getNumResults())
        return o.emitOpError("is emulated without a reduction only");
      if (!o.getBarrierId() && !o.getNumberOfThreads())
        rt.call(b, loc, "mpt_emu_barrier", {});
      else if (!o.getBarrierId() || !o.getNumberOfThreads())
        return o.emitOpError(
            "is emulated with both a barrier id and a thread count, or "
            "neither, only");
      else
        rt.call(b, loc, "mpt_emu_named_barrier",
                {o.getBarrierId(), o.getNumberOfThreads()});
    } else if (auto o = dyn_cast<nvgpu::MBarrierArriveOp>(op)) {
      if (!o.getToken().use_empty())
        return o.emitOpError("is emulated when its token is unused only");
      rt.call(b, loc, "mpt_emu_mbarrier_arrive_expect_tx",
              {mbarrierKey(b, loc, o.getBarriers(), o.getMbarId()),
               arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0)});
    } else if (auto o = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op)) {
      rt.call(b, loc, "mpt_emu_mbarrier_wait",
              {mbarrierKey(b, loc, o.getBarriers(), o.getMbarId()),
               i32(o.getPhaseParity())});
    } else if (isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp>(op)) {
      // A TMA copy's shared buffer (its address and bounds), tensor map and
      // coordinates (spilled, and their count).
      auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op);
      auto store = dyn_cast<nvgpu::TmaAsyncStoreOp>(op);
      if (load ? load.getPredicate() : store.getPredicate())
        return op->emitOpError("is emulated without a predicate only");
      FailureOr<Value> map = tensorMap(b, op,
                                       load ? load.getTensorMapDescriptor()
                                            : store.getTensorMapDescriptor());
      if (failed(map))
        return failure();
      Value buffer = load ? load.getDst() : store.getSrc();
      SmallVector<Value> zeros(cast<MemRefType>(buffer.getType()).getRank(),
                               arith::ConstantIndexOp::create(b, loc, 0));
      Address shared = addressOf(b, loc, buffer, zeros);
      SmallVector<Value> coords;
      for (Value c : load ? load.getCoordinates() : store.getCoordinates())
        coords.push_back(i64(b, loc, c));
      Value spilled = spillScalars(b, loc, coords);
      Value count = constI32(b, loc, coords.size());
      if (store)
        rt.call(b, loc, "mpt_emu_tma_store",
                {shared.addr, shared.base, shared.span, *map, spilled, count});
      else
        rt.call(b, loc, "mpt_emu_tma_load",
                {shared.addr, shared.base, shared.span, *map,
                 mbarrierKey(b, loc, load.getBarriers(), load.getMbarId()),
                 spilled, count,
                 load.getMulticastMask()
                     ? arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                              load.getMulticastMask())
                           .getResult()
                     : constI32(b, loc, 0)});
    } else if (isa<NVVM::CpAsyncBulkCommitGroupOp>(op)) {
      rt.call(b, loc, "mpt_emu_bulk_commit", {});
    } else if (auto o = dyn_cast<NVVM::CpAsyncBulkWaitGroupOp>(op)) {
      rt.call(b, loc, "mpt_emu_bulk_wait", {constI32(b, loc, o.getGroup())});
    } else if (auto o = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
      return convertWgmma(b, o);
    } else if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op)) {
      rt.call(b, loc, "mpt_emu_wgmma_commit", {});
    } else if (auto o = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op)) {
      rt.call(b, loc, "mpt_emu_wgmma_wait", {constI32(b, loc, o.getGroup())});
    }
    // Prefetches, fences and register moves have nothing to emulate.
    op->erase();
    return success();
  }

  LogicalResult replaceWithI32(OpBuilder &b, Operation *op, Value index) {
    return replace(
        op, arith::IndexCastOp::create(b, op->getLoc(), b.getI32Type(), index));
  }

  /// nvvm.wgmma.mma_async: the thread's accumulators (a struct of f32) in
  /// and out through buffers.
  LogicalResult convertWgmma(OpBuilder &b, NVVM::WgmmaMmaAsyncOp o) {
    Location loc = o.getLoc();
    NVVM::MMAShapeAttr shape = o.getShape();
    auto structType = dyn_cast<LLVM::LLVMStructType>(o.getInouts().getType());
    int kind = 0;
    if (o.getTypeA() == NVVM::WGMMATypes::f16)
      kind = 1;
    else if (o.getTypeA() == NVVM::WGMMATypes::bf16)
      kind = 2;
    else if (o.getTypeA() == NVVM::WGMMATypes::tf32)
      kind = 3;
    if (!kind || o.getTypeB() != o.getTypeA() ||
        o.getTypeD() != NVVM::WGMMATypes::f32 || shape.getM() != 64 ||
        !structType ||
        static_cast<int64_t>(structType.getBody().size()) != shape.getN() / 2 ||
        o.getScaleA() != NVVM::WGMMAScaleIn::one ||
        o.getScaleB() != NVVM::WGMMAScaleIn::one)
      return o.emitOpError("is emulated for m64 with f16, bf16 or tf32 "
                           "operands from shared memory, f32 accumulators "
                           "and unit scales only");
    int64_t n = shape.getN();
    SmallVector<Value> c;
    for (int64_t i = 0; i < n / 2; ++i)
      c.push_back(LLVM::ExtractValueOp::create(b, loc, o.getInouts(), i));
    Value d = buffer(loc, n / 2, b.getF32Type());
    auto layout = [&](NVVM::MMALayout l) {
      return constI32(b, loc, l == NVVM::MMALayout::col ? 1 : 0);
    };
    rt.call(b, loc, "mpt_emu_wgmma",
            {o.getDescriptorA(), o.getDescriptorB(), constI32(b, loc, n),
             constI32(b, loc, shape.getK()), constI32(b, loc, kind),
             layout(o.getLayoutA()), layout(o.getLayoutB()),
             constI32(b, loc, o.getScaleD() == NVVM::WGMMAScaleOut::one),
             spillScalars(b, loc, c), pointerOf(b, loc, d)});
    Value result = LLVM::PoisonOp::create(b, loc, structType);
    for (int64_t i = 0; i < n / 2; ++i) {
      Value v = memref::LoadOp::create(
          b, loc, d, ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
      result = LLVM::InsertValueOp::create(b, loc, result, v, i);
    }
    return replace(o, result);
  }

  /// A call of wmma.load (`out` is the buffer the fragment goes to) or
  /// wmma.store (of `fragment`'s value, spilled) on element `indices` of
  /// `memref`, with rows `leadDimension` elements apart.
  void callWmmaMemory(OpBuilder &b, Operation *op, StringRef name, Value memref,
                      ValueRange indices, VectorType type,
                      const APInt &leadDimension, bool transpose, Value out) {
    Location loc = op->getLoc();
    Address a = addressOf(b, loc, memref, indices);
    Value data =
        out ? pointerOf(b, loc, out) : spill(b, loc, op->getOperand(0));
    rt.call(b, loc, name,
            {a.addr, a.base, a.span, constI32(b, loc, type.getDimSize(0)),
             constI32(b, loc, type.getDimSize(1)),
             arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                          leadDimension.getSExtValue()),
             constI32(b, loc, type.getElementTypeBitWidth() / 8),
             constI32(b, loc, transpose), data});
  }

  /// nvvm.mma.sync on registers (bf16 m16n8k16 and tf32 m16n8k8 in mpt's
  /// kernels): the i32 words of A and B and the four f32 of C in buffers,
  /// D back as the op's struct.
  LogicalResult convertNVVMMma(OpBuilder &b, NVVM::MmaOp o) {
    Location loc = o.getLoc();
    NVVM::MMAShapeAttr shape = o.getShapeAttr();
    std::optional<NVVM::MMATypes> type = o.getMultiplicandAPtxType();
    int kind = 0;
    if (type == NVVM::MMATypes::f16 && shape.getK() == 16)
      kind = 1;
    else if (type == NVVM::MMATypes::bf16 && shape.getK() == 16)
      kind = 2;
    else if (type == NVVM::MMATypes::tf32 && shape.getK() == 8)
      kind = 3;
    auto structType = dyn_cast<LLVM::LLVMStructType>(o.getResult().getType());
    if (!kind || shape.getM() != 16 || shape.getN() != 8 || !structType ||
        structType.getBody().size() != 4 ||
        !llvm::all_of(structType.getBody(), [](Type t) { return t.isF32(); }) ||
        o.getOperandC().size() != 4)
      return o.emitOpError("is emulated for m16n8k16 f16/bf16 and m16n8k8 "
                           "tf32 with f32 accumulators only");
    Value d = buffer(loc, 4, b.getF32Type());
    rt.call(b, loc, "mpt_emu_mma",
            {constI32(b, loc, kind), spillScalars(b, loc, o.getOperandA()),
             spillScalars(b, loc, o.getOperandB()),
             spillScalars(b, loc, o.getOperandC()), pointerOf(b, loc, d)});
    Value result = LLVM::PoisonOp::create(b, loc, structType);
    for (int64_t i = 0; i < 4; ++i) {
      Value v = memref::LoadOp::create(
          b, loc, d, ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
      result = LLVM::InsertValueOp::create(b, loc, result, v, i);
    }
    return replace(o, result);
  }

  static LogicalResult replace(Operation *op, Value v) {
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
    return success();
  }

  /// Erases an op whose async token only the copy-group ops (already
  /// converted) used.
  static LogicalResult eraseToken(Operation *op) {
    for (Operation *user : op->getResult(0).getUsers())
      return user->emitOpError()
             << "uses an asynchronous copy token; the emulator supports "
                "tokens used by nvgpu.device_async_create_group and "
                "nvgpu.device_async_wait only";
    op->erase();
    return success();
  }
};

struct GPUEmulationPass : public mpt::impl::GPUEmulationBase<GPUEmulationPass> {
  using GPUEmulationBase::GPUEmulationBase;

  int64_t accessMessages = 0; // the access descriptions checkBounds made

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Runtime rt{module};
    SymbolTable symbols(module);
    // Kernels.
    llvm::StringMap<func::FuncOp> trampolines;
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      if (failed(lowerWarpgroupOps(gpuModule)))
        return signalPassFailure();
      for (auto kernel :
           llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>())) {
        std::string qualified =
            (gpuModule.getName() + "::" + kernel.getName()).str();
        FailureOr<func::FuncOp> body = convertKernel(kernel, rt, symbols);
        if (failed(body))
          return signalPassFailure();
        trampolines[qualified] = buildTrampoline(*body, symbols);
      }
      gpuModule.erase();
    }
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
    // Host code.
    SmallVector<Operation *> hostOps;
    module.walk([&](Operation *op) {
      if (isa<gpu::LaunchFuncOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
              gpu::MemsetOp, gpu::WaitOp, nvgpu::TmaCreateDescriptorOp>(op))
        hostOps.push_back(op);
    });
    for (Operation *op : hostOps)
      if (failed(convertHostOp(op, rt, symbols, trampolines)))
        return signalPassFailure();
    WalkResult unsupported = module.walk([&](Operation *op) {
      if (isa<gpu::GPUDialect, nvgpu::NVGPUDialect, NVVM::NVVMDialect>(
              op->getDialect())) {
        op->emitOpError() << "cannot be emulated on the CPU (host code "
                             "for mpt-gpu-emulation launches kernels, "
                             "allocates, copies and sets memory only)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
  }

  /// nvgpu's warpgroup ops (wgmma descriptors, accumulators, wgmma and the
  /// store of its accumulators) lowered as convert-nvgpu-to-nvvm lowers
  /// them, so that the emulator runs the very descriptors and fragment maps
  /// the GPU gets; the mbarrier and TMA ops stay (the emulator takes them
  /// with their memrefs, whose bounds it checks).
  LogicalResult lowerWarpgroupOps(gpu::GPUModuleOp gpuModule) {
    auto isWarpgroupOp = [](Operation *op) {
      return isa<nvgpu::WarpgroupGenerateDescriptorOp, nvgpu::WarpgroupMmaOp,
                 nvgpu::WarpgroupMmaStoreOp,
                 nvgpu::WarpgroupMmaInitAccumulatorOp>(op);
    };
    if (!gpuModule
             .walk([&](Operation *op) {
               return isWarpgroupOp(op) ? WalkResult::interrupt()
                                        : WalkResult::advance();
             })
             .wasInterrupted())
      return success();
    MLIRContext *ctx = gpuModule.getContext();
    LLVMTypeConverter converter(ctx);
    nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
    // The types of convert-nvgpu-to-nvvm (m64 per inner struct).
    converter.addConversion([ctx](nvgpu::WarpgroupAccumulatorType type) {
      VectorType v = type.getFragmented();
      SmallVector<Type> inner(v.getDimSize(1) / 2, v.getElementType());
      auto innerType = LLVM::LLVMStructType::getLiteral(ctx, inner);
      SmallVector<Type> outer(llvm::divideCeil(v.getDimSize(0), 64), innerType);
      return LLVM::LLVMStructType::getLiteral(ctx, outer);
    });
    converter.addConversion([ctx](nvgpu::WarpgroupMatrixDescriptorType) {
      return IntegerType::get(ctx, 64);
    });
    converter.addConversion([ctx](nvgpu::TensorMapDescriptorType) {
      return LLVM::LLVMPointerType::get(ctx);
    });
    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (isWarpgroupOp(op))
        return false;
      if (!isa<scf::SCFDialect>(op->getDialect()))
        return true;
      auto accumulator = [](Type t) {
        return isa<nvgpu::WarpgroupAccumulatorType>(t);
      };
      return llvm::none_of(op->getOperandTypes(), accumulator) &&
             llvm::none_of(op->getResultTypes(), accumulator);
    });
    return applyPartialConversion(gpuModule, target, std::move(patterns));
  }

  /// nvgpu.tma.create.descriptor on the host: the emulator's tensor map of
  /// the ranked memref the operand is cast from, passed on as the
  /// !llvm.ptr the kernels take.
  LogicalResult convertTensorMap(nvgpu::TmaCreateDescriptorOp op, Runtime &rt) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto cast = op.getTensor().getDefiningOp<memref::CastOp>();
    auto ranked =
        cast ? dyn_cast<MemRefType>(cast.getSource().getType()) : MemRefType();
    if (!ranked)
      return op.emitOpError("is emulated for a tensor cast from a ranked "
                            "memref only");
    nvgpu::TensorMapDescriptorType type = op.getTensorMap().getType();
    // (The type's verifier rejects interleaved maps.)
    int64_t rank = ranked.getRank();
    if (static_cast<int64_t>(op.getBoxDimensions().size()) != rank)
      return op.emitOpError()
             << "has " << op.getBoxDimensions().size()
             << " box dimensions for a rank-" << rank << " tensor";
    Value tensor = cast.getSource();
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, tensor);
    int64_t bytes = ranked.getElementTypeBitWidth() / 8;
    Value base = arith::AddIOp::create(
        b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, tensor),
        arith::MulIOp::create(b, loc, meta.getOffset(),
                              arith::ConstantIndexOp::create(b, loc, bytes)));
    auto array = [&](ValueRange values) {
      auto bufType = MemRefType::get({rank}, b.getI64Type());
      Value buf = memref::AllocaOp::create(b, loc, bufType);
      for (auto [i, v] : llvm::enumerate(values))
        memref::StoreOp::create(
            b, loc, i64(b, loc, v), buf,
            ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
      return pointerOf(b, loc, buf);
    };
    int swizzle = 0;
    switch (type.getSwizzle()) {
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
      break;
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
      swizzle = 32;
      break;
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
      swizzle = 64;
      break;
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
      swizzle = 128;
      break;
    }
    Value map = rt.call(
        b, loc, "mpt_emu_tensor_map",
        {i64(b, loc, base), constI32(b, loc, rank), array(meta.getSizes()),
         array(meta.getStrides()), array(op.getBoxDimensions()),
         constI32(b, loc, bytes), constI32(b, loc, swizzle),
         constI32(b, loc, type.getOob() == nvgpu::TensorMapOOBKind::OOB_NAN)},
        {b.getI64Type()});
    Value ptr = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), map);
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      auto toPtr = dyn_cast<UnrealizedConversionCastOp>(user);
      if (!toPtr || toPtr->getNumResults() != 1 ||
          !isa<LLVM::LLVMPointerType>(toPtr->getResult(0).getType()))
        return user->emitOpError(
            "uses a tensor map; the emulator passes tensor maps to kernels "
            "as !llvm.ptr only");
      toPtr->getResult(0).replaceAllUsesWith(ptr);
      toPtr->erase();
    }
    op->erase();
    return success();
  }

  /// The kernel's body as a func.func taking its arguments and the block's
  /// shared memory.
  FailureOr<func::FuncOp> convertKernel(gpu::GPUFuncOp kernel, Runtime &rt,
                                        SymbolTable &symbols) {
    if (kernel.getNumWorkgroupAttributions() ||
        kernel.getNumPrivateAttributions())
      return kernel.emitOpError(
          "has workgroup or private attributions, which the emulator does "
          "not support (mpt's kernels use dynamic shared memory)");
    auto module = cast<ModuleOp>(getOperation());
    MLIRContext *ctx = module.getContext();
    SmallVector<Type> inputs(kernel.getArgumentTypes());
    Type shared =
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8));
    inputs.push_back(shared);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto fn = func::FuncOp::create(
        b, kernel.getLoc(),
        ("__mpt_emu_" + kernel->getParentOfType<gpu::GPUModuleOp>().getName() +
         "_" + kernel.getName())
            .str(),
        FunctionType::get(ctx, inputs, {}));
    fn.setPrivate();
    symbols.insert(fn);
    fn.getBody().takeBody(kernel.getBody());
    fn.front().addArgument(shared, kernel.getLoc());
    checkBounds(fn, rt, symbols);
    if (traffic)
      countTraffic(fn, rt);
    if (banks) { // its shared accesses call mpt_emu_shared_access anyway
      OpBuilder entry = OpBuilder::atBlockBegin(&fn.front());
      rt.call(entry, fn.getLoc(), "mpt_emu_count_banks", {});
    }
    if (failed(KernelConverter(fn, rt).run()))
      return failure();
    return fn;
  }

  /// Before each memref or vector load and store of a kernel: in device
  /// memory, a check that every index lies within its dimension (a
  /// vector's elements too), which calls mpt_emu_out_of_bounds with the
  /// access, the dimension and the index where it does not; in shared
  /// memory, that the bytes lie within the block's and within the shared
  /// buffer the access goes through: the memref.view of the block's
  /// dynamic shared memory that its memref is a view of
  /// (mpt_emu_shared_access; not each view's dimensions: upstream's
  /// lowering of nvgpu.warpgroup.mma.store indexes a 64-row subview with
  /// the warp's row in the block, past the subview but not past the tile).
  /// The CPU does not fault where a GPU would ("an illegal memory access"):
  /// an index past a dimension would read the next row or another buffer,
  /// or corrupt the heap; one kernel buffer overrunning into the next in
  /// shared memory is a wrong result on both.
  void checkBounds(func::FuncOp fn, Runtime &rt, SymbolTable &symbols) {
    auto workgroup = gpu::AddressSpaceAttr::get(fn.getContext(),
                                                gpu::AddressSpace::Workgroup);
    SmallVector<std::pair<Operation *, Access>> accesses;
    fn.walk([&](Operation *op) {
      if (std::optional<Access> access = Access::of(op))
        accesses.push_back({op, *access});
    });
    for (auto &[op, access] : accesses) {
      // Elements along the last dimension: a vector's (of rank 1; others
      // are not checked).
      int64_t length = 1;
      if (auto vector = dyn_cast<VectorType>(access.moved)) {
        if (vector.getRank() != 1)
          continue;
        length = vector.getNumElements();
      }
      Value memref = access.memref;
      ValueRange indices = access.indices;
      MemRefType type = access.type();
      if (indices.empty())
        continue;
      std::string what;
      llvm::raw_string_ostream os(what);
      os << op->getName() << " of " << type << " at " << op->getLoc();
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value message =
          stringAddress(b, loc, what, symbols,
                        "__mpt_emu_access_" + std::to_string(accessMessages++));
      bool shared = type.getMemorySpace() == workgroup;
      Value address;
      if (access.alignment > 1 || shared)
        address = addressOf(b, loc, memref, indices).addr;
      auto i64Constant = [&](int64_t v) {
        return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
      };
      if (access.alignment > 1) // a GPU faults on a misaligned vector
        rt.call(b, loc, "mpt_emu_aligned",
                {message, address, i64Constant(access.alignment)});
      if (shared) {
        // The buffer's bytes: those of the view of dynamic shared memory
        // at the root of the memref's views (none: the block's).
        Value buffer = memref;
        while (Operation *def = buffer.getDefiningOp()) {
          if (!isa<memref::SubViewOp, memref::ExpandShapeOp,
                   memref::CollapseShapeOp, memref::CastOp,
                   memref::ReinterpretCastOp>(def))
            break;
          buffer = def->getOperand(0);
        }
        Value first = i64Constant(0), bytes = i64Constant(-1);
        auto view = buffer.getDefiningOp<memref::ViewOp>();
        if (view && view.getType().hasStaticShape()) {
          auto type = view.getType();
          first = addressOf(b, loc, view, {}).base;
          bytes = i64Constant(type.getNumElements() *
                              type.getElementTypeBitWidth() / 8);
        }
        rt.call(b, loc, "mpt_emu_shared_access",
                {message, address, i64Constant(access.bytes()), first, bytes});
        continue;
      }
      for (auto [d, index] : llvm::enumerate(indices)) {
        int64_t elements = d + 1 == indices.size() ? length : 1;
        Value size =
            type.isDynamicDim(d)
                ? memref::DimOp::create(b, loc, memref, d).getResult()
                : arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
                      .getResult();
        // index + elements <= size, with index >= 0 (unsigned).
        Value last = index;
        if (elements > 1)
          last = arith::AddIOp::create(
              b, loc, index,
              arith::ConstantIndexOp::create(b, loc, elements - 1));
        Value outside = arith::OrIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, index,
                                  size),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, last,
                                  size));
        auto branch = scf::IfOp::create(b, loc, outside, /*withElse=*/false);
        OpBuilder ib = branch.getThenBodyBuilder();
        rt.call(
            ib, loc, "mpt_emu_out_of_bounds",
            {message, constI32(ib, loc, d), i64(ib, loc, index),
             arith::ConstantIntOp::create(ib, loc, ib.getI64Type(), elements),
             i64(ib, loc, size)});
      }
    }
  }

  /// Before each load and store of device memory (a memref or vector
  /// load or store of a memref outside workgroup memory): a call to
  /// mpt_emu_traffic with its bytes. At the start, mpt_emu_count_async:
  /// the runtime counts the asynchronous copies (cp.async, TMA), whose
  /// bytes it knows as they run (partial copies at the edges).
  static void countTraffic(func::FuncOp fn, Runtime &rt) {
    OpBuilder entry = OpBuilder::atBlockBegin(&fn.front());
    rt.call(entry, fn.getLoc(), "mpt_emu_count_async", {});
    auto workgroup = gpu::AddressSpaceAttr::get(fn.getContext(),
                                                gpu::AddressSpace::Workgroup);
    fn.walk([&](Operation *op) {
      std::optional<Access> access = Access::of(op);
      if (!access || access->type().getMemorySpace() == workgroup)
        return;
      OpBuilder b(op);
      Location loc = op->getLoc();
      rt.call(b, loc, "mpt_emu_traffic",
              {arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                            access->bytes()),
               constI32(b, loc, access->store)});
    });
  }

  /// func.func @...(%args: !llvm.ptr, %shared: !llvm.ptr, %bytes: i64):
  /// unpacks the struct of kernel operands that a launch stored at %args
  /// and calls the kernel function.
  func::FuncOp buildTrampoline(func::FuncOp body, SymbolTable &symbols) {
    MLIRContext *ctx = body.getContext();
    Location loc = body.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64Type = IntegerType::get(ctx, 64);
    OpBuilder b = OpBuilder::atBlockEnd(getOperation().getBody());
    auto fn =
        func::FuncOp::create(b, loc, (body.getName() + "_trampoline").str(),
                             FunctionType::get(ctx, {ptr, ptr, i64Type}, {}));
    fn.setPrivate();
    symbols.insert(fn);
    Block *block = fn.addEntryBlock();
    b.setInsertionPointToStart(block);
    LLVMTypeConverter converter(ctx);
    ArrayRef<Type> params = body.getArgumentTypes().drop_back();
    auto packed = packedType(converter, params);
    Value all = LLVM::LoadOp::create(b, loc, packed, block->getArgument(0));
    SmallVector<Value> args;
    for (auto [i, type] : llvm::enumerate(params)) {
      Value field = LLVM::ExtractValueOp::create(b, loc, all, i);
      args.push_back(fromPacked(b, loc, field, type));
    }
    // The shared memory as a memref<?xi8> descriptor.
    auto descType = converter.convertType(body.getArgumentTypes().back());
    Value desc = LLVM::PoisonOp::create(b, loc, descType);
    Value zero =
        LLVM::ConstantOp::create(b, loc, i64Type, b.getI64IntegerAttr(0));
    Value one =
        LLVM::ConstantOp::create(b, loc, i64Type, b.getI64IntegerAttr(1));
    desc = LLVM::InsertValueOp::create(b, loc, desc, block->getArgument(1),
                                       ArrayRef<int64_t>{0});
    desc = LLVM::InsertValueOp::create(b, loc, desc, block->getArgument(1),
                                       ArrayRef<int64_t>{1});
    desc =
        LLVM::InsertValueOp::create(b, loc, desc, zero, ArrayRef<int64_t>{2});
    desc = LLVM::InsertValueOp::create(b, loc, desc, block->getArgument(2),
                                       ArrayRef<int64_t>{3, 0});
    desc =
        LLVM::InsertValueOp::create(b, loc, desc, one, ArrayRef<int64_t>{4, 0});
    args.push_back(UnrealizedConversionCastOp::create(
                       b, loc, body.getArgumentTypes().back(), desc)
                       .getResult(0));
    func::CallOp::create(b, loc, body, args);
    func::ReturnOp::create(b, loc);
    return fn;
  }

  /// The LLVM type a kernel operand is packed as: memref descriptors, i64
  /// for index, the type itself otherwise.
  static Type packedFieldType(LLVMTypeConverter &converter, Type type) {
    if (isa<MemRefType>(type))
      return converter.convertType(type);
    if (type.isIndex())
      return IntegerType::get(type.getContext(), 64);
    return type;
  }

  static LLVM::LLVMStructType packedType(LLVMTypeConverter &converter,
                                         ArrayRef<Type> types) {
    SmallVector<Type> fields;
    for (Type type : types)
      fields.push_back(packedFieldType(converter, type));
    return LLVM::LLVMStructType::getLiteral(&converter.getContext(), fields);
  }

  static Value fromPacked(OpBuilder &b, Location loc, Value field, Type type) {
    if (isa<MemRefType>(type))
      return UnrealizedConversionCastOp::create(b, loc, type, field)
          .getResult(0);
    if (type.isIndex())
      return arith::IndexCastOp::create(b, loc, type, field);
    return field;
  }

  static Value toPacked(OpBuilder &b, Location loc, Value v, Type fieldType) {
    if (isa<MemRefType>(v.getType()))
      return UnrealizedConversionCastOp::create(b, loc, fieldType, v)
          .getResult(0);
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, fieldType, v);
    return v;
  }

  /// A NUL-terminated string constant (the global `name`, by default one
  /// named after the text); returns its address as i64.
  Value stringAddress(OpBuilder &b, Location loc, StringRef text,
                      SymbolTable &symbols, std::string name = "") {
    if (name.empty()) {
      name = ("__mpt_emu_name_" + text).str();
      for (char &c : name)
        if (!llvm::isAlnum(c))
          c = '_';
    }
    ModuleOp module = getOperation();
    auto type =
        MemRefType::get({static_cast<int64_t>(text.size() + 1)}, b.getI8Type());
    auto global = module.lookupSymbol<memref::GlobalOp>(name);
    if (!global) {
      SmallVector<int8_t> bytes(text.begin(), text.end());
      bytes.push_back(0);
      OpBuilder gb = OpBuilder::atBlockBegin(module.getBody());
      global = memref::GlobalOp::create(
          gb, loc, name, gb.getStringAttr("private"), type,
          DenseElementsAttr::get(
              RankedTensorType::get(type.getShape(), b.getI8Type()),
              ArrayRef<int8_t>(bytes)),
          /*constant=*/true, /*alignment=*/nullptr);
      symbols.insert(global);
    }
    Value ref = memref::GetGlobalOp::create(b, loc, type, global.getName());
    return pointerOf(b, loc, ref);
  }

  LogicalResult
  convertHostOp(Operation *op, Runtime &rt, SymbolTable &symbols,
                const llvm::StringMap<func::FuncOp> &trampolines) {
    if (auto map = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op))
      return convertTensorMap(map, rt);
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      if (alloc.getAsyncToken() || !alloc.getSymbolOperands().empty())
        return alloc.emitOpError("is emulated when synchronous only");
      auto type = alloc.getMemref().getType();
      // cudaMalloc's alignment.
      Value host = memref::AllocOp::create(
          b, loc, type, alloc.getDynamicSizes(), b.getI64IntegerAttr(256));
      if (type.hasStaticShape() && type.getLayout().isIdentity())
        rt.call(
            b, loc, "mpt_emu_poison",
            {pointerOf(b, loc, host),
             arith::ConstantIntOp::create(
                 b, loc, b.getI64Type(),
                 type.getNumElements() * type.getElementTypeBitWidth() / 8)});
      alloc.getMemref().replaceAllUsesWith(host);
      op->erase();
      return success();
    }
    if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      if (dealloc.getAsyncToken())
        return dealloc.emitOpError("is emulated when synchronous only");
      memref::DeallocOp::create(b, loc, dealloc.getMemref());
      op->erase();
      return success();
    }
    if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      if (copy.getAsyncToken())
        return copy.emitOpError("is emulated when synchronous only");
      memref::CopyOp::create(b, loc, Value(copy.getSrc()),
                             Value(copy.getDst()));
      op->erase();
      return success();
    }
    if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
      if (memset.getAsyncToken())
        return memset.emitOpError("is emulated when synchronous only");
      Value dst = memset.getDst();
      auto type = cast<MemRefType>(dst.getType());
      SmallVector<Value> lower, upper, steps;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        lower.push_back(arith::ConstantIndexOp::create(b, loc, 0));
        upper.push_back(memref::DimOp::create(b, loc, dst, d));
        steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
      }
      scf::buildLoopNest(b, loc, lower, upper, steps,
                         [&](OpBuilder &lb, Location l, ValueRange ivs) {
                           memref::StoreOp::create(lb, l, memset.getValue(),
                                                   dst, ivs);
                         });
      op->erase();
      return success();
    }
    if (auto wait = dyn_cast<gpu::WaitOp>(op)) {
      if (wait.getAsyncToken())
        return wait.emitOpError("is emulated when synchronous only");
      op->erase();
      return success();
    }
    auto launch = cast<gpu::LaunchFuncOp>(op);
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
        launch.getAsyncObject())
      return launch.emitOpError("is emulated without async tokens only");
    std::string qualified = (launch.getKernelModuleName().getValue() +
                             "::" + launch.getKernelName().getValue())
                                .str();
    auto it = trampolines.find(qualified);
    if (it == trampolines.end())
      return launch.emitOpError() << "launches @" << qualified
                                  << ", which is not an outlined kernel";
    func::FuncOp trampoline = it->second;
    MLIRContext *ctx = b.getContext();
    LLVMTypeConverter converter(ctx);
    SmallVector<Type> types(launch.getKernelOperands().getTypes());
    LLVM::LLVMStructType packed = packedType(converter, types);
    // The operands' struct lives in the function's entry block.
    auto parent = op->getParentOfType<FunctionOpInterface>();
    OpBuilder entryBuilder =
        OpBuilder::atBlockBegin(&parent.getFunctionBody().front());
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Value one =
        LLVM::ConstantOp::create(entryBuilder, loc, entryBuilder.getI64Type(),
                                 entryBuilder.getI64IntegerAttr(1));
    Value slot = LLVM::AllocaOp::create(entryBuilder, loc, ptr, packed, one);
    Value all = LLVM::PoisonOp::create(b, loc, packed);
    for (auto [i, v] : llvm::enumerate(launch.getKernelOperands()))
      all = LLVM::InsertValueOp::create(
          b, loc, all, toPacked(b, loc, v, packed.getBody()[i]), i);
    LLVM::StoreOp::create(b, loc, all, slot);
    Value shared =
        launch.getDynamicSharedMemorySize()
            ? arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                     launch.getDynamicSharedMemorySize())
                  .getResult()
            : arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0)
                  .getResult();
    Value fnPtr = func::ConstantOp::create(b, loc, trampoline.getFunctionType(),
                                           trampoline.getName());
    SmallVector<Value> args{stringAddress(b, loc, qualified, symbols)};
    for (Value v : {launch.getGridSizeX(), launch.getGridSizeY(),
                    launch.getGridSizeZ(), launch.getBlockSizeX(),
                    launch.getBlockSizeY(), launch.getBlockSizeZ()})
      args.push_back(i64(b, loc, v));
    args.append({shared, fnPtr, slot});
    for (Value v : {launch.getClusterSizeX(), launch.getClusterSizeY(),
                    launch.getClusterSizeZ()})
      args.push_back(v ? i64(b, loc, v)
                       : arith::ConstantIntOp::create(b, loc, b.getI64Type(), 1)
                             .getResult());
    rt.call(b, loc, "mpt_emu_launch", args);
    op->erase();
    return success();
  }
};

} // namespace
