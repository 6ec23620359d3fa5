"""compare_results.py REF_DIR OUT_DIR TOLERANCE

Compares every result_<i>.npy of OUT_DIR with the one of REF_DIR: the
difference in the 2-norm must not exceed TOLERANCE times the reference's
norm plus 1e-6 (a floor for results that are rounding noise: in the
transformer block, the gradient of the key projection's bias is zero in
exact arithmetic, since softmax ignores a shift of its rows, and its update
is noise of order 1e-9), and OUT_DIR's results must be finite. Prints one
summary line, or one line per result that differs.
"""
import glob
import os
import sys

import numpy as np

ref_dir, out_dir, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
names = sorted(glob.glob(os.path.join(ref_dir, "result_*.npy")))
worst, bad = 0.0, []
for path in names:
    name = os.path.basename(path)
    ref = np.load(path).astype(np.float64)
    out = np.load(os.path.join(out_dir, name)).astype(np.float64)
    if out.shape != ref.shape or not np.isfinite(out).all():
        bad.append("%s: shape %s, %d non-finite" %
                   (name, out.shape, (~np.isfinite(out)).sum()))
        continue
    norm = np.linalg.norm(ref)
    diff = np.linalg.norm(out - ref)
    if diff > tol * norm + 1e-6:
        diff /= norm if norm else 1.0
        bad.append("%s: relative difference %.3g" % (name, diff))
        continue
    if norm > 1e-4:
        worst = max(worst, diff / norm)
if not names:
    print("no results in", ref_dir)
elif bad:
    print("\n".join(bad))
else:
    print("%d results agree (largest relative difference of results of norm "
          "> 1e-4: %.2g, tolerance %g)"
          % (len(names), worst, tol))
