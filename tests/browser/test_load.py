"""Concurrent sessions: 8 browser sessions at once against one `streamlit run app.py`, each its own function.

Eight Playwright contexts in one Chromium open eight share links at the same moment, each with a
different function (``x**k`` for k = 2..9 at x = [1.5, 2.0]); every session must show its own right
answer (computed here with plain arithmetic) and no error. The server's peak memory (VmRSS of its
process tree, sampled, and VmHWM) is printed and bounded: Streamlit Community Cloud gives ~2.7 GB.
Bounded in count (8 sessions, one page each) and time (a hard timeout); it stops by itself.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from ._harness import (CHROMIUM_ARGS, IDLE_JS, RUN_TIMEOUT_MS, STATE_JS, TABLES_JS, VIEWPORT, MemorySampler, Table,
                      assert_close, share_url)

pytestmark = [pytest.mark.browser, pytest.mark.load]

SESSIONS = 8
POWERS = range(2, 2 + SESSIONS)
X = [1.5, 2.0]
#: the whole run (all sessions) must end within this many seconds, or the test fails
HARD_TIMEOUT_S = 420
#: the server's peak resident memory must stay under this (Streamlit Community Cloud gives ~2.7 GB)
MEMORY_BOUND_KIB = int(2.5 * 1024 * 1024)
#: error boxes that mean the computation failed (the diagnosis boxes about naive/summed are expected)
FAILURE_MARKERS = ("cannot be computed", "cannot be opened", "failed", "unexpected", "Traceback")


def _expected(k: int) -> tuple[list[list[float]], list[list[float]]]:
    """y and the Jacobian of y = x**k at X, by hand: y_i = x_i**k, dy_i/dx_j = k x_i**(k-1) if i == j."""
    y = [[v ** k] for v in X]
    jac = [[k * X[i] ** (k - 1) if i == j else 0.0 for j in range(len(X))] for i in range(len(X))]
    return y, jac


async def _idle(page, deadline: float) -> tuple[str, float]:
    """The script state once the app is idle and stays so for 300 ms, and when it was last seen idle (before those
    300 ms), as ``_harness.wait_idle`` waits, asynchronously: a share link's page reruns once more on its own when
    it writes its link back, and read at the first idle moment that rerun showed 'running' under load."""
    while True:
        await page.wait_for_function(IDLE_JS, arg=False, timeout=max(1_000, (deadline - time.monotonic()) * 1000))
        idle = time.monotonic()
        await page.wait_for_timeout(300)
        state = await page.evaluate(f"() => {STATE_JS}")
        if state in ("notRunning", "compilationError") or time.monotonic() > deadline:
            return state, idle


async def _session(browser, url: str, start: asyncio.Barrier) -> dict:
    """One visitor: open the share link, wait for the run to finish, read what the page shows."""
    context = await browser.new_context(viewport=VIEWPORT, color_scheme="light")
    try:
        page = await context.new_page()
        await start.wait()                     # every session sends its request at the same moment
        began = time.monotonic()
        await page.goto(url, wait_until="domcontentloaded", timeout=60_000)
        await page.wait_for_function(f"() => ['running', 'notRunning', 'compilationError'].includes({STATE_JS})",
                                     timeout=RUN_TIMEOUT_MS)
        state, ended = await _idle(page, time.monotonic() + RUN_TIMEOUT_MS / 1000)
        return {
            "began": began, "ended": ended,
            "state": state,
            "body": await page.locator("body").inner_text(),
            "exceptions": await page.locator('[data-testid="stException"]').count(),
            "errors": await page.locator('[data-testid="stAlertContentError"]').all_inner_texts(),
            "textarea": await page.locator(".st-key-pg_outputs textarea").input_value(),
            "tables": [Table(t["header"], t["rows"])
                       for t in await page.locator('[data-testid="stTable"] table').evaluate_all(TABLES_JS)],
        }
    finally:
        await context.close()


async def _all_sessions(chromium: str, urls: list[str]) -> list[dict | BaseException]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            start = asyncio.Barrier(len(urls))
            work = asyncio.gather(*(_session(browser, url, start) for url in urls), return_exceptions=True)
            return await asyncio.wait_for(work, timeout=HARD_TIMEOUT_S)
        finally:
            await browser.close()


def _run_in_thread(chromium: str, urls: list[str]) -> list[dict | BaseException]:
    """asyncio.run in its own thread: the session's sync Playwright may own this thread's event loop."""
    box: dict = {}

    def target() -> None:
        try:
            box["result"] = asyncio.run(_all_sessions(chromium, urls))
        except BaseException as exc:          # handed to the test thread below
            box["error"] = exc

    thread = threading.Thread(target=target, name="load-sessions", daemon=True)
    thread.start()
    thread.join(HARD_TIMEOUT_S + 60)
    assert not thread.is_alive(), f"the sessions did not end within {HARD_TIMEOUT_S + 60} s"
    if "error" in box:
        raise box["error"]
    return box["result"]


def _check_session(k: int, outcome: dict | BaseException) -> None:
    function = f"x**{k}"
    assert not isinstance(outcome, BaseException), f"session {function}: {type(outcome).__name__}: {outcome}"
    body = outcome["body"]
    assert outcome["state"] == "notRunning", f"session {function} ended in state {outcome['state']!r}"
    assert outcome["exceptions"] == 0 and "Traceback" not in body and "encountered an error" not in body, \
        f"session {function} shows an exception:\n{body[:2000]}"
    failures = [e for e in outcome["errors"] if any(marker in e for marker in FAILURE_MARKERS)]
    assert not failures, f"session {function} shows errors: {failures}"
    assert outcome["textarea"] == function, f"session {function} shows the function {outcome['textarea']!r}"
    y, jac = _expected(k)
    values = [t for t in outcome["tables"] if t.header[:1] == ["element"] and t.labels == ["y[0]", "y[1]"]]
    rows = [t for t in outcome["tables"] if t.header[:1] == ["d output / d"] and t.labels == ["y[0]", "y[1]"]]
    assert len(values) == 1 and len(rows) == 1, f"session {function}: tables {[t.header for t in outcome['tables']]}"
    assert rows[0].header == ["d output / d", "x[0]", "x[1]"]
    assert_close(values[0].numbers(), y)
    assert_close(rows[0].numbers(), jac)


@pytest.mark.timeout(HARD_TIMEOUT_S + 180)
def test_eight_sessions_at_once_each_get_their_own_right_answer(app_server, chromium, capsys):
    urls = [share_url(app_server.url, f"x**{k}", {"x": X}) for k in POWERS]
    with MemorySampler(app_server.pid) as memory:
        outcomes = _run_in_thread(chromium, urls)
    hwm = memory.hwm_kib()
    with capsys.disabled():
        print(f"\n[load] {SESSIONS} sessions; server pid {app_server.pid}: peak sampled RSS "
              f"{memory.peak_rss_kib / 1024:.0f} MiB over {memory.samples} samples, VmHWM {hwm / 1024:.0f} MiB")
        for k, outcome in zip(POWERS, outcomes):
            if isinstance(outcome, dict):
                print(f"[load]   x**{k}: {outcome['ended'] - outcome['began']:.1f} s")
    assert len(outcomes) == SESSIONS
    for k, outcome in zip(POWERS, outcomes):
        _check_session(k, outcome)
    finished = [o for o in outcomes if isinstance(o, dict)]
    assert max(o["began"] for o in finished) < min(o["ended"] for o in finished), \
        "the sessions did not overlap: the test did not load the server concurrently"
    assert max(memory.peak_rss_kib, hwm) < MEMORY_BOUND_KIB, \
        f"the server's peak memory {max(memory.peak_rss_kib, hwm) / 1024:.0f} MiB is over {MEMORY_BOUND_KIB / 1024:.0f} MiB"
