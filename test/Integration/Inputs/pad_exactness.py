#!/usr/bin/python3
"""mpt-pad-for-tensor-cores changes nothing that the program computes.

Every case compiles one program twice, without and with
`--mpt-pad-for-tensor-cores=max-overhead=100` (so that no contraction is
skipped for its overhead), runs both with mpt-run on the same inputs and
compares every result. Inputs are .npy files written here with numpy (f16
arguments as float16, bf16 arguments as float32 rounded to nearest-even
bf16) or, for the examples, mpt-run's own random inputs (`--seed=1`); the
script then checks that both runs report the same inputs (same roles, types
and distributions: pad-parameters is off, so the signature does not change).

Why the results should be bitwise equal: the pass pads with zeros. A padded
K adds products 0 * 0 = +0 at the end of each f32 accumulation, and x + 0 = x
exactly (the sum is -0 only if every product is -0); padded M / N rows and
columns are computed and sliced away; padded input channels of a convolution
are zero in both the input and the filter; the padded classes of a
softmax_cross_entropy are masked to -inf, so exp() gives exact zeros in its
sum and they never win its max. Nothing reorders the real terms, so the real
elements see the same operations in the same order.

Cases and tolerances
  odd shapes (inputs already f16 / bf16, contractions with acc(f32)):
    * matmul M=N=K=1001 (1000 = 125*8 is already aligned: the pass leaves
      it as it is, checked on the IR), conv2d 4x3x17x17 * 5x3x3x3 (input
      channels 3 -> 8, filters 5 -> 8): bitwise equality is reported;
      the check allows 1 ulp of the result type, because the result is the
      f32 accumulation rounded once to f16/bf16, and a lowering that tiled
      the longer padded K differently (a different f32 summation order, not
      the zeros themselves) could move that rounding by one ulp.
    * vocabulary 50257: logits 8x50257 = x(8x64) @ w(64x50257), then
      softmax_cross_entropy against labels in [0, 50257) (including 0 and
      50256), once on the logits cast to f32 and once on the f16/bf16
      logits themselves: the losses must be bitwise equal.
  fp32: examples/mlp.mlir as it is: the pass inserts no pad; bitwise.
  examples after --mpt-auto-mixed-precision (f16, and bf16 too): mlp, cnn,
    transformer_block (all of whose dimensions are multiples of 8: nothing
    to pad), --seed=1: loss bitwise.
  gradients: --mpt-autodiff then --mpt-auto-mixed-precision, mlp and cnn,
    entry @<name>_grad, --seed=1: the loss and every gradient bitwise.
  training: --mpt-build-train-step="optimizer=sgd lr=0.05" -canonicalize
    --mpt-auto-mixed-precision=type=bf16 on mlp, 50 steps of @train_step
    with --seed=1 --json: identical loss sequences, and the parameters after
    the last step bitwise equal.

For every case the padded program must actually contain an mpt.pad (except
where nothing is to be padded: fp32, the 1000 matmul, transformer_block),
so that no case passes vacuously.

Prints one line per case,
  pad exactness NAME: pads=P bitwise=yes|no max_abs=... max_ulp=... tol=... ok|FAIL
(max_ulp in the element type of each result: f16, bf16 or f32), and
  pad exactness: N passed, M failed
Exits 1 when anything failed.

Usage: pad_exactness.py --mpt-opt build/bin/mpt-opt --mpt-run build/bin/mpt-run
           --examples examples [--filter REGEX] [--keep]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

PAD = "--mpt-pad-for-tensor-cores=max-overhead=100"


class CaseError(Exception):
    pass


# ---------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------

def round_bf16(x):
    """float32 rounded to the nearest bf16 (ties to even), as float32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    one, sixteen = np.uint64(1), np.uint64(16)
    r = ((u + np.uint64(0x7FFF) + ((u >> sixteen) & one)) >> sixteen) << sixteen
    return r.astype(np.uint32).view(np.float32)


def bits(a, dtype):
    """The bit patterns of `a` (as stored by mpt-run) in `dtype`, and the
    width."""
    if dtype == "f16":
        return a.astype(np.float16).view(np.uint16).astype(np.int64), 16
    if dtype == "bf16":  # float32 files holding exact bf16 values
        u = a.astype(np.float32).view(np.uint32)
        if np.any(u & 0xFFFF):
            raise CaseError("a bf16 result is not an exact bf16 value")
        return (u >> 16).astype(np.int64), 16
    if dtype == "f32":
        return a.astype(np.float32).view(np.uint32).astype(np.int64), 32
    if dtype == "f64":
        return a.astype(np.float64).view(np.uint64).astype(np.int64), 64
    return a.astype(np.int64), 0  # integers: compared as they are


