"""The check that a batch's samples do not mix (``gradlib._callable._mixing``), against numbers worked by hand.

A batch of two scalar samples with ``y0 = x0 + a * x1`` and ``y1 = x1``: batch_jacobian's blocks are both 1, the
whole batch's ``u^T dy/dx`` is ``(u0, a * u0 + u1)``, so the blocks' prediction ``(u0, u1)`` misses sample 1's
column by ``|a * u0|`` at the scale ``max(|u0|, |u1|)``; sample 1's input is the one that changes another output.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._callable._mixing import MIXING_TOLERANCE, Mixing, find_mixing, held, mixing_text


def _check(a: float, u: tuple[float, float], dtype: str = "float64"):
    jac = np.ones((2, 1, 1))                       # batch_jacobian: sample c's output against sample c's input
    weights = np.array(u).reshape(2, 1)
    g = np.array([u[0], a * u[0] + u[1]]).reshape(2, 1)   # u^T dy/dx over the whole batch
    return find_mixing(jac, weights, g, dtype)


def test_the_gap_the_scale_and_the_sample_are_the_hand_worked_ones():
    found, finite = _check(0.01, (2.0, 0.5))
    assert finite and found == Mixing(sample=1, gap=pytest.approx(0.02), scale=pytest.approx(2.0))
    assert found.gap < found.scale
    assert mixing_text(found).endswith("differs from the per-sample Jacobians by 0.02, at a scale of 2)")
    assert "the input of sample 1 changes the output of another sample" in mixing_text(found)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_the_tolerance_is_relative_to_the_scale_at_its_last_good_and_first_bad_gap(dtype):
    tol = MIXING_TOLERANCE[dtype]
    assert _check(tol * 0.999, (2.0, 0.5), dtype)[0] is None   # gap |a * u0| = 0.999 * tol * scale
    assert _check(tol * 1.001, (2.0, 0.5), dtype)[0] is not None


def test_half_precision_tolerances_are_about_ten_of_their_epsilons():
    """bfloat16's was float16's 1e-2, 1.3 of its epsilons: independent mixed_bfloat16 models were refused as mixing
    (tests/pde/test_check_precision.py)."""
    for dtype, eps in (("float16", 2.0 ** -10), ("bfloat16", 2.0 ** -7)):
        assert 8 <= MIXING_TOLERANCE[dtype] / eps <= 12


def test_no_mixing_and_no_finite_entry_are_told_apart():
    assert _check(0.0, (2.0, 0.5)) == (None, True)
    assert _check(0.5, (np.inf, 0.5)) == (None, False)    # every entry inf or NaN: no evidence either way


def test_an_api_s_refusal_reports_a_gap_below_its_scale_for_a_small_leak():
    leak = lambda x: x + 1e-2 * tf.roll(x, 1, axis=0)   # noqa: E731 - each sample sees 1% of the one before
    with pytest.raises(gradlib.BatchMixingError) as caught:
        gradlib.per_sample_gradients(leak, np.linspace(1.0, 2.0, 8).reshape(4, 2))
    gap, scale = (float(v) for v in re.search(r"by ([\d.e+-]+), at a scale of ([\d.e+-]+)", str(caught.value)).groups())
    assert 0 < gap < scale and gap / scale < 0.05


def test_a_zero_scale_is_said_as_per_sample_jacobians_that_are_all_zero():
    """x - mean(x) over the batch: each sample alone (a batch of one) has output 0 whatever its input, so every
    per-sample Jacobian is 0, while the whole batch's projection is not; "at a scale of 0" read as a bug."""
    centred = lambda x: x - tf.reduce_mean(x, axis=0)   # noqa: E731
    with pytest.raises(gradlib.BatchMixingError) as caught:
        gradlib.per_sample_gradients(centred, np.linspace(-1.0, 2.0, 12).reshape(4, 3))
    text = str(caught.value)
    assert "where the per-sample Jacobians are all zero" in text and "at a scale of" not in text
    gap = float(re.search(r"by ([\d.e+-]+), where", text).group(1))
    assert gap > 0.1
    found, _ = _check(0.01, (0.0, 0.0))
    assert found is None                     # a zero cotangent: no gap, no refusal at all
    assert "at a scale of 2)" in mixing_text(Mixing(0, 0.5, 2.0))
    assert "all zero" in mixing_text(Mixing(0, 0.5, 0.0)) and "all zero" not in mixing_text(Mixing(0, 0.5, 1e-30))


