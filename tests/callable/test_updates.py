"""A user's function (a Keras layer, a plain function, a model) whose output depends on a variable it also updates is
refused by every API by name, before anything calls it (gradlib._callable._updates).

Found by hunt 50: a layer counting its calls into a weight and scaling by the count (``n.assign_add(1); z * n``) got
``per_sample_gradients`` 4.0 where the user's own call gives 1.0, the count was 4 after it (the user's state moved by
calls they never made), and the APIs only warned "fn is random". The tests read the variable after the refusal. The
near misses (a variable written but not read into the output, BatchNormalization in inference mode, a metric, a
counter in a ``tf.function`` of the user's) are still answered, and equal the per-example loop.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._callable._updates import updating_variable

X = np.random.default_rng(0).normal(size=(3, 2)).astype("float32")
Y = np.array([[0.5], [-1.0], [2.0]], "float32")
START = 3.0   # the count after the user's own three calls: not zero, so an untouched count is seen as such


class Count(keras.layers.Layer):
    """Counts its calls into a weight, and scales by the count: each call another function."""

    def build(self, shape):
        self.n = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, z):
        self.n.assign_add(1.0)
        return z * self.n


class Counted(keras.layers.Layer):
    """Counts its calls, and the output ignores the count: every call the same function."""

    def build(self, shape):
        self.n = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, z):
        self.n.assign_add(1.0)
        return z * z


def counted(layer):
    layer(tf.constant(X))
    layer.n.assign(START)
    return layer


def count_model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1), Count()])
    model.layers[-1].n.assign(START)
    return model, model.layers[-1].n


MSE = keras.losses.MeanSquaredError()
#: every public API that calls a user's function, on the count: a layer, a plain function of it, or a model holding it
CALLS = {
    "per_sample_gradients": lambda c: gradlib.per_sample_gradients(c, X),
    "per_element_gradients": lambda c: gradlib.per_element_gradients(c, X),
    "crosscheck": lambda c: gradlib.crosscheck(c, X),
    "hessians": lambda c: gradlib.hessians(lambda z: tf.reduce_sum(c(z) ** 2), X),
    "hvp": lambda c: gradlib.hvp(lambda z: tf.reduce_sum(c(z) ** 2), X, X),
    "per_sample_hessians": lambda c: gradlib.per_sample_hessians(lambda z: tf.reduce_sum(c(z) ** 2, axis=1), X),
    "laplacian": lambda c: gradlib.laplacian(lambda z: tf.reduce_sum(c(z) ** 2, axis=1), X),
    "divergence": lambda c: gradlib.divergence(c, X),
    "gradlib.pde.check": lambda c: gradlib.pde.check(lambda z: c(z)[:, :1], X, coords=("x", "t")),
}
MODEL_CALLS = {
    "per_example_gradients": lambda m: gradlib.per_example_gradients(m, X, Y, loss=MSE),
    "gradlib.scan": lambda m: gradlib.scan(m, (X, Y), loss=MSE, batch_size=3),
}


@pytest.mark.parametrize("api", list(CALLS))
def test_a_layer_that_updates_a_weight_it_reads_is_refused_before_any_call(api):
    layer = counted(Count())
    what = "model" if api == "gradlib.pde.check" else "fn"
    with pytest.raises(gradlib.InputError, match=rf"^{api} cannot take this {what}: it updates the variable "
                                                 r"'count(_\d+)?/variable(_\d+)?' \(a weight of the layer "
                                                 r"'count(_\d+)?'\) and its output depends on that variable.*Do the "
                                                 rf"update outside the {what}.*gradlib has not called the {what}"):
        CALLS[api](layer)
    assert float(layer.n.numpy()) == START


@pytest.mark.parametrize("api", list(MODEL_CALLS))
def test_a_model_holding_that_layer_is_refused_before_any_call(api):
    model, n = count_model()
    with pytest.raises(gradlib.InputError, match=rf"^{api} cannot take this model: it updates the variable "
                                                 r"'sequential(_\d+)?/count(_\d+)?/variable"):
        MODEL_CALLS[api](model)
    assert float(n.numpy()) == START


def test_a_plain_function_that_reads_a_variable_before_it_moves_it_is_refused_too():
    n = tf.Variable(START, name="running")

    def scaled(z):   # the value read before the update: the next call reads another one
        y = z * n
        n.assign_add(1.0)
        return y

    with pytest.raises(gradlib.InputError, match=r"updates the variable 'running' and its output depends"):
        gradlib.per_sample_gradients(scaled, X)
    assert float(n.numpy()) == START


def test_a_variable_read_into_the_output_inside_a_tf_function_a_loop_or_a_branch_is_found():
    n = tf.Variable(START, name="inner")

    @tf.function
    def step(z):
        return z * n.assign_add(1.0)

    body = lambda i, a: (i + 1, a * n.assign_add(1.0))  # noqa: E731
    looped = lambda z: tf.while_loop(lambda i, a: i < 2, body, (0, z))[1]  # noqa: E731
    branched = lambda z: tf.cond(tf.reduce_sum(z) > 0, lambda: z * n.assign_add(1.0), lambda: z)  # noqa: E731
    for fn in (lambda z: step(z) + 1.0, looped, branched):
        with pytest.raises(gradlib.InputError, match="updates the variable 'inner'"):
            gradlib.per_sample_gradients(fn, X)
    assert float(n.numpy()) == START


def test_a_scatter_into_a_table_read_back_is_an_update_too():
    table = tf.Variable(tf.ones((4, 2)), name="table")
    fn = lambda z: z * tf.gather(table.scatter_add(tf.IndexedSlices(tf.ones((1, 2)), [0])), [0])  # noqa: E731
    with pytest.raises(gradlib.InputError, match="updates the variable 'table'"):
        gradlib.per_element_gradients(fn, X)
    np.testing.assert_array_equal(table.numpy(), np.ones((4, 2)))


def test_a_metric_whose_result_the_output_reads_is_refused():
    mean = keras.metrics.Mean(name="running_mean")
    with pytest.raises(gradlib.InputError, match=r"updates the variable 'running_mean/(total|count)'"):
        gradlib.per_sample_gradients(lambda z: z * (mean.update_state(z) or mean.result()), X)
    assert float(mean.count.numpy()) == 0.0


# ---------------------------------------------------------------- near misses: answered, and the loop's answer


def loop_jacobians(fn, x):
    """Each sample's Jacobian from its own tape and its own call: the reference."""
    rows = []
    for i in range(x.shape[0]):
        xi = tf.constant(x[i:i + 1])
        with tf.GradientTape() as tape:
            tape.watch(xi)
            y = fn(xi)
        rows.append(tape.jacobian(y, xi)[0, :, 0].numpy())
    return np.stack(rows)


