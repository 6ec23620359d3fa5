// GEMM benchmark of mpt's generated kernels against cuBLAS, on the GPU.
//
// The functions come from bench/gpu/prepare.py (host objects with embedded
// cubins, built where MLIR is); manifest.h lists them. For each function:
//
//  - correctness: fresh random A and B (uniform in [-1, 1], rounded to
//    f16/bf16), the output poisoned with NaN first (and zeroed for every
//    variant but `op` and its kin, which accumulate into C; `mma` is the mma.sync
//    kernel built for sm_90, `kernel` the sm_90a one: wgmma + TMA where the
//    shape allows it, `ws` the same warp-specialized, `pers` persistent
//    (persistent=1), `ping` persistent ping-pong (pingpong=1, 128 x 128
//    tiles), `ping256` the same with 64 x 256 tiles, `rows` the same as
//    `kernel` with its blocks row by row (group-m=1), `t192` with 192 x 256
//    block tiles, `clu` `ws` in clusters of two blocks that share B's tiles
//    (cluster-m=2), `pclu` `pers` in such clusters, `clu4` and `pclu4` the
//    same in clusters of 2 x 2 that share A's tiles along rows and B's
//    along columns; `op` is `mpt.matmul acc(f32)`, whose kernel stores the
//    rounded f16/bf16 result, and `opers`, `otma`, `oping`, `otping` the
//    same persistent, persistent with the TMA store epilogue, ping-pong and
//    ping-pong with TMA stores, `osplit` the same split along K with
//    split-k=16), then compared on 4096 random output
//    elements with a
//    float64 CPU reference computed from the rounded inputs:
//    ||out - ref|| / ||ref||, tolerance 1e-4 for the f32 output of the
//    accumulating variants and of f32 GEMMs (fp32 accumulation), 2^-10
//    (f16) and 2^-7 (bf16) for the rounded output of the `op` variants,
//    2^-9 for f32 operands rounded to tf32 (2^-11 each) by the tf32
//    kernels; the f32 GEMMs (type f32: the tiled SIMT kernel, as in the
//    fp32 training steps) are `kernel` (C += A B, C zeroed) and `op`
//    (`mpt.matmul` on f32, which stores into its zero-filled result
//    without reading it: C stays poisoned until the kernel writes it);
//  - speed: median time of many calls measured with CUDA events, next to
//    cublasGemmEx (same inputs, f32 output, CUBLAS_COMPUTE_32F, or
//    CUBLAS_COMPUTE_32F_FAST_TF32 for tf32; for f32 operands without tf32
//    that is cuBLAS's fp32 SGEMM, no Tensor Cores), each call
//    followed by a synchronization for both (mpt's host code synchronizes
//    its stream in every call). TFLOP/s, fraction of cuBLAS, and fraction of
//    the GPU's dense peak (H200 and H100 SXM: 989 TFLOP/s f16/bf16, 494.5
//    tf32, 67 fp32 without Tensor Cores; H100 PCIe and NVL: see kPeaks),
//    which `--device` names.
//
// Build and run: bench/gpu/run.sh (nvcc, -lcuda -lcublas).

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "manifest.h"

#define MEMREF2(p) void *, void *, int64_t, int64_t, int64_t, int64_t, int64_t
#define DECLARE(name, type, m, n, k, variant)                                 \
  extern "C" void name(MEMREF2(a), MEMREF2(b), MEMREF2(c));
MPT_GEMMS(DECLARE)
#undef DECLARE

// The runtime's answers that size the persistent grids (CudaRuntime.cpp).
extern "C" int32_t mgpuDeviceMultiprocessorCount();
extern "C" int32_t mgpuDeviceClusterMultiprocessorCount(int32_t cluster);

