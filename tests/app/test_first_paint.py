"""A first visit shows the page's title and intro before TensorFlow is imported, whatever its first address.

On a fresh server the pages imported gradlib's engine (and so TensorFlow, 3-6 s) at their top, before the frame
had drawn anything: a deep link (``/playground?...``) stayed blank until the page was done. Here TensorFlow is made
unimportable in a fresh interpreter; the page must still have drawn its head when the import fails.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "pages").glob("*.py"))
TITLES = {"bug": "The bug, side by side", "lint": "Check your code", "models": "Keras models",
          "per_example": "Per-example gradients", "playground": "Playground", "second_order": "Second order",
          "strategies": "Strategies", "why_zeros": "Why zeros?", "pde": "PDE residuals"}

#: run in a fresh interpreter: TensorFlow cannot be imported there, so whatever a page draws before it asks for
#: TensorFlow is all it draws; printed as JSON: per script, its titles, markdown, and exception messages
PROBE = r"""
import importlib.abc, json, sys
from streamlit.testing.v1 import AppTest

asked = []

class NoTensorFlow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "keras"):
            asked.append(name)
            raise ImportError("first-paint probe: TensorFlow is not importable here")
        return None

sys.meta_path.insert(0, NoTensorFlow())
out = {}
for script in sys.argv[1:]:
    asked.clear()
    at = AppTest.from_file("app.py", default_timeout=60)
    if script != "app.py":
        at.switch_page(script)   # the page file run directly, as on a deep link to a fresh server
    at.run()
    out[script] = {"titles": [t.value for t in at.title], "markdown": [m.value for m in at.markdown],
                   "exceptions": len(at.exception), "asked": list(asked)}
print(json.dumps(out))
"""


def _head_call(tree: ast.Module) -> int:
    """The index of the page's ``if __name__ == "__main__": frame.ensure_routed(TITLE, INTRO)`` statement."""
    for k, node in enumerate(tree.body):
        if isinstance(node, ast.If) and "ensure_routed(TITLE, INTRO)" in ast.unparse(node):
            return k
    raise AssertionError("no `frame.ensure_routed(TITLE, INTRO)` at the page's top level")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_nothing_but_the_frame_and_text_comes_before_the_pages_head(path):
    tree = ast.parse(path.read_text())
    before = tree.body[:_head_call(tree)]
    imports = [ast.unparse(n) for n in before if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert imports == ["from __future__ import annotations", "from dashboard import frame"], path.name
    for node in before:
        if isinstance(node, ast.Assign):   # TITLE and INTRO: text only, nothing computed
            assert isinstance(node.value, ast.Constant) and isinstance(node.value.value, str), ast.unparse(node)


def test_the_frame_and_gradlib_load_no_tensorflow():
    code = "import sys, dashboard.frame, gradlib; print(sorted({'tensorflow', 'keras'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def _drawn_without_tensorflow(*scripts: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *scripts], cwd=ROOT, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_page_draws_its_title_and_intro_before_it_imports_tensorflow():
    scripts = ["app.py", *(f"pages/{p.name}" for p in PAGES)]   # "/" through the router, and each page run directly
    drawn = _drawn_without_tensorflow(*scripts)
    for script in scripts:
        page = ROOT / "pages" / ("bug.py" if script == "app.py" else Path(script).name)   # "/" is the bug page
        got = drawn[script]
        assert got["titles"] == [TITLES[page.stem]], (script, got)
        assert got["markdown"][:1] == [_intro(page)], (script, got)
        assert got["asked"] and got["exceptions"] == 1, (script, got)   # it did ask, after the head


def _intro(path: Path) -> str | None:
    """The page's INTRO, read from its source (the page is not imported here)."""
    return next((node.value.value for node in ast.parse(path.read_text()).body
                 if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "INTRO"
                 and isinstance(node.value, ast.Constant)), None)


class _Context:
    def __init__(self, headers: dict):
        self.headers = headers


class _Streamlit:
    """What ``_let_the_head_show`` reads of Streamlit: the request's headers and the session's state."""

    def __init__(self, headers: dict):
        self.context, self.session_state = _Context(headers), {}


def test_a_browser_sessions_first_run_pauses_once_after_the_head_and_nothing_else_does(monkeypatch):
    """On a warm server the title reached the browser 0.5-1.5 s after st.title ran (10 ms into the script): the
    page's work right after it kept the head from being sent and drawn (issue 26, docs/performance.md)."""
    from dashboard import frame
    slept: list[float] = []
    monkeypatch.setattr(frame.time, "sleep", slept.append)
    browser = _Streamlit({"Host": "localhost"})
    monkeypatch.setattr(frame, "st", browser)
    frame._let_the_head_show()
    frame._let_the_head_show()   # the session's next run
    assert slept == [frame.HEAD_PAUSE] and 0 < frame.HEAD_PAUSE <= 0.5
    monkeypatch.setattr(frame, "st", _Streamlit({}))   # Streamlit's AppTest: no HTTP request, no pause
    frame._let_the_head_show()
    assert slept == [frame.HEAD_PAUSE]
