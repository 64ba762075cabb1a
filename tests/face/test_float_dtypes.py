"""Every public API on every floating dtype (issue 35, item 5): bfloat16, float16, float32 and float64 are each
accepted on every path, the checks after the work included, with numbers equal to an independent float64 reference
(plain nested tapes, one sample at a time) at the dtype's tolerance, or refused before any work by a gradlib error
that names the dtype and what to pass instead.

Before: every per-sample call on a bfloat16 batch raised NumPy's ``TypeError: invalid data type for einsum`` from
the samples' independence check, after the work was done.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._second import _orders

DTYPES = ("bfloat16", "float16", "float32", "float64")
#: relative to the reference's largest entry: bfloat16 keeps 8 bits of mantissa, float16 11 (seen: 1.3e-2, 1.4e-3)
TOLERANCE = {"bfloat16": 5e-2, "float16": 1e-2, "float32": 1e-5, "float64": 1e-12}
ZERO = tf.UnconnectedGradients.ZERO
X = np.random.default_rng(35).uniform(-1.0, 1.0, (4, 3))
TARGET = np.linspace(-0.5, 0.5, 12).reshape(4, 3)


def _model(dtype: str, weights=None):
    keras.utils.set_random_seed(35)
    model = keras.Sequential([keras.Input((3,), dtype=dtype), keras.layers.Dense(4, activation="tanh", dtype=dtype),
                              keras.layers.Dense(3, dtype=dtype)])
    if weights is not None:
        model.set_weights([w.astype(tf.as_dtype(dtype).as_numpy_dtype) for w in weights])
    return model


@pytest.fixture(scope="module")
def reference():
    """The float64 model at the batch each dtype holds (X rounded to it), and its per-sample Jacobians and Hessians
    by plain nested tapes, one sample at a time, and per-example loss gradients by one tape per example."""
    model = _model("float64")

    @tf.function(reduce_retracing=True)   # one trace for every sample: eager tape.jacobian would trace one per call
    def one_sample(xb, target):
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xb)
            with tf.GradientTape() as inner:
                inner.watch(xb)
                y = model(xb)[0]
            j = inner.jacobian(y, xb, unconnected_gradients=ZERO)[:, 0]   # (out, d)
            rows = [j[k] for k in range(3)]
        hess = tf.stack([outer.jacobian(r, xb, unconnected_gradients=ZERO)[:, 0] for r in rows])
        with tf.GradientTape() as tape:
            loss = keras.losses.MeanSquaredError()(target, model(xb))   # what fit minimizes
        return j, hess, tape.gradient(loss, model.trainable_variables)

    out = {}
    for dtype in DTYPES:
        x = tf.cast(tf.cast(X, dtype), tf.float64).numpy()
        jac, hess, grads = [], [], []
        for row, target in zip(x, TARGET):
            j, h, g = one_sample(tf.constant(row[None]), tf.constant(target[None]))
            jac.append(j.numpy())
            hess.append(h.numpy())
            grads.append([w.numpy() for w in g])
        out[dtype] = x, np.array(jac), np.array(hess), grads
    return model.get_weights(), out


def _block_diagonal(blocks: np.ndarray) -> np.ndarray:
    """Per-sample blocks (B, p, q) as the whole batch's (B p, B q) matrix: samples do not mix."""
    b, p, q = blocks.shape
    whole = np.zeros((b * p, b * q))
    for i, block in enumerate(blocks):
        whole[i * p:(i + 1) * p, i * q:(i + 1) * q] = block
    return whole


def _hessians_of_batch(hess: np.ndarray) -> np.ndarray:
    """The whole batch's Hessians (B out, B d, B d) from the per-sample ones (B, out, d, d)."""
    b, o, d, _ = hess.shape
    whole = np.zeros((b * o, b * d, b * d))
    for i in range(b):
        for k in range(o):
            whole[i * o + k, i * d:(i + 1) * d, i * d:(i + 1) * d] = hess[i, k]
    return whole


def _methods(kind: str) -> list[str]:
    return ["auto"] + [r.name for r in _orders.TABLE if kind in r.kinds and r.name != "hutchinson"]


