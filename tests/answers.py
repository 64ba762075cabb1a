"""What an answer says, as plain data, and whether two answers say the same: one definition for the cache tables
of the library (tests/perelement/test_caches.py) and of the app (tests/app/test_service_caches.py), so both hold a
cache to the same idea of "the same answer".

``observed`` drops what differs between any two calls of the same request (fields and keys naming a time or a
cost, notes that depend on earlier calls); ``same`` compares what is left, floating point to a relative 1e-6 (two
requests that differ in an input of the answer differ by far more), NaN equal to NaN.

>>> same(observed({"y": np.array([1.0, np.nan]), "timings": [3.0]}), observed({"y": np.array([1.0, np.nan])}))
True
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Iterable

import keras
import numpy as np
import pandas as pd
import tensorflow as tf

__all__ = ["CLOCKED", "TIMED", "observed", "same"]

#: words in the name of a field or key whose value is a time or a cost (it differs between two calls)
TIMED = ("second", "spread", "time", "timing", "cost", "traced", "compiled_final")
#: how notes that depend on the clock start (second order's note on a first call that traced over 2 s: under load a
#: cold call has it and the same request answered warm does not)
CLOCKED = ("this first call spent",)


def observed(value: Any, timed: Iterable[str] = TIMED, clocked: Iterable[str] = CLOCKED) -> Any:
    """What ``value`` says as plain data, without fields or keys named by a word of ``timed`` and without strings
    starting with one of ``clocked`` (notes that depend on earlier calls)."""
    timed, clocked = tuple(timed), tuple(clocked)

    def plain(v: Any) -> Any:
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {f.name: plain(getattr(v, f.name)) for f in dataclasses.fields(v)
                    if not any(word in f.name for word in timed)}
        if isinstance(v, pd.DataFrame):     # every column: a frame of timings is timed by the test's own clock
            return {c: np.asarray(v[c].to_numpy()) for c in v.columns}
        if isinstance(v, (tf.Tensor, tf.Variable)):
            return np.asarray(v)
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items() if not any(word in str(k) for word in timed)}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v if not (isinstance(x, str) and x.startswith(clocked))]
        if isinstance(v, keras.Model):
            return [v.name.split("_")[0], [np.asarray(w).shape for w in v.weights]]
        return v
    return plain(value)


def same(a: Any, b: Any) -> bool:
    """Whether two ``observed`` answers say the same: equal structure, equal values, floats to a relative 1e-6."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind not in "fc":
            return bool(np.array_equal(a, b))
        return bool(np.allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)
