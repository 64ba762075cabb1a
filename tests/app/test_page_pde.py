"""AppTest of the "PDE residuals" page: its residual, derivatives and training step against gradlib.pde called
directly and hand-written nested tapes; its mistakes as TensorFlow gives them; typed input, limits and links."""

import math

import numpy as np
import pytest
import tensorflow as tf
from streamlit.testing.v1 import AppTest

import gradlib.pde
from chart_data import spec, values
from dashboard import pde

PAGE = "pages/pde.py"


def opened(**params) -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=300)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(PAGE).run()
    assert not at.exception
    return at


@pytest.fixture(scope="module")
def at() -> AppTest:
    return opened()


def chart(at: AppTest, key: str) -> dict:
    return next(spec(c) for c in at.get("plotly_chart") if c.proto.id.endswith(key))


def _burgers_by_nested_tapes(model, x: tf.Tensor) -> dict[str, np.ndarray]:
    """u, u_x, u_t, u_xx of Burgers' network by hand: the reference."""
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = model(x)[:, 0]
        g = inner.gradient(u, x)
        u_x = g[:, 0]
    u_xx = outer.gradient(u_x, x)[:, 0]
    return {"u": u.numpy(), "u_x": u_x.numpy(), "u_t": g[:, 1].numpy(), "u_xx": u_xx.numpy()}


