"""AppTest of the Keras models page: per-sample Jacobians, the pitfalls on a model's output, timings, bad uploads."""

import base64
import json

import numpy as np
import pytest
import tensorflow as tf
from streamlit.testing.v1 import AppTest

from chart_data import values
from gradlib import keras_models

def run_page(**widgets) -> AppTest:
    """Open the page, set ``widgets`` (the form's and the others), then press Compute once."""
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.switch_page("pages/models.py").run()
    for key, value in widgets.items():
        kind = "selectbox" if key in ("models_model", "models_preset", "models_sequence_cell") else None
        if kind == "selectbox":
            at.selectbox(key=key).set_value(value)
        elif key == "models_time_loop":
            at.toggle(key=key).set_value(value)
        elif key.startswith("models_sample") or key.endswith("seed"):
            at.number_input(key=key).set_value(value)
        elif key == "models_source":
            at.radio(key=key).set_value(value)
        else:
            at.slider(key=key).set_value(value)
        if key in ("models_model", "models_source"):   # outside the form: each reruns the page
            at.run()
    at.button(key="models_submit").click().run()
    assert not at.exception
    return at


def table(at: AppTest, index_name: str):
    return next(t.value for t in at.table if t.value.index.name == index_name)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def floats(frame) -> np.ndarray:
    return frame.astype(float).to_numpy()


@pytest.fixture(scope="module")
def default() -> AppTest:
    return run_page()


def test_default_page_shows_the_regressor_on_a_batch_of_sixteen(default):
    assert not default.error
    assert [t.value for t in default.title] == ["Keras models"]
    m = metrics(default)
    assert m["Jacobian shape"] == "(16, 3, 8)" and m["Method"] == "pfor"
    model = keras_models.get_model("mlp_regressor")
    x = keras_models.make_batch("random normal", (8,), 16, seed=0)
    y = floats(table(default, "element"))[:, 0]
    np.testing.assert_allclose(y, model(x[:1]).numpy()[0], rtol=1e-5)


def test_pitfalls_are_zeros_and_column_sums_beside_the_right_rows(default):
    frame = table(default, "method")
    rows = floats(frame)
    labels = list(frame.index)
    assert labels[:3] == ["naive: y[0]", "naive: y[1]", "naive: y[2]"] and labels[3] == "summed: sum(y)"
    assert not rows[:3].any()
    correct = rows[4:]
    np.testing.assert_allclose(rows[3], correct.sum(axis=0), rtol=1e-4, atol=1e-5)
    assert np.abs(correct).max() > 1e-3


def timing_chart(at: AppTest) -> dict[str, float]:
    """The timing bars as label -> seconds, read from the chart the page sent."""
    (timing,) = [spec for spec in (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
                 if spec["layout"]["title"]["text"] == "Seconds for the whole batch (log scale)"]
    assert timing["layout"]["xaxis"]["type"] == "log"   # the bars lie down: the seconds run across
    x = timing["data"][0]["x"]
    return dict(zip(timing["data"][0]["y"], np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]).tolist()))


def shown_ratio(at: AppTest, label: str) -> float:
    return float(metrics(at)[f"{label} / gradlib"].rstrip("x").replace(",", ""))


def test_charts_and_timing_are_shown(default):
    headings = [m.value for m in default.markdown if m.value.startswith("###")]
    assert headings[:2] == ["### Sample 0", "### Mean over the batch"]
    assert "### Timing" in headings
    seconds = timing_chart(default)
    assert list(seconds) == ["gradlib (one compiled call)", "tf.function tape.batch_jacobian",
                             "eager tape.batch_jacobian", "per-sample tape.jacobian loop"]
    assert all(v > 0 for v in seconds.values())
    gradlib_s = seconds["gradlib (one compiled call)"]
    # gradlib.format_ratio: three significant digits, whole numbers from 100 on: within half a percent
    for label in ("tf.function tape.batch_jacobian", "eager tape.batch_jacobian", "per-sample tape.jacobian loop"):
        assert shown_ratio(default, label) == pytest.approx(seconds[label] / gradlib_s, rel=0.006), label
    assert any("Which is which" in c.value and "tape.batch_jacobian(y, x)" in c.value for c in default.caption)
    assert not default.warning
    # each contender's sentence: what ran, compiled or not, tracing included or not, at the chart's seconds
    (why,) = [m.value for m in default.markdown if m.value.startswith("**What ran, and why the faster one is faster**")]
    lines = why.splitlines()[2:]
    assert [line.split("**")[1] for line in lines] == ["gradlib", "tf.function tape.batch_jacobian",
                                                       "eager tape.batch_jacobian", "per-sample tape.jacobian loop"]
    for line, (label, s) in zip(lines, seconds.items()):
        assert f": {1000 * s:.3g} ms" in line, (label, line)
    assert "compiled" in lines[0] and "tracing not included" in lines[0] and "eager: one call" in lines[2]