#: (API, method) -> (the call on a model and a batch, the expected answer from the reference)
CALLS = {
    **{("per_sample_hessians", m): (lambda f, x, m=m: gradlib.per_sample_hessians(f, x, method=m).hessians,
                                    lambda jac, hess: hess) for m in _methods("hessian")},
    **{("per_sample_hessians(diagonal=True)", m): (
        lambda f, x, m=m: gradlib.per_sample_hessians(f, x, diagonal=True, method=m).diagonal,
        lambda jac, hess: np.diagonal(hess, axis1=2, axis2=3)) for m in _methods("diagonal")},
    **{("laplacian", m): (lambda f, x, m=m: gradlib.laplacian(f, x, method=m).laplacian,
                          lambda jac, hess: np.trace(hess, axis1=2, axis2=3)) for m in _methods("laplacian")},
    **{("divergence", m): (lambda f, x, m=m: gradlib.divergence(f, x, method=m).divergence,
                           lambda jac, hess: np.trace(jac, axis1=1, axis2=2)) for m in _methods("divergence")},
    **{("hessians", m): (lambda f, x, m=m: gradlib.hessians(lambda t: f(t), x, method=m).hessian,
                         lambda jac, hess: _hessians_of_batch(hess)) for m in _methods("hessian")},
    **{("hvp", m): (lambda f, x, m=m: gradlib.hvp(lambda t: tf.reduce_sum(f(t)), x, tf.ones_like(x), method=m).hvp,
                    lambda jac, hess: hess.sum(axis=(1, 3)).reshape(1, -1))
       for m in ("auto", "forward_over_reverse", "reverse_over_reverse")},
    **{("per_sample_gradients", m): (lambda f, x, m=m: gradlib.per_sample_gradients(f, x, method=m).jacobian,
                                     lambda jac, hess: jac) for m in gradlib.PER_SAMPLE_METHODS},
    **{("per_element_gradients", f"{m}, compiled={c}"): (
        lambda f, x, m=m, c=c: gradlib.per_element_gradients(lambda t: f(t), x, method=m, compiled=c).jacobian,
        lambda jac, hess: _block_diagonal(jac)) for m in ("auto", "unstack", "jacobian", "forward")
       for c in (False, True)},
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("api, method", list(CALLS))
def test_every_api_and_method_accepts_the_dtype_with_the_float64_tapes_numbers(reference, api, method, dtype):
    weights, at = reference
    x, jac, hess, _ = at[dtype]
    call, expected = CALLS[api, method]
    got = np.asarray(call(_model(dtype, weights), tf.constant(X, dtype)), np.float64)
    want = expected(jac, hess)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=TOLERANCE[dtype] * np.abs(want).max())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norms_only", [False, True])
def test_per_example_gradients_accepts_the_dtype_with_one_tape_per_example_s_numbers(reference, dtype, norms_only):
    weights, at = reference
    grads = at[dtype][3]
    r = gradlib.per_example_gradients(_model(dtype, weights), tf.constant(X, dtype), tf.constant(TARGET, dtype),
                                      loss="mse", norms_only=norms_only)
    norms = np.sqrt([sum(float(np.sum(g ** 2)) for g in sample) for sample in grads])
    tolerance = max(TOLERANCE[dtype], 1e-6)   # Keras' loss computes in floatx (float32) even on a float64 model
    np.testing.assert_allclose(np.asarray(r.norms, np.float64), norms, rtol=tolerance, atol=0)
    if not norms_only:
        for k, got in enumerate(r.gradients):
            want = np.array([sample[k] for sample in grads])
            np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=0, atol=tolerance * np.abs(want).max())


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("api", ["evaluate", "evaluate(order=2)", "compare"])
def test_the_text_apis_refuse_half_precision_before_any_work_naming_it_and_the_dtypes_to_use(api, dtype):
    call = {"evaluate": gradlib.evaluate, "compare": gradlib.compare,
            "evaluate(order=2)": lambda *a, **k: gradlib.evaluate(*a, order=2, **k)}[api]
    with pytest.raises(gradlib.ExpressionError, match=rf"^dtype must be one of float32, float64; got '{dtype}'"):
        call("x * x", {"x": [1.0, 2.0]}, dtype=dtype)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_the_independence_check_still_refuses_a_batch_that_mixes_in_half_precision(dtype):
    x = tf.constant(X, dtype)
    with pytest.raises(gradlib.BatchMixingError, match=r"laplacian: the samples of the batch are not independent"):
        gradlib.laplacian(lambda v: v ** 3 + tf.reduce_mean(v, axis=0, keepdims=True), x)
    with pytest.raises(gradlib.BatchMixingError, match=r"the samples of the batch are not independent"):
        gradlib.per_sample_gradients(lambda v: v * tf.reduce_sum(v, axis=0, keepdims=True), x)
