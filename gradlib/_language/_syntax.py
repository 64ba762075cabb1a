"""The function language: Python-like text parsed with ``ast`` and checked against an allow-list.

Nothing in the user's text is ever executed by Python. ``parse`` checks the text and the shapes it
implies, against ``Limits``, before anything is allocated; ``Program.build`` then walks the checked
tree straight into TensorFlow ops. What each function takes, the shape it gives and what it runs is one row
of the operations table (``gradlib._language._operations.OPERATIONS``), read here and by the code generator.

>>> program = parse("[x0*x1*x2, x0*x1*x2*x0]", {"x0": (), "x1": (), "x2": ()})
>>> program.shape
(2,)
"""

from __future__ import annotations

import ast
import difflib
import functools
import math
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import tensorflow as tf

from .._foundations._errors import ExpressionError
from .._foundations._format import format_number
from .._foundations._limits import LIMITS, Limits
from ._operations import FUNCTIONS, OPERATIONS, STATIC, Operation, matmul

__all__ = ["FUNCTIONS", "Part", "Program", "arguments", "constant_value", "free_names", "parse"]

Shape = tuple[int, ...]

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@"}
_UNARY_OPERATORS = {ast.USub: "-", ast.UAdd: "+"}
_UNARY_REFUSED = {ast.Not: "not", ast.Invert: "~"}
#: comparisons, allowed only as the condition of where(): node type -> (symbol, its tf.math function)
_COMPARISONS = {ast.Gt: (">", "greater"), ast.Lt: ("<", "less"), ast.GtE: (">=", "greater_equal"),
                ast.LtE: ("<=", "less_equal"), ast.Eq: ("==", "equal"), ast.NotEq: ("!=", "not_equal")}
_WHERE_EXAMPLE = "where(x > 0, sqrt(x), 0)"
#: the ASCII symbols of the language, which a look-alike may be told to use instead
_ALLOWED_SYMBOLS = "+-*/@()[],.:_ "
_LOOKALIKES = {"\u2212": "-", "\u00d7": "*", "\u00b7": "*", "\u22c5": "*", "\u00f7": "/", "\u00b2": "**2",
               "\u2013": "-", "\u2014": "-", "\u2018": "'", "\u2019": "'", "\u00a0": " ",
               # Cyrillic and Greek letters drawn like Latin ones (Unicode has no compatibility form for them)
               **dict(zip("аеорсухіјѕԁАВЕКМНОРСТХІЈЅοΟΑΒΕΖΗΙΚΜΝΡΤΥΧν", "aeopcyxijsdABEKMHOPCTXIJSoOABEZHIKMNPTYXv"))}
_REFUSED = {
    ast.Attribute: "attribute access (a '.' after a value) is not allowed; call functions by name, like exp(x)",
    ast.Lambda: "lambda is not allowed; write the expression itself",
    ast.ListComp: "comprehensions are not allowed; write the list out, like [x[0], x[1]]",
    ast.SetComp: "comprehensions are not allowed", ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "generator expressions are not allowed",
    ast.JoinedStr: "strings are not allowed", ast.FormattedValue: "strings are not allowed",
    ast.Dict: "dicts are not allowed; use [a, b] to stack values",
    ast.Set: "sets are not allowed; use [a, b] to stack values",
    ast.NamedExpr: "assignment (:=) is not allowed; write one expression",
    ast.Starred: "'*' unpacking is not allowed",
    ast.BoolOp: "'and'/'or' are not supported", ast.IfExp: "'if ... else' is not supported",
    ast.Await: "'await' is not allowed", ast.Yield: "'yield' is not allowed", ast.YieldFrom: "'yield' is not allowed",
}


@dataclass(frozen=True)
class Part:
    """One node of a checked tree: the elements it holds, its work, and the inputs it depends on."""

    size: int
    work: float
    names: frozenset[str]


