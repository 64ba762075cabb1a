"""Per-sample second derivatives of a batched function (a Keras model): Hessians, Laplacians, divergences.

For a batch ``x`` of shape ``(B, inputs...)`` and ``y = fn(x)`` of shape ``(B, outputs...)``, sample ``b``'s
Hessians are ``d^2 y[b, k] / dx[b] dx[b]``; that only means something when the samples are independent, which
is checked on every call (gradlib._second._runner): a function that mixes the batch raises
``BatchMixingError`` instead of returning the second derivative of the batch's sum.

>>> r = laplacian(lambda x: tf.reduce_sum(x ** 3, axis=1, keepdims=True), [[1.0, 2.0], [3.0, 4.0]])
>>> r.laplacian.tolist()
[[18.0], [42.0]]
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Hashable

import numpy as np
import tensorflow as tf

from .._foundations import _runtime
from .._callable._forms import sample_batch
from .._callable._outputs import joined_outputs, output_labels, sample_output
from .._foundations._errors import ExpressionError
from .._foundations._limits import LIMITS, Limits
from .._callable._state import callable_key, plain_model
from .._foundations._runtime import returns_numpy
from . import _orders
from ._answers import DivergenceResult, LaplacianResult, PerSampleHessians, labels
from ._curvature import activations, nonfinite_warnings, piecewise_warning
from ._poisoning import cell_label, poisoning_warnings
from ._runner import Outcome, Request, run

__all__ = ["DEFAULT_PROBES", "divergence", "laplacian", "per_sample_hessians"]

#: Hutchinson's probes when ``probes`` is not given
DEFAULT_PROBES = 64


@returns_numpy("gradlib.per_sample_hessians", "gradlib.pde.derivatives or gradlib.pde.residual")
def per_sample_hessians(fn: Callable, x: Any, *, diagonal: bool = False, method: str = "auto",
                        check_independence: bool = True, limits: Limits = LIMITS) -> PerSampleHessians:
    """Each sample's Hessians (or their diagonals) of ``fn`` over the batch ``x``.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``;
    a training step uses ``gradlib.pde.derivatives`` or ``gradlib.pde.residual`` (tensors on the tape).

    Args:
        fn: a Keras model or any callable on a batch ``(B, inputs...)`` returning ``(B, outputs...)``, or several
            such outputs (a list or dict, as a Keras model of several outputs returns them): each sample's outputs
            are then every one's elements, flattened and joined in that order.
        x: the batch: an array, a tensor or a nested list, floating point, with at least 2 dimensions. For a Keras
            model of several inputs, a list of such batches (in the order of ``model.inputs``) or a dict by input
            name, as ``model.fit`` takes them (a dict for any callable, which then gets the dict): each sample's
            Hessian is over every input's elements, flattened and joined in that order (``col_labels`` names them).
        diagonal: only the diagonals ``(B, out, d)``, not the full ``(B, out, d, d)``.
        method: one of ``SECOND_METHODS`` that computes Hessians (``forward_laplacian`` for diagonals only).
        check_independence: check every sample (one more backward pass, and fn's derivatives up to the second on
            two moved batches: most of a small model's warm call) and refuse a function that mixes them.
        limits: ``max_hessian`` bounds the entries returned; the method's estimate must fit ``max_bytes``.

    Returns:
        A ``PerSampleHessians`` (``out`` and ``d``: a sample's output and input elements, flattened).

    Example:
        >>> per_sample_hessians(lambda x: x[:, :1] * x[:, 1:], [[1.0, 2.0]]).hessians.tolist()
        [[[[0.0, 1.0], [1.0, 0.0]]]]

    Raises:
        ExpressionError: a bad method, or a request over the limits (the message gives both numbers).
        InputError: ``x`` is not a non-empty floating-point batch.
        BatchMixingError: a sample's output depends on another sample's input.
        GradlibError: ``fn`` fails or does not keep the batch.
    """
    kind = "diagonal" if diagonal else "hessian"
    _orders.check_method("per_sample_hessians", method, kind)
    g, xt, inputs = _check_batch("per_sample_hessians", fn, x, limits)
    out, seconds = _run("per_sample_hessians", g, xt, kind, method, check_independence, 0, limits, fn)
    shape = _shape_of(fn, xt, out)
    full = out.value if kind == "hessian" else None
    diag = np.diagonal(out.value, axis1=-2, axis2=-1) if kind == "hessian" else out.value
    rows = output_labels(g, xt, shape, fn, [name for name, _ in inputs], "per_sample_hessians")
    cols = _col_labels(xt, inputs)
    poisoned = _poisoned(out, kind, rows, cols, "each sample's Hessian", method)
    return PerSampleHessians(y=out.y.reshape((xt.shape[0],) + shape), jacobian=out.jacobian, hessians=full,
                             diagonal=np.ascontiguousarray(diag), method=out.method, row_labels=rows, col_labels=cols,
                             warnings=_warnings(fn, xt, out, "each sample's Hessian") + poisoned, seconds=seconds,
                             cost=out.cost, poisoned_cells=out.poisoning.cells, repaired_cells=out.poisoning.repaired)


@returns_numpy("gradlib.laplacian", "gradlib.pde.derivatives or gradlib.pde.residual")
def laplacian(fn: Callable, x: Any, *, method: str = "auto", probes: int | None = None,
              check_independence: bool = True, limits: Limits = LIMITS) -> LaplacianResult:
    """Each sample's Laplacian of each output: ``sum_i d^2 y[b, k] / dx[b, i]^2``, shape ``(B, out)``.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``;
    a training step uses ``gradlib.pde.derivatives`` or ``gradlib.pde.residual`` (tensors on the tape).

    Args:
        fn: a Keras model or any callable on a batch ``(B, inputs...)`` returning ``(B, outputs...)``.
        x: the batch (floating point, at least 2 dimensions), or several inputs as for ``per_sample_hessians``:
            the Laplacian is then over every input's elements.
        method: one of ``SECOND_METHODS``; ``auto`` picks the exact method estimated fastest whose first call is
            estimated under 2 s (a Keras Sequential of Dense layers: the forward Laplacian); ``hutchinson`` is an
            opt-in estimate with its ``standard_error``.
        probes: Hutchinson's random +-1 probes (default ``DEFAULT_PROBES``); only with ``method='hutchinson'``.
        check_independence: as for ``per_sample_hessians``.
        limits: the method's estimate must fit ``max_bytes`` and ``max_unrolled``.

    Example:
        >>> laplacian(lambda x: x[:, :1] ** 2 + x[:, 1:] ** 3, [[1.0, 2.0]]).laplacian.tolist()
        [[14.0]]
    """
    _orders.check_method("laplacian", method, "laplacian")
    probes = _check_probes("laplacian", method, probes)
    g, xt, inputs = _check_batch("laplacian", fn, x, limits)
    out, seconds = _run("laplacian", g, xt, "laplacian", method, check_independence, probes, limits, fn)
    shape = _shape_of(fn, xt, out)
    rows = output_labels(g, xt, shape, fn, [name for name, _ in inputs], "laplacian")
    poisoned = _poisoned(out, "laplacian", rows, (), "the Laplacians", method)
    return LaplacianResult(y=out.y.reshape((xt.shape[0],) + shape), laplacian=out.value, standard_error=out.error,
                           method=out.method, row_labels=rows,
                           warnings=_warnings(fn, xt, out, "the Laplacian") + poisoned, seconds=seconds,
                           cost=out.cost, probes=probes, poisoned_cells=out.poisoning.cells,
                           repaired_cells=out.poisoning.repaired)


@returns_numpy("gradlib.divergence", "gradlib.pde.derivatives or gradlib.pde.residual")
def divergence(fn: Callable, x: Any, *, method: str = "auto", probes: int | None = None,
               check_independence: bool = True, limits: Limits = LIMITS) -> DivergenceResult:
    """Each sample's divergence of the vector field ``fn`` (``(B, d) -> (B, d)``): ``sum_i dy[b, i] / dx[b, i]``.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``;
    a training step uses ``gradlib.pde.derivatives`` or ``gradlib.pde.residual`` (tensors on the tape).

    Methods: ``nested_tapes`` (one batch_jacobian, its trace), ``loop`` (one backward pass per input),
    ``forward_over_reverse`` (one forward pass per input, on copies of the batch), ``hutchinson`` (``v^T J v``
    over random probes, with its ``standard_error``).

    Example:
        >>> divergence(lambda x: x * x, [[1.0, 2.0], [3.0, 4.0]]).divergence.tolist()
        [6.0, 14.0]
    """
    _orders.check_method("divergence", method, "divergence")
    probes = _check_probes("divergence", method, probes)
    g, xt, _ = _check_batch("divergence", fn, x, limits)
    out, seconds = _run("divergence", g, xt, "divergence", method, check_independence, probes, limits, fn)
    poisoned = _poisoned(out, "divergence", (), (), "the divergences", method)
    return DivergenceResult(y=out.y.reshape(tuple(xt.shape)), divergence=out.value, standard_error=out.error,
                            method=out.method, warnings=out.notes + nonfinite_warnings(xt.numpy(), out.y) + poisoned,
                            seconds=seconds, cost=out.cost, probes=probes, poisoned_cells=out.poisoning.cells,
                            repaired_cells=out.poisoning.repaired)


# ---------------------------------------------------------------- shared


def _check_batch(api: str, fn: Callable, x: Any, limits: Limits) -> tuple[Callable, tf.Tensor, tuple]:
    """``(g, batch, inputs)`` as every per-sample API takes them (``gradlib._callable._forms.sample_batch``), a Keras
    model's integer inputs refused (``check_callable``), and fn's output checked once on one sample."""
    g, tensor, inputs = sample_batch(fn, x, api, limits)
    sample_output(g, tensor, api)
    return g, tensor, inputs


def _col_labels(x: tf.Tensor, inputs: tuple) -> tuple[str, ...]:
    """A sample's input elements: ``x[0]``, ... or, for several inputs, each by its name (``a[0]``, ``b[1]``)."""
    if inputs:
        return tuple(label for name, shape in inputs for label in labels(name, shape))
    return labels("x", tuple(x.shape[1:]))


def _check_probes(api: str, method: str, probes: Any) -> int:
    if probes is None:
        return DEFAULT_PROBES if method == "hutchinson" else 0
    if method != "hutchinson":
        raise ExpressionError(f"{api} got probes={probes!r} with method={method!r}; probes are for "
                              "method='hutchinson' only")
    if isinstance(probes, bool) or not isinstance(probes, int) or not 2 <= probes <= 10_000:
        raise ExpressionError(f"{api} got probes={probes!r}; give a whole number from 2 to 10,000")
    return probes


def _run(api: str, fn: Callable, x: tf.Tensor, kind: str, method: str, check: bool, probes: int,
         limits: Limits, given: Callable) -> tuple[Outcome, float]:
    """Run the engine on ``fn`` (``given``, the user's function, or its inputs joined into one batch)."""
    sample = tuple(int(n) for n in x.shape[1:])
    flat = tf.reshape(x, (int(x.shape[0]), -1))

    def g(v):
        y = fn(tf.reshape(v, (-1,) + sample)) if len(sample) > 1 else fn(v)
        # several outputs (a Keras model's list or dict), each (B, ...): joined per sample, as per_sample_gradients
        # joins them (stacked, [(B, 1), (B, 1)] became (2, B, 1), the batch axis second: refused as batch mixing)
        y = joined_outputs(y, v.shape[0], api)
        return tf.reshape(y, (tf.shape(y)[0], -1)) if y.shape.rank != 2 else y

    model = fn if hasattr(fn, "trainable_variables") and len(sample) == 1 else None   # a joined fn: no model
    with _runtime.work_slot():
        start = time.perf_counter()
        out = run(Request(api, g, flat, kind, method, _key(fn, sample), model=model, probes=probes,
                          check_independence=check, precision=_precision(given, x)), limits)
        return out, time.perf_counter() - start


def _precision(fn: Callable, x: tf.Tensor) -> str:
    """The lowest floating-point precision among ``x``, a Keras model's inputs and its variables."""
    names = {x.dtype.name}
    names |= {str(getattr(t, "dtype", "")) for t in getattr(fn, "inputs", None) or []} if hasattr(fn, "layers") else set()
    names |= {v.dtype if isinstance(v.dtype, str) else v.dtype.name for v in getattr(fn, "variables", [])}
    floats = [n for n in ("float16", "bfloat16", "float32", "float64") if n in names]
    return floats[0] if floats else x.dtype.name


def _shape_of(fn: Callable, x: tf.Tensor, out: Outcome) -> tuple[int, ...]:
    """A sample's output shape (flattened by the engine) for a Keras model: its declared ``output_shape`` when
    that is its call's (``plain_model``), else the shape its call returns on one sample (a class of one's own may
    return another shape of the same size); flat for any other callable."""
    size = out.y.shape[1]
    shape = getattr(fn, "output_shape", None)
    if shape is not None and not plain_model(fn):
        y = fn(x[:1])
        shape = tuple(y.shape) if tf.is_tensor(y) else None
    if isinstance(shape, tuple) and shape[1:] and all(isinstance(n, int) for n in shape[1:]) \
            and math.prod(shape[1:]) == size:
        return tuple(shape[1:])
    return (size,)


def _warnings(fn: Callable, x: tf.Tensor, out: Outcome, what: str) -> tuple[str, ...]:
    warning = piecewise_warning(out.value, activations(fn), what)
    return out.notes + nonfinite_warnings(x.numpy(), out.y) + ((warning,) if warning else ())


def _poisoned(out: Outcome, kind: str, rows: tuple[str, ...], cols: tuple[str, ...], what: str,
              method: str) -> tuple[str, ...]:
    """The warnings of the result's NaN-poisoned cells (gradlib._second._poisoning), each named by its sample; for
    Hessians, of the first derivatives (``.jacobian``) too."""
    return poisoning_warnings(out.poisoning, what, out.method, cell_label(kind, rows, cols, True), method == "auto") + (
        poisoning_warnings(out.jacobian_poisoning, "the first derivatives (.jacobian)", out.method,
                           cell_label("jacobian", rows, cols, True), method == "auto") if cols else ())


def _key(fn: Callable, sample: tuple[int, ...]) -> Hashable | None:
    """The callable's key (``gradlib._callable._state.callable_key``: fn, its sample shape and the values it reads)."""
    key = callable_key(fn, sample)
    return None if key is None else ("per_sample", *key)
