"""The language's functions, one row each: read by the shape checker, the builder and the code generator.

A row says what a function takes, the shape it gives (a rule the checker runs on shapes alone, before
anything is allocated) and the TensorFlow function that computes it: ``Operation.run`` calls that function
and ``Operation.write`` writes the same call into the generated code, so the two cannot drift apart. A
function that TensorFlow has no single op for is a small helper here (``clip``, ``dot``), named by its row;
the generated script copies its source. A row also holds the function's derivative rule for every method that
has rules of its own (``RULED_METHODS``: the structured Jacobian), or declares that the tape answers (``TAPE``).
Adding a function to the language is adding one row to ``OPERATIONS``.

>>> OPERATIONS["softmax"].write("x", -1)
'tf.nn.softmax(x, axis=-1)'
>>> OPERATIONS["reshape"].write("W", (3, 2))
'tf.reshape(W, shape=[3, 2])'
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol, Sequence

import tensorflow as tf

__all__ = ["FUNCTIONS", "Jacobians", "OPERATIONS", "Operation", "PARTIALS", "RULED_METHODS", "STATIC", "TAPE", "clip",
           "cross_entropy", "dot", "gelu", "helpers", "matmul", "notes"]

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
        structured: its rule in the structured Jacobian, ``(jacobians, *arguments) -> (value, J)`` with the
            arguments in ``params`` order (a tensor argument as ``(value, J)``, ``Jacobians``), or ``TAPE``: no
            rule, the method is not applicable and ``auto`` runs a tape method. None (declared neither) is a gap
            that tests/language/test_operations.py refuses; ``RULED_METHODS`` lists the methods with rules.
    """

    name: str
    params: tuple[str, ...]
    takes: str
    shape: Callable[..., Shape]
    op: str | Callable
    default_axis: int | None = None
    work: float = 0.0
    note: str = ""
    structured: Callable | str | None = None

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


# ---------------------------------------------------------------- derivative rules: the structured Jacobian's
#
# A row's ``structured`` rule computes the function's value and its Jacobian from its arguments' ``(value, J)``
# (``J`` None is zero) with the Jacobian algebra of gradlib._perelement._structured (``Jacobians``). The rules
# mirror TensorFlow's own gradients (``relu`` is 0 at 0, ``maximum`` takes ties to its first argument, ``pow``'s
# exponent has the derivative 0 where the base is not positive), so the numbers are the tape's.


class Jacobians(Protocol):
    """What a structured rule is given besides its arguments: the algebra of Jacobians of ``n`` columns
    (``gradlib._perelement._structured``); a ``jac`` is None (zero), a diagonal block or a ``(size, n)`` matrix."""

    dtype: Any

    def dense(self, jac: Any, shape: Shape) -> Any:
        """The Jacobian as a ``(size, n)`` matrix."""

    def tensor(self, jac: Any, shape: Shape) -> Any:
        """The Jacobian as a tensor of shape ``shape + (n,)``."""

    def flat(self, jac: Any) -> Any:
        """A ``shape + (n,)`` tensor back to ``(size, n)``."""

    def broadcast(self, jac: Any, shape: Shape, to: Shape) -> Any:
        """The Jacobian of a value of ``shape`` broadcast to ``to``."""

    def scale(self, jac: Any, factor: Callable[[], Any], shape: Shape) -> Any:
        """Rows times ``factor()`` (broadcast to ``shape``): an element-wise function's diagonal."""

    def elementwise(self, parts: Sequence[tuple[Any, Any, Callable[[], Any]]], to: Shape) -> Any:
        """``sum_k diag(d_k) J_k`` over arguments ``(value, J_k, d_k)`` broadcast to ``to``."""

    def along(self, jac: Any, shape: Shape, axis: int | None, reduce: Callable, keep: bool = False) -> Any:
        """``reduce`` of the Jacobian's rows along ``axis`` of ``shape`` (all of them for None)."""

    def binary(self, name: str, a: Any, ja: Any, b: Any, jb: Any) -> tuple[Any, Any]:
        """``(y, J)`` of a binary element-wise function of ``PARTIALS`` (an operator or a row)."""

    def matmul(self, a: Any, ja: Any, b: Any, jb: Any) -> tuple[Any, Any]:
        """``(y, J)`` of ``a @ b`` (vectors and matrices; a stack of matrices is not applicable)."""

    def stack(self, items: list, axis: int, join: Callable = tf.stack) -> tuple[Any, Any]:
        """``(y, J)`` of ``join`` (``tf.stack`` or ``tf.concat``) of ``(value, J)`` items along ``axis``."""


