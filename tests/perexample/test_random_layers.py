"""per_example_gradients with random layers in training mode: every generator a layer holds makes it random, each
example's loss and gradient come from one draw, and the result says so.

On main a layer holding its SeedGenerator under another name than ``seed_generator`` (Keras' RandomFlip and
RandomRotation call it ``generator``) was refused as "random outside a layer gradlib knows", and a model with
Dropout gave one draw's gradients with ``warnings`` empty. Reference: the draw read back from each example's own
gradient (a head ``Dense(1)`` under mean squared error: ``dL/db = 2 r`` and ``dL/dW = 2 r z``, ``z`` the head's
input under that draw), against the example's loss ``r**2`` and the head's prediction from ``z``.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest

import gradlib

MSE = keras.losses.MeanSquaredError(reduction=None)
RNG = np.random.default_rng(0)


class Masked(keras.layers.Layer):
    """Drops half of its inputs (kept ones doubled) in training mode, drawn from a generator named ``draws``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.draws = keras.random.SeedGenerator(3)

    def call(self, x, training=None):
        if not training:
            return x
        return x * keras.ops.cast(keras.random.uniform(keras.ops.shape(x), seed=self.draws) < 0.5, x.dtype) * 2.0


def head_inputs(r: gradlib.PerExampleResult, model: keras.Model) -> tuple[np.ndarray, np.ndarray]:
    """Each example's residual ``r`` and head input ``z`` under its draw, read back from its head's gradients."""
    residual = r.gradients[-1][:, 0] / 2
    z = r.gradients[-2][:, :, 0] / (2 * residual[:, None])
    return residual, z


def assert_one_draw_per_example(r, model, y):
    residual, z = head_inputs(r, model)
    kernel, bias = (v.numpy() for v in model.layers[-1].weights)
    assert np.allclose(z @ kernel[:, 0] + bias[0] - y[:, 0], residual, atol=1e-5)
    assert np.allclose(r.losses, residual ** 2, rtol=1e-5)
    assert any(w.startswith("the model draws random numbers in training mode (layers ") and
               "a per-example loop or another call draws other noise" in w for w in r.warnings), r.warnings
    return z


@pytest.mark.parametrize("layer", [lambda: keras.layers.Dropout(0.5, name="random"), lambda: Masked(name="random")])
def test_a_random_layer_s_examples_each_come_from_one_draw(layer):
    x, y = RNG.standard_normal((6, 5)).astype("float32"), RNG.standard_normal((6, 1)).astype("float32")
    model = keras.Sequential([keras.Input((5,)), layer(), keras.layers.Dense(1)])
    r = gradlib.per_example_gradients(model, x, y, loss=MSE, training=True)
    z = assert_one_draw_per_example(r, model, y)
    assert np.all(np.isclose(z, 0.0, atol=1e-5) | np.isclose(z, 2 * x, rtol=1e-4))   # each input dropped or doubled
    assert "'random'" in r.warnings[-1]


def test_random_flip_is_random_and_each_example_is_one_of_its_flips():
    x, y = RNG.standard_normal((6, 3, 3, 1)).astype("float32"), RNG.standard_normal((6, 1)).astype("float32")
    model = keras.Sequential([keras.Input((3, 3, 1)), keras.layers.RandomFlip(name="flip"), keras.layers.Flatten(),
                              keras.layers.Dense(1)])
    r = gradlib.per_example_gradients(model, x, y, loss=MSE, training=True)
    z = assert_one_draw_per_example(r, model, y).reshape(x.shape)
    flips = [lambda a: a, lambda a: a[::-1], lambda a: a[:, ::-1], lambda a: a[::-1, ::-1]]
    assert all(any(np.allclose(z[i], f(x[i]), atol=1e-4) for f in flips) for i in range(len(x)))
    assert "'flip'" in r.warnings[-1]


def test_inference_mode_says_nothing():
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dropout(0.5), keras.layers.Dense(1)])
    r = gradlib.per_example_gradients(model, np.ones((4, 5), "float32"), np.ones((4, 1), "float32"), loss=MSE)
    assert r.warnings == ()
