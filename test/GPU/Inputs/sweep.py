"""What the random sweeps (gemm_sweep.py, step_sweep.py) share: their
command line, the bank conflicts of a case and their verdict."""
import argparse
import re
import sys

BANKS = re.compile(r"banks: total: \d+ shared requests, (\d+) wavefronts, "
                   r"(\d+) of them bank conflicts")


def parse_args(*tools):
    """TOOL... DIR --cases N --seed S."""
    parser = argparse.ArgumentParser()
    for tool in tools:
        parser.add_argument(tool)
    parser.add_argument("dir")
    parser.add_argument("--cases", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    return parser.parse_args()


def bank_conflicts(case, what, stderr):
    """Prints "BANK CONFLICTS case CASE (WHAT): C of W wavefronts" and the
    accesses that have them if mpt-run's `stderr` (with banks=1) counted
    any; returns whether it did."""
    banks = BANKS.search(stderr)
    if not banks or not int(banks.group(2)):
        return False
    print("BANK CONFLICTS case %d (%s): %s of %s wavefronts" %
          (case, what, banks.group(2), banks.group(1)))
    print("\n".join(text for text in stderr.splitlines()
                    if "banks:   " in text), flush=True)
    return True


def finish(failed, cases, verdict):
    """Prints "K of N cases failed" and exits with 1, or "N cases, VERDICT"."""
    if failed:
        print("%d of %d cases failed" % (failed, cases))
        sys.exit(1)
    print("%d cases, %s" % (cases, verdict))
