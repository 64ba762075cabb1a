"""Every refusal's advice, followed: the change it names (a size parsed from the message, or the method or API it
names) makes the same call accepted (issue 39, item 6). Where the advice names a size, that size is the largest
that fits: one more is refused again. The playground's and the scan CLI's refusals are followed in
``tests/app/test_playground_hessians.py`` and ``tests/scan/test_scan_cli.py``.

Each row: the refused call, the message's pattern (its groups are the numbers the advice names), the call with
the advice followed, and (where the advice names a size) the call one past it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import Limits

X12 = np.linspace(0.1, 1.2, 12)
BATCH = np.linspace(0.1, 3.0, 30).reshape(10, 3)


def n(match: re.Match, group: int = 1) -> int:
    return int(match.group(group).replace(",", ""))


def two_rows(x):
    """A per-sample function of 6 outputs per sample (x and x squared): 18 Jacobian entries per sample."""
    return tf.concat([x, x * x], axis=1)


def poly(x):
    """60 outputs of 30 inputs per sample (for the per-sample Hessians' limits)."""
    return tf.concat([x * x, tf.sin(x)], axis=1)


def tape_jacobian(fn, x) -> np.ndarray:
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reshape(fn(x), [-1])
    return tape.jacobian(y, x).numpy().reshape(int(y.shape[0]), -1)


@functools.cache
def classifier():
    """A small Dense classifier (fixed weights) and a batch of 64 for per_example_gradients and scan."""
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(7, activation="tanh"), keras.layers.Dense(3)])
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) for w in model.get_weights()])
    return model, rng.normal(size=(64, 5)).astype(np.float32), rng.integers(0, 3, 64)


CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@functools.cache
def floats_limit() -> int:
    """A max_jacobian that holds the floats of 10 examples (and the batch's own) but not 11, read from a refusal."""
    model, x, y = classifier()
    with pytest.raises(gradlib.ExpressionError) as refused:
        gradlib.per_example_gradients(model, x, y, loss=CCE, limits=Limits(max_jacobian=1))
    total, per = (int(g.replace(",", "")) for g in re.search(r"about ([\d,]+) floats .*\(([\d,]+) per example",
                                                              str(refused.value)).groups())
    return total - 64 * per + 10 * per


def per_example(batch: int):
    model, x, y = classifier()
    return gradlib.per_example_gradients(model, x[:batch], y[:batch], loss=CCE,
                                         limits=Limits(max_jacobian=floats_limit()))


def scan(batch_size: int):
    model, x, y = classifier()
    return gradlib.scan(model, (x, y), loss=CCE, batch_size=batch_size, limits=Limits(max_jacobian=floats_limit()))


@dataclass(frozen=True)
class Row:
    refused: Callable[[], Any]
    match: str
    follow: Callable[[re.Match], Any]
    over: Callable[[re.Match], Any] | None = None    # one past the advised size: refused again
    check: Callable[[Any, re.Match], None] | None = None


def _jacobian_close(fn, x):
    def check(result, m):
        np.testing.assert_allclose(result.jacobian, tape_jacobian(fn(m), x(m)), rtol=1e-12)
    return check


