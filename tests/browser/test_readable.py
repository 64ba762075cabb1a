"""Readable for everyone, in a real browser: charts mark what they cannot draw, text on the accent colour is
legible in light and dark, the theme switch is where the sidebar says, and nothing is out of reach at 390 px.

Each test measures what the browser renders (computed colours, bounding boxes, scroll widths), never the
source: a rule that Streamlit ignored, or a Plotly trace drawn off its place, fails here.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

import pytest

import gradlib

from ._harness import assert_no_error_shown, main_text, open_page, screenshot, share_url

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
RED = "rgb(220, 38, 38)"          # gradlib.figures.BROKEN as the browser writes it
INF_LINK = ("[sqrt(x0-3), x1]", {"x0": 3.0, "x1": 1.0})   # d y[0] / d x0 is inf at x0 = 3


@contextmanager
def browsing(browser, viewport: dict, scheme: str) -> Iterator[object]:
    context = browser.new_context(viewport=viewport, color_scheme=scheme, locale="en-US")
    context.set_default_timeout(30_000)
    try:
        yield context.new_page()
    finally:
        context.close()


def _rgb(css: str) -> tuple[float, float, float]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", css)[:3])


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio of two CSS ``rgb(...)`` colours."""
    def luminance(css: str) -> float:
        channels = [c / 255 for c in _rgb(css)]
        r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def colours(locator) -> tuple[str, str]:
    """The computed text colour of ``locator`` and the first opaque background at or above it."""
    return locator.evaluate("""e => {
        const color = getComputedStyle(e).color;
        for (let n = e; n; n = n.parentElement) {
            const bg = getComputedStyle(n).backgroundColor;
            if (bg && bg !== 'transparent' && !bg.startsWith('rgba(0, 0, 0, 0')) return [color, bg];
        }
        return [color, 'rgb(255, 255, 255)'];
    }""")


def svg_texts(locator) -> list[str]:
    """The text of each SVG ``<text>`` element in ``locator`` (SVG has no innerText)."""
    return locator.evaluate_all("ts => ts.map(t => t.textContent.trim())")


def _no_overlap(boxes: list[dict]) -> bool:
    boxes = sorted(boxes, key=lambda b: b["y"])
    return all(a["y"] + a["height"] <= b["y"] + 0.5 for a, b in zip(boxes, boxes[1:]))


# ---------------------------------------------------------------- charts (issue 9, items 8 and 9)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_charts_mark_inf_cells_and_zero_rows_in_red_where_they_are(browser, app_server, scheme):
    with browsing(browser, DESKTOP, scheme) as page:
        open_page(page, share_url(app_server.url, *INF_LINK))
        assert_no_error_shown(page)
        bars, heatmap = page.locator(".st-key-pg_bars"), page.locator(".st-key-pg_heatmap")
        # the inf cell: a red cross on the axis of the bar chart and a whole red cell in the heatmap, each named "inf"
        # (the cell's red is in the figure's data, tests/face/test_hessian_hover.py; Plotly paints cells as an image)
        assert "inf" in svg_texts(bars.locator("g.scatterlayer text"))
        assert svg_texts(heatmap.locator("g.heatmaplayer text")) == ["inf"]
        assert svg_texts(heatmap.locator("g.legend text.legendtext")) == ["not a number (nan) or infinite (inf)"]
        cross = bars.locator("g.scatterlayer path.point").evaluate_all("ps => ps.map(p => getComputedStyle(p).fill)")
        assert RED in cross
        # the mark sits on the inf cell's own place: above x0, and level with y[0]'s row of the heatmap
        x0_tick = bars.locator("g.xtick text", has_text="x0").bounding_box()
        inf_label = bars.locator("g.scatterlayer text", has_text="inf").bounding_box()
        assert abs((inf_label["x"] + inf_label["width"] / 2) - (x0_tick["x"] + x0_tick["width"] / 2)) < 60
        y0_tick = heatmap.locator("g.ytick text", has_text="y[0]").bounding_box()
        cell = heatmap.locator("g.heatmaplayer text", has_text="inf").bounding_box()
        assert abs((cell["y"] + cell["height"] / 2) - (y0_tick["y"] + y0_tick["height"] / 2)) < 8
        # the colour bar of a two-row heatmap: its labels do not touch
        for key in ("pg_heatmap", "pg_fd"):
            labels = page.locator(f".st-key-{key} g.colorbar text").all()
            assert len(labels) >= 2, key
            assert _no_overlap([label.bounding_box() for label in labels]), key

        # the seed's naive rows are zeros: a red dash on the axis for each, where its bar would be
        open_page(page, app_server.url + "/playground")
        broken = page.locator(".st-key-pg_broken_bars")
        dashes = broken.locator("g.scatterlayer path.point").evaluate_all(
            "ps => ps.map(p => getComputedStyle(p).stroke)")
        assert dashes.count(RED) == 6, dashes          # naive: y[0] and y[1], at x0, x1 and x2
        if scheme == "dark":
            screenshot(page, "playground_dark")


