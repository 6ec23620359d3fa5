#!/usr/bin/python3
"""Writes the kernels that mpt-lower-to-nvvm embeds in `gpu.binary` ops to
files: `<binary>.ptx` for format=isa, `<binary>.cubin` for format=bin,
`<binary>.fatbin` for format=fatbin.

Usage: extract-kernels.py lowered.mlir OUTDIR
Prints one line per file written.
"""
import os
import re
import sys

# The object's format keyword is omitted for fatbin, the default.
BINARY = re.compile(r'gpu\.binary @([A-Za-z0-9_$.]+)\s*\[#gpu\.object<'
                    r'#nvvm\.target<[^>]*>,(?: properties = \{[^}]*\},)?'
                    r' (?:(assembly|bin|fatbin) = )?"((?:[^"\\]|\\.)*)"', re.S)
SUFFIX = {"assembly": ".ptx", "bin": ".cubin", "fatbin": ".fatbin"}


def decode(text):
    """MLIR string escapes: \\XX (hex byte), \\\\, \\", \\n, \\t."""
    out = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "\\\"":
            out.append(ord(nxt))
            i += 2
        elif nxt == "n":
            out.append(10)
            i += 2
        elif nxt == "t":
            out.append(9)
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    text = open(source, encoding="utf-8").read()
    found = 0
    for match in BINARY.finditer(text):
        name, kind, payload = match.groups()
        kind = kind or "fatbin"
        path = os.path.join(outdir, name + SUFFIX[kind])
        with open(path, "wb") as f:
            f.write(decode(payload))
        print(path)
        found += 1
    if not found:
        print(f"{source}: no gpu.binary with an embedded kernel",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
