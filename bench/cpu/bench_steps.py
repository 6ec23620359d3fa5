#!/usr/bin/env python3
"""CPU benchmark: fp32 versus mixed precision, measured side by side.

For each example (the MLP and the transformer block) this builds an SGD
training step, as written (fp32) and after mpt-auto-mixed-precision and
mpt-master-weights (f16 and bf16), runs
each variant with mpt-run for a number of steps in the same process order
(interleaved, so a noisy machine affects every variant alike), and prints:

  - the median time of one training step (ms) and its ratio to fp32;
  - the bytes of tensors the compiled step allocates (memref.alloc /
    memref.alloca after bufferization), and the bytes it keeps
    (mpt-memory-report: parameters, working copies, gradients, optimizer
    state, activations kept for backward), with the activations apart.

The CPU has no half-precision arithmetic units: LLVM promotes f16/bf16 math
to f32 and rounds after every op, so mixed precision is expected to be
*slower* here. The point of the CPU numbers is the memory column and the
fact that every variant runs; Tensor Core speed is measured on a GPU
(bench/gpu/).

Usage: bench/cpu/bench_steps.py [--build build] [--steps 20] [--rounds 3]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = ["mlp", "transformer_block"]
STEP = ["--mpt-build-train-step=optimizer=sgd lr=0.01", "-canonicalize"]
VARIANTS = [
    ("fp32", STEP),
    ("f16", STEP + ["--mpt-auto-mixed-precision=type=f16",
                    "--mpt-master-weights"]),
    ("bf16", STEP + ["--mpt-auto-mixed-precision=type=bf16",
                     "--mpt-master-weights"]),
]
BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4,
         "i8": 1, "f8E4M3FN": 1, "f8E5M2": 1, "i1": 1}
ALLOC = re.compile(r"memref\.alloca?\(\)(?: \{[^}]*\})?\s*:\s*memref<((?:\d+x)*)([a-zA-Z][a-zA-Z0-9]*)>")
MEMREF = re.compile(r"memref<((?:\d+x)*)([a-zA-Z][a-zA-Z0-9]*)>")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def nbytes(shape, element):
    n = 1
    for d in filter(None, shape.split("x")):
        n *= int(d)
    return n * BYTES.get(element, 4)


def allocated_bytes(opt, source, flags):
    """Bytes of memref.alloc/alloca in the bufferized program."""
    ir = run([opt, source, *flags, "--convert-mpt-to-linalg",
              "--one-shot-bufferize=bufferize-function-boundaries "
              "function-boundary-type-conversion=identity-layout-map"]).stdout
    return sum(nbytes(s, e) for s, e in ALLOC.findall(ir))


def kept_bytes(opt, source, flags, tmp):
    """Bytes a training step keeps (mpt-memory-report: parameters, working
    copies, gradients, optimizer state, activations kept for backward)."""
    path = os.path.join(tmp, "memory.json")
    run([opt, source, *flags, f"--mpt-memory-report=report={path}",
         "-o", os.devnull])
    with open(path) as f:
        report = json.load(f)
    step = next(r for r in report if r["function"] == "train_step")
    return step["total_bytes"], step["categories"][
        "activations kept for backward"]["bytes"]


def time_call(runner, source, steps):
    out = run([runner, source, "--entry=train_step", "--seed=1",
               f"--steps={steps}", "--json"]).stdout
    report = json.loads(out)
    return [s["ms"] for s in report["steps"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "mpt-opt")
    runner = os.path.join(args.build, "bin", "mpt-run")

    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for example in EXAMPLES:
            source = os.path.join(ROOT, "examples", example + ".mlir")
            files, times = {}, {}
            for name, flags in VARIANTS:
                path = os.path.join(tmp, f"{example}.{name}.mlir")
                with open(path, "w") as f:
                    f.write(run([opt, source, *flags]).stdout)
                files[name] = path
                times[name] = []
            # Interleave the variants so machine noise hits them alike.
            for _ in range(args.rounds):
                for name, _ in VARIANTS:
                    times[name] += time_call(runner, files[name], args.steps)
            base = statistics.median(times["fp32"])
            for name, flags in VARIANTS:
                median = statistics.median(times[name])
                kept, activations = kept_bytes(opt, source, flags, tmp)
                rows.append((example, name, median, median / base,
                             allocated_bytes(opt, source, flags), kept,
                             activations))

    print(f"{'example':<18} {'variant':<6} {'ms/step':>9} {'vs fp32':>8} "
          f"{'alloc bytes':>12} {'kept bytes':>11} {'activations':>12}")
    for example, name, ms, ratio, alloc, kept, act in rows:
        print(f"{example:<18} {name:<6} {ms:9.3f} {ratio:7.2f}x {alloc:12d} "
              f"{kept:11d} {act:12d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
