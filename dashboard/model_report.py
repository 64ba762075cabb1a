"""The Models page's report: per-sample gradients of a built-in Keras model on a batch, timed and explained.

``report`` runs ``gradlib.per_sample_gradients`` on a model from ``gradlib.keras_models`` and times it beside
what a TensorFlow user would write (``tape.batch_jacobian``, eagerly and inside a ``tf.function``; a per-sample
``tape.jacobian`` loop). Warm calls are timed ``REPEATS`` times after an untimed first call, and their median
shown; a gradlib call that still traced or built what it ran (``PerSampleResult.traced``: the tiled method's first
fast pass, an XLA trial) is not a warm call and is left out, up to ``MAX_BUILDS`` of them. A timing that fails leaves
its gradients shown and says which timing is missing (``ModelReport.missing``).
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

__all__ = ["COMPILED_FASTER", "EAGER_FASTER", "GRADLIB_FASTER", "LOOP_SAMPLES", "MAX_BUILDS", "REPEATS", "TILED_FASTER",
           "TILED_SLOWER", "ModelReport",
           "Pitfalls",
           "comparison_lines", "pitfalls", "report"]

#: the per-sample loop is timed on at most this many samples, then scaled to the batch
LOOP_SAMPLES = 4
#: warm calls timed per compiled contender (gradlib, the tf.function batch_jacobian); the median is shown
REPEATS = 5
#: gradlib calls that traced or built what they ran, left out of its warm timings, at most (then the rest is timed)
MAX_BUILDS = 12


@dataclass(frozen=True, eq=False)
class ModelReport:
    """Per-sample gradients of a built-in model on a batch, and the timings the page shows, as plain data."""

    result: gradlib.PerSampleResult
    output_names: tuple[str, ...]
    gradlib_seconds: float         # per_sample_gradients on the whole batch, warm (compiled): median of REPEATS
    loop_seconds: float            # the per-sample loop, scaled to the whole batch (NaN: not timed)
    loop_samples: int              # how many samples the loop was actually timed on
    batch_jacobian_seconds: float = float("nan")   # one eager tape.batch_jacobian on the whole batch (NaN: not timed)
    batch_jacobian_pfor: bool = True               # whether that call vectorized with pfor (not for recurrent layers)
    compiled_batch_jacobian_seconds: float = float("nan")   # tape.batch_jacobian in a tf.function, warm: median
    gradlib_spread: tuple[float, float] = (float("nan"), float("nan"))   # fastest and slowest warm gradlib call
    missing: tuple[str, ...] = ()  # the timings that failed, each with TensorFlow's reason

    def seconds(self) -> dict[str, float]:
        """The timed contenders, name -> seconds for the whole batch (those not timed or failed left out)."""
        suffix = "" if self.batch_jacobian_pfor else " (while_loop)"
        named = {"gradlib (one compiled call)": self.gradlib_seconds,
                 "tf.function tape.batch_jacobian" + suffix: self.compiled_batch_jacobian_seconds,
                 "eager tape.batch_jacobian" + suffix: self.batch_jacobian_seconds,
                 "per-sample tape.jacobian loop": self.loop_seconds}
        return {name: s for name, s in named.items() if np.isfinite(s)}

    @property
    def speedup(self) -> float:
        """How many times faster gradlib's warm call is than the per-sample eager ``tape.jacobian`` loop."""
        return self.loop_seconds / self.gradlib_seconds

    @property
    def batch_jacobian_speedup(self) -> float:
        """How many times faster gradlib's warm call is than one eager ``tape.batch_jacobian``."""
        return self.batch_jacobian_seconds / self.gradlib_seconds

    @property
    def compiled_batch_jacobian_speedup(self) -> float:
        """How many times faster gradlib's warm call is than a warm ``tape.batch_jacobian`` in a ``tf.function``."""
        return self.compiled_batch_jacobian_seconds / self.gradlib_seconds


#: why a warm tf.function batch_jacobian beats gradlib's warm call, when it does (a GRU: 4.2 ms against 16.3 ms). Both
#: measured on the sequence model with a GRU, batch 32, 12 steps: the user's function traced for (32, 12, 3) 4.6 ms,
#: the same traced for (None, 12, 3) 8.1 ms, that plus gradlib's projection (its whole body) 10.0 ms (medians of 40);
#: on a one-unit MLP, batch 1, gradlib's call spent about half its time in Python around the graph (cProfile)
COMPILED_FASTER = ("it is traced for this batch's exact shape, while gradlib's function is traced once for every batch "
                   "size (the batch dimension is unknown to its graph, so "
                   "{loop} works out sizes at run time), and gradlib's call also runs one more backward pass, the "
                   "random projection behind its check that samples do not mix (computed with "
                   "check_independence=False too, as timed here); it also checks the batch and copies four arrays out "
                   "to NumPy (y, the Jacobians and the projection's two)")
