"""The Models page's report: per-sample gradients of a built-in Keras model on a batch, timed and explained.

``report`` runs ``gradlib.per_sample_gradients`` on a model from ``gradlib.keras_models`` and times it beside
what a TensorFlow user would write (one eager ``tape.batch_jacobian``; a per-sample ``tape.jacobian`` loop).
``pitfalls`` shows the two wrong answers on one sample beside the right one. Results are plain data.

This module and ``digits`` are the app's only TensorFlow code: the eager ``tape.batch_jacobian`` baseline is
what a user writes without gradlib, so gradlib cannot time it for us. Pages reach it through
``dashboard.services``.

>>> r = report("mlp_regressor", {"features": 2, "hidden": (3,), "outputs": 2}, np.ones((4, 2)), time_loop=False)
>>> r.result.jacobian.shape, r.output_names
((4, 2, 2), ('y[0]', 'y[1]'))
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import tensorflow as tf

import gradlib
from gradlib import keras_models

__all__ = ["LOOP_SAMPLES", "ModelReport", "Pitfalls", "pitfalls", "report"]

#: the per-sample loop is timed on at most this many samples, then scaled to the batch
LOOP_SAMPLES = 4


@dataclass(frozen=True, eq=False)
class ModelReport:
    """Per-sample gradients of a built-in model on a batch, and the timings the page shows, as plain data."""

    result: gradlib.PerSampleResult
    output_names: tuple[str, ...]
    gradlib_seconds: float         # per_sample_gradients on the whole batch, warm (compiled)
    loop_seconds: float            # the per-sample loop, scaled to the whole batch (NaN: not timed)
    loop_samples: int              # how many samples the loop was actually timed on
    batch_jacobian_seconds: float = float("nan")   # one eager tape.batch_jacobian on the whole batch (NaN: not timed)
    batch_jacobian_pfor: bool = True               # whether that call vectorized with pfor (not for recurrent layers)

    @property
    def speedup(self) -> float:
        """How many times faster gradlib's warm call is than the per-sample eager ``tape.jacobian`` loop."""
        return self.loop_seconds / self.gradlib_seconds

    @property
    def batch_jacobian_speedup(self) -> float:
        """How many times faster gradlib's warm call is than one eager ``tape.batch_jacobian``."""
        return self.batch_jacobian_seconds / self.gradlib_seconds


@dataclass(frozen=True, eq=False)
class Pitfalls:
    """One sample's gradients three ways: right (``exact``), the loop after the tape, and the summed gradient."""

    exact: np.ndarray              # (outputs, inputs): per_element_gradients on the sample alone
    naive: np.ndarray              # (outputs, inputs): ``for y_i in y`` after the tape: all zeros
    summed: np.ndarray             # (inputs,): tape.gradient(y, x), the column sums of ``exact``


def report(name: str, params: Mapping[str, Any], x: np.ndarray, *, time_loop: bool = True,
           limits: gradlib.Limits = gradlib.LIMITS) -> ModelReport:
    """Per-sample gradients of built-in model ``name`` on batch ``x``, timed against a per-sample loop."""
    model = keras_models.get_model(name, **params)      # refuses an unknown name or a bad parameter
    spec = keras_models.MODELS[name]
    checked = spec.params(**params)
    x = np.asarray(x, dtype=np.float32)
    result = gradlib.per_sample_gradients(model, x, limits=limits)
    warm = gradlib.per_sample_gradients(model, x, check_independence=False, limits=limits).seconds
    loop_seconds, k = _time_loop(model, x, limits) if time_loop else (float("nan"), 0)
    use_pfor = checked.get("cell") not in keras_models.RECURRENT_CELLS
    batch_seconds = _time_batch_jacobian(model, x, use_pfor) if time_loop else float("nan")
    return ModelReport(result=result, output_names=spec.output_names(checked), gradlib_seconds=warm,
                       loop_seconds=loop_seconds, loop_samples=k, batch_jacobian_seconds=batch_seconds,
                       batch_jacobian_pfor=use_pfor)


def pitfalls(name: str, params: Mapping[str, Any], sample: np.ndarray, *,
             limits: gradlib.Limits = gradlib.LIMITS) -> Pitfalls:
    """The naive loop and the summed gradient on one sample of model ``name``, beside the right answer.

    >>> p = pitfalls("classifier", {"features": 2, "classes": 2}, np.array([0.5, -1.0]))
    >>> p.naive.tolist(), bool(abs(p.summed).max() < 1e-6), p.exact.shape
    ([[0.0, 0.0], [0.0, 0.0]], True, (2, 2))
    """
    model = keras_models.get_model(name, **params)
    one = np.asarray(sample, dtype=np.float32)[None]
    return Pitfalls(exact=gradlib.per_element_gradients(model, one, limits=limits).jacobian,
                    naive=gradlib.per_element_gradients(model, one, method="naive", limits=limits).jacobian,
                    summed=gradlib.per_element_gradients(model, one, method="summed", limits=limits).jacobian[0])


def _time_batch_jacobian(model: Any, x: np.ndarray, use_pfor: bool) -> float:
    """Seconds of what a TensorFlow user would write: one eager ``tape.batch_jacobian`` over the whole batch.

    Eagerly, pfor re-vectorizes the model on every call; for recurrent layers that takes tens of seconds, so
    they run with ``experimental_use_pfor=False`` (a while_loop over the outputs), as a user would have to.
    """
    xt = tf.constant(x, dtype=tf.float32)
    start = time.perf_counter()
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = model(xt)
        flat = tf.reshape(y, [tf.shape(y)[0], -1])
    tape.batch_jacobian(flat, xt, experimental_use_pfor=use_pfor)
    return time.perf_counter() - start


def _time_loop(model: Any, x: np.ndarray, limits: gradlib.Limits) -> tuple[float, int]:
    """The per-sample ``tape.jacobian`` loop on the first ``LOOP_SAMPLES`` samples, scaled to the batch."""
    k = min(len(x), LOOP_SAMPLES)
    seconds = gradlib.per_sample_gradients(model, x[:k], method="loop", check_independence=False,
                                           limits=limits).seconds
    return seconds * len(x) / k, k
