"""Checks an mpt-auto-mixed-precision report (JSON): every op has a class,
a precision and a rule; prints one line per op kind with its precisions so
that FileCheck can check the decisions."""
import collections
import json
import sys


def main(path):
    with open(path) as f:
        report = json.load(f)
    kinds = collections.defaultdict(set)
    for entry in report["ops"]:
        for key in ("op", "loc", "class", "precision", "rule"):
            if not entry.get(key):
                print(f"entry without {key}: {entry}")
                return 1
        kinds[entry["op"]].add(entry["precision"])
    for op in sorted(kinds):
        print(f"{op}: {' '.join(sorted(kinds[op]))}")
    print(f"low type: {report['low_type']}")
    print(f"low-precision flops: {report['totals']['low_precision_flops_percent']}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
