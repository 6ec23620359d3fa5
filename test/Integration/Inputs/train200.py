"""Trains the examples (MLP, CNN, transformer block) for 200 SGD steps with
mpt-run, in fp32 (mpt-build-train-step) and in mixed precision built by
mpt-amp-pipeline (f16 with dynamic loss scaling, bf16 without; Tensor Core
padding and fp32 master weights), and checks that the losses decrease and
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
    subprocess.run([opt, source, *flags, "-o", step], check=True,
                   stderr=subprocess.DEVNULL)
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
        for model in ("mlp", "cnn", "transformer_block"):
            source = os.path.join(args.examples, model + ".mlir")
            base = losses(args.mpt_opt, args.mpt_run, source,
                          ["--mpt-build-train-step=optimizer=sgd lr=0.01",
                           "-canonicalize"], tmp, model + "_fp32")
            decreased = base[-1] < base[0]
            for low in ("f16", "bf16"):
                mixed = losses(args.mpt_opt, args.mpt_run, source,
                               [f"--mpt-amp-pipeline=type={low} "
                                "optimizer=sgd lr=0.01"], tmp,
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
