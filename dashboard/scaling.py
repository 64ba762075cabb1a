"""The Strategies page's measurement: each gradlib method's warm time on a small tanh network as it grows.

Only gradlib's public API is used (``gradlib.evaluate`` on the function text), so what is timed is exactly
what a user of the library gets, and each point records whether it ran compiled or eagerly.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable, Sequence

import numpy as np
import pandas as pd

import gradlib

__all__ = ["EXPRESSION", "NARROW", "SHAPES", "SLOW_SECONDS", "measured_lines", "mlp_inputs", "scaling", "with_ratios"]

EXPRESSION = "tanh(W2 @ tanh(W1 @ x))"
SHAPES = ("square", "wide", "tall")
#: the small side of a wide or tall Jacobian
NARROW = 8
#: a point slower than this (seconds) is timed once, not ``repeats`` times
SLOW_SECONDS = 1.0
COLUMNS = ["size", "outputs", "inputs", "method", "ran as", "compiled", "seconds"]


def _shape(shape: str, size: int) -> tuple[int, int]:
    if shape not in SHAPES:
        raise gradlib.ExpressionError(f"scaling got shape={shape!r}; choose one of {', '.join(SHAPES)}")
    return {"square": (size, size), "wide": (NARROW, size), "tall": (size, NARROW)}[shape]


def mlp_inputs(outputs: int, inputs: int, hidden: int, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Weights and an input point of ``tanh(W2 @ tanh(W1 @ x))``, scaled so that tanh does not saturate."""
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(size=(hidden, inputs)) / np.sqrt(inputs),
            "W2": rng.normal(size=(outputs, hidden)) / np.sqrt(hidden),
            "x": rng.normal(size=inputs)}


def _timed(call: Callable[[], gradlib.GradResult]) -> tuple[float, gradlib.GradResult]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def scaling(sizes: Sequence[int], *, methods: Sequence[str] = ("unstack", "jacobian", "forward", "auto"),
            shape: str = "square", repeats: int = 3, limits: gradlib.Limits = gradlib.LIMITS) -> pd.DataFrame:
    """Warm seconds of each method on ``tanh(W2 @ tanh(W1 @ x))`` as the problem grows (median of ``repeats``).

    Each point is ``gradlib.evaluate(EXPRESSION, ..., watch=["x"], method=m)`` after one untimed call (which
    traces the function when gradlib compiles it); a call slower than ``SLOW_SECONDS`` is timed once.

    Returns:
        A frame with columns size, outputs, inputs, method, ran as (the method that really ran, for
        ``auto``), compiled (whether gradlib ran it as a compiled function), seconds, and ratio (seconds
        over the fastest at that size).
    """
    records = []
    for size in sizes:
        outputs, inputs = _shape(shape, size)
        values = mlp_inputs(outputs, inputs, size)
        for method in methods:
            def call(method: str = method) -> gradlib.GradResult:
                return gradlib.evaluate(EXPRESSION, values, watch=["x"], method=method, limits=limits)
            first, result = _timed(call)
            runs = [_timed(call) for _ in range(max(repeats, 1))] if first <= SLOW_SECONDS else [(first, result)]
            result = runs[-1][1]
            records.append({"size": size, "outputs": outputs, "inputs": inputs, "method": method,
                            "ran as": result.method, "compiled": bool(result.compiled),
                            "seconds": statistics.median(t for t, _ in runs)})
    return with_ratios(pd.DataFrame(records, columns=COLUMNS))


def with_ratios(timings: pd.DataFrame) -> pd.DataFrame:
    """``timings`` with a ratio column: each time over the fastest at its size (points timed apart, put together).

    >>> with_ratios(pd.DataFrame({"size": [4, 4, 8], "seconds": [0.2, 0.1, 0.3]}))["ratio"].tolist()
    [2.0, 1.0, 1.0]
    """
    timings = timings.copy()
    timings["ratio"] = timings["seconds"] / timings.groupby("size")["seconds"].transform("min")
    return timings


def measured_lines(timings: pd.DataFrame) -> list[str]:
    """One sentence per size: the fastest method, compiled or eager, and how much slower the others were."""
    lines = []
    for size, group in timings.groupby("size", sort=True):
        best = group.loc[group["seconds"].idxmin()]
        how = "compiled" if best["compiled"] else "eager"
        others = ", ".join(f"{r.method} {gradlib.format_ratio(r.ratio)} ({'compiled' if r.compiled else 'eager'})"
                           for r in group.itertuples() if r.method != best["method"])
        ran = f" (ran as {best['ran as']})" if best["ran as"] != best["method"] else ""
        lines.append(f"size {size} ({best['outputs']} outputs, {best['inputs']} inputs): fastest **{best['method']}**"
                     f"{ran}, {how}, {1000 * best['seconds']:.3g} ms" + (f"; the others took {others}" if others else ""))
    return lines
