"""A typed PDE residual (``"u_t + u*u_x - nu*u_xx"``) as a callable ``x -> tf.Tensor (N,)``, built once.

The text is gradlib's expression language (``gradlib._language``: checked against an allow-list, never
executed by Python). Its names are the model's outputs (``u``), derivatives by name (``u_x``, ``u_xt``), the
coordinates (``x``, the column of the points) and the constants. Each point's residual is a number computed
from that point's values alone, so only element-wise functions are taken (``sum(u)`` would add the points up).
The callable computes the derivatives the text names and nothing else (``gradlib._pde._derivatives``) inside
one ``tf.function``, traced on first use and differentiable with respect to the model's weights.
"""

from __future__ import annotations

import ast
import difflib
import math
import numbers
from typing import Any, Callable, Mapping, Sequence

import tensorflow as tf

from .._callable._trace import polymorphic
from .._foundations._errors import BatchMixingError, ExpressionError
from .._language._operations import OPERATIONS
from .._language._syntax import Program, free_names, parse
from ._check import independence
from ._derivatives import Plan, check_model, check_x, compute, entry_point
from ._jet import fixed_points, in_thread, jet_agrees, rowwise
from ._names import Derivative, check_names, derivative_or_none

__all__ = ["Residual", "residual"]

_API = "gradlib.pde.residual"


class Residual:
    """A checked residual: call it on the points ``x`` ``(N, len(coords))`` for a ``tf.Tensor`` ``(N,)``."""

    #: AutoGraph's mark of its own artifacts: a caller's ``tf.function`` calls the residual as it is. Without it,
    #: AutoGraph converts ``__call__`` (an object's method is looked up past ``do_not_convert``'s mark on it) in
    #: every first call's trace, for a function it then runs unconverted anyway
    autograph_info__ = frozenset()

    def __init__(self, program: Program, model: Callable, plan: Plan, constants: dict[str, Any],
                 check_independence: bool = True):
        self.text, self.program, self.model, self.plan = program.text, program, model, plan
        self.constants = constants
        self._unchecked = bool(check_independence)   # the points' independence, tested on the first call
        self._jet: bool | None = None   # the forward jet's outputs equal the model's call (read on the first call)
        self._checked: set[str] = set()   # the dtypes whose numbers the text's literals were checked against
        # autograph off: the model is traced as the caller wrote it (a lambda is not rewritten, nor warned about)
        self._compiled = polymorphic(self._evaluate)

    @property
    def derivatives(self) -> tuple[str, ...]:
        """The outputs and derivatives the text names: all that one call computes."""
        return tuple(d.name for d in self.plan.wanted)

    def __repr__(self) -> str:
        return f"Residual({self.text!r}, coords={self.plan.coords}, outputs={self.plan.outputs})"

    @entry_point
    def __call__(self, x: Any) -> tf.Tensor:
        x = check_x(x, self.plan.coords, _API)
        if x.dtype.name not in self._checked:
            self.program.check_numbers(x.dtype.name)
            self._checked.add(x.dtype.name)
        if self._jet is None:   # eagerly at a few of x's points, or (first called in a trace) at fixed points
            self._jet = jet_agrees(self.model, x, self.plan)
        if self._unchecked:
            if rowwise(self.model):
                self._unchecked = False   # a Sequential of plain Dense layers maps each point alone: none can mix
            else:
                self._check_independence(x)
        # eagerly, the compiled function; inside the caller's tf.function, the ops go straight into its graph (a
        # nested function call would add a boundary that the weight gradients must cross)
        return self._compiled(x) if tf.executing_eagerly() else self._evaluate(x)

    def _check_independence(self, x: tf.Tensor) -> None:
        """Once, on the first call: refuse a model that mixes points (each derivative would be the gradient of a sum
        over the points, not the point's own). Eagerly at ``x``; first called inside the caller's ``tf.function``
        (the guide's training step), where ``x`` has no values, eagerly in a thread of its own at fixed points
        (``_jet.fixed_points``): before hunt 59 such a residual was never checked, and a model centring over the
        points trained on the batch's derivatives."""
        if tf.executing_eagerly():
            found, where = independence(self.model, x, self.plan, _API), ""
        else:
            found = in_thread(lambda: independence(self.model, fixed_points(x, len(self.plan.coords)), self.plan,
                                                   _API))
            where = (" (tested once, eagerly, at fixed points drawn in [-1, 1] per coordinate: the residual was "
                     "first called inside a tf.function, where the points have no values)")
        if found:
            raise BatchMixingError(f"{_API}: {found}{where}; or pass check_independence=False to skip this test")
        self._unchecked = False

    def _evaluate(self, x: tf.Tensor) -> tf.Tensor:
        values = compute(self.model, x, self.plan, _API, jet=self._jet is not False)
        env = {name: tf.cast(value, x.dtype) for name, value in values.items()}
        env.update((name, x[:, k]) for k, name in enumerate(self.plan.coords) if name in self.program.names)
        env.update((name, _constant(value, x.dtype)) for name, value in self.constants.items())
        return tf.broadcast_to(self.program.build(env, x.dtype), tf.shape(x)[:1])


def _constant(value: Any, dtype: tf.DType) -> tf.Tensor:
    """A number in ``dtype`` itself (``tf.cast(0.0032, tf.float64)`` would round it to float32 first), or a learned
    variable cast on the tape."""
    return tf.cast(value, dtype) if isinstance(value, tf.Variable) else tf.constant(value, dtype)