#: a declared fallback, in place of a rule: this method has no rule of its own for the function, and the tape
#: answers (``structured=TAPE``: the structured Jacobian is not applicable, and ``auto`` runs a tape method)
TAPE = "tape"
#: the methods with derivative rules of their own, each a field of the row holding a rule or ``TAPE``. Forward mode
#: (``tf.autodiff.ForwardAccumulator``) and second order (nested tapes, gradlib._second) differentiate every
#: function of the language with TensorFlow's own autodiff: they have no rules to hold. A method that adds rules
#: adds its name here and a field of that name to ``Operation`` (tests/language/test_operations.py checks each row).
RULED_METHODS = ("structured",)


def _unary(derivative: Callable[[Any, Any], Any], name: str) -> Callable:
    """An element-wise function's rule from its derivative ``dy/dx`` given ``(x, y)``."""
    def rule(jacobians: Jacobians, x):
        (value, jac) = x
        y = OPERATIONS[name].run(value)
        return y, jacobians.scale(jac, lambda: derivative(value, y), tuple(y.shape))
    return rule


_SQRT_2_OVER_PI = 2.0 / math.sqrt(math.pi)
_GELU_C = 0.7071067811865476


def _d_gelu(x, y):
    return 0.5 * tf.math.erfc(-x * _GELU_C) + 0.5 * x * _SQRT_2_OVER_PI * _GELU_C * tf.exp(-tf.square(x * _GELU_C))


def _zero(x, y):
    """A piecewise-constant function's derivative: TensorFlow's gradient is 0 (sign) or none at all (floor, round)."""
    return tf.zeros_like(x)


def _pow_exponent(a, b, y):
    positive = a > 0   # TensorFlow's PowGrad: log(a) where a > 0, else 0 (no false singularity at a = 0)
    return lambda: y * tf.where(positive, tf.math.log(tf.where(positive, a, tf.ones_like(a))), tf.zeros_like(a))


def _ones(a):
    return lambda: tf.ones_like(a)


#: binary element-wise functions (the operators and the rows maximum, minimum, pow, atan2): name -> (a, b, y) ->
#: (d/da, d/db), each a thunk (computed only when needed); ``Jacobians.binary`` reads it
PARTIALS: dict[str, Callable] = {
    "add": lambda a, b, y: (_ones(y), _ones(y)),
    "subtract": lambda a, b, y: (_ones(y), lambda: -tf.ones_like(y)),
    "multiply": lambda a, b, y: (lambda: b, lambda: a),
    "divide": lambda a, b, y: (lambda: 1 / b, lambda: -a / b / b),
    "pow": lambda a, b, y: (lambda: b * tf.pow(a, b - 1), _pow_exponent(a, b, y)),
    "maximum": lambda a, b, y: (lambda: tf.cast(a >= b, y.dtype), lambda: tf.cast(~(a >= b), y.dtype)),
    "minimum": lambda a, b, y: (lambda: tf.cast(a <= b, y.dtype), lambda: tf.cast(~(a <= b), y.dtype)),
    "atan2": lambda a, b, y: (lambda: b / (tf.square(a) + tf.square(b)), lambda: -a / (tf.square(a) + tf.square(b))),
}


def _binary_rule(name: str) -> Callable:
    def rule(jacobians: Jacobians, a, b):
        return jacobians.binary(name, *a, *b)
    return rule


def _atan2_rule(jacobians: Jacobians, a, b):
    (ya, ja), (xb, jb) = a, b
    y = tf.math.atan2(ya, xb)
    da, db = PARTIALS["atan2"](ya, xb, y)
    return y, jacobians.elementwise([(ya, ja, da), (xb, jb, db)], tuple(y.shape))


