"""The structured Jacobian of a callable (issue 41, item 1): its traced graph read op by op.

The reference everywhere is TensorFlow's own tape, run here beside it: a fresh ``tf.GradientTape`` per output
element, or ``tape.jacobian``. A callable is either covered (every op between its watched inputs and its output has
a rule) and ``method="structured"`` gives the tape's numbers, or it is refused by name with the op that has no rule,
and ``auto`` gives the tape's answer. The callables are the whole structured test table of the typed functions
(``test_structured.py``: each text's own TensorFlow function, called as a callable), its kinks and ties
(``test_kinks.py``), random MLPs and Keras ``Sequential`` models of ``Dense`` layers.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings, strategies as st

import gradlib
from gradlib._foundations._limits import LIMITS
from gradlib._language._operations import OPERATIONS
from gradlib._perelement import _cost, _engine, _opgraph
from gradlib._perelement._api import prepare
from gradlib._perelement._problem import callable_problem
from test_kinks import CASES as KINK_CASES
from test_structured import EXAMPLES, INPUTS, JOINS, SYNTAX, UNEQUAL_INPUTS, _unequal

from gradlib._perelement._structured import RULES as TYPED_RULES

TABLE = ([(text, INPUTS) for text in EXAMPLES.values()] + [(text, INPUTS) for text in SYNTAX]
         + [(_unequal(name), UNEQUAL_INPUTS) for name in sorted(TYPED_RULES)] + [(text, UNEQUAL_INPUTS) for text in JOINS])
#: functions of the table whose TensorFlow ops all have a rule: they must run structured (coverage never shrinks)
COVERED = ["tanh(W @ x)", "sigmoid(W) * x", "relu(W @ x)", "exp(W) @ x", "sin(W @ x)", "square(W) @ x",
           "maximum(x, v * W)", "minimum(W, x)", "abs(x - v)", "atan(W * x)", "-x + transpose(W) @ (W @ x) - v / q",
           "sum(W * x, axis=1) + sum(T * x)", "mean(W * x, axis=0) * mean(T)", "norm(W @ x) + norm(T * x, axis=2)",
           "cross_entropy(softmax(W), W * x)"]
#: the same, of the table's functions of unequal inputs (float64 only)
COVERED_UNEQUAL = ["concat([mean(A * x, axis=1), mean(W, axis=0) * s])", "concat([norm(A * x, axis=1), [norm(Q * x)]])"]


def _fresh_tape(fn, xs: list) -> np.ndarray:
    """The reference: one fresh tape per output element, over all of ``xs`` (flattened, in order)."""
    rows, m = [], int(tf.size(fn(xs)))
    for i in range(m):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y_i = tf.reshape(fn(xs), [-1])[i]
        grads = tape.gradient(y_i, xs, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        rows.append(np.concatenate([g.numpy().ravel() for g in grads]))
    return np.array(rows)


def _as_callable(text: str, inputs: dict, dtype: str):
    """The typed function's own TensorFlow function as a callable of the list of its watched tensors."""
    problem = prepare("evaluate", text, inputs, ["auto"], watch=None, dtype=dtype, limits=LIMITS)[2]
    return (lambda xs: problem.f(list(xs), problem.cs)), list(problem.xs)


def _close(got: np.ndarray, expected: np.ndarray, dtype: str) -> None:
    rtol = 1e-10 if dtype == "float64" else 2e-5
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * max(1.0, np.abs(expected).max()))


def test_every_unary_rule_is_the_op_its_language_row_computes():
    for op_type, name in _opgraph.GRAPH_UNARY.items():
        graph = tf.function(lambda x: OPERATIONS[name].run(x), autograph=False).get_concrete_function(
            tf.TensorSpec([3], tf.float64)).graph
        assert op_type in {op.type for op in graph.get_operations()}, (op_type, name)


#: the whole table in float64, the covered functions in float32 as well
TABLE_CASES = [(text, inputs, "float64") for text, inputs in TABLE] + [(text, INPUTS, "float32") for text in COVERED]


