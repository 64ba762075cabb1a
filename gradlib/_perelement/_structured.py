"""A typed function's Jacobian assembled from its structure: forward "Jacobian propagation" over the checked tree.

A typed function is not a black box: gradlib parsed it and knows every operation. Each node's value and its
Jacobian with respect to the watched inputs (``node.size x n``) follow from its arguments' by one rule per
operation: for ``y = f(g(x))``, ``J = J_f · J_g``. An element-wise function scales the rows of its argument's
Jacobian (the diagonal is carried as a vector, never built as an ``n x n`` matrix), ``W @ h`` with ``W``
constant multiplies by ``W``, ``sum`` and ``mean`` add rows, a reshape keeps them and a transpose or an index
permutes them. A watched input's Jacobian is a scaled identity block, kept as its diagonal until an operation
needs the matrix, so ``W1 @ x`` is ``W1`` itself. For ``tanh(W2 @ tanh(W1 @ x))`` this computes
``diag(1 - y**2) W2 diag(1 - h**2) W1``: one matrix product and two row scalings, where the tape runs one
backward pass per output.

Each operation's rule is written in its row of the operations table (``gradlib._language._operations``, beside
its value, shape and code); this module is the algebra the rules use (``Jacobians``) and the walk over the tree.
The rules mirror TensorFlow's own gradients (``relu`` is 0 at 0, ``maximum`` takes ties to its first argument,
``pow``'s exponent has the derivative 0 where the base is not positive), so the numbers are the tape's. An
operation without a rule (a row declaring ``structured=TAPE``: ``prod``, ``max``, ``min``; a stack of matrices
under ``@``) makes the method refuse with ``NotApplicable`` (an ``ExpressionError``), which the engine reads as
"not applicable": ``auto`` then runs the tape methods. So does a Jacobian with a NaN or an infinity in it: the tape methods, with their repair of
poisoned rows, say what such a cell means.

It is the row ``structured`` of the methods table (``gradlib._perelement._methods``): compiled like the others,
traced once per problem signature (``gradlib._callable._trace.trace``) into the engine's bounded compiled cache, and
costed by ``gradlib._perelement._cost.structured``; ``auto`` takes it where that estimate wins
(``gradlib._perelement._engine``). A callable's trace is walked with the same algebra (``algebra``), op by op
(``gradlib._perelement._opgraph``).

>>> import tensorflow as tf
>>> from gradlib._language._syntax import parse
>>> y, J = propagate(parse("tanh(x) * 2", {"x": (2,)}), ["x"], [], [tf.constant([0.0, 0.0])], [])
>>> J.numpy().tolist()
[[2.0, 0.0], [0.0, 2.0]]
"""

from __future__ import annotations

import ast
import math
from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from .._foundations._errors import ExpressionError, error_gist
from .._language._operations import OPERATIONS, PARTIALS
from .._language._syntax import arguments, constant_value

__all__ = ["CALLABLE_REFUSAL", "NotApplicable", "RULES", "RuleFailed", "algebra", "finite", "propagate", "structured",
           "unsupported"]

Shape = tuple[int, ...]


class NotApplicable(ExpressionError):
    """The structured Jacobian does not cover this function (an operation without a rule, or a callable): ``auto``
    runs a tape method instead; asked for by name, the method is refused with this (``compare`` leaves it out and
    says why)."""


class RuleFailed(NotApplicable):
    """A rule could not place its arguments' Jacobians (TensorFlow refused a reshape, or the rows do not match the
    value): a gap in the rule, not in the function. ``auto`` runs a tape method instead; ``compare`` shows the
    method as failed, with this reason."""


# ---------------------------------------------------------------- a Jacobian: None (zero), an identity block, a matrix


class _Eye:
    """The Jacobian of a watched input (or of an element-wise function of it): ``diag(d)`` in the columns from
    ``offset``; ``d`` None stands for ones."""

    def __init__(self, d: tf.Tensor | None, offset: int, size: int):
        self.d, self.offset, self.size = d, offset, size

    def diagonal(self, dtype) -> tf.Tensor:
        return tf.ones([self.size], dtype) if self.d is None else self.d


def _place(block: tf.Tensor, offset: int, n: int) -> tf.Tensor:
    """``block``'s columns placed from column ``offset`` of ``n``, zeros elsewhere."""
    width = block.shape[1]
    return block if offset == 0 and width == n else tf.pad(block, [[0, 0], [offset, n - offset - width]])


