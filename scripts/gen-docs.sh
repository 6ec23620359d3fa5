#!/usr/bin/env bash
# Writes the generated reference docs into OUT (default: docs/):
# the dialect and pass references from ODS (built by CMake into BUILD/docs),
# the default precision classes and the GPU target table from mpt-opt.
set -euo pipefail
build=${1:-build}
out=${2:-docs}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/Dialects"
cp "$build/docs/Dialects/MPT.md" "$out/Dialects/MPT.md"
cp "$build/docs/Passes.md" "$out/Passes.md"
cp "$build/docs/ConversionPasses.md" "$out/ConversionPasses.md"
{ cat "$here/docs-precision-policy-header.md"
  "$build/bin/mpt-opt" --mpt-list-precision-policy; } > "$out/PrecisionPolicy.md"
{ cat "$here/docs-targets-header.md"
  "$build/bin/mpt-opt" --mpt-list-targets
  echo '```'; } > "$out/Targets.md"
