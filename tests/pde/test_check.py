"""gradlib.pde.check: the eager checks, once: points that mix, NaN, a piecewise-linear network's zero u_xx."""

from __future__ import annotations

import pytest
import tensorflow as tf

from gradlib import GradlibError, InputError
from gradlib.pde import PdeCheck, check, derivatives
from test_derivatives import X, mlp, wave


def test_a_smooth_network_that_keeps_points_apart_passes():
    model, _ = mlp()
    found = check(model, X)
    assert isinstance(found, PdeCheck) and found.ok and found.findings == ()
    assert (found.points, found.coords, found.outputs, found.independent, found.finite, found.flat) == (
        4, ("x", "t"), ("u",), True, True, ())


def test_a_model_that_mixes_points_is_found_and_its_derivatives_are_indeed_not_each_point_s():
    def centred(x):   # each point's output depends on the batch's mean: BatchNormalization's way
        return tf.tanh(x[:, :1] - tf.reduce_mean(x[:, :1], axis=0)) * x[:, 1:]

    found = check(centred, X)
    assert not found.independent and not found.ok
    assert found.findings[0].startswith("the samples of the batch are not independent: the input of sample ")
    assert "gradlib.pde takes each point's derivative as the gradient of a sum over the points" in found.findings[0]
    # what the finding warns of: the batched u_x is not the point's own (point 0 alone gives another number)
    alone = derivatives(centred, X[:1], want=["u_x"])["u_x"]
    together = derivatives(centred, X, want=["u_x"])["u_x"][:1]
    assert abs(float(alone[0] - together[0])) > 1e-3


def scaled_by_the_batch(x):   # a batch statistic under stop_gradient: the projection cannot see it mix
    return tf.tanh(x[:, :1] / tf.stop_gradient(tf.math.reduce_std(x[:, :1], axis=0) + 0.1)) * x[:, 1:]


def test_points_that_mix_through_a_statistic_under_stop_gradient_are_found():
    """The backward projection passed this model, and gradlib.pde answered the batch's u_x as each point's
    (pde.check said independent=True); with the other points moved, point 0's value and u_x change."""
    found = check(scaled_by_the_batch, X)
    assert not found.independent and not found.ok
    assert found.findings[0].startswith("the samples of the batch are not independent: when the other samples "
                                        "move, sample 0's derivatives change (")
    alone = derivatives(scaled_by_the_batch, X[:2], want=["u_x"])["u_x"][:1]
    together = derivatives(scaled_by_the_batch, X, want=["u_x"])["u_x"][:1]
    assert abs(float(alone[0] - together[0])) > 1e-3   # what the finding warns of
    pair = check(lambda x: tf.sin(x[:, :1]) * tf.stop_gradient(tf.concat([x[:1, 1:] * 0 + 1, x[:-1, 1:]], 0)),
                 X[:2])   # of two points, the second reads the first
    assert not pair.independent and "sample 1's derivatives change" in pair.findings[0]


def test_a_value_that_moves_with_the_points_but_not_its_derivatives_is_not_mixing():
    shifted = lambda x: tf.tanh(x[:, :1]) * x[:, 1:] - tf.stop_gradient(tf.reduce_mean(x[:, :1]))  # noqa: E731
    found = check(shifted, X)
    assert found.independent, found.findings


def test_nan_is_found_with_its_name_and_first_point():
    found = check(lambda x: tf.sqrt(x[:, :1]) * x[:, 1:], X)   # point 2 has x = -0.7
    assert not found.finite
    assert found.findings == ("u, u_x, u_t, u_xx, u_tt are NaN or infinite at 1 of 4 points (the first: point 2, at "
                              "x = -0.7, t = 0.5); a loss built on them is NaN too",)
    # a finite u with an infinite slope at x = 0: its derivatives are NaN there (u_tt too, as TensorFlow computes it)
    found = check(lambda x: tf.sqrt(tf.abs(x[:, :1])) * x[:, 1:], tf.constant([[1.0, 1.0], [0.0, 2.0]]))
    assert found.findings == ("u_x, u_xx, u_tt are NaN or infinite at 1 of 2 points (the first: point 1, at x = 0, "
                              "t = 2); a loss built on them is NaN too",)


def test_a_relu_network_s_zero_second_derivatives_are_said_to_be_so():
    model, _ = mlp(activation=tf.nn.relu)
    found = check(model, X)
    assert found.flat == ("u",)
    assert found.findings == (
        "every second derivative of u (u_xx, u_tt) is exactly 0 at all 4 points: u is piecewise linear in the "
        "coordinates (a ReLU network, or one without activation), so its second derivatives are 0 wherever they "
        "exist and a residual that uses them cannot train it. Use a smooth activation (tanh, sin, softplus); if "
        "the solution is linear, this is its true answer",)
    assert check(wave, X).flat == ()


def test_several_outputs_are_checked_each():
    found = check(lambda x: tf.concat([tf.sin(x), x[:, :1] + x[:, 1:]], axis=1), X, coords=("x", "y"),
                  outputs=("u", "v", "p"))
    assert found.independent and found.finite and found.flat == ("p",)


def test_it_refuses_to_run_inside_tf_function_and_what_derivatives_refuse():
    @tf.function
    def inside(x):
        return check(wave, x).ok

    with pytest.raises(GradlibError, match=r"gradlib.pde.check reads numbers, so it runs eagerly"):
        inside(X)
    with pytest.raises(InputError, match=r"gradlib.pde.check: x has 3 columns but coords names 2"):
        check(wave, tf.zeros((2, 3)))


def boundary_ansatz(x, power: int = 1):
    """A PINN's hard boundary ansatz u = (x (1 - x))^power N(x, t), N reading the points' mean x under stop_gradient:
    0 at x = 0 and x = 1 whatever the points, while its derivatives there move with N."""
    xs = x[:, :1]
    return (xs * (1 - xs)) ** power * tf.tanh(2 * xs + x[:, 1:] - tf.stop_gradient(tf.reduce_mean(xs)))


#: the first, middle and last points on the boundary x = 0 or 1 (the old held pass compared the first and last)
EDGES = tf.constant([[0.0, 0.2], [0.3, 0.5], [1.0, 0.1], [0.7, 0.9], [0.0, 0.6]], tf.float64)


def test_a_boundary_point_whose_value_stays_while_its_derivatives_move_is_found():
    """Hunt 59: the held pass compared values, which the ansatz keeps at 0 on the boundary, and pde.check said
    independent while u_x at point 0 was tanh(0.2 - 0.4) = -0.1974 among these points and tanh(0.2) = 0.1974
    alone (u_xx: -1.56 and -0.4)."""
    together = derivatives(boundary_ansatz, EDGES, want=["u_x"])["u_x"]
    alone = derivatives(boundary_ansatz, EDGES[:1], want=["u_x"])["u_x"]
    assert (float(together[0]), float(alone[0])) == (pytest.approx(-0.19738, abs=1e-5),
                                                      pytest.approx(0.19738, abs=1e-5))
    found = check(boundary_ansatz, EDGES)
    assert not found.independent
    assert found.findings[0].startswith("the samples of the batch are not independent: when the other samples "
                                        "move, sample 0's derivatives change (")
