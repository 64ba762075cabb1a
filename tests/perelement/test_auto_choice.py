"""What ``auto`` picks, and the compiled cache behind it: bounded, LRU, collectable, silent, and exact.

Every Jacobian is checked against an independent NumPy formula; no test checks a timing.
"""

from __future__ import annotations

import gc
import logging
import re
import threading
import weakref

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._foundations import _runtime
from gradlib._perelement import _compiled
from gradlib._perelement import _compute
from gradlib._perelement import _engine
from gradlib._perelement import _structured
from gradlib._foundations._cache import LRUCache

RNG = np.random.default_rng(4)


def _tanh_layer(m: int, n: int, seed: int = 0):
    """``W`` (m x n), ``x`` (n) and the Jacobian of ``tanh(W @ x)``: ``diag(1 - y**2) W``."""
    rng = np.random.default_rng(seed)
    w, x = rng.standard_normal((m, n)) / np.sqrt(n), rng.standard_normal(n)
    return w, x, (1 - np.tanh(w @ x) ** 2)[:, None] * w


def _evaluate_layer(m: int, n: int, seed: int = 0, **kwargs):
    w, x, expected = _tanh_layer(m, n, seed)
    result = gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], dtype="float64", **kwargs)
    np.testing.assert_allclose(result.jacobian, expected, rtol=1e-10, atol=1e-12)
    return result


@pytest.fixture
def small_cache(monkeypatch):
    """A fresh compiled cache of 3 entries (and fresh memos), so tests neither see nor fill the real one; and no
    rules for the structured Jacobian, so auto runs the tape methods whose cache these tests watch (what auto
    does with the rules: tests/perelement/test_structured.py)."""
    monkeypatch.setattr(_structured, "RULES", {})
    cache = LRUCache(maxsize=3)
    monkeypatch.setattr(_compute, "_JACOBIAN_FUNCTIONS", cache)
    monkeypatch.setattr(_engine, "_EAGER_SECONDS", LRUCache(maxsize=64))
    return cache


# ---------------------------------------------------------------- which method auto runs


def test_the_seed_example_runs_eagerly_by_reverse_mode(seed):
    text, inputs = seed
    r = gradlib.evaluate(text, inputs)
    assert (r.method, r.compiled) == ("unstack", False)
    assert r.jacobian.tolist() == [[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]


@pytest.mark.parametrize(("m", "n", "method", "compiled"), [
    (3, 5, "unstack", False),     # tiny, outputs fewer: reverse, eager
    (12, 2, "forward", False),    # tiny, outputs > 3 x inputs: forward, eager (n = 2 passes)
    (5, 2, "unstack", False),     # outputs > inputs but an eager forward pass costs 3 reverse ones
    (40, 60, "jacobian", True),   # 40 passes either way: compiled reverse mode
    (60, 40, "forward", True),    # inputs fewer: compiled forward mode
    (20, 300, "unstack", False),  # 20 reverse passes are cheaper than a trace, however many inputs
    (6, 2, "unstack", False),     # at the boundaries: outputs = 3 x inputs is still reverse mode ...
    (7, 2, "forward", False),     # ... one more output is forward mode
    (32, 11, "unstack", False),   # min(32 outputs, 3 x 11) = 32 eager passes: still eager ...
    (33, 11, "forward", True),    # ... 33 passes: compiled, and with outputs > inputs forward mode
    (100, 10, "forward", False),  # min(100, 3 x 10) = 30 passes: eager forward mode
    (33, 33, "jacobian", True),   # compiled: reverse mode while outputs <= inputs ...
    (34, 33, "forward", True),    # ... forward mode once outputs exceed inputs
], ids=["tiny-wide", "tiny-tall", "tiny-near-square", "square", "tall", "few-outputs", "3n", "3n+1", "32-passes",
        "33-passes", "30-forward-passes", "m=n", "m=n+1"])
def test_auto_picks_the_mode_and_compilation_by_shape(small_cache, m, n, method, compiled):
    r = _evaluate_layer(m, n)
    assert (r.method, r.compiled, r.requested) == (method, compiled, "auto")


def test_auto_compiles_a_small_problem_once_its_eager_calls_have_cost_a_trace(small_cache, monkeypatch):
    monkeypatch.setattr(_engine, "TRACE_SECONDS", 1e-9)   # any eager time at all pays for the trace
    first, second = _evaluate_layer(3, 4, seed=1), _evaluate_layer(3, 4, seed=1)
    assert (first.method, first.compiled) == ("unstack", False)
    assert (second.method, second.compiled) == ("jacobian", True)
    np.testing.assert_allclose(second.jacobian, first.jacobian, rtol=1e-12)


def test_explicit_compiled_flag_overrides_auto(small_cache):
    assert _evaluate_layer(3, 4, compiled=True).compiled is True
    assert _evaluate_layer(40, 60, compiled=False).compiled is False


def test_compiled_unstack_runs_compiled_up_to_its_row_limit(small_cache):
    # 16 outputs: the widest unstack that is traced (one backward pass per output, each as wide as the output)
    r = _evaluate_layer(16, 4, method="unstack", compiled=True)
    assert (r.method, r.compiled) == ("unstack", True)
    assert _evaluate_layer(3, 4, method="unstack").compiled is False   # asked for nothing: eager


@pytest.mark.parametrize(("method", "n", "compiled"), [
    ("jacobian", 3, True), ("forward", 3, False), ("forward", 32, False), ("forward", 33, True), ("naive", 3, False)])
def test_explicit_methods_compile_by_default_only_where_it_pays(small_cache, method, n, compiled):
    # jacobian (pfor re-traces on every eager call) always; forward once its eager loop exceeds 32 passes
    w, x, _ = _tanh_layer(2, n)
    r = gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], dtype="float64", method=method)
    assert (r.method, r.compiled) == (method, compiled)


