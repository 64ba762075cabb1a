"""The function language against NumPy: each case is written twice, as gradlib text and by hand in
NumPy, and the values must agree; then every kind of bad text gets an ExpressionError that says what,
where (the column) and what to do."""

from __future__ import annotations

import numpy as np
import pytest

from gradlib import ExpressionError, evaluate

A = np.array([1.0, 2.0, 3.0])
V = np.array([0.5, -1.5])
M = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
N = np.array([[1.0, -1.0], [0.5, 2.0], [-3.0, 1.0]])
C = np.array([[10.0], [20.0]])
T = np.arange(24.0).reshape(2, 3, 4) / 10.0
P = np.array([0.25, 0.5, 2.0])
S = 2.5
W = np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]])
U = np.array([0.2, -0.9, 1.4])
Q = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])        # rows are probabilities
ENV = {"a": A, "v": V, "M": M, "N": N, "C": C, "T": T, "p": P, "s": S, "W": W, "x": U, "q": Q}


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _logsumexp(z, axis=None):
    top = np.max(z, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(z - top), axis=axis, keepdims=True)) + top
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def _log_softmax(z, axis=-1):
    return z - np.expand_dims(_logsumexp(z, axis), axis)


def _softmax(z, axis=-1):
    return np.exp(_log_softmax(z, axis))