ROWS = {
    # per-element: the Jacobian's size, as outputs for these watched elements, or watched elements for these outputs
    "jacobian, fewer outputs": Row(
        lambda: gradlib.per_element_gradients(lambda x: x * x, tf.constant(X12), limits=Limits(max_jacobian=100)),
        r"It fits with at most (\d+) outputs for these 12 watched elements \(reduce the output",
        lambda m: gradlib.per_element_gradients(lambda x: (x * x)[:n(m)], tf.constant(X12),
                                                limits=Limits(max_jacobian=100)),
        lambda m: gradlib.per_element_gradients(lambda x: (x * x)[:n(m) + 1], tf.constant(X12),
                                                limits=Limits(max_jacobian=100)),
        lambda r, m: np.testing.assert_allclose(r.jacobian, tape_jacobian(lambda x: (x * x)[:n(m)], X12), rtol=1e-12)),
    "jacobian, fewer watched elements": Row(
        lambda: gradlib.evaluate("x*x", {"x": X12.tolist()}, limits=Limits(max_jacobian=100)),
        r"or at most (\d+) watched elements for these 12 outputs \(use a smaller input\)$",
        lambda m: gradlib.per_element_gradients(lambda x: tf.concat([x * x, x[:12 - n(m)]], 0),
                                                tf.constant(X12[:n(m)]), limits=Limits(max_jacobian=100)),
        lambda m: gradlib.per_element_gradients(lambda x: tf.concat([x * x, x[:11 - n(m)]], 0),
                                                tf.constant(X12[:n(m) + 1]), limits=Limits(max_jacobian=100))),
    "unstack over its passes: method='jacobian'": Row(
        lambda: gradlib.evaluate("x*x", {"x": X12.tolist()}, method="unstack", limits=Limits(max_eager_passes=10)),
        r"Use method='(jacobian)' or 'auto', which vectorize the passes$",
        lambda m: gradlib.evaluate("x*x", {"x": X12.tolist()}, method=m.group(1), limits=Limits(max_eager_passes=10)),
        check=lambda r, m: np.testing.assert_allclose(r.jacobian, np.diag(2 * X12), rtol=1e-6)),
    "unstack over its passes: method='auto'": Row(
        lambda: gradlib.evaluate("x*x", {"x": X12.tolist()}, method="unstack", limits=Limits(max_eager_passes=10)),
        r"or '(auto)', which vectorize the passes$",
        lambda m: gradlib.evaluate("x*x", {"x": X12.tolist()}, method=m.group(1), limits=Limits(max_eager_passes=10))),
    # per-sample gradients
    "per-sample Jacobians: a smaller batch": Row(
        lambda: gradlib.per_sample_gradients(two_rows, BATCH, limits=Limits(max_jacobian=100)),
        r"at most 100 are allowed\. Use a batch of at most (\d+)$",
        lambda m: gradlib.per_sample_gradients(two_rows, BATCH[:n(m)], limits=Limits(max_jacobian=100)),
        lambda m: gradlib.per_sample_gradients(two_rows, BATCH[:n(m) + 1], limits=Limits(max_jacobian=100)),
        lambda r, m: np.testing.assert_allclose(r.jacobian[1], tape_jacobian(two_rows, BATCH[1:2]), rtol=1e-12)),
    "per-sample Jacobians: one sample over, fewer features": Row(
        lambda: gradlib.per_sample_gradients(two_rows, BATCH, limits=Limits(max_jacobian=10)),
        r"Even one sample's Jacobian has (\d+) entries: use fewer features or return fewer outputs$",
        lambda m: gradlib.per_sample_gradients(two_rows, BATCH[:, :2], limits=Limits(max_jacobian=10 * 8))),
    "per-sample loop over its passes: method='auto'": Row(
        lambda: gradlib.per_sample_gradients(lambda x: x * x, BATCH, method="loop", limits=Limits(max_eager_passes=5)),
        r"Use method='(auto)', which vectorizes them$",
        lambda m: gradlib.per_sample_gradients(lambda x: x * x, BATCH, method=m.group(1),
                                               limits=Limits(max_eager_passes=5))),
    "per-sample gradients of a whole-batch function: per_element_gradients": Row(
        lambda: gradlib.per_sample_gradients(lambda x: tf.reduce_sum(x * x), BATCH),
        r"for a function of the whole batch use (per_element_gradients) or hessians$",
        lambda m: getattr(gradlib, m.group(1))(lambda x: tf.reduce_sum(x * x), tf.constant(BATCH)),
        check=lambda r, m: np.testing.assert_allclose(r.jacobian.reshape(-1), 2 * BATCH.reshape(-1), rtol=1e-12)),
    # per-example gradients of a model, and scan
    "per_example_gradients: a smaller batch": Row(
        lambda: per_example(64), r"Use a batch of at most (\d+)", lambda m: per_example(n(m)),
        lambda m: per_example(n(m) + 1)),
    "scan: a smaller batch_size": Row(
        lambda: scan(64), r"Use batch_size=(\d+) or less$", lambda m: scan(n(m)), lambda m: scan(n(m) + 1),
        lambda r, m: np.testing.assert_allclose(r.norms, scan(1).norms, rtol=1e-5)),
    # second order: one function's Hessians
    "hessians: fewer outputs": Row(
        lambda: gradlib.hessians(lambda x: x * tf.reduce_sum(x), tf.constant(X12), limits=Limits(max_hessian=1000)),
        r"It fits with at most (\d+) outputs, or",
        lambda m: gradlib.hessians(lambda x: (x * tf.reduce_sum(x))[:n(m)], tf.constant(X12),
                                   limits=Limits(max_hessian=1000)),
        lambda m: gradlib.hessians(lambda x: (x * tf.reduce_sum(x))[:n(m) + 1], tf.constant(X12),
                                   limits=Limits(max_hessian=1000))),
    "hessians: fewer watched elements": Row(
        lambda: gradlib.hessians(lambda x: x * tf.reduce_sum(x), tf.constant(X12), limits=Limits(max_hessian=1000)),
        r"or at most (\d+) watched elements in all$",
        lambda m: gradlib.hessians(lambda x: tf.concat([x * tf.reduce_sum(x), x[:12 - n(m)]], 0),
                                   tf.constant(X12[:n(m)]), limits=Limits(max_hessian=1000)),
        lambda m: gradlib.hessians(lambda x: tf.concat([x * tf.reduce_sum(x), x[:11 - n(m)]], 0),
                                   tf.constant(X12[:n(m) + 1]), limits=Limits(max_hessian=1000))),
    # second order: per-sample Hessians
    "per-sample Hessians: a smaller batch": Row(
        lambda: gradlib.per_sample_hessians(poly, BATCH, limits=Limits(max_hessian=200)),
        r"It fits with a batch of at most (\d+),",
        lambda m: gradlib.per_sample_hessians(poly, BATCH[:n(m)], limits=Limits(max_hessian=200)),
        lambda m: gradlib.per_sample_hessians(poly, BATCH[:n(m) + 1], limits=Limits(max_hessian=200))),
    "per-sample Hessians: fewer outputs per sample": Row(
        lambda: gradlib.per_sample_hessians(poly, BATCH, limits=Limits(max_hessian=200)),
        r"or at most (\d+) outputs? per sample",
        lambda m: gradlib.per_sample_hessians(lambda x: poly(x)[:, :n(m)], BATCH, limits=Limits(max_hessian=200)),
        lambda m: gradlib.per_sample_hessians(lambda x: poly(x)[:, :n(m) + 1], BATCH, limits=Limits(max_hessian=200))),
    "per-sample Hessians: the trace only": Row(
        lambda: gradlib.per_sample_hessians(poly, BATCH, limits=Limits(max_hessian=200)),
        r"or gradlib\.(laplacian) \(the trace only\)$",
        lambda m: getattr(gradlib, m.group(1))(poly, BATCH, limits=Limits(max_hessian=200))),
    "per-sample Hessians of one sample: the diagonals": Row(
        lambda: gradlib.per_sample_hessians(poly, BATCH[:1], limits=Limits(max_hessian=20)),
        r"or (diagonal)=True \(the diagonals only\)",
        lambda m: gradlib.per_sample_hessians(poly, BATCH[:1], limits=Limits(max_hessian=20), **{m.group(1): True})),
    "per-sample Hessians of a mixing function: hessians of the whole batch": Row(
        lambda: gradlib.per_sample_hessians(lambda x: x * tf.reduce_sum(x), BATCH),
        r"or use gradlib\.(hessians) on the whole batch$",
        lambda m: getattr(gradlib, m.group(1))(lambda x: x * tf.reduce_sum(x), tf.constant(BATCH))),
    "a named method over the memory: a smaller batch": Row(
        lambda: gradlib.per_sample_hessians(poly, BATCH, method="forward_over_reverse", limits=Limits(max_bytes=2e5)),
        r"are allowed\. Use a batch of at most (\d+)",
        lambda m: gradlib.per_sample_hessians(poly, BATCH[:n(m)], method="forward_over_reverse",
                                              limits=Limits(max_bytes=2e5)),
        lambda m: gradlib.per_sample_hessians(poly, BATCH[:n(m) + 1], method="forward_over_reverse",
                                              limits=Limits(max_bytes=2e5))),
    "no method fits: a smaller batch for auto": Row(
        lambda: gradlib.per_sample_hessians(poly, np.tile(BATCH, (10, 1)), limits=Limits(max_bytes=3e5)),
        r"no exact second-order method fits.* Use a batch of at most (\d+)",
        lambda m: gradlib.per_sample_hessians(poly, np.tile(BATCH, (10, 1))[:n(m)], limits=Limits(max_bytes=3e5))),
    # Hessian-vector products
    "hvp: a smaller output": Row(
        lambda: gradlib.hvp(lambda x: x * x, tf.constant(X12), tf.constant(X12), limits=Limits(max_hessian=100)),
        r"Reduce the output \(for example with sum\) to at most (\d+) elements",
        lambda m: gradlib.hvp(lambda x: (x * x)[:n(m)], tf.constant(X12), tf.constant(X12),
                              limits=Limits(max_hessian=100)),
        lambda m: gradlib.hvp(lambda x: (x * x)[:n(m) + 1], tf.constant(X12), tf.constant(X12),
                              limits=Limits(max_hessian=100))),
    "hvp: fewer input elements": Row(
        lambda: gradlib.hvp(lambda x: x * x, tf.constant(X12), tf.constant(X12), limits=Limits(max_hessian=100)),
        r"or use at most (\d+) input elements$",
        lambda m: gradlib.hvp(lambda x: tf.concat([x * x, x[:12 - n(m)]], 0), tf.constant(X12[:n(m)]),
                              tf.constant(X12[:n(m)]), limits=Limits(max_hessian=100)),
        lambda m: gradlib.hvp(lambda x: tf.concat([x * x, x[:11 - n(m)]], 0), tf.constant(X12[:n(m) + 1]),
                              tf.constant(X12[:n(m) + 1]), limits=Limits(max_hessian=100))),
    "hvp: fewer unrolled passes": Row(
        lambda: gradlib.hvp(lambda x: x * x, tf.constant(X12), tf.constant(X12), limits=Limits(max_unrolled=10)),
        r"Reduce the output \(for example with sum\) to at most (\d+) elements$",
        lambda m: gradlib.hvp(lambda x: (x * x)[:n(m)], tf.constant(X12), tf.constant(X12),
                              limits=Limits(max_unrolled=10)),
        lambda m: gradlib.hvp(lambda x: (x * x)[:n(m) + 1], tf.constant(X12), tf.constant(X12),
                              limits=Limits(max_unrolled=10))),
    # the linter: every size limit the source is over, raised (both at once when both are over)
    "lint: a source over the characters and the lines": Row(
        lambda: gradlib.lint("x = 1\n" * 50_000),
        r"Split it, or pass limits=gradlib\.Limits\(max_source_chars=(\d+), max_source_lines=(\d+)\) to lint it whole$",
        lambda m: gradlib.lint("x = 1\n" * 50_000, limits=Limits(max_source_chars=n(m), max_source_lines=n(m, 2))),
        lambda m: gradlib.lint("x = 1\n" * 50_000, limits=Limits(max_source_chars=n(m) - 1,
                                                                   max_source_lines=n(m, 2)))),
    "lint: a source over the lines": Row(
        lambda: gradlib.lint("x = 1\n" * 6_000),
        r"pass limits=gradlib\.Limits\(max_source_lines=(\d+)\) to lint it whole$",
        lambda m: gradlib.lint("x = 1\n" * 6_000, limits=Limits(max_source_lines=n(m))),
        lambda m: gradlib.lint("x = 1\n" * 6_000, limits=Limits(max_source_lines=n(m) - 1))),
    # the generated code
    "tensorflow_code's order": Row(
        lambda: gradlib.tensorflow_code("x*x", {"x": [1.0]}, order=3),
        r"it writes order=1 \(the per-element gradients\) and order=(2)",
        lambda m: gradlib.tensorflow_code("x*x", {"x": [1.0]}, order=n(m))),
}


