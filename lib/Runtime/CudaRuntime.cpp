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
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

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

/// The configuration of a launch in thread-block clusters of
/// `cluster` blocks (x, y, z), with the attribute that it points to.
struct ClusterLaunch {
  CUlaunchAttribute attribute;
  CUlaunchConfig config;

  ClusterLaunch(const intptr_t cluster[3], const intptr_t grid[3],
                const intptr_t block[3], int32_t smem, CUstream stream) {
    std::memset(&attribute, 0, sizeof(attribute));
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = static_cast<unsigned>(cluster[0]);
    attribute.value.clusterDim.y = static_cast<unsigned>(cluster[1]);
    attribute.value.clusterDim.z = static_cast<unsigned>(cluster[2]);
    std::memset(&config, 0, sizeof(config));
    config.gridDimX = static_cast<unsigned>(grid[0]);
    config.gridDimY = static_cast<unsigned>(grid[1]);
    config.gridDimZ = static_cast<unsigned>(grid[2]);
    config.blockDimX = static_cast<unsigned>(block[0]);
    config.blockDimY = static_cast<unsigned>(block[1]);
    config.blockDimZ = static_cast<unsigned>(block[2]);
    config.sharedMemBytes = static_cast<unsigned>(smem);
    config.hStream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch &) = delete; // config points into it
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

/// The multiprocessor count of the context's device, read once
/// (`mpt.sm_count`: the grids of persistent kernels). 0 if the driver
/// cannot tell; the host code then launches one block (cluster).
MPT_RUNTIME_EXPORT int32_t mgpuDeviceMultiprocessorCount() {
  static const int32_t count = [] {
    ScopedContext context;
    CUdevice device = 0;
    int value = 0;
    CHECK(cuCtxGetDevice(&device));
    CHECK(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                               device));
    return static_cast<int32_t>(value);
  }();
  return count;
}

