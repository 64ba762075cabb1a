"""The gradient methods, each a function of ``f(xs, cs) -> y``, the watched tensors ``xs`` and the
unwatched constants ``cs``; each returns ``(y, J)`` with ``J`` of shape ``(y.size, n)``, where ``n``
counts the elements of ``xs``, flattened in order. They run eagerly or inside ``tf.function``. One reads ``f``
instead of calling it: ``structured`` assembles the Jacobian from function text's operations, which ``f`` carries
(``gradlib._perelement._structured``), or from the ops of a callable's trace (``gradlib._perelement._opgraph``).

>>> import tensorflow as tf
>>> y, J = jacobian(lambda xs, cs: xs[0] * xs[0], [tf.constant([1.0, 2.0])], [])
>>> J.numpy().tolist()
[[2.0, 0.0], [0.0, 4.0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import tensorflow as tf

from .._callable._trace import trace
from . import _opgraph
from ._structured import structured as typed_structured

__all__ = ["CORRECT_METHODS", "METHODS", "TABLE", "ZERO", "Method", "compile_method", "Fn", "forward", "forward_columns",
           "forward_loop", "jacobian", "jacobian_rows", "naive", "structured", "summed", "unstack"]

Fn = Callable[[list, list], tf.Tensor]
ZERO = tf.UnconnectedGradients.ZERO


def _size(x: tf.Tensor) -> int:
    return int(x.shape.num_elements())


def _flat(y: tf.Tensor) -> tf.Tensor:
    return tf.reshape(y, [-1])


def _row(grads: Sequence[tf.Tensor]) -> tf.Tensor:
    """One Jacobian row from the per-input gradients of one output element."""
    return tf.concat([tf.reshape(g, [-1]) for g in grads], axis=0)


def unstack(f: Fn, xs: list, cs: list):
    """The seed's accepted answer: unstack *inside* a persistent tape, one backward pass per element."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = f(xs, cs)
        elements = tf.unstack(_flat(y))
    rows = [_row(tape.gradient(y_i, xs, unconnected_gradients=ZERO)) for y_i in elements]
    return y, tf.stack(rows)


def jacobian(f: Fn, xs: list, cs: list):
    """Reverse mode, all rows at once: one backward pass per one-hot cotangent, vectorized by pfor.

    This is what ``tape.jacobian`` computes, but pfor vectorizes ``tape.gradient(y, xs, output_gradients=e_i)``
    directly instead of gathering ``y[i]`` inside the loop: about a third fewer ops to trace, and the same
    numbers. Ops that pfor cannot convert fall back to a ``while_loop``, as in ``tape.jacobian``.
    """
    return jacobian_rows(f, xs, cs, None)


def jacobian_rows(f: Fn, xs: list, cs: list, rows: tf.Tensor | None):
    """The Jacobian's ``rows`` (an int32 vector; ``None``: every row): only those reverse passes, vectorized."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = f(xs, cs)
    m = _size(y)

    def vjp(cotangent):
        grads = tape.gradient(y, xs, output_gradients=tf.reshape(cotangent, tf.shape(y)), unconnected_gradients=ZERO)
        return _row(grads)

    basis = tf.eye(m, dtype=y.dtype) if rows is None else tf.one_hot(rows, m, dtype=y.dtype)
    return y, tf.vectorized_map(vjp, basis, warn=False)


def _tangents(basis_row: tf.Tensor, xs: list) -> list:
    parts = tf.split(basis_row, [_size(x) for x in xs])
    return [tf.cast(tf.reshape(p, tf.shape(x)), x.dtype) for p, x in zip(parts, xs)]


def forward(f: Fn, xs: list, cs: list):
    """Forward mode: one ``ForwardAccumulator`` pass per watched element, vectorized with pfor."""
    return forward_columns(f, xs, cs, None)


def forward_columns(f: Fn, xs: list, cs: list, columns: tf.Tensor | None):
    """The Jacobian's ``columns`` (an int32 vector; ``None``: every column): those forward passes, vectorized."""
    n = sum(_size(x) for x in xs)

    def jvp(basis_row):
        with tf.autodiff.ForwardAccumulator(xs, _tangents(basis_row, xs)) as acc:
            y = f(xs, cs)
        return _flat(acc.jvp(y, unconnected_gradients=ZERO))

    basis = tf.eye(n, dtype=xs[0].dtype) if columns is None else tf.one_hot(columns, n, dtype=xs[0].dtype)
    return f(xs, cs), tf.transpose(tf.vectorized_map(jvp, basis, warn=False))


