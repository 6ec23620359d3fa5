#!/usr/bin/python3
"""Numerics of every mpt op on the CPU, against independent numpy references.

Each case is one mpt op in a small function with static shapes, written from
a template per element type. The script draws the inputs with a seeded numpy
generator, runs the function once with `mpt-run --output-dir` (one JIT
compilation per case, all in one temporary directory) and compares the
results with a numpy reference written from the op's definition in
MPTOps.td (not from the lowering).

Inputs and references
  * f32: the inputs are float32; the reference computes in float64.
  * f16 / bf16: the inputs are first rounded to the type (np.float16 for
    f16; for bf16, float32 rounded to nearest even by bit manipulation on the
    uint32 pattern); the reference computes in float64 from those rounded
    inputs (at least as accurate as float32) and rounds the final result once
    to the type (round to nearest even, overflow to inf).
  * Formulas that cancel are evaluated through exact identities (gelu as
    0.5 x erfc(-x / sqrt 2), the tanh gelu as x sigmoid(2u)), so that the
    reference stays accurate in the left tail.

Tolerances (a case passes when err <= tol; the line shows both)
  * exact: data movement, neg/abs/relu/max/min, relu_grad, reduce_max,
    max_pool2d, max_pool2d_grad with non-overlapping windows, embedding,
    constant and casts: the result equals the
    (rounded) reference exactly; err = max |out - ref|.
  * f32, elementwise ops: allclose with rtol = 1e-5, atol = 1e-6, reported as
    err = max |out - ref| / (|ref| + atol/rtol), tol = 1e-5.
  * f32, contractions, reductions, normalizations, pooling, losses: normwise
    err = ||out - ref||_2 / ||ref||_2, tol = 1e-5.
  * f16 / bf16, elementwise ops (incl. gelu_grad, sgd_update, and
    momentum_update / adam_update, which compute in f32 and round each result
    once): within one ulp of the rounded reference:
    |out - ref| <= rtol |ref| + atol with rtol = 2^-10 (f16) or 2^-7 (bf16),
    and atol the smallest subnormal of the type (2^-24, 2^-133). Reported as
    err = max |out - ref| / (|ref| + atol/rtol), tol = rtol.
  * f16 / bf16, contractions and sums (matmul, batch_matmul, conv2d and its
    backward_data / backward_filter, reduce_sum/mean, avg_pool2d,
    global_avg_pool, max_pool2d_grad with overlapping windows,
    avg_pool2d_grad, embedding_grad): one ulp plus the classical
    floating-point summation bound of the accumulator:
    |out - ref| <= rtol |ref| + atol + gamma_{K+1}(u) * (|op|(|inputs|)),
    gamma_n(u) = n u / (1 - n u), K the number of summed terms, u the unit
    roundoff of the accumulator: 2^-24 with acc(f32) (and for the sums, which
    accumulate in f32), 2^-11 (f16) or 2^-8 (bf16) without acc (accumulation
    in the element type). |op|(|inputs|) is the op applied to the absolute
    values of the inputs. Reported like the elementwise error, with the extra
    term folded into the denominator; tol = rtol.
  * f16 / bf16, other ops computed in f32 and rounded once (softmax,
    log_softmax and their gradients, layer_norm, batch_norm, losses, softmax_cross_entropy_grad,
    layer_norm_grad, batch_norm_grad): one ulp plus an absolute slack of
    2^-18 * max|ref| (64 f32 ulps of the largest result, for the f32
    arithmetic inside the op; 1/256 of an f16 ulp there).
  * matmul accuracy: with f16 (and bf16) inputs, acc(f32) must be closer than
    the plain matmul (accumulation in the element type), normwise, both to the
    exact product of the rounded inputs and to the f32 reference (the product
    of the unrounded float32 inputs).
  * coverage: every op defined in include/mpt/Dialect/MPT/IR/MPTOps.td must
    appear in some case.
  * reference self-checks (float64, no mpt-run): the references of the
    backward ops against the forward references, through the adjoint
    identities of the linear ops (conv2d, average pooling, embedding) and
    central differences of max pooling and batch_norm.
  * cast rounding: bit-exact results (NaN only has to stay NaN) for tables of
    ties, subnormals, overflow, NaN and signed zeros, random bit patterns and
    all 65536 f16 / bf16 values.

Usage: op_numerics.py --mpt-run build/bin/mpt-run [--filter REGEX] [--keep]
Prints `op dtype: err=... tol=... ok` per case and ends with
`op numerics: N passed, M failed`; exits 1 when anything failed.
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

FLOATS = ("f32", "f16", "bf16")
NARROW = ("f16", "bf16")

# rtol (one ulp, relative), atol (smallest subnormal), unit roundoff.
ULP = {"f16": (2.0 ** -10, 2.0 ** -24, 2.0 ** -11),
       "bf16": (2.0 ** -7, 2.0 ** -133, 2.0 ** -8)}
U_F32 = 2.0 ** -24
F32_RTOL, F32_ATOL, F32_NORM = 1e-5, 1e-6, 1e-5
COMPOSITE_SLACK = 2.0 ** -18

# ---------------------------------------------------------------------------
# Rounding to f16 / bf16
# ---------------------------------------------------------------------------

# precision p (bits, with the implicit one), exponent of the smallest
# subnormal, largest finite value.
FORMATS = {"f16": (11, -24, 65504.0),
           "bf16": (8, -133, float.fromhex("0x1.fep127"))}


def round_fmt(x, fmt):
    """Rounds float64 values to `fmt` (f16 or bf16): nearest, ties to even,
    gradual underflow, values beyond the largest finite one (after rounding)
    become infinities; returns float64. Written from the IEEE definition."""
    p, qmin, maxval = FORMATS[fmt]
    x = np.array(x, dtype=np.float64)
    out = x.copy()
    fin = np.isfinite(x) & (x != 0)
    v = x[fin]
    _, e = np.frexp(v)            # v = m 2^e, 0.5 <= |m| < 1
    q = np.maximum(e - p, qmin)   # exponent of the last mantissa bit
    r = np.ldexp(np.rint(np.ldexp(v, -q)), q)   # rint: ties to even
    r = np.where(np.abs(r) > maxval, np.copysign(np.inf, v), r)
    out[fin] = r
    return out


def bf16_bits(x32):
    """float32 -> bfloat16 bit patterns, round to nearest even by bit
    manipulation on the uint32 pattern; NaN stays a (quiet) NaN."""
    x32 = np.asarray(x32, dtype=np.float32)
    shape, x32 = x32.shape, x32.reshape(-1)
    b = x32.view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    r = ((b + np.uint64(0x7FFF) + ((b >> sixteen) & np.uint64(1))) >> sixteen) \
        & np.uint64(0xFFFF)
    nan = np.isnan(x32)
    r[nan] = ((b[nan] >> sixteen) | np.uint64(0x40)) & np.uint64(0xFFFF)
    return r.astype(np.uint16).reshape(shape)


def bf16_to_f32(bits):
    bits = np.asarray(bits, dtype=np.uint16)
    wide = bits.reshape(-1).astype(np.uint32) << np.uint32(16)
    return wide.view(np.float32).reshape(bits.shape)


def round_bf16_f32(x):
    """float32 values rounded to bf16 (bit manipulation), as float32."""
    return bf16_to_f32(bf16_bits(np.asarray(x, dtype=np.float32)))


def round_input(x, dt):
    """Rounds generated float64 inputs to `dt`, returns float64 values."""
    x32 = np.asarray(x, dtype=np.float64).astype(np.float32)
    if dt == "f32":
        return x32.astype(np.float64)
    if dt == "f16":
        return x32.astype(np.float16).astype(np.float64)
    if dt == "bf16":
        return round_bf16_f32(x32).astype(np.float64)
    raise ValueError(dt)


def round_output(x, dt):
    """Rounds a float64 reference to `dt` (float64 result)."""
    if dt == "f32":
        return np.asarray(x, dtype=np.float64).astype(np.float32).astype(
            np.float64)
    if dt in NARROW:
        return round_fmt(x, dt)
    if dt in ("i64", "i32", "i1"):
        return np.asarray(x)
    raise ValueError(dt)


def npy_array(values, ty):
    """The array mpt-run reads for an argument of element type `ty`."""
    if ty == "f32":
        return np.asarray(values, dtype=np.float32)
    if ty == "f16":
        return np.asarray(values, dtype=np.float16)
    if ty == "bf16":   # float32 files, already bf16 values
        return np.asarray(values, dtype=np.float32)
    if ty == "i64":
        return np.asarray(values, dtype=np.int64)
    if ty == "i32":
        return np.asarray(values, dtype=np.int32)
    if ty == "i1":
        return np.asarray(values, dtype=np.bool_)
    raise ValueError(ty)


NPY_DESCR = {"f32": "<f4", "f16": "<f2", "bf16": "<f4", "i64": "<i8",
             "i32": "<i4", "i1": "|b1"}

# ---------------------------------------------------------------------------
# .npy files written by mpt-run
# ---------------------------------------------------------------------------

MALFORMED_NPY = []


def read_npy(path):
    """np.load, or a lenient parse of the header when np.load rejects it (the
    fallback is recorded and reported at the end)."""
    try:
        return np.load(path, allow_pickle=False)
    except Exception as error:  # pylint: disable=broad-except
        data = open(path, "rb").read()
        if data[:6] != b"\x93NUMPY":
            raise
        if data[6] == 1:
            length, start = int.from_bytes(data[8:10], "little"), 10
        else:
            length, start = int.from_bytes(data[8:12], "little"), 12
        header = data[start:start + length].decode("latin1")
        descr = re.search(r"'descr':\s*'([^']*)'", header).group(1)
        shape_text = re.search(r"'shape':\s*([^}]*)", header).group(1)
        shape = tuple(int(s) for s in re.findall(r"\d+", shape_text))
        if "'fortran_order': True" in header:
            raise
        array = np.frombuffer(data[start + length:], dtype=np.dtype(descr))
        if array.size != int(np.prod(shape, dtype=np.int64)):
            raise
        if not MALFORMED_NPY:
            MALFORMED_NPY.append(f"{header.strip()!r} ({error})")
        return array.reshape(shape).copy()


# ---------------------------------------------------------------------------
# Input generators
# ---------------------------------------------------------------------------


class Arg:
    """An argument: shape "3x5" ("" for rank 0), element type (None: the
    case's type), and a generator rng -> float64/int array."""

    def __init__(self, shape, gen, ty=None):
        self.shape = tuple(int(d) for d in shape.split("x")) if shape else ()
        self.shape_text = shape
        self.gen = gen
        self.ty = ty


def N(shape, scale=1.0, ty=None):
    return Arg(shape, lambda r, s: scale * r.standard_normal(s), ty)


def U(shape, lo, hi, ty=None):
    return Arg(shape, lambda r, s: r.uniform(lo, hi, s), ty)


def AWAY(shape, lo=0.5, hi=2.0, ty=None):
    """Uniform magnitude in [lo, hi), random sign (divisors)."""
    return Arg(shape, lambda r, s: r.uniform(lo, hi, s) *
               r.choice([-1.0, 1.0], s), ty)


def IDX(shape, hi, ty="i64"):
    return Arg(shape, lambda r, s: r.integers(0, hi, s), ty)


def FIXED(shape, values, ty=None):
    return Arg(shape, lambda r, s: np.asarray(values).reshape(s), ty)


# ---------------------------------------------------------------------------
# References, from the definitions in MPTOps.td
# ---------------------------------------------------------------------------


def mm(a, b, ta=False, tb=False):
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    return np.matmul(a, b)


def conv2d(x, w, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1,
           layout="nchw"):
    """Cross-correlation; x NCHW / w FCHW (or NHWC / HWCF)."""
    if layout == "nhwc":
        x = x.transpose(0, 3, 1, 2)
        w = w.transpose(3, 2, 0, 1)
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    assert c == cg * groups and f % groups == 0
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    oh = (h + pad[0] + pad[1] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pad[2] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, f, oh, ow))
    fg = f // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                           j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, g * fg:(g + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j])
    if layout == "nhwc":
        out = out.transpose(0, 2, 3, 1)
    return out


def pool2d(x, kernel, stride=(1, 1), pad=(0, 0, 0, 0), layout="nchw",
           mode="max", count_include_pad=False):
    """Max / average pooling; padded positions are ignored by max and by the
    average unless count_include_pad."""
    if layout == "nhwc":
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    kh, kw = kernel
    oh = (h + pad[0] + pad[1] - kh) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - kw) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * stride[0] - pad[0], j * stride[1] - pad[2]
            hs, he = max(h0, 0), min(h0 + kh, h)
            ws, we = max(w0, 0), min(w0 + kw, w)
            win = x[:, :, hs:he, ws:we]
            if mode == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                count = kh * kw if count_include_pad else win.shape[2] * win.shape[3]
                out[:, :, i, j] = win.sum(axis=(2, 3)) / count
    if layout == "nhwc":
        out = out.transpose(0, 2, 3, 1)
    return out


def softmax(x, axis):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def log_softmax(x, axis):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def layer_norm(x, scale, bias, axis=-1, eps=1e-5):
    axis = axis % x.ndim
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * scale + bias


