#!/usr/bin/python3
"""Gradients of mpt-autodiff against finite differences of numpy references.

Per-op checks (float64)
  Each case is a tiny f64 function `@f` whose arguments with
  `#mpt.role<parameter>` are differentiated. The op under test is reduced to
  a scalar loss, usually `reduce_sum(op(...) * r)` with `r` a random input
  (a fixed weighting, so that every element of the output matters and the
  gradient is not trivial); losses (softmax_cross_entropy, mse_loss,
  l1_loss) are the loss themselves. The script runs `mpt-opt --mpt-autodiff`, calls `@f_grad`
  with `mpt-run` on random float64 inputs written as .npy files, and compares
    * the loss (result #0) with an independent numpy float64 implementation
      of the same forward function, written from the op definitions in
      MPTOps.td: |loss - ref| <= 1e-9 (1 + |ref|) (1e-6 for cases that go
      through f32 on purpose, `cast`);
    * every gradient with central finite differences of that numpy forward,
      g_fd[i] = (f(p + eps e_i) - f(p - eps e_i)) / (2 eps), eps = 1e-6,
      normwise: err = ||g - g_fd||_2 / ||g_fd||_2 <= 1e-5 (when g_fd is 0,
      err = max |g| <= 1e-9 instead). Inputs of kinked ops (relu, abs) and
      of ops with restricted domains (log, sqrt, rsqrt, reciprocal, div,
      pow) are drawn away from the kink / the boundary; max, min,
      reduce_max, l1_loss and the pools rely on random inputs having no
      ties.

Example-level checks
  * examples/mlp.mlir and examples/transformer_block.mlir as they are (f32):
    the f32 gradients of `@mlp_grad` / `@transformer_block_grad` against
    float64 central differences (eps = 1e-6) of numpy implementations of the
    models evaluated on the same (f32) weights and inputs, on a random subset
    of the coordinates of every parameter (all of them for small ones) plus
    three random directional derivatives over all parameters together;
    tolerance 1e-3 relative: per parameter,
      err = ||g - g_fd||_2 / max(||g_fd||_2, 1e-3 ||G_fd||_2)
    on its subset, G_fd being the finite differences of all the sampled
    coordinates together (the floor matters only for gradients that vanish
    mathematically: the key bias bk of the attention, since softmax is
    invariant to the shift q.bk of a whole row of scores); |dd - dd_fd| /
    |dd_fd| for the directional derivatives. The loss must match the
    reference to 1e-5 relative in f32.
  * The same two examples converted to f64 (every `f32` of the file
    replaced by `f64`), with the f64 tolerance, 1e-5.
  * examples/cnn.mlir: while one of conv2d, batch_norm and max_pool2d has
    no gradient rule, mpt-autodiff must reject it with "has no gradient
    rule" naming that op; once they all have one, it is checked like the
    other two examples.

Ops without a rule yet
  The cases of conv2d, max_pool2d, avg_pool2d, batch_norm and embedding are
  skipped (a `skipped:` line) while mpt-autodiff rejects them with "has no
  gradient rule", and checked like the others once it accepts them. While
  skipped, the forward function @f still runs and its loss must match the
  reference (so the references are known good before the rules land); the
  same for the forward of examples/cnn.mlir while it is rejected.

Usage: gradcheck.py --mpt-opt build/bin/mpt-opt --mpt-run build/bin/mpt-run
           --examples examples [--filter REGEX] [--keep]
Prints `gradcheck NAME: loss=... err=... tol=... ok|FAIL` per case (the
worst err of its gradients) and ends with
`gradcheck: N passed, M failed, K skipped`; exits 1 when anything failed.
"""

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

FD_EPS = 1e-6
TOL_F64 = 1e-5
TOL_F32 = 1e-3
LOSS_TOL_F64 = 1e-9
ZERO_TOL = 1e-9
FLOOR = 1e-3

# ---------------------------------------------------------------------------
# numpy references, written from the op definitions
# ---------------------------------------------------------------------------

_erf = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    return _erf(np.asarray(x, dtype=np.float64)).astype(np.float64)


def gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) *
                                         (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softmax(x, axis=-1):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def layer_norm(x, scale, bias, axis=-1, eps=1e-5):
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * scale + bias


def mm(a, b, ta=False, tb=False):
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    return np.matmul(a, b)


def softmax_cross_entropy(logits, labels):
    lsm = log_softmax(logits, -1)
    picked = np.take_along_axis(lsm, labels[..., None].astype(np.int64), -1)
    return -picked.mean()


def mse(x, t):
    return np.mean((x - t) ** 2)


def conv2d(x, w, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1,
           layout="nchw"):
    """Cross-correlation, x NCHW and w FCHW (or NHWC and HWCF); pad is
    [top, bottom, left, right] (zeros)."""
    if layout == "nhwc":
        x, w = x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1)
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    oh = (h + pad[0] + pad[1] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pad[2] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, f, oh, ow))
    fg = f // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dil[0], j * dil[1]
                patch = xs[:, :, r0:r0 + stride[0] * (oh - 1) + 1:stride[0],
                           c0:c0 + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, g * fg:(g + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j])
    return out.transpose(0, 2, 3, 1) if layout == "nhwc" else out


def pool2d(x, kernel, stride=(1, 1), pad=(0, 0, 0, 0), mode="max",
           count_include_pad=False, layout="nchw"):
    """Max or average pooling over windows; padded positions never win a
    max and count in an average only with count_include_pad."""
    if layout == "nhwc":
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    oh = (h + pad[0] + pad[1] - kernel[0]) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - kernel[1]) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * stride[0] - pad[0], j * stride[1] - pad[2]
            win = x[:, :, max(h0, 0):min(h0 + kernel[0], h),
                    max(w0, 0):min(w0 + kernel[1], w)]
            if mode == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                count = (kernel[0] * kernel[1] if count_include_pad
                         else win.shape[2] * win.shape[3])
                out[:, :, i, j] = win.sum(axis=(2, 3)) / count
    return out.transpose(0, 2, 3, 1) if layout == "nhwc" else out


