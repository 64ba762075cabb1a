"""What the comparison says about non-finite cells: an infinite derivative is not NaN poisoning, agreement
counts every cell, the finite-difference check names the cells it could not check, and an integer input's
column is never reported as checked."""

from __future__ import annotations

import numpy as np
import pytest

import gradlib
from gradlib._perelement._comparison._checks import differing_cells, finite_differences
from gradlib._perelement._result import CELL_STATUS

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


# ----------------------------------------------------------------------------------------------------
# Pins (joined from test_mutants_checks.py)
# The finite-difference check's sentences, word for word (`make mutate` found them unpinned: docs/mutation.md).
#
# Each check here is built on a function whose central differences are known: ``v * v`` is diagonal with
# ``2 v`` on it, ``sqrt`` is undefined just below 0. The sentences are what the comparison's diagnosis and the
# dashboard show, so a changed word, number or count is a changed answer.
# ----------------------------------------------------------------------------------------------------


import warnings

import numpy as np

from gradlib._perelement._comparison._checks import (MAX_FD_COLUMNS, Agreement, FiniteDifferenceCheck, agreement,
                                                    differing_cells, finite_differences)
from gradlib._perelement._result import GradResult

ROWS6 = [f"y{i}" for i in range(6)]
COLS6 = [f"x{i}" for i in range(6)]


def square(v):
    return v * v


def test_a_passing_check_says_every_cell_agrees_with_its_step_and_largest_tolerance():
    x = np.array([1.0, 2.0])
    check = finite_differences(square, x, np.diag(2 * x), "float64")
    # float64: atol 1e-6 times the scale (the largest |cell|, 4) plus rtol 1e-5 times |cell| (4): 4.4e-5
    assert abs(check.max_tolerance - (4e-6 + 4e-5)) < 1e-15
    assert check.max_error < 1e-8
    assert check.summary(["y0", "y1"], ["x0", "x1"]) == (
        f"Central differences in float64 agree with every cell (largest error {check.max_error:.3g}, "
        "step 1e-06, tolerance at most 4.4e-05).")


def test_a_failing_check_counts_the_bad_cells_names_the_first_four_and_how_many_more():
    x = np.arange(1.0, 7.0)
    check = finite_differences(square, x, np.zeros((6, 6)), "float64")
    assert check.bad_cells == tuple((i, i) for i in range(6))
    assert check.differences(ROWS6, COLS6) == (
        "(y0, x0) gives 0 vs 2, (y1, x1) gives 0 vs 4, (y2, x2) gives 0 vs 6, (y3, x3) gives 0 vs 8 "
        "and 2 more by finite differences")
    assert check.differences(ROWS6, COLS6, limit=6) == (
        "(y0, x0) gives 0 vs 2, (y1, x1) gives 0 vs 4, (y2, x2) gives 0 vs 6, (y3, x3) gives 0 vs 8, "
        "(y4, x4) gives 0 vs 10, (y5, x5) gives 0 vs 12 by finite differences")
    # the scale is the largest |cell|, 12: 1e-6 * 12 + 1e-5 * 12
    assert check.summary(ROWS6, COLS6) == (
        "6 of 36 checked cell(s) differ from central finite differences, e.g. (y0, x0) gives 0 vs 2, "
        "(y1, x1) gives 0 vs 4, (y2, x2) gives 0 vs 6, (y3, x3) gives 0 vs 8 and 2 more by finite differences "
        "(tolerance at most 0.000132).")


def test_a_check_without_the_analytic_jacobian_writes_a_question_mark_for_it():
    one = np.ones((1, 1))
    check = FiniteDifferenceCheck(numeric=one, error=one, tolerance=one * 0.5, step=1e-6)
    assert check.bad_cells == ((0, 0),)
    assert check.differences(["y"], ["x"]) == "(y, x) gives ? vs 1 by finite differences"


def test_a_check_with_no_checkable_cell_says_so_and_why():
    check = finite_differences(np.sqrt, np.zeros(1), np.array([[np.inf]]), "float64")
    assert check.summary(["y"], ["x"]) == (
        "No cell could be checked against finite differences. "
        "(y, x) could not be checked: the function is not defined (NaN) just below x.")


