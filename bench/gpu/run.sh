#!/usr/bin/env bash
# Runs on the GPU machine (CUDA, no MLIR), in the directory that
# bench/gpu/prepare.py wrote (default bench/gpu/out): builds the harness with
# nvcc against the prepared host objects and the mgpu* runtime, then checks
# and times every function against cuBLAS. Prints the table and writes it to
# results.txt, with the date and the GPU. `run.sh --build-only` stops after
# building (what a machine without a GPU can check).
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" > /dev/null || nvcc=/usr/local/cuda/bin/nvcc
"$nvcc" -O2 -std=c++17 -c CudaRuntime.cpp -o runtime.o
"$nvcc" -O2 -std=c++17 -o gemm_bench gemm_bench.cu runtime.o objects/gemm_*.o \
  -L/usr/local/cuda/lib64/stubs -lcuda -lcublas
"$nvcc" -O2 -std=c++17 -o step_bench step_bench.cu runtime.o objects/step_*.o \
  -L/usr/local/cuda/lib64/stubs -lcuda
if [ "${1:-}" = "--build-only" ]; then
  echo "built gemm_bench and step_bench"
  exit 0
fi
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
  ./gemm_bench
  ./step_bench
} 2>&1 | tee results.txt
