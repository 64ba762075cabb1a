"""The user's function written the correct way in TensorFlow: runnable code to copy.

The code is generated from the *checked* syntax tree, so nothing reaches it that the language refused.
"""

from __future__ import annotations

import ast
import inspect
import math
import numbers
import re
import textwrap
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .._foundations._errors import ExpressionError
from .._foundations._limits import LIMITS, Limits
from ._inputs import Input, check_inputs, compute_dtype
from ._branches import guarded
from ._syntax import arguments, parse
from ._operations import helpers

__all__ = ["MAX_LITERAL_ELEMENTS", "CODE_NAMES", "code_names", "tensorflow_code"]

#: inputs with more elements than this are written as random placeholders, not literal values
MAX_LITERAL_ELEMENTS = 64

#: names the generated scripts (first and second order) bind or read: an input with one of these names is renamed
CODE_NAMES = frozenset({"tf", "watched", "matmul", "f", "tape", "y", "y_elements", "y_i", "rows", "jacobian", "g",
                      "row", "j", "print", "outer", "inner", "gradients", "hessian", "h"})


def tensorflow_code(outputs: str, inputs: Mapping[str, Any], *, watch: Sequence[str] | None = None,
                    dtype: str | Mapping[str, str] = "float32", limits: Limits = LIMITS, order: int = 1) -> str:
    """TensorFlow code computing the per-element gradients of ``outputs``, both correct ways; with ``order=2``,
    the Hessian of each element, with nested tapes the right way round.

    ``limits`` are the same as ``evaluate``'s and ``compare``'s: a server passes its own, so that one request
    meets one limit set whichever door it takes.

    >>> print(tensorflow_code("x * x", {"x": [1.0, 2.0]}).splitlines()[-1])
    print("jacobian:", [j.numpy().tolist() for j in jacobian])
    >>> print(tensorflow_code("x * x", {"x": [1.0, 2.0]}, order=2).splitlines()[-1])
    print("hessian:", hessian.numpy().tolist())
    """
    _check_order(order)
    checked = check_inputs(inputs, watch=watch, dtype=dtype, limits=limits)
    if order == 2:
        _check_watched_floats(checked)
    program = parse(outputs, {i.name: i.shape for i in checked}, limits=limits)
    names = code_names([i.name for i in checked])
    params = ", ".join(names[i.name] for i in checked)
    if order == 2:
        return "\n".join(_function(program, checked, names, limits) + _hessian(params))
    outputs = math.prod(program.shape)
    return "\n".join(_function(program, checked, names, limits) + _jacobian(params, outputs, limits.max_eager_passes))


def _function(program, checked: Sequence[Input], names: Mapping[str, str], limits: Limits) -> list[str]:
    """The script's head: the inputs, the helpers it calls and ``f``, the user's function."""
    safe = guarded(program, {i.name: i.shape for i in checked}, limits)   # where()'s branches not taken, guarded
    tf_dtype = f"tf.{compute_dtype(checked)}"
    body = _Writer(names, tf_dtype).visit((safe or program).tree)
    watched = [names[i.name] for i in checked if i.watched]
    params = ", ".join(names[i.name] for i in checked)
    lines = ["import tensorflow as tf", ""]
    lines += [_constant(i, names[i.name], tf_dtype) for i in checked]
    lines += [f"# input {old!r} is called {new} here: this script uses the name {old} itself"
              for old, new in names.items() if old != new]
    lines += [f"watched = [{', '.join(watched)}]", ""]
    for source in _helpers(body):
        lines += source.strip("\n").splitlines() + [""]
    lines += [f"def f({params}):"]
    lines += [f"    {names[i.name]} = tf.cast({names[i.name]}, {tf_dtype})  # integer tensors get no gradient"
              for i in checked if i.dtype.startswith("int")]
    if safe is not None:
        lines += ["    # where() differentiates the branch it does not take as well: 0 times an infinite derivative",
                  "    # there is NaN (under XLA even for sqrt: tensorflow/tensorflow#118674). The risky inputs are",
                  "    # guarded so that they are finite where not taken; the values are the same. Unguarded:",
                  f"    # return {_Writer(names, tf_dtype).visit(program.tree)}"]
    return lines + [f"    return {body}", ""]