def test_a_partly_checked_check_counts_the_checked_cells_and_adds_why_the_rest_were_not():
    def f(v):
        return np.array([np.sqrt(v[0]), v[1] * v[1]])

    check = finite_differences(f, np.array([0.0, 2.0]), np.array([[np.inf, 0.0], [0.0, 4.0]]), "float64")
    assert check.unchecked_cells == ((0, 0),) and check.bad_cells == ()
    assert check.summary(["y0", "y1"], ["x0", "x1"]) == (
        f"Central differences in float64 agree with all 3 checked cell(s) (largest error {check.max_error:.3g}, "
        "step 1e-06, tolerance at most 4.4e-05). "
        "(y0, x0) could not be checked: the function is not defined (NaN) just below x0.")


def test_a_skipped_check_says_why_in_one_sentence():
    n = MAX_FD_COLUMNS + 1
    check = finite_differences(lambda v: v[:1], np.ones(n), np.zeros((1, n)), "float64")
    assert check.summary(["y"], [f"x{j}" for j in range(n)]) == (
        f"Finite-difference check skipped: {n} watched elements (the check runs up to {MAX_FD_COLUMNS}).")


def test_unchecked_cells_beyond_the_limit_are_counted_and_their_columns_cut_short():
    check = finite_differences(np.sqrt, np.zeros(6), np.diag(np.full(6, np.inf)), "float64")
    assert check.unchecked(ROWS6, COLS6) == [
        "(y0, x0), (y1, x1), (y2, x2), (y3, x3) and 2 more could not be checked: the function is not defined (NaN) "
        "just below x0, x1, x2, x3, ..."]
    assert check.unchecked(ROWS6, COLS6, limit=6) == [
        "(y0, x0), (y1, x1), (y2, x2), (y3, x3), (y4, x4), (y5, x5) could not be checked: the function is not "
        "defined (NaN) just below x0, x1, x2, x3, x4, x5"]


def test_integer_columns_show_what_finite_differences_give_up_to_the_limit():
    x = np.arange(1.0, 7.0)
    check = finite_differences(square, x, np.zeros((6, 6)), "float64", integer_columns=np.ones(6, bool))
    [sentence] = check.unchecked(ROWS6, COLS6)
    assert sentence == (
        "(y0, x0), (y0, x1), (y0, x2), (y0, x3) and 32 more could not be checked: x0, x1, x2, x3, ... is an integer "
        "input: TensorFlow gives it no gradient (0), while the function's derivative is what finite differences "
        "measure, so the two are not comparable (finite differences give 2, 0, 0, 0, ...)")
    one = finite_differences(square, x[:1], np.zeros((1, 1)), "float64", integer_columns=np.ones(1, bool))
    assert one.unchecked(["y"], ["n"]) == [
        "(y, n) could not be checked: n is an integer input: TensorFlow gives it no gradient (0), while the "
        "function's derivative is what finite differences measure, so the two are not comparable "
        "(finite differences give 2)"]


def test_exactly_the_limit_of_integer_cells_shows_their_values_without_an_ellipsis():
    x = np.array([1.0, 2.0])
    check = finite_differences(square, x, np.zeros((2, 2)), "float64", integer_columns=np.ones(2, bool))
    [sentence] = check.unchecked(["y0", "y1"], ["n0", "n1"])
    assert sentence.startswith("(y0, n0), (y0, n1), (y1, n0), (y1, n1) could not be checked: n0, n1 is an integer")
    assert sentence.endswith("(finite differences give 2, 0, 0, 4)")


def test_a_function_infinite_on_one_side_only_is_not_checked_there():
    def step_to_inf(v):
        return np.where(v > 1.0, np.inf, v)

    check = finite_differences(step_to_inf, np.ones(1), np.ones((1, 1)), "float64")
    assert check.reason.tolist() == [[4]] and check.unchecked_cells == ((0, 0),) and not check.passed
    below = finite_differences(lambda v: np.where(v < 1.0, -np.inf, v), np.ones(1), np.ones((1, 1)), "float64")
    assert below.reason.tolist() == [[4]] and not below.passed