@pytest.mark.parametrize("cell", keras_models.SEQUENCE_CELLS)
def test_every_sequence_layer_the_page_offers_computes_and_times(cell):
    """simple_rnn and gru ended in "something went wrong on the server" while timing (the default): the eager
    batch_jacobian without pfor was taken on a non-persistent tape, which TensorFlow refuses."""
    at = run_page(models_model="sequence", models_sequence_cell=cell, models_sequence_steps=2,
                  models_sequence_units=2, models_sequence_outputs=1, models_batch=2)
    assert not at.error and not [w for w in at.warning if w.value.startswith("Not timed")]
    assert metrics(at)["Jacobian shape"] == "(2, 1, 2, 3)"
    suffix = "" if cell == "conv1d" else " (while_loop)"
    seconds = timing_chart(at)
    assert list(seconds) == ["gradlib (one compiled call)", "tf.function tape.batch_jacobian" + suffix,
                             "eager tape.batch_jacobian" + suffix, "per-sample tape.jacobian loop"]
    (why,) = [m.value for m in at.markdown if m.value.startswith("**What ran")]
    # gradlib's auto takes the tiled method on a recurrent layer (issue 41), while TensorFlow's batch_jacobian there
    # runs without pfor (eager pfor re-vectorizes a recurrent layer for tens of seconds)
    method, theirs = ("pfor", "pfor") if cell == "conv1d" else ("tiled", "while_loop")
    assert f"`per_sample_gradients` (method {method}), compiled" in why
    assert f"**tf.function tape.batch_jacobian** ({theirs}), compiled" in why


def test_a_failed_side_timing_still_shows_the_gradients_and_says_which_timing_is_missing(monkeypatch):
    from dashboard import model_report, services

    def broken(*args):
        raise MemoryError("out of memory in the planted test")

    monkeypatch.setattr(model_report, "_time_compiled_batch_jacobian", broken)
    services.model_report.clear()
    try:
        at = run_page(models_mlp_regressor_features=2, models_mlp_regressor_units=2, models_batch=2)
    finally:
        services.model_report.clear()
    assert metrics(at)["Jacobian shape"] == "(2, 3, 2)"
    assert any("### Sample 0" == m.value for m in at.markdown)
    (warning,) = [w.value for w in at.warning]
    assert warning.replace("\\", "").startswith("Not timed: the tf.function tape.batch_jacobian: MemoryError: out of "
                                                "memory in the planted test.")
    assert list(timing_chart(at)) == ["gradlib (one compiled call)", "eager tape.batch_jacobian",
                                      "per-sample tape.jacobian loop"]
    assert metrics(at)["tf.function tape.batch_jacobian / gradlib"] == "n/a"


def test_a_slider_change_inside_the_form_recomputes_nothing_until_compute():
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.switch_page("pages/models.py").run()
    before = metrics(at)["Jacobian shape"]
    at.slider(key="models_mlp_regressor_features").set_value(5).run()     # no Compute: the old results stay
    assert metrics(at)["Jacobian shape"] == before == "(16, 3, 8)"
    at.slider(key="models_mlp_regressor_features").set_value(5)
    at.button(key="models_submit").click().run()
    assert metrics(at)["Jacobian shape"] == "(16, 3, 5)"


def test_choosing_another_sample_shows_its_outputs(default):
    default.number_input(key="models_sample_16").set_value(5).run()
    assert not default.exception
    model = keras_models.get_model("mlp_regressor")
    x = keras_models.make_batch("random normal", (8,), 16, seed=0)
    np.testing.assert_allclose(floats(table(default, "element"))[:, 0], model(x[5:6]).numpy()[0], rtol=1e-5)
    assert "### Sample 5" in [m.value for m in default.markdown]


