"""``forward_over_reverse_one`` (a function of one fixed input): its vectorized Hessian-vector products against its
``use_pfor=False`` fallback (the same products one after another in a ``tf.map_fn`` loop), to the last bit at kinks
and ties, and against a fresh tape per element (the kernel before it was vectorized wrote those out one by one) and
JAX in float64 on a smooth function."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._second import _tapes

ROWS = 16_384


def kinks(x):
    """``(4,) -> (2,)``: relu and abs at 0, a maximum tie, a where on a tie, a reduce_max tie, times smooth parts."""
    a, b = x[:2], x[2:]
    relu = tf.nn.relu(a * b) * tf.reduce_sum(x * x)
    absolute = tf.abs(a - b) * tf.sin(a)
    tie = tf.maximum(a * a, b * b) + tf.where(a >= b, a * b * b, a * a * b)
    return relu + absolute + tie + tf.reduce_max(x * x) * x[0]


def smooth(x):
    return tf.stack([tf.sin(x[0]) * x[1] ** 3, tf.exp(x[0] * x[2]) + tf.tanh(x[1] * x[2]), x[0] * x[1] * x[2]])


#: inputs on the kinks (relu and abs at 0, ties between a and b, both of them, of the reduce_max) and off them
AT = [[0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 1.0, 1.0], [-1.0, 2.0, 1.0, -2.0], [-0.9, 0.4, 0.7, -0.2]]


def _batched(fn):
    return lambda x: tf.reshape(fn(tf.reshape(x, [-1])), (1, -1))


@functools.lru_cache(maxsize=None)
def _kernel(fn, d: int, use_pfor: bool, rows: int = ROWS):
    """Traced once per module (the traces, not the checks, are what take this file's time)."""
    g = _batched(fn)
    kernel = tf.function(lambda x: _tapes.forward_over_reverse_one(g, x, "hessian", rows, use_pfor))
    return kernel.get_concrete_function(tf.TensorSpec((1, d), tf.float64))


def _tape_per_element(fn, x: np.ndarray) -> np.ndarray:
    """An independent reference: a fresh pair of tapes per output element and input element (eager)."""
    v = tf.constant(x, tf.float64)
    out = []
    for k in range(int(tf.size(fn(v)))):
        rows = []
        for j in range(len(x)):
            with tf.GradientTape() as outer:
                outer.watch(v)
                with tf.GradientTape() as inner:
                    inner.watch(v)
                    y_k = fn(v)[k]
                g_j = inner.gradient(y_k, v, unconnected_gradients=tf.UnconnectedGradients.ZERO)[j]
            rows.append(outer.gradient(g_j, v, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy())
        out.append(rows)
    return np.array(out)


def test_vectorized_equals_unrolled_at_kinks_and_ties():
    # atol=0: a zero (relu'(0), abs'(0), the tie's losing side) must be exactly zero in both; elsewhere a sum of the
    # same products may round in another order (1 ulp seen)
    vectorized, unrolled = _kernel(kinks, 4, True), _kernel(kinks, 4, False)
    for at in AT:
        x = tf.constant([at], tf.float64)
        a, b = vectorized(x), unrolled(x)
        for key in ("y", "jacobian", "vjp", "value"):
            np.testing.assert_allclose(a[key].numpy(), b[key].numpy(), rtol=1e-15, atol=0, err_msg=f"{key} at {at}")
        # both are TensorFlow's own convention at the kink: a fresh tape per element gives the same numbers
        np.testing.assert_allclose(a["value"].numpy()[0], _tape_per_element(kinks, np.array(at)), rtol=1e-15, atol=0,
                                   err_msg=str(at))


def test_passes_of_fewer_pairs_are_put_back_in_order():
    # 2 outputs x 4 inputs = 8 pairs: passes of 3 pairs (the last of 2) give the one pass's numbers, in place
    x = tf.constant([AT[3]], tf.float64)
    whole = _kernel(kinks, 4, True)(x)["value"].numpy()
    np.testing.assert_array_equal(_kernel(kinks, 4, True, rows=3)(x)["value"].numpy(), whole)
    # and in place: each H_k[:, j] where a fresh tape per element puts it
    np.testing.assert_allclose(whole[0], _tape_per_element(kinks, np.array(AT[3])), rtol=1e-15, atol=0)


def test_smooth_against_jax_in_float64():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def f(x):
        return jnp.stack([jnp.sin(x[0]) * x[1] ** 3, jnp.exp(x[0] * x[2]) + jnp.tanh(x[1] * x[2]), x[0] * x[1] * x[2]])

    at = np.array([0.3, -1.2, 0.7])
    expected = np.asarray(jax.hessian(f)(at))
    for use_pfor in (True, False):
        h = _kernel(smooth, 3, use_pfor)(tf.constant([at], tf.float64))["value"].numpy()[0]
        np.testing.assert_allclose(h, expected, rtol=1e-13, atol=1e-14, err_msg=f"use_pfor={use_pfor}")


def test_neither_graph_grows_with_the_pairs():
    # written out one by one, 2 outputs x 4 inputs were 8 gradients in the graph (10 outputs: 40); vectorized, or in
    # the fallback's loop, one pass for them all: a graph five times the pairs is hardly larger (a hang-sized trace of
    # thousands of passes, where pfor fails on a wide function, is what the loop avoids)
    def ops(fn, d, use_pfor):
        return len(_kernel(fn, d, use_pfor).graph.get_operations())

    for use_pfor in (True, False):
        assert ops(tile_kinks, 4, use_pfor) < ops(kinks, 4, use_pfor) * 1.2, use_pfor
    # and the fallback is a loop: its graph holds a While op
    assert any(op.type in ("While", "StatelessWhile") for op in _kernel(kinks, 4, False).graph.get_operations())


def tile_kinks(x):
    return tf.tile(kinks(x), [5])


def test_hessians_falls_back_to_the_products_one_by_one_where_pfor_cannot_vectorize(monkeypatch):
    # the runner traces again with use_pfor=False where pfor fails (tensorflow#108936): the same numbers, and a note
    def refuse(*args, **kwargs):
        raise ValueError("No pfor vectorization defined for SomeOp")

    vectorized = _kernel(kinks, 4, True)(tf.constant([AT[1]], tf.float64))["value"].numpy()[0]
    monkeypatch.setattr(tf, "vectorized_map", refuse)
    r = gradlib.hessians(lambda x: kinks(x), tf.constant(AT[1], tf.float64), method="forward_over_reverse")
    np.testing.assert_allclose(r.hessian, vectorized, rtol=1e-15, atol=0)
    np.testing.assert_allclose(r.hessian, _tape_per_element(kinks, AT[1]), rtol=1e-15, atol=0)
    assert r.method == "forward_over_reverse"
    assert any("tensorflow#108936" in w and "while_loop" in w for w in r.warnings)
