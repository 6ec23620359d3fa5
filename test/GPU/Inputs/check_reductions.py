"""Inputs and float64 references for split-reductions.test.

  check_reductions.py gen DIR
      writes DIR/{x,g,b,s,c,r,my,mb,mt}.npy: the arguments of @sum (x,
      784x128 f32), @check (g 784x128 f16, b 128 f32, s the scale),
      @columns (c, 512x256), @rows (r, 64x1024) and @mse (my, mb, mt) of
      Inputs/reductions.mlir
  check_reductions.py check DIR VARIANT K [KC KR KM]
      checks DIR/VARIANT_{sum,check,columns,rows,mse} (mpt-run output dirs)
      against float64 references, for a lowering whose f32 sum of the
      100352 elements takes K rounded additions per element at most (the
      sum of the stage lengths: 100352 for one sequential loop), its column
      and row sums KC and KR, and its sum of the 8192 squares of @mse KM
      (the squares themselves are computed in f32 here as the program does,
      one rounding per operation; the mean's division adds one more)

Bounds (u = 2^-24, f32 rounding): a recursive sum of n terms with at most
K additions on the path of each is within K u / (1 - K u) of sum |x|
(Higham, Accuracy and Stability of Numerical Algorithms, 4.2). The clip of
@check multiplies by min(1, 1 / (norm + 1e-6)), norm the square root of a
sum of squares (positive terms): relative error of the sum at most
(K + 131) u (the 128 bias terms, the combination, the squaring), of the
norm half that plus u, and the quotient and product add 3 u.
"""
import os
import sys

import numpy as np

U = 2.0**-24


def gen(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(7)
    np.save(os.path.join(d, "x.npy"),
            rng.standard_normal([784, 128]).astype(np.float32))
    np.save(os.path.join(d, "g.npy"),
            (1000 * rng.standard_normal([784, 128])).astype(np.float16))
    np.save(os.path.join(d, "b.npy"),
            (1000 * rng.standard_normal([128])).astype(np.float32))
    np.save(os.path.join(d, "s.npy"), np.array(1024.0, dtype=np.float32))
    np.save(os.path.join(d, "c.npy"),
            rng.standard_normal([512, 256]).astype(np.float32))
    np.save(os.path.join(d, "r.npy"),
            rng.standard_normal([64, 1024]).astype(np.float32))
    for name, shape in (("my", [64, 128]), ("mb", [128]), ("mt", [64, 128])):
        np.save(os.path.join(d, name + ".npy"),
                rng.standard_normal(shape).astype(np.float32))


def check(d, variant, k, axis_ks):
    load = lambda *p: np.load(os.path.join(d, *p))
    failed = False
    # @sum.
    x = load("x.npy").astype(np.float64)
    got = float(load(variant + "_sum", "result_0.npy"))
    err = abs(got - x.sum())
    bound = k * U / (1 - k * U) * np.abs(x).sum()
    print("%s sum: %s (error %.3g, bound %.3g)" %
          (variant, "ok" if err <= bound else "WRONG", err, bound))
    failed |= err > bound
    # @check, max_norm 1.
    inv = np.float32(1.0 / np.float64(load("s.npy")))
    ug = load("g.npy").astype(np.float32) * inv
    ub = load("b.npy").astype(np.float32) * inv
    norm = np.sqrt((ug.astype(np.float64)**2).sum() +
                   (ub.astype(np.float64)**2).sum())
    factor = min(1.0, 1.0 / (norm + 1e-6))
    rel = ((k + 131) / 2 + 4) * U
    for i, ref in enumerate((ug.astype(np.float64) * factor,
                             ub.astype(np.float64) * factor)):
        out = load(variant + "_check", "result_%d.npy" % i).astype(np.float64)
        worst = float(np.max(np.abs(out - ref) / np.abs(ref)))
        ok = worst <= rel
        failed |= not ok
        print("%s check result %d: %s (relative error %.3g, bound %.3g)" %
              (variant, i, "ok" if ok else "WRONG", worst, rel))
    flag = bool(load(variant + "_check", "result_2.npy"))
    failed |= flag
    print("%s check found_inf: %s" % (variant, "WRONG" if flag else "ok"))
    # @columns and @rows: each sum within its own bound.
    for name, arg, axis, ka in (("columns", "c.npy", 0, axis_ks[0]),
                                ("rows", "r.npy", 1, axis_ks[1])):
        if ka is None:
            continue
        x = load(arg).astype(np.float64)
        out = load(variant + "_" + name, "result_0.npy").astype(np.float64)
        err = np.abs(out - x.sum(axis=axis))
        bound = ka * U / (1 - ka * U) * np.abs(x).sum(axis=axis)
        ok = bool(np.all(err <= bound))
        failed |= not ok
        print("%s %s: %s (worst error / bound %.3g)" %
              (variant, name, "ok" if ok else "WRONG",
               float(np.max(err / bound))))
    if len(axis_ks) > 2 and axis_ks[2] is not None:
        km = axis_ks[2]
        diff = (load("my.npy") + load("mb.npy")) - load("mt.npy")  # f32
        sq = (diff * diff).astype(np.float64)
        got = float(load(variant + "_mse", "result_0.npy"))
        ref = sq.sum() / sq.size
        err, bound = abs(got - ref), (km + 1) * U / (1 - (km + 1) * U) * ref
        ok = err <= bound
        failed |= not ok
        print("%s mse: %s (error %.3g, bound %.3g)" %
              (variant, "ok" if ok else "WRONG", err, bound))
    return int(bool(failed))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        axis_ks = [int(a) for a in sys.argv[5:8]] or [None, None, None]
        sys.exit(check(sys.argv[2], sys.argv[3], int(sys.argv[4]), axis_ks))
