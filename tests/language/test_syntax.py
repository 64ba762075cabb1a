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

#: what every broadcasting refusal adds: what to do
BROADCAST = ": give them the same shape, or size 1 along each axis where they differ (NumPy's broadcasting)"


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


def test_huge_constants_are_refused_not_computed_as_infinity_or_big_integers():
    with pytest.raises(ExpressionError, match=r"^the number 1e999 at column 5 is larger than float64 can hold"):
        evaluate("x * 1e999 + 1", {"x": 1.0}, method="summed", dtype="float64")
    with pytest.raises(ExpressionError, match=r"^the number 999999999999\.\.\. \(401 characters\) at column 5 is "
                                              r"larger than float64 can hold"):
        evaluate("x + 9" + "9" * 400, {"x": 1.0}, method="summed", dtype="float64")


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
    ("a + [1.0, 2.0]", r"shapes \(3,\) and \(2,\) cannot be broadcast together for '\+': give them the same shape", 3),
    ("M * [1.0, 2.0]", r"shapes \(2, 3\) and \(2,\) cannot be broadcast together for '\*'", 3),
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


# ----------------------------------------------------------------------------------------------------
# Pins (joined from test_mutants_language.py)
# The language: each refusal word for word with its column, and the limits to the part (`make mutate`).
#
# tests/language/test_syntax.py checks what the language computes against NumPy and which texts it refuses, matching a
# part of each message; these pin the whole first line of the message and the column it points at, for every
# kind of refusal, and each limit at its boundary (docs/mutation.md).
# ----------------------------------------------------------------------------------------------------


import ast

import pytest

from gradlib import ExpressionError, Limits
from gradlib._language._syntax import parse

SHAPES = {"x": (3,), "W": (2, 3), "s": (), "M": (3, 3)}


def refusal(text, limits: Limits | None = None) -> tuple[str, int | None]:
    with pytest.raises(ExpressionError) as info:
        parse(text, SHAPES, **({"limits": limits} if limits else {}))
    return str(info.value).split("\n")[0], info.value.column