@pytest.mark.parametrize("text, inputs, dtype", TABLE_CASES, ids=[f"{t}-{d}" for t, _, d in TABLE_CASES])
def test_the_structured_table_as_callables_is_the_tape_or_refused_by_the_op_and_auto_is_the_tape(text, inputs, dtype):
    fn, xs = _as_callable(text, inputs, dtype)
    expected = _fresh_tape(fn, xs)
    try:
        r = gradlib.per_element_gradients(fn, xs, method="structured", compiled=True)
    except gradlib.ExpressionError as exc:
        assert text not in COVERED + COVERED_UNEQUAL, str(exc)
        assert "method 'structured' cannot run here: op '" in str(exc) and "use method='auto'" in str(exc)
    else:
        assert r.method == "structured" and not [w for w in r.warnings if "disagrees" in w]
        _close(r.jacobian, expected, dtype)
    auto = gradlib.per_element_gradients(fn, xs, compiled=True)
    _close(auto.jacobian, expected, dtype)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("text, inputs, tf_code", KINK_CASES)
def test_at_kinks_and_ties_it_is_exactly_the_tape(text, inputs, tf_code, compiled):
    xs = {k: tf.constant(np.asarray(v, np.float64)) for k, v in inputs.items()}
    names = list(xs)
    expected = _fresh_tape(lambda t: tf_code(dict(zip(names, t))), [xs[k] for k in names])
    try:
        r = gradlib.per_element_gradients(tf_code, xs, method="structured", compiled=compiled)
    except gradlib.ExpressionError as exc:
        assert "has no rule in the structured Jacobian" in str(exc)
    else:
        np.testing.assert_array_equal(r.jacobian, expected)
    np.testing.assert_array_equal(gradlib.per_element_gradients(tf_code, xs, compiled=True).jacobian, expected)


ACTIVATIONS = {"tanh": tf.tanh, "sigmoid": tf.sigmoid, "relu": tf.nn.relu, "linear": tf.identity}


def _mlp(widths, activation, dtype, seed, bias):
    rng = np.random.default_rng(seed)
    layers = [(tf.constant(rng.standard_normal((o, i)) / np.sqrt(i), dtype), tf.constant(rng.standard_normal(o), dtype))
              for i, o in zip(widths, widths[1:])]

    def fn(x):
        for w, b in layers:
            x = ACTIVATIONS[activation](tf.linalg.matvec(w, x) + (b if bias else 0.0))
        return x
    return fn, tf.constant(rng.standard_normal(widths[0]), dtype)


@settings(max_examples=15, deadline=None)
@given(widths=st.lists(st.integers(1, 9), min_size=2, max_size=4), activation=st.sampled_from(sorted(ACTIVATIONS)),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2**16), bias=st.booleans())
def test_random_mlps_of_several_widths_give_tape_jacobian_s_numbers(widths, activation, dtype, seed, bias):
    fn, x = _mlp(widths, activation, dtype, seed, bias)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    expected = tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy().reshape(-1, x.shape[0])
    r = gradlib.per_element_gradients(fn, x, method="structured", compiled=True)
    assert r.method == "structured"
    _close(r.jacobian, expected, dtype)


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid", None])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_keras_sequential_dense_models_give_the_tape_s_numbers(activation, dtype):
    keras.utils.set_random_seed(41)
    model = keras.Sequential([keras.Input((5,), dtype=dtype), keras.layers.Dense(7, activation=activation, dtype=dtype),
                              keras.layers.Dense(3, activation="tanh", dtype=dtype)])
    x = tf.constant(np.random.default_rng(1).standard_normal((4, 5)), dtype)
    expected = _fresh_tape(lambda t: model(t[0]), [x])
    for method in ("structured", "auto"):
        r = gradlib.per_element_gradients(model, x, method=method, compiled=True)
        assert r.method == "structured" or method == "auto"
        _close(r.jacobian, expected, dtype)


