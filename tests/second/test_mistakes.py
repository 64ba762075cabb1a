"""The second-order demonstrations: each nested-tape mistake reproduces what TensorFlow does, beside the right
number; the Poisson example's residual is zero to rounding against the closed form."""

from __future__ import annotations

import numpy as np
import pytest

import gradlib


def test_each_mistake_gives_what_tensorflow_gives_and_the_fix_the_closed_form():
    found = {m.name: m for m in gradlib.examples.second_order_mistakes()}
    assert found["gradient_after_outer_block"].broken == [None, None]   # None for x's two elements, one cell each
    assert found["watched_by_inner_only"].broken == [None, None]
    for name in ("gradient_after_outer_block", "watched_by_inner_only"):
        assert found[name].fixed == [6.0, 12.0]          # d2/dx2 x^3 = 6x at x = 1, 2
    mixed = found["batch_jacobian_of_mixed_rows"]
    assert mixed.broken == [3.0, 3.0] and mixed.fixed == [2.0, 2.0]   # tensorflow#38428
    assert "not independent" in mixed.fixed_error
    dead = found["where_branch_not_taken"]     # Laplacians of [where(x0 > 0, sqrt|x0|, 0), x1^2] at (0, 3): 0 and 2
    assert np.isnan(dead.broken).all() and dead.fixed == [0.0, 2.0]
    assert "repaired NaN poisoning in 2 cell(s) (sample 0: y[0]; sample 0: y[1])" in dead.explanation


def test_the_poisson_residual_of_the_known_solution_is_zero_and_relu_is_flagged():
    p = gradlib.examples.poisson_example(5)
    g = np.linspace(0, 1, 5)
    gx, gy = np.meshgrid(g, g)
    np.testing.assert_allclose(p.exact_laplacian, -2 * np.pi ** 2 * np.sin(np.pi * gx) * np.sin(np.pi * gy),
                               rtol=1e-9, atol=1e-9)
    assert np.abs(p.residual).max() < 1e-9
    assert p.tanh_method == "forward_laplacian" and np.abs(p.tanh_laplacian).max() > 0
    assert not p.relu_laplacian.any() and any("piecewise linear" in w for w in p.relu_warnings)
    with pytest.raises(gradlib.ExpressionError, match=r"poisson_example got grid=1; give a whole number from 2"):
        gradlib.examples.poisson_example(1)
