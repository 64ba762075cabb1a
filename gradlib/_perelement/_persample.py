"""Per-sample gradients of a batched function (a Keras model): one Jacobian per sample, all at once.

For a batch ``x`` of shape ``(B, inputs...)`` and ``y = fn(x)`` of shape ``(B, outputs...)``, sample ``b``'s
Jacobian is ``d y[b] / d x[b]``, which is what ``tf.GradientTape.batch_jacobian`` computes. That is only
meaningful when the samples are independent (``y[b]`` does not depend on ``x[c]`` for ``c != b``). Every
sample is checked, at the cost of one extra backward pass over the whole batch: for a random cotangent
``u``, the vector-Jacobian product ``u^T dy/dx`` must equal what the per-sample Jacobians give,
``sum_k u[c, k] J[c, k, :]`` for each sample ``c``. Any sample whose output depends on another sample's
input breaks that equality (with probability one for a random ``u``), so a layer that mixes the batch
(BatchNormalization in training mode, a shift along the batch axis) raises ``BatchMixingError`` instead of
giving a silently wrong answer.

>>> import tensorflow as tf
>>> r = per_sample_gradients(lambda x: x * x, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
>>> r.jacobian.tolist()
[[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable

import numpy as np
import tensorflow as tf

from .. import _runtime
from .._cache import LRUCache
from .._errors import BatchMixingError, ExpressionError, GradlibError, InputError, error_gist
from .._format import format_number
from .._limits import LIMITS, Limits
from .._runtime import returns_numpy
from ._problem import float_tensor
from ._result import index_labels, output_name
from .._state import callable_key
from .._runtime import lowest_float, trace

__all__ = ["LOOP_ROWS", "MIXING_TOLERANCE", "PER_SAMPLE_METHODS", "PROJECTION_SEED", "Mixing", "find_mixing", "joined",
           "joined_outputs", "mixing_text", "output_labels", "output_names", "per_sample_gradients", "PerSampleResult",
           "several_inputs", "several_outputs"]

#: ``pfor``: batch_jacobian vectorized; ``while_loop``: batch_jacobian without pfor; ``loop``: the reference,
#: one eager tape per sample (``_loop``); ``auto``: ``pfor``, falling back to ``while_loop`` if pfor fails.
PER_SAMPLE_METHODS = ("auto", "pfor", "while_loop", "loop")
#: the projection check's tolerance, relative to the scale of the per-sample terms it sums (float32 rounding
#: in sums over a few hundred terms stays below 1e-5; a BatchNormalization over 1,000 samples mixes at 1e-3)
MIXING_TOLERANCE = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-4, "float64": 1e-10}
#: the random cotangent ``u`` of the check (fixed: the same function and batch always get the same verdict)
PROJECTION_SEED = (20, 26)
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
        check_independence: check every sample (one extra backward pass over the batch) and refuse a function
            whose samples are not independent.
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
    inputs = several_inputs(fn, x, "per_sample_gradients")
    if inputs:
        fn, x = joined(fn, inputs, isinstance(x, dict))
    xt = _check_batch(x, limits)
    if method == "loop" and xt.shape[0] > limits.max_eager_passes:
        raise ExpressionError(f"method 'loop' runs one eager GradientTape per sample: {xt.shape[0]:,} here, and at "
                              f"most {limits.max_eager_passes:,} are allowed. Use method='auto', which vectorizes them")
    with _runtime.work_slot():
        start = time.perf_counter()
        out_shape, outputs = _output_shape(fn, xt)
        _check_size(xt, out_shape, limits)
        y, jac, projection, used, compiled, precision = _compute(fn, xt, method)
        unchecked = ""
        if check_independence and xt.shape[0] >= 2:
            unchecked = _check_independent(jac, projection, precision)
        seconds = time.perf_counter() - start
    warnings = _warnings(xt, y, method, used) + ((unchecked,) if unchecked else ())
    return PerSampleResult(y=y, jacobian=jac, method=used, compiled=compiled, seconds=seconds, warnings=warnings,
                           inputs=tuple((name, tuple(t.shape[1:])) for name, t in inputs),
                           outputs=_named(outputs, names),
                           output_name=_single_name(names, [name for name, _ in inputs]))


# ---------------------------------------------------------------- checks


def _check_method(method: Any) -> None:
    if method not in PER_SAMPLE_METHODS:
        raise ExpressionError(f"per_sample_gradients got method={method!r}; choose one of {', '.join(PER_SAMPLE_METHODS)}")


def several_inputs(fn: Callable, x: Any, api: str) -> list[tuple[str, tf.Tensor]]:
    """A Keras model's several inputs given as ``model.fit`` takes them, as ``[(name, batch)]`` (in a list for a
    list, named by the model's inputs; in the dict's order for a dict); ``[]`` for one input.

    A dict is always several inputs; a list only when ``fn`` is a model with that many inputs (for any other
    callable a list is one batch, a list of per-sample rows).
    """
    inputs = getattr(fn, "inputs", None) if hasattr(fn, "trainable_variables") else None
    try:
        names = [str(getattr(t, "name", f"x{k}")).split(":")[0] for k, t in enumerate(inputs)] if inputs else []
    except TypeError:
        names = []
    if isinstance(x, dict):
        items = [(str(k), v) for k, v in x.items()]
    elif len(names) > 1 and isinstance(x, (list, tuple)) and len(x) == len(names):
        items = list(zip(names, x))
    else:
        return []
    parts = [(name, float_tensor(v, api, f"x[{name!r}]")) for name, v in items]
    for name, t in parts:
        if t.shape.rank is None or t.shape.rank < 2 or t.shape[0] != parts[0][1].shape[0]:
            raise InputError(f"{api} needs every input as a batch of shape (B, features...) with "
                             f"the same B; x[{name!r}] has shape {tuple(t.shape)} and x[{parts[0][0]!r}] "
                             f"{tuple(parts[0][1].shape)}")
    if len({t.dtype for _, t in parts}) > 1:
        raise InputError(f"{api} needs the inputs in one dtype to lay their derivatives side by side; got "
                         + ", ".join(f"x[{name!r}] {t.dtype.name}" for name, t in parts) + ". Cast them to one")
    return parts


#: (fn, how x was given, the inputs' names and shapes) -> fn of the joined batch, kept so its cache key holds
_JOINED = LRUCache(maxsize=32)


def joined(fn: Callable, parts: list[tuple[str, tf.Tensor]], as_dict: bool) -> tuple[Callable, tf.Tensor]:
    """``(g, x)``: the inputs joined along their flattened features into one batch ``x``, and ``g(x)`` = ``fn``
    of the inputs split back, as the dict or list they came in (so the Jacobian is over one tensor)."""
    names = tuple(name for name, _ in parts)
    shapes = tuple(tuple(t.shape[1:]) for _, t in parts)
    sizes = [math.prod(shape) for shape in shapes]

    def create():
        def of_joined(x):
            pieces = [tf.reshape(p, (-1,) + shape) for p, shape in zip(tf.split(x, sizes, axis=1), shapes)]
            return fn(dict(zip(names, pieces)) if as_dict else pieces)
        return of_joined

    try:
        g = _JOINED.get_or_create((fn, as_dict, names, shapes), create)
    except TypeError:   # fn is not hashable: a new one, not cached
        g = create()
    x = tf.concat([tf.reshape(t, (t.shape[0], -1)) for _, t in parts], axis=1)
    return g, x


def several_outputs(y: Any, batch: int | None, api: str) -> list[tuple[Any, tf.Tensor]]:
    """A function's several outputs (a list or tuple, or a dict, as a Keras model of several outputs returns them)
    as ``[(index or key, tensor)]`` in that order; ``[]`` for one output.

    Each must keep the batch axis first with ``batch`` rows (``batch`` being the size of the batch fn was called
    on, ``None`` inside a trace of any batch size, where a row count fixed in the graph cannot follow the batch):
    joined as they were, an output ``(out, B)`` or reduced over the batch would be taken for other samples.
    """
    if isinstance(y, dict):
        items = list(y.items())
    elif isinstance(y, (list, tuple)):
        items = list(enumerate(y))
    else:
        return []
    if not items:
        raise GradlibError(f"fn returned {type(y).__name__}() with no outputs; {api} needs at least one, each of shape "
                           "(B, outputs...)")
    parts = []
    for key, value in items:
        try:
            parts.append((key, tf.convert_to_tensor(value)))
        except (TypeError, ValueError) as exc:
            raise GradlibError(f"fn's output y[{key!r}] is not a tensor ({type(value).__name__}: {error_gist(exc)}); "
                               f"{api} needs every output as a tensor of shape (B, outputs...)") from exc
    for key, t in parts:
        _check_output_rows(key, t, batch, api)
    return parts


def _check_output_rows(key: Any, t: tf.Tensor, batch: int | None, api: str) -> None:
    rows = t.shape[0] if t.shape.rank else None
    if t.shape.rank == 0 or (rows is not None and rows != batch):
        held = "a batch of any size B" if batch is None else f"a batch of {batch:,} sample{'s' * (batch != 1)}"
        want = "B rows" if batch is None else f"{batch:,} row{'s' * (batch != 1)}"
        raise GradlibError(
            f"fn's output y[{key!r}] has shape {tuple(t.shape)} on {held}: every output must keep the batch axis "
            f"first, one row per sample ({want}, like the batch). {api} joins each sample's outputs; return "
            "each output as (B, outputs...): not transposed, not reduced over the batch")
    if not t.dtype.is_floating:
        raise GradlibError(f"fn must return floating-point values; its output y[{key!r}] is {t.dtype.name}")


def joined_outputs(y: Any, batch: int | None, api: str) -> tf.Tensor:
    """``y`` as one tensor: itself for one output; several outputs (``several_outputs``) each flattened per sample
    and joined in order along one axis, ``(B, their elements)``, in the most precise of their dtypes."""
    parts = several_outputs(y, batch, api)
    return _join(parts) if parts else tf.convert_to_tensor(y)


def _join(parts: list[tuple[Any, tf.Tensor]]) -> tf.Tensor:
    dtype = max((t.dtype for _, t in parts), key=lambda d: d.size)
    return tf.concat([tf.reshape(tf.cast(t, dtype), (tf.shape(t)[0], -1)) for _, t in parts], axis=1)


def output_names(fn: Callable) -> tuple[str, ...]:
    """A Keras model's output names (to name the several outputs it returns as a list); ``()`` for a callable."""
    names = getattr(fn, "output_names", None) if hasattr(fn, "trainable_variables") else None
    return tuple(names) if isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names) else ()


