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
    ({"x": [[[[[[[1.0]]]]]]]}, r"input 'x' is nested 7 deep; at most 4 dimensions are allowed"),   # not "5"
    ({"x": [[[[[]]]]]}, r"input 'x' is nested 5 deep; at most 4 dimensions are allowed"),   # an empty list nests too
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
    with pytest.raises(ExpressionError, match=r"evaluate got method=.*; choose one of unstack, jacobian, forward, structured, naive, summed, auto"):
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


# ----------------------------------------------------------------------------------------------------
# Pins (joined from test_mutants_inputs.py)
# Inputs: each refusal word for word, and what an accepted input holds (`make mutate`: docs/mutation.md).
#
# tests/language/test_inputs.py checks which inputs are refused and matches a part of each message; these pin the whole
# message (what is wrong, where, what to do) and the values, dtypes and flags of the accepted inputs. ``L`` is a
# small limit so that the limits' messages are reached with small inputs.
# ----------------------------------------------------------------------------------------------------


import warnings

import numpy as np
import pytest

from gradlib import ExpressionError, Limits
from gradlib._language._inputs import check_inputs, compute_dtype, nonfinite_warnings, promotion_warnings, to_array

L = Limits(max_inputs=3, max_rank=2, max_elements=6)


@pytest.mark.parametrize("call, message", [
    (dict(inputs=[1]),
     "inputs must be a mapping of name -> value, like {'x': [1.0, 2.0]}; got list"),
    (dict(inputs={}),
     "inputs is empty: define at least one input, like {'x': [1.0, 2.0]}"),
    (dict(inputs={"a": 1, "b": 1, "c": 1, "d": 1}, limits=L),
     'too many inputs (4); at most 3 are allowed'),
    (dict(inputs={3: 1}),
     'input names must be strings; got 3'),
    (dict(inputs={"x y": 1}),
     "input name 'x y' is not a valid name: use letters, digits and _, starting with a letter (like "
     "'x0')"),
    (dict(inputs={"é": 1}),
     "input name 'é' is not a valid name: use letters, digits and _, starting with a letter (like "
     "'x0')"),
    (dict(inputs={"for": 1}),
     "input name 'for' is not a valid name: use letters, digits and _, starting with a letter (like "
     "'x0')"),
    (dict(inputs={"_x": 1}),
     "input name '_x' starts with '_': names must start with a letter"),
    (dict(inputs={"a" * 33: 1}),
     "input name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'... is longer than 32 characters"),
    (dict(inputs={"sin": 1}),
     "input name 'sin' is the name of a function; choose another name"),
    (dict(inputs={"axis": 1}),
     "input name 'axis' is the name of a function; choose another name"),
    (dict(inputs={"x": 1}, dtype="float16"),
     "dtype must be one of float32, float64; got 'float16'. To watch an integer tensor, pass a "
     "mapping such as {'n': 'int32'}"),
    (dict(inputs={"x": 1}, dtype="int32"),
     "dtype must be one of float32, float64; got 'int32'. To watch an integer tensor, pass a mapping "
     "such as {'n': 'int32'}"),
    (dict(inputs={"x": 1}, dtype=3),
     'dtype must be a string or a mapping of input name -> dtype; got 3'),
    (dict(inputs={"x": 1, "z": 2}, dtype={"y": "float64"}),
     "dtype names 'y', which is not an input; inputs are x, z"),
    (dict(inputs={"x": 1}, dtype={"x": "int8"}),
     "dtype of 'x' must be one of float32, float64, int32, int64; got 'int8'"),
    (dict(inputs={"x": 1}, watch="x"),
     "watch must be a list of input names, like ['x']; got 'x'"),
    (dict(inputs={"x": 1}, watch=3),
     "watch must be a list of input names, like ['x']; got 3"),
    (dict(inputs={"x": 1, "z": 2}, watch=["y"]),
     "watch names 'y', which is not an input; inputs are x, z"),
    (dict(inputs={"x": 1}, watch=[1]),
     'watch names 1, which is not an input; inputs are x'),
    (dict(inputs={"x": 1}, watch=[]),
     'watch is empty: watch at least one input, or pass watch=None to watch them all'),
    (dict(inputs={"n": [1, 3.5]}, dtype={"n": "int32"}),
     "input 'n' is int32, but n[1] is 3.5: not a whole number. An integer input takes whole numbers, "
     "and gradlib never rounds or casts a number for you: write a whole number, or make 'n' float32 "
     'or float64'),
    (dict(inputs={"n": [[1, float("nan")]]}, dtype={"n": "int32"}),
     "input 'n' is int32, but n[0,1] is nan: not finite. An integer input takes whole numbers, and "
     "gradlib never rounds or casts a number for you: write a whole number, or make 'n' float32 or "
     'float64'),
    (dict(inputs={"n": 2.0**31}, dtype={"n": "int32"}),
     "input 'n' is int32, but n is 2147483648: outside int32's range (-2,147,483,648 to "
     '2,147,483,647). An integer input takes whole numbers, and gradlib never rounds or casts a '
     "number for you: write a whole number, or make 'n' float32 or float64"),
    (dict(inputs={"n": -2.0**31 - 1}, dtype={"n": "int32"}),
     "input 'n' is int32, but n is -2147483649: outside int32's range (-2,147,483,648 to "
     '2,147,483,647). An integer input takes whole numbers, and gradlib never rounds or casts a '
     "number for you: write a whole number, or make 'n' float32 or float64"),
    (dict(inputs={"n": 2.0**53 + 2}, dtype={"n": "int64"}),
     "input 'n' is int64, but n is 9007199254740994: beyond ±2**53, where gradlib cannot hold every "
     'whole number exactly. An integer input takes whole numbers, and gradlib never rounds or casts '
     "a number for you: write a whole number, or make 'n' float32 or float64"),
    (dict(inputs={"n": -(2.0**53) - 2}, dtype={"n": "int64"}),
     "input 'n' is int64, but n is -9007199254740994: beyond ±2**53, where gradlib cannot hold every "
     'whole number exactly. An integer input takes whole numbers, and gradlib never rounds or casts '
     "a number for you: write a whole number, or make 'n' float32 or float64"),
    (dict(inputs={"x": [1.0, 1e39, -1e40]}, dtype="float32"),
     "input 'x' is float32, but x[1] is 1e+39 (and 1 more value(s)), outside float32's range (about "
     "±3.4e38): as float32 it would become infinite. Use dtype float64 for 'x', or smaller numbers"),
    (dict(inputs={"x": [[1.0], [1e39]]}),
     "input 'x' is float32, but x[1,0] is 1e+39, outside float32's range (about ±3.4e38): as float32 "
     "it would become infinite. Use dtype float64 for 'x', or smaller numbers"),
    (dict(inputs={"x": True}),
     "input 'x' must be a number or a (nested) list of numbers; got a boolean (True); use 1.0 or 0.0"),
    (dict(inputs={"x": "1"}),
     "input 'x' must be a number or a (nested) list of numbers; got a string ('1'); write the number "
     'without quotes'),
    (dict(inputs={"x": None}),
     "input 'x' must be a number or a (nested) list of numbers; got None (null)"),
    (dict(inputs={"x": {"a": 1}}),
     "input 'x' must be a number or a (nested) list of numbers; got a dict"),
    (dict(inputs={"x": [1, True]}),
     "input 'x'[1] is a boolean (True); use 1.0 or 0.0; only numbers are accepted"),
    (dict(inputs={"x": [[1, "a"]]}),
     "input 'x'[0][1] is a string ('a'); write the number without quotes; only numbers are accepted"),
    (dict(inputs={"x": [None]}),
     "input 'x'[0] is None (null); only numbers are accepted"),
    (dict(inputs={"x": [[1, 2], 3]}),
     "input 'x'[1] is a number where a list was expected: the list is ragged"),
    (dict(inputs={"x": [1, [2, 3]]}),
     "input 'x'[1] is a list where a number was expected: the list is ragged"),
    (dict(inputs={"x": [[1, 2], [3]]}),
     "input 'x' is ragged: input 'x'[1] has 1 elements but other lists at that depth have 2"),
    (dict(inputs={"x": [[[1]]]}, limits=L),
     "input 'x' is nested 3 deep; at most 2 dimensions are allowed"),
    (dict(inputs={"x": []}),
     "input 'x' is an empty list; every list needs at least one number"),
    (dict(inputs={"x": [[1], []]}),
     "input 'x'[1] is an empty list; every list needs at least one number"),
    (dict(inputs={"x": [1] * 7}, limits=L),
     "input 'x' has at least 7 elements; at most 6 are allowed"),
    (dict(inputs={"x": [[1] * 4] * 2}, limits=L),
     "input 'x' has at least 8 elements; at most 6 are allowed"),
    (dict(inputs={"x": [10**400]}),
     "input 'x' holds a whole number too large for floating point (over about 1.8e308); use a "
     'smaller number'),
    (dict(inputs={"x": np.array([1j])}),
     "input 'x' has dtype complex128; only real numbers are accepted"),
    (dict(inputs={"x": np.array([True])}),
     "input 'x' has dtype bool; only real numbers are accepted"),
    (dict(inputs={"x": np.zeros((1, 1, 1))}, limits=L),
     "input 'x' has 3 dimensions; at most 2 are allowed"),
    (dict(inputs={"x": np.zeros(7)}, limits=L),
     "input 'x' has 7 elements; at most 6 are allowed"),
    (dict(inputs={"x": np.zeros(0)}),
     "input 'x' is empty; give it at least one number"),
    (dict(inputs={"x": np.array(["a"])}),
     "input 'x' has dtype <U1; only real numbers are accepted"),
    (dict(inputs={"x": [np.bool_(True)]}),
     "input 'x'[0] is a boolean (np.True_); use 1.0 or 0.0; only numbers are accepted"),
    (dict(inputs={"x": "a" * 100}),
     "input 'x' must be a number or a (nested) list of numbers; got a string "
     "('aaaaaaaaaaaaaaaaaaaa'); write the number without quotes"),
])
def test_each_bad_input_is_refused_with_this_message(call, message):
    with pytest.raises(ExpressionError) as info:
        check_inputs(**call)
    assert str(info.value) == message


