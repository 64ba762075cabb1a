"""where()'s branch not taken: the NaN its gradient can carry, and the guard that removes it.

``tf.where(c, a, b)`` computes both ``a`` and ``b`` in every cell and differentiates both. In the cells it does not
take from ``a`` it sends ``a`` a gradient of 0, and 0 times ``a``'s own derivative there is 0 only when that
derivative is finite. For ``where(x > 0, sqrt(x), 0)`` at ``x = 0`` sqrt's derivative is inf: TensorFlow's eager
and graph sqrt gradient happens to give 0, XLA gives NaN (tensorflow/tensorflow#118674), and ``log(x)`` gives NaN
even eagerly (tensorflow/tensorflow#38349). The fix is to guard the input of the risky function as well, so that
it is finite where it is not taken: ``where(x > 0, sqrt(where(x > 0, x, 1)), 0)``.

``guard`` rewrites a tree that way. It is exact by construction: it guards only operands reached from a branch
through element-wise operations, so each cell it changes is a cell that where() does not take. ``dead_branches``
finds the cells of one point where the trap is set, and shows the guarded form's result.

>>> ast.unparse(guard(ast.parse("where(x > 0, sqrt(x), 0)", mode="eval").body))
'where(x > 0, sqrt(where(x > 0, x, 1)), 0)'
>>> ast.unparse(guard(ast.parse("where(x < 1, 2 * x, log(1 - x) / x)", mode="eval").body))
'where(x < 1, 2 * x, log(where(x < 1, 1, 1 - x)) / where(x < 1, 1, x))'
"""

from __future__ import annotations

import ast
import copy
from typing import Mapping, Sequence

import numpy as np
import tensorflow as tf

from ._api import run
from ._checks import differing_cells
from ._diagnose import DETAIL_CELLS, Finding
from ._errors import GradlibError
from ._format import format_number
from ._inputs import Input
from ._language import Program, parse
from ._limits import Limits
from ._operations import OPERATIONS
from ._problem import expression_problem
from ._result import GradResult

__all__ = ["MAX_WHERES", "RISKY", "TITLE", "dead_branches", "guard", "guarded"]

#: function -> a value of its argument where it and its derivative are finite: what a guard puts in the cells a
#: where() does not take. ``/`` guards its divisor with 1 and ``**`` (and pow) its base with 1.
RISKY = {"sqrt": 1, "log": 1, "log1p": 0, "asin": 0, "acos": 0}
#: the where() calls of one function that ``dead_branches`` examines (each costs a forward-mode pass)
MAX_WHERES = 8
_ISSUES = "tensorflow/tensorflow#118674"
#: the title of ``dead_branches``'s finding (``compare`` adds the cross-check's measurement to it)
TITLE = "where(): the branch not taken has a non-finite derivative"


# ---------------------------------------------------------------- the guard, on the tree alone


def guard(tree: ast.expr) -> ast.expr | None:
    """A copy of ``tree`` with the risky operands in where() branches guarded; None when there is none to guard."""
    tree = copy.deepcopy(tree)
    changed = False
    for node in [n for n in ast.walk(tree) if _is_where(n)]:
        condition = node.args[0]
        for k, taken in ((1, True), (2, False)):
            for parent, field, operand, safe in _risky_operands(node.args[k]):
                pick = [operand, ast.Constant(safe)] if taken else [ast.Constant(safe), operand]
                _replace(parent, field, ast.Call(ast.Name("where", ast.Load()), [copy.deepcopy(condition), *pick], []))
                changed = True
    return tree if changed else None


def guarded(program: Program, shapes: Mapping[str, tuple[int, ...]], limits: Limits | None = None) -> Program | None:
    """The checked guarded form of ``program``: None when there is nothing to guard, or the guarded text does not
    check (over the limits)."""
    tree = guard(program.tree)
    if tree is None:
        return None
    try:
        return parse(ast.unparse(tree), shapes, **({"limits": limits} if limits else {}))
    except GradlibError:
        return None


