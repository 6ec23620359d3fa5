//===- CudaRuntimeTest.cpp - the mgpu* runtime over a fake CUDA driver ----===//
//
// lib/Runtime/CudaRuntime.cpp compiled into this test together with a fake
// CUDA driver (the cu* functions it calls, defined below), so that what the
// runtime decides on the host can be checked without a GPU: streams reused
// across calls, tensor maps encoded once per buffer and box, large dynamic
// shared memory opted into before a launch, a current context for the
// stream-ordered copies and memsets, freed buffers reused in stream order.
//
//===----------------------------------------------------------------------===//

#include "cuda.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

extern "C" {
CUstream mgpuStreamCreate();
void mgpuStreamDestroy(CUstream stream);
void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, CUstream stream, void **params,
                             void **extra, size_t paramsCount);
void mgpuMemset32(void *dst, unsigned int value, size_t count, CUstream stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream);
void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream, bool isHostShared);
void mgpuMemFree(void *ptr, CUstream stream);
int32_t mgpuDeviceMultiprocessorCount();
int32_t mgpuDeviceClusterMultiprocessorCount(int32_t cluster);
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims);
}

namespace {
/// What the fake driver was asked to do.
struct Calls {
  int streamsCreated = 0, streamsDestroyed = 0;
  int launches = 0, sharedOptIns = 0, lastSharedOptIn = 0, lastLaunchShared = 0;
  int mapsEncoded = 0;
  int clusterLaunches = 0, nonPortableOptIns = 0;
  unsigned lastCluster[3] = {0, 0, 0}, lastGrid[3] = {0, 0, 0};
  std::vector<cuuint32_t> lastBox;
  int contextDepth = 0; // contexts pushed and not popped
  int memsets = 0, memsetsWithoutContext = 0;
  int copies = 0, copiesWithoutContext = 0;
  int allocs = 0, frees = 0;
  int smCountQueries = 0;
  int clusterQueries = 0, probeLoads = 0, probeUnloads = 0;
  int lastProbeShared = 0, lastProbeBlock = 0, probeNonPortableOptIns = 0;
  std::string probeImage;
} calls;

/// The fake device: an H100 PCIe's 114 SMs in GPCs of these sizes (a
/// cluster's blocks run in one GPC), 228 KiB of shared memory per SM.
constexpr int kGpcs[] = {18, 18, 16, 16, 16, 16, 14};
constexpr int kSharedPerSM = 233472;
const CUmodule kProbeModule = reinterpret_cast<CUmodule>(0x2);
const CUfunction kProbeFunction = reinterpret_cast<CUfunction>(0x3);
} // namespace

