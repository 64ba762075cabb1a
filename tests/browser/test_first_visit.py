"""A first visit by deep link on a freshly started server lands exactly like a visit that starts at ``/``.

Streamlit serves a ``pages/`` folder as pages of their own until the entry script has run once in the
server process; each test here starts its own server so that its first request is the deep link.
"""

from __future__ import annotations

import pytest

from ._harness import (assert_close, assert_no_error_shown, find_table, main_text, open_page, read_tables,
                       rerun, share_url, start_server)

pytestmark = pytest.mark.browser
PAGE_TITLES = ["The bug, side by side", "Playground", "Why zeros?", "Strategies", "Keras models", "Per-example gradients",
               "Check your code"]


@pytest.fixture
def fresh_server(chromium, tmp_path):
    server = start_server(tmp_path / "server.log")
    try:
        yield server
    finally:
        server.stop()


def sidebar_links(page) -> list[str]:
    """The sidebar's page links as shown (the icon's ligature name comes first; keep the title)."""
    return [t.strip().splitlines()[-1] for t in page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()]


def test_a_share_link_as_the_first_request_gets_the_dashboard_frame_and_its_numbers(page, fresh_server):
    x, s = [0.5, 2.0], 3.0
    open_page(page, share_url(fresh_server.url, "s*x*x", {"x": x, "s": s}))
    assert_no_error_shown(page)
    assert sidebar_links(page) == PAGE_TITLES            # not the folder's file names ("ui", "app", ...)
    assert "gradlib" in page.title()                       # the page config applies
    assert page.locator(".st-key-pg_outputs textarea").input_value() == "s*x*x"
    rows = find_table(read_tables(page), "d output / d", ["y[0]", "y[1]"])
    assert_close(rows.numbers(), [[2 * s * x[0], 0, x[0] ** 2], [0, 2 * s * x[1], x[1] ** 2]])
    # the first submit after a deep-link landing keeps what was typed (the form's widgets are the live ones)
    page.locator(".st-key-pg_outputs textarea").fill("s*x")
    with rerun(page):
        page.locator(".st-key-pg_submit button").click()
    assert_no_error_shown(page)
    rows = find_table(read_tables(page), "d output / d", ["y[0]", "y[1]"])
    assert_close(rows.numbers(), [[s, 0, x[0]], [0, s, x[1]]])
    # the next interaction stays inside the same frame
    page.get_by_role("link", name="Why zeros?").click()
    page.wait_for_url("**/why_zeros", timeout=60_000)
    page.wait_for_selector("text=Why zeros", timeout=60_000)
    assert sidebar_links(page) == PAGE_TITLES


@pytest.mark.parametrize("path", ["bug", "why_zeros", "lint"])
def test_a_page_opened_first_by_its_address_is_found(page, fresh_server, path):
    open_page(page, f"{fresh_server.url}/{path}")
    assert_no_error_shown(page)                            # includes: no "Page not found" dialog
    assert sidebar_links(page) == PAGE_TITLES
    text = main_text(page)
    assert {"bug": "for y_i in y", "why_zeros": "Why zeros", "lint": "Line 7: GT001"}[path] in text


def test_the_bug_page_by_its_address_on_a_server_that_has_run_before(page, app_server):
    open_page(page, app_server.url)                        # the router has run: Streamlit left folder mode
    open_page(page, f"{app_server.url}/bug")
    assert_no_error_shown(page)
    assert "for y_i in y" in main_text(page)
