"""The language's functions, one row each: read by the shape checker, the builder and the code generator.

A row says what a function takes, the shape it gives (a rule the checker runs on shapes alone, before
anything is allocated) and the TensorFlow function that computes it: ``Operation.run`` calls that function
and ``Operation.write`` writes the same call into the generated code, so the two cannot drift apart. A
function that TensorFlow has no single op for is a small helper here (``clip``, ``dot``), named by its row;
the generated script copies its source. Adding a function to the language is adding one row to ``OPERATIONS``.

>>> OPERATIONS["softmax"].write("x", -1)
'tf.nn.softmax(x, axis=-1)'
>>> OPERATIONS["reshape"].write("W", (3, 2))
'tf.reshape(W, shape=[3, 2])'
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol

import tensorflow as tf

__all__ = ["FUNCTIONS", "OPERATIONS", "Operation", "STATIC", "clip", "cross_entropy", "dot", "gelu", "helpers", "matmul",
           "notes"]

Shape = tuple[int, ...]

#: parameters that are written out in the text, not computed: name -> how it is written ("axis=0": a whole
#: number, "[2, 3]": a list of them). They reach TensorFlow as keywords of the same name; ``axis`` and ``perm``
#: may be left out. Every other parameter is a tensor; ``values`` is a list of tensors written out.
STATIC = {"axis": "axis=0", "perm": "[1, 0]", "shape": "[2, 3]"}
OPTIONAL = frozenset({"axis", "perm"})


class Call(Protocol):
    """What a shape rule is given besides the argument shapes: the call being checked (``_language``)."""

    name: str
    max_rank: int

    def fail(self, message: str, at: str | tuple[str, int] | None = None) -> None:
        """Refuse the call, pointing at the call or at one argument (``"axis"``, or ``("values", k)``)."""

    def broadcast(self, a: Shape, b: Shape) -> Shape:
        """NumPy's broadcast of two shapes, refused if they do not broadcast."""

    def matmul(self, a: Shape, b: Shape) -> Shape:
        """NumPy's matmul of two shapes, counting its work."""


@dataclass(frozen=True)
class Operation:
    """One function of the language.

    Attributes:
        name: what the user types.
        params: the parameters in order, with TensorFlow's names for the static ones (``STATIC``).
        takes: the end of "``name() takes ...``", said when a call does not fit ``params``.
        shape: ``(call, *arguments) -> shape``: the result's shape from the arguments' shapes and static
            values; it refuses with ``call.fail``.
        op: the TensorFlow function (``"tf.nn.softmax"``), or a helper function (``clip``) when TensorFlow has
            no single op for it: what runs, and what the generated code writes (with the helper's source).
        default_axis: the axis when the call gives none (None: the function's own default, all elements).
        work: extra floating-point operations per element of the tensor arguments, beyond the one per
            element of the result that every node counts (the cost model's estimate, ``gradlib._perelement._cost``).
        note: what a user should know about its gradient, said as a warning of every result that calls it
            (a step function's derivative is 0 wherever it has one): ``{names}`` and ``{them}`` stand for
            the functions called that share the note (``notes``).
    """

    name: str
    params: tuple[str, ...]
    takes: str
    shape: Callable[..., Shape]
    op: str | Callable
    default_axis: int | None = None
    work: float = 0.0
    note: str = ""

    @property
    def required(self) -> int:
        """How many arguments a call must give."""
        return sum(p not in OPTIONAL for p in self.params)

    @property
    def elementwise(self) -> bool:
        """Whether each cell of the result is computed from the same cell of each (broadcast) argument alone."""
        return self.shape in _ELEMENTWISE

    @property
    def function(self) -> Callable:
        """The Python function that computes it."""
        return self.op if callable(self.op) else operator.attrgetter(self.op.removeprefix("tf."))(tf)

    @property
    def spelling(self) -> str:
        """How the generated code calls it: ``tf.nn.softmax``, or a helper's name."""
        return self.op.__name__ if callable(self.op) else self.op

    def run(self, *arguments: Any) -> Any:
        """Compute the function on TensorFlow tensors (and static values), in ``params`` order."""
        positional, keywords = self._split(arguments)
        return self.function(*positional, **{k: list(v) if isinstance(v, tuple) else v for k, v in keywords.items()})

    def write(self, *arguments: Any) -> str:
        """The TensorFlow code of a call, given each tensor argument's code (and the static values)."""
        positional, keywords = self._split(arguments)
        texts = [f"[{', '.join(a)}]" if isinstance(a, list) else a for a in positional]
        texts += [f"{k}={list(v) if isinstance(v, tuple) else v!r}" for k, v in keywords.items()]
        return f"{self.spelling}({', '.join(texts)})"

    def _split(self, arguments: tuple) -> tuple[list, dict[str, Any]]:
        positional = [a for p, a in zip(self.params, arguments) if p not in STATIC]
        keywords = {p: a for p, a in zip(self.params, arguments) if p in STATIC and a is not None}
        return positional, keywords


