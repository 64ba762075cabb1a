"""A callable gradlib compiles on its own answers like the callable: values it reads are not frozen.

``auto`` compiles a problem of 64 outputs and 64 inputs; a trace turns the NumPy arrays and numbers a function
reads into constants, so each test changes such a value after a compiled call and checks the next answer. The
end: whether a Keras model's structure may stand for its call (what every shortcut that reads a model asks).
"""

from __future__ import annotations

import functools

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._callable import _state
from gradlib._callable._state import computes_as, plain_model, same_output

X = tf.constant(np.linspace(0.5, 1.5, 64), tf.float32)
SCALE = np.array(1.0, np.float32)
FACTOR = 1.0


def _diag(r) -> np.ndarray:
    # the case at issue: auto compiled the callable itself (the tape's jacobian, or the structured Jacobian of its trace)
    assert r.compiled and r.method in ("jacobian", "structured")
    np.testing.assert_allclose(r.jacobian, np.diag(np.diag(r.jacobian)))
    return np.diag(r.jacobian)


def test_a_global_array_changed_in_place_is_seen():
    fn = lambda x: x * SCALE   # noqa: E731
    assert _diag(gradlib.per_element_gradients(fn, X))[0] == 1.0
    SCALE[...] = 5.0
    try:
        assert _diag(gradlib.per_element_gradients(fn, X))[0] == 5.0   # J[0, 0] stayed 1 before
    finally:
        SCALE[...] = 1.0


def test_a_global_number_rebound_is_seen():
    global FACTOR
    fn = lambda x: x * FACTOR   # noqa: E731
    assert _diag(gradlib.per_element_gradients(fn, X))[0] == 1.0
    FACTOR = 3.0
    try:
        assert _diag(gradlib.per_element_gradients(fn, X))[0] == 3.0
    finally:
        FACTOR = 1.0


def test_a_closure_cell_a_default_and_a_helper_function_are_seen():
    scale = np.float32(2.0)

    def helper(x):
        return x * SCALE

    def fn(x, offset=[1.0]):   # noqa: B006 - a mutable default is exactly the kind of value that changes
        return helper(x) * scale * offset[0]

    assert _diag(gradlib.per_element_gradients(fn, X))[0] == 2.0
    scale = np.float32(7.0)
    assert _diag(gradlib.per_element_gradients(fn, X))[0] == 7.0
    fn.__defaults__[0][0] = 0.5
    assert _diag(gradlib.per_element_gradients(fn, X))[0] == 3.5
    SCALE[...] = 2.0
    try:
        assert _diag(gradlib.per_element_gradients(fn, X))[0] == 7.0
    finally:
        SCALE[...] = 1.0


def test_an_unchanged_function_reuses_its_trace():
    from gradlib._perelement import _compute
    weights = np.linspace(1.0, 2.0, 64).astype(np.float32)
    fn = lambda x: x * weights   # noqa: E731
    gradlib.per_element_gradients(fn, X)
    before = _compute._JACOBIAN_FUNCTIONS.hits
    r = gradlib.per_element_gradients(fn, X)
    assert _compute._JACOBIAN_FUNCTIONS.hits == before + 1
    np.testing.assert_allclose(_diag(r), weights)


def test_per_sample_gradients_sees_a_changed_array():
    bias = np.ones(3, np.float32)
    fn = lambda t: t * t * bias   # noqa: E731
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    first = gradlib.per_sample_gradients(fn, x)
    bias[:] = 10.0
    second = gradlib.per_sample_gradients(fn, x)
    np.testing.assert_allclose(np.einsum("bii->bi", first.jacobian), 2 * x)
    np.testing.assert_allclose(np.einsum("bii->bi", second.jacobian), 20 * x)


@pytest.mark.parametrize("value, same", [(np.nan, True), ([1.0, 2.0], True), (np.arange(3), True)])
def test_fingerprints_are_stable_for_equal_values(value, same):
    fn = functools.partial(lambda x, v: x, v=value)
    assert (_state.fingerprint(fn) == _state.fingerprint(fn)) is same
    assert _state.fingerprint(fn) != ()


NESTED = np.array(1.0, np.float32)


def test_a_global_read_inside_a_nested_lambda_or_comprehension_is_seen():
    # the global is named only by the inner code objects (co_consts), never by the outer function's own code
    inner = lambda x: (lambda y: y * NESTED)(x)   # noqa: E731
    comprehension = lambda x: tf.add_n([x * NESTED for _ in range(1)])   # noqa: E731
    generator = lambda x: tf.add_n(list(x * NESTED for _ in range(1)))   # noqa: E731
    for fn in (inner, comprehension, generator):
        assert "NESTED" not in fn.__code__.co_names
        before = _state.fingerprint(fn)
        assert _diag(gradlib.per_element_gradients(fn, X, compiled=True))[0] == 1.0
        NESTED[...] = 5.0
        try:
            assert _state.fingerprint(fn) != before
            assert _diag(gradlib.per_element_gradients(fn, X, compiled=True))[0] == 5.0   # stayed 1.0 when missed
        finally:
            NESTED[...] = 1.0
        assert _state.fingerprint(fn) == before