def batch_norm(x, scale, bias, axis=1, eps=1e-5):
    axes = tuple(d for d in range(x.ndim) if d != axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return ((x - mean) / np.sqrt(var + eps) * scale.reshape(shape)
            + bias.reshape(shape))


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


def T(shape, ty="f64"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + ty + ">"


class Arg:
    """A function argument: name, shape, role (None for no role), a
    generator rng, shape -> array, and the element type."""

    def __init__(self, name, shape, gen, role=None, ty="f64"):
        self.name, self.shape, self.gen, self.role, self.ty = (
            name, tuple(shape), gen, role, ty)


def normal(scale=1.0):
    return lambda r, s: scale * r.standard_normal(s)


def positive(lo=0.5, hi=2.0):
    return lambda r, s: r.uniform(lo, hi, s)


def away(lo=0.3, hi=2.0):
    """Magnitude in [lo, hi), random sign: away from 0 (relu, reciprocal)."""
    return lambda r, s: r.uniform(lo, hi, s) * r.choice([-1.0, 1.0], s)


def labels(classes):
    return lambda r, s: r.integers(0, classes, s)


def P(name, shape, gen=None):
    return Arg(name, shape, gen or normal(), "parameter")


def I(name, shape, gen=None, ty="f64"):
    return Arg(name, shape, gen or normal(), "input", ty)


class Case:
    """`body` (MLIR lines) defines %loss : tensor<f64> from the arguments;
    `ref` maps the argument values (a dict of float64 / int arrays) to the
    numpy loss."""

    def __init__(self, name, args, body, ref, loss_tol=LOSS_TOL_F64,
                 tol=TOL_F64, optional=False):
        self.name, self.args, self.body, self.ref = name, args, body, ref
        self.loss_tol, self.tol, self.optional = loss_tol, tol, optional

    def module(self):
        params = []
        for a in self.args:
            attr = (f" {{mpt.role = #mpt.role<{a.role}>}}" if a.role else "")
            params.append(f"%{a.name}: {T(a.shape, a.ty)}{attr}")
        body = "\n".join("  " + line for line in self.body.strip().splitlines())
        return (f"func.func @f({', '.join(params)})\n"
                f"    -> (tensor<f64> {{mpt.role = #mpt.role<loss>}}) {{\n"
                f"{body}\n  return %loss : tensor<f64>\n}}\n")


def weighted(name, args, out_shape, lines, fwd, **kw):
    """`lines` define %y : out_shape; the loss is reduce_sum(%y * %r) with a
    random input %r; `fwd` is the numpy version of %y."""
    t = T(out_shape)
    axes = ", ".join(str(i) for i in range(len(out_shape)))
    body = lines.strip() + f"""
%yr = mpt.mul %y, %r : ({t}, {t}) -> {t}
%loss = mpt.reduce_sum %yr axes = [{axes}] : {t} -> tensor<f64>"""
    args = list(args) + [I("r", out_shape)]
    return Case(name, args, body, lambda a: np.sum(fwd(a) * a["r"]), **kw)


def unary_cases():
    s = (3, 4)
    t = T(s)
    ops = [
        ("neg", "mpt.neg %x", normal(), lambda x: -x),
        ("exp", "mpt.exp %x", normal(), np.exp),
        ("log", "mpt.log %x", positive(), np.log),
        ("sqrt", "mpt.sqrt %x", positive(), np.sqrt),
        ("rsqrt", "mpt.rsqrt %x", positive(), lambda x: 1.0 / np.sqrt(x)),
        ("reciprocal", "mpt.reciprocal %x", away(), lambda x: 1.0 / x),
        ("tanh", "mpt.tanh %x", normal(), np.tanh),
        ("sigmoid", "mpt.sigmoid %x", normal(2.0), sigmoid),
        ("relu", "mpt.relu %x", away(0.05, 2.0), lambda x: np.maximum(x, 0)),
        ("gelu", "mpt.gelu %x", normal(1.5), gelu),
        ("gelu_tanh", "mpt.gelu %x approximate<tanh>", normal(1.5),
         lambda x: gelu(x, "tanh")),
    ]
    for name, op, gen, f in ops:
        yield weighted(name, [P("x", s, gen)], s, f"%y = {op} : {t}",
                       lambda a, f=f: f(a["x"]))


def binary_cases():
    def case(name, op, sa, sb, so, ga=None, gb=None, f=None):
        return weighted(
            name, [P("a", sa, ga), P("b", sb, gb)], so,
            f"%y = mpt.{op} %a, %b : ({T(sa)}, {T(sb)}) -> {T(so)}",
            lambda a: f(a["a"], a["b"]))

    add, sub = (lambda x, y: x + y), (lambda x, y: x - y)
    mul, div = (lambda x, y: x * y), (lambda x, y: x / y)
    yield case("add", "add", (3, 4), (3, 4), (3, 4), f=add)
    yield case("add_broadcast_bias", "add", (3, 4), (4,), (3, 4), f=add)
    yield case("add_broadcast_scalar", "add", (3, 4), (), (3, 4), f=add)
    yield case("sub", "sub", (3, 4), (3, 4), (3, 4), f=sub)
    yield case("sub_broadcast", "sub", (2, 3, 4), (3, 1), (2, 3, 4), f=sub)
    yield case("sub_broadcast_lhs", "sub", (4,), (2, 4), (2, 4), f=sub)
    yield case("mul", "mul", (3, 4), (3, 4), (3, 4), f=mul)
    yield case("mul_broadcast_both", "mul", (3, 1), (1, 4), (3, 4), f=mul)
    yield case("div", "div", (3, 4), (3, 4), (3, 4), gb=away(0.5), f=div)
    yield case("div_broadcast", "div", (2, 3), (3,), (2, 3), gb=away(0.5),
               f=div)
    yield case("div_broadcast_lhs", "div", (1, 3), (2, 3), (2, 3),
               gb=away(0.5), f=div)


def matmul_cases():
    m, k, n, b = 3, 4, 5, 2
    for ta in (False, True):
        for tb in (False, True):
            sa = (k, m) if ta else (m, k)
            sb = (n, k) if tb else (k, n)
            flags = ("transpose_a " if ta else "") + ("transpose_b " if tb else "")
            suffix = ("_ta" if ta else "") + ("_tb" if tb else "")
            yield weighted(
                "matmul" + suffix, [P("a", sa), P("b", sb)], (m, n),
                f"%y = mpt.matmul %a, %b {flags}: ({T(sa)}, {T(sb)}) -> {T((m, n))}",
                lambda a, ta=ta, tb=tb: mm(a["a"], a["b"], ta, tb))
            bsa, bsb = (b,) + sa, (b,) + sb
            yield weighted(
                "batch_matmul" + suffix, [P("a", bsa), P("b", bsb)], (b, m, n),
                f"%y = mpt.batch_matmul %a, %b {flags}: ({T(bsa)}, {T(bsb)}) -> {T((b, m, n))}",
                lambda a, ta=ta, tb=tb: mm(a["a"], a["b"], ta, tb))


def normalization_cases():
    yield weighted(
        "softmax", [P("x", (3, 5))], (3, 5),
        f"%y = mpt.softmax %x : {T((3, 5))}", lambda a: softmax(a["x"], -1))
    yield weighted(
        "softmax_axis0", [P("x", (4, 3))], (4, 3),
        f"%y = mpt.softmax %x axis = 0 : {T((4, 3))}",
        lambda a: softmax(a["x"], 0))
    yield weighted(
        "log_softmax", [P("x", (3, 5))], (3, 5),
        f"%y = mpt.log_softmax %x : {T((3, 5))}",
        lambda a: log_softmax(a["x"], -1))
    yield weighted(
        "log_softmax_axis1", [P("x", (2, 3, 4))], (2, 3, 4),
        f"%y = mpt.log_softmax %x axis = 1 : {T((2, 3, 4))}",
        lambda a: log_softmax(a["x"], 1))
    s, w = (3, 6), (6,)
    yield weighted(
        "layer_norm", [P("x", s), P("g", w, normal(0.5)), P("b", w)], s,
        f"%y = mpt.layer_norm %x, %g, %b : ({T(s)}, {T(w)}, {T(w)}) -> {T(s)}",
        lambda a: layer_norm(a["x"], a["g"], a["b"]))
    s, w = (2, 3, 4), (3, 4)
    yield weighted(
        "layer_norm_axis1", [P("x", s), P("g", w, normal(0.5)), P("b", w)], s,
        f"%y = mpt.layer_norm %x, %g, %b axis = 1 epsilon = 1.0e-03 : "
        f"({T(s)}, {T(w)}, {T(w)}) -> {T(s)}",
        lambda a: layer_norm(a["x"], a["g"], a["b"], 1, 1e-3))
    # Only the input is a parameter: scale and bias are plain inputs.
    s, w = (4, 5), (5,)
    yield weighted(
        "layer_norm_input_only", [P("x", s), I("g", w), I("b", w)], s,
        f"%y = mpt.layer_norm %x, %g, %b : ({T(s)}, {T(w)}, {T(w)}) -> {T(s)}",
        lambda a: layer_norm(a["x"], a["g"], a["b"]))


def reduction_cases():
    s = (3, 4, 5)

    def red(name, op, axes, keep, so, f):
        kd = " keep_dims" if keep else ""
        ax = ", ".join(str(a) for a in axes)
        return weighted(
            name, [P("x", s)], so,
            f"%y = mpt.{op} %x axes = [{ax}]{kd} : {T(s)} -> {T(so)}",
            lambda a: f(a["x"], axis=tuple(axes), keepdims=keep))

    yield red("reduce_sum", "reduce_sum", [1], False, (3, 5), np.sum)
    yield red("reduce_sum_keep_dims", "reduce_sum", [0, 2], True, (1, 4, 1),
              np.sum)
    yield red("reduce_sum_negative_axis", "reduce_sum", [-1], False, (3, 4),
              np.sum)
    yield red("reduce_mean", "reduce_mean", [0, 2], False, (4,), np.mean)
    yield red("reduce_mean_keep_dims", "reduce_mean", [2], True, (3, 4, 1),
              np.mean)
    # A reduction straight to the loss (rank 0).
    yield Case("reduce_mean_all", [P("x", s)],
               f"%loss = mpt.reduce_mean %x axes = [0, 1, 2] : {T(s)} -> tensor<f64>",
               lambda a: np.mean(a["x"]))
    yield weighted(
        "global_avg_pool", [P("x", (2, 3, 4, 5))], (2, 3),
        f"%y = mpt.global_avg_pool %x : {T((2, 3, 4, 5))} -> {T((2, 3))}",
        lambda a: a["x"].mean(axis=(2, 3)))
    yield weighted(
        "global_avg_pool_nhwc", [P("x", (2, 4, 5, 3))], (2, 3),
        f"%y = mpt.global_avg_pool %x layout<nhwc> : {T((2, 4, 5, 3))} -> {T((2, 3))}",
        lambda a: a["x"].mean(axis=(1, 2)))


def movement_cases():
    yield weighted(
        "reshape", [P("x", (2, 3, 4))], (6, 4),
        f"%y = mpt.reshape %x : {T((2, 3, 4))} to {T((6, 4))}",
        lambda a: a["x"].reshape(6, 4))
    yield weighted(
        "reshape_rank0", [P("x", ())], (1, 1),
        f"%y = mpt.reshape %x : tensor<f64> to {T((1, 1))}",
        lambda a: a["x"].reshape(1, 1))
    yield weighted(
        "transpose", [P("x", (2, 3, 4))], (4, 2, 3),
        f"%y = mpt.transpose %x perm = [2, 0, 1] : {T((2, 3, 4))} -> {T((4, 2, 3))}",
        lambda a: a["x"].transpose(2, 0, 1))
    yield weighted(
        "broadcast", [P("x", (3, 1))], (2, 3, 4),
        f"%y = mpt.broadcast %x : {T((3, 1))} to {T((2, 3, 4))}",
        lambda a: np.broadcast_to(a["x"], (2, 3, 4)))
    yield weighted(
        "broadcast_leading", [P("x", (4,))], (3, 4),
        f"%y = mpt.broadcast %x : {T((4,))} to {T((3, 4))}",
        lambda a: np.broadcast_to(a["x"], (3, 4)))
    yield weighted(
        "slice", [P("x", (4, 5))], (2, 3),
        f"%y = mpt.slice %x offsets = [1, 2] sizes = [2, 3] : {T((4, 5))} -> {T((2, 3))}",
        lambda a: a["x"][1:3, 2:5])
    yield weighted(
        "slice_unit_strides", [P("x", (2, 4, 3))], (2, 2, 2),
        f"%y = mpt.slice %x offsets = [0, 1, 0] sizes = [2, 2, 2] strides = [1, 1, 1]"
        f" : {T((2, 4, 3))} -> {T((2, 2, 2))}",
        lambda a: a["x"][:, 1:3, 0:2])
    yield weighted(
        "slice_strided", [P("x", (5, 7))], (2, 3),
        f"%y = mpt.slice %x offsets = [1, 0] sizes = [2, 3] strides = [3, 2]"
        f" : {T((5, 7))} -> {T((2, 3))}",
        lambda a: a["x"][1:5:3, 0:6:2])
    yield weighted(
        "slice_strided_to_end", [P("x", (6,))], (3,),
        f"%y = mpt.slice %x offsets = [1] sizes = [3] strides = [2]"
        f" : {T((6,))} -> {T((3,))}",
        lambda a: a["x"][1:6:2])
    yield weighted(
        "pad", [P("x", (2, 3))], (3, 5),
        f"%y = mpt.pad %x low = [1, 0] high = [0, 2] value = 3.0 : {T((2, 3))} -> {T((3, 5))}",
        lambda a: np.pad(a["x"], ((1, 0), (0, 2)), constant_values=3.0))
    yield weighted(
        "concat", [P("a", (2, 3)), P("b", (2, 1)), P("c", (2, 2))], (2, 6),
        f"%y = mpt.concat %a, %b, %c axis = 1 : ({T((2, 3))}, {T((2, 1))}, {T((2, 2))}) -> {T((2, 6))}",
        lambda a: np.concatenate([a["a"], a["b"], a["c"]], axis=1))
    yield weighted(
        "concat_negative_axis", [P("a", (1, 3)), P("b", (2, 3))], (3, 3),
        f"%y = mpt.concat %a, %b axis = -2 : ({T((1, 3))}, {T((2, 3))}) -> {T((3, 3))}",
        lambda a: np.concatenate([a["a"], a["b"]], axis=0))
    # The same value twice in one concat: both slices of the gradient add up.
    yield weighted(
        "concat_same_value", [P("a", (2, 3))], (2, 6),
        f"%y = mpt.concat %a, %a axis = 1 : ({T((2, 3))}, {T((2, 3))}) -> {T((2, 6))}",
        lambda a: np.concatenate([a["a"], a["a"]], axis=1))
    # f64 -> f32 -> f64: the gradient goes through f32 (about 1e-7 relative).
    s = (3, 4)
    yield weighted(
        "cast", [P("x", s)], s,
        f"""%c = mpt.cast %x : {T(s)} to {T(s, 'f32')}
%e = mpt.exp %c : {T(s, 'f32')}
%y = mpt.cast %e : {T(s, 'f32')} to {T(s)}""",
        lambda a: np.exp(a["x"]), loss_tol=1e-6)


def loss_cases():
    yield Case(
        "softmax_cross_entropy",
        [P("x", (4, 5)), I("l", (4,), labels(5), "i64")],
        f"%loss = mpt.softmax_cross_entropy %x, %l : ({T((4, 5))}, {T((4,), 'i64')}) -> tensor<f64>",
        lambda a: softmax_cross_entropy(a["x"], a["l"]))
    yield Case(
        "softmax_cross_entropy_rank3",
        [P("x", (2, 3, 5)), I("l", (2, 3), labels(5), "i32")],
        f"%loss = mpt.softmax_cross_entropy %x, %l : ({T((2, 3, 5))}, {T((2, 3), 'i32')}) -> tensor<f64>",
        lambda a: softmax_cross_entropy(a["x"], a["l"]))
    # Scaled: the gradient of the loss is not 1.
    yield Case(
        "softmax_cross_entropy_scaled",
        [P("x", (4, 5)), I("l", (4,), labels(5), "i64"), I("s", ())],
        f"""%ce = mpt.softmax_cross_entropy %x, %l : ({T((4, 5))}, {T((4,), 'i64')}) -> tensor<f64>
%loss = mpt.mul %ce, %s : (tensor<f64>, tensor<f64>) -> tensor<f64>""",
        lambda a: softmax_cross_entropy(a["x"], a["l"]) * a["s"])
    yield Case(
        "mse_loss", [P("x", (3, 4)), P("t", (3, 4))],
        f"%loss = mpt.mse_loss %x, %t : ({T((3, 4))}, {T((3, 4))}) -> tensor<f64>",
        lambda a: mse(a["x"], a["t"]))
    yield Case(
        "mse_loss_scaled", [P("x", (3, 4)), I("t", (3, 4)), I("s", ())],
        f"""%m = mpt.mse_loss %x, %t : ({T((3, 4))}, {T((3, 4))}) -> tensor<f64>
%loss = mpt.mul %m, %s : (tensor<f64>, tensor<f64>) -> tensor<f64>""",
        lambda a: mse(a["x"], a["t"]) * a["s"])


def graph_cases():
    # A constant on the path (its own gradient goes nowhere).
    c = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    text = ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]"
                     for row in c)
    yield weighted(
        "constant", [P("x", (2, 3))], (2, 3),
        f"""%c = mpt.constant dense<[{text}]> : {T((2, 3))}
%m = mpt.mul %x, %c : ({T((2, 3))}, {T((2, 3))}) -> {T((2, 3))}
%y = mpt.add %m, %c : ({T((2, 3))}, {T((2, 3))}) -> {T((2, 3))}""",
        lambda a: a["x"] * c + c)
    # A value used several times: x * tanh(x) + exp(x).
    s = (3, 4)
    t = T(s)
    yield weighted(
        "reuse", [P("x", s)], s,
        f"""%t = mpt.tanh %x : {t}
%m = mpt.mul %x, %t : ({t}, {t}) -> {t}
%e = mpt.exp %x : {t}
%y = mpt.add %m, %e : ({t}, {t}) -> {t}""",
        lambda a: a["x"] * np.tanh(a["x"]) + np.exp(a["x"]))
    # x * x (one op, both operands).
    yield weighted(
        "square", [P("x", s)], s, f"%y = mpt.mul %x, %x : ({t}, {t}) -> {t}",
        lambda a: a["x"] * a["x"])
    # A parameter the loss does not depend on: a zero gradient.
    yield weighted(
        "unused_parameter", [P("x", s), P("u", (2, 2))], s,
        f"%y = mpt.exp %x : {t}", lambda a: np.exp(a["x"]))
    # A small MLP with every parameter, integer labels in the middle of the
    # argument list, and a rank-0 scale.
    xs, w1, b1, w2, b2 = (4, 6), (6, 5), (5,), (5, 3), (3,)
    yield Case(
        "mlp_f64",
        [I("x", xs), P("w1", w1), P("b1", b1, normal(0.1)),
         I("l", (4,), labels(3), "i64"), P("w2", w2), P("b2", b2)],
        f"""%h0 = mpt.matmul %x, %w1 : ({T(xs)}, {T(w1)}) -> {T((4, 5))}
%h1 = mpt.add %h0, %b1 : ({T((4, 5))}, {T(b1)}) -> {T((4, 5))}
%h = mpt.tanh %h1 : {T((4, 5))}
%o0 = mpt.matmul %h, %w2 : ({T((4, 5))}, {T(w2)}) -> {T((4, 3))}
%o = mpt.add %o0, %b2 : ({T((4, 3))}, {T(b2)}) -> {T((4, 3))}
%loss = mpt.softmax_cross_entropy %o, %l : ({T((4, 3))}, {T((4,), 'i64')}) -> tensor<f64>""",
        lambda a: softmax_cross_entropy(
            np.tanh(a["x"] @ a["w1"] + a["b1"]) @ a["w2"] + a["b2"], a["l"]))
    # Attention: softmax(q k^T * scale) v with a layer norm in front.
    sq = (2, 4, 3)
    yield weighted(
        "attention", [P("q", sq), P("k", sq), P("v", sq), P("g", (3,)),
                      P("b", (3,))], sq,
        f"""%n = mpt.layer_norm %q, %g, %b : ({T(sq)}, {T((3,))}, {T((3,))}) -> {T(sq)}
%s0 = mpt.batch_matmul %n, %k transpose_b : ({T(sq)}, {T(sq)}) -> {T((2, 4, 4))}
%c = mpt.constant dense<0.5> : tensor<f64>
%s = mpt.mul %s0, %c : ({T((2, 4, 4))}, tensor<f64>) -> {T((2, 4, 4))}
%p = mpt.softmax %s : {T((2, 4, 4))}
%y = mpt.batch_matmul %p, %v : ({T((2, 4, 4))}, {T(sq)}) -> {T(sq)}""",
        lambda a: mm(softmax(mm(layer_norm(a["q"], a["g"], a["b"]), a["k"],
                                tb=True) * 0.5), a["v"]))