#: the same for gradlib's tiled method (a recurrent model, issue 41), which is traced for the batch's exact shape and
#: checks only on its first call per batch shape and weights: what still differs is how each gets the rows
TILED_SLOWER = ("gradlib's tiled method runs the model once over the batch repeated per output element and one "
                "backward pass, where batch_jacobian runs the model once and vectorizes one backward pass per output "
                "with pfor (or loops over them); on a model this size the two are close, and this shared server's "
                "drift between calls decides")
#: why gradlib's tiled method beats a warm tf.function batch_jacobian, when it does: its warm calls skip the check,
#: which ran on its first call for this batch shape and weights (``gradlib._perelement._persample``)
TILED_FASTER = ("gradlib's tiled method runs the model once over the batch repeated per output element and one "
                "backward pass, where batch_jacobian without pfor runs one backward pass per output element, one "
                "after another in a while_loop; gradlib's check that samples do not mix ran on gradlib's first call "
                "for this batch shape and weights, not in these warm calls")
#: why an eager contender beats gradlib's warm call, when it does (a model of a few units on a batch of one or two)
EAGER_FASTER = ("gradlib's call has costs that do not shrink with the model (running a graph, its check's extra "
                "backward pass, copying four arrays out), and a model this small does not repay them")
#: why gradlib's warm call beats an eager contender
GRADLIB_FASTER = {"eager": "gradlib runs one compiled graph for the whole batch, where the eager call dispatches each "
                           "operation from Python{pfor}",
                  "loop": "gradlib runs one compiled graph for the whole batch, where the loop runs an eager tape and "
                          "tape.jacobian per sample"}


def comparison_lines(rep: ModelReport) -> list[str]:
    """One sentence per timed contender: what ran (which method, compiled or eager, tracing included or not), its
    time against gradlib's warm call, and why the faster of the two is faster."""
    method = rep.result.method
    loop = "pfor's vectorized graph" if method == "pfor" else "the while_loop over the outputs"
    how = "pfor" if rep.batch_jacobian_pfor else "while_loop"
    # eager pfor wraps its loop in a new tf.function on every call (tensorflow's pfor: "we wrap into a tf.function if
    # in eager execution mode"), so each eager call traces; the while_loop runs op by op and traces nothing
    traced = ("tracing included (eager pfor traces a new tf.function on every call)" if rep.batch_jacobian_pfor
              else "nothing traced")
    lines = [f"**gradlib**: `per_sample_gradients` (method {method}), compiled: the median of {REPEATS} warm calls, "
             f"tracing not included: {_ms(rep.gradlib_seconds)}."]
    contenders = (("tf.function tape.batch_jacobian", rep.compiled_batch_jacobian_seconds,
                   f"({how}), compiled, traced for this batch's shape: the median of {REPEATS} warm calls, tracing not "
                   "included", TILED_SLOWER if method == "tiled" else COMPILED_FASTER.format(loop=loop),
                   TILED_FASTER if method == "tiled" else
                   f"both run tape.batch_jacobian compiled and gradlib's call does more (its check), so the difference "
                   "is this shared server's drift between calls"),
                  ("eager tape.batch_jacobian", rep.batch_jacobian_seconds, f"({how}), eager: one call, {traced}",
                   EAGER_FASTER, GRADLIB_FASTER["eager"].format(
                       pfor=", and eager pfor vectorizes the model anew on every call" if rep.batch_jacobian_pfor
                       else "")),
                  ("per-sample tape.jacobian loop", rep.loop_seconds,
                   f"eager, one tape per sample, {traced.replace('every call', 'every tape.jacobian')}: timed on "
                   f"{rep.loop_samples} samples and scaled to the batch",
                   EAGER_FASTER,
                   GRADLIB_FASTER["loop"]))
    for name, seconds, ran, other_wins, gradlib_wins in contenders:
        if not np.isfinite(seconds):
            continue
        ratio = seconds / rep.gradlib_seconds
        verdict = (f"faster than gradlib ({gradlib.format_ratio(ratio)} of its time): {other_wins}" if ratio < 1
                   else f"gradlib is {gradlib.format_ratio(ratio)} faster: {gradlib_wins}")
        lines.append(f"**{name}** {ran}: {_ms(seconds)}; {verdict}.")
    return lines


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.3g} ms"


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
    warm = _warm_seconds(lambda: gradlib.per_sample_gradients(model, x, check_independence=False, limits=limits))
    use_pfor = checked.get("cell") not in keras_models.RECURRENT_CELLS
    timings, missing = {}, []
    if time_loop:
        for label, timing in (("the per-sample loop", lambda: _time_loop(model, x, use_pfor, result, limits)),
                              ("the eager tape.batch_jacobian", lambda: _time_batch_jacobian(model, x, use_pfor, result)),
                              ("the tf.function tape.batch_jacobian",
                               lambda: _time_compiled_batch_jacobian(model, x, use_pfor, result))):
            try:
                with gradlib.work_slot():   # the app's own TensorFlow work counts against the server's slots too
                    timings[label] = timing()
            except Exception as exc:   # noqa: BLE001 - a side timing failed: the gradients still stand; say which
                missing.append(f"{label}: {type(exc).__name__}: {gradlib.error_gist(exc)}")
    loop_seconds, k = timings.get("the per-sample loop", (float("nan"), 0))
    nan = float("nan")
    return ModelReport(result=result, output_names=spec.output_names(checked), gradlib_seconds=float(np.median(warm)),
                       loop_seconds=loop_seconds, loop_samples=k,
                       batch_jacobian_seconds=timings.get("the eager tape.batch_jacobian", nan),
                       batch_jacobian_pfor=use_pfor,
                       compiled_batch_jacobian_seconds=timings.get("the tf.function tape.batch_jacobian", nan),
                       gradlib_spread=(warm[0], warm[-1]), missing=tuple(missing))


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