@pytest.mark.parametrize("name", ROWS)
def test_following_a_refusals_advice_is_accepted(name):
    row = ROWS[name]
    with pytest.raises(gradlib.GradlibError) as refused:
        row.refused()
    match = re.search(row.match, str(refused.value))
    assert match, f"the advice is not the one this row follows: {refused.value}"
    result = row.follow(match)
    if row.check is not None:
        row.check(result, match)


@pytest.mark.parametrize("name", [name for name, row in ROWS.items() if row.over is not None])
def test_one_past_the_advised_size_is_refused_again(name):
    """The size the advice names is the edge: the largest that fits (or, for a limit to raise, the least)."""
    row = ROWS[name]
    with pytest.raises(gradlib.GradlibError) as refused:
        row.refused()
    with pytest.raises(gradlib.GradlibError):
        row.over(re.search(row.match, str(refused.value)))


def test_one_sample_is_never_told_to_use_a_smaller_batch():
    """A batch of one over the limit was told 'Use a smaller batch': no batch is smaller. The advice now names what
    does fit (fewer outputs, diagonal=True, the trace) and no batch."""
    with pytest.raises(gradlib.ExpressionError) as refused:
        gradlib.per_sample_hessians(poly, BATCH[:1], limits=Limits(max_hessian=10))
    assert "batch" not in str(refused.value).split("allowed.")[1], refused.value