def test_accepted_inputs_keep_their_order_shape_dtype_and_watch_flag():
    checked = check_inputs({"n": [[1, 2, 3]], "x": (0.5, -2.0), "s": np.float32(2.5)}, watch=["x", "s"],
                           dtype={"n": "int64", "s": "float64"})
    assert [(i.name, i.shape, i.size, i.dtype, i.watched) for i in checked] == [
        ("n", (1, 3), 3, "int64", False), ("x", (2,), 2, "float32", True), ("s", (), 1, "float64", True)]
    assert [i.value.tolist() for i in checked] == [[[1.0, 2.0, 3.0]], [0.5, -2.0], 2.5]
    assert all(i.value.dtype == np.float64 for i in checked)
    assert compute_dtype(checked) == "float64" and compute_dtype(checked[:2]) == "float32"
    assert [i.watched for i in check_inputs({"a": 1, "b": 2})] == [True, True]
    assert [i.dtype for i in check_inputs({"a": 1, "b": 2}, dtype="float64")] == ["float64", "float64"]


def test_float32_inputs_hold_float32_values_and_integer_inputs_their_whole_range():
    [x] = check_inputs({"x": [0.1, 3.0e38, np.inf]})
    assert x.value.tolist() == [float(np.float32(0.1)), float(np.float32(3.0e38)), np.inf]
    [y] = check_inputs({"y": 0.1}, dtype="float64")
    assert y.value.tolist() == 0.1
    bounds = {"a": [-2.0 ** 31, 2.0 ** 31 - 1], "b": [-(2.0 ** 53), 2.0 ** 53]}
    a, b = check_inputs(bounds, dtype={"a": "int32", "b": "int64"})
    assert a.value.tolist() == bounds["a"] and b.value.tolist() == bounds["b"]