def test_a_counter_the_output_ignores_is_answered_as_the_loop():
    layer = counted(Counted())
    result = gradlib.per_sample_gradients(layer, X)
    np.testing.assert_allclose(result.jacobian, loop_jacobians(layer, X), rtol=1e-6)
    np.testing.assert_allclose(result.jacobian[:, 0, 0], 2 * X[:, 0], rtol=1e-6)
    assert float(layer.n.numpy()) > START   # documented: the count moves with gradlib's calls, as with the user's


def test_a_counter_in_the_user_s_own_tf_function_is_answered_as_the_loop():
    calls = tf.Variable(0.0)

    @tf.function
    def fn(z):
        calls.assign_add(1.0)
        return tf.sin(z) * z

    result = gradlib.per_element_gradients(fn, X)
    expected = np.diag((np.cos(X) * X + np.sin(X)).ravel())
    np.testing.assert_allclose(result.jacobian, expected, rtol=1e-5, atol=1e-6)


def test_a_metric_updated_beside_the_output_is_answered_as_the_loop():
    mean = keras.metrics.Mean()
    fn = lambda z: [mean.update_state(z), tf.tanh(z)][1]  # noqa: E731
    result = gradlib.per_sample_gradients(fn, X)
    np.testing.assert_allclose(result.jacobian, loop_jacobians(fn, X), rtol=1e-5, atol=1e-6)