@pytest.mark.parametrize("text, column, message", [
    (5, None,
     "the function must be text, like 'x0*x1'; got int"),
    ('', None,
     'the function is empty: type an expression such as [x0*x1, x0 + x1]'),
    ('   ', None,
     'the function is empty: type an expression such as [x0*x1, x0 + x1]'),
    ('x·W', 2,
     "character '·' (U+00B7, middle dot) at column 2 is not allowed; use '*' instead: 'x*W'"),
    ('x − s', 3,
     "character '−' (U+2212, minus sign) at column 3 is not allowed; use '-' instead: 'x - s'"),
    ('х + s', 1,
     "character 'х' (U+0445, cyrillic small letter ha) at column 1 is not allowed; use 'x' instead: "
     "'x + s'"),
    ('ｘ + s', 1,
     "character 'ｘ' (U+FF58, fullwidth latin small letter x) at column 1 is not allowed; use 'x' "
     "instead: 'x + s'"),
    ('x²', 2,
     "character '²' (U+00B2, superscript two) at column 2 is not allowed; use '**2' instead: 'x**2'"),
    ('x\xa0+ s', 2,
     "character '\\xa0' (U+00A0, no-break space) at column 2 is not allowed; use ' ' instead: 'x + s'"),
    ('x ☃ s', 3,
     "character '☃' (U+2603, snowman) at column 3 is not allowed; use plain ASCII letters and "
     'operators'),
    ('x\x07', 2,
     'control character U+0007 at column 2 is not allowed'),
    ('x; s', 2,
     "';' (more than one statement) at column 2 is not part of the language; write a single "
     'expression such as [x0*x1, x0 + x1]'),
    ('x = s', 3,
     "'=' (assignment or comparison) at column 3 is not part of the language; write a single "
     'expression such as [x0*x1, x0 + x1]'),
    ("'x'", 1,
     'quotes (strings) at column 1 is not part of the language; write a single expression such as '
     '[x0*x1, x0 + x1]'),
    ('x # c', 3,
     "'#' (comments) at column 3 is not part of the language; write a single expression such as "
     '[x0*x1, x0 + x1]'),
    ('{x}', 1,
     "'{' (dicts and sets) at column 1 is not part of the language; write a single expression such "
     'as [x0*x1, x0 + x1]'),
    ('x == s', 3,
     "a comparison ('==') is true or false and has no gradient: it is allowed only as the condition of "
     'where(), like where(x > 0, sqrt(x), 0); for a smooth choice use maximum, minimum or relu (column 3)'),
    ('lambda: x', 1,
     'lambda is not allowed; write the expression itself (column 1)'),
    ('[a for a in x]', 1,
     'comprehensions are not allowed; write the list out, like [x[0], x[1]] (column 1)'),
    ('(a for a in x)', 1,
     'generator expressions are not allowed (column 1)'),
    ('(y := x)', 5,
     "'=' (assignment or comparison) at column 5 is not part of the language; write a single "
     'expression such as [x0*x1, x0 + x1]'),
    ('[*x]', 2,
     "'*' unpacking is not allowed (column 2)"),
    ('x < s', 3,
     "a comparison ('<') is true or false and has no gradient: it is allowed only as the condition of "
     'where(), like where(x > 0, sqrt(x), 0); for a smooth choice use maximum, minimum or relu (column 3)'),
    ('x and s', 1,
     "'and'/'or' are not supported (column 1)"),
    ('x if s else s', 1,
     "'if ... else' is not supported (column 1)"),
    ('x.T', 1,
     "attribute access (a '.' after a value) is not allowed; call functions by name, like exp(x) "
     '(column 1)'),
    ('1j * x', 1,
     '1j is not a number; only real numbers are allowed (column 1)'),
    ('x % s', 3,
     "operator '%' is not supported; use + - * / ** @ (column 3)"),
    ('x // s', 3,
     "operator '//' is not supported; use + - * / ** @ (column 3)"),
    ('(x) % (s)', 5,
     "operator '%' is not supported; use + - * / ** @ (column 5)"),
    ('not x', 1,
     "operator 'not' is not supported; use unary - or + (column 1)"),
    ('~x', 1,
     "operator '~' is not supported; use unary - or + (column 1)"),
    ('_x', 1,
     "names starting with '_' are not allowed ('_x') (column 1)"),
    ('sin(**x)', 1,
     'sin() takes no keyword arguments (column 1)'),
    ('sum(x, axes=0)', 12,
     "'=' (assignment or comparison) at column 12 is not part of the language; write a single "
     'expression such as [x0*x1, x0 + x1]'),
    ('f(x)', 1,
     "unknown function 'f'; functions are abs, acos, asin, atan, atan2, clip, concat, cos, cosh, "
     'cross_entropy, cumsum, dot, elu, erf, exp, expm1, floor, gelu, log, log1p, log_softmax, '
     'logsumexp, matmul, max, maximum, mean, min, minimum, norm, pow, prod, relu, reshape, round, '
     'sigmoid, sign, sin, sinh, softmax, softplus, sqrt, square, stack, sum, tan, tanh, transpose, '
     'where (column 1)'),
    ('sinn(x)', 1,
     "unknown function 'sinn'; did you mean 'sin'? (column 1)"),
    ('x.sum()', 1,
     "attribute access (a '.' after a value) is not allowed; call functions by name, like exp(x) "
     '(column 1)'),
    ('sin(x, axis=0)', 1,
     'sin() takes no keyword arguments (column 1)'),
    ('sin(x, s)', 1,
     'sin() takes exactly one argument, like sin(x) (column 1)'),
    ('sin', 1,
     "'sin' is a function: call it, like sin(x) (column 1)"),
    ('xx + s', 1,
     "unknown name 'xx' (did you mean 'x'?). Inputs are: x, W, s, M. Define it as an input or fix "
     'the spelling (column 1)'),
    ('q + s', 1,
     "unknown name 'q'. Inputs are: x, W, s, M. Define it as an input or fix the spelling (column 1)"),
    ('x @ s', 1,
     '@ needs vectors or matrices, not scalars (shapes (3,) and ()); use * for scaling (column 1)'),
    ('s @ x', 1,
     '@ needs vectors or matrices, not scalars (shapes () and (3,)); use * for scaling (column 1)'),
    ('W @ W', 1,
     '@ cannot multiply shapes (2, 3) and (2, 3): 3 != 2 (column 1)'),
    ('[]', 1,
     'an empty list [] has no value; put at least one element in it (column 1)'),
    ('[x, s]', 5,
     'list elements must all have the same shape to be stacked: element 1 has shape () but element 0 '
     'has shape (3,) (column 5)'),
    ('(x, s)', 1,
     'tuples (a, b) are not values; use [a, b] to stack (column 1)'),
    ('x[0, 1]', 1,
     'too many indices (2) for a value of shape (3,) (column 1)'),
    ('x[::-1]', 3,
     'slice steps must be positive (column 3)'),
    ('x[3:]', 3,
     'this slice selects no elements from a dimension of size 3 (column 3)'),
    ('x[5]', 3,
     'index 5 is out of range for a dimension of size 3 (column 3)'),
    ('x[-4]', 3,
     'index -4 is out of range for a dimension of size 3 (column 3)'),
    ('x[s]', 3,
     'indices must be whole numbers written out, like x[0], W[1, 2] or x[1:3] (column 3)'),
    ('x[0.5]', 3,
     'indices must be whole numbers written out, like x[0], W[1, 2] or x[1:3] (column 3)'),
    ('sum(x, axis=s)', 13,
     'axis must be a whole number written out, like axis=0 (column 13)'),
    ('sum(x, axis=0.5)', 13,
     'axis must be a whole number written out, like axis=0 (column 13)'),
    ('transpose(W, s)', 14,
     'perm must be a list of whole numbers written out, like [1, 0] (column 14)'),
    ('transpose(W, [0.5, 1])', 15,
     'perm must be a list of whole numbers written out, like [1, 0] (column 15)'),
    ('transpose(W, [1, s])', 18,
     'perm must be a list of whole numbers written out, like [1, 0] (column 18)'),
    ('reshape(W, [s])', 13,
     'shape must be a list of whole numbers written out, like [2, 3] (column 13)'),
    ('x[2147483647]', 3,
     'index 2147483647 is out of range for a dimension of size 3 (column 3)'),
    ('x[2147483648]', 3,
     '2147483648 is too large: whole numbers in indices, slices, axis, perm and shape must be smaller than '
     '2,147,483,648 in size (column 3)'),
    ('x[0:-2147483648]', 5,
     '-2147483648 is too large: whole numbers in indices, slices, axis, perm and shape must be smaller than '
     '2,147,483,648 in size (column 5)'),
    ('sum(W, axis=2147483648)', 13,
     '2147483648 is too large: whole numbers in indices, slices, axis, perm and shape must be smaller than '
     '2,147,483,648 in size (column 13)'),
    ('reshape(W, [3, 2147483648])', 16,
     '2147483648 is too large: whole numbers in indices, slices, axis, perm and shape must be smaller than '
     '2,147,483,648 in size (column 16)'),
    ('sum(x, 0, axis=0)', 1,
     'sum() takes a tensor and an optional axis, like sum(x) or sum(x, axis=0) (column 1)'),
    ('s + x[0](s)', 5,
     "only the language's functions can be called, by name, like sin(x) (column 5)"),
    ('s + []', 5,
     'an empty list [] has no value; put at least one element in it (column 5)'),
    ('W + M', 3,   # the caret under the operator
     "shapes (2, 3) and (3, 3) cannot be broadcast together for '+'" + BROADCAST + " (column 3)"),
    # refused characters without a message of their own, or not at the start
    ('"x"', 1,
     'quotes (strings) at column 1 is not part of the language; write a single expression such as '
     '[x0*x1, x0 + x1]'),
    ('x}', 2,
     "'}' (dicts and sets) at column 2 is not part of the language; write a single expression such as "
     '[x0*x1, x0 + x1]'),
    ('x $ s', 3,
     "'$' at column 3 is not part of the language; write a single expression such as [x0*x1, x0 + x1]"),
    ('sum(W, axis==0)', 12,
     "'==' compares; an axis is given with one '=', as in sum(x, axis=0) (column 12)"),
    ('x\ue000', 2,
     "character '\\ue000' (U+E000) at column 2 is not allowed; use plain ASCII letters and operators"),
    ('×', 1,
     "character '×' (U+00D7, multiplication sign) at column 1 is not allowed; use '*' instead"),
    # refusals of a part that does not start the text point at that part
    ('s + maximum(x, W[0, :2])', 5,
     "shapes (3,) and (2,) cannot be broadcast together for 'maximum'" + BROADCAST + " (column 5)"),
    ('s + matmul(x, W)', 5,
     'matmul cannot multiply shapes (3,) and (2, 3): 3 != 2 (column 5)'),
    ('s * (W + M)', 8,
     "shapes (2, 3) and (3, 3) cannot be broadcast together for '+'" + BROADCAST + " (column 8)"),
    ('sum(x, **s)', 8,
     "'**' unpacking is not allowed; the only keyword is axis=, as in sum(x, axis=0) (column 8)"),
    ('sum(x, taxis=0)', 8,
     "keyword 'taxis' is not allowed; the only keyword is axis=, as in sum(x, axis=0) (column 8)"),
    ('s + x @ W', 5,
     '@ cannot multiply shapes (3,) and (2, 3): 3 != 2 (column 5)'),
    ('x + s @ x', 5,
     '@ needs vectors or matrices, not scalars (shapes () and (3,)); use * for scaling (column 5)'),
    ('s + x[0, 1]', 5,
     'too many indices (2) for a value of shape (3,) (column 5)'),
    ('x[::0]', 3,
     'slice steps must be positive (column 3)'),
    ('s + (x, s)', 5,
     'tuples (a, b) are not values; use [a, b] to stack (column 5)'),
    # comparisons: only as where()'s condition, pointed at by their operator (issue 27)
    ('sum(x > 0)', 7,
     "a comparison ('>') is true or false and has no gradient: it is allowed only as the condition of "
     'where(), like where(x > 0, sqrt(x), 0); for a smooth choice use maximum, minimum or relu (column 7)'),
    ('where(x > 0, x >= s, s)', 16,
     "a comparison ('>=') is true or false and has no gradient: it is allowed only as the condition of "
     'where(), like where(x > 0, sqrt(x), 0); for a smooth choice use maximum, minimum or relu (column 16)'),
    ('where((x > 0) <= 0, x, s)', 10,   # the outer one is the condition; the one inside it is not
     "a comparison ('>') is true or false and has no gradient: it is allowed only as the condition of "
     'where(), like where(x > 0, sqrt(x), 0); for a smooth choice use maximum, minimum or relu (column 10)'),
    ('where(x, x, s)', 7,
     "where() takes a comparison as its condition, like where(x > 0, sqrt(x), 0); got 'x' (column 7)"),
    ('where(x > 0 and x < 1, x, s)', 7,
     "where() takes a comparison as its condition, like where(x > 0, sqrt(x), 0); got 'x > 0 and x < 1'; to "
     'combine conditions, nest where(), like where(x > 0, where(x < 1, a, b), b) (column 7)'),
    ('where(0 < x < 1, x, s)', 13,
     "chained comparisons are not supported ('<' then '<'); nest where() instead, like where(x > 0, "
     'where(x < 1, a, b), b) (column 13)'),
    ('where(x is s, x, s)', 9,
     "operator 'is' is not supported; compare with > < >= <= == or != (column 9)"),
    ('where(x > 0, x)', 1,
     'where() takes a comparison and two values, like where(x > 0, sqrt(x), 0) (column 1)'),
    ('where(x > W[0, :2], x, s)', 7,
     "shapes (3,) and (2,) cannot be broadcast together for '>'" + BROADCAST + " (column 7)"),
    ('s + where(x > 0, W[0, :2], s)', 5,
     "shapes (3,) and (2,) cannot be broadcast together for 'where'" + BROADCAST + " (column 5)"),
    ('x =< s', 3,
     "'=' (assignment or comparison) at column 3 is not part of the language; write a single "
     'expression such as [x0*x1, x0 + x1]'),
    ('x ! s', 3,
     "'!' at column 3 is not part of the language; write a single expression such as [x0*x1, x0 + x1]"),
    # stack, cumsum, norm, atan2
    ('stack([x, W[0, :2]])', 11,
     'stack() needs values of the same shape: element 1 has shape (2,) but element 0 has shape (3,) (column 11)'),
    ('stack([x, x], axis=2)', 20,
     'axis 2 is out of range for stacking values of shape (3,): it must be from -2 to 1 (column 20)'),
    ('stack(x)', 7,
     'stack() takes a list of values and an optional axis, like stack([a, b]) or stack([a, b], axis=1) '
     '(column 7)'),
    ('cumsum(s)', 1,
     'cumsum() accumulates along an axis, and a scalar has none; give it a vector or more (column 1)'),
    ('cumsum(x, axis=1)', 16,
     'axis 1 is out of range for a value of shape (3,) (column 16)'),
    ('norm(W, axis=-3)', 14,
     'axis -3 is out of range for a value of shape (2, 3) (column 14)'),
    ('atan2(x)', 1,
     'atan2() takes exactly two arguments, like atan2(y, x) (column 1)'),
])
def test_each_bad_text_is_refused_with_this_message_at_this_column(text, column, message):
    assert refusal(text) == (message, column)


