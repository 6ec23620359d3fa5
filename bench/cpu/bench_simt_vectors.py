#!/usr/bin/env python3
"""Load and store instructions of GPU training steps, SIMT and reduction
threads that take 16-byte vectors of iterations versus one iteration a
thread, counted side by side by mpt's GPU emulator.

For the MLP and the transformer block, in fp32 and in mixed precision
(f16), this lowers the SGD training step for sm_90a as mpt-emulate-gpu
builds it, twice: with mpt-parallel-loops-to-gpu's default
(simt-vector-bytes=16: a thread of a SIMT kernel runs the iterations of
a 16-byte vector of the innermost dimension, and its accesses along it
are vector loads and stores; a thread of a whole-tensor reduction loads
its elements in such vectors; a thread of the tiled SIMT matmul, the
fp32 steps' matmuls, stages A and B, reads its shared slices and updates C
in vectors of 4 f32) and with simt-vector-bytes=1 (one iteration or
element a thread at a time, one element an access). mpt-run runs one step of each in the emulator with
traffic=1, which counts every kernel thread's load and store instructions
of device memory and their bytes (memref and vector loads and stores: the
SIMT kernels, row kernels and epilogues; the Tensor Core kernels'
cp.async / TMA / ldmatrix copies are not counted, and are the same in
both builds). Printed: the load and store instructions and the bytes
loaded of the kernels whose counts differ (the SIMT, SIMT matmul and
reduction kernels), of the whole
step, and the ratios. The launches and the bytes stored must be the same
in both builds, the bytes loaded no more with vectors (checked: a vector
moves what its elements did; a load that does not depend on the innermost
index, a loss scale, runs once for a thread's iterations).

Thread-level instructions, not DRAM transactions or time: a warp's
vector loads of 16 bytes a lane move 512 bytes an instruction where
scalar f16 loads move 64, which is what lets a memory-bound kernel reach
the bandwidth; the counts are exact and deterministic, so one run
suffices. bench/gpu's `mixedscalar` step times the difference on a GPU.

Usage: bench/cpu/bench_simt_vectors.py [--build build]
"""
import argparse
import sys

from emulated_steps import steps, traffic


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    print("%-18s %-6s %-6s %12s %12s %7s %12s %12s %7s" %
          ("example", "step", "count", "simt: scalar", "vectors",
           "ratio", "step: scalar", "vectors", "ratio"))
    for example, name, run, program in steps(args.build):
        scalar = traffic(run, program, "simt-vector-bytes=1")
        vector = traffic(run, program, "simt-vector-bytes=16")
        s, v = scalar["total"], vector["total"]
        if s[0] != v[0] or s[2] != v[2] or v[1] > s[1]:
            sys.exit("%s %s: launches, bytes loaded, bytes stored: "
                     "%s with one element an access, %s with "
                     "vectors" % (example, name, s[:3], v[:3]))
        simt = [k for k in scalar if k != "total" and
                scalar[k] != vector.get(k)]
        for i, what in [(3, "loads"), (4, "stores"), (1, "bytes")]:
            ks = sum(scalar[k][i] for k in simt)
            kv = sum(vector.get(k, (0,) * 5)[i] for k in simt)
            ts, tv = scalar["total"][i], vector["total"][i]
            print("%-18s %-6s %-6s %12d %12d %6.2fx %12d %12d %6.2fx" %
                  (example, name, what, ks, kv,
                   ks / kv if kv else float("inf"), ts, tv,
                   ts / tv if tv else float("inf")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