def test_compiled_unstack_is_refused_for_wide_outputs_and_runs_eagerly(small_cache):
    r = _evaluate_layer(_engine.UNSTACK_COMPILED_ROWS + 1, 4, method="unstack", compiled=True)
    assert (r.method, r.compiled) == ("unstack", False)
    assert len(small_cache) == 0


def test_a_function_that_cannot_be_traced_falls_back_to_eager_under_auto(small_cache):
    w, x, expected = _tanh_layer(40, 40)
    wt = tf.constant(w)

    def branchy(v):   # Python control flow on a tensor's value: fine eagerly, impossible to trace
        return tf.tanh(tf.linalg.matvec(wt, v)) if float(tf.reduce_sum(v)) < 1e9 else -v

    r = gradlib.per_element_gradients(branchy, tf.constant(x))
    assert (r.method, r.compiled) == ("jacobian", False)
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-10, atol=1e-12)
    assert gradlib.per_element_gradients(branchy, tf.constant(x)).compiled is False   # remembered
    with pytest.raises(gradlib.GradlibError, match=r"compiled=True could not trace fn into a tf.function "
                                                   r"for method 'jacobian': TypeError: .*Use compiled=None"):
        gradlib.per_element_gradients(branchy, tf.constant(x), method="jacobian", compiled=True)


def _segment_squares(p):   # its output's first axis is unknown in a graph: every traced method fails on it
    return tf.math.segment_sum(p * p, tf.constant([0, 0, 1]))


def _cond_squares(v):   # pfor cannot vectorize forward mode through tf.cond as a graph
    return tf.cond(tf.reduce_sum(v) > 0.0, lambda: v * v, lambda: v * v * v)


@pytest.mark.parametrize("fn, method", [(_segment_squares, "auto"), (_segment_squares, "jacobian"),
                                        (_cond_squares, "forward")])
def test_compiled_true_on_a_function_that_cannot_be_traced_is_refused_in_one_line(small_cache, fn, method):
    x = tf.constant([1.0, 2.0, 3.0])   # was a raw TypeError, ValueError from pfor's converter, ...
    with pytest.raises(gradlib.GradlibError, match=r"compiled=True could not trace fn into a tf.function for method "
                                                   r"'(jacobian|forward)': (TypeError|ValueError): .*Use compiled=None"):
        gradlib.per_element_gradients(fn, x, method=method, compiled=True)
    r = gradlib.per_element_gradients(fn, x, method=method)   # compiled=None: eagerly, and right
    expected = [[2.0, 4.0, 0.0], [0.0, 0.0, 6.0]] if fn is _segment_squares else np.diag([2.0, 4.0, 6.0])
    np.testing.assert_allclose(r.jacobian, expected)