def _jacobian(params: str, outputs: int, max_passes: int) -> list[str]:
    """Both correct ways; one backward pass per element only when gradlib would run that many (``max_passes``)."""
    if outputs > max_passes:   # the loop gradlib refuses for this many outputs (method 'unstack'): not offered
        loop = [f"# y has {outputs:,} elements: one backward pass per element (unstack inside the tape) would run",
                f"# {outputs:,} eager passes, more than the {max_passes:,} gradlib allows; the vectorized Jacobian",
                "# gives every element's gradient at once (row k of the Jacobian is the gradient of y[k]).", ""]
        prints = []
    else:
        loop = [
            "# 1. Per element: unstack INSIDE the tape (iterating y after the block gives zeros).",
            "with tf.GradientTape(persistent=True) as tape:",
            "    tape.watch(watched)",
            f"    y = f({params})",
            "    y_elements = tf.unstack(tf.reshape(y, [-1]))",
            "rows = [tape.gradient(y_i, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)",
            "        for y_i in y_elements]",
            "del tape",
            "",
        ]
        prints = ['print("rows:", [[g.numpy().tolist() for g in row] for row in rows])']
    return loop + [   # each line fits the playground's code box at 1366 px (about 94 characters)
        "# 2. All at once, vectorized: the Jacobian, shape y.shape + x.shape for each watched x." if prints else
        "# All at once, vectorized: the Jacobian, shape y.shape + x.shape for each watched x.",
        "with tf.GradientTape() as tape:",
        "    tape.watch(watched)",
        f"    y = f({params})",
        "jacobian = tape.jacobian(y, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)",
        "",
        'print("y:", y.numpy().tolist())',
        *prints,
        'print("jacobian:", [j.numpy().tolist() for j in jacobian])',
    ]


def _hessian(params: str) -> list[str]:
    return [
        "# The Hessian of each element of y: nested tapes, both watching every input. The inner gradient is",
        "# taken INSIDE the outer tape's block: taken after it, the outer tape has recorded nothing and the",
        "# second derivative is None; a tensor watched by the inner tape only gives None as well.",
        "with tf.GradientTape() as outer:",
        "    outer.watch(watched)",
        "    with tf.GradientTape(persistent=True) as inner:",
        "        inner.watch(watched)",
        f"        y = f({params})",
        "        y_elements = tf.unstack(tf.reshape(y, [-1]))",
        "    # one row per element of y: its gradient, the watched elements flattened in order",
        "    gradients = tf.stack([",
        "        tf.concat([tf.reshape(g, [-1]) for g in inner.gradient(",
        "            y_i, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)], axis=0)",
        "        for y_i in y_elements])",
        "del inner",
        "",
        "# The outer tape's Jacobian of the gradients, taken after its block: one block per watched x, shaped",
        "# (y.size, n) + x.shape; laid side by side, hessian[k, i, j] = d2 y_k / dx_i dx_j.",
        "hessian = outer.jacobian(gradients, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)",
        "hessian = tf.concat([tf.reshape(h, [gradients.shape[0], gradients.shape[1], -1]) for h in hessian], axis=2)",
        "",
        'print("y:", y.numpy().tolist())',
        'print("gradients:", gradients.numpy().tolist())',
        'print("hessian:", hessian.numpy().tolist())',
    ]


def _check_order(order: Any) -> None:
    if isinstance(order, bool) or not isinstance(order, numbers.Integral) or order not in (1, 2):   # not 1.0
        raise ExpressionError(f"tensorflow_code got order={order!r}; it writes order=1 (the per-element gradients) "
                              "and order=2 (the Hessian of each output element)")


def _check_watched_floats(inputs: Sequence[Input]) -> None:
    integers = [i for i in inputs if i.watched and not i.dtype.startswith("float")]
    if integers:
        raise ExpressionError(
            f"tensorflow_code(order=2) cannot differentiate input {integers[0].name!r}: it is {integers[0].dtype}, and "
            "TensorFlow's tape gives integer tensors no derivative. Make it float32 or float64, or leave it out of watch")


def _helpers(body: str) -> list[str]:
    """The sources of the helpers ``body`` calls, and of the helpers those call, in ``helpers()`` order: the
    code generated for @, dot, clip ... calls the very function gradlib runs."""
    sources = {name: textwrap.dedent(inspect.getsource(function)) for name, function in helpers().items()}
    needed, text = set(), body
    for name in reversed(sources):   # a helper calls only the ones before it (dot calls matmul)
        if re.search(rf"(?<![\w.]){name}\(", text):
            needed.add(name)
            text += sources[name]
    return [source for name, source in sources.items() if name in needed]


def code_names(inputs: Sequence[str]) -> dict[str, str]:
    """Input name -> the name the generated script gives it: itself, unless the script uses that name.

    >>> code_names(["x", "y", "y_in"])
    {'x': 'x', 'y': 'y_in2', 'y_in': 'y_in'}
    """
    taken = set(inputs) | CODE_NAMES
    names = {}
    for name in inputs:
        new, k = name, 1
        while new in CODE_NAMES or (new != name and new in taken):
            new, k = f"{name}_in{k if k > 1 else ''}", k + 1
        taken.add(new)
        names[name] = new
    return names


