"""``hessians`` and ``hvp``: second derivatives of each element of ``y = fn(xs)``, the seed's question an order up.

``xs`` is given as ``per_element_gradients`` takes it (a tensor, a list of tensors, a dict of them by name);
its elements, flattened in order, are the Hessian's rows and columns, as they are the Jacobian's columns.
The work is the batched engine's (gradlib._second._runner) on a batch of one: ``g(v)`` unflattens ``v`` into
``xs``' form, calls ``fn`` and flattens its answer.

>>> import tensorflow as tf
>>> x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
>>> r = hessians(lambda x: tf.stack([x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]]), x)
>>> r.hessian.tolist()
[[[0.0, 5.0, 4.0], [5.0, 0.0, 3.0], [4.0, 3.0, 0.0]], [[40.0, 30.0, 24.0], [30.0, 0.0, 9.0], [24.0, 9.0, 0.0]]]
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Hashable

import numpy as np
import tensorflow as tf

from .._foundations import _runtime
from .._foundations._cache import LRUCache
from .._callable._forms import check_callable, given_form, xs_form
from .._callable._updates import refuse_updating
from .._callable._outputs import output_names, whole_failure, whole_labels, whole_output
from .._foundations._errors import ExpressionError, GradlibError, InputError, error_gist
from .._foundations._limits import LIMITS, Limits
from .._callable._trace import defined_gradient, trace, while_loops
from .._callable._state import callable_key
from .._foundations._runtime import returns_numpy
from . import _orders
from ._answers import HessianResult, HvpResult, labels
from ._curvature import activations, nonfinite_warnings, piecewise_warning
from ._poisoning import Poisoning, cell_label, poisoned_mask, poisoning_warnings, repair
from .._callable._random import is_random
from ._runner import (RANDOM_REPAIR, Request, custom_gradient_refusal, refuse_first_order_cut, run,
                      trace_failure)

__all__ = ["HVP_METHODS", "hessians", "hvp"]

#: ``forward_over_reverse``: a ForwardAccumulator over a tape (one pass); ``reverse_over_reverse``: the gradient
#: of ``J v`` (nested tapes), the reference
HVP_METHODS = ("auto", "forward_over_reverse", "reverse_over_reverse")
_HVP = LRUCache(maxsize=16)


@returns_numpy("gradlib.hessians")
def hessians(fn: Callable, xs: Any, *, method: str = "auto", limits: Limits = LIMITS) -> HessianResult:
    """The Hessian of every element of ``fn(xs)`` with respect to ``xs``: shape ``(y.size, n, n)``.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``.

    Args:
        fn: a callable taking ``xs`` as given (a Python function, a Keras model) and returning a tensor or a
            list of tensors (stacked).
        xs: a tensor, a list of tensors (the seed's ``[tf.constant(3.0), ...]``) or a dict of them by name; floating
            point, one dtype.
        method: one of ``SECOND_METHODS`` (not ``forward_laplacian``, ``hutchinson``: they give traces only).
        limits: ``max_hessian`` bounds ``y.size * n * n``; the method's estimate must fit ``max_bytes``.

    Returns:
        A ``HessianResult``: ``hessian[k, i, j]`` is d^2 y_k / dx_i dx_j (``y`` and ``xs`` flattened).

    Example:
        >>> hessians(lambda x: x * x * x, tf.constant([1.0, 2.0])).hessian.tolist()
        [[[6.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 12.0]]]

    Raises:
        ExpressionError: a bad method, or a request over the limits (the message gives both numbers).
        InputError: ``xs`` is not floating point or not of one dtype.
        GradlibError: ``fn`` fails or returns something that is not a floating-point tensor.
    """
    _orders.check_method("hessians", method, "hessian")
    form, names, tensors = _structure("hessians", fn, xs, limits)
    g, v = _flat("hessians", fn, form, names, tensors)
    y_shape, parts = _y_shape("hessians", fn, form, names, tensors)
    if 0 in y_shape:   # it failed inside the traced method with "IndexError: list index out of range"
        raise GradlibError(f"hessians: fn returned an empty tensor (shape {y_shape}): there is no element to "
                           "differentiate. Return at least one element")
    with _runtime.work_slot():
        start = time.perf_counter()
        out = run(Request("hessians", g, v, "hessian", method, _key(fn, form, names, tensors), model=_model(fn),
                          tileable=False, check_independence=False), limits)
        seconds = time.perf_counter() - start
    n = v.shape[1]
    hessian = out.value[0]
    warnings = out.notes + nonfinite_warnings(v.numpy(), out.y)
    warning = piecewise_warning(hessian, activations(fn), "the Hessian")
    rows, cols = whole_labels(y_shape, parts, output_names(fn), names), _col_labels(names, tensors)
    warnings += poisoning_warnings(out.poisoning, "the Hessians", out.method, cell_label("hessian", rows, cols, False),
                                   method == "auto")
    warnings += poisoning_warnings(out.jacobian_poisoning, "the first derivatives (.jacobian)", out.method,
                                   cell_label("jacobian", rows, cols, False), method == "auto")
    return HessianResult(y=out.y[0].reshape(y_shape), jacobian=out.jacobian[0], hessian=hessian.reshape(-1, n, n),
                         method=out.method, row_labels=rows, col_labels=cols,
                         warnings=warnings + ((warning,) if warning else ()), seconds=seconds, cost=out.cost,
                         poisoned_cells=out.poisoning.cells[:, 1:].reshape(-1, 3),
                         repaired_cells=out.poisoning.repaired[:, 1:].reshape(-1, 3))


@returns_numpy("gradlib.hvp")
def hvp(fn: Callable, xs: Any, vs: Any, *, method: str = "auto", limits: Limits = LIMITS) -> HvpResult:
    """Hessian-vector products: ``H_k v`` for every element ``k`` of ``fn(xs)``, without forming any Hessian.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``.

    Args:
        fn: as for ``hessians``.
        xs: as for ``hessians``.
        vs: the direction, in the same form and shapes as ``xs``.
        method: one of ``HVP_METHODS``; ``auto`` is ``forward_over_reverse``, or ``reverse_over_reverse`` where fn
            defines its own gradient (``tf.custom_gradient``), which forward mode does not follow, or runs a while
            loop (a Keras LSTM or GRU, ``tf.scan``), on which TensorFlow's forward mode over a tape fails.

    Returns:
        An ``HvpResult`` with ``hvp`` of shape ``(y.size, n)``.

    Example:
        >>> hvp(lambda x: tf.reduce_sum(x ** 3), tf.constant([1.0, 2.0]), tf.constant([1.0, 1.0])).hvp.tolist()
        [[6.0, 12.0]]
    """
    if method not in HVP_METHODS:
        raise ExpressionError(f"hvp got method={method!r}; choose one of {', '.join(HVP_METHODS)}")
    form, names, tensors = _structure("hvp", fn, xs, limits)
    vform, vnames, vtensors = _structure("hvp", fn, vs, limits, where="vs")
    if (vform, vnames, [tuple(t.shape) for t in vtensors]) != (form, names, [tuple(t.shape) for t in tensors]):
        raise InputError(f"hvp needs vs in the same form and shapes as xs: xs has "
                         f"{[tuple(t.shape) for t in tensors]}, vs has {[tuple(t.shape) for t in vtensors]}")
    g, v = _flat("hvp", fn, form, names, tensors)
    _, t = _flat("hvp", fn, form, names, [tf.cast(x, tensors[0].dtype) for x in vtensors])
    key = _key(fn, form, names, tensors)
    refuse_first_order_cut("hvp", g, v.shape, v.dtype, key)
    used, defined = _hvp_method(method, g, v, key)
    with _runtime.work_slot():
        start = time.perf_counter()
        y_shape, parts = _y_shape("hvp", fn, form, names, tensors)
        _check_hvp_size(max(math.prod(y_shape), 1), v.shape[1], limits)
        create = lambda: _hvp_function(g, v, used)  # noqa: E731
        try:
            compiled = create() if key is None else _HVP.get_or_create((key, used), create)
        except GradlibError:
            raise
        except Exception as exc:   # noqa: BLE001 - fn cannot be traced (it calls .numpy(), say): say so
            raise trace_failure(f"hvp traced its {used}", exc) from exc
        try:
            y, products = (a.numpy() for a in compiled(v, t))
        except Exception as exc:   # noqa: BLE001 - fn failed as a graph: say so
            raise GradlibError(f"fn failed inside hvp's {used}: {type(exc).__name__}: {error_gist(exc)}") from exc
        products, poisoning = _hvp_repaired(g, v, y, products, t, method, defined, limits)
        seconds = time.perf_counter() - start
    rows, cols = whole_labels(y_shape, parts, output_names(fn), names), _col_labels(names, tensors)
    warnings = nonfinite_warnings(v.numpy(), y) + _direction_warnings(t.numpy()) + poisoning_warnings(
        poisoning, "the Hessian-vector products", used, cell_label("hvp", rows, cols, False), method == "auto")
    return HvpResult(y=y[0].reshape(y_shape), hvp=products[0], method=used, row_labels=rows, col_labels=cols,
                     warnings=warnings, seconds=seconds, poisoned_cells=poisoning.cells[:, 1:].reshape(-1, 2),
                     repaired_cells=poisoning.repaired[:, 1:].reshape(-1, 2))


def _hvp_method(method: str, g: Callable, v: tf.Tensor, key: Any) -> tuple[str, str]:
    """The method that runs and where fn defines its own gradient (``""``: nowhere): ``auto`` is forward over
    reverse, or reverse over reverse where fn defines its own gradient, which forward mode would not follow (refused
    when forward over reverse is asked for by name), or where fn runs a while loop (``_loop``)."""
    used = "forward_over_reverse" if method == "auto" else method
    read = lambda: defined_gradient(g, [tf.TensorSpec(tuple(v.shape), v.dtype)])  # noqa: E731
    defined = ("" if used != "forward_over_reverse" else read() if key is None
               else _HVP.get_or_create((key, "defined"), read))
    if defined and used == "forward_over_reverse":
        if method != "auto":
            raise custom_gradient_refusal("hvp", used, defined, "method='reverse_over_reverse'")
        used = "reverse_over_reverse"
    if method == "auto" and used == "forward_over_reverse" and _loop(g, v, key):
        used = "reverse_over_reverse"
    return used, defined


def _loop(g: Callable, v: tf.Tensor, key: Any) -> tuple[str, ...]:
    """The while loops' ops in ``g`` (a Keras LSTM's): forward over reverse fails on one that keeps a TensorArray
    (``gradlib._callable._trace.while_loops``), so ``auto`` takes reverse over reverse there."""
    read = lambda: while_loops(g, [tf.TensorSpec(tuple(v.shape), v.dtype)])  # noqa: E731
    return read() if key is None else _HVP.get_or_create((key, "loop"), read)


def _check_hvp_size(m: int, n: int, limits: Limits) -> None:
    """Refuse ``m`` outputs' products over ``n`` inputs beyond the limits: the answer's entries and the passes."""
    if m * n > limits.max_hessian:
        raise ExpressionError(f"hvp would return {m:,} x {n:,} = {m * n:,} entries; at most "
                              f"{limits.max_hessian:,} are allowed. Reduce the output (for example with sum) to "
                              f"at most {limits.max_hessian // n:,} elements"
                              + (f", or use at most {limits.max_hessian // m:,} input elements"
                                 if limits.max_hessian // m else ""))
    if m > limits.max_unrolled:
        raise ExpressionError(f"hvp writes one pass per output element into its graph: {m:,} here, and at most "
                              f"{limits.max_unrolled:,} are allowed. Reduce the output (for example with sum) to "
                              f"at most {limits.max_unrolled:,} elements")


def _direction_warnings(t: np.ndarray) -> tuple[str, ...]:
    if np.isfinite(t).all():
        return ()
    return ("vs holds NaN or infinite values; the Hessian-vector products along it are not finite",)


def _hvp_repaired(g: Callable, v: tf.Tensor, y, products, t: tf.Tensor, method: str, defined: str, limits: Limits):
    """The NaN-poisoned cells of the products (gradlib._second._poisoning), recomputed in forward over forward
    mode under ``auto`` (not for an fn that defines its own gradient, which forward mode does not follow).

    A direction that is not finite poisons nothing: its products are NaN for that reason (0 x inf is NaN), and
    forward over forward along it is no repair (it turned H v's 0 x inf into 0, and blamed fn for a NaN of vs)."""
    mask = poisoned_mask(np.concatenate([v.numpy(), t.numpy()], axis=1), y, products, "hvp")
    if not mask.any() or method != "auto":
        return products, Poisoning(np.argwhere(mask))
    if defined:
        return products, Poisoning(np.argwhere(mask), why_not="fn defines its own gradient (tf.custom_gradient), "
                                   "which forward mode does not follow")
    if is_random(g, v, None):   # probed here only: a poisoned product is rare
        return products, Poisoning(np.argwhere(mask), why_not=RANDOM_REPAIR)
    return repair(g, v, products, mask, "hvp", False, limits, direction=t.numpy()[0])


def _hvp_function(g: Callable, v: tf.Tensor, method: str):
    spec = tf.TensorSpec(tuple(v.shape), v.dtype)
    zero = tf.UnconnectedGradients.ZERO

    def forward_over_reverse(x, t):
        with tf.autodiff.ForwardAccumulator(x, t) as acc:
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = g(x)
                rows = [y[:, k] for k in range(int(y.shape[1]))]
            grads = [tape.gradient(r, x, unconnected_gradients=zero) for r in rows]
        return y, tf.stack([acc.jvp(grad, unconnected_gradients=zero) for grad in grads], axis=1)

    def reverse_over_reverse(x, t):
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(x)
                y = g(x)
                rows = [y[:, k] for k in range(int(y.shape[1]))]
            grads = [inner.gradient(r, x, unconnected_gradients=zero) for r in rows]
            products = [tf.reduce_sum(grad * t, axis=-1) for grad in grads]
        return y, tf.stack([outer.gradient(p, x, unconnected_gradients=zero) for p in products], axis=1)

    body = forward_over_reverse if method == "forward_over_reverse" else reverse_over_reverse
    return trace(body, [spec, spec])


# ---------------------------------------------------------------- xs in the forms per_element_gradients takes


def _structure(api: str, fn: Callable, xs: Any, limits: Limits, where: str = "xs"):
    """``(form, names, tensors)`` of ``xs`` as ``per_element_gradients`` takes it (``gradlib._callable._forms``)."""
    check_callable(fn, api)
    form, names, tensors = xs_form(xs, api, limits, where)
    if where == "xs":
        refuse_updating(fn, given_form(form, names, tensors), api)
    return form, names, tensors


def _flat(api: str, fn: Callable, form: str, names: tuple[str, ...],
          tensors: list[tf.Tensor]) -> tuple[Callable, tf.Tensor]:
    """``(g, v)``: ``v`` the watched elements as one row ``(1, n)``, ``g(v)`` = ``fn`` of them, flattened ``(1, m)``."""
    shapes = [tuple(t.shape) for t in tensors]
    sizes = [math.prod(s) for s in shapes]

    def g(v):
        pieces = [tf.reshape(p, s) for p, s in zip(tf.split(v[0], sizes), shapes)]
        return tf.reshape(whole_output(fn(given_form(form, names, pieces)), api, output_names(fn))[0], (1, -1))

    return g, tf.concat([tf.reshape(t, (1, -1)) for t in tensors], axis=1)


def _y_shape(api: str, fn: Callable, form: str, names: tuple[str, ...],
             tensors: list[tf.Tensor]) -> tuple[tuple, tuple]:
    """``(y's shape, its named parts)`` from one eager call (``gradlib._callable._outputs.whole_output``)."""
    try:
        y, parts = whole_output(fn(given_form(form, names, tensors)), api, output_names(fn))
        return tuple(y.shape), parts
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed: say so
        raise whole_failure(api, exc, tensors) from exc


def _col_labels(names: tuple[str, ...], tensors: list[tf.Tensor]) -> tuple[str, ...]:
    return tuple(label for name, t in zip(names, tensors) for label in labels(name, tuple(t.shape)))


def _key(fn: Callable, form: str, names: tuple[str, ...], tensors: list[tf.Tensor]) -> Hashable | None:
    """The callable's key (``gradlib._callable._state.callable_key``: fn, these parts and the values it reads)."""
    key = callable_key(fn, form, names, tuple((tuple(t.shape), t.dtype.name) for t in tensors))
    return None if key is None else ("hessians", *key)


def _model(fn: Callable) -> Any:
    return fn if hasattr(fn, "trainable_variables") and hasattr(fn, "layers") else None