def scaled_by_the_batch(x):
    """A batch statistic under stop_gradient: the backward projection cannot see it mix (hunt 54)."""
    return tf.tanh(x / tf.stop_gradient(tf.math.reduce_std(x, axis=0, keepdims=True) + 0.1))


def centred_by_the_batch(x):
    """A value that moves with the batch while every derivative is each sample's own: answered."""
    return tf.tanh(x) - tf.stop_gradient(tf.reduce_mean(x, axis=0, keepdims=True))


BATCH = np.random.default_rng(1).normal(size=(5, 3)).astype("float32")
ALONE = {
    "per_sample_gradients-auto": lambda fn, x=BATCH: gradlib.per_sample_gradients(fn, x),
    "per_sample_gradients-tiled": lambda fn, x=BATCH: gradlib.per_sample_gradients(fn, x, method="tiled"),
    "laplacian-auto": lambda fn, x=BATCH: gradlib.laplacian(fn, x),
    "per_sample_hessians-forward_over_reverse": lambda fn, x=BATCH: gradlib.per_sample_hessians(
        fn, x, method="forward_over_reverse"),
}


def _alone_jacobian(fn, b: int) -> np.ndarray:
    """The reference: sample ``b`` alone, a fresh tape."""
    xb = tf.constant(BATCH[b:b + 1])
    with tf.GradientTape() as tape:
        tape.watch(xb)
        y = fn(xb)
    return tape.batch_jacobian(y, xb).numpy()[0]


def test_the_batch_s_jacobian_of_a_statistic_under_stop_gradient_is_not_the_sample_s():
    """What the refusal prevents: per_sample_gradients answered the batch's tape, 1.346 where sample 0 alone has
    0.05379 (and, at sample 3, 1.889 where it has 9.234); the backward projection passed, and only method='loop'
    refused."""
    x = tf.constant(BATCH)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scaled_by_the_batch(x)
    in_batch, alone = tape.batch_jacobian(y, x).numpy()[0], _alone_jacobian(scaled_by_the_batch, 0)
    worst = np.unravel_index(np.argmax(np.abs(in_batch - alone)), alone.shape)
    assert (in_batch[worst], alone[worst]) == (pytest.approx(1.346, abs=1e-3), pytest.approx(0.05379, abs=1e-4))


@pytest.mark.parametrize("call", ALONE.values(), ids=ALONE.keys())
def test_a_batch_statistic_under_stop_gradient_is_refused_when_the_other_samples_move(call):
    with pytest.raises(gradlib.BatchMixingError, match=r"the samples of the batch are not independent: when the "
                       r"other samples move, sample 0's (Jacobian changes|derivatives change) \((1.104|-1.333) "
                       r"in the batch as given, (1.249|-2.471) with the others moved.*a batch statistic under "
                       r"tf.stop_gradient"):
        call(scaled_by_the_batch)


def test_a_shift_along_the_batch_under_stop_gradient_is_refused_either_way():
    """Mixing that flows one way along the batch reaches only one end: the last sample reads the one before it, or
    the first reads the one after it; both ends are held."""
    before = lambda x: tf.tanh(x) * tf.stop_gradient(tf.concat([tf.ones_like(x[:1]), x[:-1]], 0))  # noqa: E731
    after = lambda x: tf.tanh(x) * tf.stop_gradient(tf.concat([x[1:], tf.ones_like(x[:1])], 0))  # noqa: E731
    for fn, sample in ((before, 4), (after, 0)):
        with pytest.raises(gradlib.BatchMixingError, match=f"sample {sample}'s Jacobian changes"):
            gradlib.per_sample_gradients(fn, BATCH)


