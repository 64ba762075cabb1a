"""gradlib.evaluate(..., order=2): typed functions' Hessians against closed forms and gradlib.hessians on the same
function written with tf ops; order=1 unchanged; the refusals pinned."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tensorflow as tf

import gradlib

SEED = "[x0*x1*x2, x0*x1*x2*x0]"
SEED_AT = {"x0": 3, "x1": 4, "x2": 5}


def test_the_seed_an_order_higher_as_text():
    r = gradlib.evaluate(SEED, SEED_AT, order=2)
    assert isinstance(r, gradlib.HessianResult)
    np.testing.assert_array_equal(r.hessian, [[[0, 5, 4], [5, 0, 3], [4, 3, 0]], [[40, 30, 24], [30, 0, 9], [24, 9, 0]]])
    np.testing.assert_array_equal(r.jacobian, [[20, 15, 12], [120, 45, 36]])
    np.testing.assert_array_equal(r.y, [60, 180])
    assert r.row_labels == ("y[0]", "y[1]") and r.col_labels == ("x0", "x1", "x2")


def test_order_1_is_the_first_order_evaluate_unchanged():
    first = gradlib.evaluate(SEED, SEED_AT)
    assert isinstance(first, gradlib.GradResult)
    np.testing.assert_array_equal(first.jacobian, [[20, 15, 12], [120, 45, 36]])
    explicit = gradlib.evaluate(SEED, SEED_AT, method="jacobian", order=1)
    np.testing.assert_array_equal(explicit.jacobian, first.jacobian)
    assert explicit.method == "jacobian"


def test_closed_form_of_sin_exp_and_powers_in_float64():
    a, b = 0.7, -0.4
    r = gradlib.evaluate("[sin(a) * exp(b), a**2 * b**3]", {"a": a, "b": b}, dtype="float64", order=2)
    want = [[[-np.sin(a) * np.exp(b), np.cos(a) * np.exp(b)], [np.cos(a) * np.exp(b), np.sin(a) * np.exp(b)]],
            [[2 * b ** 3, 6 * a * b ** 2], [6 * a * b ** 2, 6 * a * a * b]]]
    np.testing.assert_allclose(r.hessian, want, rtol=1e-12, atol=1e-14)


def test_vector_inputs_label_their_elements_and_the_hessian_is_diagonal():
    x = [0.5, -1.0, 2.0]
    r = gradlib.evaluate("sum(x**3) + log(c)", {"x": x, "c": 2.0}, watch=["x"], dtype="float64", order=2)
    np.testing.assert_allclose(r.hessian, [np.diag([6 * v for v in x])], rtol=1e-12)
    assert r.col_labels == ("x[0]", "x[1]", "x[2]") and r.hessian.shape == (1, 3, 3)


@pytest.mark.parametrize("text, fn", [
    ("tanh(W @ v)", lambda d: tf.tanh(tf.linalg.matvec(d["W"], d["v"]))),
    ("softplus(v) * sigmoid(v[0] * v)", lambda d: tf.nn.softplus(d["v"]) * tf.sigmoid(d["v"][0] * d["v"])),
    ("logsumexp(W @ v)", lambda d: tf.reduce_logsumexp(tf.linalg.matvec(d["W"], d["v"]))),
])
def test_language_operations_agree_with_hessians_of_the_same_function_in_tf_ops(text, fn):
    w, v = np.array([[0.3, -1.2], [0.8, 0.5]]), np.array([0.4, -0.9])
    typed = gradlib.evaluate(text, {"W": w, "v": v}, dtype="float64", order=2)
    reference = gradlib.hessians(fn, {"W": tf.constant(w), "v": tf.constant(v)}, method="nested_tapes")
    assert typed.col_labels == reference.col_labels
    assert np.abs(reference.hessian).max() > 0.1   # a Hessian of zeros would agree with anything
    np.testing.assert_allclose(typed.hessian, reference.hessian, rtol=1e-10, atol=1e-12)


def test_constants_are_not_frozen_into_a_stale_trace():
    # same text, shapes and dtypes, a different constant: a cache keyed without its value would answer 6 twice
    three = gradlib.evaluate("x * x * c", {"x": 1.0, "c": 3.0}, watch=["x"], order=2)
    five = gradlib.evaluate("x * x * c", {"x": 1.0, "c": 5.0}, watch=["x"], order=2)
    assert three.hessian.item() == 6.0 and five.hessian.item() == 10.0


def test_an_integer_constant_enters_cast_and_an_integer_watch_is_refused():
    r = gradlib.evaluate("x * x * n", {"x": 2.0, "n": 4}, watch=["x"], dtype={"x": "float32", "n": "int32"}, order=2)
    assert r.hessian.item() == 8.0
    with pytest.raises(gradlib.ExpressionError, match=r"cannot differentiate input 'n': it is int32.*leave it out"):
        gradlib.evaluate("x * x * n", {"x": 2.0, "n": 4}, dtype={"x": "float32", "n": "int32"}, order=2)


def test_warnings_of_the_text_are_kept():
    r = gradlib.evaluate("floor(x) * x", {"x": 1.5, "u": 1.0}, order=2)
    assert any("floor()" in w for w in r.warnings)
    assert any("'u'" in w and "do not appear" in w for w in r.warnings)


@pytest.mark.parametrize("order", [0, 3, 2.5, True, "2", 1.0, 2.0])
def test_other_orders_are_refused_with_the_orders_that_exist(order):
    with pytest.raises(gradlib.ExpressionError, match=r"evaluate got order=.*order=1 .*order=2 "):
        gradlib.evaluate("x*x", {"x": 1.0}, order=order)


def test_a_numpy_integer_order_is_an_order():
    assert gradlib.evaluate("x*x*x", {"x": 2.0}, order=np.int64(2)).hessian[0].tolist() == [[12.0]]


def test_options_of_the_other_order_are_refused():
    with pytest.raises(gradlib.ExpressionError, match=r"evaluate\(order=2\) got method='jacobian'; choose one of auto"):
        gradlib.evaluate("x*x", {"x": 1.0}, method="jacobian", order=2)
    with pytest.raises(gradlib.ExpressionError, match=r"evaluate\(order=2\) got compiled=True.*Leave compiled=None"):
        gradlib.evaluate("x*x", {"x": 1.0}, compiled=True, order=2)


def test_the_hessian_limit_gives_both_numbers():
    small = dataclasses.replace(gradlib.LIMITS, max_hessian=100)
    with pytest.raises(gradlib.ExpressionError, match=r"1,000.*at most 100 "):
        gradlib.evaluate("x * x", {"x": [1.0] * 10}, order=2, limits=small)


# ---------------------------------------------------------------- Pins (found by the sampled mutation run)


def test_every_watched_input_the_function_does_not_use_is_named_once():
    r = gradlib.evaluate("x0 * x0", {"x0": 1.0, "x1": 2.0, "x2": 3.0}, order=2)
    assert "watched input(s) 'x1', 'x2' do not appear in the function: their second derivatives are zero" in r.warnings


#: joins and broadcasts of operands of unequal sizes and shapes (issue 35, item 3, at second order)
UNEQUAL = ["concat([tanh(W @ x), x * x], axis=0)", "concat([W * x, reshape(x, [1, 4]) ** 3], axis=0)",
           "stack([W @ x, sin(W[:, :3] @ x[1:]), Q[:, 0] * x[0]], axis=1)", "sum(Q * x * x, axis=1)",
           "concat([transpose(W * Q), reshape(x * x, [4, 1])], axis=1)"]


@pytest.mark.parametrize("text", UNEQUAL)
def test_operands_of_unequal_sizes_give_the_hessians_of_nested_tapes(text):
    rng = np.random.default_rng(35)
    inputs = {"W": rng.standard_normal((3, 4)), "x": rng.standard_normal(4), "Q": rng.standard_normal((3, 1))}
    r = gradlib.evaluate(text, inputs, watch=["x"], dtype="float64", order=2)
    program = gradlib.evaluate(text, inputs, watch=["x"], dtype="float64")   # y, to count the elements
    consts = {k: tf.constant(v) for k, v in inputs.items() if k != "x"}
    expected = []
    for k in range(program.y.size):
        x = tf.constant(inputs["x"])
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y_k = tf.reshape(_reference(text, x, consts), [-1])[k]
            g = inner.gradient(y_k, x)
        expected.append(outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy())
    np.testing.assert_allclose(r.hessian, np.array(expected), rtol=1e-10, atol=1e-12)


def _reference(text, x, c):
    """The functions of UNEQUAL written with TensorFlow, by hand."""
    W, Q = c["W"], c["Q"]
    return {
        UNEQUAL[0]: lambda: tf.concat([tf.tanh(tf.linalg.matvec(W, x)), x * x], 0),
        UNEQUAL[1]: lambda: tf.concat([W * x, tf.reshape(x, [1, 4]) ** 3], 0),
        UNEQUAL[2]: lambda: tf.stack([tf.linalg.matvec(W, x), tf.sin(tf.linalg.matvec(W[:, :3], x[1:])),
                                      Q[:, 0] * x[0]], 1),
        UNEQUAL[3]: lambda: tf.reduce_sum(Q * x * x, axis=1),
        UNEQUAL[4]: lambda: tf.concat([tf.transpose(W * Q), tf.reshape(x * x, [4, 1])], 1),
    }[text]()
