"""gradlib.pde.residual: Burgers, heat and Poisson on tanh MLPs against per-point nested tapes in float64, exact
solutions giving 0, weight gradients of the mean-square loss eagerly and in tf.function, and every refusal."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from gradlib import BatchMixingError, ExpressionError, InputError
from gradlib.pde import Residual, residual
from test_derivatives import X, mlp, point_reference, wave

NU = 0.0032


def burgers_reference(model, x):
    """u_t + u u_x - nu u_xx, each point on its own (nested tapes)."""
    u, g, h = point_reference(model, x)
    return g[:, 1] + u * g[:, 0] - NU * h[:, 0, 0]


def test_burgers_on_a_tanh_network_matches_nested_tapes_point_by_point():
    model, _ = mlp()
    burgers = residual("u_t + u*u_x - nu*u_xx", model, coords=("x", "t"), outputs=("u",), constants={"nu": NU})
    assert isinstance(burgers, Residual) and burgers.derivatives == ("u_t", "u", "u_x", "u_xx")
    r = burgers(X)
    assert r.shape == (4,) and r.dtype == tf.float64
    np.testing.assert_allclose(r.numpy(), burgers_reference(model, X).numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("text, coords, reference, passes", [
    # heat in 2-D + t: the Laplacian along x and y only (u's pass, then u_x's and u_y's: not t's)
    ("u_t - 0.5*(u_xx + u_yy)", ("x", "y", "t"), lambda u, g, h: g[:, 2] - 0.5 * (h[:, 0, 0] + h[:, 1, 1]), 3),
    # Poisson in 3-D with a source written in the coordinates
    ("u_xx + u_yy + u_zz - sin(x)*y + z**2", ("x", "y", "z"),
     lambda u, g, h, x=None: h[:, 0, 0] + h[:, 1, 1] + h[:, 2, 2], 4),
])
def test_heat_and_poisson_on_tanh_networks(text, coords, reference, passes):
    model, _ = mlp(widths=(3, 16, 16, 1), seed=1)
    x = tf.random.stateless_uniform((6, 3), seed=(4, 5), minval=-1, maxval=1, dtype=tf.float64)
    r = residual(text, model, coords=coords)
    assert r.plan.passes == passes
    expected = reference(*point_reference(model, x))
    if "sin" in text:
        expected += -tf.sin(x[:, 0]) * x[:, 1] + x[:, 2] ** 2
    np.testing.assert_allclose(r(x).numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("text, model, coords, outputs", [
    ("u_t - nu*u_xx", wave, ("x", "t"), ("u",)),                                      # heat: sin(x) exp(-t)
    ("u_xx + u_yy + u_zz + 3*u", lambda x: tf.reduce_prod(tf.sin(x), axis=1), ("x", "y", "z"), ("u",)),
    ("u_x + v_y", lambda x: tf.stack([tf.sin(x[:, 0]) * tf.cos(x[:, 1]), -tf.cos(x[:, 0]) * tf.sin(x[:, 1]),
                                      x[:, 0] * 0], axis=1), ("x", "y"), ("u", "v", "p")),   # incompressible flow
    ("u_tt - u_xxxx", lambda x: tf.sin(x[:, :1]) * tf.exp(x[:, 1:]), ("x", "t"), ("u",)),   # order 4
])
def test_an_exact_solution_has_a_zero_residual(text, model, coords, outputs):
    x = tf.random.stateless_uniform((5, len(coords)), seed=(7, 8), minval=-2, maxval=2, dtype=tf.float64)
    r = residual(text, model, coords=coords, outputs=outputs, constants={"nu": 1.0})
    np.testing.assert_allclose(r(x).numpy(), 0, atol=1e-12)


def test_weight_gradients_of_the_mean_square_residual_equal_nested_tapes_eagerly_and_in_tf_function():
    model, variables = mlp()
    burgers = residual("u_t + u*u_x - nu*u_xx", model, constants={"nu": NU})
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(burgers_reference(model, X) ** 2)
    expected = tape.gradient(loss, variables)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(burgers(X) ** 2)
    eager = tape.gradient(loss, variables)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(burgers(x) ** 2)
        return tape.gradient(loss, variables)

    for got in (eager, step(X)):
        assert all(g is not None for g in got)
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-14)


def test_a_learned_constant_gets_its_gradient():
    model, _ = mlp()
    nu = tf.Variable(0.01, dtype=tf.float64)
    burgers = residual("u_t + u*u_x - nu*u_xx", model, constants={"nu": nu})
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(burgers(X) ** 2)
    u, g, h = point_reference(model, X)
    r = g[:, 1] + u * g[:, 0] - 0.01 * h[:, 0, 0]
    expected = tf.reduce_mean(2 * r * -h[:, 0, 0])
    np.testing.assert_allclose(tape.gradient(loss, nu).numpy(), expected.numpy(), rtol=1e-10)


def test_it_is_traced_once_per_shape_family_not_per_call():
    traces = []

    def model(x):
        traces.append(1)   # Python runs only when the function is traced
        return wave(x)

    heat = residual("u_t - u_xx", model, check_independence=False)   # its test calls the model eagerly, once
    for n in (3, 3, 5, 7, 9):
        heat(tf.random.stateless_normal((n, 2), seed=(1, n), dtype=tf.float64))
    assert len(traces) <= 2


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("text, kwargs, match", [
    ("u_t + u*u_x - mu*u_xx", {}, r"unknown name 'mu' \(did you mean 'nu'\?\) \(column 15\)\. The residual's names "
                                  r"are the outputs \(u\), the coordinates \(x, t\), the constants \(nu\)"),
    ("u_t + w_x", {}, r"'w_x' names the output 'w', and the model's outputs are u.* \(column 7\)"),
    ("u_t + u_y", {}, r"'u_y' is not a derivative: after 'u_' come coordinates \(x, t\).* \(column 7\)"),
    ("u_t - u_xxxxx", {}, r"order 5; gradlib.pde computes orders up to 4.*\(column 7\)"),
    ("u_t - sum(u_xx)", {}, r"sum\(\) at column 7 is not computed point by point"),
    ("dot(u, u_x)", {}, r"dot\(\) at column 1 is not computed point by point"),
    ("[u_t, u_x]", {}, r"the residual gives shape \(2,\) at each point; it must give one number per point"),
    ("u_t; import os", {}, r"';' \(more than one statement\) at column 4"),
    ("__import__('os')", {}, r"quotes \(strings\) at column 12"),
    ("u_t +", {}, r"syntax error at column"),
    ("u_t - nu*u_xx", {"constants": {"x": 1.0}}, r"the constant 'x' is a coordinate's name"),
    ("u_t - nu*u_xx", {"constants": {"u_xx": 1.0}}, r"the constant 'u_xx' is a derivative's name"),
    ("u_t - nu*u_xx", {"constants": {"nu": float("nan")}}, r"the constant 'nu' is nan; give a finite real number"),
    ("u_t - nu*u_xx", {"constants": {"nu": True}}, r"the constant 'nu' is True"),
    ("u_t - nu*u_xx", {"constants": [("nu", 1)]}, r"constants must be a dict of name -> number"),
])
def test_a_bad_residual_is_refused_with_its_column_before_any_work(text, kwargs, match):
    calls = []
    with pytest.raises(ExpressionError, match=match):
        residual(text, lambda x: calls.append(1) or wave(x), **({"constants": {"nu": 0.1}} | kwargs))
    assert not calls


def test_points_that_do_not_fit_are_refused_at_the_call():
    heat = residual("u_t - u_xx", wave)
    with pytest.raises(InputError, match=r"x has 3 columns but coords names 2 \(x, t\)"):
        heat(tf.zeros((4, 3), tf.float64))
    with pytest.raises(InputError, match=r"x has dtype int32"):
        heat([[1, 2]])
    with pytest.raises(InputError, match=r"x holds no points"):
        heat(tf.zeros((0, 2)))
    big = residual("u_t - 1e39*u_xx", wave)
    with pytest.raises(ExpressionError, match=r"the number 1e39 at column 7 is larger than float32 can hold"):
        big(tf.zeros((2, 2)))
    assert big(tf.zeros((2, 2), tf.float64)).shape == (2,)


def test_a_refusal_inside_the_caller_s_tf_function_stays_gradlib_s_own_error():
    heat = residual("u_t - u_xx", wave)

    @tf.function
    def step(x):
        return tf.reduce_mean(heat(tf.cast(x, tf.int32)) ** 2)

    with pytest.raises(InputError, match=r"^gradlib.pde.residual: x has dtype int32"):
        step(X)


def centred(x):
    """Each point's u depends on the mean over the points (BatchNormalization's way of mixing them)."""
    return tf.tanh(x[:, :1] - tf.reduce_mean(x[:, :1], axis=0)) * x[:, 1:]


def test_the_first_eager_call_refuses_a_model_that_mixes_points_and_later_calls_do_not_test_again():
    with pytest.raises(BatchMixingError, match=r"^gradlib.pde.residual: the samples of the batch are not independent"
                                               r".*or pass check_independence=False to skip this test"):
        residual("u_t - u_xx", centred)(X)
    assert residual("u_t - u_xx", centred, check_independence=False)(X).shape == (4,)
    from test_check import scaled_by_the_batch   # mixing that only the pass with the other points moved sees
    with pytest.raises(BatchMixingError, match=r"when the other samples move, sample 0's derivatives change"
                                               r".*or pass check_independence=False"):
        residual("u_t - u_xx", scaled_by_the_batch)(X)
    calls = []
    heat = residual("u_t - u_xx", lambda x: calls.append(1) or wave(x))
    heat(X)
    first = len(calls)   # the test's one pass (its first derivatives and projection from one call), the points as
    heat(X)              # given and the two passes with the others moved (``_check._held_text``), and the trace
    assert first == 5 and len(calls) == first


def test_a_random_model_is_not_blamed_for_mixing_points_by_a_second_call():
    """Dropout with training=True draws per point, so the points are independent; on main the mixing test took the
    first derivatives from one call and the projection from another (another draw), and refused the model with
    BatchMixingError (residual) or a finding (check)."""
    import keras
    from gradlib.pde import check

    drop = keras.layers.Dropout(0.3)
    w = tf.constant(np.random.default_rng(0).standard_normal((2, 16)), tf.float32)
    v = tf.constant(np.random.default_rng(1).standard_normal((16, 1)), tf.float32)
    model = lambda x: tf.matmul(drop(tf.tanh(tf.matmul(x, w)), training=True), v)  # noqa: E731
    x = tf.constant(np.random.default_rng(2).uniform(-1, 1, (32, 2)), tf.float32)
    assert residual("u_t - u_xx", model)(x).shape == (32,)
    found = check(model, x)
    assert found.independent and not any("not independent" in f for f in found.findings), found.findings
    assert "not independent" in check(centred, X).findings[0]   # the one-call test still finds mixing


def test_a_third_derivative_that_moves_under_still_lower_ones_is_refused():
    """u = (x (1 - x))^3 N: at x = 0 and 1 the value, u_x and u_xx are 0 whatever N reads, and u_xxx = 6 N is not:
    the held pass compares the held points' derivatives up to the residual's own order (3 here). Before hunt 59
    residual answered u_xxx at point 0 as 6 tanh(0.2 - 0.4) = -1.184, where alone it is 6 tanh(0.2) = 1.184."""
    from test_check import EDGES, boundary_ansatz
    cubed = lambda x: boundary_ansatz(x, 3)   # noqa: E731
    assert float(residual("u_xxx", cubed, check_independence=False)(EDGES)[0]) == pytest.approx(-1.18425, abs=1e-4)
    assert float(residual("u_xxx", cubed)(EDGES[:1])[0]) == pytest.approx(1.18425, abs=1e-4)
    with pytest.raises(BatchMixingError, match=r"sample 0's derivatives change \(-1.184 in the batch as given"):
        residual("u_xxx", cubed)(EDGES)
    with pytest.raises(BatchMixingError, match=r"derivatives change"):   # held: 0 at every edge, not inside
        residual("u_xx", cubed)(EDGES)


def test_a_residual_first_called_inside_the_caller_s_tf_function_is_tested_too():
    """The guide's training step calls the residual only inside tf.function, where the points have no values: before
    hunt 59 the test ran on the first eager call only, so that step trained a model that mixes points on the batch's
    derivatives, silently. It now runs once, eagerly in a thread, at fixed points; an independent model passes."""
    heat = residual("u_t - u_xx", centred)
    with pytest.raises(BatchMixingError, match=r"^gradlib.pde.residual: the samples of the batch are not independent"
                                               r".*first called inside a tf.function"):
        tf.function(lambda x: heat(x))(X)
    from test_check import scaled_by_the_batch   # the moved batches' test runs there too
    with pytest.raises(BatchMixingError, match=r"derivatives change.*first called inside a tf.function"):
        tf.function(lambda x: residual("u_t - u_xx", scaled_by_the_batch)(x))(X)
    np.testing.assert_allclose(tf.function(lambda x: residual("u_t - u_xx", wave)(x))(X), 0.0, atol=1e-12)
