"""The functions added for issue 27 (where and comparisons, norm, log1p ... round, atan2, pow, stack, cumsum),
against an oracle written here from closed forms with Python's ``math`` (no TensorFlow, no NumPy maths): values
and Jacobians at random points in float64, in every correct method and auto, to 1e-9. Then where()'s dead-branch
trap: finite rows, the finding per cell, the guarded form and its result, the generated code, under XLA."""

from __future__ import annotations

import ast
import itertools
import math
import operator

import numpy as np
import pytest
import tensorflow as tf

from generated_code import assert_script_matches
from gradlib import Limits, compare, evaluate, tensorflow_code
from gradlib._language._branches import guard
from gradlib._language._syntax import parse

METHODS = ["unstack", "jacobian", "forward", "auto"]
RNG = np.random.default_rng(27)
SQRT2, SQRT2PI = math.sqrt(2.0), math.sqrt(2.0 * math.pi)


def points(lo: float, hi: float, n: int = 5) -> list[float]:
    return [float(v) for v in RNG.uniform(lo, hi, n)]


def check(text: str, inputs: dict, y: list[float], jacobian: list[list[float]], watch=None):
    """``text`` at ``inputs`` gives the oracle's ``y`` and ``jacobian`` in every method, to 1e-9."""
    for method in METHODS:
        r = evaluate(text, inputs, watch=watch, method=method, dtype="float64")
        np.testing.assert_allclose(r.y.reshape(-1), y, rtol=1e-9, atol=1e-12, err_msg=f"{text} y, {method}")
        np.testing.assert_allclose(r.jacobian, jacobian, rtol=1e-9, atol=1e-12, err_msg=f"{text} jacobian, {method}")


def diagonal(values: list[float]) -> list[list[float]]:
    return [[v if i == j else 0.0 for j in range(len(values))] for i, v in enumerate(values)]


def _gelu(x):
    return 0.5 * x * (1 + math.erf(x / SQRT2))


def _gelu_slope(x):
    return 0.5 * (1 + math.erf(x / SQRT2)) + x * math.exp(-x * x / 2) / SQRT2PI


#: name -> (value, derivative, where to draw points from): the functions of one argument
UNARY = {
    "log1p": (math.log1p, lambda x: 1 / (1 + x), (-0.9, 3.0)),
    "expm1": (math.expm1, math.exp, (-3.0, 3.0)),
    "erf": (math.erf, lambda x: 2 / math.sqrt(math.pi) * math.exp(-x * x), (-2.5, 2.5)),
    "gelu": (_gelu, _gelu_slope, (-3.0, 3.0)),
    "elu": (lambda x: x if x > 0 else math.expm1(x), lambda x: 1.0 if x > 0 else math.exp(x), (-3.0, 3.0)),
    "sinh": (math.sinh, math.cosh, (-3.0, 3.0)),
    "cosh": (math.cosh, math.sinh, (-3.0, 3.0)),
    "atan": (math.atan, lambda x: 1 / (1 + x * x), (-4.0, 4.0)),
    "asin": (math.asin, lambda x: 1 / math.sqrt(1 - x * x), (-0.95, 0.95)),
    "acos": (math.acos, lambda x: -1 / math.sqrt(1 - x * x), (-0.95, 0.95)),
    # piecewise constant: derivative 0 (the points avoid the jumps: 0, the integers and the halves)
    "sign": (lambda x: math.copysign(1.0, x), lambda x: 0.0, (-3.0, 3.0)),
    "floor": (math.floor, lambda x: 0.0, (-3.0, 3.0)),
    "round": (round, lambda x: 0.0, (-3.0, 3.0)),   # Python's round, like tf.round, rounds half to even
}


@pytest.mark.parametrize("name", UNARY)
def test_each_function_of_one_argument_matches_its_closed_form(name):
    f, slope, (lo, hi) = UNARY[name]
    x = points(lo, hi)
    # scaled by a second watched input: the chain rule through the function, and a column of its own
    check(f"{name}(x) * s", {"x": x, "s": 1.5},
          [f(v) * 1.5 for v in x], [row + [f(v)] for row, v in zip(diagonal([slope(v) * 1.5 for v in x]), x)])


@pytest.mark.parametrize("name", ["sign", "floor", "round"])
def test_step_functions_say_that_their_gradient_is_zero(name):
    r = evaluate(f"{name}(x) + x", {"x": [0.3, -1.7]}, dtype="float64")
    np.testing.assert_array_equal(r.jacobian, np.eye(2))       # only x itself carries a gradient
    [note] = [w for w in r.warnings if "piecewise constant" in w]
    assert note.startswith(f"{name}() is piecewise constant: the derivative is 0 wherever there is one")
    both = evaluate("sign(x) * floor(x)", {"x": [0.3, -1.7]}, dtype="float64")
    assert [w[:44] for w in both.warnings if "piecewise" in w] == ["floor() and sign() are piecewise constant: t"]


