"""Per-sample gradients of a batched function (a Keras model): one Jacobian per sample, all at once.

For a batch ``x`` of shape ``(B, inputs...)`` and ``y = fn(x)`` of shape ``(B, outputs...)``, sample ``b``'s
Jacobian is ``d y[b] / d x[b]``, which is what ``tf.GradientTape.batch_jacobian`` computes. That is only
meaningful when the samples are independent (``y[b]`` does not depend on ``x[c]`` for ``c != b``). Every
sample is checked, at the cost of one extra backward pass over the whole batch: for a random cotangent
``u``, the vector-Jacobian product ``u^T dy/dx`` must equal what the per-sample Jacobians give,
``sum_k u[c, k] J[c, k, :]`` for each sample ``c``. Any sample whose output depends on another sample's
input breaks that equality (with probability one for a random ``u``), so a layer that mixes the batch
(BatchNormalization in training mode, a shift along the batch axis) raises ``BatchMixingError`` instead of
giving a silently wrong answer. A mixing the tape cannot see (a batch statistic under ``tf.stop_gradient``) is found
by moving the other samples (``_check_held``, ``_callable._mixing``: one forward pass in the compiled step).

A random fn (Dropout with ``training=True``: two calls on the first samples differ, asked once per function and
sample shape, ``_callable._random``) is named in ``warnings``: the Jacobians are those of one call's draw. ``loop``
and ``tiled`` refuse it (each sample's call, each copy of the batch, draws anew).

What is checked when: ``pfor``, ``while_loop`` and ``loop`` check the whole batch on every call. ``tiled`` (``auto``'s
choice for a model that runs a loop: a recurrent layer) checks on its first call for each batch shape and again
whenever the fingerprint of the floating-point variables fn reads changes (``_tiled``, ``_callable._weights``), with
``check_independence`` or without (the check also proves the tiled answer is the batch's own); where the check fails,
``auto`` takes ``while_loop`` (whose own check then refuses a batch that mixes) and ``method='tiled'`` is an error.
Not caught then: mixing that depends on the samples' values, on a later batch of the same shape at the same weights.

>>> import tensorflow as tf
>>> r = per_sample_gradients(lambda x: x * x, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
>>> r.jacobian.tolist()
[[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import numpy as np
import tensorflow as tf

from .._foundations import _runtime
from .._foundations._cache import LRUCache
from .._foundations._errors import BatchMixingError, ExpressionError, GradlibError, error_gist
from .._foundations._limits import LIMITS, Limits, largest_fitting
from .._callable._forms import sample_batch
from .._callable._labels import index_labels
from .._callable._mixing import (PROJECTION_SEED, find_mixing, held_outputs, held_refusal, mixing_text, moved_batch,
                                 moved_samples)
from .._callable._random import RANDOM, is_random
from .._callable._outputs import joined_outputs, named_outputs, output_names, sample_output, single_name
from .._callable._state import callable_key, same_output
from .._callable._trace import graph_loops, lowest_float, numpy_call, py_function_call, trace
from ._compiled import Compiled
from ._tiled import TILED_OUTPUTS, checked_body, fast_build
from .._foundations._runtime import returns_numpy

__all__ = ["API", "LOOP_ROWS", "PER_SAMPLE_METHODS", "per_sample_gradients", "PerSampleResult"]

#: ``pfor``: batch_jacobian vectorized; ``while_loop``: batch_jacobian without pfor; ``tiled``: the batch repeated
#: once per output element, one backward pass (``_tiled``); ``loop``: the reference, one eager tape per sample
#: (``_loop``); ``auto``: ``tiled`` for a function that runs a loop (a recurrent layer) and has at most
#: ``TILED_OUTPUTS`` outputs per sample (``while_loop`` past it, or where the tiled check fails), else ``pfor``,
#: falling back to ``while_loop`` if pfor fails.
PER_SAMPLE_METHODS = ("auto", "pfor", "while_loop", "tiled", "loop")
API = "per_sample_gradients"
#: (fn, method, batch shape and dtype, check_independence, fn's fingerprint) -> the compiled step (``_cached_compiled``)
_SAMPLE_FUNCTIONS = LRUCache(maxsize=32)


@dataclass(frozen=True, eq=False)
class PerSampleResult:
    """Per-sample Jacobians of ``y = fn(x)`` as plain NumPy data.

    ``jacobian[b, *k, *j]`` is d y[b, *k] / d x[b, *j]: shape ``(B, outputs..., inputs...)``.
    """

    y: np.ndarray
    jacobian: np.ndarray
    method: str
    compiled: bool
    seconds: float
    warnings: tuple[str, ...] = field(default=())
    #: for a model with several inputs, each input's name and per-sample shape, in the order of the last axis
    inputs: tuple[tuple[str, tuple[int, ...]], ...] = field(default=())
    #: for a function of several outputs, each output's name and per-sample shape, in the order of the rows
    #: (``y`` and the Jacobian's output axis are then the outputs joined: ``(B, their elements in that order)``)
    outputs: tuple[tuple[str, tuple[int, ...]], ...] = field(default=())
    #: the name of a single output in ``row_labels``: a Keras model's name for it (``model.output_names``), else ``y``
    output_name: str = "y"
    #: which version computed it: ``"graph"``, or ``"xla"`` once the tiled method's calls paid for XLA's build and it
    #: agreed with the graph and ran faster (``_compiled``); ``""`` for ``loop``
    compiled_as: str = ""
    #: False while the tiled method may still switch between graph and XLA (a benchmark calls until it is True)
    compiled_final: bool = True
    #: True when this call's ``seconds`` include tracing or building what it ran (the first call for a function and
    #: batch shape, the tiled method's first fast pass, XLA's build or its trial beside the graph): not a warm time
    traced: bool = False

    @property
    def batch_size(self) -> int:
        return int(self.y.shape[0])

    @property
    def output_shape(self) -> tuple[int, ...]:
        return tuple(self.y.shape[1:])

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(self.jacobian.shape[1 + len(self.output_shape):])

    @property
    def row_labels(self) -> tuple[str, ...]:
        """One label per output element of a sample: ``y[0]``, ``y[1]``, ... (a Keras model's output by its name,
        ``price[0]``); for several outputs, each output's by its name (``price[0]``, ``kind[1]``)."""
        if self.outputs:
            return tuple(label for name, shape in self.outputs for label in index_labels(name, shape))
        return index_labels(self.output_name, self.output_shape)

    @property
    def col_labels(self) -> tuple[str, ...]:
        """One label per input element of a sample: ``x[0]``, ... or ``x[t,f]`` for sequences; for several
        inputs, each input's by its name (``age[0]``, ``income[1]``)."""
        if self.inputs:
            return tuple(label for name, shape in self.inputs for label in index_labels(name, shape))
        return index_labels("x", self.input_shape)

    def matrix(self, b: int) -> np.ndarray:
        """Sample ``b``'s Jacobian as a 2-D matrix: (output elements) x (input elements)."""
        return self.jacobian[b].reshape(len(self.row_labels), len(self.col_labels))

    @property
    def mean_abs(self) -> np.ndarray:
        """The mean over the batch of |J|, as a 2-D matrix (output elements) x (input elements)."""
        return np.abs(self.jacobian).mean(axis=0).reshape(len(self.row_labels), len(self.col_labels))