def test_the_residual_map_is_burgers_residual_by_nested_tapes_and_by_gradlib_pde(at):
    state = pde.State()
    model, (xs, ts, points) = pde.model_of(state), pde.points(state)
    x = tf.constant(points, tf.float64)
    d = _burgers_by_nested_tapes(model, x)
    by_hand = (d["u_t"] + d["u"] * d["u_x"] - 0.01 / math.pi * d["u_xx"]).reshape(33, 33)
    direct = gradlib.pde.residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"),
                                  constants={"nu": 0.01 / math.pi})(x).numpy().reshape(33, 33)
    fig = chart(at, "pde_residual_map")
    heat = fig["data"][0]
    np.testing.assert_allclose(values(heat["z"]), by_hand, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(values(heat["z"]), direct, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(values(heat["x"]), xs)
    np.testing.assert_allclose(values(heat["y"]), ts)
    assert fig["layout"]["title"]["text"].replace("<br>", " ") == "Residual u_t + u*u_x - nu*u_xx over (x, t)"
    assert fig["layout"]["yaxis"]["title"]["text"] == "t"


def test_each_derivative_by_name_is_the_nested_tapes_one(at):
    state = pde.State()
    x = tf.constant(pde.points(state)[2], tf.float64)
    d = _burgers_by_nested_tapes(pde.model_of(state), x)
    for name in ("u_x", "u_xx"):
        at.selectbox(key="pde_derivative").set_value(name).run()
        assert not at.exception
        fig = chart(at, "pde_derivative_map")
        np.testing.assert_allclose(values(fig["data"][0]["z"]), d[name].reshape(33, 33), rtol=1e-9, atol=1e-12)
        assert fig["layout"]["title"]["text"].replace("<br>", " ") == f"{name} over (x, t)"
        # the forward jet and nested tapes round differently: a float64 gap of rounding, shown as the page gives it
        gaps = [float(c.value.split(f"nested tapes| for {name}: ")[1]) for c in at.caption
                if f"nested tapes| for {name}: " in c.value]
        assert len(gaps) == 1 and gaps[0] <= 1e-12, gaps


def test_each_mistake_shows_what_tensorflow_gave(at):
    assert not at.error
    errors = [w.value for w in at.warning]
    assert "outer.gradient returned None" in errors
    assert "largest |u_xx| over the points: 0" in errors
    # the network has 6 weights: "12 of 12" counted the two losses' gradients together, which the printed code (one
    # loss, one tape.gradient) never returns
    assert "6 of 6 weights have a gradient." in [m.value for m in at.markdown]
    assert any(e.startswith("6 of 6 weight gradients are None, with .numpy() and with gradlib.laplacian alike; "
                            "gradlib warned: gradlib.laplacian returns NumPy") for e in errors), errors


def test_the_training_step_has_every_weight_gradient_and_matches_nested_tapes(at):
    state = pde.State()
    model, x = pde.model_of(state), tf.constant(pde.points(state)[2], tf.float64)
    res = gradlib.pde.residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"), constants={"nu": 0.01 / math.pi})
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(res(x) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    with tf.GradientTape() as tape:
        d = _burgers_by_nested_tapes_on_tape(model, x)
        loss = tf.reduce_mean((d["u_t"] + d["u"] * d["u_x"] - 0.01 / math.pi * d["u_xx"]) ** 2)
    ref = tape.gradient(loss, model.trainable_variables)
    assert max(float(np.max(np.abs(g - r))) for g, r in zip(grads, ref)) < 1e-12
    shown = [m.value for m in at.markdown]
    assert "6 of 6 weights have a gradient." in shown
    line = next(m for m in shown if m.startswith("Largest |gradlib.pde − nested tapes| over every weight gradient"))
    assert float(line.split("**")[1]) < 1e-12
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["|gradient|"].astype(float), [float(tf.norm(g)) for g in grads], rtol=1e-3)


def _burgers_by_nested_tapes_on_tape(model, x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = model(x)[:, 0]
        g = inner.gradient(u, x)
        u_x = g[:, 0]   # sliced under the outer tape: outside it, outer.gradient(u_x, x) would be None
    return {"u": u, "u_x": u_x, "u_t": g[:, 1], "u_xx": outer.gradient(u_x, x)[:, 0]}


def test_an_exact_heat_solution_typed_as_a_closed_form_gives_a_zero_residual():
    at = opened(equation="heat", u="exp(-2*0.1*pi**2*t)*sin(pi*x)*sin(pi*y)", grid="9", t="0.3")
    z = values(chart(at, "pde_residual_map")["data"][0]["z"])
    assert z.shape == (9, 9) and np.max(np.abs(z)) < 1e-12
    assert not at.error and any("no weights to train" in i.value for i in at.info)
    assert at.number_input(key="pde_t").value == 0.3 and at.selectbox(key="pde_equation").value == "heat"


def test_a_typed_residual_that_is_zero_on_the_network_is_not_called_not_zero():
    """u_x - u_x is 0 at every point: the page showed "Largest |residual| ...: **0** (an untrained network: not
    zero)", and every weight gradient of its training step is 0."""
    at = opened(residual="u_x - u_x", grid="5")
    z = values(chart(at, "pde_residual_map")["data"][0]["z"])
    assert z.shape == (5, 5) and not np.abs(z).max()
    shown = [m.value for m in at.markdown if m.value.startswith("Largest |residual|")]
    assert shown == ["Largest |residual| over the 5×5 grid: **0** (zero on the untrained network too: so is every "
                     "weight gradient of mean(residual²), and a training step on it changes nothing)"]
    step = next(d.value for d in at.dataframe if "|gradient|" in d.value.columns)
    assert set(step["|gradient|"]) <= {"0", "None"}


def test_a_bad_typed_residual_names_where_and_keeps_the_other_inputs():
    at = opened(grid="5")
    at.text_input(key="pde_residual").set_value("u_t + u*u_q")
    at.button[0].click().run()
    assert not at.exception
    message = next(e.value for e in at.error if "In the residual" in e.value)
    assert "is not a derivative" in message and "u_t + u*u_q\n        ^" in message   # the caret at column 9
    assert at.number_input(key="pde_grid").value == 5 and at.text_input(key="pde_residual").value == "u_t + u*u_q"
    at.text_input(key="pde_residual").set_value("")
    at.text_input(key="pde_u").set_value("sin(x")
    at.button[0].click().run()
    assert any("In the closed form u" in e.value and "never closed" in e.value for e in at.error)


def test_the_grid_limit_last_good_and_first_bad_value():
    at = opened(equation="poisson", grid="64")
    assert values(chart(at, "pde_residual_map")["data"][0]["z"]).shape == (64, 64)
    at = opened(equation="poisson", grid="65")
    assert any("grid 65 points per side is outside the app's limit, 3 to 64" in e.value for e in at.error)
    assert values(chart(at, "pde_residual_map")["data"][0]["z"]).shape == (33, 33)   # the default kept


def test_navier_stokes_has_u_v_p_and_their_derivatives():
    at = opened(equation="navier_stokes", grid="5")
    names = at.selectbox(key="pde_derivative").options
    assert {"u", "v", "p", "p_x", "v_y", "u_xx"} <= set(names)
    assert not at.error
    assert "outer.gradient returned None" in [w.value for w in at.warning]   # the mistakes, on u
