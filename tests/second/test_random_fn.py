"""Second order of a random fn: the methods that combine several calls of fn refuse it, ``auto`` skips them and does
not repair NaN cells with another call.

``fn(x) = s * sum(x**2)`` with ``s`` 0 or 2, drawn per sample and call: each draw's Laplacian is ``2 d s``, 0 or 16
at ``d = 4`` (the closed form). On main ``forward_over_reverse`` gave 4.0 and 12.0 and ``hutchinson`` 7.25 to 9.25,
numbers no draw has; auto's repair of NaN cells took another draw than y's for 9 of 16 samples.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import GradlibError
from gradlib._second import _orders, _runner

X = tf.constant(np.random.default_rng(2).standard_normal((5, 4)), tf.float32)


def scaled(x):
    s = tf.cast(tf.random.uniform((tf.shape(x)[0], 1)) < 0.5, x.dtype) * 2.0
    return tf.reduce_sum(x * x, axis=1, keepdims=True) * s


def one_draw(laplacian: np.ndarray) -> bool:
    return bool(np.all(np.isclose(laplacian, 0.0) | np.isclose(laplacian, 16.0, rtol=1e-5)))


@pytest.mark.parametrize("method", ["forward_over_reverse", "hutchinson"])
def test_a_method_that_calls_fn_several_times_refuses_a_random_fn(method):
    with pytest.raises(GradlibError, match=rf"laplacian cannot use method='{method}' on this fn: fn is random: two "
                                           rf"calls .*{method} calls fn several times"):
        gradlib.laplacian(scaled, X, method=method)


@pytest.mark.parametrize("method", ["nested_tapes", "loop"])
def test_a_method_of_one_call_gives_one_draw_s_laplacian_and_says_fn_is_random(method):
    r = gradlib.laplacian(scaled, X, method=method)
    assert one_draw(r.laplacian) and np.allclose(r.laplacian[:, 0], 2 * 4 * r.y[:, 0] / np.sum(X.numpy() ** 2, 1))
    assert any(w.startswith("fn is random") and f"'{method}' differentiates one call of fn" in w for w in r.warnings)


def test_auto_skips_a_method_of_several_calls_for_a_random_fn(monkeypatch):
    """Where auto's table would pick forward over reverse (a wide batch), it takes a method of one call instead."""
    choose = _orders.choose
    monkeypatch.setattr(_orders, "choose", lambda s, limits, exclude=(): "forward_over_reverse"
                        if "forward_over_reverse" not in exclude else choose(s, limits, exclude))
    assert gradlib.laplacian(lambda x: tf.reduce_sum(x ** 3, 1, keepdims=True), X).method == "forward_over_reverse"
    r = gradlib.laplacian(scaled, X)
    assert r.method not in _runner.SEVERAL_CALLS and one_draw(r.laplacian)


def poisoned_random(x):
    """[where(x0 > 0, sqrt|x0|, 0), s * x1**2]: at x0 = 0 nested tapes' cells are NaN (0 x inf), and auto repairs
    them in forward over forward mode, which calls fn again."""
    a = x[:, 0]
    s = tf.cast(tf.random.uniform(tf.shape(a)) < 0.5, x.dtype) * 2.0
    return tf.stack([tf.where(a > 0, tf.sqrt(tf.abs(a)), tf.zeros_like(a)), x[:, 1] ** 2 * s], axis=1)


def test_auto_does_not_repair_a_random_fn_with_another_draw():
    x = np.zeros((16, 2))
    x[:, 1] = np.arange(1, 17)
    r = gradlib.laplacian(poisoned_random, tf.constant(x))
    assert not len(r.repaired_cells) and np.isnan(r.laplacian[:, 1]).all()
    assert any("not repaired: fn is random" in w and "another draw than the rest" in w for w in r.warnings), r.warnings
    # the same function without its draw is repaired, to the closed form 2 * s with s = 2 (without the draw in its
    # graph at all: a draw the output ignores, 0 * draw, is random to is_random, which reads the trace's random ops)
    fixed = gradlib.laplacian(lambda v: tf.stack(
        [tf.where(v[:, 0] > 0, tf.sqrt(tf.abs(v[:, 0])), tf.zeros_like(v[:, 0])), 2 * v[:, 1] ** 2], axis=1),
        tf.constant(x))
    assert np.allclose(fixed.laplacian[:, 1], 4.0)