def test_a_softmax_head_and_a_model_of_named_outputs_give_the_tape_s_numbers(seed):
    keras.utils.set_random_seed(7)
    inputs = keras.Input((6,))
    hidden = keras.layers.Dense(5, activation="tanh")(inputs)
    models = [keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                                keras.layers.Dense(4, activation="softmax")]),
              keras.Model(inputs, {"p": keras.layers.Dense(2)(hidden),    # joined by ConcatV2 of the two outputs
                                   "q": keras.layers.Dense(3, activation="log_softmax")(hidden)})]
    x = tf.constant(np.random.default_rng(2).standard_normal((3, 6)), tf.float32)
    for model in models:   # the reference: the tape method, which joins the named outputs in the same order
        r = gradlib.per_element_gradients(model, x, method="structured", compiled=True)
        tape = gradlib.per_element_gradients(model, x, method="jacobian", compiled=False)
        assert r.row_labels == tape.row_labels
        _close(r.jacobian, tape.jacobian, "float32")
    xs = [tf.constant(v) for v in seed[1].values()]      # the seed's stack of products (Pack, Mul)
    r = gradlib.per_element_gradients(lambda v: tf.stack([v[0] * v[1] * v[2], v[0] * v[1] * v[2] * v[0]]), xs,
                                      method="structured")
    assert r.jacobian.tolist() == [[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]


def _tanh_layer(n: int, seed: int = 0):
    w = tf.constant(np.random.default_rng(seed).standard_normal((n, n)) / np.sqrt(n))
    return w, tf.constant(np.random.default_rng(seed + 1).standard_normal(n))


def test_an_op_without_a_rule_leaves_the_whole_function_to_the_tape_with_the_tape_s_answer():
    w, x = _tanh_layer(40)
    fn = lambda v: tf.math.cumsum(tf.tanh(tf.linalg.matvec(w, v)))   # noqa: E731 - Cumsum has no graph rule
    expected = _fresh_tape(lambda t: fn(t[0]), [x])
    r = gradlib.per_element_gradients(fn, x, compiled=True)
    assert r.method in ("jacobian", "forward")
    _close(r.jacobian, expected, "float64")
    with pytest.raises(gradlib.ExpressionError, match=r"method 'structured' cannot run here: op 'Cumsum' \(Cumsum\) "
                                                      r"has no rule in the structured Jacobian: the tape "
                                                      r"differentiates this function instead; use method='auto'"):
        gradlib.per_element_gradients(fn, x, method="structured")


def test_a_gradient_fn_defines_itself_or_a_cast_to_another_dtype_is_left_to_the_tape():
    x = tf.constant(np.linspace(-1.0, 1.0, 40) + 0.013)
    ste = tf.custom_gradient(lambda v: (tf.round(v), lambda dy: dy))
    cases = [lambda v: ste(v * 2.0) * v,                               # the tape follows the straight-through gradient
             lambda v: tf.cast(tf.tanh(tf.cast(v, tf.float32)), tf.float64)]
    for fn in cases:
        expected = _fresh_tape(lambda t: fn(t[0]), [x])
        r = gradlib.per_element_gradients(fn, x, compiled=True)
        assert r.method != "structured"
        np.testing.assert_allclose(r.jacobian, expected, rtol=1e-6, atol=1e-7)
        with pytest.raises(gradlib.ExpressionError, match=r"method 'structured' cannot run here: op '"):
            gradlib.per_element_gradients(fn, x, method="structured")


def test_a_stopped_gradient_and_an_unused_input_are_zero_as_in_the_tape():
    w, x = _tanh_layer(12)
    fn = lambda xs: tf.tanh(tf.linalg.matvec(w, xs[0])) * tf.stop_gradient(xs[0])   # noqa: E731 - xs[1] unused
    xs = [x, x * 2.0]
    r = gradlib.per_element_gradients(fn, xs, method="structured", compiled=True)
    np.testing.assert_allclose(r.jacobian, _fresh_tape(fn, xs), rtol=1e-12, atol=1e-14)
    assert not r.jacobian[:, 12:].any()


def test_auto_takes_it_for_the_mlp_and_keeps_one_reverse_pass_for_a_scalar():
    w, x = _tanh_layer(64)
    fn = lambda v: tf.tanh(tf.linalg.matvec(w, tf.tanh(tf.linalg.matvec(w, v))))   # noqa: E731
    r = gradlib.per_element_gradients(fn, x)
    assert (r.method, r.requested, r.compiled, r.warnings) == ("structured", "auto", True, ())
    _close(r.jacobian, _fresh_tape(lambda t: fn(t[0]), [x]), "float64")
    scalar = gradlib.per_element_gradients(lambda v: tf.reduce_sum(fn(v)), x, compiled=True)
    assert scalar.method == "jacobian"


def test_the_estimate_counts_the_hidden_layers_and_the_limits_cover_them():
    n, hidden = 64, 1024
    rng = np.random.default_rng(3)
    w1, w2 = tf.constant(rng.standard_normal((hidden, n))), tf.constant(rng.standard_normal((n, hidden)))
    fn = lambda v: tf.tanh(tf.linalg.matvec(w2, tf.tanh(tf.linalg.matvec(w1, v))))   # noqa: E731
    x = tf.constant(rng.standard_normal(n))
    profile = _opgraph.read(lambda xs, cs: fn(xs[0]), [x], []).profile
    assert (profile.m, profile.n) == (n, n) and profile.watched_elements >= 2 * hidden + 2 * n
    cost = _cost.estimate("structured", profile, True)
    assert cost.bytes >= 8 * n * 2 * hidden          # the (hidden, n) Jacobians the walk holds, in float64
    lower = _cost.estimate("structured", _cost.Profile.of_callable(n, n, 8), True)
    limits = gradlib.Limits(max_bytes=(lower.bytes + cost.bytes) / 2)
    with pytest.raises(gradlib.ExpressionError, match=r"method 'structured' would need about .* of memory"):
        gradlib.per_element_gradients(fn, x, method="structured", limits=limits)
    r = gradlib.per_element_gradients(fn, x, compiled=True, limits=limits)
    assert r.method != "structured"


def test_a_refusal_found_while_building_is_remembered_and_auto_falls_back(monkeypatch):
    w, x = _tanh_layer(50, seed=5)
    fn = lambda v: tf.tanh(tf.linalg.matvec(w, v))   # noqa: E731

    def broken(walker, op, ins):
        raise ValueError("planted")

    monkeypatch.setitem(_opgraph.GRAPH_RULES, "Tanh", broken)
    r = gradlib.per_element_gradients(fn, x, compiled=True)
    assert r.method != "structured"
    _close(r.jacobian, _fresh_tape(lambda t: fn(t[0]), [x]), "float64")
    assert callable_problem(fn, x).key in _engine._NOT_STRUCTURED.keys()   # not built again on the next call


# ---------------------------------------------------------------- reductions: Sum and Mean over their axes

REDUCTIONS = {"sum": tf.reduce_sum, "mean": tf.reduce_mean}


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data(), keep=st.booleans(),
       reduction=st.sampled_from(sorted(REDUCTIONS)), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2**16))
