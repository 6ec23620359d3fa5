#!/usr/bin/env bash
# The main job on the bundled example: parse and verify the MLP training graph
# and print how many ops of each kind it has.
set -euo pipefail
build=${1:-build}
example=examples/mlp.mlir
echo "== $example: parse, verify, op counts"
"$build/bin/mpt-opt" "$example" --verify-roundtrip --print-op-stats -o /dev/null 2>&1
echo "== $example: verified"
