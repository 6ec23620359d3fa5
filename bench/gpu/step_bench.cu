// Training steps on the GPU: fp32 (exact, and with tf32 matmuls) against
// mixed precision (f16, dynamic loss scaling, fp32 master weights), as
// mpt-lower-to-nvvm compiles them. Every argument and result gets a device
// buffer. The arguments are those mpt-run drew for the step's CPU reference
// (step_checks.txt from bench/gpu/prepare.py, drawn again here with
// mpt-run's generators), the results are poisoned (all bits set: NaN), and
// the first call's results are checked against the reference
// (step_check.h: the relative error of each parameter's update, of the
// loss and of the loss-scale state, over a sample). A step without a
// reference gets floats uniform in [-0.05, 0.05] and integers zero, and is
// only timed. Each step is then timed (median of many calls, CUDA events;
// the host code synchronizes its stream in every call). Prints ms per step,
// the check, and the speed-ups of mixed precision. Built by
// bench/gpu/run.sh with steps.h from bench/gpu/prepare.py.

#include "step_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {
struct ArgSpec {
  int elementBytes;
  int64_t elements;
  int isFloat;
};
struct StepEntry {
  const char *name;
  void (*call)(void **);
  int numArgs;
  const ArgSpec *args;
  int kernels; // launches per step
  int copies;  // device copies and memsets per step
};
} // namespace

#include "steps.h"

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/// float -> f16 bits (round to nearest even; the values here are small
/// normal numbers).
static uint16_t halfBits(float v) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (exp <= 0)
    return sign;
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(h);
}

static double stepMs(const StepEntry &s, std::vector<void *> &buffers) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::vector<double> times;
  for (int i = 0; i < 23; ++i) {
    check(cudaEventRecord(start), "record");
    s.call(buffers.data());
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), s.name);
    float ms;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    if (i >= 3)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Whether `check` (from step_checks.txt) describes the arguments and
/// results of `step`: their count, element counts and sizes.
static bool matches(const stepcheck::Check &check, const StepEntry &step) {
  size_t numArguments = check.arguments.size();
  if (numArguments + check.results.size() != size_t(step.numArgs))
    return false;
  for (int a = 0; a < step.numArgs; ++a) {
    const ArgSpec &spec = step.args[a];
    mpt::run::ElementKind type = a < int(numArguments)
                                     ? check.arguments[a].type
                                     : check.results[a - numArguments].type;
    int64_t elements = a < int(numArguments)
                           ? check.arguments[a].elements
                           : check.results[a - numArguments].elements;
    if (elements != spec.elements ||
        int(mpt::run::getElementSize(type)) != spec.elementBytes)
      return false;
  }
  return true;
}

/// A step's time, its kernel launches, and its copies and memsets.
struct StepResult {
  std::string name;
  double ms;
  int kernels, copies;
};

/// Prints the fp32 / mixed and tf32 / mixed ratios of `results`, with the
/// kernel launches of each step (a step of small kernels is bound by them).
static void printRatios(const std::vector<StepResult> &results) {
  auto find = [&](const std::string &name) {
    for (const StepResult &r : results)
      if (r.name == name)
        return r;
    return StepResult{name, -1.0, 0, 0};
  };
  for (const StepResult &r : results) {
    const std::string &name = r.name;
    double ms = r.ms;
    if (name.size() < 5 || name.compare(name.size() - 5, 5, "_fp32"))
      continue;
    std::string model = name.substr(0, name.size() - 5);
    StepResult tf32 = find(model + "_tf32"), mixed = find(model + "_mixed");
    if (mixed.ms <= 0)
      continue;
    std::printf("%s: fp32 %.3f ms, mixed %.3f ms, speed-up %.2fx",
                model.c_str(), ms, mixed.ms, ms / mixed.ms);
    if (tf32.ms > 0)
      std::printf("; fp32 with tf32 matmuls %.3f ms, speed-up %.2fx", tf32.ms,
                  tf32.ms / mixed.ms);
    std::printf(" (kernels + copies: fp32 %d + %d, mixed %d + %d)", r.kernels,
                r.copies, mixed.kernels, mixed.copies);
    StepResult unfused = find(model + "_mixed1");
    if (unfused.ms > 0)
      std::printf("; mixed with one loop or reduction per kernel %.3f ms "
                  "(%d kernels), fusion saves %.2fx",
                  unfused.ms, unfused.kernels, unfused.ms / mixed.ms);
    StepResult memory = find(model + "_mixedmem");
    if (memory.ms > 0)
      std::printf("; mixed with row values through memory %.3f ms, "
                  "registers save %.2fx",
                  memory.ms, memory.ms / mixed.ms);
    StepResult scalar = find(model + "_mixedscalar");
    if (scalar.ms > 0)
      std::printf("; mixed with one element a SIMT load or store %.3f ms, "
                  "16-byte vectors save %.2fx",
                  scalar.ms, scalar.ms / mixed.ms);
    StepResult bias = find(model + "_mixedbias");
    if (bias.ms > 0)
      std::printf("; mixed with bias gradients as kernels of their own %.3f "
                  "ms (%d kernels), in the weight gradients' kernels save "
                  "%.2fx",
                  bias.ms, bias.kernels, bias.ms / mixed.ms);
    StepResult copy = find(model + "_mixedcopy");
    if (copy.ms > 0)
      std::printf("; mixed with f16 working copies for every matmul %.3f ms "
                  "(%d kernels), rounding as they load saves %.2fx",
                  copy.ms, copy.kernels, copy.ms / mixed.ms);
    std::printf("\n");
  }
}

