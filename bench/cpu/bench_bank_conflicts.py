#!/usr/bin/env python3
"""Shared memory wavefronts of GPU training steps against the wavefronts
they would take without bank conflicts, counted by mpt's GPU emulator.

For the MLP and the transformer block, in fp32 and in mixed precision
(f16), this lowers the SGD training step as mpt-emulate-gpu builds it for
sm_70 (WMMA), sm_80 (mma.sync) and sm_90a (wgmma; also with the persistent
kernels' TMA store epilogue, tma-store=1), runs one step of each with
banks=1 and prints, for the whole step: the shared memory requests of its
warps (memref and vector loads and stores, ldmatrix, the shared side of
cp.async; not wmma.load/store, wgmma or TMA), their wavefronts, how many
of them are bank conflicts, and the ratio of the wavefronts to the
conflict-free ones (1.00x: none), with the kernel that has the most
conflicts. The counts follow the banking of Volta and later (32 banks of
4 bytes; 8- and 16-byte accesses by half- and quarter-warps; see
include/mpt/Runtime/SharedBanks.h); they are exact and deterministic, so
one run suffices. What a conflict costs in time is for a GPU to say.

Usage: bench/cpu/bench_bank_conflicts.py [--build build]
"""
import argparse
import sys

from emulated_steps import banks, steps

BUILDS = [("sm_70", "chip=sm_70"), ("sm_80", "chip=sm_80"),
          ("sm_90a", "chip=sm_90a"),
          ("sm_90a tma", "chip=sm_90a persistent=1 tma-store=1")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    print("%-18s %-6s %-11s %9s %11s %10s %7s  %s" %
          ("example", "step", "build", "requests", "wavefronts", "conflicts",
           "ratio", "most conflicts"))
    for example, name, run, program in steps(args.build):
        for build, options in BUILDS:
            counts = banks(run, program, options)
            requests, wavefronts, conflicts = counts["total"]
            worst = max((k for k in counts if k != "total"),
                        key=lambda k: counts[k][2], default=None)
            print("%-18s %-6s %-11s %9d %11d %10d %6.2fx  %s" %
                  (example, name, build, requests, wavefronts, conflicts,
                   wavefronts / (wavefronts - conflicts),
                   worst if worst and counts[worst][2] else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