def second_reads_first(x):
    """Each sample reads the one before it, under stop_gradient: of two, y[1] = tanh(x[1]) * x[0], and y[0] reads no
    other sample."""
    return tf.tanh(x) * tf.stop_gradient(tf.concat([tf.ones_like(x[:1]), x[:-1]], 0))


@pytest.mark.parametrize("call", ALONE.values(), ids=ALONE.keys())
def test_of_two_samples_the_second_reading_the_first_is_refused(call):
    """One pass of two samples holds one and moves the other: it held the first, whose output does not read the
    second, and every API answered the batch's derivatives as sample 1's (hunt 56: d y[1] / d x[1] = x[0] *
    tanh'(x[1]), where sample 1 alone has tanh'(x[1])). The pass that holds the second finds it."""
    pair = BATCH[:2]
    tiled = r"|method 'tiled' does not hold for this function"   # tiled's own refusal: use 'auto'
    with pytest.raises(gradlib.GradlibError, match=r"sample 1's (Jacobian changes|derivatives change)" + tiled):
        call(second_reads_first, pair)
    first_reads_second = lambda x: tf.tanh(x) * tf.stop_gradient(tf.concat([x[1:], tf.ones_like(x[:1])], 0))  # noqa: E731
    with pytest.raises(gradlib.GradlibError, match=r"sample 0's (Jacobian changes|derivatives change)" + tiled):
        call(first_reads_second, pair)
    # the first sample at 0: y[1] = tanh(x[1]) * 0 is 0 in the batch and on the pass that holds the first (x[0] still
    # 0), so only the pass that holds the second sees it move, and only on that pass do its derivatives (0 here,
    # tanh'(x[1]) * x[1] / 2 there) change: sample 1's were answered as 0, where alone it has tanh'(x[1]) (mutants 5
    # and 6 of branch mutants57: ``second_held`` skipped, the derivatives rerun on the pass that holds the first)
    with pytest.raises(gradlib.GradlibError, match=r"sample 1's (Jacobian changes|derivatives change) \(0 in "
                       r"the batch as given" + tiled):
        call(second_reads_first, np.stack([np.zeros(3, np.float32), BATCH[1]]))


def test_of_two_independent_samples_both_passes_answer_each_samples_own():
    r = gradlib.per_sample_gradients(centred_by_the_batch, BATCH[:2])
    reference = np.stack([_alone_jacobian(centred_by_the_batch, b) for b in range(2)])
    np.testing.assert_allclose(r.jacobian, reference, rtol=1e-5, atol=1e-6)
    # the second order reruns its method on the pass that holds the sample whose value moved (mutant 6 of branch
    # mutants57 reran it on the pass that holds the first, moving sample 1 itself, and refused this batch as mixing):
    # y = tanh(x) - stop_gradient(mean), whose Laplacian is tanh'' = -2 tanh (1 - tanh^2), each sample's own
    t = np.tanh(BATCH[:2].astype(np.float64))
    np.testing.assert_allclose(gradlib.laplacian(centred_by_the_batch, BATCH[:2]).laplacian, -2 * t * (1 - t * t),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("b", [2, 4])
def test_a_batch_of_identical_samples_still_moves_the_others(b):
    """Halfway towards an equal sample is no move: on a batch of zeros every held pass saw nothing move, and
    per_sample_gradients answered sample 1's Jacobian diagonal as [0, 0, 0] (it reads sample 0 = 0), where sample 1
    alone has tanh'(0) = 1 (here (tanh(x) + 1) * the sample before: its value moves with the sample it reads). An
    independent fn on the same batch is answered with each sample's own."""
    same = np.zeros((b, 3), np.float32)
    reads_before = lambda x: (tf.tanh(x) + 1) * tf.stop_gradient(tf.concat([tf.ones_like(x[:1]), x[:-1]], 0))  # noqa: E731
    with pytest.raises(gradlib.BatchMixingError, match=rf"sample {b - 1}'s Jacobian changes"):
        gradlib.per_sample_gradients(reads_before, same)
    r = gradlib.per_sample_gradients(centred_by_the_batch, same)
    np.testing.assert_allclose(r.jacobian, np.broadcast_to(np.eye(3), (b, 3, 3)), atol=1e-6)   # tanh'(0) = 1
    ones = np.ones((b, 3), np.float32)   # a sample of ones moves to 1 + 2/16 = 1.125, every feature
    np.testing.assert_array_equal(held(tf.constant(ones)).numpy()[1], np.full(3, 1.125, np.float32))


def test_an_output_scaled_by_the_batch_size_is_not_refused_as_mixing():
    """The moved batch keeps the batch's size: y = 3 x^2 on a batch of 3 has the per-sample Jacobian 6 x."""
    r = gradlib.per_sample_gradients(lambda x: x * x * tf.cast(tf.shape(x)[0], x.dtype), BATCH[:3])
    np.testing.assert_allclose(r.jacobian[:, 0, 0], 6 * BATCH[:3, 0], rtol=1e-6)


def test_a_value_that_moves_with_the_batch_but_not_its_derivatives_is_answered():
    r = gradlib.per_sample_gradients(centred_by_the_batch, BATCH)
    reference = np.stack([_alone_jacobian(centred_by_the_batch, b) for b in range(len(BATCH))])
    np.testing.assert_allclose(r.jacobian, reference, rtol=1e-5, atol=1e-6)
    lap = gradlib.laplacian(centred_by_the_batch, BATCH)
    t = np.tanh(BATCH.astype(np.float64))
    np.testing.assert_allclose(lap.laplacian, -2 * t * (1 - t * t), rtol=1e-5, atol=1e-6)   # tanh'' per output


def vanishing_at_the_held(x, power: int = 1):
    """A hard boundary ansatz ``sin(pi x)^power * N``, N reading the batch's mean under stop_gradient: at whole x its
    value (and, for power 2, its first derivative) is 0 whatever the batch, while its derivatives move with N."""
    return tf.sin(np.pi * x) ** power * tf.tanh(x - tf.stop_gradient(tf.reduce_mean(x, axis=0, keepdims=True)))


GRID = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]], np.float32)   # every held sample (0, 4 and 2) at a whole x