namespace {

// TF32: f32 operands, tf32=1; F32: f32 operands, exact (SIMT kernel).
enum Type { F16, BF16, TF32, F32 };
enum Variant {
  KERNEL,
  MMA,
  WS,
  PERS,
  PING,
  PING256,
  ROWS,
  T192,
  CLU,
  PCLU,
  CLU4,
  PCLU4,
  OP, // from here on: rounded 16-bit outputs
  OPERS,
  OTMA,
  OPING,
  OTPING,
  OSPLIT
};
using GemmFn = void (*)(MEMREF2(a), MEMREF2(b), MEMREF2(c));

struct Gemm {
  const char *name;
  Type type;
  int64_t m, n, k;
  Variant variant;
  GemmFn fn;
};

const Gemm kGemms[] = {
#define ENTRY(name, type, m, n, k, variant)                                    \
  {#name, type, m, n, k, variant, name},
    MPT_GEMMS(ENTRY)
#undef ENTRY
};

/// Dense peaks (TFLOP/s, NVIDIA's data sheets): Tensor Cores f16/bf16 and
/// tf32, and fp32 on the CUDA cores. The table's GPU is the first whose
/// name the device's contains (an H100 SXM is named "NVIDIA H100 80GB
/// HBM3"); any other GPU is measured against the H200.
struct Peaks {
  const char *name;
  double f16, tf32, f32;
};
constexpr Peaks kPeaks[] = {
    {"H200", 989.0, 494.5, 67.0},     {"H100 PCIe", 756.0, 378.0, 51.0},
    {"H100 NVL", 835.0, 417.5, 60.0}, {"H100", 989.0, 494.5, 67.0},
    {"GH200", 989.0, 494.5, 67.0},
};

const Peaks &devicePeaks() {
  static const Peaks *peaks = [] {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
      for (const Peaks &p : kPeaks)
        if (std::strstr(prop.name, p.name))
          return &p;
    return &kPeaks[0];
  }();
  return *peaks;
}

bool f32Operands(Type t) { return t == TF32 || t == F32; }

double peakTflops(Type t) {
  const Peaks &p = devicePeaks();
  return t == TF32 ? p.tf32 : t == F32 ? p.f32 : p.f16;
}

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, int(s));
    std::exit(1);
  }
}

/// Bytes of an operand element.
size_t elementBytes(Type t) { return f32Operands(t) ? 4 : 2; }

/// `v` rounded to the operand type, and its bytes at `out`.
float store(float v, Type t, uint8_t *out) {
  if (t == F16) {
    __half h = __float2half_rn(v);
    std::memcpy(out, &h, 2);
    return __half2float(h);
  }
  if (t == BF16) {
    __nv_bfloat16 h = __float2bfloat16_rn(v);
    std::memcpy(out, &h, 2);
    return __bfloat162float(h);
  }
  std::memcpy(out, &v, 4);
  return v;
}

/// The output element at `p` (`f32Out`: f32, else the operand type).
double load(const uint8_t *p, Type t, bool f32Out) {
  if (f32Out || f32Operands(t)) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (t == F16) {
    __half h;
    std::memcpy(&h, p, 2);
    return __half2float(h);
  }
  __nv_bfloat16 h;
  std::memcpy(&h, p, 2);
  return __bfloat162float(h);
}

/// Calls `fn` with row-major device buffers as memref descriptors.
void call(const Gemm &g, void *a, void *b, void *c) {
  g.fn(a, a, 0, g.m, g.k, g.k, 1, b, b, 0, g.k, g.n, g.n, 1, c, c, 0, g.m,
       g.n, g.n, 1);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median milliseconds of `body` (which synchronizes), over enough calls for
/// about half a second, at least 5 and at most 50.
template <typename Body> double timeMs(Body body) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  auto once = [&] {
    check(cudaEventRecord(start), "record");
    body();
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    return double(ms);
  };
  for (int i = 0; i < 3; ++i)
    once();
  double first = once();
  int runs = std::clamp(int(500.0 / std::max(first, 1e-3)), 5, 50);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i)
    times.push_back(once());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(times);
}

} // namespace