# ---------------------------------------------------------------- helpers: functions TensorFlow has no one op for


def matmul(a, b):
    """NumPy's @ for vectors and matrices (tf.linalg.matmul wants rank >= 2)."""
    if a.shape.rank == 1 and b.shape.rank == 1:
        return tf.tensordot(a, b, axes=1)                    # vector @ vector: the inner product
    if b.shape.rank == 1:
        return tf.linalg.matvec(a, b)                        # (..., m, k) @ (k,)
    if a.shape.rank == 1:
        return tf.linalg.matvec(b, a, transpose_a=True)      # (k,) @ (..., k, n)
    return tf.linalg.matmul(a, b)                            # batch dimensions broadcast


def dot(a, b):
    """NumPy's dot for scalars, vectors and matrices: a product when either is a scalar, else matmul. A number
    written in the text is a Python float in the generated code, with no shape: a scalar too."""
    if len(getattr(a, "shape", ())) == 0 or len(getattr(b, "shape", ())) == 0:
        return a * b
    return matmul(a, b)


def clip(x, lo, hi):
    """NumPy's clip: x limited to [lo, hi], the three broadcast; the gradient goes to the one returned."""
    return tf.minimum(tf.maximum(x, lo), hi)


def cross_entropy(labels, logits, axis=-1):
    """-sum(labels * log_softmax(logits)) along axis: what tf.nn.softmax_cross_entropy_with_logits computes,
    written in ops whose gradients every method is tested with (forward mode and pfor included)."""
    return -tf.reduce_sum(labels * tf.nn.log_softmax(logits, axis=axis), axis=axis)


def gelu(x):
    """GELU, x times the standard normal CDF, as tf.nn.gelu computes it (approximate=False) but with its constant
    1/sqrt(2) in x's own dtype: tf.nn.gelu casts a float32 constant, which puts float64 results 1e-8 off."""
    return 0.5 * x * tf.math.erfc(-x * 0.7071067811865476)


def helpers() -> dict[str, Callable]:
    """Helper name -> function, for ``@`` and every row whose op is a helper: the generated code copies the
    source of each one it calls. A helper calls only helpers before it (``dot`` calls ``matmul``)."""
    return {"matmul": matmul} | {row.op.__name__: row.op for row in OPERATIONS.values() if callable(row.op)}


def notes(functions: Iterable[str]) -> tuple[str, ...]:
    """The notes of the rows of ``functions``, each said once for all the functions that share it.

    >>> notes(["sin", "sign", "floor"])[0][:40]
    'floor() and sign() are piecewise constan'
    """
    shared: dict[str, list[str]] = {}
    for name in sorted(functions):
        if OPERATIONS[name].note:
            shared.setdefault(OPERATIONS[name].note, []).append(f"{name}()")
    return tuple(note.format(names=f"{', '.join(names[:-1])} and {names[-1]} are" if len(names) > 1
                             else f"{names[0]} is", them="them" if len(names) > 1 else "it")
                 for note, names in shared.items())


# ---------------------------------------------------------------- shape rules


def _same(call: Call, x: Shape) -> Shape:
    return x


def _broadcast(call: Call, a: Shape, b: Shape) -> Shape:
    return call.broadcast(a, b)


def _matmul(call: Call, a: Shape, b: Shape) -> Shape:
    return call.matmul(a, b)


def _dot(call: Call, a: Shape, b: Shape) -> Shape:
    if len(a) > 2 or len(b) > 2:
        call.fail("dot supports scalars, vectors and matrices; use @ for stacks of matrices")
    if not a or not b:
        return call.broadcast(a, b)
    return call.matmul(a, b)


def _clip(call: Call, x: Shape, lo: Shape, hi: Shape) -> Shape:
    return call.broadcast(call.broadcast(x, lo), hi)


def _axis(call: Call, shape: Shape, axis: int) -> int:
    """``axis`` counted from 0, refused when ``shape`` has no such axis."""
    if not -len(shape) <= axis < max(len(shape), 1) or not shape:
        call.fail(f"axis {axis} is out of range for a value of shape {shape}", at="axis")
    return axis % len(shape)