def output_labels(fn: Callable, x: tf.Tensor, shape: tuple[int, ...], model: Callable | None = None,
                  inputs: Iterable[str] = ()) -> tuple[str, ...]:
    """A sample's output elements labelled as ``PerSampleResult.row_labels`` labels them, for the second-order APIs.

    ``fn`` is called on ``x`` (a batch; the call is remembered per function and sample shape), ``shape`` is a single
    output's per-sample shape as the caller reports it, and ``model`` the user's model whose output names name the
    outputs (``fn`` itself by default; a different one when ``fn`` joins its several inputs); ``inputs`` are the
    inputs' names, which a single output's label never takes (``output_name``).
    """
    names = output_names(fn if model is None else model)
    _, outputs = _output_shape(fn, x)
    if outputs:
        return tuple(label for name, part in _named(outputs, names) for label in index_labels(name, part))
    return index_labels(_single_name(names, inputs), shape)


def _single_name(names: tuple[str, ...], inputs: Iterable[str] = ()) -> str:
    """A model's one output by its name (``model.output_names``), anything else ``y``; never an input's name
    (``output_name``: a row's label is never a column's)."""
    inputs = tuple(inputs)
    return names[0] if len(names) == 1 and names[0] and names[0] not in inputs else output_name(inputs)


def _named(outputs: tuple[tuple[Any, tuple[int, ...]], ...], names: tuple[str, ...]) -> tuple:
    """Several outputs' keys as names: a dict's keys; a list's indices by the model's output names, else ``y0``..."""
    named = len(names) == len(outputs) and len(set(names)) == len(names)
    return tuple(((names[key] if named else f"y{key}") if isinstance(key, int) else str(key), shape)
                 for key, shape in outputs)