def selection_cases():
    """max, min, abs, pow, reduce_max, l1_loss: piecewise ops, with inputs
    that keep finite differences away from ties and kinks."""
    def case(name, op, sa, sb, so, f, ga=None, gb=None):
        return weighted(
            name, [P("a", sa, ga), P("b", sb, gb)], so,
            f"%y = mpt.{op} %a, %b : ({T(sa)}, {T(sb)}) -> {T(so)}",
            lambda a: f(a["a"], a["b"]))

    yield case("max", "max", (3, 4), (3, 4), (3, 4), np.maximum)
    yield case("max_broadcast", "max", (3, 4), (4,), (3, 4), np.maximum)
    yield case("min", "min", (3, 4), (3, 4), (3, 4), np.minimum)
    yield case("min_broadcast", "min", (2, 1), (2, 3), (2, 3), np.minimum)
    yield case("pow", "pow", (3, 4), (3, 4), (3, 4), np.power,
               ga=positive(), gb=normal())
    yield case("pow_broadcast", "pow", (3, 4), (), (3, 4), np.power,
               ga=positive(), gb=normal())
    yield weighted("abs", [P("x", (3, 4), away(0.05))], (3, 4),
                   f"%y = mpt.abs %x : {T((3, 4))}", lambda a: np.abs(a["x"]))
    s = (3, 4, 5)
    yield weighted(
        "reduce_max", [P("x", s)], (3, 5),
        f"%y = mpt.reduce_max %x axes = [1] : {T(s)} -> {T((3, 5))}",
        lambda a: a["x"].max(axis=1))
    yield weighted(
        "reduce_max_keep_dims", [P("x", s)], (1, 4, 1),
        f"%y = mpt.reduce_max %x axes = [0, 2] keep_dims : {T(s)} -> {T((1, 4, 1))}",
        lambda a: a["x"].max(axis=(0, 2), keepdims=True))
    yield Case(
        "l1_loss", [P("x", (3, 4)), P("t", (3, 4))],
        f"%loss = mpt.l1_loss %x, %t : ({T((3, 4))}, {T((3, 4))}) -> tensor<f64>",
        lambda a: np.mean(np.abs(a["x"] - a["t"])))


