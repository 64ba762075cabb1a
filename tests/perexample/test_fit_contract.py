"""per_example_gradients and scan against what model.fit computes for one example: a plain loop, each example
run alone as a batch of one under its own GradientTape, with the loss model.fit would use (its reduction, the
logits Keras keeps on a softmax output)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import per_example_gradients

L = keras.layers


def loop(model, x, y, loss):
    """Each example's loss and gradient norm, as a batch of one, in a compiled tf.function (as model.fit runs it)."""
    @tf.function
    def one(xi, yi):
        with tf.GradientTape() as tape:
            value = loss(yi, model(xi, training=False))
        grads = tape.gradient(value, model.trainable_variables)
        return value, tf.sqrt(tf.add_n([tf.reduce_sum(tf.square(tf.convert_to_tensor(g))) for g in grads]))

    out = [one(x[i:i + 1], y[i:i + 1]) for i in range(len(x))]
    return np.array([float(v) for v, _ in out]), np.array([float(n) for _, n in out])


def confident_softmax_classifier():
    """A softmax output whose mistakes are confident: examples 0-2 have losses of 32, 105 and 204."""
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((5,)), L.Dense(3, activation="softmax")])
    kernel, bias = model.get_weights()
    model.set_weights([60 * kernel, bias])
    return model, np.random.default_rng(0).normal(size=(4, 5)).astype("float32"), np.array([0, 1, 2, 0])


@pytest.mark.parametrize("norms_only", [False, True])
def test_a_confidently_wrong_softmax_output_is_computed_from_its_logits_not_refused(norms_only):
    """Keras' crossentropy reads the logits it keeps on a softmax output (``_keras_logits``); the probe's one-example
    slices dropped them, so the loss took clipped probabilities there (16.1 against 204.3) and the call was refused
    as a loss broadcasting y: the mislabelled examples a scan looks for were the ones that could not be scanned."""
    model, x, y = confident_softmax_classifier()
    loss = keras.losses.SparseCategoricalCrossentropy()
    losses, norms = loop(model, x, y, loss)
    assert losses[2] > 200   # from the logits: clipped probabilities give -log(1e-7) = 16.1
    r = per_example_gradients(model, x, y, loss=loss, norms_only=norms_only)
    np.testing.assert_allclose(r.losses, losses, rtol=1e-4)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-4)
    scanned = gradlib.scan(model, (x, y), loss=loss, batch_size=4)
    np.testing.assert_allclose(scanned.losses, losses, rtol=1e-4)


def sequence_tagger(mask_zero: bool):
    """Token ids -> 3 tags at each of 4 steps (an Embedding with mask_zero masks the loss at the padding)."""
    keras.utils.set_random_seed(2)
    return keras.Sequential([keras.Input((4,), dtype="int32"), L.Embedding(6, 3, mask_zero=mask_zero),
                             L.Dense(3)])


@pytest.mark.parametrize("mask_zero", [False, True], ids=["plain", "masked"])
@pytest.mark.parametrize("reduction", ["sum", "sum_over_batch_size"])
def test_a_sequence_loss_reduces_its_steps_as_the_loss_reduces_a_batch_of_one(reduction, mask_zero):
    """With reduction='sum' model.fit sums each example's steps; gradlib averaged them whatever the reduction, so
    every loss and norm of this 4-step tagger without a mask was a quarter of model.fit's."""
    model = sequence_tagger(mask_zero)
    x = np.array([[1, 2, 3, 4], [5, 1, 0, 0], [2, 2, 2, 0], [3, 0, 0, 0]], np.int32)
    y = np.array([[0, 1, 2, 0], [1, 1, 0, 0], [2, 0, 1, 2], [0, 2, 2, 1]])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=reduction)
    losses, norms = loop(model, x, y, loss)
    for norms_only in (False, True):
        r = per_example_gradients(model, x, y, loss=loss, norms_only=norms_only)
        np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
        np.testing.assert_allclose(r.norms, norms, rtol=1e-5)
    np.testing.assert_allclose(gradlib.scan(model, (x, y), loss=loss, batch_size=4).norms, norms, rtol=1e-5)