CASES = {
    # broadcasting of elementwise operators
    "a + s": lambda: A + S,
    "M * a": lambda: M * A,
    "M - C": lambda: M - C,
    "C / a": lambda: C / A,
    "[[1.0], [2.0]] + a": lambda: np.array([[1.0], [2.0]]) + A,
    "T * a[0] + M[1, 2] - T": lambda: T * A[0] + M[1, 2] - T,
    "T + M[0, 0:1]": lambda: T + M[0, 0:1],
    "T - [[[1.0]], [[2.0]]]": lambda: T - np.array([[[1.0]], [[2.0]]]),
    # operators, unary and precedence
    "-a": lambda: -A,
    "+a": lambda: +A,
    "-a ** 2": lambda: -(A**2),
    "-2 ** 2": lambda: -(2.0**2),
    "2 ** -1": lambda: 2.0**-1,
    "a ** 2": lambda: A**2,
    "2 ** a": lambda: 2.0**A,
    "p ** p": lambda: P**P,
    "a ** 2 ** 0.5": lambda: A ** (2**0.5),
    "a - a * 2 / 4": lambda: A - A * 2 / 4,
    "(a - s) * (a + s)": lambda: (A - S) * (A + S),
    "- - a": lambda: A,
    # @, matmul and dot, as NumPy
    "a @ a": lambda: A @ A,
    "M @ a": lambda: M @ A,
    "v @ M": lambda: V @ M,
    "M @ N": lambda: M @ N,
    "N @ v": lambda: N @ V,
    "T @ [p[0], p[1], p[2], s]": lambda: T @ np.array([P[0], P[1], P[2], S]),
    "p @ T[0, :, :]": lambda: P @ T[0],
    "T @ [[1.0], [2.0], [0.0], [1.0]]": lambda: T @ np.array([[1.0], [2.0], [0.0], [1.0]]),
    "matmul(M, N)": lambda: np.matmul(M, N),
    "matmul(a, N)": lambda: np.matmul(A, N),
    "dot(a, p)": lambda: np.dot(A, P),
    "dot(M, a)": lambda: np.dot(M, A),
    "dot(v, M)": lambda: np.dot(V, M),
    "dot(M, N)": lambda: np.dot(M, N),
    "dot(s, a)": lambda: np.dot(S, A),
    "dot(a, s)": lambda: np.dot(A, S),
    # reductions
    "sum(M)": lambda: np.sum(M),
    "sum(M, axis=0)": lambda: np.sum(M, axis=0),
    "sum(M, 1)": lambda: np.sum(M, axis=1),
    "sum(M, axis=-1)": lambda: np.sum(M, axis=-1),
    "sum(T, axis=-2)": lambda: np.sum(T, axis=-2),
    "mean(M)": lambda: np.mean(M),
    "mean(T, axis=1)": lambda: np.mean(T, axis=1),
    "mean(M, axis=-2)": lambda: np.mean(M, axis=-2),
    "prod(a)": lambda: np.prod(A),
    "prod(M, axis=1)": lambda: np.prod(M, axis=1),
    "prod(M, axis=-1)": lambda: np.prod(M, axis=-1),
    "sum(s)": lambda: np.sum(S),
    # maximum / minimum, elementwise with broadcasting
    "maximum(a, 2)": lambda: np.maximum(A, 2),
    "minimum(M, a)": lambda: np.minimum(M, A),
    "maximum(C, M)": lambda: np.maximum(C, M),
    # indexing and slicing
    "a[0]": lambda: A[0],
    "a[-1]": lambda: A[-1],
    "M[1, 2]": lambda: M[1, 2],
    "M[-1, -3]": lambda: M[-1, -3],
    "M[1]": lambda: M[1],
    "M[0][2]": lambda: M[0][2],
    "M[:, 1]": lambda: M[:, 1],
    "M[:, -1]": lambda: M[:, -1],
    "a[1:3]": lambda: A[1:3],
    "a[::2]": lambda: A[::2],
    "a[-2:]": lambda: A[-2:],
    "a[:100]": lambda: A[:100],
    "T[1, ::2, 1:]": lambda: T[1, ::2, 1:],
    "T[:, 1:3:1, -1]": lambda: T[:, 1:3:1, -1],
    "T[0, 1]": lambda: T[0, 1],
    # list literals stack, nested lists give higher rank
    "[a[0], a[1] * s]": lambda: np.array([A[0], A[1] * S]),
    "[[a[0], a[1]], [a[2], s]]": lambda: np.array([[A[0], A[1]], [A[2], S]]),
    "[M, M * 2]": lambda: np.stack([M, M * 2]),
    "[[s]]": lambda: np.array([[S]]),
    "[[[1, 2]], [[3, s]]]": lambda: np.array([[[1.0, 2.0]], [[3.0, S]]]),
    "[a, p, a * p]": lambda: np.stack([A, P, A * P]),
    # the functions
    "sin(a)": lambda: np.sin(A),
    "cos(M)": lambda: np.cos(M),
    "tan(v)": lambda: np.tan(V),
    "exp(a)": lambda: np.exp(A),
    "log(a)": lambda: np.log(A),
    "sqrt(p)": lambda: np.sqrt(P),
    "tanh(v)": lambda: np.tanh(V),
    "sigmoid(M - 3)": lambda: _sigmoid(M - 3),
    "relu(v)": lambda: np.maximum(V, 0),
    "abs(v)": lambda: np.abs(V),
    "square(a)": lambda: np.square(A),
    "softplus(v)": lambda: np.log1p(np.exp(V)),
    "sum(exp(M) * a, axis=-1) / mean(a)": lambda: np.sum(np.exp(M) * A, axis=-1) / np.mean(A),
    # the functions added as rows of the operations table (tests/language/test_operations.py has their gradients)
    "softmax(x)": lambda: _softmax(U),
    "softmax(W)": lambda: _softmax(W),
    "softmax(W, axis=0)": lambda: _softmax(W, 0),
    "softmax(T, 1)": lambda: _softmax(T, 1),
    "log_softmax(W)": lambda: _log_softmax(W),
    "log_softmax(W, axis=-2)": lambda: _log_softmax(W, 0),
    "logsumexp(W)": lambda: _logsumexp(W),
    "logsumexp(W, axis=1)": lambda: _logsumexp(W, 1),
    "logsumexp(1000 * x)": lambda: 1000 * 1.4,     # no overflow: the maximum is taken out first
    "max(W)": lambda: np.max(W),
    "max(W, axis=0)": lambda: np.max(W, axis=0),
    "max(T, -1)": lambda: np.max(T, axis=-1),
    "min(x)": lambda: np.min(U),
    "min(W, axis=1)": lambda: np.min(W, axis=1),
    "transpose(W)": lambda: W.T,
    "transpose(x)": lambda: U,
    "transpose(T)": lambda: np.transpose(T),
    "transpose(T, [0, 2, 1])": lambda: np.transpose(T, (0, 2, 1)),
    "transpose(T, [1, 0, 2]) * 2": lambda: np.transpose(T, (1, 0, 2)) * 2,
    "reshape(W, [3, 2])": lambda: W.reshape(3, 2),
    "reshape(W, [-1])": lambda: W.reshape(-1),
    "reshape(T, [4, -1, 2])": lambda: T.reshape(4, -1, 2),
    "reshape(x[0], [1, 1])": lambda: np.reshape(U[0], (1, 1)),
    "reshape(W, [1, 6])[0, 2:]": lambda: W.reshape(1, 6)[0, 2:],
    "concat([W, q])": lambda: np.concatenate([W, Q]),
    "concat([W, q, W], axis=1)": lambda: np.concatenate([W, Q, W], axis=1),
    "concat([x, x[0:2]])": lambda: np.concatenate([U, U[:2]]),
    "concat([T, T[:, 0:1]], axis=-2)": lambda: np.concatenate([T, T[:, :1]], axis=-2),
    "clip(x, -0.5, 0.5)": lambda: np.clip(U, -0.5, 0.5),
    "clip(W, x, 1)": lambda: np.clip(W, U, 1),
    "clip(x[0], -1, W)": lambda: np.clip(U[0], -1, W),
    "cross_entropy(q, W)": lambda: -np.sum(Q * _log_softmax(W), axis=-1),
    "cross_entropy(q, W, axis=0)": lambda: -np.sum(Q * _log_softmax(W, 0), axis=0),
    "cross_entropy(q[1], x)": lambda: -np.sum(Q[1] * _log_softmax(U)),
    "cross_entropy(softmax(W), W) - sum(-softmax(W) * log(softmax(W)), axis=1)": lambda: np.zeros(2),
}


