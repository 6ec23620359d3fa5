"""in_place_epilogue.py gen DIR | check DIR TOLERANCE

A linear layer, its bias add read twice (by a ReLU and by a ReLU gradient)
and a second matmul, as in_place_epilogue.mlir computes it. `gen` writes
the inputs (x, w, b, w2) and the module; `check` compares the results
mpt-run wrote to DIR with float64 numpy: ||out - ref|| <= TOLERANCE ||ref||
for each.
"""
import os
import sys

import numpy as np

M, K, N, N2 = 64, 32, 64, 16
MODULE = f"""func.func @linear_relu(%x: tensor<{M}x{K}xf32>, %w: tensor<{K}x{N}xf32>,
                       %b: tensor<{N}xf32>, %w2: tensor<{N}x{N2}xf32>)
    -> (tensor<{M}x{N2}xf32>, tensor<{M}x{N}xf32>) {{
  %h = mpt.matmul %x, %w : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %p = mpt.add %h, %b : (tensor<{M}x{N}xf32>, tensor<{N}xf32>) -> tensor<{M}x{N}xf32>
  %r = mpt.relu %p : tensor<{M}x{N}xf32>
  %y = mpt.matmul %r, %w2 : (tensor<{M}x{N}xf32>, tensor<{N}x{N2}xf32>) -> tensor<{M}x{N2}xf32>
  %g = mpt.relu_grad %r, %p : tensor<{M}x{N}xf32>
  return %y, %g : tensor<{M}x{N2}xf32>, tensor<{M}x{N}xf32>
}}
"""


def main():
    mode, out = sys.argv[1], sys.argv[2]
    names = ["x", "w", "b", "w2"]
    if mode == "gen":
        os.makedirs(out, exist_ok=True)
        rng = np.random.default_rng(7)
        shapes = [(M, K), (K, N), (N,), (N, N2)]
        for name, shape in zip(names, shapes):
            np.save(os.path.join(out, name + ".npy"),
                    rng.standard_normal(shape).astype(np.float32))
        with open(os.path.join(out, "p.mlir"), "w") as f:
            f.write(MODULE)
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
