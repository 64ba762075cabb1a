"""A first visit by deep link on a freshly started server lands exactly like a visit that starts at ``/``.

Streamlit serves a ``pages/`` folder as pages of their own until the entry script has run once in the
server process; each test here starts its own server so that its first request is the deep link.
"""

from __future__ import annotations

import time

import pytest

from ._harness import (VIEWPORT, assert_close, assert_no_error_shown, find_table, main_text, open_page, read_tables,
                       rerun, share_url, start_server, wait_idle)

pytestmark = pytest.mark.browser
PAGE_TITLES = ["The bug, side by side", "Playground", "Why zeros?", "Strategies", "Keras models", "Per-example gradients",
               "Second order", "PDE residuals", "Check your code"]


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


@pytest.mark.parametrize("path", ["bug", "why_zeros", "lint", "second_order"])
def test_a_page_opened_first_by_its_address_is_found(page, fresh_server, path):
    open_page(page, f"{fresh_server.url}/{path}")
    assert_no_error_shown(page)                            # includes: no "Page not found" dialog
    assert sidebar_links(page) == PAGE_TITLES
    text = main_text(page)
    assert {"bug": "for y_i in y", "why_zeros": "Why zeros", "lint": "Line 7: GT001",
            "second_order": "Poisson residual"}[path] in text


def test_the_bug_page_by_its_address_on_a_server_that_has_run_before(page, app_server):
    open_page(page, app_server.url)                        # the router has run: Streamlit left folder mode
    open_page(page, f"{app_server.url}/bug")
    assert_no_error_shown(page)
    assert "for y_i in y" in main_text(page)


def _visit(browser, url: str, title: str) -> dict[str, float]:
    """Open ``url`` in a new context: seconds from the request to the page's title, and to the end of its run,
    and whether the warm-up spinner was seen on the way."""
    context = browser.new_context(viewport=VIEWPORT, color_scheme="light", locale="en-US")
    try:
        page = context.new_page()
        asked = time.monotonic()
        page.goto(url, wait_until="domcontentloaded", timeout=60_000)
        page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
        shell = time.monotonic()   # Streamlit's page itself is up (its scripts loaded), nothing of ours yet
        page.locator('[data-testid="stMain"] h1').filter(has_text=title).wait_for(timeout=120_000)
        head = time.monotonic()
        intro_shown = page.locator('[data-testid="stMain"]').get_by_text("Type a function, define its inputs").count()
        spinner = page.locator('[data-testid="stSpinner"]').filter(has_text="Starting TensorFlow")
        try:
            spinner.wait_for(timeout=3_000)   # Streamlit shows a spinner after a short delay
            spinner_seen = True
        except Exception:   # Playwright's TimeoutError: no spinner (TensorFlow was loaded already)
            spinner_seen = False
        wait_idle(page)
        assert_no_error_shown(page)
        done = time.monotonic()
        return {"shell": shell - asked, "head": head - asked, "done": done - asked, "intro": bool(intro_shown), "spinner": spinner_seen,
                "asked": asked, "text": main_text(page)}
    finally:
        context.close()


def test_a_cold_first_visit_by_deep_link_shows_the_head_at_once_and_is_timed(browser, chromium, tmp_path):
    """The timing report of a first visit (printed; run with -s): on a fresh server the playground's deep link
    showed a blank page for 3-6 s. Now its title and intro come first, with a spinner while TensorFlow loads."""
    began = time.monotonic()
    server = start_server(tmp_path / "server.log")
    try:
        healthy = time.monotonic() - began
        url = share_url(server.url, "s*x*x", {"x": [0.5, 2.0], "s": 3.0})
        cold = _visit(browser, url, "Playground")
        warm = _visit(browser, url, "Playground")
        print(f"\n[first visit] fresh server: healthy {healthy:.1f} s after start; cold deep link /playground: "
              f"Streamlit's page {cold['shell']:.2f} s, title and intro {cold['head']:.2f} s after the request, done {cold['done']:.2f} s "
              f"(server start to done {cold['asked'] + cold['done'] - began:.1f} s); warm process, new session: "
              f"Streamlit's page {warm['shell']:.2f} s, title {warm['head']:.2f} s, done {warm['done']:.2f} s")
        assert cold["intro"] and cold["spinner"]         # the head and the spinner, before TensorFlow was loaded
        assert cold["head"] < cold["done"] - 1.0          # not all at once at the end (the old blank page)
        assert not warm["spinner"]
        for visit in (cold, warm):
            assert "d output / d" in visit["text"]        # and the page then finishes (its results table)
    finally:
        server.stop()
