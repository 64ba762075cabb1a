"""A warm call of ``per_element_gradients`` answered from its recipe (``gradlib._perelement._warm``) is the answer of
the cold path in every field, and a request that differs in anything the cold path decides by (a variable's value,
a closure cell, a global, the dtype, the shape, the form of ``xs``, the limits, ``check``, ``method``) is answered
afresh and right: never from the recipe of the request before it."""

from __future__ import annotations

import dataclasses
import math
import sys
import threading
import time

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._foundations import _runtime
from gradlib._perelement import _compiled, _compute, _probe, _warm

RNG = np.random.default_rng(3)
W1 = RNG.standard_normal((16, 4)).astype(np.float32)
W2 = RNG.standard_normal((48, 16)).astype(np.float32)
X = RNG.standard_normal(4).astype(np.float32)
SCALE = 1.0   # read by _scaled_by_global: a global the fingerprint sees


@pytest.fixture(autouse=True)
def _settles_on_the_graph(monkeypatch):
    """gradlib settles on the graph after ``SAMPLES`` calls whatever the machine's load: unpinned, a loaded machine
    (graph calls over ``XLA_MIN_SECONDS``) keeps the choice open past ``_warmed``'s calls, and every test failed there
    before testing anything."""
    monkeypatch.setattr(_compiled, "XLA_MIN_SECONDS", math.inf)


def _mlp(w1=W1, w2=W2):
    t1, t2 = tf.constant(w1), tf.constant(w2)
    return lambda x: tf.tanh(tf.linalg.matvec(t2, tf.tanh(tf.linalg.matvec(t1, x))))


def _scaled_by_global(x):
    return tf.tanh(tf.linalg.matvec(tf.constant(W2), tf.tanh(tf.linalg.matvec(tf.constant(W1), x)))) * SCALE


def _reference(fn, xs):
    """The eager tape's Jacobian of ``fn`` at ``xs``, computed without any cache of gradlib's compiled paths."""
    return gradlib.per_element_gradients(fn, xs, method="jacobian", compiled=False, check=False).jacobian


def _warmed(fn, xs, **options):
    """Call until the request is answered from its recipe; the last result."""
    for _ in range(8):
        result = gradlib.per_element_gradients(fn, xs, compiled=True, **options)
    assert result.method == "structured" and result.compiled_final, result
    assert _recalled(fn, xs, **options) is not None, "the request is not answered warm: the test tests nothing"
    return result


def _recalled(fn, xs, method="auto", compiled=True, check=True, limits=gradlib.LIMITS):
    return _warm.recall(fn, xs, method, compiled, check, limits)


def _cold(fn, xs, **options):
    """The same request with no recipe kept: the whole path."""
    _warm._RECIPES.clear()
    return gradlib.per_element_gradients(fn, xs, compiled=True, **options)


def _fields(result):
    return {k: v for k, v in dataclasses.asdict(result).items() if k != "seconds"}


def _same_result(a, b) -> None:
    fa, fb = _fields(a), _fields(b)
    assert fa.keys() == fb.keys()
    for key in fa:
        if isinstance(fa[key], np.ndarray):
            assert fa[key].dtype == fb[key].dtype and np.array_equal(fa[key], fb[key], equal_nan=True), key
        else:
            assert fa[key] == fb[key], key


@pytest.mark.parametrize("form", ["single", "list", "tuple", "dict"])
def test_a_warm_answer_is_the_cold_path_s_in_every_field(form):
    f = _mlp()
    fn, xs = {"single": (f, tf.constant(X)),
              "list": (lambda xs: f(xs[0] + xs[1]), [tf.constant(X), tf.constant(X * 0.5)]),
              "tuple": (lambda xs: f(xs[0] + xs[1]), (tf.constant(X), tf.constant(X * 0.5))),
              "dict": (lambda d: f(d["a"] * d["b"]), {"a": tf.constant(X), "b": tf.constant(X + 1.0)})}[form]
    _warmed(fn, xs)
    warm = gradlib.per_element_gradients(fn, xs, compiled=True)
    cold = _cold(fn, xs)
    _same_result(warm, cold)
    assert isinstance(warm, gradlib.GradResult) and warm.y.flags.writeable and warm.jacobian.flags.writeable
    np.testing.assert_allclose(warm.jacobian, _reference(fn, xs), rtol=1e-4, atol=1e-5)


