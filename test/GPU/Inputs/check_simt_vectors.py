"""Inputs and references for emulate-simt-vectors.test.

  check_simt_vectors.py gen DIR
      writes the arguments of the functions of Inputs/simt_vectors.mlir to
      DIR/<function>_<i>.npy
  check_simt_vectors.py check DIR VARIANT
      checks the results in DIR/VARIANT_<function> (mpt-run output dirs)

Every result is exact (casts, copies, integer-valued sums, products by
powers of two and sums of values on a coarse grid, wrapping i32 adds), so
each is compared for equality with numpy's: an element of a thread's
vector taken from the wrong column, a vector that starts at the wrong
iteration, a thread's iterations not all run, or a value that ran once
where it should have run per iteration shows.
"""
import os
import sys

import numpy as np

FUNCTIONS = ["cast", "head_merge", "transpose", "column_sum", "scale_bias",
             "rows_of_six", "seven", "doubles", "ints", "slice"]


def arguments(rng):
    grid = lambda shape, n: (rng.integers(-n, n, shape) / 8).astype(np.float32)
    return {
        "cast": [rng.standard_normal([64, 256]).astype(np.float32)],
        "head_merge": [rng.standard_normal([4, 4, 16, 16]).astype(np.float16)],
        "transpose": [rng.standard_normal([64, 32]).astype(np.float32)],
        "column_sum": [rng.integers(-8, 9, [64, 256]).astype(np.float16)],
        "scale_bias": [grid([64, 64], 1000), np.array(0.5, np.float32),
                       grid([64], 1000)],
        "rows_of_six": [rng.standard_normal([5, 6]).astype(np.float32)],
        "seven": [rng.standard_normal([7]).astype(np.float32)],
        "doubles": [rng.standard_normal([24])],
        "ints": [rng.integers(-2**31, 2**31, [4, 96]).astype(np.int32)],
        "slice": [rng.standard_normal([8, 10]).astype(np.float32)],
    }


def references(args):
    x = {f: a[0] for f, a in args.items()}
    s, b = args["scale_bias"][1], args["scale_bias"][2]
    return {
        "cast": x["cast"].astype(np.float16),
        "head_merge": x["head_merge"].transpose(0, 2, 1, 3),
        "transpose": x["transpose"].T,
        "column_sum": x["column_sum"].astype(np.float32).sum(axis=0),
        "scale_bias": x["scale_bias"] * s + b[None, :],
        "rows_of_six": x["rows_of_six"] * np.float32(2),
        "seven": x["seven"] * np.float32(2),
        "doubles": x["doubles"] * 3.0,
        "ints": (x["ints"].astype(np.int64) + 2000000000).astype(np.int32),
        "slice": x["slice"][:, 2:10] * np.float32(2),
    }


def gen(d):
    os.makedirs(d, exist_ok=True)
    for f, args in arguments(np.random.default_rng(31)).items():
        for i, a in enumerate(args):
            np.save(os.path.join(d, "%s_%d.npy" % (f, i)), a)


def check(d, variant):
    args = {f: [np.load(os.path.join(d, "%s_%d.npy" % (f, i)))
                for i in range(3) if os.path.exists(
                    os.path.join(d, "%s_%d.npy" % (f, i)))]
            for f in FUNCTIONS}
    failed = False
    for f, ref in references(args).items():
        got = np.load(os.path.join(d, "%s_%s" % (variant, f), "result_0.npy"))
        ok = got.shape == ref.shape and np.array_equal(
            got.astype(ref.dtype), ref)
        failed |= not ok
        if ok:
            print("%s: ok" % f)
        else:
            wrong = (np.argwhere(got.astype(ref.dtype) != ref)
                     if got.shape == ref.shape else "shape %s" % (got.shape,))
            print("%s: WRONG at %s" % (f, wrong[:4]))
    return int(failed)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