def _where_rule(jacobians: Jacobians, condition, x, y):
    (c, _), (a, ja), (b, jb) = condition, x, y
    out = tf.where(c, a, b)
    shape = tuple(out.shape)
    if ja is None and jb is None:
        return out, None
    ja, jb = (jacobians.dense(jacobians.broadcast(j, tuple(v.shape), shape), shape) for v, j in ((a, ja), (b, jb)))
    pick = tf.reshape(tf.broadcast_to(c, shape), [-1, 1])
    return out, tf.where(pick, ja, jb)


def _clip_rule(jacobians: Jacobians, x, lo, hi):
    low = jacobians.binary("maximum", *x, *lo)
    return jacobians.binary("minimum", *low, *hi)


def _matmul_rule(jacobians: Jacobians, a, b):
    return jacobians.matmul(*a, *b)


def _dot_rule(jacobians: Jacobians, a, b):
    if a[0].shape.rank == 0 or b[0].shape.rank == 0:
        return jacobians.binary("multiply", *a, *b)
    return jacobians.matmul(*a, *b)


def _sum_rule(jacobians: Jacobians, x, axis):
    value, jac = x
    return tf.reduce_sum(value, axis=axis), jacobians.along(jac, tuple(value.shape), axis, tf.reduce_sum)


def _mean_rule(jacobians: Jacobians, x, axis):
    value, jac = x
    shape = tuple(value.shape)
    count = math.prod(shape) if axis is None else shape[axis]
    summed = jacobians.along(jac, shape, axis, tf.reduce_sum)
    return tf.reduce_mean(value, axis=axis), None if summed is None else summed / count


def _weighted(weights: Callable[[Any, Any, Any], Any], name: str) -> Callable:
    """A reduction whose derivative along the axis is ``weights(x, y kept as x's rank, axis)``: logsumexp, norm."""
    def rule(jacobians: Jacobians, x, axis):
        value, jac = x
        y = OPERATIONS[name].run(value, axis)
        shape = tuple(value.shape)
        kept = tf.reshape(y, [1] * len(shape)) if axis is None else tf.expand_dims(y, axis)
        scaled = jacobians.scale(jac, lambda: weights(value, kept, axis), shape)
        return y, jacobians.along(scaled, shape, axis, tf.reduce_sum)
    return rule


def _logsumexp_weights(x, y, axis):
    """``softmax(x)`` along ``axis`` (all of x for None), as TensorFlow's tape computes it: ``exp(x - m) / sum``,
    ``m`` the largest element (0 where it is not finite). ``exp(x - y)`` is the same function but not the same
    number: ``y`` is rounded to its magnitude, so at ``x = [-1e9, -1e9]`` in float32 ``y`` is ``-1e9`` (log 2 is
    lost) and ``exp(x - y)`` gave ``[1, 1]`` where the derivative is ``[0.5, 0.5]`` (hunt 59)."""
    top = tf.reduce_max(x, axis=axis, keepdims=True)
    shifted = tf.exp(x - tf.where(tf.math.is_finite(top), top, tf.zeros_like(top)))
    return shifted / tf.reduce_sum(shifted, axis=axis, keepdims=True)


def _softmax_rule(jacobians: Jacobians, x, axis):
    value, jac = x
    y = tf.nn.softmax(value, axis=axis)
    if jac is None:
        return y, None
    shape = tuple(value.shape)
    t = jacobians.tensor(jac, shape)
    s = tf.expand_dims(y, -1)
    return y, jacobians.flat(s * (t - tf.reduce_sum(s * t, axis=axis % len(shape), keepdims=True)))


def _log_softmax_rule(jacobians: Jacobians, x, axis):
    value, jac = x
    y = tf.nn.log_softmax(value, axis=axis)
    if jac is None:
        return y, None
    shape = tuple(value.shape)
    t = jacobians.tensor(jac, shape)
    s = tf.expand_dims(tf.exp(y), -1)
    return y, jacobians.flat(t - tf.reduce_sum(s * t, axis=axis % len(shape), keepdims=True))


def _cross_entropy_rule(jacobians: Jacobians, labels, logits, axis):
    log_p = _log_softmax_rule(jacobians, logits, axis)
    product = jacobians.binary("multiply", *labels, *log_p)
    total = _sum_rule(jacobians, product, axis)
    return -total[0], jacobians.scale(total[1], lambda: tf.constant(-1.0, jacobians.dtype), tuple(total[0].shape))


