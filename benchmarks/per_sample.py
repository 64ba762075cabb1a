"""Benchmark: per-sample gradients of a 64 -> 128 -> 64 -> 10 Keras MLP on a batch of 96, gradlib vs a loop.

gradlib's ``per_sample_gradients`` (one compiled, vectorized call) is timed warm in several rounds, after one
call that compiles; the reference, one eager ``tape.jacobian`` per sample (``method="loop"``), is slow and is
timed ``loop_repeats`` times (median kept). The speedup is the loop's time over each round of gradlib's:
the median with the lowest and highest of the rounds (the spread, not the best). Both results are compared.
``python3 -m benchmarks.mlp`` runs it after its tables (issue 6); on its own:

    python3 -m benchmarks.per_sample
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

import gradlib
from gradlib import keras_models
from benchmarks import history

__all__ = ["benchmark_per_sample", "main"]


def benchmark_per_sample(repeats: int = 3, *, batch: int = 96, loop_repeats: int = 1) -> dict[str, Any]:
    """gradlib's warm ``per_sample_gradients`` in ``repeats`` rounds against the per-sample loop, on one batch."""
    model = keras_models.mlp_regressor(features=64, hidden=(128, 64), outputs=10, activation="tanh", seed=0)
    x = keras_models.make_batch("random normal", (64,), batch, seed=0)
    start = time.perf_counter()
    fast = gradlib.per_sample_gradients(model, x)
    first = time.perf_counter() - start
    rounds = [_timed(lambda: gradlib.per_sample_gradients(model, x)) for _ in range(repeats)]
    loop = gradlib.per_sample_gradients(model, x, method="loop", check_independence=False)
    loop_seconds = statistics.median([loop.seconds] + [_timed(lambda: gradlib.per_sample_gradients(
        model, x, method="loop", check_independence=False)) for _ in range(loop_repeats - 1)])
    gradlib_seconds = statistics.median(rounds)
    return {
        "model": "MLP 64 -> 128 -> 64 -> 10 (tanh)", "batch": batch, "method": fast.method,
        "gradlib_first_call_seconds": first, "gradlib_seconds": gradlib_seconds, "loop_seconds": loop_seconds,
        "speedup": loop_seconds / gradlib_seconds,
        "speedup_rounds": [loop_seconds / s for s in rounds],
        "speedup_text": gradlib.format_ratio([loop_seconds / s for s in rounds]), "target_speedup": 20.0,
        "max_abs_diff": float(np.abs(fast.jacobian - loop.jacobian).max()),
    }


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    result = benchmark_per_sample(repeats=7)
    for key, value in result.items():
        print(f"- {key}: {value}")
    history.record("per_sample", {"per-sample loop / gradlib per_sample_gradients": (result["speedup_rounds"], "higher")})
    return 0


if __name__ == "__main__":
    sys.exit(main())
