"""Checks on the source text before and after parsing: size, nesting, and a syntax error with its line."""

from __future__ import annotations

import ast
import warnings

from .._errors import GradlibError
from .._limits import LIMITS, Limits

__all__ = ["LintError", "parse_source"]


class LintError(GradlibError):
    """The source cannot be linted (not text, too large, too deeply nested, or not valid Python).

    ``line`` and ``col`` (1-based line, 0-based column) say where, when there is a place to point at.
    """

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        self.line, self.col = line, col
        super().__init__(message)


def parse_source(source: object, limits: Limits = LIMITS) -> ast.Module:
    """Parse ``source`` after checking its size and nesting; raise ``LintError`` with the place if it fails."""
    text = _check_text(source, limits)
    try:
        with warnings.catch_warnings():          # "invalid escape sequence" and the like are not ours to report
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except SyntaxError as err:
        line, col = err.lineno or 1, max((err.offset or 1) - 1, 0)
        raise LintError(f"gradlib.lint could not parse the source: {err.msg} (line {line}, column {col}). "
                        "Fix the syntax error first; nothing was checked.", line, col) from None
    except (RecursionError, MemoryError, ValueError) as err:
        raise LintError(f"gradlib.lint could not parse the source ({type(err).__name__}: {err}); it nests too "
                        f"deeply or contains a null byte. At most {limits.max_source_depth} levels are allowed.",
                        1, 0) from None
    _check_tree(tree, limits)
    return tree


def _check_text(source: object, limits: Limits) -> str:
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as err:
            raise LintError(f"gradlib.lint needs UTF-8 text; byte {err.start} is {source[err.start:err.start + 1]!r}. "
                            "Is this a binary file?", 1, 0) from None
    if not isinstance(source, str):
        raise LintError(f"gradlib.lint needs the source as a str; got {type(source).__name__}")
    if len(source) > limits.max_source_chars:
        raise LintError(f"gradlib.lint got {len(source):,} characters; at most {limits.max_source_chars:,} are "
                        "checked at once. Lint the files one by one.")
    if "\x00" in source:
        line = source.count("\n", 0, source.index("\x00")) + 1
        raise LintError(f"gradlib.lint got a null byte on line {line}: this is not Python source (a binary file?)",
                        line, 0)
    lines = source.count("\n") + 1
    if lines > limits.max_source_lines:
        raise LintError(f"gradlib.lint got {lines:,} lines; at most {limits.max_source_lines:,} are checked at once.")
    _check_brackets(source, limits)
    return source


def _check_brackets(source: str, limits: Limits) -> None:
    """Refuse bracket nesting deeper than the limit before Python's parser sees it (strings counted too)."""
    depth, line = 0, 1
    for char in source:
        if char in "([{":
            depth += 1
            if depth > limits.max_source_depth:
                raise LintError(f"gradlib.lint: brackets nest more than {limits.max_source_depth} deep on line "
                                f"{line}; simplify the expression.", line, 0)
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == "\n":
            line += 1


def _check_tree(tree: ast.Module, limits: Limits) -> None:
    """Refuse syntax trees deeper than the limit (long operator chains, statement nesting), iteratively."""
    todo = [(tree, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > limits.max_source_depth:
            line = getattr(node, "lineno", 1)
            raise LintError(f"gradlib.lint: the code nests more than {limits.max_source_depth} levels deep on "
                            f"line {line} (a long chain of operators or calls); split it into smaller statements.",
                            line, getattr(node, "col_offset", 0))
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
