"""AppTest of the charts the pages draw: one colour per meaning, and the right kind of scale for each quantity."""

import functools
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from chart_data import values
from gradlib import figures


def charts(page: str) -> dict[str, dict]:
    """The page's Plotly charts by their key (``st.plotly_chart(..., key=...)``), as Plotly JSON, of the page in its
    default state (``opened``: run once for every test of this file that reads it)."""
    return {c.proto.id.split("-")[-1]: json.loads(c.proto.spec) for c in opened(page).get("plotly_chart")}


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


# ---------------------------------------------------------------- every chart is read (issue 36, item 3)
# One row per chart a page draws: a reader that decodes the chart as the page sent it and compares its numbers with
# an independent reference (a tape per sample, a closed form), the service's result, or the table beside it. A chart
# a page draws that no row names, and no test named in READ_ELSEWHERE reads, fails the completeness test below.

MODEL = "mlp_regressor"
DEFAULT_PAGES = ("pages/playground.py", "pages/bug.py", "pages/models.py", "pages/per_example.py",
                 "pages/second_order.py", "pages/strategies.py", "pages/why_zeros.py", "pages/lint.py", "pages/pde.py")
#: charts read by a test of their page's own file: (page, key) -> that test
READ_ELSEWHERE = {
    ("pages/playground.py", "pg_bars"): "test_the_playground_plots_the_seeds_numbers (this file)",
    ("pages/playground.py", "pg_heatmap"): "test_the_playground_plots_the_seeds_numbers (this file)",
    ("pages/playground.py", "pg_broken_bars"): "test_the_playground_plots_the_seeds_numbers (this file)",
    ("pages/playground.py", "pg_fd"): "test_the_playground_plots_the_seeds_numbers (this file)",
    ("pages/bug.py", "bug_table"): "test_page_bug.py::test_the_plotly_table_and_bars_hold_every_row",
    ("pages/bug.py", "bug_bars"): "test_page_bug.py::test_the_plotly_table_and_bars_hold_every_row",
    ("pages/models.py", "models_timing"): "test_page_models.py::test_charts_and_timing_are_shown",
    ("pages/per_example.py", "pe_clip_bars"): "test_page_per_example.py::test_the_numbers_on_the_page_are_the_ones_"
                                               "they_name",
    ("pages/second_order.py", "seed-0"): "test_page_second_order.py::test_the_heatmaps_write_their_values_and_name_"
                                         "row_and_column",
    ("pages/second_order.py", "seed-1"): "test_page_second_order.py::test_the_heatmaps_write_their_values_and_name_"
                                         "row_and_column",
    ("pages/pde.py", "pde_residual_map"): "test_page_pde.py::test_the_residual_map_is_burgers_residual_by_nested_"
                                          "tapes_and_by_gradlib_pde",
    ("pages/pde.py", "pde_derivative_map"): "test_page_pde.py::test_each_derivative_by_name_is_the_nested_tapes_one",
    # drawn only after an action: the Strategies chart after a timing run, the playground's Hessians once turned on
    ("pages/strategies.py", "st_chart"): "test_page_strategies.py::test_a_timing_run_shows_progress_and_a_log_log_"
                                         "chart_per_method",
    ("pages/playground.py", "pg_hessian_0"): "test_playground_hessians.py::test_the_hessians_choice_sits_near_the_"
                                             "top_and_each_heatmap_writes_its_values",
}
_OPENED: dict[str, AppTest] = {}


def opened(page: str) -> AppTest:
    """The page in its default state, opened once for all the tests that read it (they read it only: none sets a
    widget or runs it again)."""
    if page not in _OPENED:
        at = AppTest.from_file("../../app.py", default_timeout=300)
        at.switch_page(page).run()
        assert not at.exception
        _OPENED[page] = at
    return _OPENED[page]