@returns_numpy("gradlib.per_sample_gradients", "gradlib.pde.derivatives or gradlib.pde.residual")
def per_sample_gradients(fn: Callable, x: Any, *, method: str = "auto", check_independence: bool = True,
                         limits: Limits = LIMITS) -> PerSampleResult:
    """Per-sample Jacobians of ``fn`` (a Keras model or any batched callable) over the batch ``x``.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``;
    a training step uses ``gradlib.pde.derivatives`` or ``gradlib.pde.residual`` (tensors on the tape).

    Args:
        fn: called as ``fn(x)`` on a batch of shape ``(B, inputs...)``; returns ``(B, outputs...)``, or several such
            outputs (a list or tuple, or a dict, as a Keras model of several outputs returns them): each sample's
            outputs are then every one's elements, flattened and joined in that order (the list's, or the dict's
            keys'), and ``row_labels`` names them by output (a Keras model's output names, the dict's keys, or
            ``y0``, ``y1``, ...).
        x: the batch: an array, a tensor or a nested list, floating point, with at least 2 dimensions. For a
            Keras model with several inputs, a list of such arrays (in the order of ``model.inputs``) or a dict
            keyed by input name, as ``model.fit`` takes them: each sample's Jacobian then has one column per
            feature of every input, in that order, flattened (``col_labels`` names them).
        method: one of ``PER_SAMPLE_METHODS``.
        check_independence: check every sample (a backward pass, and fn's value and first derivatives on two moved
            batches: most of a small model's warm call) and refuse a function whose samples are not independent: on
            every call, but ``tiled`` checks once per batch shape and weights (see the module's docstring).
        limits: ``max_jacobian`` bounds the entries of all the Jacobians together.

    Returns:
        A ``PerSampleResult`` with ``jacobian`` of shape ``(B, outputs..., inputs...)``.

    Example:
        >>> r = per_sample_gradients(lambda x: tf.reduce_sum(x * x, axis=1), [[1.0, 2.0], [3.0, 4.0]])
        >>> r.jacobian.tolist()
        [[2.0, 4.0], [6.0, 8.0]]

    Raises:
        ExpressionError: a bad method, or a request over the limits.
        InputError: ``x`` is not a non-empty floating-point batch within the limits.
        GradlibError: ``fn`` fails or does not keep the batch (every error above is a kind of it).
        BatchMixingError: a sample's output depends on other samples' inputs.
    """
    _check_method(method)
    names = output_names(fn)
    fn, xt, inputs = sample_batch(fn, x, API, limits)
    if method == "loop" and xt.shape[0] > limits.max_eager_passes:
        raise ExpressionError(f"method 'loop' runs one eager GradientTape per sample: {xt.shape[0]:,} here, and at "
                              f"most {limits.max_eager_passes:,} are allowed. Use method='auto', which vectorizes them")
    with _runtime.work_slot():
        start, traces = time.perf_counter(), _traces()
        out_shape, outputs = sample_output(fn, xt, API)
        random = _check_random(fn, xt, method)
        _check_request(xt, out_shape, method, limits)
        y, jac, projection, used, compiled, precision, unchecked, tier, opaque = _compute(fn, xt, method, out_shape,
                                                                                          check_independence)
        unchecked = unchecked if check_independence else ""
        if check_independence and xt.shape[0] >= 2 and projection is not None:   # None: tiled checked its own
            unchecked = _checked_batch(fn, xt, y, jac, projection, precision, random)
        seconds = time.perf_counter() - start
    warnings = _warnings(xt, y, method, used) + _check_notes(unchecked, random, opaque)
    return PerSampleResult(y=y, jacobian=jac, method=used, compiled=compiled, seconds=seconds, warnings=warnings,
                           compiled_as=tier[0], compiled_final=tier[1], traced=tier[2] or _traces() != traces,
                           inputs=inputs, outputs=named_outputs(outputs, names),
                           output_name=single_name(names, [name for name, _ in inputs]))


