"""The "Check your code" box at phone width: pasted Python keeps its lines (no soft wrapping)."""

from __future__ import annotations

import pytest

from ._harness import assert_no_error_shown, open_page, screenshot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def test_pasted_code_is_not_wrapped_at_390_px(browser, app_server):
    """At 390 px the seed example's `with tf.GradientTape(persistent=True) as tape:` wrapped over three lines
    ('with' / 'tf.GradientTape(persistent=True)' / 'as tape:'), so its indentation read wrong."""
    context = browser.new_context(viewport=PHONE, color_scheme="light", locale="en-US")
    try:
        page = context.new_page()
        open_page(page, app_server.url + "/lint")
        assert_no_error_shown(page)
        box = page.locator(".st-key-lint_source textarea")
        assert box.evaluate("e => getComputedStyle(e).whiteSpace") == "pre"
        source = "".join(f"gradients_{k} = tape.gradient(loss_{k}, model.trainable_variables)  # line {k}\n"
                         for k in range(20))   # 20 lines of 70 characters: more than the box shows
        box.fill(source)
        lines = 21
        height = box.evaluate("e => e.scrollHeight")
        line = box.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
        assert height < (lines + 2) * line, (height, lines, line)   # one row per line, plus the box's padding
        assert box.evaluate("e => e.scrollWidth > e.clientWidth")   # the long line scrolls sideways instead
        screenshot(page, "lint_phone_unwrapped")
    finally:
        context.close()