def _constant(i: Input, name: str, tf_dtype: str) -> str:
    """The input as declared; a float32 input in a float64 computation is cast before the tape sees it."""
    dtype = f"tf.{i.dtype}"
    if i.size > MAX_LITERAL_ELEMENTS:
        value, note = f"tf.random.normal({list(i.shape)}, dtype={dtype})", f"your {i.size} values here"
    else:
        literal = i.value.astype(i.dtype).tolist() if i.dtype.startswith("int") else _floats(i.value)
        value, note = f"tf.constant({literal!r}, dtype={dtype})", ""
    if not i.dtype.startswith("int") and dtype != tf_dtype:
        value = f"tf.cast({value}, {tf_dtype})"
        note = "; ".join(filter(None, [note, f"{i.dtype}, promoted: TensorFlow computes in one dtype"]))
    return f"{name} = {value}" + (f"  # {note}" if note else "")


def _floats(value: np.ndarray) -> Any:
    return value.astype(float).tolist()


class _Writer:
    """Writes a checked tree as TensorFlow code, with the inputs' names in the script (``code_names``).

    A number is a Python float, which TensorFlow takes in the dtype of the tensor it meets (``x * 2.0``,
    ``tf.maximum(x, 0.0)``, ``tf.stack([x0, 1.0])``). A function or a list given numbers alone (``sqrt(2)``,
    ``maximum(1, 2 * 3)``, ``[1, 2]``, where's branches in ``where(x > 0, 1, 2)``) meets none, and TensorFlow makes
    them float32: a float64 script then failed (``tf.sqrt(2.0) * x``: "cannot compute Mul as input #1 was expected
    to be a float tensor but is a double tensor"). There, outside float32, each number is written
    ``tf.constant(..., dtype=...)``.
    """

    def __init__(self, names: Mapping[str, str], dtype: str = "tf.float32"):
        self.names, self.dtype = names, dtype

    def visit(self, node: ast.expr) -> str:
        return getattr(self, f"_{type(node).__name__}")(node)

    def _alone(self, nodes: Sequence[ast.expr]) -> Callable[[ast.expr], str]:
        """How to write the arguments ``nodes`` of one function or list: each number in the script's dtype when no
        argument (a where()'s condition aside) holds an input, else as typed."""
        values = [n for n in nodes if not isinstance(n, ast.Compare)]
        if self.dtype == "tf.float32" or any(isinstance(n, ast.Name) for v in values for n in ast.walk(v)):
            return self.visit
        return self._number

    def _number(self, node: ast.expr) -> str:
        text = self.visit(node)
        python = all(isinstance(n, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop))
                     for n in ast.walk(node))   # numbers and operators only: Python computes it, a float
        return f"tf.constant({text}, dtype={self.dtype})" if python else text

    def _Constant(self, node: ast.Constant) -> str:
        return repr(float(node.value)) if isinstance(node.value, int) and abs(node.value) < 2**53 else repr(node.value)

    def _Name(self, node: ast.Name) -> str:
        return self.names.get(node.id, node.id)

    def _UnaryOp(self, node: ast.UnaryOp) -> str:
        # unary plus is the value itself, as gradlib computes it: TensorFlow tensors have no __pos__
        return f"-{self._wrap(node.operand)}" if isinstance(node.op, ast.USub) else self.visit(node.operand)

    def _BinOp(self, node: ast.BinOp) -> str:
        if isinstance(node.op, ast.MatMult):
            return f"matmul({self.visit(node.left)}, {self.visit(node.right)})"
        symbol = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}[type(node.op)]
        return f"{self._wrap(node.left)} {symbol} {self._wrap(node.right)}"

    def _Compare(self, node: ast.Compare) -> str:   # a where()'s condition: one operator, as typed
        symbol = {ast.Gt: ">", ast.Lt: "<", ast.GtE: ">=", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!="}
        return f"{self.visit(node.left)} {symbol[type(node.ops[0])]} {self.visit(node.comparators[0])}"

    def _wrap(self, node: ast.expr) -> str:
        text = self.visit(node)
        return f"({text})" if isinstance(node, (ast.BinOp, ast.UnaryOp)) else text

    def _List(self, node: ast.List) -> str:
        write = self._alone(node.elts)
        return f"tf.stack([{', '.join(write(e) for e in node.elts)}])"

    def _Subscript(self, node: ast.Subscript) -> str:
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return f"{self._wrap(node.value)}[{', '.join(ast.unparse(i) for i in items)}]"   # not (:, 0): a syntax error

    def _Call(self, node: ast.Call) -> str:
        operation, values = arguments(node, self._alone([*node.args, *(k.value for k in node.keywords)]))
        return operation.write(*values)