def test_the_limits_are_reached_exactly_and_not_before():
    assert len(check_inputs({"a": 1, "b": 1, "c": 1}, limits=L)) == 3
    assert check_inputs({"x": [[1] * 3] * 2}, limits=L)[0].shape == (2, 3)
    assert check_inputs({"x": np.zeros((2, 3))}, limits=L)[0].shape == (2, 3)
    assert check_inputs({"x": [[1, 2]]}, limits=L)[0].shape == (1, 2)
    long = "a" * 32
    assert check_inputs({long: 1})[0].name == long


def test_to_array_turns_numbers_lists_and_arrays_into_float64_arrays():
    assert to_array(3, where="w").tolist() == 3.0 and to_array(3, where="w").shape == ()
    assert to_array([[1, 2], [3, 4]], where="w").tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert to_array(np.arange(3, dtype=np.int32), where="w").dtype == np.float64
    assert to_array(np.arange(3, dtype=np.uint8), where="w").tolist() == [0.0, 1.0, 2.0]


def test_the_warnings_name_the_inputs_and_cells_concerned():
    assert promotion_warnings(check_inputs({"a": 1.0, "b": 2.0, "c": 3.0}, dtype={"a": "float64"})) == (
        "input 'b', 'c' are float32, but 'a' is float64: TensorFlow computes in one dtype, so the float32 values "
        "(rounded to float32) are cast to float64 and everything, gradients included, is float64",)
    assert promotion_warnings(check_inputs({"a": 1.0, "b": 2.0, "c": 3.0}, dtype={"a": "float64", "b": "float64"})) == (
        "input 'c' is float32, but 'a', 'b' are float64: TensorFlow computes in one dtype, so the float32 values "
        "(rounded to float32) are cast to float64 and everything, gradients included, is float64",)
    assert promotion_warnings(check_inputs({"a": 1.0, "n": 2}, dtype={"a": "float64", "n": "int32"})) == ()
    assert promotion_warnings(check_inputs({"a": 1.0, "b": 2.0})) == ()
    nan, inf = float("nan"), float("inf")
    assert nonfinite_warnings(check_inputs({"x": [[1, nan], [inf, -inf], [nan, 2]], "y": 1.0, "z": nan})) == (
        "input 'x' holds NaN or infinite values (x[0,1], x[1,0], x[1,1] and 1 more); results there are not finite",
        "input 'z' holds NaN or infinite values (z); results there are not finite")
    assert nonfinite_warnings(check_inputs({"x": [nan, 1, inf]})) == (
        "input 'x' holds NaN or infinite values (x[0], x[2]); results there are not finite",)


