"""Checks the --json summary of json.mlir against numpy.

The random inputs are not in the summary, but the program returns them in
a form that lets numpy recompute the loss: the labels themselves and the
softmax of the logits (log of the softmax = logits up to a constant per row).
"""
import json
import sys

import numpy as np


def main(path):
    summary = json.load(open(path))
    inputs = summary["inputs"]
    print("inputs: " + ", ".join(
        f"{i['name'][1:]} {i['dtype']} {i['shape']} {i['role']}" for i in inputs))
    outputs = summary["outputs"]
    loss, softmax, labels = outputs
    labels_value = np.load(labels["file"])
    print(f"labels in [0, 5): {bool(((labels_value >= 0) & (labels_value < 5)).all())}")
    print(f"outputs: loss {loss['dtype']} {loss['shape']} "
          f"{'value' if 'value' in loss else 'no value'}, "
          f"6x5 {softmax['dtype']} {softmax['shape']} first {len(softmax['first'])}")
    p = np.load(softmax["file"]).astype(np.float64)
    want = -np.mean(np.log(p[np.arange(6), labels_value]))
    print(f"loss matches numpy: {bool(np.isclose(loss['value'], want, rtol=1e-5))}")
    print("softmax matches numpy: " + str(bool(
        np.isclose(softmax["min"], p.min(), rtol=1e-6) and
        np.isclose(softmax["max"], p.max(), rtol=1e-6) and
        np.isclose(softmax["mean"], p.mean(), rtol=1e-6) and
        np.allclose(softmax["first"], p.reshape(-1)[:8], rtol=1e-6) and
        np.allclose(p.sum(axis=1), 1, rtol=1e-5))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
