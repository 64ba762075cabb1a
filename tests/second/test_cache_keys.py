"""Each field of second order's cache keys changes the answer (issue 38, item 6).

Second order traces a user's function once and keeps the trace (``_runner._COMPILED``: the function's key, the
kind, the method, the batch's shape and dtype, the probes, the precision and check_independence; ``_hessians._HVP``:
the key and the method). The function's key is, for ``hessians`` and ``hvp``, the function, the form of ``xs``
(one tensor, a list, a dict), its names, each tensor's shape and dtype and ``fingerprint(fn)`` (the values a trace
freezes); for the per-sample APIs the function, a sample's shape and its fingerprint. Each test calls the same
function object twice with one field changed and checks both answers against a closed form: a key that left the
field out would answer the second call from the first call's trace.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._second import _hessians, _runner
from gradlib._second._tapes import PROBE_SEED

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float64)


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch):
    """Empty caches, so that both calls of a test meet only each other."""
    from gradlib._foundations._cache import LRUCache

    monkeypatch.setattr(_runner, "_COMPILED", LRUCache(maxsize=32))
    monkeypatch.setattr(_runner, "_DEFINED", LRUCache(maxsize=64))
    monkeypatch.setattr(_hessians, "_HVP", LRUCache(maxsize=16))


# ---------------------------------------------------------------- the function's key: hessians and hvp


def test_hessians_fingerprint_a_value_fn_reads_changed_in_place_is_a_new_trace():
    scale = np.array([1.0])
    fn = lambda x: tf.reduce_sum(scale * x ** 3)   # noqa: E731
    x = tf.constant([1.0, 2.0], tf.float64)
    np.testing.assert_allclose(gradlib.hessians(fn, x).hessian[0], np.diag([6.0, 12.0]), rtol=1e-12)
    scale[0] = 2.0
    np.testing.assert_allclose(gradlib.hessians(fn, x).hessian[0], np.diag([12.0, 24.0]), rtol=1e-12)


def test_hessians_form_one_tensor_and_a_list_of_it_are_two_traces():
    fn = lambda xs: tf.reduce_sum(xs[0] ** 3) if isinstance(xs, list) else tf.reduce_sum((2 * xs) ** 3)  # noqa: E731
    x = tf.constant([1.0, 2.0], tf.float64)
    np.testing.assert_allclose(gradlib.hessians(fn, x).hessian[0], np.diag([48.0, 96.0]), rtol=1e-12)
    np.testing.assert_allclose(gradlib.hessians(fn, [x]).hessian[0], np.diag([6.0, 12.0]), rtol=1e-12)


def test_hessians_names_two_dicts_of_the_same_shapes_and_other_names_are_two_traces():
    fn = lambda d: sum(tf.reduce_sum((3.0 if k == "a" else 1.0) * v ** 3) for k, v in d.items())  # noqa: E731
    x = tf.constant([1.0, 2.0], tf.float64)
    np.testing.assert_allclose(gradlib.hessians(fn, {"a": x}).hessian[0], np.diag([18.0, 36.0]), rtol=1e-12)
    r = gradlib.hessians(fn, {"b": x})
    np.testing.assert_allclose(r.hessian[0], np.diag([6.0, 12.0]), rtol=1e-12)
    assert r.col_labels == ("b[0]", "b[1]")


def test_hessians_shape_another_size_of_xs_is_another_trace():
    fn = lambda x: tf.reduce_sum(x ** 3)   # noqa: E731
    np.testing.assert_allclose(gradlib.hessians(fn, tf.constant([1.0, 2.0], tf.float64)).hessian[0],
                               np.diag([6.0, 12.0]), rtol=1e-12)
    np.testing.assert_allclose(gradlib.hessians(fn, tf.constant([1.0, 2.0, 3.0], tf.float64)).hessian[0],
                               np.diag([6.0, 12.0, 18.0]), rtol=1e-12)


def test_hessians_dtype_float64_after_float32_is_computed_in_float64():
    fn = lambda x: tf.reduce_sum(x ** 3)   # noqa: E731
    low = gradlib.hessians(fn, tf.constant([0.1], tf.float32)).hessian
    high = gradlib.hessians(fn, tf.constant([0.1], tf.float64)).hessian
    assert low.dtype == np.float32 and high.dtype == np.float64
    assert abs(high[0, 0, 0] - 6 * 0.1) < 1e-15            # float32's 0.1 is 1.5e-9 off: 6x would be 9e-9 off
    assert abs(float(low[0, 0, 0]) - 6 * 0.1) > 1e-9


def test_hvp_fingerprint_and_method_each_change_the_trace():
    scale = np.array([1.0])
    fn = lambda x: tf.reduce_sum(scale * x ** 3)   # noqa: E731
    x, v = tf.constant([1.0, 2.0], tf.float64), tf.constant([1.0, -1.0], tf.float64)
    np.testing.assert_allclose(gradlib.hvp(fn, x, v).hvp, [[6.0, -12.0]], rtol=1e-12)
    scale[0] = -1.0
    np.testing.assert_allclose(gradlib.hvp(fn, x, v).hvp, [[-6.0, 12.0]], rtol=1e-12)
    r = gradlib.hvp(fn, x, v, method="reverse_over_reverse")
    # per key (two fingerprints): whether fn defines its gradient, its while loops, and forward over reverse; then
    # reverse over reverse
    assert r.method == "reverse_over_reverse" and len(_hessians._HVP) == 7
    np.testing.assert_allclose(r.hvp, [[-6.0, 12.0]], rtol=1e-12)


# ---------------------------------------------------------------- the per-sample key and the compiled cache's fields


def test_per_sample_fingerprint_a_value_fn_reads_changed_in_place_is_a_new_trace():
    scale = np.array([1.0])
    fn = lambda x: scale * tf.reduce_sum(x ** 3, axis=-1, keepdims=True)   # noqa: E731
    np.testing.assert_allclose(gradlib.laplacian(fn, X).laplacian[:, 0], 6 * X.sum(axis=1), rtol=1e-12)
    scale[0] = 0.5
    np.testing.assert_allclose(gradlib.laplacian(fn, X).laplacian[:, 0], 3 * X.sum(axis=1), rtol=1e-12)


def test_per_sample_shape_a_batch_of_another_size_or_sample_shape_is_another_trace():
    fn = lambda x: tf.reduce_sum(x ** 3, axis=-1, keepdims=True)   # noqa: E731
    for batch in (X, X[:1], X[:, :2]):
        np.testing.assert_allclose(gradlib.laplacian(fn, batch).laplacian[:, 0], 6 * batch.sum(axis=1), rtol=1e-12)


def test_per_sample_kind_the_hessians_their_diagonal_and_the_laplacian_of_one_fn_are_three_traces():
    fn = lambda x: tf.reduce_sum(x ** 3, axis=-1, keepdims=True)   # noqa: E731
    full = gradlib.per_sample_hessians(fn, X)
    diagonal = gradlib.per_sample_hessians(fn, X, diagonal=True)
    trace = gradlib.laplacian(fn, X)
    np.testing.assert_allclose(full.hessians[:, 0], np.stack([np.diag(6 * x) for x in X]), rtol=1e-12)
    assert diagonal.hessians is None
    np.testing.assert_allclose(diagonal.diagonal[:, 0], 6 * X, rtol=1e-12)
    np.testing.assert_allclose(trace.laplacian[:, 0], 6 * X.sum(axis=1), rtol=1e-12)


def _hutchinson_divergence(a: np.ndarray, x: np.ndarray, probes: int) -> np.ndarray:
    """The estimate of div(x -> x @ a), mean over the probes of v^T a^T v, with gradlib's fixed +-1 probes."""
    uniform = tf.random.stateless_uniform((probes, *x.shape), seed=PROBE_SEED, dtype=tf.float32).numpy()
    v = np.where(uniform < 0.5, -1.0, 1.0)
    return np.einsum("sbi,ij,sbj->sb", v, a, v).mean(axis=0)