# ---------------------------------------------------------------- checks


def _check_notes(unchecked: str, random: bool, opaque: str) -> tuple[str, ...]:
    """The warnings the checks add: the mixing check's, a random fn's, and a NumPy call's in fn's trace."""
    return ((unchecked,) if unchecked else ()) + ((_RANDOM,) if random else ()) + _numpy_warning(opaque)


def _check_method(method: Any) -> None:
    if method not in PER_SAMPLE_METHODS:
        raise ExpressionError(f"per_sample_gradients got method={method!r}; choose one of {', '.join(PER_SAMPLE_METHODS)}")


def _check_random(fn: Callable, x: tf.Tensor, method: str) -> bool:
    """Whether fn is random (``_callable._random``: two calls on the first samples, once per function and sample
    shape); ``loop`` and ``tiled`` refuse it: their calls of fn (one per sample and one over the batch; the batch
    repeated once per output element) would each draw anew."""
    if not is_random(fn, x):
        return False
    if method == "loop":
        raise GradlibError(
            f"{API} cannot use method='loop' on this fn: {RANDOM}. The loop calls fn once per sample and once more "
            "on the whole batch for the independence check, so every sample's Jacobian comes from another draw and "
            "the check would blame batch mixing that is not there. Fix its randomness (training=False), or use "
            "method='auto', which differentiates one call of fn over the whole batch: the Jacobians of that draw")
    if method == "tiled":
        raise GradlibError(
            f"{API} cannot use method='tiled' on this fn: {RANDOM}. The tiled method runs fn on the batch repeated "
            "once per output element, and every copy draws anew, so each row of a Jacobian would come from another "
            "draw. Fix its randomness (training=False), or use method='auto' or 'while_loop'")
    return True


_RANDOM = (f"{RANDOM}: these Jacobians are those of this call's draw (one call of fn over the whole batch, "
           "differentiated), and every call gives others; fix its randomness (training=False) to get the gradients "
           "of one function")


