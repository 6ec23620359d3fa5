"""Random GEMMs through every matmul kernel of the GPU pipeline, run by the
GPU emulator and checked against numpy (test/GPU/emulate-gemm-sweep.test).

  gemm_sweep.py MPT_RUN DIR --cases N --seed S

Draws N cases from a generator seeded with S (so a run is reproducible, and
another seed is another sample): a chip from sm_70 to sm_90a; f16, bf16, f32
or tf32 operands; M, N and K from small odd sizes, multiples of 8 and of 64,
and sizes up to 320 (so that tiles are partial, vectors narrow and K steps
are ragged); sometimes a batch (one or two batch dimensions), transposed
operands, the bias + relu epilogue or an f32 C that the product is added
to; and kernel options: pipeline stages, explicit block and warp tiles
(valid or not: an invalid one must fall back with a remark, not fail),
group-m, the warp-specialized, persistent and ping-pong wgmma kernels with
few SMs (so that a persistent block takes several tiles), clusters of two
blocks sharing B's tiles (cluster-m=2, drawn from a second generator so
that the rest of each case is what it was without it) or A's (cluster-n=2,
from a third; both: clusters of 2 x 2), the TMA store epilogue
(tma-store=1, from the third), an emulated device whose SM count differs
from the one the persistent kernels were compiled for (device-sms, from a
fourth: their grids follow the device at run time), the SIMT kernel's
vector width. Each case is written by emulate_gemm.py gen, lowered and run
by `MPT_RUN --emulate-gpu=...` and compared by emulate_gemm.py check with its
tolerances (a tf32 case that a SIMT kernel computes, exactly, against the
exact f32 reference). Every case also counts its kernels' shared memory
bank conflicts (banks=1). Prints one line per failing case with the command
that reproduces it, and one per case with bank conflicts (with the accesses
that have them), then how many cases took each kernel, "bank conflicts in
K of N cases" and "N cases, all correct" or "K of N cases failed" (exit
status 1).
"""
import os
import re
import shlex
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import emulate_gemm  # noqa: E402
import sweep  # noqa: E402

CHIPS = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"]
# The kernel a remark names; the first pattern that matches wins.
KERNELS = [("wgmma clusters",
            re.compile(r"on Tensor Cores: wgmma.*clusters of \d x \d blocks")),
           ("wgmma", re.compile(r"on Tensor Cores: wgmma")),
           ("mma.sync tf32", re.compile(r"on Tensor Cores: mma.sync m16n8k8")),
           ("mma.sync", re.compile(r"on Tensor Cores: mma.sync")),
           ("wmma", re.compile(r"on Tensor Cores: WMMA")),
           ("tiled SIMT", re.compile(r"tiled SIMT kernel")),
           ("SIMT loops", re.compile(r"not on Tensor Cores"))]
# Largest multiply-adds of a case, to keep the emulation short.
MAX_MACS = 3_000_000


def size(rng):
    kind = rng.integers(4)
    if kind == 0:
        return int(rng.integers(1, 41))
    if kind == 1:
        return 8 * int(rng.integers(1, 33))
    if kind == 2:
        return 64 * int(rng.integers(1, 6))
    return int(rng.integers(1, 321))


