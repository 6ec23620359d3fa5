"""GEMMs for the GPU emulator tests (test/GPU/emulate-gemm.test).

  emulate_gemm.py gen DIR TYPE M N K [--batch B[xB2]]
                    [--bias-relu | --accumulate | --zero-start]
                    [--transpose-a] [--transpose-b] [--twice]
      writes DIR/p.mlir (mpt.matmul / mpt.batch_matmul acc(f32), optionally
      followed by a bias add and a relu; with --accumulate, linalg.matmul /
      linalg.batch_matmul adding the product to an f32 input C; with
      --zero-start, the same into a linalg.fill of zeros: an f32 A B) and its
      inputs DIR/{a,b,bias,c}.npy; with --transpose-a (-b) the matmul has
      transpose_a (transpose_b) and a.npy holds A^T, K x M (b.npy B^T, N x K);
      --batch 2x3 gives two batch dimensions; --twice multiplies a second A
      (a2.npy) by the same B too, a second result
  emulate_gemm.py check DIR
      compares DIR/result_0.npy with a float64 numpy reference and prints
      "ok" or the error

The reference takes the inputs as the program sees them (bf16 rounded to
nearest even; tf32 operands rounded like cvt.rna), multiplies in float64 and
rounds like the program (the f16/bf16 product, then bias and relu in f32
rounded once). Tolerance: relative error in the 2-norm, 2^-10 for f16
results, 2^-7 for bf16, 2^-9 for f32 results of tf32 operands, 1e-6 for
exact f32 and for the f32 C + A B of --accumulate and A B of --zero-start
(the kernels' f32 sums differ from float64 in order only).
"""
import json
import os
import sys

import numpy as np

TOLERANCE = {"f16": 2.0**-10, "bf16": 2.0**-7, "tf32": 2.0**-9, "f32": 1e-6,
             "accumulate": 1e-6}


def round_bf16(x):
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def round_tf32(x):
    """cvt.rna.tf32.f32: 10 mantissa bits, ties away from zero."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x1000) & 0xFFFFE000
    return bits.astype(np.uint32).view(np.float32)


def as_stored(x, dtype):
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        return round_bf16(x).astype(np.float64)
    return x.astype(np.float32).astype(np.float64)


def gen(d, dtype, m, n, k, batch, bias_relu, accumulate, ta=False, tb=False,
        twice=False, zero_start=False):
    os.makedirs(d, exist_ok=True)
    lead = [int(b) for b in batch.split("x")] if batch else []
    rng = np.random.default_rng(m * 7 + n * 5 + k * 3 +
                                (int(np.prod(lead)) if lead else 0))
    elem = "f32" if dtype in ("f32", "tf32") else dtype
    a = rng.standard_normal(lead + ([k, m] if ta else [m, k]))
    b = rng.standard_normal(lead + ([n, k] if tb else [k, n]))
    bias = rng.standard_normal([n])
    npy = np.float16 if elem == "f16" else np.float32
    for name, v in (("a", a), ("b", b), ("bias", bias)):
        np.save(os.path.join(d, name + ".npy"), v.astype(npy))
    np.save(os.path.join(d, "c.npy"),
            rng.standard_normal(lead + [m, n]).astype(np.float32))
    if twice:
        np.save(os.path.join(d, "a2.npy"),
                rng.standard_normal(a.shape).astype(npy))

    def t(shape):
        return "tensor<%sx%s>" % ("x".join(map(str, shape)), elem)

    typeA, typeB = t(list(a.shape)), t(list(b.shape))
    tc = t(lead + [m, n])
    op = "mpt.batch_matmul" if batch else "mpt.matmul"
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    acc = "" if elem == "f32" else " acc(f32)"
    args = "%%a: %s, %%b: %s" % (typeA, typeB)
    body = "  %%r = %s %%a, %%b%s%s : (%s, %s) -> %s\n" % (
        op, flags, acc, typeA, typeB, tc)
    if bias_relu:
        args += ", %%bias: %s" % t([n])
        body += ("  %%s = mpt.add %%r, %%bias : (%s, %s) -> %s\n"
                 "  %%y = mpt.relu %%s : %s\n" % (tc, t([n]), tc, tc))
    result = "%y" if bias_relu else "%r"
    if accumulate or zero_start:
        tc = "tensor<%sxf32>" % "x".join(map(str, lead + [m, n]))
        op = "linalg.batch_matmul" if batch else "linalg.matmul"
        body = ""
        if accumulate:
            args += ", %%c: %s" % tc
        else:
            body = ("  %%zero = arith.constant 0.0 : f32\n"
                    "  %%e = tensor.empty() : %s\n"
                    "  %%c = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s\n"
                    % (tc, tc, tc))
        body += ("  %%r = %s ins(%%a, %%b : %s, %s) outs(%%c : %s) -> %s\n"
                 % (op, typeA, typeB, tc, tc))
    results = tc
    if twice:
        args += ", %%a2: %s" % typeA
        body += "  %%r2 = %s %%a2, %%b%s%s : (%s, %s) -> %s\n" % (
            op, flags, acc, typeA, typeB, tc)
        result += ", %r2"
        results = "%s, %s" % (tc, tc)
    with open(os.path.join(d, "p.mlir"), "w") as f:
        f.write("func.func @gemm(%s) -> (%s) {\n%s  func.return %s : %s\n}\n"
                % (args, results, body, result, results))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"dtype": dtype, "bias_relu": bias_relu,
                   "accumulate": accumulate, "zero_start": zero_start,
                   "transpose_a": ta, "transpose_b": tb, "twice": twice}, f)


def check_results(d, name, refs):
    """"NAME: ok", or what is wrong: DIR/result_<i>.npy against each
    (reference, tolerance) of `refs` (relative error in the 2-norm)."""
    wrong = []
    for i, (ref, tolerance) in enumerate(refs):
        path = os.path.join(d, "result_%d.npy" % i)
        if not os.path.exists(path):
            return "%s: no result_%d.npy" % (name, i)
        out = np.load(path).astype(np.float64)
        if out.shape != ref.shape or not np.isfinite(out).all():
            return "%s: result_%d has shape %s, %d non-finite" % (
                name, i, out.shape, (~np.isfinite(out)).sum())
        err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
        if err > tolerance:
            wrong.append("result_%d WRONG (relative error %.2e, tolerance "
                         "%.2e)" % (i, err, tolerance))
    return "%s: %s" % (name, "; ".join(wrong) if wrong else "ok")


def set_dtype(d, dtype):
    """Changes the operand type that DIR's reference assumes (the data stay)."""
    path = os.path.join(d, "config.json")
    with open(path) as f:
        config = json.load(f)
    config["dtype"] = dtype
    with open(path, "w") as f:
        json.dump(config, f)