def _check_request(x: tf.Tensor, out_shape: tuple[int, ...], method: str, limits: Limits) -> None:
    """The Jacobians' size within ``limits``, and the tiled method's copies of the batch within ``TILED_OUTPUTS``."""
    _check_size(x, out_shape, limits)
    _check_tiled(method, out_shape)


def _check_size(x: tf.Tensor, out_shape: tuple[int, ...], limits: Limits) -> None:
    entries = math.prod(x.shape) * math.prod(out_shape)
    if entries > limits.max_jacobian:
        raise ExpressionError(
            f"the per-sample Jacobians would have {entries:,} entries (batch {x.shape[0]} x {math.prod(out_shape)} "
            f"outputs x {math.prod(x.shape[1:])} inputs); at most {limits.max_jacobian:,} are allowed. "
            + _batch_advice(int(x.shape[0]), entries, limits.max_jacobian))


def _check_tiled(method: str, out_shape: tuple[int, ...]) -> None:
    if method == "tiled" and math.prod(out_shape) > TILED_OUTPUTS:
        raise ExpressionError(f"method 'tiled' repeats the batch once per output element of a sample: "
                              f"{math.prod(out_shape):,} here, and at most {TILED_OUTPUTS} are allowed (each copy "
                              "holds a forward pass). Use method='auto' or 'while_loop'")


def _batch_advice(batch: int, entries: int, limit: int) -> str:
    """The largest batch that fits, or, when not even one sample does, what one sample must lose."""
    largest = largest_fitting(limit, batch, entries)
    if largest:
        return f"Use a batch of at most {largest:,}"
    return f"Even one sample's Jacobian has {entries // batch:,} entries: use fewer features or return fewer outputs"


def _check_independent(jac: np.ndarray, projection: tuple[np.ndarray, np.ndarray], dtype: str) -> str:
    """Every sample at once (``find_mixing``), ``projection`` being ``(u, g)`` with ``g`` the whole batch's
    vector-Jacobian product; the warning to report is returned when some entries are not finite."""
    mixing, finite = find_mixing(jac, *projection, dtype)
    if mixing is not None:
        raise BatchMixingError(
            f"{API}: {mixing_text(mixing)}, so per-sample gradients do not exist. A layer mixes the batch, such as "
            "BatchNormalization in training mode: call the model with training=False, or use per_element_gradients "
            "on the whole batch")
    return "" if finite else _NOT_FINITE


def _checked_batch(fn: Callable, x: tf.Tensor, y: np.ndarray, jac: np.ndarray, projection: tuple, dtype: str,
                   random: bool) -> str:
    """Both checks of a batch: the backward projection (``_check_independent``, whose note is returned) and the
    held samples (``_check_held``)."""
    note = _check_independent(jac, projection[:2], dtype)
    _check_held(fn, x, y, jac, projection[2], dtype, random)
    return note


def _check_held(fn: Callable, x: tf.Tensor, y: np.ndarray, jac: np.ndarray, ends: np.ndarray | None, dtype: str,
                random: bool) -> None:
    """Refuse a batch whose held sample has another Jacobian when the other samples move (``ends``:
    ``_mixing.held_outputs``): a mixing through values the projection cannot see (``_mixing``'s
    docstring). ``ends`` None: ``loop``, whose Jacobians are each sample's alone; a random fn's calls differ anyway."""
    if ends is None or random:
        return
    for b in moved_samples(ends, dtype):
        moved = moved_batch(x, b)
        with tf.GradientTape() as tape:   # the rare path: one eager tape over the moved batch
            tape.watch(moved)
            row = tf.reshape(joined_outputs(fn(moved), int(x.shape[0]), API)[b], [-1])
        moved_jac = tape.jacobian(row, moved, unconnected_gradients=tf.UnconnectedGradients.ZERO)[:, b]
        refusal = held_refusal(API, b, jac[b], moved_jac.numpy(), dtype, "Jacobian", "per_element_gradients")
        if refusal:
            raise BatchMixingError(refusal)


_NOT_FINITE = ("the samples' independence could only be checked where the probe's Jacobian is finite: it holds NaN "
               "or infinite values")


# ---------------------------------------------------------------- computing


