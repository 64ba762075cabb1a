"""End to end in a real browser: Debian's Chromium drives `streamlit run app.py` on 127.0.0.1.

The seed numbers on the first page, a share link opening the playground, an edited function
recomputed on submit, hostile links refused with a message (never a traceback), and a screenshot
of every page for the README (docs/screenshots/). Expected numbers are computed here with math,
independently of gradlib and TensorFlow.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from ._harness import (assert_close, assert_no_error_shown, error_messages, find_table, main_text, open_page,
                      page_not_found_shown, read_tables, rerun, screenshot, share_url)

pytestmark = pytest.mark.browser

SEED_ROWS = [[20, 15, 12], [120, 45, 36]]     # d y_i / d x at x = (3, 4, 5), y = [x0*x1*x2, x0*x1*x2*x0]
SEED_SUMMED = [[140, 60, 48]]                  # tape.gradient(y, x): the column sums


def _column(page, heading: str):
    """The st.columns cell whose text contains ``heading``."""
    return page.locator('[data-testid="stColumn"]').filter(has_text=heading)


def test_first_page_shows_the_seed_zeros_summed_and_correct_rows(page, app_server):
    open_page(page, app_server.url + "/")
    assert_no_error_shown(page)
    assert page.locator("h1").first.inner_text() == "The bug, side by side"

    naive = _column(page, "Naive loop: broken")
    assert naive.locator('[data-testid="stAlertContentError"]').count() == 1, "the naive loop is not marked broken"
    table = find_table(read_tables(naive), "d y_i / d", ["y[0]", "y[1]"])
    assert table.header == ["d y_i / d", "x0", "x1", "x2"]
    assert_close(table.numbers(), [[0, 0, 0], [0, 0, 0]])

    summed = find_table(read_tables(_column(page, "tape.gradient(y, x): summed")), "", ["sum(y)"])
    assert_close(summed.numbers(), SEED_SUMMED)

    correct = find_table(read_tables(_column(page, "Per-element rows: correct")), "d y_i / d", ["y[0]", "y[1]"])
    assert_close(correct.numbers(), SEED_ROWS)
    assert [sum(col) for col in zip(*correct.numbers())] == SEED_SUMMED[0]

    text = main_text(page)
    assert "20 + 120 = 140, 15 + 45 = 60, 12 + 36 = 48" in text
    plotly_table = page.locator(".st-key-bug_table").inner_text()
    shown = {float(tok) for tok in plotly_table.split() if tok.replace(".", "", 1).isdigit()}
    assert shown == {0, 140, 60, 48, 20, 15, 12, 120, 45, 36}, f"the Plotly table shows {sorted(shown)}"
    _shot(page, "bug")


def test_share_link_opens_the_playground_with_its_numbers(page, app_server):
    x, y = [0.5, 1.0], 2.0
    open_page(page, share_url(app_server.url, "sin(x)*y", {"x": x, "y": y}))
    assert_no_error_shown(page)
    assert page.locator(".st-key-pg_outputs textarea").input_value() == "sin(x)*y"
    tables = read_tables(page)
    # an input is named y, so the output is out (a row's label is never a column's), in its table's header too
    values = find_table(tables, "element", ["out[0]", "out[1]"])
    assert values.header == ["element", "out"]
    assert_close(values.numbers(), [[y * math.sin(v)] for v in x])
    rows = find_table(tables, "d output / d", ["out[0]", "out[1]"])
    assert rows.header == ["d output / d", "x[0]", "x[1]", "y"]
    assert_close(rows.numbers(), [[y * math.cos(x[0]), 0, math.sin(x[0])],
                                  [0, y * math.cos(x[1]), math.sin(x[1])]])
    assert "Finite-difference check passed" in main_text(page)


def test_editing_the_function_recomputes_and_updates_the_link(page, app_server):
    x, s = [0.5, 1.0], 2.0
    open_page(page, share_url(app_server.url, "sin(x)*s", {"x": x, "s": s}))
    assert_no_error_shown(page)
    rows = find_table(read_tables(page), "d output / d", ["y[0]", "y[1]"])
    assert_close(rows.numbers(), [[s * math.cos(x[0]), 0, math.sin(x[0])], [0, s * math.cos(x[1]), math.sin(x[1])]])

    page.locator(".st-key-pg_outputs textarea").fill("x**3*s + exp(x)")
    with rerun(page):
        page.locator(".st-key-pg_submit button").click()
    assert_no_error_shown(page)
    tables = read_tables(page)
    assert_close(find_table(tables, "element", ["y[0]", "y[1]"]).numbers(),
                 [[v ** 3 * s + math.exp(v)] for v in x])
    assert_close(find_table(tables, "d output / d", ["y[0]", "y[1]"]).numbers(),
                 [[3 * x[0] ** 2 * s + math.exp(x[0]), 0, x[0] ** 3],
                  [0, 3 * x[1] ** 2 * s + math.exp(x[1]), x[1] ** 3]])
    assert page.locator(".st-key-pg_outputs textarea").input_value() == "x**3*s + exp(x)"
    query = parse_qs(urlsplit(page.url).query)
    assert query["outputs"] == ["x**3*s + exp(x)"], f"the address bar holds {page.url}"
    assert json.loads(query["inputs"][0]) == {"x": x, "s": s}, f"the address bar holds {page.url}"
    _shot(page, "playground")


def test_hostile_share_links_show_a_message_and_no_traceback(page, app_server, tmp_path: Path):
    marker = tmp_path / f"pwned-{uuid.uuid4().hex}"
    hostile = f"__import__('os').system('touch {marker}')"
    open_page(page, share_url(app_server.url, hostile, {"x": [1, 2]}))
    assert_no_error_shown(page)
    errors = error_messages(page)
    assert any(e.startswith("This function cannot be computed") for e in errors), f"errors shown: {errors}"
    assert page.locator(".st-key-pg_outputs textarea").input_value() == hostile, "the user's text was not kept"
    assert not marker.exists(), "the hostile share link ran a shell command"

    for outputs, inputs in [("().__class__.__bases__[0].__subclasses__()", {"x": 1}),
                            ("x*x", "{\"x\": " + "[" * 50 + "1" + "]" * 50 + "}"),
                            ("x*x", "{\"x\": [1, 2"), ("x*x", {"__class__": 1})]:
        open_page(page, share_url(app_server.url, outputs, inputs))
        assert_no_error_shown(page)
        errors = error_messages(page)
        assert any(e.startswith(("This function cannot be computed", "This share link cannot be opened"))
                   for e in errors), f"no message for outputs={outputs!r} inputs={inputs!r}; errors shown: {errors}"


def test_why_zeros_page_renders_its_live_demonstrations(page, app_server):
    open_page(page, app_server.url + "/why_zeros")
    not_found = page_not_found_shown(page)
    if not_found:
        page.keyboard.press("Escape")      # close it for the screenshot; the test still fails below
    assert page.locator("h1").first.inner_text() == "Why zeros?"
    tables = read_tables(page)
    seed = [t for t in tables if t.labels == ["y[0]", "y[1]"] and t.header == ["gradient of", "x0", "x1", "x2"]]
    # case 1's printed code returns None for every element (zeros only with unconnected_gradients=ZERO)
    assert [row[1:] for row in seed[0].rows] == [["None"] * 3] * 2, "the first demonstration is wrong"
    assert seed[1].numbers() == SEED_ROWS, "the first demonstration's right rows are wrong"
    _shot(page, "why_zeros")
    assert not not_found, "opening /why_zeros directly showed Streamlit's 'Page not found' dialog"
    assert_no_error_shown(page)


def test_strategies_page_times_the_methods(page, app_server):
    open_page(page, app_server.url + "/strategies")
    assert_no_error_shown(page)
    with rerun(page):
        page.locator(".st-key-st_run button").click()
    assert_no_error_shown(page)
    assert error_messages(page) == [], "the timing failed"
    measured = re.findall(r"size (\d+) \((\d+) outputs, (\d+) inputs\): (?:fastest warm (\w+)(?: \(ran as \w+\))?, "
                          r"(compiled|eager)|no method was repeated within the page's budget)", main_text(page))
    assert [m[0] for m in measured] == ["4", "16", "64", "128"]              # one line per size, in order
    assert all(m[1] == m[2] == m[0] for m in measured)                        # square: outputs = inputs = size
    assert {m[3] for m in measured} <= {"", "unstack", "jacobian", "forward", "structured", "auto"}
    assert measured[0][3], "size 4 ranked no warm method"
    assert page.locator(".st-key-st_chart").count() == 1
    _shot(page, "strategies")


def _luminance(css_colour: str) -> float:
    """Relative luminance (0 black .. 1 white) of an ``rgb(...)``/``rgba(...)`` CSS colour."""
    r, g, b = (float(v) / 255 for v in re.findall(r"[\d.]+", css_colour)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_dark_theme_is_readable(browser, app_server):
    """A visitor whose system prefers dark gets Streamlit's dark theme, with light text on it."""
    from ._harness import VIEWPORT

    context = browser.new_context(viewport=VIEWPORT, color_scheme="dark", locale="en-US")
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        open_page(page, app_server.url + "/")
        assert_no_error_shown(page)
        app = page.locator('[data-testid="stApp"]')
        background = app.evaluate("e => getComputedStyle(e).backgroundColor")
        text = page.locator("h1").first.evaluate("e => getComputedStyle(e).color")
        assert _luminance(background) < 0.2, f"the page is not dark: background {background}"
        assert _luminance(text) - _luminance(background) > 0.5, f"text {text} does not stand out on {background}"
        correct = find_table(read_tables(_column(page, "Per-element rows: correct")), "d y_i / d", ["y[0]", "y[1]"])
        assert_close(correct.numbers(), SEED_ROWS)
        _shot(page, "bug_dark")
    finally:
        context.close()


def _shot(page, name: str) -> None:
    path = screenshot(page, name)
    assert path.stat().st_size > 20_000, f"{path} is suspiciously small"
