"""in_place_epilogue.py gen DIR [TYPE N] | check DIR TOLERANCE

A linear layer, its bias add read twice (by a ReLU and by a ReLU gradient)
and a second matmul. `gen` writes the inputs (x, w, b, w2) and the module
(p.mlir), in TYPE (f32, the default, or f16: f32 accumulation, results
rounded to f16) with N columns (64 by default); `check` compares the
results mpt-run wrote to DIR with float64 numpy on the same inputs:
||out - ref|| <= TOLERANCE ||ref|| for each.
"""
import os
import sys

import numpy as np

M, K, N2 = 64, 32, 16


def module(t, N):
    acc = " acc(f32)" if t != "f32" else ""
    return f"""func.func @linear_relu(%x: tensor<{M}x{K}x{t}>, %w: tensor<{K}x{N}x{t}>,
                       %b: tensor<{N}x{t}>, %w2: tensor<{N}x{N2}x{t}>)
    -> (tensor<{M}x{N2}x{t}>, tensor<{M}x{N}x{t}>) {{
  %h = mpt.matmul %x, %w{acc} : (tensor<{M}x{K}x{t}>, tensor<{K}x{N}x{t}>) -> tensor<{M}x{N}x{t}>
  %p = mpt.add %h, %b : (tensor<{M}x{N}x{t}>, tensor<{N}x{t}>) -> tensor<{M}x{N}x{t}>
  %r = mpt.relu %p : tensor<{M}x{N}x{t}>
  %y = mpt.matmul %r, %w2{acc} : (tensor<{M}x{N}x{t}>, tensor<{N}x{N2}x{t}>) -> tensor<{M}x{N2}x{t}>
  %g = mpt.relu_grad %r, %p : tensor<{M}x{N}x{t}>
  return %y, %g : tensor<{M}x{N2}x{t}>, tensor<{M}x{N}x{t}>
}}
"""


def main():
    mode, out = sys.argv[1], sys.argv[2]
    names = ["x", "w", "b", "w2"]
    if mode == "gen":
        t = sys.argv[3] if len(sys.argv) > 3 else "f32"
        n = int(sys.argv[4]) if len(sys.argv) > 4 else 64
        os.makedirs(out, exist_ok=True)
        rng = np.random.default_rng(7)
        shapes = [(M, K), (K, n), (n,), (n, N2)]
        for name, shape in zip(names, shapes):
            np.save(os.path.join(out, name + ".npy"),
                    rng.standard_normal(shape).astype(np.dtype(
                        np.float16 if t == "f16" else np.float32)))
        with open(os.path.join(out, "p.mlir"), "w") as f:
            f.write(module(t, n))
        return
    tol = float(sys.argv[3])
    x, w, b, w2 = (np.load(os.path.join(out, n + ".npy")).astype(np.float64)
                   for n in names)
    p = x @ w + b
    r = np.maximum(p, 0)
    refs = [r @ w2, np.where(p > 0, r, 0)]
    ok = True
    for i, ref in enumerate(refs):
        got = np.load(os.path.join(out, f"result_{i}.npy")).astype(np.float64)
        err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        if got.shape != ref.shape or not err <= tol:
            print(f"result_{i}: relative error {err:.3g} > {tol}")
            ok = False
    if ok:
        print("results agree with numpy")


if __name__ == "__main__":
    main()