// The fake driver: the functions CudaRuntime.cpp calls (cuda.h maps the
// versioned names, e.g. cuStreamDestroy to cuStreamDestroy_v2).
extern "C" {
CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice) {
  *value = 0;
  if (attribute == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) {
    ++calls.smCountQueries;
    *value = 114; // an H100 PCIe
  }
  if (attribute == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
    *value = kSharedPerSM;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(0x1);
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext) {
  ++calls.contextDepth;
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext *) {
  --calls.contextDepth;
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  ++calls.streamsCreated;
  *stream = reinterpret_cast<CUstream>(
      static_cast<uintptr_t>(0x1000 + calls.streamsCreated));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) {
  ++calls.streamsDestroyed;
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = nullptr;
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                            int value) {
  if (function == kProbeFunction) {
    calls.probeNonPortableOptIns +=
        attribute == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    return CUDA_SUCCESS;
  }
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    ++calls.sharedOptIns;
    calls.lastSharedOptIn = value;
  }
  if (attribute == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)
    ++calls.nonPortableOptIns;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction, void **,
                          void **) {
  ++calls.clusterLaunches;
  calls.lastLaunchShared = static_cast<int>(config->sharedMemBytes);
  calls.lastGrid[0] = config->gridDimX;
  calls.lastGrid[1] = config->gridDimY;
  calls.lastGrid[2] = config->gridDimZ;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      calls.lastCluster[0] = config->attrs[i].value.clusterDim.x;
      calls.lastCluster[1] = config->attrs[i].value.clusterDim.y;
      calls.lastCluster[2] = config->attrs[i].value.clusterDim.z;
    }
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction, unsigned int, unsigned int, unsigned int,
                        unsigned int, unsigned int, unsigned int,
                        unsigned int shared, CUstream, void **, void **) {
  ++calls.launches;
  calls.lastLaunchShared = static_cast<int>(shared);
  return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType,
                                cuuint32_t rank, void *, const cuuint64_t *,
                                const cuuint64_t *, const cuuint32_t *box,
                                const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion,
                                CUtensorMapFloatOOBfill) {
  ++calls.mapsEncoded;
  calls.lastBox.assign(box, box + rank);
  std::memset(map, 0, sizeof(*map));
  return CUDA_SUCCESS;
}
// Device memory is host memory here.
CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  ++calls.allocs;
  *ptr = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  return CUDA_SUCCESS;
}
CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned int) {
  return cuMemAlloc(ptr, bytes);
}
CUresult cuMemAllocAsync(CUdeviceptr *ptr, size_t bytes, CUstream) {
  return cuMemAlloc(ptr, bytes);
}
CUresult cuMemFree(CUdeviceptr ptr) {
  ++calls.frees;
  std::free(reinterpret_cast<void *>(ptr));
  return CUDA_SUCCESS;
}
CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream) { return cuMemFree(ptr); }
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream) {
  ++calls.copies;
  calls.copiesWithoutContext += calls.contextDepth == 0;
  std::memcpy(reinterpret_cast<void *>(dst),
              reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                          CUstream) {
  ++calls.memsets;
  calls.memsetsWithoutContext += calls.contextDepth == 0;
  for (size_t i = 0; i < count; ++i)
    reinterpret_cast<unsigned int *>(dst)[i] = value;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr, unsigned short, size_t, CUstream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemHostRegister(void *, size_t, unsigned int) {
  return CUDA_SUCCESS;
}
CUresult cuMemHostUnregister(void *) { return CUDA_SUCCESS; }
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice) {
  *pool = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
// Only the runtime's own PTX (the cluster probe) loads.
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  std::string text(static_cast<const char *>(image));
  *module = nullptr;
  if (text.find("mpt_cluster_probe") == std::string::npos)
    return CUDA_ERROR_NOT_SUPPORTED;
  ++calls.probeLoads;
  calls.probeImage = text;
  *module = kProbeModule;
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *, unsigned int,
                            CUjit_option *, void **) {
  *module = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuModuleUnload(CUmodule module) {
  calls.probeUnloads += module == kProbeModule;
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  *function = nullptr;
  if (module != kProbeModule || std::string(name) != "mpt_cluster_probe")
    return CUDA_ERROR_NOT_FOUND;
  *function = kProbeFunction;
  return CUDA_SUCCESS;
}
// The clusters that fit in the GPCs, with two blocks per SM where two
// blocks' shared memory fits.
CUresult cuOccupancyMaxActiveClusters(int *clusters, CUfunction function,
                                      const CUlaunchConfig *config) {
  ++calls.clusterQueries;
  if (function != kProbeFunction || config->numAttrs != 1 ||
      config->attrs[0].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
    return CUDA_ERROR_INVALID_VALUE;
  const CUlaunchAttributeValue &dims = config->attrs[0].value;
  unsigned size = dims.clusterDim.x * dims.clusterDim.y * dims.clusterDim.z;
  if (size == 0 || config->gridDimX % dims.clusterDim.x != 0 ||
      (size > 8 && calls.probeNonPortableOptIns == 0))
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  calls.lastProbeShared = static_cast<int>(config->sharedMemBytes);
  calls.lastProbeBlock = static_cast<int>(config->blockDimX);
  int perSM =
      2 * static_cast<int>(config->sharedMemBytes) <= kSharedPerSM ? 2 : 1;
  *clusters = 0;
  for (int gpc : kGpcs)
    *clusters += gpc * perSM / static_cast<int>(size);
  return CUDA_SUCCESS;
}
} // extern "C"

namespace {

TEST(CudaRuntime, MultiprocessorsAreTheDevicesAndAskedOnce) {
  int before = calls.contextDepth;
  EXPECT_EQ(mgpuDeviceMultiprocessorCount(), 114);
  EXPECT_EQ(mgpuDeviceMultiprocessorCount(), 114);
  EXPECT_EQ(calls.smCountQueries, 1);
  EXPECT_EQ(calls.contextDepth, before);
}

// Clusters of 2 fill the GPCs of even SM counts; of 4, the 18-SM and the
// 14-SM GPCs leave 2 SMs each (108 of 114); of 16, the 14-SM GPC none
// (96; clusters above 8 blocks opted into). One query per size, each
// for a block per SM (more than half an SM's shared memory), and the
// probe's module unloaded.
TEST(CudaRuntime, ClustersFillTheSMsOfTheirGPCs) {
  int before = calls.contextDepth;
  EXPECT_EQ(mgpuDeviceClusterMultiprocessorCount(1), 114);
  EXPECT_EQ(calls.clusterQueries, 0);
  EXPECT_EQ(mgpuDeviceClusterMultiprocessorCount(2), 114);
  EXPECT_EQ(mgpuDeviceClusterMultiprocessorCount(4), 108);
  EXPECT_EQ(mgpuDeviceClusterMultiprocessorCount(4), 108);
  EXPECT_EQ(calls.clusterQueries, 2);
  EXPECT_GT(2 * calls.lastProbeShared, kSharedPerSM);
  EXPECT_LE(calls.lastProbeShared, kSharedPerSM);
  EXPECT_GT(calls.lastProbeBlock, 0);
  EXPECT_EQ(calls.probeNonPortableOptIns, 0);
  EXPECT_EQ(mgpuDeviceClusterMultiprocessorCount(16), 96);
  EXPECT_EQ(calls.probeNonPortableOptIns, 1);
  EXPECT_EQ(calls.probeUnloads, calls.probeLoads);
  EXPECT_EQ(calls.contextDepth, before);
}

// The probe is PTX that ptxas assembles for sm_90 (when the CUDA toolkit
// is at /usr/local/cuda).
TEST(CudaRuntime, TheClusterProbeIsValidPtx) {
  EXPECT_EQ(mgpuDeviceClusterMultiprocessorCount(3), (6 + 6 + 5 * 4 + 4) * 3);
  ASSERT_FALSE(calls.probeImage.empty());
  const char *ptxas = "/usr/local/cuda/bin/ptxas";
  if (std::system((std::string("test -x ") + ptxas).c_str()) != 0)
    GTEST_SKIP() << "no " << ptxas;
  std::string path = ::testing::TempDir() + "mpt_cluster_probe.ptx";
  std::ofstream(path) << calls.probeImage;
  std::string command =
      std::string(ptxas) + " -arch=sm_90 " + path + " -o /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << calls.probeImage;
}

TEST(CudaRuntime, StreamsAreReusedAcrossCalls) {
  // What every call of a lowered function does: create, use, destroy.
  CUstream first = mgpuStreamCreate();
  int created = calls.streamsCreated;
  mgpuStreamDestroy(first);
  CUstream again = mgpuStreamCreate();
  EXPECT_EQ(again, first);
  EXPECT_EQ(calls.streamsCreated, created);
  // Streams alive at once are distinct.
  CUstream other = mgpuStreamCreate();
  EXPECT_NE(other, again);
  EXPECT_EQ(calls.streamsCreated, created + 1);
  mgpuStreamDestroy(again);
  mgpuStreamDestroy(other);
  // At most 64 are kept; the rest go back to the driver.
  std::vector<CUstream> many;
  for (int i = 0; i < 70; ++i)
    many.push_back(mgpuStreamCreate());
  int destroyed = calls.streamsDestroyed;
  for (CUstream s : many)
    mgpuStreamDestroy(s);
  EXPECT_EQ(calls.streamsDestroyed, destroyed + 6);
}

TEST(CudaRuntime, TensorMapsAreEncodedOncePerBufferAndBox) {
  // A 256 x 128 f16 memref (CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6).
  std::vector<uint16_t> data(256 * 128);
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref{data.data(), data.data(), 0, {256, 128}, {128, 1}};
  int64_t box[2] = {64, 64};
  int encoded = calls.mapsEncoded;
  void *map = mgpuTensorMapEncodeTiledMemref(2, &memref, 6, 0, 3, 2, 0, box);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(calls.mapsEncoded, encoded + 1);
  // Innermost first.
  EXPECT_EQ(calls.lastBox, (std::vector<cuuint32_t>{64, 64}));
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &memref, 6, 0, 3, 2, 0, box),
            map);
  EXPECT_EQ(calls.mapsEncoded, encoded + 1);
  // Another box, or another buffer, is another map.
  int64_t tall[2] = {128, 64};
  void *tallMap =
      mgpuTensorMapEncodeTiledMemref(2, &memref, 6, 0, 3, 2, 0, tall);
  EXPECT_NE(tallMap, map);
  EXPECT_EQ(calls.lastBox, (std::vector<cuuint32_t>{64, 128}));
  memref.offset = 64 * 128;
  EXPECT_NE(mgpuTensorMapEncodeTiledMemref(2, &memref, 6, 0, 3, 2, 0, box),
            map);
  EXPECT_EQ(calls.mapsEncoded, encoded + 3);
  // A rank or type out of range is refused before the driver is asked.
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(6, &memref, 6, 0, 3, 2, 0, box),
            nullptr);
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &memref, 99, 0, 3, 2, 0, box),
            nullptr);
  EXPECT_EQ(calls.mapsEncoded, encoded + 3);
}