def test_atan2_broadcasts_and_matches_its_partial_derivatives():
    y, x = [points(-2, 2, 3), points(-2, 2, 3)], points(0.2, 2, 3)   # y is 2 x 3, x one row, broadcast
    values, jac = [], []
    for i, j in itertools.product(range(2), range(3)):
        values.append(math.atan2(y[i][j], x[j]))
        r2 = y[i][j] ** 2 + x[j] ** 2
        row = [0.0] * 9
        row[3 * i + j] = x[j] / r2            # d/dy
        row[6 + j] = -y[i][j] / r2            # d/dx
        jac.append(row)
    check("atan2(Y, x)", {"Y": y, "x": x}, values, jac)


def test_pow_matches_both_partial_derivatives():
    a, b = points(0.3, 3), points(-2, 2)
    values = [u ** v for u, v in zip(a, b)]
    jac = [da + db for da, db in zip(diagonal([v * u ** (v - 1) for u, v in zip(a, b)]),
                                        diagonal([u ** v * math.log(u) for u, v in zip(a, b)]))]
    check("pow(a, b)", {"a": a, "b": b}, values, jac)
    check("a ** b", {"a": a, "b": b}, values, jac)       # the same op as the operator


@pytest.mark.parametrize("op", [">", "<", ">=", "<=", "==", "!="])
def test_where_takes_each_cell_from_the_branch_its_comparison_picks(op):
    x = points(-2, 2, 4) + [0.5]                  # 0.5 ties the constant: >=, <= and == take the first branch
    y = points(-2, 2, 5)
    pick = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le, "==": operator.eq,
            "!=": operator.ne}[op]
    values, jac = [], []
    for k, (u, v) in enumerate(zip(x, y)):
        row = [0.0] * 10
        if pick(u, 0.5):                          # sin(x) * y
            values.append(math.sin(u) * v)
            row[k], row[5 + k] = math.cos(u) * v, math.sin(u)
        else:                                     # x ** 2
            values.append(u * u)
            row[k] = 2 * u
        jac.append(row)
    check(f"where(x {op} 0.5, sin(x) * y, x ** 2)", {"x": x, "y": y}, values, jac)


def test_where_broadcasts_its_condition_and_branches():
    W, x = [points(-1, 1, 3), points(-1, 1, 3)], points(-1, 1, 3)
    values, jac = [], []
    for i, j in itertools.product(range(2), range(3)):
        row = [0.0] * 9
        if W[i][j] > x[j]:
            values.append(W[i][j] * 3.0)
            row[3 * i + j] = 3.0
        else:
            values.append(x[j])
            row[6 + j] = 1.0
        jac.append(row)
    check("where(W > x, W * 3, x)", {"W": W, "x": x}, values, jac)


def test_norm_over_all_elements_and_along_an_axis():
    W = [points(-2, 2, 3), points(-2, 2, 3)]
    flat = W[0] + W[1]
    total = math.sqrt(sum(v * v for v in flat))
    check("norm(W)", {"W": W}, [total], [[v / total for v in flat]])
    rows = [math.sqrt(sum(v * v for v in r)) for r in W]
    check("norm(W, axis=1)", {"W": W}, rows,
          [[W[i][j] / rows[i] if i == r else 0.0 for i in range(2) for j in range(3)] for r in range(2)])
    columns = [math.hypot(W[0][j], W[1][j]) for j in range(3)]
    check("norm(W, axis=0)", {"W": W}, columns,
          [[W[i][j] / columns[c] if j == c else 0.0 for i in range(2) for j in range(3)] for c in range(3)])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_puts_the_new_axis_where_asked(axis):
    a, b = points(-2, 2, 3), points(-2, 2, 3)
    # stack([a, a * b]) has cells (k, j) for axis 0 and (j, k) for axis 1 and -1: k = 0 is a, k = 1 is a * b
    cells = [(k, j) for k in range(2) for j in range(3)] if axis == 0 else [(k, j) for j in range(3) for k in range(2)]
    values, jac = [], []
    for k, j in cells:
        row = [0.0] * 6
        if k == 0:
            values.append(a[j])
            row[j] = 1.0
        else:
            values.append(a[j] * b[j])
            row[j], row[3 + j] = b[j], a[j]
        jac.append(row)
    check(f"stack([a, a * b], axis={axis})", {"a": a, "b": b}, values, jac)
    assert parse(f"stack([a, a * b], axis={axis})", {"a": (3,), "b": (3,)}).shape == ((2, 3) if axis == 0 else (3, 2))


