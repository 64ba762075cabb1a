"""One refusal per family: the same bad input gets the same kind of error with the same first sentence (the API's
name in it) from every API of its family (issue 38). A new refusal is a row of ``PER_ELEMENT_REFUSALS`` or
``PER_SAMPLE_REFUSALS``; a new API is an entry of ``PER_ELEMENT`` or ``PER_SAMPLE``.

Before ``gradlib._callable``, each API checked its inputs on its own: ``crosscheck`` refused as
``per_element_gradients``, ``per_element_gradients`` took a 1.1-million-element input that ``hessians`` refused,
``hvp`` returned a result for an integer output and ended in NumPy's ``TypeError`` for a string one, and the second
order failed inside TensorFlow (``slice index 0 of dimension 0 out of bounds``) where ``per_sample_gradients`` said
that fn must return one row per sample.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import tensorflow as tf

import keras

import gradlib
from gradlib import BatchMixingError, GradlibError, InputError, Limits

#: the per-element family: a function of a few tensors, ``xs`` as ``tape.gradient`` takes it
PER_ELEMENT = {
    "per_element_gradients": lambda fn, xs, limits: gradlib.per_element_gradients(fn, xs, limits=limits),
    "hessians": lambda fn, xs, limits: gradlib.hessians(fn, xs, limits=limits),
    "hvp": lambda fn, xs, limits: gradlib.hvp(fn, xs, xs, limits=limits),
    "crosscheck": lambda fn, xs, limits: gradlib.crosscheck(fn, xs, limits=limits),
}
#: the per-sample family: a function of a batch, the samples first
PER_SAMPLE = {
    "per_sample_gradients": lambda fn, x, limits: gradlib.per_sample_gradients(fn, x, limits=limits),
    "per_sample_hessians": lambda fn, x, limits: gradlib.per_sample_hessians(fn, x, limits=limits),
    "laplacian": lambda fn, x, limits: gradlib.laplacian(fn, x, limits=limits),
    "divergence": lambda fn, x, limits: gradlib.divergence(fn, x, limits=limits),
}

TEN = Limits(max_elements=10)


def square(x):
    return x * x


def raises(x):
    raise ZeroDivisionError("boom")


def mixes(x):   # each sample's output depends on every sample's input (as BatchNormalization in training)
    return x - tf.reduce_mean(x, axis=0)


#: token ids into an Embedding, given as floats: every derivative is 0 (Keras casts them back to int32). Hunt 54:
#: per_sample_gradients answered all-zero Jacobians without a word, per_element_gradients zeros with a warning
IDS = keras.Sequential([keras.Input((3,), dtype="int32", name="tokens"), keras.layers.Embedding(10, 2),
                        keras.layers.Flatten(), keras.layers.Dense(1, activation="tanh")])
IDS_REFUSAL = ("{api} cannot differentiate this model by its input 'tokens': the model declares it int32 (token ids, "
               "which an Embedding looks up), and ids are discrete")

# (case, fn, input, limits, error, the message's start with {api} for the API's name)
PER_ELEMENT_REFUSALS = [
    ("an int dtype", square, tf.constant([1, 2]), None, InputError,
     "{api} requires floating-point inputs, but xs is int32: TensorFlow's tape does not watch integer tensors"),
    ("a complex dtype", square, tf.constant([1.0 + 1j]), None, InputError,
     "{api} requires floating-point inputs, but xs is complex128: only real floating-point tensors have gradients"),
    ("an empty input", square, np.zeros((0, 2), np.float32), None, InputError,
     "{api} got an empty xs: shape (0, 2); give it at least one element"),
    ("one element over the limit", square, np.ones(11, np.float32), TEN, InputError,
     "{api}: xs has 11 elements; at most 10 are allowed"),
    ("a nested list with NaN", square, [[float("nan"), 1.0]], None, InputError,
     "{api} takes xs as a tensor, a list of tensors or a dict of them, and xs is a nested Python list"),
    ("a ragged nested list", square, [[1.0, 2.0], [3.0]], None, InputError,
     "{api} takes xs as a tensor, a list of tensors or a dict of them, and xs is a nested Python list"),
    ("a tf.RaggedTensor", square, tf.ragged.constant([[1.0, 2.0], [3.0]]), None, InputError,   # hunt 48: was
     "{api} takes xs as a dense array, and xs is a tf.RaggedTensor (rows of different lengths, shape (2, None)). "
     "Pad its rows to one length (xs.to_tensor())"),   # "object of type 'RaggedTensor' has no len()"
    ("a tf.SparseTensor", square, tf.sparse.from_dense([[1.0, 0.0]]), None, InputError,   # was: every index printed
     "{api} takes xs as a dense array, and xs is a tf.SparseTensor of dense shape (1, 2). Give "
     "tf.sparse.to_dense(xs)"),
    ("a masked array", square, np.ma.masked_array([1.0, 2.0], mask=[0, 1]), None, InputError,   # hunt 59: was
     "{api} takes xs as a plain array, and xs is a NumPy masked array with 1 of 2 values masked: it would be "
     "computed with the values under the mask"),   # [1, 4] and a gradient 4 for the masked value
    ("an empty list", square, [], None, InputError, "{api} needs at least one tensor in xs; got an empty list"),
    ("an empty dict", square, {}, None, InputError, "{api} needs at least one tensor in xs; got an empty dict"),
    ("a dict keyed by numbers", square, {1: tf.constant(1.0)}, None, InputError,
     "{api} takes xs as a dict with names (non-empty strings) as keys; got keys [1]"),
    ("two dtypes", square, [tf.constant(1.0), tf.constant(1.0, tf.float64)], None, InputError,
     "{api} needs xs of one dtype to lay their derivatives side by side; got float32, float64"),
    ("a non-callable", 3, tf.constant([1.0]), None, InputError, "{api} needs fn to be a callable"),
    ("an int output", lambda x: tf.cast(x, tf.int32), tf.constant([1.0]), None, GradlibError,
     "{api}: fn returned a int32 tensor: only floating-point outputs have gradients"),
    ("a string output", lambda x: "y", tf.constant([1.0]), None, GradlibError,
     "{api}: fn returned a string tensor: only floating-point outputs have gradients"),
    ("an output that is no tensor", lambda x: object(), tf.constant([1.0]), None, GradlibError,
     "{api}: fn must return a tensor (or a list of tensors); it returned object"),
    ("a function that raises", raises, tf.constant([1.0, 2.0]), None, GradlibError,
     "{api}: fn failed on inputs of shape (2,): ZeroDivisionError: boom"),
    ("an Embedding's ids as floats", IDS, tf.constant([[1.0, 2.0, 3.0]]), None, InputError, IDS_REFUSAL),
]

PER_SAMPLE_REFUSALS = [
    ("an int dtype", square, tf.constant([[1, 2]]), None, InputError,
     "{api} requires floating-point inputs, but x is int32: TensorFlow's tape does not watch integer tensors"),
    ("a complex dtype", square, tf.constant([[1.0 + 1j]]), None, InputError,
     "{api} requires floating-point inputs, but x is complex128: only real floating-point tensors have gradients"),
    ("an empty batch", square, np.zeros((0, 2), np.float32), None, InputError,
     "{api} got an empty x: shape (0, 2); give it at least one element"),
    ("one element over the limit", square, np.ones((11, 1), np.float32), TEN, InputError,
     "{api}: x has 11 elements; at most 10 are allowed"),
    ("a ragged nested list", square, [[1.0, 2.0], [3.0]], None, InputError,
     "{api} could not turn x into a tensor"),
    ("a tf.RaggedTensor", square, tf.ragged.constant([[1.0, 2.0], [3.0]]), None, InputError,
     "{api} takes x as a dense array, and x is a tf.RaggedTensor (rows of different lengths, shape (2, None)). "
     "Pad its rows to one length (x.to_tensor())"),
    ("a tf.SparseTensor", square, tf.sparse.from_dense([[1.0, 0.0]]), None, InputError,
     "{api} takes x as a dense array, and x is a tf.SparseTensor of dense shape (1, 2). Give tf.sparse.to_dense(x)"),
    ("a masked array", square, np.ma.masked_array([[1.0], [2.0]], mask=[[0], [1]]), None, InputError,
     "{api} takes x as a plain array, and x is a NumPy masked array with 1 of 2 values masked"),
    ("no batch axis", square, [1.0, 2.0], None, InputError,
     "{api} needs a batch of shape (B, features...), but x has shape (2,)"),
    ("an empty list", square, [], None, InputError,
     "{api} needs a batch of shape (B, features...), but x has shape (0,)"),
    ("several arrays for a plain function", square, [np.ones((1, 2)), np.ones((1, 2))], None, InputError,
     "{api} takes x as one array of shape (B, d), the samples first"),
    ("a non-callable", 3, [[1.0, 2.0]], None, InputError, "{api} needs fn to be a callable"),
    ("an int output", lambda x: tf.cast(x, tf.int32), [[1.0, 2.0]], None, GradlibError,
     "{api}: fn must return floating-point values; it returned int32"),
    ("an output that drops the batch", lambda x: "y", [[1.0, 2.0]], None, GradlibError,
     "{api}: fn must return one row per sample, but on a batch of shape (1, 2) it returned shape ()"),
    ("an output transposed", lambda x: tf.transpose(x * x), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], None,
     GradlibError, "{api}: fn must return one row per sample, but on a batch of shape (1, 2) it returned shape (2, 1)"),
    ("a function that raises", raises, [[1.0, 2.0]], None, GradlibError,
     "{api}: fn failed on a batch of shape (1, 2): ZeroDivisionError: boom"),
    ("outputs that mix samples", mixes, [[1.0, 2.0], [3.0, 5.0]], None, BatchMixingError,
     "{api}: the samples of the batch are not independent"),
    ("an Embedding's ids as floats", IDS, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], None, InputError, IDS_REFUSAL),
]


def _cases(apis: dict, refusals: list) -> list:
    return [pytest.param(api, *row[1:], id=f"{row[0]}-{api}") for row in refusals for api in apis]


def _refused(call, api: str, fn, x, limits, error: type, start: str) -> None:
    with pytest.raises(error) as info:
        call(fn, x, limits or Limits())
    assert type(info.value) is error, f"{api} raised {type(info.value).__name__}: {info.value}"
    assert re.match(re.escape(start.format(api=api)), str(info.value)), str(info.value)


@pytest.mark.parametrize("api, fn, x, limits, error, start", _cases(PER_ELEMENT, PER_ELEMENT_REFUSALS))
def test_every_per_element_api_refuses_a_bad_input_the_same_way(api, fn, x, limits, error, start):
    _refused(PER_ELEMENT[api], api, fn, x, limits, error, start)


@pytest.mark.parametrize("api, fn, x, limits, error, start", _cases(PER_SAMPLE, PER_SAMPLE_REFUSALS))
def test_every_per_sample_api_refuses_a_bad_input_the_same_way(api, fn, x, limits, error, start):
    _refused(PER_SAMPLE[api], api, fn, x, limits, error, start)


@pytest.mark.parametrize("api", PER_ELEMENT)
def test_every_per_element_api_takes_the_last_element_within_the_limit(api):
    # 10 elements under max_elements=10: taken (the first bad value, 11, is refused above); the reference: d(x^2) = 2x
    x = tf.range(1.0, 11.0)
    result = PER_ELEMENT[api](lambda v: tf.reduce_sum(v * v), x, TEN)
    if api == "per_element_gradients":
        np.testing.assert_allclose(result.jacobian, [2.0 * x.numpy()])
    if api == "hessians":
        np.testing.assert_allclose(result.hessian[0], 2.0 * np.eye(10))


@pytest.mark.parametrize("api", PER_SAMPLE)
def test_every_per_sample_api_takes_the_last_element_within_the_limit(api):
    x = np.arange(1.0, 11.0, dtype=np.float32).reshape(5, 2)
    result = PER_SAMPLE[api](square, x, TEN)
    if api == "divergence":
        np.testing.assert_allclose(result.divergence, 2.0 * x.sum(axis=1))


@pytest.mark.parametrize("api", PER_SAMPLE)
def test_every_per_sample_api_takes_a_nested_list_with_nan_as_a_batch_and_says_so(api):
    # a NaN element is not refused by either family: its derivatives are NaN where it reaches, and a warning says so
    result = PER_SAMPLE[api](square, [[float("nan"), 1.0], [2.0, 3.0]], Limits())
    assert any("NaN" in w for w in result.warnings), result.warnings


def test_the_table_covers_every_api_of_both_families():
    public = {"per_element_gradients", "hessians", "hvp", "crosscheck", "per_sample_gradients",
              "per_sample_hessians", "laplacian", "divergence"}
    assert set(PER_ELEMENT) | set(PER_SAMPLE) == public
    assert public <= set(gradlib.__all__)


@tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
def _one_sample_signature(x):
    return x * x


@pytest.mark.parametrize("api", PER_SAMPLE)
def test_every_per_sample_api_advises_a_fixed_input_signature_and_the_advice_is_accepted(api):
    """A tf.function whose input_signature fixes one sample's shape cannot take a batch: every per-sample API says
    which spec to declare, and both changes it offers (that spec, or fn.python_function) are taken."""
    x = np.linspace(0.5, 2.0, 12).reshape(4, 3).astype(np.float32)
    with pytest.raises(GradlibError) as caught:
        PER_SAMPLE[api](_one_sample_signature, x, Limits())
    text = str(caught.value)
    assert text.startswith(f"{api}: fn failed on a batch of shape (1, 3)")
    assert "input_signature fixes its input to shape (3,)" in text
    assert "declare tf.TensorSpec([None, 3], tf.float32)" in text and "fn.python_function" in text
    declared = tf.function(_one_sample_signature.python_function,
                           input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    for fixed in (declared, _one_sample_signature.python_function):
        assert PER_SAMPLE[api](fixed, x, Limits()) is not None


def test_a_signature_that_takes_the_batch_or_a_plain_failure_gets_no_signature_advice():
    from gradlib._callable._outputs import signature_advice
    batch = tf.zeros((1, 3))
    assert signature_advice(_one_sample_signature, batch).startswith(". fn is a tf.function")
    assert signature_advice(tf.function(square, input_signature=[tf.TensorSpec([None, 3])]), batch) == ""
    assert signature_advice(tf.function(square), batch) == "" and signature_advice(square, batch) == ""