def nodes(text: str) -> int:
    """The parts of a text as the limit counts them: the nodes of its Python syntax tree."""
    return sum(1 for _ in ast.walk(ast.parse(text, mode="eval").body))


def depth(node: ast.AST) -> int:
    return 1 + max((depth(child) for child in ast.iter_child_nodes(node)), default=0)


def test_the_length_limit_counts_characters_and_allows_exactly_the_limit():
    assert refusal("x" * 41, Limits(max_chars=40)) == ("the function is 41 characters long; at most 40 are allowed", None)
    assert parse("x  +  s" + " " * 33, SHAPES, limits=Limits(max_chars=40)).shape == (3,)
    assert refusal("x" * 2_001) == ("the function is 2,001 characters long; at most 2,000 are allowed", None)


def test_the_bracket_nesting_limit_allows_exactly_the_limit_and_names_the_column_beyond():
    assert parse("(((x)))", SHAPES, limits=Limits(max_depth=3)).shape == (3,)
    assert refusal("((((x))))", Limits(max_depth=3)) == (
        "the function nests 4 levels deep; at most 3 are allowed, and level 4 is at column 4; simplify it", 4)
    assert refusal("[[[[x]]]]", Limits(max_depth=3)) == (
        "the function nests 4 levels deep; at most 3 are allowed, and level 4 is at column 4; simplify it", 4)
    # a run of signs nests too (each is an operator applied to the rest)
    assert parse("- - -x", SHAPES, limits=Limits(max_depth=3)).shape == (3,)
    assert refusal("-+-~x", Limits(max_depth=3)) == (
        "the function nests 4 levels deep; at most 3 are allowed, and level 4 is at column 4; simplify it", 4)


