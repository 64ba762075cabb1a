"""Benchmark: the app's first paint on a warm server, visit after visit (issue 26).

Starts ``streamlit run app.py`` (the browser tests' harness), opens the playground's share link once (the cold
visit: TensorFlow imported, the methods traced), then ``--visits`` rounds of two warm visits, each a new session
of the same warm server process: a new visitor (a new browser context, so an empty cache: Streamlit's 2.5 MB of
JavaScript, served uncompressed, is downloaded and parsed again) and a returning one (a page in one context kept
across rounds: Streamlit serves its hashed static files as ``immutable``, so they come from the browser's cache).
Per visit, seconds after the request: the document's scripts ran (``DOMContentLoaded``), Streamlit's own page is
up (``stApp``, nothing of ours yet), its websocket opened (the session's script starts then), the page's title is
drawn, and the run is done. Prints one JSON line per visit and, per kind of visitor, the median [lowest,
highest]. Needs Chromium and Playwright, as the browser tests do.

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


def visits(count: int) -> list[dict[str, float | str]]:
    """The cold visit and ``count`` rounds of a new and a returning visitor: seconds from the request to each
    moment of ``KEYS``, and the visit's ``kind`` (``cold``, ``new``, ``returning``)."""
    from playwright.sync_api import sync_playwright

    from tests.browser._harness import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, share_url, start_server, wait_idle

    server = start_server(Path(tempfile.mkdtemp()) / "server.log")
    url = share_url(server.url, "s*x*x", {"x": [0.5, 2.0], "s": 3.0})
    rows: list[dict[str, float | str]] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            kept = None  # the returning visitor's context: its HTTP cache outlives its pages
            for kind in ["cold"] + ["new", "returning"] * count:
                if kind == "returning":
                    kept = kept or browser.new_context(viewport=VIEWPORT, color_scheme="light", locale="en-US")
                    context = kept
                else:
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
                page.close()
                if context is not kept:
                    context.close()
                moments = (dom, shell, opened[0] if opened else float("nan"), head, done)
                rows.append({"kind": kind, **{key: moment - asked for key, moment in zip(KEYS, moments)}})
                print(json.dumps({"visit": kind, **{k: round(v, 3) for k, v in rows[-1].items() if k != "kind"}}),
                      flush=True)
                if kind == "cold":  # the returning visitor's first page fills its cache: not one of its visits
                    kept = browser.new_context(viewport=VIEWPORT, color_scheme="light", locale="en-US")
                    warmup = kept.new_page()
                    warmup.goto(url, wait_until="domcontentloaded", timeout=60_000)
                    warmup.locator('[data-testid="stMain"] h1').filter(has_text="Playground").wait_for(timeout=120_000)
                    wait_idle(warmup)
                    warmup.close()
            if kept is not None:
                kept.close()
            browser.close()
    finally:
        server.stop()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_paint", description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=5,
                        help="rounds of a new and a returning visitor after the cold visit (default 5)")
    args = parser.parse_args(argv)
    rows = visits(args.visits)
    for kind in ("new", "returning"):
        warm = [row for row in rows if row["kind"] == kind]
        for key in KEYS:
            values = [float(row[key]) for row in warm]
            print(f"{kind} visitor {key}: {statistics.median(values):.2f} s [{min(values):.2f}, {max(values):.2f}]")
        heads = [float(row["head"]) for row in warm]
        print(f"{kind} visitor, title under 1.5 s after the request: {sum(h < 1.5 for h in heads)} of {len(heads)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
