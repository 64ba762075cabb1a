"""A custom layer inside a Keras model of the library's own class (a Sequential, a functional model, a
``keras.layers.RNN`` of the user's cell): a Python value its ``call`` reads, changed between calls, must not leave a
traced graph answering with the old value.

Found by hunt 51: the model counted by identity alone (its call is Keras' code, not read into), so after
``layer.k = 5.0`` every API kept the trace made at ``k = 2.0``: per_sample_gradients gave 4.0 where the model's own
call gives 10.0, per_example_gradients the loss 19.04 where it is 119.02. Each test changes one value the way a user
would and compares the next answer with an eager tape's (or the closed form).
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from fingerprint_checks import assert_like_the_loop
from gradlib._callable._state import _user_layers, fingerprint

X = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
Y = np.zeros((2, 2), np.float32)


class Scale(keras.layers.Layer):
    """``x * x * k``: its Jacobian at ``x`` is ``2 k x`` on the diagonal, its Laplacian ``2 k`` per output."""

    def __init__(self, k: float, **kwargs) -> None:
        super().__init__(**kwargs)
        self.k = k

    def call(self, x):
        return x * x * self.k


class Cell(keras.layers.Layer):
    """A recurrent cell of the user's: ``h = k x + h``, so a sequence's last state is ``k`` times its sum."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.k = 2.0
        self.state_size = 2

    def call(self, x, states):
        h = x * self.k + states[0]
        return h, [h]


def sequential():
    return keras.Sequential([keras.Input((2,)), Scale(2.0)])


def functional():
    i = keras.Input((2,))
    return keras.Model(i, Scale(2.0)(i))


def nested():
    """The custom layer two models deep: a Sequential inside a functional model."""
    i = keras.Input((2,))
    return keras.Model(i, keras.Sequential([keras.Input((2,)), keras.layers.Identity(), Scale(2.0)])(i))


def scale_of(model) -> Scale:
    (layer,) = [layer for layer in _user_layers(model) if isinstance(layer, Scale)]
    return layer


APIS = {
    "per_sample_gradients": (lambda m: gradlib.per_sample_gradients(m, X).jacobian[1, 1, 1], lambda k: 2 * k * 4.0),
    "per_element_gradients": (lambda m: gradlib.per_element_gradients(m, tf.constant(X), compiled=True).jacobian[3, 3],
                              lambda k: 2 * k * 4.0),
    "hessians": (lambda m: gradlib.hessians(m, tf.constant(X)).hessian[0, 0, 0], lambda k: 2 * k),
    "laplacian": (lambda m: np.ravel(gradlib.laplacian(m, X).laplacian)[0], lambda k: 2 * k),
}


@pytest.mark.parametrize("build", [sequential, functional, nested])
@pytest.mark.parametrize("api", list(APIS))
def test_a_custom_layer_s_value_changed_inside_a_library_model_gives_the_new_answer(api, build):
    model = build()
    ask, closed_form = APIS[api]
    for k in (2.0, 5.0, 2.0):
        scale_of(model).k = k
        assert float(ask(model)) == pytest.approx(closed_form(k), rel=1e-6)


def test_per_example_gradients_and_scan_see_a_custom_layer_s_value_changed():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2), Scale(2.0)])
    seen = []
    for k in (2.0, 5.0):
        scale_of(model).k = k
        seen.append(assert_like_the_loop(model, X, Y))
    np.testing.assert_allclose(seen[1], 6.25 * seen[0], rtol=1e-5)   # the loss goes as k^2; the stale trace kept k = 2


def test_a_user_cell_inside_keras_rnn_and_a_model_read_through_a_closure():
    """The cell is inside the library's RNN layer; the closure's model is a library object (``_fixed``'s quick path
    held its fingerprint by identity alone)."""
    rnn = keras.Sequential([keras.Input((3, 2)), keras.layers.RNN(Cell())])
    through = lambda v: rnn(v) * 1.0  # noqa: E731
    xs = np.ones((2, 3, 2), np.float32)
    for k in (2.0, 5.0):
        rnn.layers[0].cell.k = k
        for fn in (rnn, through):
            assert gradlib.per_sample_gradients(fn, xs).jacobian[0, 0, 0, 0] == pytest.approx(k)


def test_a_model_of_library_layers_only_keeps_its_fingerprint_and_its_user_layers_are_none():
    """What a warm call pays: a walk of the model's layers (~2-3 us for three Dense layers), and the key of a model
    of the library's own layers only is its identity, as before."""
    plain = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3), keras.layers.Dense(2)])
    unbuilt = fingerprint(plain)
    assert _user_layers(plain) == () and fingerprint(plain) == unbuilt
    plain(X)   # a call builds nothing that changes the key
    assert fingerprint(plain) == unbuilt
    model = sequential()
    before = fingerprint(model)
    assert fingerprint(model) == before
    scale_of(model).k = 3.0
    assert fingerprint(model) != before


@pytest.mark.parametrize("wrapped", [False, True])
def test_a_layer_added_to_a_sequential_after_a_call_gives_the_new_jacobian(wrapped):
    """``model.add`` keeps the model's identity: per_sample_gradients answered the one Dense layer's identity
    Jacobian [[1, 0], [0, 1]] after a Dense of constant 3 was added, where the model gives [[3, 3], [3, 3]]."""
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, kernel_initializer="identity")])
    fn = (lambda v: model(v)) if wrapped else model  # noqa: E731
    np.testing.assert_array_equal(gradlib.per_sample_gradients(fn, X).jacobian[0], np.eye(2))
    model.add(keras.layers.Dense(2, kernel_initializer=keras.initializers.Constant(3.0), use_bias=False))
    np.testing.assert_array_equal(gradlib.per_sample_gradients(fn, X).jacobian[0], np.full((2, 2), 3.0))
    model.pop()
    np.testing.assert_array_equal(gradlib.per_sample_gradients(fn, X).jacobian[0], np.eye(2))