def image_cases():
    """Ops that had no gradient rule when this test was written: each case
    is skipped (and says so) while mpt-autodiff rejects it with "has no
    gradient rule", and checked like the others once it has one."""
    def conv(name, sx, sw, so, attrs, **kw):
        layout = kw.get("layout", "nchw")
        return weighted(
            name, [P("x", sx), P("w", sw)], so,
            f"%y = mpt.conv2d %x, %w {attrs}: ({T(sx)}, {T(sw)}) -> {T(so)}",
            lambda a: conv2d(a["x"], a["w"], **kw), optional=True)

    yield conv("conv2d", (2, 3, 5, 5), (4, 3, 3, 3), (2, 4, 5, 5),
               "pad [1, 1, 1, 1] ", pad=(1, 1, 1, 1))
    yield conv("conv2d_stride_dilation", (1, 2, 7, 6), (3, 2, 2, 3),
               (1, 3, 3, 3), "stride [2, 2] pad [0, 1, 1, 0] dilation [2, 1] ",
               stride=(2, 2), pad=(0, 1, 1, 0), dil=(2, 1))
    yield conv("conv2d_groups", (1, 4, 4, 4), (6, 2, 3, 3), (1, 6, 2, 2),
               "groups 2 ", groups=2)
    yield conv("conv2d_nhwc", (1, 5, 5, 2), (3, 3, 2, 4), (1, 3, 3, 4),
               "layout<nhwc> ", layout="nhwc")
    sx = (2, 3, 6, 6)
    yield weighted(
        "max_pool2d", [P("x", sx)], (2, 3, 3, 3),
        f"%y = mpt.max_pool2d %x kernel [2, 2] stride [2, 2] : {T(sx)} -> {T((2, 3, 3, 3))}",
        lambda a: pool2d(a["x"], (2, 2), (2, 2)), optional=True)
    yield weighted(
        "max_pool2d_overlap_pad", [P("x", sx)], (2, 3, 3, 3),
        f"%y = mpt.max_pool2d %x kernel [3, 3] stride [2, 2] pad [1, 0, 1, 0] : {T(sx)} -> {T((2, 3, 3, 3))}",
        lambda a: pool2d(a["x"], (3, 3), (2, 2), (1, 0, 1, 0)), optional=True)
    yield weighted(
        "avg_pool2d", [P("x", sx)], (2, 3, 6, 6),
        f"%y = mpt.avg_pool2d %x kernel [3, 3] pad [1, 1, 1, 1] : {T(sx)} -> {T(sx)}",
        lambda a: pool2d(a["x"], (3, 3), (1, 1), (1, 1, 1, 1), "avg"),
        optional=True)
    yield weighted(
        "avg_pool2d_count_include_pad", [P("x", sx)], (2, 3, 6, 6),
        f"%y = mpt.avg_pool2d %x kernel [3, 3] pad [1, 1, 1, 1] count_include_pad : {T(sx)} -> {T(sx)}",
        lambda a: pool2d(a["x"], (3, 3), (1, 1), (1, 1, 1, 1), "avg", True),
        optional=True)
    sb, c = (4, 3, 2, 2), (3,)
    yield weighted(
        "batch_norm", [P("x", sb), P("g", c, normal(0.5)), P("b", c)], sb,
        f"%y = mpt.batch_norm %x, %g, %b : ({T(sb)}, {T(c)}, {T(c)}) -> {T(sb)}",
        lambda a: batch_norm(a["x"], a["g"], a["b"]), optional=True)
    sb = (3, 2, 4)
    yield weighted(
        "batch_norm_last_axis", [P("x", sb), P("g", (4,), normal(0.5)),
                                 P("b", (4,))], sb,
        f"%y = mpt.batch_norm %x, %g, %b axis = 2 epsilon = 1.0e-03 : ({T(sb)}, {T((4,))}, {T((4,))}) -> {T(sb)}",
        lambda a: batch_norm(a["x"], a["g"], a["b"], 2, 1e-3), optional=True)
    # Repeated indices: their rows' gradients add up.
    ids = np.array([[0, 2, 2], [5, 0, 3]])
    yield weighted(
        "embedding", [P("t", (6, 4)), I("i", (2, 3), lambda r, s: ids, "i64")],
        (2, 3, 4),
        f"%y = mpt.embedding %t, %i : ({T((6, 4))}, {T((2, 3), 'i64')}) -> {T((2, 3, 4))}",
        lambda a: a["t"][a["i"]], optional=True)


