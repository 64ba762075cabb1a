"""Keras classes a user may bring whose call is not their layers (issue 35): every shortcut that reads a model's
structure instead of calling it must take the tape path on them. Shared by the per-example and second-order tests."""

from __future__ import annotations

import keras
import tensorflow as tf

__all__ = ["CallOverridden", "TripledDense"]


class CallOverridden(keras.Sequential):
    """The red team's model: Keras' Sequential whose call computes more than its layers."""

    def call(self, x, training=None, mask=None):
        return super().call(x) * 3.0 + tf.reduce_sum(x ** 2, -1, keepdims=True)


class TripledDense(keras.layers.Dense):
    """A Dense layer whose call computes more than its kernel."""

    def call(self, x, training=None):
        return super().call(x) * 3.0 + tf.reduce_sum(x ** 2, -1, keepdims=True)
