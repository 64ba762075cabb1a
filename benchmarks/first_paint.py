"""Benchmark: the app's first paint on a warm server, visit after visit (issue 26).

Starts ``streamlit run app.py`` (the browser tests' harness), opens the playground's share link once (the cold
visit: TensorFlow imported, the methods traced), then ``--visits`` more times, each in a new browser context (a new
session of the same warm server process). Per visit, seconds after the request: the document's scripts ran
(``DOMContentLoaded``), Streamlit's own page is up (``stApp``, nothing of ours yet), its websocket opened (the
session's script starts then), the page's title is drawn, and the run is done. Prints one JSON line per visit
and the warm visits' median [lowest, highest]. Needs Chromium and Playwright, as the browser tests do.

    python3 -m benchmarks.first_paint --visits 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Sequence

__all__ = ["main", "visits"]

KEYS = ("dom", "shell", "websocket", "head", "done")


def visits(count: int) -> list[dict[str, float]]:
    """The cold visit and ``count`` warm ones: seconds from the request to each moment of ``KEYS``."""
    from playwright.sync_api import sync_playwright

    from tests.browser._harness import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, share_url, start_server, wait_idle

    server = start_server(Path(tempfile.mkdtemp()) / "server.log")
    url = share_url(server.url, "s*x*x", {"x": [0.5, 2.0], "s": 3.0})
    rows = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for _ in range(count + 1):
                context = browser.new_context(viewport=VIEWPORT, color_scheme="light", locale="en-US")
                page = context.new_page()
                opened: list[float] = []
                page.on("websocket", lambda _: opened.append(time.monotonic()))
                asked = time.monotonic()
                page.goto(url, wait_until="domcontentloaded", timeout=60_000)
                dom = time.monotonic()
                page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
                shell = time.monotonic()
                page.locator('[data-testid="stMain"] h1').filter(has_text="Playground").wait_for(timeout=120_000)
                head = time.monotonic()
                wait_idle(page)
                done = time.monotonic()
                context.close()
                moments = (dom, shell, opened[0] if opened else float("nan"), head, done)
                rows.append({key: moment - asked for key, moment in zip(KEYS, moments)})
                print(json.dumps({"visit": "cold" if len(rows) == 1 else f"warm {len(rows) - 1}",
                                  **{k: round(v, 3) for k, v in rows[-1].items()}}), flush=True)
            browser.close()
    finally:
        server.stop()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_paint", description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=5, help="warm visits after the cold one (default 5)")
    args = parser.parse_args(argv)
    warm = visits(args.visits)[1:]
    for key in KEYS:
        values = [row[key] for row in warm]
        print(f"warm {key}: {statistics.median(values):.2f} s [{min(values):.2f}, {max(values):.2f}]")
    heads = [row["head"] for row in warm]
    print(f"title under 1.5 s after the request: {sum(h < 1.5 for h in heads)} of {len(heads)} warm visits")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
