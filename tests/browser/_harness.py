"""Helpers for the real-browser tests: the `streamlit run app.py` server, its memory, and waiting for the app.

The server is started once per test session on 127.0.0.1 and a free port, in its own process
group, and is always stopped (terminate, then kill the group) when the session ends, also when a
test fails. Pages are waited for by Streamlit's own ``data-test-script-state`` attribute on the
``stApp`` element (``initial`` -> ``running`` -> ``notRunning``), never by sleeping.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote, urlencode

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: where the browser tests save their screenshots: an ignored folder, so a test run rewrites no tracked file;
#: GRADLIB_SCREENSHOTS=docs/screenshots refreshes the README's pictures
SCREENSHOTS = ROOT / os.environ.get("GRADLIB_SCREENSHOTS", "build/screenshots")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: seconds the server may take to answer /_stcore/health (TensorFlow is imported lazily, but the machine is shared)
SERVER_START_SECONDS = 90
#: milliseconds one script run may take in the browser (the first TensorFlow import and tracing are slow)
RUN_TIMEOUT_MS = 180_000
VIEWPORT = {"width": 1366, "height": 900}

STATE_JS = "document.querySelector('[data-testid=\"stApp\"]')?.getAttribute('data-test-script-state')"
ARM_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (window.__gradlibObserver) window.__gradlibObserver.disconnect();
  window.__gradlibRuns = 0;
  // Counted from the records, not from the attribute when the callback runs: a quick run can leave and reach
  // 'notRunning' again before the callback sees it, and the run would go uncounted.
  window.__gradlibObserver = new MutationObserver((records) => {
    for (const r of records) {
      if (r.oldValue !== 'notRunning' || app.getAttribute('data-test-script-state') !== 'notRunning') {
        window.__gradlibRuns += 1;
      }
    }
  });
  window.__gradlibObserver.observe(app, {attributes: true, attributeOldValue: true,
                                         attributeFilter: ['data-test-script-state']});
}"""
IDLE_JS = """(needRun) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  const state = app.getAttribute('data-test-script-state');
  if (state === 'compilationError') return true;
  if (needRun && !(window.__gradlibRuns > 0)) return false;
  return state === 'notRunning'
    && app.getAttribute('data-test-connection-state') === 'CONNECTED'
    && !document.querySelector('[data-stale="true"]')
    && !document.querySelector('[data-testid="stSkeleton"]');
}"""


# ---------------------------------------------------------------- the server


@dataclass
class Server:
    """A running `streamlit run app.py`: its base URL, its process and its log file."""

    url: str
    process: subprocess.Popen
    log: Path
    _stopped: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, chars: int = 4000) -> str:
        """The last ``chars`` characters the server wrote (stdout and stderr)."""
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Terminate the server's process group, then kill it if it has not ended within 10 s."""
        if self._stopped:
            return
        self._stopped = True
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        # the group may hold children that outlived the leader
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start_server(log: Path, root: Path = ROOT) -> Server:
    """Start `streamlit run app.py` from ``root`` (the repository's) and wait (bounded) for its health check."""
    port = _free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
               "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    server = Server(f"http://127.0.0.1:{port}", process, log)
    atexit.register(server.stop)
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            server.stop()
            pytest.fail(f"streamlit exited with code {process.returncode} before answering:\n{server.log_tail()}")
        if _healthy(server.url):
            return server
        time.sleep(0.5)
    server.stop()
    pytest.fail(f"streamlit did not answer {server.url}/_stcore/health within {SERVER_START_SECONDS} s:\n"
                f"{server.log_tail()}")


