"""Reads MLIR from stdin and fails when a value is cast twice to one type.

Prints the number of casts and "unique casts: ok" on success, so FileCheck
can check the output; exits 1 naming the duplicated (value, type) otherwise.
"""
import re
import sys

CAST = re.compile(r"=\s*mpt\.cast\s+(%[\w#]+)\s*:\s*\S+\s+to\s+(\S+)")


def main():
    seen = {}
    count = 0
    # Value names are local to a function: reset at each function.
    for line in sys.stdin:
        if "func.func" in line:
            seen.clear()
        m = CAST.search(line)
        if not m:
            continue
        count += 1
        key = (m.group(1), m.group(2))
        if key in seen:
            print(f"duplicate cast of {key[0]} to {key[1]}:\n  {seen[key]}  {line.strip()}")
            return 1
        seen[key] = line.strip()
    print(f"casts: {count}")
    print("unique casts: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
