"""gradlib.lint: find GradientTape mistakes in Python source without running it.

The source is parsed with ``ast`` and walked by an abstract interpreter that follows names through
assignments, ``with tf.GradientTape() as tape`` blocks, watches, loops, comprehensions and helper
functions; it is never executed, imported or compiled. A finding is reported only when the linter
can tell for sure; code it cannot follow gets no finding. The rules are in ``RULES``.

>>> import gradlib
>>> source = '''
... import tensorflow as tf
... x = tf.constant([3.0, 4.0])
... with tf.GradientTape(persistent=True) as tape:
...     tape.watch(x)
...     y = x * x
... rows = [tape.gradient(y_i, x) for y_i in y]
... '''
>>> result = gradlib.lint(source)
>>> [(f.line, f.rule) for f in result], result.complete
([(7, 'GT001')], True)

The analysis is bounded in steps, in what it builds and in time (``Limits.max_source_steps``,
``max_source_work``, ``max_source_seconds``). When it stops early, or fails inside, the result says
so (``complete`` is False, ``reason`` says why): an incomplete check is never reported as clean.

Command line: ``python -m gradlib.lint FILE...`` (``-`` reads standard input).
"""

from __future__ import annotations

import ast
import os
import time
from dataclasses import replace

from .._foundations import _runtime
from .._foundations._limits import LIMITS, Limits
from . import _diagnose, _fixes, _interp, _source
from ._rules import RULES, RULES_BY_CODE, LintFinding, LintResult, Rule
from ._project import OFFSET, Project
from ._source import LintError

__all__ = ["LintError", "LintFinding", "LintResult", "Project", "RULES", "RULES_BY_CODE", "Rule", "lint"]

_STRICT = os.environ.get("GRADLIB_LINT_STRICT") == "1"   # tests: let an internal error surface
_MAX_CORRECTIONS = 10          # findings given a whole corrected source each (every one re-parses the source)
_MAX_CORRECTED_CHARS = 200_000  # characters re-parsed to check the corrections, all together


def lint(source: str, *, limits: Limits = LIMITS, project: Project | None = None,
         path: str | None = None) -> LintResult:
    """Find GradientTape mistakes in ``source`` (Python code as text) without running it.

    Args:
        source: the Python source, as ``str``, or as ``bytes`` decoded the way Python reads a file
            (a UTF-8 byte order mark or a ``# -*- coding: ... -*-`` line, else UTF-8).
        limits: size bounds; ``max_source_chars``, ``max_source_lines``, ``max_source_depth``,
            ``max_source_steps``, ``max_source_work`` and ``max_source_seconds`` apply.
        project: the project the source is part of (``Project(root)``): its other modules are read (never run)
            where the source imports them, so their classes and functions are followed. None: the source alone.
        path: where the source is in ``project`` (relative to its root), for its relative imports.

    Returns:
        A ``LintResult``: the findings (a list of ``LintFinding``), sorted by line and column, and
        ``complete``/``reason``. Empty and complete when nothing is wrong, or nothing can be decided
        for sure. Not complete when the analysis reached a bound or failed inside: then what was found
        so far is returned, and ``reason`` says why the rest was not checked.

    Raises:
        LintError: the source is not text, too large, nested too deeply, or not valid Python
            (``line`` and ``col`` say where).
    """
    with _runtime.work_slot():
        deadline = time.monotonic() + limits.max_source_seconds
        text, tree = _source.parse_source(source, limits)
        interpreter = _interp.Interpreter(_diagnose.diagnose, limits.max_source_steps, limits.max_source_work,
                                          deadline, project, project.relative(path) if project and path else None)
        stopped = _run(interpreter, tree)
        reasons = ([stopped] if stopped else []) + interpreter.gaps
        try:
            findings = _findings(interpreter, text, tree, deadline)
        except MemoryError:
            findings, reasons = [], reasons + ["the linter ran out of memory writing its findings (MemoryError)"]
        calls, not_checked = _coverage(interpreter, tree, stopped)
        assumed = sum(1 for key in interpreter.assumed if interpreter.calls.get(key, "") is None)
        return LintResult(findings, "; ".join(reasons) or None, calls=calls, checked=calls - len(not_checked),
                          not_checked=not_checked, assumed=assumed)


