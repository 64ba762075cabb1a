"""AppTest of the playground's second-order view: NaN second derivatives said, the toggle kept, refusals that can be acted on."""

import json
import re

import numpy as np
import tensorflow as tf
from chart_data import values
from streamlit.testing.v1 import AppTest

import gradlib

from playground_session import open_playground


def nested_tape_hessians(x: list[float]) -> np.ndarray:
    """The reference: one inner tape.gradient per element of y inside an outer tape, then the outer jacobian."""
    xt = tf.constant(x, tf.float32)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xt)
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(xt)
            ys = tf.unstack(tf.where(xt > 0, tf.sqrt(xt), 0.0))
        grads = [inner.gradient(y, xt) for y in ys]
    return np.stack([outer.jacobian(g, xt).numpy() for g in grads])


def test_nan_poisoning_of_a_where_is_repaired_and_blamed_on_the_where():
    """where(x > 0, sqrt(x), 0) at [0, -1, 4]: TensorFlow's nested tapes give NaN in 18 of the 27 second derivatives
    (the branch not taken, sqrt, has a non-finite derivative at 0 and -1), also for y[1], which is 0 near x = -1.
    The view counted them and blamed "a value or a derivative that is not finite at these inputs" (issue 35): the
    true Hessians are finite (the taken branch's: 0, and -x**-1.5 / 4 = -1/32 at 4). Now they are repaired, and the
    view names where() as the cause."""
    reference = nested_tape_hessians([0.0, -1.0, 4.0])
    assert (int((~np.isfinite(reference)).sum()), reference.size) == (18, 27)
    at = open_playground(outputs="where(x > 0, sqrt(x), 0)", inputs='{"x": [0, -1, 4]}', order="2")
    assert at.toggle(key="pg_second").value and not at.exception
    warnings = [w.value for w in at.warning]
    assert not [w for w in warnings if "second derivatives are NaN or infinite" in w], warnings
    assert any(w.startswith("repaired NaN poisoning in 18 cell") for w in warnings), warnings
    assert any("comes from where\\(\\): where\\(x \\> 0, sqrt\\(x\\), 0\\) at column 1" in w for w in warnings)
    closed = np.zeros((3, 3, 3))
    closed[2, 2, 2] = -0.25 * 4.0 ** -1.5
    hessian = gradlib.evaluate("where(x > 0, sqrt(x), 0)", {"x": [0, -1, 4]}, order=2).hessian   # the page's call
    assert np.allclose(hessian, closed, rtol=1e-6, atol=0)


def test_nan_poisoning_preset_counts_only_the_cells_of_the_output_that_overflows():
    """y = [exp(exp(10 x0)), 2 x1]: exp overflows, and nested tapes put NaN in y[1]'s Hessian too (0 * inf), where
    the true second derivatives are 0: those are repaired and named; the count is of y[0]'s cells alone."""
    at = open_playground(outputs="[exp(exp(10*x0)), 2*x1]", inputs='{"x0": 1.0, "x1": 1.0}', order="2")
    said = [w.value for w in at.warning if "second derivatives are NaN or infinite" in w.value]
    assert len(said) == 1 and said[0].startswith("2 of the 8 second derivatives") and "overflow" in said[0]
    assert any(w.value.startswith("repaired NaN poisoning in 2 cell") and "y\\[1\\] at" in w.value
               for w in at.warning)


def test_finite_hessians_get_no_such_warning():
    at = open_playground(outputs="x*x*x", inputs='{"x": [1, 2]}', order="2")
    assert not [w.value for w in at.warning if "second derivatives are NaN" in w.value]


def test_the_hessians_caption_names_the_output_as_its_charts_do_when_an_input_is_called_y():
    """With inputs y and z the output is named out (out[0], out[1] in the charts' titles); the caption said "The
    Hessian of each element of y", the input. The charts hold y*y*z's Hessian at (2, 3): [[2z, 2y], [2y, 0]]."""
    at = open_playground(outputs="[y*y*z, y*z]", inputs='{"y": 2, "z": 3}', method="unstack", order="2")
    assert "The Hessian of each element of out over the 2 watched element(s), method `loop`." in [
        c.value for c in at.caption]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    hessians = {s["layout"]["title"]["text"]: values(s["data"][0]["z"]).tolist() for s in charts
                if s["layout"]["title"]["text"].startswith("Hessian of")}
    assert hessians == {"Hessian of out[0]": [[6.0, 4.0], [4.0, 0.0]], "Hessian of out[1]": [[0.0, 1.0], [1.0, 0.0]]}


def share_link(at: AppTest) -> str:
    return next(c.value for c in at.code if c.value.startswith(("?", "http")) and "outputs=" in c.value)


def test_the_second_order_toggle_survives_a_function_that_fails():
    """A run that stopped at an error drew no toggle, so Streamlit dropped its state: once the function was fixed
    the Hessians were gone and the share link had lost order=2."""
    at = open_playground(outputs="x*x*x", inputs='{"x": [1, 2]}', order="2")
    at.text_area(key="pg_outputs").set_value("x +")
    at.button(key="pg_submit").click().run()
    # the toggle stands above the form's result now, so a run that stops at the error still draws it, still on
    assert "syntax error" in "\n".join(e.value for e in at.error) and at.toggle(key="pg_second").value
    at.text_area(key="pg_outputs").set_value("x*x")
    at.button(key="pg_submit").click().run()
    assert not at.exception and at.toggle(key="pg_second").value
    assert share_link(at).endswith("&order=2") and "## Second order" in [m.value for m in at.markdown]
    at.toggle(key="pg_second").set_value(False).run()   # and the toggle still turns the view off
    assert "order=" not in share_link(at) and "## Second order" not in [m.value for m in at.markdown]


