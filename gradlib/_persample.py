"""Per-sample gradients of a batched function (a Keras model): one Jacobian per sample, all at once.

For a batch ``x`` of shape ``(B, inputs...)`` and ``y = fn(x)`` of shape ``(B, outputs...)``, sample ``b``'s
Jacobian is ``d y[b] / d x[b]``, which is what ``tf.GradientTape.batch_jacobian`` computes. That is only
meaningful when the samples are independent (``y[b]`` does not depend on ``x[c]`` for ``c != b``), so a
small probe batch is checked first: a layer that mixes the batch (BatchNormalization in training mode)
raises ``BatchMixingError`` instead of giving a silently wrong answer.

>>> import tensorflow as tf
>>> r = per_sample_gradients(lambda x: x * x, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
>>> r.jacobian.tolist()
[[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import numpy as np
import tensorflow as tf

from . import _runtime
from ._api import error_gist, float_tensor
from ._cache import LRUCache
from ._errors import BatchMixingError, GradlibError
from ._limits import LIMITS, Limits
from ._result import index_labels

#: ``pfor``: batch_jacobian vectorized; ``while_loop``: batch_jacobian without pfor; ``loop``: the reference,
#: one eager ``tape.jacobian`` per sample; ``auto``: ``pfor``, falling back to ``while_loop`` if pfor fails.
PER_SAMPLE_METHODS = ("auto", "pfor", "while_loop", "loop")
#: how many samples the independence probe differentiates jointly
PROBE_SAMPLES = 3
#: an off-diagonal block larger than this (relative to the largest diagonal entry) means the batch mixes
MIXING_TOLERANCE = 1e-5
_COMPILED = LRUCache(maxsize=32)


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
        """One label per output element of a sample: ``y[0]``, ``y[1]``, ..."""
        return index_labels("y", self.output_shape)

    @property
    def col_labels(self) -> tuple[str, ...]:
        """One label per input element of a sample: ``x[0]``, ... or ``x[t,f]`` for sequences."""
        return index_labels("x", self.input_shape)

    def matrix(self, b: int) -> np.ndarray:
        """Sample ``b``'s Jacobian as a 2-D matrix: (output elements) x (input elements)."""
        return self.jacobian[b].reshape(len(self.row_labels), len(self.col_labels))

    @property
    def mean_abs(self) -> np.ndarray:
        """The mean over the batch of |J|, as a 2-D matrix (output elements) x (input elements)."""
        return np.abs(self.jacobian).mean(axis=0).reshape(len(self.row_labels), len(self.col_labels))


def per_sample_gradients(fn: Callable, x: Any, *, method: str = "auto", check_independence: bool = True,
                         limits: Limits = LIMITS) -> PerSampleResult:
    """Per-sample Jacobians of ``fn`` (a Keras model or any batched callable) over the batch ``x``.

    Args:
        fn: called as ``fn(x)`` on a batch of shape ``(B, inputs...)``; returns ``(B, outputs...)``.
        x: the batch: an array, a tensor or a nested list, floating point, with at least 2 dimensions.
        method: one of ``PER_SAMPLE_METHODS``.
        check_independence: probe the first samples and refuse a function that mixes the batch.
        limits: ``max_jacobian`` bounds the entries of all the Jacobians together.

    Returns:
        A ``PerSampleResult`` with ``jacobian`` of shape ``(B, outputs..., inputs...)``.

    Example:
        >>> r = per_sample_gradients(lambda x: tf.reduce_sum(x * x, axis=1), [[1.0, 2.0], [3.0, 4.0]])
        >>> r.jacobian.tolist()
        [[2.0, 4.0], [6.0, 8.0]]

    Raises:
        GradlibError: ``x`` is not a non-empty floating-point batch, or ``fn`` fails or does not keep the batch.
        BatchMixingError: a sample's output depends on other samples' inputs.
    """
    _check_method(method)
    xt = _check_batch(x, limits)
    if method == "loop" and xt.shape[0] > limits.max_eager_passes:
        raise GradlibError(f"method 'loop' runs one eager tape.jacobian per sample: {xt.shape[0]:,} here, and at "
                           f"most {limits.max_eager_passes:,} are allowed. Use method='auto', which vectorizes them")
    with _runtime.work_slot():
        start = time.perf_counter()
        out_shape = _check_output(fn, xt)
        _check_size(xt, out_shape, limits)
        unchecked = ""
        if check_independence and xt.shape[0] >= 2:
            unchecked = _check_independent(fn, xt[:PROBE_SAMPLES], "while_loop" if method == "while_loop" else "auto")
        y, jac, used, compiled = _compute(fn, xt, method)
        seconds = time.perf_counter() - start
    warnings = _warnings(xt, y, method, used) + ((unchecked,) if unchecked else ())
    return PerSampleResult(y=y, jacobian=jac, method=used, compiled=compiled, seconds=seconds, warnings=warnings)


