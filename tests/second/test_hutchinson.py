"""Hutchinson's estimates (``method='hutchinson'``) against what the probes make of them, exactly and statistically.

A Rademacher probe ``v`` (entries +-1) gives ``v^T H v = sum_i H_ii + sum_{i != j} H_ij v_i v_j``: exactly the trace
when ``H`` is diagonal, whatever the probes (``test_a_separable_function_is_estimated_exactly_with_zero_error``:
Gaussian probes, or a sign error, would not be), and with a variance of ``2 sum_{i != j} H_ij^2`` otherwise, which
the reported standard error must match. The probes are drawn from gradlib's fixed seed, so the estimate is also
checked to the last digit against the same probes in NumPy, and against itself when its work is cut into passes
(``TILE_ROWS``, the rows one pass holds).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._foundations._cache import LRUCache
from gradlib._second import _hessians, _orders, _runner
from gradlib._second._tapes import PROBE_SEED

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float64)
A = np.array([[1.0, 2.0, -1.0], [0.0, -3.0, 0.5], [4.0, 1.0, 2.0]])
B = np.array([[0.5, 0.0, 1.0], [-2.0, 1.0, 0.0], [1.0, 1.5, -1.0]])


def probes_of(count, shape):
    """gradlib's +-1 probes ``(count, *shape)``, drawn from the same stateless seed in float32 (in every dtype)."""
    uniform = tf.random.stateless_uniform((count, *shape), seed=PROBE_SEED, dtype=tf.float32).numpy()
    return np.where(uniform < 0.5, -1.0, 1.0)


def separable(x):
    """A sum of functions of one element each: its Hessian is diagonal, sin and cubes on it."""
    return tf.reduce_sum(tf.sin(x) + x ** 3, axis=-1, keepdims=True)


def quadratics(x):
    """Two outputs per sample: x^T A x / 2 and x^T B x / 2, Hessians (A + A^T) / 2 and (B + B^T) / 2."""
    return tf.stack([0.5 * tf.einsum("bi,ij,bj->b", x, A, x), 0.5 * tf.einsum("bi,ij,bj->b", x, B, x)], axis=1)


def tanh_field(x):
    """x -> tanh(x M): a vector field whose Jacobian diag(1 - t^2) M^T is full."""
    return tf.tanh(tf.matmul(x, tf.constant(A)))


