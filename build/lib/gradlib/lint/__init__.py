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
>>> [(f.line, f.rule) for f in gradlib.lint(source)]
[(7, 'GT001')]

Command line: ``python -m gradlib.lint FILE...`` (``-`` reads standard input).
"""

from __future__ import annotations

import os

from .._limits import LIMITS, Limits
from . import _diagnose, _fixes, _interp, _source
from ._rules import RULES, RULES_BY_CODE, LintFinding, Rule
from ._source import LintError

__all__ = ["LintError", "LintFinding", "RULES", "RULES_BY_CODE", "Rule", "lint"]

_STRICT = os.environ.get("GRADLIB_LINT_STRICT") == "1"   # tests: let an internal error surface


def lint(source: str, *, limits: Limits = LIMITS) -> list[LintFinding]:
    """Find GradientTape mistakes in ``source`` (Python code as text) without running it.

    Args:
        source: the Python source, as ``str`` (UTF-8 ``bytes`` are accepted too).
        limits: size bounds; ``max_source_chars``, ``max_source_lines``, ``max_source_depth`` and
            ``max_source_steps`` apply.

    Returns:
        The findings, sorted by line and column. Empty when nothing is wrong, or when nothing can
        be decided for sure.

    Raises:
        LintError: the source is not text, too large, nested too deeply, or not valid Python
            (``line`` and ``col`` say where).
    """
    tree = _source.parse_source(source, limits)
    text = source.decode("utf-8") if isinstance(source, bytes) else source
    interpreter = _interp.Interpreter(_diagnose.diagnose, limits.max_source_steps)
    try:
        interpreter.run_module(tree)
    except (_interp.Budget, RecursionError):
        pass                      # what was found so far stands; the rest stays unchecked
    except Exception:             # an unexpected construct: report what was found, never a traceback
        if _STRICT:
            raise
    findings = [LintFinding(line, col, code, message, _fixes.corrected(text, tree, fix))
                for (code, line, col), (message, fix) in interpreter.findings.items()]
    return sorted(findings, key=lambda f: (f.line, f.col, f.rule))