def _check_batch(x: Any, limits: Limits) -> tf.Tensor:
    tensor = float_tensor(x, "per_sample_gradients", "x")
    if tensor.shape.rank is None or tensor.shape.rank < 2:
        raise InputError(
            f"per_sample_gradients needs a batch of shape (B, features...), but x has shape {tuple(tensor.shape)}. "
            "For a single sample, add a batch axis: x[None, :]")
    if tensor.shape.num_elements() == 0:
        raise InputError(f"per_sample_gradients got an empty batch: x has shape {tuple(tensor.shape)}")
    if tensor.shape.num_elements() > limits.max_elements:
        raise InputError(f"x has {tensor.shape.num_elements():,} elements; at most {limits.max_elements:,} are allowed")
    return tensor


def _call(fn: Callable, x: tf.Tensor) -> Any:
    """``fn(x)`` with any failure turned into a GradlibError that says which shape it was given."""
    try:
        y = fn(x)
        return y if isinstance(y, (list, tuple, dict)) else tf.convert_to_tensor(y)
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed: say so, with its message
        raise GradlibError(f"fn failed on a batch of shape {tuple(x.shape)}: {type(exc).__name__}: "
                           f"{error_gist(exc)}") from exc


#: (fn, a sample's shape and dtype, fn's fingerprint) -> its output's per-sample shape: warm calls skip the eager
#: call that sizes the output (on the Models page's MLP it cost about 6 of a warm call's 7 ms)
_OUTPUT_SHAPES = LRUCache(maxsize=128)