def test_the_parts_limit_counts_the_syntax_tree_and_allows_exactly_the_limit():
    text = "x + x * s"
    assert parse(text, SHAPES, limits=Limits(max_nodes=nodes(text))).shape == (3,)
    assert refusal(text, Limits(max_nodes=nodes(text) - 1)) == (
        f"the function has {nodes(text)} parts; at most {nodes(text) - 1} are allowed; simplify it", None)


def test_the_tree_depth_limit_allows_exactly_the_limit_and_points_at_the_first_part_beyond():
    text = "-(-(-x))"
    tree = ast.parse(text, mode="eval").body
    assert parse(text, SHAPES, limits=Limits(max_tree_depth=depth(tree))).shape == (3,)
    message, column = refusal(text, Limits(max_tree_depth=depth(tree) - 1))
    assert message == (f"the function nests {depth(tree)} levels deep; at most {depth(tree) - 1} are allowed, and level "
                       f"{depth(tree)} is at column {column}; simplify it "
                       "(a chain like a + b + c + ... counts one level per term)")
    assert text[column - 1] in "x-"


@pytest.mark.parametrize("text, limits, reached, first", [
    ("((((((x))))))", Limits(max_depth=3), 6, 4),
    ("((((s)))) + ((((((s))))))", Limits(max_depth=3), 6, 4),          # the deepest part is not the first past the limit
    ("-+-+-+-+-x", Limits(max_depth=3), 9, 4),
])
def test_the_nesting_refusal_names_the_depth_the_text_reaches_far_past_the_limit(text, limits, reached, first):
    assert refusal(text, limits) == (f"the function nests {reached} levels deep; at most 3 are allowed, and level 4 is "
                                     f"at column {first}; simplify it", first)


