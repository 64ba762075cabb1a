"""The forward Laplacian's activation rules (``gradlib._second._taylor.RULES``) at each activation's kink.

One row per rule: a Keras Dense network whose pre-activation ``z`` is exactly 0 for a sample (zero input,
zero bias), the point where a piecewise activation (relu, elu) has its kink. The rule's first and second derivative
there must be TensorFlow's own (nested tapes over the same model): relu''(0) = relu'(0) = 0, elu'(0) = 1 and
elu''(0) = 0 (TensorFlow's EluGrad gradient takes the ``x < 0`` branch only). A rule added to ``RULES`` without
a row here fails ``test_every_rule_has_a_row``.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from gradlib import laplacian, per_sample_hessians
from gradlib._second._taylor import RULES

#: activation -> the batch the rows evaluate at: sample 0 puts every z at 0 (the kink, where there is one),
#: sample 1 none
ROWS = {name: [[0.0, 0.0], [0.3, -0.7]] for name in
        ("linear", "tanh", "sigmoid", "softplus", "silu", "swish", "exponential", "elu", "relu")}


def _model(activation: str) -> keras.Sequential:
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation=activation),
                              keras.layers.Dense(1, activation=activation)])
    model.layers[0].set_weights([np.array([[1.0, -2.0, 0.5], [0.5, 1.0, -1.0]]), np.zeros(3)])
    model.layers[1].set_weights([np.array([[1.0], [-1.5], [2.0]]), np.zeros(1)])
    return model


def _tape_diagonals(model, x: np.ndarray) -> np.ndarray:
    """Each sample's Hessian diagonal, nested tapes per sample and input element: ``(B, 1, d)``."""
    out = np.zeros((x.shape[0], 1, x.shape[1]))
    for b in range(x.shape[0]):
        for i in range(x.shape[1]):
            xb = tf.constant(x[b:b + 1], tf.float32)
            with tf.GradientTape() as outer:
                outer.watch(xb)
                with tf.GradientTape() as inner:
                    inner.watch(xb)
                    y = model(xb)[0, 0]
                g = inner.gradient(y, xb)[0, i]
            out[b, 0, i] = outer.gradient(g, xb, unconnected_gradients=tf.UnconnectedGradients.ZERO)[0, i]
    return out


def test_every_rule_has_a_row():
    assert set(ROWS) == set(RULES)


@pytest.mark.parametrize("activation", sorted(RULES))
def test_the_forward_rule_at_the_kink_is_the_tape(activation):
    model = _model(activation)
    x = np.array(ROWS[activation], np.float32)
    expected = _tape_diagonals(model, x)
    diag = per_sample_hessians(model, x, diagonal=True, method="forward_laplacian")
    lap = laplacian(model, x, method="forward_laplacian")
    assert diag.method == lap.method == "forward_laplacian"
    np.testing.assert_allclose(diag.diagonal, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lap.laplacian, expected.sum(axis=-1), rtol=1e-5, atol=1e-6)
