"""Benchmark: the app's first paint on a warm server, visit after visit, beside Streamlit's own floor (issue 26).

Starts ``streamlit run app.py`` (the browser tests' harness) and, beside it, a bare Streamlit app with the same
settings (``.streamlit/``) whose only page, at the same ``/playground`` path, draws the same title and intro and
nothing else: what any Streamlit app costs a browser before its first content. Each server gets one cold visit
(ours: TensorFlow imported, the methods traced), then ``--visits`` rounds, interleaved, of two warm visits per
app, each a new session of the same warm server process: a new visitor (a new browser context, so an empty
cache: Streamlit's 2.5 MB of JavaScript, served uncompressed, is downloaded and parsed again) and a returning one
(a page in one context kept across rounds: Streamlit serves its hashed static files as ``immutable``, so they
come from the browser's cache). Per visit, seconds after the request: the document's scripts ran
(``DOMContentLoaded``), Streamlit's own page is up (``stApp``, nothing of ours yet), its websocket opened (the
session's script starts then), the page's title is drawn, and the run is done. Prints one JSON line per visit
and, per app and kind of visitor, the median [lowest, highest]; then, per kind of visitor, what our title costs
over the bare app's in the same round. Needs Chromium and Playwright, as the browser tests do.

    python3 -m benchmarks.first_paint --visits 6
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Sequence

__all__ = ["BARE_APP", "main", "visits"]

KEYS = ("dom", "shell", "websocket", "head", "done")
KINDS = ("new", "returning")
APPS = ("gradlib", "bare")
#: the floor: a Streamlit app of one page at our share link's path, drawing the playground's head and nothing else
BARE_APP = '''import streamlit as st

def playground():
    st.title("Playground")
    st.markdown("Type a function, define its inputs, and compare every way of getting its per-element gradients.")

st.set_page_config(page_title="bare", layout="wide")
st.navigation([st.Page(playground, title="Playground", url_path="playground")]).run()
'''


def pin(pid: int, cpus: set[int]) -> None:
    """Keep every thread of process ``pid`` on ``cpus`` (threads it starts later inherit the setting)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            os.sched_setaffinity(int(task.name), cpus)
        except OSError:
            pass   # the thread ended meanwhile


def _bare_root() -> Path:
    """A folder holding ``BARE_APP`` as ``app.py`` and a copy of the project's ``.streamlit`` settings."""
    from tests.browser._harness import ROOT

    root = Path(tempfile.mkdtemp(prefix="bare-streamlit-"))
    (root / "app.py").write_text(BARE_APP)
    shutil.copytree(ROOT / ".streamlit", root / ".streamlit")
    return root


def visits(count: int, *, split_cores: bool = False) -> list[dict[str, float | str]]:
    """For our app and the bare one, a cold visit and ``count`` interleaved rounds of a new and a returning
    visitor: seconds from the request to each moment of ``KEYS``, the visit's ``app`` (``APPS``), ``kind``
    (``cold``, ``new``, ``returning``) and ``round``. ``split_cores``: the servers keep to the first CPU and the
    browser to the others, as when a visitor's browser runs on a machine of its own."""
    from playwright.sync_api import sync_playwright

    from tests.browser._harness import (CHROMIUM, CHROMIUM_ARGS, VIEWPORT, process_tree, share_url, start_server,
                                        wait_idle)

    logs = Path(tempfile.mkdtemp())
    servers = {"gradlib": start_server(logs / "gradlib.log")}
    rows: list[dict[str, float | str]] = []
    try:
        servers["bare"] = start_server(logs / "bare.log", root=_bare_root())
        if split_cores:
            cpus = sorted(os.sched_getaffinity(0))
            if len(cpus) < 2:
                raise SystemExit("--split-cores needs at least two CPUs")
            for server in servers.values():
                for pid in process_tree(server.process.pid):
                    pin(pid, {cpus[0]})
            pin(os.getpid(), set(cpus[1:]))   # the browser, started below, inherits this
        urls = {app: share_url(server.url, "s*x*x", {"x": [0.5, 2.0], "s": 3.0}) for app, server in servers.items()}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)

            def context():
                return browser.new_context(viewport=VIEWPORT, color_scheme="light", locale="en-US")

            def visit(app: str, kind: str, round_: int, ctx) -> None:
                page = ctx.new_page()
                opened: list[float] = []
                page.on("websocket", lambda _: opened.append(time.monotonic()))
                asked = time.monotonic()
                page.goto(urls[app], wait_until="domcontentloaded", timeout=60_000)
                dom = time.monotonic()
                page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
                shell = time.monotonic()
                page.locator('[data-testid="stMain"] h1').filter(has_text="Playground").wait_for(timeout=120_000)
                head = time.monotonic()
                wait_idle(page)
                done = time.monotonic()
                page.close()
                if round_ < 0:   # a warm-up visit: not counted
                    return
                moments = (dom, shell, opened[0] if opened else float("nan"), head, done)
                rows.append({"app": app, "kind": kind, "round": round_,
                             **{key: moment - asked for key, moment in zip(KEYS, moments)}})
                print(json.dumps({"app": app, "visit": kind, "round": round_,
                                  **{key: round(moment - asked, 3) for key, moment in zip(KEYS, moments)}}),
                      flush=True)

            kept = {}   # each app's returning visitor: one context whose HTTP cache outlives its pages
            for app in APPS:
                cold = context()
                visit(app, "cold", 0, cold)
                cold.close()
                kept[app] = context()
                visit(app, "returning", -1, kept[app])   # fills the returning visitor's cache
            for round_ in range(1, count + 1):
                for app in (APPS if round_ % 2 else APPS[::-1]):   # neither app always goes first
                    fresh = context()
                    visit(app, "new", round_, fresh)
                    fresh.close()
                    visit(app, "returning", round_, kept[app])
            for ctx in kept.values():
                ctx.close()
            browser.close()
    finally:
        for server in servers.values():
            server.stop()
    return rows


def summary(rows: list[dict[str, float | str]]) -> list[str]:
    """The lines ``main`` prints after the visits: per app and kind of visitor, each moment's median [lowest,
    highest] and how many titles came under 1.5 s; per kind, our title's cost over the bare app's, round by round."""
    lines = []
    for app in APPS:
        for kind in KINDS:
            warm = [row for row in rows if row["app"] == app and row["kind"] == kind]
            if not warm:
                continue
            for key in KEYS:
                values = [float(row[key]) for row in warm]
                lines.append(f"{app} {kind} visitor {key}: {statistics.median(values):.2f} s "
                             f"[{min(values):.2f}, {max(values):.2f}]")
            heads = [float(row["head"]) for row in warm]
            lines.append(f"{app} {kind} visitor, title under 1.5 s after the request: "
                         f"{sum(h < 1.5 for h in heads)} of {len(heads)}")
    for kind in KINDS:
        heads = {(row["app"], row["round"]): float(row["head"]) for row in rows if row["kind"] == kind}
        over = [heads["gradlib", r] - heads["bare", r] for (app, r) in heads if app == "gradlib" and ("bare", r) in heads]
        if over:
            lines.append(f"{kind} visitor, our title after the bare app's, same round: {statistics.median(over):+.2f} s "
                         f"[{min(over):+.2f}, {max(over):+.2f}]")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_paint", description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=5,
                        help="rounds of a new and a returning visitor per app after the cold visits (default 5)")
    parser.add_argument("--split-cores", action="store_true",
                        help="the servers on the first CPU, the browser on the others (a visitor's own machine)")
    args = parser.parse_args(argv)
    print("\n".join(summary(visits(args.visits, split_cores=args.split_cores))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