@dataclass(frozen=True)
class Program:
    """A checked function: its text, tree, the shape it produces and the work it will take."""

    text: str
    tree: ast.expr = field(repr=False, compare=False)
    shape: Shape
    names: frozenset[str]
    flops: float
    #: one ``Part`` per node of the tree: what the cost model (``gradlib._perelement._cost``) needs to know about it
    parts: tuple[Part, ...] = field(default=(), repr=False, compare=False)

    @functools.cached_property
    def functions(self) -> frozenset[str]:
        """The names of the functions the text calls (``where``, ``sqrt`` ...)."""
        return frozenset(n.func.id for n in ast.walk(self.tree) if isinstance(n, ast.Call))

    @functools.cached_property
    def key(self) -> str:
        """What identifies the computation (the tree, not the spelling): equal for ``x*x`` and ``x * x``."""
        return ast.dump(self.tree)

    def check_numbers(self, dtype: str) -> None:
        """Refuse a number written in the text that ``dtype`` (``float32``, ``float64``) cannot hold: TensorFlow would
        compute with inf (``1e39`` in float32) or with 0 (``1e-50``), the answer of another function."""
        _check_numbers(self.text, self.tree, dtype)

    def build(self, env: Mapping[str, object], dtype: object, node: ast.expr | None = None) -> object:
        """Evaluate the checked tree (or one ``node`` of it) on TensorFlow tensors ``env`` (name -> tensor) in
        ``dtype``."""
        return _Builder(env, dtype).visit(self.tree if node is None else node)


def parse(text: str, shapes: Mapping[str, Shape], *, limits: Limits = LIMITS) -> Program:
    """Check ``text`` against the language and the input ``shapes``; raise ``ExpressionError`` if it fails.

    Checked programs are immutable, so the last few hundred are kept: a function evaluated again and
    again (a training loop, a dashboard rerun) is parsed and checked once.
    """
    if isinstance(text, str) and len(text) <= limits.max_chars:
        return _parse_cached(text, tuple(shapes.items()), limits)
    return _parse(text, shapes, limits)


@functools.lru_cache(maxsize=256)
def _parse_cached(text: str, shapes: tuple[tuple[str, Shape], ...], limits: Limits) -> Program:
    return _parse(text, dict(shapes), limits)


def _parse(text: str, shapes: Mapping[str, Shape], limits: Limits) -> Program:
    text = _check_text(text, limits)
    tree = _parse_tree(text)
    _check_tree(tree, text, limits)
    checker = _ShapeChecker(text, dict(shapes), limits)
    shape = checker.visit(tree)
    return Program(text, tree, shape, frozenset(checker.used), checker.flops, tuple(checker.parts))


def free_names(text: str, *, limits: Limits = LIMITS) -> tuple[str, dict[str, int]]:
    """The text as ``parse`` reads it and the names it uses (not the functions it calls), each with the column of
    its first use, after the language's checks of the text and the tree (shapes are not checked). For a caller
    whose names are defined by their spelling (``gradlib.pde``'s ``u_xt``): it learns which to give ``parse``.

    >>> free_names(" u_t + u*u_x - nu*exp(u_xx)")[1]
    {'u_t': 1, 'u': 7, 'u_x': 9, 'nu': 15, 'u_xx': 22}
    """
    text = _check_text(text, limits)
    tree = _parse_tree(text)
    _check_tree(tree, text, limits)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    used = sorted((node.col_offset + 1, node.id) for node in ast.walk(tree)
                  if isinstance(node, ast.Name) and id(node) not in called)
    names: dict[str, int] = {}
    for col, name in used:
        names.setdefault(name, col)
    return text, names


# ---------------------------------------------------------------- text and tree checks


def _check_text(text: object, limits: Limits) -> str:
    if not isinstance(text, str):
        raise ExpressionError(f"the function must be text, like 'x0*x1'; got {type(text).__name__}")
    text = text.strip(" \t\n\r\f\v")   # surrounding whitespace: to Python a leading space is an "unexpected indent"
    if not text:
        raise ExpressionError("the function is empty: type an expression such as [x0*x1, x0 + x1]")
    if len(text) > limits.max_chars:
        raise ExpressionError(f"the function is {len(text):,} characters long; at most {limits.max_chars:,} are allowed")
    for col, char in enumerate(text, start=1):
        if not char.isascii():
            raise ExpressionError(_non_ascii_message(text, char, col), text=text, column=col)
        if char in ";=\"'\\#$!?`{}" and not (char == "=" and _is_axis_keyword(text, col - 1)) \
                and not _in_comparison(text, col - 1):
            raise ExpressionError(_char_message(char, col), text=text, column=col)
        if not char.isprintable() and char not in "\n\t\r":
            raise ExpressionError(f"control character U+{ord(char):04X} at column {col} is not allowed", text=text, column=col)
    text = text.replace("\n", " ").replace("\t", " ").replace("\r", " ")
    _check_nesting(text, limits)
    return text