TEST(CudaRuntime, LargeSharedMemoryIsOptedIntoBeforeTheLaunch) {
  int optIns = calls.sharedOptIns, launches = calls.launches;
  mgpuLaunchKernel(nullptr, 132, 1, 1, 384, 1, 1, 197632, nullptr, nullptr,
                   nullptr, 0);
  EXPECT_EQ(calls.sharedOptIns, optIns + 1);
  EXPECT_EQ(calls.lastSharedOptIn, 197632);
  EXPECT_EQ(calls.lastLaunchShared, 197632);
  // 48 KiB and less need no opt-in.
  mgpuLaunchKernel(nullptr, 1, 1, 1, 256, 1, 1, 48 * 1024, nullptr, nullptr,
                   nullptr, 0);
  EXPECT_EQ(calls.sharedOptIns, optIns + 1);
  EXPECT_EQ(calls.launches, launches + 2);
}

TEST(CudaRuntime, ClusterLaunchesPassTheClusterShape) {
  int optIns = calls.sharedOptIns, launches = calls.clusterLaunches;
  mgpuLaunchClusterKernel(nullptr, 1, 2, 1, 32, 64, 1, 384, 1, 1, 197664,
                          nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(calls.clusterLaunches, launches + 1);
  EXPECT_EQ(calls.sharedOptIns, optIns + 1);
  EXPECT_EQ(calls.lastLaunchShared, 197664);
  EXPECT_EQ(calls.lastGrid[0], 32u);
  EXPECT_EQ(calls.lastGrid[1], 64u);
  EXPECT_EQ(calls.lastCluster[0], 1u);
  EXPECT_EQ(calls.lastCluster[1], 2u);
  EXPECT_EQ(calls.lastCluster[2], 1u);
  EXPECT_EQ(calls.nonPortableOptIns, 0);
  // More than 8 blocks (H100 takes up to 16) are opted into.
  mgpuLaunchClusterKernel(nullptr, 16, 1, 1, 32, 1, 1, 128, 1, 1, 0, nullptr,
                          nullptr, nullptr, 0);
  EXPECT_EQ(calls.nonPortableOptIns, 1);
  EXPECT_EQ(calls.lastCluster[0], 16u);
}

TEST(CudaRuntime, CopiesAndMemsetsRunWithACurrentContext) {
  // The driver API takes the context of a stream-ordered copy or memset
  // from the calling thread, on which the runtime keeps none between calls
  // (the reduction kernels' counters are zeroed by mgpuMemset32).
  CUstream stream = mgpuStreamCreate();
  unsigned int counters[3] = {7, 7, 7}, copy[3] = {0, 0, 0};
  int memsets = calls.memsets, copies = calls.copies;
  mgpuMemset32(counters, 0, 3, stream);
  mgpuMemcpy(copy, counters, sizeof counters, stream);
  EXPECT_EQ(calls.memsets, memsets + 1);
  EXPECT_EQ(calls.copies, copies + 1);
  EXPECT_EQ(calls.memsetsWithoutContext, 0);
  EXPECT_EQ(calls.copiesWithoutContext, 0);
  EXPECT_EQ(calls.contextDepth, 0);
  EXPECT_EQ(copy[0] + copy[1] + copy[2], 0u);
  mgpuStreamDestroy(stream);
}

TEST(CudaRuntime, FreedBuffersAreReusedOnTheirStream) {
  // A lowered function allocates and frees the same temporaries at every
  // call: the second call needs no driver allocation.
  CUstream stream = mgpuStreamCreate();
  int allocs = calls.allocs, frees = calls.frees;
  void *a = mgpuMemAlloc(1000, stream, false);
  void *b = mgpuMemAlloc(4096, stream, false);
  mgpuMemFree(a, stream);
  mgpuMemFree(b, stream);
  EXPECT_EQ(calls.allocs, allocs + 2);
  EXPECT_EQ(calls.frees, frees);
  EXPECT_EQ(mgpuMemAlloc(4096, stream, false), b);
  EXPECT_EQ(mgpuMemAlloc(1000, stream, false), a);
  EXPECT_EQ(calls.allocs, allocs + 2);
  // Another size, or another stream (not ordered after the work that used
  // the buffer), gets a new buffer.
  mgpuMemFree(a, stream);
  void *c = mgpuMemAlloc(999, stream, false);
  EXPECT_NE(c, a);
  CUstream other = mgpuStreamCreate();
  void *d = mgpuMemAlloc(1000, other, false);
  EXPECT_NE(d, a);
  EXPECT_EQ(calls.allocs, allocs + 4);
  mgpuMemFree(b, stream);
  mgpuMemFree(c, stream);
  mgpuMemFree(d, other);
  mgpuStreamDestroy(other);
  mgpuStreamDestroy(stream);
  // A stream that the pool destroys (beyond 64 kept) returns its buffers
  // to the driver first.
  std::vector<CUstream> many;
  for (int i = 0; i < 70; ++i)
    many.push_back(mgpuStreamCreate());
  frees = calls.frees;
  void *e = mgpuMemAlloc(512, many.back(), false);
  mgpuMemFree(e, many.back());
  for (CUstream s : many)
    mgpuStreamDestroy(s);
  EXPECT_EQ(calls.frees, frees + 1);
}

} // namespace
