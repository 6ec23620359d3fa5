"""Attention's head merge read by matmuls in each operand position, for the
GPU emulator tests (test/GPU/emulate-head-merge.test).

  head_merge.py gen DIR TYPE B T H D
      writes DIR/p.mlir: @merge takes the context C ([B * H, T, D], as the
      attention's batched product leaves it) and merges its heads into M
      ([B * T, H * D]: rows of (batch, position), columns of (head, dim);
      mpt.reshape, mpt.transpose [0, 2, 1, 3], mpt.reshape), then returns
        r0 = M W      (M as A, K-major: the output projection)
        r1 = M^T X    (M as A^T, M-major: its weight gradient)
        r2 = X^T M    (M as B, N-major)
        r3 = the f32 sums of M's columns (a bias gradient of M, read as B
             by r2)
        r4 = Y M^T    (M as B^T, K-major)
      with f32 accumulation, r0, r1, r2 and r4 rounded to TYPE (f16 or
      bf16; or f32: exact f32 matmuls, the tiled SIMT kernel's). W is
      [H * D, 64], X [B * T, 48], Y [40, H * D]. Inputs DIR/{c,w,x,y}.npy.
  head_merge.py check DIR
      compares DIR/result_{0..4}.npy with float64 numpy references (the
      inputs as stored, the products rounded like the program) and prints
      "NAME: ok" or what is wrong.

Tolerances (relative error in the 2-norm): the products as in
emulate_gemm.py (2^-10 for f16, 2^-7 for bf16: one rounding of the result,
f32 sums in another order; 1e-6 for f32); the column sums 1e-5 (f32 sums
in another order than float64's).
"""
import json
import os
import sys

import numpy as np

from emulate_gemm import TOLERANCE, as_stored, check_results

SUMS_TOLERANCE = 1e-5
N_W, N_X, N_Y = 64, 48, 40


def gen(d, dtype, b, t, h, dh):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(b * 1000 + t * 100 + h * 10 + dh)
    npy = np.float16 if dtype == "f16" else np.float32
    acc = "" if dtype == "f32" else " acc(f32)"
    hd, bt = h * dh, b * t
    shapes = {"c": [b * h, t, dh], "w": [hd, N_W], "x": [bt, N_X],
              "y": [N_Y, hd]}
    for name, shape in shapes.items():
        np.save(os.path.join(d, name + ".npy"),
                rng.standard_normal(shape).astype(npy))

    def ty(shape, elem=dtype):
        return "tensor<%sx%s>" % ("x".join(map(str, shape)), elem)

    results = [ty([bt, N_W]), ty([hd, N_X]), ty([N_X, hd]), ty([hd], "f32"),
               ty([N_Y, bt])]
    lines = [
        "func.func @merge(%%c: %s, %%w: %s, %%x: %s, %%y: %s) -> (%s) {" % (
            ty(shapes["c"]), ty(shapes["w"]), ty(shapes["x"]),
            ty(shapes["y"]), ", ".join(results)),
        "  %%c4 = mpt.reshape %%c : %s to %s" % (ty(shapes["c"]),
                                                 ty([b, h, t, dh])),
        "  %%ct = mpt.transpose %%c4 perm = [0, 2, 1, 3] : %s -> %s" % (
            ty([b, h, t, dh]), ty([b, t, h, dh])),
        "  %%m = mpt.reshape %%ct : %s to %s" % (ty([b, t, h, dh]),
                                                 ty([bt, hd])),
        "  %%r0 = mpt.matmul %%m, %%w%s : (%s, %s) -> %s" % (
            acc, ty([bt, hd]), ty(shapes["w"]), results[0]),
        "  %%r1 = mpt.matmul %%m, %%x transpose_a%s : (%s, %s) -> %s"
        % (acc, ty([bt, hd]), ty(shapes["x"]), results[1]),
        "  %%r2 = mpt.matmul %%x, %%m transpose_a%s : (%s, %s) -> %s"
        % (acc, ty(shapes["x"]), ty([bt, hd]), results[2]),
        "  %%mf = mpt.cast %%m : %s to %s" % (ty([bt, hd]),
                                              ty([bt, hd], "f32")),
        "  %%r3 = mpt.reduce_sum %%mf axes = [0] : %s -> %s" % (
            ty([bt, hd], "f32"), results[3]),
        "  %%r4 = mpt.matmul %%y, %%m transpose_b%s : (%s, %s) -> %s"
        % (acc, ty(shapes["y"]), ty([bt, hd]), results[4]),
        "  func.return %%r0, %%r1, %%r2, %%r3, %%r4 : %s" % ", ".join(results),
        "}",
    ]
    if dtype == "f32":
        # (No cast to the type it has: the sums read M itself.)
        lines = [l for l in lines if not l.startswith("  %mf =")]
        lines = [l.replace("mpt.reduce_sum %mf", "mpt.reduce_sum %m")
                 for l in lines]
    with open(os.path.join(d, "p.mlir"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"dtype": dtype, "shape": [b, t, h, dh]}, f)


def check(d):
    with open(os.path.join(d, "config.json")) as f:
        config = json.load(f)
    dtype, name = config["dtype"], os.path.basename(d)
    b, t, h, dh = config["shape"]
    c, w, x, y = (as_stored(np.load(os.path.join(d, n + ".npy")), dtype)
                  for n in "cwxy")
    m = c.reshape(b, h, t, dh).transpose(0, 2, 1, 3).reshape(b * t, h * dh)
    tol = TOLERANCE[dtype]
    refs = [(as_stored(m @ w, dtype), tol), (as_stored(m.T @ x, dtype), tol),
            (as_stored(x.T @ m, dtype), tol), (m.sum(axis=0), SUMS_TOLERANCE),
            (as_stored(y @ m.T, dtype), tol)]
    return check_results(d, name, refs)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3], *map(int, sys.argv[4:8]))
    else:
        print(check(sys.argv[2]))