def _non_ascii_message(text: str, char: str, col: int) -> str:
    """Name a non-ASCII character and, for a look-alike, the ASCII to type instead (and the text so spelled)."""
    name = unicodedata.name(char, "").lower()
    plain = _ascii_for(char)
    where = f"character {char!r} (U+{ord(char):04X}{', ' + name if name else ''}) at column {col} is not allowed"
    if not plain:
        return f"{where}; use plain ASCII letters and operators"
    spelled = "".join(_ascii_for(c) or c for c in text)
    whole = f": {spelled!r}" if spelled.isascii() and len(spelled) <= 80 and spelled != plain else ""
    return f"{where}; use {plain!r} instead{whole}"


def _ascii_for(char: str) -> str:
    """The ASCII a look-alike stands for: a table of typographic symbols, else Unicode's compatibility form
    (full-width letters and digits, superscripts): '' when there is none."""
    if char in _LOOKALIKES:
        return _LOOKALIKES[char]
    plain = unicodedata.normalize("NFKC", char)
    if plain.isspace():
        return " "
    return plain if plain.isascii() and all(c.isalnum() or c in _ALLOWED_SYMBOLS for c in plain) else ""


def _is_axis_keyword(text: str, index: int) -> bool:
    """True for the '=' of 'axis=' (the only keyword argument of the language)."""
    return text[:index].rstrip().endswith("axis") and text[index + 1:index + 2] != "="


def _in_comparison(text: str, index: int) -> bool:
    """True for the '=' of '>=', '<=', '==', '!=' and the '!' of '!=' (comparisons, the condition of where())."""
    before, char, after = text[index - 1:index] if index else "", text[index], text[index + 1:index + 2]
    if char == "!":
        return after == "="
    return char == "=" and (before in ("<", ">", "!", "=") or after == "=")


def _char_message(char: str, col: int) -> str:
    what = {";": "';' (more than one statement)", "=": "'=' (assignment or comparison)",
            '"': "quotes (strings)", "'": "quotes (strings)", "#": "'#' (comments)", "{": "'{' (dicts and sets)",
            "}": "'}' (dicts and sets)"}.get(char, repr(char))
    return f"{what} at column {col} is not part of the language; write a single expression such as [x0*x1, x0 + x1]"


def _check_nesting(text: str, limits: Limits) -> None:
    """Refuse deep nesting before Python's own parser sees it (it can overflow on thousands of levels).

    The whole text is read (it is at most ``max_chars`` long), so the message names the depth the text reaches,
    not only that it passed the limit.
    """
    depth = run = deepest = 0
    first = None                    # the column where the text first goes one level past the limit
    for col, char in enumerate(text, start=1):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char in "+-~":
            run += 1
        elif char != " ":
            run = 0
        deepest = max(deepest, depth, run)
        if first is None and deepest > limits.max_depth:
            first = col
    if first is not None:
        raise ExpressionError(f"the function nests {deepest:,} levels deep; at most {limits.max_depth} are allowed, "
                              f"and level {limits.max_depth + 1} is at column {first}; simplify it",
                              text=text, column=first)


def _parse_tree(text: str) -> ast.expr:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        # no offset and "invalid syntax": Python reached the end of the text ("x0 +"); point at its last character.
        # Other errors without an offset (a 100,000-digit literal "Exceeds the limit") point at the first.
        reason = (exc.msg or "invalid syntax").split(" (")[0]
        ended = not exc.offset and reason == "invalid syntax"
        col = max(1, min(exc.offset or (len(text.rstrip()) if ended else 1), len(text)))
        if ended:
            reason = "the text ends before the expression is complete"
        raise ExpressionError(f"syntax error at column {col}: {reason}", text=text, column=col) from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise ExpressionError(f"the function cannot be parsed ({type(exc).__name__}): it is too deeply nested or too long") from None