@pytest.mark.parametrize("text", ["x + x * s + x * s - x", "-(-(-(-(-(-x)))))", "[x, x, x, s, s, s]"])
def test_the_parts_and_tree_depth_refusals_name_the_whole_trees_count_far_past_the_limit(text):
    tree = ast.parse(text, mode="eval").body
    assert refusal(text, Limits(max_nodes=3))[0] == (f"the function has {nodes(text)} parts; at most 3 are allowed; "
                                                     "simplify it")
    message, column = refusal(text, Limits(max_tree_depth=2))
    assert message.startswith(f"the function nests {depth(tree)} levels deep; at most 2 are allowed, and level 3 is "
                              f"at column {column}; ")


def test_the_elements_and_work_limits_refuse_the_part_that_exceeds_them():
    assert parse("W * x", SHAPES, limits=Limits(max_elements=6)).shape == (2, 3)
    assert refusal("W * x", Limits(max_elements=5)) == ("this part would hold 6 elements; at most 5 are allowed (column 1)", 1)
    flops = parse("M @ M", SHAPES).flops
    assert parse("M @ M", SHAPES, limits=Limits(max_flops=flops)).shape == (3, 3)
    assert refusal("M @ M", Limits(max_flops=flops - 1)) == (
        f"the function needs too much computation for one request: at least {flops:,.0f} floating-point operations, "
        f"and at most {flops - 1:,.0f} are allowed; use smaller inputs (column 1)", 1)