def _output_shape(fn: Callable, x: tf.Tensor) -> tuple[tuple[int, ...], tuple]:
    """``_check_output``, remembered for ``fn`` and ``x``'s per-sample shape (checked once per function)."""
    key = _key(fn, "output", tf.TensorSpec((None,) + tuple(x.shape[1:]), x.dtype))
    return _check_output(fn, x) if key is None else _OUTPUT_SHAPES.get_or_create(key, lambda: _check_output(fn, x))


def _check_output(fn: Callable, x: tf.Tensor) -> tuple[tuple[int, ...], tuple]:
    """Call ``fn`` once on the first sample (eagerly): the output must keep the batch axis. Returns a sample's
    output shape (several outputs joined) and, for several outputs, ``((index or key, per-sample shape), ...)``."""
    raw = _call(fn, x[:1])
    parts = several_outputs(raw, 1, "per_sample_gradients")
    y = _join(parts) if parts else raw
    if y.shape.rank == 0 or y.shape[0] != 1:
        raise GradlibError(
            f"fn must return one row per sample, but on a batch of shape {tuple(x[:1].shape)} it returned shape "
            f"{tuple(y.shape)}. per_sample_gradients needs y of shape (B, outputs...); for a function of the whole "
            "batch use per_element_gradients")
    if not y.dtype.is_floating:
        raise GradlibError(f"fn must return floating-point values; it returned {y.dtype.name}")
    return tuple(y.shape[1:]), tuple((key, tuple(t.shape[1:])) for key, t in parts)


def _check_size(x: tf.Tensor, out_shape: tuple[int, ...], limits: Limits) -> None:
    entries = math.prod(x.shape) * math.prod(out_shape)
    if entries > limits.max_jacobian:
        raise ExpressionError(
            f"the per-sample Jacobians would have {entries:,} entries (batch {x.shape[0]} x {math.prod(out_shape)} "
            f"outputs x {math.prod(x.shape[1:])} inputs); at most {limits.max_jacobian:,} are allowed. "
            "Use a smaller batch or fewer features")


@dataclass(frozen=True)
class Mixing:
    """Where a batch's samples are seen to mix: the ``sample`` whose input changes another's output most, by how
    much (``gap``) at the scale of the per-sample terms (``scale``)."""

    sample: int
    gap: float
    scale: float


def find_mixing(jac: np.ndarray, u: np.ndarray, g: np.ndarray, dtype: str) -> tuple[Mixing | None, bool]:
    """``u^T dy/dx`` over the batch (``g``) against ``sum_k u[c, k] J[c, k, :]`` per sample ``c`` (``jac`` from
    batch_jacobian): the mixing found beyond ``MIXING_TOLERANCE`` (or ``None``), and whether every entry was
    finite. Where the function mixes samples, batch_jacobian silently sums other samples' outputs into each block
    and ``g`` differs from the blocks' prediction. Only finite entries count as evidence (an all-inf batch does
    not mix). The sums run in float64 whatever the batch's dtype (NumPy's einsum has no bfloat16)."""
    jac, u, g = (np.asarray(a, np.float64) for a in (jac, u, g))
    b = u.shape[0]
    blocks, weights = jac.reshape(b, u[0].size, -1), u.reshape(b, -1)
    with np.errstate(all="ignore"):
        predicted = np.einsum("bk,bkd->bd", weights, blocks)
        scale = np.einsum("bk,bkd->bd", np.abs(weights), np.abs(blocks))
        gap = np.abs(g.reshape(b, -1) - predicted)
    finite = np.isfinite(gap) & np.isfinite(scale)
    if not finite.any():
        return None, False
    top = max(float(scale[finite].max()), 1e-30)
    excess = np.where(finite, gap, 0.0)
    if excess.max() <= MIXING_TOLERANCE.get(dtype, 1e-4) * top:
        return None, bool(finite.all())
    sample = int(np.unravel_index(np.argmax(excess), excess.shape)[0])
    return Mixing(sample, float(excess.max()), float(scale[finite].max())), bool(finite.all())


