"""``evaluate(..., order=2)``: the Hessian of each element of a typed function (gradlib's language), at its inputs.

The text is parsed and its inputs checked by the language room, exactly as for the first order; the function
is then handed to ``hessians`` as a callable of the watched inputs (a dict by name, so the Hessian's rows and
columns are labelled by them). Inputs that are not watched enter as constants. An integer input cannot be
watched here: TensorFlow's tape gives it no derivative, and a Hessian of zeros would be a wrong number.

>>> r = typed_hessians("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5})
>>> r.hessian.tolist()[0]
[[0.0, 5.0, 4.0], [5.0, 0.0, 3.0], [4.0, 3.0, 0.0]]
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Mapping, Sequence

import tensorflow as tf

from .._errors import ExpressionError
from .._language._inputs import Input, check_inputs, check_not_flushed, compute_dtype, nonfinite_warnings, promotion_warnings
from .._language._operations import notes
from .._language._syntax import parse
from .._limits import LIMITS, Limits
from . import _orders
from ._answers import HessianResult
from ._hessians import hessians

__all__ = ["ORDERS", "typed_hessians"]

#: the orders ``gradlib.evaluate`` computes: 1, the Jacobian (``GradResult``); 2, the Hessians (``HessianResult``)
ORDERS = (1, 2)


def typed_hessians(outputs: str, inputs: Mapping[str, Any], *, watch: Sequence[str] | None = None,
                   method: str = "auto", dtype: str | Mapping[str, str] = "float32", compiled: bool | None = None,
                   limits: Limits = LIMITS) -> HessianResult:
    """The Hessian of every element of ``outputs`` (text) with respect to the watched inputs: ``(y.size, n, n)``.

    Args are ``evaluate``'s; ``method`` is one of ``SECOND_METHODS`` that gives whole Hessians.

    Raises:
        ExpressionError: the text, an input, an option or a limit is not acceptable; an integer input is watched.
    """
    _orders.check_method("evaluate(order=2)", method, "hessian")
    _check_compiled(compiled)
    checked = check_inputs(inputs, watch=watch, dtype=dtype, limits=limits)
    _check_watched_floats(checked)
    program = parse(outputs, {i.name: i.shape for i in checked}, limits=limits)
    program.check_numbers(compute_dtype(checked))
    check_not_flushed(checked)
    fn = _Typed(program, checked)
    result = hessians(fn, fn.watched(), method=method, limits=limits)
    return dataclasses.replace(result, warnings=_warnings(program, checked) + result.warnings)


class _Typed:
    """The parsed function as a callable of its watched inputs (a dict by name); the others are constants.

    Equal (and hashed alike) for the same tree, inputs' names, shapes and dtypes and the same constants' values,
    so that ``hessians``' compiled cache traces it once per such key: the constants are frozen into the trace.
    """

    def __init__(self, program, inputs: Sequence[Input]):
        self.program, self.inputs = program, tuple(inputs)
        self.dtype = tf.as_dtype(compute_dtype(inputs))
        constants = [(i.name, i.value.astype(i.dtype).tobytes()) for i in inputs if not i.watched]
        digest = hashlib.sha256(repr(constants).encode()).hexdigest()
        self.key = (program.key, tuple((i.name, i.shape, i.dtype, i.watched) for i in inputs), self.dtype.name, digest)

    def watched(self) -> dict[str, tf.Tensor]:
        return {i.name: tf.constant(i.value, dtype=self.dtype) for i in self.inputs if i.watched}

    def __call__(self, xs: Mapping[str, tf.Tensor]):
        env = dict(xs)
        # constants (integer ones too) are cast to the computation's dtype inside, as the first order does
        env.update({i.name: tf.cast(tf.constant(i.value.astype(i.dtype)), self.dtype)
                    for i in self.inputs if not i.watched})
        return self.program.build(env, self.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Typed) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


def _check_compiled(compiled: Any) -> None:
    if compiled is not None:
        raise ExpressionError(f"evaluate(order=2) got compiled={compiled!r}; the second order always runs one traced "
                              "function (cached per function and shape). Leave compiled=None")


def _check_watched_floats(inputs: Sequence[Input]) -> None:
    integers = [i for i in inputs if i.watched and not i.dtype.startswith("float")]
    if integers:
        i = integers[0]
        raise ExpressionError(
            f"evaluate(order=2) cannot differentiate input {i.name!r}: it is {i.dtype}, and TensorFlow's tape gives "
            "integer tensors no derivative (its Hessian would be zeros, which is wrong). Make it float32 or float64, "
            f"or leave it out of watch")
    if not any(i.watched for i in inputs):
        raise ExpressionError("evaluate(order=2) needs at least one watched input; watch=[] watches none")


def _warnings(program, inputs: Sequence[Input]) -> tuple[str, ...]:
    """What the text and the inputs say before anything runs: non-finite values, promotions, the functions' notes
    (sign, floor: a derivative of 0 wherever they have one), watched inputs the function does not use."""
    unused = [i.name for i in inputs if i.watched and i.name not in program.names]
    return nonfinite_warnings(inputs) + promotion_warnings(inputs) + notes(program.functions) + (
        (f"watched input(s) {', '.join(map(repr, unused))} do not appear in the function: their second derivatives "
         "are zero",) if unused else ())
