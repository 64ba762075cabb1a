"""The forward Laplacian's layer rules take a model only when they are its real computation (issue 35): a class
that computes something else in its call gets a tape method, checked against a per-sample loop of nested tapes."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from own_models import CallOverridden, TripledDense

X = np.random.default_rng(35).normal(size=(5, 3))


def layers(dense=keras.layers.Dense):
    keras.utils.set_random_seed(4)
    return [keras.Input((3,), dtype="float64"), dense(4, activation="tanh", dtype="float64"),
            keras.layers.Dense(1, dtype="float64")]


def loop_of_tapes(model, x):
    """Per sample, eagerly: the Hessian of y[0] by two nested plain tapes on model(x) itself."""
    out = []
    for row in x:
        xb = tf.constant(row[None])
        with tf.GradientTape() as outer:
            outer.watch(xb)
            with tf.GradientTape() as inner:
                inner.watch(xb)
                y = model(xb)[0, 0]
            g = inner.gradient(y, xb)[0]
        out.append(outer.jacobian(g, xb)[:, 0, :].numpy())
    return np.array(out)


def instance_call(model):
    """A model whose call is replaced on the instance: its class is Keras' own, its call is not."""
    plain = model.call
    model.call = lambda x, training=None, mask=None: plain(x) * 3.0 + tf.reduce_sum(x ** 2, -1, keepdims=True)
    return model


MODELS = {"sequential subclass overriding call": lambda: CallOverridden(layers()),
          "Dense subclass overriding call": lambda: keras.Sequential(layers(TripledDense)),
          "call replaced on the instance": lambda: instance_call(keras.Sequential(layers()))}


