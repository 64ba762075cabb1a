"""The Keras models page's charts at phone width, as the browser draws them: titles inside their chart, bar labels
at a readable size, legends clear of the axes."""

from __future__ import annotations

import pytest

from ._harness import assert_no_error_shown, open_page, rerun, screenshot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: the smallest text a phone reader is asked to read on a chart, in px (gradlib.figures.LABEL_SIZE)
READABLE_PX = 12

#: every chart's texts as drawn: the px size on screen (the font size times the scale Plotly applied to fit a bar),
#: the box, and the chart's box
CHART_TEXTS_JS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map(chart => {
  const box = r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  const texts = sel => [...chart.querySelectorAll(sel)].filter(t => t.textContent.trim()).map(t => {
    const m = t.getScreenCTM();
    return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b),
            box: box(t.getBoundingClientRect())};
  });
  const legend = chart.querySelector('g.legend');
  return {key: (chart.closest('[class*="st-key-"]')?.className.match(/st-key-(\\S+)/) || [])[1],
          box: box(chart.getBoundingClientRect()), title: texts('.gtitle'), bars: texts('.bartext'),
          axis: texts('g.xtick text, .g-xtitle text'), legend: legend ? box(legend.getBoundingClientRect()) : null};
})"""


def _inside(inner: dict, outer: dict) -> bool:
    return (inner["left"] >= outer["left"] - 0.5 and inner["right"] <= outer["right"] + 0.5
            and inner["top"] >= outer["top"] - 4 and inner["bottom"] <= outer["bottom"] + 0.5)


def _overlap(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def test_the_models_page_charts_read_at_390_px(browser, app_server):
    """At 390 px the Jacobian's title ('Jacobian of sample 0: d output / d input feature') ran past the chart's
    right edge, the timing bars' labels were shrunk by Plotly to about 6 px to fit their bars, and the pitfall
    bars' legend was drawn over the axis title 'watched element'."""
    context = browser.new_context(viewport=PHONE, color_scheme="light", locale="en-US")
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        open_page(page, app_server.url + "/models")
        with rerun(page):
            page.locator(".st-key-models_submit button").click()
        assert_no_error_shown(page)
        page.locator(".st-key-models_timing .bartext").first.wait_for()
        charts = {chart["key"]: chart for chart in page.evaluate(CHART_TEXTS_JS)}
        assert {"models_heatmap", "models_saliency", "models_pitfalls", "models_timing"} <= set(charts), list(charts)
        for key, chart in charts.items():
            for title in chart["title"]:
                assert _inside(title["box"], chart["box"]), f"{key}: the title {title['text']!r} is cut"
            for label in chart["bars"]:
                assert label["px"] >= READABLE_PX - 0.5, f"{key}: {label['text']!r} is {label['px']:.1f} px"
            if chart["legend"]:
                covered = [t["text"] for t in chart["axis"] if _overlap(t["box"], chart["legend"])]
                assert not covered, f"{key}: the legend covers {covered}"
        assert len(charts["models_timing"]["bars"]) == 4   # one label per contender, each drawn
        screenshot(page, "models_phone")
    finally:
        context.close()
