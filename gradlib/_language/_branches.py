"""where()'s branch not taken, on the tree alone: ``guard`` rewrites a function so that the operands of its risky
functions are finite in the cells a where() does not take (the NaN trap is explained in
``gradlib._perelement._comparison._guard``, which finds it at a point).

It is exact by construction: it guards only operands reached from a branch through element-wise operations, so
each cell it changes is a cell that where() does not take.

>>> ast.unparse(guard(ast.parse("where(x > 0, sqrt(x), 0)", mode="eval").body))
'where(x > 0, sqrt(where(x > 0, x, 1)), 0)'
>>> ast.unparse(guard(ast.parse("where(x < 1, 2 * x, log(1 - x) / x)", mode="eval").body))
'where(x < 1, 2 * x, log(where(x < 1, 1, 1 - x)) / where(x < 1, 1, x))'
"""

from __future__ import annotations

import ast
import copy
from typing import Mapping

from .._foundations._errors import GradlibError
from .._foundations._limits import Limits
from ._operations import OPERATIONS
from ._syntax import Program, parse

__all__ = ["RISKY", "guard", "guarded", "is_where", "risky_branches"]

#: function -> a value of its argument where it and its derivative are finite: what a guard puts in the cells a
#: where() does not take. ``/`` guards its divisor with 1 and ``**`` (and pow) its base with 1.
RISKY = {"sqrt": 1, "log": 1, "log1p": 0, "asin": 0, "acos": 0}




def guard(tree: ast.expr) -> ast.expr | None:
    """A copy of ``tree`` with the risky operands in where() branches guarded; None when there is none to guard."""
    tree = copy.deepcopy(tree)
    changed = False
    for node in [n for n in ast.walk(tree) if is_where(n)]:
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


def risky_branches(node: ast.Call) -> tuple[bool, bool]:
    """Whether where() ``node``'s taken (``True``) and not-taken (``False``) branch each hold an operand that
    ``guard`` would guard.

    >>> risky_branches(ast.parse("where(x > 0, sqrt(x), 0)", mode="eval").body)
    (True, False)
    """
    return tuple(any(True for _ in _risky_operands(copy.deepcopy(node.args[k]))) for k in (1, 2))


def is_where(node: ast.AST) -> bool:
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