def drawn(at: AppTest) -> dict[str, dict]:
    """The page's charts by their key (the id is ``$$ID-<hash>-<key>``), as the Plotly JSON it sent."""
    return {c.proto.id.split("-", 2)[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def bars_by_name(spec: dict) -> dict[str, np.ndarray]:
    return {t["name"]: values(t["y"]) for t in spec["data"] if t["type"] == "bar"}


@functools.cache
def _model_jacobians() -> np.ndarray:
    """The reference: one tape and tape.jacobian per sample of the Models page's default batch, (16, 3, 8).

    Computed once for the four rows that read it (each ``tape.jacobian`` traces its own loop) and read-only, so no
    row can change the numbers the next is held to."""
    import tensorflow as tf

    from gradlib import keras_models
    model = keras_models.get_model(MODEL)
    x = keras_models.make_batch("random normal", keras_models.sample_shape(MODEL), 16, seed=0)
    out = []
    for b in range(len(x)):
        xb = tf.constant(x[b:b + 1], tf.float32)
        with tf.GradientTape() as tape:
            tape.watch(xb)
            y = model(xb)[0]
        out.append(tape.jacobian(y, xb).numpy()[:, 0, :])
    jacobians = np.stack(out)
    jacobians.flags.writeable = False
    return jacobians


def read_models_heatmap(spec, at):
    np.testing.assert_allclose(values(spec["data"][0]["z"]), _model_jacobians()[0], rtol=1e-4, atol=1e-6)
    assert spec["data"][0]["y"] == ["y[0]", "y[1]", "y[2]"] and spec["data"][0]["x"][0] == "x[0]"
    assert "sample 0" in spec["layout"]["title"]["text"]


def read_models_saliency(spec, at):
    bars = bars_by_name(spec)
    assert list(bars) == ["y[0]", "y[1]", "y[2]"]
    np.testing.assert_allclose(np.stack(list(bars.values())), np.abs(_model_jacobians()[0]), rtol=1e-4, atol=1e-6)


def read_models_mean(spec, at):
    np.testing.assert_allclose(values(spec["data"][0]["z"]), np.abs(_model_jacobians()).mean(axis=0), rtol=1e-4,
                               atol=1e-6)


def read_models_pitfalls(spec, at):
    bars, jac = bars_by_name(spec), _model_jacobians()[0]
    assert list(bars) == ["naive: y[0]", "naive: y[1]", "naive: y[2]", "summed: sum(y)", "correct: y[0]",
                          "correct: y[1]", "correct: y[2]"]
    expected = np.vstack([np.zeros_like(jac), jac.sum(axis=0, keepdims=True), jac])   # the summed row: column sums
    np.testing.assert_allclose(np.stack(list(bars.values())), expected, rtol=1e-4, atol=1e-5)
    page_table = next(t.value for t in at.table if t.value.index.name == "method")   # the table beside it
    np.testing.assert_allclose(page_table.to_numpy(dtype=float), expected, rtol=1e-4, atol=1e-5)


def read_playground_timings(spec, at):
    """Each bar's seconds are the timing table's: its warm median, or its first call where the bar says so."""
    frame = next(t.value for t in at.table if "warm ms" in t.value.columns)
    bar = next(t for t in spec["data"] if t["type"] == "bar")
    shown = dict(zip(bar["y"], values(bar["x"])))
    assert len(shown) == len(frame)
    for method, row in frame.iterrows():
        label = method if row["warm ms"] != "not timed" else f"{method} (first call)"
        written = row["warm ms"].split(" ")[0] if row["warm ms"] != "not timed" else row["first ms"]
        assert f"{1000 * shown[label]:.3g}" == written, (method, shown[label], written)


def read_second_order_exact(spec, at):
    heat = spec["data"][0]
    xs, ys = values(heat["x"]), values(heat["y"])
    expected = -2 * np.pi ** 2 * np.sin(np.pi * xs)[None, :] * np.sin(np.pi * ys)[:, None]   # Δu, by hand
    np.testing.assert_allclose(values(heat["z"]), expected, rtol=1e-6, atol=1e-6)
    assert (xs[0], xs[-1], len(xs)) == (0.0, 1.0, 33)


def read_second_order_tanh(spec, at):
    from dashboard import services
    p = services.second_order_poisson()
    np.testing.assert_allclose(values(spec["data"][0]["z"]), p.tanh_laplacian, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(values(spec["data"][0]["x"]), p.xs)


def read_per_example_histogram(spec, at):
    from dashboard import services
    training = services.digits_training(10, 0)
    norms = {t["name"]: np.sort(values(t["x"])) for t in spec["data"]}
    flipped = training.data.flipped
    np.testing.assert_allclose(norms["label flipped"], np.sort(training.norms[flipped]), rtol=1e-6)
    np.testing.assert_allclose(norms["label kept"], np.sort(training.norms[~flipped]), rtol=1e-6)


def read_per_example_images(spec, at):
    from dashboard import services
    training = services.digits_training(10, 0)
    top = at.dataframe[0].value["example"].to_numpy()
    shown = [values(t["z"]) for t in spec["data"]]
    np.testing.assert_allclose(np.stack(shown), training.data.images[top[:len(shown)]], atol=1e-6)


CHARTS = {
    ("pages/models.py", "models_heatmap"): read_models_heatmap,
    ("pages/models.py", "models_saliency"): read_models_saliency,
    ("pages/models.py", "models_mean"): read_models_mean,
    ("pages/models.py", "models_pitfalls"): read_models_pitfalls,
    ("pages/playground.py", "pg_timings"): read_playground_timings,
    ("pages/second_order.py", "exact"): read_second_order_exact,
    ("pages/second_order.py", "tanh"): read_second_order_tanh,
    ("pages/per_example.py", "pe_hist"): read_per_example_histogram,
    ("pages/per_example.py", "pe_images"): read_per_example_images,
}


@pytest.mark.parametrize("page, key", list(CHARTS), ids=[k for _, k in CHARTS])
def test_each_chart_shows_the_numbers_it_claims(page, key):
    at = opened(page)
    CHARTS[page, key](drawn(at)[key], at)


@pytest.mark.parametrize("page", DEFAULT_PAGES)
def test_every_chart_a_page_draws_is_read_by_a_test(page):
    keys = set(drawn(opened(page)))
    unread = {k for k in keys if (page, k) not in CHARTS and (page, k) not in READ_ELSEWHERE}
    assert not unread, f"{page} draws {sorted(unread)}: add a row to CHARTS that reads it"
