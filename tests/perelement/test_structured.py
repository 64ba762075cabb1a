"""The structured Jacobian (issue 26, item 1): a typed function's Jacobian propagated through its checked tree.

Every operation of the language (enumerated from the operations table, so a new row needs an example here) and
every operator either has a rule whose Jacobian equals the tape ``jacobian`` method's in float64 to 1e-10
(relative), or is refused: then ``auto`` runs a tape method and gives its answer, and ``method="structured"`` is
an ``ExpressionError``. ``auto`` takes the structured Jacobian only where it is compiled, every operation has a
rule and its estimate is below the tape method's.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._language._operations import OPERATIONS
from gradlib._foundations._limits import LIMITS
from gradlib._perelement import _cost, _engine, _methods, _structured
from gradlib._perelement._api import prepare

RNG = np.random.default_rng(26)
INPUTS = {
    "W": RNG.standard_normal((3, 4)), "x": RNG.standard_normal(4), "v": RNG.standard_normal(4),
    "q": RNG.uniform(0.2, 0.9, 4),                    # in the domain of log, sqrt, asin, acos, log1p, pow's base
    "T": RNG.standard_normal((2, 3, 4)),
}

#: one function per operation of the language, each calling it on values that depend on the watched inputs
EXAMPLES = {
    "sin": "sin(W @ x)", "cos": "cos(x * v)", "tan": "tan(q)", "exp": "exp(W) @ x", "log": "log(q * 2)",
    "sqrt": "sqrt(q + x * x)", "tanh": "tanh(W @ x)", "sigmoid": "sigmoid(W) * x", "relu": "relu(W @ x)",
    "abs": "abs(x - v)", "square": "square(W) @ x", "softplus": "softplus(W * x)", "log1p": "log1p(q)",
    "expm1": "expm1(x * v)", "erf": "erf(W * x)", "gelu": "gelu(W @ x)", "elu": "elu(W * x)", "sinh": "sinh(x)",
    "cosh": "cosh(x * v)", "atan": "atan(W * x)", "asin": "asin(q)", "acos": "acos(q - 0.5)",
    "sign": "sign(x) * v", "floor": "floor(x * 3) + x", "round": "round(x * 3) * v",
    "sum": "sum(W * x, axis=1) + sum(T * x)", "mean": "mean(W * x, axis=0) * mean(T)",
    "prod": "prod(W * x, axis=0)", "max": "max(W * x, axis=1)", "min": "min(T * x)",
    "logsumexp": "logsumexp(W * x, axis=1) + logsumexp(T)", "norm": "norm(W @ x) + norm(T * x, axis=2)",
    "maximum": "maximum(x, v * W)", "minimum": "minimum(W, x)", "pow": "pow(q, x) + pow(W, 2)",
    "atan2": "atan2(x, v)", "where": "where(x > v, x * v, sin(W))", "matmul": "matmul(W, transpose(T[0]))",
    "dot": "dot(W, x) + dot(x, v) * dot(2, x[0])", "clip": "clip(W, -0.5, v)",
    "softmax": "softmax(W * x, axis=0) + softmax(W)", "log_softmax": "log_softmax(T * x, axis=1)",
    "cross_entropy": "cross_entropy(softmax(W), W * x)", "transpose": "transpose(T, [2, 0, 1]) * x[0] + transpose(W)[0, 1]",
    "reshape": "reshape(W, [2, 6]) @ reshape(T[0], [6, 2])", "concat": "concat([W, W * x], axis=1)",
    "stack": "stack([x, v * x], axis=1) + stack([W, W * W])[1, 0, 0]", "cumsum": "cumsum(W * x, axis=1)",
}
#: the operators and the rest of the syntax: +, -, *, /, **, @, unary minus, indexing, slicing, lists
SYNTAX = [
    "-x + transpose(W) @ (W @ x) - v / q", "x ** 2 + q ** x + 2 ** x", "[x[0] * v[1], W[1, 2], W[-1, -1] / q[0]]",
    "W[:, 1:3] @ x[::2]", "x @ transpose(W) @ W @ x", "W @ transpose(W)", "x @ W[0]", "W @ T[1, 0]", "T[0] @ x * 3.5",
    "[x, v * 2][1]", "T[:, 1] - W[1:]",
]


def _problem(text: str):
    return prepare("evaluate", text, INPUTS, ["auto"], watch=None, dtype="float64", limits=LIMITS)[2]


def _structured_and_tape(text: str):
    problem = _problem(text)
    traced = _methods.compile_method(_structured.structured, problem.f, problem.xs, problem.cs)
    y, jac = (t.numpy() for t in traced(problem.xs, problem.cs))
    ty, tjac = _methods.jacobian(problem.f, problem.xs, problem.cs)
    return (y, jac), (ty.numpy(), tjac.numpy())


def _assert_same(got, expected):
    (y, jac), (ty, tjac) = got, expected
    np.testing.assert_allclose(y, ty, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(ty).max()))
    assert jac.shape == tjac.shape
    np.testing.assert_allclose(jac, tjac, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(tjac).max()))


def test_every_operation_of_the_language_has_an_example_and_every_rule_an_operation():
    assert set(EXAMPLES) == set(OPERATIONS)
    assert set(_structured.RULES) <= set(OPERATIONS)


@pytest.mark.parametrize("name", sorted(set(OPERATIONS) & set(_structured.RULES)))
def test_each_rule_gives_the_tape_jacobians_numbers(name):
    got, expected = _structured_and_tape(EXAMPLES[name])
    assert np.abs(expected[1]).max() > 0.05 or name in ("sign", "floor", "round")   # a gradient that is there
    _assert_same(got, expected)


@pytest.mark.parametrize("text", SYNTAX)
def test_each_operator_and_index_gives_the_tape_jacobians_numbers(text):
    _assert_same(*_structured_and_tape(text))


@pytest.mark.parametrize("name", sorted(set(OPERATIONS) - set(_structured.RULES)))
def test_an_operation_without_a_rule_is_refused_and_auto_gives_the_tape_answer(name):
    text = EXAMPLES[name]
    problem = _problem(text)
    with pytest.raises(gradlib.GradlibError, match=rf"{name}\(\) has no rule in the structured Jacobian"):
        _methods.compile_method(_structured.structured, problem.f, problem.xs, problem.cs)
    r = gradlib.evaluate(text, INPUTS, dtype="float64", compiled=True)
    tape = gradlib.evaluate(text, INPUTS, dtype="float64", method="jacobian")
    assert r.method in ("jacobian", "forward")
    np.testing.assert_allclose(r.jacobian, tape.jacobian, rtol=1e-10, atol=1e-12)
    with pytest.raises(gradlib.ExpressionError, match=rf"method 'structured' cannot run here: {name}\(\) has no "
                                                      r"rule .*; use method='auto'"):
        gradlib.evaluate(text, INPUTS, dtype="float64", method="structured")


def test_a_stack_of_matrices_under_matmul_is_refused_while_tracing_and_auto_falls_back_once():
    text = "T @ transpose(W)"   # (2, 3, 4) @ (4, 3): a batch of products, which has no rule
    problem = prepare("evaluate", text, INPUTS, ["auto"], watch=["W"], dtype="float64", limits=LIMITS)[2]
    assert _cost.estimate("structured", problem.profile, True).work < _cost.estimate("jacobian", problem.profile,
                                                                                     True).work   # auto tries it
    with pytest.raises(gradlib.ExpressionError, match=r"@ of values of shapes \(2, 3, 4\) and \(4, 3\): the structured "
                                                      "Jacobian covers vectors and matrices, not stacks of matrices"):
        _methods.compile_method(_structured.structured, problem.f, problem.xs, problem.cs)
    r = gradlib.evaluate(text, INPUTS, watch=["W"], dtype="float64", compiled=True)
    tape = gradlib.evaluate(text, INPUTS, watch=["W"], dtype="float64", method="jacobian")
    assert r.method in ("jacobian", "forward")
    np.testing.assert_allclose(r.jacobian, tape.jacobian, rtol=1e-10, atol=1e-12)
    assert problem.key in _engine._NOT_STRUCTURED.keys()   # remembered: the next call does not trace it again


def test_the_seed_function_gives_its_known_jacobian_from_its_structure(seed):
    text, inputs = seed
    r = gradlib.evaluate(text, inputs, compiled=True)
    assert (r.method, r.requested, r.compiled, r.mode, r.warnings) == ("structured", "auto", True, "forward", ())
    assert r.jacobian.tolist() == [[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]
    assert r.y.tolist() == [60.0, 180.0]


def _mlp(width: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    w1, w2 = (rng.standard_normal((width, width)) / np.sqrt(width) for _ in range(2))
    x = rng.standard_normal(width)
    h = np.tanh(w1 @ x)
    y = np.tanh(w2 @ h)
    return {"W1": w1, "W2": w2, "x": x}, (1 - y ** 2)[:, None] * w2 @ ((1 - h ** 2)[:, None] * w1)


def test_auto_takes_it_for_the_mlp_where_it_compiles_and_equals_the_closed_form():
    inputs, expected = _mlp(48)
    r = gradlib.evaluate("tanh(W2 @ tanh(W1 @ x))", inputs, watch=["x"], dtype="float64")
    assert (r.method, r.requested, r.compiled) == ("structured", "auto", True)
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-10, atol=1e-12)


def test_auto_keeps_the_tape_where_its_estimate_is_lower_or_the_call_is_eager():
    x = {"x": RNG.standard_normal(40)}
    few_outputs = gradlib.evaluate("sum(tanh(x))", x, dtype="float64", compiled=True)   # one reverse pass
    assert few_outputs.method == "jacobian"
    np.testing.assert_allclose(few_outputs.jacobian, [1 - np.tanh(x["x"]) ** 2], rtol=1e-12)
    assert gradlib.evaluate("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3.0, "x1": 4.0, "x2": 5.0}, compiled=False).method \
        == "unstack"


def test_a_jacobian_with_a_nan_or_an_infinity_is_left_to_the_tape_methods_and_their_repair():
    # sqrt at 0: the derivative is infinite; the structured rows would hold 0 x inf = NaN elsewhere
    r = gradlib.evaluate("sqrt(x) * 2", {"x": [0.0, 1.0, 4.0]}, dtype="float64", compiled=True)
    tape = gradlib.evaluate("sqrt(x) * 2", {"x": [0.0, 1.0, 4.0]}, dtype="float64", method="jacobian",
                            compiled=True)
    assert r.method in ("jacobian", "forward")
    assert r.jacobian[0, 0] == np.inf and np.array_equal(r.jacobian[1:], tape.jacobian[1:])


def test_a_callable_takes_it_from_its_trace_and_one_with_an_op_without_a_rule_is_refused_by_name():
    """Issue 41: a callable's structure is read from its trace (``gradlib._perelement._opgraph``, tested in
    test_opgraph.py); before, every callable was refused."""
    x = tf.constant(RNG.standard_normal(40))
    r = gradlib.per_element_gradients(lambda v: tf.tanh(v * 2.0), x, method="structured")
    np.testing.assert_allclose(r.jacobian, np.diag(2 * (1 - np.tanh(2 * x.numpy()) ** 2)), rtol=1e-12, atol=1e-15)
    with pytest.raises(gradlib.ExpressionError, match=r"method 'structured' cannot run here: op 'Cumprod' \(Cumprod\) "
                                                      r"has no rule in the structured Jacobian"):
        gradlib.per_element_gradients(lambda v: tf.math.cumprod(v * 2.0), x, method="structured")


@pytest.mark.parametrize("compiled", [False, True])
def test_asked_for_by_name_it_runs_eagerly_or_compiled_with_the_tape_numbers(compiled):
    text = "softmax(W @ x) * sum(q)"
    r = gradlib.evaluate(text, INPUTS, dtype="float64", method="structured", compiled=compiled)
    tape = gradlib.evaluate(text, INPUTS, dtype="float64", method="jacobian")
    assert (r.method, r.requested, r.compiled) == ("structured", "structured", compiled)
    np.testing.assert_allclose(r.jacobian, tape.jacobian, rtol=1e-10, atol=1e-12)


def test_compare_runs_it_beside_the_tape_methods_and_it_agrees():
    c = gradlib.compare("tanh(W @ x)", INPUTS, watch=["x"], dtype="float64", methods=["jacobian", "structured"])
    assert not c.errors and not c.skipped
    assert all(a.agrees for a in c.agreement)
    np.testing.assert_allclose(c.results["structured"].jacobian, c.results["jacobian"].jacobian, rtol=1e-10)


def test_integer_inputs_are_constants_with_zero_columns_as_in_the_tape():
    inputs = {"x": [0.5, -1.0, 2.0], "n": [1, 2, 3]}
    r = gradlib.evaluate("x * n + x @ x", inputs, dtype={"x": "float64", "n": "int32"}, compiled=True)
    tape = gradlib.evaluate("x * n + x @ x", inputs, dtype={"x": "float64", "n": "int32"}, method="jacobian")
    assert r.method == "structured"
    np.testing.assert_array_equal(r.jacobian, tape.jacobian)
    np.testing.assert_array_equal(r.jacobian[:, 3:], np.zeros((3, 3)))


def test_the_estimate_counts_a_jacobian_of_n_columns_per_watched_node():
    problem = _problem("tanh(W @ x)")
    cost = _cost.estimate("structured", problem.profile, True)
    p = problem.profile
    assert cost.work == p.forward + p.n * p.watched_work
    assert cost.bytes == (p.elements + p.n * p.watched_elements + 2 * p.m * p.n) * p.itemsize


# -------------------------------------------------------- issue 35, item 3: operands of unequal sizes and shapes

#: inputs of unequal sizes and shapes; Q (3, 1) and p (4,) broadcast to (3, 4), their product in (0.04, 0.36): the
#: domain of every element-wise function (log, sqrt, asin, acos)
UNEQUAL_INPUTS = {"Q": RNG.uniform(0.2, 0.6, (3, 1)), "p": RNG.uniform(0.2, 0.6, 4), "A": RNG.standard_normal((5, 4)),
                  "W": RNG.standard_normal((3, 4)), "x": RNG.standard_normal(4), "s": RNG.standard_normal(()),
                  "B": RNG.standard_normal((2, 3))}
#: the rules that are not element-wise functions of one argument, each on operands of unequal sizes and shapes
#: (broadcast where the operation broadcasts), its result joined to a piece of another size
UNEQUAL = {
    "maximum": "maximum(W, x) + maximum(Q, p * s)", "minimum": "minimum(Q, A[:3] * p)", "pow": "pow(Q, p) + pow(p, Q)",
    "atan2": "atan2(Q, x) + atan2(s, W)", "where": "where(W > Q, W * p, s * Q)", "clip": "clip(W, Q - 0.5, x)",
    "matmul": "concat([matmul(W, x), matmul(B, W) @ x, s * p], axis=0)", "dot": "concat([dot(A, x), dot(x, p) * x])",
    "sum": "concat([sum(W * p, axis=1), sum(A * Q[0], axis=0), [sum(B)]])",
    "mean": "concat([mean(A * x, axis=1), mean(W, axis=0) * s])",
    "logsumexp": "concat([logsumexp(A * p, axis=1), [logsumexp(W * Q)]])",
    "norm": "concat([norm(A * x, axis=1), [norm(Q * x)]])",
    "softmax": "concat([softmax(A * x, axis=0), softmax(W * Q)], axis=0)",
    "log_softmax": "concat([log_softmax(Q * x, axis=1), log_softmax(A, axis=0)])",
    "cross_entropy": "concat([cross_entropy(softmax(Q * p), A[:3] * x), [cross_entropy(p, x * s, axis=0)]])",
    "transpose": "concat([transpose(A * x), transpose(W * Q)], axis=1)", "reshape": "concat([reshape(A, [4, 5]), "
                 "reshape(W * p, [4, 3])], axis=1)",
    "concat": "concat([tanh(W @ x), x], axis=0) + 0 * s", "stack": "stack([W @ x, A[:3] @ p, B[0] * s], axis=1)",
    "cumsum": "concat([cumsum(W * p, axis=1), cumsum(A, axis=0)], axis=0)",
}
#: more joins of pieces of unequal sizes and shapes, along every axis, with constants among them
JOINS = ["concat([W @ x, x, Q[:, 0]])", "concat([A, W, reshape(p, [1, 4])], axis=0)",
         "concat([W, reshape(B[0], [3, 1]), Q], 1)",
         "concat([transpose(B), W * x], axis=-1)", "concat([W, 2 * Q], axis=1)", "concat([[s], x * 2, [s * s]])",
         "stack([W, Q * p], axis=2)", "stack([x, p, W[0]], axis=-1)", "concat([W @ x, A @ x])[2:6]"]


def _unequal(name: str) -> str:
    """Rule ``name`` on operands of unequal sizes: an element-wise one of Q (3, 1) broadcast against p (4,), joined to
    a piece of another shape; the others from UNEQUAL."""
    if name in UNEQUAL:
        return UNEQUAL[name]
    return f"concat([{name}(Q * p), reshape({name}(p), [1, 4])], axis=0)"


def _structured_and_tape_at(text: str, inputs):
    problem = prepare("evaluate", text, inputs, ["auto"], watch=None, dtype="float64", limits=LIMITS)[2]
    traced = _methods.compile_method(_structured.structured, problem.f, problem.xs, problem.cs)
    got = tuple(t.numpy() for t in traced(problem.xs, problem.cs))
    flat = tf.concat([tf.reshape(x, [-1]) for x in problem.xs], 0)
    sizes = [int(tf.size(x)) for x in problem.xs]

    def fn(v):
        parts = tf.split(v, sizes)
        return problem.f([tf.reshape(p, x.shape) for p, x in zip(parts, problem.xs)], problem.cs)

    rows = []
    for i in range(int(tf.size(fn(flat)))):   # a fresh tape per element; floor and round have no gradient: zeros
        with tf.GradientTape() as tape:
            tape.watch(flat)
            y_i = tf.reshape(fn(flat), [-1])[i]
        rows.append(tape.gradient(y_i, flat, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy())
    return got, (fn(flat).numpy(), np.array(rows))


def test_every_rule_has_an_example_of_unequal_operands_and_the_element_wise_ones_are_made_from_the_table():
    assert set(UNEQUAL) <= set(_structured.RULES)
    element_wise = set(_structured.RULES) - set(UNEQUAL)
    assert all(OPERATIONS[name].params == ("x",) for name in element_wise)


@pytest.mark.parametrize("text", [_unequal(name) for name in sorted(_structured.RULES)] + JOINS)
def test_each_rule_on_operands_of_unequal_sizes_and_shapes_gives_a_fresh_tape_s_numbers(text):
    (y, jac), (ty, tjac) = _structured_and_tape_at(text, UNEQUAL_INPUTS)
    assert jac.shape == tjac.shape and y.size == jac.shape[0]
    np.testing.assert_allclose(y.reshape(-1), ty.reshape(-1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jac, tjac, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(tjac).max()))


@pytest.mark.parametrize("m, n", [(3, 6), (64, 300)])
def test_the_concat_of_the_issue_runs_under_auto_and_by_name_with_the_closed_form(m, n):
    """Issue 35, item 3: the rule reshaped every piece to the first one's shape (3 values into 6): auto raised
    TensorFlow's InvalidArgumentError and compare dropped 'structured' with TensorFlow's words."""
    rng = np.random.default_rng(m)
    inputs = {"W": rng.standard_normal((m, n)) / np.sqrt(n), "x": rng.standard_normal(n)}
    h = np.tanh(inputs["W"] @ inputs["x"])
    expected = np.vstack([(1 - h ** 2)[:, None] * inputs["W"], np.eye(n)])
    text = "concat([tanh(W @ x), x], axis=0)"
    for method in ("auto", "structured"):
        r = gradlib.evaluate(text, inputs, watch=["x"], dtype="float64", method=method, compiled=True)
        np.testing.assert_allclose(r.jacobian, expected, rtol=1e-10, atol=1e-12)
    c = gradlib.compare(text, inputs, watch=["x"], dtype="float64", methods=["jacobian", "structured"])
    assert (c.errors, c.skipped) == ({}, {}) and all(a.agrees for a in c.agreement)


def _misplacing_concat(walker, values, axis):   # the rule as it was: every piece at the first piece's shape
    shape = tuple(values[0][0].shape)
    return tf.concat([v for v, _ in values], axis), walker.flat(
        tf.concat([walker.tensor(j, shape) for _, j in values], axis))


def test_a_rule_that_cannot_place_a_piece_is_refused_auto_falls_back_and_compare_says_it_failed(monkeypatch):
    monkeypatch.setitem(_structured.RULES, "concat", _misplacing_concat)
    inputs = {"W": RNG.standard_normal((3, 7)), "x": RNG.standard_normal(7)}   # shapes no other test traces
    text = "concat([tanh(W @ x), x], axis=0)"
    problem = prepare("evaluate", text, inputs, ["auto"], watch=["x"], dtype="float64", limits=LIMITS)[2]
    with pytest.raises(_structured.RuleFailed, match=r"the structured rule of concat\(\) could not place the "
                                                     r"Jacobians of its arguments of shapes \[\(3,\), \(7,\)\] "
                                                     r"\(TensorFlow said: .*\); use method='auto'"):
        _methods.compile_method(_structured.structured, problem.f, problem.xs, problem.cs)
    r = gradlib.evaluate(text, inputs, watch=["x"], dtype="float64", compiled=True)
    tape = gradlib.evaluate(text, inputs, watch=["x"], dtype="float64", method="jacobian")
    assert r.method != "structured"
    np.testing.assert_array_equal(r.jacobian, tape.jacobian)
    c = gradlib.compare(text, inputs, watch=["x"], dtype="float64", methods=["jacobian", "structured"])
    assert list(c.results) == ["jacobian"] and c.skipped == {}
    assert c.errors["structured"].startswith("the structured rule of concat() could not place")
    assert ("structured failed", c.errors["structured"]) in [(f.title, f.text) for f in c.diagnosis]


def test_a_rule_whose_rows_do_not_match_its_value_is_refused(monkeypatch):
    monkeypatch.setitem(_structured.RULES, "cumsum", lambda walker, x, axis: (x[0], walker.flat(
        walker.tensor(x[1], tuple(x[0].shape))[:1])))
    problem = prepare("evaluate", "cumsum(x)", {"x": [1.0, 2.0, 3.0]}, ["auto"], watch=None, dtype="float64",
                      limits=LIMITS)[2]
    with pytest.raises(_structured.RuleFailed, match=r"cumsum\(\) .* shapes \(3,\) \(its Jacobian has 1 rows for "
                                                     r"3 values\)"):
        _methods.compile_method(_structured.structured, problem.f, problem.xs, problem.cs)


def test_compare_says_an_operation_without_a_rule_is_not_covered_not_over_its_limits():
    c = gradlib.compare("prod(x)", {"x": [1.0, 2.0]}, methods=["jacobian", "structured"])
    assert c.errors == {} and c.skipped["structured"].startswith("method 'structured' cannot run here: prod()")
    assert [(f.method, f.title) for f in c.diagnosis if f.severity == "info" and f.method == "structured"] == [
        ("structured", "Left out: the method does not cover this function")]


@pytest.mark.parametrize("dtype, x", [("float32", [-1e9, -1e9]), ("float32", [1e4, 1e4]), ("float64", [-1e30, -1e30]),
                                      ("float64", [1e15, 1e15])])
def test_logsumexp_of_large_ties_is_softmax_as_the_tape_gives_not_exp_of_the_rounded_value(dtype, x):
    """Hunt 59: the rule's weights were ``exp(x - logsumexp(x))``, with logsumexp rounded to x's magnitude; at
    ``[-1e9, -1e9]`` in float32 the value is -1e9 (log 2 lost) and the Jacobian was [1, 1], under ``auto`` too,
    where it is softmax(x) = [0.5, 0.5] (the tape's, computed with the maximum taken out first)."""
    xt = tf.constant(x, dtype)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.reduce_logsumexp(xt)
    expected = tape.gradient(y, xt).numpy()
    np.testing.assert_array_equal(expected, [0.5, 0.5])   # the closed form: softmax of a tie
    for method in ("structured", "auto"):
        r = gradlib.evaluate("logsumexp(x)", {"x": x}, dtype=dtype, method=method, compiled=True)
        assert r.method == "structured"
        np.testing.assert_allclose(r.jacobian[0], expected, rtol=1e-6)
