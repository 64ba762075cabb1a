"""Every exact second-order method side by side on one vector field whose Hessians, Jacobian and divergence are
written out by hand, in float64 and float32, and the forms a user brings (xs of several shapes, a sample of several
axes, a ``tf.function``) against nested tapes and float64 finite differences written here.

``field`` maps each sample ``(a, b)`` to ``[exp(a b), tanh(a) sin(b)]``: its Jacobian is not diagonal (so a
divergence that summed every entry of it, or took the wrong output's derivative, is caught) and its Hessians have
cross terms (so a diagonal taken off the wrong axis, or a Laplacian of the wrong output, is caught).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf

import gradlib

TAPES = ("nested_tapes", "loop", "forward_over_reverse")
X = np.array([[0.3, -0.8], [1.1, 0.4], [-0.6, 1.7]])


def field(x):
    a, b = x[:, 0], x[:, 1]
    return tf.stack([tf.exp(a * b), tf.tanh(a) * tf.sin(b)], axis=1)


def closed_form(x):
    """``(y, jacobian, hessians)`` of ``field``: ``(B, 2)``, ``(B, 2, 2)``, ``(B, 2, 2, 2)``."""
    a, b = x[:, 0], x[:, 1]
    e, t = np.exp(a * b), np.tanh(a)
    t1, t2 = 1 - t ** 2, -2 * t * (1 - t ** 2)
    y = np.stack([e, t * np.sin(b)], axis=1)
    jac = np.stack([np.stack([b * e, a * e], 1), np.stack([t1 * np.sin(b), t * np.cos(b)], 1)], axis=1)
    h0 = np.stack([np.stack([b * b * e, (1 + a * b) * e], 1), np.stack([(1 + a * b) * e, a * a * e], 1)], 1)
    h1 = np.stack([np.stack([t2 * np.sin(b), t1 * np.cos(b)], 1), np.stack([t1 * np.cos(b), -t * np.sin(b)], 1)], 1)
    return y, jac, np.stack([h0, h1], axis=1)


Y, JAC, HESS = closed_form(X)


@pytest.fixture(scope="module")
def by_method():
    """Each tape method's Hessians and divergence of ``field`` (float64), and its Laplacians in float32."""
    x32 = X.astype(np.float32)
    return {m: (gradlib.per_sample_hessians(field, X, method=m), gradlib.divergence(field, X, method=m),
                gradlib.laplacian(field, x32, method=m)) for m in TAPES}


@pytest.mark.parametrize("method", TAPES)
def test_each_method_s_hessians_jacobian_and_y_equal_the_closed_form(by_method, method):
    r = by_method[method][0]
    assert r.method == method and r.hessians.shape == (3, 2, 2, 2)
    np.testing.assert_allclose(r.hessians, HESS, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.diagonal, np.diagonal(HESS, axis1=2, axis2=3), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.jacobian, JAC, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.y, Y, rtol=1e-14)
    assert r.row_labels == ("y[0]", "y[1]") and r.col_labels == ("x[0]", "x[1]")


@pytest.mark.parametrize("method", TAPES)
def test_each_method_s_divergence_is_the_trace_of_the_jacobian_not_its_sum(by_method, method):
    r = by_method[method][1]
    np.testing.assert_allclose(r.divergence, np.trace(JAC, axis1=1, axis2=2), rtol=1e-12)
    assert np.abs(JAC.sum(axis=(1, 2)) - np.trace(JAC, axis1=1, axis2=2)).min() > 0.1   # the two differ here
    assert r.standard_error is None and r.probes == 0 and r.y.shape == X.shape


@pytest.mark.parametrize("method", TAPES)
def test_each_method_in_float32_is_within_float32_rounding_of_the_float64_closed_form(by_method, method):
    r = by_method[method][2]
    assert r.laplacian.dtype == np.float32 and r.method == method
    np.testing.assert_allclose(r.laplacian, np.trace(HESS, axis1=2, axis2=3), rtol=2e-5, atol=2e-6)


