"""The PDE residuals page opened first by its share link, on a freshly started server, at 390 px in the dark theme:
the link's inputs are restored, the exact solution it carries gives a zero residual, and nothing runs off the screen.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest

from ._harness import assert_no_error_shown, error_messages, main_text, open_page, screenshot, start_server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
EXACT = "exp(-2*0.1*pi**2*t)*sin(pi*x)*sin(pi*y)"   # solves u_t = 0.1*(u_xx + u_yy)
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('[data-testid="stPlotlyChart"], [data-testid="stForm"], '
      + '[data-testid="stAlert"], [data-testid="stDataFrame"]')]
    .map(e => [e.dataset.testid, e.getBoundingClientRect()])
    .filter(([, b]) => b.width > 0 && (b.left < -0.5 || b.right > width + 0.5)).map(([t, b]) => [t, b.right]);
  return {width, scroll: document.querySelector('[data-testid="stMain"]').scrollWidth, wide};
}"""


@pytest.fixture
def fresh_server(chromium, tmp_path):
    server = start_server(tmp_path / "server.log")
    try:
        yield server
    finally:
        server.stop()


def test_a_share_link_as_the_first_request_restores_the_pde_inputs_at_390_px_in_dark(browser, fresh_server):
    query = urlencode({"equation": "heat", "u": EXACT, "grid": "9", "t": "0.3"}, quote_via=quote, safe="")
    context = browser.new_context(viewport=PHONE, color_scheme="dark", locale="en-US")
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        open_page(page, f"{fresh_server.url}/pde?{query}")
        assert_no_error_shown(page)
        assert not error_messages(page), error_messages(page)
        assert page.locator(".st-key-pde_u input").input_value() == EXACT
        assert page.locator(".st-key-pde_grid input").input_value() == "9"
        chosen = page.locator(".st-key-pde_equation").evaluate(
            "e => e.textContent + ' ' + [...e.querySelectorAll('input')].map(i => i.value).join(' ')")
        assert "Heat (2-D + t)" in chosen, chosen
        text = main_text(page)
        assert "Largest |residual| over the 9×9 grid" in text and "exact solution" in text
        largest = text.split("Largest |residual| over the 9×9 grid:")[1].split()[0]
        assert float(largest) < 1e-12, largest
        background = page.locator('[data-testid="stApp"]').evaluate("e => getComputedStyle(e).backgroundColor")
        assert sum(float(v) for v in re.findall(r"[\d.]+", background)[:3]) < 150, background   # dark
        title = page.locator(".st-key-pde_residual_map .gtitle").first
        words = "".join(title.text_content().split())   # the title wraps at 390 px: its lines join without a space
        assert "Residualu_t-k*(u_xx+u_yy)over(x,y)" == words, words
        found = page.evaluate(OVERFLOW_JS)
        assert found["scroll"] <= found["width"] + 1 and not found["wide"], found
        screenshot(page, "pde_phone_dark")
    finally:
        context.close()