def test_a_syntax_error_names_the_column_and_pythons_reason_without_its_detail():
    message, column = refusal("x +* s")
    assert message.startswith("syntax error at column ") and column == int(message.split()[4].rstrip(":"))
    assert " (" not in message
    assert refusal("(x") == ("syntax error at column 1: '(' was never closed", 1)


STACKS = {"s": (), "x": (3,), "W": (2, 3), "M": (3, 3), "A": (2, 3, 4), "B": (2, 4, 5), "C": (3, 4, 5)}


def test_stacks_of_matrices_multiply_batch_by_batch_and_count_their_work():
    # 2 * batch * rows * inner * columns = 2 * 2 * 3 * 4 * 5 = 240, beside the parts' own sizes 24 + 40 + 30
    program = parse("A @ B", STACKS)
    assert program.shape == (2, 3, 5)
    assert program.flops == 24 + 40 + 30 + 240
    # a vector on the left is one row: 2 * 1 * 3 * 3 = 18, beside 3 + 9 + 3
    assert parse("x @ M", STACKS).flops == 3 + 9 + 3 + 18


def test_stacks_of_matrices_are_refused_with_their_own_sizes_and_column():
    with pytest.raises(ExpressionError) as info:
        parse("A @ W", STACKS)
    assert str(info.value).split("\n")[0] == "@ cannot multiply shapes (2, 3, 4) and (2, 3): 4 != 2 (column 1)"
    with pytest.raises(ExpressionError) as info:
        parse("s + A @ C", STACKS)
    assert str(info.value).split("\n")[0] == (
        "shapes (2,) and (3,) cannot be broadcast together for '@'" + BROADCAST + " (column 7)")
    assert info.value.column == 7


def test_axis_may_have_spaces_around_its_equals_sign():
    assert parse("sum(W, axis = 0)", SHAPES).shape == (3,)


def test_a_look_alike_names_the_whole_text_retyped_up_to_80_characters():
    typed = "x" + "+x" * 39 + "·"          # 80 characters
    assert refusal(typed)[0].endswith(f"use '*' instead: {typed.replace('·', '*')!r}")
    assert refusal(typed + "x")[0].endswith("use '*' instead")     # 81: too long to repeat


def test_a_call_the_shape_check_did_not_pass_is_a_programming_error_with_its_reason():
    from gradlib._language._syntax import arguments
    call = ast.parse("sum(x, axis=s)", mode="eval").body
    with pytest.raises(AssertionError, match=r"^unchecked call: axis must be a whole number written out"):
        arguments(call, lambda node: (3,))