# ---------------------------------------------------------------- compiled equals eager


@pytest.mark.parametrize("method", ["jacobian", "forward"])
def test_compiled_result_equals_eager_result(small_cache, method):
    w, x, expected = _tanh_layer(14, 9, seed=2)
    inputs = {"W": w, "x": x, "s": 0.5}
    kwargs = dict(watch=["x", "s"], dtype="float64", method=method)
    eager = gradlib.evaluate("tanh(W @ x) * s", inputs, compiled=False, **kwargs)
    graph = gradlib.evaluate("tanh(W @ x) * s", inputs, compiled=True, **kwargs)
    assert (eager.compiled, graph.compiled) == (False, True)
    np.testing.assert_allclose(graph.jacobian, eager.jacobian, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(graph.jacobian[:, :9], 0.5 * expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(graph.jacobian[:, 9], np.tanh(w @ x), rtol=1e-10)


def _settle(call, entry, limit=50):
    for _ in range(limit):
        if entry.settled:
            return
        call()
    raise AssertionError(f"the compiled compiled_as did not settle in {limit} calls")


@pytest.mark.parametrize(("gain", "keeps_xla"), [(float("inf"), True), (0.0, False)])
def test_xla_is_kept_only_when_measured_faster_and_gives_the_same_jacobian(small_cache, monkeypatch, gain, keeps_xla):
    monkeypatch.setattr(_compiled, "XLA_MIN_SECONDS", 0.0)
    monkeypatch.setattr(_compiled, "XLA_PAYBACK", 0.0)
    monkeypatch.setattr(_compiled, "XLA_GAIN", gain)   # inf: XLA always "faster"; 0: never
    monkeypatch.setattr(_compiled, "_builds", 0)
    w, x, expected = _tanh_layer(20, 20, seed=3)

    def call():
        return gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], dtype="float64", compiled=True)

    call()
    entry = small_cache.get_or_create(small_cache.keys()[-1], lambda: None)
    _settle(call, entry)
    assert entry.uses_xla is keeps_xla
    assert (entry.xla is not None) is keeps_xla   # a rejected XLA version is dropped, not kept around
    np.testing.assert_allclose(call().jacobian, expected, rtol=1e-10, atol=1e-12)


def test_the_xla_trial_interleaves_the_two_versions_and_compares_medians(monkeypatch):
    """A burst of load that hits a few calls must not decide: the medians of interleaved calls do."""
    entry = _compiled.Compiled(lambda jit: (lambda xs, cs: (tf.constant(0.0), tf.constant([[1.0]]))))
    entry._warm, entry.xla = True, entry.graph          # as right after _promote built XLA
    order = []
    graph = [1.0, 1.0, 1.1, 1.0, 0.9]                   # ms per call; XLA is faster but two calls hit a burst
    xla = [0.5, 9.0, 0.6, 8.0, 0.5]
    while not entry.settled:
        compiled_as, _ = entry._next()
        order.append(compiled_as)
        times = xla if compiled_as == "xla" else graph
        entry._record(compiled_as, times[order.count(compiled_as) - 1] / 1e3)
    assert order == ["xla", "graph"] * _compiled.TRIAL_SAMPLES
    assert entry.uses_xla and entry.xla is not None      # median 0.6 ms vs 1.0 ms (its best-of or mean would differ)
    slow = _compiled.Compiled(lambda jit: (lambda xs, cs: (tf.constant(0.0), tf.constant([[1.0]]))))
    slow._warm, slow.xla = True, slow.graph
    for k in range(2 * _compiled.TRIAL_SAMPLES):          # XLA's best call is the fastest, its median is not
        compiled_as, _ = slow._next()
        slow._record(compiled_as, ([0.1, 2.0, 2.0, 2.0, 2.0] if compiled_as == "xla" else [1.0] * 5)[k // 2] / 1e3)
    assert slow.settled and not slow.uses_xla and slow.xla is None


def test_no_xla_is_built_once_the_process_budget_is_spent(small_cache, monkeypatch):
    monkeypatch.setattr(_compiled, "XLA_MIN_SECONDS", 0.0)
    monkeypatch.setattr(_compiled, "XLA_PAYBACK", 0.0)
    monkeypatch.setattr(_compiled, "_builds", _compiled.XLA_MAX_BUILDS)
    w, x, expected = _tanh_layer(10, 10, seed=5)
    for _ in range(_compiled.SAMPLES + 2):
        r = gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], dtype="float64", compiled=True)
    entry = small_cache.get_or_create(small_cache.keys()[-1], lambda: None)
    assert entry.settled and not entry.uses_xla and entry.xla is None
    assert _compiled._builds == _compiled.XLA_MAX_BUILDS
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-10, atol=1e-12)


