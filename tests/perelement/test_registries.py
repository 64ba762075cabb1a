"""The methods table is the one place a method is described (issue 11): every stage reads its row, and the cost
model has an estimate for every row, so a new method is a row here and its estimate in ``gradlib._perelement._cost``."""

from __future__ import annotations

import numpy as np
import pytest

import gradlib
from gradlib._perelement import _cost


def test_every_method_that_computes_has_a_cost_estimate_and_no_estimate_is_orphaned():
    computing = {name for name, row in gradlib.METHOD_TABLE.items() if row.eager is not None}
    assert set(_cost.COSTS) == computing == set(gradlib.METHODS) - {"auto"}


def test_each_row_says_how_it_differentiates_and_a_result_takes_its_mode_from_its_row():
    assert {name: row.mode for name, row in gradlib.METHOD_TABLE.items()} == {
        "unstack": "reverse", "jacobian": "reverse", "forward": "forward", "structured": "forward", "naive": "reverse",
        "summed": "reverse", "auto": "reverse"}
    modes = {m: gradlib.evaluate("x*x", {"x": [1.0, 2.0]}, method=m).mode
             for m in ("unstack", "jacobian", "forward", "structured")}
    assert modes == {"unstack": "reverse", "jacobian": "reverse", "forward": "forward", "structured": "forward"}


@pytest.mark.parametrize("method, rows", [("summed", ("sum(y)",)), ("unstack", ("y[0]", "y[1]"))])
def test_a_result_with_nothing_differentiable_watched_still_has_the_rows_its_row_of_the_table_says(method, rows):
    # only an integer input is watched: no method runs a pass, and the rows follow the table's per_element
    r = gradlib.evaluate("x*n", {"x": [1.0, 2.0], "n": 3}, watch=["n"], dtype={"x": "float32", "n": "int32"},
                         method=method)
    assert r.row_labels == rows
    np.testing.assert_array_equal(r.jacobian, np.zeros((len(rows), 1)))


def test_an_eager_loop_over_the_limit_names_what_it_loops_over_from_its_row():
    small = gradlib.Limits(max_eager_passes=2)
    with pytest.raises(gradlib.ExpressionError, match="runs one eager pass per output element: 3 here"):
        gradlib.evaluate("x*x", {"x": [1.0, 2.0, 3.0]}, method="unstack", compiled=False, limits=small)
    with pytest.raises(gradlib.ExpressionError, match="runs one eager pass per watched element: 3 here"):
        gradlib.evaluate("sum(x)", {"x": [1.0, 2.0, 3.0]}, method="forward", compiled=False, limits=small)


def test_the_bench_times_every_correct_method_of_the_table_eagerly_and_compiled():
    from benchmarks import mlp

    small, large = dict(mlp.contenders(64)), dict(mlp.contenders(1024))
    for method in gradlib.CORRECT_METHODS:
        assert small[f"gradlib {method} eager"] and f"gradlib {method} compiled" in small
    # an eager Python loop (one pass per output or per input) is skipped at large sizes; vectorized jacobian is not
    assert {m: large[f"gradlib {m} eager"] for m in gradlib.CORRECT_METHODS} == {
        "unstack": False, "jacobian": True, "forward": False, "structured": True}


def test_a_wrong_method_without_words_of_its_own_is_explained_by_its_table_reason():
    from dataclasses import replace

    from gradlib._perelement._comparison._findings import diagnose

    comparison = gradlib.compare("[x0*x1, x1]", {"x0": 3, "x1": 4}, methods=["naive", "summed", "auto"])
    results = dict(comparison.results)
    results["mystery"] = replace(results["naive"], method="mystery", reason="it read the wrong tape")
    findings = {f.method: f for f in diagnose(results, comparison.best)}
    assert (findings["mystery"].title, findings["mystery"].text, findings["mystery"].severity) == (
        "mystery does not give the per-element gradients", "it read the wrong tape", "error")
    assert findings["naive"].title == "The naive loop returns zeros"
    assert findings["summed"].title == "tape.gradient(y, x) sums over the elements of y"