def all_cases():
    for gen in (unary_cases, binary_cases, matmul_cases, normalization_cases,
                reduction_cases, movement_cases, loss_cases, graph_cases,
                selection_cases, image_cases):
        yield from gen()


# ---------------------------------------------------------------------------
# Running mpt-opt and mpt-run
# ---------------------------------------------------------------------------


class NoRule(Exception):
    """mpt-autodiff rejected the function: an op has no gradient rule."""


class Tools:
    def __init__(self, mpt_opt, mpt_run, workdir):
        self.mpt_opt, self.mpt_run, self.workdir = mpt_opt, mpt_run, workdir

    def autodiff(self, name, module_text, source=None):
        """Runs mpt-opt --mpt-autodiff; returns the path of the result."""
        src = source or os.path.join(self.workdir, f"{name}.mlir")
        if source is None:
            with open(src, "w") as f:
                f.write(module_text)
        out = os.path.join(self.workdir, f"{name}.grad.mlir")
        proc = subprocess.run([self.mpt_opt, src, "--mpt-autodiff", "-o", out],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            m = re.search(r"error: ('[\w.]+' op has no gradient rule)",
                          proc.stderr)
            if m:
                raise NoRule(m.group(1))
            raise RuntimeError(f"mpt-opt --mpt-autodiff failed:\n{proc.stderr}")
        return out

    def run(self, name, path, entry, values, types):
        """Calls `entry` on `values` (written with numpy dtypes of `types`);
        returns the results read back."""
        d = os.path.join(self.workdir, name)
        os.makedirs(d, exist_ok=True)
        cmd = [self.mpt_run, path, f"--entry={entry}", f"--output-dir={d}/out"]
        for i, (v, ty) in enumerate(zip(values, types)):
            f = os.path.join(d, f"arg{i}.npy")
            np.save(f, np.asarray(v, dtype=NUMPY_TYPES[ty]))
            cmd.append(f"--input={f}")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"mpt-run failed ({proc.returncode}):\n"
                               + (proc.stderr or proc.stdout)[-3000:])
        results, i = [], 0
        while os.path.exists(os.path.join(d, "out", f"result_{i}.npy")):
            results.append(np.load(os.path.join(d, "out", f"result_{i}.npy")))
            i += 1
        return results


