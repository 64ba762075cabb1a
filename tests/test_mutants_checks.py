"""The finite-difference check's sentences, word for word (`make mutate` found them unpinned: docs/mutation.md).

Each check here is built on a function whose central differences are known: ``v * v`` is diagonal with
``2 v`` on it, ``sqrt`` is undefined just below 0. The sentences are what the comparison's diagnosis and the
dashboard show, so a changed word, number or count is a changed answer.
"""

from __future__ import annotations

import numpy as np

from gradlib._checks import MAX_FD_COLUMNS, FiniteDifferenceCheck, finite_differences

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
