"""The forward jet (gradlib._pde._jet): a Dense network's derivatives along the named coordinates in one forward
pass, equal to nested tapes and to a per-point Hessian loop in float64, weight gradients included; every model or
plan it has no rule for goes to nested tapes (and still gets the right numbers)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from gradlib.pde import derivatives, residual
from gradlib._pde._derivatives import compute, plan
from gradlib._pde._jet import jet_kernels

COORDS = ("x", "y", "t")
WANT = ["u", "v", "u_x", "u_t", "v_y", "u_xx", "u_yy", "u_tt", "u_xt", "v_xy", "v_tt"]
ACTIVATIONS = ("tanh", "sigmoid", "softplus", "silu", "elu", "exponential", "relu")
X = tf.constant(np.random.default_rng(3).uniform(-1.5, 1.5, size=(9, 3)), tf.float64)


def dense(activation="tanh", widths=(3, 12, 12, 2), dtype="float64", seed=0, last="linear"):
    keras.utils.set_random_seed(seed)
    layers = [keras.layers.Dense(n, activation=activation if k < len(widths) - 2 else last, dtype=dtype)
              for k, n in enumerate(widths[1:])]
    return keras.Sequential([keras.Input((widths[0],), dtype=dtype)] + layers)


def per_point(model, x, output):
    """Each point alone under nested tapes: its gradient (d,) and Hessian (d, d) of one output."""
    grads, hessians = [], []
    for i in range(x.shape[0]):
        xi = x[i:i + 1]
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xi)
            with tf.GradientTape() as inner:
                inner.watch(xi)
                u = model(xi)[0, output]
            g = inner.gradient(u, xi)[0]
            columns = [g[j] for j in range(x.shape[1])]
        grads.append(g.numpy())
        hessians.append(np.stack([outer.gradient(c, xi)[0].numpy() for c in columns]))
    return np.array(grads), np.array(hessians)


def _plan(want=WANT, outputs=("u", "v")):
    return plan(COORDS, outputs, want, "test")


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_the_jet_equals_a_per_point_hessian_loop_and_nested_tapes(activation):
    model = dense(activation)
    p = _plan()
    assert jet_kernels(model, p), "the jet must take a plain Dense Sequential"
    jet, tapes = compute(model, X, p, "test"), compute(model, X, p, "test", jet=False)
    for name in WANT:
        np.testing.assert_allclose(jet[name].numpy(), tapes[name].numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    for k, o in enumerate(("u", "v")):
        g, h = per_point(model, X, k)
        for name in [n for n in WANT if n.startswith(o + "_")]:
            along = [COORDS.index(c) for c in name[2:]]
            want = g[:, along[0]] if len(along) == 1 else h[:, along[0], along[1]]
            np.testing.assert_allclose(jet[name].numpy(), want, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("compiled", [False, True])
def test_weight_gradients_through_the_jet_equal_nested_tapes(compiled):
    model = dense("tanh", widths=(3, 16, 16, 16, 2))
    p = _plan(["u", "u_x", "u_t", "u_xx", "u_yy", "u_xt", "v_tt"])

    def loss(jet):
        with tf.GradientTape() as tape:
            d = compute(model, X, p, "test", jet=jet)
            r = d["u_t"] + d["u"] * d["u_x"] - 0.01 * (d["u_xx"] + d["u_yy"]) + d["u_xt"] * d["v_tt"]
            value = tf.reduce_mean(r ** 2)
        return value, tape.gradient(value, model.trainable_variables)
    run = tf.function(loss) if compiled else loss
    (a, ga), (b, gb) = run(True), run(False)
    assert abs(float(a) - float(b)) <= 1e-12 * abs(float(b)) and float(b) > 0
    assert len(ga) == len(gb) == 8
    for x, y in zip(ga, gb):
        assert np.abs(y.numpy()).max() > 0
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("want", [["u_xx", "u_yy", "u_tt"], ["u", "u_x", "v_t"], ["u_xt"]])
def test_weight_gradients_equal_nested_tapes_with_second_derivatives_only_or_first_only(want):
    """The tanh layers' written-out pass back, where the last layer passes on no first derivative (a Laplacian), or
    where no pair is carried (first derivatives only)."""
    model = dense("tanh", widths=(3, 16, 16, 2))
    p = _plan(want)

    @tf.function
    def loss(jet):
        with tf.GradientTape() as tape:
            d = compute(model, X, p, "test", jet=jet)
            value = tf.reduce_mean(tf.add_n([d[name] * (k + 1.0) for k, name in enumerate(want)]) ** 2)
        return value, tape.gradient(value, model.trainable_variables)
    (a, ga), (b, gb) = loss(True), loss(False)
    assert abs(float(a) - float(b)) <= 1e-12 * abs(float(b)) and float(b) > 0
    assert [x is None for x in ga] == [y is None for y in gb]   # the last bias does not reach a derivative
    ga, gb = [x for x in ga if x is not None], [y for y in gb if y is not None]
    assert len(gb) >= 5 and all(np.abs(y.numpy()).max() > 0 for y in gb)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-9, atol=1e-13)


def test_a_residual_on_a_dense_network_takes_the_jet_and_trains_like_nested_tapes():
    model = dense("tanh", widths=(2, 16, 16, 1))
    x = X[:, :2]
    burgers = residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"), constants={"nu": 0.01})
    assert jet_kernels(model, burgers.plan)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(burgers(x) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    with tf.GradientTape() as tape:
        d = compute(model, x, burgers.plan, "test", jet=False)
        by_tapes = tf.reduce_mean((d["u_t"] + d["u"] * d["u_x"] - 0.01 * d["u_xx"]) ** 2)
    for a, b in zip(grads, tape.gradient(by_tapes, model.trainable_variables)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-14)


class Tripled(keras.layers.Dense):
    def call(self, x):
        return super().call(x) * 3.0


def _own_tanh(z):
    return tf.tanh(z)


def _functional():
    inputs = keras.Input((3,), dtype="float64")
    return keras.Model(inputs, keras.layers.Dense(2, dtype="float64")(
        keras.layers.Dense(8, activation="tanh", dtype="float64")(inputs)))


#: each case's model, built by the test that takes it (not all five at collection and again in each test)
MODELS_WITHOUT_A_RULE = {
    "an activation of the user's own": lambda: dense(_own_tanh),
    "a Dense subclass that computes something else": lambda: keras.Sequential(
        [keras.Input((3,), dtype="float64"), Tripled(8, activation="tanh", dtype="float64"),
         keras.layers.Dense(2, dtype="float64")]),
    "a layer without a rule": lambda: keras.Sequential(
        [keras.Input((3,), dtype="float64"), keras.layers.Dense(8, activation="gelu", dtype="float64"),
         keras.layers.UnitNormalization(dtype="float64"), keras.layers.Dense(2, dtype="float64")]),
    "a functional model": _functional,
    "a model not built yet": lambda: keras.Sequential([keras.layers.Dense(8, activation="tanh", dtype="float64"),
                                                       keras.layers.Dense(2, dtype="float64")])}


@pytest.mark.parametrize("case", list(MODELS_WITHOUT_A_RULE))
def test_a_model_without_rules_goes_to_nested_tapes_and_gets_the_right_numbers(case):
    keras.utils.set_random_seed(1)
    model = MODELS_WITHOUT_A_RULE[case]()
    p = _plan(["u", "u_x", "u_xx", "u_xt"])
    assert not jet_kernels(model, p)
    d = derivatives(model, X, coords=COORDS, want=["u_x", "u_xx", "u_xt"], outputs=("u", "v"))
    g, h = per_point(model, X, 0)
    tol = 1e-6 if "built" in case else 1e-10   # built by its first call, a Sequential reads its input as float32
    np.testing.assert_allclose(d["u_x"].numpy(), g[:, 0], rtol=tol, atol=tol)
    np.testing.assert_allclose(d["u_xx"].numpy(), h[:, 0, 0], rtol=tol, atol=tol)
    np.testing.assert_allclose(d["u_xt"].numpy(), h[:, 0, 2], rtol=tol, atol=tol)


def test_orders_three_and_four_and_plain_values_go_to_nested_tapes():
    model = dense("tanh")
    assert not jet_kernels(model, _plan(["u_xxx"])) and not jet_kernels(model, _plan(["u", "v"]))
    assert jet_kernels(model, _plan(["u_x"])) and jet_kernels(model, _plan(["u_xt"]))


def test_a_mixed_precision_model_goes_to_nested_tapes():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = dense("tanh", dtype=None)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert model.layers[0].compute_dtype == "float16"
    assert not jet_kernels(model, _plan(["u_xx"]))


def test_a_float32_network_on_float64_points_gives_what_nested_tapes_give():
    model = dense("tanh", dtype="float32")
    p = _plan(["u", "u_x", "u_xx"])
    jet, tapes = compute(model, X, p, "test"), compute(model, X, p, "test", jet=False)
    for name in ("u", "u_x", "u_xx"):
        assert jet[name].dtype == tapes[name].dtype, name
        np.testing.assert_allclose(jet[name].numpy(), tapes[name].numpy(), rtol=2e-5, atol=1e-6, err_msg=name)


def test_a_residual_whose_jet_disagrees_with_the_models_call_takes_nested_tapes(monkeypatch):
    from gradlib._pde import _jet

    model = dense("tanh", widths=(2, 8, 1))
    x = X[:, :2]
    honest = residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"), constants={"nu": 0.01})(x)
    real = _jet.forward_jet

    def off(kernels, x, firsts, pairs):   # a jet whose value is not the model's: the guard must see it
        y, first, second = real(kernels, x, firsts, pairs)
        return y + 1.0, first, second
    monkeypatch.setattr(_jet, "forward_jet", off)
    r = residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"), constants={"nu": 0.01})
    np.testing.assert_allclose(r(x).numpy(), honest.numpy(), rtol=1e-10, atol=1e-12)
    assert r._jet is False
    wrong = residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"), constants={"nu": 0.01})
    wrong._jet = True   # without the guard, the shifted jet reaches the answer (so the test above can fail)
    assert np.abs(wrong(x).numpy() - honest.numpy()).max() > 1e-3


def _shifted_first(monkeypatch, shift):
    """forward_jet with its first derivative along coordinate 0 moved by ``shift`` (its value left right)."""
    from gradlib._pde import _jet

    real = _jet.forward_jet

    def off(kernels, x, firsts, pairs):
        y, first, second = real(kernels, x, firsts, pairs)
        return y, {j: v + shift if j == 0 else v for j, v in first.items()}, second
    monkeypatch.setattr(_jet, "forward_jet", off)


BURGERS = ("u_t + u*u_x - nu*u_xx", {"coords": ("x", "t"), "constants": {"nu": 0.01}})


def test_the_guard_compares_first_derivatives_too_at_a_few_of_many_points(monkeypatch):
    from gradlib._pde import _jet

    model = dense("tanh", widths=(2, 8, 1))
    x = tf.constant(np.random.default_rng(5).uniform(-1, 1, size=(1000, 2)), tf.float64)
    honest = residual(BURGERS[0], model, **BURGERS[1])(x)
    seen = []
    real_agrees = _jet._agrees
    monkeypatch.setattr(_jet, "_agrees",
                        lambda m, k, points, d: seen.append(points.shape[0]) or real_agrees(m, k, points, d))
    _shifted_first(monkeypatch, 1e-3)   # u right, u_x wrong by 1e-3: only the derivatives' check can see it
    r = residual(BURGERS[0], model, **BURGERS[1])
    np.testing.assert_allclose(r(x).numpy(), honest.numpy(), rtol=1e-10, atol=1e-12)
    assert r._jet is False and seen == [_jet.GUARD_POINTS]


def _first_called_in_a_step(r, model, x):
    @tf.function
    def step(points):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(r(points) ** 2)
        return r(points), tape.gradient(loss, model.trainable_variables)
    value, grads = step(x)
    assert all(g is not None for g in grads)
    return value


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_residual_first_called_inside_tf_function_guards_the_jet_at_fixed_points(monkeypatch, dtype):
    model = dense("tanh", widths=(2, 8, 1), dtype=dtype)
    x = tf.cast(X[:, :2], dtype)
    eager = residual(BURGERS[0], model, **BURGERS[1])
    honest = eager(x)
    assert eager._jet is True
    right = residual(BURGERS[0], model, **BURGERS[1])
    _first_called_in_a_step(right, model, x)
    assert right._jet is True   # a right jet passes the guard there (its tape records, outside the caller's)
    _shifted_first(monkeypatch, 0.5)
    wrong = residual(BURGERS[0], model, **BURGERS[1])
    value = _first_called_in_a_step(wrong, model, x)
    assert wrong._jet is False
    np.testing.assert_allclose(value.numpy(), honest.numpy(), rtol=1e-5 if dtype == "float32" else 1e-10, atol=1e-6)


def test_a_dense_sequential_skips_the_eager_mixing_pass_and_any_other_model_takes_it(monkeypatch):
    from gradlib._pde import _residual

    tested = []
    monkeypatch.setattr(_residual, "independence", lambda *args: tested.append(1) or "")
    model = dense("tanh", widths=(2, 8, 1))
    residual(BURGERS[0], model, **BURGERS[1])(X[:, :2])
    assert tested == []   # a Sequential of plain Dense layers maps each point alone (and the guard checked its jet)
    residual(BURGERS[0], lambda x: model(x), **BURGERS[1])(X[:, :2])
    assert tested == [1]


def test_autograph_leaves_the_residual_unconverted_inside_a_callers_tf_function(monkeypatch):
    from tensorflow.python.autograph.impl import api

    converted = []
    real = api._convert_actual
    monkeypatch.setattr(api, "_convert_actual", lambda entity, ctx: converted.append(entity) or real(entity, ctx))
    r = residual(BURGERS[0], dense("tanh", widths=(2, 8, 1)), **BURGERS[1])

    @tf.function
    def step(points):
        return tf.reduce_mean(r(points) ** 2)

    step(X[:, :2])
    assert converted and not [e for e in converted if "Residual" in getattr(e, "__qualname__", "")], converted


def _burgers_by_nested_tapes(model, x):
    """Burgers' residual by hand: two tapes around the model, nothing of gradlib."""
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = model(x)[:, 0]
        du = inner.gradient(u, x)
        u_x = du[:, 0]
    u_xx = outer.gradient(u_x, x)[:, 0]
    return du[:, 1] + u * u_x - 0.01 * u_xx


def test_a_gradient_penalty_differentiates_the_tanh_layers_written_out_pass_again():
    """The jet's tanh layers take a written-out pass back (tf.custom_gradient): a step that differentiates the weight
    gradient once more (a gradient penalty) must get what nested tapes give."""
    model = dense("tanh", widths=(2, 16, 16, 1))
    x = X[:, :2]
    burgers = residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"), constants={"nu": 0.01})
    assert jet_kernels(model, burgers.plan)
    results = []
    for computed in (burgers, lambda z: _burgers_by_nested_tapes(model, z)):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                loss = tf.reduce_mean(computed(x) ** 2)
            penalty = tf.add_n([tf.reduce_sum(g ** 2) for g in inner.gradient(loss, model.trainable_variables)])
        results.append([g.numpy() for g in outer.gradient(penalty, model.trainable_variables)])
    assert max(np.abs(g).max() for g in results[1]) > 1e-3
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)