NUMPY_TYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64,
               "i32": np.int32}


def central_differences(forward, values, name, indices=None):
    """d forward / d values[name] at `indices` (flat; None: all), central
    differences with FD_EPS in float64."""
    p = values[name]
    flat = p.reshape(-1)
    idx = range(flat.size) if indices is None else indices
    out = []
    for i in idx:
        old = flat[i]
        flat[i] = old + FD_EPS
        fp = forward(values)
        flat[i] = old - FD_EPS
        fm = forward(values)
        flat[i] = old
        out.append((fp - fm) / (2 * FD_EPS))
    return np.array(out)


def compare(g, g_fd):
    """Normwise relative error, or max |g| when the reference is zero."""
    g = np.asarray(g, dtype=np.float64).reshape(-1)
    g_fd = np.asarray(g_fd, dtype=np.float64).reshape(-1)
    if g.shape != g_fd.shape:
        return math.inf, False
    ref = np.linalg.norm(g_fd)
    if not np.all(np.isfinite(g)):
        return math.inf, False
    if ref == 0.0:
        return float(np.max(np.abs(g), initial=0.0)), True
    return float(np.linalg.norm(g - g_fd) / ref), False


def check_case(tools, case):
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    values = {}
    for a in case.args:
        v = a.gen(rng, a.shape)
        values[a.name] = np.array(v, dtype=np.int64 if a.ty.startswith("i")
                                  else np.float64).reshape(a.shape)
    try:
        path = tools.autodiff(case.name, case.module())
    except NoRule as error:
        if not case.optional:
            raise
        # Until the rule exists, at least the reference must match the
        # forward function.
        src = os.path.join(tools.workdir, f"{case.name}.mlir")
        outs = tools.run(case.name, src, "f",
                         [values[a.name] for a in case.args],
                         [a.ty for a in case.args])
        loss, loss_ref = float(outs[0]), float(case.ref(values))
        if abs(loss - loss_ref) <= case.loss_tol * (1 + abs(loss_ref)):
            return None, (f"skipped: {error} (forward loss {loss:.6g} matches "
                          f"the reference)")
        return False, (f"{error}; the forward loss {loss!r} does not match "
                       f"the reference {loss_ref!r}")
    outs = tools.run(case.name, path, "f_grad",
                     [values[a.name] for a in case.args],
                     [a.ty for a in case.args])
    params = [a for a in case.args if a.role == "parameter"]
    if len(outs) != 1 + len(params):
        return False, f"expected {1 + len(params)} results, got {len(outs)}"
    loss_ref = float(case.ref(values))
    loss = float(outs[0])
    loss_ok = abs(loss - loss_ref) <= case.loss_tol * (1 + abs(loss_ref))
    ok, worst, details, details_ok = loss_ok, 0.0, [], []
    for a, g in zip(params, outs[1:]):
        if g.shape != a.shape:
            ok = False
            details.append(f"{a.name}: shape {g.shape} != {a.shape}")
            continue
        g_fd = central_differences(case.ref, values, a.name)
        err, zero = compare(g, g_fd)
        tol = ZERO_TOL if zero else case.tol
        if zero:
            details_ok.append(f"{a.name}: zero gradient, max |g| = {err:.1e}")
        else:
            worst = max(worst, err)
        if not err <= tol:
            ok = False
            details.append(f"{a.name}: err={err:.2e} > {tol:.0e}"
                           f"\n      g    = {np.round(g.reshape(-1)[:8], 6)}"
                           f"\n      g_fd = {np.round(g_fd.reshape(-1)[:8], 6)}")
    msg = (f"loss={loss:.6g} (ref {loss_ref:.6g}{'' if loss_ok else ' MISMATCH'}) "
           f"err={worst:.1e} tol={case.tol:.0e}")
    if details_ok:
        msg += " (" + "; ".join(details_ok) + ")"
    return ok, msg + "".join("\n    " + d for d in details)


