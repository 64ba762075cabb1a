"""The finite-difference check and the agreement check fail when a Jacobian is wrong, and the diagnosis says so.

Each wrong Jacobian here is a correct one with chosen cells changed, so the cells the check must name are known.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import gradlib
from gradlib import GradResult, compare
from gradlib._perelement._comparison._checks import MAX_FD_COLUMNS, agreement, finite_differences

X = np.array([0.5, 1.0, 2.0])


@pytest.fixture(autouse=True)
def _first_seen(monkeypatch):
    """auto compiles a problem once its eager calls have cost a trace: start each test as if never seen."""
    from gradlib._perelement import _engine
    from gradlib._foundations._cache import LRUCache

    monkeypatch.setattr(_engine, "_EAGER_SECONDS", LRUCache(maxsize=64))


def sines(v: np.ndarray) -> np.ndarray:
    """y = [sin(x0), sin(x1) * x0, x2 ** 2]: a full 3 x 3 Jacobian with zeros and non-zeros."""
    return np.array([np.sin(v[0]), np.sin(v[1]) * v[0], v[2] ** 2])


def sines_jacobian(v: np.ndarray) -> np.ndarray:
    return np.array([[np.cos(v[0]), 0.0, 0.0],
                     [np.sin(v[1]), v[0] * np.cos(v[1]), 0.0],
                     [0.0, 0.0, 2 * v[2]]])


# ---------------------------------------------------------------- the check fails, naming the bad cells


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_true_jacobian_passes(dtype):
    check = finite_differences(sines, X, sines_jacobian(X), dtype)
    assert check.passed and check.bad_cells == () and check.skipped == ""
    np.testing.assert_allclose(check.numeric, sines_jacobian(X), rtol=1e-8, atol=1e-9)
    assert check.max_error < 1e-8
    assert check.step == 1e-6


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_wrong_jacobian_fails_with_exactly_the_wrong_cells(dtype):
    wrong = sines_jacobian(X)
    wrong[1, 1] *= 1.05          # a wrong value
    wrong[2, 0] = 0.01           # a spurious non-zero
    wrong[0, 0] = -wrong[0, 0]   # a sign error
    check = finite_differences(sines, X, wrong, dtype)
    assert not check.passed
    assert check.bad_cells == ((0, 0), (1, 1), (2, 0))
    assert check.max_error == pytest.approx(2 * np.cos(0.5), rel=1e-8)


def test_the_transposed_jacobian_fails_in_every_asymmetric_cell():
    check = finite_differences(sines, X, sines_jacobian(X).T, "float64")
    assert check.bad_cells == ((0, 1), (1, 0))


def test_a_small_error_fails_in_float64_but_passes_in_float32():
    wrong = sines_jacobian(X)
    wrong[2, 2] += 5e-4            # 1.25e-4 relative: beyond float64's tolerance, within float32's
    assert finite_differences(sines, X, wrong, "float64").bad_cells == ((2, 2),)
    assert finite_differences(sines, X, wrong, "float32").passed


# f(v) = diag(scale, 1) @ v is linear, so central differences are exact to rounding: the tolerance of cell
# (1, 1) is atol * max(scale, 1) + rtol * 1, with (rtol, atol) = (2e-3, 2e-3) in float32 and (1e-5, 1e-6) in float64.
@pytest.mark.parametrize("dtype, scale, tolerance", [
    ("float32", 10.0, 2e-3 * 10 + 2e-3),
    ("float32", 0.5, 2e-3 * 1 + 2e-3),      # the absolute part never shrinks below atol
    ("float64", 10.0, 1e-6 * 10 + 1e-5),
    ("float64", 1000.0, 1e-6 * 1000 + 1e-5),
])
def test_each_cell_may_differ_by_the_absolute_tolerance_times_the_scale_plus_the_relative_one(dtype, scale, tolerance):
    def linear(v):
        return np.array([scale * v[0], v[1]])

    x = np.array([0.3, 0.7])
    for error, bad in [(0.9 * tolerance, ()), (1.1 * tolerance, ((1, 1),))]:
        wrong = np.array([[scale, 0.0], [0.0, 1.0 + error]])
        check = finite_differences(linear, x, wrong, dtype)
        assert check.bad_cells == bad, (error, check.tolerance)
        np.testing.assert_allclose(check.tolerance[1, 1], tolerance, rtol=1e-6)


def test_a_large_output_lets_small_cells_differ_by_the_rounding_of_its_differences():
    # y = 1e8 * x0 + x1: d y / d x1 = 1, but its central difference is rounded at the scale of 1e8 (ulp 1.5e-8,
    # over 2h = 2e-6): correct, yet off by up to ~1e-2. The absolute tolerance scales with the Jacobian for this.
    c = compare("1e8 * x0 + x1", {"x0": 1.0, "x1": 0.3}, dtype="float64", methods=["auto"])
    assert c.check.passed
    np.testing.assert_allclose(c.best.jacobian, [[1e8, 1.0]])
    assert c.check.error[0, 1] > 1e-5   # more than rtol + plain atol: only the scaled atol accepts it


def test_a_nan_gradient_where_the_differences_are_finite_is_a_bad_cell():
    check = finite_differences(sines, X, np.where(np.eye(3) > 0, np.nan, sines_jacobian(X)), "float64")
    assert check.bad_cells == ((0, 0), (1, 1), (2, 2))
    assert check.max_error < 1e-8   # the NaN errors are not "the largest error"


def test_the_check_is_skipped_beyond_its_column_limit_and_runs_at_it():
    def f(v):
        return v[:1] * 2.0

    at = finite_differences(f, np.ones(MAX_FD_COLUMNS), np.eye(1, MAX_FD_COLUMNS) * 2.0, "float64")
    assert at.passed and at.skipped == ""
    over = finite_differences(f, np.ones(MAX_FD_COLUMNS + 1), np.eye(1, MAX_FD_COLUMNS + 1) * 2.0, "float64")
    assert over.skipped == f"{MAX_FD_COLUMNS + 1} watched elements (the check runs up to {MAX_FD_COLUMNS})"
    assert not over.passed and over.bad_cells == ()
    assert np.isnan(over.numeric).all() and over.numeric.shape == (1, MAX_FD_COLUMNS + 1)


def test_the_check_is_skipped_when_its_evaluations_exceed_the_work_allowed():
    jac = np.eye(3)
    assert finite_differences(lambda v: v, np.ones(3), jac, "float64", max_flops=6).passed
    skipped = finite_differences(lambda v: v, np.ones(3), jac, "float64", max_flops=5.9)
    assert skipped.skipped == "6 evaluations of this function would exceed the work allowed for one request: at most 5 fit"
    assert skipped.step == 1e-6 and np.isnan(skipped.error).all() and np.isnan(skipped.tolerance).all()
    # at the column limit, the work is what refuses
    at_limit = finite_differences(lambda v: v[:1], np.ones(MAX_FD_COLUMNS), np.eye(1, MAX_FD_COLUMNS), "float64",
                                  max_flops=10)
    assert at_limit.skipped == f"{2 * MAX_FD_COLUMNS} evaluations of this function would exceed the work allowed " \
                               "for one request: at most 10 fit"


def test_a_dtype_without_its_own_tolerance_is_checked_as_float32():
    wrong = sines_jacobian(X)
    wrong[2, 2] += 5e-4   # within float32's tolerance, beyond float64's
    assert finite_differences(sines, X, wrong, "float16").passed
    np.testing.assert_allclose(finite_differences(sines, X, wrong, "float16").tolerance,
                               finite_differences(sines, X, wrong, "float32").tolerance)


def test_the_step_grows_with_the_input_so_large_inputs_are_differentiated_accurately():
    # at x = 1e6 a fixed step of 1e-6 would be lost in rounding (ulp(1e6) = 1.2e-10, so the difference of x**2 is
    # off by ~1e-4 relative); the step is 1e-6 * |x| instead
    x = np.array([1e6])
    check = finite_differences(lambda v: v ** 2, x, np.array([[2e6]]), "float64")
    assert check.passed
    np.testing.assert_allclose(check.numeric, [[2e6]], rtol=1e-9)


# ---------------------------------------------------------------- through compare: relu at its kink


def test_a_passing_check_is_mentioned_in_the_verdict():
    c = compare("[x0 * x1, x0]", {"x0": 2.0, "x1": 3.0}, methods=["auto"])
    assert [f.title for f in c.diagnosis] == ["The per-element gradients are right"]
    # eagerly auto runs unstack; once its eager calls have cost a trace, it compiles reverse mode (jacobian)
    assert c.diagnosis[0].text == (f"method {c.best.method!r} gives one gradient row per element of y, and it matches "
                                   "central finite differences.")
    assert c.best.method in ("unstack", "jacobian")
    assert c.diagnosis[0].severity == "info" and c.diagnosis[0].method == "auto"


# ---------------------------------------------------------------- the other diagnosis paths


def test_the_naive_loop_happens_to_agree_where_every_true_gradient_is_zero():
    c = compare("[relu(x), 2 * relu(x)]", {"x": [-1.0, -2.0]})
    np.testing.assert_array_equal(c.best.jacobian, np.zeros((4, 2)))
    naive = [f for f in c.diagnosis if f.method == "naive"]
    assert [(f.title, f.severity) for f in naive] == [("The naive loop happens to agree here", "warning")]
    assert naive[0].text == ("Every true gradient is zero at this point, so the broken loop's zeros look right by "
                             "accident.")
    assert "The naive loop returns zeros" not in [f.title for f in c.diagnosis]
    zero = [f for f in c.diagnosis if f.title == "Every gradient with respect to x is zero here"]
    assert len(zero) == 1 and zero[0].severity == "info"


def test_one_nonzero_gradient_makes_the_naive_loop_wrong_again():
    c = compare("[relu(x), 2 * relu(x)]", {"x": [-1.0, 2.0]})
    naive = [f for f in c.diagnosis if f.method == "naive"]
    assert [(f.title, f.severity) for f in naive] == [("The naive loop returns zeros", "error")]


def _with_jacobian(result: GradResult, jacobian: np.ndarray) -> GradResult:
    return dataclasses.replace(result, jacobian=jacobian)


def test_agreement_compares_rows_and_summed_with_the_column_sums(seed):
    text, inputs = seed
    c = compare(text, inputs)
    verdict = {a.method: a for a in c.agreement}
    assert verdict["summed"].agrees and verdict["summed"].against == "column sums of auto"
    assert verdict["summed"].max_abs_diff == 0.0
    assert not verdict["naive"].agrees and verdict["naive"].max_abs_diff == 120.0
    assert verdict["naive"].against == "rows of auto"
    assert all(verdict[m].agrees and verdict[m].max_abs_diff < 1e-4 for m in ("unstack", "jacobian", "forward"))




@pytest.mark.parametrize("dtype, rtol", [("float32", 2e-3), ("float64", 1e-5)])
@pytest.mark.parametrize("factor", [1.0, 0.1])
def test_agreement_holds_within_the_dtypes_tolerance_and_not_beyond(dtype, rtol, factor):
    ref = gradlib.evaluate(f"[x0 * x1, x0] * {factor}", {"x0": 2.0, "x1": 3.0}, dtype=dtype, method="unstack")
    # cell (0, 0) is 3 * factor, the largest: it may differ by rtol * |J00| + atol * max(1, |J00|)
    # (atol = 2e-3 in float32, 1e-6 in float64; the scale never goes below 1)
    j00 = 3.0 * factor
    tolerance = rtol * j00 + {"float32": 2e-3, "float64": 1e-6}[dtype] * max(1.0, j00)
    for change, agrees in [(0.9 * tolerance, True), (1.1 * tolerance, False)]:
        moved = ref.jacobian.copy()
        moved[0, 0] += change
        a = agreement(_with_jacobian(ref, moved), ref, "unstack")
        assert a.agrees is agrees and a.max_abs_diff == pytest.approx(change, rel=1e-4), (dtype, change)
        assert a.differing == (0 if agrees else 1)


def test_agreement_counts_every_cell_the_nan_and_infinite_ones_too():
    ref = gradlib.evaluate("[exp(exp(10*x0)), 2*x1]", {"x0": 1.0, "x1": 1.0}, method="jacobian")
    np.testing.assert_array_equal(ref.jacobian, [[np.inf, 0.0], [np.nan, 2.0]])
    assert agreement(_with_jacobian(ref, ref.jacobian.copy()), ref, "jacobian").agrees   # NaN agrees with NaN
    a = agreement(_with_jacobian(ref, np.zeros((2, 2))), ref, "jacobian")
    assert (a.agrees, a.differing, a.example) == (False, 3, "(y[0], x0): 0 vs inf")   # inf, NaN and 2 vs 0
    assert a.max_abs_diff == 2.0          # the largest among the cells finite on both sides: (y[1], x1)
    finite = gradlib.evaluate("[x0 * x1, x0]", {"x0": 2.0, "x1": 3.0}, method="unstack")
    holed = finite.jacobian.copy()
    holed[1, 1] = np.nan
    a = agreement(_with_jacobian(finite, holed), finite, "unstack")
    assert not a.agrees and a.max_abs_diff == 0.0 and a.example == "(y[1], x1): nan vs 0"


def test_agreement_of_a_different_shape_is_infinitely_far():
    ref = gradlib.evaluate("[x0 * x1, x0]", {"x0": 2.0, "x1": 3.0}, method="unstack")
    a = agreement(_with_jacobian(ref, np.zeros((2, 3))), ref, "unstack")
    assert a == gradlib.Agreement("unstack", float("inf"), False, "rows of unstack", 6, "shape (2, 3) vs (2, 2)")


def test_where_the_function_is_not_defined_the_cell_is_named_unchecked_not_passed():
    # y[0] = log(-1) is NaN on both sides of the point, whichever input moves: its row cannot be checked (TensorFlow
    # still gives 1/x = -1 there). The check does not pass, and it does not blame the gradient either.
    c = compare("log(x)", {"x": [-1.0, 2.0]}, dtype="float64", methods=["auto"])
    np.testing.assert_array_equal(c.best.jacobian, [[-1.0, 0.0], [0.0, 0.5]])
    assert np.isnan(c.check.numeric[0]).all() and c.check.numeric[1].tolist() == pytest.approx([0.0, 0.5])
    assert c.check.bad_cells == () and c.check.unchecked_cells == ((0, 0), (0, 1)) and not c.check.passed
    # the row whose output is NaN is said once, as "Output not finite"; the check's own summary names the cells
    assert [f for f in c.diagnosis if f.title == "Cells the finite-difference check could not check"] == []
    [undefined] = [f for f in c.diagnosis if f.title == "Output not finite"]
    assert undefined.details.startswith("(y[0], x[0]) = -1 where y[0] = nan")
    assert c.check.unchecked(c.best.row_labels, c.best.col_labels) == [
        "(y[0], x[0]), (y[0], x[1]) could not be checked: the function is not defined (NaN) on either side of x[0], "
        "x[1]"]


def test_a_function_that_is_nowhere_finite_is_checked_without_warnings_and_nothing_passes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # 0/0 and log(-1) inside the check must not warn
        check = finite_differences(lambda v: np.log(-v) / 0.0, np.ones(2), np.full((2, 2), np.nan), "float64")
    assert np.isnan(check.numeric).all() and check.bad_cells == () and check.max_error == 0.0
    assert check.reason.tolist() == [[3, 3], [3, 3]] and not check.passed
    assert check.summary(["y[0]", "y[1]"], ["x[0]", "x[1]"]).startswith(
        "No cell could be checked against finite differences. (y[0], x[0]), (y[0], x[1]), (y[1], x[0]), (y[1], x[1]) "
        "could not be checked: the function is not defined (NaN) on either side of x[0], x[1].")


def test_a_skipped_check_is_reported_as_skipped_and_the_verdict_does_not_claim_it():
    small = gradlib.Limits(max_flops=5_000)
    c = compare("sum(W @ x)", {"W": np.ones((20, 20)), "x": np.ones(20)}, watch=["x"], methods=["auto"], limits=small)
    assert not c.check.passed and c.check.bad_cells == () and c.check.unchecked_cells == ()
    assert [(f.title, f.text) for f in c.diagnosis if f.title == "Finite-difference check skipped"] == [
        ("Finite-difference check skipped", c.check.skipped)]
    verdict = [f.text for f in c.diagnosis if f.title == "The per-element gradients are right"]
    assert len(verdict) == 1 and verdict[0].endswith("gives one gradient row per element of y.")
    summary = c.check.summary(c.best.row_labels, c.best.col_labels)
    assert summary == f"Finite-difference check skipped: {c.check.skipped}."
