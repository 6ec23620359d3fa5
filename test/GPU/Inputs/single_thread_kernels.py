"""single_thread_kernels.py IR_DUMP LIMIT

Reads the IR that `--mlir-print-ir-after=mpt-gpu-host-memory` printed
(functions whose kernels are gpu.launch ops with constant sizes) and finds
the launches of one block of one thread. Their loops run serially on one
GPU thread, so their iteration count (the product of the static trip counts
of the loops nested in them) bounds a chain of dependent loads. Prints the
count of such kernels and the longest, and whether it is within LIMIT.
"""
import re
import sys

text = open(sys.argv[1]).read()
limit = int(sys.argv[2])
worst, count = 0, 0
for dump in text.split("// -----// IR Dump")[1:]:
    lines = dump.split("\n")
    consts = {}
    for line in lines:
        m = re.match(r"\s*(%\S+) = arith.constant (-?\d+) : index", line)
        if m:
            consts[m.group(1)] = int(m.group(2))
    for i, line in enumerate(lines):
        m = re.search(r"gpu\.launch .*blocks\([^)]*\) in \(([^)]*)\) "
                      r"threads\([^)]*\) in \(([^)]*)\)", line)
        if not m:
            continue
        sizes = [v.split("=")[1].strip()
                 for v in (m.group(1) + "," + m.group(2)).split(",")]
        if any(consts.get(s) != 1 for s in sizes):
            continue
        count += 1
        depth, stack, longest = 0, [], 1
        for inner in lines[i:]:
            f = re.search(r"scf\.for \S+ = (\S+) to (\S+) step (\S+)", inner)
            if f:
                lo, hi, st = (consts.get(x) for x in f.groups())
                trips = (hi - lo + st - 1) // st if None not in (lo, hi, st) \
                    else 10**9
                stack.append((depth, trips))
            depth += inner.count("{") - inner.count("}")
            while stack and depth <= stack[-1][0]:
                stack.pop()
            product = 1
            for _, t in stack:
                product *= t
            longest = max(longest, product)
            if depth <= 0 and inner is not lines[i]:
                break
        worst = max(worst, longest)
print("%d single-thread kernels, the longest %s (limit %d)" %
      (count, "within the limit" if worst <= limit else
       "runs %d iterations" % worst, limit))
