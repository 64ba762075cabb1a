"""The "Check your code" page in a real browser: the seed's finding on its line, a clean snippet, a hostile one.

Nothing typed on the page may run on the server: a snippet that would create a file if it were executed
is checked, and the file must not appear.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from ._harness import (RUN_TIMEOUT_MS, assert_no_error_shown, error_messages, main_text, open_page, screenshot,
                       wait_idle)

pytestmark = pytest.mark.browser

CLEAN_CODE = ("import tensorflow as tf\n\nx = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as tape:\n"
              "    tape.watch(x)\n    y = x * x\nrows = tape.jacobian(y, x)\n")


def _check(page, source: str, shows: str) -> None:
    """Submit ``source`` and wait until the page ``shows`` its verdict (a text not on the page before).

    A check of a few lines can run so fast that the app's running state never reaches the page (its two
    changes are rendered together), so the rerun is awaited by its result, not by that state.
    """
    assert shows not in main_text(page)
    page.locator(".st-key-lint_source textarea").fill(source)
    page.locator(".st-key-lint_submit button").click()
    page.get_by_text(shows).first.wait_for(timeout=RUN_TIMEOUT_MS)
    wait_idle(page)
    assert_no_error_shown(page)


def test_the_seed_example_is_flagged_on_its_line_and_clean_code_is_not(page, app_server):
    open_page(page, app_server.url + "/lint")
    assert_no_error_shown(page)
    assert page.locator("h1").first.inner_text() == "Check your code"
    box = page.locator(".st-key-lint_source textarea")   # code is typed in a monospace face, as in an editor
    assert box.evaluate("e => getComputedStyle(e).fontFamily").startswith('"Source Code Pro"')
    text = main_text(page)
    assert "Line 7: GT001 Iterating or slicing a tensor after the tape block" in text
    assert "7 | rows = [tape.gradient(y_i, x) for y_i in y]" in text
    assert "tape.jacobian(y, x) for every row at once" in text
    path = screenshot(page, "lint")
    assert path.stat().st_size > 20_000, f"{path} is suspiciously small"

    clean = "No GradientTape mistake of these kinds in the 1 of 1 gradient call that could be followed"
    _check(page, CLEAN_CODE, clean)
    assert error_messages(page) == []
    assert clean in main_text(page)


def test_pasted_code_is_read_never_run(page, app_server, tmp_path: Path):
    marker = tmp_path / f"ran-{uuid.uuid4().hex}"
    open_page(page, app_server.url + "/lint")
    _check(page, f"import os\nos.system('touch {marker}')\nopen({str(marker)!r}, 'w')\n", "No gradient call")
    _check(page, f"import os\nos.system('touch {marker}')\nwith x as (\n", "This code cannot be checked")
    assert any(e.startswith("This code cannot be checked") for e in error_messages(page)), error_messages(page)
    assert not marker.exists(), "the page ran the pasted code"