def _is_where(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "where"


def _risky_operands(branch: ast.expr):
    """(parent, field, operand, safe value) of each risky operand reached from ``branch`` through element-wise
    operations, the operand depending on some input (a name)."""
    stack = [branch]
    while stack:
        node = stack.pop()
        found = _risky(node)
        if found and any(isinstance(n, ast.Name) for n in ast.walk(found[2])):
            yield found
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
            stack += [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            stack.append(node.operand)
        elif isinstance(node, ast.Call) and OPERATIONS[node.func.id].elementwise:
            stack += [a for a in node.args if not isinstance(a, ast.Compare)]


def _risky(node: ast.expr) -> tuple[ast.AST, tuple[str, int | None], ast.expr, int] | None:
    """The operand of ``node`` whose derivative can be infinite or NaN, and its safe value, as (parent, field,
    operand, safe); None for a node that is not risky (``x**2``: a whole, non-negative power is safe)."""
    if isinstance(node, ast.Call) and node.func.id in RISKY:
        return node, ("args", 0), node.args[0], RISKY[node.func.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return node, ("right", None), node.right, 1
    power = (node.left, node.right) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) else \
        tuple(node.args) if isinstance(node, ast.Call) and node.func.id == "pow" else None
    if power and not (isinstance(power[1], ast.Constant) and float(power[1].value).is_integer()
                      and power[1].value >= 0):
        return node, ("left", None) if isinstance(node, ast.BinOp) else ("args", 0), power[0], 1
    return None


def _replace(parent: ast.AST, field: tuple[str, int | None], new: ast.expr) -> None:
    name, index = field
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new


# ---------------------------------------------------------------- the trap at one point


def dead_branches(program: Program, inputs: Sequence[Input], results: Mapping[str, GradResult], best: GradResult,
                  limits: Limits) -> tuple[Finding, ...]:
    """One finding when, at this point, a where() branch not taken has a non-finite derivative in some cell:
    the cells, what TensorFlow gives there, and the guarded form with its result."""
    wheres = [n for n in ast.walk(program.tree) if _is_where(n)][:MAX_WHERES]
    if not wheres:
        return ()
    try:
        cells = _trapped_cells(program, inputs, wheres, best)
    except (tf.errors.OpError, ValueError, TypeError):   # an explanation that fails leaves the results as they are
        return ()
    if not cells:
        return ()
    shown = "; ".join(cells[:DETAIL_CELLS]) + (f"; and {len(cells) - DETAIL_CELLS} more cell(s)"
                                               if len(cells) > DETAIL_CELLS else "")
    text = (f"where() computes both branches in every cell and differentiates both: in a cell it does not take "
            f"from a branch it sends that branch a gradient of 0, and 0 times the branch's derivative is NaN where "
            f"that derivative is not finite. At this point that happens in {len(cells)} cell(s) (see the details). "
            f"{_what_tensorflow_gave(results, best)} " + _fix(program, inputs, best, limits))
    return (Finding(None, TITLE, text, "warning", details=shown[:1].upper() + shown[1:] + "."),)


def _trapped_cells(program: Program, inputs: Sequence[Input], wheres: list[ast.Call], best: GradResult) -> list[str]:
    """Per where() and per cell it does not take from a branch whose derivative is not finite there, a sentence.

    The derivative is one forward-mode pass with every watched element's tangent 1: a cell's tangent is the sum
    of its derivatives, finite only when each of them is (inf - inf is NaN)."""
    env = {i.name: tf.constant(i.value, tf.float64) for i in inputs}
    watched = [env[i.name] for i in inputs if i.watched and not i.dtype.startswith("int")]
    if not watched:
        return []
    sentences = []
    with tf.autodiff.ForwardAccumulator(watched, [tf.ones_like(w) for w in watched]) as acc:
        for node in wheres:
            condition = program.build(env, tf.float64, node.args[0])
            shape = program.build(env, tf.float64, node).shape
            for k, taken in ((1, True), (2, False)):
                value = program.build(env, tf.float64, node.args[k])
                slope = acc.jvp(value, unconnected_gradients=tf.UnconnectedGradients.ZERO)
                holds = tf.broadcast_to(condition, shape).numpy()
                dead = ~holds if taken else holds
                slope = np.broadcast_to(slope.numpy(), shape)
                for index in zip(*np.nonzero(dead & ~np.isfinite(slope))):
                    sentences.append(_cell(program, node, k, index, shape, best, float(slope[index])))
    return sentences


def _cell(program: Program, node: ast.Call, k: int, index: tuple, shape: tuple, best: GradResult,
          slope: float) -> str:
    where = (best.row_labels[int(np.ravel_multi_index(index, shape))] if node is program.tree
             else f"{ast.unparse(node)}[{', '.join(map(str, index))}]")
    condition = ast.unparse(node.args[0])
    return (f"at {where}, {condition} is {'false' if k == 1 else 'true'}, and the branch not taken, "
            f"{ast.unparse(node.args[k])}, has derivative {format_number(slope)}")


def _what_tensorflow_gave(results: Mapping[str, GradResult], best: GradResult) -> str:
    """Whether reverse mode gave NaN here (where the true value is finite), or happened to give 0."""
    finite = np.isfinite(best.jacobian)
    reverse = {name: r for name, r in results.items() if r.correct and r.mode == "reverse"
               and r.jacobian.shape == best.jacobian.shape}
    poisoned = [name for name, r in reverse.items() if (np.isnan(r.jacobian) & finite).any()]
    if poisoned:
        return (f"Reverse mode ({', '.join(poisoned)}) gives NaN there; forward mode does not differentiate the "
                f"branch not taken, and method='auto' returns its finite values.")
    if not reverse:
        return (f"Reverse mode (tape.gradient, tape.jacobian) can give NaN there: for log(x) eagerly, for sqrt(x) "
                f"compiled with XLA (tf.function(jit_compile=True), {_ISSUES}).")
    return (f"Here TensorFlow's reverse-mode gradient happens to give 0 (its kernel for this function returns 0 for a "
            f"gradient of 0), eagerly and in a graph; compiled with XLA (tf.function(jit_compile=True)) the same "
            f"gradient is NaN ({_ISSUES}), and for log(x) it is NaN even eagerly.")


def _fix(program: Program, inputs: Sequence[Input], best: GradResult, limits: Limits) -> str:
    """The guarded form and its reverse-mode result, when it checks and gives the true values with no NaN."""
    usual = ("The fix: guard the input of the risky function as well, so that it is finite where it is not taken, "
             "like where(x > 0, sqrt(where(x > 0, x, 1)), 0).")
    fixed = guarded(program, {i.name: i.shape for i in inputs}, limits)
    if fixed is None:
        return usual
    try:
        result = run(expression_problem(fixed, inputs), "jacobian", limits=limits)
    except (GradlibError, tf.errors.OpError, ValueError):
        return usual
    same_y = np.allclose(result.y, best.y, rtol=1e-6, atol=0, equal_nan=True)
    finite = np.isfinite(best.jacobian)
    same = not differing_cells(result.jacobian, best.jacobian, result.dtype, best.dtype)[finite].any()
    if not (same_y and same and np.isfinite(result.jacobian[finite]).all()):
        return usual
    return (f"The fix: guard the input of the risky function as well, so that it is finite where it is not taken: "
            f"{fixed.text} gives the same y = {_values(result.y.reshape(-1))} and, in plain reverse mode "
            f"(tape.jacobian), the rows {_rows(result)}, with no NaN. The generated TensorFlow code uses it.")


def _values(values: np.ndarray, limit: int = 6) -> str:
    shown = ", ".join(format_number(float(v)) for v in values[:limit])
    return f"[{shown}{', ...' if values.size > limit else ''}]"


def _rows(result: GradResult, limit: int = 4) -> str:
    rows = [f"{result.row_labels[r]} {_values(result.jacobian[r])}"
            for r in range(min(limit, result.jacobian.shape[0]))]
    return ", ".join(rows) + (", ..." if result.jacobian.shape[0] > limit else "")
