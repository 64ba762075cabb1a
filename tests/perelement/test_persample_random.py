"""per_sample_gradients on a random fn (Dropout with training=True): named in warnings, refused by ``loop``.

On main ``method='loop'`` called fn once per sample and once more on the batch for its independence check, each a new
draw, and raised BatchMixingError on a fn whose samples are independent; pfor and while_loop said nothing while two
calls' Jacobians differed by 1.28. Reference: each Jacobian is that of one draw of ``mask * x @ W`` (its mask read
back from y), computed in NumPy.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import GradlibError

W = np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
X = tf.constant(np.random.default_rng(1).uniform(0.5, 1.5, (6, 3)).astype(np.float32))


def random_fn():
    dropout = keras.layers.Dropout(0.5)
    return lambda x: tf.matmul(dropout(x, training=True), W)


@pytest.mark.parametrize("method", ["auto", "pfor", "while_loop"])
def test_a_vectorized_method_warns_and_gives_the_jacobians_of_its_own_draw(method):
    r = gradlib.per_sample_gradients(random_fn(), X, method=method)
    assert any(w.startswith("fn is random: two calls at the same point gave different outputs") and
               "those of this call's draw" in w for w in r.warnings), r.warnings
    # dy[b, k] / dx[b, j] = mask[b, j] * 2 * W[j, k]: each sample's kept inputs read back from its Jacobian must give
    # its y (one draw for y and J, not y of one call and J of another)
    kept = np.abs(r.jacobian[:, 0, :]) > 0
    assert np.allclose(r.y, (kept * 2 * X.numpy()) @ W, rtol=1e-5)
    assert np.allclose(r.jacobian, np.einsum("bj,jk->bkj", kept * 2.0, W), rtol=1e-6)


def test_tiled_refuses_a_random_fn_by_name():
    with pytest.raises(GradlibError, match=r"cannot use method='tiled' on this fn: fn is random: two calls .* every "
                                           r"copy draws anew"):
        gradlib.per_sample_gradients(random_fn(), X, method="tiled")


def test_loop_refuses_a_random_fn_by_name():
    with pytest.raises(GradlibError, match=r"cannot use method='loop' on this fn: fn is random: two calls .* once "
                                           r"per sample and once more on the whole batch") as caught:
        gradlib.per_sample_gradients(random_fn(), X, method="loop")
    assert not isinstance(caught.value, gradlib.BatchMixingError)


def test_a_deterministic_fn_is_not_called_again_once_warm():
    calls = []

    def fn(x):
        calls.append(1)
        return tf.matmul(x, W) ** 2

    first = gradlib.per_sample_gradients(fn, X)
    count = len(calls)
    again = gradlib.per_sample_gradients(fn, X)
    assert len(calls) == count and not again.warnings and not first.warnings
    assert np.allclose(again.jacobian, first.jacobian)