def _check_tree(tree: ast.expr, text: str, limits: Limits) -> None:
    """Walk the tree without recursion: count nodes, measure depth, refuse every node outside the language."""
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    conditions: set[int] = set()   # the comparisons that are a where()'s condition: the only place they may be
    while stack:
        node, depth = stack.pop()
        count += 1
        col = getattr(node, "col_offset", 0) + 1
        if count > limits.max_nodes:
            raise ExpressionError(f"the function has {_size(tree)[0]:,} parts; at most {limits.max_nodes:,} are "
                                  "allowed; simplify it")
        if depth > limits.max_tree_depth:
            raise ExpressionError(f"the function nests {_size(tree)[1]:,} levels deep; at most "
                                  f"{limits.max_tree_depth} are allowed, and level {limits.max_tree_depth + 1} is at "
                                  f"column {col}; simplify it (a chain like a + b + c + ... counts one level per term)",
                                  text=text, column=col)
        _check_node(node, text, col, conditions)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _size(tree: ast.AST) -> tuple[int, int]:
    """The number of nodes of ``tree`` and its depth (the root is level 1), walked without recursion."""
    count = deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        count, deepest = count + 1, max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return count, deepest


def _check_node(node: ast.AST, text: str, col: int, conditions: set[int]) -> None:
    def fail(message: str) -> None:
        raise ExpressionError(f"{message} (column {col})", text=text, column=col)

    if type(node) in _REFUSED:
        fail(_REFUSED[type(node)])
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            fail(f"{node.value!r} is not a number; only real numbers are allowed")
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _OPERATORS:   # pointed at the operator itself, not at the left operand
            op, at = _operator_at(node.left, node.right, text)
            raise ExpressionError(f"operator {op!r} is not supported; use + - * / ** @ (column {at})",
                                  text=text, column=at)
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY_OPERATORS:
            fail(f"operator {_UNARY_REFUSED[type(node.op)]!r} is not supported; use unary - or +")   # every other one
    elif isinstance(node, ast.Call):
        _check_call(node, fail)
        if node.func.id == "where":
            _check_condition(node.args[0], text)
            conditions.add(id(node.args[0]))
    elif isinstance(node, ast.Compare):
        _check_comparison(node, text, id(node) in conditions)
    elif isinstance(node, ast.Name):
        if node.id.startswith("_"):
            fail(f"names starting with '_' are not allowed ({node.id!r})")
    elif isinstance(node, ast.keyword):
        if node.arg is None:
            fail("'**' unpacking is not allowed; the only keyword is axis=, as in sum(x, axis=0)")
        if node.arg != "axis":
            fail(f"keyword {node.arg!r} is not allowed; the only keyword is axis=, as in sum(x, axis=0)")
    elif not isinstance(node, (ast.List, ast.Tuple, ast.Subscript, ast.Slice, ast.Load, ast.expr_context,
                               ast.operator, ast.unaryop, ast.cmpop)):
        fail(f"{type(node).__name__} is not part of the language")


