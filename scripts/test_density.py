"""Test lines per code line, per room: how thick the tests are around the code they guard (issue 38, item 6).

Usage: python scripts/test_density.py [ROOM...]   (default: _perelement _second)

A room's code is ``gradlib/<room>/**.py``; its tests are ``tests/<room without the underscore>/*.py`` and, for each
sub-room (a package inside it), ``tests/<sub-room without the underscore>/*.py``. Both are
counted alike, in lines that hold code: blank lines, comment lines and docstrings are left out (a docstring says
what the code does, it neither runs nor checks anything). tests/project/test_density.py asserts that second order
is at least as thick as first order.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def code_lines(source: str) -> int:
    """The lines of ``source`` that hold code: a token other than a comment, outside every docstring."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings |= set(range(first.lineno, first.end_lineno + 1))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _SKIPPED:
            lines |= set(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def density(room: str, root: Path = ROOT) -> tuple[int, int, float]:
    """``(code lines, test lines, test lines per code line)`` of ``gradlib/<room>`` and ``tests/<room>``, a room's
    sub-rooms included (``gradlib/_perelement/_comparison/`` and its tests, ``tests/comparison/``)."""
    modules = sorted((root / "gradlib" / room).rglob("*.py"))
    folders = [room] + sorted({p.parent.name for p in modules if p.name == "__init__.py"} - {room})
    code = sum(code_lines(p.read_text()) for p in modules)
    tests = sum(code_lines(p.read_text()) for f in folders for p in sorted((root / "tests" / f.lstrip("_")).glob("*.py")))
    return code, tests, tests / code


def main(rooms: list[str]) -> None:
    for room in rooms or ["_perelement", "_second"]:
        code, tests, ratio = density(room)
        print(f"gradlib/{room}: {code:,} code lines, tests/{room.lstrip('_')}: {tests:,} test lines, {ratio:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
