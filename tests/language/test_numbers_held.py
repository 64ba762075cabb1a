"""Numbers the computation's dtype cannot hold are refused, never computed as inf or 0 (an answer for another
function that every check then called right: ``x * 1e-50`` in float32 gave y = 0 and a Jacobian of 0, and the
comparison said "The per-element gradients are right")."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib


def test_tensorflow_really_flushes_float32_numbers_under_the_smallest_normal_one_to_zero():
    """Why the bound is the smallest normal number, not the smallest subnormal one NumPy can hold."""
    tiny = np.finfo(np.float32).tiny
    v = tf.constant([1e-39, 2e-38], tf.float32)
    assert 1e-39 < tiny < 2e-38 and np.float32(1e-39) != 0
    np.testing.assert_array_equal((v * 1.0).numpy(), np.float32([0.0, 2e-38]))


@pytest.mark.parametrize("text, number, column, dtype, what", [
    ("x * 1e39", "1e39", 5, "float32", "larger than float32 can hold (at most about 3.4e+38): TensorFlow would compute "
                                       "with inf; use dtype float64, or rescale the function"),
    ("sin(x) - 2e40 * x", "2e40", 10, "float32", "larger than float32 can hold"),
    ("x * 1e-50", "1e-50", 5, "float32", "smaller than float32 computes with (TensorFlow takes numbers under about "
                                         "1.2e-38 as 0): the function would be computed with 0 there; use dtype "
                                         "float64, or rescale the function"),
    ("x + 1e-39 * x", "1e-39", 5, "float32", "smaller than float32 computes with"),
    ("x*1e309", "1e309", 3, "float64", "larger than float64 can hold (at most about 1.8e+308): TensorFlow would compute "
                                       "with inf; rescale the function"),
    ("x * 1e-400", "1e-400", 5, "float64", "smaller than float64 computes with (TensorFlow takes numbers under about "
                                           "2.2e-308 as 0): the function would be computed with 0 there; rescale the "
                                           "function"),
])
def test_a_number_the_dtype_cannot_hold_is_refused_where_it_is_written(text, number, column, dtype, what):
    with pytest.raises(gradlib.ExpressionError) as caught:
        gradlib.evaluate(text, {"x": [1.0, 2.0]}, dtype=dtype)
    assert str(caught.value).startswith(f"the number {number} at column {column} is {what}")
    assert caught.value.column == column and text[column - 1:].startswith(number)


def test_the_same_numbers_in_float64_give_the_true_derivatives():
    big = gradlib.evaluate("x * 1e39", {"x": [1.0, 2.0]}, dtype="float64")
    small = gradlib.evaluate("x * 1e-50", {"x": [1.0, 2.0]}, dtype="float64")
    np.testing.assert_allclose(big.jacobian, np.diag([1e39, 1e39]), rtol=1e-15)
    np.testing.assert_allclose(small.jacobian, np.diag([1e-50, 1e-50]), rtol=1e-15)
    np.testing.assert_allclose(small.y, [1e-50, 2e-50], rtol=1e-15)


@pytest.mark.parametrize("text", ["x * 0.0", "x + 0e5", "x * 0x0", "x * 0.000 + 1e-37 + 3e38 * 0"])
def test_zero_written_any_way_and_numbers_in_range_are_taken(text):
    r = gradlib.evaluate(text, {"x": [1.0, 2.0]})
    assert r.jacobian.shape == (2, 2)


def test_second_order_refuses_them_too():
    with pytest.raises(gradlib.ExpressionError, match=r"^the number 1e-50 at column 3 is smaller than float32"):
        gradlib.evaluate("x*1e-50", {"x": [1.0]}, order=2)
    with pytest.raises(gradlib.InputError, match=r"^input 'x': x\[0\] is 1e-40, closer to 0 than"):
        gradlib.evaluate("x * x", {"x": [1e-40]}, order=2)


def test_an_input_value_the_computation_would_flush_to_zero_is_refused_with_where():
    """log(1e-40) is -92.1; computed in float32 it was log(0) = -inf, with an infinite gradient."""
    with pytest.raises(gradlib.InputError) as caught:
        gradlib.evaluate("log(x)", {"x": [1.0, -1e-40]})
    assert str(caught.value) == (
        "input 'x': x[1] is -1e-40, closer to 0 than 1.2e-38, the smallest number float32 computations keep "
        "(TensorFlow flushes smaller ones to 0): use dtype float64, or rescale the numbers")
    r = gradlib.evaluate("log(x)", {"x": [1.0, 1e-40]}, dtype="float64")
    np.testing.assert_allclose(r.y, [0.0, np.log(1e-40)], rtol=1e-12)
    np.testing.assert_allclose(r.jacobian, np.diag([1.0, 1e40]), rtol=1e-12)


def test_a_float32_input_computed_in_float64_keeps_its_small_value():
    """Another input asks for float64: the computation runs in float64, where 1e-40 (rounded to float32) is kept."""
    r = gradlib.evaluate("x * y", {"x": [1e-40], "y": [2.0]}, dtype={"x": "float32", "y": "float64"})
    np.testing.assert_allclose(r.y, [2 * float(np.float32(1e-40))], rtol=1e-12)
    assert gradlib.evaluate("x * 2", {"x": [0.0, -0.0]}).jacobian.tolist() == [[2.0, 0.0], [0.0, 2.0]]


def test_a_number_without_a_position_in_a_rewritten_tree_is_refused_too():
    """gradlib rewrites trees (where()'s guard): a number it adds has no position, and must not raise AttributeError."""
    import ast

    from gradlib._language._syntax import _check_numbers

    tree = ast.parse("x * 2", mode="eval").body
    tree.right = ast.Constant(1e-50)
    with pytest.raises(gradlib.ExpressionError, match=r"^the number 1e-50 at column 1 is smaller than float32"):
        _check_numbers("x * 2", tree, "float32")
