"""A weight gradient and a bias gradient for the GPU emulator tests
(test/GPU/emulate-column-sums.test): the column sums of a matmul's B in
the matmul's kernel.

  column_sums.py gen DIR TYPE M N K [--transpose-b] [--accumulate]
      writes DIR/p.mlir: the f16/bf16 product A^T B (mpt.matmul transpose_a
      acc(f32), A given as K x M, as X of dW = X^T dY; or f32: the exact
      product, the tiled SIMT kernel's; or tf32: f32 operands, for runs
      with tf32=1), and the f32 sums of B's columns
      over K (mpt.cast and mpt.reduce_sum axes = [0], the bias gradient db
      of dY); with --transpose-b, B is given as N x K and
      transposed by mpt.transpose first; with --accumulate, the sums are a
      linalg.generic that adds them to 2 s (mpt.add of an input vector s to
      itself), not to zeros.
      Inputs DIR/{a,b,s}.npy.
  column_sums.py check DIR
      compares DIR/result_0.npy (the product) and DIR/result_1.npy (the
      sums) with float64 numpy references and prints "NAME: ok" or what is
      wrong.

Tolerances (relative error in the 2-norm): the product as in
emulate_gemm.py (2^-10 for f16, 2^-7 for bf16, 1e-6 for f32, 2^-9 for
tf32); the sums
1e-5: f32 sums of K values in another order than float64's.
"""
import json
import os
import sys

import numpy as np

from emulate_gemm import TOLERANCE, as_stored, check_results

SUMS_TOLERANCE = 1e-5


def gen(d, dtype, m, n, k, tb, accumulate):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(m * 7 + n * 5 + k * 3 + tb + 2 * accumulate)
    npy = np.float16 if dtype == "f16" else np.float32
    # tf32: f32 operands, checked with tf32's tolerance (run with tf32=1).
    f32 = dtype in ("f32", "tf32")
    if f32:
        config_dtype, dtype = dtype, "f32"
    else:
        config_dtype = dtype
    np.save(os.path.join(d, "a.npy"), rng.standard_normal([k, m]).astype(npy))
    np.save(os.path.join(d, "b.npy"),
            rng.standard_normal([n, k] if tb else [k, n]).astype(npy))
    np.save(os.path.join(d, "s.npy"),
            rng.standard_normal([n]).astype(np.float32))

    def t(shape, elem=dtype):
        return "tensor<%sx%s>" % ("x".join(map(str, shape)), elem)

    args = "%%a: %s, %%b: %s" % (t([k, m]), t([n, k] if tb else [k, n]))
    body = ""
    if accumulate:
        # (Before the matmul: the kernel computes the sums where it is.)
        args += ", %%s: %s" % t([n], "f32")
        body += "  %%init = mpt.add %%s, %%s : (%s, %s) -> %s\n" % (
            (t([n], "f32"),) * 3)
    b = "%b"
    if tb:
        body += "  %%bt = mpt.transpose %%b perm = [1, 0] : %s -> %s\n" % (
            t([n, k]), t([k, n]))
        b = "%bt"
    body += ("  %%r = mpt.matmul %%a, %s transpose_a acc(f32) : (%s, %s) -> %s\n"
             % (b, t([k, m]), t([k, n]), t([m, n])))
    if accumulate:
        # (The element added as it is, or extended to f32 first.)
        ext, e = "", "%x"
        if not f32:
            ext, e = "    %%e = arith.extf %%x : %s to f32\n" % dtype, "%e"
        body += (
            "  %%sums = linalg.generic {indexing_maps = [affine_map<(n, k) -> "
            "(k, n)>, affine_map<(n, k) -> (n)>], iterator_types = "
            "[\"parallel\", \"reduction\"]} ins(%s : %s) outs(%%init : %s) {\n"
            "  ^bb0(%%x: %s, %%acc: f32):\n"
            "%s"
            "    %%y = arith.addf %%acc, %s : f32\n"
            "    linalg.yield %%y : f32\n"
            "  } -> %s\n" % (b, t([k, n]), t([n], "f32"), dtype, ext, e,
                             t([n], "f32")))
    else:
        bf = b
        if not f32:
            body += "  %%bf = mpt.cast %s : %s to %s\n" % (
                b, t([k, n]), t([k, n], "f32"))
            bf = "%bf"
        body += ("  %%sums = mpt.reduce_sum %s axes = [0] : %s -> %s\n"
                 % (bf, t([k, n], "f32"), t([n], "f32")))
    results = "%s, %s" % (t([m, n]), t([n], "f32"))
    with open(os.path.join(d, "p.mlir"), "w") as f:
        f.write("func.func @grads(%s) -> (%s) {\n%s  func.return %%r, %%sums "
                ": %s\n}\n" % (args, results, body, results))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"dtype": config_dtype, "transpose_b": tb,
                   "accumulate": accumulate}, f)


def check(d):
    with open(os.path.join(d, "config.json")) as f:
        config = json.load(f)
    dtype, name = config["dtype"], os.path.basename(d)
    a = as_stored(np.load(os.path.join(d, "a.npy")), dtype)
    b = as_stored(np.load(os.path.join(d, "b.npy")), dtype)
    if config["transpose_b"]:
        b = b.T
    sums = b.sum(axis=0)
    if config["accumulate"]:
        sums = sums + 2 * np.load(os.path.join(d, "s.npy")).astype(np.float64)
    return check_results(d, name, [(as_stored(a.T @ b, dtype),
                                    TOLERANCE[dtype]),
                                   (sums, SUMS_TOLERANCE)])

if __name__ == "__main__":
    if sys.argv[1] == "gen":
        rest = sys.argv[2:]
        flags = {r for r in rest if r.startswith("--")}
        if flags - {"--transpose-b", "--accumulate"}:
            sys.exit("column_sums.py gen: unknown flags %s" % sorted(flags))
        rest = [r for r in rest if r not in flags]
        gen(rest[0], rest[1], *map(int, rest[2:5]),
            "--transpose-b" in flags, "--accumulate" in flags)
    else:
        print(check(sys.argv[2]))