def _alone_second(fn, x: np.ndarray, b: int) -> float:
    """The reference: d^2 fn / dx^2 of sample ``b`` alone, two fresh tapes."""
    xb = tf.constant(x[b:b + 1])
    with tf.GradientTape() as outer:
        outer.watch(xb)
        with tf.GradientTape() as inner:
            inner.watch(xb)
            y = tf.reduce_sum(fn(xb))
        first = inner.gradient(y, xb)
    return float(outer.gradient(first, xb)[0, 0])


def test_a_held_sample_whose_value_stays_while_its_derivatives_move_is_the_batch_s_not_its_own():
    """What the refusal below prevents (hunt 59): the held pass compared values only, saw none move, and every API
    answered the batch's tape; sample 0's first derivative pi * tanh(0 - 2) = -3.029 in the batch, pi * tanh(0) = 0
    alone, and with sin^2 its second derivative 2 pi^2 tanh(-2) = -19.03 in the batch, 0 alone."""
    x = tf.constant(GRID)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = vanishing_at_the_held(x)
    assert float(tape.batch_jacobian(y, x)[0, 0, 0]) == pytest.approx(-3.029, abs=1e-3)
    assert abs(float(_alone_jacobian_at(vanishing_at_the_held, GRID, 0))) < 1e-6
    assert _alone_second(lambda t: vanishing_at_the_held(t, 2), GRID, 0) == pytest.approx(0.0, abs=1e-5)


def _alone_jacobian_at(fn, x: np.ndarray, b: int) -> float:
    xb = tf.constant(x[b:b + 1])
    with tf.GradientTape() as tape:
        tape.watch(xb)
        y = fn(xb)
    return float(tape.gradient(y, xb)[0, 0])


@pytest.mark.parametrize("call", ALONE.values(), ids=ALONE.keys())
def test_a_held_sample_whose_derivatives_move_without_its_value_is_refused(call):
    """Before hunt 59 every API answered these (per_sample_gradients -3.029 at sample 0, where alone it is 0)."""
    with pytest.raises(gradlib.GradlibError, match=r"sample 0's (Jacobian changes|derivatives change) \(-?[\d.]+ in "
                       r"the batch as given, [-\d.]+ with the others moved|method 'tiled' does not hold"):
        call(vanishing_at_the_held, GRID)