def _compute(fn: Callable, x: tf.Tensor, method: str, out_shape: tuple[int, ...], check: bool = True):
    """``(y, J, (u, g) or None, method used, compiled, precision, warning, (compiled as, final, built), numpy
    call)``, the last the name of a ``tf.numpy_function`` op in fn's trace (``numpy_call``; ``""`` for ``loop``), with
    ``(u, g)`` the check's projection (see ``_check_independent``; None where ``tiled`` ran its own check) and
    ``precision`` the least precise float dtype fn computes in (a float64 batch through a float32 model is checked
    at float32's tolerance, not refused as mixing at float64's). ``check`` False: the compiled step has no held
    pass (``ends`` None)."""
    if method == "loop":
        try:
            y, jac = _loop(fn, x)
        except tf.errors.UnknownError as exc:   # a second gradient through one tf.py_function call (py_function_call)
            if "KeyError: b'pyfunc_" not in str(exc):
                raise
            _refuse_py_function("EagerPyFunc", method, out_shape)
        return y, jac, (*_projection(fn, x), None), "loop", False, _eager_precision(fn, x), "", ("", True, False), ""
    compiled, used, precision, opaque = _guarded(lambda: _cached_compiled(fn, x, method, out_shape, check), x)
    if used == "tiled":   # compiled: fn's own trace
        step = _guarded(lambda: _tiled_step(fn, x, out_shape, compiled.variables), x)
        done = None if step.refused else _run_tiled(fn, step, x, precision)
        if done is not None:
            return (*done[:2], None, "tiled", True, precision, done[2], done[3], opaque)
        compiled, used, precision, opaque = _guarded(lambda: _cached_compiled(fn, x, "while_loop", out_shape, check),
                                                     x)
    y, jac, u, g, *ends = _guarded(lambda: [t.numpy() for t in compiled(x)], x)   # ends: [] without the held pass
    if method == "tiled":   # the tiled check failed: batch_jacobian's check says whether the samples mix
        _check_independent(jac, (u, g), precision)
        raise GradlibError(f"{API}: method 'tiled' does not hold for this function: its Jacobians on the repeated "
                           "batch differ from the batch's own (an output that depends on the batch's size, or random "
                           "draws). Use method='auto' or 'while_loop'")
    return y, jac, (u, g, ends[0] if ends else None), used, True, precision, "", ("graph", True, False), opaque


def _numpy_warning(name: str) -> tuple[str, ...]:
    """What a ``tf.numpy_function`` in fn does to its Jacobian (``numpy_call``), or nothing."""
    if not name:
        return ()
    return (f"fn calls tf.numpy_function (op {name!r}), which TensorFlow cannot differentiate: every tape takes its "
            "output as a constant, so wherever it depends on x the Jacobian leaves that part out (numpy(2 x) * x "
            "gets 2 x, not 4 x). Compute it with TensorFlow ops (or tf.py_function, whose gradient the tape records)",)


def _guarded(call: Callable[[], Any], x: tf.Tensor) -> Any:
    """``call()`` (a trace or a run of fn's compiled Jacobian), fn's failure said in one line, like ``_call``."""
    try:
        return call()
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - fn failed when traced or run as a graph: say so
        raise GradlibError(f"fn failed inside the compiled per-sample Jacobian on a batch of shape "
                           f"{tuple(x.shape)}: {type(exc).__name__}: {error_gist(exc)}") from exc


@dataclass(eq=False)
class _TiledStep:
    """The tiled method for one function and batch shape: its checking step (``_tiled.checked_body``), its pass
    alone with the weights' fingerprint (``fast``: a graph, promoted to XLA when that pays, ``_compiled``), the
    fingerprint the batch was last checked at, and whether its check ever failed (then ``auto`` takes the while_loop
    for this function and shape, as long as the step is cached)."""

    checked: Any
    fast: Compiled
    last: np.ndarray | None = None
    refused: bool = False


#: (fn, the batch's exact shape and dtype, fn's fingerprint) -> its ``_TiledStep`` (exact: XLA compiles one shape)
_TILED_STEPS = LRUCache(maxsize=32)


def _tiled_step(fn: Callable, x: tf.Tensor, out_shape: tuple[int, ...], variables: Any) -> _TiledStep:
    """The cached ``_TiledStep`` for ``fn`` and ``x``'s exact shape (``variables``: those fn's trace reads)."""
    spec = tf.TensorSpec(tuple(x.shape), x.dtype)

    @_counted
    def create() -> _TiledStep:
        checked = trace(checked_body(fn, out_shape, variables, API), [spec])
        return _TiledStep(checked, Compiled(fast_build(fn, spec, out_shape, variables, API)))

    key = _key(fn, "tiled", spec)
    return create() if key is None else _TILED_STEPS.get_or_create(key, create)


