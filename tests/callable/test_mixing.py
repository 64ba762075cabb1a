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
from gradlib._callable._mixing import MIXING_TOLERANCE, Mixing, find_mixing, mixing_text


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