def test_a_bad_whole_number_is_quoted_as_an_integer_below_1e16_and_as_a_float_from_there():
    def message(value):
        with pytest.raises(ExpressionError) as info:
            check_inputs({"n": value}, dtype={"n": "int64"})
        return str(info.value).split(":")[0]

    assert message(1e16) == "input 'n' is int64, but n is 1e+16"
    assert message(9999999999999998.0) == "input 'n' is int64, but n is 9999999999999998"


def test_exactly_three_non_finite_cells_are_all_named_without_and_more():
    nan, inf = float("nan"), float("inf")
    assert nonfinite_warnings(check_inputs({"x": [nan, 1.0, inf, -inf]})) == (
        "input 'x' holds NaN or infinite values (x[0], x[2], x[3]); results there are not finite",)


def test_a_long_name_is_quoted_to_its_first_40_characters():
    name = "a" * 50
    with pytest.raises(ExpressionError) as info:
        check_inputs({name: 1})
    assert str(info.value) == f"input name {'a' * 40!r}... is longer than 32 characters"


def test_a_float32_overflow_is_refused_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ExpressionError, match=r"^input 'x' is float32, but x is 1e\+39, outside float32's range"):
            check_inputs({"x": 1e39})


def test_a_list_with_size_1_dimensions_is_accepted_at_the_size_limit_and_refused_over_it():
    # Found by `make mutate`: the walk also counted the list items at every depth against twice the limit, so
    # [[[[1, 2]]]] (two numbers) was refused as over the limit at max_elements=2.
    two = Limits(max_elements=2)
    assert check_inputs({"x": [[[[1, 2]]]]}, limits=two)[0].shape == (1, 1, 1, 2)
    with pytest.raises(ExpressionError) as info:
        check_inputs({"x": [[[[1, 2, 3]]]]}, limits=two)
    assert str(info.value) == "input 'x' has at least 3 elements; at most 2 are allowed"


def test_a_masked_array_with_masked_values_is_refused_and_one_without_is_its_values():
    # hunt 59: the values under the mask were computed with, silently: x * x of [1, --] (2 under it) gave [1, 4]
    masked = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    with pytest.raises(InputError, match=r"input 'x' is a NumPy masked array with 1 of 2 values masked: it would be "
                                         r"computed with the values under the mask.*Give x\.filled\(value\)"):
        evaluate("x * x", {"x": masked})
    unmasked = evaluate("x * x", {"x": np.ma.masked_array([1.0, 2.0])})
    assert unmasked.jacobian.tolist() == [[2.0, 0.0], [0.0, 4.0]]
