"""gradlib.hessians and gradlib.hvp against closed forms and TensorFlow's own graph-mode ``tf.hessians``."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib

EXACT = ("nested_tapes", "loop", "forward_over_reverse")
SEED_H0 = [[0, 5, 4], [5, 0, 3], [4, 3, 0]]
SEED_H1 = [[40, 30, 24], [30, 0, 9], [24, 9, 0]]


def seed_fn(x):
    return tf.stack([x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]])


@pytest.mark.parametrize("method", ("auto",) + EXACT)
def test_the_seed_an_order_higher(method):
    x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
    r = gradlib.hessians(seed_fn, x, method=method)
    np.testing.assert_array_equal(r.hessian, [SEED_H0, SEED_H1])
    np.testing.assert_array_equal(r.jacobian, [[20, 15, 12], [120, 45, 36]])
    np.testing.assert_array_equal(r.y, [60, 180])
    assert r.col_labels == ("x0", "x1", "x2") and r.row_labels == ("y[0]", "y[1]")
    assert r.method in EXACT and (method == "auto" or r.method == method)
    frame = r.to_frame()
    assert len(frame) == 18
    assert frame.query("output == 'y[1]' and input_i == 'x0' and input_j == 'x1'").value.item() == 30


def _closed_form(x):
    """f(a, b) = [sin(a) exp(b), a^2 b^3] and its Hessians written out by hand."""
    a, b = x
    return np.array([[[-np.sin(a) * np.exp(b), np.cos(a) * np.exp(b)], [np.cos(a) * np.exp(b), np.sin(a) * np.exp(b)]],
                     [[2 * b ** 3, 6 * a * b ** 2], [6 * a * b ** 2, 6 * a * a * b]]])


@pytest.mark.parametrize("method, dtype, rtol", [(m, tf.float64, 1e-9) for m in EXACT] + [("auto", tf.float32, 2e-4)])
def test_a_closed_form_in_both_precisions(method, dtype, rtol):
    x = np.array([0.7, -1.3])
    r = gradlib.hessians(lambda v: tf.stack([tf.sin(v[0]) * tf.exp(v[1]), v[0] ** 2 * v[1] ** 3]),
                         tf.constant(x, dtype), method=method)
    np.testing.assert_allclose(r.hessian, _closed_form(x), rtol=rtol, atol=rtol * 1e-2)
    assert r.hessian.dtype == dtype.as_numpy_dtype


def test_a_dict_of_tensors_gives_named_columns_in_order():
    xs = {"a": tf.constant([1.0, 2.0], tf.float64), "b": tf.constant(3.0, tf.float64)}
    r = gradlib.hessians(lambda d: d["a"] ** 2 * d["b"], xs)
    assert r.col_labels == ("a[0]", "a[1]", "b")
    # y1 = a1^2 b: d2/da1^2 = 2b = 6, d2/da1 db = 2 a1 = 4
    np.testing.assert_array_equal(r.hessian[1], [[0, 0, 0], [0, 6, 4], [0, 4, 0]])


def test_against_tensorflow_s_own_graph_mode_hessians():
    rng = np.random.default_rng(0)
    w = tf.constant(rng.normal(size=(4, 3)))
    x = tf.constant(rng.normal(size=4))

    def f(v):
        return tf.reduce_sum(tf.tanh(tf.linalg.matvec(w, v, transpose_a=True)) ** 2)

    @tf.function
    def reference(v):
        return tf.hessians(f(v), v)[0]

    r = gradlib.hessians(f, x)
    np.testing.assert_allclose(r.hessian[0], reference(x).numpy(), rtol=1e-9, atol=1e-12)


def test_pfor_failing_on_tf_cond_falls_back_and_says_so():
    # tensorflow#108936: the nested batch_jacobian of a function with tf.cond cannot be vectorized in a graph
    r = gradlib.hessians(lambda x: tf.cond(x[0] > 0, lambda: x * x * x, lambda: x * x), tf.constant([0.5, 2.0]),
                         method="nested_tapes")
    np.testing.assert_allclose(r.hessian, [[[3, 0], [0, 0]], [[0, 0], [0, 12]]])
    assert any("tensorflow#108936" in w and "while_loop" in w for w in r.warnings)


def test_a_hessian_over_the_limit_is_refused_with_both_numbers():
    small = gradlib.Limits(max_hessian=10)
    with pytest.raises(gradlib.ExpressionError, match=r"would return 18 second-order entries .*at most 10 are allowed"):
        gradlib.hessians(seed_fn, [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)], limits=small)


def test_integer_inputs_and_bad_methods_are_refused():
    with pytest.raises(gradlib.InputError, match=r"requires floating-point inputs, but xs is int32"):
        gradlib.hessians(lambda x: x * x, tf.constant([1, 2]))
    with pytest.raises(gradlib.ExpressionError, match=r"hessians got method='hutchinson'; choose one of auto, "):
        gradlib.hessians(lambda x: x * x, tf.constant([1.0, 2.0]), method="hutchinson")


def test_a_function_returning_an_empty_tensor_is_refused_for_what_it_is():
    # it was refused as "fn failed when hessians traced it ...: IndexError: list index out of range"
    with pytest.raises(gradlib.GradlibError, match=r"hessians: fn returned an empty tensor \(shape \(0,\)\): there is "
                                                   "no element to differentiate"):
        gradlib.hessians(lambda x: x[:0] * x[:0], tf.constant([1.0, 2.0]))


def test_a_piecewise_linear_function_is_named_for_its_zero_hessian():
    r = gradlib.hessians(lambda x: tf.nn.relu(x) * 3.0, tf.constant([1.0, -2.0]))
    assert not r.hessian.any()
    assert any("exactly 0 everywhere" in w and "piecewise linear" in w for w in r.warnings)


@pytest.mark.parametrize("method", gradlib.SECOND_METHODS[:1] + ("forward_over_reverse", "reverse_over_reverse"))
def test_hvp_equals_the_closed_form_hessian_times_v(method):
    x, v = np.array([0.7, -1.3]), np.array([0.25, -2.0])
    r = gradlib.hvp(lambda u: tf.stack([tf.sin(u[0]) * tf.exp(u[1]), u[0] ** 2 * u[1] ** 3]), tf.constant(x),
                    tf.constant(v), method=method)
    np.testing.assert_allclose(r.hvp, _closed_form(x) @ v, rtol=1e-9)
    # the rows are y's elements, the columns x's (mutation run: no test read these labels)
    assert r.row_labels == ("y[0]", "y[1]") and r.col_labels == ("x[0]", "x[1]")


def test_hvp_needs_vs_shaped_like_xs():
    with pytest.raises(gradlib.InputError, match=r"hvp needs vs in the same form and shapes as xs"):
        gradlib.hvp(lambda x: x * x, tf.constant([1.0, 2.0]), tf.constant([1.0]))


def test_hvp_over_the_limits_is_refused_with_both_numbers():
    with pytest.raises(gradlib.ExpressionError, match=r"hvp writes one pass per output element into its graph: 3 "
                                                      r"here, and at most 2 are allowed"):
        gradlib.hvp(lambda x: x * x, tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 0.0, 0.0]),
                    limits=gradlib.Limits(max_unrolled=2))


def _dense(units: int):
    import keras

    keras.utils.set_random_seed(7)
    return keras.Sequential([keras.Input((2,), dtype="float64"), keras.layers.Dense(units, activation="tanh",
                                                                                    dtype="float64")])


def _whole_batch_hessian(fn, x):
    """Nested plain tapes on the whole batch as one function: the Hessian of each element of fn(x)."""
    x = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reshape(fn(x), (-1,))
        jac = tf.reshape(inner.jacobian(y, x), (y.shape[0], -1))
    return tf.reshape(outer.jacobian(jac, x), (y.shape[0], jac.shape[1], jac.shape[1])).numpy()


def test_a_dense_sequential_s_hessian_is_bounded_by_its_real_output_at_the_last_good_and_first_bad_value():
    # a (3, 2) batch through Dense(4): 12 outputs of 6 inputs, 12 x 6 x 6 = 432 entries (the last kernel's 4 units
    # per sample read as the output made it 144: a (50, 2) batch into Dense(50) ran for minutes past the limit)
    model, x = _dense(4), np.random.default_rng(1).normal(size=(3, 2))
    r = gradlib.hessians(model, x, limits=gradlib.Limits(max_hessian=432))
    assert r.hessian.shape == (12, 6, 6) and r.hessian.size == 432   # what is allocated at the limit is the limit
    np.testing.assert_allclose(r.hessian, _whole_batch_hessian(model, x), rtol=1e-9, atol=1e-12)
    with pytest.raises(gradlib.ExpressionError, match=r"hessians would return 432 second-order entries \(1 x 12 "
                                                      r"outputs x 6 x 6 inputs\); at most 431 are allowed"):
        gradlib.hessians(model, x, limits=gradlib.Limits(max_hessian=431))
    with pytest.raises(gradlib.ExpressionError, match=r"would return 25,000,000 second-order entries .* at most "
                                                      r"4,000,000"):
        gradlib.hessians(_dense(50), np.zeros((50, 2)))


def test_a_dense_sequential_s_cost_says_its_sizes_are_guessed_when_hessians_joins_its_batch_into_one_sample():
    # the kernels are per row of the model's batch; hessians' one sample is the whole (3, 2) batch
    assert "sizes guessed" in gradlib.hessians(_dense(4), np.ones((3, 2))).cost
    assert "sizes guessed" not in gradlib.hessians(_dense(4), np.ones((1, 2))).cost