_GRADIENT_METHODS = ("gradient", "jacobian", "batch_jacobian")


def _is_gradient_call(node: ast.AST) -> bool:
    """Whether ``node`` is a gradient call the counts speak of: ``.gradient``, ``.jacobian`` or ``.batch_jacobian``
    with a target and sources (two arguments or more). ``f.gradient(x)`` with one argument is some other object's
    method (an autodiff class of the user's own), not a tape's."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in _GRADIENT_METHODS and len(node.args) + len(node.keywords) >= 2


_UNREACHED = "a tape it cannot follow (a parameter, or an object it cannot see)"


def _coverage(interpreter: _interp.Interpreter, tree, stopped: str | None) -> tuple[int, list[tuple[int, str]]]:
    """How many gradient calls the source makes, and (line, why) for each one the analysis could not follow:
    exactly one reason a call, so the reasons add up to the calls not checked."""
    sites = sorted({(n.lineno, n.col_offset) for n in ast.walk(tree) if _is_gradient_call(n)})
    unreached = "the analysis stopped before it" if stopped else interpreter.raised or _UNREACHED
    not_checked = [(line, interpreter.calls.get((line, col), unreached)) for line, col in sites
                   if interpreter.calls.get((line, col), unreached) is not None]
    return len(sites), not_checked


def _run(interpreter: _interp.Interpreter, tree) -> str | None:
    """Run the analysis; why it stopped early (a clause), or None when it ran to the end."""
    try:
        interpreter.run_module(tree)
    except _interp.Budget as stop:
        return str(stop)
    except _interp.Raises as stop:          # the program ends there: what follows is never run, and not incomplete
        interpreter.raised = str(stop)
        return None
    except RecursionError:
        return f"the analysis nested too deeply near line {interpreter.line} (functions calling functions inside " \
               "blocks; RecursionError)"
    except MemoryError:
        return f"the analysis ran out of memory near line {interpreter.line} (MemoryError)"
    except Exception as err:      # a construct the linter does not handle: say so, never a traceback, never "clean"
        if _STRICT:
            raise
        return f"the linter failed inside near line {interpreter.line} ({type(err).__name__}: {str(err)[:200]})"
    return None


def _findings(interpreter: _interp.Interpreter, text: str, tree, deadline: float) -> list[LintFinding]:
    """The findings, sorted; the first few with a fix get the corrected source.

    Each correction is the whole source, parsed again to check it: at most ``_MAX_CORRECTIONS`` of them and
    ``_MAX_CORRECTED_CHARS`` characters parsed in all, and none once the deadline has passed.
    """
    found = sorted(((line, col, code, message, fix) for (code, line, col), (message, fix)
                    in interpreter.findings.items()), key=lambda f: f[:3])
    findings, corrections = [], 0
    allowed = min(_MAX_CORRECTIONS, max(1, _MAX_CORRECTED_CHARS // max(len(text), 1)))
    for line, col, code, message, fix in found:
        fixed = None
        if fix is not None and any(isinstance(part, int) and part >= OFFSET for part in fix):
            fix = None                      # an edit of another module of the project: not this file's to offer
        if fix is not None and corrections < allowed and time.monotonic() < deadline:
            corrections += 1
            fixed = _fixes.corrected(text, tree, fix)
        if interpreter.project is not None:
            message = interpreter.project.rewrite(message)
        findings.append(LintFinding(line, col, code, message, fixed))
    return _whole_moves(findings, interpreter.memo.get("before groups", ()))


def _whole_moves(findings: list[LintFinding], groups) -> list[LintFinding]:
    """No correction that moves one of several causes computed before a call's block while another cannot be moved:
    the gradient would still be None (``_diagnose._partial_moves``)."""
    stuck = {(line, col) for group in groups for line, col in group
             if any(f.rule == "GT007" and (f.line, f.col) in group and f.fixed is None for f in findings)}
    return [replace(f, fixed=None) if f.rule == "GT007" and (f.line, f.col) in stuck else f for f in findings]
