#!/usr/bin/env bash
# Runs on the GPU machine (CUDA, no MLIR), in the directory that
# bench/gpu/prepare.py wrote (default bench/gpu/out): builds the harness with
# nvcc against the prepared host objects and the mgpu* runtime, then checks
# and times every function against cuBLAS. Prints the table and writes it to
# $MPT_BENCH_RESULTS (default results.txt), with the date and the GPU.
# `run.sh --build-only` stops after building (what a machine without a GPU
# can check); `run.sh --rest` runs only the GEMMs that are neither at 4096^3
# nor small (a second device call, where the first ran out of time).
# `--no-build` (before the other options) runs the harnesses already built
# here (a rerun on the same machine).
set -uo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = "--no-build" ]; then
  shift
else
  nvcc=${NVCC:-nvcc}
  command -v "$nvcc" > /dev/null || nvcc=/usr/local/cuda/bin/nvcc
  "$nvcc" -O2 -std=c++17 -c CudaRuntime.cpp -o runtime.o || exit 1
  "$nvcc" -O2 -std=c++17 -o gemm_bench gemm_bench.cu runtime.o \
    objects/gemm_*.o -L/usr/local/cuda/lib64/stubs -lcuda -lcublas || exit 1
  "$nvcc" -O2 -std=c++17 -o step_bench step_bench.cu runtime.o \
    objects/step_*.o -L/usr/local/cuda/lib64/stubs -lcuda || exit 1
fi
if [ "${1:-}" = "--build-only" ]; then
  echo "built gemm_bench and step_bench"
  exit 0
fi
# Each GEMM and each step runs in its own process with a time limit: a
# kernel that faults or hangs (none of them had run on a GPU when this was
# written) costs its own line, not the table. First every kernel runs once
# at a small shape (smoke.txt from prepare.py: each variant of the
# benchmark at 128x256x64 and 100x100x100, split-k at 128x128x2048) under
# a short limit, so that a kernel that hangs (a pipeline waiting on an
# mbarrier that never completes) costs seconds, once: its larger shapes
# are then skipped. Then the 16-bit GEMMs at 4096^3, the training steps
# and the other GEMMs, so that a run cut short still has the two claims.
# The table goes to $MPT_BENCH_RESULTS (default results.txt) line by line:
# with it under the device machine's $OUT, what finished comes back even if
# the command is killed.
limit=${MPT_BENCH_TIMEOUT:-60}
smoke_limit=${MPT_SMOKE_TIMEOUT:-10}
step_limit=${MPT_STEP_TIMEOUT:-30}
results=${MPT_BENCH_RESULTS:-results.txt}
touch smoke.txt
: > hung.txt
# compute-sanitizer, where the toolkit has it: the first three small
# kernels that fail (other than by hanging) run again under its memcheck,
# whose report (an out-of-bounds or misaligned access, an illegal
# instruction, with the kernel's name) goes into the table.
sanitizer=${MPT_SANITIZER:-compute-sanitizer}
command -v "$sanitizer" > /dev/null ||
  sanitizer=/usr/local/cuda/bin/compute-sanitizer
sanitized=0
# gemms smoke|main NAME...: runs each function under the phase's limit;
# one whose kernel (the name without its shape) hung at the small shape is
# skipped. In the smoke phase (the small shapes), a hang is recorded and a
# failure is run again under compute-sanitizer.
gemms() {
  local phase=$1 lim=$limit
  shift
  [ "$phase" = smoke ] && lim=$smoke_limit
  for name in "$@"; do
    if grep -qx "${name%_*}" hung.txt; then
      echo "$name: skipped (its kernel hung at the small shape)"
      continue
    fi
    timeout "$lim" ./gemm_bench "$name"
    rc=$?
    [ "$rc" -eq 0 ] && continue
    echo "$name: FAILED (exit $rc)"
    [ "$phase" = smoke ] || continue
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      echo "${name%_*}" >> hung.txt
    elif [ "$sanitized" -lt 3 ] && command -v "$sanitizer" > /dev/null; then
      sanitized=$((sanitized + 1))
      echo "$name under compute-sanitizer (memcheck):"
      timeout 120 "$sanitizer" --tool memcheck --print-limit 5 \
        ./gemm_bench "$name" 2>&1 | grep '^=====' | head -40 | sed 's/^/  /'
    fi
  done
}
# summary FILE: for each operand type and shape in FILE, the best of mpt's
# kernels that passed their check, as a fraction of cuBLAS, and the default
# kernel's (`kernel`, where it ran).
summary() {
  awk '$1 ~ /^gemm_/ && NF == 9 && $9 == "ok" {
    split($1, part, "_")
    key = part[3] " " part[4]
    if (!(key in best))
      keys[++n] = key
    if (!(key in best) || $5 + 0 > best[key]) {
      best[key] = $5 + 0; who[key] = part[2]; tflops[key] = $3
    }
    if (part[2] == "kernel")
      plain[key] = $5 + 0
  }
  END {
    if (n)
      print "best of the correct kernels, per type and shape (of cuBLAS):"
    for (i = 1; i <= n; ++i) {
      k = keys[i]
      printf "  %s: %.1f%% (%s, %s TFLOP/s)", k, best[k], who[k], tflops[k]
      if (k in plain)
        printf "; default kernel %.1f%%", plain[k]
      printf "\n"
    }
  }' "$1"
}
others() {
  ./gemm_bench --list | grep -v _4096x4096x4096 | grep -vxF -f smoke.txt
}
if [ "${1:-}" = "--rest" ]; then
  { ./gemm_bench --header; gemms main $(others); } 2>&1 | tee "$results"
  summary "$results" | tee -a "$results"
  exit 0
fi
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
  ./gemm_bench --device || echo "gemm_bench --device: FAILED (exit $?)"
  ./gemm_bench --header
  gemms smoke $(cat smoke.txt)
  gemms main $(./gemm_bench --list | grep _4096x4096x4096)
  : > steps.txt
  for name in $(./step_bench --list); do
    if line=$(timeout "$step_limit" ./step_bench "$name"); then
      echo "$line" | tee -a steps.txt
    else
      echo "$name: FAILED (exit $?)"
    fi
  done
  echo "steps against their CPU reference: $(grep -c ': ok$' steps.txt) ok," \
    "$(grep -c ': FAILED$' steps.txt) FAILED," \
    "$(grep -c 'not checked' steps.txt) not checked"
  ./step_bench --ratios steps.txt
  gemms main $(others)
} 2>&1 | tee "$results"
summary "$results" | tee -a "$results"