class _Walker:
    """Evaluates a checked tree's values and Jacobians (``n`` columns) on TensorFlow tensors."""

    def __init__(self, env: dict[str, tuple[tf.Tensor, Any]], n: int, dtype):
        self.env, self.n, self.dtype = env, n, dtype

    # ------------------------------------------------------------ the Jacobian's algebra

    def dense(self, jac: Any, shape: Shape) -> tf.Tensor:
        size = math.prod(shape)
        if jac is None:
            return tf.zeros([size, self.n], self.dtype)
        if isinstance(jac, _Eye):
            return _place(tf.linalg.diag(jac.diagonal(self.dtype)), jac.offset, self.n)
        return jac

    def tensor(self, jac: Any, shape: Shape) -> tf.Tensor:
        """The Jacobian as a tensor of shape ``shape + (n,)``."""
        return tf.reshape(self.dense(jac, shape), [*shape, self.n])

    def flat(self, jac: tf.Tensor) -> tf.Tensor:
        return tf.reshape(jac, [-1, self.n])

    def broadcast(self, jac: Any, shape: Shape, to: Shape) -> Any:
        if jac is None or shape == to:
            return jac
        return self.flat(tf.broadcast_to(self.tensor(jac, shape), [*to, self.n]))

    def scale(self, jac: Any, factor: Callable[[], tf.Tensor], shape: Shape) -> Any:
        """Rows times ``factor()`` (broadcast to ``shape``): an element-wise function's diagonal."""
        if jac is None:
            return None
        g = tf.reshape(tf.broadcast_to(factor(), shape), [-1])
        if isinstance(jac, _Eye):
            return _Eye(g if jac.d is None else jac.d * g, jac.offset, jac.size)
        return jac * g[:, None]

    def add(self, a: Any, b: Any, shape: Shape) -> Any:
        if a is None or b is None:
            return b if a is None else a
        if isinstance(a, _Eye) and isinstance(b, _Eye) and a.offset == b.offset:
            return _Eye(a.diagonal(self.dtype) + b.diagonal(self.dtype), a.offset, a.size)
        return self.dense(a, shape) + self.dense(b, shape)

    def elementwise(self, parts: Sequence[tuple[tf.Tensor, Any, Callable[[], tf.Tensor]]], to: Shape) -> Any:
        """``sum_k diag(d_k) J_k`` over arguments ``(value, J_k, d_k)`` broadcast to ``to``."""
        total = None
        for value, jac, factor in parts:
            total = self.add(total, self.scale(self.broadcast(jac, tuple(value.shape), to), factor, to), to)
        return total

    def along(self, jac: Any, shape: Shape, axis: int | None, reduce: Callable, keep: bool = False) -> Any:
        """``reduce`` of the Jacobian's rows along ``axis`` of ``shape`` (all of them for None)."""
        if jac is None:
            return None
        if axis is None:
            if isinstance(jac, _Eye):
                return _place(jac.diagonal(self.dtype)[None, :], jac.offset, self.n)
            return reduce(jac, axis=0, keepdims=True)
        return self.flat(reduce(self.tensor(jac, shape), axis=axis % len(shape), keepdims=keep))

    # ------------------------------------------------------------ the nodes

    def visit(self, node: ast.expr) -> tuple[tf.Tensor, Any]:
        return getattr(self, f"_{type(node).__name__}")(node)

    def _Constant(self, node: ast.Constant):
        return tf.constant(constant_value(node), dtype=self.dtype), None

    def _Name(self, node: ast.Name):
        return self.env[node.id]

    def _UnaryOp(self, node: ast.UnaryOp):
        value, jac = self.visit(node.operand)
        if not isinstance(node.op, ast.USub):
            return value, jac
        return -value, self.scale(jac, lambda: tf.constant(-1.0, self.dtype), tuple(value.shape))

    def _Compare(self, node: ast.Compare):   # only ever where()'s condition: a value without a gradient
        (a, _), (b, _) = self.visit(node.left), self.visit(node.comparators[0])
        return _COMPARE[type(node.ops[0])](a, b), None

    def _BinOp(self, node: ast.BinOp):
        (a, ja), (b, jb) = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.MatMult):
            return self.matmul(a, ja, b, jb)
        name = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "pow"}[
            type(node.op)]
        return self.binary(name, a, ja, b, jb)

    def binary(self, name: str, a, ja, b, jb):
        y = getattr(tf.math, name)(a, b) if name != "pow" else tf.pow(a, b)
        da, db = PARTIALS[name](a, b, y)
        return y, self.elementwise([(a, ja, lambda: da()), (b, jb, lambda: db())], tuple(y.shape))

    def matmul(self, a, ja, b, jb):
        ra, rb = a.shape.rank, b.shape.rank
        if ra > 2 or rb > 2:
            raise NotApplicable(f"@ of values of shapes {tuple(a.shape)} and {tuple(b.shape)}: the structured "
                                "Jacobian covers vectors and matrices, not stacks of matrices")
        y = OPERATIONS["matmul"].run(a, b)
        return y, self.product(a, ja, b, jb, tuple(y.shape))

    def product(self, a, ja, b, jb, shape: Shape):
        """The Jacobian of ``a @ b`` (vectors and matrices, of ``shape``): ``a @ J_b + J_a @ b``."""
        left = None if jb is None else self._constant_left(a, jb, tuple(b.shape))
        right = None if ja is None else self._constant_right(ja, tuple(a.shape), b)
        return self.add(left, right, shape)

    def _constant_left(self, a, jb, b_shape: Shape):
        """``a @ J_b``: rows of ``b`` mixed by ``a``."""
        if len(b_shape) == 1 and isinstance(jb, _Eye):   # a @ diag(d): a's columns scaled, in place
            a2 = a if a.shape.rank == 2 else a[None, :]
            return _place(a2 * jb.diagonal(self.dtype)[None, :], jb.offset, self.n)
        k = b_shape[0]
        jb = tf.reshape(self.dense(jb, b_shape), [k, -1])   # (k, q * n)
        mixed = tf.linalg.matmul(a if a.shape.rank == 2 else a[None, :], jb)
        return self.flat(mixed)

    def _constant_right(self, ja, a_shape: Shape, b):
        """``J_a @ b``: each row of ``a`` times ``b``."""
        if len(a_shape) == 1 and isinstance(ja, _Eye):   # diag(d) @ b: b's rows scaled, transposed, in place
            b2 = b if b.shape.rank == 2 else b[:, None]
            return _place(tf.transpose(b2) * ja.diagonal(self.dtype)[None, :], ja.offset, self.n)
        t = self.tensor(ja, a_shape)   # (p, k, n) or (k, n)
        spec = {(2, 2): "pkn,kq->pqn", (2, 1): "pkn,k->pn", (1, 2): "kn,kq->qn", (1, 1): "kn,k->n"}[
            (len(a_shape), b.shape.rank)]
        return self.flat(tf.einsum(spec, t, b))

    def _List(self, node: ast.List):
        return self.stack([self.visit(e) for e in node.elts], 0)

    def stack(self, items: list, axis: int, join: Callable = tf.stack):
        """``join`` (stack or concat) of the values and of their Jacobians, each piece at its own shape: concat's
        pieces differ in size along ``axis``."""
        values = [v for v, _ in items]
        y = join(values, axis=axis)
        if all(j is None for _, j in items):
            return y, None
        rank = values[0].shape.rank + (join is tf.stack)
        return y, self.flat(join([self.tensor(j, tuple(v.shape)) for v, j in items], axis=axis % rank))

    def _Subscript(self, node: ast.Subscript):
        value, jac = self.visit(node.value)
        index = _index(node)
        y = value[index]
        return y, None if jac is None else self.flat(self.tensor(jac, tuple(value.shape))[index])

    def _Call(self, node: ast.Call):
        name = node.func.id
        if name not in RULES:
            raise NotApplicable(_no_rule(name))
        operation, values = arguments(node, self.visit)
        try:
            y, jac = RULES[name](self, *values)
        except (ValueError, tf.errors.InvalidArgumentError) as exc:   # a piece the rule could not place
            raise RuleFailed(_misplaced(name, values, f"TensorFlow said: {error_gist(exc)}")) from exc
        rows = None if jac is None else jac.size if isinstance(jac, _Eye) else jac.shape[0]
        if rows is not None and rows != y.shape.num_elements():
            raise RuleFailed(_misplaced(name, values, f"its Jacobian has {rows} rows for {y.shape.num_elements()} "
                                                         "values"))
        return y, jac


