"""numpy inputs and references for the mpt-run tests.

  reference.py gen CASE DIR          write the inputs of CASE to DIR/<name>.npy
  reference.py check CASE DIR        compare DIR/result_<i>.npy with numpy
  reference.py check-steps CASE OUT  compare the "step N: loss L" lines of the
                                     mpt-run output OUT with numpy

Prints "CASE: ok" on success; exits 1 with the mismatch otherwise.
"""
import os
import re
import sys

import numpy as np


def bf16_round(values):
    """float32 -> nearest bfloat16 (ties to even), returned as float32."""
    bits = np.atleast_1d(np.asarray(values, dtype=np.float32))
    bits = bits.view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    bits = (bits + np.uint64(0x7FFF) + ((bits >> sixteen) & np.uint64(1)))
    return (bits >> sixteen << sixteen).astype(np.uint32).view(np.float32)


def relu(x):
    return np.maximum(x, 0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# Each case: inputs(rng) -> {name: array}, in argument order, and
# reference(inputs) -> [(expected, rtol, atol)] per result.
def dense_relu_inputs(rng):
    return {
        "x": rng.standard_normal((4, 8)).astype(np.float32),
        "w": rng.standard_normal((8, 5)).astype(np.float32),
        "b": rng.standard_normal(5).astype(np.float32),
    }


def dense_relu_reference(a):
    x, w, b = (a[k].astype(np.float64) for k in ("x", "w", "b"))
    return [(relu(x @ w + b).astype(np.float32), 1e-5, 1e-6)]


def f16_inputs(rng):
    return {
        # Small integers: every sum of the matmul is exact in f16.
        "x": rng.integers(-3, 4, (4, 8)).astype(np.float16),
        "w": rng.integers(-3, 4, (8, 4)).astype(np.float16),
        "b": rng.integers(-3, 4, 4).astype(np.float16),
        "y": rng.standard_normal((3, 5)).astype(np.float16),
    }


def f16_reference(a):
    x, w, b, y = (a[k].astype(np.float64) for k in ("x", "w", "b", "y"))
    return [
        (relu(x @ w + b).astype(np.float16), 0, 0),
        # exp, add and divide each round to f16: a few ulps (2^-11 each).
        (sigmoid(y).astype(np.float16), 4e-3, 1e-3),
    ]


def bf16_inputs(rng):
    ulp = 2.0 ** -7  # of bf16 in [1, 2)
    x = np.array(
        [
            1.0 + ulp / 2,  # tie between 1 and 1 + ulp: to even, 1
            1.0 + 3 * ulp / 2,  # tie between 1 + ulp and 1 + 2 ulp: 1 + 2 ulp
            1.0 + ulp / 2 + 2.0 ** -20,  # just above the tie: 1 + ulp
            -2.5,
            3.14159265,
            0.0,
        ],
        dtype=np.float32,
    )
    return {"x": x}


def bf16_reference(a):
    x = a["x"]
    ulp = 2.0 ** -7
    expected = np.array(
        [1.0, 1.0 + 2 * ulp, 1.0 + ulp, 0.0, 3.140625, 0.0],
        dtype=np.float32,
    )
    assert np.array_equal(relu(bf16_round(x)), expected)
    return [(expected, 0, 0)]


def bf16_cast_inputs(rng):
    return {
        "y": np.array([1e-40, -3e-39, 1e-45, 1.5, -7.0e-39, 1.17e-38,
                       65504.0, 3.0e38], dtype=np.float32),
    }


def bf16_cast_reference(a):
    return [(bf16_round(a["y"]), 0, 0)]


def types_inputs(rng):
    return {
        "a": np.array(0.25, dtype=np.float64),
        "b": rng.integers(-100, 100, (1, 2, 1, 2, 1, 2)).astype(np.int32),
        "c": rng.integers(-(2**40), 2**40, (3, 2)).astype(np.int64),
    }


def types_reference(a):
    return [
        (a["b"].astype(np.float64) + a["a"], 0, 0),
        (a["b"].astype(np.int64).reshape(8), 0, 0),
        (a["c"].T.copy(), 0, 0),
    ]


def mlp_inputs(rng):
    def normal(*shape, scale=1.0):
        return (scale * rng.standard_normal(shape)).astype(np.float32)
    return {
        "x": normal(32, 784),
        "w1": normal(784, 128, scale=784 ** -0.5),
        "b1": normal(128, scale=0.1),
        "w2": normal(128, 10, scale=128 ** -0.5),
        "b2": normal(10, scale=0.1),
        "labels": rng.integers(0, 10, 32).astype(np.int64),
    }


def mlp_reference(a):
    x, w1, b1, w2, b2 = (a[k].astype(np.float64) for k in ("x", "w1", "b1", "w2", "b2"))
    logits = relu(x @ w1 + b1) @ w2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    log_softmax = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    loss = -np.mean(log_softmax[np.arange(32), a["labels"]])
    return [(np.array(loss, dtype=np.float32), 1e-5, 0)]


def steps_inputs(rng):
    return {
        "w": np.array([1.0, -2.0, 0.5, 3.0], dtype=np.float32),
        "x": np.array([0.5, 1.0, -1.0, 2.0], dtype=np.float32),
        "t": np.array([1.0, 0.0, -1.0, 0.5], dtype=np.float32),
    }


def repeated_results_inputs(rng):
    return {
        "x": rng.standard_normal((4, 8)).astype(np.float32),
        "w": rng.standard_normal((8, 8)).astype(np.float32),
    }


def repeated_results_reference(a):
    x, w = (a[k].astype(np.float64) for k in ("x", "w"))
    product = ((x @ w).astype(np.float32), 1e-5, 1e-6)
    tanh = (np.tanh(x).astype(np.float32), 1e-5, 1e-6)
    # The argument comes back bit for bit.
    return [product, product, tanh, tanh, (a["x"], 0, 0), tanh]


def loop_reference(a):
    """h <- tanh(h @ w), four times, from h = x."""
    h, w = (a[k].astype(np.float64) for k in ("x", "w"))
    for _ in range(4):
        h = np.tanh(h @ w)
    return [(h.astype(np.float32), 1e-5, 1e-6)]


CASES = {
    "dense_relu": (dense_relu_inputs, dense_relu_reference),
    "loop": (repeated_results_inputs, loop_reference),
    "repeated_results": (repeated_results_inputs, repeated_results_reference),
    "f16": (f16_inputs, f16_reference),
    "bf16": (bf16_inputs, bf16_reference),
    "bf16_cast": (bf16_cast_inputs, bf16_cast_reference),
    "types": (types_inputs, types_reference),
    "mlp": (mlp_inputs, mlp_reference),
    "steps": (steps_inputs, None),
}


def load_inputs(case, directory):
    names = CASES[case][0](np.random.default_rng(0)).keys()
    return {n: np.load(os.path.join(directory, n + ".npy")) for n in names}


def gen(case, directory):
    os.makedirs(directory, exist_ok=True)
    for name, value in CASES[case][0](np.random.default_rng(0)).items():
        np.save(os.path.join(directory, name + ".npy"), value)
    print(f"{case}: inputs written")
    return 0


def check(case, directory):
    expected = CASES[case][1](load_inputs(case, directory))
    for i, (want, rtol, atol) in enumerate(expected):
        got = np.load(os.path.join(directory, f"result_{i}.npy"))
        if got.dtype != want.dtype or got.shape != want.shape:
            print(f"{case}: result {i} is {got.dtype}{list(got.shape)}, "
                  f"expected {want.dtype}{list(want.shape)}")
            return 1
        if not np.allclose(got.astype(np.float64), want.astype(np.float64),
                           rtol=rtol, atol=atol):
            print(f"{case}: result {i} differs\n got {got}\n want {want}")
            return 1
    print(f"{case}: ok")
    return 0


def steps_reference(num_steps):
    """@step: loss = mean((w * x - t)^2), w <- w - 0.1 * w, in float32."""
    w, x, t = steps_inputs(None).values()
    losses = []
    for _ in range(num_steps):
        losses.append(np.mean((w * x - t) ** 2))
        w = w - np.float32(0.1) * w
    return losses


def check_steps(case, path):
    lines = open(path).read().splitlines()
    got = [float(m.group(2)) for m in
           (re.match(r"step (\d+): loss (\S+)", l) for l in lines) if m]
    want = steps_reference(len(got))
    if not got or not np.allclose(got, want, rtol=1e-6):
        print(f"{case}: losses {got}, expected {want}")
        return 1
    if len(set(got)) != len(got):
        print(f"{case}: the loss did not change between steps: {got}")
        return 1
    print(f"{case}: ok ({len(got)} steps)")
    return 0


def main(argv):
    if len(argv) != 4 or argv[1] not in ("gen", "check", "check-steps"):
        print(__doc__)
        return 2
    command, case, path = argv[1:]
    if command == "check-steps":
        return check_steps(case, path)
    return {"gen": gen, "check": check}[command](case, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