def check(d):
    """(ok, line): whether DIR's results are within the tolerance, and the
    line that says so."""
    with open(os.path.join(d, "config.json")) as f:
        config = json.load(f)
    dtype = config["dtype"]
    name = os.path.basename(d)
    inputs = ["a.npy", "a2.npy"] if config.get("twice") else ["a.npy"]
    errors = []
    for i, a_file in enumerate(inputs):
        if not os.path.exists(os.path.join(d, "result_%d.npy" % i)):
            return False, "%s: no result_%d.npy" % (name, i)
        error = compare(d, config, a_file, "result_%d.npy" % i)
        if isinstance(error, str):
            return False, "%s: %s" % (name, error)
        errors.append(error)
    f32_sums = config.get("accumulate") or config.get("zero_start")
    err, tol = max(errors), TOLERANCE["accumulate" if f32_sums else dtype]
    return err <= tol, "%s: %s (relative error %.2e, tolerance %.2e)" % (
        name, "ok" if err <= tol else "WRONG", err, tol)


def compare(d, config, a_file, result_file):
    """The relative error of `result_file` against the float64 reference
    of `a_file` times B, or what is wrong with it (a string)."""
    dtype = config["dtype"]
    elem = "f32" if dtype in ("f32", "tf32") else dtype
    a = as_stored(np.load(os.path.join(d, a_file)), elem)
    b = as_stored(np.load(os.path.join(d, "b.npy")), elem)
    if config.get("transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if config.get("transpose_b"):
        b = np.swapaxes(b, -1, -2)
    if dtype == "tf32":
        a, b = (round_tf32(x).astype(np.float64) for x in (a, b))
    ref = as_stored(a @ b, elem)
    if config.get("accumulate"):
        ref = np.load(os.path.join(d, "c.npy")).astype(np.float64) + a @ b
    if config.get("zero_start"):
        ref = a @ b
    if config["bias_relu"]:
        bias = as_stored(np.load(os.path.join(d, "bias.npy")), elem)
        ref = np.maximum(as_stored(ref + bias, elem), 0)
    out = np.load(os.path.join(d, result_file)).astype(np.float64)
    if out.shape != ref.shape:
        return "shape %s, expected %s" % (out.shape, ref.shape)
    if not np.isfinite(out).all():
        return "%d non-finite elements" % (~np.isfinite(out)).sum()
    return np.linalg.norm(out - ref) / np.linalg.norm(ref)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        rest = sys.argv[2:]
        batch = ""
        if "--batch" in rest:
            i = rest.index("--batch")
            batch = rest[i + 1]
            del rest[i:i + 2]
        flags = {r for r in rest if r.startswith("--")}
        known = {"--bias-relu", "--accumulate", "--zero-start",
                 "--transpose-a", "--transpose-b", "--twice"}
        alone = {"--accumulate", "--zero-start"}
        if flags - known or (flags & alone and len(flags) > 1):
            sys.exit("emulate_gemm.py gen: flags %s (--accumulate and "
                     "--zero-start go alone)" % sorted(flags))
        rest = [r for r in rest if r not in flags]
        d, dtype, m, n, k = rest[0], rest[1], *map(int, rest[2:5])
        gen(d, dtype, m, n, k, batch, "--bias-relu" in flags,
            "--accumulate" in flags, "--transpose-a" in flags,
            "--transpose-b" in flags, "--twice" in flags,
            "--zero-start" in flags)
    else:
        print(check(sys.argv[2])[1])
