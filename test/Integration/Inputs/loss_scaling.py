#!/usr/bin/python3
"""Loss scaling, run on the CPU with mpt-run.

Each experiment builds a training step with `mpt-amp-pipeline` (f16, fp32
master weights, mpt-loss-scaling), trains it with `mpt-run --save-steps`
(every step's results as .npy files) and checks the results against
independent numpy/Python references:

  overflow    steps whose input holds an inf or a NaN (so their gradients do)
              and steps whose gradients overflow f16 only once scaled: those
              steps are skipped (parameters and Adam moments and step count
              bitwise unchanged), the scale backs off, the counter resets.
  growth      after growth-interval good steps the scale grows, and not above
              max-scale.
  hysteresis  hysteresis=N: the N-th overflow since the scale last grew backs
              off, the ones before are tolerated (but still skipped).
  gradscaler  a random sequence of injected overflows (and the natural ones
              of a too-large initial scale): the scale and the growth counter
              of every step equal those of a Python reimplementation of
              PyTorch's GradScaler state machine fed the same found-inf
              sequence (read back from the step count, which a skipped step
              leaves unchanged).
  underflow   examples/mlp.mlir with its loss multiplied by 1e-6 (gradients
              around 1e-8): the fraction of zero gradient elements of step 1
              and the loss after 200 steps, in fp32, in f16 without loss
              scaling (most gradients flushed, no progress) and in f16 with
              dynamic (and static, adaptive) scaling (within 2% of fp32).
  sum-loss    a loss that is a plain sum (its gradient is the scale itself,
              cast to f16): the scale stays at most 32768, overflows are
              predicted in numpy, updates match lr * colsum(x).

Usage: loss_scaling.py --mpt-opt BIN --mpt-run BIN --inputs DIR [EXPERIMENT...]
Prints one line per check, `... ok` or `... FAIL`, and ends with
`loss scaling: N passed, M failed`; exits 1 when a check failed.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

UNDERFLOW_TOLERANCE = 0.02


# ---------------------------------------------------------------------------
# The reference: PyTorch's GradScaler state machine
# ---------------------------------------------------------------------------


class GradScalerReference:
    """torch.amp.GradScaler.update, i.e. torch._amp_update_scale_:

        if found_inf:  scale *= backoff_factor; growth_tracker = 0
        else:          successful = growth_tracker + 1
                       if successful == growth_interval:
                           scale *= growth_factor (if finite); growth_tracker = 0
                       else: growth_tracker = successful

    The scale is a float32 tensor and the factors Python floats, so each
    product is computed in double and stored as float32. Extensions, off by
    default: Megatron-LM's hysteresis (back off only when `hysteresis`
    overflows have been seen since the scale last grew) and Apex's bounds
    (max_scale, min_scale)."""

    def __init__(self, init_scale, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, hysteresis=1, min_scale=0.0,
                 max_scale=math.inf):
        self.scale = np.float32(init_scale)
        self.growth_tracker = 0
        self.hysteresis = hysteresis
        self.hysteresis_tracker = hysteresis
        self.growth_factor, self.backoff_factor = growth_factor, backoff_factor
        self.growth_interval = growth_interval
        self.min_scale, self.max_scale = min_scale, max_scale

    def update(self, found_inf):
        if found_inf:
            self.growth_tracker = 0
            self.hysteresis_tracker -= 1
            if self.hysteresis_tracker <= 0:
                self.scale = np.float32(
                    max(float(self.scale) * self.backoff_factor,
                        self.min_scale))
            return
        successful = self.growth_tracker + 1
        if successful == self.growth_interval:
            grown = float(self.scale) * self.growth_factor
            if math.isfinite(grown):
                self.scale = np.float32(min(grown, self.max_scale))
            self.growth_tracker = 0
            self.hysteresis_tracker = self.hysteresis
        else:
            self.growth_tracker = successful

    def state(self):
        """(scale, growth counter, hysteresis counter not below zero)."""
        return (float(self.scale), self.growth_tracker,
                max(self.hysteresis_tracker, 0))


# ---------------------------------------------------------------------------
# Building and running steps
# ---------------------------------------------------------------------------


class Tools:
    def __init__(self, mpt_opt, mpt_run, inputs, workdir):
        self.mpt_opt, self.mpt_run = mpt_opt, mpt_run
        self.inputs, self.workdir = inputs, workdir

    def build(self, source, name, pipeline=None, passes=None):
        """Builds a training step from `source` with mpt-amp-pipeline options
        `pipeline` (or the mpt-opt arguments `passes`)."""
        out = os.path.join(self.workdir, name + ".mlir")
        args = passes if passes is not None else [
            f"--mpt-amp-pipeline={pipeline}"]
        subprocess.run([self.mpt_opt, source, *args, "-o", out], check=True,
                       capture_output=True, text=True)
        return out

    def train(self, step, name, steps, seed=1, step_inputs=None):
        """Runs `steps` steps; returns (json summary, directory of the saved
        steps)."""
        out = os.path.join(self.workdir, name)
        cmd = [self.mpt_run, step, "--entry=train_step", f"--seed={seed}",
               f"--steps={steps}", "--json", "--save-steps",
               f"--output-dir={out}"]
        for index, array in (step_inputs or {}).items():
            path = os.path.join(self.workdir, f"{name}_input_{index}.npy")
            np.save(path, array)
            cmd.append(f"--step-input={index}={path}")
        proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
        return json.loads(proc.stdout), out


def indices(summary, key, role):
    return [e["index"] for e in summary[key] if e.get("role") == role]


def load_step(out, step, index):
    return np.load(os.path.join(out, f"step_{step}", f"result_{index}.npy"))


class Results:
    """Counts and prints the checks."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, text):
        print(f"{text} {'ok' if ok else 'FAIL'}")
        sys.stdout.flush()
        self.passed += bool(ok)
        self.failed += not ok


