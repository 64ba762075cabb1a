"""Second order where derivatives are a convention or not finite: kinks and ties, NaN and inf inputs, infinite
outputs, and a direction that is not finite (issue 38, item 6).

At a kink or a tie, the answer is what TensorFlow's own tape returns (nested plain tapes per sample, written here), in
every method: ``relu'(0) = 0``, ``abs'(0) = sign(0) = 0``, ``maximum`` and ``minimum`` give a tie to their first
argument, ``reduce_max`` shares a tie equally among the tied elements. A sample that is not finite gets non-finite
numbers of its own and leaves the others exact; it is named in ``.warnings``, never counted as NaN poisoning.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf

import gradlib

TAPES = ("nested_tapes", "loop", "forward_over_reverse")
ZERO = tf.UnconnectedGradients.ZERO


def kinks(x):
    """Five outputs per sample (a, b, c), each at a kink or a tie for some sample of ``AT``."""
    a, b, c = x[:, 0], x[:, 1], x[:, 2]
    return tf.stack([a * tf.abs(a), tf.nn.relu(b) ** 2, tf.maximum(a, b) ** 2, tf.reduce_max(x, axis=1) ** 2,
                     tf.minimum(b, c) ** 2], axis=1)


#: sample 0: every kink and a three-way tie at 0; sample 1: a == b (tie of maximum and of reduce_max, at 1);
#: sample 2: b == c (tie of minimum, and of reduce_max, at 2)
AT = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, -1.0], [-1.0, 2.0, 2.0]])


def tape_hessians(fn, x):
    """Per sample and output, nested plain tapes: ``(B, out, d, d)``."""
    out = []
    for row in x:
        per_output = []
        for k in range(int(fn(tf.constant(row[None])).shape[1])):
            v = tf.constant(row[None])
            with tf.GradientTape() as outer:
                outer.watch(v)
                with tf.GradientTape() as inner:
                    inner.watch(v)
                    y_k = fn(v)[0, k]
                g = inner.gradient(y_k, v, unconnected_gradients=ZERO)[0]
            per_output.append(outer.jacobian(g, v, unconnected_gradients=ZERO)[:, 0, :].numpy())
        out.append(per_output)
    return np.array(out)


@functools.cache
def reference():
    """The nested-tape Hessians every method is held to, computed once a session when a test first asks
    (not at import: collection stays free of TensorFlow work); read-only, as it is shared."""
    h = tape_hessians(kinks, AT)
    h.flags.writeable = False
    return h


def test_the_reference_is_tensorflow_s_convention_at_each_kink_and_tie():
    h = reference()
    assert h[0, 0, 0, 0] == 0 and h[2, 0, 0, 0] == -2     # a|a|: 2 sign(a), sign(0) = 0
    assert h[0, 1, 1, 1] == 0 and h[1, 1, 1, 1] == 2      # relu(b)^2: 2 step(b), relu'(0) = 0
    np.testing.assert_array_equal(h[1, 2], [[2, 0, 0], [0, 0, 0], [0, 0, 0]])   # maximum's tie goes to a
    np.testing.assert_array_equal(h[2, 4], [[0, 0, 0], [0, 2, 0], [0, 0, 0]])   # minimum's tie goes to b
    np.testing.assert_allclose(h[1, 3], 2 * np.outer([0.5, 0.5, 0], [0.5, 0.5, 0]))   # reduce_max shares its tie
    np.testing.assert_allclose(h[0, 3], 2 * np.full((3, 3), 1 / 9))                   # three ways at 0


@pytest.mark.parametrize("method", TAPES)
def test_every_method_returns_tensorflow_s_tape_at_kinks_and_ties(method):
    r = gradlib.per_sample_hessians(kinks, AT, method=method)
    np.testing.assert_allclose(r.hessians, reference(), rtol=1e-12, atol=1e-15)
    assert not len(r.poisoned_cells) and not any("NaN" in w for w in r.warnings)


def test_the_divergence_at_ties_is_the_tape_s_jacobian_trace():
    def field(x):   # (a, b, c) -> (max(a, b), relu(b), |c|): at a tie, maximum's derivative is all a's
        return tf.stack([tf.maximum(x[:, 0], x[:, 1]), tf.nn.relu(x[:, 1]), tf.abs(x[:, 2])], axis=1)

    # sample 0: 1 (a wins the tie) + 0 (relu'(0)) + 0 (sign(0)); 1: 1 + 1 - 1; 2: 0 (b wins) + 1 + 1
    for method in ("auto",) + TAPES:
        np.testing.assert_array_equal(gradlib.divergence(field, AT, method=method).divergence, [1.0, 1.0, 2.0])


# ---------------------------------------------------------------- a sample that is not finite


BAD = np.array([[np.nan, 1.0], [0.5, 2.0], [np.inf, -1.0], [-0.3, 0.7]])


def smooth(x):
    return (tf.sin(x[:, :1]) * x[:, 1:] + x[:, 1:] ** 3)


def smooth_laplacian(x):
    a, b = x[:, 0], x[:, 1]
    return -np.sin(a) * b + 6 * b


@pytest.mark.parametrize("method", ("auto",) + TAPES)
def test_a_nan_or_inf_sample_gets_nan_and_leaves_the_other_samples_exact(method):
    r = gradlib.laplacian(smooth, BAD, method=method)
    assert np.isnan(r.laplacian[[0, 2], 0]).all()
    np.testing.assert_allclose(r.laplacian[[1, 3], 0], smooth_laplacian(BAD[[1, 3]]), rtol=1e-12)
    assert "x holds NaN or infinite values; the second derivatives there are not finite" in r.warnings
    assert not len(r.poisoned_cells) and not any("poisoning" in w for w in r.warnings)


def test_per_sample_hessians_and_divergence_of_a_batch_with_a_nan_sample():
    h = gradlib.per_sample_hessians(smooth, BAD)
    assert np.isnan(h.hessians[0]).any() and not len(h.poisoned_cells)
    a, b = BAD[1]
    np.testing.assert_allclose(h.hessians[1, 0], [[-np.sin(a) * b, np.cos(a)], [np.cos(a), 6 * b]], rtol=1e-12)
    d = gradlib.divergence(lambda x: x * tf.exp(x), BAD)
    np.testing.assert_allclose(d.divergence[[1, 3]], ((1 + BAD[[1, 3]]) * np.exp(BAD[[1, 3]])).sum(axis=1),
                               rtol=1e-12)
    assert np.isnan(d.divergence[0]) and "x holds NaN or infinite values" in d.warnings[-1]


def test_a_second_derivative_that_does_not_read_x_is_finite_even_at_nan():
    # (x * x)'' = 2 reads no x: TensorFlow gives 2 at NaN, the value and the first derivative are NaN
    r = gradlib.hessians(lambda x: x * x, tf.constant([np.nan, 3.0], tf.float64))
    np.testing.assert_array_equal(r.hessian, [np.diag([2.0, 0.0]), np.diag([0.0, 2.0])])
    assert np.isnan(r.y[0]) and np.isnan(r.jacobian[0, 0]) and r.jacobian[1, 1] == 6.0
    assert r.warnings[0] == "x holds NaN or infinite values; the second derivatives there are not finite"


def test_an_infinite_output_at_a_finite_input_is_named_not_repaired():
    r = gradlib.laplacian(lambda x: 1.0 / x, np.array([[0.0], [2.0]]))
    assert r.laplacian[0, 0] == np.inf and r.laplacian[1, 0] == pytest.approx(2 / 8, rel=1e-12)   # 2 / x^3
    assert "fn's output holds NaN or infinite values; its second derivatives there are not finite" in r.warnings
    assert not len(r.poisoned_cells)


# ---------------------------------------------------------------- hvp along a direction that is not finite


@pytest.mark.parametrize("method", ["auto", "forward_over_reverse", "reverse_over_reverse"])
def test_hvp_along_a_direction_with_nan_or_inf_is_not_poisoning_and_says_so(method):
    # H_1 of x^3 (elementwise) is diag(0, 12): along v = (inf, 1) its product is (0 x inf, 12) = (NaN, 12) in IEEE
    # arithmetic, in every method. auto 'repaired' that NaN into 0 and called it poisoning; reverse gave NaN.
    x = tf.constant([1.0, 2.0], tf.float64)
    r = gradlib.hvp(lambda t: t ** 3, x, tf.constant([np.inf, 1.0], tf.float64), method=method)
    assert r.hvp[0, 0] == np.inf and r.hvp[0, 1] == 0 and np.isnan(r.hvp[1, 0]) and r.hvp[1, 1] == 12
    assert r.warnings == ("vs holds NaN or infinite values; the Hessian-vector products along it are not finite",)
    assert not len(r.poisoned_cells) and not len(r.repaired_cells)
    nan = gradlib.hvp(lambda t: tf.reduce_sum(t ** 3), x, tf.constant([np.nan, 1.0], tf.float64), method=method)
    assert np.isnan(nan.hvp[0, 0]) and nan.hvp[0, 1] == 12
    assert nan.warnings == r.warnings and not len(nan.poisoned_cells)


def test_hvp_along_a_finite_direction_keeps_its_poisoning_diagnosis():
    # the check above must not hide real poisoning: sqrt's branch not taken at 0 poisons y[1]'s product
    def fn(t):
        return tf.stack([tf.where(t[0] > 0, tf.sqrt(tf.abs(t[0])), 0.0 * t[0]), t[1] ** 2])

    r = gradlib.hvp(fn, tf.constant([0.0, 3.0], tf.float64), tf.constant([1.0, 1.0], tf.float64))
    np.testing.assert_array_equal(r.hvp[1], [0.0, 2.0])
    assert r.repaired_cells.tolist() != [] and any(w.startswith("repaired NaN poisoning") for w in r.warnings)
