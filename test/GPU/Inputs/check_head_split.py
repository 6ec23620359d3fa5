"""check_head_split.py MPT_RUN MLIR WORK [--shape=B,T,H,D] [--emulate-gpu=OPTIONS]

Runs @attention of head_split.mlir (batch 2, sequence 40, 2 heads of 32;
or of another file with the shape that --shape gives, such as
head_merge64.mlir's 2,64,2,64) (mpt-run, on the CPU or in the GPU
emulator) on fresh random f16 inputs and compares its three results with a
float64 numpy reference that rounds to f16 where the program does (after
each matmul): the relative 2-norm error must stay below 1e-3 (a few f16
roundings, 2^-11 each, and f32 accumulation in another order). Prints one
line per result.
"""
import os
import subprocess
import sys

import numpy as np

mpt_run, mlir, work = sys.argv[1:4]
extra = sys.argv[4:]
B, T, H, D = 2, 40, 2, 32
for arg in list(extra):
    if arg.startswith("--shape="):
        B, T, H, D = (int(x) for x in arg[len("--shape="):].split(","))
        extra.remove(arg)
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(11)
args = [rng.uniform(-1, 1, (B * T, H * D)).astype(np.float16) for _ in range(3)]
args.append((rng.uniform(-1, 1, (H * D, H * D)) / 8).astype(np.float16))
paths = []
for i, a in enumerate(args):
    paths.append(os.path.join(work, "arg%d.npy" % i))
    np.save(paths[-1], a)
out_dir = os.path.join(work, "out")
subprocess.run([mpt_run, mlir, "--entry=attention", "--output-dir=" + out_dir]
               + ["--input=" + p for p in paths] + extra, check=True,
               stdout=subprocess.DEVNULL)

f16 = lambda x: x.astype(np.float16).astype(np.float64)
q, k, v, w = (a.astype(np.float64) for a in args)
heads = lambda x: x.reshape(B, T, H, D).transpose(0, 2, 1, 3).reshape(B * H, T, D)
s = f16(heads(q) @ heads(k).transpose(0, 2, 1))
ctx = f16(s @ heads(v))
merged = ctx.reshape(B, H, T, D).transpose(0, 2, 1, 3).reshape(B * T, H * D)
out = f16(merged @ w)
db = merged.sum(axis=0)
ok = True
for i, ref in enumerate([s, out, db]):
    got = np.load(os.path.join(out_dir, "result_%d.npy" % i)).astype(np.float64)
    err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
    good = got.shape == ref.shape and err < 1e-3
    ok &= good
    print("result %d: relative error %.1e %s" % (i, err, "ok" if good else "TOO LARGE"))
sys.exit(0 if ok else 1)
