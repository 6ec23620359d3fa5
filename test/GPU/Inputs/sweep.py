"""What the random sweeps (gemm_sweep.py, step_sweep.py) share: their
command line and their verdict."""
import argparse
import sys


def parse_args(*tools):
    """TOOL... DIR --cases N --seed S."""
    parser = argparse.ArgumentParser()
    for tool in tools:
        parser.add_argument(tool)
    parser.add_argument("dir")
    parser.add_argument("--cases", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    return parser.parse_args()


def finish(failed, cases, verdict):
    """Prints "K of N cases failed" and exits with 1, or "N cases, VERDICT"."""
    if failed:
        print("%d of %d cases failed" % (failed, cases))
        sys.exit(1)
    print("%d cases, %s" % (cases, verdict))