def _transpose_rule(jacobians: Jacobians, x, perm):
    value, jac = x
    shape = tuple(value.shape)
    order = list(perm) if perm is not None else list(range(len(shape)))[::-1]
    y = tf.transpose(value, perm=order)
    return y, None if jac is None else jacobians.flat(tf.transpose(jacobians.tensor(jac, shape), [*order, len(shape)]))


def _reshape_rule(jacobians: Jacobians, x, shape):
    value, jac = x
    return tf.reshape(value, list(shape)), jac   # row-major: the rows keep their order


def _concat_rule(jacobians: Jacobians, values, axis):
    return jacobians.stack(values, axis, join=tf.concat)


def _stack_rule(jacobians: Jacobians, values, axis):
    return jacobians.stack(values, axis)


def _cumsum_rule(jacobians: Jacobians, x, axis):
    value, jac = x
    shape = tuple(value.shape)
    y = tf.math.cumsum(value, axis=axis)
    if jac is None:
        return y, None
    return y, jacobians.flat(tf.math.cumsum(jacobians.tensor(jac, shape), axis=axis % len(shape)))


# ---------------------------------------------------------------- the table

_ONE = "takes exactly one argument, like {}(x)"
_TWO = "takes exactly two arguments, like {}(a, b)"
_AXIS = "takes a tensor and an optional axis, like {0}(x) or {0}(x, axis=0)"


def _elementwise(name: str, op: str | Callable, derivative: Callable[[Any, Any], Any]) -> Operation:
    """An element-wise function of one argument, its structured rule from ``derivative(x, y)``: dy/dx."""
    return Operation(name, ("x",), _ONE.format(name), _same, op, structured=_unary(derivative, name))


def _reduction(name: str, op: str, structured: Callable | str, work: float = 0.0) -> Operation:
    return Operation(name, ("x", "axis"), _AXIS.format(name), _reduce, op, work=work, structured=structured)


#: what every step function's row says of its gradient (``notes`` names the functions called)
_STEP_NOTE = ("{names} piecewise constant: the derivative is 0 wherever there is one (there is none at the jumps), "
              "so every gradient through {them} is 0. That is the true derivative, not a failure; for a gradient "
              "that flows, use a smooth stand-in (like tanh(10*x) for sign(x))")


def _step(name: str, op: str) -> Operation:
    """A piecewise-constant function: its derivative is 0 wherever it is defined, and it has none at the steps."""
    return Operation(name, ("x",), _ONE.format(name), _same, op, note=_STEP_NOTE, structured=_unary(_zero, name))


