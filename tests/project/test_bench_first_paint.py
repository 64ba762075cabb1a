"""benchmarks.first_paint's summary: what the first-paint bench prints from its visits (the browser run itself is
not repeated here; its timings are recorded in docs/performance.md)."""

from __future__ import annotations

import ast

from benchmarks import first_paint


def _row(app: str, kind: str, round_: int, head: float) -> dict[str, float | str]:
    return {"app": app, "kind": kind, "round": round_, "dom": 0.5, "shell": 0.6, "websocket": 0.7, "head": head,
            "done": head + 1.0}


def test_the_cost_over_the_bare_app_is_ours_minus_the_bare_apps_title_in_the_same_round():
    rows = [_row("gradlib", "new", 1, 1.4), _row("bare", "new", 1, 1.6),
            _row("bare", "new", 2, 1.2), _row("gradlib", "new", 2, 1.5),
            _row("gradlib", "new", 3, 1.9), _row("bare", "new", 3, 1.8),
            _row("gradlib", "returning", 1, 1.0), _row("bare", "returning", 1, 1.1)]
    lines = first_paint.summary(rows)
    # rounds 1-3: -0.2, +0.3, +0.1 (paired by round, not by order in the list)
    assert "new visitor, our title after the bare app's, same round: +0.10 s [-0.20, +0.30]" in lines
    assert "returning visitor, our title after the bare app's, same round: -0.10 s [-0.10, -0.10]" in lines
    assert "gradlib new visitor head: 1.50 s [1.40, 1.90]" in lines
    assert "bare new visitor head: 1.60 s [1.20, 1.80]" in lines
    assert "gradlib new visitor, title under 1.5 s after the request: 1 of 3" in lines
    assert "bare new visitor, title under 1.5 s after the request: 1 of 3" in lines


def test_the_bare_app_is_valid_python_and_draws_the_playgrounds_title_at_the_share_links_path():
    tree = ast.parse(first_paint.BARE_APP)   # parsed, never run here
    text = first_paint.BARE_APP
    assert 'st.title("Playground")' in text and 'url_path="playground"' in text
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import) and n.names[0].name != "streamlit"]
