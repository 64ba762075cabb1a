"""Each refusal of second order (gradlib._second) at its last good and first bad value (issue 38, item 6).

A limit is tried at the value it allows (the answer is checked against a closed form, so "allowed" means "right")
and at the first value past it (refused with both numbers in gradlib's words, before anything is traced). A bad
option or input is refused naming the API, what it got and what to do.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import ExpressionError, InputError, Limits

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float64)   # 2 samples of 3 features


def cube(x):
    """Each sample's sum of cubes: its Hessian is diag(6 x), its Laplacian 6 sum(x)."""
    return tf.reduce_sum(x ** 3, axis=-1, keepdims=True)


def field(x):
    """x -> x**3, a vector field: its divergence is 3 sum(x**2)."""
    return x ** 3


# ---------------------------------------------------------------- max_elements, on x (one batch) and on joined inputs


@pytest.mark.parametrize("api", ["per_sample_hessians", "laplacian"])
def test_x_at_max_elements_is_computed_and_one_element_past_it_refused(api):
    run = getattr(gradlib, api)
    r = run(cube, X, limits=Limits(max_elements=6))
    value = r.hessians[:, 0] if api == "per_sample_hessians" else r.laplacian[:, 0]
    expected = np.stack([np.diag(6 * x) for x in X]) if api == "per_sample_hessians" else 6 * X.sum(axis=1)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    with pytest.raises(InputError, match=rf"^{api}: x has 6 elements; at most 5 are allowed$"):
        run(cube, X, limits=Limits(max_elements=5))


def test_several_inputs_joined_at_max_elements_are_computed_and_one_element_past_them_refused():
    def fn(d):
        return tf.reduce_sum(d["a"] ** 3, axis=-1, keepdims=True) + tf.reduce_sum(d["b"] ** 2, axis=-1, keepdims=True)

    parts = {"a": X[:, :2], "b": X[:, 2:]}
    r = gradlib.per_sample_hessians(fn, parts, limits=Limits(max_elements=6))
    np.testing.assert_allclose(r.hessians[:, 0], np.stack([np.diag([6 * x[0], 6 * x[1], 2.0]) for x in X]), rtol=1e-12)
    with pytest.raises(InputError, match=r"^per_sample_hessians: x has 6 elements; at most 5 are allowed$"):
        gradlib.per_sample_hessians(fn, parts, limits=Limits(max_elements=5))


def test_xs_of_hessians_at_max_elements_are_computed_and_one_element_past_them_refused():
    fn = lambda x: tf.reduce_sum(x ** 3)   # noqa: E731
    r = gradlib.hessians(fn, tf.constant([1.0, 2.0], tf.float64), limits=Limits(max_elements=2))
    np.testing.assert_allclose(r.hessian[0], np.diag([6.0, 12.0]), rtol=1e-12)
    with pytest.raises(InputError, match=r"^hessians: xs has 2 elements; at most 1 are allowed$"):
        gradlib.hessians(fn, tf.constant([1.0, 2.0], tf.float64), limits=Limits(max_elements=1))


# ---------------------------------------------------------------- hvp's two limits: entries and unrolled passes


def test_hvp_at_max_hessian_entries_is_computed_and_one_entry_past_it_refused():
    fn = lambda x: tf.stack([tf.reduce_sum(x ** 3), tf.reduce_sum(x ** 2)])   # noqa: E731
    x, v = tf.constant([1.0, 2.0, 3.0], tf.float64), tf.constant([1.0, 0.0, -1.0], tf.float64)
    r = gradlib.hvp(fn, x, v, limits=Limits(max_hessian=6))   # 2 outputs x 3 inputs
    np.testing.assert_allclose(r.hvp, [[6.0, 0.0, -18.0], [2.0, 0.0, -2.0]], rtol=1e-12)
    with pytest.raises(ExpressionError, match=r"^hvp would return 2 x 3 = 6 entries; at most 5 are allowed\. "
                                              r"Reduce the output \(for example with sum\) to at most 1 elements, or use at most 2 "
                                              r"input elements$"):
        gradlib.hvp(fn, x, v, limits=Limits(max_hessian=5))


