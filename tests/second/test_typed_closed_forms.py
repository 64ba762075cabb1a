"""``evaluate(..., order=2)`` on typed functions of several inputs against their Hessians written out by hand, in
float64: three scalars under exp and tanh, a matrix output (its rows labelled by their indices), a matrix constant
inside tanh, and the first derivatives it returns beside them, equal to the first order's own (issue 38, item 6).
"""

from __future__ import annotations

import numpy as np
import pytest

import gradlib

X, Y, Z = 0.3, -0.5, 0.8


def test_three_inputs_under_exp_and_tanh_give_the_hessian_written_out():
    r = gradlib.evaluate("exp(x * y) * tanh(z)", {"x": X, "y": Y, "z": Z}, dtype="float64", order=2)
    e, t = np.exp(X * Y), np.tanh(Z)
    t1, t2 = 1 - t ** 2, -2 * t * (1 - t ** 2)
    expected = [[Y * Y * e * t, (1 + X * Y) * e * t, Y * e * t1],
                [(1 + X * Y) * e * t, X * X * e * t, X * e * t1],
                [Y * e * t1, X * e * t1, e * t2]]
    np.testing.assert_allclose(r.hessian, [expected], rtol=1e-13)
    np.testing.assert_allclose(r.jacobian, [[Y * e * t, X * e * t, e * t1]], rtol=1e-13)
    # an input is named y, so the output is labelled out (an output is never labelled by an input's name)
    assert r.col_labels == ("x", "y", "z") and r.row_labels == ("out",)


def test_a_matrix_output_s_rows_are_labelled_by_their_indices_and_each_is_its_element_s_hessian():
    r = gradlib.evaluate("[[x * b, x ** 2], [sin(b), x * b * b]]", {"x": X, "b": Y}, dtype="float64", order=2)
    assert r.row_labels == ("y[0,0]", "y[0,1]", "y[1,0]", "y[1,1]") and r.y.shape == (2, 2)
    np.testing.assert_allclose(r.hessian, [[[0, 1], [1, 0]], [[2, 0], [0, 0]], [[0, 0], [0, -np.sin(Y)]],
                                           [[0, 2 * Y], [2 * Y, 2 * X]]], rtol=1e-13, atol=1e-15)
    frame = r.to_frame()
    assert frame.query("output == 'y[1,1]' and input_i == 'x' and input_j == 'b'").value.item() == \
        pytest.approx(2 * Y, rel=1e-13)


def test_a_matrix_constant_inside_tanh_gives_w_transposed_times_the_curvature_times_w():
    w = np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]])
    x = np.array([0.2, -0.4, 0.9])
    r = gradlib.evaluate("sum(tanh(W @ x))", {"W": w, "x": x}, watch=["x"], dtype="float64", order=2)
    t = np.tanh(w @ x)
    np.testing.assert_allclose(r.hessian[0], w.T @ np.diag(-2 * t * (1 - t ** 2)) @ w, rtol=1e-12, atol=1e-15)
    assert r.col_labels == ("x[0]", "x[1]", "x[2]")
    everything = gradlib.evaluate("sum(tanh(W @ x))", {"W": w, "x": x}, dtype="float64", order=2)
    assert everything.hessian.shape == (1, 9, 9)                    # W's 6 elements, then x's 3
    np.testing.assert_allclose(everything.hessian[0, 6:, 6:], r.hessian[0], rtol=1e-12, atol=1e-15)
    # d2/dW_ij dx_k = t'(z_i) [j == k] + t''(z_i) x_j W_ik: the cross block, from the chain rule by hand
    cross = np.zeros((2, 3, 3))
    for i in range(2):
        cross[i] = (1 - t[i] ** 2) * np.eye(3) + (-2 * t[i] * (1 - t[i] ** 2)) * np.outer(x, w[i])
    np.testing.assert_allclose(everything.hessian[0, :6, 6:], cross.reshape(6, 3), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("text", ["exp(x * y) * tanh(z)", "[x * y * z, sin(x) * cos(y), z ** 3 / (1 + x * x)]"])
def test_the_first_derivatives_beside_the_hessian_are_the_first_order_s_own(text):
    at = {"x": X, "y": Y, "z": Z}
    second = gradlib.evaluate(text, at, dtype="float64", order=2)
    first = gradlib.evaluate(text, at, dtype="float64", method="jacobian")
    np.testing.assert_allclose(second.jacobian, first.jacobian, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(second.y, first.y, rtol=1e-15)
    np.testing.assert_allclose(second.hessian, np.swapaxes(second.hessian, 1, 2), rtol=1e-12, atol=1e-15)
