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
import sys

from emulated_steps import steps, traffic


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    print("%-18s %-6s %-6s %14s %14s %7s %14s %14s %7s" %
          ("example", "step", "bytes", "rows: memory", "registers",
           "ratio", "step: memory", "registers", "ratio"))
    for example, name, run, program in steps(args.build):
        memory = traffic(run, program, "register-columns=0")
        registers = traffic(run, program, "register-columns=8")
        rows = [k for k in memory if k != "total" and
                memory[k][:3] != registers.get(k, ())[:3]]
        for i, what in [(1, "loaded"), (2, "stored")]:
            rm = sum(memory[k][i] for k in rows)
            rr = sum(registers.get(k, (0,) * 5)[i] for k in rows)
            tm, tr = memory["total"][i], registers["total"][i]
            print("%-18s %-6s %-6s %14d %14d %6.2fx %14d %14d %6.2fx" %
                  (example, name, what, rm, rr,
                   rm / rr if rr else float("inf"), tm, tr,
                   tm / tr if tr else float("inf")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
