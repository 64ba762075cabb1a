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

import ast
import dataclasses
import hashlib
from typing import Any, Mapping, Sequence

import numpy as np
import tensorflow as tf

from .._foundations._errors import ExpressionError, GradlibError
from .._language._branches import guard, guarded, is_where, risky_branches
from .._language._inputs import Input, check_inputs, check_not_flushed, compute_dtype, nonfinite_warnings, promotion_warnings
from .._language._operations import notes
from .._language._syntax import parse
from .._foundations._limits import LIMITS, Limits
from .._foundations._runtime import returns_numpy
from . import _orders
from ._answers import HessianResult
from ._hessians import hessians
from ._poisoning import cell_label

__all__ = ["typed_hessians"]


@returns_numpy("gradlib.evaluate")
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
    causes = _where_causes(program, fn, result, limits)
    return dataclasses.replace(result, warnings=_warnings(program, checked) + result.warnings + causes)


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

    def env(self, xs: Mapping[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        env = dict(xs)
        # constants (integer ones too) are cast to the computation's dtype inside, as the first order does
        env.update({i.name: tf.cast(tf.constant(i.value.astype(i.dtype)), self.dtype)
                    for i in self.inputs if not i.watched})
        return env

    def __call__(self, xs: Mapping[str, tf.Tensor]):
        return self.program.build(self.env(xs), self.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Typed) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


def _where_causes(program, fn: _Typed, result: HessianResult, limits: Limits) -> tuple[str, ...]:
    """The where() calls that cause NaN poisoning at these inputs, named: a where() whose branch not taken here holds
    a function ``guard`` guards (sqrt, log, a divisor, a fractional power), when the guarded form (the same values,
    gradlib._language._branches) gives the poisoned cells finite values with the same method."""
    if not len(result.poisoned_cells):
        return ()
    dead = [node for node in ast.walk(program.tree) if is_where(node) and _dead_risky(program, fn, node)]
    safe = guarded(program, {i.name: i.shape for i in fn.inputs}, limits) if dead else None
    if safe is None:
        return ()
    try:
        other = hessians(_Typed(safe, fn.inputs), fn.watched(), method=result.method, limits=limits).hessian
    except GradlibError:
        return ()
    k, i, j = result.poisoned_cells.T
    fixed = result.poisoned_cells[np.isfinite(other[k, i, j])]
    if not len(fixed):
        return ()
    label = cell_label("hessian", result.row_labels, result.col_labels, False)
    cells = "; ".join(label((0, *c)) for c in fixed.tolist()[:6]) + ("; ..." if len(fixed) > 6 else "")
    wheres = "; ".join(f"{ast.unparse(node)}{_column(node)}, guarded {ast.unparse(guard(node))}" for node in dead)
    return (f"the NaN poisoning comes from where(): {wheres}. where() computes and differentiates the branch it does "
            f"not take as well, and that branch's derivatives are not finite here (0 x inf or 0 x NaN is NaN). The "
            f"guarded form (the same values; gradlib.tensorflow_code writes it) gives method {result.method!r} finite "
            f"values in "
            f"{len(fixed):,} of the {len(result.poisoned_cells):,} NaN cell(s) ({cells})",)


def _column(node: ast.AST) -> str:
    """`` at column N`` of a node of the user's text; "" for one a tree rewrite made (it has no position)."""
    return f" at column {node.col_offset + 1}" if hasattr(node, "col_offset") else ""


def _dead_risky(program, fn: _Typed, node: ast.Call) -> bool:
    """Whether where() ``node`` does not take, in some cell at these inputs, a branch that holds a risky function."""
    taken, other = risky_branches(node)
    if not (taken or other):
        return False
    condition = np.asarray(program.build(fn.env(fn.watched()), fn.dtype, node.args[0]))
    return bool((taken and not condition.all()) or (other and condition.any()))


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


def _warnings(program, inputs: Sequence[Input]) -> tuple[str, ...]:
    """What the text and the inputs say before anything runs: non-finite values, promotions, the functions' notes
    (sign, floor: a derivative of 0 wherever they have one), watched inputs the function does not use."""
    unused = [i.name for i in inputs if i.watched and i.name not in program.names]
    return nonfinite_warnings(inputs) + promotion_warnings(inputs) + notes(program.functions) + (
        (f"watched input(s) {', '.join(map(repr, unused))} do not appear in the function: their second derivatives "
         "are zero",) if unused else ())
