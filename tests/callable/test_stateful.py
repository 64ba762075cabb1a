"""A Keras model with a stateful layer (``stateful=True``: a recurrent layer that keeps its state between calls) is
refused by every API before anything calls it (gradlib._callable._forms.refuse_stateful).

Found by hunt 47: the probes called the model first, each call advancing its state, and the refusal came after
(an opaque "enters the loop with shape (1, 3), but has shape (None, 3)", or for scan a BatchMixingError that blamed
batch mixing): the user's state had been changed by calls they never made. The test reads the state variables.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib

CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
X = np.random.default_rng(0).normal(size=(1, 3, 2)).astype("float32")
Y = np.array([1])


def stateful_model(layer):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3, 2), batch_size=1), layer, keras.layers.Dense(2)])
    model(X)   # the user's own call: a state that is not zero
    return model


CALLS = {
    "per_sample_gradients": lambda m: gradlib.per_sample_gradients(m, X),
    "per_element_gradients": lambda m: gradlib.per_element_gradients(m, X),
    "per_sample_hessians": lambda m: gradlib.per_sample_hessians(m, X),
    "per_example_gradients": lambda m: gradlib.per_example_gradients(m, X, Y, loss=CCE),
    "gradlib.scan": lambda m: gradlib.scan(m, (X, Y), loss=CCE, batch_size=1),
}


@pytest.mark.parametrize("layer", [lambda: keras.layers.SimpleRNN(3, stateful=True),
                                   lambda: keras.layers.LSTM(3, stateful=True)], ids=["SimpleRNN", "LSTM"])
@pytest.mark.parametrize("api", list(CALLS))
def test_a_stateful_layer_is_refused_before_any_call_changes_its_state(api, layer):
    model = stateful_model(layer())
    before = [np.array(s) for s in model.layers[0].states]
    assert any(np.abs(s).sum() > 0 for s in before)
    with pytest.raises(gradlib.InputError, match=rf"^{api} cannot take a model with a stateful layer \('.*', built "
                                                 r"with stateful=True\).*gradlib has not called it"):
        CALLS[api](model)
    for b, a in zip(before, model.layers[0].states):
        np.testing.assert_array_equal(np.array(a), b)


def test_the_same_layer_not_stateful_is_the_loops_answer():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3, 2)), keras.layers.SimpleRNN(3), keras.layers.Dense(2)])
    result = gradlib.per_example_gradients(model, X, Y, loss=CCE, norms_only=True)
    with tf.GradientTape() as tape:
        loss = CCE(Y, model(X))
    norm = np.sqrt(sum(float(tf.reduce_sum(g * g)) for g in tape.gradient(loss, model.trainable_variables)))
    np.testing.assert_allclose(result.norms, [norm], rtol=1e-5)
