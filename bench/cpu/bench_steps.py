#!/usr/bin/env python3
"""CPU benchmark: fp32 versus mixed precision, measured side by side.

For each example (the MLP and the transformer block) this compiles the graph
as written (fp32) and after mpt-auto-mixed-precision (f16 and bf16), runs
each variant with mpt-run for a number of steps in the same process order
(interleaved, so a noisy machine affects every variant alike), and prints:

  - the median time of one call (ms) and its ratio to fp32;
  - the bytes of tensors the compiled program allocates (memref.alloc /
    memref.alloca after bufferization), and the bytes of its arguments.

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
VARIANTS = [
    ("fp32", []),
    ("f16", ["--mpt-auto-mixed-precision=type=f16"]),
    ("bf16", ["--mpt-auto-mixed-precision=type=bf16"]),
]
BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4,
         "i8": 1, "f8E4M3FN": 1, "f8E5M2": 1, "i1": 1}
ALLOC = re.compile(r"memref\.alloca?\(\)[^:]*:\s*memref<([0-9x]*)x?([a-zA-Z0-9]+)>")
MEMREF = re.compile(r"memref<([0-9x]*?)x?([a-zA-Z][a-zA-Z0-9]*)>")


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


def argument_bytes(opt, source, flags):
    ir = run([opt, source, *flags]).stdout
    sig = ir[ir.index("func.func"):ir.index("{", ir.index("func.func"))]
    total = 0
    for shape, element in re.findall(r"tensor<([0-9x]*?)x?([a-zA-Z][a-zA-Z0-9]*)>", sig):
        total += nbytes(shape, element)
    return total


def time_call(runner, source, steps):
    out = run([runner, source, "--seed=1", f"--steps={steps}", "--json"]).stdout
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
                rows.append((example, name, median, median / base,
                             allocated_bytes(opt, source, flags),
                             argument_bytes(opt, source, flags)))

    print(f"{'example':<18} {'variant':<6} {'ms/call':>9} {'vs fp32':>8} "
          f"{'alloc bytes':>12} {'arg bytes':>10}")
    for example, name, ms, ratio, alloc, argb in rows:
        print(f"{example:<18} {name:<6} {ms:9.3f} {ratio:7.2f}x {alloc:12d} {argb:10d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
