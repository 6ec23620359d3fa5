"""What the emulator-counting benchmarks (bench_row_traffic.py,
bench_simt_vectors.py) share: the training steps they lower and the
per-kernel counts of mpt-emulate-gpu{traffic=1}."""
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"mpt-emulate-gpu: traffic: (\S+): (\d+) launches, "
                  r"(\d+) bytes loaded, (\d+) bytes stored, (\d+) loads, "
                  r"(\d+) stores")

# The SGD training steps of the examples, in fp32 and mixed precision.
VARIANTS = [("fp32", ["--mpt-build-train-step=optimizer=sgd lr=0.01"]),
            ("mixed", ["--mpt-amp-pipeline=type=f16 optimizer=sgd lr=0.01"])]


def steps(build):
    """(example, variant, mpt-run, program) for the MLP and the transformer
    block in each variant, lowered to the mpt level in a temporary
    directory."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    opt = os.path.join(build, "bin", "mpt-opt")
    run = os.path.join(build, "bin", "mpt-run")
    with tempfile.TemporaryDirectory() as tmp:
        for example in ["mlp", "transformer_block"]:
            for name, flags in VARIANTS:
                program = os.path.join(tmp, "%s_%s.mlir" % (example, name))
                subprocess.run([opt, os.path.join(root, "examples",
                                                  example + ".mlir"),
                                *flags, "-o", program], check=True,
                               stderr=subprocess.DEVNULL)
                yield example, name, run, program


def counts(run, program, options, line):
    """Per kernel (and "total"): the numbers that `line` (a pattern whose
    first group is the kernel) matches in the report of one step emulated
    with `options` (mpt-emulate-gpu options)."""
    out = subprocess.run(
        [run, program, "--entry=train_step", "--seed=1",
         "--emulate-gpu=" + options],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("mpt-run failed on %s:\n%s" % (program, out.stderr[-2000:]))
    return {m.group(1): tuple(int(g) for g in m.groups()[1:])
            for m in line.finditer(out.stderr)}


def traffic(run, program, options):
    """Per kernel (and "total"): launches, bytes loaded, bytes stored, load
    and store instructions of one step emulated for sm_90a with `options`
    (mpt-emulate-gpu options)."""
    return counts(run, program, "chip=sm_90a traffic=1 " + options, LINE)


BANKS = re.compile(r"mpt-emulate-gpu: banks: (\S+): (\d+) shared requests, "
                   r"(\d+) wavefronts, (\d+) of them bank conflicts")


def banks(run, program, options):
    """Per kernel (and "total"): shared memory requests, wavefronts and bank
    conflicts of one step emulated with `options` (mpt-emulate-gpu options,
    the chip included) and banks=1."""
    return counts(run, program, "banks=1 " + options, BANKS)
