"""A callable that reads a TensorFlow tensor or variable from a global or a closure: rebinding the name must not
leave the compiled graph answering with the old value (the structured Jacobian of tanh(x @ W) kept W's first value
after ``W = tf.constant(...)`` rebound it, silently)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import gradlib
from gradlib._callable._state import fingerprint

W = tf.constant(np.random.default_rng(0).normal(size=(64, 256)).astype(np.float32))
V = tf.Variable(np.random.default_rng(1).normal(size=(64, 256)).astype(np.float32))


def by_constant(x):
    return tf.tanh(x @ W)


def by_variable(x):
    return tf.tanh(x @ V)


def _tape(f, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reshape(f(x), [-1])
    return tape.jacobian(y, x).numpy().reshape(256, 64)


def test_a_rebound_global_tensor_or_variable_gives_the_new_jacobian():
    global W, V
    x = tf.constant(np.random.default_rng(2).normal(size=(1, 64)).astype(np.float32) * 0.1)
    for f in (by_constant, by_variable):
        for _ in range(60):   # auto settles on its compiled graph
            gradlib.per_element_gradients(f, x)
    W = tf.constant(np.random.default_rng(3).normal(size=(64, 256)).astype(np.float32))
    V = tf.Variable(np.random.default_rng(4).normal(size=(64, 256)).astype(np.float32))
    for f in (by_constant, by_variable):
        r = gradlib.per_element_gradients(f, x)
        np.testing.assert_allclose(r.jacobian.reshape(256, 64), _tape(f, x), atol=1e-5)


def test_the_fingerprint_reads_a_closure_tensor_by_content_and_a_variable_by_identity():
    t, v = tf.constant([1.0, 2.0]), tf.Variable([1.0, 2.0])
    f = lambda x: x * t + v   # noqa: E731
    before = fingerprint(f)
    v.assign([5.0, 6.0])   # read live by the graph: the same key
    assert fingerprint(f) == before
    t = tf.constant([1.0, 3.0])
    assert fingerprint(f) != before
    t = tf.constant([1.0, 2.0])
    assert fingerprint(f) == before
    v = tf.Variable([5.0, 6.0])
    assert fingerprint(f) != before
