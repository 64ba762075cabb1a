"""per_sample_gradients of a function that calls ``tf.numpy_function``: TensorFlow cannot differentiate it
(``PyFunc`` is registered not differentiable), so the tape takes its output as a constant and the Jacobian silently
leaves its part out. ``per_element_gradients`` says so (its probe against fn itself); per_sample_gradients returned
``2`` for ``numpy(2x) * x``, whose derivative is ``4x``, with no warning. The reference is the closed form."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from gradlib import per_sample_gradients


def doubled(a):
    return (2.0 * a).astype(np.float32)


def through_numpy(x):
    return tf.numpy_function(doubled, [x], tf.float32, stateful=False) * x   # 2x * x: the derivative is 4x


X = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)


@pytest.mark.parametrize("method", ["auto", "pfor", "while_loop"])
def test_a_numpy_function_on_x_is_said_where_the_jacobian_leaves_it_out(method):
    result = per_sample_gradients(through_numpy, X, method=method)
    assert not np.allclose(np.diagonal(result.jacobian, axis1=1, axis2=2), 4 * X)   # the tape's constant: 2x
    assert any("tf.numpy_function" in w and "cannot differentiate" in w for w in result.warnings), result.warnings


def test_a_numpy_function_on_a_constant_is_not_warned_about():
    result = per_sample_gradients(lambda x: x * tf.numpy_function(lambda: np.float32(3.0), [], tf.float32), X)
    np.testing.assert_allclose(np.diagonal(result.jacobian, axis1=1, axis2=2), 3 * np.ones_like(X))
    assert not any("numpy_function" in w for w in result.warnings)