def test_sum_and_mean_over_any_axes_give_the_tape_s_numbers(shape, data, keep, reduction, dtype, seed):
    rank = len(shape)
    axes = data.draw(st.one_of(st.none(), st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank,
                                                   unique_by=lambda a: a % rank)))
    rng = np.random.default_rng(seed)
    w = tf.constant(rng.standard_normal(shape), dtype)
    x = tf.constant(rng.standard_normal(shape), dtype)
    outer = data.draw(st.sampled_from(["none", "tanh", "square"]))
    after = {"none": tf.identity, "tanh": tf.tanh, "square": tf.square}[outer]
    fn = lambda v: after(REDUCTIONS[reduction](tf.sin(w * v), axis=axes, keepdims=keep))   # noqa: E731
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    expected = tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy()
    r = gradlib.per_element_gradients(fn, x, method="structured", compiled=True)
    assert r.method == "structured" and r.y.shape == tuple(y.shape)
    _close(r.jacobian, expected.reshape(r.jacobian.shape), dtype)


def test_a_sum_of_a_watched_input_and_a_mean_at_relu_s_kink_are_exactly_the_tape():
    x = tf.constant([[0.0, -1.0, 2.0], [3.0, 0.0, -0.5]], tf.float64)   # relu's kink at 0: the tape takes 0
    tied = tf.constant([[0.0, -1.0, 1.0], [3.0, 1.0, -0.5]], tf.float64)
    cases = [lambda v: tf.reduce_sum(v), lambda v: tf.reduce_sum(v, axis=[0, 1], keepdims=True),
             lambda v: tf.reduce_mean(tf.nn.relu(v), axis=-1), lambda v: tf.reduce_sum(v, axis=[]) * 2.0,
             lambda v: tf.reduce_mean(tf.maximum(v, tied) + tf.minimum(v, v), axis=0)]   # ties of maximum, minimum
    for fn in cases:
        expected = _fresh_tape(lambda t: fn(t[0]), [x])
        for compiled in (True, False):
            r = gradlib.per_element_gradients(fn, x, method="structured", compiled=compiled)
            np.testing.assert_array_equal(r.jacobian, expected)


