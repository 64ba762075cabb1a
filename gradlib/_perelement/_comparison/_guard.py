"""where()'s branch not taken: the NaN its gradient can carry, and the guard that removes it.

``tf.where(c, a, b)`` computes both ``a`` and ``b`` in every cell and differentiates both. In the cells it does not
take from ``a`` it sends ``a`` a gradient of 0, and 0 times ``a``'s own derivative there is 0 only when that
derivative is finite. For ``where(x > 0, sqrt(x), 0)`` at ``x = 0`` sqrt's derivative is inf: TensorFlow's eager
and graph sqrt gradient happens to give 0, XLA gives NaN (tensorflow/tensorflow#118674), and ``log(x)`` gives NaN
even eagerly (tensorflow/tensorflow#38349). The fix is to guard the input of the risky function as well, so that
it is finite where it is not taken: ``where(x > 0, sqrt(where(x > 0, x, 1)), 0)``.

``gradlib._language._branches.guard`` rewrites a function that way (on the tree alone); ``dead_branches`` here finds
the cells of one point where the trap is set, and shows the guarded form's result.
"""

from __future__ import annotations

import ast
from typing import Mapping, Sequence

import numpy as np
import tensorflow as tf

from .._api import run
from ._checks import differing_cells
from ._findings import DETAIL_CELLS, Finding
from ..._foundations._errors import GradlibError
from ..._foundations._format import format_number
from ..._language._branches import guarded, is_where
from ..._language._inputs import Input
from ..._language._syntax import Program
from ..._foundations._limits import Limits
from .._problem import expression_problem
from .._result import GradResult

__all__ = ["MAX_WHERES", "TITLE", "dead_branches"]

#: the where() calls of one function that ``dead_branches`` examines (each costs a forward-mode pass)
MAX_WHERES = 8
_ISSUES = "tensorflow/tensorflow#118674"
#: the title of ``dead_branches``'s finding (``compare`` adds the cross-check's measurement to it)
TITLE = "where(): the branch not taken has a non-finite derivative"




def dead_branches(program: Program, inputs: Sequence[Input], results: Mapping[str, GradResult], best: GradResult,
                  limits: Limits) -> tuple[Finding, ...]:
    """One finding when, at this point, a where() branch not taken has a non-finite derivative in some cell:
    the cells, what TensorFlow gives there, and the guarded form with its result."""
    wheres = [n for n in ast.walk(program.tree) if is_where(n)][:MAX_WHERES]
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