namespace {
/// An empty kernel, for the occupancy query of mgpuDeviceCluster-
/// MultiprocessorCount (the driver asks for a function); the driver
/// compiles it for the device (sm_90 or later: clusters).
constexpr char kClusterProbe[] = ".version 7.8\n"
                                 ".target sm_90\n"
                                 ".address_size 64\n"
                                 ".visible .entry mpt_cluster_probe()\n"
                                 "{\n"
                                 "  ret;\n"
                                 "}\n";

/// The clusters of `cluster` x 1 x 1 blocks, a block per SM, that the device
/// runs at once; -1 if the driver cannot tell.
int32_t maxActiveClusters(int32_t cluster) {
  ScopedContext context;
  CUdevice device = 0;
  int sharedPerSM = 0;
  CHECK(cuCtxGetDevice(&device));
  CHECK(cuDeviceGetAttribute(
      &sharedPerSM, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
      device));
  // More than half an SM's shared memory: one block per SM, as the
  // persistent kernels that ask run.
  int shared = sharedPerSM / 2 + 1;
  CUmodule module = nullptr;
  CUfunction probe = nullptr;
  CUresult result = cuModuleLoadData(&module, kClusterProbe);
  report(result, "cuModuleLoadData (cluster probe)");
  if (result != CUDA_SUCCESS)
    return -1;
  int clusters = -1;
  result = cuModuleGetFunction(&probe, module, "mpt_cluster_probe");
  if (result == CUDA_SUCCESS)
    result = cuFuncSetAttribute(
        probe, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared);
  if (result == CUDA_SUCCESS && cluster > 8)
    result = cuFuncSetAttribute(
        probe, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  if (result == CUDA_SUCCESS) {
    const intptr_t dims[3] = {cluster, 1, 1}, block[3] = {128, 1, 1};
    ClusterLaunch launch(dims, dims, block, shared, nullptr);
    result = cuOccupancyMaxActiveClusters(&clusters, probe, &launch.config);
  }
  report(result, "cluster occupancy query");
  CHECK(cuModuleUnload(module));
  return result == CUDA_SUCCESS ? clusters : -1;
}
} // namespace

/// The SMs that clusters of `cluster` blocks fill with a block each
/// (`mpt.sm_count cluster N`: the grids of persistent kernels in clusters):
/// `cluster` times the clusters that the device runs at once, which the
/// driver counts (cuOccupancyMaxActiveClusters) knowing that a cluster's
/// blocks run in one GPC. Asked once per size; if the driver cannot tell,
/// the SM count rounded down to whole clusters.
MPT_RUNTIME_EXPORT int32_t
mgpuDeviceClusterMultiprocessorCount(int32_t cluster) {
  int32_t sms = mgpuDeviceMultiprocessorCount();
  if (cluster <= 1)
    return sms;
  static std::mutex mutex;
  static std::map<int32_t, int32_t> counts;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = counts.try_emplace(cluster, 0);
  if (inserted) {
    int32_t clusters = maxActiveClusters(cluster);
    it->second = clusters >= 0 ? clusters * cluster : sms / cluster * cluster;
  }
  return it->second;
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

/// Launches `function` in thread-block clusters of clusterX x clusterY x
/// clusterZ blocks (gpu.launch_func with `clusters in`), which tile the
/// grid; otherwise as mgpuLaunchKernel.
MPT_RUNTIME_EXPORT void mgpuLaunchClusterKernel(
    CUfunction function, intptr_t clusterX, intptr_t clusterY,
    intptr_t clusterZ, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
    CUstream stream, void **params, void **extra, size_t /*paramsCount*/) {
  ScopedContext context;
  if (smem > 48 * 1024)
    CHECK(cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  // Clusters of more than 8 blocks (up to 16 on H100) are opted into.
  if (clusterX * clusterY * clusterZ > 8)
    CHECK(cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
  const intptr_t cluster[3] = {clusterX, clusterY, clusterZ},
                 grid[3] = {gridX, gridY, gridZ},
                 block[3] = {blockX, blockY, blockZ};
  ClusterLaunch launch(cluster, grid, block, smem, stream);
  CHECK(cuLaunchKernelEx(&launch.config, function, params, extra));
}

namespace {
/// Streams that host code destroyed, for the next mgpuStreamCreate: every
/// call of a lowered function creates and destroys one (gpu-async-region),
/// which costs microseconds per call on the driver. Work still queued on a
/// returned stream only orders what the next user enqueues after it.
struct StreamPool {
  std::mutex mutex;
  std::vector<CUstream> free;
};
StreamPool &streamPool() {
  static StreamPool *pool = new StreamPool; // outlives static destructors
  return *pool;
}
} // namespace

MPT_RUNTIME_EXPORT CUstream mgpuStreamCreate() {
  {
    StreamPool &pool = streamPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (!pool.free.empty()) {
      CUstream stream = pool.free.back();
      pool.free.pop_back();
      return stream;
    }
  }
  ScopedContext context;
  CUstream stream = nullptr;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

/// Keeps the stream for the next mgpuStreamCreate (at most 64 are kept).
static void releaseCachedBuffers(CUstream stream);

MPT_RUNTIME_EXPORT void mgpuStreamDestroy(CUstream stream) {
  if (!stream)
    return;
  {
    StreamPool &pool = streamPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (pool.free.size() < 64) {
      pool.free.push_back(stream);
      return;
    }
  }
  // A later stream may get this handle: it must not find buffers that
  // this one's work may still use.
  releaseCachedBuffers(stream);
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

namespace {
/// Managed allocations (freed with cuMemFree, not into the pool).
std::mutex managedMutex;
std::set<CUdeviceptr> managed;

/// Whether the default device allocates from its stream-ordered pool, set
/// up once to keep freed memory for reuse rather than return it to the OS.
bool usePool() {
  static bool pooled = [] {
    CUdevice device = 0;
    int supported = 0;
    CHECK(cuDeviceGet(&device, defaultDevice));
    CHECK(cuDeviceGetAttribute(
        &supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device));
    if (!supported)
      return false;
    CUmemoryPool pool = nullptr;
    CHECK(cuDeviceGetDefaultMemPool(&pool, device));
    cuuint64_t keep = ~cuuint64_t(0);
    CHECK(
        cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
    return true;
  }();
  return pooled;
}
} // namespace

namespace {
/// Device buffers that host code freed, by stream and size, for the next
/// mgpuMemAlloc of that size on that stream. Every call of a lowered
/// function allocates and frees the same temporaries (tens per training
/// step), and each would otherwise be a driver call of about a
/// microsecond. Reuse on the freeing stream is ordered after the work that
/// used the buffer; the buffers of a stream that the pool destroys go back
/// to the driver first. The memory is kept, as the memory pool keeps it.
struct BufferCache {
  std::mutex mutex;
  std::map<std::pair<CUstream, uint64_t>, std::vector<CUdeviceptr>> free;
  std::map<CUdeviceptr, uint64_t> sizes; // every cached-kind buffer
};
BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache; // outlives static destructors
  return *cache;
}
} // namespace

/// Device memory, in stream order from the device's memory pool where the
/// device has one: the temporaries of a step are allocated and freed at
/// every call, and cuMemAlloc/cuMemFree would synchronize the device each
/// time. Managed memory when `isHostShared`. A buffer of the size freed
/// before on `stream` comes from the cache, without the driver.
MPT_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                                      bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  BufferCache &cache = bufferCache();
  if (!isHostShared) {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.free.find({stream, sizeBytes});
    if (it != cache.free.end() && !it->second.empty()) {
      CUdeviceptr ptr = it->second.back();
      it->second.pop_back();
      return reinterpret_cast<void *>(ptr);
    }
  }
  ScopedContext context;
  CUdeviceptr ptr = 0;
  if (isHostShared) {
    CHECK(cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL));
    std::lock_guard<std::mutex> lock(managedMutex);
    managed.insert(ptr);
  } else {
    if (usePool())
      CHECK(cuMemAllocAsync(&ptr, sizeBytes, stream));
    else
      CHECK(cuMemAlloc(&ptr, sizeBytes));
    std::lock_guard<std::mutex> lock(cache.mutex);
    cache.sizes[ptr] = sizeBytes;
  }
  return reinterpret_cast<void *>(ptr);
}

MPT_RUNTIME_EXPORT void mgpuMemFree(void *ptr, CUstream stream) {
  auto device = reinterpret_cast<CUdeviceptr>(ptr);
  if (!device)
    return;
  {
    BufferCache &cache = bufferCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.sizes.find(device);
    if (it != cache.sizes.end()) {
      cache.free[{stream, it->second}].push_back(device);
      return;
    }
  }
  ScopedContext context;
  {
    std::lock_guard<std::mutex> lock(managedMutex);
    if (managed.erase(device)) {
      CHECK(cuMemFree(device));
      return;
    }
  }
  if (usePool())
    CHECK(cuMemFreeAsync(device, stream));
  else
    CHECK(cuMemFree(device));
}

/// Frees the cached buffers of `stream` in its order.
static void releaseCachedBuffers(CUstream stream) {
  BufferCache &cache = bufferCache();
  std::vector<CUdeviceptr> buffers;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    for (auto it = cache.free.begin(); it != cache.free.end();) {
      if (it->first.first != stream) {
        ++it;
        continue;
      }
      for (CUdeviceptr ptr : it->second) {
        buffers.push_back(ptr);
        cache.sizes.erase(ptr);
      }
      it = cache.free.erase(it);
    }
  }
  if (buffers.empty())
    return;
  ScopedContext context;
  for (CUdeviceptr ptr : buffers) {
    if (usePool())
      CHECK(cuMemFreeAsync(ptr, stream));
    else
      CHECK(cuMemFree(ptr));
  }
}

MPT_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                   CUstream stream) {
  ScopedContext context;
  CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream));
}