@entry_point
def residual(text: str, model: Callable, coords: Sequence[str] = ("x", "t"), outputs: Sequence[str] | None = None,
             constants: Mapping[str, Any] | None = None, check_independence: bool = True) -> Residual:
    """The residual ``text`` of ``model``'s outputs as a callable ``x -> tf.Tensor (N,)``, differentiable with
    respect to the model's weights (under the caller's tape, eagerly or in its ``tf.function`` step).

    Args:
        text: one expression in gradlib's language, like ``"u_t + u*u_x - nu*u_xx"``: its names are the outputs,
            their derivatives by name (as ``derivatives`` takes them), the coordinates and the constants.
        model: a Keras model or a callable on ``(N, len(coords))`` points (see ``derivatives``).
        coords: the coordinates' names, one per column of the points.
        outputs: the names of the model's outputs, in order; ``None``: one output ``u``.
        constants: name -> a real number, or a scalar float ``tf.Variable`` (learned, as in an inverse problem).
        check_independence: on the first call made eagerly, test once that the model does not mix points (one more
            forward and backward pass) and refuse one that does; a Keras ``Sequential`` of plain ``Dense`` layers
            is proved not to mix by its structure, without the pass. A first call inside ``tf.function`` cannot
            read the points: run ``gradlib.pde.check`` once before training. (The forward jet's guard runs on the
            first call either way: ``gradlib._pde._jet.jet_agrees`` says at which points.)

    Raises:
        BatchMixingError: (at the first call) the model mixes points.
        ExpressionError: the text is not in the language, names what is not an output, derivative, coordinate
            or constant (with its column), or is not one number per point; a name or constant is not acceptable.
    """
    coords, outputs = check_names(coords, outputs, _API)
    constants = _check_constants(constants, coords, outputs)
    checked, used = free_names(text)
    wanted = [_name(name, col, checked, coords, outputs, constants) for name, col in used.items()]
    program = parse(checked, {name: () for name in used})
    _check_pointwise(program)
    plan = Plan(coords, outputs, tuple(d for d in wanted if d is not None))
    check_model(model, plan, _API)
    return Residual(program, model, plan, constants, check_independence)


def _check_constants(constants: Any, coords: tuple[str, ...], outputs: tuple[str, ...]) -> dict[str, Any]:
    if constants is None:
        return {}
    if not isinstance(constants, Mapping):
        raise ExpressionError(f"{_API}: constants must be a dict of name -> number, like {{'nu': 0.01}}; "
                              f"got {type(constants).__name__}")
    for name, value in constants.items():
        taken = "a coordinate" if name in coords else "an output" if name in outputs else (
            "a derivative" if isinstance(name, str) and isinstance(derivative_or_none(name, outputs, coords),
                                                                   Derivative) else "")
        if not isinstance(name, str) or not name.isidentifier() or not name.isascii() or name.startswith("_") or taken:
            why = f"is {taken}'s name" if taken else "must be a name of letters, digits and '_' (not first)"
            raise ExpressionError(f"{_API}: the constant {name!r} {why}; rename it")
        if not _real(value):
            raise ExpressionError(f"{_API}: the constant {name!r} is {value!r}; give a finite real number, or a "
                                  "scalar float tf.Variable to learn it")
    return dict(constants)


def _real(value: Any) -> bool:
    if isinstance(value, tf.Variable):
        return value.shape.rank == 0 and value.dtype.is_floating
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _name(name: str, col: int, text: str, coords: tuple[str, ...], outputs: tuple[str, ...],
          constants: dict[str, Any]) -> Derivative | None:
    """The derivative a name of the text stands for (``None``: a coordinate or a constant), or its refusal."""
    if name in coords or name in constants:
        return None
    found = derivative_or_none(name, outputs, coords)
    if isinstance(found, Derivative):
        return found
    close = (difflib.get_close_matches(name, list(constants), n=1, cutoff=0.5)   # a misspelled constant first (mu)
             or difflib.get_close_matches(name, [*outputs, *coords], n=1))
    why = found if "_" in name else f"unknown name {name!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
    raise ExpressionError(
        f"{_API}: {why} (column {col}). The residual's names are the outputs ({', '.join(outputs)}), the "
        f"coordinates ({', '.join(coords)}), the constants ({', '.join(constants) or 'none given'}) and "
        f"derivatives like {outputs[0]}_{coords[0]} or {outputs[0]}_{coords[0]}{coords[-1]}", text=text, column=col)


def _check_pointwise(program: Program) -> None:
    """One number per point, computed from that point's values: element-wise functions only."""
    for node in ast.walk(program.tree):
        if isinstance(node, ast.Call) and not OPERATIONS[node.func.id].elementwise:
            col = node.col_offset + 1
            raise ExpressionError(
                f"{_API}: {node.func.id}() at column {col} is not computed point by point: each point's residual "
                "comes from that point's values alone (here each name is one number), so only element-wise "
                "functions are allowed (sin, exp, where, maximum ...)", text=program.text, column=col)
    if program.shape != ():
        raise ExpressionError(f"{_API}: the residual gives shape {program.shape} at each point; it must give one "
                              "number per point (write one residual per equation)", text=program.text, column=1)