# ---------------------------------------------------------------- a model's structure and its call


class OwnCall(keras.Sequential):
    def call(self, x, training=None, mask=None):
        return super().call(x) * 3.0


class OwnBuild(keras.layers.Dense):
    def build(self, shape):
        super().build(shape)


class OnlyInit(keras.layers.Dense):
    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)


class OnlyTraining(keras.Sequential):
    def train_step(self, data):
        return super().train_step(data)


class OwnCallFunctional(keras.Model):
    def __init__(self):
        inputs = keras.Input((2,))
        super().__init__(inputs, keras.layers.Dense(1)(inputs))

    def call(self, x, training=None, mask=None):
        return super().call(x) * 3.0


def test_a_class_that_defines_what_a_call_runs_is_not_its_base():
    assert computes_as(keras.layers.Dense(2), keras.layers.Dense)
    assert computes_as(OnlyInit(2), keras.layers.Dense)
    assert not computes_as(OwnBuild(2), keras.layers.Dense)
    assert not computes_as(keras.layers.Dense(2), keras.layers.Conv1D)
    patched = keras.layers.Dense(2)
    patched.call = lambda x: x * 3.0   # Keras' own class, another call
    assert not computes_as(patched, keras.layers.Dense)
    assert plain_model(keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]))
    assert plain_model(OnlyTraining([keras.Input((2,)), keras.layers.Dense(1)]))
    assert not plain_model(OwnCall([keras.Input((2,)), keras.layers.Dense(1)]))
    inputs = keras.Input((2,))
    assert plain_model(keras.Model(inputs, keras.layers.Dense(1)(inputs)))
    assert not plain_model(OwnCallFunctional())


@pytest.mark.parametrize("dtype, good, bad", [("float32", 0.99e-4, 1.01e-4), ("float64", 0.99e-9, 1.01e-9),
                                              ("float16", 1.9e-2, 2.1e-2)])
def test_same_output_at_the_last_good_and_first_bad_gap(dtype, good, bad):
    y = np.array([[2.0, -1.0]])
    assert same_output(y + [[0.0, good * 2]], y, dtype)        # relative to the largest magnitude, 2
    assert not same_output(y + [[0.0, bad * 2]], y, dtype)


def test_same_output_needs_the_same_shape_and_the_same_non_finite_cells():
    assert not same_output(np.ones((2, 1)), np.ones((1, 2)), "float64")
    assert same_output(np.array([np.nan, np.inf, 1.0]), np.array([np.nan, np.inf, 1.0]), "float64")
    assert not same_output(np.array([np.nan, 1.0]), np.array([0.0, 1.0]), "float64")
    assert not same_output(np.array([np.inf, 1.0]), np.array([-np.inf, 1.0]), "float64")
    assert same_output(tf.constant([1.0]), tf.constant([1.0]), "float32")


def _marker():
    scale = []   # the helper's own list, named as the caller's array on purpose

    def act(y):
        scale.append(1)
        return y
    return act


def test_a_cell_another_function_changes_does_not_hide_a_changed_array_in_a_cell_of_the_same_name():
    # act changes its cell scale; fn reads its own cell scale, an array: two cells, one name (by name alone the
    # array counted as changed by the function, by identity, and the in-place change was answered stale)
    act, scale = _marker(), np.array(2.0, np.float32)
    fn = lambda x: act(scale * x * x)   # noqa: E731
    x = tf.constant([1.0, 2.0])
    np.testing.assert_allclose(gradlib.per_element_gradients(fn, x, compiled=True).jacobian, np.diag([4.0, 8.0]))
    scale[...] = 3.0
    after = gradlib.per_element_gradients(fn, x, compiled=True)
    assert after.compiled
    np.testing.assert_allclose(after.jacobian, np.diag([6.0, 12.0]))   # d(3 x^2)/dx = 6x



def _act_with_a_default(y, scale=[]):   # noqa: B006 - a default the function changes
    scale.append(1)
    return y


def test_a_default_one_function_changes_does_not_hide_a_changed_array_default_of_the_same_name_in_another():
    # act changes its default scale (a list); scaled reads its own default scale (an array): two parameters, one
    # name (by name alone the array counted as changed by the function, by identity, and was answered stale)
    weights = np.array(2.0, np.float32)

    def scaled(y, scale=weights):
        return scale * y

    act = _act_with_a_default   # the cells are read in name order: act's changes are known when scaled is read
    fn = lambda x: scaled(act(x * x))   # noqa: E731
    x = tf.constant([1.0, 2.0])
    np.testing.assert_allclose(gradlib.per_element_gradients(fn, x, compiled=True).jacobian, np.diag([4.0, 8.0]))
    weights[...] = 3.0
    after = gradlib.per_element_gradients(fn, x, compiled=True)
    assert after.compiled
    np.testing.assert_allclose(after.jacobian, np.diag([6.0, 12.0]))   # d(3 x^2)/dx = 6x
