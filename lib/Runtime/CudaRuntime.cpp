//===- CudaRuntime.cpp - the mgpu* runtime over the CUDA driver API -------===//
//
// The functions that host code lowered by `gpu-to-llvm` calls (module
// loading, kernel launches, streams, events, device memory), implemented over
// the CUDA driver API. Upstream MLIR has the same library
// (libmlir_cuda_runtime); Debian does not ship it, so mpt builds its own.
//
// Every call runs in the primary context of the default device. Errors are
// reported on stderr with the failing call and CUDA's error name; the value
// returned is then null.
//
//===----------------------------------------------------------------------===//

#include "cuda.h"

#include <cstdint>
#include <cstdio>

#define MPT_RUNTIME_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

void report(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "mpt cuda runtime: %s failed: %s\n", call,
               name ? name : "unknown error");
}

#define CHECK(call) report(call, #call)

thread_local int32_t defaultDevice = 0;

/// Makes the primary context of the default device current for the lifetime
/// of the object.
class ScopedContext {
public:
  ScopedContext() {
    static CUcontext context = [] {
      CHECK(cuInit(0));
      CUdevice device = 0;
      CHECK(cuDeviceGet(&device, defaultDevice));
      CUcontext ctx = nullptr;
      CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
      return ctx;
    }();
    CHECK(cuCtxPushCurrent(context));
  }
  ~ScopedContext() { CHECK(cuCtxPopCurrent(nullptr)); }
};

} // namespace

MPT_RUNTIME_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}

/// Loads a cubin or fatbin (`size` bytes at `data`).
MPT_RUNTIME_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  ScopedContext context;
  CUmodule module = nullptr;
  CHECK(cuModuleLoadData(&module, data));
  return module;
}

/// Loads PTX (null-terminated), compiled by the driver at `optLevel`.
MPT_RUNTIME_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  ScopedContext context;
  CUmodule module = nullptr;
  char log[4096] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  report(result, "cuModuleLoadDataEx");
  if (result != CUDA_SUCCESS && log[0])
    std::fprintf(stderr, "mpt cuda runtime: PTX JIT log:\n%s\n", log);
  return module;
}

MPT_RUNTIME_EXPORT void mgpuModuleUnload(CUmodule module) {
  CHECK(cuModuleUnload(module));
}

MPT_RUNTIME_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                                    const char *name) {
  CUfunction function = nullptr;
  CHECK(cuModuleGetFunction(&function, module, name));
  return function;
}

/// Launches `function`; grid and block sizes are MLIR `index` values.
/// Dynamic shared memory above 48 KiB is opted into first.
MPT_RUNTIME_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                         intptr_t gridY, intptr_t gridZ,
                                         intptr_t blockX, intptr_t blockY,
                                         intptr_t blockZ, int32_t smem,
                                         CUstream stream, void **params,
                                         void **extra, size_t /*paramsCount*/) {
  ScopedContext context;
  if (smem > 48 * 1024)
    CHECK(cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  CHECK(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                       smem, stream, params, extra));
}

MPT_RUNTIME_EXPORT CUstream mgpuStreamCreate() {
  ScopedContext context;
  CUstream stream = nullptr;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

MPT_RUNTIME_EXPORT void mgpuStreamDestroy(CUstream stream) {
  CHECK(cuStreamDestroy(stream));
}

MPT_RUNTIME_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  CHECK(cuStreamSynchronize(stream));
}

MPT_RUNTIME_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  CHECK(cuStreamWaitEvent(stream, event, 0));
}

MPT_RUNTIME_EXPORT CUevent mgpuEventCreate() {
  ScopedContext context;
  CUevent event = nullptr;
  CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

MPT_RUNTIME_EXPORT void mgpuEventDestroy(CUevent event) {
  CHECK(cuEventDestroy(event));
}

MPT_RUNTIME_EXPORT void mgpuEventSynchronize(CUevent event) {
  CHECK(cuEventSynchronize(event));
}

MPT_RUNTIME_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  CHECK(cuEventRecord(event, stream));
}

/// Device memory, or managed memory when `isHostShared`.
MPT_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                                      bool isHostShared) {
  ScopedContext context;
  CUdeviceptr ptr = 0;
  if (sizeBytes == 0)
    return nullptr;
  if (isHostShared)
    CHECK(cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    CHECK(cuMemAlloc(&ptr, sizeBytes));
  return reinterpret_cast<void *>(ptr);
}

MPT_RUNTIME_EXPORT void mgpuMemFree(void *ptr, CUstream /*stream*/) {
  CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
}

MPT_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                   CUstream stream) {
  CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream));
}

MPT_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                     size_t count, CUstream stream) {
  CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream));
}

MPT_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                     size_t count, CUstream stream) {
  CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream));
}

MPT_RUNTIME_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  ScopedContext context;
  CHECK(cuMemHostRegister(ptr, sizeBytes, 0));
}

MPT_RUNTIME_EXPORT void mgpuMemHostUnregister(void *ptr) {
  ScopedContext context;
  CHECK(cuMemHostUnregister(ptr));
}