def test_diagonal_is_not_advised_when_the_diagonals_are_over_too():
    """10 samples x 6 outputs x 3 inputs = 180 diagonal entries, over 100: diagonal=True would be refused again."""
    with pytest.raises(gradlib.ExpressionError) as refused:
        gradlib.per_sample_hessians(poly, BATCH, limits=Limits(max_hessian=100))
    assert "diagonal=True" not in str(refused.value), refused.value
    with pytest.raises(gradlib.ExpressionError, match="second-order entries"):
        gradlib.per_sample_hessians(poly, BATCH, diagonal=True, limits=Limits(max_hessian=100))


def test_method_auto_is_not_advised_when_auto_is_refused_too():
    """A named method over the memory was told "or method='auto'" even when auto found no method that fits."""
    x, limits = np.tile(BATCH, (10, 1)), Limits(max_bytes=3e5)
    with pytest.raises(gradlib.ExpressionError) as refused:
        gradlib.per_sample_hessians(poly, x, method="forward_over_reverse", limits=limits)
    assert "method='auto'" not in str(refused.value), refused.value
    with pytest.raises(gradlib.ExpressionError, match="no exact second-order method fits"):
        gradlib.per_sample_hessians(poly, x, limits=limits)


def test_unstack_over_its_passes_is_not_told_to_use_a_jacobian_that_is_over_the_memory():
    """Over max_eager_passes and with a vectorized Jacobian over max_bytes: the advice names a method that fits."""
    limits = Limits(max_eager_passes=10, max_bytes=2_000)
    with pytest.raises(gradlib.ExpressionError, match="jacobian"):
        gradlib.evaluate("x*x", {"x": X12.tolist()}, method="jacobian", limits=limits)
    with pytest.raises(gradlib.ExpressionError) as refused:
        gradlib.evaluate("x*x", {"x": X12.tolist()}, method="unstack", limits=limits)
    assert "Use method='jacobian'" not in str(refused.value), refused.value
    advised = re.search(r"Use method='(\w+)'", str(refused.value))
    if advised:
        result = gradlib.evaluate("x*x", {"x": X12.tolist()}, method=advised.group(1), limits=limits)
        np.testing.assert_allclose(result.jacobian, np.diag(2 * X12), rtol=1e-6)