# ---------------------------------------------------------------- checks


def _check_method(method: Any) -> None:
    if method not in PER_SAMPLE_METHODS:
        raise GradlibError(f"per_sample_gradients got method={method!r}; choose one of {', '.join(PER_SAMPLE_METHODS)}")


def _check_batch(x: Any, limits: Limits) -> tf.Tensor:
    tensor = float_tensor(x, "per_sample_gradients", "x")
    if tensor.shape.rank is None or tensor.shape.rank < 2:
        raise GradlibError(
            f"per_sample_gradients needs a batch of shape (B, features...), but x has shape {tuple(tensor.shape)}. "
            "For a single sample, add a batch axis: x[None, :]")
    if tensor.shape.num_elements() == 0:
        raise GradlibError(f"per_sample_gradients got an empty batch: x has shape {tuple(tensor.shape)}")
    if tensor.shape.num_elements() > limits.max_elements:
        raise GradlibError(f"x has {tensor.shape.num_elements():,} elements; at most {limits.max_elements:,} are allowed")
    return tensor


def _call(fn: Callable, x: tf.Tensor) -> tf.Tensor:
    """``fn(x)`` with any failure turned into a GradlibError that says which shape it was given."""
    try:
        return tf.convert_to_tensor(fn(x))
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed: say so, with its message
        raise GradlibError(f"fn failed on a batch of shape {tuple(x.shape)}: {type(exc).__name__}: "
                           f"{error_gist(exc)}") from exc


def _check_output(fn: Callable, x: tf.Tensor) -> tuple[int, ...]:
    """Call ``fn`` once on the first sample (eagerly): the output must keep the batch axis."""
    y = _call(fn, x[:1])
    if y.shape.rank == 0 or y.shape[0] != 1:
        raise GradlibError(
            f"fn must return one row per sample, but on a batch of shape {tuple(x[:1].shape)} it returned shape "
            f"{tuple(y.shape)}. per_sample_gradients needs y of shape (B, outputs...); for a function of the whole "
            "batch use per_element_gradients")
    if not y.dtype.is_floating:
        raise GradlibError(f"fn must return floating-point values; it returned {y.dtype.name}")
    return tuple(y.shape[1:])


def _check_size(x: tf.Tensor, out_shape: tuple[int, ...], limits: Limits) -> None:
    entries = math.prod(x.shape) * math.prod(out_shape)
    if entries > limits.max_jacobian:
        raise GradlibError(
            f"the per-sample Jacobians would have {entries:,} entries (batch {x.shape[0]} x {math.prod(out_shape)} "
            f"outputs x {math.prod(x.shape[1:])} inputs); at most {limits.max_jacobian:,} are allowed. "
            "Use a smaller batch or fewer features")


def _check_independent(fn: Callable, probe: tf.Tensor, method: str) -> str:
    """The full Jacobian of a few samples: every off-diagonal (sample b w.r.t. sample c) block must be zero.

    Only finite entries count as evidence; the warning to report is returned when some are not finite.
    """
    full, _ = _graph(fn, probe, "probe", method)
    b = int(probe.shape[0])
    blocks = np.abs(full.reshape(b, -1, b, math.prod(probe.shape[1:])))
    finite = np.where(np.isfinite(blocks), blocks, 0.0)   # NaN or inf is no evidence of mixing (an all-inf batch)
    diagonal = max(float(finite[i, :, i].max()) for i in range(b))
    off, where = max((float(finite[i, :, j].max()), (i, j)) for i in range(b) for j in range(b) if i != j)
    if off > MIXING_TOLERANCE * max(diagonal, 1.0):
        i, j = where
        raise BatchMixingError(
            f"the samples of the batch are not independent: output of sample {i} changes with the input of sample "
            f"{j} (|dy[{i}]/dx[{j}]| up to {off:.3g}), so per-sample gradients do not exist. A layer mixes the "
            "batch, such as BatchNormalization in training mode: call the model with training=False, or use "
            "per_element_gradients on the whole batch")
    unknown = not all(np.isfinite(blocks[i, :, j]).all() for i in range(b) for j in range(b) if i != j)
    return ("the samples' independence could only be checked where the probe's Jacobian is finite: it holds NaN "
            "or infinite values") if unknown else ""


# ---------------------------------------------------------------- computing


def _compute(fn: Callable, x: tf.Tensor, method: str) -> tuple[np.ndarray, np.ndarray, str, bool]:
    if method == "loop":
        y, jac = _loop(fn, x)
        return y, jac, "loop", False
    (y, jac), used = _graph(fn, x, "batch", method)
    return y, jac, used, True


