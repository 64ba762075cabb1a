"""Every limit pinned at its boundary: at the limit gradlib computes, one past it refuses with the message.

Where reaching a default limit is cheap the default is used; where it would mean heavy work (4,000,000 Jacobian
entries, 256 eager passes, 4e9 estimated operations) a smaller ``Limits`` exercises the same comparison, and
``test_the_default_limits_are_the_documented_ones`` pins the defaults themselves. The memory estimate of each
method is pinned at its boundary in tests/perelement/test_bounds.py; the work estimate's closed form is written out here.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from dashboard import share
from gradlib import LIMITS, ExpressionError, Limits, compare, evaluate, per_element_gradients
from gradlib._language._syntax import parse

X = {"x": 1.5}


def test_the_default_limits_are_the_documented_ones():
    # README "Limits": 2,000 characters, 400 syntax nodes, nesting 32 in the text and 96 in the tree, 16 inputs,
    # rank 4, 1,000,000 elements, 4,000,000 Jacobian entries, 256 eager passes; peak memory 2 GB and work 4e9
    assert LIMITS == Limits(max_chars=2_000, max_nodes=400, max_depth=32, max_tree_depth=96, max_inputs=16,
                            max_rank=4, max_elements=1_000_000, max_jacobian=4_000_000, max_eager_passes=256,
                            max_flops=4e9, max_bytes=2e9)


# ---------------------------------------------------------------- the text


def test_max_chars():
    # the length is counted inside the surrounding whitespace (stripped first: a leading space is not an error)
    assert evaluate("x" + " " * 1_997 + "+x", X).y == 3.0
    assert evaluate(" " * 5_000 + "x" + " " * 5_000, X).y == 1.5
    with pytest.raises(ExpressionError, match=r"^the function is 2,001 characters long; at most 2,000 are allowed$"):
        evaluate("x" + " " * 1_998 + "+x", X)
    with pytest.raises(ExpressionError, match=r"^the function is 3 characters long; at most 2 are allowed$"):
        evaluate("  x+x  ", X, limits=Limits(max_chars=2))


def test_max_nodes():
    # [x, x, ...] is a List and its Load, then a Name and its Load per element: 2 + 2 * 199 = 400 nodes
    assert evaluate("[" + ", ".join(["x"] * 199) + "]", X).y.shape == (199,)
    with pytest.raises(ExpressionError, match=r"^the function has 401 parts; at most 400 are allowed; simplify it$"):
        evaluate("[" + ", ".join(["x"] * 199 + ["1"]) + "]", X)   # one Constant more: 401


@pytest.mark.parametrize("opening, closing", [("(", ")"), ("[", "]"), ("sin(", ")"), ("-", ""), ("+", "")])
def test_max_depth_of_the_text(opening, closing):
    assert np.ravel(evaluate(opening * 32 + "x" + closing * 32, X).y).size == 1
    col = 33 * len(opening)   # the 33rd opening
    with pytest.raises(ExpressionError, match=rf"^the function nests 33 levels deep; at most 32 are allowed, "
                                              rf"and level 33 is at column {col}; simplify it(\n|$)"):
        evaluate(opening * 33 + "x" + closing * 33, X)


def test_max_tree_depth():
    # x + x + ... nests to the left: 94 additions put the first x's Load at depth 96
    assert evaluate("x" + " + x" * 94, X).y == pytest.approx(95 * 1.5)
    with pytest.raises(ExpressionError, match=r"^the function nests 97 levels deep; at most 96 are allowed, and level "
                                              r"97 is at column 1; simplify it \(a chain like a \+ b \+ c \+ \.\.\. "
                                              r"counts one level per term\)"):
        evaluate("x" + " + x" * 95, X)


# ---------------------------------------------------------------- the inputs


def test_max_inputs():
    inputs = {f"x{k}": float(k) for k in range(16)}
    assert evaluate("x15", inputs).y == 15.0
    with pytest.raises(ExpressionError, match=r"^too many inputs \(17\); at most 16 are allowed$"):
        evaluate("x15", {**inputs, "x16": 16.0})


def test_max_rank():
    assert evaluate("sum(x)", {"x": np.ones((1, 1, 2, 1))}).jacobian.shape == (1, 2)
    assert evaluate("sum(x)", {"x": [[[[1.0, 2.0]]]]}).jacobian.shape == (1, 2)
    with pytest.raises(ExpressionError, match=r"^input 'x' has 5 dimensions; at most 4 are allowed$"):
        evaluate("sum(x)", {"x": np.ones((1, 1, 1, 2, 1))})
    with pytest.raises(ExpressionError, match=r"^input 'x' is nested 5 deep; at most 4 dimensions are allowed$"):
        evaluate("sum(x)", {"x": [[[[[1.0, 2.0]]]]]})


def test_max_elements_of_an_input():
    r = evaluate("sum(x) * s", {"x": np.ones(1_000_000), "s": 2.0}, watch=["s"])
    assert r.y == 2_000_000.0 and r.jacobian.tolist() == [[1_000_000.0]]
    with pytest.raises(ExpressionError, match=r"^input 'x' has 1,000,001 elements; at most 1,000,000 are allowed$"):
        evaluate("sum(x) * s", {"x": np.ones(1_000_001), "s": 2.0}, watch=["s"])
    # a nested list is counted only up to the first element over the limit (either wording says so)
    with pytest.raises(ExpressionError, match=r"^input 'x' has (more than 1,000,000|at least 1,000,001) elements; at "
                                              r"most 1,000,000 are allowed$"):
        evaluate("sum(x) * s", {"x": [1.0] * 1_000_001, "s": 2.0}, watch=["s"])


def test_max_elements_of_an_intermediate():
    inputs = {"a": np.ones((1000, 1)), "b": np.ones((1, 1000)), "c": np.ones((1, 1001)), "s": 0.5}
    assert evaluate("sum(a @ b) * s", inputs, watch=["s"]).y == 500_000.0
    with pytest.raises(ExpressionError, match=r"^this part would hold 1,001,000 elements; at most 1,000,000 are "
                                              r"allowed \(column 5\)"):
        evaluate("sum(a @ c) * s", inputs, watch=["s"])


def test_max_input_name_length():
    assert evaluate("a" * 32, {"a" * 32: 2.0}).y == 2.0
    with pytest.raises(ExpressionError, match=r"is longer than 32 characters$"):
        evaluate("a" * 33, {"a" * 33: 2.0})


# ---------------------------------------------------------------- the Jacobian and the eager loops


def test_max_jacobian():
    small = Limits(max_jacobian=12)
    assert evaluate("x * 2", {"x": np.ones(3)}, watch=["x"], limits=Limits(max_jacobian=9)).jacobian.shape == (3, 3)
    assert evaluate("[x, x] * 2", {"x": np.ones((2, 3))}, limits=Limits(max_jacobian=72)).jacobian.shape == (12, 6)
    with pytest.raises(ExpressionError, match=r"^the Jacobian would have 4 x 4 = 16 entries; at most 12 are allowed\. "
                                              r"It fits with at most 3 outputs for these 4 watched elements \(reduce "
                                              r"the output, for example with sum or mean\), or at most 3 watched "
                                              r"elements for these 4 outputs \(use a smaller input\)$"):
        evaluate("x * 2", {"x": np.ones(4)}, limits=small)
    with pytest.raises(ExpressionError, match=r"the Jacobian would have 3 x 5 = 15 entries; at most 12 are allowed"):
        evaluate("x * y[0]", {"x": np.ones(3), "y": np.ones(2)}, watch=["x", "y"], limits=small)


def test_max_jacobian_holds_for_a_callable_and_by_default():
    at = per_element_gradients(lambda x: x * 2.0, np.ones(3, np.float32), limits=Limits(max_jacobian=9))
    np.testing.assert_array_equal(at.jacobian, 2 * np.eye(3))
    with pytest.raises(ExpressionError, match=r"the Jacobian would have 4 x 4 = 16 entries; at most 9 are allowed"):
        per_element_gradients(lambda x: x * 2.0, np.ones(4, np.float32), limits=Limits(max_jacobian=9))
    # by default: 2,001 x 2,000 = 4,002,000 entries, refused from the shapes before any pass
    with pytest.raises(ExpressionError, match=r"the Jacobian would have 2,001 x 2,000 = 4,002,000 entries; at most "
                                              r"4,000,000 are allowed"):
        evaluate("x[0] * y", {"x": np.ones(2000), "y": np.ones(2001)}, watch=["x"])


@pytest.mark.parametrize("method, what", [("unstack", "output element"), ("naive", "output element"),
                                          ("forward", "watched element")])
def test_max_eager_passes(method, what):
    limits = Limits(max_eager_passes=5)
    text, at, over = ("x * 2", np.ones(5), np.ones(6))
    r = evaluate(text, {"x": at}, method=method, compiled=False, limits=limits)
    assert r.method == method and r.jacobian.shape == (5, 5)
    with pytest.raises(ExpressionError, match=rf"^method '{method}' runs one eager pass per {what}: 6 here, and at "
                                              r"most 5 are allowed\. Use method='jacobian' or 'auto'"):
        evaluate(text, {"x": over}, method=method, compiled=False, limits=limits)


@pytest.mark.parametrize("method", ["jacobian", "summed"])
def test_vectorized_methods_are_not_eager_loops_and_need_no_eager_passes(method):
    r = evaluate("x * 2", {"x": np.ones(3)}, method=method, compiled=False, limits=Limits(max_eager_passes=0))
    assert r.method == method and not r.compiled
    np.testing.assert_array_equal(r.jacobian, 2 * np.eye(3) if method == "jacobian" else [[2.0, 2.0, 2.0]])


def test_auto_takes_the_vectorized_jacobian_one_pass_past_the_eager_limit():
    limits = Limits(max_eager_passes=5)
    assert evaluate("x * 2", {"x": np.ones(5)}, compiled=False, limits=limits).method == "unstack"
    r = evaluate("x * 2", {"x": np.ones(6)}, compiled=False, limits=limits)
    assert r.method == "jacobian" and not r.compiled
    np.testing.assert_array_equal(r.jacobian, 2 * np.eye(6))


# ---------------------------------------------------------------- the work estimate

# The parser counts each node's elements (and 2 x m x k x n for a product): "x * x" on 3 elements is 3 + 3 + 3 = 9,
# "A @ x" with A 2 x 3 is 6 + 3 + 2 * 2 * 3 + 2 = 23. The cheapest method, jacobian, vectorizes m reverse passes,
# each twice the work of the watched part, plus an m-row identity, the outputs and the watched elements per pass:
# forward + m * (2 * forward + m + m + n): 9 + 3 * (18 + 9) = 90, and 23 + 2 * (46 + 2 + 2 + 9) = 141.
WORK = [("x * x", {"x": [1.0, 2.0, 3.0]}, 9.0, 90.0, "3 reverse passes vectorized: a 3 x 3 identity"),
        ("A @ x", {"A": np.ones((2, 3)), "x": [1.0, 2.0, 3.0]}, 23.0, 141.0,
         "2 reverse passes vectorized: a 2 x 2 identity")]


@pytest.mark.parametrize("text, inputs, parsed, total, detail", WORK)
def test_the_work_estimate_of_the_function(text, inputs, parsed, total, detail):
    assert parse(text, {k: np.shape(v) for k, v in inputs.items()}).flops == parsed


@pytest.mark.parametrize("text, inputs, parsed, total, detail", WORK)
def test_max_flops_of_the_whole_request(text, inputs, parsed, total, detail):
    r = evaluate(text, inputs, dtype="float64", limits=Limits(max_flops=total))
    assert r.method == "jacobian"   # the cheapest: an eager loop counts each dispatched operation as 50,000
    x = np.array([1.0, 2.0, 3.0])
    expected = np.diag(2 * x) if text == "x * x" else np.hstack([np.kron(np.eye(2), x), np.ones((2, 3))])
    np.testing.assert_array_equal(r.jacobian, expected)
    # as many digits as tell the two apart: "about 1.4e+02 ... at most 1.4e+02" read as if it fitted
    need, allowed = (re.escape(f"{v:g}") for v in (total, total - 1))
    with pytest.raises(ExpressionError, match=rf"^no method fits the limits: the cheapest, 'jacobian', would need "
                                              rf"about {need} floating-point operations \({detail} .*\); at most "
                                              rf"{allowed} are allowed for one request\. Watch fewer inputs"):
        evaluate(text, inputs, limits=Limits(max_flops=total - 1))


def test_compare_runs_within_its_limits_and_skips_a_check_that_does_not_fit():
    c = compare("x * x", {"x": [1.0, 2.0, 3.0]}, methods=["jacobian", "auto"], limits=Limits(max_flops=90))
    assert c.errors == {}
    np.testing.assert_array_equal(c.best.jacobian, np.diag([2.0, 4.0, 6.0]))
    # 6 evaluations of 9 operations and 3 eagerly dispatched parts are far over 90
    assert c.check.skipped.startswith("6 evaluations of this function would exceed the work allowed for one request")
    with pytest.raises(ExpressionError, match=r"^no method fits the limits: the cheapest, 'jacobian', would need "
                                              r"about 90 floating-point operations .*; at most 89 are allowed"):
        compare("x * x", {"x": [1.0, 2.0, 3.0]}, methods=["jacobian"], limits=Limits(max_flops=89))


# The parser's refusal may also state the count reached and the limit; where it does, both are pinned.
def _too_much(reached: str, allowed: str, column: int) -> str:
    return (rf"^the function needs too much computation for one request(: at least {reached} floating-point "
            rf"operations, and at most {allowed} are allowed)?; use smaller inputs \(column {column}\)")


def test_max_flops_of_the_function_alone_is_checked_while_parsing_with_the_column():
    inputs = {"x": [1.0, 2.0, 3.0]}
    with pytest.raises(ExpressionError, match=r"^no method fits the limits"):
        evaluate("x * x", inputs, limits=Limits(max_flops=9))   # the function fits; differentiating it does not
    with pytest.raises(ExpressionError, match=_too_much("9", "8", 1)):
        evaluate("x * x", inputs, limits=Limits(max_flops=8))   # x * x itself (the 9th operation) is too much
    with pytest.raises(ExpressionError, match=_too_much("6", "5", 5)):
        evaluate("x * x", inputs, limits=Limits(max_flops=5))   # the second x already is


def test_max_flops_by_default_refuses_just_over():
    # each 1000 x 1000 product counts 2e9 operations: two of them and their elements are just over 4e9
    shapes = {"A": (1000, 1000), "B": (1000, 1000), "s": ()}
    text = "sum(A @ B) + sum(A @ B) + s"
    assert 4e9 < parse(text, shapes, limits=Limits(max_flops=1e12)).flops < 4.01e9
    with pytest.raises(ExpressionError, match=_too_much("4,006,000,001", "4,000,000,000", 18)):
        evaluate(text, {name: np.ones(shape) for name, shape in shapes.items()}, watch=["s"])


# ---------------------------------------------------------------- share links


def test_share_link_parameter_lengths():
    for key, longest in share.MAX_LENGTHS.items():
        params = {"outputs": "x", "inputs": '{"x": 1}', key: ""}
        params[key] = {"outputs": "x" + " " * (longest - 1),
                       "inputs": '{"x": 1' + " " * (longest - 8) + "}",
                       "watch": "x" + " " * (longest - 1),
                       "method": "auto" + " " * (longest - 4),
                       "dtype": "float32" + " " * (longest - 7),
                       "order": "2" + " " * (longest - 1)}[key]
        assert len(params[key]) == longest
        assert share.decode(params).inputs == {"x": 1}
        params[key] += " "
        with pytest.raises(ExpressionError, match=rf"^share link: '{key}' is {longest + 1:,} characters long; at "
                                                  rf"most {longest:,} are allowed$"):
            share.decode(params)


def test_share_link_json_depth():
    assert share.decode({"outputs": "sum(x)", "inputs": '{"x": [[[[1]]]]}'}).inputs == {"x": [[[[1]]]]}
    with pytest.raises(ExpressionError, match=r"nested 6 levels deep; at most 5 are allowed, and level 6 is at "
                                              r"column 11; tensors have at most 4 dimensions"):
        share.decode({"outputs": "sum(x)", "inputs": '{"x": [[[[[1]]]]]}'})


def test_share_value_length():
    longest = share.MAX_VALUE_CHARS
    assert share.parse_value("1" + " " * (longest - 1), where="x") == 1
    with pytest.raises(ExpressionError, match=rf"^x is {longest + 1:,} characters long; at most {longest:,} are "
                                              r"allowed$"):
        share.parse_value("1" + " " * longest, where="x")


def test_share_link_inputs_count():
    rows = [{"name": f"x{k}", "value": "1", "watched": True, "dtype": "float32"} for k in range(17)]
    assert len(share.from_rows("x0", rows[:16]).inputs) == 16
    with pytest.raises(ExpressionError, match=r"^too many inputs \(17\); at most 16 are allowed$"):
        share.from_rows("x0", rows)
    assert json.loads(share.encode(share.from_rows("x0", rows[:2]))["inputs"]) == {"x0": 1, "x1": 1}
