"""AppTest of the charts the pages draw: one colour per meaning, and the right kind of scale for each quantity."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from chart_data import values
from gradlib import figures


def charts(page: str) -> dict[str, dict]:
    """The page's Plotly charts by their key (``st.plotly_chart(..., key=...)``), as Plotly JSON."""
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.switch_page(page).run()
    assert not at.exception
    return {c.proto.id.split("-")[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


@pytest.fixture(scope="module")
def playground():
    return charts("pages/playground.py")


SEED_ROWS = [[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]


def test_the_playground_plots_the_seeds_numbers(playground):
    bars = playground["pg_bars"]["data"]
    assert [t["name"] for t in bars] == ["y[0]", "y[1]"] and all(t["x"] == ["x0", "x1", "x2"] for t in bars)
    np.testing.assert_allclose([values(t["y"]) for t in bars], SEED_ROWS, rtol=1e-6)
    heat = playground["pg_heatmap"]["data"][0]
    np.testing.assert_allclose(values(heat["z"]), SEED_ROWS, rtol=1e-6)
    assert (heat["x"], heat["y"]) == (["x0", "x1", "x2"], ["y[0]", "y[1]"])
    broken = {t["name"]: values(t["y"]) for t in playground["pg_broken_bars"]["data"] if t["type"] == "bar"}
    assert list(broken) == ["naive: y[0]", "naive: y[1]", "summed: sum(y)", "correct: y[0]", "correct: y[1]"]
    np.testing.assert_array_equal(broken["naive: y[0]"], 0.0)
    np.testing.assert_array_equal(broken["naive: y[1]"], 0.0)
    np.testing.assert_allclose(broken["summed: sum(y)"], [140.0, 60.0, 48.0], rtol=1e-6)   # the column sums
    np.testing.assert_allclose([broken["correct: y[0]"], broken["correct: y[1]"]], SEED_ROWS, rtol=1e-6)
    error = values(playground["pg_fd"]["data"][0]["z"])
    assert error.shape == (2, 3) and (error >= 0).all() and error.max() < 1e-4   # float32 against float64 differences
    timing = playground["pg_timings"]["data"][0]   # a method whose warm calls were not timed is labelled so
    assert [y.removesuffix(" (first call)") for y in timing["y"]] == ["unstack", "jacobian", "forward",
                                                                       "structured", "naive", "summed", "auto"]
    titles = [playground[k]["layout"]["title"]["text"] for k in ("pg_bars", "pg_heatmap", "pg_broken_bars", "pg_fd")]
    assert [t.replace("<br>", " ") for t in titles] == [   # a title longer than a phone is wide is broken over lines
        "Per-element gradients", "Jacobian: d output / d watched element",
        "Naive and summed against the correct rows", "Finite-difference check: absolute error"]


def test_the_playground_draws_the_check_error_from_zero_and_the_wrong_methods_red(playground):
    drawn = playground
    error = drawn["pg_fd"]["data"][0]
    assert error["type"] == "heatmap" and error["zmin"] == 0 and "zmid" not in error   # an error is never negative
    jacobian = drawn["pg_heatmap"]["data"][0]
    assert jacobian["zmid"] == 0                                                    # a Jacobian has both signs
    timing = drawn["pg_timings"]
    methods = [y.removesuffix(" (first call)") for y in timing["data"][0]["y"]]
    colours = timing["data"][0]["marker"]["color"]
    red = {m for m, c in zip(methods, colours) if c == figures.BROKEN}
    assert red == {"naive", "summed"}, dict(zip(methods, colours))
    broken = {t["name"]: t["marker"]["color"] for t in drawn["pg_broken_bars"]["data"] if t["type"] == "bar"}
    assert {name for name, colour in broken.items() if colour == figures.BROKEN} == {
        "naive: y[0]", "naive: y[1]", "summed: sum(y)"}


def test_the_models_page_draws_the_mean_absolute_jacobian_from_zero():
    mean = charts("pages/models.py")["models_mean"]["data"][0]
    assert mean["type"] == "heatmap" and mean["zmin"] == 0 and "zmid" not in mean
    assert mean["colorscale"][0][1] == figures.magnitude_heatmap([[0.0]], ["y"], ["x"]).data[0].colorscale[0][1]


def test_a_cell_the_check_left_out_is_named_not_checked_not_drawn_as_a_nan_error():
    """sqrt(x0 - 3) at x0 = 3: the check cannot difference (y[0], x0) (sqrt is NaN just below 3) and its summary
    says so, but the error heatmap drew that cell as a red 'nan', the mark of an error that is not a number."""
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.query_params["outputs"] = "[sqrt(x0-3), x1]"
    at.query_params["inputs"] = '{"x0": 3.0, "x1": 1.0}'
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    assert any("(y[0], x0) could not be checked" in w.value.replace("\\", "") for w in at.warning)
    fd = {c.proto.id.split("-")[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}["pg_fd"]
    named = {t.get("name"): t for t in fd["data"][1:]}
    assert list(named) == [figures.NOT_CHECKED]   # no red cell: every checked error is a number
    cells = named[figures.NOT_CHECKED]
    assert [[not np.isnan(v) for v in row] for row in values(cells["z"])] == [[True, False], [False, False]]
    assert cells["text"][0][0] == "not checked" and cells["colorscale"][0][1] != figures.BROKEN
    assert fd["data"][0]["customdata"][0][0] == "not checked"   # the values' hover says it too
