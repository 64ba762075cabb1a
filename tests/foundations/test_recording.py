"""A NumPy answer asked for under a recording tape warns (gradlib._foundations._runtime): its weight gradients are None."""

from __future__ import annotations

import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import NotDifferentiableWarning
from gradlib._foundations import _runtime

#: every public API that returns NumPy computed from a user's function, model or text
NUMPY_APIS = ("evaluate", "per_element_gradients", "compare", "crosscheck", "per_sample_gradients",
              "per_example_gradients", "scan", "hessians", "hvp", "per_sample_hessians", "laplacian", "divergence")


def _model() -> keras.Model:
    keras.utils.set_random_seed(3)
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)])


X = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], np.float32)

#: name -> (a call on the model's output, the answer's array whose loss a user would differentiate)
CALLS = {
    "laplacian": (lambda m: gradlib.laplacian(m, X), lambda r: r.laplacian),
    "per_sample_hessians": (lambda m: gradlib.per_sample_hessians(m, X, diagonal=True), lambda r: r.diagonal),
    "per_sample_gradients": (lambda m: gradlib.per_sample_gradients(m, X), lambda r: r.jacobian),
    "per_element_gradients": (lambda m: gradlib.per_element_gradients(m, tf.constant(X)), lambda r: r.jacobian),
    "hessians": (lambda m: gradlib.hessians(lambda x: tf.reduce_sum(m(x[None])), tf.constant(X[0])),
                 lambda r: r.hessian),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_under_a_tape_watching_the_weights_it_warns_and_the_weight_gradients_really_are_none(name):
    model, (call, array) = _model(), CALLS[name]
    with pytest.warns(NotDifferentiableWarning, match=rf"gradlib\.{name} returns NumPy arrays.*is None") as seen:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(array(call(model))))
    grads = tape.gradient(loss, model.trainable_variables)
    assert grads == [None] * len(model.trainable_variables)   # what the warning says TensorFlow does
    assert len(tape.watched_variables()) == len(model.trainable_variables)   # the tape did watch the weights
    assert [w.filename for w in seen] == [__file__]   # it points at the caller's line, not gradlib's


def test_the_warning_names_the_tensor_api_where_one_exists():
    with pytest.warns(NotDifferentiableWarning, match=r"use gradlib\.pde\.derivatives or gradlib\.pde\.residual"):
        with tf.GradientTape():
            gradlib.laplacian(_model(), X)
    with pytest.warns(NotDifferentiableWarning, match=r"gradlib\.evaluate .*TensorFlow operations on the tape"):
        with tf.GradientTape():
            gradlib.evaluate("x*x", {"x": [1.0, 2.0]})


def test_without_a_tape_or_with_recording_stopped_nothing_warns():
    model = _model()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotDifferentiableWarning)
        gradlib.laplacian(model, X)
        gradlib.evaluate("x*x", {"x": [1.0, 2.0]}, order=2)
        with tf.GradientTape() as tape:
            with tape.stop_recording():
                gradlib.laplacian(model, X)


def test_gradlib_own_tapes_and_nested_calls_do_not_warn_again():
    with pytest.warns(NotDifferentiableWarning) as seen:
        with tf.GradientTape():
            gradlib.evaluate("x*x", {"x": [1.0, 2.0]}, order=2)   # evaluate -> typed Hessians -> hessians
            gradlib.examples.second_order_mistakes()             # runs its own tapes around laplacian
            gradlib.examples.poisson_example(3)
            gradlib.examples.demonstrate("nan_poisoning")        # calls evaluate
    assert [str(w.message).split()[0] for w in seen] == ["gradlib.evaluate"]


def test_a_tensorflow_without_the_recording_probe_means_no_warning_not_a_failure(monkeypatch):
    def broken():
        raise AttributeError("TFE_Py_TapeSetIsEmpty")

    with tf.GradientTape():
        assert _runtime.recording()
        monkeypatch.setattr(_runtime, "_could_possibly_record", lambda: broken)
        assert not _runtime.recording()
        monkeypatch.setattr(_runtime, "_could_possibly_record", lambda: None)
        assert not _runtime.recording()


@pytest.mark.parametrize("name", NUMPY_APIS)
def test_every_numpy_api_warns_and_says_so_in_its_docstring(name):
    api = getattr(gradlib, name)
    assert getattr(api, "returns_numpy", None) == f"gradlib.{name}"
    assert "Returns NumPy" in api.__doc__ and "NotDifferentiableWarning" in api.__doc__


PER_EXAMPLE_LOSS = keras.losses.MeanSquaredError()
#: name -> a call on tensors, as it would run inside a user's tf.function (hunt 42: each let a TensorFlow error out,
#: "Cannot convert a symbolic tf.Tensor" or "'SymbolicTensor' object has no attribute 'numpy'", blaming fn)
IN_GRAPH = {
    "per_element_gradients": lambda m, x: gradlib.per_element_gradients(lambda v: v * v, x).jacobian,
    "per_sample_gradients": lambda m, x: gradlib.per_sample_gradients(m, x).jacobian,
    "per_example_gradients": lambda m, x: gradlib.per_example_gradients(m, x, x[:, :1], loss=PER_EXAMPLE_LOSS).norms,
    "laplacian": lambda m, x: gradlib.laplacian(m, x).laplacian,
}


@pytest.mark.parametrize("name", sorted(IN_GRAPH))
def test_called_inside_a_tf_function_it_refuses_in_its_own_words(name):
    model, call = _model(), IN_GRAPH[name]
    step = tf.function(lambda x: call(model, x), autograph=False)
    with pytest.raises(gradlib.GradlibError, match=rf"^gradlib\.{name} was called inside a tf\.function, where its "
                                                   r"inputs are symbolic tensors.*Call it outside the tf\.function"):
        step(tf.constant(X))
    assert np.all(np.isfinite(call(model, tf.constant(X))))   # eagerly, the same call answers
