#!/usr/bin/env python3
"""Device memory traffic of GPU training steps, row values in registers
versus through memory, counted side by side by mpt's GPU emulator.

For the MLP and the transformer block, in fp32 and in mixed precision
(f16), this lowers the SGD training step for sm_90a as mpt-emulate-gpu
builds it, twice: with mpt-rows-to-gpu's default (a lane keeps the values
that a row kernel's ops pass on in registers, register-columns=8) and with
register-columns=0 (every op of a row kernel reads its operands from
memory). mpt-run runs one step of each in the emulator with traffic=1,
which counts the bytes every kernel's threads load from and store to device
memory (memref and vector loads and stores: the SIMT kernels, row kernels
and epilogues; the Tensor Core kernels' cp.async / TMA / ldmatrix copies
are not counted, and are the same in both builds). Printed: the bytes of
the kernels whose traffic differs (the row kernels), of the whole step,
and the ratios.

Thread-level bytes, not DRAM transactions: a warp's 32 loads of one
per-row value count 32 times, and caches are not modelled. The counts are
exact and deterministic (no timing), so one run suffices.

Usage: bench/cpu/bench_row_traffic.py [--build build]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"mpt-emulate-gpu: traffic: (\S+): (\d+) launches, "
                  r"(\d+) bytes loaded, (\d+) bytes stored")


def traffic(run, program, columns):
    out = subprocess.run(
        [run, program, "--entry=train_step", "--seed=1",
         "--emulate-gpu=chip=sm_90a traffic=1 register-columns=%d" % columns],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("mpt-run failed on %s:\n%s" % (program, out.stderr[-2000:]))
    kernels = {}
    for m in LINE.finditer(out.stderr):
        kernels[m.group(1)] = (int(m.group(2)), int(m.group(3)),
                               int(m.group(4)))
    return kernels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    opt = os.path.join(args.build, "bin", "mpt-opt")
    run = os.path.join(args.build, "bin", "mpt-run")
    variants = [("fp32", ["--mpt-build-train-step=optimizer=sgd lr=0.01"]),
                ("mixed", ["--mpt-amp-pipeline=type=f16 optimizer=sgd "
                           "lr=0.01"])]
    print("%-18s %-6s %-6s %14s %14s %7s %14s %14s %7s" %
          ("example", "step", "bytes", "rows: memory", "registers",
           "ratio", "step: memory", "registers", "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        for example in ["mlp", "transformer_block"]:
            for name, flags in variants:
                program = os.path.join(tmp, "%s_%s.mlir" % (example, name))
                subprocess.run([opt, os.path.join(root, "examples",
                                                  example + ".mlir"),
                                *flags, "-o", program], check=True,
                               stderr=subprocess.DEVNULL)
                memory = traffic(run, program, 0)
                registers = traffic(run, program, 8)
                rows = [k for k in memory if k != "total" and
                        memory[k] != registers.get(k)]
                for i, what in [(1, "loaded"), (2, "stored")]:
                    rm = sum(memory[k][i] for k in rows)
                    rr = sum(registers.get(k, (0, 0, 0))[i] for k in rows)
                    tm, tr = memory["total"][i], registers["total"][i]
                    print("%-18s %-6s %-6s %14d %14d %6.2fx %14d %14d %6.2fx" %
                          (example, name, what, rm, rr,
                           rm / rr if rr else float("inf"), tm, tr,
                           tm / tr if tr else float("inf")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
