"""Soak: many distinct functions in one long-lived process stay correct and do not grow memory without bound.

Each function is checked against its Jacobian written out in NumPy. Memory is the process's resident set
(``VmRSS``): the growth over the second half of the run must be small next to the first half's, which
includes TensorFlow's own warm-up. No timing is asserted (the machine is shared); the run prints its time.
"""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest

import gradlib
from gradlib._perelement import _compute
from gradlib._foundations._cache import LRUCache

FUNCTIONS = 600
#: growth of the second half may reach half the first half's, or this many MiB (allocator noise)
SLACK_MIB = 16.0


def _rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def _family(k: int):
    """The k-th distinct function (its own constants, so its own text and cache key) and its Jacobian."""
    a, b, c = 1 + k / 1000, 0.5 + (k % 7) / 10, 0.25 + (k % 11) / 20
    text = f"[{a} * x[0] * x[1] + sin({b} * x[2]), {c} * x[0] * x[0] + x[1] * x[2], tanh({a} * x[0] + x[2])]"

    def jacobian(x: np.ndarray) -> np.ndarray:
        t = np.tanh(a * x[0] + x[2])
        return np.array([[a * x[1], a * x[0], b * np.cos(b * x[2])],
                         [2 * c * x[0], x[2], x[1]],
                         [a * (1 - t * t), 0.0, 1 - t * t]])

    return text, jacobian


def _check_bounded(marks: list[float], what: str) -> None:
    start, middle, end = marks
    first, second = middle - start, end - middle
    assert second <= max(0.5 * first, SLACK_MIB), (
        f"{what}: RSS grew {first:.1f} MiB over the first half and {second:.1f} MiB over the second")


@pytest.mark.timeout(300)
def test_600_distinct_small_functions_are_right_and_memory_levels_off():
    rng = np.random.default_rng(600)
    start, marks = time.perf_counter(), [_rss_mib()]
    for k in range(FUNCTIONS):
        text, jacobian = _family(k)
        x = rng.uniform(-1.0, 1.0, 3)
        dtype = "float64" if k % 2 else "float32"
        r = gradlib.evaluate(text, {"x": x}, dtype=dtype)
        tol = 1e-12 if dtype == "float64" else 2e-6
        np.testing.assert_allclose(r.jacobian, jacobian(x), rtol=tol, atol=tol, err_msg=f"function {k}: {text}")
        assert r.correct and r.method == "unstack" and not r.compiled   # tiny: auto runs the seed's loop eagerly
        if k + 1 == FUNCTIONS // 2:
            gc.collect()
            marks.append(_rss_mib())
    gc.collect()
    marks.append(_rss_mib())
    print(f"\n{FUNCTIONS} distinct functions in {time.perf_counter() - start:.1f} s; RSS MiB {marks}")
    _check_bounded(marks, f"{FUNCTIONS} distinct eager functions")


@pytest.mark.timeout(300)
def test_many_distinct_compiled_functions_level_off_once_the_cache_is_full(monkeypatch):
    """Compiled functions dropped by the LRU are freed: with an unbounded cache RSS grew about 0.5 MiB each."""
    cache = LRUCache(maxsize=16)
    monkeypatch.setattr(_compute, "_JACOBIAN_FUNCTIONS", cache)
    x = np.linspace(0.1, 1.0, 6)
    marks, count = [], 160
    for k in range(count):
        r = gradlib.evaluate(f"sin(x * {k + 1}) * x", {"x": x}, compiled=True, dtype="float64")
        expected = np.diag((k + 1) * np.cos((k + 1) * x) * x + np.sin((k + 1) * x))
        np.testing.assert_allclose(r.jacobian, expected, rtol=1e-12, atol=1e-12)
        assert r.compiled
        if k + 1 in (16, count // 2 + 8, count):   # measure from the moment the cache is full
            gc.collect()
            marks.append(_rss_mib())
    assert len(cache) == 16 and cache.misses == count
    _check_bounded(marks, f"{count} distinct compiled functions")
