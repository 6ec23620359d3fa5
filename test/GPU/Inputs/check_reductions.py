"""Inputs and float64 references for split-reductions.test.

  check_reductions.py gen DIR
      writes DIR/{x,g,b,s}.npy: the arguments of @sum (x, 784x128 f32) and
      @check (g 784x128 f16, b 128 f32, s the scale) of
      Inputs/reductions.mlir
  check_reductions.py check DIR VARIANT K
      checks DIR/VARIANT_sum and DIR/VARIANT_check (mpt-run output dirs)
      against float64 references, for a lowering whose f32 sum of the
      100352 elements takes K rounded additions per element at most (the
      sum of the stage lengths: 100352 for one sequential loop)

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


def check(d, variant, k):
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
    return int(bool(failed))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], int(sys.argv[4])))