def _batch_jacobian(model: Any, xt: tf.Tensor, use_pfor: bool) -> tf.Tensor:
    """What a TensorFlow user would write: ``tape.batch_jacobian`` of the flattened outputs over the batch.

    Without pfor (a while_loop over the outputs) TensorFlow needs a persistent tape: a non-persistent one is
    refused ("GradientTape must be created with persistent=True ...").
    """
    with tf.GradientTape(persistent=not use_pfor) as tape:
        tape.watch(xt)
        y = model(xt)
        flat = tf.reshape(y, [tf.shape(y)[0], -1])
    return tape.batch_jacobian(flat, xt, experimental_use_pfor=use_pfor)


def _warm_seconds(call) -> list[float]:
    """Sorted seconds of ``REPEATS`` calls that did not trace or build what they ran (``traced``); the calls that
    did are left out, at most ``MAX_BUILDS`` of them."""
    warm, builds = [], 0
    while len(warm) < REPEATS:
        r = call()
        if r.traced and builds < MAX_BUILDS:
            builds += 1
            continue
        warm.append(r.seconds)
    return sorted(warm)


def _time_batch_jacobian(model: Any, x: np.ndarray, use_pfor: bool, result: gradlib.PerSampleResult) -> float:
    """Seconds of one eager ``tape.batch_jacobian`` over the whole batch, checked against gradlib's result.

    Eagerly, pfor re-vectorizes the model on every call; for recurrent layers that takes tens of seconds, so
    they run with ``experimental_use_pfor=False`` (a while_loop over the outputs), as a user would have to.
    """
    xt = tf.constant(x, dtype=tf.float32)
    start = time.perf_counter()
    jac = _batch_jacobian(model, xt, use_pfor)
    seconds = time.perf_counter() - start
    _check_same(jac, result.jacobian)
    return seconds


def _time_compiled_batch_jacobian(model: Any, x: np.ndarray, use_pfor: bool, result: gradlib.PerSampleResult) -> float:
    """Median seconds of ``REPEATS`` warm calls of ``tape.batch_jacobian`` in a ``tf.function`` (traced untimed)."""
    xt = tf.constant(x, dtype=tf.float32)
    compiled = tf.function(lambda xb: _batch_jacobian(model, xb, use_pfor), autograph=False)
    _check_same(compiled(xt), result.jacobian)
    seconds = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        compiled(xt)
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds))


def _check_same(jac: Any, expected: np.ndarray) -> None:
    """A timed contender must compute the same Jacobians as gradlib (``expected``), or its time means nothing."""
    got = np.asarray(jac).reshape(expected.shape)
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(expected).max()))):
        raise gradlib.GradlibError("its Jacobians differ from per_sample_gradients' (max |difference| "
                                   f"{gradlib.format_number(float(np.abs(got - expected).max()))})")


def _sample_jacobian(model: Any, xb: tf.Tensor, use_pfor: bool) -> tf.Tensor:
    """What a TensorFlow user writes for one sample: an eager tape and ``tape.jacobian`` of its output; for a
    recurrent layer without pfor, on a persistent tape, as for ``_batch_jacobian`` (eager pfor re-vectorizes a GRU
    on every call: about 7 s a sample, which made the loop look thousands of times slower than it needs to be)."""
    with tf.GradientTape(persistent=not use_pfor) as tape:
        tape.watch(xb)
        y = model(xb)
    return tape.jacobian(y, xb, experimental_use_pfor=use_pfor)


def _time_loop(model: Any, x: np.ndarray, use_pfor: bool, result: gradlib.PerSampleResult,
               limits: gradlib.Limits) -> tuple[float, int]:
    """The per-sample ``tape.jacobian`` loop on the first ``LOOP_SAMPLES`` samples, scaled to the batch, and
    checked against gradlib's Jacobians of those samples; refused over ``limits.max_eager_passes`` samples."""
    k = min(len(x), LOOP_SAMPLES)
    if k > limits.max_eager_passes:
        raise gradlib.ExpressionError(f"the per-sample loop runs one eager tape.jacobian per sample: {k} here, and "
                                      f"at most {limits.max_eager_passes} are allowed")
    samples = [tf.constant(x[b:b + 1], dtype=tf.float32) for b in range(k)]
    start = time.perf_counter()
    jacs = [_sample_jacobian(model, xb, use_pfor).numpy() for xb in samples]
    seconds = time.perf_counter() - start
    _check_same(np.stack([j.reshape(result.jacobian.shape[1:]) for j in jacs]), result.jacobian[:k])
    return seconds * len(x) / k, k