def test_the_step_is_a_millionth_of_the_input_and_never_less_than_a_millionth():
    # flat within 1.5e-6 of the point, the identity beyond: the differences see the slope only when the step
    # reaches past 1.5e-6, so they show which step was taken
    def flat_near(point):
        return lambda v: np.where(np.abs(v - point) > 1.5e-6 * max(1.0, point), v, point)

    for point, slope in [(0.5, 0.0), (1.0, 0.0), (-0.25, 0.0)]:
        assert finite_differences(flat_near(point), np.array([point]), np.zeros((1, 1)), "float64").numeric[0, 0] == slope
    wide = lambda v: np.where(np.abs(v - 0.5) > 0.75e-6, v, 0.5)    # noqa: E731 (a step of 1e-6 reaches past it)
    assert abs(finite_differences(wide, np.array([0.5]), np.ones((1, 1)), "float64").numeric[0, 0] - 1.0) < 1e-6


def result(jacobian, *, dtype="float64", per_element=True, requested="m"):
    jacobian = np.asarray(jacobian, float)
    rows = tuple(f"y[{i}]" for i in range(jacobian.shape[0]))
    cols = tuple(f"x{j}" for j in range(jacobian.shape[1]))
    return GradResult(np.zeros(jacobian.shape[0]), jacobian, rows, cols, requested, requested,
                      tuple((c, ()) for c in cols), dtype=dtype, per_element=per_element)


def test_results_of_different_shapes_disagree_in_every_cell_and_say_both_shapes():
    assert agreement(result([[1.0, 2.0]], requested="naive"), result([[1.0, 2.0], [3.0, 4.0]]), "auto") == Agreement(
        "naive", float("inf"), False, "rows of auto", 4, "shape (1, 2) vs (2, 2)")
    assert agreement(result(np.ones((1, 3)), requested="summed", per_element=False), result(np.ones((2, 2))),
                     "unstack") == Agreement("summed", float("inf"), False, "column sums of unstack", 3,
                                             "shape (1, 3) vs (1, 2)")


