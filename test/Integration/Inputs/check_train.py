#!/usr/bin/python3
"""Checks the losses of `mpt-run --steps=N --json` runs of a train step.

  check_train.py decrease RUN.json [--factor 0.5]
      every loss is finite, there are N >= 2 steps, and the last loss is
      below factor * the first one. Prints
      `decrease: ok (N steps, first F, last L)`.
  check_train.py compare REF.json RUN.json [--rtol 0.02]
      the last losses of two runs of the same step (fp32 and mixed
      precision) agree: |last - ref_last| <= rtol * |ref_last|. Prints
      `compare: ok (step N: L vs R, rel D)`.
Anything else prints a line with FAIL and exits 1.
"""

import argparse
import json
import math
import sys


def losses(path):
    with open(path) as f:
        data = json.load(f)
    steps = data.get("steps") or []
    values = []
    for s in steps:
        v = s.get("loss")
        values.append(float(v) if isinstance(v, (int, float)) else math.nan)
    return values


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    d = sub.add_parser("decrease")
    d.add_argument("run")
    d.add_argument("--factor", type=float, default=0.5)
    c = sub.add_parser("compare")
    c.add_argument("ref")
    c.add_argument("run")
    c.add_argument("--rtol", type=float, default=0.02)
    args = parser.parse_args()

    if args.mode == "decrease":
        ls = losses(args.run)
        ok = (len(ls) >= 2 and all(math.isfinite(x) for x in ls)
              and ls[-1] < args.factor * ls[0])
        print(f"decrease: {'ok' if ok else 'FAIL'} ({len(ls)} steps, "
              f"first {ls[0] if ls else 'none'}, last {ls[-1] if ls else 'none'})")
        return 0 if ok else 1

    ref, run = losses(args.ref), losses(args.run)
    if not ref or len(ref) != len(run):
        print(f"compare: FAIL ({len(ref)} reference steps, {len(run)} steps)")
        return 1
    r, x = ref[-1], run[-1]
    rel = abs(x - r) / abs(r) if r else math.inf
    ok = math.isfinite(x) and rel <= args.rtol
    print(f"compare: {'ok' if ok else 'FAIL'} (step {len(run)}: {x} vs {r}, "
          f"rel {rel:.2e}, rtol {args.rtol})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