def test_a_problem_whose_warm_calls_are_below_the_floor_settles_on_the_graph(small_cache, monkeypatch):
    monkeypatch.setattr(_compiled, "XLA_MIN_SECONDS", float("inf"))   # every warm call is "too fast to gain"
    w, x, _ = _tanh_layer(12, 12)
    for _ in range(_compiled.SAMPLES + 1):   # the first call is not a warm sample
        gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], compiled=True)
    entry = small_cache.get_or_create(small_cache.keys()[-1], lambda: None)
    assert entry.settled and not entry.uses_xla and entry.xla is None


def test_each_result_says_which_compiled_version_ran_and_whether_that_choice_is_final(small_cache, monkeypatch):
    monkeypatch.setattr(_compiled, "XLA_MIN_SECONDS", 0.0)
    monkeypatch.setattr(_compiled, "XLA_PAYBACK", 0.0)
    monkeypatch.setattr(_compiled, "XLA_GAIN", float("inf"))   # XLA always "faster": kept after its trial
    monkeypatch.setattr(_compiled, "_builds", 0)
    w, x, _ = _tanh_layer(8, 8, seed=7)
    seen = []
    for _ in range(2 + _compiled.SAMPLES + 2 * _compiled.TRIAL_SAMPLES + 1):
        r = gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], dtype="float64", compiled=True)
        seen.append((r.compiled_as, r.compiled_final))
    assert seen[0] == ("graph", False)                       # the graph runs first; XLA is not tried yet
    assert ("xla", False) not in seen                        # the trial returns the graph's numbers, not XLA's
    assert ("graph", False) in seen[_compiled.SAMPLES + 2:]
    assert seen[-1] == ("xla", True)                         # then XLA for good, once it agreed on every call
    eager = gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], compiled=False)
    assert (eager.compiled, eager.compiled_as, eager.compiled_final) == (False, "", True)


def _guarded_sqrt(v):
    """The dead-branch trap: the graph gives 0 where v <= 0, XLA gives NaN (tensorflow/tensorflow#118674)."""
    return tf.where(v > 0, tf.sqrt(v), 0.0)


def test_xla_that_disagrees_with_the_graph_is_never_adopted_and_is_said_once(small_cache, monkeypatch):
    """A speed-only trial adopted XLA's NaN gradients for the guarded square root: calls 49-73 of a loop said
    "repaired NaN poisoning" and the others nothing. Every call must give the graph's numbers, and say once why."""
    monkeypatch.setattr(_compiled, "XLA_MIN_SECONDS", 0.0)
    monkeypatch.setattr(_compiled, "XLA_PAYBACK", 0.0)
    monkeypatch.setattr(_compiled, "XLA_GAIN", float("inf"))   # XLA "faster" on every call: speed would adopt it
    monkeypatch.setattr(_compiled, "_builds", 0)
    v = tf.constant([0.0, -1.0, 4.0, 9.0])
    expected = np.diag([0.0, 0.0, 0.25, 1 / 6])
    notes = []
    for _ in range(2 + _compiled.SAMPLES + 2 * _compiled.TRIAL_SAMPLES + 3):
        r = gradlib.per_element_gradients(_guarded_sqrt, v, compiled=True)
        np.testing.assert_allclose(r.jacobian, expected, rtol=1e-6)
        assert not r.repaired_rows and not r.poisoned_rows
        assert r.compiled_as == "graph"
        notes += [w for w in r.warnings if "XLA" in w]
    entry = small_cache.get_or_create(small_cache.keys()[-1], lambda: None)
    assert entry.settled and not entry.uses_xla and entry.xla is None
    assert notes == ["XLA's gradients differ from the graph's for this function (8 cell(s) are NaN or infinite in "
                     "one version only), so it runs as a graph only; see tensorflow/tensorflow#118674 for one "
                     "known cause"]


