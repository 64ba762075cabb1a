"""Second order traces a function once and reuses the trace: what must reuse it, and what must not (issue 38, item 6).

``tests/second/test_cache_keys.py`` checks that each field of a cache key changes the answer. This file counts the
traces: ``counted`` adds one to ``GRAPH_CALLS`` each time TensorFlow runs it as a graph (a trace; its eager calls,
the one-sample check, are not counted). A call that only changes what the compiled function takes as input (the
batch's values, hvp's direction, a Keras model's weights, which a graph reads live) must not trace again and must
answer for the new values (a trace that froze them would answer for the old ones); a call that changes a field of
the key must trace again. ``GRAPH_CALLS`` is a dict: the fingerprint reads numbers, arrays and short lists of
numbers that a function names, not dicts, so counting never changes the key itself.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._foundations._cache import LRUCache
from gradlib._second import _hessians, _runner

GRAPH_CALLS = {"n": 0}
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float64)


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch):
    monkeypatch.setattr(_runner, "_COMPILED", LRUCache(maxsize=32))
    monkeypatch.setattr(_runner, "_DEFINED", LRUCache(maxsize=64))
    monkeypatch.setattr(_hessians, "_HVP", LRUCache(maxsize=16))


def counted(x):
    """Each sample's sum of sin(x) x^2: d2/dx2 = (2 - x^2) sin(x) + 4 x cos(x) per element."""
    if not tf.executing_eagerly():
        GRAPH_CALLS["n"] += 1
    return tf.reduce_sum(tf.sin(x) * x ** 2, axis=-1, keepdims=True)


def second(x):
    return (2 - x ** 2) * np.sin(x) + 4 * x * np.cos(x)


def traces(call):
    """``(what call returned, how many times it ran counted as a graph)``."""
    before = GRAPH_CALLS["n"]
    out = call()
    return out, GRAPH_CALLS["n"] - before


# ---------------------------------------------------------------- what the trace takes as input: reused, never frozen


@pytest.mark.parametrize("method", ["nested_tapes", "loop", "forward_over_reverse"])
def test_a_batch_of_new_values_reuses_the_trace_and_gets_its_own_laplacian(method):
    first, n = traces(lambda: gradlib.laplacian(counted, X, method=method))
    assert n >= 1
    np.testing.assert_allclose(first.laplacian[:, 0], second(X).sum(axis=1), rtol=1e-12)
    other = X[::-1] * 0.5
    again, n = traces(lambda: gradlib.laplacian(counted, other, method=method))
    assert n == 0
    np.testing.assert_allclose(again.laplacian[:, 0], second(other).sum(axis=1), rtol=1e-12)


def test_hessians_of_new_values_reuse_the_trace():
    xs = tf.constant([0.5, -1.0, 2.0], tf.float64)
    fn = lambda v: counted(v[None])[0]   # noqa: E731
    first, n = traces(lambda: gradlib.hessians(fn, xs))
    assert n >= 1
    np.testing.assert_allclose(first.hessian[0], np.diag(second(xs.numpy())), rtol=1e-12)
    again, n = traces(lambda: gradlib.hessians(fn, xs * -2.0))
    assert n == 0
    np.testing.assert_allclose(again.hessian[0], np.diag(second(np.array([-1.0, 2.0, -4.0]))), rtol=1e-12)


def test_hvp_with_a_new_direction_and_new_values_reuses_the_trace():
    fn = lambda v: counted(v[None])[0]   # noqa: E731
    x, v = np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.0, -2.0])
    first, n = traces(lambda: gradlib.hvp(fn, tf.constant(x), tf.constant(v)))
    assert n >= 1
    np.testing.assert_allclose(first.hvp[0], second(x) * v, rtol=1e-12)   # the Hessian is diagonal
    for x2, v2 in [(x, -3 * v), (x + 1.0, v), (-x, np.array([0.0, 1.0, 0.0]))]:
        again, n = traces(lambda: gradlib.hvp(fn, tf.constant(x2), tf.constant(v2)))
        assert n == 0
        np.testing.assert_allclose(again.hvp[0], second(x2) * v2, rtol=1e-12, atol=1e-15)


def test_options_that_are_not_in_the_key_reuse_the_trace():
    gradlib.laplacian(counted, X, method="loop")
    for options in ({"limits": gradlib.Limits(max_hessian=2)},):
        r, n = traces(lambda: gradlib.laplacian(counted, X, method="loop", **options))
        assert n == 0, options
        np.testing.assert_allclose(r.laplacian[:, 0], second(X).sum(axis=1), rtol=1e-12)
    # check_independence is in the key since branch speed59: its step without the check has no held pass
    r, n = traces(lambda: gradlib.laplacian(counted, X, method="loop", check_independence=False))
    assert n >= 1
    np.testing.assert_allclose(r.laplacian[:, 0], second(X).sum(axis=1), rtol=1e-12)
    assert traces(lambda: gradlib.laplacian(counted, X, method="loop", check_independence=False))[1] == 0


