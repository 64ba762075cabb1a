"""``gradlib.scan`` of a ``tf.data.Dataset`` against plain batch gradients over the same batches (issue 26).

``benchmarks.scan`` times scans of arrays; a data set takes the other path (its pipeline is built on every call).
Interleaved warm calls, the ratio of each round, several runs: the spread, never the best.

    python3 -m benchmarks.scan_dataset [--examples 2000] [--rounds 9] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Sequence

import numpy as np
import tensorflow as tf

import gradlib
from benchmarks import scan as bench

__all__ = ["main", "ratios"]


def ratios(examples: int, rounds: int) -> list[float]:
    """Each round's time of a warm scan of the data set over that of the bench's plain batch gradients; the
    scan's norms are checked against ``per_example_gradients`` over the same arrays first."""
    model = bench.small_model()
    x, y = bench.data(examples, bench.SMALL_FEATURES)
    data = tf.data.Dataset.from_tensor_slices((x, y))
    plain = bench.plain_gradients(model)
    result = gradlib.scan(model, data, loss=bench.LOSS, batch_size=bench.BATCH)
    reference = gradlib.per_example_gradients(model, x, y, loss=bench.LOSS, norms_only=True).norms
    np.testing.assert_allclose(result.norms, reference, rtol=1e-5)
    plain(x, y)
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        plain(x, y)
        middle = time.perf_counter()
        gradlib.scan(model, data, loss=bench.LOSS, batch_size=bench.BATCH)
        out.append((time.perf_counter() - middle) / (middle - start))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    for run in range(args.runs):
        r = ratios(args.examples, args.rounds)
        print(f"run {run + 1}: scan of a tf.data data set / plain batch gradients, {args.examples:,} examples: "
              f"{statistics.median(r):.2f}x [{min(r):.2f}, {max(r):.2f}], within 2x in {sum(v <= 2 for v in r)} of "
              f"{len(r)} rounds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