def test_adopted_xla_is_checked_again_when_its_answer_is_not_finite(monkeypatch):
    """XLA adopted on inputs where both agree, then called where its dead branch is NaN: the graph's numbers."""
    from gradlib._perelement import _methods
    spec = tf.TensorSpec([3], tf.float32)
    entry = _compiled.Compiled(lambda jit: _methods.compile_method(
        _methods.jacobian, lambda xs, cs: _guarded_sqrt(xs[0]), [spec], [], jit_compile=jit))
    entry.xla, entry.uses_xla, entry.settled = entry._build(True), True, True   # as after a trial on positive inputs
    y, jac, compiled_as, note, _ = entry.run([tf.constant([1.0, 4.0, 9.0])], [])
    assert compiled_as == "xla" and note == ""                    # finite and agreeing: XLA's answer stands
    y, jac, compiled_as, note, built = entry.run([tf.constant([0.0, -1.0, 4.0])], [])
    assert compiled_as == "graph" and "differ from the graph's" in note
    np.testing.assert_allclose(jac, np.diag([0.0, 0.0, 0.25]))
    assert not entry.uses_xla and entry.xla is None
    assert entry.run([tf.constant([0.0, -1.0, 4.0])], [])[2:] == ("graph", "", False)   # said once


@pytest.mark.parametrize(("reference", "other", "verdict"), [
    ((np.array([1.0, 2.0]),), (np.array([1.0, 2.0 + 1e-11]),), ""),
    ((np.array([1.0, 2.0]),), (np.array([1.0, 2.0 + 1e-9]),), "a relative difference of 5e-10, over the tolerance 1e-10"),
    ((np.array([1.0, 2.0], np.float32),), (np.array([1.0, 2.00001], np.float32),), ""),
    ((np.array([1.0, 2.0], np.float32),), (np.array([1.0, 2.001], np.float32),), "over the tolerance 0.0001"),
    ((np.array([np.inf, 1.0]),), (np.array([-np.inf, 1.0]),), "1 cell(s) are NaN or infinite in one version only"),
    ((np.array([np.nan, 1.0]),), (np.array([np.nan, 1.0]),), ""),
    ((np.array([1.0]), np.array([0.0, 0.0])), (np.array([1.0]), np.array([np.nan, np.inf])), "2 cell(s)"),
])
def test_agree_compares_nan_patterns_infinities_and_finite_cells_at_a_stated_tolerance(reference, other, verdict):
    said = _compiled.agree(reference, other)
    assert (said == "") == (verdict == "") and verdict in said


# ---------------------------------------------------------------- the cache: bounded, LRU, collectable


def _compile_distinct(k: int):
    x = np.linspace(0.1, 1.0, 4)
    r = gradlib.evaluate(f"sin(x * {k + 1})", {"x": x}, compiled=True, dtype="float64")
    np.testing.assert_allclose(r.jacobian, np.diag((k + 1) * np.cos((k + 1) * x)), rtol=1e-12)
    return r


def _constants(cache: LRUCache) -> list[int]:
    """The ``k + 1`` of each cached ``sin(x * k+1)``, least recently used first."""
    return [int(re.search(r"Constant\(value=(\d+)\)", key[0][1]).group(1)) for key in cache.keys()]


def test_compiled_cache_is_bounded_and_drops_the_least_recently_used(small_cache):
    for k in range(5):
        _compile_distinct(k)
    assert _constants(small_cache) == [3, 4, 5]
    _compile_distinct(2)                      # a hit moves sin(x * 3) to the most recent end
    _compile_distinct(5)                      # so this miss drops sin(x * 4), the least recently used
    assert _constants(small_cache) == [5, 3, 6]
    assert (small_cache.hits, small_cache.misses) == (1, 6)


def test_dropped_compiled_functions_are_garbage_collected(small_cache):
    _compile_distinct(0)
    entry = small_cache.get_or_create(small_cache.keys()[0], lambda: None)
    refs = [weakref.ref(entry), weakref.ref(entry.graph)]
    del entry
    for k in range(1, 5):
        _compile_distinct(k)
    gc.collect()
    assert [r() for r in refs] == [None, None]


