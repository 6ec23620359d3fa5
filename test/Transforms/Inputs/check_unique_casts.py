#!/usr/bin/env python3
"""Checks the mpt.cast ops of mpt-opt's output (read from stdin).

Fails (exit 1) when, within one function,
  * a value is cast twice to the same type (the pass must insert one cast per
    (value, type) and reuse it), or
  * a cast takes the result of another cast (round trips must fold), or
  * there are fewer than --min-casts casts in all (guards against an empty
    or unexpected input).

SSA names restart in every function, so pairs are counted per func.func.
Expects the custom (pretty) form: `%r = mpt.cast %v : T1 to T2`.
"""

import argparse
import re
import sys
from collections import Counter

FUNC_RE = re.compile(r"^\s*func\.func\s+(?:\w+\s+)*@([\w$.]+)")
CAST_RE = re.compile(
    r"^\s*(%[\w$.#-]+)\s*=\s*mpt\.cast\s+(%[\w$.#-]+)\s*:\s*(.+?)\s+to\s+(.+?)\s*$")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--min-casts", type=int, default=1)
    args = parser.parse_args()

    errors = []
    total = 0
    func = "<none>"
    pairs = Counter()
    cast_results = set()
    for lineno, line in enumerate(sys.stdin, 1):
        m = FUNC_RE.match(line)
        if m:
            func = m.group(1)
            pairs = Counter()
            cast_results = set()
            continue
        if "mpt.cast" not in line:
            continue
        m = CAST_RE.match(line)
        if not m:
            errors.append(f"line {lineno}: unrecognized mpt.cast: {line.strip()}")
            continue
        result, operand, _, to_type = m.groups()
        total += 1
        pairs[(operand, to_type)] += 1
        if pairs[(operand, to_type)] == 2:
            errors.append(f"line {lineno}: @{func}: {operand} cast to "
                          f"{to_type} more than once")
        if operand in cast_results:
            errors.append(f"line {lineno}: @{func}: cast of a cast result "
                          f"({operand}); round trips should fold")
        cast_results.add(result)

    if total < args.min_casts:
        errors.append(f"found {total} mpt.cast ops, expected at least "
                      f"{args.min_casts}")
    for e in errors:
        print("error: " + e, file=sys.stderr)
    if errors:
        return 1
    print(f"{total} mpt.cast ops, each (value, type) cast once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
