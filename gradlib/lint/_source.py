"""Reading the source as Python does, and checks before and after parsing: size, nesting, a syntax error's line.

Bytes are decoded the way Python decodes a file (``tokenize.detect_encoding``: a UTF-8 byte order mark,
a ``# -*- coding: ... -*-`` line, else UTF-8). Bracket nesting is counted on the tokens (brackets inside
strings and comments do not count). The source is parsed by ``ast.parse`` and never compiled or run.
"""

from __future__ import annotations

import ast
import codecs
import io
import tokenize
import warnings

from .._foundations._errors import GradlibError
from .._foundations._limits import LIMITS, Limits

__all__ = ["LintError", "parse_source"]


class LintError(GradlibError):
    """The source cannot be linted (not text, too large, too deeply nested, or not valid Python).

    ``line`` and ``col`` (1-based line, 0-based column) say where, when there is a place to point at.
    ``too_large`` is True when the only problem is the size (characters, lines or bytes): the command line
    skips such a file with a note instead of failing.
    """

    def __init__(self, message: str, line: int | None = None, col: int | None = None, *, too_large: bool = False):
        self.line, self.col, self.too_large = line, col, too_large
        super().__init__(message)


def parse_source(source: object, limits: Limits = LIMITS) -> tuple[str, ast.Module]:
    """The text of ``source`` and its syntax tree, after checking its size and nesting.

    Raises ``LintError`` with the place when the source is not text, too large, nested too deeply, or
    not valid Python.
    """
    text = _check_text(_decode(source, limits), limits)
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
    return text, tree


def _whole(source: str | bytes, limits: Limits, chars: int | None = None) -> str:
    """The advice of a refusal by size: split the source, or raise every size limit it is over (the characters, at
    most ``chars`` for bytes not yet decoded, and the lines), so that the call so changed is not refused again."""
    newline = b"\n" if isinstance(source, bytes) else "\n"
    chars = len(source) if chars is None else chars
    lines = source.count(newline) + (not source.endswith(newline))
    over = [f"max_source_chars={chars}"] if chars > limits.max_source_chars else []
    over += [f"max_source_lines={lines}"] if lines > limits.max_source_lines else []
    return f"Split it, or pass limits=gradlib.Limits({', '.join(over)}) to lint it whole"


def _decode(source: object, limits: Limits) -> str:
    """``source`` as text: bytes decoded as Python decodes a source file; a leading byte order mark dropped."""
    if isinstance(source, (bytes, bytearray)):
        source = bytes(source)
        if len(source) > 4 * limits.max_source_chars:       # UTF-8 takes at most 4 bytes a character
            raise LintError(f"gradlib.lint got {len(source):,} bytes; at most {limits.max_source_chars:,} characters "
                            f"are checked at once. {_whole(source, limits, len(source))}", too_large=True)
        try:
            encoding, problem = tokenize.detect_encoding(io.BytesIO(source).readline)[0], None
        except SyntaxError as err:                  # an unknown coding, or a BOM that contradicts it, or not text
            encoding, problem = "utf-8", err.msg
            if source.startswith(codecs.BOM_UTF8):
                problem += " (the file starts with a UTF-8 byte order mark but declares another encoding)"
        try:
            text = source.decode(encoding)
        except UnicodeDecodeError as err:
            line = source.count(b"\n", 0, err.start) + 1
            what = "UTF-8 text" if encoding.startswith("utf-8") else f"text in its declared encoding ({encoding})"
            raise LintError(f"gradlib.lint needs {what}; byte {err.start} (line {line}) is "
                            f"{source[err.start:err.start + 1]!r}. Is this a binary file?", line, 0) from None
        if problem is not None:
            raise LintError(f"gradlib.lint cannot read the source: {problem}. Declare an encoding Python knows "
                            "(# -*- coding: utf-8 -*-) or save the file as UTF-8.", 1, 0)
        source = text
    if isinstance(source, str) and source.startswith("\ufeff"):
        source = source[1:]
    return source


def _check_text(source: object, limits: Limits) -> str:
    if not isinstance(source, str):
        raise LintError(f"gradlib.lint needs the source as a str; got {type(source).__name__}")
    if len(source) > limits.max_source_chars:
        raise LintError(f"gradlib.lint got {len(source):,} characters; at most {limits.max_source_chars:,} are "
                        f"checked at once. {_whole(source, limits)}", too_large=True)
    if "\x00" in source:
        line = source.count("\n", 0, source.index("\x00")) + 1
        raise LintError(f"gradlib.lint got a null byte on line {line}: this is not Python source (a binary file?)",
                        line, 0)
    lines = source.count("\n") + (not source.endswith("\n"))   # a final newline ends the last line, not a new one
    if lines > limits.max_source_lines:
        raise LintError(f"gradlib.lint got {lines:,} lines; at most {limits.max_source_lines:,} are checked at once. "
                        f"{_whole(source, limits)}", too_large=True)
    _check_brackets(source, limits)
    return source


def _check_brackets(source: str, limits: Limits) -> None:
    """Refuse bracket nesting deeper than the limit before Python's parser sees it (only operator tokens count).

    The count goes on past the limit to the end of the source, so the message names the depth reached; code the
    tokenizer cannot read stops it (then the depth is "at least" what was counted, and below the limit the parser
    reports that syntax error itself).
    """
    depth = deepest = 0
    first, complete = None, True        # first: where the source first goes one level past the limit
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.OP:
                continue
            if token.string in ("(", "[", "{"):
                depth += 1
                deepest = max(deepest, depth)
                if first is None and depth > limits.max_source_depth:
                    first = token.start
            elif token.string in (")", "]", "}"):
                depth = max(depth - 1, 0)
    except (tokenize.TokenError, SyntaxError):
        complete = False
    if first is not None:
        (line, col), reached = first, f"{deepest:,}" if complete else f"at least {deepest:,}"
        raise LintError(f"gradlib.lint: brackets nest {reached} deep; at most {limits.max_source_depth} levels are "
                        f"allowed, and level {limits.max_source_depth + 1} opens on line {line}; simplify the "
                        "expression.", line, col)


def _check_tree(tree: ast.Module, limits: Limits) -> None:
    """Refuse syntax trees deeper than the limit (long operator chains, statement nesting), iteratively."""
    todo, deepest, first = [(tree, 0)], 0, None
    while todo:
        node, depth = todo.pop()
        deepest = max(deepest, depth)
        if first is None and depth > limits.max_source_depth:
            first = node
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    if first is not None:
        line = getattr(first, "lineno", 1)
        raise LintError(f"gradlib.lint: the code nests {deepest:,} levels deep; at most {limits.max_source_depth} "
                        f"are allowed, and level {limits.max_source_depth + 1} is on line {line} (a long chain of "
                        "operators or calls); split it into smaller statements.", line, getattr(first, "col_offset", 0))
