//===- Jit.cpp - lowering and calling the entry function ------------------===//

#include "Jit.h"

#include "mpt/Conversion/Pipelines.h"
#include "mpt/Runtime/GpuEmulator.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unistd.h>

using namespace mlir;
using namespace mpt::run;

/// The allocated pointer that memref.get_global puts in the descriptors of
/// constants: nothing to free.
static constexpr uintptr_t kGlobalAllocatedPtr = 0xdeadbeef;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
/// The name of the function being called, for the handler below.
const char *runningFunction = "";

/// An abort() of the compiled code is its own runtime check failing (a
/// misaligned buffer argument, an assertion), which has said why: one line
/// naming the function, then the default action, instead of LLVM's crash
/// report, which would blame this tool.
extern "C" void onCompiledCodeAbort(int) {
  auto say = [](const char *text) {
    (void)!::write(STDERR_FILENO, text, std::strlen(text));
  };
  say("mpt-run: @");
  say(runningFunction);
  say(" aborted\n");
  std::signal(SIGABRT, SIG_DFL);
  std::raise(SIGABRT);
}

/// Installs that handler for SIGABRT while it lives.
class CompiledCodeAbortScope {
public:
  explicit CompiledCodeAbortScope(const char *function) {
    runningFunction = function;
    struct sigaction action = {};
    action.sa_handler = onCompiledCodeAbort;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGABRT, &action, &previous);
  }
  ~CompiledCodeAbortScope() { ::sigaction(SIGABRT, &previous, nullptr); }

private:
  struct sigaction previous = {};
};
} // namespace

/// The number of scalar fields of the descriptor of a rank-`rank` memref.
static size_t getDescriptorSize(size_t rank) { return 3 + 2 * rank; }

static size_t getDescriptorSize(llvm::ArrayRef<TensorSpec> specs) {
  size_t size = 0;
  for (const TensorSpec &spec : specs)
    size += getDescriptorSize(spec.shape.size());
  return size;
}

llvm::Error mpt::run::lowerToCPU(ModuleOp module, llvm::StringRef emulateGPU) {
  PassManager pm(module->getContext(), ModuleOp::getOperationName());
  if (failed(applyPassManagerCLOptions(pm)))
    return makeError("cannot apply the pass manager options");
  if (emulateGPU.empty()) {
    mpt::buildLowerToCPUPipeline(pm);
    if (failed(pm.run(module)))
      return makeError("mpt-lower-to-cpu failed");
    return llvm::Error::success();
  }
  std::string pipeline = "mpt-emulate-gpu";
  if (emulateGPU != "-")
    pipeline += ("{" + emulateGPU + "}").str();
  std::string message;
  llvm::raw_string_ostream os(message);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return makeError("invalid --emulate-gpu options: " + message);
  if (failed(pm.run(module)))
    return makeError("mpt-emulate-gpu failed");
  return llvm::Error::success();
}

/// Drops the argument and result attributes of other dialects (mpt.role)
/// that func-to-llvm carried over to the llvm.func ops: the translation to
/// LLVM IR would warn about each.
static void dropForeignAttributes(ModuleOp module) {
  auto foreignNames = [](llvm::ArrayRef<NamedAttribute> attrs) {
    llvm::SmallVector<StringAttr> names;
    for (NamedAttribute attr : attrs)
      if (!attr.getName().getValue().starts_with("llvm."))
        names.push_back(attr.getName());
    return names;
  };
  module.walk([&](LLVM::LLVMFuncOp op) {
    auto func = cast<FunctionOpInterface>(op.getOperation());
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      for (StringAttr name : foreignNames(func.getArgAttrs(i)))
        func.removeArgAttr(i, name);
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      for (StringAttr name : foreignNames(func.getResultAttrs(i)))
        func.removeResultAttr(i, name);
  });
}

/// convert-math-to-libm turns math.rsqrt into calls to rsqrtf and rsqrt,
/// which libm does not have: the JIT gets these.
static float rsqrtF32(float x) { return 1.0f / std::sqrt(x); }
static double rsqrtF64(double x) { return 1.0 / std::sqrt(x); }

static llvm::orc::SymbolMap
getRuntimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap symbols;
  symbols[mangle("rsqrtf")] = {llvm::orc::ExecutorAddr::fromPtr(&rsqrtF32),
                               llvm::JITSymbolFlags::Exported};
  symbols[mangle("rsqrt")] = {llvm::orc::ExecutorAddr::fromPtr(&rsqrtF64),
                              llvm::JITSymbolFlags::Exported};
  size_t count = 0;
  const mpt::emu::RuntimeFunction *emulator =
      mpt::emu::getRuntimeFunctions(count);
  for (size_t i = 0; i < count; ++i)
    symbols[mangle(emulator[i].name)] = {
        llvm::orc::ExecutorAddr::fromPtr(emulator[i].address),
        llvm::JITSymbolFlags::Exported};
  return symbols;
}