def _reduce(call: Call, x: Shape, axis: int | None) -> Shape:
    if axis is None:
        return ()
    k = _axis(call, x, axis)
    return x[:k] + x[k + 1:]


def _along(call: Call, x: Shape, axis: int) -> Shape:
    """Softmax and its kin: the same shape, normalized along one axis (which the value must have)."""
    if not x:
        call.fail(f"{call.name}() normalizes along an axis, and a scalar has none; give it a vector or more")
    _axis(call, x, axis)
    return x


def _where(call: Call, condition: Shape, x: Shape, y: Shape) -> Shape:
    return call.broadcast(call.broadcast(condition, x), y)


def _scan(call: Call, x: Shape, axis: int) -> Shape:
    """Cumulative sums: the same shape, accumulated along one axis (which the value must have)."""
    if not x:
        call.fail(f"{call.name}() accumulates along an axis, and a scalar has none; give it a vector or more")
    _axis(call, x, axis)
    return x


def _stack(call: Call, values: list[Shape], axis: int) -> Shape:
    first = values[0]
    for i, shape in enumerate(values):
        if shape != first:
            call.fail(f"stack() needs values of the same shape: element {i} has shape {shape} but element 0 has "
                      f"shape {first}", at=("values", i))
    rank = len(first) + 1   # the new axis may go anywhere from before the first to after the last
    if not -rank <= axis < rank:
        call.fail(f"axis {axis} is out of range for stacking values of shape {first}: it must be from {-rank} "
                  f"to {rank - 1}", at="axis")
    k = axis % rank
    return first[:k] + (len(values),) + first[k:]


def _cross_entropy(call: Call, labels: Shape, logits: Shape, axis: int) -> Shape:
    if labels != logits:
        call.fail(f"cross_entropy() needs labels and logits of the same shape; got {labels} and {logits}")
    return _reduce(call, _along(call, logits, axis), axis)


def _transpose(call: Call, x: Shape, perm: Shape | None) -> Shape:
    if perm is None:
        return x[::-1]
    if sorted(perm) != list(range(len(x))):
        call.fail(f"perm {list(perm)} must list each axis of a value of shape {x} once, from 0, like "
                  f"{list(range(len(x)))[::-1]}", at="perm")
    return tuple(x[k] for k in perm)


