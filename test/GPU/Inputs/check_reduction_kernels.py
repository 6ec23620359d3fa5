"""Inputs and float64 references for emulate-reductions.test.

  check_reduction_kernels.py gen DIR
      writes the arguments of the functions of Inputs/reduction_kernels.mlir
      to DIR/*.npy
  check_reduction_kernels.py check DIR VARIANT SMS
      checks the results in DIR/VARIANT_<function> (mpt-run output dirs) of
      a lowering for SMS streaming multiprocessors

Floating-point sums are checked against float64 references within the
bound for recursive summation (Higham, Accuracy and Stability of Numerical
Algorithms, 4.2): |error| <= K u / (1 - K u) sum |x|, K the most rounded
additions on the path of an element. mpt-reductions-to-gpu's kernel (G
blocks of T = 256 threads, G = min(ceil(N / (8 T)), 8 SMS)): a thread's
strided loop (ceil(N / (G T)) elements), the block's tree (log2 T), and with
several blocks the last block's loop over the G partial results
(ceil(G / T)) and its tree (log2 T); then the initial value (1). Products:
(N - 1) roundings of relative size u at most. Minima, maxima, integer sums
and the i1 "any" are exact.
"""
import math
import os
import sys

import numpy as np

T = 256


def gen(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(11)
    save = lambda name, a: np.save(os.path.join(d, name + ".npy"), a)
    save("big", rng.standard_normal(1 << 20).astype(np.float32))
    save("min3d", rng.standard_normal([16, 32, 48]).astype(np.float32))
    save("prod", (1 + 1e-3 * rng.standard_normal(4096)).astype(np.float32))
    x = rng.standard_normal([64, 512]).astype(np.float32)
    save("above_none", x)
    y = x.copy()
    y[63, 500] = 100.0  # the last rows: the last block's elements
    save("above_one", y)
    save("limit", np.full(512, 10.0, dtype=np.float32))
    ints = rng.integers(-10**9, 10**9, 100000).astype(np.int32)
    ints[-1] = 2 * 10**9  # in the partial last stride
    save("ints", ints)
    save("longs", rng.integers(-2**40, 2**40, 30000).astype(np.int64))
    save("long_init", np.array(12345, dtype=np.int64))
    save("halves", rng.random(2048).astype(np.float16))
    save("two", rng.standard_normal(65536).astype(np.float32))
    # Small integers: every product and partial sum is exact in f32.
    save("mx", rng.integers(-8, 9, [64, 32]).astype(np.float16))
    save("my", rng.integers(-8, 9, [32, 64]).astype(np.float32))
    save("ms", rng.integers(-8, 9, [64]).astype(np.float32))


def path(n, sms):
    g = min(math.ceil(n / (8 * T)), 8 * sms)
    k = math.ceil(n / (g * T)) + int(math.log2(T)) + 1
    if g > 1:
        k += math.ceil(g / T) + int(math.log2(T))
    return k


def check(d, variant, sms):
    load = lambda *p: np.load(os.path.join(d, *p))
    res = lambda fn, i=0: load(variant + "_" + fn, "result_%d.npy" % i)
    failed = False

    def report(name, ok, detail):
        nonlocal failed
        failed |= not ok
        print("%s: %s (%s)" % (name, "ok" if ok else "WRONG", detail))

    def summed(name, got, terms, u, extra=0):
        k = path(terms.size, sms) + extra
        err = abs(float(got) - terms.sum())
        bound = k * u / (1 - k * u) * np.abs(terms).sum()
        report(name, err <= bound, "error %.3g, bound %.3g, K %d" %
               (err, bound, k))

    u32, u16 = 2.0**-24, 2.0**-11
    summed("sum_big", res("sum_big"), load("big.npy").astype(np.float64), u32)
    x = load("min3d.npy")
    report("min_3d", res("min_3d") == x.min(), "exact")
    p = load("prod.npy").astype(np.float64)
    ref = np.prod(p)
    bound = (p.size - 1) * u32 * 1.01
    rel = abs(float(res("prod")) - ref) / abs(ref)
    report("prod", rel <= bound, "relative error %.3g, bound %.3g" %
           (rel, bound))
    report("any_above none", bool(res("any_above_none")) is False, "exact")
    report("any_above one", bool(res("any_above_one")) is True, "exact")
    report("max_i32", int(res("max_i32")) == int(load("ints.npy").max()),
           "exact")
    ref = int(load("longs.npy").sum()) + int(load("long_init.npy"))
    report("sum_i64", int(res("sum_i64")) == ref, "exact")
    summed("sum_f16", res("sum_f16").astype(np.float64),
           load("halves.npy").astype(np.float64), u16)
    x = load("two.npy").astype(np.float64)
    sq = (load("two.npy") * load("two.npy")).astype(np.float64)  # f32 squares
    summed("two squares", res("two", 0), sq, u32)
    report("two max", float(res("two", 1)) == np.abs(x).max(), "exact")
    mx, my, ms = (load(n + ".npy").astype(np.int64) for n in ("mx", "my", "ms"))
    ref = int((mx * my.T * ms[:, None]).sum())
    report("mixed_loads", int(res("mixed_loads")) == ref, "exact")
    return int(failed)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], int(sys.argv[4])))
