"""A Keras 2 (``tf_keras``) model or loss object given to the per-example APIs, which take Keras 3's.

Both were refused, but the messages sent the user the wrong way: a ``tf_keras.Sequential`` got "needs a Keras
model, got Sequential; build one with keras.Sequential", and a ``tf_keras`` loss object, which reduces the batch to
one number by default, got "Reduce the other axes in your loss". Each message must name what was given and the way
out: a Keras 3 object, or ``reduction='none'``; ``per_sample_gradients`` takes the tf_keras model as a callable."""

from __future__ import annotations

import numpy as np
import pytest

import gradlib
from gradlib import GradlibError

tf_keras = pytest.importorskip("tf_keras")
keras = pytest.importorskip("keras")

X = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")
Y = np.arange(4) % 2


def keras2_model():
    return tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(2)])


def test_a_tf_keras_model_is_named_as_such_with_the_way_out():
    with pytest.raises(GradlibError, match=r"got a tf_keras \(Keras 2\) Sequential.*Keras 3.*per_sample_gradients"):
        gradlib.per_example_gradients(keras2_model(), X, Y, loss="sparse_categorical_crossentropy")
    with pytest.raises(GradlibError, match=r"gradlib.scan needs a Keras model, got a tf_keras \(Keras 2\) Sequential"):
        gradlib.scan(keras2_model(), (X, Y), loss="sparse_categorical_crossentropy")


def test_per_sample_gradients_takes_the_tf_keras_model():
    model = keras2_model()
    kernel = model.layers[0].kernel.numpy()
    result = gradlib.per_sample_gradients(model, X)
    np.testing.assert_allclose(result.jacobian, np.broadcast_to(kernel.T, (4, 2, 3)), rtol=1e-6)


def test_a_tf_keras_loss_object_that_reduces_the_batch_says_reduction_none():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    loss = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with pytest.raises(GradlibError, match=r"one number for the whole batch.*reduction='none'"):
        gradlib.per_example_gradients(model, X, Y, loss=loss)
    unreduced = tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    result = gradlib.per_example_gradients(model, X, Y, loss=unreduced)
    reference = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)
    np.testing.assert_allclose(result.losses, reference(Y, model(X)).numpy(), rtol=1e-6)