def model_batches(summary, steps, rng, inject=None):
    """Per-step inputs for the `input` argument: normal(0, 1) batches; at the
    steps of `inject` (step -> 'inf' | 'nan' | factor), one element is
    infinite or NaN, or the batch is multiplied by the factor."""
    (index,) = indices(summary, "inputs", "input")
    shape = next(e["shape"] for e in summary["inputs"] if e["index"] == index)
    batches = rng.standard_normal((steps, *shape)).astype(np.float32)
    for step, what in (inject or {}).items():
        if what == "inf":
            batches[step - 1].flat[5] = np.inf
        elif what == "nan":
            batches[step - 1].flat[5] = np.nan
        else:
            batches[step - 1] *= np.float32(what)
    return {index: batches}


def probe(tools, step):
    """The signature of a step (one mpt-run call, one step)."""
    summary, _ = tools.train(step, "probe_" + os.path.basename(step), 1)
    return summary


class StepTrace:
    """The per-step state of a run: the scale state, the Adam step count, and
    whether the parameters and optimizer state stayed bitwise unchanged."""

    def __init__(self, summary, out, steps):
        self.scale_results = indices(summary, "outputs", "loss_scale_state")
        state = (indices(summary, "outputs", "parameter") +
                 indices(summary, "outputs", "optimizer_state"))
        counts = [i for i in indices(summary, "outputs", "optimizer_state")
                  if not next(e["shape"] for e in summary["outputs"]
                              if e["index"] == i)]
        self.losses = [s["loss"] for s in summary["steps"]]
        self.states, self.step_counts, self.unchanged = [], [], []
        previous = None
        for s in range(1, steps + 1):
            scale, growth, hysteresis = (
                load_step(out, s, i).item() for i in self.scale_results)
            self.states.append((float(np.float32(scale)), int(growth),
                                int(hysteresis)))
            self.step_counts.append(float(load_step(out, s, counts[0])))
            current = [load_step(out, s, i) for i in state]
            self.unchanged.append(
                previous is not None and all(
                    a.tobytes() == b.tobytes()
                    for a, b in zip(previous, current)))
            previous = current

    def found_inf(self):
        """A skipped step leaves Adam's step count as it was (0 before the
        first step)."""
        found, last = [], 0.0
        for count in self.step_counts:
            found.append(count == last)
            last = count
        return found


# ---------------------------------------------------------------------------
# Experiments
# ---------------------------------------------------------------------------


def run_dynamic(tools, name, options, steps, seed=0, inject=None):
    """Builds the f16 Adam step of ls-model.mlir with dynamic loss scaling
    and `options`, trains it `steps` steps on random batches (with the
    injections of model_batches) and returns the StepTrace."""
    model = os.path.join(tools.inputs, "ls-model.mlir")
    step = tools.build(model, name, pipeline=(
        "type=f16 optimizer=adam lr=0.01 loss-scaling=dynamic " + options))
    batches = None
    if inject is not None:
        batches = model_batches(probe(tools, step), steps,
                                np.random.default_rng(seed), inject)
    summary, out = tools.train(step, name, steps, step_inputs=batches)
    return StepTrace(summary, out, steps)