def ordered(b, width):
    """Sign-magnitude bit patterns mapped to a monotonic integer line (+0 and
    -0 both 0), so that |ordered(a) - ordered(b)| counts ulps."""
    if width == 0:
        return b
    sign = 1 << (width - 1)
    if width == 64:
        neg = b < 0
        return np.where(neg, -(b & (sign - 1)), b)
    return np.where(b & sign, -(b & (sign - 1)), b)


def compare(a, b, dtype):
    """(bitwise equal, max |a - b|, max ulps) of one pair of results."""
    if a.shape != b.shape:
        raise CaseError(f"shapes differ: {a.shape} vs {b.shape}")
    ba, width = bits(a, dtype)
    bb, _ = bits(b, dtype)
    bitwise = bool(np.array_equal(ba, bb))
    if a.size == 0:
        return bitwise, 0.0, 0
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    nan_a, nan_b = np.isnan(fa), np.isnan(fb)
    if np.any(nan_a != nan_b):
        return False, float("nan"), float("inf")
    keep = ~nan_a
    with np.errstate(invalid="ignore"):
        diff = np.abs(fa[keep] - fb[keep])
    diff = np.where(fa[keep] == fb[keep], 0.0, diff)  # inf == inf
    max_abs = float(diff.max()) if diff.size else 0.0
    oa, ob = ordered(ba, width), ordered(bb, width)
    ulps = np.abs(oa[keep] - ob[keep])
    return bitwise, max_abs, int(ulps.max()) if ulps.size else 0


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------

class Tools:
    def __init__(self, opt, run, workdir):
        self.opt, self.run, self.workdir = opt, run, workdir
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)

    @staticmethod
    def call(cmd):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0:
            raise CaseError(f"`{' '.join(cmd)}` failed ({p.returncode}):\n"
                            + p.stderr[-3000:])
        return p.stdout

    def compile(self, src, passes, out):
        text = self.call([self.opt, src] + passes)
        with open(out, "w") as f:
            f.write(text)
        return text

    def run_json(self, mlir, outdir, entry=None, inputs=None, seed=None,
                 steps=None):
        os.makedirs(outdir, exist_ok=True)
        cmd = [self.run, mlir, "--json", f"--output-dir={outdir}"]
        if entry:
            cmd.append(f"--entry={entry}")
        for path in inputs or []:
            cmd.append(f"--input={path}")
        if seed is not None:
            cmd.append(f"--seed={seed}")
        if steps is not None:
            cmd.append(f"--steps={steps}")
        return json.loads(self.call(cmd))

    def both(self, fn, args_plain, args_padded):
        """fn(*args) for the plain and the padded program, side by side."""
        f0 = self.pool.submit(fn, *args_plain)
        f1 = self.pool.submit(fn, *args_padded)
        return f0.result(), f1.result()


def count_pads(text):
    return len(re.findall(r"= mpt\.pad ", text))


def results_of(report):
    out = []
    for o in report["outputs"]:
        out.append((o["index"], o["dtype"], np.load(o["file"])))
    return out


def input_specs(report):
    return [{k: v for k, v in i.items() if k != "name"}
            for i in report["inputs"]]


def same_inputs(r0, r1):
    if input_specs(r0) != input_specs(r1):
        raise CaseError("the two runs did not get the same inputs:\n"
                        f"{json.dumps(input_specs(r0))}\n"
                        f"{json.dumps(input_specs(r1))}")


def differing_inputs(r0, r1):
    """A description of the random inputs that mpt-run drew differently for
    the two programs (same seed), or ''."""
    out = []
    for a, b in zip(input_specs(r0), input_specs(r1)):
        if a != b:
            out.append(f"#{a['index']} {a['role']} {a['type']}: "
                       f"{a.get('distribution')} vs {b.get('distribution')}")
    if len(r0["inputs"]) != len(r1["inputs"]):
        out.append("different argument counts")
    return "; ".join(out)


