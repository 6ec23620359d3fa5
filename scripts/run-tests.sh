#!/usr/bin/env bash
# Runs every test suite (lit regression tests, C++ unit tests) and prints one
# summary line with the totals.
set -uo pipefail
build=${1:-build}
lit=/usr/lib/llvm-22/bin/lit
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== lit regression tests"
"$lit" -sv "$build/test" 2>&1 | tee "$log"
lit_rc=${PIPESTATUS[0]}
lit_passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log")
lit_failed=$(awk -F: '/^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:/ {
  split($2, n, " "); s += n[1] } END { print s + 0 }' "$log")

echo "== unit tests"
ctest --test-dir "$build" --output-on-failure 2>&1 | tee "$log"
unit_rc=${PIPESTATUS[0]}
unit_total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log")
unit_failed=$(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' "$log")

passed=$(( ${lit_passed:-0} + ${unit_total:-0} - ${unit_failed:-0} ))
failed=$(( ${lit_failed:-0} + ${unit_failed:-0} ))
if [ "$lit_rc" -ne 0 ] || [ "$unit_rc" -ne 0 ]; then
  [ "$failed" -gt 0 ] || failed=1
fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