def replay(reference, found):
    """The reference's state after each step of the found-inf sequence."""
    states = []
    for f in found:
        reference.update(f)
        states.append(reference.state())
    return states


def overflow(tools, results):
    steps = 8
    # Step 3: an inf in the input; step 5: a NaN; step 7: inputs 3e3 times
    # larger, finite in f16 (|x| < 2e4) but whose scaled gradients overflow.
    inject = {3: "inf", 5: "nan", 7: 3.0e3}
    trace = run_dynamic(tools, "overflow", "growth-interval=1000", steps,
                        seed=7, inject=inject)
    found = trace.found_inf()
    for s in range(2, steps + 1):
        prev_scale = trace.states[s - 2][0]
        scale, growth, _ = trace.states[s - 1]
        if s in inject:
            # A scaled input keeps the loss finite: only the scaled backward
            # pass overflows.
            finite_loss = isinstance(inject[s], str) or math.isfinite(
                trace.losses[s - 1])
            ok = (found[s - 1] and trace.unchanged[s - 1] and finite_loss and
                  scale == prev_scale * 0.5 and growth == 0)
            what = (inject[s] if isinstance(inject[s], str) else
                    f"inputs x{inject[s]:g}, loss {trace.losses[s - 1]:.4g}")
            results.check(ok, f"overflow: step {s} ({what}) skipped, "
                          f"parameters and Adam state bitwise unchanged, "
                          f"scale {prev_scale:g} -> {scale:g}, counter {growth}")
        else:
            ok = (not found[s - 1] and not trace.unchanged[s - 1] and
                  scale == prev_scale and growth == trace.states[s - 2][1] + 1)
            results.check(ok, f"overflow: step {s} applied, scale {scale:g}, "
                          f"counter {growth}")


def growth(tools, results):
    steps = 11
    trace = run_dynamic(tools, "growth", "growth-interval=3 max-scale=262144",
                        steps)
    expected = replay(GradScalerReference(65536.0, growth_interval=3,
                                          max_scale=262144.0),
                      [False] * steps)
    scales = [s[0] for s in trace.states]
    ok = trace.states == expected and not any(trace.found_inf())
    results.check(ok, "growth: scale after each step "
                  f"{' '.join(f'{s:g}' for s in scales)} (x2 every 3 good "
                  "steps, capped at max-scale 262144)")


def hysteresis(tools, results):
    steps = 14
    inject = {2: "inf", 3: "inf", 4: "inf", 5: "inf", 11: "inf", 12: "inf",
              13: "inf"}
    trace = run_dynamic(tools, "hysteresis", "growth-interval=4 hysteresis=3",
                        steps, seed=11, inject=inject)
    found = trace.found_inf()
    expected = replay(GradScalerReference(65536.0, growth_interval=4,
                                          hysteresis=3), found)
    skipped = all(trace.unchanged[s - 1] for s in inject)
    ok = (trace.states == expected and skipped and
          [s for s in range(1, steps + 1) if found[s - 1]] == sorted(inject))
    results.check(ok, "hysteresis=3: overflows at steps "
                  f"{sorted(inject)}, scale after each step "
                  f"{' '.join(f'{s[0]:g}' for s in trace.states)}, "
                  "all overflowing steps skipped")


def gradscaler(tools, results):
    """Random injected overflows, and a first scale (2^24) too large for the
    model's gradients in f16: the first steps overflow on their own."""
    for hyst in (1, 2):
        steps = 40
        rng = np.random.default_rng(2024 + hyst)
        inject = {int(s): "inf" for s in rng.choice(
            np.arange(10, steps + 1), size=8, replace=False)}
        trace = run_dynamic(
            tools, f"gradscaler_{hyst}",
            f"init-scale=16777216 growth-interval=3 hysteresis={hyst} "
            "min-scale=1 max-scale=3.0e38", steps, seed=3000 + hyst,
            inject=inject)
        found = trace.found_inf()
        expected = replay(GradScalerReference(16777216.0, growth_interval=3,
                                              hysteresis=hyst), found)
        mismatch = next(((s, got, want) for s, (got, want) in enumerate(
            zip(trace.states, expected), 1) if got != want), None)
        injected_found = all(found[s - 1] for s in inject)
        natural = [s for s in range(1, steps + 1)
                   if found[s - 1] and s not in inject]
        skipped = all(trace.unchanged[s - 1] for s in range(2, steps + 1)
                      if found[s - 1])
        ok = mismatch is None and injected_found and skipped
        what = "GradScaler" if hyst == 1 else "GradScaler + hysteresis 2"
        results.check(ok, f"{what}: {steps} steps, {sum(found)} overflows "
                      f"({len(inject)} injected, {len(natural)} from the "
                      f"scale: steps {natural}), scale and counter equal to "
                      f"the reference at every step"
                      + (f"; first difference at step {mismatch[0]}: "
                         f"{mismatch[1]} vs {mismatch[2]}" if mismatch else ""))


