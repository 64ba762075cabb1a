"""The forward Laplacian in chunks (gradlib._second._forward_laplacian) against references it shares nothing with.

The references: a per-sample loop of eager nested tapes over the Keras model (each sample's Hessian, its trace),
and, where JAX is installed, JAX in float64 on the same weights (``jnp.trace(jax.hessian(f))``, its own
activations). Every activation of the rules, batches that are not a whole number of chunks (one sample, one
more than a chunk, many chunks with ``CHUNK_FLOATS`` made small), float32 and float64, and the memory estimate at
its last good and first bad byte, and against what a call really holds.
"""

from __future__ import annotations

import ctypes
import functools
import re
from dataclasses import replace

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import ExpressionError, Limits
from gradlib._second import _orders
from gradlib._second._forward_laplacian import chunked_forward_laplacian
from gradlib._second._taylor import RULES, dense_layers, forward_laplacian

ACTIVATIONS = sorted(RULES)   # linear, tanh, sigmoid, softplus, silu, swish, exponential, elu, relu


def mlp(activation, inputs=4, widths=(7, 6), outputs=2, dtype="float64", seed=3, last=None):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input((inputs,), dtype=dtype)]
                            + [keras.layers.Dense(w, activation=activation, dtype=dtype) for w in widths]
                            + [keras.layers.Dense(outputs, activation=last, dtype=dtype)])


def tape_laplacians(model, x):
    """Each sample's Laplacian per output: one eager pair of tapes per sample, the Hessian's trace."""
    out = []
    for row in np.asarray(x):
        xb = tf.constant(row[None])
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xb)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(xb)
                y = model(xb)[0]
                ys = [y[k] for k in range(y.shape[0])]
            grads = [inner.gradient(v, xb, unconnected_gradients=tf.UnconnectedGradients.ZERO)[0] for v in ys]
            entries = [[g[i] for i in range(xb.shape[1])] for g in grads]
        zero = tf.UnconnectedGradients.ZERO
        out.append([sum(float(outer.gradient(e[i], xb, unconnected_gradients=zero)[0, i]) for i in range(len(e)))
                    for e in entries])
    return np.array(out)