def test_a_refused_hessian_view_says_what_can_be_changed_on_the_page():
    """64 watched elements and 64 outputs: 262,144 second derivatives, over the app's 250,000. gradlib's refusal
    advises 'a smaller batch' and 'diagonal=True', which the playground has not; the page now says what it has."""
    at = open_playground(outputs="x*sum(x)", inputs='{"x": [%s]}' % ", ".join(["1"] * 64), order="2")
    refusal = next(e.value for e in at.error if "The Hessians cannot be computed" in e.value)
    assert "262,144" in refusal and "250,000" in refusal
    assert any(c.value.startswith("What you can change here, to the sizes named above: fewer watched elements (give "
                                  "x fewer values)") for c in at.caption)


def _hessians_refused(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error if "The Hessians cannot be computed" in e.value)


def test_following_the_hessian_view_s_advice_is_accepted_and_one_more_is_not():
    """The advice named no size ('watch fewer inputs', with x the only input: unticking it leaves nothing watched).
    It now names the largest that fits, 62 watched elements for x*sum(x) of 64; 62 draws, 63 is refused again."""
    at = open_playground(outputs="x*sum(x)", inputs='{"x": [%s]}' % ", ".join(["1"] * 64), order="2")
    advised = re.search(r"at most (\d+) watched elements in all", _hessians_refused(at))
    assert advised and advised.group(1) == "62", _hessians_refused(at)
    assert not any("untick" in c.value for c in at.caption)
    fits = open_playground(outputs="x*sum(x)", inputs='{"x": [%s]}' % ", ".join(["1"] * 62), order="2")
    assert not _hessians_refused(fits)
    assert any("The Hessian of each element of y over the 62 watched element(s)" in c.value for c in fits.caption)
    over = open_playground(outputs="x*sum(x)", inputs='{"x": [%s]}' % ", ".join(["1"] * 63), order="2")
    assert "250,047" in _hessians_refused(over)


def test_unticking_watch_is_advised_only_when_another_input_stays_watched():
    at = open_playground(outputs="x*sum(x)*s", inputs='{"x": [%s], "s": 2}' % ", ".join(["1"] * 64), order="2")
    assert "at most 62 watched elements in all" in _hessians_refused(at), _hessians_refused(at)
    assert any("(untick *watch* on an input, or give the watched inputs fewer values)" in c.value for c in at.caption)


def test_a_refusal_that_is_no_limit_gets_no_advice_about_sizes():
    """A watched integer input is refused for what it is; 'watch fewer inputs or make y smaller' would mislead."""
    at = open_playground(outputs="x*x", inputs='{"x": [1, 2]}', dtype="x:int32", order="2")
    refusal = next(e.value for e in at.error if "The Hessians cannot be computed" in e.value)
    assert "int32" in refusal
    assert not any(c.value.startswith("What you can change here") for c in at.caption)


def test_the_second_order_toggle_survives_a_visit_to_another_page():
    """Streamlit drops the state of a widget not drawn in a run: after a look at another page the Hessians were off
    and the link had lost order=2, while every other input of the playground came back."""
    at = open_playground(outputs="x*x*x", inputs='{"x": [1, 2]}', order="2")
    at.switch_page("pages/bug.py").run()
    at.switch_page("pages/playground.py").run()
    assert not at.exception and at.toggle(key="pg_second").value
    assert share_link(at).endswith("&order=2") and at.text_area(key="pg_outputs").value == "x*x*x"
    at.toggle(key="pg_second").set_value(False).run()
    at.switch_page("pages/bug.py").run()
    at.switch_page("pages/playground.py").run()
    assert not at.toggle(key="pg_second").value and "order=" not in share_link(at)


def _in_order(node):
    """The page's elements in the order a visitor scrolls through them."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _in_order(child)


def test_the_hessians_choice_sits_near_the_top_and_each_heatmap_writes_its_values():
    """The toggle stood under every first-order result, 6,600 px down; the Hessian heatmaps carried no values.
    The toggle now comes before the results' heading, and each heatmap's cells read as the nested tapes' numbers."""
    at = open_playground(outputs="[x0*x1*x2, x0*x1*x2*x0]", inputs='{"x0": 3, "x1": 4, "x2": 5}', order="2")
    assert not at.exception
    order = [(n.type, getattr(n, "key", None) or getattr(n, "value", "")) for n in _in_order(at.main)]
    toggle = next(i for i, (kind, what) in enumerate(order) if kind == "toggle")
    results = next(i for i, (kind, what) in enumerate(order) if kind == "markdown" and what == "## Results")
    assert toggle < results, order[:toggle + 1]
    assert any("drawn after the first-order results" in c.value for c in at.caption)
    maps = {c.proto.id.split("-")[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    expected = {"pg_hessian_0": [[0, 5, 4], [5, 0, 3], [4, 3, 0]],
                "pg_hessian_1": [[40, 30, 24], [30, 0, 9], [24, 9, 0]]}
    for key, hessian in expected.items():
        heat = maps[key]["data"][0]
        np.testing.assert_allclose(values(heat["z"]), hessian, rtol=1e-6)
        assert heat["texttemplate"] == "%{text}" and heat["text"] == [[f"{v:g}" for v in row] for row in hessian]
        assert "∂%{y} ∂%{x}" in heat["hovertemplate"] and heat["x"] == heat["y"] == ["x0", "x1", "x2"]
