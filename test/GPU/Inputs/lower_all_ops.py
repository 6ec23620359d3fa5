#!/usr/bin/python3
"""Lowers one function per mpt op (the cases of op_numerics.py, f16 where the
op takes it) with mpt-lower-to-nvvm, and, with --ptxas, assembles every
kernel. Prints `N ops lowered, M kernels assembled, K failures` and the
failures."""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Integration", "Inputs"))
import op_numerics  # noqa: E402  pylint: disable=wrong-import-position


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpt-opt", required=True)
    parser.add_argument("--extract", required=True)
    parser.add_argument("--ptxas")
    parser.add_argument("--chip", default="sm_80")
    args = parser.parse_args()
    seen, failures, lowered, assembled = set(), [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in op_numerics.CASES:
            op = case.name.split()[0]
            if op in seen:
                continue
            seen.add(op)
            dt = "f16" if "f16" in case.dtypes else case.dtypes[0]
            src = os.path.join(tmp, op + ".mlir")
            out = os.path.join(tmp, op + ".nvvm.mlir")
            with open(src, "w") as f:
                f.write(op_numerics.make_module(case, dt))
            proc = subprocess.run(
                [args.mpt_opt, src, f"--mpt-lower-to-nvvm=chip={args.chip}",
                 "-o", out], capture_output=True, text=True)
            if proc.returncode:
                failures.append(f"{op}: {proc.stderr.strip().splitlines()[0]}")
                continue
            lowered += 1
            if not args.ptxas:
                continue
            kernels = os.path.join(tmp, op)
            # Some ops need no kernel (a constant, a reshape of a buffer).
            subprocess.run([sys.executable, args.extract, out, kernels],
                           capture_output=True)
            if not os.path.isdir(kernels):
                continue
            for name in sorted(os.listdir(kernels)):
                proc = subprocess.run(
                    [args.ptxas, f"-arch={args.chip}",
                     os.path.join(kernels, name), "-o",
                     os.path.join(kernels, name + ".cubin")],
                    capture_output=True, text=True)
                if proc.returncode:
                    failures.append(f"{op} {name}: {proc.stderr.strip()}")
                    break
                assembled += 1
    print(f"{lowered} ops lowered, {assembled} kernels assembled, "
          f"{len(failures)} failures")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