def _reshape(call: Call, x: Shape, shape: Shape) -> Shape:
    size = math.prod(x)
    if any(d == 0 or d < -1 for d in shape) or list(shape).count(-1) > 1:
        call.fail(f"shape {list(shape)} must hold positive whole numbers, and at most one -1 (the rest)", at="shape")
    if len(shape) > call.max_rank:
        call.fail(f"shape {list(shape)} has {len(shape)} dimensions; at most {call.max_rank} are allowed", at="shape")
    known = math.prod(d for d in shape if d != -1)
    target = tuple(size // known if d == -1 else d for d in shape)
    if math.prod(target) != size:
        call.fail(f"cannot reshape a value of shape {x} ({size:,} elements) to {list(shape)}; the shape must "
                  f"hold the same number of elements", at="shape")
    return target


def _concat(call: Call, values: list[Shape], axis: int) -> Shape:
    first = values[0]
    if not first:
        call.fail("concat() joins values along an axis, and a scalar has none; use [a, b] to stack scalars",
                  at=("values", 0))
    k = _axis(call, first, axis)
    for i, shape in enumerate(values):
        if len(shape) != len(first) or shape[:k] + shape[k + 1:] != first[:k] + first[k + 1:]:
            call.fail(f"concat() needs shapes that match except along axis {axis}: element {i} has shape {shape} "
                      f"but element 0 has shape {first}", at=("values", i))
    return first[:k] + (sum(shape[k] for shape in values),) + first[k + 1:]


#: the shape rules of the element-wise functions (``Operation.elementwise``)
_ELEMENTWISE = (_same, _broadcast, _where, _clip)


# ---------------------------------------------------------------- the table

_ONE = "takes exactly one argument, like {}(x)"
_TWO = "takes exactly two arguments, like {}(a, b)"
_AXIS = "takes a tensor and an optional axis, like {0}(x) or {0}(x, axis=0)"


def _elementwise(name: str, op: str | Callable) -> Operation:
    return Operation(name, ("x",), _ONE.format(name), _same, op)


def _reduction(name: str, op: str, work: float = 0.0) -> Operation:
    return Operation(name, ("x", "axis"), _AXIS.format(name), _reduce, op, work=work)


#: what every step function's row says of its gradient (``notes`` names the functions called)
_STEP_NOTE = ("{names} piecewise constant: the derivative is 0 wherever there is one (there is none at the jumps), "
              "so every gradient through {them} is 0. That is the true derivative, not a failure; for a gradient "
              "that flows, use a smooth stand-in (like tanh(10*x) for sign(x))")


def _step(name: str, op: str) -> Operation:
    """A piecewise-constant function: its derivative is 0 wherever it is defined, and it has none at the steps."""
    return Operation(name, ("x",), _ONE.format(name), _same, op, note=_STEP_NOTE)


#: name -> its row: the table
OPERATIONS: dict[str, Operation] = {row.name: row for row in [
    *(_elementwise(name, op) for name, op in [
        ("sin", "tf.sin"), ("cos", "tf.cos"), ("tan", "tf.tan"), ("exp", "tf.exp"), ("log", "tf.math.log"),
        ("sqrt", "tf.sqrt"), ("tanh", "tf.tanh"), ("sigmoid", "tf.sigmoid"), ("relu", "tf.nn.relu"),
        ("abs", "tf.abs"), ("square", "tf.square"), ("softplus", "tf.nn.softplus"), ("log1p", "tf.math.log1p"),
        ("expm1", "tf.math.expm1"), ("erf", "tf.math.erf"), ("gelu", gelu), ("elu", "tf.nn.elu"),
        ("sinh", "tf.sinh"), ("cosh", "tf.cosh"), ("atan", "tf.atan"), ("asin", "tf.asin"), ("acos", "tf.acos")]),
    *(_step(name, op) for name, op in [("sign", "tf.sign"), ("floor", "tf.floor"), ("round", "tf.round")]),
    _reduction("sum", "tf.reduce_sum"),
    _reduction("mean", "tf.reduce_mean"),
    _reduction("prod", "tf.reduce_prod"),
    _reduction("max", "tf.reduce_max"),
    _reduction("min", "tf.reduce_min"),
    _reduction("logsumexp", "tf.reduce_logsumexp", work=4),
    _reduction("norm", "tf.norm", work=1),   # the L2 norm: sqrt(sum(x * x)) over all elements, or along axis
    Operation("maximum", ("a", "b"), _TWO.format("maximum"), _broadcast, "tf.maximum"),
    Operation("minimum", ("a", "b"), _TWO.format("minimum"), _broadcast, "tf.minimum"),
    Operation("pow", ("a", "b"), _TWO.format("pow"), _broadcast, "tf.pow"),
    Operation("atan2", ("y", "x"), "takes exactly two arguments, like atan2(y, x)", _broadcast, "tf.math.atan2"),
    Operation("where", ("condition", "x", "y"), "takes a comparison and two values, like where(x > 0, sqrt(x), 0)",
              _where, "tf.where"),
    Operation("matmul", ("a", "b"), _TWO.format("matmul"), _matmul, matmul),
    Operation("dot", ("a", "b"), _TWO.format("dot"), _dot, dot),
    Operation("clip", ("x", "lo", "hi"), "takes exactly three arguments, like clip(x, lo, hi)", _clip, clip,
              work=1),
    Operation("softmax", ("x", "axis"), _AXIS.format("softmax"), _along, "tf.nn.softmax", default_axis=-1, work=4),
    Operation("log_softmax", ("x", "axis"), _AXIS.format("log_softmax"), _along, "tf.nn.log_softmax",
              default_axis=-1, work=4),
    Operation("cross_entropy", ("labels", "logits", "axis"), "takes labels, logits and an optional axis, like "
              "cross_entropy(p, z) or cross_entropy(p, z, axis=0)", _cross_entropy, cross_entropy,
              default_axis=-1, work=6),
    Operation("transpose", ("x", "perm"), "takes a tensor and an optional order of its axes written out, like "
              "transpose(W) or transpose(x, [0, 2, 1])", _transpose, "tf.transpose"),
    Operation("reshape", ("x", "shape"), "takes a tensor and a shape written out, like reshape(x, [2, 3])",
              _reshape, "tf.reshape"),
    Operation("concat", ("values", "axis"), "takes a list of values and an optional axis, like concat([a, b]) "
              "or concat([a, b], axis=1)", _concat, "tf.concat", default_axis=0),
    Operation("stack", ("values", "axis"), "takes a list of values and an optional axis, like stack([a, b]) "
              "or stack([a, b], axis=1)", _stack, "tf.stack", default_axis=0),
    Operation("cumsum", ("x", "axis"), _AXIS.format("cumsum"), _scan, "tf.math.cumsum", default_axis=0),
]}
#: name -> the TensorFlow function (or helper) it runs
FUNCTIONS: dict[str, str] = {row.name: row.spelling for row in OPERATIONS.values()}