def batchnorm_model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3), keras.layers.BatchNormalization(),
                              keras.layers.Dense(1)])
    model.layers[1].moving_mean.assign([0.3, -0.2, 0.1])
    model.layers[1].moving_variance.assign([2.0, 0.5, 1.5])
    return model


def test_batchnorm_in_inference_mode_reads_its_statistics_and_is_answered_as_the_loop():
    model = batchnorm_model()
    fn = lambda z: model(z, training=False)  # noqa: E731
    result = gradlib.per_sample_gradients(fn, X)
    np.testing.assert_allclose(result.jacobian, loop_jacobians(fn, X), rtol=1e-5)
    per_example = gradlib.per_example_gradients(model, X, Y, loss=MSE)
    for i in range(3):
        with tf.GradientTape() as tape:
            loss = MSE(Y[i:i + 1], model(X[i:i + 1], training=False))
        for got, want in zip(per_example.gradients, tape.gradient(loss, model.trainable_variables)):
            np.testing.assert_allclose(got[i], want.numpy(), rtol=1e-5, atol=1e-7)


def test_batchnorm_in_training_mode_keeps_its_batch_mixing_refusal():
    model = batchnorm_model()
    with pytest.raises(gradlib.BatchMixingError, match="BatchNormalization"):
        gradlib.per_example_gradients(model, X, Y, loss=MSE, training=True)
    np.testing.assert_allclose(model.layers[1].moving_mean.numpy(), [0.3, -0.2, 0.1], rtol=1e-6)


def test_dropout_in_training_mode_keeps_its_random_refusal():
    dropout = keras.layers.Dropout(0.5)
    with pytest.raises(gradlib.GradlibError, match="cannot use method='loop' on this fn: fn is random"):
        gradlib.per_sample_gradients(lambda z: dropout(z, training=True), X, method="loop")


@pytest.mark.parametrize("layer", [keras.layers.RandomFlip, keras.layers.RandomRotation, keras.layers.GaussianNoise,
                                   keras.layers.SpatialDropout2D, keras.layers.RandomContrast],
                         ids=lambda layer: layer.__name__)
def test_a_random_layer_s_seed_is_not_taken_for_an_updated_variable(layer):
    made = layer(0.2) if layer is not keras.layers.RandomFlip else layer()
    x = tf.ones((2, 4, 4, 3))
    assert updating_variable(lambda z: made(z, training=True), x, None) == ""   # the random check's to refuse


class Switch(keras.layers.Layer):
    """Counts its calls into the output only when ``self.counting`` is set, or on a batch of more than 3 samples: the
    same function object is another function for another attribute or shape, so the verdict is remembered per both."""

    counting = False

    def build(self, shape):
        self.n = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, z):
        if self.counting or z.shape[0] > 3:
            return z * self.n.assign_add(1.0)
        return z * self.n


def test_the_remembered_verdict_is_per_signature_and_per_attribute_each_field_of_its_key():
    """The verdict's key holds the function's fingerprint (its attributes) and its arguments' shapes and dtypes: a key
    without the shape answered a batch of 4 with the verdict of a batch of 3; one without the fingerprint answered the
    layer after ``counting = True`` with the verdict from before. Each is asked first where the answer is ''."""
    layer = Switch()
    layer(tf.constant(X))
    assert updating_variable(layer, tf.constant(X)) == ""
    assert updating_variable(layer, tf.constant(np.concatenate([X, X[:1]]))) != ""   # 4 samples: counts
    layer.counting = True
    assert updating_variable(layer, tf.constant(X)) != ""   # the same signature, another attribute
    layer.counting = False
    assert updating_variable(layer, tf.constant(X)) == ""


def test_the_remembered_verdict_is_per_dtype():
    """A function that counts only on float64 samples: asked on float32 first ('' remembered), then on float64; a key
    without the dtype answered float64 with float32's verdict."""
    n = tf.Variable(0.0, name="dtype_count")

    def f(z):
        if z.dtype == tf.float64:
            return z * tf.cast(n.assign_add(1.0), tf.float64)
        return z * n

    assert updating_variable(f, tf.constant(X)) == ""
    assert updating_variable(f, tf.constant(X, tf.float64)) == "dtype_count"
    assert float(n.numpy()) == 0.0   # read from a trace: nothing ran