def test_a_separable_function_is_estimated_exactly_with_zero_error():
    r = gradlib.laplacian(separable, X, method="hutchinson", probes=2)
    np.testing.assert_allclose(r.laplacian[:, 0], (6 * X - np.sin(X)).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(r.standard_error, 0.0, atol=1e-12)
    assert r.method == "hutchinson" and r.probes == 2


def test_two_outputs_are_each_estimated_from_the_same_probes():
    probes = 12
    r = gradlib.laplacian(quadratics, X, method="hutchinson", probes=probes)
    v = probes_of(probes, X.shape)
    for k, m in enumerate((A, B)):
        q = np.einsum("sbi,ij,sbj->sb", v, (m + m.T) / 2, v)
        np.testing.assert_allclose(r.laplacian[:, k], q.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(r.standard_error[:, k], q.std(axis=0, ddof=1) / np.sqrt(probes), rtol=1e-12)
    assert not np.allclose(r.laplacian[:, 0], r.laplacian[:, 1])   # else the outputs' order could not be checked


def test_the_standard_error_matches_the_variance_of_rademacher_probes_and_the_error_is_within_it():
    probes = 400
    r = gradlib.laplacian(quadratics, X, method="hutchinson", probes=probes)
    for k, m in enumerate((A, B)):
        h = (m + m.T) / 2
        off = h - np.diag(np.diag(h))
        expected_se = np.sqrt(2 * (off ** 2).sum() / probes)
        assert 0.8 * expected_se < r.standard_error[0, k] < 1.2 * expected_se
        assert (np.abs(r.laplacian[:, k] - np.trace(h)) < 4 * r.standard_error[:, k]).all()


def test_more_probes_shrink_the_error_as_one_over_their_root():
    few = gradlib.divergence(tanh_field, X, method="hutchinson", probes=25)
    many = gradlib.divergence(tanh_field, X, method="hutchinson", probes=400)
    ratio = few.standard_error / many.standard_error
    assert ((ratio > 4 * 0.6) & (ratio < 4 / 0.6)).all(), ratio   # sqrt(400 / 25) = 4
    exact = gradlib.divergence(tanh_field, X).divergence
    t = np.tanh(X @ A)
    np.testing.assert_allclose(exact, ((1 - t ** 2) * np.diag(A)).sum(axis=1), rtol=1e-12)
    assert (np.abs(many.divergence - exact) < 4 * many.standard_error).all()


def test_an_estimate_is_the_same_on_every_call():
    first = gradlib.laplacian(quadratics, X, method="hutchinson", probes=5)
    again = gradlib.laplacian(quadratics, X, method="hutchinson", probes=5)
    np.testing.assert_array_equal(first.laplacian, again.laplacian)
    np.testing.assert_array_equal(first.standard_error, again.standard_error)


def test_an_estimate_in_float32_is_the_float64_estimate_to_float32_rounding():
    high = gradlib.laplacian(quadratics, X, method="hutchinson", probes=8)
    low = gradlib.laplacian(quadratics, X.astype(np.float32), method="hutchinson", probes=8)
    assert low.laplacian.dtype == np.float32 and low.standard_error.dtype == np.float32
    np.testing.assert_allclose(low.laplacian, high.laplacian, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- the work cut into passes gives the same numbers


@pytest.fixture
def tiny_passes(monkeypatch):
    """Passes of at most 4 rows (2 copies of a batch of 2), fresh caches so that the kernels are traced with them."""
    monkeypatch.setattr(_orders, "TILE_ROWS", 4)
    monkeypatch.setattr(_runner, "_COMPILED", LRUCache(maxsize=32))
    monkeypatch.setattr(_runner, "_DEFINED", LRUCache(maxsize=64))
    monkeypatch.setattr(_hessians, "_HVP", LRUCache(maxsize=16))


@pytest.fixture(scope="module")
def in_one_pass():
    """The same requests, each in one pass (16,384 rows hold every copy)."""
    return {"laplacian": gradlib.laplacian(quadratics, X, method="hutchinson", probes=7),
            "divergence": gradlib.divergence(tanh_field, X, method="hutchinson", probes=7),
            "hessians": gradlib.per_sample_hessians(quadratics, X, method="forward_over_reverse")}


def test_hutchinson_in_passes_of_two_copies_is_hutchinson_in_one_pass(in_one_pass, tiny_passes):
    lap = gradlib.laplacian(quadratics, X, method="hutchinson", probes=7)    # 7 probes: passes of 2, 2, 2 and 1
    div = gradlib.divergence(tanh_field, X, method="hutchinson", probes=7)
    np.testing.assert_allclose(lap.laplacian, in_one_pass["laplacian"].laplacian, rtol=1e-13)
    np.testing.assert_allclose(lap.standard_error, in_one_pass["laplacian"].standard_error, rtol=1e-12)
    np.testing.assert_allclose(div.divergence, in_one_pass["divergence"].divergence, rtol=1e-13)
    np.testing.assert_allclose(div.standard_error, in_one_pass["divergence"].standard_error, rtol=1e-12)
    # the estimate counts the passes the kernel wrote: 4 per output in passes of 2 copies, 1 per output in one pass
    assert "8 unrolled passes" in lap.cost and "2 unrolled passes" in in_one_pass["laplacian"].cost


def test_forward_over_reverse_in_passes_of_two_copies_is_one_pass(in_one_pass, tiny_passes):
    r = gradlib.per_sample_hessians(quadratics, X, method="forward_over_reverse")   # 3 elements: passes of 2 and 1
    np.testing.assert_allclose(r.hessians, in_one_pass["hessians"].hessians, rtol=1e-13)
    np.testing.assert_allclose(r.hessians[:, 0], np.broadcast_to((A + A.T) / 2, (2, 3, 3)), rtol=1e-13)
    np.testing.assert_allclose(r.hessians[:, 1], np.broadcast_to((B + B.T) / 2, (2, 3, 3)), rtol=1e-13)


# ---------------------------------------------------------------- what an estimate says about itself


def test_an_estimate_carries_its_error_and_probes_and_an_exact_method_neither():
    estimate = gradlib.laplacian(quadratics, X, method="hutchinson")
    exact = gradlib.laplacian(quadratics, X)
    assert estimate.probes == gradlib._second._samplewise.DEFAULT_PROBES == 64
    assert exact.probes == 0 and exact.standard_error is None
    assert list(estimate.to_frame().columns) == ["sample", "output", "laplacian", "standard_error"]
    assert list(exact.to_frame().columns) == ["sample", "output", "laplacian"]
    frame = estimate.to_frame()
    np.testing.assert_array_equal(frame.standard_error.to_numpy(), estimate.standard_error.reshape(-1))
    np.testing.assert_allclose(exact.laplacian, np.broadcast_to([np.trace(A), np.trace(B)], (2, 2)), rtol=1e-12)


@pytest.mark.parametrize("api, kwargs, message", [
    ("per_sample_hessians", {"method": "hutchinson"},
     r"^per_sample_hessians got method='hutchinson'; choose one of auto, nested_tapes, loop, forward_over_reverse$"),
    ("laplacian", {"method": "loop", "probes": 8},
     r"^laplacian got probes=8 with method='loop'; probes are for method='hutchinson' only$"),
    ("divergence", {"method": "hutchinson", "probes": 10_001},
     r"^divergence got probes=10001; give a whole number from 2 to 10,000$"),
])
def test_an_estimate_s_options_are_refused_where_they_do_not_apply(api, kwargs, message):
    with pytest.raises(gradlib.ExpressionError, match=message):
        getattr(gradlib, api)(tanh_field, X, **kwargs)


def test_ten_thousand_probes_are_the_most_allowed():
    r = gradlib.divergence(tanh_field, X[:1], method="hutchinson", probes=10_000)
    exact = gradlib.divergence(tanh_field, X[:1]).divergence
    assert r.probes == 10_000 and abs(r.divergence[0] - exact[0]) < 4 * r.standard_error[0]
    jac = (1 - np.tanh(X[0] @ A) ** 2)[:, None] * A.T          # J[i, j] = dy_i / dx_j
    sym = (jac + jac.T) / 2
    expected_se = np.sqrt(2 * (sym ** 2).sum() - 2 * (np.diag(sym) ** 2).sum()) / 100
    assert 0.95 * expected_se < r.standard_error[0] < 1.05 * expected_se
