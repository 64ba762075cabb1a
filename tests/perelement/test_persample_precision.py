"""per_sample_gradients on a float64 batch through float32 (a float32 model, a layer left at float32): checked at
the precision fn computes in, against one eager tape per sample."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib

X = np.random.default_rng(11).normal(size=(4, 3))


def tape_per_sample(fn, x):
    """The reference: one eager tape.jacobian per sample."""
    out = []
    for row in x:
        xb = tf.constant(row[None])
        with tf.GradientTape() as tape:
            tape.watch(xb)
            y = tf.cast(fn(xb), tf.float64)
        out.append(tape.jacobian(y, xb)[0, :, 0, :].numpy())
    return np.array(out)


def float32_model():
    keras.utils.set_random_seed(12)
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(2)])


def activation_left_at_float32():
    keras.utils.set_random_seed(13)
    return keras.Sequential([keras.Input((3,), dtype="float64"), keras.layers.Dense(4, dtype="float64"),
                             keras.layers.Activation("tanh"), keras.layers.Dense(2, dtype="float64")])


@pytest.mark.parametrize("build", [float32_model, activation_left_at_float32])
@pytest.mark.parametrize("method", ["auto", "while_loop", "loop"])
def test_a_float64_batch_through_float32_is_not_refused_as_batch_mixing(build, method):
    """The check took float64's tolerance (1e-10) from the batch, and float32's rounding (about 1e-7) was refused as
    "the samples of the batch are not independent" with nothing mixing them."""
    model = build()
    r = gradlib.per_sample_gradients(model, X, method=method)
    np.testing.assert_allclose(r.jacobian, tape_per_sample(model, X), rtol=1e-5, atol=1e-6)


def test_a_float64_function_that_mixes_the_batch_by_1e_7_is_still_refused():
    def mixing(x):
        return x ** 2 + 1e-6 * tf.roll(x, 1, axis=0)

    with pytest.raises(gradlib.BatchMixingError, match="the samples of the batch are not independent"):
        gradlib.per_sample_gradients(mixing, X)
