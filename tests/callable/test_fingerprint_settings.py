"""A setting of a Keras layer of the library's own class changed after a call (``dense.activation = ...``,
``use_bias``, a Dropout's ``rate``, a LeakyReLU's ``negative_slope``, ``trainable``, ``dtype_policy``, a
Normalization's ``variance``, a Permute's ``dims``, a Lambda's function and ``arguments``) must not leave a traced
graph answering with the old one.

Found by hunt 52 (left as known by hunt 51): the model and its library layers counted by identity alone, so after
``dense.activation = keras.activations.linear`` every API kept the trace made with tanh (per_sample_gradients gave
the Jacobian 0.00016 where the model's own call gives 0.038; per_example_gradients the losses [1.66, 2.00] where
they are [4.76, 39.4]). Each test changes one setting the way a user would and compares the next answer with the
model's own eager call (a tape over it, or the per-example loop), and that the change did change the answer.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from fingerprint_checks import assert_like_the_loop, loop_reference, loss
from gradlib._callable._state import fingerprint

X = np.array([[1.0, -2.0], [3.0, 4.0], [-0.5, 0.25]], np.float32)
Y = np.zeros((3, 2), np.float32)
KERNEL = keras.initializers.Constant([[0.5, -0.25], [0.15, 0.4]])


def dense_and_leaky():
    """``LeakyReLU(tanh(x W + 0.5))``: every setting varied below changes its Jacobian and its second derivatives."""
    return [keras.layers.Dense(2, activation="tanh", kernel_initializer=KERNEL,
                               bias_initializer=keras.initializers.Constant(0.5)),
            keras.layers.LeakyReLU(negative_slope=0.2)]


def sequential():
    """``(x - 1) / 2`` first (``invert=True``: ``1 + 2 x``), then ``dense_and_leaky``."""
    return keras.Sequential([keras.Input((2,)), keras.layers.Normalization(mean=1.0, variance=4.0),
                             *dense_and_leaky()])


def functional():
    i = keras.Input((2,))
    dense, leaky = dense_and_leaky()
    return keras.Model(i, leaky(dense(i)))


def nested():
    """The layers two models deep: a Sequential inside a functional model."""
    i = keras.Input((2,))
    return keras.Model(i, sequential()(i))


def layer_of(model, kind):
    (layer,) = [layer for layer in model._flatten_layers(include_self=False) if isinstance(layer, kind)]
    return layer


#: name -> (the layer class, the setting, the value it is changed to)
CHANGES = {
    "activation": (keras.layers.Dense, "activation", keras.activations.sigmoid),
    "invert": (keras.layers.Normalization, "invert", True),
    "negative_slope": (keras.layers.LeakyReLU, "negative_slope", 0.6),
}


def tape_jacobian(fn, x):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.batch_jacobian(y, x).numpy()


def tape_hessian(fn, x):
    """The Hessian of the whole output over the whole input (what ``gradlib.hessians`` gives for a tensor)."""
    x = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        jac = inner.jacobian(y, x)
    return outer.jacobian(jac, x).numpy()


def tape_laplacian(fn, x):
    """Each sample's Laplacian of each output: the trace of its Hessian, from the whole one."""
    h = tape_hessian(fn, x)   # (B, out, B, in, B, in)
    b, n = x.shape
    return np.array([[sum(h[s, o, s, i, s, i] for i in range(n)) for o in range(h.shape[1])] for s in range(b)])


#: API -> (its answer for the model, the model's own eager answer)
APIS = {
    "per_sample_gradients": (lambda m: gradlib.per_sample_gradients(m, X).jacobian, lambda m: tape_jacobian(m, X)),
    "per_element_gradients": (
        lambda m: gradlib.per_element_gradients(m, tf.constant(X), compiled=True).jacobian.reshape(3, 2, 3, 2),
        lambda m: np.einsum("bij,bc->bicj", tape_jacobian(m, X), np.eye(3))),
    "hessians": (lambda m: gradlib.hessians(m, tf.constant(X)).hessian, lambda m: tape_hessian(m, X).reshape(6, 6, 6)),
    "laplacian": (lambda m: gradlib.laplacian(m, X).laplacian, lambda m: tape_laplacian(m, X)),
}