@pytest.mark.parametrize("axis", [0, 1])
def test_cumsum_along_each_axis(axis):
    W = [points(-2, 2, 3), points(-2, 2, 3)]
    values, jac = [], []
    for i, j in itertools.product(range(2), range(3)):
        # cell (i, j) sums W[p, q] for q <= j in row i (axis 1), or p <= i in column j (axis 0); squared inside
        terms = [(p, j) for p in range(i + 1)] if axis == 0 else [(i, q) for q in range(j + 1)]
        values.append(sum(W[p][q] ** 2 for p, q in terms))
        jac.append([2 * W[p][q] if (p, q) in terms else 0.0 for p in range(2) for q in range(3)])
    check(f"cumsum(W * W, axis={axis})", {"W": W}, values, jac)


def test_the_new_functions_count_their_work_and_keep_to_the_element_limit():
    shapes = {"x": (100,)}
    assert parse("norm(x)", shapes).flops == 100 + 1 + 100             # x, the norm, and squaring each element
    assert parse("where(x > 0, x, 0)", shapes).flops == 100 + 1 + 100 + 100 + 1 + 100   # x, 0, compare, x, 0, where
    assert parse("stack([x, x])", shapes).shape == (2, 100)
    with pytest.raises(Exception, match=r"this part would hold 300 elements; at most 250 are allowed"):
        parse("stack([x, x, x])", shapes, limits=Limits(max_elements=250))


# ---------------------------------------------------------------- where()'s dead branch

TRAP = "where(x > 0, sqrt(x), 0)"
X = [0.0, -1.0, 4.0]


