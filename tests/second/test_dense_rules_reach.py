"""Which Keras models the forward Laplacian's layer rules take, and that each answer is the model's own (issue 38,
item 6): a Dense layer without a bias takes the rules; an activation without a rule (gelu), a sample of several axes
and a model with a layer of another kind go to a tape method. Each answer is held to a per-sample loop of nested
plain tapes over the model's own call (float64), so a rule applied where it does not belong is caught as a number.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._second._taylor import dense_layers

X = np.random.default_rng(38).normal(size=(3, 3))


def laplacians(model, x):
    """Per sample: the sum over its elements of d2 y_k / dx_i^2, by nested plain tapes, ``(B, out)``."""
    out = []
    for row in x:
        v = tf.constant(row[None])
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(v)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(v)
                y = tf.reshape(model(v), (-1,))
                parts = [y[k] for k in range(int(y.shape[0]))]
            grads = [tf.reshape(inner.gradient(p, v), (-1,)) for p in parts]
            entries = [[g[i] for i in range(int(g.shape[0]))] for g in grads]
        out.append([sum(float(tf.reshape(outer.gradient(e, v), (-1,))[i]) for i, e in enumerate(row_entries))
                    for row_entries in entries])
    return np.array(out)


def sequential(*layers, inputs=(3,)):
    keras.utils.set_random_seed(38)
    return keras.Sequential([keras.Input(inputs, dtype="float64"), *layers])


def dense(units, activation=None, **kwargs):
    return keras.layers.Dense(units, activation=activation, dtype="float64", **kwargs)


def test_dense_layers_without_a_bias_take_the_rules_and_give_the_model_s_laplacian():
    model = sequential(dense(4, "tanh", use_bias=False), dense(2, "softplus", use_bias=False))
    kernels, why = dense_layers(model)
    assert why == "" and [bias for _, bias, _ in kernels] == [None, None]
    r = gradlib.laplacian(model, X)
    assert r.method == "forward_laplacian"
    np.testing.assert_allclose(r.laplacian, laplacians(model, X), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("case, model, why", [
    ("gelu", lambda: sequential(dense(4, "gelu"), dense(1)),
     "has the activation 'gelu', which has no forward rule"),
    ("a layer of another kind", lambda: sequential(dense(4, "tanh"), keras.layers.Dropout(0.0, dtype="float64"),
                                                   dense(1)),
     "is a Dropout, not a Dense layer"),
])
def test_a_model_the_rules_do_not_cover_goes_to_a_tape_method_and_stays_right(case, model, why):
    model = model()
    kernels, reason = dense_layers(model)
    assert kernels == [] and reason.endswith(why), reason
    r = gradlib.laplacian(model, X)
    assert r.method != "forward_laplacian"
    np.testing.assert_allclose(r.laplacian, laplacians(model, X), rtol=1e-10, atol=1e-13)
    with pytest.raises(gradlib.ExpressionError, match=r"^laplacian cannot use method='forward_laplacian': "):
        gradlib.laplacian(model, X, method="forward_laplacian")


def test_a_dense_model_on_samples_of_several_axes_gets_the_laplacian_over_all_their_elements():
    # Dense acts on the last axis: the rules' kernel (3 -> 2) does not describe a (2, 3) sample of 6 elements
    model = sequential(dense(2, "tanh"), inputs=(2, 3))
    x = np.random.default_rng(39).normal(size=(2, 2, 3))
    r = gradlib.laplacian(model, x)
    assert r.method != "forward_laplacian" and r.laplacian.shape == (2, 4)
    np.testing.assert_allclose(r.laplacian, laplacians(model, x), rtol=1e-10, atol=1e-13)
    # each output reads one row of the sample: its Laplacian is the Dense rule on that row alone
    w, b = (v.numpy() for v in model.layers[0].weights)
    t = np.tanh(x @ w + b)                                        # (B, 2 rows, 2 units)
    np.testing.assert_allclose(r.laplacian.reshape(2, 2, 2), -2 * t * (1 - t ** 2) * (w ** 2).sum(axis=0),
                               rtol=1e-10)
