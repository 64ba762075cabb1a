"""The Strategies page's measurement: each gradlib method's warm time on a small tanh network as it grows.

Only gradlib's public API is used (``gradlib.evaluate`` on the function text), so what is timed is exactly
what a user of the library gets, and each point records whether it ran compiled or eagerly.

A warm time is the median of calls that traced nothing: a call gradlib says traced or built what it ran
(``GradResult.traced``: a first compiled call, ``auto`` compiling after its eager calls, an XLA build or trial), or
that ran otherwise than the call before it (the method, compiled or not, graph or XLA), starts a new warm-up. A
point whose first call is over ``SLOW_SECONDS``, or whose calls never settle within ``WARM_BUDGET``, is shown as what
it is: one call, never ranked against warm times, labelled with whether it traced (an eager call traces nothing:
a slow eager unstack at size 256 took 1.75 s and was labelled "tracing included"). The clock is a parameter, so a test can set each
call's seconds.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable, Sequence

import numpy as np
import pandas as pd

import gradlib
from gradlib import figures

__all__ = ["AUTO_WARMUP", "EXPRESSION", "NARROW", "ONE_CALL", "ONE_UNTRACED", "SHAPES", "SLOW_SECONDS", "WARM",
           "WARM_BUDGET",
           "measured_lines", "mlp_inputs", "scaling", "with_ratios"]

EXPRESSION = "tanh(W2 @ tanh(W1 @ x))"
SHAPES = ("square", "wide", "tall")
#: the small side of a wide or tall Jacobian
NARROW = 8
#: a point whose first call (tracing included) is slower than this (seconds) is not repeated: one call is shown
SLOW_SECONDS = 1.0
#: the most seconds a point spends in calls after its first one, reaching its warm state and timing it
WARM_BUDGET = 2.0
#: ``auto`` runs a new problem eagerly and compiles it once its eager calls have cost about a trace (0.3 s): while
#: it is eager, it is called until its calls have taken this long, so that its warm time is the one it settles on
AUTO_WARMUP = 1.0
#: what the ``timed`` column says of a point: warm, or one call that traced (``GradResult.traced``) or did not
WARM, ONE_CALL, ONE_UNTRACED = figures.WARM_TIMED, "one call, tracing included", "one call, nothing traced"
COLUMNS = ["size", "outputs", "inputs", "method", "ran as", "compiled", "timed", "seconds", "first call seconds"]


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


def _how(result: gradlib.GradResult) -> tuple:
    """What decides a call's time besides the problem: the method that ran, compiled or not, graph or XLA."""
    return result.method, bool(result.compiled), result.compiled_as


def _warm_calls(call: Callable[[], gradlib.GradResult], first: gradlib.GradResult, repeats: int,
                clock: Callable[[], float]) -> tuple[list[float], gradlib.GradResult]:
    """Up to ``repeats`` seconds of consecutive calls that traced nothing and ran as the call before them did,
    within ``WARM_BUDGET``; ``auto`` while eager first spends ``AUTO_WARMUP`` (it may still compile)."""
    warm: list[float] = []
    spent, previous, result = 0.0, first, first
    while len(warm) < repeats and spent <= WARM_BUDGET:
        start = clock()
        result = call()
        seconds = clock() - start
        spent += seconds
        settling = result.requested == "auto" and not result.compiled and spent < AUTO_WARMUP
        if _how(result) != _how(previous) or result.traced or settling:
            warm = []   # this call may have traced, or the next one may: warm up again
        else:
            warm.append(seconds)
        previous = result
    return warm, result


def _point(call: Callable[[], gradlib.GradResult], repeats: int, clock: Callable[[], float]) -> dict:
    """One method at one size: its first call, and its warm median, or the first call alone labelled so."""
    start = clock()
    result = call()
    first = clock() - start
    warm, last = _warm_calls(call, result, max(repeats, 1), clock) if first <= SLOW_SECONDS else ([], result)
    shown = last if warm else result
    single = ONE_CALL if result.traced else ONE_UNTRACED
    return {"ran as": shown.method, "compiled": bool(shown.compiled), "timed": WARM if warm else single,
            "seconds": statistics.median(warm) if warm else first, "first call seconds": first}