def inputs_like(report, d, seed):
    """.npy files drawn with numpy from the distributions mpt-run reported
    for the unpadded program (same roles, shapes and scales)."""
    rng = np.random.default_rng(seed)
    paths = []
    for spec in report["inputs"]:
        shape, dtype = tuple(spec["shape"]), spec["dtype"]
        dist = spec.get("distribution", "")
        m_normal = re.fullmatch(r"normal\(0, ([0-9.e+-]+)\)", dist)
        m_int = re.fullmatch(r"uniform integers in \[0, ([0-9]+)\)", dist)
        if m_normal:
            x = rng.standard_normal(shape) * float(m_normal.group(1))
        elif dist == "zeros":
            x = np.zeros(shape)
        elif dist == "ones":
            x = np.ones(shape)
        elif m_int:
            x = rng.integers(0, int(m_int.group(1)), size=shape)
        else:
            raise CaseError(f"cannot draw input #{spec['index']}: {dist!r}")
        if dtype == "f16":
            x = np.asarray(x, np.float16)
        elif dtype == "bf16":
            x = round_bf16(np.asarray(x, np.float32))
        elif dtype in ("f32", "f64", "i64", "i32"):
            x = np.asarray(x, {"f32": np.float32, "f64": np.float64,
                               "i64": np.int64, "i32": np.int32}[dtype])
        else:
            raise CaseError(f"input #{spec['index']}: dtype {dtype}")
        paths.append(save(d, f"arg{spec['index']}", x))
    return paths


def fmt(x):
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

class Case:
    """One comparison: `build(ctx)` returns (pads, [(label, dtype, a, b)])
    plus optional notes; `tol_ulp` is the tolerance in ulps of each result's
    own element type (0: bitwise)."""

    def __init__(self, name, build, tol_ulp=0, want_pads=True, why=""):
        self.name, self.build, self.tol_ulp = name, build, tol_ulp
        self.want_pads, self.why = want_pads, why


def pair_with_inputs(tools, d, text, entry, inputs):
    src = os.path.join(d, "in.mlir")
    with open(src, "w") as f:
        f.write(text)
    p0, p1 = os.path.join(d, "plain.mlir"), os.path.join(d, "padded.mlir")
    t0, t1 = tools.both(tools.compile, (src, [], p0), (src, [PAD], p1))
    r0, r1 = tools.both(
        tools.run_json,
        (p0, os.path.join(d, "out0"), entry, inputs),
        (p1, os.path.join(d, "out1"), entry, inputs))
    same_inputs(r0, r1)
    return t1, r0, r1


def save(d, name, array):
    path = os.path.join(d, name + ".npy")
    np.save(path, np.ascontiguousarray(array))
    return path


def low_input(rng, shape, low, scale=1.0):
    x = rng.standard_normal(shape).astype(np.float32) * np.float32(scale)
    return x.astype(np.float16) if low == "f16" else round_bf16(x)


def matmul_case(n, low):
    def build(tools, d):
        rng = np.random.default_rng(1000 + n + (low == "bf16"))
        t = f"tensor<{n}x{n}x{low}>"
        text = f"""func.func @f(%a: {t} {{mpt.role = #mpt.role<input>}},
             %b: {t} {{mpt.role = #mpt.role<input>}}) -> {t} {{
  %y = mpt.matmul %a, %b acc(f32) : ({t}, {t}) -> {t}
  return %y : {t}
}}
"""
        inputs = [save(d, "a", low_input(rng, (n, n), low)),
                  save(d, "b", low_input(rng, (n, n), low))]
        t1, r0, r1 = pair_with_inputs(tools, d, text, "f", inputs)
        return t1, r0, r1
    return build


