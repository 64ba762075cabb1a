"""Rows labelled by output name in every API (issue 39 item 4): a Keras model's named outputs, single and several.

Before ``gradlib._callable._outputs.whole_output``, ``per_element_gradients`` and ``hessians`` labelled a model's
one output ``y[0,0]`` where the per-sample APIs said ``price[0]``, and failed on a model of two outputs of different
shapes (``tf.stack``: "Shapes of all inputs must match").
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib

X = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)


def _models():
    keras.utils.set_random_seed(39)
    inp = keras.Input((2,), name="features")
    hidden = keras.layers.Dense(3, activation="tanh", name="hidden")(inp)
    one = keras.Model(inp, keras.layers.Dense(2, name="price")(hidden))
    two = keras.Model(inp, [keras.layers.Dense(2, name="price")(hidden), keras.layers.Dense(1, name="kind")(hidden)])
    return one, two


ONE, TWO = _models()
PRICE = ("price[0,0]", "price[0,1]", "price[1,0]", "price[1,1]")
BOTH = PRICE + ("kind[0,0]", "kind[1,0]")


def _whole_jacobian(model, x):
    """The reference: one tape, each output flattened and joined in the model's order."""
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = model(x)
        y = tf.concat([tf.reshape(t, [-1]) for t in (y if isinstance(y, list) else [y])], axis=0)
    return y.numpy(), tape.jacobian(y, x).numpy().reshape(y.shape[0], -1)


@pytest.mark.parametrize("model, rows", [(ONE, PRICE), (TWO, BOTH)], ids=["one output", "two outputs"])
def test_per_element_gradients_labels_a_model_s_rows_by_output_name(model, rows):
    result = gradlib.per_element_gradients(model, X)
    y, jac = _whole_jacobian(model, X)
    assert result.row_labels == rows
    np.testing.assert_allclose(result.jacobian, jac, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.ravel(result.y), y, rtol=1e-6)


@pytest.mark.parametrize("model, rows", [(ONE, PRICE), (TWO, BOTH)], ids=["one output", "two outputs"])
def test_hessians_and_crosscheck_label_a_model_s_rows_by_output_name(model, rows):
    assert gradlib.hessians(model, X).row_labels == rows
    assert gradlib.hvp(model, X, np.ones_like(X)).row_labels == rows
    assert gradlib.crosscheck(model, X, modes=("eager", "graph")).row_labels == rows


def test_a_compiled_warm_call_still_labels_two_outputs_by_name():
    # a warm compiled call reuses a trace made for an earlier problem: its labels must not depend on f having run
    first = gradlib.per_element_gradients(TWO, X, compiled=True)
    again = gradlib.per_element_gradients(TWO, X, compiled=True)
    assert first.row_labels == again.row_labels == BOTH


@pytest.mark.parametrize("model, rows", [(ONE, ("price[0]", "price[1]")), (TWO, ("price[0]", "price[1]", "kind[0]"))],
                         ids=["one output", "two outputs"])
def test_the_per_sample_apis_label_a_model_s_rows_by_output_name(model, rows):
    assert gradlib.per_sample_gradients(model, X).row_labels == rows
    assert gradlib.per_sample_hessians(model, X).row_labels == rows
    assert gradlib.laplacian(model, X).row_labels == rows


def test_a_function_s_dict_of_outputs_is_labelled_by_its_keys_and_a_plain_list_stays_stacked():
    x = tf.constant([1.0, 2.0])
    named = gradlib.per_element_gradients(lambda v: {"a": v * v, "b": tf.reduce_sum(v)}, x)
    assert named.row_labels == ("a[0]", "a[1]", "b")
    np.testing.assert_allclose(named.jacobian, [[2.0, 0.0], [0.0, 4.0], [1.0, 1.0]])
    stacked = gradlib.per_element_gradients(lambda v: [v[0] * v[1], v[0] ** 2], x)
    assert stacked.row_labels == ("y[0]", "y[1]")
    np.testing.assert_allclose(stacked.jacobian, [[2.0, 1.0], [2.0, 0.0]])


def test_an_output_is_never_labelled_by_an_input_s_name():
    # xs given alone is the column "x": a model's output named "x" would make rows that read as columns
    inp = keras.Input((2,), name="features")
    model = keras.Model(inp, keras.layers.Dense(1, name="x")(inp))
    result = gradlib.per_element_gradients(model, X)
    assert result.col_labels[0] == "x[0,0]" and result.row_labels == ("y[0,0]", "y[1,0]")
    assert gradlib.per_element_gradients(lambda d: d["y"] * 2.0, {"y": tf.constant([1.0])}).row_labels == ("out[0]",)


def test_a_function_whose_output_depends_on_the_input_s_dtype_is_sized_again_for_each_dtype():
    # the remembered output shape is keyed on the sample's dtype too: a float64 call after a float32 one of the same
    # function and shape must not reuse the float32 call's rows
    fn = lambda x: x * 2.0 if x.dtype == tf.float32 else tf.concat([x, x * 3.0], axis=1)   # noqa: E731
    r32 = gradlib.per_sample_gradients(fn, np.ones((3, 2), np.float32))
    r64 = gradlib.per_sample_gradients(fn, np.ones((3, 2), np.float64))
    assert r32.row_labels == ("y[0]", "y[1]") and r32.jacobian.shape == (3, 2, 2)
    assert r64.row_labels == ("y[0]", "y[1]", "y[2]", "y[3]") and r64.jacobian.shape == (3, 4, 2)
    np.testing.assert_array_equal(r64.jacobian[1], [[1, 0], [0, 1], [3, 0], [0, 3]])


def test_the_size_limit_reads_the_output_of_this_dtype_not_one_remembered_for_another():
    # the output's size is remembered per function, sample shape AND dtype: a float32 call that fits must not let a
    # float64 call of the same function and shape, whose output is 500 times wider, past the Jacobian limit
    fn = lambda x: x * 2.0 if x.dtype == tf.float32 else tf.tile(x, [1, 500])   # noqa: E731
    limits = gradlib.Limits(max_jacobian=120)
    assert gradlib.per_sample_gradients(fn, np.ones((3, 2), np.float32), limits=limits).jacobian.shape == (3, 2, 2)
    with pytest.raises(gradlib.ExpressionError, match=r"^the per-sample Jacobians would have 6,000 entries \(batch 3 "
                       r"x 1000 outputs x 2 inputs\); at most 120 are allowed"):
        gradlib.per_sample_gradients(fn, np.ones((3, 2), np.float64), limits=limits)