/// `step_bench`: every step, then the ratios; `step_bench NAME`: that step
/// only (run.sh runs each in its own process); `--list`: the names;
/// `--ratios FILE`: the ratios of the "name ms" lines in FILE.
int main(int argc, char **argv) {
  std::string only = argc > 1 ? argv[1] : "";
  int n = sizeof(kSteps) / sizeof(kSteps[0]);
  if (only == "--list") {
    for (int e = 0; e < n; ++e)
      std::printf("%s\n", kSteps[e].name);
    return 0;
  }
  std::vector<StepResult> results;
  if (only == "--ratios") {
    FILE *f = argc > 2 ? std::fopen(argv[2], "r") : nullptr;
    char line[512], name[256];
    double ms;
    int kernels, copies;
    while (f && std::fgets(line, sizeof(line), f))
      if (std::sscanf(line, "%255s %lf %d %d", name, &ms, &kernels, &copies) ==
          4)
        results.push_back({name, ms, kernels, copies});
    if (f)
      std::fclose(f);
    printRatios(results);
    return 0;
  }
  std::vector<stepcheck::Check> checks;
  std::string error;
  if (!stepcheck::loadChecks("step_checks.txt", checks, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> uniform(-0.05f, 0.05f);
  if (only.empty())
    std::printf("%-34s %10s %8s %7s  %s\n", "step", "ms/step", "kernels",
                "copies", "check against the CPU");
  for (int e = 0; e < n; ++e) {
    const StepEntry &s = kSteps[e];
    if (!only.empty() && only != s.name)
      continue;
    const stepcheck::Check *reference = stepcheck::findCheck(checks, s.name);
    if (reference && !matches(*reference, s)) {
      std::fprintf(stderr,
                   "%s: its entry in step_checks.txt does not match "
                   "its arguments; not checked\n",
                   s.name);
      reference = nullptr;
    }
    std::vector<std::vector<uint8_t>> hostArguments;
    std::vector<void *> buffers;
    for (int a = 0; a < s.numArgs; ++a) {
      const ArgSpec &arg = s.args[a];
      size_t bytes = size_t(arg.elements) * arg.elementBytes;
      std::vector<uint8_t> host(bytes, 0);
      if (reference && a < int(reference->arguments.size()))
        host = stepcheck::drawArgument(reference->arguments[a]);
      else if (reference)
        host.assign(bytes, 0xff);
      else if (arg.isFloat)
        for (int64_t i = 0; i < arg.elements; ++i) {
          float v = uniform(rng);
          if (arg.elementBytes == 4)
            std::memcpy(host.data() + i * 4, &v, 4);
          else {
            uint16_t h = halfBits(v);
            std::memcpy(host.data() + i * 2, &h, 2);
          }
        }
      void *d;
      check(cudaMalloc(&d, std::max<size_t>(bytes, 4)), "malloc");
      check(cudaMemcpy(d, host.data(), bytes, cudaMemcpyHostToDevice), "h2d");
      buffers.push_back(d);
      if (reference && a < int(reference->arguments.size()))
        hostArguments.push_back(std::move(host));
    }
    std::string verdict = "not checked (no CPU reference)";
    if (reference) {
      s.call(buffers.data());
      check(cudaDeviceSynchronize(), s.name);
      std::vector<std::vector<uint8_t>> hostResults;
      for (int a = int(reference->arguments.size()); a < s.numArgs; ++a) {
        std::vector<uint8_t> host(size_t(s.args[a].elements) *
                                  s.args[a].elementBytes);
        check(cudaMemcpy(host.data(), buffers[a], host.size(),
                         cudaMemcpyDeviceToHost),
              "d2h");
        hostResults.push_back(std::move(host));
      }
      stepcheck::Verdict v =
          stepcheck::compare(*reference, hostArguments, hostResults);
      char line[160];
      std::snprintf(line, sizeof(line),
                    "error %.1e (result #%d), tolerance %.0e: %s", v.error,
                    v.worst, reference->tolerance, v.ok ? "ok" : "FAILED");
      verdict = line;
    }
    double ms = stepMs(s, buffers);
    std::printf("%-34s %10.3f %8d %7d  %s\n", s.name, ms, s.kernels, s.copies,
                verdict.c_str());
    std::fflush(stdout);
    results.push_back({s.name, ms, s.kernels, s.copies});
    for (void *d : buffers)
      cudaFree(d);
  }
  if (only.empty())
    printRatios(results);
  else if (results.empty())
    std::fprintf(stderr, "step bench: no step named %s\n", only.c_str());
  return only.empty() || !results.empty() ? 0 : 1;
}