JitEntry::JitEntry(std::unique_ptr<ExecutionEngine> engine,
                   const EntrySignature &signature, bool outParams,
                   unsigned misalignArguments)
    : engine(std::move(engine)), signature(signature), outParams(outParams),
      misalignArguments(misalignArguments) {}

JitEntry::~JitEntry() = default;

llvm::Expected<std::unique_ptr<JitEntry>>
JitEntry::create(ModuleOp module, const EntrySignature &signature,
                 const JitOptions &options) {
  auto llvmFunc = module.lookupSymbol<LLVM::LLVMFuncOp>(signature.name);
  if (!llvmFunc)
    return makeError("the lowered module has no llvm.func @" + signature.name);

  // Tell the two conventions for results apart.
  LLVM::LLVMFunctionType type = llvmFunc.getFunctionType();
  size_t argumentWords = getDescriptorSize(signature.arguments);
  size_t resultWords = getDescriptorSize(signature.results);
  bool returnsVoid = isa<LLVM::LLVMVoidType>(type.getReturnType());
  bool outParams;
  if (!signature.results.empty() && returnsVoid &&
      type.getNumParams() == argumentWords + resultWords)
    outParams = true;
  else if (type.getNumParams() == argumentWords &&
           returnsVoid == signature.results.empty())
    outParams = false;
  else
    return makeError("unexpected lowered signature of @" + signature.name +
                     ": " + llvm::Twine(type.getNumParams()) +
                     " parameters, expected " + llvm::Twine(argumentWords) +
                     " (results returned) or " +
                     llvm::Twine(argumentWords + resultWords) +
                     " (results as out-parameters)");

  for (const std::string &lib : options.sharedLibs)
    if (!llvm::sys::fs::exists(lib))
      return makeError("shared library not found: " + lib);
  dropForeignAttributes(module);
  llvm::SmallVector<llvm::StringRef> sharedLibs(options.sharedLibs.begin(),
                                                options.sharedLibs.end());

  // The host's features, except the AVX512-BF16 and AVX-NE-CONVERT
  // conversions: LLVM lowers fptrunc to bf16 with VCVTNEPS2BF16, which
  // flushes subnormal inputs and results to zero, while the software
  // sequence rounds them like IEEE storage.
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> machineBuilder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return makeError("cannot target the host: " +
                     llvm::toString(machineBuilder.takeError()));
  if (machineBuilder->getTargetTriple().isX86()) {
    machineBuilder->getFeatures().AddFeature("avx512bf16", false);
    machineBuilder->getFeatures().AddFeature("avxneconvert", false);
  }
  machineBuilder->setCodeGenOptLevel(
      static_cast<llvm::CodeGenOptLevel>(options.optLevel));
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      machineBuilder->createTargetMachine();
  if (!targetMachine)
    return makeError("cannot target the host: " +
                     llvm::toString(targetMachine.takeError()));

  auto transformer =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(options.optLevel);
  engineOptions.sharedLibPaths = sharedLibs;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(module, engineOptions, std::move(*targetMachine));
  if (!engine)
    return makeError("cannot JIT-compile the lowered module: " +
                     llvm::toString(engine.takeError()));
  (*engine)->registerSymbols(getRuntimeSymbols);
  // Looking the function up compiles it, so that errors show up here and
  // compilation does not count as run time.
  if (auto packed = (*engine)->lookupPacked(signature.name); !packed)
    return makeError("cannot JIT-compile @" + signature.name + ": " +
                     llvm::toString(packed.takeError()));
  return std::unique_ptr<JitEntry>(new JitEntry(
      std::move(*engine), signature, outParams, options.misalignArguments));
}

/// Appends the descriptor of the contiguous row-major buffer `data` of shape
/// `shape`: allocated and aligned pointer, offset 0, sizes, strides.
static void appendDescriptor(llvm::SmallVectorImpl<int64_t> &words,
                             const void *data, llvm::ArrayRef<int64_t> shape) {
  auto address = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  words.push_back(address);
  words.push_back(address);
  words.push_back(0);
  words.append(shape.begin(), shape.end());
  llvm::SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  words.append(strides.begin(), strides.end());
}

/// Copies the (possibly strided) memref `descriptor`, returned for `spec`,
/// into a new host tensor.
static llvm::Expected<HostTensor>
copyOutResult(llvm::ArrayRef<int64_t> descriptor, const TensorSpec &spec) {
  size_t rank = spec.shape.size();
  const char *aligned =
      reinterpret_cast<const char *>(static_cast<intptr_t>(descriptor[1]));
  int64_t offset = descriptor[2];
  llvm::ArrayRef<int64_t> sizes = descriptor.slice(3, rank);
  llvm::ArrayRef<int64_t> strides = descriptor.slice(3 + rank, rank);
  if (sizes != llvm::ArrayRef<int64_t>(spec.shape))
    return makeError(spec.describe() + " came back with shape " +
                     formatShape(sizes) + ", expected " +
                     formatShape(spec.shape));

  HostTensor tensor(spec.kind, spec.shape);
  unsigned elementSize = getElementSize(spec.kind);
  char *out = static_cast<char *>(tensor.getData());
  // Walk the elements in row-major order, keeping the multi-index and the
  // source position (in elements) up to date.
  llvm::SmallVector<int64_t, 4> indices(rank, 0);
  int64_t position = offset;
  for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
    std::memcpy(out + i * elementSize, aligned + position * elementSize,
                elementSize);
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      position += strides[d];
      if (++indices[d] < sizes[d])
        break;
      position -= strides[d] * sizes[d];
      indices[d] = 0;
    }
  }
  return tensor;
}