@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.parametrize("api", list(APIS))
def test_a_setting_changed_after_a_call_gives_the_model_s_new_answer(api, change):
    model = sequential()
    ask, reference = APIS[api]
    kind, name, value = CHANGES[change]
    layer = layer_of(model, kind)
    original = getattr(layer, name)
    answers = []
    for setting in (original, value, original):
        setattr(layer, name, setting)
        answers.append(ask(model))
        np.testing.assert_allclose(answers[-1], reference(model), rtol=1e-4, atol=1e-6)
    assert not np.allclose(answers[0], answers[1], rtol=1e-3, atol=1e-5), "the change must change the answer"


def dense_alone():
    return dense_and_leaky()[0]


#: how a user brings the model: the model, a lambda over it (the fingerprint's quick path), the layer itself
BUILDS = {"sequential": sequential, "functional": functional, "nested": nested, "layer as fn": dense_alone,
          "lambda over a model": lambda: (lambda m: (lambda v: m(v) * 1.0))(sequential()),
          "lambda over a layer": lambda: (lambda d: (lambda v: d(v) * 1.0))(dense_alone())}


def the_dense(fn):
    if isinstance(fn, keras.layers.Dense):
        return fn
    held = fn if isinstance(fn, keras.Model) else fn.__closure__[0].cell_contents
    return held if isinstance(held, keras.layers.Dense) else layer_of(held, keras.layers.Dense)


@pytest.mark.parametrize("build", list(BUILDS))
def test_an_activation_changed_is_seen_however_the_model_is_brought(build):
    fn = BUILDS[build]()
    dense = the_dense(fn)
    answers = []
    for activation in (keras.activations.tanh, keras.activations.linear, keras.activations.tanh):
        dense.activation = activation
        answers.append(gradlib.per_sample_gradients(fn, X).jacobian)
        np.testing.assert_allclose(answers[-1], tape_jacobian(fn, X), rtol=1e-5, atol=1e-7)
    assert not np.allclose(answers[0], answers[1])


@pytest.mark.parametrize("change", list(CHANGES))
def test_per_example_gradients_and_scan_see_a_setting_changed(change):
    model = sequential()
    kind, name, value = CHANGES[change]
    layer = layer_of(model, kind)
    seen = []
    for setting in (getattr(layer, name), value):
        setattr(layer, name, setting)
        seen.append(assert_like_the_loop(model, X, Y))
    assert not np.allclose(seen[0], seen[1])


def test_a_dropout_rate_changed_is_seen_under_training():
    """Rate 0 under ``training=True`` is the inference model; 0.9 drops nearly everything (a trace of rate 0 kept
    would still answer the inference losses); back at 0 the answer is the inference one again (a trace of 0.9 kept
    would answer random ones)."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), dense_and_leaky()[0], keras.layers.Dropout(0.5)])
    dropout = layer_of(model, keras.layers.Dropout)   # made at 0.5: Keras makes its seed generator only then
    inference = loop_reference(model, X)
    for rate in (0.0, 0.9, 0.0):
        dropout.rate = rate
        result = gradlib.per_example_gradients(model, X, Y, loss=loss, training=True)
        if rate:
            assert not np.allclose(result.losses, inference[0])
        else:
            np.testing.assert_allclose(result.losses, inference[0], rtol=1e-5)
            np.testing.assert_allclose(result.norms, inference[1], rtol=1e-5)


def test_trainable_changed_is_seen():
    """A frozen BatchNormalization under ``training=True`` uses its moving statistics (each sample alone); trainable
    again, it uses the batch's, which mixes the samples: refused, not answered from the frozen trace."""
    bn = keras.layers.BatchNormalization()
    model = keras.Sequential([keras.Input((2,)), bn])
    fn = lambda v: model(v, training=True)  # noqa: E731
    bn.trainable = False
    np.testing.assert_allclose(gradlib.per_sample_gradients(fn, X).jacobian, tape_jacobian(fn, X), rtol=1e-6)
    bn.trainable = True
    with pytest.raises(gradlib.BatchMixingError, match="not independent"):
        gradlib.per_sample_gradients(fn, X)