@pytest.mark.parametrize("text", list(CASES))
def test_value_matches_numpy(text):
    expected = np.asarray(CASES[text](), dtype=np.float64)
    r = evaluate(text, ENV, method="summed", dtype="float64")
    assert r.y.shape == expected.shape, f"{text}: shape {r.y.shape} != NumPy's {expected.shape}"
    np.testing.assert_allclose(r.y, expected, rtol=1e-12, atol=1e-12)


def test_jacobian_shape_is_outputs_by_watched_elements():
    r = evaluate("M @ N", ENV, watch=["M", "N"], method="jacobian", dtype="float64")
    assert r.jacobian.shape == (4, 6 + 6)
    assert r.row_labels == ("y[0,0]", "y[0,1]", "y[1,0]", "y[1,1]")
    assert r.col_labels[:3] == ("M[0,0]", "M[0,1]", "M[0,2]") and r.col_labels[-1] == "N[2,1]"
    # d (M @ N)[i, j] / d M[i, k] = N[k, j]
    np.testing.assert_allclose(r.gradients()["M"][0, 1, 0, :], N[:, 1])
    np.testing.assert_allclose(r.gradients()["M"][0, 1, 1, :], 0.0)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a[-1]", [[0.0, 0.0, 1.0]]),
        ("a[::2]", [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
        ("a[1:]", [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        ("prod(a)", [[6.0, 3.0, 2.0]]),
        ("maximum(a, 2.5)", [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
        ("minimum(a, 1.5)", [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
        ("dot(a, a)", [[2.0, 4.0, 6.0]]),
    ],
)
def test_jacobian_of_indexing_and_reductions(text, expected):
    r = evaluate(text, {"a": A}, method="unstack", dtype="float64")
    np.testing.assert_allclose(r.jacobian, expected, atol=1e-15)


def test_newlines_and_tabs_are_spaces():
    r = evaluate("[a[0],\n\ta[1]]", {"a": A}, method="summed")
    np.testing.assert_allclose(r.y, [1.0, 2.0])


@pytest.mark.parametrize("text", [" a[0] * 2", "\ta[0] * 2\n", "\n  a[0] * 2  \r\n", "  a[0]\n    * 2"])
def test_surrounding_whitespace_is_stripped_not_an_unexpected_indent(text):
    r = evaluate(text, {"a": A}, method="unstack")
    np.testing.assert_allclose(r.jacobian, [[2.0, 0.0, 0.0]])


def test_columns_count_from_the_stripped_text():
    with pytest.raises(ExpressionError, match=r"unknown name 'b'.*\(column 8\)\n    a\[0\] \+ b\n           \^$"):
        evaluate("   a[0] + b", {"a": A})


def test_huge_constants_become_infinity_not_big_integers():
    r = evaluate("x * 1e999 + 9" + "9" * 400, {"x": 1.0}, method="summed", dtype="float64")
    assert np.isinf(r.y)


# ---------------------------------------------------------------- bad text: what, where, what to do

X = {"x0": 1.0, "x1": 2.0, "M": M, "a": A}

ERRORS = [
    # (text, pattern the message must match, column or None)
    ("x00 + x1", r"unknown name 'x00' \(did you mean 'x0'\?\)\. Inputs are: x0, x1, M, a", 1),
    ("x0 + zzz", r"unknown name 'zzz'\. Inputs are: x0, x1, M, a\. Define it as an input or fix the spelling", 6),
    ("sine(x0)", r"unknown function 'sine'; did you mean 'sin'\?", 1),
    ("qqq(x0)", r"unknown function 'qqq'; functions are abs, acos, asin, atan, atan2, clip, concat, cos, cosh, "
                r"cross_entropy, cumsum, dot, elu, erf, exp, expm1, floor", 1),
    ("x0 * sin", r"'sin' is a function: call it, like sin\(x\)", 6),
    ("sin(x0, x1)", r"sin\(\) takes exactly one argument, like sin\(x\)", 1),
    ("exp()", r"exp\(\) takes exactly one argument", 1),
    ("maximum(x0)", r"maximum\(\) takes exactly two arguments, like maximum\(a, b\)", 1),
    ("dot(a, a, a)", r"dot\(\) takes exactly two arguments", 1),
    ("sum()", r"sum\(\) takes a tensor and an optional axis, like sum\(x\) or sum\(x, axis=0\)", 1),
    ("sum(M, 0, 1)", r"sum\(\) takes a tensor and an optional axis", 1),
    ("sin(x0, axis=0)", r"sin\(\) takes no keyword arguments", 1),
    ("sum(M, axis=2)", r"axis 2 is out of range for a value of shape \(2, 3\)", 13),
    ("sum(M, axis=-3)", r"axis -3 is out of range for a value of shape \(2, 3\)", 13),
    ("sum(x0, axis=0)", r"axis 0 is out of range for a value of shape \(\)", 14),
    ("mean(M, axis=1.5)", r"axis must be a whole number written out, like axis=0", 14),
    ("prod(M, axis=x0)", r"axis must be a whole number written out", 14),
    ("a + [1.0, 2.0]", r"shapes \(3,\) and \(2,\) cannot be broadcast together for '\+'", 1),
    ("M * [1.0, 2.0]", r"shapes \(2, 3\) and \(2,\) cannot be broadcast together for '\*'", 1),
    ("maximum(M, [1.0, 2.0])", r"shapes \(2, 3\) and \(2,\) cannot be broadcast together for 'maximum'", 1),
    ("M @ M", r"@ cannot multiply shapes \(2, 3\) and \(2, 3\): 3 != 2", 1),
    ("matmul(a, M)", r"matmul cannot multiply shapes \(3,\) and \(2, 3\): 3 != 2", 1),
    ("x0 @ a", r"@ needs vectors or matrices, not scalars", 1),
    ("[a, M]", r"list elements must all have the same shape to be stacked: element 1 has shape \(2, 3\)", 5),
    ("[]", r"an empty list \[\] has no value", 1),
    ("(x0, x1)", r"tuples \(a, b\) are not values; use \[a, b\] to stack", 1),
    ("a[3]", r"index 3 is out of range for a dimension of size 3", 3),
    ("a[-4]", r"index -4 is out of range for a dimension of size 3", 3),
    ("M[0, 3]", r"index 3 is out of range for a dimension of size 3", 6),
    ("a[0, 0]", r"too many indices \(2\) for a value of shape \(3,\)", 1),
    ("x0[0]", r"too many indices \(1\) for a value of shape \(\)", 1),
    ("a[5:9]", r"this slice selects no elements from a dimension of size 3", 3),
    ("a[::-1]", r"slice steps must be positive", 3),
    ("a[x0]", r"indices must be whole numbers written out, like x\[0\]", 3),
    ("a[1.0]", r"indices must be whole numbers written out", 3),
    ("", r"the function is empty: type an expression such as", None),
    ("   \n ", r"the function is empty", None),
    ("x0 \u2212 x1", r"character '\u2212' \(U\+2212, minus sign\) at column 4 is not allowed; use '-' instead: "
                     r"'x0 - x1'", 4),
    ("x0 \u00d7 x1", r"\(U\+00D7, multiplication sign\) at column 4 is not allowed; use '\*' instead", 4),
    ("\uff58" + "0", r"\(U\+FF58, fullwidth latin small letter x\) at column 1 is not allowed; use 'x' instead: 'x0'", 1),
    ("\uff45xp(x0)", r"'\uff45' \(U\+FF45, fullwidth latin small letter e\) at column 1 is not allowed; use 'e' "
                    r"instead: 'exp\(x0\)'", 1),
    ("x\u0430", r"\(U\+0430, cyrillic small letter a\) at column 2 is not allowed; use 'a' instead: 'xa'", 2),
    ("x0 \u037e x1", r"\(U\+037E, greek question mark\) at column 4 is not allowed; use plain ASCII letters", 4),
    ("\u4e00", r"\(U\+4E00, cjk unified ideograph-4e00\) at column 1 is not allowed; use plain ASCII letters", 1),
    ("x0 + \U0001d465" + "1", r"\(U\+1D465, mathematical italic small x\) at column 6 is not allowed; use 'x'", 6),
    ("x0 +", r"syntax error at column", None),
    ("(x0 + x1", r"syntax error at column", None),
    ("x0 x1", r"syntax error at column", None),
    # a comparison has no gradient: allowed only as where()'s condition, pointed at by its operator
    ("x0 == x1", r"a comparison \('=='\) is true or false and has no gradient: it is allowed only as the condition "
                 r"of where\(\), like where\(x > 0, sqrt\(x\), 0\)", 4),
    ("x0 < x1", r"a comparison \('<'\) is true or false and has no gradient", 4),
    ("x0 = x1", r"'=' \(assignment or comparison\) at column 4 is not part of the language", 4),
    ("x0 % x1", r"operator '%' is not supported; use \+ - \* / \*\* @", 4),
    ("x0 // x1", r"operator '//' is not supported", 4),
    ("~x0", r"operator '~' is not supported; use unary - or \+", 1),
    ("1j * x0", r"1j is not a number; only real numbers are allowed", 1),
    ("x0 if x1 else x0", r"'if \.\.\. else' is not supported", 1),
    ("x0 and x1", r"'and'/'or' are not supported", 1),
    ("sum(M, keepdims=1)", r"'=' \(assignment or comparison\) at column 16", 16),
    # calls of the functions added as rows of the operations table
    ("softmax(x0)", r"softmax\(\) normalizes along an axis, and a scalar has none; give it a vector or more", 1),
    ("log_softmax(M, axis=2)", r"axis 2 is out of range for a value of shape \(2, 3\)", 21),
    ("softmax(M, a)", r"axis must be a whole number written out, like axis=0", 12),
    ("softmax(M, 0, 1)", r"softmax\(\) takes a tensor and an optional axis, like softmax\(x\) or softmax\(x, axis=0\)", 1),
    ("logsumexp(a, axis=1)", r"axis 1 is out of range for a value of shape \(3,\)", 19),
    ("max(M, axis=-3)", r"axis -3 is out of range for a value of shape \(2, 3\)", 13),
    ("min()", r"min\(\) takes a tensor and an optional axis, like min\(x\) or min\(x, axis=0\)", 1),
    ("x0 + transpose(M, [0, 0])", r"perm \[0, 0\] must list each axis of a value of shape \(2, 3\) once, from 0, like \[1, 0\]", 19),
    ("transpose(M, [1, 0, 2])", r"perm \[1, 0, 2\] must list each axis", 14),
    ("transpose(M, [x0, 0])", r"perm must be a list of whole numbers written out, like \[1, 0\]", 15),
    ("transpose(M, axis=0)", r"transpose\(\) takes no keyword arguments", 1),
    ("reshape(M, [4, 2])", r"cannot reshape a value of shape \(2, 3\) \(6 elements\) to \[4, 2\]; the shape must hold the "
                           r"same number of elements", 12),
    ("reshape(M, [4, -1])", r"cannot reshape a value of shape \(2, 3\) \(6 elements\) to \[4, -1\]", 12),
    ("reshape(M, [-1, -1])", r"shape \[-1, -1\] must hold positive whole numbers, and at most one -1", 12),
    ("reshape(M, [0, 6])", r"shape \[0, 6\] must hold positive whole numbers", 12),
    ("reshape(M, [1, 1, 1, 2, 3])", r"shape \[1, 1, 1, 2, 3\] has 5 dimensions; at most 4 are allowed", 12),
    ("reshape(M, 6)", r"shape must be a list of whole numbers written out, like \[2, 3\]", 12),
    ("reshape(M, [2, 3.0])", r"shape must be a list of whole numbers written out", 16),
    ("reshape(M)", r"reshape\(\) takes a tensor and a shape written out, like reshape\(x, \[2, 3\]\)", 1),
    ("concat([M, a])", r"concat\(\) needs shapes that match except along axis 0: element 1 has shape \(3,\) but "
                       r"element 0 has shape \(2, 3\)", 12),
    ("concat([M, M[0:1], M[:, 0:2]])", r"element 2 has shape \(2, 2\) but element 0 has shape \(2, 3\)", 20),
    ("concat([x0, x0])", r"concat\(\) joins values along an axis, and a scalar has none; use \[a, b\] to stack", 9),
    ("concat([a, a], axis=1)", r"axis 1 is out of range for a value of shape \(3,\)", 21),
    ("concat(a)", r"concat\(\) takes a list of values and an optional axis, like concat\(\[a, b\]\)", 8),
    ("concat([])", r"concat\(\) takes a list of values", 8),
    ("clip(a, 0)", r"clip\(\) takes exactly three arguments, like clip\(x, lo, hi\)", 1),
    ("clip(M, [0.0, 1.0], 2)", r"shapes \(2, 3\) and \(2,\) cannot be broadcast together for 'clip'", 1),
    ("cross_entropy(M, a)", r"cross_entropy\(\) needs labels and logits of the same shape; got \(2, 3\) and \(3,\)", 1),
    ("cross_entropy(M)", r"cross_entropy\(\) takes labels, logits and an optional axis, like cross_entropy\(p, z\)", 1),
    ("cross_entropy(x0, x0)", r"cross_entropy\(\) normalizes along an axis, and a scalar has none", 1),
    ("a * softmx(a)", r"unknown function 'softmx'; did you mean 'softmax'\?", 5),
    ("concat([a, a], keepdims=1)", r"'=' \(assignment or comparison\) at column 24 is not part of the language", 24),
]


@pytest.mark.parametrize("text, pattern, column", ERRORS, ids=[e[0] or "<empty>" for e in ERRORS])
def test_bad_text_says_what_where_and_what_to_do(text, pattern, column):
    with pytest.raises(ExpressionError, match=pattern) as info:
        evaluate(text, X)
    if column is not None:
        assert info.value.column == column


def test_syntax_error_column_points_at_the_problem():
    with pytest.raises(ExpressionError, match=r"syntax error at column 4") as info:
        evaluate("x0 x1", X)
    assert info.value.column == 4
    assert str(info.value).endswith("    x0 x1\n       ^")


def test_text_must_be_a_string():
    with pytest.raises(ExpressionError, match=r"the function must be text, like 'x0\*x1'; got int"):
        evaluate(3, X)


def test_expression_error_is_a_value_error():
    with pytest.raises(ValueError):
        evaluate("nope", X)


def test_a_sum_of_forty_terms_is_accepted_and_right():
    # a + b + c + ... nests one tree level per term: 40 terms must stay within the tree-depth limit.
    text = " + ".join(f"{k}*x" for k in range(1, 41))
    result = evaluate(text, {"x": [1.0, 2.0]})
    np.testing.assert_allclose(result.y, np.array([1.0, 2.0]) * sum(range(1, 41)))
    np.testing.assert_allclose(result.jacobian, np.eye(2) * sum(range(1, 41)))