def batch_norm(x, scale, bias, axis=1, eps=1e-5):
    axis = axis % x.ndim
    axes = tuple(d for d in range(x.ndim) if d != axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return ((x - mean) / np.sqrt(var + eps) * scale.reshape(shape)
            + bias.reshape(shape))


_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def gelu(x):
    """0.5 x (1 + erf(x / sqrt(2))), evaluated as the identical
    0.5 x erfc(-x / sqrt(2)), which does not cancel for x << 0."""
    return 0.5 * x * _erfc(-x / math.sqrt(2.0))


def gelu_tanh(x):
    """0.5 x (1 + tanh(u)), u = sqrt(2 / pi) (x + 0.044715 x^3), evaluated as
    the identical x / (1 + exp(-2 u)), which does not cancel for x << 0."""
    u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
    with np.errstate(over="ignore"):
        return x / (1.0 + np.exp(-2.0 * u))


def sce(logits, labels):
    logp = log_softmax(logits, -1)
    picked = np.take_along_axis(logp, labels[..., None].astype(np.int64), -1)
    return np.asarray(-picked.mean())


def gelu_grad(dy, x):
    """dy * d/dx [x Phi(x)] = dy * (Phi(x) + x phi(x))."""
    cdf = 0.5 * _erfc(-x / math.sqrt(2.0))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return dy * (cdf + x * pdf)


def gelu_tanh_grad(dy, x):
    """dy * d/dx [0.5 x (1 + tanh(u))] = dy * (0.5 (1 + tanh u)
    + 0.5 x (1 - tanh^2 u) u'), with 0.5 (1 + tanh u) = s = sigmoid(2u) and
    1 - tanh^2 u = 4 s (1 - s)."""
    k = math.sqrt(2.0 / math.pi)
    u = k * (x + 0.044715 * x ** 3)
    du = k * (1.0 + 3 * 0.044715 * x * x)
    with np.errstate(over="ignore"):
        s = 1.0 / (1.0 + np.exp(-2.0 * u))
        t = 1.0 / (1.0 + np.exp(2.0 * u))    # 1 - s
    return dy * (s + 2.0 * x * s * t * du)


def sce_grad(logits, labels, dloss):
    """dloss * (softmax(logits) - one_hot(labels)) / B, B = labels.size."""
    onehot = np.eye(logits.shape[-1])[labels.astype(np.int64)]
    return dloss * (softmax(logits, -1) - onehot) / labels.size


def layer_norm_grad(dy, x, scale, axis=-1, eps=1e-5):
    """Gradients of y = scale * (x - mean) / sqrt(var + eps) + bias with
    respect to x, scale and bias (from the chain rule)."""
    axis %= x.ndim
    axes, batch = tuple(range(axis, x.ndim)), tuple(range(axis))
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    g = dy * scale
    dx = rstd * (g - g.mean(axis=axes, keepdims=True)
                 - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    return [dx, (dy * xhat).sum(axis=batch), dy.sum(axis=batch)]


def conv2d_out_size(size, pad_lo, pad_hi, k, stride, dil):
    return (size + pad_lo + pad_hi - dil * (k - 1) - 1) // stride + 1


def _window_slice(k, n_out, stride, dil):
    """The padded input positions that kernel offset k reads, as a slice."""
    return slice(k * dil, k * dil + stride * (n_out - 1) + 1, stride)


def conv2d_backward_data(dy, w, in_shape, stride=(1, 1), pad=(0, 0, 0, 0),
                         dil=(1, 1), groups=1, layout="nchw"):
    """The gradient of conv2d with respect to its input (shape in_shape):
    the forward sum reads x[n, g C/G + c, oh s + kh d - pad, ...] times
    w[f, c, kh, kw] for each f of group g, so dy[n, f, oh, ow] w[f, c, kh, kw]
    flows back to that input position (and nothing to the padding, which is
    cut off at the end). Written as the scatter of the forward gather."""
    if layout == "nhwc":
        dy = dy.transpose(0, 3, 1, 2)
        w = w.transpose(3, 2, 0, 1)
        n, h, wd, c = in_shape
    else:
        n, c, h, wd = in_shape
    f, cg, kh, kw = w.shape
    _, fd, oh, ow = dy.shape
    assert fd == f and c == cg * groups and f % groups == 0
    fg = f // groups
    dxp = np.zeros((n, c, h + pad[0] + pad[1], wd + pad[2] + pad[3]))
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                dxp[:, g * cg:(g + 1) * cg, _window_slice(i, oh, stride[0], dil[0]),
                    _window_slice(j, ow, stride[1], dil[1])] += np.einsum(
                        "nfhw,fc->nchw", dy[:, g * fg:(g + 1) * fg],
                        w[g * fg:(g + 1) * fg, :, i, j])
    dx = dxp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + wd]
    return dx.transpose(0, 2, 3, 1) if layout == "nhwc" else dx


def conv2d_backward_filter(x, dy, w_shape, stride=(1, 1), pad=(0, 0, 0, 0),
                           dil=(1, 1), groups=1, layout="nchw"):
    """The gradient of conv2d with respect to its filter (shape w_shape):
    dw[f, c, kh, kw] = sum over n, oh, ow of dy[n, f, oh, ow] times the input
    element that w[f, c, kh, kw] multiplies (zero in the padding)."""
    if layout == "nhwc":
        x = x.transpose(0, 3, 1, 2)
        dy = dy.transpose(0, 3, 1, 2)
        kh, kw, cg, f = w_shape
    else:
        f, cg, kh, kw = w_shape
    n, c, h, wd = x.shape
    _, fd, oh, ow = dy.shape
    assert fd == f and c == cg * groups and f % groups == 0
    fg = f // groups
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    dw = np.zeros((f, cg, kh, kw))
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           _window_slice(i, oh, stride[0], dil[0]),
                           _window_slice(j, ow, stride[1], dil[1])]
                dw[g * fg:(g + 1) * fg, :, i, j] = np.einsum(
                    "nchw,nfhw->fc", patch, dy[:, g * fg:(g + 1) * fg])
    return dw.transpose(2, 3, 1, 0) if layout == "nhwc" else dw


def max_pool2d_grad(dy, x, kernel, stride=(1, 1), pad=(0, 0, 0, 0),
                    layout="nchw"):
    """Each dy[n, c, i, j] goes to every input element of window (i, j)
    (the padding excluded) equal to the window's maximum, ties included."""
    if layout == "nhwc":
        x = x.transpose(0, 3, 1, 2)
        dy = dy.transpose(0, 3, 1, 2)
    _, _, h, w = x.shape
    _, _, oh, ow = dy.shape
    dx = np.zeros(x.shape)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * stride[0] - pad[0], j * stride[1] - pad[2]
            hs, he = max(h0, 0), min(h0 + kernel[0], h)
            ws, we = max(w0, 0), min(w0 + kernel[1], w)
            win = x[:, :, hs:he, ws:we]
            hit = win == win.max(axis=(2, 3), keepdims=True)
            dx[:, :, hs:he, ws:we] += hit * dy[:, :, i:i + 1, j:j + 1]
    return dx.transpose(0, 2, 3, 1) if layout == "nhwc" else dx


def avg_pool2d_grad(dy, in_shape, kernel, stride=(1, 1), pad=(0, 0, 0, 0),
                    layout="nchw", count_include_pad=False):
    """Each dy[n, c, i, j] spread evenly over the input elements of window
    (i, j): divided by kh kw with count_include_pad, else by the number of
    window elements inside the input (the padding gets nothing)."""
    if layout == "nhwc":
        dy = dy.transpose(0, 3, 1, 2)
        n, h, w, c = in_shape
    else:
        n, c, h, w = in_shape
    _, _, oh, ow = dy.shape
    dx = np.zeros((n, c, h, w))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * stride[0] - pad[0], j * stride[1] - pad[2]
            hs, he = max(h0, 0), min(h0 + kernel[0], h)
            ws, we = max(w0, 0), min(w0 + kernel[1], w)
            count = (kernel[0] * kernel[1] if count_include_pad
                     else (he - hs) * (we - ws))
            dx[:, :, hs:he, ws:we] += dy[:, :, i:i + 1, j:j + 1] / count
    return dx.transpose(0, 2, 3, 1) if layout == "nhwc" else dx


def embedding_grad(dy, ids, rows):
    """result[r, d] = sum of dy[i..., d] over the positions with ids[i...] = r."""
    out = np.zeros((rows, dy.shape[-1]))
    np.add.at(out, np.asarray(ids, dtype=np.int64).reshape(-1),
              dy.reshape(-1, dy.shape[-1]))
    return out