# ---------------------------------------------------------------- memory of the server


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (read from /proc/<pid>/task/*/children)."""
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo.extend(int(child) for child in (task / "children").read_text().split())
            except OSError:
                pass
    return out


def status_kib(pid: int, key: str) -> int:
    """One ``kB`` field of /proc/<pid>/status (``VmRSS``, ``VmHWM``), 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class MemorySampler:
    """Samples the summed VmRSS of a process tree every ``period`` seconds in a background thread."""

    def __init__(self, pid: int, period: float = 0.25):
        self.pid, self.period = pid, period
        self.peak_rss_kib = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.period)

    def sample(self) -> None:
        rss = sum(status_kib(pid, "VmRSS") for pid in process_tree(self.pid))
        self.peak_rss_kib = max(self.peak_rss_kib, rss)
        self.samples += 1

    def hwm_kib(self) -> int:
        """The summed peak resident size (VmHWM) of the tree over its whole life so far."""
        return sum(status_kib(pid, "VmHWM") for pid in process_tree(self.pid))

    def __enter__(self) -> "MemorySampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sample()


# ---------------------------------------------------------------- waiting for the app


def wait_idle(page, timeout_ms: int = RUN_TIMEOUT_MS, *, need_run: bool = False) -> None:
    """Wait until the app has finished running: ``data-test-script-state`` is ``notRunning``, nothing stale.

    With ``need_run``, a run must also have started since ``arm(page)`` (see ``rerun``), so that a
    click whose rerun has not begun yet is not mistaken for a finished one.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        page.wait_for_function(IDLE_JS, arg=need_run, timeout=max(1_000, (deadline - time.monotonic()) * 1000))
        page.wait_for_timeout(300)   # a page may rerun once more on its own (a share link written back): let it
        state = page.evaluate(f"() => {STATE_JS}")
        if state in ("notRunning", "compilationError") or time.monotonic() > deadline:
            break
    assert state == "notRunning", f"the app ended in script state {state!r}, not 'notRunning'"


def open_page(page, url: str, timeout_ms: int = RUN_TIMEOUT_MS) -> None:
    """Go to ``url`` and wait until its first run has finished."""
    page.goto(url, wait_until="domcontentloaded", timeout=60_000)
    page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
    page.wait_for_function(f"() => ['running', 'notRunning', 'compilationError'].includes({STATE_JS})",
                           timeout=timeout_ms)
    wait_idle(page, timeout_ms)


@contextmanager
def rerun(page, timeout_ms: int = RUN_TIMEOUT_MS) -> Iterator[None]:
    """Wrap an action that makes the app rerun (a click, a submit): wait until that rerun has finished."""
    page.evaluate(ARM_JS)
    yield
    wait_idle(page, timeout_ms, need_run=True)


def main_text(page) -> str:
    """The visible text of the page's main area (no sidebar), as the browser renders it."""
    return page.locator('[data-testid="stMain"]').inner_text(timeout=10_000)


def assert_no_error_shown(page) -> None:
    """No uncaught exception box, no traceback and no redacted-error notice anywhere on the page."""
    body = page.locator("body").inner_text(timeout=10_000)
    assert page.locator('[data-testid="stException"]').count() == 0, f"an exception box is shown:\n{body[:3000]}"
    assert "Traceback" not in body, f"a traceback is shown:\n{body[:3000]}"
    assert "This app has encountered an error" not in body, f"Streamlit's error notice is shown:\n{body[:3000]}"
    assert not page_not_found_shown(page), "Streamlit's 'Page not found' dialog is shown"


def page_not_found_shown(page) -> bool:
    """True when Streamlit's "Page not found" dialog is open (st.navigation could not resolve the URL)."""
    return page.get_by_role("dialog").filter(has_text="Page not found").count() > 0


def error_messages(page) -> list[str]:
    """The texts of the st.error boxes on the page."""
    return page.locator('[data-testid="stAlertContentError"]').all_inner_texts()


def screenshot(page, name: str) -> Path:
    """Save a full-page PNG of ``page`` to ``SCREENSHOTS``/<name>.png, the whole content height included.

    Streamlit scrolls inside its own container, so the viewport is first stretched to the content.
    """
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("""() => Math.max(
        document.querySelector('[data-testid="stMain"]')?.scrollHeight || 0,
        document.querySelector('[data-testid="stAppViewContainer"]')?.scrollHeight || 0,
        document.body.scrollHeight)""")
    size = page.viewport_size or VIEWPORT
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height) + 40, 12_000))})
    page.wait_for_timeout(600)   # Plotly redraws its charts at the new size (no script run to wait for)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True, animations="disabled")
    page.set_viewport_size(size)
    return path


# ---------------------------------------------------------------- reading what the app shows


TABLES_JS = """els => els.map(t => ({
  header: [...t.querySelectorAll('thead th')].map(c => c.innerText.trim()),
  rows: [...t.querySelectorAll('tbody tr')].map(r => [...r.children].map(c => c.innerText.trim())),
}))"""


@dataclass(frozen=True)
class Table:
    """An ``st.table`` as the browser shows it: the header cells, and each row (its label first)."""

    header: list[str]
    rows: list[list[str]]

    @property
    def labels(self) -> list[str]:
        return [row[0] for row in self.rows]

    def numbers(self) -> list[list[float]]:
        """The body cells after the row label, read as numbers."""
        return [[float(cell.replace("−", "-")) for cell in row[1:]] for row in self.rows]


def read_tables(locator) -> list[Table]:
    """Every ``st.table`` inside ``locator`` (a page or a locator), in page order."""
    found = locator.locator('[data-testid="stTable"] table').evaluate_all(TABLES_JS)
    return [Table(t["header"], t["rows"]) for t in found]


def find_table(tables: list[Table], first_header: str, labels: list[str]) -> Table:
    """The one table whose top-left header cell is ``first_header`` and whose row labels are ``labels``."""
    matches = [t for t in tables if t.header[:1] == [first_header] and t.labels == labels]
    assert len(matches) == 1, (f"expected one table headed {first_header!r} with rows {labels}, found "
                               f"{len(matches)} among: {[(t.header, t.labels) for t in tables]}")
    return matches[0]


def assert_close(shown: list[list[float]], expected, *, rel: float = 2e-5, abs_: float = 1e-6) -> None:
    """``shown`` (numbers printed with 6 significant digits, float32 work) equals ``expected`` cell by cell."""
    expected = [[float(v) for v in row] for row in expected]
    assert len(shown) == len(expected) and all(len(a) == len(b) for a, b in zip(shown, expected)), \
        f"shape differs: shown {shown}, expected {expected}"
    for r, (got_row, want_row) in enumerate(zip(shown, expected)):
        for c, (got, want) in enumerate(zip(got_row, want_row)):
            assert abs(got - want) <= abs_ + rel * abs(want), f"cell ({r}, {c}): shown {got}, expected {want}"


def share_url(base: str, outputs: str, inputs: dict[str, Any] | str, **options: str) -> str:
    """The playground's share link: ``/playground?outputs=...&inputs=<JSON>`` and any other parameter."""
    text = inputs if isinstance(inputs, str) else json.dumps(inputs)
    return f"{base}/playground?" + urlencode({"outputs": outputs, "inputs": text, **options}, quote_via=quote, safe="")