def test_the_pitfall_bars_draw_naive_and_summed_in_red_and_the_correct_rows_not(default):
    (bars,) = [json.loads(c.proto.spec) for c in default.get("plotly_chart")
               if json.loads(c.proto.spec)["layout"]["title"]["text"].replace("<br>", " ")   # broken to fit 390 px
               == "Naive and summed against the correct rows"]
    colours = {t["name"]: t["marker"]["color"] for t in bars["data"] if t.get("type") == "bar"}
    broken = {c for name, c in colours.items() if not name.startswith("correct:")}
    correct = {c for name, c in colours.items() if name.startswith("correct:")}
    assert len(broken) == 1 and not broken & correct and len(colours) == 7


def test_the_classifier_sums_to_zero_gradient():
    at = run_page(models_model="classifier", models_time_loop=False)
    rows = floats(table(at, "method"))
    summed = rows[4]   # 4 classes of naive rows, then the summed row
    np.testing.assert_allclose(summed, 0.0, atol=1e-5)
    assert np.abs(rows[5:]).max() > 1e-3
    assert any("not timed" in c.value for c in at.caption)


def test_the_sequence_model_keeps_time_steps_and_features():
    at = run_page(models_model="sequence", models_time_loop=False)
    assert metrics(at)["Jacobian shape"] == "(16, 2, 12, 3)"
    assert not at.error


def test_too_large_a_request_is_refused_with_a_message():
    at = run_page(models_model="sequence", models_time_loop=False, models_sequence_steps=32,
                  models_sequence_features=8, models_sequence_outputs=8, models_batch=128)
    assert any("at most 250,000 are allowed" in e.value for e in at.error)


def test_the_upload_source_waits_for_a_file():
    at = run_page(models_source="Upload a CSV or .npy file")
    assert any("Upload a file" in i.value for i in at.info)
    assert not at.metric


def _upload_script():
    from pages.models import batch_from_upload

    import streamlit as st

    bad = batch_from_upload(b"1,2,3\n4,5\n", "ragged.csv", (3,))
    good = batch_from_upload(b"a,b,c\n1,2,3\n", "ok.csv", (3,))
    import io

    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    pickled = batch_from_upload(buf.getvalue(), "evil.npy", (3,))
    st.write(f"bad={bad is None} good={None if good is None else good.tolist()} pickled={pickled is None}")


def test_a_bad_upload_shows_an_error_and_a_good_one_parses():
    at = AppTest.from_function(_upload_script, default_timeout=120).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 2
    assert "ragged.csv" in errors[0] and "row 2 has 2 value" in errors[0]
    assert "evil.npy" in errors[1] and "only real numbers are accepted" in errors[1]
    assert "bad=True good=[[1.0, 2.0, 3.0]] pickled=True" in at.markdown[0].value


def test_the_saliency_bars_are_named_as_absolute_values_on_their_axis(default):
    """The saliency chart draws |d y_k / d x_j| (sample 0's y[0] row has -0.32 at x[2], drawn as +0.32) under a y axis
    that said "gradient", as if the bars were the signed gradients."""
    b = default.number_input(key="models_sample_16").value   # another test of this module may choose sample 5
    (saliency,) = [s for s in (json.loads(c.proto.spec) for c in default.get("plotly_chart"))
                   if s["layout"]["title"]["text"].startswith(f"Saliency of sample {b}")]
    assert saliency["layout"]["yaxis"]["title"]["text"] == "|gradient|"
    model = keras_models.get_model("mlp_regressor")
    x = keras_models.make_batch("random normal", (8,), 16, seed=0)
    xb = tf.constant(x[b:b + 1])
    with tf.GradientTape() as tape:
        tape.watch(xb)
        y = model(xb)
    jac = tape.batch_jacobian(y, xb).numpy()[0]
    bars = [values(t["y"]) for t in saliency["data"] if t["type"] == "bar"]
    np.testing.assert_allclose(bars, np.abs(jac), rtol=1e-4, atol=1e-6)
    assert (jac < 0).any()
