"""``call_traced``: a traced method called straight on its graph, and a warm ``evaluate`` that binds nothing again.

Issue 26: ``ConcreteFunction.__call__`` re-binds its arguments to the signature on every call (0.13-0.2 ms of a
1.1 ms warm ``evaluate`` on the 256-wide MLP). The reference here is the ordinary call of the same function.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._callable._trace import INLINE_EXECUTOR, call_traced, fixed_caller, inline_ops, trace
from tensorflow.python.eager.polymorphic_function import function_type_utils


def _traced_with_capture():
    w = tf.constant([[1.0, 2.0], [3.0, 4.0]])   # captured, as a callable's weights are

    def fn(xs, cs):
        return tf.tanh(w @ xs[0][:, None])[:, 0] * cs[0], xs[0] * 2.0

    spec = tf.TensorSpec([2], tf.float32)
    return trace(fn, [[spec], [spec]])


def test_call_traced_gives_the_ordinary_calls_numbers_with_captures():
    traced = _traced_with_capture()
    xs, cs = [tf.constant([0.5, -1.0])], [tf.constant([2.0, 3.0])]
    got, expected = call_traced(traced, xs, cs), traced(xs, cs)
    assert len(got) == 2
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(got[0].numpy(), np.tanh([1.0 * 0.5 - 2.0, 3.0 * 0.5 - 4.0]) * [2.0, 3.0], rtol=1e-6)


def test_a_fixed_caller_gives_the_ordinary_calls_numbers_and_follows_a_variable_it_captures():
    v = tf.Variable([[1.0, -2.0], [3.0, -4.0]])

    def fn(xs, cs):
        return tf.tanh(v @ xs[0][:, None])[:, 0] * cs[0], xs[0] * 2.0

    spec = tf.TensorSpec([2], tf.float32)
    traced = trace(fn, [[spec], [spec]])
    call = fixed_caller(traced)
    assert call is not None
    xs, cs = [tf.constant([0.5, -1.0])], [tf.constant([2.0, 3.0])]
    for _ in range(2):
        got, expected = call(xs, cs), traced(xs, cs)
        assert len(got) == len(expected) == 2
        for a, b in zip(got, expected):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        v.assign(v * -0.5)   # read live through the captured handle, as by the ordinary call


def test_a_fixed_caller_is_refused_for_nested_outputs_and_for_what_is_not_a_concrete_function():
    spec = tf.TensorSpec([2], tf.float32)
    nested = trace(lambda xs, cs: {"y": xs[0] * 2.0, "j": (xs[0], xs[0] + 1.0)}, [[spec], []])
    assert fixed_caller(nested) is None and fixed_caller(lambda xs, cs: xs) is None


def test_call_traced_takes_the_ordinary_call_for_values_that_are_not_tensors():
    traced = _traced_with_capture()
    arrays = call_traced(traced, [np.array([0.5, -1.0], np.float32)], [np.array([2.0, 3.0], np.float32)])
    tensors = traced([tf.constant([0.5, -1.0])], [tf.constant([2.0, 3.0])])   # NumPy arrays: TensorFlow binds them
    for a, b in zip(arrays, tensors):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    plain = call_traced(lambda xs, cs: ("plain", xs, cs), [1], [2])   # not a concrete function: called as it is
    assert plain == ("plain", [1], [2])


def test_a_warm_evaluate_does_not_bind_its_arguments_again(monkeypatch):
    rng = np.random.default_rng(0)
    inputs = {"W1": rng.normal(size=(8, 8)), "W2": rng.normal(size=(8, 8)), "x": rng.normal(size=8)}
    text = "tanh(W2 @ tanh(W1 @ x))"
    first = gradlib.evaluate(text, inputs, watch=["x"], compiled=True)
    bindings = []
    real = function_type_utils.canonicalize_function_inputs
    monkeypatch.setattr(function_type_utils, "canonicalize_function_inputs",
                        lambda *a, **k: bindings.append(1) or real(*a, **k))
    warm = gradlib.evaluate(text, inputs, watch=["x"], compiled=True)
    assert bindings == []
    assert warm.compiled and warm.method == first.method
    h = np.tanh(inputs["W1"] @ inputs["x"])
    y = np.tanh(inputs["W2"] @ h)
    closed_form = (1 - y ** 2)[:, None] * inputs["W2"] @ ((1 - h ** 2)[:, None] * inputs["W1"])
    np.testing.assert_allclose(warm.jacobian, closed_form, rtol=2e-5, atol=2e-5)


def test_a_fixed_caller_runs_the_function_without_call_flat_and_tells_an_error_as_it_does(monkeypatch):
    spec = tf.TensorSpec([2], tf.float32)
    traced = trace(lambda xs, cs: (tf.debugging.check_numerics(xs[0] * 2.0, "doubled x"),), [[spec], []])
    call = fixed_caller(traced)
    calls = []
    original = type(traced.inference_fn).call_flat
    monkeypatch.setattr(type(traced.inference_fn), "call_flat",
                        lambda self, *args: calls.append(args) or original(self, *args))
    (got,) = call([tf.constant([0.5, -1.0])], [])
    np.testing.assert_array_equal(got.numpy(), [1.0, -2.0])
    assert not calls   # the runtime's call of the function, once its checks are known to pass
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        call([tf.constant([np.inf, 1.0])], [])
    assert not calls and "doubled x" in str(raised.value)
    with pytest.raises(tf.errors.InvalidArgumentError) as expected:
        traced([tf.constant([np.inf, 1.0])], [])   # the ordinary call, through call_flat
    assert str(raised.value) == str(expected.value)   # told as call_flat tells it: where in fn the op was made


def test_a_fixed_caller_inside_a_graph_takes_the_ordinary_call():
    spec = tf.TensorSpec([2], tf.float32)
    call = fixed_caller(trace(lambda xs, cs: (xs[0] * 3.0,), [[spec], []]))

    @tf.function(autograph=False)
    def outer(x):
        return call([x], [])[0]

    np.testing.assert_array_equal(outer(tf.constant([1.0, 2.0])).numpy(), [3.0, 6.0])


def _executor_types(monkeypatch):
    """The executor type of every function call the runtime is asked for, in order."""
    from tensorflow.python.eager import execute

    seen, real = [], execute.execute

    def recording(op_name, num_outputs, inputs, attrs, ctx, name=None):
        seen.append(dict(zip(attrs[::2], attrs[1::2])).get("executor_type"))
        return real(op_name, num_outputs, inputs, attrs, ctx, name)

    monkeypatch.setattr(execute, "execute", recording)
    return seen


def test_a_fixed_caller_of_plain_math_runs_it_inline_with_the_ordinary_calls_numbers(monkeypatch):
    rng = np.random.default_rng(1)
    w1, w2 = (tf.constant(rng.normal(size=s).astype(np.float32)) for s in [(64, 16), (128, 64)])

    def fn(xs, cs):   # a tanh MLP and its Jacobian written out, as the structured method's graph holds them
        h = tf.tanh(tf.linalg.matvec(w1, xs[0]))
        y = tf.tanh(tf.linalg.matvec(w2, h))
        return y, (1.0 - y ** 2)[:, None] * tf.matmul(w2, (1.0 - h ** 2)[:, None] * w1)

    traced = trace(fn, [[tf.TensorSpec([16], tf.float32)], []], jit_compile=False)   # as ``Compiled`` builds its graph
    assert inline_ops(traced.graph)
    seen = _executor_types(monkeypatch)
    x = [tf.constant(rng.normal(size=16).astype(np.float32))]
    got = fixed_caller(traced)(x, [])
    assert seen == [INLINE_EXECUTOR]
    for a, b in zip(got, traced(x, [])):   # the ordinary call, on the default executor
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert seen[-1] == ""


def test_a_fixed_caller_keeps_the_default_executor_for_other_ops_and_for_xla(monkeypatch):
    spec = [[tf.TensorSpec([2], tf.float32)], []]
    branching = trace(lambda xs, cs: (tf.cond(xs[0][0] > 0.0, lambda: xs[0] * 2.0, lambda: xs[0] * 3.0),), spec,
                      jit_compile=False)
    random = trace(lambda xs, cs: (xs[0] + tf.random.uniform([2]),), spec, jit_compile=False)
    xla = trace(lambda xs, cs: (tf.tanh(xs[0]),), spec, jit_compile=True)
    assert not inline_ops(branching.graph) and not inline_ops(random.graph) and inline_ops(xla.graph)
    seen = _executor_types(monkeypatch)
    for traced in (branching, random, xla):
        assert fixed_caller(traced)([tf.constant([1.0, -1.0])], []) is not None
    assert seen == ["", "", ""]
    np.testing.assert_array_equal(fixed_caller(branching)([tf.constant([1.0, -1.0])], [])[0].numpy(), [2.0, -2.0])


def test_a_settled_warm_evaluate_runs_its_graph_inline_with_the_same_numbers(monkeypatch):
    rng = np.random.default_rng(2)
    inputs = {"W1": rng.normal(size=(8, 8)), "W2": rng.normal(size=(8, 8)), "x": rng.normal(size=8)}
    text = "tanh(W2 @ tanh(W1 @ x))"
    first = gradlib.evaluate(text, inputs, watch=["x"], compiled=True)   # the default executor: not settled yet
    for _ in range(20):
        warm = gradlib.evaluate(text, inputs, watch=["x"], compiled=True)
        if warm.compiled_final:
            break
    assert warm.compiled_final and warm.compiled_as == "graph"
    seen = _executor_types(monkeypatch)
    settled = gradlib.evaluate(text, inputs, watch=["x"], compiled=True)
    assert seen == [INLINE_EXECUTOR]
    np.testing.assert_array_equal(settled.jacobian, first.jacobian)
    np.testing.assert_array_equal(settled.y, first.y)
