#!/usr/bin/env bash
# The main job on the bundled example (examples/mlp.mlir):
#  1. parse and verify the forward graph and count its ops;
#  2. build a mixed-precision training step with mpt-amp-pipeline (SGD,
#     auto-mixed-precision for an Ampere target, Tensor Core padding);
#  3. train it for a few steps on the CPU with mpt-run, next to the fp32 step.
set -euo pipefail
build=${1:-build}
opt="$build/bin/mpt-opt"
run="$build/bin/mpt-run"
example=examples/mlp.mlir
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== $example: parse, verify, op counts"
"$opt" "$example" --verify-roundtrip --print-op-stats -o /dev/null 2>&1

echo "== mixed-precision training step: mpt-amp-pipeline{target=sm_80 optimizer=sgd lr=0.05}"
"$opt" "$example" \
  --mpt-amp-pipeline="target=sm_80 optimizer=sgd lr=0.05 print-stats max-overhead=1" \
  -o "$work/step.mlir" 2>&1 | grep -v "remark\|note:\|^ \|^$" || true
"$opt" "$example" --mpt-build-train-step="optimizer=sgd lr=0.05" -canonicalize \
  -o "$work/step_fp32.mlir"

echo "== training on the CPU with mpt-run (10 steps, seed 1): mixed (bf16) then fp32"
"$run" "$work/step.mlir" --entry=train_step --seed=1 --steps=10 2>/dev/null | grep '^step'
"$run" "$work/step_fp32.mlir" --entry=train_step --seed=1 --steps=10 2>/dev/null | grep '^step' | tail -1 | sed 's/^/fp32 /'
