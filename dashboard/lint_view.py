"""How the "Check your code" page shows gradlib.lint's findings: the line, the explanation, the correction.

Pure text helpers (``excerpt``, ``correction_diff``, ``message_markdown``) and one ``show`` for the page.
Nothing here runs the user's code; it only shows text and what ``gradlib.lint`` found.
"""

from __future__ import annotations

import difflib
from typing import Sequence

import streamlit as st

from gradlib import LintFinding
from gradlib.lint import RULES_BY_CODE

from .render import escape

__all__ = ["CAVEAT", "INCOMPLETE", "MAX_SHOWN", "correction_diff", "excerpt", "incomplete_markdown", "message_markdown",
           "show"]

CLEAN = ("No GradientTape mistake found. gradlib.lint reports only what it can prove from the code: what it "
         "cannot follow (a function defined elsewhere, values loaded from a file) gets no finding.")
#: said after the all-clear, which claims only the gradient calls that could be followed
CAVEAT = ("gradlib.lint reports only what it can prove from the code: what it cannot follow (a function defined "
          "elsewhere, values loaded from a file) gets no finding.")
INCOMPLETE = "This code could not be checked completely"
#: findings drawn on the page (each is a heading, an excerpt and a message; thousands would stall the browser)
MAX_SHOWN = 50


def excerpt(source: str, line: int, col: int) -> str:
    """The finding's line with its number and a caret under the column, and the line before it for context."""
    lines = source.splitlines()
    width = len(str(line))
    shown = [f"{n:>{width}} | {lines[n - 1]}" for n in range(max(1, line - 1), line + 1) if n <= len(lines)]
    return "\n".join(shown + [" " * width + " | " + " " * col + "^"])


def correction_diff(source: str, fixed: str) -> str:
    """The correction as a unified diff (only the changed lines and two of context)."""
    diff = difflib.unified_diff(source.splitlines(), fixed.splitlines(), "your code", "corrected", n=2, lineterm="")
    return "\n".join(diff)


def message_markdown(message: str) -> str:
    """The message as Markdown: `code` spans stay code, everything else is shown literally."""
    parts = message.split("`")
    if len(parts) % 2 == 0:
        return escape(message)
    return "".join(f"`{part}`" if k % 2 else escape(part) for k, part in enumerate(parts))


def incomplete_markdown(reason: str, found: int) -> str:
    """Why the check stopped early, and what that means for the findings shown (never "no mistake")."""
    shown = "The findings below are what it found before that; " if found else "Nothing was found before that, "
    return (f"**{INCOMPLETE}**: {escape(reason)}. {shown}the rest of the code was not checked, so it may still "
            "hold a GradientTape mistake. Check a smaller part of it (the function that computes your gradients).")


def _all_clear(result, coverage: str | None) -> None:
    """The all-clear claims only the gradient calls that could be followed; none followed is no all-clear."""
    if coverage is None:
        st.success(CLEAN)
    elif result.checked:
        st.success(f"{escape(coverage)} {CAVEAT}")
    else:
        st.info(escape(coverage))


def show(source: str, findings: Sequence[LintFinding]) -> None:
    """Every finding under a heading with its line, the explanation and, when there is one, the correction.

    ``findings`` is gradlib's ``LintResult``: when it is not ``complete``, a warning says why and the page
    never says that no mistake was found.
    """
    reason = getattr(findings, "reason", None)
    coverage = findings.coverage() if hasattr(findings, "coverage") else None
    if reason is not None:
        st.warning(incomplete_markdown(reason, len(findings)))
    if not findings:
        if reason is None:
            _all_clear(findings, coverage)
        return
    lines = sorted({f.line for f in findings})
    listed = ", ".join(map(str, lines[:MAX_SHOWN])) + (", ..." if len(lines) > MAX_SHOWN else "")
    st.error(f"**{len(findings)} finding{'s' if len(findings) != 1 else ''}** on line"
             f"{'s' if len(lines) != 1 else ''} {listed}.")
    if coverage is not None:
        st.caption(escape(coverage))
    for finding in findings[:MAX_SHOWN]:
        rule = RULES_BY_CODE[finding.rule]
        st.markdown(f"#### Line {finding.line}: {finding.rule} {escape(rule.title)}")
        st.code(excerpt(source, finding.line, finding.col), language="text")
        st.markdown(message_markdown(finding.message))
        if finding.fixed is not None:
            st.markdown("**The correction:**")
            st.code(correction_diff(source, finding.fixed), language="diff")
            with st.expander("The whole corrected code"):
                st.code(finding.fixed, language="python")
    if len(findings) > MAX_SHOWN:
        rest = findings[MAX_SHOWN:]
        st.info(f"{len(rest)} more finding{'s' if len(rest) != 1 else ''} (lines {rest[0].line} to {rest[-1].line}) "
                "are not shown: fix these first, then check again.")
