"""Shared by the pages' AppTests: how much code a column of the side-by-side code holds at 1366 px."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

__all__ = ["CODE_COLUMN_CHARS", "lines_too_long"]

#: characters of a code column (broken beside right) at 1366 px; longer lines scroll sideways
CODE_COLUMN_CHARS = 44


def lines_too_long(at: AppTest) -> list[str]:
    """The lines of the page's code blocks that scroll sideways in their column (there must be code on the page)."""
    codes = [c.value for c in at.code]
    assert codes, "the page shows no code"
    return [line for code in codes for line in code.splitlines() if len(line) > CODE_COLUMN_CHARS]