def test_hvp_at_max_unrolled_passes_is_computed_and_one_pass_past_it_refused():
    fn = lambda x: x ** 3   # noqa: E731  (3 outputs: 3 passes)
    x, v = tf.constant([1.0, 2.0, 3.0], tf.float64), tf.constant([1.0, 1.0, 1.0], tf.float64)
    np.testing.assert_allclose(gradlib.hvp(fn, x, v, limits=Limits(max_unrolled=3)).hvp, np.diag([6.0, 12.0, 18.0]),
                               rtol=1e-12)
    with pytest.raises(ExpressionError, match=r"^hvp writes one pass per output element into its graph: 3 here, and "
                                              r"at most 2 are allowed"):
        gradlib.hvp(fn, x, v, limits=Limits(max_unrolled=2))


@pytest.mark.parametrize("method", ["forward", "nested_tapes", "", None])
def test_hvp_refuses_a_method_it_does_not_have_and_names_those_it_has(method):
    with pytest.raises(ExpressionError, match=rf"^hvp got method={method!r}; choose one of auto, "):
        gradlib.hvp(cube, tf.constant([1.0]), tf.constant([1.0]), method=method)


# ---------------------------------------------------------------- the cells of each kind: last good, first bad


@pytest.mark.parametrize("api, good, message", [
    ("laplacian", 2, r"laplacian would return 2 second-order entries \(2 x 1\); at most 1 are allowed"),
    # a vector field's divergence is counted per output: 2 samples x 3 outputs
    ("divergence", 6, r"divergence would return 6 second-order entries \(2 x 3\); at most 5 are allowed"),
])
def test_a_trace_s_entries_at_max_hessian_are_computed_and_one_past_it_refused(api, good, message):
    fn = cube if api == "laplacian" else field
    r = getattr(gradlib, api)(fn, X, limits=Limits(max_hessian=good))
    expected = 6 * X.sum(axis=1) if api == "laplacian" else 3 * (X ** 2).sum(axis=1)
    np.testing.assert_allclose(getattr(r, api)[:, 0] if getattr(r, api).ndim == 2 else getattr(r, api), expected,
                               rtol=1e-12)
    with pytest.raises(ExpressionError, match=message):
        getattr(gradlib, api)(fn, X, limits=Limits(max_hessian=good - 1))


def test_a_diagonal_at_max_hessian_is_computed_and_one_entry_past_it_refused():
    r = gradlib.per_sample_hessians(cube, X, diagonal=True, limits=Limits(max_hessian=6))   # 2 x 1 output x 3 inputs
    np.testing.assert_allclose(r.diagonal[:, 0], 6 * X, rtol=1e-12)
    with pytest.raises(ExpressionError, match=r"would return 6 second-order entries \(2 x 1 outputs x 3 inputs\); at "
                                              r"most 5 are allowed"):
        gradlib.per_sample_hessians(cube, X, diagonal=True, limits=Limits(max_hessian=5))


# ---------------------------------------------------------------- Hutchinson's probes: 2 to 10,000 whole numbers


@pytest.mark.parametrize("api", ["laplacian", "divergence"])
def test_two_probes_is_the_fewest_allowed_and_one_is_refused(api):
    fn = cube if api == "laplacian" else field
    r = getattr(gradlib, api)(fn, X, method="hutchinson", probes=2)
    assert np.all(np.isfinite(getattr(r, api)))
    with pytest.raises(ExpressionError, match=rf"^{api} got probes=1; give a whole number from 2 to 10,000$"):
        getattr(gradlib, api)(fn, X, method="hutchinson", probes=1)


@pytest.mark.parametrize("probes", [10_001, 0, -3, True, 2.0, "8", None.__class__])
def test_probes_that_are_not_a_whole_number_from_2_to_10000_are_refused_before_anything_runs(probes):
    with pytest.raises(ExpressionError, match=rf"^laplacian got probes={probes!r}; give a whole number from 2 to "
                                              r"10,000$".replace("(", r"\(").replace(")", r"\)")):
        gradlib.laplacian(cube, X, method="hutchinson", probes=probes)


# ---------------------------------------------------------------- inputs: the forms xs comes in


