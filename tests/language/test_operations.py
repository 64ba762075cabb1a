"""The operations table: the functions added as rows of it (softmax, log_softmax, logsumexp, max, min,
transpose, reshape, concat, clip, cross_entropy), beyond their values against NumPy and their refusals (in
test_language.py): gradients against central finite differences in every correct method, generated code,
names, limits and work; and a row added at test time, which every stage picks up."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import gradlib
import gradlib._language._operations
from fresh_tf import run
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



def test_cross_entropy_of_labels_not_summing_to_one_is_the_derivative_of_its_value_not_tensorflow_s_op_gradient():
    """The guide's numbers: the value is tf.nn.softmax_cross_entropy_with_logits', the derivative is the value's
    (sum(labels) * softmax(z) - labels); the op's own gradient is softmax(z) - labels, which is not."""
    import tensorflow as tf

    labels, logits = tf.constant([0.3, 0.9], tf.float64), tf.constant([1.0, 0.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        value = tf.nn.softmax_cross_entropy_with_logits(labels, logits)
    op_gradient = tape.gradient(value, logits).numpy()
    s = _softmax(np.array([1.0, 0.0]))
    np.testing.assert_allclose(op_gradient, s - [0.3, 0.9], rtol=1e-12)
    np.testing.assert_allclose(op_gradient, [0.431, -0.631], atol=5e-4)
    for method in ("unstack", "jacobian", "forward", "structured"):
        r = evaluate("cross_entropy(p, z)", {"p": [0.3, 0.9], "z": [1.0, 0.0]}, watch=["z"], method=method,
                     dtype="float64")
        np.testing.assert_allclose(r.y, value.numpy(), rtol=1e-12)
        np.testing.assert_allclose(r.jacobian[0], 1.2 * s - [0.3, 0.9], rtol=1e-12)
        np.testing.assert_allclose(r.jacobian[0], [0.577, -0.577], atol=5e-4)

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
    done = run([sys.executable, str(script)], timeout=300)   # as in a fresh interpreter: tests/fresh_tf.py
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


def test_the_guide_shows_the_softmax_row_as_it_is_in_the_table():
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "extend.md").read_text()
    shown = re.search(r"This is `softmax`:\n\n```python[^\n]*\n(.*?)```", guide, re.S).group(1)
    source = Path(gradlib._language._operations.__file__).read_text()
    assert " ".join(shown.split()) in " ".join(source.split())


# ----------------------------------------------------------------------------------------------------
# Pins (joined from test_mutants_operations.py)
# The operations table's shape rules, each refusal word for word with its column (`make mutate`: docs/mutation.md).
#
# The shape rules run before anything is allocated, on shapes alone; a rule that says a wrong shape or a wrong
# message is caught here without TensorFlow computing anything. tests/language/test_syntax.py checks the values against
# NumPy and matches a part of each refusal; these pin the whole first line and where it points.
# ----------------------------------------------------------------------------------------------------


import pytest

from gradlib import ExpressionError
from gradlib._language._syntax import parse
from gradlib._language._operations import FUNCTIONS, OPERATIONS, STATIC

SHAPES = {"x": (3,), "W": (2, 3), "T": (2, 3, 4), "s": (), "U": (2, 2, 2, 2)}


@pytest.mark.parametrize("text, shape", [
    ("dot(s, W)", (2, 3)), ("dot(W, s)", (2, 3)), ("dot(W, x)", (2,)), ("dot(x, x)", ()),
    ("sum(W, axis=-2)", (3,)), ("sum(W, axis=-1)", (2,)), ("sum(W, axis=1)", (2,)), ("max(T, axis=1)", (2, 4)),
    ("mean(U, axis=3)", (2, 2, 2)), ("prod(U)", ()), ("logsumexp(W, axis=0)", (3,)), ("min(T)", ()),
    ("softmax(W, axis=-2)", (2, 3)), ("log_softmax(x)", (3,)),
    ("cross_entropy(W, W, axis=0)", (3,)), ("cross_entropy(W, W)", (2,)), ("cross_entropy(T, T, axis=1)", (2, 4)),
    ("transpose(T)", (4, 3, 2)), ("transpose(T, [2, 0, 1])", (4, 2, 3)), ("transpose(x)", (3,)),
    ("reshape(W, [-1])", (6,)), ("reshape(W, [3, -1])", (3, 2)), ("reshape(T, [4, 3, 2])", (4, 3, 2)),
    ("reshape(T, [-1, 1, 2, 3])", (4, 1, 2, 3)), ("reshape(s, [1])", (1,)),
    ("concat([W, W], axis=1)", (2, 6)), ("concat([W, W])", (4, 3)), ("concat([x, x, x])", (9,)),
    ("concat([W, W[0:1]], axis=0)", (3, 3)), ("concat([T, T[:, 0:1]], axis=-2)", (2, 4, 4)),
    ("clip(W, x, s)", (2, 3)), ("clip(s, s, x)", (3,)), ("minimum(W, x)", (2, 3)), ("maximum(s, T)", (2, 3, 4)),
    ("sin(T)", (2, 3, 4)), ("matmul(W, x)", (2,)),
])
def test_each_function_gives_this_shape(text, shape):
    assert parse(text, SHAPES).shape == shape


@pytest.mark.parametrize("text, message, column", [
    ("dot(T, x)", "dot supports scalars, vectors and matrices; use @ for stacks of matrices", 1),
    ("dot(x, T)", "dot supports scalars, vectors and matrices; use @ for stacks of matrices", 1),
    ("softmax(s)", "softmax() normalizes along an axis, and a scalar has none; give it a vector or more", 1),
    ("log_softmax(s, axis=0)", "log_softmax() normalizes along an axis, and a scalar has none; give it a vector or "
                               "more", 1),
    ("softmax(W, axis=2)", "axis 2 is out of range for a value of shape (2, 3)", 17),
    ("softmax(W, axis=-3)", "axis -3 is out of range for a value of shape (2, 3)", 17),
    ("sum(s, axis=0)", "axis 0 is out of range for a value of shape ()", 13),
    ("sum(s, axis=-1)", "axis -1 is out of range for a value of shape ()", 13),
    ("cross_entropy(W, x)", "cross_entropy() needs labels and logits of the same shape; got (2, 3) and (3,)", 1),
    ("cross_entropy(s, s)", "cross_entropy() normalizes along an axis, and a scalar has none; give it a vector or "
                            "more", 1),
    ("transpose(W, [0, 0])", "perm [0, 0] must list each axis of a value of shape (2, 3) once, from 0, like [1, 0]", 14),
    ("transpose(T, [0, 1])", "perm [0, 1] must list each axis of a value of shape (2, 3, 4) once, from 0, like "
                             "[2, 1, 0]", 14),
    ("transpose(W, [1, 2])", "perm [1, 2] must list each axis of a value of shape (2, 3) once, from 0, like [1, 0]", 14),
    ("reshape(W, [0, 6])", "shape [0, 6] must hold positive whole numbers, and at most one -1 (the rest)", 12),
    ("reshape(W, [-1, -1])", "shape [-1, -1] must hold positive whole numbers, and at most one -1 (the rest)", 12),
    ("reshape(W, [-2, 3])", "shape [-2, 3] must hold positive whole numbers, and at most one -1 (the rest)", 12),
    ("reshape(W, [1, 1, 1, 2, 3])", "shape [1, 1, 1, 2, 3] has 5 dimensions; at most 4 are allowed", 12),
    ("reshape(W, [4, -1])", "cannot reshape a value of shape (2, 3) (6 elements) to [4, -1]; the shape must hold the "
                            "same number of elements", 12),
    ("reshape(W, [7])", "cannot reshape a value of shape (2, 3) (6 elements) to [7]; the shape must hold the same "
                        "number of elements", 12),
    ("concat([s, s])", "concat() joins values along an axis, and a scalar has none; use [a, b] to stack scalars", 9),
    ("concat([W, x])", "concat() needs shapes that match except along axis 0: element 1 has shape (3,) but element 0 "
                       "has shape (2, 3)", 12),
    ("concat([W, T])", "concat() needs shapes that match except along axis 0: element 1 has shape (2, 3, 4) but "
                       "element 0 has shape (2, 3)", 12),
    ("concat([W, W, W[0:1]], axis=1)", "concat() needs shapes that match except along axis 1: element 2 has shape "
                                       "(1, 3) but element 0 has shape (2, 3)", 15),
    ("concat([W, W], axis=2)", "axis 2 is out of range for a value of shape (2, 3)", 21),
    ("clip(W, T, s)", "shapes (2, 3) and (2, 3, 4) cannot be broadcast together for 'clip': give them the same shape, or size 1 along each axis where they differ (NumPy's broadcasting)", 1),
    ("maximum(x, T)", "shapes (3,) and (2, 3, 4) cannot be broadcast together for 'maximum': give them the same shape, or size 1 along each axis where they differ (NumPy's broadcasting)", 1),
    ("sin(W, x)", "sin() takes exactly one argument, like sin(x)", 1),
    ("sum()", "sum() takes a tensor and an optional axis, like sum(x) or sum(x, axis=0)", 1),
    ("clip(W)", "clip() takes exactly three arguments, like clip(x, lo, hi)", 1),
    ("minimum(W)", "minimum() takes exactly two arguments, like minimum(a, b)", 1),
    ("softmax(W, 1, 2)", "softmax() takes a tensor and an optional axis, like softmax(x) or softmax(x, axis=0)", 1),
])
def test_each_refusal_says_this_at_this_column(text, message, column):
    with pytest.raises(ExpressionError) as info:
        parse(text, SHAPES)
    assert str(info.value).split("\n")[0] == f"{message} (column {column})"
    assert info.value.column == column


def test_a_row_writes_its_call_with_static_arguments_as_keywords_and_leaves_out_those_not_given():
    assert OPERATIONS["softmax"].write("x", None) == "tf.nn.softmax(x)"
    assert OPERATIONS["sum"].write("W", 1) == "tf.reduce_sum(W, axis=1)"
    assert OPERATIONS["transpose"].write("T", (2, 0, 1)) == "tf.transpose(T, perm=[2, 0, 1])"
    assert OPERATIONS["concat"].write(["a", "b"], 0) == "tf.concat([a, b], axis=0)"
    assert OPERATIONS["clip"].write("x", "0.0", "1.0") == "clip(x, 0.0, 1.0)"
    assert OPERATIONS["cross_entropy"].write("p", "z", -1) == "cross_entropy(p, z, axis=-1)"
    assert OPERATIONS["where"].write("x > 0.0", "tf.sqrt(x)", "0.0") == "tf.where(x > 0.0, tf.sqrt(x), 0.0)"
    assert OPERATIONS["stack"].write(["a", "b"], 1) == "tf.stack([a, b], axis=1)"
    assert OPERATIONS["cumsum"].write("x", 0) == "tf.math.cumsum(x, axis=0)"
    assert OPERATIONS["norm"].write("W", None) == "tf.norm(W)" and OPERATIONS["gelu"].write("x") == "gelu(x)"


def test_how_many_arguments_each_row_requires_and_how_it_is_spelled():
    assert {name: row.required for name, row in OPERATIONS.items() if row.required != 1} == {
        "maximum": 2, "minimum": 2, "matmul": 2, "dot": 2, "clip": 3, "cross_entropy": 2, "reshape": 2,
        "pow": 2, "atan2": 2, "where": 3}
    assert set(STATIC) == {"axis", "perm", "shape"}
    assert FUNCTIONS["log"] == "tf.math.log" and FUNCTIONS["relu"] == "tf.nn.relu" and FUNCTIONS["dot"] == "dot"
    assert FUNCTIONS["logsumexp"] == "tf.reduce_logsumexp" and FUNCTIONS["softplus"] == "tf.nn.softplus"
    assert {name: row.default_axis for name, row in OPERATIONS.items() if row.default_axis is not None} == {
        "softmax": -1, "log_softmax": -1, "cross_entropy": -1, "concat": 0, "stack": 0, "cumsum": 0}


# ---------------------------------------------------------------- each row holds its derivative rules (issue 38, item 3)


def _missing_rules(table) -> list[str]:
    """``name.method`` for each row of ``table`` that holds neither a rule nor the declared fallback ``TAPE`` for a
    method with rules of its own."""
    from gradlib._language._operations import RULED_METHODS, TAPE

    return [f"{name}.{method}" for name, row in table.items() for method in RULED_METHODS
            if not (callable(getattr(row, method)) or getattr(row, method) == TAPE)]


def test_every_row_holds_a_rule_or_a_declared_fallback_for_every_method_with_rules():
    assert not _missing_rules(OPERATIONS), "add the rule to the row, or declare structured=TAPE"


def test_a_row_without_a_rule_and_without_a_fallback_is_caught():
    import dataclasses

    bare = dataclasses.replace(OPERATIONS["sin"], structured=None)   # a row added as before rules lived in rows
    assert _missing_rules({**OPERATIONS, "sin": bare}) == ["sin.structured"]
    assert _missing_rules({"sin": dataclasses.replace(bare, structured="tapes")}) == ["sin.structured"]   # a typo


def test_the_structured_method_reads_its_rules_from_the_rows_and_refuses_a_declared_fallback():
    from gradlib._language._operations import TAPE
    from gradlib._perelement import _structured

    assert _structured.RULES == {name: row.structured for name, row in OPERATIONS.items() if row.structured != TAPE}
    declared = sorted(name for name, row in OPERATIONS.items() if row.structured == TAPE)
    assert declared == ["max", "min", "prod"]
    with pytest.raises(ExpressionError, match=r"prod\(\) has no rule in the structured Jacobian .*structured=TAPE"):
        evaluate("prod(x)", {"x": [1.0, 2.0]}, method="structured")