MPT_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                     size_t count, CUstream stream) {
  ScopedContext context;
  CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream));
}

MPT_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                     size_t count, CUstream stream) {
  ScopedContext context;
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

//===----------------------------------------------------------------------===//
// TMA tensor maps (sm_90)
//===----------------------------------------------------------------------===//

namespace {

/// A ranked memref descriptor as the LLVM lowering lays it out.
template <int Rank>
struct MemRefDescriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

/// Bytes per element of each CUtensorMapDataType, in enum order.
constexpr int kElementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

/// Everything a tensor map is made from: the same key gives the same map.
using TensorMapKey =
    std::tuple<char *, int64_t, std::vector<uint64_t>, std::vector<uint64_t>,
               std::vector<uint32_t>, int64_t, int64_t, int64_t, int64_t>;

template <int Rank>
void readShape(void *descriptor, int elementBytes, char **address,
               uint64_t *dims, uint64_t *strides) {
  auto *d = static_cast<MemRefDescriptor<Rank> *>(descriptor);
  *address = d->aligned + d->offset * elementBytes;
  // Tensor maps list dimensions innermost first; strides (in bytes) of all
  // but the innermost.
  for (int i = 0; i < Rank; ++i)
    dims[i] = static_cast<uint64_t>(d->sizes[Rank - 1 - i]);
  for (int i = 0; i + 1 < Rank; ++i)
    strides[i] = static_cast<uint64_t>(d->strides[Rank - 2 - i] * elementBytes);
}

} // namespace

/// The device copy of a tiled TMA tensor map of a memref (`descriptor` is a
/// pointer to its ranked descriptor) with box `boxDims` (outermost first), as
/// `nvgpu.tma.create.descriptor` lowers to. Maps are cached: a kernel called
/// again on the same buffer reuses its map instead of encoding and copying
/// it (synchronously) before every launch. Null on failure.
MPT_RUNTIME_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims) {
  if (rank < 1 || rank > 5 || dataType < 0 ||
      dataType >= static_cast<int64_t>(sizeof(kElementBytes) / sizeof(int))) {
    std::fprintf(stderr,
                 "mpt cuda runtime: tensor map of rank %lld, data type %lld: "
                 "expected rank 1 to 5 and a CUtensorMapDataType\n",
                 static_cast<long long>(rank),
                 static_cast<long long>(dataType));
    return nullptr;
  }
  int elementBytes = kElementBytes[dataType];
  char *address = nullptr;
  uint64_t dims[5] = {1, 1, 1, 1, 1}, strides[5] = {0, 0, 0, 0, 0};
  switch (rank) {
  case 1:
    readShape<1>(descriptor, elementBytes, &address, dims, strides);
    break;
  case 2:
    readShape<2>(descriptor, elementBytes, &address, dims, strides);
    break;
  case 3:
    readShape<3>(descriptor, elementBytes, &address, dims, strides);
    break;
  case 4:
    readShape<4>(descriptor, elementBytes, &address, dims, strides);
    break;
  default:
    readShape<5>(descriptor, elementBytes, &address, dims, strides);
    break;
  }
  uint32_t box[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < rank; ++i)
    box[i] = static_cast<uint32_t>(boxDims[rank - 1 - i]);

  TensorMapKey key{address,
                   rank,
                   std::vector<uint64_t>(dims, dims + rank),
                   std::vector<uint64_t>(strides, strides + rank),
                   std::vector<uint32_t>(box, box + rank),
                   dataType,
                   swizzle,
                   l2Promotion,
                   oobFill * 16 + interleave};
  static std::mutex mutex;
  static std::map<TensorMapKey, CUdeviceptr> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end())
    return reinterpret_cast<void *>(it->second);

  ScopedContext context;
  CUtensorMap map;
  CUresult result = cuTensorMapEncodeTiled(
      &map, static_cast<CUtensorMapDataType>(dataType),
      static_cast<cuuint32_t>(rank), address, dims, strides, box,
      elementStrides, static_cast<CUtensorMapInterleave>(interleave),
      static_cast<CUtensorMapSwizzle>(swizzle),
      static_cast<CUtensorMapL2promotion>(l2Promotion),
      static_cast<CUtensorMapFloatOOBfill>(oobFill));
  report(result, "cuTensorMapEncodeTiled");
  if (result != CUDA_SUCCESS)
    return nullptr;
  CUdeviceptr device = 0;
  CHECK(cuMemAlloc(&device, sizeof(CUtensorMap)));
  CHECK(cuMemcpyHtoD(device, &map, sizeof(CUtensorMap)));
  cache.emplace(std::move(key), device);
  return reinterpret_cast<void *>(device);
}