@pytest.mark.parametrize("xs, message", [
    ({}, r"hessians needs at least one tensor in xs; got an empty dict"),
    ({"": [1.0]}, r"hessians takes xs as a dict with names \(non-empty strings\) as keys; got keys \[''\]"),
    ({1: [1.0]}, r"hessians takes xs as a dict with names \(non-empty strings\) as keys; got keys \[1\]"),
    ([], r"hessians needs at least one tensor in xs; got an empty list"),
    ((), r"hessians needs at least one tensor in xs; got an empty tuple"),
    ([np.float32([1.0]), np.float64([1.0])], r"hessians needs xs of one dtype to lay their derivatives side by side; "
                                             r"got float32, float64\. Cast them to one"),
    (np.zeros((0,), np.float32), r"hessians got an empty xs: shape \(0,\)"),
    (np.array([1, 2], np.int64), r"hessians requires floating-point inputs, but xs is int64: .* tf\.cast\(xs, "),
])
def test_hessians_refuses_xs_it_cannot_lay_out(xs, message):
    with pytest.raises(InputError, match=message):
        gradlib.hessians(lambda x: tf.constant(1.0), xs)


def test_hvp_refuses_vs_of_other_shapes_or_names_than_xs():
    with pytest.raises(InputError, match=r"hvp needs vs in the same form and shapes as xs: xs has \[\(2,\)\], vs has "
                                         r"\[\(3,\)\]"):
        gradlib.hvp(cube, tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(InputError, match=r"hvp needs vs in the same form"):
        gradlib.hvp(lambda d: tf.reduce_sum(d["a"] ** 3), {"a": tf.constant([1.0])}, {"b": tf.constant([1.0])})


# ---------------------------------------------------------------- what fn returns


def test_fn_that_returns_no_tensor_is_refused_by_hessians():
    with pytest.raises(gradlib.GradlibError, match=r"^hessians: fn must return a tensor \(or a list of tensors\); it returned "
                                                   r"NoneType$"):
        gradlib.hessians(lambda x: None, tf.constant([1.0]))
    # a string is a tensor to TensorFlow: refused for its dtype
    with pytest.raises(gradlib.GradlibError, match=r"^hessians: fn returned a string tensor: only floating-point outputs have gradients\. "
                                                   r"Return a float tensor"):
        gradlib.hessians(lambda x: "y", tf.constant([1.0]))


def test_fn_that_returns_integers_is_refused_by_the_per_sample_apis():
    with pytest.raises(gradlib.GradlibError, match=r"^laplacian: fn must return floating-point values; it returned int32$"):
        gradlib.laplacian(lambda x: tf.cast(x > 0, tf.int32), X)


@pytest.mark.parametrize("api", ["per_sample_hessians", "laplacian", "divergence"])
def test_each_per_sample_api_refuses_a_method_it_does_not_have(api):
    with pytest.raises(ExpressionError, match=rf"^{api} got method='jacobian'; choose one of auto, "):
        getattr(gradlib, api)(field, X, method="jacobian")


# ---------------------------------------------------------------- Python inside fn (hunt 47)


def through_numpy(x):
    """numpy(x * x) * x: x ** 3 as a value, but the tape takes numpy's output as a constant (x * x)."""
    return tf.reduce_sum(tf.numpy_function(lambda a: a * a, [x], x.dtype) * x, axis=-1, keepdims=True)


def through_py_function(x):
    return tf.reduce_sum(tf.py_function(lambda a: a * a, [x], x.dtype) * x, axis=-1, keepdims=True)


@pytest.mark.parametrize("api", ["per_sample_hessians", "laplacian"])
def test_a_numpy_function_in_fn_is_refused_by_name(api):
    """The kernels failed with "int() argument must be ... not 'NoneType'" (numpy's output has no static shape)."""
    with pytest.raises(gradlib.GradlibError, match=rf"^{api}: fn calls tf.numpy_function \(op '.*'\), which "
                                                   r"TensorFlow cannot differentiate: .* Compute it with TensorFlow"):
        getattr(gradlib, api)(through_numpy, X)


@pytest.mark.parametrize("api", ["per_sample_hessians", "laplacian"])
def test_a_py_function_in_fn_is_refused_by_name(api):
    with pytest.raises(gradlib.GradlibError, match=rf"^{api}: fn calls tf.py_function \(op '.*'\), whose gradient "
                                                   r"TensorFlow takes only once per call"):
        getattr(gradlib, api)(through_py_function, X)


def test_the_same_function_in_tensorflow_ops_is_the_closed_form():
    np.testing.assert_allclose(gradlib.laplacian(cube, X).laplacian.reshape(-1), 6 * X.sum(axis=1), rtol=1e-10)