def matmul_ir_only(n, low):
    """The pass leaves an aligned matmul alone: checked on the IR only."""
    def build(tools, d):
        t = f"tensor<{n}x{n}x{low}>"
        src = os.path.join(d, "in.mlir")
        with open(src, "w") as f:
            f.write(f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
  %y = mpt.matmul %a, %b acc(f32) : ({t}, {t}) -> {t}
  return %y : {t}
}}
""")
        t0 = tools.compile(src, [], os.path.join(d, "plain.mlir"))
        t1 = tools.compile(src, [PAD], os.path.join(d, "padded.mlir"))
        if t0 != t1:
            raise CaseError("the pass changed an aligned matmul")
        return t1, None, None
    return build


def vocab_case(low, vocab=50257, batch=8, k=64):
    def build(tools, d):
        rng = np.random.default_rng(50257 + (low == "bf16"))
        tx, tw = f"tensor<{batch}x{k}x{low}>", f"tensor<{k}x{vocab}x{low}>"
        tl, tl32 = f"tensor<{batch}x{vocab}x{low}>", f"tensor<{batch}x{vocab}xf32>"
        tlab = f"tensor<{batch}xi64>"
        text = f"""func.func @f(%x: {tx} {{mpt.role = #mpt.role<input>}},
             %w: {tw} {{mpt.role = #mpt.role<parameter>}},
             %labels: {tlab} {{mpt.role = #mpt.role<label>}})
    -> (tensor<f32> {{mpt.role = #mpt.role<loss>}}, tensor<{low}>) {{
  %logits = mpt.matmul %x, %w acc(f32) : ({tx}, {tw}) -> {tl}
  %l32 = mpt.cast %logits : {tl} to {tl32}
  %loss = mpt.softmax_cross_entropy %l32, %labels : ({tl32}, {tlab}) -> tensor<f32>
  %loss_low = mpt.softmax_cross_entropy %logits, %labels : ({tl}, {tlab}) -> tensor<{low}>
  return %loss, %loss_low : tensor<f32>, tensor<{low}>
}}
"""
        labels = rng.integers(0, vocab, size=batch).astype(np.int64)
        labels[0], labels[-1] = 0, vocab - 1
        inputs = [save(d, "x", low_input(rng, (batch, k), low)),
                  save(d, "w", low_input(rng, (k, vocab), low, 1 / 8)),
                  save(d, "labels", labels)]
        t1, r0, r1 = pair_with_inputs(tools, d, text, "f", inputs)
        if f"classes = {vocab}" not in t1:
            raise CaseError("the padded classes were not masked "
                            f"(no `classes = {vocab}` in the padded IR)")
        return t1, r0, r1
    return build


def conv_case(low, n=4, c=3, f=5, hw=17):
    def build(tools, d):
        rng = np.random.default_rng(33 + (low == "bf16"))
        tx, tw = f"tensor<{n}x{c}x{hw}x{hw}x{low}>", f"tensor<{f}x{c}x3x3x{low}>"
        ty = f"tensor<{n}x{f}x{hw}x{hw}x{low}>"
        text = f"""func.func @f(%x: {tx} {{mpt.role = #mpt.role<input>}},
             %w: {tw} {{mpt.role = #mpt.role<parameter>}}) -> {ty} {{
  %y = mpt.conv2d %x, %w pad [1, 1, 1, 1] acc(f32) : ({tx}, {tw}) -> {ty}
  return %y : {ty}
}}
"""
        inputs = [save(d, "x", low_input(rng, (n, c, hw, hw), low)),
                  save(d, "w", low_input(rng, (f, c, 3, 3), low))]
        t1, r0, r1 = pair_with_inputs(tools, d, text, "f", inputs)
        if f"x{c}x{hw}x{hw}x{low}> -> tensor<{n}x8x" not in t1:
            raise CaseError(f"the {c} input channels were not padded to 8")
        return t1, r0, r1
    return build


def example_case(example, passes, entry=None, steps=None):
    def build(tools, d):
        src = os.path.join(tools.examples, example + ".mlir")
        p0, p1 = os.path.join(d, "plain.mlir"), os.path.join(d, "padded.mlir")
        if passes:
            base = tools.compile(src, passes, p0)
        else:
            shutil.copy(src, p0)
            with open(p0) as f:
                base = f.read()
        t1 = tools.compile(p0, [PAD], p1)
        out0, out1 = os.path.join(d, "out0"), os.path.join(d, "out1")
        r0, r1 = tools.both(tools.run_json,
                            (p0, out0, entry, None, 1, steps),
                            (p1, out1, entry, None, 1, steps))
        diff = differing_inputs(r0, r1)
        if diff:
            # mpt-run draws random values by how an argument is used; when
            # the padded program uses it differently, --seed=1 does not give
            # both programs the same values. Use numpy inputs with the
            # unpadded program's distributions for both instead.
            tools.notes.append(
                f"--seed=1 gave the padded program other inputs ({diff}); "
                "compared on numpy inputs with the unpadded distributions")
            inputs = inputs_like(r0, d, 1)
            r0, r1 = tools.both(tools.run_json,
                                (p0, out0, entry, inputs, None, steps),
                                (p1, out1, entry, inputs, None, steps))
            same_inputs(r0, r1)
        if steps is not None:
            s0 = [s["loss"] for s in r0["steps"]]
            s1 = [s["loss"] for s in r1["steps"]]
            if len(s0) != steps or len(s1) != steps:
                raise CaseError(f"expected {steps} steps, got {len(s0)} and "
                                f"{len(s1)}")
        return t1, r0, r1
    return build


def run_case(case, tools, workdir):
    d = os.path.join(workdir, case.name)
    os.makedirs(d, exist_ok=True)
    t1, r0, r1 = case.build(tools, d)
    pads = count_pads(t1)
    problems = []
    if case.want_pads and pads == 0:
        problems.append("the padded program has no mpt.pad")
    if not case.want_pads and pads:
        problems.append(f"the pass padded a program it should leave alone "
                        f"({pads} pads)")
    bitwise, max_abs, max_ulp, worst = True, 0.0, 0, ""
    extra = ""
    if r0 is not None:
        a, b = results_of(r0), results_of(r1)
        if len(a) != len(b):
            raise CaseError(f"{len(a)} vs {len(b)} results")
        for (i, dtype, x), (_, dtype1, y) in zip(a, b):
            if dtype != dtype1:
                raise CaseError(f"result #{i}: {dtype} vs {dtype1}")
            bw, ma, mu = compare(x, y, dtype)
            bitwise &= bw
            if mu > max_ulp or (mu == max_ulp and not worst):
                worst = f"#{i} {dtype}"
            max_abs = max(max_abs, ma)
            max_ulp = max(max_ulp, mu)
        if "steps" in r0:
            l0 = np.array([s["loss"] for s in r0["steps"]])
            l1 = np.array([s["loss"] for s in r1["steps"]])
            same = np.array_equal(l0, l1)
            bitwise &= bool(same)
            dl = float(np.max(np.abs(l0 - l1)))
            max_abs = max(max_abs, dl)
            extra = (f" steps={len(l0)} losses {'identical' if same else 'DIFFER'}"
                     f" (first {l0[0]:.7g} last {l0[-1]:.7g}, max diff {dl:.3g})")
            if not same:
                problems.append("the loss sequences differ")
        if max_ulp > case.tol_ulp:
            problems.append(f"{max_ulp} ulps > {case.tol_ulp}")
        elif case.tol_ulp == 0 and not bitwise:
            problems.append("not bitwise equal (+0 / -0 or NaN payloads)")
    n = 0 if r0 is None else len(r0["outputs"])
    line = (f"pad exactness {case.name}: pads={pads} results={n} "
            f"bitwise={'yes' if bitwise else 'no'} max_abs={fmt(max_abs)} "
            f"max_ulp={max_ulp}{' (' + worst + ')' if worst and max_ulp else ''}"
            f" tol={case.tol_ulp}ulp{extra}")
    return line, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mpt-opt", required=True)
    ap.add_argument("--mpt-run", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--filter", default="")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    amp = ["--mpt-auto-mixed-precision"]
    amp_bf16 = ["--mpt-auto-mixed-precision=type=bf16"]
    grad = ["--mpt-autodiff", "--mpt-auto-mixed-precision"]
    train = ["--mpt-build-train-step=optimizer=sgd lr=0.05", "-canonicalize",
             "--mpt-auto-mixed-precision=type=bf16"]
    cases = []
    for low in ("f16", "bf16"):
        cases += [
            Case(f"odd matmul 1001x1001x1001 {low}", matmul_case(1001, low),
                 tol_ulp=1),
            Case(f"aligned matmul 1000x1000x1000 {low} (IR)",
                 matmul_ir_only(1000, low), want_pads=False),
            Case(f"odd vocab 8x50257 k=64 {low}", vocab_case(low)),
            Case(f"odd conv2d c=3 f=5 {low}", conv_case(low), tol_ulp=1),
        ]
    cases += [
        Case("fp32 mlp", example_case("mlp", []), want_pads=False),
        Case("amp mlp", example_case("mlp", amp)),
        Case("amp cnn", example_case("cnn", amp)),
        Case("amp transformer_block", example_case("transformer_block", amp),
             want_pads=False),
        Case("amp bf16 mlp", example_case("mlp", amp_bf16)),
        Case("amp bf16 cnn", example_case("cnn", amp_bf16)),
        Case("grad mlp", example_case("mlp", grad, entry="mlp_grad")),
        Case("grad cnn", example_case("cnn", grad, entry="cnn_grad")),
        Case("train mlp sgd bf16", example_case("mlp", train,
                                                entry="train_step", steps=50)),
    ]

    workdir = tempfile.mkdtemp(prefix="pad-exactness-")
    tools = Tools(args.mpt_opt, args.mpt_run, workdir)
    tools.examples = args.examples
    passed = failed = 0
    start = time.time()
    try:
        for i, case in enumerate(cases):
            if args.filter and not re.search(args.filter, case.name):
                continue
            t = time.time()
            tools.notes = []
            try:
                line, problems = run_case(
                    case, tools, os.path.join(workdir, f"case{i}"))
            except CaseError as e:
                line, problems = f"pad exactness {case.name}: error", [str(e)]
            status = "FAIL" if problems else "ok"
            print(f"{line} ({time.time() - t:.1f} s) {status}", flush=True)
            for n in tools.notes:
                print(f"  note: {n}", flush=True)
            for p in problems:
                print(f"  {p}", flush=True)
            if problems:
                failed += 1
            else:
                passed += 1
    finally:
        tools.pool.shutdown()
        if args.keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"pad exactness: {passed} passed, {failed} failed "
          f"({time.time() - start:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
