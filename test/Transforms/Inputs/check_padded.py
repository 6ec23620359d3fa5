#!/usr/bin/env python3
"""Checks that mpt-opt's output (read from stdin) has Tensor Core shapes.

For every low-precision contraction
  * mpt.matmul / mpt.batch_matmul: the last two dimensions of both operands
    and of the result,
  * mpt.conv2d with groups 1: the input channels (input and filter) and the
    output channels (filter and result), found from the layout (nchw: input
    N x C x H x W, filter F x C x KH x KW; nhwc: input N x H x W x C, filter
    KH x KW x C x F),
must be multiples of 8 (f16, bf16) or 16 (8-bit floats). Contractions in
other types (f32, f64) and grouped convolutions are counted but not checked.

Prints "padded contractions: N" (the low-precision contractions checked) and
"all multiples of 8: ok", or the offending lines on stderr and exits 1. With
--expect N it also fails unless exactly N contractions were checked (guards
against an empty or unexpected input).

Expects the custom (pretty) form, one op per line:
  %r = mpt.matmul %a, %b ... : (tensor<AxBxf16>, tensor<CxDxf16>) -> tensor<...>
"""

import argparse
import re
import sys

OP_RE = re.compile(r"\bmpt\.(matmul|batch_matmul|conv2d)\b")
TYPES_RE = re.compile(
    r":\s*\(\s*(tensor<[^>]*>)\s*,\s*(tensor<[^>]*>)\s*\)\s*->\s*(tensor<[^>]*>)")
TENSOR_RE = re.compile(r"tensor<((?:[0-9?]+x)*)([A-Za-z][\w]*)>")
GROUPS_RE = re.compile(r"\bgroups\s+(\d+)")


def parse_tensor(text):
    """Returns (shape, element type) of `tensor<AxBx...xT>`."""
    m = TENSOR_RE.fullmatch(text)
    if not m:
        raise ValueError(f"cannot parse type {text}")
    dims = [d for d in m.group(1).split("x") if d]
    shape = [None if d == "?" else int(d) for d in dims]
    return shape, m.group(2)


def multiple_for(element):
    if element in ("f16", "bf16"):
        return 8
    if element.startswith("f8"):
        return 16
    return None


def checked_dims(op, line, lhs, rhs, result):
    """(name, size) pairs that must be aligned for this contraction."""
    if op in ("matmul", "batch_matmul"):
        dims = []
        for name, shape in (("lhs", lhs), ("rhs", rhs), ("result", result)):
            rank = len(shape)
            dims += [(f"{name} dim {d}", shape[d]) for d in (rank - 2, rank - 1)]
        return dims
    nhwc = "layout<nhwc>" in line
    if nhwc:
        return [("input channels (dim 3)", lhs[3]),
                ("filter input channels (dim 2)", rhs[2]),
                ("filter output channels (dim 3)", rhs[3]),
                ("result channels (dim 3)", result[3])]
    return [("input channels (dim 1)", lhs[1]),
            ("filter input channels (dim 1)", rhs[1]),
            ("filter output channels (dim 0)", rhs[0]),
            ("result channels (dim 1)", result[1])]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--expect", type=int, default=None,
                        help="exact number of low-precision contractions")
    args = parser.parse_args()

    errors = []
    checked = 0
    unchecked = 0
    for lineno, line in enumerate(sys.stdin, 1):
        if line.lstrip().startswith("//"):
            continue
        m = OP_RE.search(line)
        if not m or "=" not in line.split("mpt.", 1)[0]:
            continue
        op = m.group(1)
        t = TYPES_RE.search(line)
        if not t:
            errors.append(f"line {lineno}: cannot find the operand types of "
                          f"mpt.{op}: {line.strip()}")
            continue
        try:
            lhs, el = parse_tensor(t.group(1))
            rhs, _ = parse_tensor(t.group(2))
            result, _ = parse_tensor(t.group(3))
        except ValueError as e:
            errors.append(f"line {lineno}: {e}")
            continue
        multiple = multiple_for(el)
        groups = GROUPS_RE.search(line)
        if multiple is None or (op == "conv2d" and groups and
                                int(groups.group(1)) != 1):
            unchecked += 1
            continue
        checked += 1
        for name, size in checked_dims(op, line, lhs, rhs, result):
            if size is None or size % multiple:
                errors.append(f"line {lineno}: mpt.{op} {name} is {size}, not "
                              f"a multiple of {multiple} ({el}): {line.strip()}")

    if args.expect is not None and checked != args.expect:
        errors.append(f"found {checked} low-precision contractions, expected "
                      f"{args.expect}")
    print(f"padded contractions: {checked}")
    if unchecked:
        print(f"other contractions (not checked): {unchecked}")
    sys.stdout.flush()
    for e in errors:
        print("error: " + e, file=sys.stderr)
    if errors:
        return 1
    print("all multiples of 8: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