/// `gemm_bench`: every function; `gemm_bench NAME`: that one only (run.sh
/// runs each in its own process, so that a kernel that faults or hangs
/// costs only its own line); `--list`: the names; `--header`: the header;
/// `--device`: the peaks the table divides by, and the SMs that the
/// persistent grids take, as the runtime
/// counts them (alone and in clusters of 2 and 4, which the driver
/// places in GPCs).
int main(int argc, char **argv) {
  std::string only = argc > 1 ? argv[1] : "";
  if (only == "--device") {
    const Peaks &p = devicePeaks();
    std::printf("peaks of the %s: %.1f TFLOP/s f16/bf16, %.1f tf32, %.1f "
                "fp32\n",
                p.name, p.f16, p.tf32, p.f32);
    std::printf("persistent grids: %d SMs; in clusters of 2: %d, of 4: %d\n",
                int(mgpuDeviceMultiprocessorCount()),
                int(mgpuDeviceClusterMultiprocessorCount(2)),
                int(mgpuDeviceClusterMultiprocessorCount(4)));
    return 0;
  }
  if (only == "--list") {
    for (const Gemm &g : kGemms)
      std::printf("%s\n", g.name);
    return 0;
  }
  if (only.empty() || only == "--header")
    std::printf("%-36s %9s %9s %9s %8s %8s %10s %9s\n", "function", "mpt ms",
                "TFLOP/s", "cuBLAS", "of cuBLAS", "of peak", "rel. err",
                "tol");
  if (only == "--header")
    return 0;
  cublasHandle_t handle;
  check(cublasCreate(&handle), "cublasCreate");
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  int failed = 0, ran = 0;
  for (const Gemm &g : kGemms) {
    if (!only.empty() && only != g.name)
      continue;
    ++ran;
    size_t aCount = size_t(g.m) * g.k, bCount = size_t(g.k) * g.n,
           cCount = size_t(g.m) * g.n, eb = elementBytes(g.type);
    // Values rounded to the operand type (the reference's inputs) and their
    // bytes.
    std::vector<float> a(aCount), b(bCount);
    std::vector<uint8_t> aBytes(aCount * eb), bBytes(bCount * eb);
    for (size_t i = 0; i < aCount; ++i)
      a[i] = store(uniform(rng), g.type, aBytes.data() + i * eb);
    for (size_t i = 0; i < bCount; ++i)
      b[i] = store(uniform(rng), g.type, bBytes.data() + i * eb);
    // C += A B in f32 (C zeroed first), or an f32 result.
    bool accumulates = g.variant < OP;
    bool f32Out = accumulates || f32Operands(g.type);
    size_t cBytes = cCount * (f32Out ? 4 : 2);
    void *da, *db, *dc, *dref;
    check(cudaMalloc(&da, aCount * eb), "malloc");
    check(cudaMalloc(&db, bCount * eb), "malloc");
    check(cudaMalloc(&dc, cBytes), "malloc");
    check(cudaMalloc(&dref, cCount * 4), "malloc");
    check(cudaMemcpy(da, aBytes.data(), aCount * eb, cudaMemcpyHostToDevice),
          "h2d");
    check(cudaMemcpy(db, bBytes.data(), bCount * eb, cudaMemcpyHostToDevice),
          "h2d");

    // Correctness: poison, (zero the accumulator), run once, compare.
    check(cudaMemset(dc, 0xFF, cBytes), "poison");
    if (accumulates)
      check(cudaMemset(dc, 0, cBytes), "zero");
    call(g, da, db, dc);
    check(cudaDeviceSynchronize(), g.name);
    std::vector<uint8_t> out(cBytes);
    check(cudaMemcpy(out.data(), dc, cBytes, cudaMemcpyDeviceToHost), "d2h");
    double num = 0, den = 0;
    std::uniform_int_distribution<int64_t> row(0, g.m - 1), col(0, g.n - 1);
    for (int s = 0; s < 4096; ++s) {
      int64_t i = row(rng), j = col(rng);
      double ref = 0;
      for (int64_t p = 0; p < g.k; ++p)
        ref += double(a[i * g.k + p]) * double(b[p * g.n + j]);
      double got =
          load(out.data() + (i * g.n + j) * (f32Out ? 4 : 2), g.type, f32Out);
      num += (got - ref) * (got - ref);
      den += ref * ref;
    }
    double err = std::sqrt(num / den);
    if (std::isnan(err))
      err = INFINITY;
    double tol = g.type == TF32 ? std::ldexp(1.0, -9)
                 : f32Out           ? 1e-4
                 : g.type == F16    ? std::ldexp(1.0, -10)
                                    : std::ldexp(1.0, -7);
    bool ok = err <= tol;
    failed += !ok;

    // Speed, side by side with cuBLAS.
    double flop = 2.0 * g.m * g.n * g.k;
    double ms = timeMs([&] {
      call(g, da, db, dc);
      check(cudaDeviceSynchronize(), g.name);
    });
    cudaDataType_t in = g.type == F16    ? CUDA_R_16F
                        : g.type == BF16 ? CUDA_R_16BF
                                         : CUDA_R_32F;
    // (CUBLAS_COMPUTE_32F with f32 operands and the handle's default math
    // mode: fp32 SGEMM, no tf32.)
    cublasComputeType_t compute =
        g.type == TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    float alpha = 1.0f, beta = 0.0f;
    double blasMs = timeMs([&] {
      // Row-major C = A B is column-major C^T = B^T A^T.
      check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k,
                         &alpha, db, in, g.n, da, in, g.k, &beta, dref,
                         CUDA_R_32F, g.n, compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
      check(cudaDeviceSynchronize(), "cublas");
    });
    double tflops = flop / ms * 1e-9, blasTflops = flop / blasMs * 1e-9;
    std::printf("%-36s %9.3f %9.1f %9.1f %7.1f%% %7.1f%% %10.2e %9.2e %s\n",
                g.name, ms, tflops, blasTflops, 100.0 * tflops / blasTflops,
                100.0 * tflops / peakTflops(g.type), err, tol,
                ok ? "ok" : "FAIL");
    std::fflush(stdout);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dref);
  }
  cublasDestroy(handle);
  if (only.empty())
    std::printf("gemm bench: %d functions, %d failed\n", ran, failed);
  if (!ran)
    std::fprintf(stderr, "gemm bench: no function named %s\n", only.c_str());
  return failed || !ran ? 1 : 0;
}
