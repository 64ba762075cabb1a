"""What the fingerprint tests (``test_fingerprint_settings.py``, ``test_fingerprint_layers.py``) check after changing
a model: the per-example APIs against the per-example loop, each example alone under its own tape.

A helper module (no tests): both files change a model between calls and then ask ``per_example_gradients`` (its
gradients and ``norms_only``) and ``gradlib.scan`` for the same batch; a trace kept from before the change answers
the old model's numbers, which the loop of the model as it is now does not.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import gradlib

__all__ = ["assert_like_the_loop", "loop_reference", "loss"]


def loss(y_true, y_pred):
    """Each example's sum of squared outputs (``y_true`` unused)."""
    return tf.reduce_sum(y_pred * y_pred, axis=-1)


def loop_reference(model, x, training=False):
    """Each example of ``x`` alone under its own tape: its loss and gradient norm (a variable the loss does not
    reach has the gradient ``None``, zero)."""
    losses, norms = [], []
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            value = tf.reduce_sum(loss(None, model(x[i:i + 1], training=training)))
        grads = tape.gradient(value, model.trainable_variables)
        losses.append(float(value))
        norms.append(np.sqrt(sum(float(tf.reduce_sum(g * g)) for g in grads if g is not None)))
    return np.array(losses), np.array(norms)


def assert_like_the_loop(model, x, y):
    """``per_example_gradients`` (gradients, and ``norms_only``) and ``gradlib.scan`` of a data set of ``(x, y)`` give
    the loop's losses and norms (rtol 1e-5); returns ``per_example_gradients``' losses."""
    losses, norms = loop_reference(model, x)
    full = gradlib.per_example_gradients(model, x, y, loss=loss)
    fast = gradlib.per_example_gradients(model, x, y, loss=loss, norms_only=True)
    scanned = gradlib.scan(model, tf.data.Dataset.from_tensor_slices((x, y)), loss=loss)
    for result in (full, fast, scanned):
        np.testing.assert_allclose(result.losses, losses, rtol=1e-5)
        np.testing.assert_allclose(result.norms, norms, rtol=1e-5)
    return full.losses
