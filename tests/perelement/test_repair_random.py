"""auto's repair of NaN-poisoned rows does not call a random fn again (gradlib._perelement._engine).

``[exp(exp(10 x0)), s * sum(x)]`` at ``x = 1``: reverse mode poisons ``dy1/dx0`` (0 x inf), and auto recomputed it in
forward mode, a second call with another ``s``. The true row is ``s`` in every column; on main the repaired cell
differed from the rest of its row in 20 of 20 calls with ``check=False``, and nothing said so.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import gradlib

X = tf.constant([1.0] * 20)


def scaled(x):
    s = 1.0 + tf.random.uniform(())   # another scale at every call
    return tf.stack([tf.exp(tf.exp(10 * x[0])), tf.reduce_sum(x) * s])


def test_a_random_fn_s_poisoned_row_is_left_nan_and_said_so():
    for _ in range(3):
        r = gradlib.per_element_gradients(scaled, X, check=False)
        assert r.repaired_rows == () and r.poisoned_rows == (1,) and np.isnan(r.jacobian[1, 0])
        assert np.allclose(r.jacobian[1, 1:], r.y[1] / 20, rtol=1e-5)   # the rest: this call's own draw
        assert any(w.startswith("NaN poisoning not repaired: fn is random: two calls") and
                   "another draw than the rest of the Jacobian" in w for w in r.warnings), r.warnings


def test_the_same_function_without_its_draw_is_repaired():
    r = gradlib.per_element_gradients(lambda x: tf.stack([tf.exp(tf.exp(10 * x[0])), tf.reduce_sum(x) * 1.5]), X,
                                      check=False)
    assert r.repaired_rows == (1,) and np.allclose(r.jacobian[1], 1.5)
