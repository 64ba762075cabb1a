"""A variance from ``tf.nn.moments`` (Keras' LayerNormalization, GroupNormalization) has the right gradient and the
wrong Hessian: its ``stop_gradient`` on the mean. Every second-order API, ``gradlib.pde`` included, refuses it by name
instead of returning TensorFlow's numbers (found by issue hunt 42: ``laplacian`` of a sample's variance gave 2 where
it is 4/3, and of a Dense + LayerNormalization model, 0.6% off)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
import gradlib.pde

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float64)   # 2 samples of 3 values
N = X.shape[1]
#: the Hessian of a sample's (population) variance, by hand: 2/n (I - 11^T/n)
VARIANCE_HESSIAN = 2 / N * (np.eye(N) - 1 / N)
REFUSED = r"cannot take second derivatives of this fn: it computes a variance with tf.nn.moments \(op '.*StopGradient'"


def moments_variance(x):
    return tf.nn.moments(x, axes=[-1], keepdims=True)[1]


def plain_variance(x):
    return tf.reduce_mean(tf.square(x - tf.reduce_mean(x, axis=-1, keepdims=True)), axis=-1, keepdims=True)


def nested_tapes(fn, x):
    x = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(fn(x))
        g = inner.gradient(y, x)
    return outer.batch_jacobian(g, x).numpy()


def test_tensorflow_s_own_tapes_get_the_moments_variance_s_hessian_wrong_and_the_plain_one_right():
    np.testing.assert_allclose(nested_tapes(plain_variance, X), [VARIANCE_HESSIAN] * 2, rtol=1e-12, atol=1e-15)
    wrong = nested_tapes(moments_variance, X)
    np.testing.assert_allclose(wrong, [2 / N * np.eye(N)] * 2, rtol=1e-12)   # the cross terms through the mean lost


@pytest.mark.parametrize("api", ["per_sample_hessians", "laplacian"])
def test_a_plain_variance_gets_its_closed_form(api):
    r = getattr(gradlib, api)(plain_variance, X)
    got = r.hessians[:, 0] if api == "per_sample_hessians" else r.laplacian[:, 0]
    want = [VARIANCE_HESSIAN] * 2 if api == "per_sample_hessians" else np.full(2, np.trace(VARIANCE_HESSIAN))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("call", [
    lambda: gradlib.per_sample_hessians(moments_variance, X),
    lambda: gradlib.per_sample_hessians(moments_variance, X, diagonal=True, method="nested_tapes"),
    lambda: gradlib.laplacian(moments_variance, X, method="forward_over_reverse"),
    lambda: gradlib.hessians(lambda v: moments_variance(v[None])[0], tf.constant(X[0])),
    lambda: gradlib.hvp(lambda v: moments_variance(v[None])[0], tf.constant(X[0]), tf.constant(X[1])),
], ids=["per_sample_hessians", "diagonal", "laplacian", "hessians", "hvp"])
def test_every_second_order_api_refuses_the_moments_variance(call):
    with pytest.raises(gradlib.GradlibError, match=REFUSED):
        call()


def layer_norm_model():
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(4, activation="tanh"),
                             keras.layers.LayerNormalization(), keras.layers.Dense(1)])


def test_a_layer_normalization_model_is_refused_naming_the_layer_and_its_first_derivatives_still_given():
    model = layer_norm_model()
    x = tf.constant(X[:, :2], tf.float32)
    with pytest.raises(gradlib.GradlibError, match=r"^laplacian cannot .*layer_normalization.*moments/StopGradient"):
        gradlib.laplacian(model, x)
    with pytest.raises(gradlib.GradlibError, match=r"^gradlib.pde.derivatives cannot .*layer_normalization"):
        gradlib.pde.derivatives(model, x, want=["u_xx"])
    residual = gradlib.pde.residual("u_t - u_xx", model)
    with pytest.raises(gradlib.GradlibError, match=r"^gradlib.pde.residual cannot .*layer_normalization"):
        tf.function(residual)(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        u = model(x)[:, 0]
    np.testing.assert_allclose(gradlib.pde.derivatives(model, x, want=["u_x"])["u_x"].numpy(),
                               tape.gradient(u, x)[:, 0].numpy(), rtol=1e-6)


def test_a_stop_gradient_of_the_user_s_own_is_not_taken_for_the_moments_one():
    r = gradlib.per_sample_hessians(lambda x: x ** 2 * tf.stop_gradient(x), X[:, :1])
    np.testing.assert_allclose(r.hessians[:, 0, 0, 0], 2 * X[:, 0], rtol=1e-12)


def test_in_a_training_step_a_layer_normalization_outside_the_pde_model_is_not_blamed():
    keras.utils.set_random_seed(1)
    pinn = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4, activation="gelu"), keras.layers.Dense(1)])
    other = layer_norm_model()   # another network of the same step, not differentiated twice
    x = tf.constant(X[:, :2], tf.float32)

    @tf.function
    def step(points):
        return other(points)[:, 0] + gradlib.pde.derivatives(pinn, points, want=["u_xx"])["u_xx"]

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = pinn(x)[:, 0]
        u_x = inner.gradient(u, x)[:, 0]
    np.testing.assert_allclose(step(x).numpy(), other(x)[:, 0].numpy() + outer.gradient(u_x, x)[:, 0].numpy(),
                               rtol=1e-5, atol=1e-6)


def test_the_moments_variance_inside_a_nested_tf_function_is_refused_and_the_plain_one_is_not():
    # a tf.function called from fn is a (Stateful)PartitionedCall in fn's graph: its ops are in the graph's library,
    # not among the graph's own; the closed form stands for the plain variance read the same way
    nested_moments, nested_plain = tf.function(moments_variance), tf.function(plain_variance)
    with pytest.raises(gradlib.GradlibError, match=REFUSED):
        gradlib.laplacian(lambda x: nested_moments(x) * 1.0, X)
    r = gradlib.laplacian(lambda x: nested_plain(x) * 1.0, X)
    np.testing.assert_allclose(r.laplacian[:, 0], np.full(2, np.trace(VARIANCE_HESSIAN)), rtol=1e-12, atol=1e-15)


def test_pde_in_a_training_step_refuses_a_model_that_calls_the_moments_variance_in_a_nested_tf_function():
    nested = tf.function(lambda x: tf.nn.moments(x, axes=[-1], keepdims=True)[1])
    x = tf.constant(X[:, :2], tf.float32)

    @tf.function
    def step(points):
        return gradlib.pde.derivatives(lambda p: nested(p) * 1.0, points, want=["u_xx"])["u_xx"]

    with pytest.raises(gradlib.GradlibError, match=r"^gradlib.pde.derivatives cannot .*moments"):
        step(x)
