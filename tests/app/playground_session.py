"""Shared by the playground's AppTests: open the playground as a share link would (``open_playground(outputs=...)``)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

__all__ = ["open_playground"]


def open_playground(**params: str) -> AppTest:
    """The playground run once with ``params`` as its query string (a share link's), checked to raise nothing.

    The timeout is the longer of the two the playground's test files used (its second-order view traces more).
    """
    at = AppTest.from_file("../../app.py", default_timeout=180)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    return at