def draw(rng, cluster_rng, cluster_n_rng, device_rng):
    """One case: (chip, dtype, m, n, k, gen flags, emulate-gpu options)."""
    clustered = cluster_rng.random() < 0.4
    clustered_n = cluster_n_rng.random() < 0.3
    tma_store = cluster_n_rng.random() < 0.25
    device_sms = int(device_rng.integers(1, 8)) if device_rng.random() < 0.5 \
        else 0
    # sm_90a twice as often: its wgmma kernels have the most variants.
    chip = (CHIPS + ["sm_90a"])[rng.integers(len(CHIPS) + 1)]
    sm = int(chip[3:5])
    dtype = ["f16", "bf16", "f32", "tf32"][rng.choice(4, p=[.45, .3, .1, .15])]
    epilogue = rng.random()
    epilogue_kind = ("bias-relu" if epilogue < 0.2 and dtype in ("f16", "bf16")
                     else "accumulate" if epilogue < 0.35 else "")
    aligned = rng.random() < 0.75
    # WMMA (sm_70, sm_75) takes only shapes its tiles divide.
    align = 16 if rng.random() < 0.5 else 8
    while True:
        m, n, k = size(rng), size(rng), size(rng)
        if aligned:
            # Tensor Core shapes: N and K multiples of 8 or 16 (M too for 16).
            n, k = -(-n // align) * align, -(-k // align) * align
            if align == 16:
                m = -(-m // align) * align
        batch = ""
        if rng.random() < 0.2:
            batch = str(int(rng.integers(1, 4)))
            if rng.random() < 0.3 and epilogue_kind != "accumulate":
                batch += "x2"  # linalg.batch_matmul has one batch dimension
        lead = int(np.prod([int(b) for b in batch.split("x")])) if batch else 1
        if m * n * k * lead <= MAX_MACS:
            break
    flags = []
    if batch:
        flags += ["--batch", batch]
    if epilogue_kind:
        flags.append("--" + epilogue_kind)
    else:
        if rng.random() < 0.25:
            flags.append("--transpose-a")
        if rng.random() < 0.25:
            flags.append("--transpose-b")
    options = ["chip=" + chip]
    if dtype == "tf32":
        options.append("tf32=1")
    if sm >= 80 and rng.random() < 0.3:
        options.append("stages=%d" % rng.integers(1, 5))
    if rng.random() < 0.2:
        options.append("group-m=%d" % [1, 2, 3, 8][rng.integers(4)])
    if rng.random() < 0.15:
        block, warp = [("128x128x32", "64x64"), ("64x64x32", "32x32"),
                       ("64x32x16", "32x16"), ("128x256x64", "64x128"),
                       ("128x128x64", "64x64"), ("48x40x24", "16x8")][
                           rng.integers(6)]
        options += ["block-tile=" + block, "warp-tile=" + warp]
    if chip == "sm_90a" and rng.random() < 0.5:
        variant = rng.integers(3)
        options.append(["warp-specialize=1", "persistent=1",
                        "pingpong=1"][variant])
        if variant and rng.random() < 0.7:
            options.append("sms=%d" % rng.integers(1, 5))
    if chip == "sm_90a" and clustered:
        options.append("cluster-m=2")
    if chip == "sm_90a" and clustered_n:
        options.append("cluster-n=2")
    if chip == "sm_90a" and tma_store:
        options.append("tma-store=1")
    if chip == "sm_90a" and device_sms:
        options.append("device-sms=%d" % device_sms)
    if dtype == "f32" and rng.random() < 0.3:
        options.append("simt-vector-bytes=%d" % [1, 4, 8][rng.integers(3)])
    return chip, dtype, m, n, k, flags, options


def main():
    args = sweep.parse_args("mpt_run")
    rng = np.random.default_rng(args.seed)
    cluster_rng = np.random.default_rng([args.seed, 2])
    cluster_n_rng = np.random.default_rng([args.seed, 3])
    device_rng = np.random.default_rng([args.seed, 4])
    here = os.path.abspath(__file__)
    failed, conflicted, taken = 0, 0, {}
    for i in range(args.cases):
        chip, dtype, m, n, k, flags, options = draw(rng, cluster_rng,
                                                    cluster_n_rng, device_rng)
        d = os.path.join(args.dir, "case%d" % i)
        gen = [sys.executable, os.path.join(os.path.dirname(here),
                                            "emulate_gemm.py"),
               "gen", d, dtype, str(m), str(n), str(k)] + flags
        subprocess.run(gen, check=True)
        inputs = ["a", "b"]
        if "--bias-relu" in flags:
            inputs.append("bias")
        if "--accumulate" in flags:
            inputs.append("c")
        run = [args.mpt_run, os.path.join(d, "p.mlir")]
        run += ["--input=" + os.path.join(d, x + ".npy") for x in inputs]
        run += ["--emulate-gpu=" + " ".join(options + ["banks=1"]),
                "--output-dir=" + d]
        out = subprocess.run(run, capture_output=True, text=True)
        kernel = next((name for name, pattern in KERNELS
                       if pattern.search(out.stderr)), "no remark")
        taken[kernel] = taken.get(kernel, 0) + 1
        if dtype == "tf32" and kernel != "mma.sync tf32":
            # Exact f32 where tf32 Tensor Cores do not take the matmul.
            emulate_gemm.set_dtype(d, "f32")
        if out.returncode != 0:
            ok, line = False, "mpt-run exited with %d: %s" % (
                out.returncode, out.stderr.strip().splitlines()[-1:])
        else:
            ok, line = emulate_gemm.check(d)
        conflicted += sweep.bank_conflicts(
            i, "%s %s %dx%dx%d %s %s" % (chip, dtype, m, n, k, " ".join(flags),
                                         " ".join(options)), out.stderr)
        if not ok:
            failed += 1
            print("FAILED case %d (%s %s %dx%dx%d %s): %s\n  %s\n  %s"
                  % (i, chip, dtype, m, n, k, " ".join(flags), line,
                     shlex.join(gen), shlex.join(run)), flush=True)
    for name, _ in KERNELS + [("no remark", None)]:
        if name in taken:
            print("kernel %s: %d cases" % (name, taken[name]))
    print("bank conflicts in %d of %d cases" % (conflicted, args.cases))
    sweep.finish(failed, args.cases, "all correct")


if __name__ == "__main__":
    main()
