"""Killers for planted bugs in the backward-mixing check (plant 47): a check that skips the first example, and a
strategy-scope message that takes any ValueError for the cross-replica refusal."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from gradlib import BatchMixingError, GradlibError, per_example_gradients

from test_backward_mixing import CCE, data, loop_norms, model_with


@tf.custom_gradient
def _scale_first(t):   # example 0's cotangent times the batch size: only example 0 mixes with the batch
    def grad(dy):
        n = tf.shape(dy)[0]
        return dy * tf.one_hot(0, n, on_value=tf.cast(n, dy.dtype), off_value=tf.constant(1, dy.dtype))[:, None]
    return tf.identity(t), grad


class ScaleFirst(keras.layers.Layer):
    def call(self, t):
        return _scale_first(t)


def test_a_backward_pass_that_mixes_only_the_first_example_is_refused():
    """Every example but 0 has the same gradient in the batch and alone; example 0's is 3 times its own in the
    check's 3 examples: a check that skipped one of them (example 0) returned the batch's norms."""
    model = model_with(ScaleFirst())
    x, y = data()
    with pytest.raises(BatchMixingError, match=r"backward pass mixes the examples: example 0's gradient norm"):
        per_example_gradients(model, x, y, loss=CCE, norms_only=True)


@tf.custom_gradient
def _no_single(t):   # a gradient written for batches of more than one example: a ValueError of the user's model
    def grad(dy):
        if dy.shape[0] == 1:
            raise ValueError("this gradient needs two examples or more")
        return dy
    return tf.identity(t), grad


class NoSingle(keras.layers.Layer):
    def call(self, t):
        return _no_single(t)


def test_in_a_strategys_scope_the_models_own_value_error_is_said_as_the_models():
    """In a strategy's scope, only TensorFlow's cross-replica refusal is said as the scope's; the model's own
    ValueError (here its custom gradient on a batch of one) is said with its message, not blamed on the scope."""
    model = model_with(NoSingle())
    x, y = data()
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope(), pytest.raises(GradlibError) as info:
        per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    text = str(info.value)
    assert "could not check the model's backward pass on its first 3 examples" in text, text
    assert "ValueError: this gradient needs two examples or more" in text, text
    assert "strategy" not in text, text


def test_the_premise_the_first_example_alone_is_the_loops():
    """The reference: each example alone (the loop) has the norm the plain model would give it."""
    model = model_with(ScaleFirst())
    x, y = data()
    plain = model_with(keras.layers.Identity())
    np.testing.assert_allclose(loop_norms(model, x, y), loop_norms(plain, x, y), rtol=1e-6)


def test_a_weighted_check_that_cannot_run_falls_back_to_the_per_example_gradients(monkeypatch):
    """Where the eager check of the one weighted pass fails, the clipped mean is not taken from that pass: through
    an element-wise clip it is ``clip(w_i dy_i)``, 0.11 off the loop's ``w_i clip(dy_i)``. The check's eager
    gradients are made to fail (a model that cannot run eagerly); the answer must still be the loop's."""
    from gradlib._perexample import _gradients
    from test_backward_mixing import ClipValues, loop_gradients

    def fails(*args, **kwargs):
        raise RuntimeError("cannot run eagerly")

    model = model_with(ClipValues())
    x, y = data()
    result = per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    monkeypatch.setattr(_gradients, "_alone_gradient", fails)
    grads = loop_gradients(model, x, y)
    factors = np.minimum(1.0, 0.5 / loop_norms(model, x, y))
    expected = [sum(f * g[j] for f, g in zip(factors, grads)) / len(y) for j in range(len(grads[0]))]
    for got, want in zip(result.clipped_mean(0.5), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