#: the comparisons of where()'s condition, as the language's builder computes them
_COMPARE = {ast.Gt: tf.math.greater, ast.Lt: tf.math.less, ast.GtE: tf.math.greater_equal,
            ast.LtE: tf.math.less_equal, ast.Eq: tf.math.equal, ast.NotEq: tf.math.not_equal}


def _index(node: ast.Subscript) -> tuple:
    """The index of a checked subscript (whole numbers and slices written out, as the builder reads them)."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return tuple(slice(*(_whole(p) for p in (i.lower, i.upper, i.step))) if isinstance(i, ast.Slice) else _whole(i)
                 for i in items)


def _whole(node: ast.expr | None) -> int | None:
    """A whole number written out (``3``, ``-1``); None for no node. The checked tree has no other kind here."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_whole(node.operand)
    return int(node.value)


def _misplaced(name: str, values: Sequence, why: str) -> str:
    """Why the rule of ``name`` could not place its arguments' Jacobians (a bug of the rule: auto runs the tape)."""
    def shape(a):
        return tuple(a[0].shape) if isinstance(a, tuple) and tf.is_tensor(a[0]) else None

    shapes = [[shape(v) for v in a] if isinstance(a, list) and a and shape(a[0]) else shape(a) for a in values]
    shapes = [s for s in shapes if s is not None]
    return (f"the structured rule of {name}() could not place the Jacobians of its arguments of shapes "
            f"{', '.join(map(str, shapes))} ({why}); use method='auto', which takes a tape method then")