def test_a_summed_result_is_compared_with_the_column_sums_and_its_row_is_sum_y():
    reference = result([[1.0, np.inf], [2.0, -np.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # inf - inf in a column sum is NaN, silently
        got = agreement(result([[3.5, 0.0]], per_element=False, requested="summed"), reference, "jacobian")
    # of the 2 differing cells, x1 is 0 against inf + -inf = NaN: no difference measures it (nonfinite 1)
    assert got == Agreement("summed", 0.5, False, "column sums of jacobian", 2, "(sum(y), x0): 3.5 vs 3", 1)


def test_a_float32_result_or_reference_is_compared_at_float32_tolerance():
    exact, near = result([[1.0, 2.0]]), result([[1.0001, 2.0]])       # 1e-4 apart: float32 noise, a float64 error
    assert not agreement(near, exact, "auto").agrees
    assert agreement(result([[1.0001, 2.0]], dtype="float32"), exact, "auto").agrees
    assert agreement(near, result([[1.0, 2.0]], dtype="float32"), "auto").agrees


def test_results_that_agree_have_no_example_and_no_differing_cell():
    assert agreement(result([[1.0, np.nan]]), result([[1.0, np.nan]]), "auto") == Agreement(
        "m", 0.0, True, "rows of auto", 0, "")
    both_nan = agreement(result([[np.nan, np.nan]]), result([[np.nan, np.nan]]), "auto")
    assert (both_nan.max_abs_diff, both_nan.agrees, both_nan.example) == (0.0, True, "")


def test_the_largest_difference_counts_only_cells_finite_on_both_sides():
    got = agreement(result([[1.5, np.inf, 0.0]]), result([[1.0, 7.0, np.nan]]), "auto")
    # 3 cells differ, 2 of them non-finite on one side (inf vs 7, 0 vs NaN): nonfinite counts those, not all 3
    assert got == Agreement("m", 0.5, False, "rows of auto", 3, "(y[0], x0): 1.5 vs 1", 2)


def test_each_cell_may_differ_by_atol_times_the_scale_plus_rtol_times_itself_and_no_more():
    # float64: atol 1e-6, rtol 1e-5; the scale is the largest finite |target|, at least 1
    assert differing_cells(np.array([2e-6, 2.0]), np.array([0.0, 2.0]), "float64").tolist() == [False, False]
    assert differing_cells(np.array([2.1e-6, 2.0]), np.array([0.0, 2.0]), "float64").tolist() == [True, False]
    assert differing_cells(np.array([1.5e-6, 1.0]), np.array([0.0, 1.0]), "float64").tolist() == [True, False]
    assert differing_cells(np.array([1.5e-6, 0.5]), np.array([0.0, 0.5]), "float64").tolist() == [True, False]
    assert differing_cells(np.array([4.0 + 3e-5]), np.array([4.0]), "float64").tolist() == [False]
    assert differing_cells(np.array([4.0 + 5e-5]), np.array([4.0]), "float64").tolist() == [True]
    # float32 if any dtype is: 2e-3 each
    assert differing_cells(np.array([1.003]), np.array([1.0]), "float64", "float32").tolist() == [False]
    assert differing_cells(np.array([1.003]), np.array([1.0]), "float32").tolist() == [False]
    assert differing_cells(np.array([1.003]), np.array([1.0]), "float64").tolist() == [True]
    assert differing_cells(np.array([1.005]), np.array([1.0]), "float32").tolist() == [True]


def test_an_infinite_target_does_not_widen_the_tolerance_of_the_finite_cells():
    assert differing_cells(np.array([5.0, 2.0]), np.array([np.inf, 1.0]), "float64").tolist() == [True, True]
    assert differing_cells(np.array([np.nan, np.nan]), np.array([np.nan, np.nan]), "float64").tolist() == [False, False]


def test_non_finite_cells_are_compared_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert differing_cells(np.array([np.inf, -np.inf]), np.array([np.inf, np.inf]), "float64").tolist() == [
            False, True]
        assert not agreement(result([[np.inf, 1.0]]), result([[-np.inf, 1.0]]), "auto").agrees
        check = finite_differences(lambda v: np.full(1, np.inf) * v, np.ones(1), np.ones((1, 1)), "float64")
    assert check.reason.tolist() == [[4]]


def test_the_reason_of_each_cell_is_stored_in_one_byte():
    check = finite_differences(square, np.ones(3), np.diag(np.full(3, 2.0)), "float64")
    assert check.reason.dtype == np.int8 and check.reason.shape == (3, 3) and check.passed


def test_infinite_cells_on_both_sides_are_compared_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert agreement(result([[np.inf, 1.0]]), result([[np.inf, 1.0]]), "auto").agrees
        # the differences overflow to inf where the function jumps from -1e308 to 1e308, and the analytic cell is inf
        jump = finite_differences(lambda v: 1e308 * np.sign(v - 1.0), np.ones(1), np.array([[np.inf]]), "float64")
    assert jump.numeric.tolist() == [[np.inf]] and np.isnan(jump.error[0, 0])


def test_integer_columns_may_be_given_as_zeros_and_ones_and_never_set_the_scale():
    def f(v):
        return np.array([1000.0 * v[0] + v[1]])

    # float32: each cell may differ by 2e-3 times the scale of the checked cells (here 1) plus 2e-3 times itself
    check = finite_differences(f, np.ones(2), np.array([[0.0, 1.01]]), "float32", integer_columns=np.array([1, 0]))
    assert check.reason.tolist() == [[5, 0]]
    assert check.bad_cells == ((0, 1),)
    assert abs(check.tolerance[0, 1] - 4e-3) < 1e-9


# --- the kink probe (one-sided slopes at the step and at a tenth of it) --------------------------------------------
# Functions given as tables of their values at the points the probe may evaluate: every slope below is exact in
# float64 (a step of 10 and its tenth, 1, are exact), so a threshold can be met with equality.

from gradlib._perelement._comparison._checks import _one_sided  # noqa: E402  (the probe itself: its tolerance can be given exactly)


def tabled(values):
    """f(v) for a one-element v, read from ``values`` (a KeyError for any point the probe should not evaluate)."""
    return lambda v: np.array([float(values[float(v[0])])])


def probe(values, tolerance):
    return _one_sided(tabled(values), np.array([0.0]), np.array([10.0]), [0], np.array([[tolerance]]))


def test_the_probe_evaluates_the_point_and_each_side_at_the_step_and_at_a_tenth_of_it():
    seen = []

    def f(v):
        seen.append(float(v[0]))
        return np.array([abs(float(v[0]))])

    _one_sided(f, np.array([3.0]), np.array([0.5]), [0], np.zeros((1, 1)))
    assert seen == [3.0, 2.5, 3.5, 2.95, 3.05]


def test_the_slopes_reported_are_those_at_a_tenth_of_the_step():
    # 0 below, then 7 per unit up to 1 and 2 per unit beyond: the fine step (1) sees 7, the step (10) sees 2.5
    slopes, kinks = probe({0.0: 0, -1.0: 0, -10.0: 0, 1.0: 7, 10.0: 25}, 0.0)
    assert slopes[:, 0, 0].tolist() == [0.0, 7.0]
    assert not kinks[0, 0]     # the slope above drifts with the step (2.5 vs 7): not a steady kink


def test_a_kink_needs_a_jump_beyond_the_tolerance():
    steady = {0.0: 0, -1.0: 2, -10.0: 20, 1.0: 100, 10.0: 1000}     # slopes -2 below, 100 above: jump 102
    assert probe(steady, 101.999)[1][0, 0]
    assert not probe(steady, 102.0)[1][0, 0]


def test_a_kink_needs_the_slopes_to_drift_less_than_a_hundredth_of_the_jump():
    # slope 0 below, 100 above at the fine step: jump 100; above at the step: g(10) / 10
    def above(at_ten):
        return probe({0.0: 0, -1.0: 0, -10.0: 0, 1.0: 100, 10.0: at_ten}, 0.0)[1][0, 0]

    assert above(1009.95)          # drift 0.995: 99.5 < 100
    assert not above(1010.0)       # drift 1: exactly a hundredth is not less
    # a drift below the point counts as much as one above it, by its size whatever the sign of the slopes
    assert probe({0.0: 0, -1.0: 2, -10.0: 20, 1.0: 100, 10.0: 1000}, 0.0)[1][0, 0]   # -2 below at both steps
    assert not probe({0.0: 0, -1.0: 2, -10.0: 40, 1.0: 100, 10.0: 1000}, 0.0)[1][0, 0]   # -4 vs -2: drift 2


def leaky(v):
    """Slope 2 below 0 and 1 above it, in each element: central differences give 1.5 at 0, a kink."""
    return np.where(v > 0, v, 2 * v)


def test_a_kink_with_a_steep_slope_below_is_found_and_its_slopes_reported():
    check = finite_differences(leaky, np.array([0.0]), np.array([[0.0]]), "float64")
    assert check.bad_cells == ((0, 0),)
    assert check.kinks.tolist() == [[True]]
    assert np.allclose(check.slopes[:, 0, 0], [2.0, 1.0], atol=1e-9)


def two_kinks(calls):
    def f(v):
        calls.append(1)
        return leaky(v)
    return f


def test_the_probe_runs_only_when_its_evaluations_fit_the_work_allowed_and_costs_exactly_that():
    # two watched elements, both columns bad: 2 * 2 central evaluations, 1 at the point, 4 per bad column = 13
    x, analytic = np.zeros(2), np.zeros((2, 2))
    calls = []
    check = finite_differences(two_kinks(calls), x, analytic, "float64", max_flops=13)
    assert len(calls) == 13
    assert check.kinks.tolist() == [[True, False], [False, True]]
    calls.clear()
    check = finite_differences(two_kinks(calls), x, analytic, "float64", max_flops=12)
    assert len(calls) == 4
    assert check.slopes is None and check.kinks is None
    assert check.bad_cells == ((0, 0), (1, 1))


def test_only_bad_cells_are_called_kinks_even_where_a_good_cell_of_the_same_column_has_one():
    # row 0 is the leaky kink (0 vs 1.5: bad); row 1 is |v|, whose central difference 0 is what row 1 claims
    def f(v):
        return np.array([leaky(v)[0], abs(v[0])])

    x = np.array([0.0])
    first = finite_differences(f, x, np.array([[0.0], [0.0]]), "float64")
    assert first.bad_cells == ((0, 0),)
    assert first.kinks.tolist() == [[True], [False]]
    # row 1 off by exactly its tolerance is still good, so still no kink there
    edge = np.array([[0.0], [first.tolerance[1, 0]]])
    check = finite_differences(f, x, edge, "float64")
    assert check.error[1, 0] == check.tolerance[1, 0]
    assert check.bad_cells == ((0, 0),)
    assert check.kinks.tolist() == [[True], [False]]


def test_the_probe_raises_no_numpy_warning_where_the_function_is_undefined_beside_the_point():
    # row 1 is log: -inf at 0 and NaN below it, in the very column the probe measures for row 0
    def f(v):
        return np.array([leaky(v)[0], np.log(v[0])])

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check = finite_differences(f, np.array([0.0]), np.array([[0.0], [0.0]]), "float64")
    assert check.kinks.tolist() == [[True], [False]]


def test_differences_name_the_cells_asked_for_not_the_bad_ones():
    check = finite_differences(square, np.array([1.0, 2.0]), np.array([[2.0, 0.0], [0.0, 5.0]]), "float64")
    assert check.bad_cells == ((1, 1),)
    assert check.differences(["y0", "y1"], ["x0", "x1"], cells=[(0, 0)]).startswith(
        "(y0, x0) gives 2 vs 2")


def test_the_summary_writes_errors_and_tolerances_with_three_significant_digits():
    x = np.array([1.2345])
    good = finite_differences(square, x, np.array([[2 * 1.2345]]), "float64")
    # tolerance 1e-6 * 2.469 + 1e-5 * 2.469 = 2.7159e-05
    assert good.summary(["y"], ["x"]).endswith("step 1e-06, tolerance at most 2.72e-05).")
    off = finite_differences(square, x, np.array([[2.0]]), "float64")
    assert off.summary(["y"], ["x"]).endswith("(y, x) gives 2 vs 2.469 by finite differences (tolerance at most "
                                              "2.72e-05).")
    slightly = finite_differences(square, x, np.array([[2.469 + 1.23456e-5]]), "float64")
    assert "largest error 1.23e-05," in slightly.summary(["y"], ["x"])


def test_the_summary_says_which_bad_cells_are_at_a_kink():
    kink = 'at a kink, where the function has no derivative (the diagnosis "Finite differences straddle a kink").'
    one = finite_differences(leaky, np.array([0.0]), np.array([[0.0]]), "float64")
    assert one.summary(["y"], ["x"]).endswith("(tolerance at most 1.65e-05). It is " + kink)
    both = finite_differences(leaky, np.zeros(2), np.zeros((2, 2)), "float64")
    assert both.summary(["y0", "y1"], ["x0", "x1"]).endswith("). All 2 are " + kink)

    def one_of_two(v):   # a kink in x0; a smooth x1 * x1, claimed to be 0
        return np.array([leaky(v[:1])[0], v[1] * v[1]])

    mixed = finite_differences(one_of_two, np.array([0.0, 1.0]), np.zeros((2, 2)), "float64")
    assert mixed.bad_cells == ((0, 0), (1, 1))
    assert mixed.summary(["y0", "y1"], ["x0", "x1"]).endswith("). 1 of them is " + kink)
    def two_of_three(v):   # kinks in x0 and x1; a smooth x2 * x2, claimed to be 0
        return np.array([leaky(v[:1])[0], leaky(v[1:2])[0], v[2] * v[2]])

    most = finite_differences(two_of_three, np.array([0.0, 0.0, 1.0]), np.zeros((3, 3)), "float64")
    assert most.summary(["y0", "y1", "y2"], ["x0", "x1", "x2"]).endswith("). 2 of them are " + kink)
    # slopes not measured (no work left for them): nothing is said of kinks
    unprobed = finite_differences(leaky, np.array([0.0]), np.array([[0.0]]), "float64", max_flops=2)
    assert unprobed.kinks is None and unprobed.bad_cells == ((0, 0),)
    assert unprobed.summary(["y"], ["x"]).endswith("by finite differences (tolerance at most 1.65e-05).")
    # no kink, no sentence
    assert finite_differences(square, np.array([1.0]), np.array([[3.0]]), "float64").summary(["y"], ["x"]).endswith(
        "by finite differences (tolerance at most 2.2e-05).")
