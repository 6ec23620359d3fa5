#!/usr/bin/env bash
# Runs on the GPU machine (CUDA, no MLIR), in the directory that
# bench/gpu/prepare.py wrote (default bench/gpu/out): builds the harness with
# nvcc against the prepared host objects and the mgpu* runtime, then checks
# and times every function against cuBLAS. Prints the table and writes it to
# $MPT_BENCH_RESULTS (default results.txt), with the date and the GPU.
# `run.sh --build-only` stops after building (what a machine without a GPU
# can check); `run.sh --rest` runs only the GEMMs that are not at 4096^3
# (a second device call, where the first ran out of time).
set -uo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" > /dev/null || nvcc=/usr/local/cuda/bin/nvcc
"$nvcc" -O2 -std=c++17 -c CudaRuntime.cpp -o runtime.o || exit 1
"$nvcc" -O2 -std=c++17 -o gemm_bench gemm_bench.cu runtime.o objects/gemm_*.o \
  -L/usr/local/cuda/lib64/stubs -lcuda -lcublas || exit 1
"$nvcc" -O2 -std=c++17 -o step_bench step_bench.cu runtime.o objects/step_*.o \
  -L/usr/local/cuda/lib64/stubs -lcuda || exit 1
if [ "${1:-}" = "--build-only" ]; then
  echo "built gemm_bench and step_bench"
  exit 0
fi
# Each GEMM and each step runs in its own process with a time limit: a
# kernel that faults or hangs (none of them had run on a GPU when this was
# written) costs its own line, not the table. The 16-bit GEMMs at 4096^3
# come first, then the training steps, then the other GEMMs, so that a run
# cut short still has the two claims. The table goes to
# $MPT_BENCH_RESULTS (default results.txt) line by line: with it under
# the device machine's $OUT, what finished comes back even if the command
# is killed.
limit=${MPT_BENCH_TIMEOUT:-60}
results=${MPT_BENCH_RESULTS:-results.txt}
gemms() {
  for name in "$@"; do
    timeout "$limit" ./gemm_bench "$name" || echo "$name: FAILED (exit $?)"
  done
}
if [ "${1:-}" = "--rest" ]; then
  { ./gemm_bench --header; gemms $(./gemm_bench --list | grep -v _4096x4096x4096); } \
    2>&1 | tee "$results"
  exit 0
fi
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
  ./gemm_bench --device || echo "gemm_bench --device: FAILED (exit $?)"
  ./gemm_bench --header
  gemms $(./gemm_bench --list | grep _4096x4096x4096)
  : > steps.txt
  for name in $(./step_bench --list); do
    if line=$(timeout "$limit" ./step_bench "$name"); then
      echo "$line" | tee -a steps.txt
    else
      echo "$name: FAILED (exit $?)"
    fi
  done
  echo "steps against their CPU reference: $(grep -c ': ok$' steps.txt) ok," \
    "$(grep -c ': FAILED$' steps.txt) FAILED," \
    "$(grep -c 'not checked' steps.txt) not checked"
  ./step_bench --ratios steps.txt
  gemms $(./gemm_bench --list | grep -v _4096x4096x4096)
} 2>&1 | tee "$results"