def test_new_input_values_of_the_same_shape_are_answered_warm_and_right():
    f = _mlp()
    _warmed(f, tf.constant(X))
    other = tf.constant(X * -2.0)
    assert _recalled(f, other) is not None
    np.testing.assert_allclose(gradlib.per_element_gradients(f, other, compiled=True).jacobian, _reference(f, other),
                               rtol=1e-4, atol=1e-5)


def test_a_variable_assigned_between_calls_gives_the_new_answer():
    v = tf.Variable(W1)
    t2 = tf.constant(W2)
    f = lambda x: tf.tanh(tf.linalg.matvec(t2, tf.tanh(tf.linalg.matvec(v, x))))  # noqa: E731
    x = tf.constant(X)
    before = _warmed(f, x).jacobian
    v.assign(W1 * 3.0)
    after = gradlib.per_element_gradients(f, x, compiled=True).jacobian
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, _reference(f, x), rtol=1e-4, atol=1e-5)


def test_a_closure_cell_changed_between_calls_gives_the_new_answer():
    scale = np.array([1.0], np.float32)
    f = _mlp()
    g = lambda x: f(x) * scale  # noqa: E731
    x = tf.constant(X)
    before = _warmed(g, x).jacobian
    scale[0] = 5.0   # in place: the fingerprint reads the array's content
    after = gradlib.per_element_gradients(g, x, compiled=True).jacobian
    np.testing.assert_allclose(after, 5.0 * before, rtol=1e-5, atol=1e-6)


def test_a_rebound_closure_cell_gives_the_new_answer():
    f, factor = _mlp(), 1.0

    def g(x):
        return f(x) * factor

    x = tf.constant(X)
    before = _warmed(g, x).jacobian
    factor = -2.0   # noqa: F841 - read by g through its closure cell
    after = gradlib.per_element_gradients(g, x, compiled=True).jacobian
    np.testing.assert_allclose(after, -2.0 * before, rtol=1e-5, atol=1e-6)


def test_a_global_changed_between_calls_gives_the_new_answer(monkeypatch):
    x = tf.constant(X)
    before = _warmed(_scaled_by_global, x).jacobian
    monkeypatch.setitem(globals(), "SCALE", 4.0)
    after = gradlib.per_element_gradients(_scaled_by_global, x, compiled=True).jacobian
    np.testing.assert_allclose(after, 4.0 * before, rtol=1e-5, atol=1e-6)


def test_another_dtype_or_shape_is_answered_by_its_own_path():
    f = _mlp()
    _warmed(f, tf.constant(X))
    as64 = tf.constant(X.astype(np.float64))
    assert _recalled(f, as64) is None
    with pytest.raises(gradlib.GradlibError):   # W1 is float32: fn fails on float64 the same way cold
        gradlib.per_element_gradients(f, as64, compiled=True)
    g = lambda x: _mlp(np.tile(W1, (1, 2)))(x)  # noqa: E731
    _warmed(g, tf.constant(np.tile(X, 2)))
    assert _recalled(g, tf.constant(np.tile(X, 2)[:4])) is None   # another shape: no recipe
    with pytest.raises(gradlib.GradlibError):
        gradlib.per_element_gradients(g, tf.constant(X), compiled=True)


def test_limits_that_refuse_the_request_refuse_it_warm_too():
    f, x = _mlp(), tf.constant(X)
    _warmed(f, x)
    tight = gradlib.Limits(max_jacobian=48 * 4 - 1)
    assert _recalled(f, x, limits=tight) is None
    with pytest.raises(gradlib.GradlibError, match="at most 191 are allowed"):
        gradlib.per_element_gradients(f, x, compiled=True, limits=tight)


@pytest.mark.parametrize("option", [{"check": False}, {"method": "forward"}, {"compiled": None}])
def test_other_options_are_not_answered_from_the_recipe_of_these(option):
    f, x = _mlp(), tf.constant(X)
    _warmed(f, x)
    assert _recalled(f, x, **option) is None


