"""Inputs and references for emulate-row-types.test.

  check_row_kernels.py gen DIR
      writes the arguments of the functions of Inputs/row_kernels.mlir to
      DIR/*.npy
  check_row_kernels.py check DIR VARIANT
      checks the results in DIR/VARIANT_<function> (mpt-run output dirs)

Every reduction here is exact whatever the order of its combinations
(integer sums, maxima, minima, "any", the chains t = 3 x, s = the row
sums of t, d = t - s, and m = the row maxima of x, then the sums of x - m),
so each result is compared for equality with
numpy's; a lane's value lost or taken twice in the shuffles, a 64-bit
value's word dropped, a warp's slot misread, or a value passed on in
registers from the wrong column or step shows.
"""
import os
import sys

import numpy as np


def gen(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(23)
    save = lambda name, a: np.save(os.path.join(d, name + ".npy"), a)
    # Both words of every element matter: values up to 2^50, both signs.
    save("longs", rng.integers(-2**50, 2**50, [7, 300]).astype(np.int64))
    doubles = rng.standard_normal([5, 12])
    doubles[3, 11] = 1e300  # the last lane of a team that shares its warp
    save("doubles", doubles)
    x = rng.uniform(-1, 1, [9, 100]).astype(np.float32)
    for row, col in [(0, 0), (4, 99), (8, 7)]:
        x[row, col] = 3.0  # rows 0, 4 and 8 have one element above 2
    save("above", x)
    h = rng.standard_normal([6, 704]).astype(np.float16)
    h[5, 703] = -60000.0  # the last column: the last warp of the last team
    save("halves", h)
    save("ints", rng.integers(-2**31, 2**31 - 1, [3, 6]).astype(np.int32))
    save("chain", rng.integers(-2**40, 2**40, [5, 100]).astype(np.int64))
    save("chain_long", rng.integers(-2**38, 2**38, [3, 3000]).astype(np.int64))


def check(d, variant):
    load = lambda *p: np.load(os.path.join(d, *p))
    res = lambda fn, i=0: load(variant + "_" + fn, "result_%d.npy" % i)
    failed = False

    def report(name, got, ref):
        nonlocal failed
        ok = got.shape == ref.shape and np.array_equal(got, ref)
        failed |= not ok
        print("%s: %s" % (name, "ok" if ok else "WRONG\n  got %s\n  ref %s" %
                          (got, ref)))

    report("sum_i64_wide", res("sum_i64_wide"),
           load("longs.npy").sum(axis=1) + (2**40 + 5))
    report("max_f64", res("max_f64"), load("doubles.npy").max(axis=1))
    report("any_above", res("any_above").astype(bool),
           (load("above.npy") > 2).any(axis=1))
    report("min_f16_wide", res("min_f16_wide").astype(np.float16),
           load("halves.npy").min(axis=1))
    report("max_i32", res("max_i32"), load("ints.npy").max(axis=1))
    for fn, name, kept in [("chain_short", "chain", False),
                           ("chain_kept", "chain", True),
                           ("chain_long", "chain_long", False)]:
        t = 3 * load(name + ".npy")
        s = t.sum(axis=1)
        refs = ([t] if kept else []) + [(t - s[:, None]).astype(np.float64),
                                        s]
        for i, ref in enumerate(refs):
            report("%s #%d" % (fn, i), res(fn, i), ref)
    x = load("longs.npy")
    m = x.max(axis=1)
    report("two_wide #0", res("two_wide", 0), m)
    report("two_wide #1", res("two_wide", 1), (x - m[:, None]).sum(axis=1))
    return int(failed)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