def test_a_keras_model_that_averages_its_sequence_gives_the_tape_s_numbers():
    keras.utils.set_random_seed(11)
    model = keras.Sequential([keras.Input((4, 3)), keras.layers.Dense(5, activation="tanh"),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(2)])
    x = tf.constant(np.random.default_rng(4).standard_normal((2, 4, 3)), tf.float32)
    r = gradlib.per_element_gradients(model, x, method="structured", compiled=True)
    tape = gradlib.per_element_gradients(model, x, method="jacobian", compiled=False)
    _close(r.jacobian, tape.jacobian, "float32")


def test_a_reduction_over_an_axis_known_only_when_it_runs_is_left_to_the_tape():
    x = tf.constant(np.arange(6.0).reshape(2, 3))
    fn = lambda v: tf.reduce_sum(v * v, axis=tf.cast(tf.argmax(tf.shape(v)), tf.int32) - 1)   # noqa: E731 - computed
    with pytest.raises(gradlib.ExpressionError, match=r"op 'Sum' .* has a permutation or an axis known only when it "
                                                      r"runs"):
        gradlib.per_element_gradients(fn, x, method="structured")
    np.testing.assert_allclose(gradlib.per_element_gradients(fn, x, compiled=True).jacobian,
                               _fresh_tape(lambda t: fn(t[0]), [x]))


def test_the_limits_cover_the_identity_a_reduction_of_a_watched_input_builds():
    """sum over rows of x itself: the walk builds x's (n, n) identity to add its rows. The estimate counts it, and
    a limit just below the estimate refuses the method while one just above runs it (last good, first bad)."""
    x = tf.constant(np.random.default_rng(6).standard_normal((32, 16)))
    fn = lambda v: tf.tanh(tf.reduce_sum(v, axis=1))   # noqa: E731
    n = 32 * 16
    profile = _opgraph.read(lambda xs, cs: fn(xs[0]), [x], []).profile
    cost = _cost.estimate("structured", profile, True)
    assert cost.bytes >= 8 * (n * n + 2 * 32 * n)            # the identity, and the (32, n) Jacobians after it
    with pytest.raises(gradlib.ExpressionError, match=r"method 'structured' would need about .* of memory"):
        gradlib.per_element_gradients(fn, x, method="structured", limits=gradlib.Limits(max_bytes=cost.bytes - 1))
    r = gradlib.per_element_gradients(fn, x, method="structured", limits=gradlib.Limits(max_bytes=cost.bytes))
    _close(r.jacobian, _fresh_tape(lambda t: fn(t[0]), [x]), "float64")