def zero_fraction(out, summary):
    grads = indices(summary, "outputs", "gradient")
    zeros = total = 0
    for i in grads:
        g = load_step(out, 1, i)
        zeros += int(np.count_nonzero(g == 0))
        total += g.size
    return zeros / total


def underflow(tools, results, steps=200, report=None):
    model = os.path.join(tools.inputs, "mlp-small-loss.mlir")
    runs = {}
    configs = [
        ("fp32", None, ["--mpt-build-train-step=optimizer=sgd lr=1e4 "
                        "return-gradients", "-canonicalize"]),
        ("f16, no loss scaling", "none", None),
        ("f16, dynamic", "dynamic", None),
        ("f16, static 65536", "static", None),
        ("f16, adaptive", "adaptive", None),
    ]
    for name, mode, passes in configs:
        tag = "underflow_" + (mode or "fp32")
        step = tools.build(model, tag, passes=passes, pipeline=(
            f"type=f16 optimizer=sgd lr=1e4 loss-scaling={mode} "
            "return-gradients"))
        summary, out = tools.train(step, tag, steps)
        runs[name] = (summary, out)
    base = [s["loss"] for s in runs["fp32"][0]["steps"]]
    rows = []
    for name, _, _ in configs:
        summary, out = runs[name]
        losses = [s["loss"] for s in summary["steps"]]
        zeros = zero_fraction(out, summary)
        diff = abs(losses[-1] - base[-1]) / base[-1]
        rows.append((name, zeros, losses[0], losses[-1], diff))
        print(f"underflow: {name}: zero gradient elements at step 1 "
              f"{zeros * 100:.2f}%, loss {losses[0]:.4e} -> {losses[-1]:.4e} "
              f"after {steps} steps ({diff * 100:.2f}% from fp32)")
    if report is not None:
        report.extend(rows)
    none = rows[1]
    results.check(none[1] > 0.5 and none[3] > 0.5 * none[2],
                  "underflow: f16 without loss scaling flushes most "
                  f"gradients ({none[1] * 100:.2f}% zero) and makes little "
                  f"progress (loss {none[2]:.3e} -> {none[3]:.3e})")
    for row in rows[2:]:
        name, zeros, first, last, diff = row
        results.check(diff <= UNDERFLOW_TOLERANCE and zeros <= rows[0][1] + 0.01,
                      f"underflow: {name} keeps the gradients "
                      f"({zeros * 100:.2f}% zero, fp32 {rows[0][1] * 100:.2f}%) "
                      f"and matches fp32 after {steps} steps: "
                      f"{diff * 100:.3f}% (tolerance 2%)")


def f16_overflows(values):
    """Whether any of the float64 `values` rounds to infinity in f16."""
    with np.errstate(over="ignore"):
        return bool(np.isinf(values.astype(np.float16)).any())


