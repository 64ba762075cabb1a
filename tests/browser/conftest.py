"""Fixtures for the real-browser tests: a `streamlit run app.py` server and Debian's Chromium.

The server is started once per test session on 127.0.0.1 and a free port, in its own process
group, and is always stopped (terminate, then kill the group) when the session ends, also when a
test fails. The helpers that drive pages live in ``_harness.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from ._harness import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, Server, start_server


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Debian's Chromium; fails in CI when it is missing (it must run there), skips elsewhere."""
    if os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    message = (f"{CHROMIUM} is missing: the browser tests drive Debian's Chromium. "
               "Install it with scripts/setup-tests.sh (apt-get install chromium)")
    if os.environ.get("CI"):
        pytest.fail(message + " -- in CI these tests must run, not be skipped", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def app_server(chromium, tmp_path_factory) -> Iterator[Server]:
    """`streamlit run app.py` on 127.0.0.1 and a free port for the whole session; always stopped."""
    server = start_server(tmp_path_factory.mktemp("streamlit") / "server.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser(chromium) -> Iterator[object]:
    """One headless Chromium for the session (Playwright's sync API)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser, app_server) -> Iterator[object]:
    """A fresh browser context and page (light colour scheme, a laptop-sized viewport)."""
    context = browser.new_context(viewport=VIEWPORT, color_scheme="light", locale="en-US")
    context.set_default_timeout(30_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every browser test in one pytest-xdist group (`make test` runs them with `--dist loadgroup`): one worker
    runs them all, one after another, so the session's server and Chromium start once and no two browser tests
    drive the app at the same time, while the other worker runs the library tests (tryfirst: the group must be
    set before xdist reads it)."""
    here = Path(__file__).resolve().parent
    inside: dict[str, bool] = {}   # per file, not per item: resolving ~7800 items' paths cost a second a collection
    for item in items:
        file = str(item.path)
        if file not in inside:
            inside[file] = here in Path(file).resolve().parents
        if inside[file]:
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failed browser test, attach the end of the server's log (where the app logs tracebacks)."""
    outcome = yield
    report = outcome.get_result()
    server = item.funcargs.get("app_server") if hasattr(item, "funcargs") else None
    if report.failed and isinstance(server, Server):
        report.sections.append(("streamlit server log (end)", server.log_tail(6000)))