def _tanh_model():
    keras.utils.set_random_seed(21)
    return keras.Sequential([keras.Input((3,), dtype="float64"), keras.layers.Dense(4, "tanh", dtype="float64"),
                             keras.layers.Dense(1, dtype="float64")])


def _model_laplacian(weights, x):
    """The closed form of Dense(4, tanh) -> Dense(1): sum_u v_u tanh''(z_u) sum_i W_iu^2, tanh'' = -2 t (1 - t^2)."""
    w, b, v, _ = weights
    t = np.tanh(x @ w + b)
    return (-2 * t * (1 - t ** 2) * (w ** 2).sum(axis=0)) @ v


@pytest.mark.parametrize("method", ["auto", "nested_tapes"])
def test_a_keras_model_s_new_weights_are_read_live_by_the_trace(method):
    model = _tanh_model()
    r = gradlib.laplacian(model, X, method=method)
    assert r.method == ("forward_laplacian" if method == "auto" else method)
    np.testing.assert_allclose(r.laplacian, _model_laplacian(model.get_weights(), X), rtol=1e-10)
    compiled = len(_runner._COMPILED)
    model.set_weights([w * 1.5 - 0.1 for w in model.get_weights()])
    again = gradlib.laplacian(model, X, method=method)
    assert len(_runner._COMPILED) == compiled   # the same trace
    np.testing.assert_allclose(again.laplacian, _model_laplacian(model.get_weights(), X), rtol=1e-10)
    assert not np.allclose(again.laplacian, r.laplacian)


# ---------------------------------------------------------------- fields of the key: a new trace, and the right answer


def test_float32_after_float64_is_a_new_trace_computed_in_float32():
    gradlib.laplacian(counted, X, method="loop")
    r, n = traces(lambda: gradlib.laplacian(counted, X.astype(np.float32), method="loop"))
    assert n >= 1 and r.laplacian.dtype == np.float32
    np.testing.assert_allclose(r.laplacian[:, 0], second(X).sum(axis=1), rtol=1e-5)


def test_another_exact_method_is_a_new_trace_with_the_same_answer():
    base = gradlib.laplacian(counted, X, method="nested_tapes")
    r, n = traces(lambda: gradlib.laplacian(counted, X, method="loop"))
    assert n >= 1 and r.method == "loop"
    np.testing.assert_allclose(r.laplacian, base.laplacian, rtol=1e-12)


def test_the_same_call_twice_traces_once():
    _, n = traces(lambda: gradlib.per_sample_hessians(counted, X, method="loop"))
    assert n >= 1
    r, n = traces(lambda: gradlib.per_sample_hessians(counted, X, method="loop"))
    assert n == 0
    np.testing.assert_allclose(r.hessians[:, 0], np.stack([np.diag(second(x)) for x in X]), rtol=1e-12)


# ---------------------------------------------------------------- typed functions: the fields of _Typed's key


def test_a_typed_function_watching_another_input_is_another_hessian():
    at = {"x": 1.5, "c": 3.0}
    by_x = gradlib.evaluate("x * x * c + sin(c)", at, watch=["x"], dtype="float64", order=2)
    by_c = gradlib.evaluate("x * x * c + sin(c)", at, watch=["c"], dtype="float64", order=2)
    both = gradlib.evaluate("x * x * c + sin(c)", at, dtype="float64", order=2)
    assert by_x.col_labels == ("x",) and by_c.col_labels == ("c",) and both.col_labels == ("x", "c")
    np.testing.assert_allclose(by_x.hessian, [[[6.0]]], rtol=1e-12)                  # 2c
    np.testing.assert_allclose(by_c.hessian, [[[-np.sin(3.0)]]], rtol=1e-12)         # -sin(c)
    np.testing.assert_allclose(both.hessian, [[[6.0, 3.0], [3.0, -np.sin(3.0)]]], rtol=1e-12)   # 2x off the diagonal


def test_a_typed_function_in_another_dtype_or_shape_is_another_trace():
    low = gradlib.evaluate("sum(x ** 3)", {"x": [0.1, 0.2]}, order=2)
    high = gradlib.evaluate("sum(x ** 3)", {"x": [0.1, 0.2]}, dtype="float64", order=2)
    longer = gradlib.evaluate("sum(x ** 3)", {"x": [0.1, 0.2, 0.3]}, dtype="float64", order=2)
    assert low.hessian.dtype == np.float32 and high.hessian.dtype == np.float64
    np.testing.assert_allclose(high.hessian[0], np.diag([0.6, 1.2]), rtol=1e-14)
    np.testing.assert_allclose(low.hessian[0], np.diag([0.6, 1.2]), rtol=1e-6)
    np.testing.assert_allclose(longer.hessian[0], np.diag([0.6, 1.2, 1.8]), rtol=1e-14)
