"""The "Check your code" page in a real browser: the seed's finding on its line, a clean snippet, a hostile one.

Nothing typed on the page may run on the server: a snippet that would create a file if it were executed
is checked, and the file must not appear.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from ._harness import assert_no_error_shown, error_messages, main_text, open_page, rerun, screenshot

pytestmark = pytest.mark.browser

CLEAN_CODE = ("import tensorflow as tf\n\nx = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as tape:\n"
              "    tape.watch(x)\n    y = x * x\nrows = tape.jacobian(y, x)\n")


def _check(page, source: str) -> None:
    page.locator(".st-key-lint_source textarea").fill(source)
    with rerun(page):
        page.locator(".st-key-lint_submit button").click()
    assert_no_error_shown(page)


def test_the_seed_example_is_flagged_on_its_line_and_clean_code_is_not(page, app_server):
    open_page(page, app_server.url + "/lint")
    assert_no_error_shown(page)
    assert page.locator("h1").first.inner_text() == "Check your code"
    text = main_text(page)
    assert "Line 7: GT001 Iterating or slicing a tensor after the tape block" in text
    assert "7 | rows = [tape.gradient(y_i, x) for y_i in y]" in text
    assert "tape.jacobian(y, x) for every row at once" in text
    path = screenshot(page, "lint")
    assert path.stat().st_size > 20_000, f"{path} is suspiciously small"

    _check(page, CLEAN_CODE)
    assert error_messages(page) == []
    assert "No GradientTape mistake found" in main_text(page)


def test_pasted_code_is_read_never_run(page, app_server, tmp_path: Path):
    marker = tmp_path / f"ran-{uuid.uuid4().hex}"
    open_page(page, app_server.url + "/lint")
    _check(page, f"import os\nos.system('touch {marker}')\nopen({str(marker)!r}, 'w')\n")
    assert "No GradientTape mistake found" in main_text(page)
    _check(page, f"import os\nos.system('touch {marker}')\nwith x as (\n")
    assert any(e.startswith("This code cannot be checked") for e in error_messages(page)), error_messages(page)
    assert not marker.exists(), "the page ran the pasted code"