@pytest.mark.parametrize("method", METHODS)
def test_the_guarded_square_root_gives_finite_rows_in_every_method(method):
    r = evaluate(TRAP, {"x": X}, method=method, dtype="float64")
    np.testing.assert_array_equal(r.y, [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(r.jacobian, np.diag([0.0, 0.0, 0.25]))


@pytest.fixture(scope="module")
def trap():
    return compare(TRAP, {"x": X}, dtype="float64", methods=METHODS)


def test_the_diagnosis_explains_the_trap_per_cell_and_shows_the_guarded_form_and_its_result(trap):
    [finding] = [f for f in trap.diagnosis if f.title.startswith("where(): the branch not taken")]
    assert finding.severity == "warning"
    assert finding.details == ("At y[0], x > 0 is false, and the branch not taken, sqrt(x), has derivative inf; "
                               "at y[1], x > 0 is false, and the branch not taken, sqrt(x), has derivative nan.")
    assert "At this point that happens in 2 cell(s) (see the details)." in finding.text   # not y[2], which where() takes
    assert "XLA" in finding.text and "tensorflow/tensorflow#118674" in finding.text
    assert ("where(x > 0, sqrt(where(x > 0, x, 1)), 0) gives the same y = [0, 0, 2] and, in plain reverse mode "
            "(tape.jacobian), the rows y[0] [0, 0, 0], y[1] [0, 0, 0], y[2] [0, 0, 0.25], with no NaN") in finding.text


def test_a_dead_branch_that_poisons_reverse_mode_eagerly_is_said_so():
    c = compare("where(x > 0, log(x), 0)", {"x": X}, dtype="float64", methods=METHODS)
    assert np.isnan(c.results["jacobian"].jacobian[:, 0]).all()             # log's gradient: 0 * inf, eagerly
    [finding] = [f for f in c.diagnosis if f.title.startswith("where(): the branch not taken")]
    assert "Reverse mode (unstack, jacobian) gives NaN there" in finding.text
    assert "where(x > 0, log(where(x > 0, x, 1)), 0) gives the same y" in finding.text


@pytest.mark.parametrize("text, inputs", [
    ("where(x > 0, sqrt(x), 0)", {"x": [1.0, 4.0]}),           # every cell takes sqrt: nothing dead
    ("where(x > 0, x * 2, -x)", {"x": [0.0, -1.0]}),          # nothing risky in either branch
    ("where(x > 0, sqrt(s), 0)", {"x": [1.0, -1.0], "s": 0.0}),  # risky, but s is not watched
])
def test_no_trap_no_finding(text, inputs):
    c = compare(text, inputs, watch=["x"], dtype="float64", methods=["jacobian", "auto"])
    assert not [f for f in c.diagnosis if f.title.startswith("where()")]


@pytest.mark.parametrize("text, guarded", [
    ("where(x > 0, sqrt(x), 0)", "where(x > 0, sqrt(where(x > 0, x, 1)), 0)"),
    ("where(x <= 0, 0, log(x))", "where(x <= 0, 0, log(where(x <= 0, 1, x)))"),
    ("where(x != 0, 1 / x, 0)", "where(x != 0, 1 / where(x != 0, x, 1), 0)"),
    ("where(x > 0, x ** 0.5, 0) + where(x > 0, x ** 2, 0)",
     "where(x > 0, where(x > 0, x, 1) ** 0.5, 0) + where(x > 0, x ** 2, 0)"),   # a whole power is safe
    ("where(x > 0, sum(sqrt(x)), 0)", None),                 # through a reduction, cells do not correspond: left alone
    ("sqrt(x)", None),
])
def test_the_guard_changes_only_risky_operands_reached_element_wise(text, guarded):
    tree = guard(ast.parse(text, mode="eval").body)
    assert (ast.unparse(tree) if tree is not None else None) == guarded


def test_the_guarded_form_is_exact_where_the_condition_holds_at_random_points():
    x = points(-2, 2, 8) + [0.0]
    for text in ["where(x > 0, sqrt(x) * log(x), -x)", "where(x > 0, asin(x - 1) + 1 / x, x ** 2)",
                 "where(x < 0, -x, sqrt(x) + x ** 1.5)"]:   # at 0 the last takes sqrt: an infinite derivative
        plain = evaluate(text, {"x": x}, dtype="float64", method="auto")
        fixed = evaluate(ast.unparse(guard(ast.parse(text, mode="eval").body)), {"x": x}, dtype="float64",
                         method="jacobian")
        np.testing.assert_allclose(fixed.y, plain.y, rtol=1e-12, equal_nan=True)
        # auto may leave NaN in both modes (the last at 0: forward mode's 0 x inf in sqrt's taken cell, reverse
        # mode's in pow's dead ones): the guarded form is then better than auto, and agrees everywhere else
        known = ~np.isnan(plain.jacobian)
        np.testing.assert_allclose(fixed.jacobian[known], plain.jacobian[known], rtol=1e-12, atol=1e-15)
        assert not np.isnan(fixed.jacobian).any()


def test_the_generated_code_uses_the_guarded_form_and_shows_the_unguarded_one():
    code = tensorflow_code(TRAP, {"x": X}, dtype="float64")
    assert "    return tf.where(x > 0.0, tf.sqrt(tf.where(x > 0.0, x, 1.0)), 0.0)" in code
    assert "    # return tf.where(x > 0.0, tf.sqrt(x), 0.0)" in code                # the unguarded line, as a comment
    assert "tensorflow/tensorflow#118674" in code
    assert "# return" not in tensorflow_code("where(x > 0, x, 0)", {"x": X})     # nothing to guard: no comment


def test_under_xla_the_unguarded_gradient_is_nan_and_the_guarded_one_is_not():
    x = tf.constant(X, tf.float64)

    def gradient(f):
        @tf.function(jit_compile=True)
        def g(v):
            with tf.GradientTape() as tape:
                tape.watch(v)
                y = f(v)
            return tape.gradient(y, v)
        return g(x).numpy()

    plain = gradient(lambda v: tf.where(v > 0, tf.sqrt(v), tf.zeros_like(v)))
    fixed = gradient(lambda v: tf.where(v > 0, tf.sqrt(tf.where(v > 0, v, tf.ones_like(v))), tf.zeros_like(v)))
    assert np.isnan(plain[:2]).all()          # tensorflow/tensorflow#118674: what the finding warns of
    np.testing.assert_array_equal(fixed, [0.0, 0.0, 0.25])


def test_generated_code_of_the_new_functions_runs_and_matches_gradlib(tmp_path):
    text = ("concat([log1p(x), expm1(x), erf(x), gelu(x), elu(x), sinh(x), cosh(x), atan(x), asin(x / 3), "
            "acos(x / 3), atan2(x, W[0] + 3), pow(W[1] + 3, x), sign(x), floor(x), round(x), [norm(W)], "
            "norm(W, axis=0), cumsum(W, axis=1)[1], stack([x, W[0]], axis=1)[:, 1], where(x >= 0.5, x, -x), "
            "where(x > 0, sqrt(x), 0)])")   # the last is written guarded, and runs so
    inputs = {"x": [0.3, -0.8, 0.5], "W": [[0.2, -1.1, 0.4], [1.3, 0.6, -0.2]]}
    result = evaluate(text, inputs, dtype="float64", method="jacobian")
    code = tensorflow_code(text, inputs, dtype="float64")
    assert "def gelu(x):" in code and "tf.sqrt(tf.where(x > 0.0, x, 1.0))" in code
    assert_script_matches(code, result, tmp_path)