# ---------------------------------------------------------------- a user's own tf.function, called inside fn

def _layers(seed: int = 8):
    rng = np.random.default_rng(seed)
    w = tf.constant(rng.standard_normal((6, 5)) / 2.0)
    v = tf.Variable(rng.standard_normal(6))

    @tf.function
    def layer(t):
        return tf.tanh(tf.linalg.matvec(w, t)) + v          # reads a variable: a StatefulPartitionedCall

    @tf.function
    def block(t):
        return tf.nn.relu(layer(t)) * tf.reduce_mean(t)      # a call within a call
    return layer, block, tf.constant(rng.standard_normal(5))


def test_a_user_s_own_tf_function_is_walked_through_its_body_with_the_tape_s_numbers():
    layer, block, x = _layers()
    cases = [lambda t: layer(t) * 2.0, lambda t: block(t) - layer(t), block,
             lambda t: tf.concat([block(t), layer(t * t)], 0)]
    for fn in cases:
        expected = _fresh_tape(lambda ts: fn(ts[0]), [x])
        for compiled in (True, False):
            r = gradlib.per_element_gradients(fn, x, method="structured", compiled=compiled)
            np.testing.assert_allclose(r.jacobian, expected, rtol=1e-12, atol=1e-14)
    assert "PartitionedCall" in str([op.type for op in _opgraph.walk_plan(
        *(lambda g: (g.outputs[0], g.inputs[:1]))(tf.function(block).get_concrete_function(
            tf.TensorSpec([5], tf.float64)).graph))])


def test_a_tf_function_with_a_random_op_or_an_op_without_a_rule_is_left_to_the_tape_by_name():
    _, block, x = _layers(9)

    @tf.function
    def noisy(t):
        return t * tf.random.stateless_uniform([5], [1, 2], dtype=tf.float64) + tf.random.uniform([5], dtype=tf.float64)

    @tf.function
    def summed(t):
        return tf.math.cumsum(block(t))
    for fn, what in ((noisy, r"op 'RandomUniform' has a state"), (summed, r"op 'Cumsum' \(Cumsum\) has no rule")):
        with pytest.raises(gradlib.ExpressionError, match=r"in the function '__inference_\w+' that op '\w+' calls, "
                                                          + what):
            gradlib.per_element_gradients(fn, x, method="structured")
    r = gradlib.per_element_gradients(summed, x, compiled=True)
    _close(r.jacobian, _fresh_tape(lambda ts: summed(ts[0]), [x]), "float64")


def test_the_estimate_counts_the_body_of_a_called_function():
    rng = np.random.default_rng(12)
    w1, w2 = tf.constant(rng.standard_normal((512, 16))), tf.constant(rng.standard_normal((16, 512)))
    inner = tf.function(lambda t: tf.tanh(tf.linalg.matvec(w1, t)))
    fn = lambda t: tf.linalg.matvec(w2, inner(t))   # noqa: E731
    x = tf.constant(rng.standard_normal(16))
    profile = _opgraph.read(lambda xs, cs: fn(xs[0]), [x], []).profile
    assert profile.watched_elements >= 2 * 512 + 16            # the body's hidden layer: its MatMul and its Tanh
    cost = _cost.estimate("structured", profile, True)
    with pytest.raises(gradlib.ExpressionError, match=r"method 'structured' would need about .* of memory"):
        gradlib.per_element_gradients(fn, x, method="structured", limits=gradlib.Limits(max_bytes=cost.bytes - 1))
    r = gradlib.per_element_gradients(fn, x, method="structured", limits=gradlib.Limits(max_bytes=cost.bytes))
    _close(r.jacobian, _fresh_tape(lambda t: fn(t[0]), [x]), "float64")
