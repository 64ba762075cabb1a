"""Shared by the perelement tests: the independent reference, one fresh GradientTape per output element."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

__all__ = ["tape_rows"]


def tape_rows(fn, x) -> np.ndarray:
    """The Jacobian of ``fn`` at ``x``, row by row: a plain loop, one fresh tape (and one call of fn) per output
    element, so that a gradient TensorFlow keeps for one gradient call (tf.py_function) is taken once per tape."""
    rows = []
    for i in range(int(tf.size(fn(x)))):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y_i = tf.reshape(fn(x), [-1])[i]
        rows.append(tape.gradient(y_i, x).numpy())
    return np.array(rows)
