"""Inputs, watch, dtype and method: every kind of bad value is refused with a message that says
what is wrong and what to do; NaN and infinity are accepted but flagged."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradlib import ExpressionError, InputError, evaluate
from gradlib._language._inputs import check_inputs

BAD_INPUTS = [
    # (inputs, pattern)
    ({"x": [[1.0, 2.0], [3.0]]}, r"input 'x' is ragged: input 'x'\[1\] has 1 elements but other lists at that depth have 2"),
    ({"x": [[1.0, 2.0], 3.0]}, r"input 'x'\[1\] is a number where a list was expected: the list is ragged"),
    ({"x": [1.0, [2.0]]}, r"input 'x'\[1\] is a list where a number was expected: the list is ragged"),
    ({"x": "3.0"}, r"input 'x' must be a number or a \(nested\) list of numbers; got a string \('3\.0'\); write the number without quotes"),
    ({"x": [1.0, "2"]}, r"input 'x'\[1\] is a string \('2'\); write the number without quotes; only numbers are accepted"),
    ({"x": True}, r"input 'x' must be a number .*; got a boolean \(True\); use 1\.0 or 0\.0"),
    ({"x": [1.0, False]}, r"input 'x'\[1\] is a boolean \(False\); use 1\.0 or 0\.0"),
    ({"x": np.bool_(True)}, r"got a boolean"),
    ({"x": None}, r"input 'x' must be a number or a \(nested\) list of numbers; got None \(null\)"),
    ({"x": [None]}, r"input 'x'\[0\] is None \(null\); only numbers are accepted"),
    ({"x": {"a": 1}}, r"input 'x' must be a number or a \(nested\) list of numbers; got a dict"),
    ({"x": 1 + 2j}, r"got a complex"),
    ({"x": []}, r"input 'x' is an empty list; every list needs at least one number"),
    ({"x": [[1.0], []]}, r"input 'x'\[1\] is an empty list"),
    ({"x": [[[[[1.0]]]]]}, r"input 'x' is nested 5 deep; at most 4 dimensions are allowed"),
    ({"x": [10**400]}, r"input 'x' holds a whole number too large for floating point"),
    ({"x": 10**400}, r"input 'x' holds a whole number too large for floating point"),
    ({"x": np.array([True, False])}, r"input 'x' has dtype bool; only real numbers are accepted"),
    ({"x": np.array([1 + 1j])}, r"input 'x' has dtype complex128; only real numbers are accepted"),
    ({"x": np.array(["1"])}, r"input 'x' has dtype <U1; only real numbers are accepted"),
    ({"x": np.array([1.0, None], dtype=object)}, r"input 'x' has dtype object"),
    ({"x": np.zeros((0, 3))}, r"input 'x' is empty; give it at least one number"),
    ({"x": np.zeros((1, 1, 1, 1, 1))}, r"input 'x' has 5 dimensions; at most 4 are allowed"),
    # names
    ({"1x": 1.0}, r"input name '1x' is not a valid name: use letters, digits and _, starting with a letter \(like 'x0'\)"),
    ({"x y": 1.0}, r"input name 'x y' is not a valid name"),
    ({"x-1": 1.0}, r"input name 'x-1' is not a valid name"),
    ({"": 1.0}, r"input name '' is not a valid name"),
    ({"lambda": 1.0}, r"input name 'lambda' is not a valid name"),
    ({"None": 1.0}, r"input name 'None' is not a valid name"),
    ({"\uff58": 1.0}, r"input name '\uff58' is not a valid name"),
    ({"x\u0430": 1.0}, r"is not a valid name"),   # Cyrillic a
    ({"_x": 1.0}, r"input name '_x' starts with '_': names must start with a letter"),
    ({"__class__": 1.0}, r"input name '__class__' starts with '_'"),
    ({"sin": 1.0}, r"input name 'sin' is the name of a function; choose another name"),
    ({"sum": 1.0}, r"input name 'sum' is the name of a function"),
    ({"axis": 1.0}, r"input name 'axis' is the name of a function"),
    ({"x" * 33: 1.0}, r"is longer than 32 characters"),
    ({1: 1.0}, r"input names must be strings; got 1"),
    ({("x",): 1.0}, r"input names must be strings; got \('x',\)"),
    # the mapping itself
    ({}, r"inputs is empty: define at least one input, like \{'x': \[1\.0, 2\.0\]\}"),
    ({f"x{k}": 1.0 for k in range(17)}, r"too many inputs \(17\); at most 16 are allowed"),
]
#: the cases before this index are bad values; from here on, bad names and a bad mapping
FIRST_NAME_CASE = next(k for k, (inputs, _) in enumerate(BAD_INPUTS) if "1x" in inputs)


@pytest.mark.parametrize("k, inputs, pattern", [(k, *case) for k, case in enumerate(BAD_INPUTS)],
                         ids=[p.split(";")[0][:40] for _, p in BAD_INPUTS])
def test_bad_inputs_are_refused(k, inputs, pattern):
    with pytest.raises(ExpressionError, match=pattern) as info:
        evaluate("1.0", inputs)
    assert info.value.column is None
    # a bad value is an InputError (still an ExpressionError); a bad name or mapping is not
    assert isinstance(info.value, InputError) == (k < FIRST_NAME_CASE)


@pytest.mark.parametrize("inputs", [[("x", 1.0)], "x=1", None, 3.0])
def test_inputs_must_be_a_mapping(inputs):
    with pytest.raises(ExpressionError, match=r"inputs must be a mapping of name -> value, like \{'x': \[1\.0, 2\.0\]\}; got"):
        evaluate("x", inputs)


@pytest.mark.parametrize(
    "watch, pattern",
    [
        ("x", r"watch must be a list of input names, like \['x'\]; got 'x'"),
        ({"x": 1}, r"watch must be a list of input names"),
        (3, r"watch must be a list of input names; ?|watch must be a list of input names, like \['x'\]; got 3"),
        (["z"], r"watch names 'z', which is not an input; inputs are x, y"),
        ([1], r"watch names 1, which is not an input"),
        ([["x"]], r"watch names \['x'\], which is not an input"),
        ([], r"watch is empty: watch at least one input, or pass watch=None to watch them all"),
    ],
)
def test_bad_watch_is_refused(watch, pattern):
    with pytest.raises(ExpressionError, match=pattern):
        evaluate("x * y", {"x": 1.0, "y": 2.0}, watch=watch)


@pytest.mark.parametrize(
    "dtype, pattern",
    [
        ("float16", r"dtype must be one of float32, float64; got 'float16'\. To watch an integer tensor, pass a mapping"),
        ("int32", r"dtype must be one of float32, float64; got 'int32'"),
        ("", r"dtype must be one of float32, float64; got ''"),
        (None, r"dtype must be a string or a mapping of input name -> dtype; got None"),
        (np.float32, r"dtype must be a string or a mapping"),
        ({"z": "float32"}, r"dtype names 'z', which is not an input; inputs are x, y"),
        ({"x": "complex64"}, r"dtype of 'x' must be one of float32, float64, int32, int64; got 'complex64'"),
        ({"x": ["float32"]}, r"dtype of 'x' must be one of"),
    ],
)
def test_bad_dtype_is_refused(dtype, pattern):
    with pytest.raises(ExpressionError, match=pattern):
        evaluate("x * y", {"x": 1.0, "y": 2.0}, dtype=dtype)


@pytest.mark.parametrize("method", ["Auto", "jacfwd", "", None, 3, "unstack "])
def test_bad_method_is_refused(method):
    with pytest.raises(ExpressionError, match=r"evaluate got method=.*; choose one of unstack, jacobian, forward, naive, summed, auto"):
        evaluate("x", {"x": 1.0}, method=method)


def test_nan_and_inf_are_accepted_but_flagged():
    r = evaluate("x * 2", {"x": [1.0, math.nan, math.inf]}, method="jacobian")
    assert np.isnan(r.y[1]) and np.isinf(r.y[2]) and r.y[0] == 2.0
    assert any("input 'x' holds NaN or infinite values (x[1], x[2])" in w for w in r.warnings)


def test_integer_dtype_reproduces_the_integer_watch_pitfall():
    r = evaluate("n * x", {"n": 3, "x": 2.0}, dtype={"n": "int32"})
    np.testing.assert_array_equal(r.jacobian, [[0.0, 3.0]])   # TensorFlow gives the int input no gradient
    assert any("'n' is int32" in w and "None (shown as 0)" in w for w in r.warnings)


def test_unused_watched_input_is_warned_about():
    r = evaluate("x * 2", {"x": 1.0, "y": 5.0})
    np.testing.assert_array_equal(r.jacobian, [[2.0, 0.0]])
    assert any("'y' do not appear in the function" in w for w in r.warnings)


def test_valid_inputs_keep_shape_order_and_types():
    checked = check_inputs({"s": 3, "v": (1, 2), "W": np.arange(6, dtype=np.int64).reshape(2, 3)}, watch=["v"])
    assert [(i.name, i.shape, i.dtype, i.watched) for i in checked] == [
        ("s", (), "float32", False), ("v", (2,), "float32", True), ("W", (2, 3), "float32", False)]
    assert all(i.value.dtype == np.float64 for i in checked)
    np.testing.assert_array_equal(checked[2].value, [[0, 1, 2], [3, 4, 5]])


def test_numpy_scalars_and_tuples_are_numbers():
    r = evaluate("x * y", {"x": np.float32(2.0), "y": (np.int64(3), 4)}, method="jacobian")
    np.testing.assert_allclose(r.y, [6.0, 8.0])


# ---------------------------------------------------------------- numbers a dtype would change are refused

@pytest.mark.parametrize("value, dtype, pattern", [
    (3.7, "int32", r"input 'n' is int32, but n is 3\.7: not a whole number\. An integer input takes whole numbers, "
                   r"and gradlib never rounds or casts a number for you: write a whole number, or make 'n' float32"),
    ([1.0, 1.5], "int64", r"input 'n' is int64, but n\[1\] is 1\.5: not a whole number"),
    (1e10, "int32", r"input 'n' is int32, but n is 10000000000: outside int32's range "
                    r"\(-2,147,483,648 to 2,147,483,647\)"),
    (-2**31 - 1, "int32", r"n is -2147483649: outside int32's range"),
    (math.nan, "int32", r"input 'n' is int32, but n is nan: not finite"),
    ([[1.0], [math.inf]], "int32", r"n\[1,0\] is inf: not finite"),
    (2.0**60, "int64", r"n is 1\.152921504606847e\+18: beyond ±2\*\*53, where gradlib cannot hold every whole number"),
])
def test_an_integer_input_that_a_cast_would_change_is_refused(value, dtype, pattern):
    with pytest.raises(InputError, match=pattern):
        evaluate("n * x", {"n": value, "x": 2.0}, dtype={"n": dtype})


def test_whole_numbers_at_the_edges_of_int32_are_kept_exactly():
    r = evaluate("n * x", {"n": [-2**31, 2**31 - 1, 3], "x": 2.0}, dtype={"n": "int32", "x": "float64"},
                 method="jacobian")
    np.testing.assert_array_equal(r.y, [-2.0**32, 2.0**32 - 2, 6.0])


def test_a_float32_input_outside_float32s_range_is_refused_after_the_cast():
    with pytest.raises(ExpressionError, match=r"input 'x' is float32, but x\[1\] is 1e\+300 \(and 1 more value\(s\)\), "
                                              r"outside float32's range \(about ±3\.4e38\): as float32 it would become "
                                              r"infinite\. Use dtype float64 for 'x', or smaller numbers"):
        evaluate("x * 2", {"x": [1.0, 1e300, -1e39]})
    r = evaluate("x * 2", {"x": [1.0, 1e300]}, dtype="float64")   # float64 holds it
    assert r.y.tolist() == [2.0, 2e300]
    assert np.isinf(evaluate("x * 2", {"x": [math.inf]}).y).all()   # an infinity the user typed stays allowed


def test_mixed_float_dtypes_are_said_and_the_float32_input_is_held_as_float32():
    r = evaluate("x0 * x1", {"x0": 0.1, "x1": 0.1}, dtype={"x0": "float64"}, method="jacobian")
    assert r.dtype == "float64"
    assert ("input 'x1' is float32, but 'x0' is float64: TensorFlow computes in one dtype, so the float32 values "
            "(rounded to float32) are cast to float64") in r.warnings[0]
    x1 = float(np.float32(0.1))
    assert r.y.tolist() == 0.1 * x1 and r.jacobian.tolist() == [[x1, 0.1]]
    assert evaluate("x0 * x1", {"x0": 0.1, "x1": 0.1}).warnings == ()   # one dtype: nothing to say