def test_the_largest_whole_number_taken_is_just_under_two_to_the_31():
    assert parse("x[0:2147483647]", SHAPES).shape == (3,)
    assert parse("x[-2147483647:]", SHAPES).shape == (3,)


def test_an_unknown_name_with_no_inputs_says_there_are_none():
    with pytest.raises(ExpressionError) as info:
        parse("q", {})
    assert str(info.value).split("\n")[0] == (
        "unknown name 'q'. Inputs are: none. Define it as an input or fix the spelling (column 1)")


def test_each_part_knows_the_inputs_it_depends_on():
    # the cost model counts the work of the parts that depend on the watched inputs
    assert [sorted(p.names) for p in parse("x * s + 1", SHAPES).parts] == [["x"], ["s"], ["s", "x"], [], ["s", "x"]]


@pytest.mark.parametrize("text, limits", [
    ("s + (x if s else s)", None),                   # a kind of node the language has not
    ("s + (x % s)", None),                           # an operator it has not
    ("x + (x + (x + x))", Limits(max_tree_depth=4)),  # too deep a tree
    ("s + x[0, 1]", None),                           # a shape it cannot take
    ("s + x·W", None),                               # a character outside ASCII
    ("x $ s", None),                                 # a character the language has no use for
    ("x + ((((s))))", Limits(max_depth=3)),          # brackets nested too deep
    ("x + \x07s", None),                             # a control character
])
def test_a_refusal_shows_the_text_and_a_caret_under_its_column(text, limits):
    with pytest.raises(ExpressionError) as info:
        parse(text, SHAPES, **({"limits": limits} if limits else {}))
    lines = str(info.value).split("\n")
    assert lines[1:] == ["    " + text, "    " + " " * (info.value.column - 1) + "^"]


def test_only_brackets_count_as_nesting_not_letters_beside_them():
    shapes = {"XX": (3,), "XXXX": (3,), "s": ()}
    assert parse("XX + ((s))", shapes, limits=Limits(max_depth=3)).shape == (3,)
    assert parse("XXXX + s", shapes, limits=Limits(max_depth=3)).shape == (3,)   # nor as a run of signs
    with pytest.raises(ExpressionError) as info:
        parse("XX + ((((s))))", shapes, limits=Limits(max_depth=3))
    assert (str(info.value).split("\n")[0], info.value.column) == (
        "the function nests 4 levels deep; at most 3 are allowed, and level 4 is at column 9; simplify it", 9)


def test_a_closed_bracket_ends_its_level_and_a_sign_run_ends_at_the_next_operand():
    limits = Limits(max_depth=3)
    assert parse("(s) + (((s)))", SHAPES, limits=limits).shape == ()
    assert refusal("(s) + ((((s))))", limits) == (
        "the function nests 4 levels deep; at most 3 are allowed, and level 4 is at column 10; simplify it", 10)
    assert parse("s - - -s", SHAPES, limits=limits).shape == ()


def test_only_ascii_whitespace_around_the_text_is_dropped_and_line_breaks_become_spaces():
    assert parse("  x\n*\ts\r+ s \r\n", SHAPES).text == "x * s + s"
    assert refusal("s\xa0") == (
        "character '\\xa0' (U+00A0, no-break space) at column 2 is not allowed; use ' ' instead: 's '", 2)


def test_a_text_of_exactly_the_length_limit_is_checked_once_and_kept():
    limits = Limits(max_chars=40)
    text = "x + s" + " " * 30 + "+ s"     # 38 characters, then two more spaces: exactly 40
    text += "  "
    assert len(text) == 40
    assert parse(text, SHAPES, limits=limits) is parse(text, SHAPES, limits=limits)


def test_free_names_are_the_names_read_with_their_first_column_and_the_text_is_checked_first():
    from gradlib._language._syntax import free_names

    assert free_names("  sin(u) + u_x*sin - where(u > 0, nu, 0)") == (
        "sin(u) + u_x*sin - where(u > 0, nu, 0)", {"u": 5, "u_x": 10, "sin": 14, "nu": 33})
    with pytest.raises(ExpressionError, match=r"quotes \(strings\) at column 12"):
        free_names("__import__('os')")
    with pytest.raises(ExpressionError, match=r"names starting with '_' are not allowed \('__class__'\)"):
        free_names("u + __class__")