def test_a_non_finite_answer_at_the_same_shapes_goes_the_cold_way():
    f = lambda x: tf.sqrt(x) * 2.0  # noqa: E731
    _warmed(f, tf.constant([1.0, 4.0, 9.0]))
    negative = tf.constant([1.0, -4.0, 9.0])
    assert _recalled(f, negative) is None
    gradlib.per_element_gradients(f, negative, compiled=True)   # traces the tape method auto then takes
    warm = gradlib.per_element_gradients(f, negative, compiled=True)
    _same_result(warm, _cold(f, negative))
    assert warm.method != "structured"


def test_a_recipe_whose_compiled_function_was_evicted_no_longer_holds():
    f, x = _mlp(), tf.constant(X)
    _warmed(f, x)
    _compute._JACOBIAN_FUNCTIONS.clear()
    assert _recalled(f, x) is None
    assert gradlib.per_element_gradients(f, x, compiled=True).traced   # traced again, as cold


def test_a_variable_as_xs_and_numpy_inputs_take_the_cold_path():
    f = _mlp()
    _warmed(f, tf.constant(X))
    assert _recalled(f, tf.Variable(X)) is None and _recalled(f, X) is None
    np.testing.assert_allclose(gradlib.per_element_gradients(f, tf.Variable(X), compiled=True).jacobian,
                               _reference(f, tf.constant(X)), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- found by planting bugs in the warm path (plant41b)


def _tape_jacobian(fn, xs: dict) -> np.ndarray:
    """The eager tape's Jacobian of ``fn(xs)``: its columns for each tensor of ``xs`` in the dict's order."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(list(xs.values()))
        y = tf.reshape(fn(xs), [-1])
    blocks = [tape.jacobian(y, t, unconnected_gradients=tf.UnconnectedGradients.ZERO) for t in xs.values()]
    return np.concatenate([b.numpy().reshape(int(tf.size(y)), -1) for b in blocks], axis=1)


def test_a_dict_in_another_key_order_gets_its_columns_in_that_order():
    f = _mlp()
    fn = lambda d: f(d["a"] * d["b"])  # noqa: E731
    a, b = tf.constant(X), tf.constant(X + 1.0)
    _warmed(fn, {"a": a, "b": b})
    swapped = {"b": b, "a": a}
    result = gradlib.per_element_gradients(fn, swapped, compiled=True)
    assert [label[0] for label in result.col_labels] == ["b"] * 4 + ["a"] * 4
    np.testing.assert_allclose(result.jacobian, _tape_jacobian(fn, swapped), rtol=1e-4, atol=1e-5)


def test_check_names_a_half_seen_fn_on_every_call_while_it_stays_cheap(monkeypatch):
    """Until ``check`` retires, every call is checked against ``fn``, also once its compiled function has settled:
    a part of fn's value the tape does not see (``stop_gradient``) is named in every answer's warnings."""
    monkeypatch.setattr(_probe, "MAX_SHARE", math.inf)   # the check never costs too much: it never retires
    f = _mlp()
    g = lambda x: f(x) + tf.stop_gradient(f(x) * f(x))  # noqa: E731
    for _ in range(8):
        result = gradlib.per_element_gradients(g, tf.constant(X), compiled=True)
        assert any(w.startswith("the Jacobian disagrees with fn itself") for w in result.warnings), result.warnings
    assert result.method == "structured" and result.compiled_final   # settled: a warm answer was possible
    np.testing.assert_allclose(result.jacobian, _reference(g, tf.constant(X)), rtol=1e-4, atol=1e-5)


def test_a_warm_answer_still_names_an_input_fn_does_not_use():
    f = _mlp()
    fn = lambda xs: f(xs[0])  # noqa: E731
    xs = [tf.constant(X), tf.constant(X * 2.0)]
    _warmed(fn, xs, check=False)
    warm = gradlib.per_element_gradients(fn, xs, compiled=True, check=False)
    assert any(w.startswith("no path the tape can follow leads from 'x1' to fn's output") for w in warm.warnings)
    reference = _tape_jacobian(lambda d: fn(list(d.values())), {"x0": xs[0], "x1": xs[1]})
    np.testing.assert_allclose(warm.jacobian, reference, rtol=1e-4, atol=1e-5)


def test_a_warm_answer_s_seconds_are_its_own_call_s():
    f, x = _mlp(), tf.constant(X)
    _warmed(f, x)
    seconds = []
    for _ in range(5):
        start = time.perf_counter()
        result = gradlib.per_element_gradients(f, x, compiled=True)
        wall = time.perf_counter() - start
        assert 0 < result.seconds <= wall
        seconds.append(result.seconds)
    assert len(set(seconds)) > 1   # measured on each call, not one earlier call's time kept


def test_a_warm_call_waits_for_a_work_slot_as_a_cold_one_does(monkeypatch):
    f, x = _mlp(), tf.constant(X)
    _warmed(f, x)
    taken = threading.BoundedSemaphore(1)
    taken.acquire()   # every slot held by another computation
    monkeypatch.setattr(_runtime, "_slots", taken)
    monkeypatch.setattr(_runtime, "WAIT_SECONDS", 0.05)
    with pytest.raises(gradlib.GradlibError, match="the server is busy"):
        gradlib.per_element_gradients(f, x, compiled=True)


#: Python function calls (``sys.setprofile``'s "call" events, TensorFlow's Python included) of one warm call on the
#: graph: on the tall MLP 100 before the cut of the speed48 branch, 54 after (docs/performance.md). A deterministic
#: count (the load does not move it) of what a warm call's Python costs, bounded with a little room
WARM_PYTHON_CALLS = 60


def _python_calls(call) -> int:
    """How many Python functions ``call()`` enters (the call itself not counted)."""
    count = [0]

    def profile(frame, event, arg):
        if event == "call":
            count[0] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count[0] - 1


def test_a_warm_call_makes_few_python_calls():
    f, x = _mlp(), tf.constant(X)
    _warmed(f, x)
    for _ in range(3):   # the settled graph's first calls through its fixed caller are behind
        gradlib.per_element_gradients(f, x, compiled=True)
    counts = [_python_calls(lambda: gradlib.per_element_gradients(f, x, compiled=True)) for _ in range(3)]
    assert max(counts) <= WARM_PYTHON_CALLS, counts
    # the count sees the warm path's calls: the cold path takes several hundred
    _warm._RECIPES.clear()
    assert _python_calls(lambda: gradlib.per_element_gradients(f, x, compiled=True)) > 3 * WARM_PYTHON_CALLS


def test_a_warm_answer_shares_no_memory_with_the_input_or_the_graph_s_constants():
    w = tf.constant(W2[:, :4])

    def linear(x):   # y = W x: the Jacobian is W itself, a constant of the graph
        return tf.linalg.matvec(w, x)

    def same(x):   # y = x: the graph may hand back the input's own buffer
        return tf.identity(x) * 1.0

    for fn in (linear, same):
        x = tf.constant(X)
        first = _warmed(fn, x)
        expected_y, expected_jacobian = first.y.copy(), first.jacobian.copy()
        warm = gradlib.per_element_gradients(fn, x, compiled=True)
        warm.y[:] = np.nan   # a user writing into the answer (writeable arrays) changes no later answer
        warm.jacobian[:] = np.nan
        np.testing.assert_array_equal(x.numpy(), X)
        again = gradlib.per_element_gradients(fn, x, compiled=True)
        np.testing.assert_array_equal(again.y, expected_y)
        np.testing.assert_array_equal(again.jacobian, expected_jacobian)


def test_a_warm_call_holds_one_of_the_real_work_slots(monkeypatch):
    f, x = _mlp(), tf.constant(X)
    _warmed(f, x)
    slots = _runtime._slots
    taken = [slots.acquire(timeout=1) for _ in range(_runtime.WORK_SLOTS)]
    assert all(taken)
    try:
        assert not slots.acquire(timeout=0.01)   # every slot held: a further one waits, then is refused
        monkeypatch.setattr(_runtime, "WAIT_SECONDS", 0.05)
        with pytest.raises(gradlib.GradlibError, match="the server is busy"):
            gradlib.per_element_gradients(f, x, compiled=True)
        with pytest.raises(ValueError, match="released too many times"):
            _runtime._Slots(1).release()   # bounded, as threading.BoundedSemaphore
    finally:
        for _ in taken:
            slots.release()
    gradlib.per_element_gradients(f, x, compiled=True)
    assert all(slots.acquire(timeout=1) for _ in range(_runtime.WORK_SLOTS))   # the warm call gave its slot back
    for _ in range(_runtime.WORK_SLOTS):
        slots.release()