#: name -> its row: the table. An element-wise row's derivative is dy/dx given (x, y), as TensorFlow computes it.
OPERATIONS: dict[str, Operation] = {row.name: row for row in [
    *(_elementwise(name, op, d) for name, op, d in [
        ("sin", "tf.sin", lambda x, y: tf.cos(x)), ("cos", "tf.cos", lambda x, y: -tf.sin(x)),
        ("tan", "tf.tan", lambda x, y: 1 / tf.square(tf.cos(x))), ("exp", "tf.exp", lambda x, y: y),
        ("log", "tf.math.log", lambda x, y: tf.math.reciprocal(x)), ("sqrt", "tf.sqrt", lambda x, y: 0.5 / y),
        ("tanh", "tf.tanh", lambda x, y: 1 - y * y), ("sigmoid", "tf.sigmoid", lambda x, y: y * (1 - y)),
        ("relu", "tf.nn.relu", lambda x, y: tf.cast(y > 0, y.dtype)), ("abs", "tf.abs", lambda x, y: tf.sign(x)),
        ("square", "tf.square", lambda x, y: 2 * x), ("softplus", "tf.nn.softplus", lambda x, y: tf.sigmoid(x)),
        ("log1p", "tf.math.log1p", lambda x, y: tf.math.reciprocal(1 + x)),
        ("expm1", "tf.math.expm1", lambda x, y: tf.exp(x)),
        ("erf", "tf.math.erf", lambda x, y: _SQRT_2_OVER_PI * tf.exp(-tf.square(x))), ("gelu", gelu, _d_gelu),
        ("elu", "tf.nn.elu", lambda x, y: tf.where(y > 0, tf.ones_like(y), y + 1)),
        ("sinh", "tf.sinh", lambda x, y: tf.cosh(x)), ("cosh", "tf.cosh", lambda x, y: tf.sinh(x)),
        ("atan", "tf.atan", lambda x, y: tf.math.reciprocal(1 + tf.square(x))),
        ("asin", "tf.asin", lambda x, y: tf.math.rsqrt(1 - tf.square(x))),
        ("acos", "tf.acos", lambda x, y: -tf.math.rsqrt(1 - tf.square(x)))]),
    *(_step(name, op) for name, op in [("sign", "tf.sign"), ("floor", "tf.floor"), ("round", "tf.round")]),
    _reduction("sum", "tf.reduce_sum", _sum_rule),
    _reduction("mean", "tf.reduce_mean", _mean_rule),
    _reduction("prod", "tf.reduce_prod", TAPE),
    _reduction("max", "tf.reduce_max", TAPE),
    _reduction("min", "tf.reduce_min", TAPE),
    _reduction("logsumexp", "tf.reduce_logsumexp", _weighted(_logsumexp_weights, "logsumexp"), work=4),
    # the L2 norm: sqrt(sum(x * x)) over all elements, or along axis
    _reduction("norm", "tf.norm", _weighted(lambda x, y, axis: x / y, "norm"), work=1),
    Operation("maximum", ("a", "b"), _TWO.format("maximum"), _broadcast, "tf.maximum",
              structured=_binary_rule("maximum")),
    Operation("minimum", ("a", "b"), _TWO.format("minimum"), _broadcast, "tf.minimum",
              structured=_binary_rule("minimum")),
    Operation("pow", ("a", "b"), _TWO.format("pow"), _broadcast, "tf.pow", structured=_binary_rule("pow")),
    Operation("atan2", ("y", "x"), "takes exactly two arguments, like atan2(y, x)", _broadcast, "tf.math.atan2",
              structured=_atan2_rule),
    Operation("where", ("condition", "x", "y"), "takes a comparison and two values, like where(x > 0, sqrt(x), 0)",
              _where, "tf.where", structured=_where_rule),
    Operation("matmul", ("a", "b"), _TWO.format("matmul"), _matmul, matmul, structured=_matmul_rule),
    Operation("dot", ("a", "b"), _TWO.format("dot"), _dot, dot, structured=_dot_rule),
    Operation("clip", ("x", "lo", "hi"), "takes exactly three arguments, like clip(x, lo, hi)", _clip, clip,
              work=1, structured=_clip_rule),
    Operation("softmax", ("x", "axis"), _AXIS.format("softmax"), _along, "tf.nn.softmax", default_axis=-1, work=4,
              structured=_softmax_rule),
    Operation("log_softmax", ("x", "axis"), _AXIS.format("log_softmax"), _along, "tf.nn.log_softmax",
              default_axis=-1, work=4, structured=_log_softmax_rule),
    Operation("cross_entropy", ("labels", "logits", "axis"), "takes labels, logits and an optional axis, like "
              "cross_entropy(p, z) or cross_entropy(p, z, axis=0)", _cross_entropy, cross_entropy,
              default_axis=-1, work=6, structured=_cross_entropy_rule),
    Operation("transpose", ("x", "perm"), "takes a tensor and an optional order of its axes written out, like "
              "transpose(W) or transpose(x, [0, 2, 1])", _transpose, "tf.transpose", structured=_transpose_rule),
    Operation("reshape", ("x", "shape"), "takes a tensor and a shape written out, like reshape(x, [2, 3])",
              _reshape, "tf.reshape", structured=_reshape_rule),
    Operation("concat", ("values", "axis"), "takes a list of values and an optional axis, like concat([a, b]) "
              "or concat([a, b], axis=1)", _concat, "tf.concat", default_axis=0, structured=_concat_rule),
    Operation("stack", ("values", "axis"), "takes a list of values and an optional axis, like stack([a, b]) "
              "or stack([a, b], axis=1)", _stack, "tf.stack", default_axis=0, structured=_stack_rule),
    Operation("cumsum", ("x", "axis"), _AXIS.format("cumsum"), _scan, "tf.math.cumsum", default_axis=0,
              structured=_cumsum_rule),
]}
#: name -> the TensorFlow function (or helper) it runs
FUNCTIONS: dict[str, str] = {row.name: row.spelling for row in OPERATIONS.values()}