llvm::Expected<CallResult>
JitEntry::call(llvm::ArrayRef<HostTensor> arguments) {
  if (arguments.size() != signature.arguments.size())
    return makeError("@" + signature.name + " takes " +
                     llvm::Twine(signature.arguments.size()) +
                     " arguments, got " + llvm::Twine(arguments.size()));
  CallResult result;

  // The descriptor fields of the arguments, then of the out-parameters. The
  // vector never grows past its reserved size: invokePacked gets pointers
  // into it.
  llvm::SmallVector<int64_t> words;
  words.reserve(getDescriptorSize(signature.arguments) +
                (outParams ? getDescriptorSize(signature.results) : 0));
  // With misalignArguments, each argument's copy at that many bytes past a
  // 64-byte boundary, alive until the call returns.
  std::vector<std::unique_ptr<char[]>> shifted;
  llvm::SmallPtrSet<const void *, 8> argumentBuffers;
  for (auto [tensor, spec] : llvm::zip_equal(arguments, signature.arguments)) {
    if (tensor.getKind() != spec.kind ||
        tensor.getShape() != llvm::ArrayRef<int64_t>(spec.shape))
      return makeError(spec.describe() + " expects " + spec.getTypeString() +
                       ", got " +
                       formatTensorType(tensor.getKind(), tensor.getShape()));
    const void *data = tensor.getData();
    if (misalignArguments) {
      size_t bytes = tensor.getNumElements() * getElementSize(tensor.getKind());
      shifted.push_back(
          std::make_unique<char[]>(bytes + misalignArguments + 64));
      auto base = reinterpret_cast<uintptr_t>(shifted.back().get());
      char *copy =
          reinterpret_cast<char *>(llvm::alignTo(base, 64)) + misalignArguments;
      std::memcpy(copy, data, bytes);
      data = copy;
    }
    argumentBuffers.insert(data);
    appendDescriptor(words, data, tensor.getShape());
  }
  if (outParams) {
    // Out-parameters start as all-ones bytes (NaN for floats, -1 for
    // integers), so that an element the function does not write shows.
    for (const TensorSpec &spec : signature.results) {
      HostTensor &out = result.results.emplace_back(spec.kind, spec.shape);
      std::memset(out.getData(), 0xff,
                  out.getNumElements() * getElementSize(spec.kind));
      appendDescriptor(words, out.getData(), spec.shape);
    }
  }

  llvm::SmallVector<void *> packed;
  packed.reserve(words.size() + 1);
  for (int64_t &word : words)
    packed.push_back(&word);
  // Room for the returned struct of descriptors: every field is 8 bytes, so
  // the struct is laid out like an array of int64_t.
  llvm::SmallVector<int64_t> returned;
  if (!outParams && !signature.results.empty()) {
    returned.assign(getDescriptorSize(signature.results), 0);
    packed.push_back(returned.data());
  }

  auto start = std::chrono::steady_clock::now();
  {
    CompiledCodeAbortScope abortScope(signature.name.c_str());
    if (llvm::Error error = engine->invokePacked(signature.name, packed))
      return std::move(error);
  }
  auto end = std::chrono::steady_clock::now();
  result.ms = std::chrono::duration<double, std::milli>(end - start).count();
  if (outParams)
    return result;

  // Copy the returned buffers out. The callee allocated the ones that alias
  // neither an argument nor a constant, and hands them over: free each once.
  llvm::SmallPtrSet<void *, 8> toFree;
  size_t position = 0;
  for (const TensorSpec &spec : signature.results) {
    size_t size = getDescriptorSize(spec.shape.size());
    llvm::ArrayRef<int64_t> descriptor =
        llvm::ArrayRef(returned).slice(position, size);
    position += size;
    void *allocated =
        reinterpret_cast<void *>(static_cast<intptr_t>(descriptor[0]));
    if (allocated && !argumentBuffers.contains(allocated) &&
        reinterpret_cast<uintptr_t>(allocated) != kGlobalAllocatedPtr)
      toFree.insert(allocated);
    llvm::Expected<HostTensor> tensor = copyOutResult(descriptor, spec);
    if (!tensor) {
      for (void *ptr : toFree)
        std::free(ptr);
      return tensor.takeError();
    }
    result.results.push_back(std::move(*tensor));
  }
  for (void *ptr : toFree)
    std::free(ptr);
  return result;
}
