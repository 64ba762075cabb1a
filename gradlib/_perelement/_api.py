"""The public entry points: ``evaluate`` (function text) and ``per_element_gradients`` (a callable).

A thin face: each checks its options, builds the problem (``gradlib._perelement._problem``; ``evaluate`` reuses a checked
request, ``gradlib._perelement._request``) and hands it to the engine
(``gradlib._perelement._engine.run_method``) inside one of the process's work slots (``gradlib._foundations._runtime``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

from .._foundations import _runtime
from . import _warm
from ._engine import run_method
from .._foundations._errors import ExpressionError
from .._language._inputs import check_inputs
from .._language._syntax import parse
from .._foundations._limits import LIMITS, Limits
from .._foundations._runtime import returns_numpy
from ._methods import METHODS
from ._problem import Problem, callable_problem, check_size, expression_problem
from ._request import reused
from ._result import GradResult

__all__ = ["evaluate", "per_element_gradients", "prepare", "run"]


@returns_numpy("gradlib.evaluate")
def evaluate(
    outputs: str,
    inputs: Mapping[str, Any],
    *,
    watch: Sequence[str] | None = None,
    method: str = "auto",
    dtype: str | Mapping[str, str] = "float32",
    compiled: bool | None = None,
    limits: Limits = LIMITS,
) -> GradResult:
    """Per-element gradients of the function ``outputs`` (text) at ``inputs``.

    Args:
        outputs: one expression in gradlib's language, such as ``"[x0*x1*x2, x0*x1*x2*x0]"``.
        inputs: input name -> number, nested list or array.
        watch: the inputs to differentiate with respect to; ``None`` watches every input.
        method: one of ``METHODS``; ``"auto"`` picks the fastest correct one.
        dtype: ``"float32"`` or ``"float64"``, or a mapping name -> dtype (``"int32"`` reproduces the
            integer-watch pitfall: TensorFlow gives such inputs no gradient).
        compiled: run inside a cached ``tf.function``; ``None`` decides by the problem's size.
        limits: the bounds checked before anything is allocated, for the method that runs (``auto`` takes
            a method within them) and for the repair of NaN-poisoned rows.

    Returns:
        A ``GradResult``. ``evaluate("x*x", {"x": [1, 2]}).jacobian`` is ``[[2, 0], [0, 4]]``.

    Raises:
        ExpressionError: the text, an input, an option or a limit is not acceptable.
    """
    _check_method(method, "evaluate")
    # checked once per text, options and input values: a warm call neither parses, checks nor converts again
    problem = reused(outputs, inputs, watch, dtype, limits,
                     lambda: prepare("evaluate", outputs, inputs, [method], watch=watch, dtype=dtype, limits=limits)[2])
    return run(problem, method, compiled=compiled, limits=limits)


def prepare(api: str, outputs: str, inputs: Mapping[str, Any], methods: Sequence[str], *,
            watch: Sequence[str] | None, dtype: str | Mapping[str, str], limits: Limits):
    """The one preamble of ``evaluate`` and ``compare``: ``(program, inputs, problem)``, all checked.

    ``api`` names the caller in error messages. Methods, inputs, the text and the sizes are checked here,
    before anything is allocated; a bad method is an ``ExpressionError`` (an option) in both APIs.
    """
    if isinstance(methods, str) or not methods:
        raise ExpressionError(f"{api} needs a non-empty list of method names from {', '.join(METHODS)}; "
                              f"got {methods!r}")
    for method in methods:
        _check_method(method, api)
    checked = check_inputs(inputs, watch=watch, dtype=dtype, limits=limits)
    program = parse(outputs, {i.name: i.shape for i in checked}, limits=limits)
    problem = expression_problem(program, checked)
    check_size(math.prod(program.shape), problem, limits)
    return program, checked, problem


@returns_numpy("gradlib.per_element_gradients")
def per_element_gradients(fn: Callable, xs: Any, *, method: str = "auto", compiled: bool | None = None,
                          check: bool = True, limits: Limits = LIMITS) -> GradResult:
    """Per-element gradients of ``fn(xs)`` with respect to ``xs``: the Jacobian, row by row.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``.

    Args:
        fn: a callable (a Python function, a Keras model) taking ``xs`` as given and returning a tensor.
        xs: a tensor, a list of tensors (like the seed's ``x = [tf.constant(3.0), ...]``), or a dict of them by
            name; ``fn`` gets it in the same form, and the Jacobian's columns follow its order.
        method: one of ``METHODS``.
        compiled: run inside a cached ``tf.function`` (keyed on ``fn``); ``None`` decides by size.
        check: check the answer of a correct method against ``fn`` itself along one random direction (three
            more calls of ``fn``; while it costs at most 10% of the call): a part of ``fn`` the tape cannot see
            (NumPy, ``.numpy()``, ``tf.numpy_function``) or a random ``fn`` is then named in ``warnings``.

    Example:
        >>> import tensorflow as tf
        >>> x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
        >>> r = per_element_gradients(lambda x: tf.stack([x[0]*x[1]*x[2], x[0]*x[1]*x[2]*x[0]]), x)
        >>> r.jacobian.tolist()
        [[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]

    Raises:
        GradlibError: an input is not floating point, or ``fn`` does not return a tensor.
    """
    _check_method(method, "per_element_gradients")
    if not isinstance(check, bool):
        raise ExpressionError(f"per_element_gradients got check={check!r}; pass True or False")
    warm = _warm.recall(fn, xs, method, compiled, check, limits)   # a request answered before: its graph only
    if warm is not None:
        return warm
    return run(callable_problem(fn, xs, check=check, limits=limits), method, compiled=compiled, limits=limits)


def run(problem: Problem, method: str, *, compiled: bool | None = None, limits: Limits = LIMITS) -> GradResult:
    """Run ``method`` on ``problem`` and package the result (``auto``: choose, then repair poisoned rows)."""
    with _runtime.work_slot():
        return run_method(problem, method, compiled, limits)


def _check_method(method: Any, api: str) -> None:
    if method not in METHODS:
        raise ExpressionError(f"{api} got method={method!r}; choose one of {', '.join(METHODS)}")