def _run_tiled(fn: Callable, step: _TiledStep, x: tf.Tensor, precision: str) -> tuple | None:
    """``(y, J, warning, (compiled as, final, built))`` from the tiled pass when the batch was checked at the weights'
    fingerprint it returns beside them, else from the checking step (the projection check, the tiled ``y`` against
    ``fn(x)``, and the held pass: ``_check_held``); None when that fails."""
    if step.last is not None:
        y, jac, fingerprint, compiled_as, note, built = _guarded(lambda: step.fast.run([x], []), x)
        if np.array_equal(fingerprint, step.last):
            return y, jac, note, (compiled_as, step.fast.settled, built)
    y, jac, u, g, called, fingerprint, ends = (t.numpy() for t in _guarded(lambda: step.checked(x), x))
    mixing, finite = find_mixing(jac, u, g, precision)
    if mixing is not None or not same_output(y, called, precision):
        step.refused = True
        return None
    _check_held(fn, x, y, jac, ends, precision, False)
    step.last = fingerprint if finite else None   # checked where finite only: checked again on the next call
    return y, jac, "" if finite else _NOT_FINITE, ("graph", step.fast.settled, False)


def _eager_precision(fn: Callable, x: tf.Tensor) -> str:
    """The least precise float dtype of fn's trace on ``x``; ``x``'s own where fn cannot be traced.

    Remembered per function and batch shape (``_PRECISIONS``): ``method='loop'`` traced fn again on every call
    only to read this, a trace per call of a method meant to run fn eagerly.
    """
    spec = tf.TensorSpec(x.shape, x.dtype)

    @_counted
    def create() -> str:
        try:
            return lowest_float(trace(fn, [spec]).graph, x.dtype.name)
        except Exception:   # noqa: BLE001 - not traceable: the batch's dtype is all there is to go by
            return x.dtype.name

    key = _key(fn, "precision", spec)
    return create() if key is None else _PRECISIONS.get_or_create(key, create)


#: (fn, batch shape and dtype, fn's fingerprint) -> the least precise float dtype its trace computes in
_PRECISIONS = LRUCache(maxsize=128)


def _cached_compiled(fn: Callable, x: tf.Tensor, method: str, out_shape: tuple[int, ...],
                     check: bool = True) -> tuple[Any, str, str, str]:
    """The cached compiled function for ``fn`` and ``x``'s shape (a ``_TiledStep`` for ``tiled``), the method it
    runs (``auto`` remembers its choice), the least precise float dtype it computes in and the name of a
    ``tf.numpy_function`` op in it (``numpy_call``: read once, with the trace). ``check`` (check_independence)
    is in the key: its step holds the held pass, the step without it does not (a check answered from that trace
    would have no held pass to read)."""
    spec = tf.TensorSpec((None,) + tuple(x.shape[1:]), x.dtype)
    key = _key(fn, method, spec, check)

    @_counted
    def create():
        compiled, used = _trace(fn, spec, method, out_shape, check)
        return compiled, used, lowest_float(compiled.graph, spec.dtype.name), numpy_call(compiled.graph)

    return _SAMPLE_FUNCTIONS.get_or_create(key, create) if key is not None else create()


#: this thread's count of the traces per_sample_gradients' caches made (a call that made one is not a warm call)
_TRACES = threading.local()


def _traces() -> int:
    return getattr(_TRACES, "count", 0)


def _counted(create: Callable[[], Any]) -> Callable[[], Any]:
    """``create``, counted in ``_TRACES`` each time it runs (a cache miss: a trace)."""
    def counted() -> Any:
        _TRACES.count = _traces() + 1
        return create()
    return counted


def _key(fn: Callable, method: str, spec: tf.TensorSpec, *extra: Hashable) -> Hashable | None:
    return callable_key(fn, method, tuple(spec.shape), spec.dtype.name, *extra)


