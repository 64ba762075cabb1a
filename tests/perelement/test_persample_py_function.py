"""per_sample_gradients of a function that calls ``tf.py_function``: TensorFlow replays the tape its Python recorded
once per call of the op, and batch_jacobian (pfor or while_loop) and the loop's persistent tape take one gradient per
output element through that one call: the second failed with a bare ``KeyError: b'pyfunc_N'`` (hunt 47). ``tiled``
takes every sample's Jacobian in one backward pass; ``auto`` now takes it, and the other methods refuse by name.
The reference is the closed form: ``py(x * x) * x`` is ``x ** 3`` element-wise, its Jacobian ``diag(3 x ** 2)``."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from gradlib import GradlibError, per_sample_gradients


def cubed(x):
    return tf.py_function(lambda a: a * a, [x], tf.float32) * x


X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, -2.0]], np.float32)


@pytest.mark.parametrize("method", ["auto", "tiled"])
def test_auto_and_tiled_take_it_in_one_backward_pass(method):
    result = per_sample_gradients(cubed, X, method=method)
    expected = np.stack([np.diag(3 * row ** 2) for row in X])
    np.testing.assert_allclose(result.jacobian, expected, rtol=1e-6)
    assert result.method == "tiled"


@pytest.mark.parametrize("method", ["pfor", "while_loop", "loop"])
def test_methods_of_one_gradient_per_output_refuse_it_by_name(method):
    with pytest.raises(GradlibError, match=rf"fn calls tf.py_function \(op .*\), whose gradient TensorFlow takes only "
                                           rf"once per call, and method '{method}' takes one gradient per output "
                                           r"element .* Use method='auto' or 'tiled'"):
        per_sample_gradients(cubed, X, method=method)


def test_past_tiled_outputs_auto_refuses_and_says_why():
    x = np.linspace(0.5, 1.5, 2 * 65, dtype=np.float32).reshape(2, 65)
    with pytest.raises(GradlibError, match=r"tf.py_function .* method 'auto' .* Method 'tiled', .* runs up to 64 "
                                           r"output elements per sample and fn has 65: write the tf.py_function part"):
        per_sample_gradients(cubed, x)