# ---------------------------------------------------------------- no retracing noise


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _retrace_prone_calls():
    """Eager pfor re-traces on every call: TensorFlow warns after 5 of them, unless gradlib filters it."""
    w, x, _ = _tanh_layer(6, 6)
    for k in range(8):
        gradlib.evaluate(f"tanh(W @ x) * {k + 1}", {"W": w, "x": x}, watch=["x"], method="jacobian",
                         compiled=False)
    for k in range(4):
        _compile_distinct(k)


def test_retracing_warnings_never_reach_the_tensorflow_logger(small_cache):
    logger, records = tf.get_logger(), _Records()
    logger.addHandler(records)
    try:
        _retrace_prone_calls()
    finally:
        logger.removeHandler(records)
    assert not [m for m in records.messages if "retracing" in m]


def test_the_filter_drops_tensorflows_retracing_advice_only_inside_gradlibs_own_computations():
    """TensorFlow's own wording (tensorflow/python/eager/polymorphic_function/polymorphic_function.py). The filter
    sat on TensorFlow's logger from import on and hid a user's own retracing advice too."""
    advice = ("5 out of the last 5 calls to <function pfor.<locals>.f at 0x7f> triggered tf.function retracing. "
              "Tracing is expensive and the excessive number of tracings could be due to ...")
    logger, records = tf.get_logger(), _Records()
    logger.addHandler(records)
    try:
        logger.warning(advice)                                  # the user's own: kept
        with _runtime.work_slot():
            logger.warning(advice)                              # gradlib's: dropped
            logger.warning("Using a while_loop for converting SomeOp")
            other = threading.Thread(target=logger.warning, args=("other thread: " + advice,))
            other.start()
            other.join()                                        # another thread's, while gradlib computes: kept
        filters_after = list(logger.filters)
    finally:
        logger.removeHandler(records)
    assert records.messages == [advice, "Using a while_loop for converting SomeOp", "other thread: " + advice]
    assert filters_after == []

@pytest.mark.parametrize("gain", [float("inf"), 0.0])
def test_a_result_says_when_its_call_traced_or_built_what_it_ran(small_cache, monkeypatch, gain):
    """The Strategies page showed a first call (tracing included) as a warm time, and auto's call that compiled it
    sat among its warm calls: ``GradResult.traced`` says which calls' seconds include a trace, a graph's first run,
    an XLA build or a trial of XLA beside the graph; each call after them, run alike, says it traced nothing."""
    monkeypatch.setattr(_compiled, "XLA_MIN_SECONDS", 0.0)
    monkeypatch.setattr(_compiled, "XLA_PAYBACK", 0.0)
    monkeypatch.setattr(_compiled, "XLA_GAIN", gain)   # inf: XLA adopted; 0: the graph kept
    monkeypatch.setattr(_compiled, "_builds", 0)
    w, x, _ = _tanh_layer(6, 6, seed=2)

    def call(**options):
        return gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], dtype="float64", **options)

    runs = [call(method="jacobian", compiled=True) for _ in range(_compiled.SAMPLES + 2 + 2 * _compiled.TRIAL_SAMPLES)]
    traced = [r.traced for r in runs]
    assert traced[:1 + _compiled.SAMPLES] == [True] + [False] * _compiled.SAMPLES   # the trace, then warm graph calls
    assert traced[1 + _compiled.SAMPLES] is True                                       # XLA built here
    trial = traced[2 + _compiled.SAMPLES:]   # XLA and the graph in turn: an XLA call runs the graph beside it
    assert trial == [True, False] * _compiled.TRIAL_SAMPLES and runs[-1].compiled_final
    after = [call(method="jacobian", compiled=True) for _ in range(3)]
    assert [(r.traced, r.compiled_as) for r in after] == [(False, "xla" if gain else "graph")] * 3
    eager = [call(method="unstack", compiled=False) for _ in range(2)]
    assert [r.traced for r in eager] == [False, False]


def test_the_call_where_auto_compiles_a_problem_it_ran_eagerly_says_it_traced(small_cache, monkeypatch):
    monkeypatch.setattr(_engine, "TRACE_SECONDS", 1e-9)   # one eager call is enough: the next one compiles
    w, x, expected = _tanh_layer(3, 3, seed=4)
    runs = [gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"], dtype="float64") for _ in range(4)]
    assert [(r.compiled, r.traced) for r in runs] == [(False, False), (True, True), (True, False), (True, False)]
    np.testing.assert_allclose(runs[-1].jacobian, expected, rtol=1e-10)
