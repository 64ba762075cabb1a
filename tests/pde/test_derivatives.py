"""gradlib.pde.derivatives: closed forms, per-point nested tapes in float64, only the passes asked, errors."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from gradlib import ExpressionError, GradlibError, InputError
from gradlib.pde import derivatives

X = tf.constant([[0.3, 0.1], [1.0, 2.0], [-0.7, 0.5], [2.1, -0.4]], tf.float64)


def wave(x):
    """u(x, t) = sin(x) exp(-t), one column."""
    return tf.sin(x[:, :1]) * tf.exp(-x[:, 1:])


def mlp(widths=(2, 16, 16, 1), activation=tf.tanh, seed=0):
    """A small MLP on plain float64 variables (independent of Keras): the model and its weights."""
    rng = np.random.default_rng(seed)
    weights = [tf.Variable(rng.normal(size=(a, b)) / np.sqrt(a)) for a, b in zip(widths, widths[1:])]
    biases = [tf.Variable(rng.normal(size=(b,)) * 0.1) for b in widths[1:]]

    def model(x):
        for k, (w, b) in enumerate(zip(weights, biases)):
            x = x @ w + b
            x = activation(x) if k < len(weights) - 1 else x
        return x
    return model, weights + biases


def point_reference(model, x, output=0):
    """Each point on its own, nested tapes: u, the gradient (N, d) and the Hessian (N, d, d) of one output."""
    values, grads, hessians = [], [], []
    for i in range(x.shape[0]):
        xi = x[i:i + 1]
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xi)
            with tf.GradientTape() as inner:
                inner.watch(xi)
                u = model(xi)[0, output]
            g = inner.gradient(u, xi)[0]
            columns = [g[j] for j in range(x.shape[1])]
        values.append(u)
        grads.append(g)
        hessians.append(tf.stack([outer.gradient(c, xi)[0] for c in columns]))
    return tf.stack(values), tf.stack(grads), tf.stack(hessians)


def test_a_closed_form_gives_its_exact_derivatives_to_order_four():
    want = ["u", "u_x", "u_t", "u_xx", "u_xt", "u_tx", "u_tt", "u_xxx", "u_xxt", "u_xxxx", "u_xtxt"]
    d = derivatives(wave, X, coords=("x", "t"), want=want)
    x, t = X[:, 0].numpy(), X[:, 1].numpy()
    s, c, e = np.sin(x) * np.exp(-t), np.cos(x) * np.exp(-t), 1
    exact = {"u": s, "u_x": c, "u_t": -s, "u_xx": -s, "u_xt": -c, "u_tx": -c, "u_tt": s, "u_xxx": -c * e,
             "u_xxt": s, "u_xxxx": s, "u_xtxt": -s}
    assert list(d) == want
    for name in want:
        assert isinstance(d[name], tf.Tensor) and d[name].shape == (4,) and d[name].dtype == tf.float64, name
        np.testing.assert_allclose(d[name].numpy(), exact[name], rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("form", ["columns", "list", "dict"])
def test_several_outputs_by_name(form):
    def model(x):
        x_, y = x[:, 0], x[:, 1]
        u, v, p = x_ ** 2 * y, x_ * y ** 3, tf.exp(x_ + 2 * y)
        return {"columns": tf.stack([u, v, p], axis=1), "list": [u[:, None], v, p[:, None]],
                "dict": {"p": p, "v": v, "u": u, "extra": u}}[form]

    d = derivatives(model, X, coords=("x", "y"), outputs=("u", "v", "p"), want=["v_y", "p_x", "v_xy", "u_xx", "p"])
    x, y = X[:, 0].numpy(), X[:, 1].numpy()
    exact = {"v_y": 3 * x * y ** 2, "p_x": np.exp(x + 2 * y), "v_xy": 3 * y ** 2, "u_xx": 2 * y,
             "p": np.exp(x + 2 * y)}
    for name, value in exact.items():
        np.testing.assert_allclose(d[name].numpy(), value, rtol=1e-12, err_msg=name)


def test_a_tanh_network_matches_nested_tapes_point_by_point():
    model, _ = mlp()
    d = derivatives(model, X, want=["u", "u_x", "u_t", "u_xx", "u_xt", "u_tt"])
    u, g, h = point_reference(model, X)
    expected = {"u": u, "u_x": g[:, 0], "u_t": g[:, 1], "u_xx": h[:, 0, 0], "u_xt": h[:, 0, 1], "u_tt": h[:, 1, 1]}
    for name, value in expected.items():
        np.testing.assert_allclose(d[name].numpy(), value.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


def test_a_float32_keras_model_on_float32_points():
    keras = pytest.importorskip("keras")
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
    x = tf.cast(X, tf.float32)
    d = derivatives(model, x, want=["u_x", "u_xt"])
    _, g, h = point_reference(model, x)
    assert d["u_x"].dtype == tf.float32
    np.testing.assert_allclose(d["u_x"].numpy(), g[:, 0].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d["u_xt"].numpy(), h[:, 0, 1].numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("coords, want, passes", [
    (("x", "t"), ["u", "u_x", "u_t"], 1),              # every first derivative from one pass
    (("x", "y", "t"), ["u_xt"], 2),                    # a mixed partial: u's pass, then u_x's (no full Hessian)
    (("x", "y", "t"), ["u_xx", "u_yy", "u_t"], 3),     # a Laplacian in x and y only: u, u_x, u_y
    (("x", "y", "t"), ["u_xt", "u_tt"], 2),            # both from u_t's pass
    (("x", "t"), ["u_xxx"], 3),
])
def test_only_what_is_asked_is_computed(monkeypatch, coords, want, passes):
    calls = []
    gradient = tf.GradientTape.gradient
    monkeypatch.setattr(tf.GradientTape, "gradient", lambda self, *a, **k: calls.append(1) or gradient(self, *a, **k))
    model, _ = mlp(widths=(len(coords), 8, 1))
    x = tf.random.stateless_normal((5, len(coords)), seed=(1, 2), dtype=tf.float64)
    d = derivatives(model, x, coords=coords, want=want)
    assert len(calls) == passes
    u, g, h = point_reference(model, x)
    for name in want:
        if len(name) == 4:   # a second derivative: compare with the reference Hessian
            i, j = coords.index(name[2]), coords.index(name[3])
            np.testing.assert_allclose(d[name].numpy(), h[:, i, j].numpy(), rtol=1e-10, atol=1e-12)


def _weight_gradients_reference(model, variables, x):
    """d/dw of mean(u_xx^2 + u_x * u_t + u) computed point by point with nested tapes."""
    with tf.GradientTape() as tape:
        u, g, h = point_reference(model, x)
        loss = tf.reduce_mean(h[:, 0, 0] ** 2 + g[:, 0] * g[:, 1] + u)
    return tape.gradient(loss, variables)


def _loss(model, x):
    d = derivatives(model, x, want=["u_x", "u_t", "u_xx", "u"])
    return tf.reduce_mean(d["u_xx"] ** 2 + d["u_x"] * d["u_t"] + d["u"])


def test_weight_gradients_flow_eagerly_and_inside_tf_function():
    model, variables = mlp()
    expected = _weight_gradients_reference(model, variables, X)
    with tf.GradientTape() as tape:
        loss = _loss(model, X)
    eager = tape.gradient(loss, variables)

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float64)])
    def step(x):
        with tf.GradientTape() as tape:
            loss = _loss(model, x)
        return tape.gradient(loss, variables)

    for got in (eager, step(X)):
        assert all(g is not None for g in got)
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-13)


# ---------------------------------------------------------------- errors, before any work


class Recorder:
    """A model that records its calls: an error raised before any work leaves ``calls`` empty."""

    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return wave(x)


@pytest.mark.parametrize("x, kwargs, error, match", [
    (tf.constant([[1, 2]]), {}, InputError, r"x has dtype int32; TensorFlow's gradient .* is None.*tf.cast"),
    (np.zeros((0, 2)), {}, InputError, r"x holds no points \(shape \(0, 2\)\)"),
    (np.zeros((3, 3)), {}, InputError, r"x has 3 columns but coords names 2 \(x, t\)"),
    (np.zeros(3), {}, InputError, r"x must have shape \(N, 2\).*got shape \(3,\)"),
    ([["a", "b"]], {}, InputError, r"x has dtype string"),
    (X, {"want": ["w_x"]}, ExpressionError, r"'w_x' names the output 'w', and the model's outputs are u; name "
                                             r"several with outputs="),
    (X, {"want": ["u_q"]}, ExpressionError, r"'u_q' is not a derivative: after 'u_' come coordinates \(x, t\)"),
    (X, {"want": ["u_"]}, ExpressionError, r"'u_' ends with '_'"),
    (X, {"want": ["u_xxxxx"]}, ExpressionError, r"order 5; gradlib.pde computes orders up to 4"),
    (X, {"want": "u_x"}, ExpressionError, r"want must be a non-empty list of names"),
    (X, {"want": []}, ExpressionError, r"want must be a non-empty list of names"),
    (X, {"want": [3]}, ExpressionError, r"want holds 3; each item must be a name"),
    (X, {"coords": ("x", "x")}, ExpressionError, r"coords names 'x' twice"),
    (X, {"coords": ("x_1", "t")}, ExpressionError, r"coords holds 'x_1'; each name must be letters and digits"),
    (X, {"coords": "xt"}, ExpressionError, r"coords must be a non-empty tuple of names"),
    (X, {"outputs": ("x",)}, ExpressionError, r"'x' is both a coordinate and an output"),
    (X, {"coords": ("x", "xx"), "want": ["u_xxx"]}, ExpressionError, r"'u_xxx' can be read as x/x/x or x/xx"),
])
def test_bad_arguments_are_refused_before_any_work(x, kwargs, error, match):
    model = Recorder()
    with pytest.raises(error, match=match):
        derivatives(model, x, **({"want": ["u_x"]} | kwargs))
    assert model.calls == 0


def test_a_keras_model_of_another_width_is_refused_before_any_work():
    keras = pytest.importorskip("keras")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with pytest.raises(InputError, match=r"the model takes 3 input columns and coords names 2 \(x, t\)"):
        derivatives(model, X, want=["u_x"])
    with pytest.raises(GradlibError, match=r"the model returns 2 outputs per point and outputs names 1 \(u\): "
                                           r"name each, in order, like outputs=\('u', 'v'\)"):
        derivatives(model, tf.zeros((2, 3)), coords=("x", "y", "t"), want=["u_x"])


@pytest.mark.parametrize("model, outputs, match", [
    (lambda x: tf.concat([x, x], axis=1), None, r"the model returns 4 outputs per point and outputs names 1 \(u\)"),
    (lambda x: {"u": x[:, 0]}, ("u", "p"), r"the model returns the outputs u, not p: name them in outputs="),
    (lambda x: [x[:, 0]], ("u", "v"), r"the model returns 1 outputs and outputs names 2 \(u, v\)"),
    (lambda x: x[:1, 0], None, r"the model's output 'u' has shape \(1,\); for 4 points it must be \(4,\)"),
    (lambda x: tf.cast(x[:, 0] > 0, tf.int32), None, r"the model's output 'u' has dtype int32"),
])
def test_outputs_that_do_not_fit_are_refused_as_such(model, outputs, match):
    with pytest.raises(GradlibError, match=match):
        derivatives(model, X, want=["u_x"], outputs=outputs)


def test_the_model_failing_is_said_to_be_the_model_and_gradlib_failing_is_not():
    def broken(x):
        raise KeyError("no such layer")

    with pytest.raises(GradlibError, match=r"the model failed on x of shape \(4, 2\): KeyError: 'no such layer'"):
        derivatives(broken, X, want=["u_x"])
    with pytest.raises(GradlibError) as info:   # the model ran; what it returned is the problem
        derivatives(lambda x: x, X, want=["u_x"])
    assert "the model failed" not in str(info.value)


def test_a_refusal_inside_the_caller_s_tf_function_stays_gradlib_s_own_error():
    # AutoGraph turns an exception raised under a converted function into a StagingError "in user code"
    # unless it passes through: the caller must be able to catch GradlibError and read gradlib's message first
    @tf.function
    def step(x):
        return derivatives(lambda x: x, x, want=["u_x"])

    with pytest.raises(GradlibError, match=r"^gradlib.pde.derivatives: the model returns 2 outputs per point"):
        step(X)


def test_gradlib_pde_is_reached_from_import_gradlib_alone():
    import gradlib
    import gradlib.pde

    assert "pde" in dir(gradlib) and gradlib.pde is gradlib.__getattr__("pde")
    assert gradlib.pde.derivatives is derivatives
    assert gradlib.pde.__all__ == ["PdeCheck", "Residual", "check", "derivatives", "residual"]