def _graph(fn: Callable, x: tf.Tensor, kind: str, method: str) -> tuple[Any, str]:
    """Run the cached compiled function for ``kind`` (``batch`` or ``probe``); ``auto`` remembers its fallback."""
    spec = tf.TensorSpec((None,) + tuple(x.shape[1:]), x.dtype)
    key = _key(fn, kind, method, spec)
    create = lambda: _trace(fn, spec, kind, method)  # noqa: E731
    try:
        compiled, used = _COMPILED.get_or_create(key, create) if key is not None else create()
        out = compiled(x)
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - fn failed when traced or run as a graph: say so, like _call
        raise GradlibError(f"fn failed inside the compiled per-sample Jacobian on a batch of shape "
                           f"{tuple(x.shape)}: {type(exc).__name__}: {error_gist(exc)}") from exc
    if kind == "probe":
        return out.numpy(), used
    return (out[0].numpy(), out[1].numpy()), used


def _key(fn: Callable, kind: str, method: str, spec: tf.TensorSpec) -> Hashable | None:
    try:
        hash(fn)
    except TypeError:
        return None
    return (fn, kind, method, tuple(spec.shape), spec.dtype.name)


def _trace(fn: Callable, spec: tf.TensorSpec, kind: str, method: str):
    """Trace once with pfor; if pfor cannot vectorize an op, ``auto`` falls back to a while_loop.

    ``auto`` skips pfor for functions that run a loop themselves (recurrent layers): vectorizing a
    while_loop's body is slow to trace and no faster to run (a GRU over 12 steps, batch 32: 31 s to
    trace with pfor, 2.6 s with a while_loop; then 0.28 s vs 0.23 s per call).
    """
    if method == "auto" and _has_loop(fn, spec):
        return _concrete(fn, spec, kind, use_pfor=False), "while_loop"
    if method in ("auto", "pfor"):
        try:
            return _concrete(fn, spec, kind, use_pfor=True), "pfor"
        except (ValueError, NotImplementedError, tf.errors.OpError) as exc:
            if method == "pfor":
                raise GradlibError(f"pfor could not vectorize this function ({error_gist(exc)}); "
                                   "use method='while_loop' or method='auto'") from exc
    return _concrete(fn, spec, kind, use_pfor=False), "while_loop"


def _has_loop(fn: Callable, spec: tf.TensorSpec) -> bool:
    """Whether ``fn``'s graph (or a function it calls) contains a while_loop."""
    graph = tf.function(fn, input_signature=[spec], autograph=False).get_concrete_function().graph.as_graph_def()
    nodes = list(graph.node) + [node for function in graph.library.function for node in function.node_def]
    return any(node.op in ("While", "StatelessWhile") for node in nodes)


def _concrete(fn: Callable, spec: tf.TensorSpec, kind: str, *, use_pfor: bool):
    body = _batch_jacobian if kind == "batch" else _full_jacobian
    compiled = tf.function(lambda x: body(fn, x, use_pfor), input_signature=[spec], autograph=False,
                           reduce_retracing=False)
    return compiled.get_concrete_function()


def _batch_jacobian(fn: Callable, x: tf.Tensor, use_pfor: bool):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
        flat = tf.reshape(y, [tf.shape(y)[0], -1])   # inside the tape (the seed's lesson); (B, n) for batch_jacobian
    jac = tape.batch_jacobian(flat, x, unconnected_gradients=tf.UnconnectedGradients.ZERO,
                              experimental_use_pfor=use_pfor)
    return y, tf.reshape(jac, tf.concat([tf.shape(y), tf.shape(x)[1:]], axis=0))


def _full_jacobian(fn: Callable, x: tf.Tensor, use_pfor: bool):
    with tf.GradientTape() as tape:
        tape.watch(x)
        flat = tf.reshape(fn(x), [-1])
    jac = tape.jacobian(flat, x, unconnected_gradients=tf.UnconnectedGradients.ZERO, experimental_use_pfor=use_pfor)
    return tf.reshape(jac, [tf.shape(flat)[0], -1])


def _loop(fn: Callable, x: tf.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The reference: one eager tape per sample and ``tape.jacobian`` of its output."""
    ys, jacs = [], []
    for b in range(int(x.shape[0])):
        xb = x[b:b + 1]
        with tf.GradientTape() as tape:
            tape.watch(xb)
            yb = fn(xb)
        jb = tape.jacobian(yb, xb, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        ys.append(yb.numpy()[0])
        jacs.append(jb.numpy().reshape(yb.shape[1:] + xb.shape[1:]))
    return np.stack(ys), np.stack(jacs)


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
