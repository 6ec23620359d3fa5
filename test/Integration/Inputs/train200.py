"""Trains the MLP and the CNN examples for 200 SGD steps in fp32 and in mixed
precision (f16 and bf16, with fp32 master weights) with mpt-run, and checks
that the mixed-precision loss after 200 steps is within 2% of fp32's."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

TOLERANCE = 0.02


def losses(opt, run, source, flags, tmp, name):
    step = os.path.join(tmp, name + ".mlir")
    subprocess.run([opt, source, "--mpt-build-train-step=optimizer=sgd lr=0.01",
                    "-canonicalize", *flags, "--mpt-master-weights", "-o", step],
                   check=True)
    out = subprocess.run([run, step, "--entry=train_step", "--seed=1",
                          "--steps=200", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return [s["loss"] for s in json.loads(out)["steps"]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpt-opt", required=True)
    parser.add_argument("--mpt-run", required=True)
    parser.add_argument("--examples", required=True)
    args = parser.parse_args()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for model in ("mlp", "cnn"):
            source = os.path.join(args.examples, model + ".mlir")
            base = losses(args.mpt_opt, args.mpt_run, source, [], tmp,
                          model + "_fp32")
            decreased = base[-1] < base[0]
            for low in ("f16", "bf16"):
                mixed = losses(args.mpt_opt, args.mpt_run, source,
                               [f"--mpt-auto-mixed-precision=type={low}"], tmp,
                               f"{model}_{low}")
                diff = abs(mixed[-1] - base[-1]) / base[-1]
                ok = diff <= TOLERANCE and decreased and mixed[-1] < mixed[0]
                passed += ok
                failed += not ok
                print(f"{model} {low}: fp32 {base[0]:.4f} -> {base[-1]:.6f}, "
                      f"mixed {mixed[0]:.4f} -> {mixed[-1]:.6f}, "
                      f"difference {diff * 100:.3f}% (tolerance 2%) "
                      f"{'ok' if ok else 'FAIL'}")
    print(f"train 200: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
