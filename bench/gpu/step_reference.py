#!/usr/bin/python3
"""The CPU reference of a training step, for the GPU benchmark's check.

Runs the step on the CPU with `mpt-run --seed=S --json --output-dir` (the
CPU lowering; arguments drawn by their roles) and appends to a checks file
what bench/gpu/step_check.h needs to check the GPU's run of the same step:
how each argument was drawn (mpt-run's "draw", which step_check.h repeats
with tools/mpt-run/HostValues.h, so that the GPU gets the very same
arguments without carrying them), and a sample of each result (up to
--samples elements at a fixed stride).

Block format (whitespace-separated tokens; the draws' numbers with 17
significant digits, the results' with 9, exact for f32):

  step NAME TOLERANCE NUM_ARGUMENTS NUM_RESULTS
  arg INDEX DTYPE SHAPE values N V...
  arg INDEX DTYPE SHAPE first V
  arg INDEX DTYPE SHAPE integers SEED STREAM BOUND
  arg INDEX DTYPE SHAPE normal SEED STREAM STDDEV LOGICAL
  result INDEX DTYPE SHAPE BASE STRIDE COUNT V...
  end

SHAPE is "784x128", "32" or "scalar"; LOGICAL is the logical shape of a
padded argument (only that leading corner is drawn) or "-". BASE is the
argument that a `parameter` result updates (the k-th parameter result
updates the k-th parameter argument), -1 otherwise: the check compares the
update (result - argument), not the result, which lr times a gradient
would barely move. See step_check.h for the comparison.

Usage: step_reference.py --mpt-run BIN --entry FN --name NAME
                         --tolerance T [--seed S] [--samples N]
                         [--work DIR] STEP.mlir CHECKS
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np


def number(value):
    return repr(float(value))


def shape_token(shape):
    return "x".join(str(d) for d in shape) if shape else "scalar"


def draw_tokens(draw):
    kind = draw["kind"]
    if kind == "values":
        return ["values", str(len(draw["values"]))] + [
            number(v) for v in draw["values"]]
    if kind == "first":
        return ["first", number(draw["value"])]
    stream = [str(draw["seed"]), str(draw["stream"])]
    if kind == "integers":
        return ["integers"] + stream + [str(draw["bound"])]
    if kind == "normal":
        logical = draw.get("logical_shape")
        return ["normal"] + stream + [number(draw["stddev"]),
                                      shape_token(logical) if logical
                                      else "-"]
    sys.exit(f"step_reference.py: unknown draw kind {kind!r}")


def reference_block(summary, name, tolerance, samples):
    """The checks-file block of one mpt-run --json summary (with files)."""
    inputs, outputs = summary["inputs"], summary["outputs"]
    lines = [f"step {name} {tolerance} {len(inputs)} {len(outputs)}"]
    parameters = []
    for spec in inputs:
        if "draw" not in spec:
            sys.exit(f"step_reference.py: argument #{spec['index']} of "
                     f"{name} was not drawn at random")
        if spec.get("role") == "parameter":
            parameters.append(spec["index"])
        lines.append(" ".join(["arg", str(spec["index"]), spec["dtype"],
                               shape_token(spec["shape"])]
                              + draw_tokens(spec["draw"])))
    updated = 0
    for spec in outputs:
        values = np.load(spec["file"]).astype(np.float64).reshape(-1)
        base = -1
        if spec.get("role") == "parameter" and updated < len(parameters):
            base = parameters[updated]
            updated += 1
        count = min(len(values), samples)
        stride = max(1, len(values) // max(count, 1))
        sample = values[: count * stride : stride]
        lines.append(" ".join(["result", str(spec["index"]), spec["dtype"],
                               shape_token(spec["shape"]), str(base),
                               str(stride), str(count)]
                              + ["%.9g" % v for v in sample]))
    lines.append("end")
    return "\n".join(lines) + "\n"


def run_reference(mpt_run, step, entry, seed, work):
    """Runs `entry` of the step module `step` on the CPU; returns mpt-run's
    JSON summary (the results in `work`)."""
    os.makedirs(work, exist_ok=True)
    run = subprocess.run([mpt_run, step, f"--entry={entry}", f"--seed={seed}",
                          "--json", f"--output-dir={work}"],
                         capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"step_reference.py: mpt-run failed on {step}:\n"
                 + run.stderr)
    return json.loads(run.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("step")
    parser.add_argument("checks")
    parser.add_argument("--mpt-run", required=True)
    parser.add_argument("--entry", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--tolerance", type=float, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=1024)
    parser.add_argument("--work", default=None,
                        help="where mpt-run writes the results (default: "
                        "CHECKS-NAME beside the checks file)")
    args = parser.parse_args()
    summary = run_reference(args.mpt_run, args.step, args.entry, args.seed,
                            args.work or f"{args.checks}-{args.name}")
    with open(args.checks, "a") as f:
        f.write(reference_block(summary, args.name, args.tolerance,
                                args.samples))


if __name__ == "__main__":
    main()
