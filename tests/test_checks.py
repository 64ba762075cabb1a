"""What the comparison says about non-finite cells: an infinite derivative is not NaN poisoning, agreement
counts every cell, the finite-difference check names the cells it could not check, and an integer input's
column is never reported as checked."""

from __future__ import annotations

import numpy as np
import pytest

import gradlib
from gradlib._checks import differing_cells, finite_differences
from gradlib._result import CELL_STATUS

SQRT = "[sqrt(x0-3), x1]"          # at x0 = 3: y[0] = 0 is finite, d y[0] / d x0 = inf (the true derivative)
POISON = "[exp(exp(10*x0)), 2*x1]"  # at x0 = 1: y[0] = inf poisons y[1]'s reverse-mode row with NaN


@pytest.fixture(scope="module")
def sqrt_comparison():
    return gradlib.compare(SQRT, {"x0": 3.0, "x1": 4.0})


def statuses(result: gradlib.GradResult) -> list[tuple[str, str, str]]:
    notes = result.cell_notes()
    return list(zip(notes["output"], notes["input"], notes["status"]))


def by_title(comparison, title: str) -> list[gradlib.Finding]:
    return [f for f in comparison.diagnosis if f.title == title]


# ---------------------------------------------------------------- 1. an infinite derivative is not NaN poisoning

@pytest.mark.parametrize("method", ["unstack", "jacobian", "auto"])
def test_an_infinite_derivative_is_reported_as_such_not_as_poisoning(sqrt_comparison, method):
    result = sqrt_comparison.results[method]
    np.testing.assert_array_equal(result.jacobian, [[np.inf, 0.0], [0.0, 1.0]])
    assert result.poisoned_rows == () and result.repaired_rows == ()
    assert statuses(result) == [("y[0]", "x0", "infinite")]
    assert not any("poisoning" in w.lower() for w in result.warnings)


def test_the_diagnosis_names_the_infinite_cell_and_blames_no_other_output(sqrt_comparison):
    [infinite] = by_title(sqrt_comparison, "Infinite derivative")
    assert infinite.text.startswith("The output is finite but changes infinitely fast")
    assert infinite.details == "(y[0], x0) = inf."
    assert "This is not NaN poisoning" in infinite.text
    assert all("another output is infinite" not in f.text for f in sqrt_comparison.diagnosis)
    # the only NaN poisoning there is: forward mode's NaN in (y[0], x1), whose true value is 0
    poisoning = by_title(sqrt_comparison, "NaN poisoning")
    assert [f.method for f in poisoning] == ["forward"]
    assert "(y[0], x1) is NaN, true value 0" in poisoning[0].details and "forward mode" in poisoning[0].text


def test_forward_modes_nan_cell_is_its_own_status(sqrt_comparison):
    forward = sqrt_comparison.results["forward"]
    assert np.isnan(forward.jacobian[0, 1])
    assert forward.poisoned_rows == (0,)
    assert statuses(forward) == [("y[0]", "x0", "infinite"), ("y[0]", "x1", "nan")]
    note = forward.cell_notes().set_index("input").loc["x1", "what happened"]
    assert note.startswith("NaN although y[0] is finite: 0 x inf = NaN in forward mode")


def test_auto_reports_the_cells_it_repaired_and_what_stayed_undefined():
    repaired = gradlib.evaluate(POISON, {"x0": 1.0, "x1": 1.0})
    # y[0] is inf: its whole row is "output not finite", its 0 for x1 as much as its inf for x0
    assert statuses(repaired) == [("y[0]", "x0", "output not finite"), ("y[0]", "x1", "output not finite"),
                                  ("y[1]", "x0", "repaired")]
    assert repaired.repaired_cells.tolist() == [[1, 0]] and repaired.other_mode == "forward"
    undefined = gradlib.evaluate("sqrt(x*x)", {"x": 0.0})   # 0/0: NaN in both modes, not poisoning
    assert statuses(undefined) == [("y", "x", "undefined")]
    assert undefined.poisoned_rows == () and undefined.repaired_rows == ()
    assert any("NaN in both reverse and forward mode" in w for w in undefined.warnings)
    assert set(CELL_STATUS) == {"finite", "infinite", "nan", "undefined", "output not finite", "repaired"}


# ---------------------------------------------------------------- 2. agreement counts every cell

def test_agreement_does_not_ignore_non_finite_cells(sqrt_comparison):
    agreement = {a.method: a for a in sqrt_comparison.agreement}
    assert not agreement["forward"].agrees                         # [inf, nan] where the truth is [inf, 0]
    assert agreement["forward"].differing == 1 and agreement["forward"].example == "(y[0], x1): nan vs 0"
    assert agreement["jacobian"].agrees and agreement["unstack"].agrees   # inf matches inf
    assert agreement["summed"].agrees                              # [inf, 1] are the column sums