def _trace(fn: Callable, spec: tf.TensorSpec, method: str, out_shape: tuple[int, ...], check: bool = True):
    """Trace once with pfor; if pfor cannot vectorize an op, ``auto`` falls back to a while_loop.

    ``auto`` skips pfor for functions that run a loop themselves (recurrent layers): vectorizing a while_loop's
    body is slow to trace (a Keras GRU, LSTM or SimpleRNN of 10 steps: 6-11 s) and ran 1.5-3x slower than the
    tiled method (``_tiled``), which ``auto`` takes for them up to ``TILED_OUTPUTS`` outputs per sample, and
    batch_jacobian's while_loop past it (``python3 -m benchmarks.per_sample`` times all three against the
    ``tf.function`` batch_jacobian a user would write).
    """
    if method in ("auto", "tiled"):
        plain = trace(fn, [spec])
        python = py_function_call(plain.graph)
        if method == "tiled" or _has_loop(plain) or python:
            if method == "tiled" or math.prod(out_shape) <= TILED_OUTPUTS:
                return plain, "tiled"   # fn's own trace: its variables; the steps are traced per exact shape
            _refuse_py_function(python, method, out_shape)
            return _concrete(fn, spec, use_pfor=False, check=check), "while_loop"
    if method in ("auto", "pfor"):
        try:
            return _no_py_function(_concrete(fn, spec, use_pfor=True, check=check), method, out_shape), "pfor"
        except GradlibError:   # fn's own refusal (an output that does not keep the batch): not pfor's failure
            raise
        except (ValueError, NotImplementedError, tf.errors.OpError) as exc:
            if method == "pfor":
                raise GradlibError(f"pfor could not vectorize this function ({error_gist(exc)}); "
                                   "use method='while_loop' or method='auto'") from exc
    return _no_py_function(_concrete(fn, spec, use_pfor=False, check=check), method, out_shape), "while_loop"


def _no_py_function(concrete: Any, method: str, out_shape: tuple[int, ...]) -> Any:
    """``concrete`` (batch_jacobian's trace), refused where fn calls ``tf.py_function`` (it traces, then fails when
    run): read in the trace itself, which holds fn's ops, so finding it costs no other trace."""
    _refuse_py_function(py_function_call(concrete.graph), method, out_shape)
    return concrete


def _refuse_py_function(name: str, method: str, out_shape: tuple[int, ...]) -> None:
    """Refuse fn's ``tf.py_function`` (op ``name``) under a method that takes several gradients through one call of
    it: TensorFlow replays its tape once (``py_function_call``), and the second gradient failed with a bare
    ``KeyError: pyfunc_N``. ``tiled`` takes every row in one backward pass, up to ``TILED_OUTPUTS`` outputs.
    ``name`` empty: nothing to refuse."""
    if not name:
        return
    n = math.prod(out_shape)
    use = ("Use method='auto' or 'tiled', which take every sample's Jacobian in one backward pass, or write"
           if n <= TILED_OUTPUTS else
           f"Method 'tiled', which takes them in one backward pass, runs up to {TILED_OUTPUTS} output elements per "
           f"sample and fn has {n:,}: write")
    raise GradlibError(f"{API}: fn calls tf.py_function (op {name!r}), whose gradient TensorFlow takes only once per "
                       f"call, and method {method!r} takes one gradient per output element through the same call. "
                       f"{use} the tf.py_function part with TensorFlow ops")


def _has_loop(plain: Any) -> bool:
    """Whether ``fn``'s trace ``plain`` (or a function it calls) contains a while_loop."""
    return bool(graph_loops(plain.graph))


def _concrete(fn: Callable, spec: tf.TensorSpec, *, use_pfor: bool, check: bool = True):
    return trace(lambda x: _batch_jacobian(fn, x, use_pfor, check), [spec])


