"""AppTest of the "Second order" page: the seed's Hessians, each nested-tape mistake beside the right answer,
and the grid's Laplacians, all computed live."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from code_columns import lines_too_long


@pytest.fixture(scope="module")
def at() -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.switch_page("pages/second_order.py").run()
    assert not at.exception
    return at


def test_no_error_and_the_title(at):
    assert not at.exception
    assert [t.value for t in at.title] == ["Second order"]


def test_the_seed_s_hessians_are_shown(at):
    tables = [t.value.values.tolist() for t in at.table]
    assert [["0", "5", "4"], ["5", "0", "3"], ["4", "3", "0"]] in tables
    assert [["40", "30", "24"], ["30", "0", "9"], ["24", "9", "0"]] in tables


def test_each_mistake_is_shown_broken_beside_right(at):
    tables = [t.value.values.tolist() for t in at.table]
    assert tables.count([["None", "None"]]) == 2   # the gradient after the outer block; x watched by the inner tape
    assert tables.count([["6", "12"]]) == 2
    assert [["3", "3"]] in tables and [["2", "2"]] in tables
    assert any("not independent" in e.value for e in at.error)
    assert [["0", "2"]] in tables      # the Laplacians of [where(x0 > 0, sqrt|x0|, 0), x1^2] at x0 = 0, not NaN
    assert any("NaN from the branch of where() not taken" in m.value for m in at.markdown)


def test_a_none_gradient_has_a_cell_per_element_and_each_row_the_code_s_name(at):
    """outer.gradient(dy, x) of x = [1, 2] returned None, shown as one cell under "[0]" beside the right [6, 12] under
    "[0]", "[1]" (as if x had one element); the Laplacians' row said d2y where the code computes lap."""
    shown = [(t.value.index.tolist(), t.value.columns.tolist(), t.value.values.tolist()) for t in at.table]
    nones = [s for s in shown if s[2] == [["None", "None"]]]
    assert nones == [(["d2y"], ["[0]", "[1]"], [["None", "None"]])] * 2
    assert (["lap"], ["[0]", "[1]"], [["nan", "nan"]]) in shown and (["lap"], ["[0]", "[1]"], [["0", "2"]]) in shown


def test_the_relu_network_s_zero_laplacian_is_explained(at):
    assert any("piecewise linear" in w.value for w in at.warning)
    assert any("Poisson residual" in m.value for m in at.markdown)


def _open(monkeypatch, expected: dict | None = None) -> AppTest:
    """The page in a process that has computed nothing yet as far as the estimate knows, with ``expected`` seconds
    for each service (the cost table the page reads), so no test depends on how fast this machine is today."""
    from dashboard import progress
    progress.forget()
    if expected is not None:
        monkeypatch.setattr(progress, "EXPECTED", expected)
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.switch_page("pages/second_order.py").run()
    assert not at.exception
    return at


def _statuses(at: AppTest) -> list:
    return [c for c in at.main.children.values() if c.type == "status"]


def test_a_status_at_the_top_names_the_work_expected_to_be_slow_and_ends_complete(monkeypatch):
    """The grid's Laplacians ran 8-31 s at the bottom of a long page with nothing shown above: when the page's work
    is expected to take over 2 s, a status box under the title says so, names each computation and ends complete."""
    at = _open(monkeypatch, {"second_order_seed": 0.5, "second_order_mistakes": 0.5, "second_order_poisson": 1.5})
    shown = [c for c in at.main.children.values() if c.type != "empty"]   # a first visit may hold a placeholder
    assert [c.type for c in shown[:3]] == ["title", "markdown", "status"], shown[:4]   # under the title and intro
    first = shown[2]
    assert first.proto.state == first.proto.State.COMPLETE
    assert first.label == ("Computed: the seed's Hessians, the nested-tape mistakes and each point's Laplacian over "
                           "the grid")


@pytest.mark.parametrize("seconds", [{"second_order_seed": 0.5, "second_order_mistakes": 0.5,
                                      "second_order_poisson": 1.0},        # 2 s in all: not over the threshold
                                     {"second_order_seed": 0.0, "second_order_mistakes": 0.0,
                                      "second_order_poisson": 0.0}])
def test_work_expected_to_be_quick_shows_no_status_and_the_sections_still_read_it(monkeypatch, seconds):
    at = _open(monkeypatch, seconds)
    assert not _statuses(at) and not at.get("spinner")
    assert [["40", "30", "24"], ["30", "0", "9"], ["24", "9", "0"]] in [t.value.values.tolist() for t in at.table]
    assert any("Poisson residual" in m.value for m in at.markdown)


def test_a_second_visit_reads_the_cache_and_shows_no_status(monkeypatch):
    _open(monkeypatch)                          # the measured table: a first visit is slow
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.switch_page("pages/second_order.py").run()   # the same process, within the hour: all of it cached
    assert not at.exception and not _statuses(at)