def sum_loss(tools, results, steps=16, lr=1.0):
    """sum-loss.mlir: the loss is the sum of x @ w, so the gradient is the
    loss scale S broadcast and dL/dw = S x^T 1 (the column sums of the f16
    input), which the f16 backward matmul rounds. The scale is bounded by
    32768, the largest power of two f16 holds, where S itself is cast to
    f16. Steps 1-6 take inputs 1e-3 times smaller: the scale would grow past
    the bound (and overflow at the cast every step after); steps 7-16 take
    normal(0, 1) inputs, whose scaled column sums overflow until the scale
    backs off. Every step's overflow is predicted in numpy from the inputs
    and the scale; the scale follows the GradScaler reference fed those
    predictions; an applied step moves w by lr * colsum(x) (normwise
    tolerance 1e-3, f16 rounds to 4.9e-4); a skipped one leaves w bitwise
    unchanged."""
    model = os.path.join(tools.inputs, "sum-loss.mlir")
    step = tools.build(model, "sum_loss", pipeline=(
        f"type=f16 optimizer=sgd lr={lr} loss-scaling=dynamic "
        "growth-interval=2"))
    summary = probe(tools, step)
    (x_index,) = indices(summary, "inputs", "input")
    (w_index,) = indices(summary, "outputs", "parameter")
    rng = np.random.default_rng(17)
    x = rng.standard_normal((steps, 16, 32)).astype(np.float32)
    x[:6] *= np.float32(1e-3)
    summary, out = tools.train(step, "sum_loss", steps,
                               step_inputs={x_index: x})
    scale_results = indices(summary, "outputs", "loss_scale_state")
    reference = GradScalerReference(32768.0, growth_interval=2,
                                    max_scale=32768.0)
    w_prev = None  # updates are checked from step 2 on
    errors, found_all, states, expected = [], [], [], []
    for s in range(1, steps + 1):
        colsum = x[s - 1].astype(np.float16).astype(np.float64).sum(axis=0)
        found = f16_overflows(reference.scale * colsum)
        reference.update(found)
        expected.append(reference.state())
        states.append(tuple(float(np.float32(load_step(out, s, i).item()))
                            if k == 0 else int(load_step(out, s, i).item())
                            for k, i in enumerate(scale_results)))
        found_all.append(found)
        w = load_step(out, s, w_index).astype(np.float64)
        if s > 1:
            if found:
                errors.append(0.0 if w.tobytes() == w_prev.tobytes()
                              else math.inf)
            else:
                delta = w_prev - w
                ref = lr * np.broadcast_to(colsum[:, None], delta.shape)
                errors.append(float(np.linalg.norm(delta - ref) /
                                    np.linalg.norm(ref)))
        w_prev = w
    scales = " ".join(f"{st[0]:g}" for st in states)
    overflows = [s for s in range(1, steps + 1) if found_all[s - 1]]
    results.check(states == expected,
                  f"sum loss: scale after each step {scales} (bounded by "
                  f"32768, overflows at steps {overflows} predicted in "
                  "numpy), equal to the reference at every step")
    worst = max(errors)
    results.check(worst <= 1e-3 and any(found_all[1:]) and
                  not all(found_all[1:]),
                  f"sum loss: applied steps move w by lr * colsum(x) "
                  f"(largest normwise error {worst:.2e}, tolerance 1e-3), "
                  "skipped steps leave it bitwise unchanged")
    for mode in ("static init-scale=1024", "adaptive"):
        tag = "sum_loss_" + mode.split()[0]
        one = tools.build(model, tag, pipeline=(
            f"type=f16 optimizer=sgd lr={lr} loss-scaling={mode}"))
        args, _ = tools.train(one, tag + "_probe", 1)
        (xi,) = indices(args, "inputs", "input")
        (wi,) = indices(args, "outputs", "parameter")
        x1 = rng.standard_normal((1, 16, 32)).astype(np.float32)
        _, out1 = tools.train(one, tag, 1, step_inputs={xi: x1})
        # A zero input has a zero gradient: the step returns w as it was.
        tools.train(one, tag + "_w0", 1, step_inputs={xi: 0 * x1})
        w0 = load_step(os.path.join(tools.workdir, tag + "_w0"), 1,
                       wi).astype(np.float64)
        w1 = load_step(out1, 1, wi).astype(np.float64)
        colsum = x1[0].astype(np.float16).astype(np.float64).sum(axis=0)
        ref = lr * np.broadcast_to(colsum[:, None], w0.shape)
        err = float(np.linalg.norm((w0 - w1) - ref) / np.linalg.norm(ref))
        results.check(err <= 1e-3, f"sum loss, {mode}: one step moves w by "
                      f"lr * colsum(x) (normwise error {err:.2e}, "
                      "tolerance 1e-3)")


EXPERIMENTS = {"overflow": overflow, "growth": growth,
               "hysteresis": hysteresis, "gradscaler": gradscaler,
               "underflow": underflow, "sum-loss": sum_loss}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpt-opt", required=True)
    parser.add_argument("--mpt-run", required=True)
    parser.add_argument("--inputs", required=True,
                        help="test/Integration/Inputs")
    parser.add_argument("experiments", nargs="*",
                        default=list(EXPERIMENTS))
    args = parser.parse_args()
    results = Results()
    with tempfile.TemporaryDirectory() as workdir:
        tools = Tools(args.mpt_opt, args.mpt_run, args.inputs, workdir)
        for name in args.experiments:
            EXPERIMENTS[name](tools, results)
    print(f"loss scaling: {results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
