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

from .. import _runtime
from .._errors import ExpressionError, InputError
from .._limits import LIMITS, Limits
from .._state import fingerprint
from . import _orders
from ._answers import DivergenceResult, LaplacianResult, PerSampleHessians, labels
from ._curvature import activations, nonfinite_warnings, piecewise_warning
from ._runner import Outcome, Request, run, to_batch

__all__ = ["DEFAULT_PROBES", "divergence", "laplacian", "per_sample_hessians"]

#: Hutchinson's probes when ``probes`` is not given
DEFAULT_PROBES = 64


def per_sample_hessians(fn: Callable, x: Any, *, diagonal: bool = False, method: str = "auto",
                        check_independence: bool = True, limits: Limits = LIMITS) -> PerSampleHessians:
    """Each sample's Hessians (or their diagonals) of ``fn`` over the batch ``x``.

    Args:
        fn: a Keras model or any callable on a batch ``(B, inputs...)`` returning ``(B, outputs...)``.
        x: the batch: an array, a tensor or a nested list, floating point, with at least 2 dimensions.
        diagonal: only the diagonals ``(B, out, d)``, not the full ``(B, out, d, d)``.
        method: one of ``SECOND_METHODS`` that computes Hessians (``forward_laplacian`` for diagonals only).
        check_independence: check every sample (one more backward pass) and refuse a function that mixes them.
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
    xt = _check_batch("per_sample_hessians", x, limits)
    out, seconds = _run("per_sample_hessians", fn, xt, kind, method, check_independence, 0, limits)
    shape = _shape_of(fn, xt, out)
    full = out.value if kind == "hessian" else None
    diag = np.diagonal(out.value, axis1=-2, axis2=-1) if kind == "hessian" else out.value
    return PerSampleHessians(y=out.y.reshape((xt.shape[0],) + shape), jacobian=out.jacobian, hessians=full,
                             diagonal=np.ascontiguousarray(diag), method=out.method, row_labels=labels("y", shape),
                             col_labels=labels("x", tuple(xt.shape[1:])),
                             warnings=_warnings(fn, xt, out, "each sample's Hessian"), seconds=seconds, cost=out.cost)


def laplacian(fn: Callable, x: Any, *, method: str = "auto", probes: int | None = None,
              check_independence: bool = True, limits: Limits = LIMITS) -> LaplacianResult:
    """Each sample's Laplacian of each output: ``sum_i d^2 y[b, k] / dx[b, i]^2``, shape ``(B, out)``.

    Args:
        fn: a Keras model or any callable on a batch ``(B, inputs...)`` returning ``(B, outputs...)``.
        x: the batch (floating point, at least 2 dimensions).
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
    xt = _check_batch("laplacian", x, limits)
    out, seconds = _run("laplacian", fn, xt, "laplacian", method, check_independence, probes, limits)
    shape = _shape_of(fn, xt, out)
    return LaplacianResult(y=out.y.reshape((xt.shape[0],) + shape), laplacian=out.value, standard_error=out.error,
                           method=out.method, row_labels=labels("y", shape),
                           warnings=_warnings(fn, xt, out, "the Laplacian"), seconds=seconds, cost=out.cost,
                           probes=probes)


def divergence(fn: Callable, x: Any, *, method: str = "auto", probes: int | None = None,
               check_independence: bool = True, limits: Limits = LIMITS) -> DivergenceResult:
    """Each sample's divergence of the vector field ``fn`` (``(B, d) -> (B, d)``): ``sum_i dy[b, i] / dx[b, i]``.

    Methods: ``nested_tapes`` (one batch_jacobian, its trace), ``loop`` (one backward pass per input),
    ``forward_over_reverse`` (one forward pass per input, on copies of the batch), ``hutchinson`` (``v^T J v``
    over random probes, with its ``standard_error``).

    Example:
        >>> divergence(lambda x: x * x, [[1.0, 2.0], [3.0, 4.0]]).divergence.tolist()
        [6.0, 14.0]
    """
    _orders.check_method("divergence", method, "divergence")
    probes = _check_probes("divergence", method, probes)
    xt = _check_batch("divergence", x, limits)
    out, seconds = _run("divergence", fn, xt, "divergence", method, check_independence, probes, limits)
    return DivergenceResult(y=out.y.reshape(tuple(xt.shape)), divergence=out.value, standard_error=out.error,
                            method=out.method, warnings=out.notes + nonfinite_warnings(xt.numpy(), out.y),
                            seconds=seconds, cost=out.cost, probes=probes)


# ---------------------------------------------------------------- shared


def _check_batch(api: str, x: Any, limits: Limits) -> tf.Tensor:
    tensor = to_batch(x, api, "x", limits)
    if tensor.shape.rank < 2:
        raise InputError(f"{api} needs a batch of shape (B, features...), but x has shape {tuple(tensor.shape)}. "
                         "For a single sample, add a batch axis: x[None, :]; for one function of a few tensors, use "
                         "gradlib.hessians")
    return tensor


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
         limits: Limits) -> tuple[Outcome, float]:
    sample = tuple(int(n) for n in x.shape[1:])
    flat = tf.reshape(x, (int(x.shape[0]), -1))

    def g(v):
        y = fn(tf.reshape(v, (-1,) + sample)) if len(sample) > 1 else fn(v)
        y = tf.convert_to_tensor(y)
        return tf.reshape(y, (tf.shape(y)[0], -1)) if y.shape.rank != 2 else y

    model = fn if hasattr(fn, "trainable_variables") and len(sample) == 1 else None
    with _runtime.work_slot():
        start = time.perf_counter()
        out = run(Request(api, g, flat, kind, method, _key(fn, sample), model=model, probes=probes,
                          check_independence=check, precision=_precision(fn, x)), limits)
        return out, time.perf_counter() - start


def _precision(fn: Callable, x: tf.Tensor) -> str:
    """The lowest floating-point precision among ``x``, a Keras model's inputs and its variables."""
    names = {x.dtype.name}
    names |= {str(getattr(t, "dtype", "")) for t in getattr(fn, "inputs", None) or []} if hasattr(fn, "layers") else set()
    names |= {v.dtype if isinstance(v.dtype, str) else v.dtype.name for v in getattr(fn, "variables", [])}
    floats = [n for n in ("float16", "bfloat16", "float32", "float64") if n in names]
    return floats[0] if floats else x.dtype.name


def _shape_of(fn: Callable, x: tf.Tensor, out: Outcome) -> tuple[int, ...]:
    """A sample's output shape (flattened by the engine): ``fn``'s own, read from one sample."""
    size = out.y.shape[1]
    shape = getattr(fn, "output_shape", None)
    if isinstance(shape, tuple) and shape[1:] and all(isinstance(n, int) for n in shape[1:]) \
            and math.prod(shape[1:]) == size:
        return tuple(shape[1:])
    return (size,)


def _warnings(fn: Callable, x: tf.Tensor, out: Outcome, what: str) -> tuple[str, ...]:
    warning = piecewise_warning(out.value, activations(fn), what)
    return out.notes + nonfinite_warnings(x.numpy(), out.y) + ((warning,) if warning else ())


def _key(fn: Callable, sample: tuple[int, ...]) -> Hashable | None:
    try:
        hash(fn)
    except TypeError:
        return None
    # a value fn reads (a NumPy array, a number in a closure) is frozen into a trace: a changed one is a new key
    return ("per_sample", fn, sample, fingerprint(fn))