def test_the_methods_agree_with_each_other_to_rounding(by_method):
    hessians = [by_method[m][0].hessians for m in TAPES]
    divergences = [by_method[m][1].divergence for m in TAPES]
    for h, d in zip(hessians[1:], divergences[1:]):
        np.testing.assert_allclose(h, hessians[0], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(d, divergences[0], rtol=1e-13)


# ---------------------------------------------------------------- hessians and hvp: xs of several shapes


W0 = np.array([[0.4, -0.3], [0.9, 0.2]])
V0 = np.array([0.7, -1.1])


def two_tensors(xs):
    """A function of a matrix and a vector: [sum(tanh(W v)), (W[0, 0] v[1])^2]."""
    w, v = xs
    return tf.stack([tf.reduce_sum(tf.tanh(tf.linalg.matvec(w, v))), (w[0, 0] * v[1]) ** 2])


def nested_tape_hessians(fn, w, v):
    """Per output, nested plain tapes over one vector of W's and v's elements, split inside the tapes."""
    z = tf.constant(np.concatenate([w.reshape(-1), v]))
    out = []
    for k in range(2):
        with tf.GradientTape() as outer:
            outer.watch(z)
            with tf.GradientTape() as inner:
                inner.watch(z)
                y_k = fn([tf.reshape(z[:4], (2, 2)), z[4:]])[k]
            g = inner.gradient(y_k, z)
        out.append(outer.jacobian(g, z).numpy())
    return np.array(out)


def gradient_of(fn, k, z):
    z = tf.constant(z)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y_k = fn([tf.reshape(z[:4], (2, 2)), z[4:]])[k]
    return tape.gradient(y_k, z).numpy()


@functools.cache
def reference():
    """The nested-tape Hessians every method is held to, computed once a session when a test first asks
    (not at import: collection stays free of TensorFlow work); read-only, as it is shared."""
    h = nested_tape_hessians(two_tensors, W0, V0)
    h.flags.writeable = False
    return h


@pytest.mark.parametrize("method", TAPES)
def test_hessians_of_a_matrix_and_a_vector_lay_out_their_elements_in_order(method):
    r = gradlib.hessians(two_tensors, [tf.constant(W0), tf.constant(V0)], method=method)
    assert r.col_labels == ("x0[0,0]", "x0[0,1]", "x0[1,0]", "x0[1,1]", "x1[0]", "x1[1]")
    np.testing.assert_allclose(r.hessian, reference(), rtol=1e-12, atol=1e-14)
    assert r.hessian[1, 0, 5] == pytest.approx(4 * W0[0, 0] * V0[1], rel=1e-12)   # d2/dW00 dv1 of (W00 v1)^2
    np.testing.assert_allclose(r.hessian, np.swapaxes(r.hessian, 1, 2), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("method", ["forward_over_reverse", "reverse_over_reverse"])
def test_hvp_equals_float64_central_differences_of_the_gradient(method):
    dw, dv = np.array([[1.0, -0.5], [0.25, 2.0]]), np.array([-1.0, 0.5])
    r = gradlib.hvp(two_tensors, [tf.constant(W0), tf.constant(V0)], [tf.constant(dw), tf.constant(dv)],
                    method=method)
    z, t, h = np.concatenate([W0.reshape(-1), V0]), np.concatenate([dw.reshape(-1), dv]), 1e-5
    differences = np.array([(gradient_of(two_tensors, k, z + h * t) - gradient_of(two_tensors, k, z - h * t)) / (2 * h)
                            for k in range(2)])
    np.testing.assert_allclose(r.hvp, differences, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(r.hvp, reference() @ t, rtol=1e-12, atol=1e-14)
    assert r.method == method and r.hvp.shape == (2, 6)


# ---------------------------------------------------------------- what users bring: a sample of several axes, tf.function


def test_a_sample_of_several_axes_gets_its_divergence_and_laplacian_over_all_its_elements():
    x = np.linspace(-1.0, 1.0, 8).reshape(2, 2, 2)

    def swirl(v):   # (B, 2, 2) -> (B, 2, 2): each element times its transposed neighbour, a non-diagonal Jacobian
        return v * tf.transpose(v, (0, 2, 1)) + tf.sin(v)

    flat = x.reshape(2, 4)
    transposed = np.transpose(x, (0, 2, 1)).reshape(2, 4)
    # d(v_ij v_ji)/dv_ij is 2 v_ii on the diagonal and v_ji off it; plus cos(v)
    on_diagonal = np.array([[1, 0, 0, 1]] * 2, bool)
    expected = np.where(on_diagonal, 2 * flat, transposed).sum(axis=1) + np.cos(flat).sum(axis=1)
    for method in ("auto", "loop"):
        r = gradlib.divergence(swirl, x, method=method)
        np.testing.assert_allclose(r.divergence, expected, rtol=1e-12)
        assert r.y.shape == (2, 2, 2)
    lap = gradlib.laplacian(lambda v: tf.reduce_sum(tf.sin(v) * v, axis=(1, 2))[:, None], x)
    np.testing.assert_allclose(lap.laplacian[:, 0], (2 * np.cos(flat) - flat * np.sin(flat)).sum(axis=1), rtol=1e-12)


def cubes(x):
    return tf.reduce_sum(x ** 3, axis=-1, keepdims=True) + x[:, :1] * x[:, 1:2]


@pytest.mark.parametrize("method", ["auto", "nested_tapes", "forward_over_reverse", "hutchinson"])
def test_a_tf_function_of_any_batch_is_differentiated_as_the_plain_function(method):
    wrapped = tf.function(cubes)
    x = X[:, :2]
    r = gradlib.laplacian(wrapped, x, method=method)
    exact = 6 * x.sum(axis=1)   # x0 x1 adds nothing to the trace
    if method == "hutchinson":   # but 2 v0 v1 to each probe's v^T H v: an estimate, within its standard error
        assert (r.standard_error > 0).all() and r.probes == 64
        assert (np.abs(r.laplacian[:, 0] - exact) < 5 * r.standard_error[:, 0]).all()
    else:
        np.testing.assert_allclose(r.laplacian[:, 0], exact, rtol=1e-12)
    h = gradlib.per_sample_hessians(wrapped, x, method="loop" if method == "hutchinson" else method)
    np.testing.assert_allclose(h.hessians[:, 0], [np.diag(6 * s) + [[0, 1], [1, 0]] for s in x], rtol=1e-12)


def test_a_tf_function_with_a_fixed_batch_in_its_signature_is_refused_on_the_one_sample_check():
    fixed = tf.function(cubes, input_signature=[tf.TensorSpec((3, 2), tf.float64)])
    np.testing.assert_allclose(fixed(X[:, :2]).numpy(), cubes(tf.constant(X[:, :2])).numpy())   # it runs on (3, 2)
    with pytest.raises(gradlib.GradlibError, match=r"^laplacian: fn failed on a batch of shape \(1, 2\): TypeError: "
                                                   r"Binding inputs to tf\.function failed"):
        gradlib.laplacian(fixed, X[:, :2])
    # hessians calls it on the xs given, as given: the signature holds
    r = gradlib.hessians(lambda v: fixed(v), tf.constant(X[:, :2]))
    assert r.hessian.shape == (3, 6, 6)
    np.testing.assert_allclose(r.hessian[0, :2, :2], np.diag(6 * X[0, :2]) + [[0, 1], [1, 0]], rtol=1e-12)


def test_hvp_of_a_keras_model_with_named_outputs_labels_its_rows_by_output_name():
    import keras

    keras.utils.set_random_seed(15)
    i = keras.Input((2,), dtype="float64")
    h = keras.layers.Dense(3, activation="tanh", dtype="float64")(i)
    model = keras.Model(i, [keras.layers.Dense(1, name="price", dtype="float64")(h),
                            keras.layers.Dense(2, activation="softplus", name="kind", dtype="float64")(h)])
    x, v = tf.constant([[0.3, -0.2]], tf.float64), np.array([1.0, 2.0])
    expected = []
    for k in range(3):   # nested plain tapes on each element of the joined outputs
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y_k = tf.concat(model(x), axis=1)[0, k]
            g = inner.gradient(y_k, x)
        expected.append(outer.jacobian(g, x)[0, :, 0, :].numpy() @ v)
    r = gradlib.hvp(model, x, tf.constant([v]))
    assert r.row_labels == ("price[0,0]", "kind[0,0]", "kind[0,1]") and r.col_labels == ("x[0,0]", "x[0,1]")
    np.testing.assert_allclose(r.hvp, expected, rtol=1e-12, atol=1e-15)
