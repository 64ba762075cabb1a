"""AppTest of the Strategies page: nothing is timed on load; a small timing run draws the log-log chart."""

import functools
import json

import numpy as np
from chart_data import values
from streamlit.testing.v1 import AppTest


def open_strategies() -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.switch_page("pages/strategies.py").run()
    assert not at.exception
    return at


@functools.cache
def loaded() -> AppTest:
    """The page as it loads, run once a process for the two tests that only read it (neither sets a widget)."""
    return open_strategies()


def test_loading_the_page_times_nothing_and_explains_the_choice():
    at = loaded()
    assert not at.get("progress") and not at.get("plotly_chart")
    assert any("Run the timing" in i.value for i in at.info)
    guide = "\n".join(m.value for m in at.markdown)
    assert "| Many outputs, few inputs, eager | `forward` (forward mode)" in guide
    assert "| Called more than once, any shape" in guide and "`jacobian`, compiled" in guide
    assert "## Which method to pick when" in guide


def test_every_chosen_size_and_method_shows_its_chip():
    """In a column Streamlit keeps a multiselect's chips on one row that scrolls sideways: at 390 px (and at
    1366 px) 'structured' and 'auto' were out of sight though chosen. The chips wrap onto more rows instead."""
    at = loaded()
    for key in ("st_sizes", "st_methods"):
        assert at.multiselect(key=key).proto.wrap is True, key


def test_a_timing_run_shows_progress_and_a_log_log_chart_per_method(monkeypatch):
    # the page's form, not the machine's speed: under load a first call of forward took over SLOW_SECONDS and was
    # drawn as its own "one call, tracing included" line (a flaky failure; that branch has its own scripted-clock
    # tests in tests/project/test_bench.py). The page runs in this process, so it reads these.
    from dashboard import scaling
    monkeypatch.setattr(scaling, "SLOW_SECONDS", 60.0)
    monkeypatch.setattr(scaling, "WARM_BUDGET", 60.0)
    at = open_strategies()
    at.multiselect(key="st_sizes").set_value([2, 4])
    at.multiselect(key="st_methods").set_value(["unstack", "forward"])
    at.selectbox(key="st_shape").set_value("tall")
    at.number_input(key="st_repeats").set_value(1)
    at.button(key="st_run").click().run()
    assert not at.exception and not at.error
    (bar,) = at.get("progress")
    assert bar.proto.value == 100 and "Done: 2 sizes × 2 methods" in bar.proto.text
    (chart,) = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    assert [t["name"] for t in spec["data"]] == ["unstack", "forward"]
    assert spec["layout"]["xaxis"]["type"] == spec["layout"]["yaxis"]["type"] == "log"
    assert spec["layout"]["xaxis"]["title"]["text"] == "number of outputs (log scale)"   # tall: outputs grow
    frame = at.dataframe[0].value
    assert sorted(frame["outputs"].unique().tolist()) == [2, 4] and set(frame["inputs"]) == {8}
    assert (frame.groupby("size")["ratio"].min() == 1.0).all()
    # the chart reads: each line's points are the table's warm seconds of that method, at the table's outputs
    assert set(frame["timed"]) == {"warm median"}
    for trace in spec["data"]:
        rows = frame[frame["method"] == trace["name"]].sort_values("outputs")
        np.testing.assert_allclose(values(trace["x"]), rows["outputs"])
        np.testing.assert_allclose(values(trace["y"]), rows["seconds"])
    assert "first call seconds" in frame and (frame["first call seconds"] > 0).all()


def test_the_result_stays_when_another_widget_changes_without_rerunning_the_timing():
    at = open_strategies()
    at.multiselect(key="st_sizes").set_value([2])
    at.multiselect(key="st_methods").set_value(["auto"])
    at.number_input(key="st_repeats").set_value(1)
    at.button(key="st_run").click().run()
    at.selectbox(key="st_shape").set_value("wide").run()   # inside the form: no rerun of the timing
    assert not at.exception and len(at.get("plotly_chart")) == 1 and not at.get("progress")


def test_what_this_run_measured_names_the_fastest_method_per_size_and_how_it_ran():
    import pandas as pd

    from dashboard.scaling import measured_lines

    timings = pd.DataFrame({"size": [4, 4, 64, 64], "outputs": [4, 4, 64, 64], "inputs": [8] * 4,
                            "method": ["auto", "jacobian", "auto", "jacobian"], "ran as": ["unstack", "jacobian"] * 2,
                            "compiled": [False, True, True, True], "seconds": [0.004, 0.001, 0.002, 0.003]})
    timings["ratio"] = timings["seconds"] / timings.groupby("size")["seconds"].transform("min")
    assert measured_lines(timings) == [
        "size 4 (4 outputs, 8 inputs): fastest warm **jacobian**, compiled, 1 ms; the others took auto 4x (eager)",
        "size 64 (64 outputs, 8 inputs): fastest warm **auto** (ran as unstack), compiled, 2 ms; "
        "the others took jacobian 1.5x (compiled)",
    ]
    # three methods at one size: the others are listed with a comma (mutation run: no case had two others)
    three = pd.DataFrame({"size": [4] * 3, "outputs": [4] * 3, "inputs": [8] * 3, "method": ["auto", "jacobian", "forward"],
                          "ran as": ["jacobian", "jacobian", "forward"], "compiled": [True, True, False],
                          "seconds": [0.001, 0.002, 0.004]})
    three["ratio"] = three["seconds"] / three["seconds"].min()
    assert measured_lines(three) == ["size 4 (4 outputs, 8 inputs): "
                                     "fastest warm **auto** (ran as jacobian), compiled, 1 ms; "
                                     "the others took jacobian 2x (compiled), forward 4x (eager)"]
