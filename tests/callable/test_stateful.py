"""A Keras model with a stateful layer (``stateful=True``: a recurrent layer that keeps its state between calls) is
refused by every API before anything calls it (gradlib._callable._forms.refuse_stateful).

Found by hunt 47: the probes called the model first, each call advancing its state, and the refusal came after
(an opaque "enters the loop with shape (1, 3), but has shape (None, 3)", or for scan a BatchMixingError that blamed
batch mixing): the user's state had been changed by calls they never made. The test reads the state variables.
"""

from __future__ import annotations

import functools

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


class Holder:
    """A user's object that holds a model and calls it in a method."""

    def __init__(self, model):
        self.model = model

    def forward(self, x):
        return self.model(x) * 2.0


GLOBAL_MODEL = {}


def calls_the_global_model(x):
    return GLOBAL_MODEL["m"](x)


#: a plain function of x, made from the model, as a user hands it (fn reads the model, not gradlib)
FUNCTIONS = {
    "closure": lambda m: (lambda x: m(x) + 0.0),
    "layer in a closure": lambda m: (lambda rnn, dense: (lambda x: dense(rnn(x))))(*m.layers),
    "global": lambda m: (GLOBAL_MODEL.update(m=m), calls_the_global_model)[1],
    "bound method": lambda m: Holder(m).forward,
    "partial": lambda m: functools.partial(m, training=False),
    # a method of the model itself: a library's code, not read into, so only the object it is bound to names the
    # model (plant 48: objects_read without the bound method's __self__ let it through, opaque, the state moved)
    "model_call_method": lambda m: m.call,
}
SUM = lambda f: (lambda x: tf.reduce_sum(f(x), axis=-1, keepdims=True))  # noqa: E731 - a scalar per sample
FN_CALLS = {
    "per_sample_gradients": lambda f: gradlib.per_sample_gradients(f, X),
    "per_element_gradients": lambda f: gradlib.per_element_gradients(f, tf.constant(X)),
    "per_sample_hessians": lambda f: gradlib.per_sample_hessians(SUM(f), X),
    "hessians": lambda f: gradlib.hessians(lambda x: tf.reduce_sum(f(x)), tf.constant(X)),
    "crosscheck": lambda f: gradlib.crosscheck(f, tf.constant(X)),
}


@pytest.mark.parametrize("form", list(FUNCTIONS))
@pytest.mark.parametrize("api", list(FN_CALLS))
def test_a_function_that_reads_a_stateful_model_is_refused_before_any_call(api, form):
    """Found by hunt 48: a plain function closing over the model was not seen; every API called it, each call
    advancing the RNN's state, and per_element_gradients, per_sample_hessians returned an answer of no one call
    (per_sample_gradients failed opaquely: "enters the loop with shape (1, 3), but has shape (None, 3)")."""
    model = stateful_model(keras.layers.SimpleRNN(3, stateful=True))
    before = [np.array(s) for s in model.layers[0].states]
    what = r"the layer 'simple_rnn.*', built with stateful=True" if form == "layer in a closure" else \
        r"the model 'sequential.*', which has a stateful layer \('simple_rnn.*', built with stateful=True\)"
    with pytest.raises(gradlib.InputError, match=rf"^{api} cannot take fn: it reads {what}: that layer carries its "
                                                 r"state.*gradlib has not called it"):
        FN_CALLS[api](FUNCTIONS[form](model))
    for b, a in zip(before, model.layers[0].states):
        np.testing.assert_array_equal(np.array(a), b)


def test_a_function_of_the_same_model_not_stateful_is_tapes_answer():
    """The refusal reads the layers' flag, not any model in a closure: the same function of a model without
    state is taken, and its per-sample Jacobian is the tape's."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3, 2)), keras.layers.SimpleRNN(3), keras.layers.Dense(2)])
    xs = tf.constant(np.random.default_rng(1).normal(size=(4, 3, 2)).astype("float32"))
    got = gradlib.per_sample_gradients(lambda x: model(x) + 0.0, xs)
    with tf.GradientTape() as tape:
        tape.watch(xs)
        out = model(xs)
    want = tape.batch_jacobian(out, xs).numpy()
    np.testing.assert_allclose(got.jacobian, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("api", ["per_example_gradients", "gradlib.scan"])
def test_a_stateful_layer_inside_a_sub_model_is_refused_and_its_state_untouched(api):
    """The per-example APIs take a Keras model only and refuse it themselves (not check_callable): a stateful layer
    one model deeper must be found too. Without the refusal per_example_gradients failed opaquely ("enters the loop
    with shape (1, 3)") and scan blamed batch mixing, each after calls that moved the state."""
    keras.utils.set_random_seed(0)
    inner = keras.Sequential([keras.Input((3, 2), batch_size=1), keras.layers.GRU(3, stateful=True)], name="inner")
    model = keras.Sequential([keras.Input((3, 2), batch_size=1), inner, keras.layers.Dense(2)])
    model(X)
    before = [np.array(s) for s in inner.layers[0].states]
    assert any(np.abs(s).sum() > 0 for s in before)
    with pytest.raises(gradlib.InputError, match=rf"^{api} cannot take a model with a stateful layer \('gru.*', "
                                                 r"built with stateful=True\): that layer carries its state"):
        CALLS[api](model)
    for b, a in zip(before, inner.layers[0].states):
        np.testing.assert_array_equal(np.array(a), b)