@pytest.mark.parametrize("method", ["auto", "hutchinson"])
def test_second_derivatives_that_move_under_a_still_first_derivative_are_refused_at_the_second_order(method):
    """sin(pi x)^2 N at whole x: value and first derivative 0 in every batch, so per_sample_gradients answers (0,
    each sample's own), while laplacian answered the batch's 2 pi^2 tanh(x - 2) (-19.03 at sample 0, 0 alone)."""
    squared = lambda x: vanishing_at_the_held(x, 2)   # noqa: E731
    r = gradlib.per_sample_gradients(squared, GRID)
    reference = [_alone_jacobian_at(squared, GRID, b) for b in range(len(GRID))]
    np.testing.assert_allclose(r.jacobian[:, 0, 0], reference, atol=1e-5)
    with pytest.raises(gradlib.BatchMixingError, match=r"sample 0's derivatives change"):
        gradlib.laplacian(squared, GRID, method=method)


@pytest.mark.parametrize("call", ALONE.values(), ids=ALONE.keys())
def test_a_sample_that_reads_the_first_is_refused_on_the_pass_that_moves_the_first(call):
    """tanh(x) * stop_gradient(x[0]): the pass that held the first and last held what they read, and every API
    answered the batch's tanh'(x[b]) x[0] (sample 1: 0.08848, where alone it has tanh'(x[1]) x[1] = -0.3337);
    the pass that holds the odd samples moves the first."""
    reads_first = lambda x: tf.tanh(x) * tf.stop_gradient(x[:1])   # noqa: E731
    with pytest.raises(gradlib.GradlibError, match=r"sample 1's (Jacobian changes|derivatives change) \((0.08848|"
                       r"0.1526) in the batch as given|method 'tiled' does not hold"):
        call(reads_first)


def paired_by_the_batch(x):
    """Outputs in opposite pairs scaled by a batch statistic: the sum of each sample's outputs is 0 in every batch,
    so their derivatives summed with equal weights never move, while each output's do."""
    y = scaled_by_the_batch(x)
    return tf.concat([y, -y], axis=1)


def test_outputs_whose_derivatives_cancel_in_a_sum_are_compared_along_random_directions():
    """The held pass weights each output by a random number: with equal weights (mutants59pde) the pairs cancel,
    nothing moved, and per_sample_gradients answered the batch's 1.346 at sample 0 where sample 0 alone has 0.05379."""
    x = tf.constant(BATCH)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = paired_by_the_batch(x)
    in_batch, alone = tape.batch_jacobian(y, x).numpy()[0], _alone_jacobian(paired_by_the_batch, 0)
    assert np.abs(in_batch - alone).max() > 1.0   # the batch's Jacobian is not the sample's
    with pytest.raises(gradlib.BatchMixingError, match=r"sample 0's Jacobian changes"):
        gradlib.per_sample_gradients(paired_by_the_batch, BATCH)


def test_derivatives_that_move_within_the_dtype_s_rounding_take_no_moved_batch_pass(monkeypatch):
    """A batch statistic weighed at 2e-5, below float32's tolerance (1e-4): each sample's Jacobian is its own within
    float32, and no sample is taken as moved. The held pass compares at the input's dtype, not at its float64 tower's
    (mutants59pde: at 1e-9 every sample of 5 moved, each one more eager pass over fn, 8 calls instead of 3)."""
    from gradlib._perelement import _persample
    weighed = lambda x: tf.tanh(x) * (1.0 + 2e-5 * tf.stop_gradient(tf.reduce_mean(x)))   # noqa: E731
    moved = []
    monkeypatch.setattr(_persample, "moved_batch", lambda x, b: moved.append(b) or held(x, odd=b % 2 == 1))
    r = gradlib.per_sample_gradients(weighed, BATCH)
    assert moved == []
    for b in (0, 4):
        np.testing.assert_allclose(r.jacobian[b], _alone_jacobian(weighed, b), rtol=1e-4, atol=1e-6)