def forward_loop(f: Fn, xs: list, cs: list):
    """Forward mode for tiny eager problems: a Python loop of ``ForwardAccumulator`` passes (no tracing)."""
    n = sum(_size(x) for x in xs)
    eye = tf.eye(n, dtype=xs[0].dtype)
    columns = []
    for k in range(n):
        with tf.autodiff.ForwardAccumulator(xs, _tangents(eye[k], xs)) as acc:
            y = f(xs, cs)
        columns.append(_flat(acc.jvp(y, unconnected_gradients=ZERO)))
    return y, tf.stack(columns, axis=1)


def naive(f: Fn, xs: list, cs: list):
    """The bug, reproduced exactly: the loop over ``y`` runs *after* the tape has stopped recording."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = f(xs, cs)
    # Iterating a tensor runs unstack/strided_slice outside the tape: nothing links y_i to xs.
    rows = [_row(tape.gradient(y_i, xs, unconnected_gradients=ZERO)) for y_i in _flat(y)]
    return y, tf.stack(rows)


def summed(f: Fn, xs: list, cs: list):
    """``tape.gradient(y, xs)``: the gradient of the *sum* of y, a single row (the Jacobian's column sums)."""
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = f(xs, cs)
    return y, _row(tape.gradient(y, xs, unconnected_gradients=ZERO))[None, :]


def structured(f: Fn, xs: list, cs: list):
    """The structured Jacobian: from function text's operations (``gradlib._perelement._structured``), or from the
    ops of a callable's trace (``gradlib._perelement._opgraph``), which refuses an op without a rule."""
    if getattr(f, "structure", None) is not None:
        return typed_structured(f, xs, cs)
    return _opgraph.from_graph(f, xs, cs)


def compile_method(method: Callable, f: Fn, xs: list, cs: list, *, jit_compile: bool = False):
    """``method`` on ``f``, traced once into a concrete function for exactly these shapes and dtypes.

    ``xs`` and ``cs`` may be tensors or ``tf.TensorSpec``: only their shapes and dtypes are kept.
    ``jit_compile=True`` asks XLA to fuse the graph: slower to build, faster to run on large problems
    (``gradlib._perelement._compiled`` measures both before keeping XLA). The options: ``_callable._trace.trace``.
    """
    signature = [[tf.TensorSpec(x.shape, x.dtype) for x in xs], [tf.TensorSpec(c.shape, c.dtype) for c in cs]]
    return trace(lambda xs, cs: method(f, xs, cs), signature, jit_compile=jit_compile)


# ---------------------------------------------------------------- the table every stage reads


@dataclass(frozen=True)
class Method:
    """One row of the methods table: how a method computes, what it costs in passes, and what it means.

    The engine (``_compute``: eager, compiled and chunked runs; ``_engine``: which of them runs), the cost
    plan (``_plan``: eager passes), the result (broken, per element, the reason) and the app (its labels) all
    read this table, so adding a method is one row here.
    """

    name: str
    eager: Callable | None            # the eager computation; None for ``auto``, which picks another row
    compiled: Callable | None = None  # what is traced when it runs compiled; None: never compiled
    chunked: Callable | None = None   # the same vectorized passes for a subset of rows or columns
    passes: str = ""                  # an eager loop's passes: one per "outputs" or per "inputs"; "" when none
    correct: bool = True              # gives the true per-element gradients
    per_element: bool = True          # one row per output element (``summed`` has one row: sum(y))
    what: str = ""                    # a few words: what it computes
    reason: str = ""                  # why the result is wrong, for the rows that are
    mode: str = "reverse"             # how it differentiates: "reverse" or "forward" (what NaN poisoning means)


#: the gradient methods, one ``Method`` row each by name (public as ``gradlib.METHOD_TABLE``)
TABLE = {m.name: m for m in (
    Method("unstack", unstack, compiled=unstack, passes="outputs", what="per element, reverse mode"),
    Method("jacobian", jacobian, compiled=jacobian, chunked=jacobian_rows, what="tape.jacobian"),
    Method("forward", forward_loop, compiled=forward, chunked=forward_columns, passes="inputs", what="forward mode",
           mode="forward"),
    Method("structured", structured, compiled=structured, what="from the function's structure", mode="forward"),
    Method("naive", naive, passes="outputs", correct=False, what="the broken loop: zeros",
           reason="the loop `for y_i in y` ran after the tape stopped recording, so the slices y_i are new "
                  "tensors the tape never saw: every gradient is unconnected (zero, or None by default)"),
    Method("summed", summed, correct=False, per_element=False, what="tape.gradient: column sums",
           reason="tape.gradient(y, x) differentiates the sum of y's elements: this row is the column sums "
                  "of the Jacobian, not the gradient of any one element"),
    Method("auto", None, what="gradlib's choice"),
)}

#: every method, in the order the app lists them (one row of ``TABLE`` each)
METHODS = tuple(TABLE)
#: the methods that give the true per-element gradients (``auto`` picks one of them)
CORRECT_METHODS = tuple(name for name, m in TABLE.items() if m.correct and m.eager is not None)
