"""A warm scan traces nothing: its pipeline is built from tf.data's own ops and its step is kept (issue 26).

Every call traced a fresh ``tf.data`` map function for the padding of the last batch (50-100 ms of a warm
2,000-example scan on a 32-64-10 classifier, 3.0-3.7x the plain batch gradients over the same batches).
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.framework import func_graph

import gradlib
from benchmarks import scan as bench

LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@pytest.fixture
def traces(monkeypatch):
    """Counts every graph TensorFlow traces (tf.function, a tf.data map function) while the test runs."""
    count = [0]
    trace = func_graph.func_graph_from_py_func

    def counted(*args, **kwargs):
        count[0] += 1
        return trace(*args, **kwargs)

    monkeypatch.setattr(func_graph, "func_graph_from_py_func", counted)
    return count


def _loop_norms(model, x, y):
    """Each example's loss and gradient norm, one GradientTape per example (the reference)."""
    losses, norms = [], []
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            loss = LOSS(y[i:i + 1], model(x[i:i + 1]))
        grads = tape.gradient(loss, model.trainable_variables)
        losses.append(float(loss))
        norms.append(float(tf.sqrt(sum(tf.reduce_sum(g * g) for g in grads))))
    return np.array(losses), np.array(norms)


@pytest.mark.parametrize("n", [7, 8, 9])   # the last batch short, exactly full, one over
def test_a_warm_scan_of_arrays_traces_nothing_and_pads_the_last_batch_right(traces, n):
    model = bench.small_model()
    x, y = bench.data(n, bench.SMALL_FEATURES)
    gradlib.scan(model, (x, y), loss=LOSS, batch_size=4)                     # the first: traces its step
    traces[0] = 0
    result = gradlib.scan(model, (x, y), loss=LOSS, batch_size=4)
    assert traces[0] == 0
    losses, norms = _loop_norms(model, x, y)
    assert len(result) == n
    np.testing.assert_allclose(result.losses, losses, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.norms, norms, rtol=1e-4, atol=1e-6)


def test_a_first_scan_traces_its_step_and_the_model_s_forward_pass_once(traces):
    """The probe of the first examples runs eagerly (issue 24): a cold scan traces its step, and the model's forward
    pass once to read whether it updates a variable it reads (hunt 50: read before any call, never run).

    It used to call ``per_example_gradients`` on three examples, which traced a second per-batch function."""
    model = bench.small_model()
    x, y = bench.data(9, bench.SMALL_FEATURES)
    result = gradlib.scan(model, (x, y), loss=LOSS, batch_size=4)
    assert traces[0] == 2
    _, norms = _loop_norms(model, x, y)
    np.testing.assert_allclose(result.norms, norms, rtol=1e-4, atol=1e-6)


def test_a_warm_scan_of_a_data_set_of_dicts_traces_nothing(traces):
    inputs = keras.Input((3,), name="a")
    model = keras.Model(inputs, keras.layers.Dense(4)(inputs))
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(11, 3)).astype(np.float32), rng.integers(0, 4, 11).astype(np.int32)
    data = tf.data.Dataset.from_tensor_slices(({"a": x}, y))
    first = gradlib.scan(model, data, loss=LOSS, batch_size=4)
    traces[0] = 0
    again = gradlib.scan(model, data, loss=LOSS, batch_size=4)
    assert traces[0] == 0
    _, norms = _loop_norms(model, x, y)
    np.testing.assert_allclose(again.norms, norms, rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(again.norms, first.norms)


def test_the_small_scans_bench_checks_norms_and_reports_the_2000_example_target(monkeypatch):
    monkeypatch.setattr(bench, "SMALL_SIZES", (10, 300))
    small = bench.small_scans(rounds=2)
    assert list(small) == [10, 300]
    for rows in small.values():
        by = {r.contender: r for r in rows}
        assert by[bench.PLAIN].ratio == [1.0, 1.0] and len(by[bench.SCAN].ratio) == 2
        assert by[bench.SCAN].max_norm_error < 1e-5
    assert "**Dense 32-64-10, 300 examples in memory" in bench.markdown(small[300], 300, bench.SMALL)
    lines = bench.targets([], [], {2000: [bench.Row(bench.SCAN, [1.0] * 3, [1.5, 2.5, 1.9])]})
    assert lines == ["gradlib.scan / plain batch gradients (Dense 32-64-10, 2,000 examples): 1.9x [1.5, 2.5] "
                     "(target at most 2: met in 2 of 3 rounds)"]


@pytest.fixture
def pipelines(monkeypatch):
    """Counts the tf.data pipelines a scan builds for its batches, and the ``enumerate`` calls among them."""
    from gradlib._perexample import _scan
    count = {"batches": 0, "enumerate": 0}
    real_batches, real_enumerate = _scan._batches, tf.data.Dataset.enumerate

    def batches(*args, **kwargs):
        count["batches"] += 1
        return real_batches(*args, **kwargs)

    def enumerate_(self, *args, **kwargs):
        count["enumerate"] += 1
        return real_enumerate(self, *args, **kwargs)

    monkeypatch.setattr(_scan, "_batches", batches)
    monkeypatch.setattr(tf.data.Dataset, "enumerate", enumerate_)
    return count


def test_a_scan_of_arrays_without_a_strategy_builds_no_pipeline(pipelines):
    """Building the pipeline (enumerate's graph rewrite, the iterator, its read-ahead thread) was 30-60 ms of a
    100 ms warm scan of 2,000 examples, and most of its variation under load (issue 26)."""
    model = bench.small_model()
    x, y = bench.data(10, bench.SMALL_FEATURES)
    result = gradlib.scan(model, (x, y), loss=LOSS, batch_size=4)
    assert pipelines == {"batches": 0, "enumerate": 0}
    losses, norms = _loop_norms(model, x, y)
    np.testing.assert_allclose(result.losses, losses, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.norms, norms, rtol=1e-4, atol=1e-6)


def test_arrays_and_the_same_data_set_give_the_same_numbers_with_several_inputs(pipelines):
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    model = keras.Model([a, b], keras.layers.Dense(4)(keras.layers.Concatenate()([a, b])))
    rng = np.random.default_rng(3)
    xa, xb = rng.normal(size=(9, 3)).astype(np.float32), rng.normal(size=(9, 2)).astype(np.float32)
    y = rng.integers(0, 4, 9).astype(np.int32)
    from_arrays = gradlib.scan(model, ([xa, xb], y), loss=LOSS, batch_size=4)   # 4 + 4 + 1 and 3 copies of the first
    assert pipelines["batches"] == 0
    from_data = gradlib.scan(model, tf.data.Dataset.from_tensor_slices(((xa, xb), y)), loss=LOSS, batch_size=4)
    assert pipelines == {"batches": 1, "enumerate": 0}   # numbered by a range zipped with the data set
    np.testing.assert_allclose(from_arrays.norms, from_data.norms, rtol=1e-6)
    np.testing.assert_allclose(from_arrays.losses, from_data.losses, rtol=1e-6)
    losses = []
    for i in range(9):
        losses.append(float(LOSS(y[i:i + 1], model([xa[i:i + 1], xb[i:i + 1]]))))
    np.testing.assert_allclose(from_arrays.losses, losses, rtol=1e-5, atol=1e-6)
