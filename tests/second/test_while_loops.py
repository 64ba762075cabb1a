"""Second order of a function that runs a while loop (a Keras LSTM or GRU's time loop, ``tf.scan``).

TensorFlow's forward mode over a tape fails on such a loop after tracing for seconds (``TypeError: `dtype`
<dtype: 'variant'> is not compatible with 1 of dtype int64``), which gradlib reported as "fn failed": the forward
methods are refused before anything is traced, ``hvp``'s ``auto`` takes reverse over reverse, and a divergence
(forward mode alone, no tape under it) still runs them. References: a fresh eager tape per sample, float64.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import GradlibError

X = np.array([[0.5, -1.0, 0.25], [0.3, 0.8, -0.6]], np.float64)


def rolled(x):
    """Two steps of h -> tanh(1.3 h + 0.1) in a tf.scan (a while loop keeping a TensorArray), h**2 summed."""
    hs = tf.scan(lambda h, _: tf.tanh(1.3 * h + 0.1), tf.range(2), initializer=x)
    return tf.reduce_sum(hs[-1] ** 2, axis=1, keepdims=True)


def unrolled(x):
    """``rolled`` written out: the reference's function, with no loop."""
    h = tf.tanh(1.3 * tf.tanh(1.3 * x + 0.1) + 0.1)
    return tf.reduce_sum(h ** 2, axis=1, keepdims=True)


def _hessian(fn, sample):
    x = tf.constant(sample[None])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)[0, 0]
        grad = inner.gradient(y, x)[0]
    return outer.jacobian(grad, x)[:, 0, :].numpy()


@pytest.mark.parametrize("method", ["forward_over_reverse", "hutchinson"])
def test_the_forward_methods_are_refused_on_a_while_loop_before_anything_is_traced(method):
    with pytest.raises(GradlibError, match=rf"laplacian cannot use method='{method}' on this fn: it runs a while loop "
                                           r"\(op '.*'.*unroll=True"):
        gradlib.laplacian(rolled, X, method=method)


def test_hvp_auto_takes_reverse_over_reverse_on_a_while_loop():
    v = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]])
    r = gradlib.hvp(lambda x: tf.reduce_sum(rolled(x)), tf.constant(X), tf.constant(v))
    expected = np.concatenate([_hessian(unrolled, s) @ d for s, d in zip(X, v)])
    assert r.method == "reverse_over_reverse"
    np.testing.assert_allclose(r.hvp[0], expected, rtol=1e-10, atol=1e-12)


def _said(r) -> float:
    return float(re.search(r"first call ~([0-9.e+]+) s", r.cost).group(1))


def test_the_first_call_estimate_counts_each_while_loop_per_pass():
    """The table without loops said the same ~0.66 s for ``loop`` on ``rolled`` as on ``unrolled`` (3 passes);
    a Keras LSTM over 4 steps (8 passes) was said 1.3 s and took 6-16 s. Each loop now adds ``LOOP_SECONDS``."""
    r, plain = gradlib.laplacian(rolled, X, method="loop"), gradlib.laplacian(unrolled, X, method="loop")
    np.testing.assert_allclose(r.laplacian[:, 0], [np.trace(_hessian(unrolled, s)) for s in X], rtol=1e-10)
    assert _said(r) > _said(plain) + 2, (_said(r), _said(plain))   # ~1 s per pass
    assert _said(r) >= r.seconds / 2, (_said(r), r.seconds)


def test_auto_takes_a_reverse_method_on_a_while_loop():
    """auto leaves the forward methods out on a loop: counting the loop's seconds per pass, forward_over_reverse
    (one pass) looks cheapest, and it fails there (mutants58: choosing among every method picked it)."""
    r = gradlib.laplacian(rolled, X)
    assert r.method in ("loop", "nested_tapes"), r.method
    np.testing.assert_allclose(r.laplacian[:, 0], [np.trace(_hessian(unrolled, s)) for s in X], rtol=1e-10)


@tf.function
def _inner(x):
    return rolled(x)


def test_a_while_loop_in_a_function_fn_calls_is_found():
    """The loop of a tf.function that fn calls lives in the graph's function library, not among its own nodes
    (mutants58: reading the top-level nodes alone let forward_over_reverse run and fail)."""
    with pytest.raises(GradlibError, match=r"laplacian cannot use method='forward_over_reverse' on this fn: it runs a "
                                           r"while loop \(op '.*'"):
        gradlib.laplacian(lambda x: _inner(x), X, method="forward_over_reverse")
