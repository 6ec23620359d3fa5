#!/usr/bin/env python3
"""Device memory and kernel launches of GPU training steps, fp32, tf32 and
mixed precision side by side.

For each model (the bundled MLP, CNN and transformer block, and any
module given with --model), this builds the SGD training step in fp32
(mpt-build-train-step) and in mixed precision (mpt-amp-pipeline, f16 with
loss scaling and fp32 master weights), lowers each for sm_90a
(mpt-lower-to-nvvm, fp32 also with tf32=1), and counts in @train_step,
after mpt-gpu-reuse-buffers: the bytes of its own device buffers (the
gpu.allocs: the arena of the buffers that share memory, and the few
buffers that do not; arguments and results, which the caller allocates,
are not counted) and its kernel launches (gpu.launch and
gpu.launch_func). Printed: both, and the tf32/fp32 and mixed/fp32 ratios
of the bytes.

The counts are exact and deterministic (no timing): one run suffices.

`--amp OPTIONS` adds mpt-amp-pipeline options to the mixed step (e.g.
`--amp recompute-bytes=-1`: every working copy kept through the step).

Usage: bench/cpu/bench_step_memory.py [--build build] [--model path.mlir]...
       [--amp OPTIONS]
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")
BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4,
         "i8": 1, "i1": 1}
STEPS = [("fp32", "--mpt-build-train-step=optimizer=sgd lr=0.01", ""),
         ("tf32", "--mpt-build-train-step=optimizer=sgd lr=0.01", " tf32=1"),
         ("mixed", "--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01", "")]


def measure(opt, model, build_flag, lower_extra):
    step = subprocess.run([opt, model, build_flag, "-canonicalize"],
                          capture_output=True, text=True, check=True).stdout
    lowered = subprocess.run(
        [opt, "--mpt-lower-to-nvvm=chip=sm_90a format=isa" + lower_extra,
         "--mlir-print-ir-before=lower-affine", "-o", os.devnull],
        input=step, capture_output=True, text=True)
    if lowered.returncode != 0:
        sys.exit(f"{model}: lowering failed:\n{lowered.stderr[-2000:]}")
    ir = lowered.stderr
    start = ir.index("func.func @train_step")
    body = ir[start:ir.index("\n  }\n", start)]
    total = 0
    for match in re.finditer(r"gpu\.alloc\s*\(\) : memref<([^>]*)>", body):
        dims = match.group(1).split(",")[0].split("x")
        count = 1
        for d in dims[:-1]:
            count *= int(d)
        total += count * BYTES[dims[-1].strip()]
    launches = len(re.findall(r"gpu\.launch_func|gpu\.launch ", body))
    return total, launches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--model", action="append", default=[])
    parser.add_argument("--amp", default="",
                        help="more mpt-amp-pipeline options (mixed step)")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "mpt-opt")
    models = [os.path.join(EXAMPLES, m + ".mlir")
              for m in ("mlp", "cnn", "transformer_block")] + args.model
    print("%-18s %14s %14s %14s %8s %8s %9s" %
          ("model", "fp32 bytes", "tf32 bytes", "mixed bytes", "tf32/fp32",
           "mixed/fp32", "launches"))
    for model in models:
        counts = {name: measure(opt, model,
                                flag + (" " + args.amp if name == "mixed"
                                        and args.amp else ""), extra)
                  for name, flag, extra in STEPS}
        fp32 = counts["fp32"][0]
        print("%-18s %14d %14d %14d %8.2fx %8.2fx %3d/%d/%d" %
              (os.path.splitext(os.path.basename(model))[0], fp32,
               counts["tf32"][0], counts["mixed"][0],
               counts["tf32"][0] / fp32, counts["mixed"][0] / fp32,
               counts["fp32"][1], counts["tf32"][1], counts["mixed"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