def test_the_method_and_the_probes_each_change_the_trace():
    a = np.array([[1.0, 2.0, 0.0], [-1.0, 3.0, 0.5], [0.25, 0.0, -2.0]])
    fn = lambda x: tf.matmul(x, tf.constant(a))   # noqa: E731   divergence: trace(a) = 2, at every sample
    exact = gradlib.divergence(fn, X)
    np.testing.assert_allclose(exact.divergence, [2.0, 2.0], rtol=1e-12)
    two = gradlib.divergence(fn, X, method="hutchinson", probes=2)
    five = gradlib.divergence(fn, X, method="hutchinson", probes=5)
    np.testing.assert_allclose(two.divergence, _hutchinson_divergence(a, X, 2), rtol=1e-12)
    np.testing.assert_allclose(five.divergence, _hutchinson_divergence(a, X, 5), rtol=1e-12)
    assert not np.allclose(two.divergence, five.divergence)   # else the probes' test could not fail
    np.testing.assert_allclose(gradlib.divergence(fn, X).divergence, [2.0, 2.0], rtol=1e-12)   # exact again


# ---------------------------------------------------------------- check_independence: a trace without the held pass

_W = tf.constant([[0.5, -1.0, 2.0], [1.0, 0.3, -0.2], [0.1, 0.2, 0.7]], tf.float64)
_BATCH = np.random.default_rng(59).normal(size=(4, 3))
_ANSWER = {"laplacian": lambda r: r.laplacian, "per_sample_hessians": lambda r: r.hessians,
           "divergence": lambda r: r.divergence}