def test_a_dtype_policy_changed_is_seen():
    """float16 rounds the Jacobian 4e-4 away from float32's; the answer is the model's own call's, bit for bit."""
    model = sequential()
    dense = layer_of(model, keras.layers.Dense)
    before = gradlib.per_sample_gradients(model, X).jacobian
    dense.dtype_policy = "float16"
    after = gradlib.per_sample_gradients(model, X).jacobian
    np.testing.assert_array_equal(after, tape_jacobian(model, X))
    assert np.abs(after - before).max() > 1e-5


def test_a_tensor_setting_and_a_tuple_setting_are_seen():
    norm = keras.layers.Normalization(mean=1.0, variance=4.0)
    dense = keras.layers.Dense(2, activation="tanh", kernel_initializer=KERNEL)
    model = keras.Sequential([keras.Input((2,)), norm, dense])
    before = gradlib.per_sample_gradients(model, X).jacobian
    norm.variance = tf.constant([[1.0, 1.0]])   # a tensor: by its content
    after = gradlib.per_sample_gradients(model, X).jacobian
    np.testing.assert_allclose(after, tape_jacobian(model, X), rtol=1e-6)
    assert not np.allclose(before, after)
    permute = keras.layers.Permute((2, 1))
    flat = keras.Sequential([keras.Input((2, 2)), permute, keras.layers.Flatten()])
    x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    before = gradlib.per_sample_gradients(flat, x).jacobian
    permute.dims = (1, 2)   # a tuple: by its value
    after = gradlib.per_sample_gradients(flat, x).jacobian
    np.testing.assert_array_equal(after, tape_jacobian(flat, x))
    assert not np.array_equal(before, after)


SCALE = 2.0


def test_a_lambda_layer_s_function_and_arguments_are_read_anew():
    """A library layer holding the user's function (read into: the global it reads) and a dict (by its content,
    changed in place)."""
    global SCALE
    lam = keras.layers.Lambda(lambda v, k: v * v * k * SCALE, arguments={"k": 1.0})
    model = keras.Sequential([keras.Input((2,)), lam])
    try:
        for scale, k in ((2.0, 1.0), (5.0, 1.0), (5.0, 3.0)):
            SCALE = scale
            lam.arguments["k"] = k
            jac = gradlib.per_sample_gradients(model, X).jacobian
            np.testing.assert_allclose(jac[:, 0, 0], 2 * X[:, 0] * k * scale, rtol=1e-6)
    finally:
        SCALE = 2.0


def test_a_setting_made_by_the_first_call_is_seen_after_it():
    """A Sequential without an input is built by its first call, which gives a layer settings it did not have
    (a Normalization's ``mean`` and ``variance``): the settings read before must not stand for the layer after.
    per_example_gradients, which always answers from its trace."""
    norm = keras.layers.Normalization(axis=None, mean=1.0, variance=4.0)
    model = keras.Sequential([norm, keras.layers.Dense(2, activation="tanh", kernel_initializer=KERNEL)])
    fingerprint(model)   # read while unbuilt
    model(X)
    before = gradlib.per_example_gradients(model, X, Y, loss=loss)
    norm.variance = tf.constant(1.0)
    after = gradlib.per_example_gradients(model, X, Y, loss=loss)
    losses, norms = loop_reference(model, X)
    np.testing.assert_allclose(after.losses, losses, rtol=1e-5)
    np.testing.assert_allclose(after.norms, norms, rtol=1e-5)
    assert not np.allclose(before.losses, after.losses)


RUNS: list[int] = []