def mixing_text(m: Mixing) -> str:
    """The first part of a mixing refusal: which sample, by how much."""
    return (f"the samples of the batch are not independent: the input of sample {m.sample} changes the output of "
            f"another sample (a random projection of dy/dx differs from the per-sample Jacobians by "
            f"{format_number(m.gap, 3)}, at a scale of {format_number(m.scale, 3)})")


def _check_independent(jac: np.ndarray, projection: tuple[np.ndarray, np.ndarray], dtype: str) -> str:
    """Every sample at once (``find_mixing``), ``projection`` being ``(u, g)`` with ``g`` the whole batch's
    vector-Jacobian product; the warning to report is returned when some entries are not finite."""
    mixing, finite = find_mixing(jac, *projection, dtype)
    if mixing is not None:
        raise BatchMixingError(
            f"{mixing_text(mixing)}, so per-sample gradients do not exist. A layer mixes the batch, such as "
            "BatchNormalization in training mode: call the model with training=False, or use per_element_gradients "
            "on the whole batch")
    return "" if finite else ("the samples' independence could only be checked where the probe's Jacobian is "
                              "finite: it holds NaN or infinite values")


# ---------------------------------------------------------------- computing


def _compute(fn: Callable, x: tf.Tensor, method: str):
    """``(y, J, (u, g), method used, compiled, precision)``, with ``(u, g)`` the check's projection (see
    ``_check_independent``) and ``precision`` the least precise float dtype fn computes in (a float64 batch through a
    float32 model is checked at float32's tolerance, not refused as mixing at float64's)."""
    if method == "loop":
        y, jac = _loop(fn, x)
        return y, jac, _projection(fn, x), "loop", False, _eager_precision(fn, x)
    try:
        compiled, used, precision = _cached_compiled(fn, x, method)
        y, jac, u, g = (t.numpy() for t in compiled(x))
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - fn failed when traced or run as a graph: say so, like _call
        raise GradlibError(f"fn failed inside the compiled per-sample Jacobian on a batch of shape "
                           f"{tuple(x.shape)}: {type(exc).__name__}: {error_gist(exc)}") from exc
    return y, jac, (u, g), used, True, precision


def _eager_precision(fn: Callable, x: tf.Tensor) -> str:
    """The least precise float dtype of fn's trace on ``x``; ``x``'s own where fn cannot be traced.

    Remembered per function and batch shape (``_PRECISIONS``): ``method='loop'`` traced fn again on every call
    only to read this, a trace per call of a method meant to run fn eagerly.
    """
    spec = tf.TensorSpec(x.shape, x.dtype)

    def create() -> str:
        try:
            return lowest_float(trace(fn, [spec]).graph, x.dtype.name)
        except Exception:   # noqa: BLE001 - not traceable: the batch's dtype is all there is to go by
            return x.dtype.name

    key = _key(fn, "precision", spec)
    return create() if key is None else _PRECISIONS.get_or_create(key, create)


#: (fn, batch shape and dtype, fn's fingerprint) -> the least precise float dtype its trace computes in
_PRECISIONS = LRUCache(maxsize=128)


def _cached_compiled(fn: Callable, x: tf.Tensor, method: str) -> tuple[Any, str, str]:
    """The cached compiled function for ``fn`` and ``x``'s shape, the method it runs (``auto`` remembers its
    fallback) and the least precise float dtype it computes in."""
    spec = tf.TensorSpec((None,) + tuple(x.shape[1:]), x.dtype)
    key = _key(fn, method, spec)

    def create():
        compiled, used = _trace(fn, spec, method)
        return compiled, used, lowest_float(compiled.graph, spec.dtype.name)

    return _SAMPLE_FUNCTIONS.get_or_create(key, create) if key is not None else create()


def _key(fn: Callable, method: str, spec: tf.TensorSpec) -> Hashable | None:
    return callable_key(fn, method, tuple(spec.shape), spec.dtype.name)


