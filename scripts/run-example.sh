#!/usr/bin/env bash
# The main job on the bundled example (examples/mlp.mlir):
#  1. parse and verify the forward graph and count its ops;
#  2. build mixed-precision training steps with mpt-amp-pipeline (SGD,
#     auto-mixed-precision, Tensor Core padding, fp32 master weights, loss
#     scaling): f16 for a Volta target (dynamic loss scaling) and bf16 for an
#     Ampere one (no loss scaling: bf16 has fp32's range), with the precision
#     summary of each;
#  3. train them for a few steps on the CPU with mpt-run, next to fp32.
set -euo pipefail
build=${1:-build}
opt="$build/bin/mpt-opt"
run="$build/bin/mpt-run"
example=examples/mlp.mlir
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== $example: parse, verify, op counts"
"$opt" "$example" --verify-roundtrip --print-op-stats -o /dev/null 2>&1

for target in sm_70 sm_80; do
  echo "== mixed-precision training step: mpt-amp-pipeline{target=$target optimizer=sgd lr=0.05}"
  "$opt" "$example" \
    --mpt-amp-pipeline="target=$target optimizer=sgd lr=0.05 print-stats max-overhead=1" \
    -o "$work/step_$target.mlir" 2>&1 | grep -E "^mpt-|remark: mpt-loss-scaling" | sed 's/^.*remark: //' || true
  echo "   loss-scaling ops in @train_step: $(grep -c 'mpt.unscale_and_check' "$work/step_$target.mlir" || true) unscale_and_check, $(grep -c 'mpt.update_scale' "$work/step_$target.mlir" || true) update_scale, $(grep -c 'mpt.select' "$work/step_$target.mlir" || true) select"
done
"$opt" "$example" --mpt-build-train-step="optimizer=sgd lr=0.05" -canonicalize \
  -o "$work/step_fp32.mlir"

echo "== training on the CPU with mpt-run (10 steps, seed 1)"
echo "-- f16 (sm_70), dynamic loss scaling (scale after each step)"
"$run" "$work/step_sm_70.mlir" --entry=train_step --seed=1 --steps=10 2>/dev/null | grep '^step'
echo "-- bf16 (sm_80), fp32, last step"
"$run" "$work/step_sm_80.mlir" --entry=train_step --seed=1 --steps=10 2>/dev/null | grep '^step' | tail -1 | sed 's/^/bf16 /'
"$run" "$work/step_fp32.mlir" --entry=train_step --seed=1 --steps=10 2>/dev/null | grep '^step' | tail -1 | sed 's/^/fp32 /'

echo "== the f16 step lowered for an H100/H200 (mpt-lower-to-nvvm{chip=sm_90a}, PTX)"
"$opt" "$work/step_sm_70.mlir" --mpt-lower-to-nvvm=chip=sm_90a -o "$work/step.nvvm.mlir" \
  2> "$work/nvvm.log"
kernels=$(grep -c 'gpu.binary @' "$work/step.nvvm.mlir" || true)
wgmma=$(grep -c 'on Tensor Cores: wgmma' "$work/nvvm.log" || true)
mma=$(grep -c 'on Tensor Cores: mma.sync' "$work/nvvm.log" || true)
simt=$(grep -c 'not on Tensor Cores' "$work/nvvm.log" || true)
echo "   forward function and training step: $kernels kernels; matmuls: $wgmma on Tensor Cores with wgmma + TMA, $mma with mma.sync, $simt as SIMT kernels"
