#!/usr/bin/python3
"""CPU benchmark of loss scaling: what it rescues and what it costs.

1. Underflow rescue: examples/mlp.mlir with its loss multiplied by 1e-6
   (gradients around 1e-8, below f16's smallest subnormal), 200 SGD steps in
   fp32 and in f16 (mpt-amp-pipeline) without loss scaling and with static,
   dynamic and adaptive scaling: the fraction of zero gradient elements at
   step 1 and the loss after the last step, next to fp32's.
2. Overflow injection: steps with an inf, a NaN, or gradients that overflow
   f16 only once scaled are skipped bit for bit and back the scale off; a
   GradScaler reimplementation fed the same found-inf sequence gives the same
   scale and counter at every step.
3. Cost: the median time of one f16 training step of examples/mlp.mlir and
   examples/transformer_block.mlir for each mode, measured in interleaved
   rounds (a noisy machine affects every mode alike), as a ratio to the step
   without loss scaling.

The experiments of 1 and 2 are those of test/Integration/loss-scaling.test
(test/Integration/Inputs/loss_scaling.py), printed as a report.

Usage: bench/cpu/bench_loss_scaling.py [--build build] [--steps 200]
       [--timing-steps 20] [--rounds 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
INPUTS = os.path.join(ROOT, "test", "Integration", "Inputs")
sys.path.insert(0, INPUTS)
import loss_scaling  # noqa: E402  pylint: disable=wrong-import-position

MODES = ["none", "static", "dynamic", "adaptive"]


def step_times(tools, source, name, mode, steps):
    step = tools.build(source, f"{name}_{mode}", pipeline=(
        f"type=f16 optimizer=sgd lr=0.01 loss-scaling={mode}"))
    out = subprocess.run([tools.mpt_run, step, "--entry=train_step",
                          "--seed=1", f"--steps={steps}", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return [s["ms"] for s in json.loads(out)["steps"]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--timing-steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "mpt-opt")
    run = os.path.join(args.build, "bin", "mpt-run")
    results = loss_scaling.Results()
    with tempfile.TemporaryDirectory() as workdir:
        tools = loss_scaling.Tools(opt, run, INPUTS, workdir)

        print(f"== 1. underflow rescue: mlp with loss x 1e-6, {args.steps} "
              "SGD steps (lr 1e4)")
        rows = []
        loss_scaling.underflow(tools, results, steps=args.steps, report=rows)
        print()
        print(f"{'variant':<22} {'zero grads (step 1)':>20} {'first loss':>12} "
              f"{'last loss':>12} {'vs fp32':>9}")
        for name, zeros, first, last, diff in rows:
            print(f"{name:<22} {zeros * 100:>19.2f}% {first:>12.4e} "
                  f"{last:>12.4e} {diff * 100:>8.2f}%")

        print("\n== 2. overflow injection and the GradScaler state machine")
        loss_scaling.overflow(tools, results)
        loss_scaling.hysteresis(tools, results)
        loss_scaling.gradscaler(tools, results)

        print(f"\n== 3. cost: median ms per f16 step ({args.timing_steps} "
              f"steps x {args.rounds} interleaved rounds)")
        print(f"{'model':<18} " + " ".join(f"{m:>16}" for m in MODES))
        for model in ("mlp", "transformer_block"):
            source = os.path.join(ROOT, "examples", model + ".mlir")
            times = {m: [] for m in MODES}
            for _ in range(args.rounds):
                for mode in MODES:
                    times[mode] += step_times(tools, source, model, mode,
                                              args.timing_steps)
            base = statistics.median(times["none"])
            cells = []
            for mode in MODES:
                ms = statistics.median(times[mode])
                cells.append(f"{ms:7.2f} ({ms / base:4.2f}x)")
            print(f"{model:<18} " + " ".join(f"{c:>16}" for c in cells))
    print(f"\nchecks: {results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