def scaling(sizes: Sequence[int], *, methods: Sequence[str] = ("unstack", "jacobian", "forward", "auto"),
            shape: str = "square", repeats: int = 3, limits: gradlib.Limits = gradlib.LIMITS,
            clock: Callable[[], float] = time.perf_counter) -> pd.DataFrame:
    """Warm seconds of each method on ``tanh(W2 @ tanh(W1 @ x))`` as the problem grows (median of ``repeats``).

    Each point is ``gradlib.evaluate(EXPRESSION, ..., watch=["x"], method=m)``: its first call (which traces the
    function when gradlib compiles it) is timed apart; then calls are made until ``repeats`` in a row ran as the
    one before them (nothing traced), and their median is the warm time. A first call over ``SLOW_SECONDS``, or
    calls that do not settle within ``WARM_BUDGET``, give a point timed ``ONE_CALL`` (it traced) or ``ONE_UNTRACED``:
    that first call.

    Returns:
        A frame with columns size, outputs, inputs, method, ran as (the method that really ran, for ``auto``),
        compiled (whether gradlib ran it as a compiled function), timed (``WARM``, ``ONE_CALL``, ``ONE_UNTRACED``),
        seconds, first call seconds, and ratio (a warm time over the fastest warm time at that size; none for one call).
    """
    records = []
    for size in sizes:
        outputs, inputs = _shape(shape, size)
        values = mlp_inputs(outputs, inputs, size)
        for method in methods:
            def call(method: str = method) -> gradlib.GradResult:
                return gradlib.evaluate(EXPRESSION, values, watch=["x"], method=method, limits=limits)
            records.append({"size": size, "outputs": outputs, "inputs": inputs, "method": method,
                            **_point(call, repeats, clock)})
    return with_ratios(pd.DataFrame(records, columns=COLUMNS))


def _warm(timings: pd.DataFrame) -> pd.Series:
    """Which rows hold a warm time (a frame without a ``timed`` column: all of them)."""
    return timings["timed"] == WARM if "timed" in timings else pd.Series(True, index=timings.index)


def with_ratios(timings: pd.DataFrame) -> pd.DataFrame:
    """``timings`` with a ratio column: each warm time over the fastest warm time at its size (points timed apart,
    put together); a point timed ``ONE_CALL`` has none, since its trace is not comparable with warm calls.

    >>> with_ratios(pd.DataFrame({"size": [4, 4, 8], "seconds": [0.2, 0.1, 0.3]}))["ratio"].tolist()
    [2.0, 1.0, 1.0]
    >>> with_ratios(pd.DataFrame({"size": [4, 4], "seconds": [0.2, 0.1], "timed": [WARM, ONE_CALL]}))["ratio"].tolist()
    [1.0, nan]
    """
    timings = timings.copy()
    warm = timings["seconds"].where(_warm(timings))
    timings["ratio"] = warm / warm.groupby(timings["size"]).transform("min")
    return timings


def _duration(seconds: float) -> str:
    """``0.042`` -> ``42 ms``; ``4.155`` -> ``4.16 s``."""
    return f"{1000 * seconds:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def _how_text(row) -> str:
    return "compiled" if row.compiled else "eager"


def measured_lines(timings: pd.DataFrame) -> list[str]:
    """One sentence per size: the fastest warm method, compiled or eager, how much slower the other warm ones were,
    and, apart and unranked, the points timed as one call with their tracing."""
    lines = []
    for size, group in timings.groupby("size", sort=True):
        warm, single = group[_warm(group)], group[~_warm(group)]
        head = f"size {size} ({group['outputs'].iloc[0]} outputs, {group['inputs'].iloc[0]} inputs): "
        if len(warm):
            best = warm.loc[warm["seconds"].idxmin()]
            others = ", ".join(f"{r.method} {gradlib.format_ratio(r.ratio)} ({_how_text(r)})"
                               for r in warm.itertuples() if r.method != best["method"])
            ran = f" (ran as {best['ran as']})" if best["ran as"] != best["method"] else ""
            head += (f"fastest warm **{best['method']}**{ran}, {_how_text(best)}, {_duration(best['seconds'])}"
                     + (f"; the others took {others}" if others else ""))
        else:
            head += "no method was repeated within the page's budget"
        if len(single):
            head += "; not ranked, " + ", ".join(f"{r.method} {_duration(r.seconds)} ({r.timed})"
                                                 for r in single.itertuples())
        lines.append(head)
    return lines