def batch_norm_grad(dy, x, scale, axis=1, eps=1e-5):
    """Gradients of y = scale[c] (x - mean_c) / sqrt(var_c + eps) + bias[c]
    (batch statistics over every dimension but the channel axis) with
    respect to x, scale and bias (from the chain rule)."""
    axis %= x.ndim
    axes = tuple(d for d in range(x.ndim) if d != axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    g = dy * scale.reshape(shape)
    dx = rstd * (g - g.mean(axis=axes, keepdims=True)
                 - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    return [dx, (dy * xhat).sum(axis=axes), dy.sum(axis=axes)]


def strided(x, offsets, sizes, strides):
    return x[tuple(slice(o, o + (s - 1) * t + 1, t)
                   for o, s, t in zip(offsets, sizes, strides))]


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


class Case:
    """One op in one function.

    op: the op's text, with {T} (element type), {t0}.. (argument types) and
    {r0}.. (result types); the arguments are %a0, %a1, ...
    ref: float64 inputs -> float64 result (or a list of results).
    check: exact | ew | dot | comp (see the module docstring).
    absref/K/acc for check == dot: the op on |inputs|, the number of summed
    terms, whether the accumulator is f32 for narrow types.
    """

    def __init__(self, name, args, results, op, ref, check, dtypes=FLOATS,
                 absref=None, K=None, acc=True, body=None):
        self.name, self.args, self.op, self.ref = name, args, op, ref
        self.results = [r if isinstance(r, tuple) else (r, None)
                        for r in (results if isinstance(results, list)
                                  else [results])]
        self.check, self.dtypes = check, dtypes
        self.absref, self.K, self.acc, self.body = absref, K, acc, body


def tensor_type(shape_text, ty):
    return f"tensor<{shape_text}x{ty}>" if shape_text else f"tensor<{ty}>"


def make_module(case, dt):
    arg_types = [tensor_type(a.shape_text, a.ty or dt) for a in case.args]
    res_types = [tensor_type(s, ty or dt) for s, ty in case.results]
    keys = {"T": dt}
    keys.update({f"t{i}": t for i, t in enumerate(arg_types)})
    keys.update({f"r{i}": t for i, t in enumerate(res_types)})
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
    if case.body is None:
        lhs = ", ".join(f"%r{i}" for i in range(len(res_types)))
        body = f"  {lhs} = {case.op.format(**keys)}\n"
    else:
        body = "".join(f"  {line.format(**keys)}\n" for line in case.body)
    names = ", ".join(f"%r{i}" for i in range(len(res_types)))
    results = ", ".join(res_types)
    return (f"func.func @main({params}) -> ({results}) {{\n{body}"
            f"  return {names} : {results}\n}}\n")


CASES = []


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


# --- matmul ----------------------------------------------------------------
for ta, tb in ((False, False), (True, False), (False, True), (True, True)):
    M, K_, Nn = 3, 8, 5
    attrs = ("transpose_a " if ta else "") + ("transpose_b " if tb else "")
    name = "matmul" + ("".join(" " + a for a in attrs.split()) or " plain")
    la = f"{K_}x{M}" if ta else f"{M}x{K_}"
    rb = f"{Nn}x{K_}" if tb else f"{K_}x{Nn}"
    for acc in (False, True):
        add(name + (" acc(f32)" if acc else ""), [N(la), N(rb)], f"{M}x{Nn}",
            "mpt.matmul %a0, %a1 " + attrs + ("acc(f32) " if acc else "")
            + ": ({t0}, {t1}) -> {r0}",
            lambda a, b, ta=ta, tb=tb: mm(a, b, ta, tb), "dot",
            dtypes=FLOATS if not acc else NARROW,
            absref=lambda a, b, ta=ta, tb=tb: mm(np.abs(a), np.abs(b), ta, tb),
            K=K_, acc=acc)

# --- batch_matmul ----------------------------------------------------------
for name, ls, rs, os_, attrs, ta, tb, acc, dts in (
        ("batch_matmul rank3", "2x3x4", "2x4x5", "2x3x5", "", False, False,
         False, FLOATS),
        ("batch_matmul rank3 transpose_a acc(f32)", "2x4x3", "2x4x5", "2x3x5",
         "transpose_a acc(f32) ", True, False, True, NARROW),
        ("batch_matmul rank4 transpose_b", "2x2x3x4", "2x2x5x4", "2x2x3x5",
         "transpose_b ", False, True, False, FLOATS),
        ("batch_matmul rank4 acc(f32)", "2x2x3x4", "2x2x4x5", "2x2x3x5",
         "acc(f32) ", False, False, True, NARROW)):
    add(name, [N(ls), N(rs)], os_,
        "mpt.batch_matmul %a0, %a1 " + attrs + ": ({t0}, {t1}) -> {r0}",
        lambda a, b, ta=ta, tb=tb: mm(a, b, ta, tb), "dot", dtypes=dts,
        absref=lambda a, b, ta=ta, tb=tb: mm(np.abs(a), np.abs(b), ta, tb),
        K=4, acc=acc)

# --- conv2d ----------------------------------------------------------------
CONVS = [
    # name, input, filter, output, attribute text, kwargs
    ("conv2d nchw", "2x3x6x6", "4x3x3x3", "2x4x4x4", "", {}),
    ("conv2d nchw stride+pad", "1x3x6x7", "4x3x3x3", "1x4x3x4",
     "stride [2, 2] pad [1, 1, 1, 2] ", dict(stride=(2, 2), pad=(1, 1, 1, 2))),
    ("conv2d nchw dilation", "1x2x7x7", "3x2x3x3", "1x3x3x5",
     "dilation [2, 1] ", dict(dil=(2, 1))),
    ("conv2d nchw groups=2", "1x4x5x5", "6x2x3x3", "1x6x3x3",
     "groups 2 ", dict(groups=2)),
    ("conv2d nhwc stride+pad+dilation", "2x6x6x3", "3x3x3x4", "2x3x3x4",
     "layout<nhwc> stride [1, 2] pad [0, 1, 1, 0] dilation [2, 1] ",
     dict(stride=(1, 2), pad=(0, 1, 1, 0), dil=(2, 1), layout="nhwc")),
    ("conv2d nhwc groups=2 pad", "1x5x5x4", "3x3x2x6", "1x5x5x6",
     "layout<nhwc> pad [1, 1, 1, 1] groups 2 ",
     dict(pad=(1, 1, 1, 1), groups=2, layout="nhwc")),
]
for name, xs, ws, ys, attrs, kw in CONVS:
    fshape = [int(d) for d in ws.split("x")]
    kterms = (fshape[1] * fshape[2] * fshape[3] if kw.get("layout") != "nhwc"
              else fshape[0] * fshape[1] * fshape[2])
    for acc in (False, True):
        if acc and name not in ("conv2d nchw", "conv2d nhwc stride+pad+dilation",
                                "conv2d nchw groups=2"):
            continue
        add(name + (" acc(f32)" if acc else ""), [N(xs), N(ws)], ys,
            "mpt.conv2d %a0, %a1 " + attrs + ("acc(f32) " if acc else "")
            + ": ({t0}, {t1}) -> {r0}",
            lambda x, w, kw=kw: conv2d(x, w, **kw), "dot",
            dtypes=NARROW if acc else FLOATS,
            absref=lambda x, w, kw=kw: conv2d(np.abs(x), np.abs(w), **kw),
            K=kterms, acc=acc)

# --- embedding -------------------------------------------------------------
add("embedding i64", [N("10x4"), IDX("2x3", 10)], "2x3x4",
    "mpt.embedding %a0, %a1 : ({t0}, {t1}) -> {r0}",
    lambda t, i: t[i], "exact")
add("embedding i32", [N("7x3"), IDX("5", 7, "i32")], "5x3",
    "mpt.embedding %a0, %a1 : ({t0}, {t1}) -> {r0}",
    lambda t, i: t[i], "exact")

# --- binary elementwise ----------------------------------------------------
BINARY = {
    "add": (np.add, "ew", N, N),
    "sub": (np.subtract, "ew", N, N),
    "mul": (np.multiply, "ew", N, N),
    "div": (np.divide, "ew", N, AWAY),
    "max": (np.maximum, "exact", N, N),
    "min": (np.minimum, "exact", N, N),
    "pow": (np.power, "ew", lambda s: U(s, 0.5, 2.0), lambda s: U(s, -2.0, 2.0)),
}
BCASTS = {
    "add": [("3x5", "5", "3x5"), ("3x1", "1x5", "3x5"),
            ("2x3x4", "3x1", "2x3x4")],
    "sub": [("3x5", "5", "3x5"), ("2x3x4", "3x1", "2x3x4")],
    "mul": [("3x1", "1x5", "3x5")],
    "div": [("2x3x4", "3x1", "2x3x4")],
    "max": [("3x5", "5", "3x5")],
    "min": [("3x1", "1x5", "3x5")],
    "pow": [("3x5", "5", "3x5"), ("3x1", "1x5", "3x5")],
}
for op, (fn, check, gl, gr) in BINARY.items():
    for ls, rs, os_ in BCASTS[op]:
        add(f"{op} {ls},{rs}", [gl(ls), gr(rs)], os_,
            f"mpt.{op} %a0, %a1 : ({{t0}}, {{t1}}) -> {{r0}}",
            lambda a, b, fn=fn: fn(a, b), check)

# --- unary elementwise -----------------------------------------------------
UNARY = [
    ("neg", lambda x: -x, "exact", N("4x6", 2.0)),
    ("abs", np.abs, "exact", N("4x6", 2.0)),
    ("exp", np.exp, "ew", U("4x6", -4.0, 4.0)),
    ("log", np.log, "ew", U("4x6", 0.05, 20.0)),
    ("sqrt", np.sqrt, "ew", U("4x6", 0.01, 20.0)),
    ("rsqrt", lambda x: 1.0 / np.sqrt(x), "ew", U("4x6", 0.01, 20.0)),
    ("reciprocal", lambda x: 1.0 / x, "ew", AWAY("4x6", 0.1, 10.0)),
    ("tanh", np.tanh, "ew", N("4x6", 2.0)),
    ("sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x)), "ew", N("4x6", 3.0)),
    ("relu", lambda x: np.maximum(x, 0.0), "exact", N("4x6", 2.0)),
]
for op, fn, check, arg in UNARY:
    add(op, [arg], "4x6", f"mpt.{op} %a0 : {{t0}}", lambda x, fn=fn: fn(x),
        check)
# Saturating and overflowing arguments.
add("exp overflow", [FIXED("6", [-20.0, 10.0, 11.0, 11.1, 12.0, 30.0])], "6",
    "mpt.exp %a0 : {t0}", np.exp, "ew")
add("sigmoid tails", [FIXED("8", [-80.0, -40.0, -20.0, -10.0, 10.0, 20.0,
                                  40.0, 80.0])], "8",
    "mpt.sigmoid %a0 : {t0}", lambda x: 1.0 / (1.0 + np.exp(-x)), "ew")
add("tanh tails", [FIXED("6", [-20.0, -9.0, -1e-3, 1e-4, 9.0, 20.0])], "6",
    "mpt.tanh %a0 : {t0}", np.tanh, "ew")
add("gelu", [U("4x6", -3.0, 3.0)], "4x6", "mpt.gelu %a0 : {t0}", gelu, "ew")
add("gelu approximate<none>", [U("4x6", -3.0, 3.0)], "4x6",
    "mpt.gelu %a0 approximate<none> : {t0}", gelu, "ew")
add("gelu approximate<tanh>", [U("4x6", -3.0, 3.0)], "4x6",
    "mpt.gelu %a0 approximate<tanh> : {t0}", gelu_tanh, "ew")
# The left tail, where gelu(x) is tiny but (for bf16) still far above the
# smallest subnormal: 1 + erf(x / sqrt(2)) (or 1 + tanh(...)) cancels.
GELU_TAIL = [-3.5, -4.0, -4.5, -5.0, -5.5, -6.0, -7.0, -8.0, -10.0, -13.0,
             3.0, 6.0]
add("gelu left tail", [FIXED("12", GELU_TAIL)], "12", "mpt.gelu %a0 : {t0}",
    gelu, "ew")
add("gelu approximate<tanh> left tail", [FIXED("12", GELU_TAIL)], "12",
    "mpt.gelu %a0 approximate<tanh> : {t0}", gelu_tanh, "ew")

# --- softmax / log_softmax -------------------------------------------------
for op, fn in (("softmax", softmax), ("log_softmax", log_softmax)):
    add(f"{op} axis=-1", [N("3x5", 2.0)], "3x5", f"mpt.{op} %a0 : {{t0}}",
        lambda x, fn=fn: fn(x, -1), "comp")
    add(f"{op} axis=0", [N("3x5", 2.0)], "3x5",
        f"mpt.{op} %a0 axis = 0 : {{t0}}", lambda x, fn=fn: fn(x, 0), "comp")
    add(f"{op} axis=1 rank3", [N("2x3x4", 2.0)], "2x3x4",
        f"mpt.{op} %a0 axis = 1 : {{t0}}", lambda x, fn=fn: fn(x, 1), "comp")

    # Rows longer than a warp (GPU: teams of 64 to 256 threads a row, rows
    # that do not fill the last block).
    add(f"{op} axis=-1 wide", [N("5x1000", 2.0)], "5x1000",
        f"mpt.{op} %a0 : {{t0}}", lambda x, fn=fn: fn(x, -1), "comp")

# The gradients, given the forward op's result along the same axis (drawn as
# the softmax or log_softmax of normal values, as the op sees them).
def softmax_grad(dy, y, axis):
    return y * (dy - (dy * y).sum(axis=axis, keepdims=True))


def log_softmax_grad(dy, y, axis):
    return dy - np.exp(y) * dy.sum(axis=axis, keepdims=True)


for op, fn, fwd in (("softmax_grad", softmax_grad, softmax),
                    ("log_softmax_grad", log_softmax_grad, log_softmax)):
    def RESULT(shape, axis, fwd=fwd):
        return Arg(shape,
                   lambda r, s: fwd(2.0 * r.standard_normal(s), axis), None)
    for shape, axis in (("3x5", -1), ("3x5", 0), ("2x3x4", 1), ("5x1000", -1)):
        attr = "" if axis == -1 else f" axis = {axis}"
        name = f"{op} axis={axis}" + (" rank3" if shape == "2x3x4" else "") + \
            (" wide" if shape == "5x1000" else "")
        add(name, [N(shape), RESULT(shape, axis)], shape,
            f"mpt.{op} %a0, %a1{attr} : {{t0}}",
            lambda dy, y, fn=fn, axis=axis: fn(dy, y, axis), "comp")

# --- layer_norm / batch_norm -----------------------------------------------
add("layer_norm axis=-1", [N("3x5", 2.0), N("5"), N("5")], "3x5",
    "mpt.layer_norm %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda x, s, b: layer_norm(x, s, b), "comp")
add("layer_norm axis=1 (3x4) eps=1e-2", [N("2x3x4", 2.0), N("3x4"), N("3x4")],
    "2x3x4",
    "mpt.layer_norm %a0, %a1, %a2 axis = 1 epsilon = 1.0e-2 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda x, s, b: layer_norm(x, s, b, 1, 1e-2), "comp")
add("layer_norm axis=-1 wide", [N("7x300", 2.0), N("300"), N("300")], "7x300",
    "mpt.layer_norm %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda x, s, b: layer_norm(x, s, b), "comp")
add("batch_norm nchw", [N("2x3x4x4", 2.0), N("3"), N("3")], "2x3x4x4",
    "mpt.batch_norm %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda x, s, b: batch_norm(x, s, b), "comp")
add("batch_norm axis=-1 eps=1e-3", [N("2x4x3", 2.0), N("3"), N("3")], "2x4x3",
    "mpt.batch_norm %a0, %a1, %a2 axis = -1 epsilon = 1.0e-3 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda x, s, b: batch_norm(x, s, b, -1, 1e-3), "comp")
# f16 / bf16 data with f32 scale and bias (how mpt-auto-mixed-precision runs
# a normalization in low precision): the result has the data's type.
add("layer_norm f32 params", [N("4x40", 2.0), N("40", ty="f32"),
                              N("40", ty="f32")], "4x40",
    "mpt.layer_norm %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda x, s, b: layer_norm(x, s, b), "comp", dtypes=NARROW)
add("batch_norm nchw f32 params", [N("4x3x5x5", 2.0), N("3", ty="f32"),
                                   N("3", ty="f32")], "4x3x5x5",
    "mpt.batch_norm %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda x, s, b: batch_norm(x, s, b), "comp", dtypes=NARROW)

# --- reductions ------------------------------------------------------------
REDUCTIONS = [
    # axes, keep_dims, result shape
    ([1], False, "2x4"),
    ([0, 2], True, "1x3x1"),
    ([-1], True, "2x3x1"),
    ([0, 1, 2], False, ""),
]
for op, fn in (("reduce_sum", np.sum), ("reduce_mean", np.mean),
               ("reduce_max", np.max)):
    for axes, keep, rshape in REDUCTIONS:
        if op == "reduce_max" and axes == [-1]:
            axes = [-2]
            rshape = "2x1x4"
        axes_text = "[" + ", ".join(map(str, axes)) + "]"
        n_terms = int(np.prod([[2, 3, 4][a] for a in axes]))
        add(f"{op} axes={axes_text}" + (" keep_dims" if keep else ""),
            [N("2x3x4", 2.0)], rshape,
            f"mpt.{op} %a0 axes = {axes_text}" + (" keep_dims" if keep else "")
            + " : {t0} -> {r0}",
            lambda x, fn=fn, axes=tuple(axes), keep=keep: fn(x, axis=axes,
                                                            keepdims=keep),
            "exact" if op == "reduce_max" else "dot",
            absref=lambda x, fn=fn, axes=tuple(axes), keep=keep: fn(
                np.abs(x), axis=axes, keepdims=keep),
            K=n_terms + 1, acc=True)

# --- pooling ---------------------------------------------------------------
add("max_pool2d 2x2/2", [N("2x2x4x6")], "2x2x2x3",
    "mpt.max_pool2d %a0 kernel [2, 2] stride [2, 2] : {t0} -> {r0}",
    lambda x: pool2d(x, (2, 2), (2, 2)), "exact")
add("max_pool2d 3x3/2 pad", [N("1x2x5x6")], "1x2x3x3",
    "mpt.max_pool2d %a0 kernel [3, 3] stride [2, 2] pad [1, 1, 1, 0] : {t0} -> {r0}",
    lambda x: pool2d(x, (3, 3), (2, 2), (1, 1, 1, 0)), "exact")
add("max_pool2d nhwc pad negative inputs", [U("1x4x4x3", -5.0, -1.0)],
    "1x3x3x3",
    "mpt.max_pool2d %a0 layout<nhwc> kernel [2, 2] stride [2, 2] pad [1, 1, 1, 1] : {t0} -> {r0}",
    lambda x: pool2d(x, (2, 2), (2, 2), (1, 1, 1, 1), "nhwc"), "exact")
AVGS = [
    ("avg_pool2d 2x2/2", "2x2x4x6", "2x2x2x3", "kernel [2, 2] stride [2, 2] ",
     dict(kernel=(2, 2), stride=(2, 2))),
    ("avg_pool2d 3x3/2 pad", "1x2x5x6", "1x2x3x3",
     "kernel [3, 3] stride [2, 2] pad [1, 1, 1, 0] ",
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1, 1, 0))),
    ("avg_pool2d 3x3/2 pad count_include_pad", "1x2x5x6", "1x2x3x3",
     "kernel [3, 3] stride [2, 2] pad [1, 1, 1, 0] count_include_pad ",
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1, 1, 0),
          count_include_pad=True)),
    ("avg_pool2d nhwc pad", "1x4x5x3", "1x4x5x3",
     "layout<nhwc> kernel [3, 3] pad [1, 1, 1, 1] ",
     dict(kernel=(3, 3), pad=(1, 1, 1, 1), layout="nhwc")),
    ("avg_pool2d nhwc pad count_include_pad", "1x4x5x3", "1x4x5x3",
     "layout<nhwc> kernel [3, 3] pad [1, 1, 1, 1] count_include_pad ",
     dict(kernel=(3, 3), pad=(1, 1, 1, 1), layout="nhwc",
          count_include_pad=True)),
]
for name, xs, ys, attrs, kw in AVGS:
    kwargs = dict(kw)
    kernel = kwargs.pop("kernel")
    add(name, [N(xs)], ys, "mpt.avg_pool2d %a0 " + attrs + ": {t0} -> {r0}",
        lambda x, kernel=kernel, kwargs=kwargs: pool2d(x, kernel, mode="avg",
                                                       **kwargs),
        "dot",
        absref=lambda x, kernel=kernel, kwargs=kwargs: pool2d(
            np.abs(x), kernel, mode="avg", **kwargs),
        K=kernel[0] * kernel[1] + 1, acc=True)
add("global_avg_pool nchw", [N("2x3x4x5")], "2x3",
    "mpt.global_avg_pool %a0 : {t0} -> {r0}", lambda x: x.mean(axis=(2, 3)),
    "dot", absref=lambda x: np.abs(x).mean(axis=(2, 3)), K=21, acc=True)
add("global_avg_pool nhwc", [N("2x4x5x3")], "2x3",
    "mpt.global_avg_pool %a0 layout<nhwc> : {t0} -> {r0}",
    lambda x: x.mean(axis=(1, 2)),
    "dot", absref=lambda x: np.abs(x).mean(axis=(1, 2)), K=21, acc=True)

# --- data movement ---------------------------------------------------------
ALL_TYPES = FLOATS + ("i64",)


add("reshape 3x4->2x6", [N("3x4")], "2x6",
    "mpt.reshape %a0 : {t0} to {r0}", lambda x: x.reshape(2, 6), "exact",
    dtypes=ALL_TYPES)
add("reshape 2x3x4->4x6", [N("2x3x4")], "4x6",
    "mpt.reshape %a0 : {t0} to {r0}", lambda x: x.reshape(4, 6), "exact")
add("transpose perm=[2,0,1]", [N("2x3x4")], "4x2x3",
    "mpt.transpose %a0 perm = [2, 0, 1] : {t0} -> {r0}",
    lambda x: x.transpose(2, 0, 1), "exact", dtypes=ALL_TYPES)
add("transpose perm=[1,0]", [N("3x5")], "5x3",
    "mpt.transpose %a0 perm = [1, 0] : {t0} -> {r0}", lambda x: x.T, "exact")
add("broadcast 3x1->2x3x4", [N("3x1")], "2x3x4",
    "mpt.broadcast %a0 : {t0} to {r0}",
    lambda x: np.broadcast_to(x, (2, 3, 4)), "exact", dtypes=ALL_TYPES)
add("broadcast 5->3x5", [N("5")], "3x5", "mpt.broadcast %a0 : {t0} to {r0}",
    lambda x: np.broadcast_to(x, (3, 5)), "exact")
add("concat axis=1", [N("2x3"), N("2x1"), N("2x2")], "2x6",
    "mpt.concat %a0, %a1, %a2 axis = 1 : ({t0}, {t1}, {t2}) -> {r0}",
    lambda a, b, c: np.concatenate([a, b, c], axis=1), "exact",
    dtypes=ALL_TYPES)
add("concat axis=-1", [N("2x3x2"), N("2x3x3")], "2x3x5",
    "mpt.concat %a0, %a1 axis = -1 : ({t0}, {t1}) -> {r0}",
    lambda a, b: np.concatenate([a, b], axis=-1), "exact")
add("concat axis=-3", [N("1x3x2"), N("2x3x2")], "3x3x2",
    "mpt.concat %a0, %a1 axis = -3 : ({t0}, {t1}) -> {r0}",
    lambda a, b: np.concatenate([a, b], axis=-3), "exact")
add("slice", [N("4x6")], "2x3",
    "mpt.slice %a0 offsets = [1, 2] sizes = [2, 3] : {t0} -> {r0}",
    lambda x: strided(x, (1, 2), (2, 3), (1, 1)), "exact")
add("slice strides", [N("5x7x3")], "2x3x2",
    "mpt.slice %a0 offsets = [1, 0, 1] sizes = [2, 3, 2] strides = [3, 2, 1] : {t0} -> {r0}",
    lambda x: strided(x, (1, 0, 1), (2, 3, 2), (3, 2, 1)), "exact",
    dtypes=ALL_TYPES)
add("pad zeros", [N("2x3")], "3x6",
    "mpt.pad %a0 low = [1, 0] high = [0, 3] : {t0} -> {r0}",
    lambda x: np.pad(x, ((1, 0), (0, 3))), "exact")
add("pad value=2.5", [N("2x3")], "4x4",
    "mpt.pad %a0 low = [1, 0] high = [1, 1] value = 2.5 : {t0} -> {r0}",
    lambda x: np.pad(x, ((1, 1), (0, 1)), constant_values=2.5), "exact")
add("pad value=0.1 (rounded to the type)", [N("2x3")], "2x5",
    "mpt.pad %a0 low = [0, 1] high = [0, 1] value = 0.1 : {t0} -> {r0}",
    lambda x: np.pad(x, ((0, 0), (1, 1)), constant_values=0.1), "exact",
    dtypes=FLOATS)
add("pad value=-inf", [N("2x3")], "4x5",
    "mpt.pad %a0 low = [1, 1] high = [1, 1] value = 0xFFF0000000000000 : {t0} -> {r0}",
    lambda x: np.pad(x, ((1, 1), (1, 1)), constant_values=-np.inf), "exact")
add("pad i64 value=-7", [IDX("2x3", 100)], "3x4",
    "mpt.pad %a0 low = [1, 1] high = [0, 0] value = -7.0 : {t0} -> {r0}",
    lambda x: np.pad(x, ((1, 0), (1, 0)), constant_values=-7), "exact",
    dtypes=("i64",))

# --- constant --------------------------------------------------------------
CONST_VALUES = [0.1, -2.5, 3.14159265358979, 1.0e-3, 1000.7, 65504.0]
add("constant dense", [], "2x3",
    "mpt.constant dense<[[0.1, -2.5, 3.14159265358979], [1.0e-3, 1000.7, 65504.0]]> : {r0}",
    lambda: np.array(CONST_VALUES).reshape(2, 3), "exact")
add("constant splat", [], "4", "mpt.constant dense<-0.3> : {r0}",
    lambda: np.full(4, -0.3), "exact")
add("constant i64", [], "3", "mpt.constant dense<[5, -9, 1099511627776]> : {r0}",
    lambda: np.array([5, -9, 1 << 40]), "exact", dtypes=("i64",))

# --- cast (random values) --------------------------------------------------
for src, dst in (("f32", "f16"), ("f32", "bf16"), ("f16", "f32"),
                 ("bf16", "f32"), ("f16", "bf16"), ("bf16", "f16")):
    add(f"cast {src}->{dst}", [N("4x6", 3.0, ty=src)], ("4x6", dst),
        "mpt.cast %a0 : {t0} to {r0}", lambda x: x, "exact", dtypes=(dst,))
for src, dst, args, ref in (
        ("f32", "i64", [FIXED("8", [2.7, -2.7, 0.5, -0.5, 0.0, 1e9, -3.0, 7.99],
                              "f32")], np.trunc),
        ("f32", "i32", [FIXED("6", [2.7, -2.7, 0.5, -0.99, 65536.5, -1e9],
                              "f32")], np.trunc),
        ("f16", "i64", [FIXED("4", [2.5, -2.5, 65504.0, -0.75], "f16")],
         np.trunc),
        ("i64", "f32", [FIXED("6", [0, -3, (1 << 24) + 1, (1 << 24) + 3,
                                    -((1 << 24) + 1), 123456789], "i64")],
         lambda x: x),
        ("i32", "f32", [FIXED("3", [7, -(1 << 30) - 1, 2147483647], "i32")],
         lambda x: x),
        ("i64", "f16", [FIXED("5", [2049, 2051, 65519, 65520, -70000], "i64")],
         lambda x: x),
        ("i64", "bf16", [FIXED("5", [257, 259, -129, -1000, 1 << 40], "i64")],
         lambda x: x),
        # Integers that f32 cannot hold, rounded once to bf16: an
        # int -> f32 -> bf16 double rounding gets the first three wrong.
        ("i64", "bf16 above 2^24",
         [FIXED("5", [(1 << 24) + (1 << 16) + 1, -((1 << 24) + (1 << 16) + 1),
                      (1 << 40) + (1 << 32) + 1, (1 << 24) + 3 * (1 << 16),
                      (1 << 40) + 3], "i64")], lambda x: x),
        ("i32", "bf16 above 2^24",
         [FIXED("3", [(1 << 24) + (1 << 16) + 1, (1 << 30) + (1 << 22) + 1,
                      259], "i32")], lambda x: x)):
    label = dst
    dst = dst.split()[0]
    add(f"cast {src}->{label}", args, ("x".join(map(str, args[0].shape)), dst),
        "mpt.cast %a0 : {t0} to {r0}", lambda x, ref=ref: ref(x), "exact",
        dtypes=(dst,))

# --- losses ----------------------------------------------------------------
add("softmax_cross_entropy", [N("4x5", 2.0), IDX("4", 5)], "",
    "mpt.softmax_cross_entropy %a0, %a1 : ({t0}, {t1}) -> {r0}", sce, "comp")
add("softmax_cross_entropy rank3 i32", [N("2x3x5", 2.0), IDX("2x3", 5, "i32")],
    "", "mpt.softmax_cross_entropy %a0, %a1 : ({t0}, {t1}) -> {r0}", sce,
    "comp")
# f16 / bf16 logits with an f32 loss (what mixed precision makes of a loss
# after a Tensor Core matmul): the loss is checked at the f32 tolerance. The
# classes run past a warp (GPU: a team of threads per row).
add("softmax_cross_entropy f32 loss", [N("6x300", 3.0), IDX("6", 300)],
    [("", "f32")], "mpt.softmax_cross_entropy %a0, %a1 : ({t0}, {t1}) -> {r0}",
    sce, "comp", dtypes=NARROW)
add("mse_loss", [N("3x5"), N("3x5")], "",
    "mpt.mse_loss %a0, %a1 : ({t0}, {t1}) -> {r0}",
    lambda a, b: np.mean((a - b) ** 2), "comp")
add("l1_loss", [N("3x5"), N("3x5")], "",
    "mpt.l1_loss %a0, %a1 : ({t0}, {t1}) -> {r0}",
    lambda a, b: np.mean(np.abs(a - b)), "comp")

# --- backward ops and optimizer updates -----------------------------------
WITH_ZEROS = Arg("4x6", lambda r, s: np.where(r.random(s) < 0.25, 0.0,
                                              r.standard_normal(s)))
add("relu_grad", [N("4x6"), WITH_ZEROS], "4x6",
    "mpt.relu_grad %a0, %a1 : {t0}", lambda dy, x: dy * (x > 0), "exact")
add("gelu_grad", [N("4x6"), U("4x6", -3.0, 3.0)], "4x6",
    "mpt.gelu_grad %a0, %a1 : {t0}", gelu_grad, "ew")
add("gelu_grad approximate<tanh>", [N("4x6"), U("4x6", -3.0, 3.0)], "4x6",
    "mpt.gelu_grad %a0, %a1 approximate<tanh> : {t0}", gelu_tanh_grad, "ew")
add("gelu_grad left tail", [U("12", 0.5, 2.0), FIXED("12", GELU_TAIL)], "12",
    "mpt.gelu_grad %a0, %a1 : {t0}", gelu_grad, "ew")
add("gelu_grad approximate<tanh> left tail",
    [U("12", 0.5, 2.0), FIXED("12", GELU_TAIL)], "12",
    "mpt.gelu_grad %a0, %a1 approximate<tanh> : {t0}", gelu_tanh_grad, "ew")
add("softmax_cross_entropy_grad", [N("4x5", 2.0), IDX("4", 5), N("")], "4x5",
    "mpt.softmax_cross_entropy_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
    sce_grad, "comp")
add("softmax_cross_entropy_grad rank3 i32",
    [N("2x3x5", 2.0), IDX("2x3", 5, "i32"), N("")], "2x3x5",
    "mpt.softmax_cross_entropy_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
    sce_grad, "comp")
# f16 / bf16 logits with an f32 loss gradient (a loss scale of 2^12 times a
# normal draw), the result in the logits' type or (adaptive loss scaling) in
# f32, checked at the f32 tolerance.
for res, what in (("6x300", "low result"), (("6x300", "f32"), "f32 result")):
    add("softmax_cross_entropy_grad f32 grad " + what,
        [N("6x300", 3.0), IDX("6", 300), N("", 4096.0, ty="f32")], [res],
        "mpt.softmax_cross_entropy_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> {r0}",
        sce_grad, "comp", dtypes=NARROW)
add("layer_norm_grad axis=-1", [N("3x5"), N("3x5", 2.0), N("5")],
    ["3x5", "5", "5"],
    "mpt.layer_norm_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: layer_norm_grad(dy, x, s), "comp")
add("layer_norm_grad axis=-1 wide", [N("7x300"), N("7x300", 2.0), N("300")],
    ["7x300", "300", "300"],
    "mpt.layer_norm_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: layer_norm_grad(dy, x, s), "comp")
add("layer_norm_grad axis=1 (3x4) eps=1e-2",
    [N("2x3x4"), N("2x3x4", 2.0), N("3x4")], ["2x3x4", "3x4", "3x4"],
    "mpt.layer_norm_grad %a0, %a1, %a2 axis = 1 epsilon = 1.0e-2"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: layer_norm_grad(dy, x, s, 1, 1e-2), "comp")
def _dims(shape):
    return "x".join(map(str, shape))


# conv2d_backward_data / conv2d_backward_filter: the configurations of the
# forward conv2d whose gradients are taken; dy has the forward result's shape.
CONV_GRADS = [
    # name, input shape, filter shape, attribute text, kwargs of conv2d()
    ("nchw", (2, 3, 5, 5), (4, 3, 3, 3), "", {}),
    # the last input row is read by no window: its gradient is 0
    ("nchw stride 2", (1, 2, 8, 7), (3, 2, 3, 3), "stride [2, 2] ",
     dict(stride=(2, 2))),
    ("nchw stride 2 pad", (1, 3, 6, 7), (4, 3, 3, 3),
     "stride [2, 2] pad [1, 1, 1, 2] ", dict(stride=(2, 2), pad=(1, 1, 1, 2))),
    ("nchw dilation 2 pad 2x3 kernel", (1, 2, 7, 6), (3, 2, 2, 3),
     "pad [2, 1, 0, 1] dilation [2, 2] ", dict(pad=(2, 1, 0, 1), dil=(2, 2))),
    ("nchw groups=2 stride 2 dilation 2 pad", (2, 4, 9, 8), (6, 2, 3, 3),
     "stride [2, 2] pad [2, 2, 1, 1] dilation [2, 2] groups 2 ",
     dict(stride=(2, 2), pad=(2, 2, 1, 1), dil=(2, 2), groups=2)),
    ("nhwc stride 2 pad", (2, 7, 6, 3), (3, 3, 3, 4),
     "layout<nhwc> stride [2, 2] pad [1, 1, 0, 1] ",
     dict(stride=(2, 2), pad=(1, 1, 0, 1), layout="nhwc")),
    ("nhwc groups=2 stride [1, 2] dilation [1, 2] pad", (1, 6, 6, 4),
     (3, 3, 2, 6),
     "layout<nhwc> stride [1, 2] pad [1, 1, 2, 2] dilation [1, 2] groups 2 ",
     dict(stride=(1, 2), pad=(1, 1, 2, 2), dil=(1, 2), groups=2,
          layout="nhwc")),
    ("nhwc groups=2 stride 2 dilation 2 2x3 kernel", (1, 9, 9, 4),
     (2, 3, 2, 4), "layout<nhwc> stride [2, 2] dilation [2, 2] groups 2 ",
     dict(stride=(2, 2), dil=(2, 2), groups=2, layout="nhwc")),
]


def conv_grad_shapes(xs, ws, kw):
    """(dy shape, terms per dx element, terms per dw element)."""
    stride, pad = kw.get("stride", (1, 1)), kw.get("pad", (0, 0, 0, 0))
    dil, groups = kw.get("dil", (1, 1)), kw.get("groups", 1)
    if kw.get("layout") == "nhwc":
        n, h, w, _ = xs
        kh, kw_, _, f = ws
    else:
        n, _, h, w = xs
        f, _, kh, kw_ = ws
    oh = conv2d_out_size(h, pad[0], pad[1], kh, stride[0], dil[0])
    ow = conv2d_out_size(w, pad[2], pad[3], kw_, stride[1], dil[1])
    ys = (n, oh, ow, f) if kw.get("layout") == "nhwc" else (n, f, oh, ow)
    return ys, (f // groups) * kh * kw_, n * oh * ow


for name, xs, ws, attrs, kw in CONV_GRADS:
    ys, k_data, k_filter = conv_grad_shapes(xs, ws, kw)
    for acc in (False, True):
        suffix, acc_text = (" acc(f32)", "acc(f32) ") if acc else ("", "")
        add(f"conv2d_backward_data {name}{suffix}", [N(_dims(ys)), N(_dims(ws))],
            _dims(xs),
            "mpt.conv2d_backward_data %a0, %a1 " + attrs + acc_text
            + ": ({t0}, {t1}) -> {r0}",
            lambda dy, w, xs=xs, kw=kw: conv2d_backward_data(dy, w, xs, **kw),
            "dot", dtypes=NARROW if acc else FLOATS,
            absref=lambda dy, w, xs=xs, kw=kw: conv2d_backward_data(
                np.abs(dy), np.abs(w), xs, **kw),
            K=k_data, acc=acc)
        add(f"conv2d_backward_filter {name}{suffix}",
            [N(_dims(xs)), N(_dims(ys))], _dims(ws),
            "mpt.conv2d_backward_filter %a0, %a1 " + attrs + acc_text
            + ": ({t0}, {t1}) -> {r0}",
            lambda x, dy, ws=ws, kw=kw: conv2d_backward_filter(x, dy, ws, **kw),
            "dot", dtypes=NARROW if acc else FLOATS,
            absref=lambda x, dy, ws=ws, kw=kw: conv2d_backward_filter(
                np.abs(x), np.abs(dy), ws, **kw),
            K=k_filter, acc=acc)


def TIES(shape):
    """Small integers: many windows with several maxima."""
    return Arg(shape, lambda r, s: np.rint(1.5 * r.standard_normal(s)))


# max_pool2d_grad: non-overlapping windows give each input element at most one
# dy (exact); overlapping ones sum up to ceil(k/s)^2 of them (accumulated in
# f32 for f16/bf16, checked like a sum of that many terms).
POOL_GRADS = [
    # name, input, kernel, stride, pad, layout
    ("2x2/2", N("2x2x4x6"), (2, 2), (2, 2), (0, 0, 0, 0), "nchw"),
    ("3x3/2 pad", N("1x2x5x6"), (3, 3), (2, 2), (1, 1, 1, 0), "nchw"),
    ("nhwc 2x2/2 pad negative inputs", U("1x4x4x3", -5.0, -1.0), (2, 2),
     (2, 2), (1, 1, 1, 1), "nhwc"),
    ("nhwc 3x3/2 pad", N("2x5x6x3"), (3, 3), (2, 2), (1, 0, 1, 1), "nhwc"),
    ("ties 2x2/2", TIES("1x3x4x4"), (2, 2), (2, 2), (0, 0, 0, 0), "nchw"),
    ("ties 2x2/1", TIES("1x2x4x5"), (2, 2), (1, 1), (0, 0, 0, 0), "nchw"),
    ("nhwc ties 3x3/2 pad", TIES("1x5x5x2"), (3, 3), (2, 2), (1, 1, 1, 1),
     "nhwc"),
]
for name, xarg, kernel, stride, pad, layout in POOL_GRADS:
    if layout == "nhwc":
        n, h, w, c = xarg.shape
    else:
        n, c, h, w = xarg.shape
    oh = (h + pad[0] + pad[1] - kernel[0]) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - kernel[1]) // stride[1] + 1
    ys = (n, oh, ow, c) if layout == "nhwc" else (n, c, oh, ow)
    overlap = kernel[0] > stride[0] or kernel[1] > stride[1]
    attrs = (("layout<nhwc> " if layout == "nhwc" else "")
             + f"kernel [{kernel[0]}, {kernel[1]}] "
             + f"stride [{stride[0]}, {stride[1]}] "
             + ("pad [{}, {}, {}, {}] ".format(*pad) if any(pad) else ""))
    kw = dict(kernel=kernel, stride=stride, pad=pad, layout=layout)
    add(f"max_pool2d_grad {name}", [N(_dims(ys)), xarg], xarg.shape_text,
        "mpt.max_pool2d_grad %a0, %a1 " + attrs + ": ({t0}, {t1}) -> {r0}",
        lambda dy, x, kw=kw: max_pool2d_grad(dy, x, **kw),
        "dot" if overlap else "exact",
        absref=lambda dy, x, kw=kw: max_pool2d_grad(np.abs(dy), x, **kw),
        K=(-(-kernel[0] // stride[0])) * (-(-kernel[1] // stride[1])),
        acc=True)

# avg_pool2d_grad: sums of dy / count over the windows reading an element
# (accumulated in f32 for f16/bf16).
AVG_GRADS = [
    # name, input shape, kernel, stride, pad, layout, count_include_pad
    ("2x2/2", (2, 2, 4, 6), (2, 2), (2, 2), (0, 0, 0, 0), "nchw", False),
    # the last row and column are read by no window: their gradient is 0
    ("2x2/2 unread edge", (1, 2, 5, 5), (2, 2), (2, 2), (0, 0, 0, 0), "nchw",
     False),
    ("3x3/2 pad", (1, 2, 5, 6), (3, 3), (2, 2), (1, 1, 1, 0), "nchw", False),
    ("3x3/2 pad count_include_pad", (1, 2, 5, 6), (3, 3), (2, 2),
     (1, 1, 1, 0), "nchw", True),
    ("nhwc 3x3/1 pad", (1, 4, 5, 3), (3, 3), (1, 1), (1, 1, 1, 1), "nhwc",
     False),
    ("nhwc 3x3/1 pad count_include_pad", (1, 4, 5, 3), (3, 3), (1, 1),
     (1, 1, 1, 1), "nhwc", True),
    ("nhwc 2x3/2 pad", (2, 5, 6, 2), (2, 3), (2, 2), (1, 0, 1, 1), "nhwc",
     False),
]
for name, xs, kernel, stride, pad, layout, cip in AVG_GRADS:
    if layout == "nhwc":
        n, h, w, c = xs
    else:
        n, c, h, w = xs
    oh = (h + pad[0] + pad[1] - kernel[0]) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - kernel[1]) // stride[1] + 1
    ys = (n, oh, ow, c) if layout == "nhwc" else (n, c, oh, ow)
    attrs = (("layout<nhwc> " if layout == "nhwc" else "")
             + f"kernel [{kernel[0]}, {kernel[1]}] "
             + f"stride [{stride[0]}, {stride[1]}] "
             + ("pad [{}, {}, {}, {}] ".format(*pad) if any(pad) else "")
             + ("count_include_pad " if cip else ""))
    kw = dict(kernel=kernel, stride=stride, pad=pad, layout=layout,
              count_include_pad=cip)
    add(f"avg_pool2d_grad {name}", [N(_dims(ys))], _dims(xs),
        "mpt.avg_pool2d_grad %a0 " + attrs + ": {t0} -> {r0}",
        lambda dy, xs=xs, kw=kw: avg_pool2d_grad(dy, xs, **kw), "dot",
        absref=lambda dy, xs=xs, kw=kw: avg_pool2d_grad(np.abs(dy), xs, **kw),
        K=(-(-kernel[0] // stride[0])) * (-(-kernel[1] // stride[1])),
        acc=True)

# embedding_grad: rows summed by index (repeated indices, unused rows).
for name, dys, ids, rows in (
        ("i64", "2x3x4", IDX("2x3", 5), 5),
        ("i32 repeats", "7x3", IDX("7", 4, "i32"), 4),
        ("i64 fixed (rows 2 and 4 unused)", "6x5",
         FIXED("6", [1, 1, 1, 0, 1, 3], "i64"), 5)):
    add(f"embedding_grad {name}", [N(dys), ids], f"{rows}x{dys.split('x')[-1]}",
        "mpt.embedding_grad %a0, %a1 : ({t0}, {t1}) -> {r0}",
        lambda dy, i, rows=rows: embedding_grad(dy, i, rows), "dot",
        absref=lambda dy, i, rows=rows: embedding_grad(np.abs(dy), i, rows),
        K=int(np.prod(ids.shape)), acc=True)

# batch_norm_grad (batch statistics recomputed; x off-centre in one case).
OFF_CENTRE = Arg("2x3x3x4", lambda r, s: 3.0 + 2.0 * r.standard_normal(s))
add("batch_norm_grad nchw", [N("2x3x4x4"), N("2x3x4x4", 2.0), N("3")],
    ["2x3x4x4", "3", "3"],
    "mpt.batch_norm_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: batch_norm_grad(dy, x, s), "comp")
add("batch_norm_grad nhwc axis=3 eps=1e-3 off-centre",
    [N("2x3x3x4"), OFF_CENTRE, N("4")], ["2x3x3x4", "4", "4"],
    "mpt.batch_norm_grad %a0, %a1, %a2 axis = 3 epsilon = 1.0e-3"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: batch_norm_grad(dy, x, s, 3, 1e-3), "comp")
add("batch_norm_grad rank2 axis=-1 eps=1e-2", [N("8x3"), N("8x3", 2.0), N("3")],
    ["8x3", "3", "3"],
    "mpt.batch_norm_grad %a0, %a1, %a2 axis = -1 epsilon = 1.0e-2"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: batch_norm_grad(dy, x, s, -1, 1e-2), "comp")
# f16 / bf16 data with an f32 scale: the scale and bias gradients are f32
# (checked at the f32 tolerance), the input gradient has the data's type.
add("batch_norm_grad nchw f32 params",
    [N("4x3x5x5"), N("4x3x5x5", 2.0), N("3", ty="f32")],
    ["4x3x5x5", ("3", "f32"), ("3", "f32")],
    "mpt.batch_norm_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: batch_norm_grad(dy, x, s), "comp", dtypes=NARROW)
add("layer_norm_grad f32 params",
    [N("4x40"), N("4x40", 2.0), N("40", ty="f32")],
    ["4x40", ("40", "f32"), ("40", "f32")],
    "mpt.layer_norm_grad %a0, %a1, %a2 : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda dy, x, s: layer_norm_grad(dy, x, s), "comp", dtypes=NARROW)
add("sgd_update", [N("4x6"), N("4x6")], "4x6",
    "mpt.sgd_update %a0, %a1 lr = 0.1 : {t0}",
    lambda p, g: p - 0.1 * g, "ew")
add("sgd_update weight_decay", [N("4x6"), N("4x6")], "4x6",
    "mpt.sgd_update %a0, %a1 lr = 0.05 weight_decay = 0.01 : {t0}",
    lambda p, g: p - 0.05 * (g + 0.01 * p), "ew")


def momentum_update(p, g, v, lr, mu, wd=0.0):
    """v' = mu v + (g + wd p), p' = p - lr v'; returns [p', v'] (p' from the
    unrounded v')."""
    v1 = mu * v + (g + wd * p)
    return [p - lr * v1, v1]


def adam_update(p, g, m, v, t, lr, b1, b2, eps, wd=0.0):
    """g' = g + wd p, m' = b1 m + (1 - b1) g', v' = b2 v + (1 - b2) g'^2,
    p' = p - lr (m' / (1 - b1^t)) / (sqrt(v' / (1 - b2^t)) + eps), t the step
    input (already counting this step); returns [p', m', v'] (p' from the
    unrounded m' and v')."""
    t = float(t)
    g1 = g + wd * p
    m1 = b1 * m + (1.0 - b1) * g1
    v1 = b2 * v + (1.0 - b2) * g1 * g1
    mhat = m1 / (1.0 - b1 ** t)
    vhat = v1 / (1.0 - b2 ** t)
    return [p - lr * mhat / (np.sqrt(vhat) + eps), m1, v1]


# momentum_update / adam_update compute in f32 and round each result once for
# f16 / bf16: checked like the elementwise ops (one ulp of the reference
# rounded once). The second moment v is >= 0; the step count is a rank-0 f32
# tensor whatever the element type.
add("momentum_update", [N("4x6"), N("4x6"), N("4x6")], ["4x6", "4x6"],
    "mpt.momentum_update %a0, %a1, %a2 lr = 0.1 momentum = 0.9 : {t0}",
    lambda p, g, v: momentum_update(p, g, v, 0.1, 0.9), "ew")
add("momentum_update weight_decay", [N("4x6"), N("4x6"), N("4x6")],
    ["4x6", "4x6"],
    "mpt.momentum_update %a0, %a1, %a2 lr = 0.05 momentum = 0.8"
    " weight_decay = 0.1 : {t0}",
    lambda p, g, v: momentum_update(p, g, v, 0.05, 0.8, 0.1), "ew")
add("adam_update step 1", [N("4x6"), N("4x6"), N("4x6", 0.5),
                           U("4x6", 0.0, 2.0), FIXED("", [1.0], "f32")],
    ["4x6", "4x6", "4x6"],
    "mpt.adam_update %a0, %a1, %a2, %a3, %a4 lr = 0.01 beta1 = 0.9"
    " beta2 = 0.999 eps = 1.0e-8 : {t0}, {t4}",
    lambda p, g, m, v, t: adam_update(p, g, m, v, t, 0.01, 0.9, 0.999, 1e-8),
    "ew")
add("adam_update weight_decay step 7", [N("4x6"), N("4x6"), N("4x6", 0.5),
                                        U("4x6", 0.0, 2.0),
                                        FIXED("", [7.0], "f32")],
    ["4x6", "4x6", "4x6"],
    "mpt.adam_update %a0, %a1, %a2, %a3, %a4 lr = 0.1 beta1 = 0.8"
    " beta2 = 0.99 eps = 1.0e-3 weight_decay = 0.05 : {t0}, {t4}",
    lambda p, g, m, v, t: adam_update(p, g, m, v, t, 0.1, 0.8, 0.99, 1e-3,
                                      0.05),
    "ew")

# --- gradient clipping and loss scaling --------------------------------------


def clip_ref(max_norm, *gs):
    """clip_grad_norm_: g * min(1, max_norm / (||g||_2 + 1e-6)), the norm over
    every element of every gradient."""
    norm = math.sqrt(sum(float(np.sum(np.square(g))) for g in gs))
    factor = min(1.0, max_norm / (norm + 1e-6))
    return [g * factor for g in gs]


add("clip_by_global_norm clipped", [N("4x6", 3.0), N("6", 3.0)], ["4x6", "6"],
    "mpt.clip_by_global_norm %a0, %a1 max_norm = 1.0"
    " : ({t0}, {t1}) -> ({r0}, {r1})",
    lambda a, b: clip_ref(1.0, a, b), "ew")
add("clip_by_global_norm below max_norm", [N("4x6"), N("6")], ["4x6", "6"],
    "mpt.clip_by_global_norm %a0, %a1 max_norm = 1000.0"
    " : ({t0}, {t1}) -> ({r0}, {r1})",
    lambda a, b: clip_ref(1000.0, a, b), "exact")
add("backward_seed", [N("")], "", "mpt.backward_seed %a0 : {t0}",
    lambda x: np.ones(()), "exact")
add("select rank-0 condition", [FIXED("", [True], "i1"), N("4x6"), N("4x6")],
    "4x6", "mpt.select %a0, %a1, %a2 : {t0}, {r0}",
    lambda c, a, b: np.where(c, a, b), "exact")
add("select elementwise", [Arg("4x6", lambda r, s: r.integers(0, 2, s), "i1"),
                           N("4x6"), N("4x6")],
    "4x6", "mpt.select %a0, %a1, %a2 : {t0}, {r0}",
    lambda c, a, b: np.where(c, a, b), "exact")


def unscale_ref(scales, gs, max_norm=None):
    """inv = f32(1 / f64(scale)); u = f32(f32(g) * inv); found_inf when a u is
    inf or NaN; with max_norm, clip_ref of the u (a non-finite norm is an
    overflow too)."""
    out, found = [], False
    for i, g in enumerate(gs):
        s = scales[0] if len(scales) == 1 else scales[i]
        inv = np.float32(1.0 / np.float64(s))
        with np.errstate(over="ignore", invalid="ignore"):
            u = (np.asarray(g, np.float32) * inv).astype(np.float64)
        found |= not np.isfinite(u).all()
        out.append(u)
    if max_norm is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            norm = math.sqrt(sum(float(np.sum(np.square(u))) for u in out))
        found |= not math.isfinite(norm)
        out = clip_ref(max_norm, *out)
    return out + [np.array(found)]


SCALE = lambda v: FIXED("", [v], "f32")  # noqa: E731
WITH_INF = Arg("4x6", lambda r, s: np.where(
    np.arange(24).reshape(s) == 7, np.inf, r.standard_normal(s)))
WITH_NAN = Arg("6", lambda r, s: np.where(
    np.arange(6) == 2, np.nan, r.standard_normal(s)))
add("unscale_and_check 2^10", [N("4x6", 1024.0), N("6", 1024.0), SCALE(1024.0)],
    [("4x6", "f32"), ("6", "f32"), ("", "i1")],
    "mpt.unscale_and_check %a0, %a1 scales(%a2)"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda a, b, s: unscale_ref([s], [a, b]), "exact")
add("unscale_and_check scale 3 (1/3 rounded once)",
    [N("4x6", 100.0), N("6", 100.0), SCALE(3.0)],
    [("4x6", "f32"), ("6", "f32"), ("", "i1")],
    "mpt.unscale_and_check %a0, %a1 scales(%a2)"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda a, b, s: unscale_ref([s], [a, b]), "exact")
add("unscale_and_check inf", [WITH_INF, N("6"), SCALE(65536.0)],
    [("4x6", "f32"), ("6", "f32"), ("", "i1")],
    "mpt.unscale_and_check %a0, %a1 scales(%a2)"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda a, b, s: unscale_ref([s], [a, b]), "exact")
add("unscale_and_check nan", [N("4x6"), WITH_NAN, SCALE(65536.0)],
    [("4x6", "f32"), ("6", "f32"), ("", "i1")],
    "mpt.unscale_and_check %a0, %a1 scales(%a2)"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda a, b, s: unscale_ref([s], [a, b]), "exact")
add("unscale_and_check per-gradient scales",
    [N("4x6", 8.0), N("6", 256.0), SCALE(8.0), SCALE(256.0)],
    [("4x6", "f32"), ("6", "f32"), ("", "i1")],
    "mpt.unscale_and_check %a0, %a1 scales(%a2, %a3)"
    " : ({t0}, {t1}, {t2}, {t3}) -> ({r0}, {r1}, {r2})",
    lambda a, b, s, t: unscale_ref([s, t], [a, b]), "exact")
add("unscale_and_check in the gradient type", [N("4x6", 1024.0), SCALE(4.0)],
    [("4x6", None), ("", "i1")],
    "mpt.unscale_and_check %a0 scales(%a1) : ({t0}, {t1}) -> ({r0}, {r1})",
    lambda a, s: unscale_ref([s], [a]), "ew")
add("unscale_and_check max_norm", [N("4x6", 4096.0), N("6", 4096.0),
                                   SCALE(1024.0)],
    [("4x6", "f32"), ("6", "f32"), ("", "i1")],
    "mpt.unscale_and_check %a0, %a1 scales(%a2) max_norm = 1.0"
    " : ({t0}, {t1}, {t2}) -> ({r0}, {r1}, {r2})",
    lambda a, b, s: unscale_ref([s], [a, b], 1.0), "ew")
# Finite unscaled gradients whose squares overflow f32: the norm is inf.
add("unscale_and_check max_norm, non-finite norm",
    [FIXED("2", [3.0e19, -2.0e19], "f32"), SCALE(1.0)],
    [("2", "f32"), ("", "i1")],
    "mpt.unscale_and_check %a0 scales(%a1) max_norm = 1.0"
    " : ({t0}, {t1}) -> ({r0}, {r1})",
    lambda a, s: [np.zeros(2), np.array(True)], "exact", dtypes=("f32",))


def layer_scale_ref(g, o, scale, fan_in, min_value, max_value, max_scale):
    """The definition of mpt.layer_scale in MPTOps.td, in float64."""
    e_g, e_o = float(np.mean(np.square(g))), float(np.mean(np.square(o)))
    sigma = math.sqrt(e_g * e_o * fan_in / 2.0)
    quantile = 1.2533150147717427e-3     # erfinv(1e-3) * sqrt(2)
    product_max = float(np.max(np.abs(g))) * float(np.max(np.abs(o))) * fan_in
    if not (sigma * product_max > 0) or not math.isfinite(sigma * product_max):
        return np.array(1.0)
    lower = max(1.0, min_value / (quantile * sigma))
    upper = max_value / product_max
    alpha = min(lower, upper, max_scale / float(scale))
    return np.array(2.0 ** max(math.floor(math.log2(alpha)), -100))


F16_MIN, F16_MAX = 2.0 ** -24, 65504.0
for name, g, o, s, fan_in in (
        ("tiny gradient (underflow bound)", N("8x16", 1e-7), N("16x4"), 1.0, 16),
        ("large gradient (overflow bound)", N("8x16", 1000.0), N("16x4", 3.0), 1.0,
         16),
        ("accumulated scale bound", N("8x16", 1e-7), N("16x4"), 2.0 ** 23, 16),
        ("zero gradient", FIXED("8x16", np.zeros(128)), N("16x4"), 4.0, 16)):
    add("layer_scale " + name, [g, o, SCALE(s)], [("", "f32")],
        f"mpt.layer_scale %a0, %a1, %a2 fan_in = {fan_in}"
        f" min_value = {F16_MIN!r} max_value = {F16_MAX!r}"
        " max_scale = 16777216.0 : {t0}, {t1}",
        lambda g, o, s, fan_in=fan_in: layer_scale_ref(
            g, o, s, fan_in, F16_MIN, F16_MAX, 2.0 ** 24), "exact")


def update_scale_ref(s, growth, hyst, found, gf, bf, interval, hysteresis,
                     lo, hi):
    """The state machine of mpt.update_scale (MPTOps.td), products in float64
    rounded to float32."""
    s, growth, hyst = float(s), int(growth), int(hyst)
    if bool(found):
        growth, hyst = 0, max(hyst - 1, 0)
        if hyst <= 0:
            s = max(s * bf, lo)
    else:
        growth += 1
        if growth >= interval:
            s, growth, hyst = min(s * gf, hi), 0, hysteresis
    return [np.float32(s).astype(np.float64), np.array(growth),
            np.array(hyst)]


I32 = lambda v: FIXED("", [v], "i32")  # noqa: E731
I1 = lambda v: FIXED("", [v], "i1")  # noqa: E731
for name, s, g, h, f, attrs in (
        ("overflow backs off", 65536.0, 5, 1, True, (2.0, 0.5, 2000, 1, 1.0, 2.0 ** 24)),
        ("overflow tolerated by hysteresis", 65536.0, 5, 2, True,
         (2.0, 0.5, 2000, 2, 1.0, 2.0 ** 24)),
        ("backoff floored at min_scale", 1.5, 0, 1, True, (2.0, 0.5, 10, 1, 1.0, 2.0 ** 24)),
        ("good step counts", 1024.0, 3, 1, False, (2.0, 0.5, 10, 1, 1.0, 2.0 ** 24)),
        ("growth after the interval", 1024.0, 9, 1, False, (3.0, 0.25, 10, 3, 1.0, 2.0 ** 24)),
        ("growth capped at max_scale", 2.0 ** 23 * 1.5, 1, 1, False,
         (2.0, 0.5, 2, 1, 1.0, 2.0 ** 24)),
        ("backoff not a power of two", 1000.0, 0, 1, True, (2.0, 0.3, 10, 1, 1.0, 2.0 ** 24))):
    gf, bf, interval, hysteresis, lo, hi = attrs
    add("update_scale " + name, [SCALE(s), I32(g), I32(h), I1(f)],
        [("", "f32"), ("", "i32"), ("", "i32")],
        f"mpt.update_scale %a0, %a1, %a2, %a3 growth_factor = {gf!r}"
        f" backoff_factor = {bf!r} growth_interval = {interval}"
        f" hysteresis = {hysteresis} min_scale = {lo!r} max_scale = {hi!r}",
        lambda s, g, h, f, a=attrs: update_scale_ref(s, g, h, f, *a), "exact",
        dtypes=("f32",))

# ---------------------------------------------------------------------------
# Running and checking
# ---------------------------------------------------------------------------


class Runner:
    def __init__(self, mpt_run, workdir, extra=()):
        self.mpt_run, self.workdir, self.extra = mpt_run, workdir, list(extra)

    def run(self, tag, module, inputs, num_results):
        """Writes the module and the inputs, runs mpt-run, returns the results
        as arrays (as stored in the .npy files) and their descrs."""
        for name in os.listdir(self.workdir):
            path = os.path.join(self.workdir, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        mlir = os.path.join(self.workdir, "case.mlir")
        with open(mlir, "w") as f:
            f.write(f"// {tag}\n{module}")
        cmd = [self.mpt_run, mlir, "--entry=main",
               "--output-dir=" + os.path.join(self.workdir, "out")] + self.extra
        for i, array in enumerate(inputs):
            path = os.path.join(self.workdir, f"in_{i}.npy")
            np.save(path, array)
            cmd.append("--input=" + path)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(
                f"mpt-run exited with {proc.returncode}: "
                + (proc.stderr.strip() or proc.stdout.strip())[-2000:]
                + "\n--- module ---\n" + module)
        results = []
        for i in range(num_results):
            results.append(read_npy(os.path.join(self.workdir, "out",
                                                 f"result_{i}.npy")))
        return results


def gamma(n, u):
    return n * u / (1.0 - n * u)


def compare(case, dt, out, ref, extra):
    """Returns (err, tol, ok, text) for one result."""
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        return (math.inf, 0.0, False,
                f"shape {out.shape} != reference shape {ref.shape}")
    if case.check == "exact" or dt in ("i64", "i32", "i1"):
        same = (out == ref) | (np.isnan(out) & np.isnan(ref))
        if same.all():
            return 0.0, 0.0, True, "exact"
        with np.errstate(invalid="ignore"):
            d = np.abs(out - ref)
        d[~same & ~np.isfinite(d)] = np.inf
        i = int(np.argmax(~same.ravel()))
        return (float(np.max(np.where(same, 0.0, d))), 0.0, False,
                f"exact; {np.count_nonzero(~same)} differ, e.g. [{i}] "
                f"out={out.ravel()[i]!r} ref={ref.ravel()[i]!r}")
    # Infinities must match exactly (e.g. results that overflow f16); the
    # finite elements are compared below.
    inf = np.isinf(out) | np.isinf(round_output(ref, dt))
    if np.isnan(out).any() or (out[inf] != round_output(ref, dt)[inf]).any():
        return math.inf, 0.0, False, "NaN or infinity where the reference has none"
    if inf.any():
        keep = ~inf
        out, ref = out[keep], ref[keep]
        extra = extra[keep] if isinstance(extra, np.ndarray) else extra
    if dt == "f32":
        if case.check == "ew":
            err = np.max(np.abs(out - ref) / (np.abs(ref) + F32_ATOL / F32_RTOL))
            return float(err), F32_RTOL, err <= F32_RTOL, "rel(rtol=1e-5,atol=1e-6)"
        norm = np.linalg.norm(ref)
        err = np.linalg.norm(out - ref) / (norm if norm > 0 else 1.0)
        return float(err), F32_NORM, err <= F32_NORM, "normwise"
    rtol, atol, _ = ULP[dt]
    refr = round_output(ref, dt)
    slack = atol + (extra if extra is not None else 0.0)
    errs = np.abs(out - refr) / (np.abs(refr) + slack / rtol)
    err = np.max(errs)
    what = {"ew": "1ulp", "dot": "1ulp+gamma", "comp": "1ulp+2^-18max"}[
        case.check]
    if err > rtol:
        i = int(np.argmax(errs.ravel()))
        what += (f"; {np.count_nonzero(errs > rtol)} outside, worst [{i}] "
                 f"out={out.ravel()[i]:.9g} ref={refr.ravel()[i]:.9g} "
                 f"(unrounded {ref.ravel()[i]:.9g})")
    return float(err), rtol, err <= rtol, what


def case_extra(case, dt, xs, ref):
    """The slack beyond one ulp, per element, for narrow types."""
    if dt not in NARROW:
        return None
    if case.check == "dot":
        u = U_F32 if case.acc else ULP[dt][2]
        return gamma(case.K + 1, u) * np.asarray(case.absref(*xs))
    if case.check == "comp":
        return COMPOSITE_SLACK * float(np.max(np.abs(ref)))
    return None


def prepare_inputs(case, dt, rng):
    """(values as float64/int arrays, arrays for the .npy files)."""
    values, files = [], []
    for arg in case.args:
        ty = arg.ty or dt
        raw = np.asarray(arg.gen(rng, arg.shape))
        if ty == "i1":
            v = raw.astype(np.bool_)
        elif ty in ("i64", "i32"):
            v = raw.astype(np.int64)
            # Data movement cases run on i64 too: normal draws * 20, rounded.
            if case.check == "exact" and arg.ty is None:
                v = np.rint(raw * 20).astype(np.int64)
        else:
            v = round_input(raw, ty)
        values.append(v)
        files.append(npy_array(v, ty))
    return values, files


def run_case(runner, case, dt):
    # One seed per case: the f16/bf16 inputs are the f32 ones, rounded.
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    values, files = prepare_inputs(case, dt, rng)
    module = make_module(case, dt)
    outs = runner.run(f"{case.name} {dt}", module, files, len(case.results))
    refs = case.ref(*values)
    refs = refs if isinstance(refs, list) else [refs]
    worst = None
    for (shape_text, ty), out, ref in zip(case.results, outs, refs):
        rty = ty or dt
        if out.dtype.str != NPY_DESCR[rty]:
            return (math.inf, 0.0, False,
                    f"result dtype {out.dtype.str}, expected {NPY_DESCR[rty]}")
        ref = np.asarray(ref)
        if rty in NARROW or rty == "f32":
            if case.check == "exact":
                ref = round_output(ref, rty)
        extra = case_extra(case, rty, [np.asarray(v, dtype=np.float64)
                                       if v.dtype.kind == "f" else v
                                       for v in values], ref)
        result = compare(case, rty, out, ref, extra)
        if worst is None or not result[2] or (worst[2] and result[0] > worst[0]):
            worst = result
    return worst


# ---------------------------------------------------------------------------
# matmul: acc(f32) against accumulation in the element type
# ---------------------------------------------------------------------------


def run_acc_comparison(runner, dt):
    m, k, n = 8, 512, 8
    rng = np.random.default_rng(1234)
    a32 = rng.standard_normal((m, k)).astype(np.float32)
    b32 = rng.standard_normal((k, n)).astype(np.float32)
    a, b = round_input(a32, dt), round_input(b32, dt)
    case = Case("matmul acc(f32) vs plain", [Arg(f"{m}x{k}", None),
                                             Arg(f"{k}x{n}", None)],
                [f"{m}x{n}", f"{m}x{n}"], None, None, "dot",
                body=["%r0 = mpt.matmul %a0, %a1 acc(f32) : ({t0}, {t1}) -> {r0}",
                      "%r1 = mpt.matmul %a0, %a1 : ({t0}, {t1}) -> {r1}"])
    out_acc, out_plain = runner.run(f"acc comparison {dt}", make_module(case, dt),
                                    [npy_array(a, dt), npy_array(b, dt)], 2)
    exact = a @ b                              # rounded inputs, float64
    ref32 = a32.astype(np.float64) @ b32.astype(np.float64)   # f32 reference
    absprod = np.abs(a) @ np.abs(b)

    def norm_err(out, ref):
        return float(np.linalg.norm(out.astype(np.float64) - ref) /
                     np.linalg.norm(ref))

    e_acc, e_plain = norm_err(out_acc, exact), norm_err(out_plain, exact)
    f_acc, f_plain = norm_err(out_acc, ref32), norm_err(out_plain, ref32)
    rtol, atol, u = ULP[dt]
    refr = round_output(exact, dt)
    ok = True
    bounds = []
    for out, uu in ((out_acc, U_F32), (out_plain, u)):
        slack = atol + gamma(k + 1, uu) * absprod
        err = float(np.max(np.abs(out.astype(np.float64) - refr) /
                           (np.abs(refr) + slack / rtol)))
        bounds.append(err)
        ok &= err <= rtol
    ok &= e_acc < e_plain and f_acc < f_plain
    text = (f"matmul acc(f32) vs plain K={k} {dt}: err=[acc {e_acc:.3g} plain "
            f"{e_plain:.3g}] vs f32 ref: [acc {f_acc:.3g} plain {f_plain:.3g}] "
            f"tol=acc<plain, bounds {abs(bounds[0]):.3g},{abs(bounds[1]):.3g}"
            f"<={rtol:.3g}")
    return ok, text


# ---------------------------------------------------------------------------
# Exact cast rounding
# ---------------------------------------------------------------------------


def f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


# f32 value -> expected f16 bits (written from IEEE 754 binary16).
F16_TABLE = [
    (1.0, 0x3C00), (1.0 + 2.0 ** -11, 0x3C00),            # tie -> even (down)
    (1.0 + 3 * 2.0 ** -11, 0x3C02),                       # tie -> even (up)
    (1.0 + 2.0 ** -11 + 2.0 ** -23, 0x3C01),              # above the tie
    (1.0 + 2.0 ** -11 - 2.0 ** -23, 0x3C00),              # below the tie
    (2049.0, 0x6800), (2051.0, 0x6802), (-2049.0, 0xE800),
    (0.1, 0x2E66), (1.0 / 3.0, 0x3555), (-2.5, 0xC100),
    (2.0 ** -14, 0x0400),                                 # smallest normal
    (2.0 ** -14 - 2.0 ** -25, 0x0400),                    # tie 0x3FF/0x400
    (1023 * 2.0 ** -24, 0x03FF),                          # largest subnormal
    (1022.5 * 2.0 ** -24, 0x03FE),                        # tie -> even
    (2.0 ** -24, 0x0001),                                 # smallest subnormal
    (1.5 * 2.0 ** -24, 0x0002), (2.5 * 2.0 ** -24, 0x0002),
    (3.5 * 2.0 ** -24, 0x0004), (0.75 * 2.0 ** -24, 0x0001),
    (2.0 ** -25, 0x0000),                                 # tie with 0 -> 0
    (2.0 ** -25 + 2.0 ** -40, 0x0001),
    (-(2.0 ** -25), 0x8000),                              # -> -0
    (2.0 ** -26, 0x0000), (1e-10, 0x0000), (-1e-10, 0x8000),
    (1e-40, 0x0000), (-1e-40, 0x8000),                    # f32 subnormals
    (65504.0, 0x7BFF), (65519.0, 0x7BFF),
    (65520.0 - 2.0 ** -8, 0x7BFF),                        # just below the tie
    (65520.0, 0x7C00),                                    # tie -> inf
    (-65520.0, 0xFC00), (65536.0, 0x7C00), (1e6, 0x7C00), (-1e6, 0xFC00),
    (float.fromhex("0x1.fffffep127"), 0x7C00),
    (math.inf, 0x7C00), (-math.inf, 0xFC00),
    (0.0, 0x0000), (-0.0, 0x8000),
]
F16_NAN_BITS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF,
                0x7F802000, 0x7FBFFFFF]

# f32 bits -> expected bf16 bits (written from the bfloat16 format).
BF16_TABLE = [
    (0x3F800000, 0x3F80), (0x3F808000, 0x3F80),           # tie -> even (down)
    (0x3F818000, 0x3F82),                                 # tie -> even (up)
    (0x3F808001, 0x3F81), (0x3F807FFF, 0x3F80),
    (0x3DCCCCCD, 0x3DCD), (0x40490FDB, 0x4049), (0xC0200000, 0xC020),
    (0x00000001, 0x0000), (0x00008000, 0x0000),           # tie with 0
    (0x00008001, 0x0001), (0x00010000, 0x0001),           # smallest subnormal
    (0x00018000, 0x0002), (0x00028000, 0x0002),           # ties -> even
    (0x80008000, 0x8000), (0x80018000, 0x8002),
    (0x007FFFFF, 0x0080),                                 # -> smallest normal
    (0x007F7FFF, 0x007F),                                 # largest subnormal
    (0x7F7F0000, 0x7F7F), (0x7F7F7FFF, 0x7F7F),           # largest finite
    (0x7F7F8000, 0x7F80),                                 # tie -> inf
    (0x7F7FFFFF, 0x7F80), (0xFF7FFFFF, 0xFF80),           # f32 max -> inf
    (0x7F800000, 0x7F80), (0xFF800000, 0xFF80),
    (0x00000000, 0x0000), (0x80000000, 0x8000),
]
BF16_NAN_BITS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF,
                 0xFFFFFFFF, 0x7F808000, 0x7F80FFFF]


def bits_compare(out_bits, exp_bits, out_nan, exp_nan):
    """Number of mismatches; NaN only has to stay NaN."""
    bad = np.where(exp_nan, ~out_nan, out_bits != exp_bits)
    return int(np.count_nonzero(bad)), bad


def cast_checks(runner):
    """Yields (name, ok, text)."""
    with np.errstate(over="ignore", invalid="ignore"):
        yield from _cast_checks(runner)


def _cast_checks(runner):
    rng = np.random.default_rng(7)
    # Self-checks of the references.
    x = np.array([v for v, _ in F16_TABLE], dtype=np.float32)
    exp16 = np.array([b for _, b in F16_TABLE], dtype=np.uint16)
    assert np.array_equal(x.astype(np.float16).view(np.uint16), exp16), \
        "numpy's float16 rounding disagrees with the f16 table"
    assert np.array_equal(round_fmt(x, "f16").astype(np.float16).view(
        np.uint16), exp16), "round_fmt disagrees with the f16 table"
    xb = f32([b for b, _ in BF16_TABLE])
    expb = np.array([b for _, b in BF16_TABLE], dtype=np.uint16)
    assert np.array_equal(bf16_bits(xb), expb), "bf16_bits disagrees"
    rb = round_fmt(xb.astype(np.float64), "bf16").astype(np.float32)
    assert np.array_equal(rb.view(np.uint32) >> 16, expb.astype(np.uint32)), \
        "round_fmt disagrees with the bf16 table"
    assert np.all(np.isnan(bf16_to_f32(bf16_bits(f32(BF16_NAN_BITS)))))

    # Random bit patterns (all exponents) and ordinary values.
    rbits = rng.integers(0, 1 << 32, 4096, dtype=np.uint64).astype(np.uint32)
    rand = np.concatenate([rbits.view(np.float32),
                           rng.standard_normal(1024).astype(np.float32) *
                           np.float32(2.0 ** rng.integers(-30, 20, 1024)).astype(np.float32)])
    assert np.array_equal(
        round_fmt(rand.astype(np.float64), "bf16").astype(np.float32)[~np.isnan(rand)],
        round_bf16_f32(rand)[~np.isnan(rand)]), "bf16 references disagree"
    fin = ~np.isnan(rand)
    assert np.array_equal(
        round_fmt(rand[fin].astype(np.float64), "f16").astype(np.float16).view(np.uint16),
        rand[fin].astype(np.float16).view(np.uint16)), "f16 references disagree"

    all16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)

    def cast_case(name, src, dst, inputs, expected, exp_nan):
        """inputs: the .npy array; expected: the exact result (f16 array for
        f16, float32 for f32 and bf16)."""
        n = inputs.size
        case = Case(name, [Arg(str(n), None, src)], [(str(n), dst)],
                    "mpt.cast %a0 : {t0} to {r0}", None, "exact")
        (out,) = runner.run(name, make_module(case, dst), [inputs], 1)
        if out.dtype.str != NPY_DESCR[dst]:
            return False, f"result dtype {out.dtype.str}"
        if dst == "f16":
            ob, eb = out.view(np.uint16), expected.astype(np.float16).view(np.uint16)
        else:
            ob = out.astype(np.float32).view(np.uint32)
            eb = expected.astype(np.float32).view(np.uint32)
        bad_count, bad = bits_compare(ob, eb, np.isnan(out), exp_nan)
        if bad_count:
            idx = np.nonzero(bad)[0][:6]
            src_bits = (inputs.view(np.uint16) if inputs.dtype == np.float16
                        else inputs.view(np.uint32) if inputs.dtype == np.float32
                        else inputs)
            shown = ", ".join(f"in {int(src_bits[i]):#x} -> {int(ob[i]):#x} "
                              f"(expected {int(eb[i]):#x})" for i in idx)
            return False, f"{bad_count}/{n} wrong: {shown}"
        return True, f"{n} values bit-exact"

    # f32 -> f16: table + NaNs + random.
    xs = np.concatenate([x, f32(F16_NAN_BITS), rand])
    exp = xs.astype(np.float16)   # numpy: IEEE round to nearest even
    yield ("cast-rounding f32->f16", *cast_case(
        "cast-rounding f32->f16", "f32", "f16", xs, exp, np.isnan(xs)))
    # f32 -> bf16; f32 subnormal inputs separately (they round to bf16
    # subnormals, or to the smallest normal number, or to zero). IEEE
    # rounding keeps them; an instruction that flushes denormals (x86
    # vcvtneps2bf16, chosen when the JIT targets a CPU with AVX512-BF16)
    # does not.
    xs = np.concatenate([xb, f32(BF16_NAN_BITS), rand])
    sub = (np.abs(xs) < np.float32(2.0 ** -126)) & (xs != 0)
    for name, sel in (("cast-rounding f32->bf16", ~sub),
                      ("cast-rounding f32->bf16 subnormals", sub)):
        x = xs[sel]
        if name.endswith("subnormals"):
            # and random subnormal patterns, both signs
            extra = rng.integers(1, 1 << 23, 256, dtype=np.uint64).astype(
                np.uint32) | (rng.integers(0, 2, 256, dtype=np.uint64).astype(
                    np.uint32) << 31)
            x = np.concatenate([x, extra.view(np.float32)])
        yield (name, *cast_case(name, "f32", "bf16", x,
                                bf16_to_f32(bf16_bits(x)), np.isnan(x)))
    # f16 -> f32: all 65536 f16 values, exact.
    h = all16.view(np.float16)
    yield ("cast-exact f16->f32 (all f16)", *cast_case(
        "cast-exact f16->f32", "f16", "f32", h, h.astype(np.float32),
        np.isnan(h)))
    # bf16 -> f32: all bf16 values, exact.
    bvals = bf16_to_f32(all16)
    yield ("cast-exact bf16->f32 (all bf16)", *cast_case(
        "cast-exact bf16->f32", "bf16", "f32", bvals, bvals, np.isnan(bvals)))
    # f16 -> bf16: all f16 values, one rounding.
    yield ("cast-rounding f16->bf16 (all f16)", *cast_case(
        "cast-rounding f16->bf16", "f16", "bf16", h,
        round_bf16_f32(h.astype(np.float32)), np.isnan(h)))
    # bf16 -> f16: all bf16 values, one rounding.
    yield ("cast-rounding bf16->f16 (all bf16)", *cast_case(
        "cast-rounding bf16->f16", "bf16", "f16", bvals,
        bvals.astype(np.float16), np.isnan(bvals)))


# ---------------------------------------------------------------------------
# Self-checks of the backward references (float64, no mpt-run)
# ---------------------------------------------------------------------------


def reference_self_checks():
    """(ok, text): the references of the backward ops against the forward
    references they differentiate: the adjoint identities of the linear ops
    (conv2d: <conv2d(x, w), dy> = <x, dx> = <w, dw>; average pooling;
    embedding lookups), and central differences of pool2d (max) and
    batch_norm along random directions."""
    rng = np.random.default_rng(99)
    worst = {"conv2d adjoint": 0.0, "max_pool2d fd": 0.0,
             "batch_norm fd": 0.0}

    def note(key, got, want, scale):
        worst[key] = max(worst[key], abs(got - want) / scale)

    for _, xs, ws, _, kw in CONV_GRADS:
        x, w = rng.standard_normal(xs), rng.standard_normal(ws)
        y = conv2d(x, w, **kw)
        dy = rng.standard_normal(y.shape)
        dx = conv2d_backward_data(dy, w, xs, **kw)
        dw = conv2d_backward_filter(x, dy, ws, **kw)
        scale = np.sum(conv2d(np.abs(x), np.abs(w), **kw) * np.abs(dy))
        note("conv2d adjoint", np.sum(x * dx), np.sum(y * dy), scale)
        note("conv2d adjoint", np.sum(w * dw), np.sum(y * dy), scale)
    # Max pooling is linear near inputs without ties (normal draws).
    t = 1e-7
    for _, xarg, kernel, stride, pad, layout in POOL_GRADS:
        x = rng.standard_normal(xarg.shape)
        y = pool2d(x, kernel, stride, pad, layout)
        dy, v = rng.standard_normal(y.shape), rng.standard_normal(x.shape)
        dx = max_pool2d_grad(dy, x, kernel, stride, pad, layout)
        fd = (np.sum(dy * pool2d(x + t * v, kernel, stride, pad, layout))
              - np.sum(dy * pool2d(x - t * v, kernel, stride, pad, layout))) \
            / (2 * t)
        note("max_pool2d fd", np.sum(dx * v), fd, np.sum(np.abs(dy)))
    t = 1e-5
    for shape, axis, eps in (((2, 3, 4, 4), 1, 1e-5), ((8, 3), -1, 1e-2)):
        c = shape[axis]
        x = 3.0 + 2.0 * rng.standard_normal(shape)
        s, b = rng.standard_normal(c), rng.standard_normal(c)
        dy = rng.standard_normal(shape)
        dx, ds, db = batch_norm_grad(dy, x, s, axis, eps)

        def f(x, s, b):
            return np.sum(dy * batch_norm(x, s, b, axis, eps))

        vx, vs, vb = (rng.standard_normal(shape), rng.standard_normal(c),
                      rng.standard_normal(c))
        scale = np.sum(np.abs(dy))
        for got, dx_, ds_, db_ in ((np.sum(dx * vx), vx, 0, 0),
                                   (np.sum(ds * vs), 0, vs, 0),
                                   (np.sum(db * vb), 0, 0, vb)):
            fd = (f(x + t * dx_, s + t * ds_, b + t * db_)
                  - f(x - t * dx_, s - t * ds_, b - t * db_)) / (2 * t)
            note("batch_norm fd", got, fd, scale)
    # Average pooling and embedding lookups are linear: adjoint identities.
    worst["avg_pool2d adjoint"] = worst["embedding adjoint"] = 0.0
    for _, xs, kernel, stride, pad, layout, cip in AVG_GRADS:
        x = rng.standard_normal(xs)
        y = pool2d(x, kernel, stride, pad, layout, "avg", cip)
        dy = rng.standard_normal(y.shape)
        dx = avg_pool2d_grad(dy, xs, kernel, stride, pad, layout, cip)
        note("avg_pool2d adjoint", np.sum(x * dx), np.sum(y * dy),
             np.sum(np.abs(x)) * np.max(np.abs(dy)))
    for rows, shape in ((5, (2, 3)), (4, (7,))):
        table = rng.standard_normal((rows, 3))
        ids = rng.integers(0, rows, shape)
        dy = rng.standard_normal(shape + (3,))
        note("embedding adjoint", np.sum(table * embedding_grad(dy, ids, rows)),
             np.sum(table[ids] * dy), np.sum(np.abs(table[ids] * dy)))
    tols = {"conv2d adjoint": 1e-13, "max_pool2d fd": 1e-7,
            "batch_norm fd": 1e-7, "avg_pool2d adjoint": 1e-13,
            "embedding adjoint": 1e-13}
    ok = all(worst[k] <= tols[k] for k in worst)
    return ok, ", ".join(f"{k} {worst[k]:.2g}<={tols[k]:.0g}" for k in worst)


# ---------------------------------------------------------------------------
# Coverage: every op of MPTOps.td has a case
# ---------------------------------------------------------------------------

OPS_TD = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                      os.pardir, os.pardir, "include", "mpt", "Dialect", "MPT",
                      "IR", "MPTOps.td")


# Ops without a value to compare with numpy, and the tests that cover them.
NOT_NUMERIC = {
    "sm_count": "GPU host code's multiprocessor count (an index): "
                "test/GPU/lower-sm-count.mlir, emulate-device-sms.test",
}


def coverage():
    """(ok, text): the mnemonics defined in MPTOps.td without a case (other
    than NOT_NUMERIC's)."""
    if not os.path.exists(OPS_TD):
        return True, f"skipped ({OPS_TD} not found)"
    with open(OPS_TD) as f:
        ops = set(re.findall(r'^def MPT_\w+Op\s*:\s*MPT_\w*<\s*"(\w+)"',
                             f.read(), re.M))
    texts = [c.op or "" for c in CASES] + [l for c in CASES for l in c.body or []]
    used = set(re.findall(r"\bmpt\.(\w+)", " ".join(texts)))
    stale = sorted(set(NOT_NUMERIC) - ops)
    if stale:
        return False, f"NOT_NUMERIC names ops that MPTOps.td does not " \
            f"define: {', '.join(stale)}"
    ops -= set(NOT_NUMERIC)
    missing = sorted(ops - used)
    if missing:
        return False, f"{len(ops) - len(missing)}/{len(ops)} ops have cases; " \
            f"missing: {', '.join(missing)}"
    return True, f"{len(ops)}/{len(ops)} numeric ops of MPTOps.td have cases"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpt-run", required=True)
    parser.add_argument("--filter", default=None,
                        help="only the cases whose 'name dtype' matches")
    parser.add_argument("--mpt-run-arg", action="append", default=[],
                        help="an argument for mpt-run (e.g. --emulate-gpu=...)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary directory")
    args = parser.parse_args()
    if not os.access(args.mpt_run, os.X_OK):
        print(f"error: {args.mpt_run} is not an executable", file=sys.stderr)
        return 2
    pattern = re.compile(args.filter) if args.filter else None
    workdir = tempfile.mkdtemp(prefix="mpt-op-numerics-")
    runner = Runner(args.mpt_run, workdir, args.mpt_run_arg)
    passed = failed = 0
    failures = []
    start = time.time()

    def report(ok, line):
        nonlocal passed, failed
        print(line + (" ok" if ok else " FAIL"), flush=True)
        if ok:
            passed += 1
        else:
            failed += 1
            failures.append(line)

    if not pattern:
        ok, text = coverage()
        report(ok, f"coverage: {text}")
    if not pattern or pattern.search("reference self-checks"):
        try:
            ok, text = reference_self_checks()
            report(ok, f"reference self-checks: {text}")
        except Exception as error:  # pylint: disable=broad-except
            report(False, f"reference self-checks: error: {error}")
    try:
        for case in CASES:
            for dt in case.dtypes:
                tag = f"{case.name} {dt}"
                if pattern and not pattern.search(tag):
                    continue
                try:
                    err, tol, ok, what = run_case(runner, case, dt)
                    report(bool(ok), f"{tag}: err={err:.3g} tol={tol:.3g} ({what})")
                except Exception as error:  # pylint: disable=broad-except
                    report(False, f"{tag}: error: {error}")
        for dt in NARROW:
            tag = f"matmul acc(f32) vs plain {dt}"
            if pattern and not pattern.search(tag):
                continue
            try:
                ok, text = run_acc_comparison(runner, dt)
                report(ok, text)
            except Exception as error:  # pylint: disable=broad-except
                report(False, f"{tag}: error: {error}")
        if not pattern or pattern.search("cast-rounding cast-exact"):
            try:
                for name, ok, text in cast_checks(runner):
                    report(ok, f"{name}: {text}")
            except Exception as error:  # pylint: disable=broad-except
                report(False, f"cast rounding: error: {error}")
    finally:
        if args.keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if MALFORMED_NPY:
        print("warning: mpt-run wrote a .npy header that np.load rejects; read "
              "leniently: " + MALFORMED_NPY[0])
    summary = []
    if failures:
        summary.append("failures:")
        summary += ["  " + line.splitlines()[0] for line in failures]
    summary.append(f"time: {time.time() - start:.1f} s")
    summary.append(f"op numerics: {passed} passed, {failed} failed")
    print("\n".join(summary))
    if failures:   # also on stderr, which lit shows when stdout is piped
        print("\n".join(summary), file=sys.stderr)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