def _looped(fn, api: str) -> np.ndarray:
    """The reference: each sample's Hessians from two fresh tapes of its own, reduced as ``api`` answers."""
    out = []
    for b in range(len(_BATCH)):
        xb = tf.constant(_BATCH[b:b + 1])
        with tf.GradientTape() as outer:
            outer.watch(xb)
            with tf.GradientTape() as inner:
                inner.watch(xb)
                y = fn(xb)[0]
            jac = inner.jacobian(y, xb)[:, 0]
        hess = outer.jacobian(jac, xb)[:, :, 0].numpy()
        out.append({"laplacian": np.trace(hess, axis1=1, axis2=2), "per_sample_hessians": hess,
                    "divergence": np.trace(jac.numpy())}[api])
    return np.stack(out)


@pytest.mark.parametrize("api", list(_ANSWER))
def test_check_independence_is_in_the_key_and_its_absence_traces_no_held_pass(api, monkeypatch):
    """Without the check the step holds no held pass (it cost 2-3x a warm call of a small model), so the flag must
    be in the key: a checked call answered from the unchecked trace would have no held pass and answer a batch
    statistic's Hessians. Both flags answer an independent function as a loop of fresh tapes does."""
    helds = []
    real = _runner.held_outputs
    monkeypatch.setattr(_runner, "held_outputs", lambda *a, **k: helds.append(a[2]) or real(*a, **k))
    call = getattr(gradlib, api)
    independent = lambda x: tf.tanh(x @ _W)   # noqa: E731
    reference = _looped(independent, api)
    for check in (False, True, False, True):   # cold then warm, each flag after the other
        np.testing.assert_allclose(_ANSWER[api](call(independent, _BATCH, check_independence=check)), reference,
                                   rtol=1e-10, atol=1e-12)
    assert len(helds) == 1   # one trace with the held pass (the checked one), the other without it
    mixing = lambda x: tf.tanh(x / tf.stop_gradient(tf.math.reduce_std(x, axis=0)) @ _W)   # noqa: E731
    call(mixing, _BATCH, check_independence=False)   # answered (the caller opted out), its trace kept
    with pytest.raises(gradlib.BatchMixingError, match="when the other samples move"):
        call(mixing, _BATCH)