def test_differing_cells_matches_nan_with_nan_and_inf_with_inf_of_the_same_sign():
    mine = np.array([np.nan, np.inf, -np.inf, np.inf, 1.0, np.nan, 1.0])
    true = np.array([np.nan, np.inf, np.inf, 5.0, np.nan, 0.0, 1.0 + 1e-9])
    assert differing_cells(mine, true, "float64").tolist() == [False, False, True, True, True, True, False]


def test_a_nan_poisoned_method_disagrees_but_is_explained_once_not_as_an_unexplained_disagreement():
    c = gradlib.compare(POISON, {"x0": 1.0, "x1": 1.0}, methods=["jacobian", "auto"])
    jacobian = next(a for a in c.agreement if a.method == "jacobian")
    assert not jacobian.agrees and jacobian.example == "(y[1], x0): nan vs 0"
    assert [f.method for f in by_title(c, "NaN poisoning")] == ["jacobian"]
    assert by_title(c, "Correct methods disagree") == []


# ---------------------------------------------------------------- 3. cells the check could not check

def test_the_finite_difference_check_names_cells_it_could_not_check_and_does_not_pass(sqrt_comparison):
    check, best = sqrt_comparison.check, sqrt_comparison.best
    assert check.unchecked_cells == ((0, 0),) and check.bad_cells == ()
    assert not check.passed
    assert check.unchecked(best.row_labels, best.col_labels) == [
        "(y[0], x0) could not be checked: the function is not defined (NaN) just below x0"]
    summary = check.summary(best.row_labels, best.col_labels)
    assert summary.startswith("Central differences in float64 agree with all 3 checked cell(s)")
    assert "nan" not in summary.lower().replace("(nan)", "")
    [finding] = by_title(sqrt_comparison, "Cells the finite-difference check could not check")
    assert "(y[0], x0) could not be checked" in finding.text
    assert all("matches central finite differences" not in f.text for f in sqrt_comparison.diagnosis)


def test_finite_differences_say_which_side_is_undefined():
    def f(v):
        return np.array([np.sqrt(v[0]), np.sqrt(-v[1]), np.sqrt(v[2]) * np.sqrt(-v[2])])

    check = finite_differences(f, np.zeros(3), np.zeros((3, 3)), "float64")
    assert check.reason[:, 0].tolist() == [1, 0, 0]      # sqrt(x) is NaN just below 0
    assert check.reason[:, 1].tolist() == [0, 2, 0]      # sqrt(-x) is NaN just above 0
    assert check.reason[:, 2].tolist() == [0, 0, 3]      # undefined on both sides
    overflow = finite_differences(lambda v: np.exp(1000 * v), np.ones(1), np.array([[np.inf]]), "float64")
    assert overflow.reason.tolist() == [[4]] and not overflow.passed
    assert overflow.unchecked(["y"], ["x"]) == ["(y, x) could not be checked: the function is infinite just beside x"]


# ---------------------------------------------------------------- 4. integer inputs: like with like

def test_an_integer_inputs_column_is_not_claimed_to_agree_with_finite_differences(seed):
    text, inputs = seed
    c = gradlib.compare(text, inputs, dtype={"x0": "int32"})
    np.testing.assert_array_equal(c.best.jacobian[:, 0], [0.0, 0.0])   # the tape ignores integer tensors
    assert not c.check.passed
    assert c.check.unchecked_cells == ((0, 0), (1, 0)) and c.check.bad_cells == ()
    [sentence] = c.check.unchecked(c.best.row_labels, c.best.col_labels)
    assert sentence.startswith("(y[0], x0), (y[1], x0) could not be checked: x0 is an integer input: TensorFlow "
                               "gives it no gradient (0)")
    assert sentence.endswith("(finite differences give 20, 120)")
    assert by_title(c, "Cells the finite-difference check could not check") == []   # said by the integer finding:
    [finding] = by_title(c, "'x0' is an integer input: no gradient")
    assert finding.severity == "warning" and "Finite differences give (y[0], x0) 20, (y[1], x0) 120." in finding.full
    assert "agree with every cell" not in c.check.summary(c.best.row_labels, c.best.col_labels)


def test_a_summed_rows_status_judges_the_sum_of_y():
    inf_sum = gradlib.evaluate(POISON, {"x0": 1.0, "x1": 1.0}, method="summed")
    assert statuses(inf_sum) == [("sum(y)", "x0", "output not finite"), ("sum(y)", "x1", "output not finite")]
    steep = gradlib.evaluate(SQRT, {"x0": 3.0, "x1": 4.0}, method="summed")
    assert statuses(steep) == [("sum(y)", "x0", "infinite")]