# ---------------------------------------------------------------------------
# Examples
# ---------------------------------------------------------------------------


def mlp_forward(v):
    h = np.maximum(v["x"] @ v["w1"] + v["b1"], 0.0)
    return softmax_cross_entropy(h @ v["w2"] + v["b2"], v["labels"])


def transformer_forward(v):
    x = v["x"]

    def heads(t):
        return t.reshape(4, 16, 4, 16).transpose(0, 2, 1, 3).reshape(16, 16, 16)

    h = layer_norm(x, v["ln1_g"], v["ln1_b"]).reshape(64, 64)
    q = heads(h @ v["wq"] + v["bq"])
    k = heads(h @ v["wk"] + v["bk"])
    val = heads(h @ v["wv"] + v["bv"])
    p = softmax(mm(q, k, tb=True) * 0.25, -1)
    ctx = (p @ val).reshape(4, 4, 16, 16).transpose(0, 2, 1, 3).reshape(64, 64)
    y1 = x + (ctx @ v["wo"] + v["bo"]).reshape(4, 16, 64)
    m = layer_norm(y1, v["ln2_g"], v["ln2_b"]).reshape(64, 64)
    act = gelu(m @ v["w_fc1"] + v["b_fc1"])
    y2 = y1 + (act @ v["w_fc2"] + v["b_fc2"]).reshape(4, 16, 64)
    return mse(y2, v["target"])


def cnn_forward(v):
    def block(x, w, g, b):
        return np.maximum(batch_norm(conv2d(x, w, pad=(1, 1, 1, 1)), g, b), 0)

    p1 = pool2d(block(v["x"], v["w1"], v["g1"], v["be1"]), (2, 2), (2, 2))
    feat = block(p1, v["w2"], v["g2"], v["be2"]).mean(axis=(2, 3))
    return softmax_cross_entropy(feat @ v["wf"] + v["bf"], v["labels"])


def example_args(path):
    """(name, shape, element type, role) of each argument of the example's
    function, parsed from its text."""
    text = open(path).read()
    args = []
    for m in re.finditer(r"%(\w+): tensor<([0-9x]*)(f32|i64)> \{mpt.role = "
                         r"#mpt.role<(\w+)>\}", text):
        dims = [int(d) for d in m.group(2).split("x") if d]
        args.append((m.group(1), tuple(dims), m.group(3), m.group(4)))
    return args


def example_values(name, args, rng):
    values = {}
    for arg, shape, ty, role in args:
        if ty == "i64":
            values[arg] = rng.integers(0, 10, shape)
        elif role == "parameter" and len(shape) == 2:
            values[arg] = rng.standard_normal(shape) / math.sqrt(shape[0])
        elif role == "parameter" and len(shape) == 4:   # FCHW filters
            values[arg] = (rng.standard_normal(shape) /
                           math.sqrt(int(np.prod(shape[1:]))))
        elif role == "parameter" and re.match(r"(ln)?\d?g\d?$", arg):
            values[arg] = 1.0 + 0.1 * rng.standard_normal(shape)
        elif role == "parameter":
            values[arg] = 0.1 * rng.standard_normal(shape)
        else:
            values[arg] = rng.standard_normal(shape)
    return values