def counting_tanh(v):
    """tanh, counting the Python runs of the model's call (a trace, or an eager call)."""
    RUNS.append(1)
    return tf.tanh(v)


ALL_APIS = {
    **{name: ask for name, (ask, _) in APIS.items()},
    "per_example_gradients": lambda m: gradlib.per_example_gradients(m, X, Y, loss=loss).losses,
    "norms_only": lambda m: gradlib.per_example_gradients(m, X, Y, loss=loss, norms_only=True).norms,
    "training": lambda m: gradlib.per_example_gradients(m, X, Y, loss=loss, training=True).losses,
    "scan": lambda m: gradlib.scan(m, tf.data.Dataset.from_tensor_slices((X, Y)), loss=loss).losses,
}


#: the eager calls of the model a warm call makes (the second-order APIs' eager ``y``s, as before hunt 52): no trace
EAGER_RUNS = {"laplacian": 1, "hessians": 2}


@pytest.mark.parametrize("api", list(ALL_APIS))
def test_an_unchanged_model_is_traced_once_and_keeps_its_fingerprint(api):
    """Keras changes none of the settings on a call (nor a Dropout's or a LayerNormalization's, in training mode):
    once warm (per_element_gradients' ``auto`` runs its first call eagerly, its second compiled), further calls run
    no Python of the model, and a model of library layers only keeps its key."""
    ask = ALL_APIS[api]
    second = api in ("hessians", "laplacian")   # which refuse a LayerNormalization's second derivatives
    norm = [] if second else [keras.layers.LayerNormalization()]
    model = keras.Sequential([keras.Input((2,)), keras.layers.Normalization(mean=1.0, variance=4.0),
                              keras.layers.Dense(2, activation=counting_tanh, kernel_initializer=KERNEL),
                              keras.layers.LeakyReLU(0.3), *norm, keras.layers.Dense(2)])
    ask(model)
    first = ask(model)
    runs = len(RUNS)
    np.testing.assert_array_equal(ask(model), first)
    ask(model)
    assert len(RUNS) - runs == 2 * EAGER_RUNS.get(api, 0), "a call on an unchanged model traced it again"
    plain = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, activation="tanh"), keras.layers.Dropout(0.5),
                              keras.layers.LeakyReLU(0.3), *norm, keras.layers.Dense(2)])
    before = fingerprint(plain)
    ask(plain)
    ask(plain)
    assert fingerprint(plain) == before


def test_a_setting_added_after_a_call_is_seen():
    """An attribute that was not there when the settings were read is read too: a ``call`` put on the layer itself
    (Keras runs it instead of its class's) makes the model ``3 x``."""
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, kernel_initializer="identity")])
    for _ in range(2):   # the second call answers from a trace
        np.testing.assert_allclose(gradlib.per_sample_gradients(model, X).jacobian, np.tile(np.eye(2), (3, 1, 1)))
    model.layers[0].call = lambda v, training=None: v * 3.0
    np.testing.assert_allclose(gradlib.per_sample_gradients(model, X).jacobian, np.tile(3 * np.eye(2), (3, 1, 1)))
    np.testing.assert_allclose(tape_jacobian(model, X), np.tile(3 * np.eye(2), (3, 1, 1)))


@pytest.mark.parametrize("api", ["per_example_gradients", "norms_only", "scan"])
def test_an_activity_regularizer_added_after_a_call_is_refused(api):
    """``model.fit`` adds an activity regularizer's term to each batch's loss, so per_example_gradients refuses such
    a model (``_refuse_added_losses``, run where a step is traced). Added after a call, the model's trace was kept
    (its key held the layer by identity only): the answer left the term out, silently (before hunt 52)."""
    model = sequential()
    ask = ALL_APIS[api]
    ask(model)
    layer_of(model, keras.layers.Dense).activity_regularizer = keras.regularizers.L2(0.1)
    with pytest.raises(gradlib.GradlibError, match="activity_regularizer on layer"):
        ask(model)
