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

__all__ = ["CAVEAT", "EXCERPT_WIDTH", "INCOMPLETE", "MAX_SHOWN", "PHONE_KEY", "WIDE_EXCERPT_WIDTH", "WIDE_KEY",
           "correction_diff", "excerpt", "incomplete_markdown", "message_markdown", "project_summary", "show",
           "show_excerpt", "show_project"]

CLEAN = ("No GradientTape mistake found. gradlib.lint reports only what it can prove from the code: what it "
         "cannot follow (a function defined elsewhere, values loaded from a file) gets no finding.")
#: said after the all-clear, which claims only the gradient calls that could be followed
CAVEAT = ("gradlib.lint reports only what it can prove from the code: what it cannot follow (a function defined "
          "elsewhere, values loaded from a file) gets no finding.")
INCOMPLETE = "This code could not be checked completely"
#: findings drawn on the page (each is a heading, an excerpt and a message; thousands would stall the browser)
MAX_SHOWN = 50
#: characters per line of an excerpt (its number, the ``|`` and the ellipses included) that a code block shows
#: whole on a 390 px phone
EXCERPT_WIDTH = 36
#: fewest characters of code an excerpt's line keeps, however narrow ``width`` is
_MIN_SHOWN = 8
#: the same on a wider screen (a laptop's main column, the sidebar open)
WIDE_EXCERPT_WIDTH = 72
#: key prefixes of an excerpt's two cuts; dashboard/style.css shows one of them, by the screen's width
WIDE_KEY, PHONE_KEY = "lint_excerpt_wide_", "lint_excerpt_phone_"
_TAB = 8   # Python's tab stops


def excerpt(source: str, line: int, col: int, *, width: int = EXCERPT_WIDTH) -> str:
    r"""The finding's line with its number and a caret under the column, and the line before it for context.

    ``col`` counts bytes of UTF-8, as Python's ``ast`` does; the caret goes under that character. Tabs are shown
    as spaces (Python's tab stops of 8), so the caret stays under its character. A line longer than ``width``
    (the number and the ``|`` included) is cut to the part around the column, ``…`` marking what is left out:
    at phone width a code block shows about ``EXCERPT_WIDTH`` characters, and the caret of a long line was off
    the screen.

    >>> print(excerpt("y = f(x)\nrows = [tape.gradient(y_i, x) for y_i in y]", 2, 41, width=30))
    1 | …
    2 | …nt(y_i, x) for y_i in y]
      |                        ^
    """
    lines = source.splitlines()
    numbers = [n for n in range(max(1, line - 1), line + 1) if n <= len(lines)]
    texts = [lines[n - 1].expandtabs(_TAB) for n in numbers]
    at = _character_column(lines[line - 1], col) if line <= len(lines) else col
    digits = len(str(line))
    room = width - digits - 3   # characters of code a line has room for
    start, shown = 0, room
    if max(map(len, texts), default=0) > room:
        shown = max(_MIN_SHOWN, room - 2)   # two columns for the ellipses
        end = max(len(texts[-1]) if numbers and numbers[-1] == line else 0, at + 1)   # the finding's line's end
        start = max(0, min(at - shown // 2, end - shown))
    rows = [f"{n:>{digits}} | " + _cut(text, start, shown) for n, text in zip(numbers, texts)]
    return "\n".join(rows + [" " * digits + " | " + " " * (at - start + (start > 0)) + "^"])


def _character_column(text: str, col: int) -> int:
    """The column (in characters, tabs expanded) of ``ast``'s ``col``, which counts bytes of UTF-8."""
    before = text.encode("utf-8")[:col].decode("utf-8", errors="ignore")
    return len(before.expandtabs(_TAB))


def _cut(text: str, start: int, shown: int) -> str:
    """``text[start:start + shown]``, with ``…`` where characters are left out (a space keeps the columns when
    nothing is left out on the left of a cut line)."""
    if start == 0 and len(text) <= shown:
        return text
    head = ("…" if text[:start].strip() else " ") if start else ""
    tail = "…" if text[start + shown:].strip() else ""
    return (head + text[start:start + shown] + tail).rstrip()


def show_excerpt(source: str, finding: LintFinding, *, key: str) -> None:
    """The finding's excerpt cut to ``WIDE_EXCERPT_WIDTH``, and, when a phone's cut differs, one cut to
    ``EXCERPT_WIDTH`` beside it: the page's style (dashboard/style.css) shows the one that fits the screen."""
    wide = excerpt(source, finding.line, finding.col, width=WIDE_EXCERPT_WIDTH)
    narrow = excerpt(source, finding.line, finding.col)
    if narrow == wide:
        st.code(wide, language="text")
        return
    with st.container(key=f"{WIDE_KEY}{key}"):
        st.code(wide, language="text")
    with st.container(key=f"{PHONE_KEY}{key}"):
        st.code(narrow, language="text")


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


def show(source: str, findings: Sequence[LintFinding], *, prefix: str = "") -> None:
    """Every finding under a heading with its line, the explanation and, when there is one, the correction.

    ``findings`` is gradlib's ``LintResult``: when it is not ``complete``, a warning says why and the page
    never says that no mistake was found. ``prefix`` keeps the excerpts' keys apart when several files are shown.
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
        show_excerpt(source, finding, key=f"{prefix}{finding.line}_{finding.col}_{finding.rule}")
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


def project_summary(results: Sequence[tuple[str, object]]) -> str:
    """One sentence over a project's files: the findings and the files they are in, and the files not checked."""
    found = {path: len(r) for path, r in results if not isinstance(r, str) and len(r)}
    refused = [path for path, r in results if isinstance(r, str)]
    incomplete = [path for path, r in results if not isinstance(r, str) and getattr(r, "reason", None)]
    total = sum(found.values())
    head = (f"{total} finding{'s' if total != 1 else ''} in {len(found)} of {len(results)} file"
            f"{'s' if len(results) != 1 else ''}" if total else
            f"No GradientTape mistake found in the {len(results) - len(refused)} file"
            f"{'s' if len(results) - len(refused) != 1 else ''} checked")
    notes = ([f"{len(refused)} not checked"] if refused else []) + \
        ([f"{len(incomplete)} not checked completely"] if incomplete else [])
    return head + (f" ({', '.join(notes)})" if notes else "") + "."


def show_project(texts: dict, results: Sequence[tuple[str, object]], skipped: Sequence[str] = ()) -> None:
    """A project's findings file by file: a summary, then each file under its path, as ``show`` draws one file
    (or why it was not checked)."""
    clean = all(not isinstance(r, str) and not len(r) and r.reason is None for _, r in results)
    (st.success if clean else st.error if any(not isinstance(r, str) and len(r) for _, r in results)
     else st.warning)(escape(project_summary(results)))
    if skipped:
        listed = ", ".join(skipped[:10]) + (", ..." if len(skipped) > 10 else "")
        st.caption(escape(f"Not Python, so not read: {listed}."))
    for k, (path, result) in enumerate(results):
        st.markdown(f"### {escape(path)}")
        if isinstance(result, str):
            st.warning(escape(f"{path}: {result}"))
        else:
            show(texts[path], result, prefix=f"f{k}_")