def check_example(tools, examples, model, forward, ty, directions=3):
    """The gradients of examples/<model>.mlir (element type `ty`: the file
    as it is for f32, converted for f64) against finite differences of the
    numpy `forward` in float64."""
    src = os.path.join(examples, f"{model}.mlir")
    args = example_args(src)
    rng = np.random.default_rng(zlib.crc32(f"{model}".encode()))
    values = example_values(model, args, rng)
    if ty == "f32":
        # The model sees float32 values: the reference uses the same ones.
        values = {k: (v.astype(np.float32).astype(np.float64)
                      if v.dtype.kind == "f" else v) for k, v in values.items()}
        path = tools.autodiff(f"{model}_f32", None, source=src)
        tol = TOL_F32
    else:
        text = open(src).read().replace("f32", "f64")
        path = tools.autodiff(f"{model}_f64", text)
        tol = TOL_F64
    types = [("i64" if t == "i64" else ty) for _, _, t, _ in args]
    outs = tools.run(f"{model}_{ty}", path, f"{model}_grad",
                     [values[a[0]] for a in args], types)
    params = [a for a in args if a[3] == "parameter"]
    if len(outs) != 1 + len(params):
        return False, f"expected {1 + len(params)} results, got {len(outs)}"
    loss, loss_ref = float(outs[0]), forward(values)
    loss_tol = 1e-5 if ty == "f32" else LOSS_TOL_F64
    loss_ok = abs(loss - loss_ref) <= loss_tol * (1 + abs(loss_ref))
    ok, worst, details, coords = loss_ok, 0.0, [], 0
    grads, sampled = {}, []
    for (name, shape, _, _), g in zip(params, outs[1:]):
        g = np.asarray(g, dtype=np.float64)
        grads[name] = g
        if g.shape != shape:
            ok = False
            details.append(f"{name}: shape {g.shape} != {shape}")
            continue
        size = int(np.prod(shape))
        idx = (list(range(size)) if size <= 16 else
               sorted(rng.choice(size, 16, replace=False).tolist()))
        coords += len(idx)
        g_fd = central_differences(forward, values, name, idx)
        sampled.append((name, g.reshape(-1)[idx], g_fd))
    # A parameter whose true gradient vanishes (the key bias of attention:
    # softmax does not change when every score of a row shifts by q.bk) is
    # compared against the scale of the whole gradient.
    floor = FLOOR * float(np.linalg.norm(np.concatenate([s[2] for s in sampled])))
    for name, g, g_fd in sampled:
        err = float(np.linalg.norm(g - g_fd) /
                    max(float(np.linalg.norm(g_fd)), floor))
        worst = max(worst, err)
        if not err <= tol:
            ok = False
            details.append(f"{name}: err={err:.2e} > {tol:.0e}")
    # Directional derivatives over all parameters at once.
    for d in range(directions):
        dirs = {name: rng.standard_normal(shape) for name, shape, _, _ in params}
        dd = sum(float(np.sum(grads[n] * dirs[n])) for n in dirs)
        saved = {n: values[n].copy() for n in dirs}
        for n in dirs:
            values[n] = saved[n] + FD_EPS * dirs[n]
        fp = forward(values)
        for n in dirs:
            values[n] = saved[n] - FD_EPS * dirs[n]
        fm = forward(values)
        values.update(saved)
        dd_fd = (fp - fm) / (2 * FD_EPS)
        err = abs(dd - dd_fd) / abs(dd_fd)
        worst = max(worst, err)
        if not err <= tol:
            ok = False
            details.append(f"direction {d}: {dd:.8g} vs {dd_fd:.8g}, "
                           f"err={err:.2e} > {tol:.0e}")
    msg = (f"loss={loss:.6g} (ref {loss_ref:.6g}{'' if loss_ok else ' MISMATCH'}) "
           f"{len(params)} gradients, {coords} coordinates + {directions} directions, "
           f"err={worst:.1e} tol={tol:.0e}")
    return ok, msg + "".join("\n    " + d for d in details)


def check_cnn(tools, examples, ty):
    """examples/cnn.mlir uses conv2d, batch_norm and max_pool2d. While one
    of them has no gradient rule, mpt-autodiff must reject the model with
    "has no gradient rule" naming it; once all have rules, the gradients are
    checked like those of the other examples."""
    try:
        # No directional derivatives: a step along a direction of all
        # parameters moves some of the CNN's ~10^5 pre-relu and max-pool
        # values across a kink, where central differences of the piecewise
        # linear function are not its derivative. Single coordinates are
        # checked.
        return check_example(tools, examples, "cnn", cnn_forward, ty,
                             directions=0)
    except NoRule as error:
        if not re.search(r"'mpt\.(conv2d|batch_norm|max_pool2d)'", str(error)):
            raise
        # The forward function must still match the numpy model.
        src = os.path.join(examples, "cnn.mlir")
        args = example_args(src)
        values = example_values("cnn", args, np.random.default_rng(
            zlib.crc32(b"cnn")))
        values = {k: (v.astype(np.float32).astype(np.float64)
                      if v.dtype.kind == "f" else v) for k, v in values.items()}
        if ty == "f64":
            src = os.path.join(tools.workdir, "cnn_f64.mlir")
            with open(src, "w") as f:
                f.write(open(os.path.join(examples, "cnn.mlir")).read()
                        .replace("f32", "f64"))
        types = [("i64" if t == "i64" else ty) for _, _, t, _ in args]
        outs = tools.run(f"cnn_forward_{ty}", src, "cnn",
                         [values[a[0]] for a in args], types)
        loss, loss_ref = float(outs[0]), cnn_forward(values)
        tol = 1e-5 if ty == "f32" else LOSS_TOL_F64
        if abs(loss - loss_ref) <= tol * (1 + abs(loss_ref)):
            return True, (f"rejected: {error} (forward loss {loss:.6g} "
                          f"matches the reference)")
        return False, (f"rejected: {error}, and the forward loss {loss!r} "
                       f"does not match the reference {loss_ref!r}")


# ---------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpt-opt", required=True)
    parser.add_argument("--mpt-run", required=True)
    parser.add_argument("--examples", required=True,
                        help="the examples/ directory of the repository")
    parser.add_argument("--filter", default=None)
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary directory")
    args = parser.parse_args()
    for tool in (args.mpt_opt, args.mpt_run):
        if not os.access(tool, os.X_OK):
            print(f"error: {tool} is not an executable", file=sys.stderr)
            return 2
    workdir = tempfile.mkdtemp(prefix="mpt-gradcheck-")
    tools = Tools(args.mpt_opt, args.mpt_run, workdir)
    pattern = re.compile(args.filter) if args.filter else None

    checks = [(c.name, lambda c=c: check_case(tools, c)) for c in all_cases()]
    for model, fwd in (("mlp", mlp_forward),
                       ("transformer_block", transformer_forward)):
        for ty in ("f32", "f64"):
            checks.append((f"example {model} {ty}",
                           lambda m=model, f=fwd, t=ty:
                           check_example(tools, args.examples, m, f, t)))
    for ty in ("f32", "f64"):
        checks.append((f"example cnn {ty}",
                       lambda t=ty: check_cnn(tools, args.examples, t)))

    passed = failed = skipped = 0
    start = time.time()
    for name, check in checks:
        if pattern and not pattern.search(name):
            continue
        try:
            ok, msg = check()
        except Exception as error:  # pylint: disable=broad-except
            ok, msg = False, f"error: {error}"
        if ok is None:
            print(f"gradcheck {name}: {msg}", flush=True)
            skipped += 1
            continue
        first, _, rest = msg.partition("\n")
        print(f"gradcheck {name}: {first} {'ok' if ok else 'FAIL'}"
              + (("\n" + rest) if rest else ""), flush=True)
        passed, failed = passed + ok, failed + (not ok)
    print(f"gradcheck: {passed} passed, {failed} failed, {skipped} skipped "
          f"({time.time() - start:.1f} s)")
    if args.keep:
        print(f"kept {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