def _no_rule(name: str) -> str:
    return (f"{name}() has no rule in the structured Jacobian (its row in gradlib._language._operations.OPERATIONS "
            "declares structured=TAPE)")


#: operation name -> its rule ``(walker, *arguments) -> (value, J)``: each row's ``structured`` rule of the operations
#: table (``gradlib._language._operations``, where rules are written), an index read at every call. A row that
#: declares ``TAPE`` has none, and the method refuses a function that calls it.
RULES: dict[str, Callable] = {name: row.structured for name, row in OPERATIONS.items() if callable(row.structured)}


# ---------------------------------------------------------------- the method


def unsupported(program) -> str:
    """Why the structured Jacobian does not cover ``program`` ("" when every operation it calls has a rule)."""
    missing = sorted(name for name in program.functions if name not in RULES)
    return _no_rule(missing[0]) if missing else ""


def algebra(xs: Sequence[tf.Tensor]) -> tuple[_Walker, list]:
    """The Jacobian algebra over the watched ``xs`` (``n`` columns, their dtype) and each x's own Jacobian: an
    identity block in its columns, kept as its diagonal. The walk over a typed tree (``propagate``) and over a
    callable's traced graph (``gradlib._perelement._opgraph``) both start here."""
    n = sum(int(x.shape.num_elements()) for x in xs)
    blocks, offset = [], 0
    for x in xs:
        size = int(x.shape.num_elements())
        blocks.append(_Eye(None, offset, size))
        offset += size
    return _Walker({}, n, xs[0].dtype), blocks


def propagate(program, x_names: Sequence[str], c_names: Sequence[str], xs: list, cs: list):
    """``(y, J)`` of ``program`` at the watched ``xs`` (named ``x_names``) and constants ``cs`` (``c_names``,
    cast to the watched dtype as the problem's own function does), ``J`` of shape ``(y.size, n)``."""
    walker, blocks = algebra(xs)
    walker.env.update({name: (x, block) for name, x, block in zip(x_names, xs, blocks)})
    walker.env.update({name: (tf.cast(c, walker.dtype), None) for name, c in zip(c_names, cs)})
    y, jac = walker.visit(program.tree)
    return y, walker.dense(jac, tuple(y.shape))


def structured(f: Callable, xs: list, cs: list):
    """``(y, J)`` of function text's ``f`` from its structure, read from ``f.structure``
    (``gradlib._perelement._problem``); a callable has none and is refused here (the methods table's row
    ``structured`` reads a callable's trace instead: ``gradlib._perelement._opgraph``)."""
    structure = getattr(f, "structure", None)
    if structure is None:
        raise NotApplicable(CALLABLE_REFUSAL)
    program, x_names, c_names = structure
    why = unsupported(program)
    if why:
        raise NotApplicable(why)
    return propagate(program, x_names, c_names, xs, cs)


#: why this walk over a typed tree cannot take a callable
CALLABLE_REFUSAL = ("the structured Jacobian of a typed function reads its operations, and a Python callable shows "
                    "none: its trace is read by gradlib._perelement._opgraph")


def finite(*arrays: np.ndarray) -> bool:
    """Whether every cell is finite: otherwise the tape methods (and their repair) answer instead."""
    return all(np.isfinite(a).all() for a in arrays)
