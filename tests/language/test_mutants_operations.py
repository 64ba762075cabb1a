"""The operations table's shape rules, each refusal word for word with its column (`make mutate`: docs/mutation.md).

The shape rules run before anything is allocated, on shapes alone; a rule that says a wrong shape or a wrong
message is caught here without TensorFlow computing anything. tests/language/test_syntax.py checks the values against
NumPy and matches a part of each refusal; these pin the whole first line and where it points.
"""

from __future__ import annotations

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
    ("clip(W, T, s)", "shapes (2, 3) and (2, 3, 4) cannot be broadcast together for 'clip'", 1),
    ("maximum(x, T)", "shapes (3,) and (2, 3, 4) cannot be broadcast together for 'maximum'", 1),
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