def _batch_jacobian(fn: Callable, x: tf.Tensor, use_pfor: bool, check: bool = True):
    """``(y, J, u, g, ends)``: the per-sample Jacobians, the check's random cotangent ``u`` with ``g = u^T dy/dx``,
    and the held pass (``_mixing.held_outputs``: fn's value and derivatives on two moved batches), which ``check``
    False leaves out (``(y, J, u, g)``: three more passes of fn, most of a small model's warm call)."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = joined_outputs(fn(x), x.shape[0], API)
        flat = tf.reshape(y, [tf.shape(y)[0], -1])   # inside the tape (the seed's lesson); (B, n) for batch_jacobian
        # in x's dtype: without pfor, batch_jacobian writes x's gradients into a TensorArray of y's dtype, and a
        # float32 model on a float64 batch failed ("op elements double but list elements float")
        flat = tf.cast(flat, x.dtype) if flat.dtype != x.dtype and flat.dtype.is_floating else flat
    # traced for any batch size: an output reduced over the batch, (1, ...), passes the eager probe on one sample
    # and met batch_jacobian's bare "Condition x == y did not hold" (hunt 42)
    tf.debugging.assert_equal(tf.shape(flat)[0], tf.shape(x)[0], message=(
        f"{API}: the output of fn does not keep the batch axis first, one row per sample; return (B, outputs...): not "
        "transposed, not reduced over the batch. Output rows, batch size"))
    jac = tape.batch_jacobian(flat, x, unconnected_gradients=tf.UnconnectedGradients.ZERO,
                              experimental_use_pfor=use_pfor)
    u, g = _vjp(tape, y, x)
    ends = (held_outputs(fn, x, API),) if check else ()
    return (y, tf.reshape(jac, tf.concat([tf.shape(y), tf.shape(x)[1:]], axis=0)), u, g, *ends)


def _vjp(tape: tf.GradientTape, y: tf.Tensor, x: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    u = tf.random.stateless_normal(tf.shape(y), seed=PROJECTION_SEED, dtype=y.dtype)
    return u, tape.gradient(y, x, output_gradients=u, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def _projection(fn: Callable, x: tf.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The check's ``(u, g)`` computed eagerly (for the ``loop`` method)."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = joined_outputs(fn(x), x.shape[0], API)
    u, g = _vjp(tape, y, x)
    return u.numpy(), g.numpy()


#: a sample's output elements up to which ``loop`` takes one eager ``tape.gradient`` per element: in eager mode
#: ``tape.jacobian`` traces a new pfor function on every call, about 130 ms a sample against 1.4 ms a gradient
#: (a Dense model of 40 outputs on this 2-core machine); past it, ``tape.jacobian`` runs in one traced step per
#: sample, traced once per function and sample shape (``_jacobian_step``)
LOOP_ROWS = 64
#: (fn, a sample's shape and dtype, fn's fingerprint) -> ``loop``'s traced step of one sample (None: fn cannot be
#: traced, and its samples take the eager ``tape.jacobian``)
_LOOP_STEPS = LRUCache(maxsize=32)


def _loop(fn: Callable, x: tf.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The reference: one tape per sample, and each of its output elements' gradient (``tape.jacobian``, traced
    once per function and sample shape, for more than ``LOOP_ROWS`` of them)."""
    ys, jacs = [], []
    for b in range(int(x.shape[0])):
        xb = x[b:b + 1]
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xb)
            yb = joined_outputs(fn(xb), 1, API)
            n = yb.shape.num_elements()
            rows = tf.unstack(tf.reshape(yb, [-1])) if 0 < n <= LOOP_ROWS else None   # inside the tape
        zero = tf.UnconnectedGradients.ZERO
        if rows is None:
            step = _jacobian_step(fn, xb)
            yb, jb = step(xb) if step is not None else (yb, tape.jacobian(yb, xb, unconnected_gradients=zero))
        else:
            jb = tf.stack([tf.convert_to_tensor(tape.gradient(row, xb, unconnected_gradients=zero)) for row in rows])
        del tape
        ys.append(yb.numpy()[0])
        jacs.append(jb.numpy().reshape(yb.shape[1:] + xb.shape[1:]))
    return np.stack(ys), np.stack(jacs)


def _jacobian_step(fn: Callable, xb: tf.Tensor) -> Callable | None:
    """One sample's ``(y, tape.jacobian)`` as a step traced once per function and sample shape (the eager
    ``tape.jacobian`` traces its pfor function again on every call: once per sample); None when fn cannot be
    traced (its samples then take the eager ``tape.jacobian``)."""
    spec = tf.TensorSpec(tuple(xb.shape), xb.dtype)

    def body(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = joined_outputs(fn(v), 1, API)
        return y, tape.jacobian(y, v, unconnected_gradients=tf.UnconnectedGradients.ZERO)

    @_counted
    def create():
        try:
            return trace(body, [spec])
        except GradlibError:
            raise
        except Exception:   # noqa: BLE001 - not traceable (NumPy on a tensor, say): the eager tape is the reference
            return None

    key = _key(fn, "loop", spec)
    return create() if key is None else _LOOP_STEPS.get_or_create(key, create)


def _warnings(x: tf.Tensor, y: np.ndarray, method: str, used: str) -> tuple[str, ...]:
    out = []
    if method == "auto" and used == "while_loop":
        out.append("computed with batch_jacobian's while_loop instead of pfor: the model runs a loop (a recurrent "
                   "layer) or has an op pfor cannot vectorize")
    if not np.isfinite(x.numpy()).all():
        out.append("x holds NaN or infinite values; the results there are not finite")
    elif not np.isfinite(y).all():
        out.append("the model's output holds NaN or infinite values; their gradients are not finite")
    return tuple(out)