def _check_call(node: ast.Call, fail: Callable[[str], None]) -> None:
    if isinstance(node.func, ast.Attribute):
        fail(_REFUSED[ast.Attribute])
    if not isinstance(node.func, ast.Name):
        fail("only the language's functions can be called, by name, like sin(x)")
    name = node.func.id
    if name not in OPERATIONS:
        close = difflib.get_close_matches(name, OPERATIONS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f"; functions are {', '.join(sorted(OPERATIONS))}"
        fail(f"unknown function {name!r}{hint}")
    operation = OPERATIONS[name]
    if node.keywords and "axis" not in operation.params:
        fail(f"{name}() takes no keyword arguments")
    if not operation.required <= len(node.args) or len(node.args) + len(node.keywords) > len(operation.params):
        fail(f"{name}() {operation.takes}")


def _check_condition(node: ast.expr, text: str) -> None:
    """where()'s first argument must be a comparison: it picks, cell by cell, which value is taken."""
    if not isinstance(node, ast.Compare):
        col = node.col_offset + 1
        nest = ("; to combine conditions, nest where(), like where(x > 0, where(x < 1, a, b), b)"
                if isinstance(node, ast.BoolOp) else "")
        raise ExpressionError(f"where() takes a comparison as its condition, like {_WHERE_EXAMPLE}; "
                              f"got {ast.unparse(node)!r}{nest} (column {col})", text=text, column=col)


def _check_comparison(node: ast.Compare, text: str, is_condition: bool) -> None:
    """A comparison: one operator of ``_COMPARISONS``, and only as a where()'s condition (it has no gradient)."""
    op, at = _operator_at(node.left, node.comparators[0], text)

    def fail(message: str, column: int = at) -> None:
        raise ExpressionError(f"{message} (column {column})", text=text, column=column)

    if isinstance(node.left, ast.Name) and node.left.id == "axis" and isinstance(node.ops[0], ast.Eq):
        fail("'==' compares; an axis is given with one '=', as in sum(x, axis=0)")
    if type(node.ops[0]) not in _COMPARISONS:
        fail(f"operator {op!r} is not supported; compare with > < >= <= == or !=")
    if not is_condition:
        fail(f"a comparison ({op!r}) is true or false and has no gradient: it is allowed only as the condition of "
             f"where(), like {_WHERE_EXAMPLE}; for a smooth choice use maximum, minimum or relu")
    if len(node.ops) > 1:
        second, column = _operator_at(node.comparators[0], node.comparators[1], text)
        fail(f"chained comparisons are not supported ({op!r} then {second!r}); nest where() instead, like "
             f"where(x > 0, where(x < 1, a, b), b)", column)


def _operator_at(left: ast.expr, right: ast.expr, text: str) -> tuple[str, int]:
    """The operator between ``left`` and ``right`` as typed and its column: what lies between the operands,
    without the brackets and spaces around it (the text is ASCII here, so the parser's byte offsets are columns)."""
    between = text[left.end_col_offset:right.col_offset]
    op = between.strip(" ()")
    return op, left.end_col_offset + between.index(op) + 1


# ---------------------------------------------------------------- shapes, before allocation


class _ShapeChecker:
    """Infers the shape of every node from the input shapes and checks it against the limits."""

    def __init__(self, text: str, shapes: dict[str, Shape], limits: Limits):
        self.text, self.shapes, self.limits = text, shapes, limits
        self.used: set[str] = set()
        self.flops = 0.0
        self.parts: list[Part] = []
        self._scopes: list[list] = []   # per node being visited: [names used under it, its own extra work]

    def fail(self, node: ast.AST, message: str, col: int | None = None) -> None:
        col = col or getattr(node, "col_offset", 0) + 1
        raise ExpressionError(f"{message} (column {col})", text=self.text, column=col)

    def visit(self, node: ast.expr) -> Shape:
        self._scopes.append([set(), 0.0])
        shape = getattr(self, f"_{type(node).__name__}")(node)
        names, extra = self._scopes.pop()
        if self._scopes:
            self._scopes[-1][0] |= names
        size = math.prod(shape)
        if size > self.limits.max_elements:
            self.fail(node, f"this part would hold {size:,} elements; at most {self.limits.max_elements:,} are allowed")
        self.flops += size
        self.parts.append(Part(size, size + extra, frozenset(names)))
        if self.flops > self.limits.max_flops:
            self.fail(node, f"the function needs too much computation for one request: at least "
                            f"{format_number(round(self.flops))} floating-point operations, and at most "
                            f"{format_number(round(self.limits.max_flops))} are allowed; use smaller inputs")
        return shape

    def _Constant(self, node: ast.Constant) -> Shape:
        return ()

    def _Name(self, node: ast.Name) -> Shape:
        if node.id in self.shapes:
            self.used.add(node.id)
            self._scopes[-1][0].add(node.id)
            return self.shapes[node.id]
        if node.id in OPERATIONS:
            self.fail(node, f"{node.id!r} is a function: call it, like {node.id}(x)")
        close = difflib.get_close_matches(node.id, list(self.shapes), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        known = ", ".join(self.shapes) or "none"
        self.fail(node, f"unknown name {node.id!r}{hint}. Inputs are: {known}. Define it as an input or fix the spelling")

    def _UnaryOp(self, node: ast.UnaryOp) -> Shape:
        return self.visit(node.operand)

    def _BinOp(self, node: ast.BinOp) -> Shape:
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.MatMult):
            return self._matmul(node, left, right, "@")
        return self._broadcast(node, left, right, _OPERATORS[type(node.op)])

    def _Compare(self, node: ast.Compare) -> Shape:
        left, right = self.visit(node.left), self.visit(node.comparators[0])
        return self._broadcast(node, left, right, _COMPARISONS[type(node.ops[0])][0])

    def _broadcast(self, node: ast.AST, left: Shape, right: Shape, what: str) -> Shape:
        try:
            return tuple(np.broadcast_shapes(left, right))
        except ValueError:
            at = None
            if isinstance(node, ast.BinOp) and node.left.end_lineno == node.right.lineno == node.lineno:
                at = _operator_at(node.left, node.right, self.text)[1]   # the caret under the operator
            self.fail(node, f"shapes {left} and {right} cannot be broadcast together for {what!r}: give them the same "
                            "shape, or size 1 along each axis where they differ (NumPy's broadcasting)", at)

    def _matmul(self, node: ast.AST, a: Shape, b: Shape, what: str) -> Shape:
        if not a or not b:
            self.fail(node, f"{what} needs vectors or matrices, not scalars (shapes {a} and {b}); use * for scaling")
        a2 = (1,) + a if len(a) == 1 else a
        b2 = b + (1,) if len(b) == 1 else b
        if a2[-1] != b2[-2]:
            self.fail(node, f"{what} cannot multiply shapes {a} and {b}: {a2[-1]} != {b2[-2]}")
        batch = self._broadcast(node, a2[:-2], b2[:-2], what)
        self._work(2.0 * math.prod(batch) * a2[-2] * a2[-1] * b2[-1])
        return batch + (() if len(a) == 1 else (a2[-2],)) + (() if len(b) == 1 else (b2[-1],))

    def _List(self, node: ast.List) -> Shape:
        if not node.elts:
            self.fail(node, "an empty list [] has no value; put at least one element in it")
        shapes = [self.visit(e) for e in node.elts]
        for k, shape in enumerate(shapes):
            if shape != shapes[0]:
                self.fail(node.elts[k], f"list elements must all have the same shape to be stacked: element {k} "
                                        f"has shape {shape} but element 0 has shape {shapes[0]}")
        return (len(shapes),) + shapes[0]

    def _Tuple(self, node: ast.Tuple) -> Shape:
        self.fail(node, "tuples (a, b) are not values; use [a, b] to stack")

    def _Subscript(self, node: ast.Subscript) -> Shape:
        shape = self.visit(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > len(shape):
            self.fail(node, f"too many indices ({len(items)}) for a value of shape {shape}")
        out: list[int] = []
        for item, dim in zip(items, shape):
            if isinstance(item, ast.Slice):
                start, stop, step = (self._index(part) if part else None for part in (item.lower, item.upper, item.step))
                if step is not None and step <= 0:
                    self.fail(item, "slice steps must be positive")
                out.append(len(range(*slice(start, stop, step).indices(dim))))
                if out[-1] == 0:
                    self.fail(item, f"this slice selects no elements from a dimension of size {dim}")
            else:
                index = self._index(item)
                if not -dim <= index < dim:
                    self.fail(item, f"index {index} is out of range for a dimension of size {dim}")
        return tuple(out) + shape[len(items):]

    def _index(self, node: ast.expr) -> int:
        value = _int_constant(node)
        if value is None:
            self.fail(node, _whole_number_message(
                node, "indices must be whole numbers written out, like x[0], W[1, 2] or x[1:3]"))
        return value

    def _Call(self, node: ast.Call) -> Shape:
        operation, values = arguments(node, self.visit, self.fail)
        if operation.work:   # per element of the tensors it is given
            tensors = [v if p == "values" else [v] for p, v in zip(operation.params, values) if p not in STATIC]
            self._work(operation.work * sum(math.prod(shape) for shapes in tensors for shape in shapes))
        return operation.shape(_CallCheck(self, node, operation), *values)

    def _work(self, work: float) -> None:
        self.flops += work
        self._scopes[-1][1] += work


class _CallCheck:
    """What an operation's shape rule may do (``gradlib._language._operations.Call``): refuse, broadcast, multiply."""

    def __init__(self, checker: _ShapeChecker, node: ast.Call, operation: Operation):
        self.name, self.max_rank = operation.name, checker.limits.max_rank
        self._checker, self._node, self._operation = checker, node, operation

    def fail(self, message: str, at: str | tuple[str, int] | None = None) -> None:
        param, k = at if isinstance(at, tuple) else (at, None)
        node = _argument_nodes(self._operation, self._node).get(param) or self._node
        self._checker.fail(node.elts[k] if k is not None else node, message)

    def broadcast(self, a: Shape, b: Shape) -> Shape:
        return self._checker._broadcast(self._node, a, b, self.name)

    def matmul(self, a: Shape, b: Shape) -> Shape:
        return self._checker._matmul(self._node, a, b, self.name)


def arguments(call: ast.Call, visit: Callable[[ast.expr], Any],
              fail: Callable[[ast.AST, str], None] | None = None) -> tuple[Operation, list]:
    """The operation a checked call names and its arguments in the operation's ``params`` order: ``visit``
    of each tensor (a list of them for ``values``), then the static values written out (``STATIC``).

    The tensors are visited first, in the text's order; ``fail(node, message)`` refuses a static value that
    is not written out as one (a checked call has none, so the builder and code generator pass none).
    """
    operation = OPERATIONS[call.func.id]
    nodes = _argument_nodes(operation, call)
    values: list[Any] = [None] * len(operation.params)
    for k, param in enumerate(operation.params):
        node = nodes.get(param)
        if param == "values":
            if not isinstance(node, ast.List) or not node.elts:
                _fail(fail, node, f"{operation.name}() {operation.takes}")
            values[k] = [visit(e) for e in node.elts]
        elif param not in STATIC:
            values[k] = visit(node)
    for k, param in enumerate(operation.params):
        if param in STATIC:
            values[k] = _static(param, nodes.get(param), fail)
            if param == "axis" and values[k] is None:
                values[k] = operation.default_axis
    return operation, values


def _argument_nodes(operation: Operation, call: ast.Call) -> dict[str, ast.expr]:
    """param -> the node given for it: positional arguments in order, then ``axis=``."""
    nodes = dict(zip(operation.params, call.args))
    nodes.update((k.arg, k.value) for k in call.keywords)
    return nodes


def _static(param: str, node: ast.expr | None, fail: Callable[[ast.AST, str], None] | None) -> Any:
    if node is None:
        return None
    if not STATIC[param].startswith("["):
        value = _int_constant(node)
        if value is None:
            _fail(fail, node, _whole_number_message(
                node, f"{param} must be a whole number written out, like {STATIC[param]}"))
        return value
    values = [_int_constant(e) for e in node.elts] if isinstance(node, ast.List) else [None]
    if None in values:
        usual = f"{param} must be a list of whole numbers written out, like {STATIC[param]}"
        if isinstance(node, ast.List):   # point at the first element that is not one
            element = node.elts[values.index(None)]
            _fail(fail, element, _whole_number_message(element, usual))
        _fail(fail, node, usual)
    return tuple(values)


def _fail(fail: Callable[[ast.AST, str], None] | None, node: ast.AST, message: str) -> None:
    if fail is None:   # the tree was checked: the builder and the code generator never get here
        raise AssertionError(f"unchecked call: {message}")
    fail(node, message)


#: whole numbers written in the text (indices, slice bounds, axis, perm, shape) are TensorFlow int32s
_INT_LIMIT = 2**31


def _int_constant(node: ast.expr | None) -> int | None:
    """The value of an integer literal, possibly negated, smaller than ``_INT_LIMIT`` in size; None for anything
    else (and for no node)."""
    value = _int_literal(node)
    return value if value is not None and abs(value) < _INT_LIMIT else None


def _int_literal(node: ast.expr | None) -> int | None:
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    return sign * node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _whole_number_message(node: ast.expr, usual: str) -> str:
    """Why ``node`` is not a whole number the language takes: too large, or ``usual`` (not one written out)."""
    value = _int_literal(node)
    if value is None:   # else it was refused for its size
        return usual
    return (f"{value} is too large: whole numbers in indices, slices, axis, perm and shape must be smaller than "
            f"{_INT_LIMIT:,} in size")


# ---------------------------------------------------------------- building TensorFlow ops


def constant_value(node: ast.Constant) -> float:
    """A checked tree's number as a float: a literal too large for one (``1e999``, ``10**400`` folded) is inf."""
    try:
        return float(node.value)
    except OverflowError:
        return math.inf


def _check_numbers(text: str, tree: ast.expr, dtype: str) -> None:
    info = np.finfo(dtype)
    largest, smallest = float(info.max), float(info.tiny)   # TensorFlow flushes numbers below the smallest normal to 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant):
            continue
        value, col = abs(constant_value(node)), getattr(node, "col_offset", 0) + 1   # a rewritten tree's have none
        written = ast.get_source_segment(text, node) or repr(node.value)
        mantissa = written.lower().replace("_", "").partition("e")[0]
        if len(written) > 24:   # a number of hundreds of digits: its start and its length
            written = f"{written[:12]}... ({len(written)} characters)"
        advice = "use dtype float64, or rescale the function" if dtype == "float32" else "rescale the function"
        if value > largest:
            raise ExpressionError(
                f"the number {written} at column {col} is larger than {dtype} can hold (at most about {largest:.1e}): "
                f"TensorFlow would compute with inf; {advice}", text=text, column=col)
        gone = value == 0 and not mantissa.startswith("0x") and any(c in "123456789" for c in mantissa)
        if gone or 0 < value < smallest:
            raise ExpressionError(
                f"the number {written} at column {col} is smaller than {dtype} computes with (TensorFlow takes numbers "
                f"under about {smallest:.1e} as 0): the function would be computed with 0 there; {advice}",
                text=text, column=col)


class _Builder:
    """Turns a checked tree into TensorFlow ops; every shape was already checked by _ShapeChecker."""

    def __init__(self, env: Mapping[str, object], dtype: object):
        self.tf, self.env, self.dtype = tf, env, dtype

    def visit(self, node: ast.expr):
        return getattr(self, f"_{type(node).__name__}")(node)

    def _Constant(self, node: ast.Constant):
        return self.tf.constant(constant_value(node), dtype=self.dtype)

    def _Name(self, node: ast.Name):
        return self.env[node.id]

    def _UnaryOp(self, node: ast.UnaryOp):
        value = self.visit(node.operand)
        return -value if isinstance(node.op, ast.USub) else value

    def _BinOp(self, node: ast.BinOp):
        a, b = self.visit(node.left), self.visit(node.right)
        op = type(node.op)
        if op is ast.MatMult:
            return self._matmul(a, b)
        return {ast.Add: self.tf.add, ast.Sub: self.tf.subtract, ast.Mult: self.tf.multiply,
                ast.Div: self.tf.divide, ast.Pow: self.tf.pow}[op](a, b)

    def _matmul(self, a, b):
        return matmul(a, b)

    def _Compare(self, node: ast.Compare):
        compare = getattr(self.tf.math, _COMPARISONS[type(node.ops[0])][1])
        return compare(self.visit(node.left), self.visit(node.comparators[0]))

    def _List(self, node: ast.List):
        return self.tf.stack([self.visit(e) for e in node.elts], axis=0)

    def _Subscript(self, node: ast.Subscript):
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        index = tuple(
            slice(*(_int_constant(p) for p in (i.lower, i.upper, i.step))) if isinstance(i, ast.Slice)
            else _int_constant(i)
            for i in items
        )
        return self.visit(node.value)[index]

    def _Call(self, node: ast.Call):
        operation, values = arguments(node, self.visit)
        return operation.run(*values)