@functools.cache
def _jax_laplacian(activations: tuple[str, ...]):
    """JAX's Laplacian per sample and output of Dense layers with these activations (its own), the weights an
    argument: jitted, so each shape is traced and compiled once and every call of that shape reuses it, where the
    eager JAX reference dispatched each op of ``jax.hessian`` one at a time (~20 s of this file)."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    own = {"linear": lambda z: z, "tanh": jnp.tanh, "sigmoid": jax.nn.sigmoid, "softplus": jax.nn.softplus,
           "silu": jax.nn.silu, "swish": jax.nn.silu, "exponential": jnp.exp, "elu": jax.nn.elu,
           "relu": jax.nn.relu}
    acts = [own[a] for a in activations]

    def f(weights, v):
        for (k, b), act in zip(weights, acts):
            v = act(v @ k + b)
        return v

    def lap(weights, v):
        return jnp.trace(jax.hessian(f, argnums=1)(weights, v), axis1=1, axis2=2)

    return jax.jit(jax.vmap(lap, in_axes=(None, 0)))


def jax_laplacians(model, x):
    """Each sample's Laplacian per output in JAX float64 on the model's weights (its own activations)."""
    jax = pytest.importorskip("jax")
    layers = dense_layers(model)[0]
    with jax.enable_x64(True):
        weights = [(jax.numpy.asarray(np.asarray(k, np.float64)), jax.numpy.asarray(np.asarray(b, np.float64)))
                   for k, b, _ in layers]
        laplacians = _jax_laplacian(tuple(a for _, _, a in layers))
        return np.asarray(laplacians(weights, jax.numpy.asarray(np.asarray(x, np.float64))))


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_every_activation_s_laplacian_is_the_tapes_and_jax_s(activation):
    model = mlp(activation, last="tanh" if activation == "relu" else None)
    x = np.random.default_rng(1).normal(size=(5, 4))
    r = gradlib.laplacian(model, x)
    assert r.method == "forward_laplacian" and r.laplacian.dtype == np.float64
    np.testing.assert_allclose(r.laplacian, tape_laplacians(model, x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.laplacian, jax_laplacians(model, x), rtol=1e-10, atol=1e-12)


def test_a_last_layer_with_an_activation_squares_its_own_jacobian():
    # the output layer's tanh has a second derivative: the recurrence must carry J up to it (a linear last layer
    # needs only L W); sigmoid hidden layers, a tanh output
    model = mlp("sigmoid", widths=(5, 5, 5), outputs=3, last="tanh")
    x = np.random.default_rng(2).normal(size=(6, 4)) * 2
    np.testing.assert_allclose(gradlib.laplacian(model, x).laplacian, jax_laplacians(model, x), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("batch", [1, 7, 8, 9, 33])
def test_batches_that_are_not_whole_chunks_give_each_sample_its_own_laplacian(monkeypatch, batch):
    model = mlp("tanh", inputs=3, widths=(4,), outputs=2)
    kernels, _ = dense_layers(model)
    monkeypatch.setattr(_orders, "CHUNK_FLOATS", 8 * 3 * 4)   # 8 samples x 3 inputs x 4 units: chunks of 8
    assert _orders.chunk_rows(batch, 3, 4) == min(8, batch)
    x = tf.constant(np.random.default_rng(batch).normal(size=(batch, 3)))
    y, jac, lap = chunked_forward_laplacian(kernels, x, "laplacian")
    assert jac is None and tuple(lap.shape) == (batch, 2) and tuple(y.shape) == (batch, 2)
    np.testing.assert_allclose(lap.numpy(), tape_laplacians(model, x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y.numpy(), model(x).numpy(), rtol=1e-12)


def test_hessian_diagonals_in_chunks_are_the_whole_batch_s_and_the_tapes(monkeypatch):
    model = mlp("elu", inputs=3, widths=(4, 4), outputs=2)
    kernels, _ = dense_layers(model)
    monkeypatch.setattr(_orders, "CHUNK_FLOATS", 4 * 3 * 4)   # chunks of 4 samples
    x = tf.constant(np.random.default_rng(4).normal(size=(10, 3)))
    y, jac, diag = chunked_forward_laplacian(kernels, x, "diagonal")
    whole = forward_laplacian(kernels, x, "diagonal")
    for got, want in zip((y, jac, diag), whole):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(diag.numpy().sum(axis=-1), tape_laplacians(model, x), rtol=1e-10, atol=1e-12)


def test_a_float32_model_on_float32_keeps_float32_and_matches_jax_float64_to_its_precision():
    model = mlp("softplus", inputs=6, widths=(16, 16), outputs=1, dtype="float32")
    x = np.random.default_rng(5).normal(size=(300, 6)).astype(np.float32)
    r = gradlib.laplacian(model, x)
    assert r.method == "forward_laplacian" and r.laplacian.dtype == np.float32
    np.testing.assert_allclose(r.laplacian, jax_laplacians(model, x), rtol=2e-4, atol=2e-5)


def test_gelu_has_no_rule_and_auto_computes_it_with_a_tape_method():
    model = mlp("gelu", inputs=3, widths=(5,))
    x = np.random.default_rng(6).normal(size=(4, 3))
    r = gradlib.laplacian(model, x)
    assert r.method != "forward_laplacian"
    np.testing.assert_allclose(r.laplacian, tape_laplacians(model, x), rtol=1e-9, atol=1e-12)
    with pytest.raises(ExpressionError, match="cannot use method='forward_laplacian'"):
        gradlib.laplacian(model, x, method="forward_laplacian")


# ---------------------------------------------------------------- memory: the estimate and what is held


def _estimate(model, x, kind="laplacian") -> _orders.Cost:
    sizes = [tuple(int(n) for n in k.shape) for k, _, _ in dense_layers(model)[0]]
    s = _orders.Shape(batch=x.shape[0], inputs=x.shape[1], outputs=sizes[-1][1], kind=kind, itemsize=x.itemsize,
                      macs=float(sum(a * c for a, c in sizes)), floats=float(x.shape[1] + sum(c for _, c in sizes)),
                      layers=len(sizes), tileable=True, dense=True, widest=max(c for _, c in sizes))
    return _orders.row("forward_laplacian").cost(s)


def test_the_estimate_counts_each_chunk_s_jacobians_and_the_whole_batch_s_arrays():
    s = _orders.Shape(batch=1024, inputs=50, outputs=1, kind="laplacian", itemsize=4, macs=144_128.0, floats=769.0,
                      layers=4, tileable=True, dense=True, widest=256)
    rows = _orders.chunk_rows(1024, 50, 256)
    assert rows == 64   # 64 x 50 x 256 = 819,200 floats, within 2**20; 128 would not be
    chunks = 4 * (2 * rows) * 50 * 256 * 4   # 4 arrays of a chunk's Jacobian, 2 chunks at a time, float32
    whole = 4 * (1024 + rows) * (2 * 769 + 2 * 50)
    result = 4 * 1024 * 1 * (1 + 50)
    assert _orders.row("forward_laplacian").cost(s).bytes == chunks + whole + result
    diag = _orders.row("forward_laplacian").cost(replace(s, kind="diagonal")).bytes
    assert diag == 2 * chunks + whole + 4 * 1024 * (50 + 50)


def test_the_limit_at_the_estimate_s_last_good_and_first_bad_byte():
    model = mlp("tanh", inputs=5, widths=(32, 32), outputs=1)
    x = np.random.default_rng(7).normal(size=(40, 5))
    need = _estimate(model, x).bytes
    r = gradlib.laplacian(model, x, method="forward_laplacian", limits=Limits(max_bytes=need))
    assert r.method == "forward_laplacian" and f"~{need / 1e6:.2g}" in r.cost
    with pytest.raises(ExpressionError, match=r"^method 'forward_laplacian' would need ~[\d.]+ MB at its peak here "
                                              r"\(40 samples x 1 output x 5 inputs\); at most [\d.]+ MB"):
        gradlib.laplacian(model, x, method="forward_laplacian", limits=Limits(max_bytes=need - 1))
    # it is the leanest method here: auto refuses too, and its advice, followed, is taken
    with pytest.raises(ExpressionError, match=r"the leanest, forward_laplacian, needs .* Use a batch of at most "
                                              r"(\d+), or method='hutchinson'") as refused:
        gradlib.laplacian(model, x, limits=Limits(max_bytes=need - 1))
    advised = int(re.search(r"at most (\d+)", str(refused.value))[1])
    smaller = gradlib.laplacian(model, x[:advised], limits=Limits(max_bytes=need - 1))
    assert smaller.method == "forward_laplacian" and 0 < advised < 40
    np.testing.assert_allclose(smaller.laplacian, r.laplacian[:advised], rtol=1e-12)


def _status_kb(name: str) -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(name + ":"))


def test_a_warm_call_holds_no_more_than_the_estimate():
    """The bench's model: the growth of resident memory over one warm call (Linux's high-water mark, reset
    first) is within the estimate (the estimate: ~34 MB; the chunks alone hold ~26 MB)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pytest.skip("needs Linux's /proc/self/clear_refs to reset the peak of resident memory")
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((50,))] + [keras.layers.Dense(256, activation="tanh") for _ in range(3)]
                             + [keras.layers.Dense(1)])
    x = np.random.default_rng(0).normal(size=(1024, 50)).astype(np.float32)
    r = gradlib.laplacian(model, x)
    gradlib.laplacian(model, x)
    estimate = float(re.search(r"~([\d.e+]+) MB peak", r.cost)[1]) * 1e6
    # freed pages handed back first: glibc kept them, and a warm call reusing them raised no high-water mark (CI read 0)
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    before = _status_kb("VmRSS")
    gradlib.laplacian(model, x)
    grown = (_status_kb("VmHWM") - before) * 1024
    assert r.method == "forward_laplacian" and 0 < grown <= estimate, (grown, estimate)