def _trace(fn: Callable, spec: tf.TensorSpec, method: str):
    """Trace once with pfor; if pfor cannot vectorize an op, ``auto`` falls back to a while_loop.

    ``auto`` skips pfor for functions that run a loop themselves (recurrent layers): vectorizing a
    while_loop's body is slow to trace and no faster to run (a GRU over 12 steps, batch 32: 31 s to
    trace with pfor, 2.6 s with a while_loop; then 0.28 s vs 0.23 s per call).
    """
    if method == "auto" and _has_loop(fn, spec):
        return _concrete(fn, spec, use_pfor=False), "while_loop"
    if method in ("auto", "pfor"):
        try:
            return _concrete(fn, spec, use_pfor=True), "pfor"
        except GradlibError:   # fn's own refusal (an output that does not keep the batch): not pfor's failure
            raise
        except (ValueError, NotImplementedError, tf.errors.OpError) as exc:
            if method == "pfor":
                raise GradlibError(f"pfor could not vectorize this function ({error_gist(exc)}); "
                                   "use method='while_loop' or method='auto'") from exc
    return _concrete(fn, spec, use_pfor=False), "while_loop"


def _has_loop(fn: Callable, spec: tf.TensorSpec) -> bool:
    """Whether ``fn``'s graph (or a function it calls) contains a while_loop."""
    graph = trace(fn, [spec]).graph.as_graph_def()
    nodes = list(graph.node) + [node for function in graph.library.function for node in function.node_def]
    return any(node.op in ("While", "StatelessWhile") for node in nodes)


def _concrete(fn: Callable, spec: tf.TensorSpec, *, use_pfor: bool):
    return trace(lambda x: _batch_jacobian(fn, x, use_pfor), [spec])


def _batch_jacobian(fn: Callable, x: tf.Tensor, use_pfor: bool):
    """``(y, J, u, g)``: the per-sample Jacobians, and the check's random cotangent ``u`` with ``g = u^T dy/dx``."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = joined_outputs(fn(x), x.shape[0], "per_sample_gradients")
        flat = tf.reshape(y, [tf.shape(y)[0], -1])   # inside the tape (the seed's lesson); (B, n) for batch_jacobian
        # in x's dtype: without pfor, batch_jacobian writes x's gradients into a TensorArray of y's dtype, and a
        # float32 model on a float64 batch failed ("op elements double but list elements float")
        flat = tf.cast(flat, x.dtype) if flat.dtype != x.dtype and flat.dtype.is_floating else flat
    jac = tape.batch_jacobian(flat, x, unconnected_gradients=tf.UnconnectedGradients.ZERO,
                              experimental_use_pfor=use_pfor)
    u, g = _vjp(tape, y, x)
    return y, tf.reshape(jac, tf.concat([tf.shape(y), tf.shape(x)[1:]], axis=0)), u, g


def _vjp(tape: tf.GradientTape, y: tf.Tensor, x: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    u = tf.random.stateless_normal(tf.shape(y), seed=PROJECTION_SEED, dtype=y.dtype)
    return u, tape.gradient(y, x, output_gradients=u, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def _projection(fn: Callable, x: tf.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The check's ``(u, g)`` computed eagerly (for the ``loop`` method)."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = joined_outputs(fn(x), x.shape[0], "per_sample_gradients")
    u, g = _vjp(tape, y, x)
    return u.numpy(), g.numpy()


#: a sample's output elements up to which ``loop`` takes one eager ``tape.gradient`` per element: in eager mode
#: ``tape.jacobian`` traces a new pfor function on every call, about 130 ms a sample against 1.4 ms a gradient
#: (a Dense model of 40 outputs on this 2-core machine); past it, ``tape.jacobian`` is the cheaper
LOOP_ROWS = 64


def _loop(fn: Callable, x: tf.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The reference: one eager tape per sample, and each of its output elements' gradient (``tape.jacobian``
    for more than ``LOOP_ROWS`` of them)."""
    ys, jacs = [], []
    for b in range(int(x.shape[0])):
        xb = x[b:b + 1]
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xb)
            yb = joined_outputs(fn(xb), 1, "per_sample_gradients")
            n = yb.shape.num_elements()
            rows = tf.unstack(tf.reshape(yb, [-1])) if 0 < n <= LOOP_ROWS else None   # inside the tape
        zero = tf.UnconnectedGradients.ZERO
        if rows is None:
            jb = tape.jacobian(yb, xb, unconnected_gradients=zero)
        else:
            jb = tf.stack([tf.convert_to_tensor(tape.gradient(row, xb, unconnected_gradients=zero)) for row in rows])
        del tape
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
