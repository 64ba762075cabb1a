"""The operations table: the functions added as rows of it (softmax, log_softmax, logsumexp, max, min,
transpose, reshape, concat, clip, cross_entropy), beyond their values against NumPy and their refusals (in
test_language.py): gradients against central finite differences in every correct method, generated code,
names, limits and work; and a row added at test time, which every stage picks up."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradlib
import gradlib._language._operations
from generated_code import assert_script_matches
from gradlib import ExpressionError, Limits, compare, evaluate, tensorflow_code
from gradlib._language._syntax import parse
from gradlib._language._operations import OPERATIONS, Operation

W = np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]])
X = np.array([0.2, -0.9, 1.4])
P = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])        # rows are probabilities
T = np.arange(24.0).reshape(2, 3, 4) / 7.0 - 1.5
ENV = {"W": W, "x": X, "p": P, "T": T}


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


# Each function's gradient, in every correct method and in auto, against central finite differences. The
# points keep max/min away from ties and clip away from its bounds, where the derivative is not defined.
GRADIENTS = [
    "softmax(W)", "softmax(W, axis=0) * x[0]", "log_softmax(x * W[0])", "logsumexp(W, axis=0)",
    "logsumexp(W * x)", "max(W, axis=1) * min(x)", "min(W * W, axis=0)", "transpose(W) @ W[:, 0]",
    "transpose(T, [2, 0, 1])[1] * W", "reshape(W, [3, 2]) @ W[1, 1:]", "concat([W, W * x], axis=1) * W[0, 0]",
    "concat([x, W[1]]) ** 2", "clip(W, -1, 1.8) * x", "clip(x, W[0], W[1] + 1)", "cross_entropy(p, W)",
    "cross_entropy(softmax(W), W * x)",
]


@pytest.mark.parametrize("text", GRADIENTS)
def test_gradient_matches_finite_differences_in_every_method(text):
    c = compare(text, ENV, watch=["W", "x", "p", "T"] if "T" in text else ["W", "x", "p"], dtype="float64",
                methods=["unstack", "jacobian", "forward", "auto"])
    assert not c.errors, c.errors
    assert not c.check.skipped and c.check.passed, f"{text}: cells {c.check.bad_cells} differ from finite differences"
    assert np.abs(c.results["jacobian"].jacobian).max() > 0.05     # a gradient that is really there
    for method in ("unstack", "forward", "auto"):
        np.testing.assert_allclose(c.results[method].jacobian, c.results["jacobian"].jacobian, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("text, expected", [
    # d softmax_i / d z_j = s_i (delta_ij - s_j)
    ("softmax(x)", np.diag(_softmax(X)) - np.outer(_softmax(X), _softmax(X))),
    # d logsumexp / d z = softmax(z); d max / d z = one-hot of the largest
    ("[logsumexp(x), max(x), min(x)]", np.stack([_softmax(X), [0, 0, 1], [0, 1, 0]])),
    # clip passes the gradient only where it leaves x alone
    ("clip(x, -0.5, 0.5)", np.diag([1.0, 0.0, 0.0])),
    # d cross_entropy(labels, z) / d z = softmax(z) - labels (for labels that sum to 1)
    ("cross_entropy(p[0], x)", (_softmax(X) - P[0])[None, :]),
    ("reshape(x, [3, 1])", np.eye(3)),
    ("concat([x[2:], x[0:1]])", np.eye(3)[[2, 0]]),
])
def test_jacobian_in_closed_form(text, expected):
    r = evaluate(text, {"x": X, "p": P}, watch=["x"], method="jacobian", dtype="float64")
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-12, atol=1e-14)


def test_generated_code_of_every_new_function_runs_and_matches_gradlib(tmp_path):
    text = ("concat([reshape(softmax(W), [-1]), reshape(log_softmax(transpose(W), axis=0), [6]), "
            "clip(x, -0.5, 0.5), max(W, axis=0), min(W, axis=1), [logsumexp(W), cross_entropy(p[0], W[0])], "
            "cross_entropy(p, W)])")
    inputs = {"W": W, "x": X, "p": P}
    result = evaluate(text, inputs, dtype="float64", method="jacobian")
    code = tensorflow_code(text, inputs, dtype="float64")
    assert "tf.nn.softmax(W, axis=-1)" in code and "tf.reshape(tf.nn.log_softmax(tf.transpose(W), axis=0)" in code
    assert "def clip(x, lo, hi):" in code and "def cross_entropy(labels, logits, axis=-1):" in code
    assert "def matmul" not in code     # helpers the function does not call are left out
    assert_script_matches(code, result, tmp_path)
    assert result.y.shape == (24,)


def test_dot_of_a_scalar_generates_code_that_runs(tmp_path):
    # Before the table, dot(s, x) was written as matmul(s, x), which fails on a scalar.
    code = tensorflow_code("dot(s, x)", {"s": 2.0, "x": [1.0, 3.0]})
    assert "return dot(s, x)" in code and "def dot(a, b):" in code and "def matmul(a, b):" in code
    script = tmp_path / "generated.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "y: [2.0, 6.0]" in done.stdout


def test_generated_code_writes_tuple_indices_without_parentheses():
    # ast.unparse of the index alone gives (:, 0), a syntax error inside brackets
    code = tensorflow_code("W[:, 0] + W[1, 2]", {"W": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]})
    assert "return W[:, 0] + W[1, 2]" in code


# ---------------------------------------------------------------- names

@pytest.mark.parametrize("name", ["softmax", "max", "concat", "cross_entropy"])
def test_new_function_names_are_not_input_names(name):
    with pytest.raises(ExpressionError, match=rf"input name '{name}' is the name of a function; choose another"):
        evaluate("x", {"x": 1.0, name: 2.0})


# ---------------------------------------------------------------- limits and work, from shapes alone


def test_concat_and_reshape_are_held_to_the_element_limit_before_anything_is_allocated():
    limits = Limits(max_elements=1000)
    shapes = {"x": (400,)}
    assert parse("concat([x, x])", shapes, limits=limits).shape == (800,)
    with pytest.raises(ExpressionError, match=r"this part would hold 1,200 elements; at most 1,000 are allowed") as info:
        parse("sum(x) + concat([x, x, x])", shapes, limits=limits)
    assert info.value.column == 10
    # reshape keeps the element count, so the limit holds through it
    assert parse("reshape(x, [20, 20])", shapes, limits=limits).shape == (20, 20)


def test_softmax_like_functions_count_their_work():
    shapes = {"x": (100,)}
    # each node counts its elements; softmax and logsumexp add their per-element work on their argument
    assert parse("x", shapes).flops == 100
    assert parse("sin(x)", shapes).flops == 200
    assert parse("softmax(x)", shapes).flops == 100 + 100 + 4 * 100
    assert parse("logsumexp(x)", shapes).flops == 100 + 1 + 4 * 100
    assert parse("cross_entropy(x, x)", shapes).flops == 200 + 1 + 6 * 200
    program = parse("softmax(x)", shapes)
    assert [p.work for p in program.parts] == [100, 100 + 400]
    with pytest.raises(ExpressionError, match=r"the function needs too much computation for one request: at least 701 "
                                              r"floating-point operations, and at most 500 are allowed") as info:
        parse("sum(x) + softmax(x)", shapes, limits=Limits(max_flops=500))   # sum(x) 200, x 100, softmax 501
    assert info.value.column == 10


# ---------------------------------------------------------------- one row is all a new function needs


def _cube_shape(call, x):
    return x


def cube(x):
    return x * x * x


def test_a_row_added_to_the_table_is_checked_built_and_written(monkeypatch):
    row = Operation("cube", ("x",), "takes exactly one argument, like cube(x)", _cube_shape, cube)
    monkeypatch.setitem(OPERATIONS, "cube", row)
    with pytest.raises(ExpressionError, match=r"cube\(\) takes exactly one argument, like cube\(x\) \(column 5\)"):
        evaluate("x + cube(x, x)", {"x": X})
    r = evaluate("cube(x) * 2", {"x": X}, dtype="float64", method="jacobian")
    np.testing.assert_allclose(r.y, 2 * X**3, rtol=1e-12)
    np.testing.assert_allclose(r.jacobian, np.diag(6 * X**2), rtol=1e-12)
    code = tensorflow_code("cube(x) * 2", {"x": X})
    assert "def cube(x):\n    return x * x * x\n" in code and "return cube(x) * 2.0" in code
    assert gradlib.FUNCTIONS["softmax"] == "tf.nn.softmax" and "cube" not in gradlib.FUNCTIONS


def test_the_readme_shows_the_softmax_row_as_it_is_in_the_table():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    shown = re.search(r"This is `softmax`:\n\n```python\n(.*?)```", readme, re.S).group(1)
    source = Path(gradlib._language._operations.__file__).read_text()
    assert " ".join(shown.split()) in " ".join(source.split())