# ---------------------------------------------------------------- the accent colour and the theme switch (item 13)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_on_the_accent_colour_reads_in_light_and_dark(browser, app_server, scheme):
    with browsing(browser, DESKTOP, scheme) as page:
        open_page(page, app_server.url + "/playground")
        assert_no_error_shown(page)
        button = page.locator(".st-key-pg_submit button")
        chips = page.locator('.st-key-pg_methods [data-tag]')
        assert chips.count() == len(gradlib.METHODS)      # every method is chosen by default, one chip each
        for name, element in [("the Compute button", button), ("a method chip", chips.first),
                              ("a method chip's label", chips.first.locator("span").first)]:
            text, background = colours(element)
            assert contrast(text, background) >= 4.5, f"{name}: {text} on {background} in {scheme}"


def test_the_theme_switch_is_where_the_sidebar_says(browser, app_server):
    with browsing(browser, DESKTOP, "light") as page:
        open_page(page, app_server.url + "/")
        caption = page.locator('[data-testid="stSidebar"]').inner_text()
        assert "⋮ menu at the top right" in caption and "Dark" in caption
        page.locator('[data-testid="stMainMenuButton"]').click()
        page.get_by_role("menuitemradio", name="Dark").click()
        page.wait_for_function("""() => {
            const bg = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
            const [r, g, b] = bg.match(/[\\d.]+/g).map(Number);
            return r + g + b < 150;
        }""", timeout=10_000)


# ---------------------------------------------------------------- phone width (item 14)


OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const e of document.querySelectorAll(
      '[data-testid="stMain"] table, [data-testid="stTable"], [data-testid="stCode"], [data-testid="stDataFrame"], '
      + '[data-testid="stPlotlyChart"], [data-testid="stMultiSelect"], [data-testid="stForm"], [data-testid="stAlert"]')) {
    const box = e.getBoundingClientRect();
    if (box.width > 0 && (box.left < -0.5 || box.right > width + 0.5)) wide.push([e.dataset.testid || e.tagName, box.right]);
  }
  return {width, scroll: document.querySelector('[data-testid="stMain"]').scrollWidth, wide};
}"""


def _assert_nothing_runs_off(page, where: str) -> None:
    found = page.evaluate(OVERFLOW_JS)
    assert found["scroll"] <= found["width"] + 1, f"{where}: the page scrolls sideways ({found})"
    assert not found["wide"], f"{where}: elements run past the {found['width']} px screen: {found['wide']}"


def test_at_phone_width_the_playground_shows_every_column_and_every_chip(browser, app_server):
    with browsing(browser, PHONE, "light") as page:
        open_page(page, app_server.url + "/playground")
        assert_no_error_shown(page)
        _assert_nothing_runs_off(page, "the playground")
        grid = page.locator("[data-testid='stForm'] [data-testid='stDataFrame'] .dvn-scroller").first
        sizes = grid.evaluate("s => [s.scrollWidth, s.clientWidth]")
        assert sizes[0] <= sizes[1] + 1, f"the input table scrolls sideways: content {sizes[0]} px in {sizes[1]} px"
        header_cells = "[data-testid='stForm'] [data-testid='stDataFrame'] th"   # the grid's accessible copy
        page.wait_for_function(f"() => document.querySelectorAll(\"{header_cells}\").length >= 4", timeout=15_000)
        headers = page.locator(header_cells).all_inner_texts()
        assert [h.strip() for h in headers] == ["name", "value", "watch", "dtype"], headers
        chips = page.locator(".st-key-pg_methods [data-tag]")
        box = page.locator(".st-key-pg_methods [data-testid='stMultiSelectTagsContainer']").bounding_box()
        for k in range(chips.count()):
            chip = chips.nth(k).bounding_box()
            assert box["x"] - 0.5 <= chip["x"] and chip["x"] + chip["width"] <= box["x"] + box["width"] + 0.5
            assert box["y"] - 0.5 <= chip["y"] and chip["y"] + chip["height"] <= box["y"] + box["height"] + 0.5, \
                f"chip {k} is cut off by the box"
            label = chips.nth(k).locator("span").first
            assert label.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), f"chip {k}'s label is cut short"
        assert "agrees" in main_text(page)
        screenshot(page, "playground_phone")


@pytest.mark.parametrize("path", ["/", "/why_zeros", "/strategies", "/second_order"])
def test_at_phone_width_no_page_runs_off_the_screen_and_code_is_never_split(browser, app_server, path):
    with browsing(browser, PHONE, "dark" if path in ("/", "/second_order") else "light") as page:
        open_page(page, app_server.url + path)
        assert_no_error_shown(page)
        _assert_nothing_runs_off(page, path)
        # Python code is shown line for line, as written: a soft wrap would break lines (and identifiers) apart
        for code in page.locator('[data-testid="stCode"] code').all():
            lines = code.evaluate("c => c.innerText.replace(/\\n$/, '').split('\\n').length")
            height, line_height = code.evaluate(
                "c => [c.getBoundingClientRect().height, parseFloat(getComputedStyle(c).lineHeight)]")
            assert round(height / line_height) == lines, f"{path}: a code block wraps its lines"
        if path == "/":
            screenshot(page, "bug_phone_dark")
        if path == "/second_order":
            screenshot(page, "second_order_phone_dark")