@pytest.mark.parametrize("name", MODELS)
def test_a_model_whose_call_is_not_its_layers_gets_the_laplacian_of_its_call(name):
    model = MODELS[name]()
    hessians = loop_of_tapes(model, X)
    lap = gradlib.laplacian(model, X)
    diag = gradlib.per_sample_hessians(model, X, diagonal=True)
    assert lap.method != "forward_laplacian" and diag.method != "forward_laplacian"
    np.testing.assert_allclose(lap.laplacian[:, 0], np.trace(hessians, axis1=1, axis2=2), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(diag.diagonal[:, 0], np.diagonal(hessians, axis1=1, axis2=2), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(lap.y, model(X).numpy(), rtol=1e-12)


def test_a_class_that_overrides_call_is_refused_forward_laplacian_by_its_layer_rules():
    with pytest.raises(gradlib.ExpressionError, match=r"cannot use method='forward_laplacian': .*layer rules only"):
        gradlib.laplacian(CallOverridden(layers()), X, method="forward_laplacian")


def shifted_rules(monkeypatch):
    """Layer rules that are not the model's computation although its classes are Keras' own (the last bias read
    1 too high): what only the check of the rules' y against model(x) can catch."""
    from gradlib._second import _runner

    real = _runner.dense_layers

    def shifted(model):
        kernels, why = real(model)
        return [*kernels[:-1], (kernels[-1][0], kernels[-1][1] + 1.0, kernels[-1][2])] if kernels else [], why

    monkeypatch.setattr(_runner, "dense_layers", shifted)


def test_rules_whose_y_is_not_the_model_s_call_give_way_to_a_tape_method_or_are_refused_when_named(monkeypatch):
    shifted_rules(monkeypatch)
    keras.utils.set_random_seed(9)
    model = keras.Sequential(layers())
    with pytest.raises(gradlib.ExpressionError, match=r"cannot use method='forward_laplacian' on this model: its "
                                                      r"layer rules give a y that differs from the model's own call"):
        gradlib.laplacian(model, X, method="forward_laplacian")
    r = gradlib.laplacian(model, X)
    assert r.method != "forward_laplacian" and any("differs from the model's own call" in w for w in r.warnings)
    np.testing.assert_allclose(r.laplacian[:, 0], np.trace(loop_of_tapes(model, X), axis1=1, axis2=2), rtol=1e-9)


def test_a_subclass_that_only_names_itself_keeps_the_forward_laplacian():
    class Named(keras.Sequential):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)

    model = Named(layers())
    r = gradlib.laplacian(model, X)
    assert r.method == "forward_laplacian"
    np.testing.assert_allclose(r.laplacian[:, 0], np.trace(loop_of_tapes(model, X), axis1=1, axis2=2), rtol=1e-9)


class Transposed(keras.Sequential):
    """Declares (2, 3) per sample (its Reshape), returns (3, 2): the same size, another shape."""

    def call(self, x, training=None, mask=None):
        return tf.transpose(super().call(x), (0, 2, 1))


def test_a_result_s_y_has_the_shape_of_the_model_s_call_not_its_declared_output_shape():
    keras.utils.set_random_seed(5)
    model = Transposed([keras.Input((3,), dtype="float64"), keras.layers.Dense(6, activation="tanh", dtype="float64"),
                        keras.layers.Reshape((2, 3), dtype="float64")])
    r = gradlib.per_sample_hessians(model, X, diagonal=True)
    np.testing.assert_array_equal(r.y, model(X).numpy())
    lap = gradlib.laplacian(model, X)
    np.testing.assert_array_equal(lap.y, model(X).numpy())


class ReluPlusSquares(keras.Sequential):
    def call(self, x, training=None, mask=None):
        return super().call(x) + tf.reduce_sum(x ** 2, -1, keepdims=True)


class SquaredDense(keras.layers.Dense):
    def call(self, x, training=None):
        return super().call(x) ** 2


@pytest.mark.parametrize("make", [
    lambda: ReluPlusSquares([keras.Input((3,), dtype="float64"), keras.layers.Dense(4, "relu", dtype="float64"),
                             keras.layers.Dense(1, dtype="float64")]),
    lambda: keras.Sequential([keras.Input((3,), dtype="float64"), SquaredDense(4, "relu", dtype="float64"),
                              keras.layers.Dense(1, dtype="float64")])], ids=["model", "layer"])
def test_layers_are_not_called_piecewise_linear_when_the_call_is_not_theirs(make):
    keras.utils.set_random_seed(6)
    model = make()
    r = gradlib.laplacian(model, X)
    np.testing.assert_allclose(r.laplacian[:, 0], np.trace(loop_of_tapes(model, X), axis1=1, axis2=2), rtol=1e-9)
    assert np.abs(r.laplacian).min() > 0
    assert not any("piecewise linear" in w for w in r.warnings), r.warnings


class Doubled(keras.Sequential):
    """Returns two outputs per sample where its last Dense layer has one unit."""

    def call(self, x, training=None, mask=None):
        y = super().call(x)
        return tf.concat([y, y ** 2], axis=-1)


def test_the_hessian_limit_counts_the_outputs_the_call_returns_at_its_last_good_and_first_bad_value():
    model = Doubled(layers())   # 5 samples x 2 outputs x 3 x 3 inputs = 90 entries (the last kernel says 1 output)
    r = gradlib.per_sample_hessians(model, X, limits=gradlib.Limits(max_hessian=90))
    assert r.hessians.shape == (5, 2, 3, 3)
    np.testing.assert_allclose(r.hessians[:, 0], loop_of_tapes(model, X), rtol=1e-9, atol=1e-12)
    with pytest.raises(gradlib.ExpressionError, match=r"would return 90 second-order entries \(5 x 2 outputs x 3 x 3 "
                                                      r"inputs\); at most 89 are allowed"):
        gradlib.per_sample_hessians(model, X, limits=gradlib.Limits(max_hessian=89))


class FrozenDense(keras.layers.Dense):
    """A Dense layer whose call gives Keras' own value with no derivative through it (stop_gradient): the same y as
    the layer rules compute, other derivatives. Only the class check can tell (the y check cannot)."""

    def call(self, x, training=None):
        return tf.stop_gradient(super().call(x))


def test_a_dense_subclass_with_keras_own_value_but_other_derivatives_is_not_read_by_the_layer_rules():
    # a planted bug that took any Dense subclass (isinstance) survived every test: same_output saw equal y's
    model = keras.Sequential([keras.Input((3,), dtype="float64"), FrozenDense(4, activation="tanh", dtype="float64"),
                              keras.layers.Dense(1, dtype="float64")])
    r = gradlib.laplacian(model, X)
    assert r.method != "forward_laplacian"
    np.testing.assert_array_equal(r.laplacian, np.zeros((len(X), 1)))   # nothing reaches x through stop_gradient
    with pytest.raises(gradlib.ExpressionError, match="forward_laplacian"):
        gradlib.laplacian(model, X, method="forward_laplacian")
