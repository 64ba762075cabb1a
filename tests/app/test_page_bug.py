"""AppTest of the first page: the seed's zeros, its column sums and the right rows, all visible."""

import base64
import json

import numpy as np
import pytest

from streamlit.testing.v1 import AppTest

from code_columns import lines_too_long

from gradlib import figures


def open_app() -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=120).run()
    assert not at.exception
    return at


@pytest.fixture(scope="module")
def at() -> AppTest:
    """The first page in its default state, run once for the tests that only read it (none of them sets a widget
    or runs it again): seven runs of the same page with the same inputs were one run's work seven times over."""
    return open_app()


def tables(at: AppTest) -> list:
    return [t.value for t in at.table]


def test_the_first_page_is_the_bug_side_by_side(at):
    assert [t.value for t in at.title] == ["The bug, side by side"]
    headings = [m.value for m in at.markdown if m.value.startswith("#")]
    for heading in ("## Three answers to one question", "#### Naive loop: broken",
                    "#### tape.gradient(y, x): summed", "#### Per-element rows: correct",
                    "## All rows together", "## The seed's code, and the corrected code", "## Why"):
        assert heading in headings


def test_the_side_by_side_code_fits_its_column_on_a_laptop(at):
    """At 1366 px each of the two code columns holds 44 characters; lines of 45 to 48 scrolled sideways, the
    loop's 'unconnected_gradients=ZERO)' and the comment's 'of y' out of sight."""
    assert len(at.code) == 2
    too_long = lines_too_long(at)
    assert not too_long, too_long


def test_the_three_answers_show_zeros_the_column_sums_and_the_rows(at):
    naive, summed, correct = tables(at)[:3]
    assert naive.values.tolist() == [["0", "0", "0"], ["0", "0", "0"]]
    assert summed.values.tolist() == [["140", "60", "48"]]
    assert correct.values.tolist() == [["20", "15", "12"], ["120", "45", "36"]]
    assert list(correct.columns) == ["x0", "x1", "x2"] and list(correct.index) == ["y[0]", "y[1]"]


def test_the_page_says_the_summed_row_is_the_column_sums(at):
    text = "\n".join(m.value for m in at.markdown)
    assert "20 + 120 = 140, 15 + 45 = 60, 12 + 36 = 48" in text
    assert any("y[0] → [20, 15, 12], y[1] → [120, 45, 36]" in s.value for s in at.success)
    assert any("[140, 60, 48]" in w.value for w in at.warning)
    assert any("every gradient is zero" in e.value for e in at.error)


def test_the_plotly_table_and_bars_hold_every_row(at):
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    table, bars = charts
    assert table["data"][0]["type"] == "table"
    cells = table["data"][0]["cells"]["values"]
    assert cells[0] == ["naive: y[0]", "naive: y[1]", "summed: sum(y)", "correct: y[0]", "correct: y[1]"]
    assert [cells[1], cells[2], cells[3]] == [[0, 0, 140, 20, 120], [0, 0, 60, 15, 45], [0, 0, 48, 12, 36]]
    columns = [t for t in bars["data"] if t["type"] == "bar"]
    assert len(columns) == 5 and bars["layout"]["barmode"] == "group"
    summed = columns[2]
    assert summed["name"] == "summed: sum(y)"
    assert np.frombuffer(base64.b64decode(summed["y"]["bdata"]), dtype=summed["y"]["dtype"]).tolist() == [140, 60, 48]


def test_the_bars_draw_the_wrong_rows_red_and_show_the_naive_zeros(at):
    _, bars = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    colours = {t["name"]: t["marker"]["color"] for t in bars["data"] if t["type"] == "bar"}
    assert colours["naive: y[0]"] == colours["naive: y[1]"] == colours["summed: sum(y)"] == figures.BROKEN
    assert figures.BROKEN not in (colours["correct: y[0]"], colours["correct: y[1]"])
    # the naive rows are zeros: no bar has any height, so each zero is marked on the axis, on its own bar's place
    marks = [t for t in bars["data"] if t["type"] == "scatter"]
    assert [m["name"] for m in marks] == ["naive: y[0]", "naive: y[1]"]
    assert all(list(m["x"]) == ["x0", "x1", "x2"] and list(m["customdata"]) == ["0", "0", "0"] for m in marks)
    assert [m["offsetgroup"] for m in marks] == ["0", "1"] and bars["layout"]["scattermode"] == "group"


def test_the_seed_code_stands_next_to_the_corrected_code(at):
    codes = [c.value for c in at.code]
    assert any("for y_i in y_as_tensor]" in c for c in codes)
    assert any("# inside the tape: recorded\n    y_elements = tf.unstack(y_as_tensor)\n" in c and "g.jacobian" in c
               for c in codes)


def test_pages_and_the_entry_script_never_import_tensorflow_or_rely_on_auto_discovery():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    uses_tensorflow = set()
    for path in [root / "app.py", *sorted((root / "pages").glob("*.py")), *sorted((root / "dashboard").glob("*.py"))]:
        tree = ast.parse(path.read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        if imported & {"tensorflow", "keras"}:
            uses_tensorflow.add(str(path.relative_to(root)))
    # the app's own model work, and nothing else: training the digits classifier, and the eager
    # tape.batch_jacobian a TensorFlow user would write (the Models page times gradlib against it), the PDE page's
    # seeded networks and its nested-tape reference
    assert uses_tensorflow == {"dashboard/digits.py", "dashboard/model_report.py", "dashboard/pde.py"}
    listed = {node.args[0].value for node in ast.walk(ast.parse((root / "dashboard" / "frame.py").read_text()))
              if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page"}
    pages = {f"pages/{p.name}" for p in (root / "pages").glob("*.py")}
    assert set(listed) == pages    # st.navigation lists every file of pages/ explicitly: the folder holds pages only
    for page in pages:        # and each one enters through the router, even when Streamlit ran it directly
        assert "frame.ensure_routed(TITLE, INTRO)" in (root / page).read_text(), page


def test_a_fresh_server_imports_tensorflow_under_the_title_and_a_spinner_then_clears_them(tmp_path, monkeypatch):
    """The first visit after a start was blank for 3-6 s while the page's own imports loaded TensorFlow."""
    import sys
    from dashboard import frame
    (tmp_path / "warm_up_probe.py").write_text("import streamlit as st\nst.caption('imported under the frame')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(frame, "HEAVY", "warm_up_probe")   # stands for gradlib, which this process has loaded
    monkeypatch.delitem(sys.modules, "warm_up_probe", raising=False)
    at = open_app()
    assert "warm_up_probe" in sys.modules
    assert [t.value for t in at.title] == ["The bug, side by side"]        # the placeholder title is gone
    assert "imported under the frame" not in [c.value for c in at.caption]   # drawn inside the holder, then cleared
    monkeypatch.delitem(sys.modules, "warm_up_probe")
    sys.modules["warm_up_probe"] = sys   # loaded: no second placeholder
    at = open_app()
    assert [t.value for t in at.title] == ["The bug, side by side"]