def test_only_what_is_not_cached_is_named_and_counted(monkeypatch):
    from dashboard import progress
    _open(monkeypatch)
    progress.forget()
    progress.finished("second_order_seed")
    progress.finished("second_order_mistakes")
    monkeypatch.setattr(progress, "EXPECTED", {**progress.EXPECTED, "second_order_poisson": 2.5})
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.switch_page("pages/second_order.py").run()
    (status,) = _statuses(at)
    assert status.label == "Computed: each point's Laplacian over the grid"


def test_a_failed_computation_turns_the_status_to_an_error_and_is_shown_in_its_section(monkeypatch):
    import gradlib

    def broken(grid=33):
        raise gradlib.GradlibError("the grid could not be computed")

    from dashboard import services
    from dashboard import progress
    monkeypatch.setattr(gradlib.examples, "poisson_example", broken)
    services.second_order_poisson.clear()   # the page's cache holds the grid from an earlier test: compute it anew
    progress.forget()                        # and so the page expects it to take its time again
    try:
        at = AppTest.from_file("../../app.py", default_timeout=180)
        at.switch_page("pages/second_order.py").run()
    finally:
        services.second_order_poisson.clear()   # and keep no failure for the tests after this one
    assert not at.exception
    first = next(c for c in at.main.children.values() if c.type == "status")
    assert first.proto.state == first.proto.State.ERROR
    assert first.label == "Could not compute each point's Laplacian over the grid: see below"
    assert any("the grid could not be computed" in e.value for e in at.error)


def test_the_heatmaps_write_their_values_and_name_row_and_column(at):
    """The seed's Hessian heatmaps carried no values: each cell writes the number the table beside it shows."""
    import json

    from chart_data import values
    maps = {c.proto.id.split("-")[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    tables = [t.value.values.tolist() for t in at.table]
    for k, key in enumerate(("0", "1")):
        heat = maps[key]["data"][0]
        assert heat["text"] == tables[k], key                  # the table beside it, cell for cell
        np.testing.assert_allclose(values(heat["z"]), np.array(tables[k], dtype=float))
        assert heat["texttemplate"] == "%{text}" and "∂%{y} ∂%{x}" in heat["hovertemplate"]
    for key in ("exact", "tanh"):   # 33 x 33 grids: the hover names the point and the value
        assert maps[key]["data"][0]["hovertemplate"] == "x = %{x:.3~g}, y = %{y:.3~g}: %{z:.4~g}<extra></extra>"


# ---------------------------------------------------------------- Pins (found by the sampled mutation run)


def test_the_seed_s_hessians_are_the_closed_form():
    # y = [x0 x1 x2, x0^2 x1 x2] at (3, 4, 5), by hand; only the module's doctest read these numbers, and doctests
    # are not in the mutation run's selection (dashboard.second_order.x_seed__mutmut_3, _8, _14 and _18 survived)
    from dashboard import second_order

    a, b, c = 3.0, 4.0, 5.0
    r = second_order.seed()
    np.testing.assert_allclose(r.y, [a * b * c, a * a * b * c])
    np.testing.assert_allclose(r.hessian, [[[0, c, b], [c, 0, a], [b, a, 0]],
                                           [[2 * b * c, 2 * a * c, 2 * a * b], [2 * a * c, 0, a * a], [2 * a * b, a * a, 0]]])


def test_the_code_side_by_side_fits_its_column_on_a_laptop(at):
    """At 1366 px each code column holds 44 characters: on the Second order page lines of 45 to 66 scrolled sideways,
    their comments' ends (the very point of the example) out of sight."""
    too_long = lines_too_long(at)
    assert not too_long, too_long


def test_the_refusal_shown_beside_the_mixed_rows_gives_advice_that_is_accepted(at):
    """The page shows gradlib's refusal of per-sample Hessians of f(x) = x**2 + 0.5 * reverse(x)**2 (rows that read
    each other). It said "Call a model with training=False", but f calls no model; the advice now fits a function,
    and following it (gradlib.hessians on the whole batch) is accepted, with the closed form's Hessians."""
    import re

    import tensorflow as tf

    import gradlib

    refusal = next(e.value for e in at.error if "not independent" in e.value)
    assert "Call a model with training=False" not in refusal and "If fn calls a model" in refusal
    api = re.search(r"use gradlib\.(\w+) on the whole batch$", refusal.strip())
    assert api, refusal
    result = getattr(gradlib, api.group(1))(lambda x: x ** 2 + 0.5 * tf.reverse(x, [0]) ** 2,
                                            tf.constant([[1.0], [2.0]]))
    np.testing.assert_allclose(result.hessian, [[[2.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 2.0]]])
