"""The diagnosis paths of ``gradlib.compare``, each reached through the public API with its cells and wording pinned:
relu at its kink (a kink, not a flat region), finite differences that disagree with methods that are right (the step
is blamed only when reverse and forward mode agree), outputs outside the function's domain, the naive loop that
happens to agree, and correct methods that disagree (one of them made wrong on purpose)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._perelement._comparison._checks import finite_differences
from gradlib._perelement._comparison._findings import diagnose

KINK_ADVICE = ("This is expected at kinks (abs, relu, maximum at a tie) and where the function is not finite; "
               "elsewhere it points at a wrong gradient.")
STEP_ADVICE = ("Reverse and forward mode compute the gradient independently and agree on these cells, so the "
               "finite-difference step is the likely cause, not the gradient: the step was {h} at {x} (1e-06 x max(1, "
               "|x|)), and the function varies on a smaller scale than that (a fast oscillation, a kink or jump within "
               "the step) or rounding swamps the difference.")
KINK = ("In {n} the function has a different slope on each side of this point, so it has no derivative there: "
        "central differences average the two sides, and TensorFlow takes a value between the one-sided slopes by "
        "convention (relu'(0) = 0, a subgradient). This is not a wrong gradient.")
FLAT = "x is used, but at this point no output changes with it (a flat region, for example relu below zero)."
PER_ELEMENT = ("unstack", "jacobian", "forward", "auto")


def titles(c: gradlib.Comparison) -> list[tuple[str | None, str, str]]:
    return [(f.method, f.title, f.severity) for f in c.diagnosis]


def finding(c: gradlib.Comparison, title: str) -> gradlib.Finding:
    (found,) = [f for f in c.diagnosis if f.title == title]
    return found


# ---------------------------------------------------------------- relu at its kink


@pytest.fixture(scope="module")
def relu_kink():
    return gradlib.compare("relu(x) * 3", {"x": [0.0, 1.0, -1.0]}, dtype="float64")


def test_at_relus_kink_every_method_takes_the_derivative_zero(relu_kink):
    # TensorFlow defines relu'(0) = 0 (ReluGrad passes the gradient only where x > 0), in both modes
    for method in PER_ELEMENT:
        np.testing.assert_array_equal(relu_kink.results[method].jacobian, np.diag([0.0, 3.0, 0.0]), err_msg=method)
    assert relu_kink.reference == "auto" and relu_kink.errors == {}
    np.testing.assert_array_equal(relu_kink.results["summed"].jacobian, [[0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(relu_kink.results["naive"].jacobian, np.zeros((3, 3)))
    agreement = {a.method: a for a in relu_kink.agreement}
    assert all(agreement[m].agrees and agreement[m].max_abs_diff == 0.0 for m in PER_ELEMENT + ("summed",))
    assert not agreement["naive"].agrees and agreement["naive"].example == "(y[1], x[1]): 0 vs 3"


def test_at_relus_kink_the_central_difference_straddles_it_and_the_check_fails_on_that_cell_alone(relu_kink):
    check = relu_kink.check
    # (relu(h) - relu(-h)) * 3 / 2h = 1.5 at the kink; elsewhere the differences are the derivative
    np.testing.assert_allclose(check.numeric, np.diag([1.5, 3.0, 0.0]), rtol=1e-9, atol=1e-12)
    assert check.bad_cells == ((0, 0),) and check.unchecked_cells == () and not check.passed
    assert check.max_error == pytest.approx(1.5)
    best = relu_kink.best
    assert check.summary(best.row_labels, best.col_labels) == (
        "1 of 9 checked cell(s) differ from central finite differences, e.g. (y[0], x[0]) gives 0 vs 1.5 by finite "
        "differences (tolerance at most 3.3e-05). It is at a kink, where the function has no derivative (the "
        "diagnosis \"Finite differences straddle a kink\").")


def test_at_relus_kink_the_check_measures_a_steady_slope_on_each_side(relu_kink):
    check = relu_kink.check
    assert check.kinks.tolist() == [[True, False, False], [False, False, False], [False, False, False]]
    np.testing.assert_allclose(check.slopes[:, 0, 0], [0.0, 3.0], atol=1e-9)   # relu * 3: 0 below, 3 above
    assert np.isnan(check.slopes[:, :, 1:]).all()                            # only the bad cell's column is probed
    np.testing.assert_allclose(check.steps, [1e-6, 1e-6, 1e-6])


def test_at_relus_kink_the_diagnosis_blames_the_kink_not_the_methods(relu_kink):
    assert titles(relu_kink) == [
        ("naive", "The naive loop returns zeros", "error"),
        ("summed", "tape.gradient(y, x) sums over the elements of y", "error"),
        (None, "Finite differences straddle a kink", "warning")]
    assert finding(relu_kink, "Finite differences straddle a kink").text == KINK.format(n="1 cell")
    assert finding(relu_kink, "Finite differences straddle a kink").details == (
        "(y[0], x[0]) has slope 0 below x[0] and 3 above (TensorFlow gives 0, central differences 1.5).")
    # a warning about the result itself: the verdict "right" is not given, and no method is said to disagree
    assert "The per-element gradients are right" not in [t for _, t, _ in titles(relu_kink)]
    assert finding(relu_kink, "tape.gradient(y, x) sums over the elements of y").text.startswith(
        "tape.gradient(y, x) gave [0, 3, 0]: the gradient of sum(y), which is the column sums of the Jacobian (for "
        "x[0]: 0 + 0 + 0 = 0).")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_at_a_scalar_relus_kink_the_zero_gradient_is_called_a_kink_not_a_flat_region(dtype):
    c = gradlib.compare("relu(x)", {"x": 0.0}, dtype=dtype)
    for method in PER_ELEMENT + ("naive", "summed"):
        assert c.results[method].jacobian.tolist() == [[0.0]], method
    assert c.check.numeric.tolist() == [[0.5]] and c.check.bad_cells == ((0, 0),) and c.check.kinks.tolist() == [[True]]
    assert titles(c) == [
        ("naive", "The naive loop happens to agree here", "warning"),
        ("summed", "tape.gradient is the per-element gradient here", "info"),
        (None, "Every gradient with respect to x is zero here, at a kink", "info"),
        (None, "Finite differences straddle a kink", "warning")]
    assert finding(c, "The naive loop happens to agree here").text == (
        "Every true gradient is zero at this point, so the broken loop's zeros look right by accident.")
    assert finding(c, "Every gradient with respect to x is zero here, at a kink").text == (
        "x is used, and the function is not flat here: at (y, x) it has a kink (a different slope on each side, see "
        "\"Finite differences straddle a kink\"), where TensorFlow takes the derivative as 0 (as relu'(0) = 0).")
    assert "flat region" not in " ".join(f.text for f in c.diagnosis)
    assert finding(c, "Finite differences straddle a kink").full == (
        KINK.format(n="1 cell") + " (y, x) has slope 0 below x and 1 above (TensorFlow gives 0, central differences 0.5).")


@pytest.mark.parametrize("text, x", [("0 * x", 2.0), ("relu(x)", -1.0), ("relu(x) * relu(-x)", 0.0)])
def test_where_the_function_is_flat_the_zero_gradient_is_called_a_flat_region(text, x):
    # relu(x) * relu(-x) is 0 on both sides of 0: flat, although each factor has a kink there
    c = gradlib.compare(text, {"x": x}, dtype="float64")
    assert c.best.jacobian.tolist() == [[0.0]] and c.check.passed and c.check.kinks is None
    assert titles(c)[2:] == [(None, "Every gradient with respect to x is zero here", "info"),
                             ("auto", "The per-element gradients are right", "info")]
    assert finding(c, "Every gradient with respect to x is zero here").text == FLAT


def test_next_to_a_kink_the_flat_elements_are_named_as_such():
    c = gradlib.compare("relu(x)", {"x": [0.0, -1.0]}, dtype="float64")
    assert c.check.kinks.tolist() == [[True, False], [False, False]]
    assert finding(c, "Every gradient with respect to x is zero here, at a kink").text.endswith(
        "at (y[0], x[0]) it has a kink (a different slope on each side, see \"Finite differences straddle a kink\"), "
        "where TensorFlow takes the derivative as 0 (as relu'(0) = 0). Elsewhere no output changes with it.")


def test_at_a_tie_of_maximum_both_columns_are_kinks_and_tensorflow_picks_one_side():
    c = gradlib.compare("maximum(x, y)", {"x": 1.0, "y": 1.0}, dtype="float64")
    np.testing.assert_array_equal(c.best.jacobian, [[1.0, 0.0]])      # the tie goes to x
    assert c.check.kinks.tolist() == [[True, True]]
    assert finding(c, "Finite differences straddle a kink").text == KINK.format(n="2 cells")
    assert finding(c, "Finite differences straddle a kink").details == (
        "(out, x) has slope 0 below x and 1 above (TensorFlow gives 1, central differences 0.5), (out, y) has slope 0 "
        "below y and 1 above (TensorFlow gives 0, central differences 0.5).")   # the output is out: y is an input
    assert "Every gradient with respect to y is zero here, at a kink" in [t for _, t, _ in titles(c)]


def test_the_diagnosis_counts_every_kink_and_names_them_in_the_details():
    c = gradlib.compare("relu(x)", {"x": [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]}, dtype="float64", methods=["auto"])
    assert c.check.bad_cells == tuple((k, k) for k in range(5))
    assert finding(c, "Finite differences straddle a kink").text == KINK.format(n="5 cells")
    assert finding(c, "Finite differences straddle a kink").details == ", ".join(
        f"(y[{k}], x[{k}]) has slope 0 below x[{k}] and 1 above (TensorFlow gives 0, central differences 0.5)"
        for k in range(5)) + "."


def test_without_evaluations_left_to_measure_the_sides_a_kink_gets_the_general_advice():
    # the check itself fits (2 evaluations for 1 column), the one-sided slopes (5 more) do not
    c = gradlib.compare("relu(x)", {"x": 0.0}, dtype="float64")
    flat = lambda v: np.maximum(v, 0.0)
    check = finite_differences(flat, np.zeros(1), c.best.jacobian, "float64", max_flops=6)
    assert check.bad_cells == ((0, 0),) and check.slopes is None and check.kinks is None
    found = {f.title: f.full for f in diagnose(c.results, c.best, check)}
    assert found["Finite differences disagree"] == (
        "1 cell differs from central finite differences. " + KINK_ADVICE + " (y, x) gives 0 vs 0.5 by finite differences.")
    assert found["Every gradient with respect to x is zero here"] == FLAT   # no kink measured, none claimed
    enough = finite_differences(flat, np.zeros(1), c.best.jacobian, "float64", max_flops=7)
    assert enough.kinks.tolist() == [[True]]


def test_abs_at_zero_has_no_kink_that_central_differences_see():
    # abs'(0) = sign(0) = 0 in TensorFlow, and (|h| - |-h|) / 2h = 0 too: the check passes
    c = gradlib.compare("abs(x)", {"x": [0.0, 2.0]}, dtype="float64")
    np.testing.assert_array_equal(c.best.jacobian, [[0.0, 0.0], [0.0, 1.0]])
    assert c.check.passed
    assert finding(c, "The per-element gradients are right").text == (
        f"method {c.best.method!r} gives one gradient row per element of y, and it matches central finite differences.")


# ---------------------------------------------------------------- finite differences disagree, the methods are right


def test_finite_differences_too_coarse_for_a_fast_oscillation_disagree_with_methods_that_are_right():
    # d/dx sin(1e6 x) = 1e6 cos(1e6 x). The step (1e-6 * max(1, |x|)) spans a whole radian of the sine, so the
    # central difference is sin(1) / 1 = 0.84 of the derivative: the check fails, every method is right.
    x = np.array([0.3, 0.0])
    c = gradlib.compare("sin(1e6 * x)", {"x": x}, dtype="float64")
    exact = np.diag(1e6 * np.cos(1e6 * x))
    for method in PER_ELEMENT:
        np.testing.assert_allclose(c.results[method].jacobian, exact, rtol=1e-9, err_msg=method)
    np.testing.assert_allclose(c.check.numeric, exact * np.sin(1.0), rtol=1e-6, atol=1e-6)
    assert c.check.bad_cells == ((0, 0), (1, 1)) and not c.check.passed
    assert all(a.agrees for a in c.agreement if a.method != "naive")
    assert "Correct methods disagree" not in [t for _, t, _ in titles(c)]
    assert not c.check.kinks.any()   # the one-sided slopes change with the step: no kink
    assert finding(c, "Finite differences disagree").text == (
        "2 cells differ from central finite differences. " + STEP_ADVICE.format(h="1e-06", x="x[0]"))
    assert finding(c, "Finite differences disagree").details == (
        "(y[0], x[0]) gives -994252 vs -836634, (y[1], x[1]) gives 1e+06 vs 841471 by finite differences.")


def test_the_step_named_is_the_one_taken_in_that_column():
    # the step grows with |x|: 1e-6 * 20 at x = 20, where sin(1e6 x) turns through 20 radians within it
    c = gradlib.compare("sin(1e6 * x)", {"x": 20.0}, dtype="float64", methods=["jacobian", "forward"])
    np.testing.assert_allclose(c.check.steps, [2e-5])
    assert finding(c, "Finite differences disagree").text.endswith(STEP_ADVICE.format(h="2e-05", x="x"))


@pytest.mark.parametrize("methods", [["auto"], ["forward"], ["unstack", "jacobian"]])
def test_with_one_mode_only_the_disagreement_may_still_be_a_wrong_gradient(methods):
    # the reverse-mode methods share TensorFlow's gradient functions: their agreement confirms nothing
    c = gradlib.compare("sin(1e6 * x)", {"x": [0.3, 0.0]}, dtype="float64", methods=methods)
    assert c.check.bad_cells == ((0, 0), (1, 1))
    assert finding(c, "Finite differences disagree").full == (
        "2 cells differ from central finite differences. " + KINK_ADVICE + " (y[0], x[0]) gives -994252 vs -836634, "
        "(y[1], x[1]) gives 1e+06 vs 841471 by finite differences.")


# ---------------------------------------------------------------- outputs outside the function's domain

UNDEFINED = ("The output is NaN: the function is not defined here (outside its domain, like log or sqrt of a negative "
             "number, or 0/0), so it has no derivative")
MEANINGLESS = (". The finite gradient given here ({g}) is the derivative's formula evaluated where the function is "
               "undefined (as log(x) at x = -1 gives 1/x = -1): it means nothing")
INFINITE = ("The output is {y}: the function has no finite value here (like 1/x or log(x) at 0), or one too large "
            "for the dtype (an exp that overflows; float32 holds up to about 3.4e38, float64 1.8e308), so its gradient "
            "is not a meaningful number")


def test_log_of_a_negative_number_has_a_finite_gradient_that_means_nothing():
    c = gradlib.compare("log(x)", {"x": -1.0})
    assert np.isnan(c.best.y) and c.best.jacobian.tolist() == [[-1.0]]   # 1/x evaluates fine at -1
    assert titles(c) == [
        ("naive", "The naive loop returns zeros", "error"),
        ("summed", "tape.gradient is the per-element gradient here", "info"),
        (None, "Output not finite", "warning")]   # its unchecked cell is this cause too: one box, not two
    assert finding(c, "Output not finite").text == UNDEFINED + MEANINGLESS.format(g="-1") + "."
    assert finding(c, "Output not finite").details == "(y, x) = -1 where y = nan."
    notes = c.best.cell_notes()
    assert notes[["output", "input", "value", "status"]].values.tolist() == [["y", "x", -1.0, "output not finite"]]
    assert notes["what happened"][0] == UNDEFINED.replace("The output", "y") + MEANINGLESS.format(g="-1")


@pytest.mark.parametrize("text, inputs, shown, explained", [
    # the gradient of a NaN output w.r.t. an input it does not use is 0: not named as a meaningless formula value
    ("log(x)", {"x": [-1.0, 2.0]}, "(y[0], x[0]) = -1 where y[0] = nan, (y[0], x[1]) = 0 where y[0] = nan",
     UNDEFINED + MEANINGLESS.format(g="-1")),
    ("sqrt(x)", {"x": [-4.0, 4.0]}, "(y[0], x[0]) = nan where y[0] = nan, (y[0], x[1]) = 0 where y[0] = nan",
     UNDEFINED),
    ("x / y", {"x": 0.0, "y": 0.0}, "(out, x) = inf where out = nan, (out, y) = nan where out = nan", UNDEFINED),
    ("log(x)", {"x": 0.0}, "(y, x) = inf where y = -inf", INFINITE.format(y="-inf")),
    ("1 / x", {"x": 0.0}, "(y, x) = -inf where y = inf", INFINITE.format(y="inf")),
    ("[log(x), sqrt(x)]", {"x": -1.0}, "(y[0], x) = -1 where y[0] = nan, (y[1], x) = nan where y[1] = nan",
     UNDEFINED + MEANINGLESS.format(g="-1")),
])
def test_outside_the_domain_the_output_is_named_and_its_gradient_is_not_given_as_right(text, inputs, shown, explained):
    c = gradlib.compare(text, inputs)
    assert finding(c, "Output not finite").text == f"{explained}."
    assert finding(c, "Output not finite").details == f"{shown}."
    assert finding(c, "Output not finite").severity == "warning"
    assert "The per-element gradients are right" not in [t for _, t, _ in titles(c)]
    rows = ~np.isfinite(c.best.y.reshape(-1))
    assert (c.best.cell_status()[rows] == gradlib.CELL_STATUS.index("output not finite")).all()
    assert (c.best.cell_status()[~rows] != gradlib.CELL_STATUS.index("output not finite")).all()


def test_where_the_output_is_infinite_finite_differences_are_not_blamed_on_the_step():
    c = gradlib.compare("1 / x", {"x": 0.0}, dtype="float64")
    np.testing.assert_allclose(c.check.numeric, [[1e12]])   # (1/h + 1/h) / 2h
    assert finding(c, "Finite differences disagree").full == (
        "1 cell differs from central finite differences. The output is not finite there (see \"Output not finite\"): "
        "there is no derivative to compare with. (y, x) gives -inf vs 1e+12 by finite differences.")


# ---------------------------------------------------------------- correct methods disagree


class _DoubledForwardMode(tf.autodiff.ForwardAccumulator):
    """TensorFlow's forward mode with every Jacobian-vector product doubled: a wrong method to catch."""

    def jvp(self, primals, unconnected_gradients=tf.UnconnectedGradients.NONE):
        return 2.0 * super().jvp(primals, unconnected_gradients=unconnected_gradients)


# a text no other test uses: a compiled function traced while forward mode is wrong is cached under its key
WRONGED = "[x0 * x1, x0 + x1 + 0.125]"


def test_correct_methods_that_disagree_are_reported_as_an_error_with_the_cells(monkeypatch):
    monkeypatch.setattr(tf.autodiff, "ForwardAccumulator", _DoubledForwardMode)
    c = gradlib.compare(WRONGED, {"x0": 2.0, "x1": 3.0}, methods=["unstack", "forward"])
    assert c.reference == "unstack"                   # no auto: the first correct method is the reference
    assert not c.results["forward"].compiled          # two passes run eagerly: nothing traced, nothing cached
    np.testing.assert_array_equal(c.results["unstack"].jacobian, [[3.0, 2.0], [1.0, 1.0]])
    np.testing.assert_array_equal(c.results["forward"].jacobian, [[6.0, 4.0], [2.0, 2.0]])
    forward = next(a for a in c.agreement if a.method == "forward")
    assert (forward.agrees, forward.differing, forward.max_abs_diff) == (False, 4, 3.0)
    assert forward.against == "rows of unstack" and forward.example == "(y[0], x0): 6 vs 3"
    assert c.check.passed   # the reference is right: finite differences agree with unstack
    assert titles(c) == [(None, "Correct methods disagree", "error")]
    assert c.diagnosis[0].text == "These differ from unstack beyond floating tolerance: forward in 4 cells."
    assert c.diagnosis[0].details == ("forward: (y[0], x0) gives 6 vs 3, (y[0], x1) gives 4 vs 2, (y[1], x0) gives 2 "
                                      "vs 1, (y[1], x1) gives 2 vs 1.")


def test_a_wrong_method_alone_is_caught_by_finite_differences(monkeypatch):
    monkeypatch.setattr(tf.autodiff, "ForwardAccumulator", _DoubledForwardMode)
    c = gradlib.compare(WRONGED, {"x0": 2.0, "x1": 3.0}, methods=["forward"])
    assert c.reference == "forward" and not c.best.compiled
    assert c.check.bad_cells == ((0, 0), (0, 1), (1, 0), (1, 1))
    np.testing.assert_allclose(c.check.numeric, [[3.0, 2.0], [1.0, 1.0]], rtol=1e-3)   # float32: the true values
    assert titles(c) == [(None, "Finite differences disagree", "warning")]
    assert c.diagnosis[0].text == "4 cells differ from central finite differences. " + KINK_ADVICE
    assert c.diagnosis[0].details == ("(y[0], x0) gives 6 vs 3, (y[0], x1) gives 4 vs 2, (y[1], x0) gives 2 vs 1, "
                                      "(y[1], x1) gives 2 vs 1 by finite differences.")


def test_when_the_modes_disagree_the_finite_differences_are_not_blamed(monkeypatch):
    monkeypatch.setattr(tf.autodiff, "ForwardAccumulator", _DoubledForwardMode)
    c = gradlib.compare("sin(1e6 * x) + 0.125", {"x": [0.3, 0.0]}, dtype="float64", methods=["unstack", "forward"])
    assert not c.results["forward"].compiled      # nothing traced while forward mode is wrong
    np.testing.assert_allclose(c.results["forward"].jacobian, 2 * c.results["unstack"].jacobian)
    assert [t for _, t, _ in titles(c)] == ["Finite differences disagree", "Correct methods disagree"]
    assert finding(c, "Finite differences disagree").text.endswith("from central finite differences. " + KINK_ADVICE)


def test_when_the_methods_are_right_again_nothing_disagrees():
    # the same text after the patch is undone: forward mode is right (and nothing wrong was cached)
    c = gradlib.compare(WRONGED, {"x0": 2.0, "x1": 3.0}, methods=["unstack", "forward"])
    np.testing.assert_array_equal(c.results["forward"].jacobian, [[3.0, 2.0], [1.0, 1.0]])
    assert titles(c) == [("unstack", "The per-element gradients are right", "info")]


def test_compare_leaves_out_a_method_over_its_limits_as_a_note_not_a_failure():
    c = gradlib.compare("x*x", {"x": np.arange(400.0)})
    assert c.errors == {} and sorted(c.skipped) == ["naive", "unstack"]
    assert all("one eager pass per output element: 400" in msg for msg in c.skipped.values())
    notes = [f for f in c.diagnosis if f.title == "Left out: this problem is over its limits"]
    assert sorted(f.method for f in notes) == ["naive", "unstack"] and {f.severity for f in notes} == {"info"}
    np.testing.assert_allclose(c.best.jacobian, np.diag(2 * np.arange(400.0)))
    with pytest.raises(gradlib.InputError):   # bad input data is still an error, never a quiet note
        gradlib.compare("x*x", {"x": [1.0, float("nan"), "a"]})


def test_compare_times_warm_calls_apart_from_the_first_only_when_they_fit(monkeypatch):
    """The playground compared first calls (tracing) of some methods with cached warm calls of others."""
    from gradlib._perelement._comparison import _compare
    calls = []
    real = _compare.run
    monkeypatch.setattr(_compare, "run", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    c = gradlib.compare("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5}, methods=["jacobian", "naive"])
    assert calls == ["jacobian"] * (1 + _compare.REPEATS) + ["naive"] * (1 + _compare.REPEATS)
    assert [len(c.timings[m].warm) for m in ("jacobian", "naive")] == [_compare.REPEATS] * 2
    assert c.timings["jacobian"].first == c.results["jacobian"].seconds   # the result shown is the first call's
    monkeypatch.setattr(_compare, "TIMING_SECONDS", 0.0)   # no first call fits: no warm call is made
    calls.clear()
    c = gradlib.compare("x * x", {"x": [1.0, 2.0]}, methods=["jacobian"])
    assert calls == ["jacobian"] and c.timings["jacobian"].warm == () and np.isnan(c.timings["jacobian"].median)

    class Ran:   # a run that took the given seconds, ran as jacobian compiled and traced nothing
        def __init__(self, seconds):
            self.seconds, self.method, self.compiled, self.traced = seconds, "jacobian", True, False
            self.compiled_as = "graph"

    monkeypatch.setattr(_compare, "TIMING_SECONDS", 0.5)
    for first, warm, expected in [(0.6, [], ()),                        # the first call alone is over: no warm call
                                  (0.3, [0.2], ()),                     # one warm call says five would be over
                                  (0.3, [0.1] * 5, (0.1,) * 5)]:        # a slow first call (tracing), fast warm ones
        took = iter(warm)
        monkeypatch.setattr(_compare, "run", lambda *a, **k: Ran(next(took)))
        ran_as = "jacobian compiled" if expected else ""
        timing = _compare._timing(None, "jacobian", gradlib.LIMITS, Ran(first))
        assert timing == _compare.Timing(first, expected, ran_as)
        assert next(took, None) is None   # exactly the warm calls listed were made


@pytest.mark.parametrize("name, calls, expected", [
    # auto runs eagerly until its eager calls cost about a trace, then compiles: that call traced
    ("auto compiles", [("unstack", "", False, 0.004)] * 2 + [("jacobian", "graph", True, 0.2)]
     + [("jacobian", "graph", False, 0.001)] * 5, ((0.001,) * 5, "jacobian compiled")),
    # a graph builds XLA and tries it beside itself (each such call says it traced), then adopts it
    ("XLA tried, then kept", [("jacobian", "graph", False, 0.002), ("jacobian", "graph", True, 0.1),
                              ("jacobian", "graph", True, 0.003), ("jacobian", "xla", False, 0.0005),
                              ("jacobian", "graph", True, 0.003)] + [("jacobian", "xla", False, 0.0005)] * 6,
     ((0.0005,) * 5, "jacobian compiled (xla)")),
])
def test_compare_warm_calls_hold_no_call_that_traced(monkeypatch, name, calls, expected):
    """A warm call that compiled auto (its ski-rental rule) or built XLA was in the warm median and range: only
    calls that ran as the one before them, settled, are warm, and the timing says how they ran."""
    from gradlib._perelement._comparison import _compare

    class Ran:
        def __init__(self, method, compiled_as, traced, seconds):
            self.seconds, self.method, self.compiled, self.compiled_as = seconds, method, bool(compiled_as), compiled_as
            self.traced = traced

    took = iter(calls)
    monkeypatch.setattr(_compare, "run", lambda *a, **k: Ran(*next(took)))
    first = Ran("unstack", "", False, 0.01) if name.startswith("auto") else Ran("jacobian", "graph", True, 0.3)
    assert _compare._timing(None, "auto", gradlib.LIMITS, first) == _compare.Timing(first.seconds, *expected), name
    assert next(took, None) is None, name


def test_the_timings_table_shows_the_first_call_apart_and_charts_the_warm_median():
    import dataclasses
    from dashboard import render
    from gradlib._perelement._comparison._compare import Timing
    c = gradlib.compare("x * x", {"x": [1.0, 2.0]}, methods=["jacobian", "summed"])
    c = dataclasses.replace(c, timings={"jacobian": Timing(0.5, (0.003, 0.001, 0.002)), "summed": Timing(0.004, ())})
    frame, seconds = render.timing_table(c)
    compiled = {m: " compiled" if c.results[m].compiled else "" for m in ("jacobian", "summed")}
    assert frame.to_dict("records") == [
        {"method": "jacobian", "ran as": "jacobian" + compiled["jacobian"], "first ms": "500", "warm ms": "2 (1-3)"},
        {"method": "summed", "ran as": "summed" + compiled["summed"], "first ms": "4", "warm ms": "not timed"}]
    assert seconds == {"jacobian": 0.002, "summed (first call)": 0.004}


def test_an_all_integer_input_headlines_its_cause_and_blames_no_method():
    """n*n at int32 [1, 2] said the naive loop "happens to agree — every true gradient is zero" while the
    finite differences said 2 and 4, and blamed the summed gradient in red."""
    c = gradlib.compare("n*n", {"n": [1, 2]}, dtype={"n": "int32"})
    assert titles(c) == [(None, "'n' is an integer input: no gradient", "error")]
    (f,) = c.diagnosis
    assert f.text == ("TensorFlow's tape does not watch integer tensors, so every method gives 0 for 'n' (None without "
                      "unconnected_gradients=ZERO). The function's own derivative there is not zero. Use float32 or "
                      "float64 to differentiate with respect to it.")
    assert f.details == "Finite differences give (y[0], n[0]) 2, (y[0], n[1]) 0, (y[1], n[0]) 0, (y[1], n[1]) 4."
    assert f.explains == ("input 'n' is int32: TensorFlow's tape does not watch integer tensors, so its gradients "
                          "are None (shown as 0). Use float32 or float64 to differentiate with respect to it",)


def test_a_mixed_integer_input_keeps_the_methods_findings_on_the_float_columns():
    c = gradlib.compare("x * n", {"x": [1.0, 2.0], "n": [3, 4]}, dtype={"n": "int32"})
    assert (None, "'n' is an integer input: no gradient", "warning") in titles(c)
    assert ("naive", "The naive loop returns zeros", "error") in titles(c)   # x's true gradients are 3 and 4


def test_unused_inputs_are_one_finding_in_the_words_of_the_results_warning():
    """sqrt(x0 - 3) gave 9 boxes: "x1 not used", "x1 does not reach any output", "x2 does not reach ...", ..."""
    c = gradlib.compare("sqrt(x0 - 3)", {"x0": 1.0, "x1": 2.0, "x2": 3.0})
    unused = [f for f in c.diagnosis if "reach any output" in f.title]
    assert [(f.title, f.text) for f in unused] == [("x1, x2 do not reach any output", c.best.warnings[0])]
    assert c.best.warnings[0] == ("watched input(s) 'x1', 'x2' do not appear in the function: their gradients are "
                                  "zero (tape.gradient gives None for them, zeros with unconnected_gradients=ZERO)")
    assert [f.title for f in c.diagnosis if f.method is None] == ["Output not finite", "x1, x2 do not reach any output"]


def test_sqrt_outside_its_domain_is_one_finding_per_cause_with_the_cells_in_the_details():
    """issue 21.8: sqrt(x0 - 3) at x0 = 1 gave 9 boxes ("x1 not used", "x1 does not reach any output", the
    finite-difference warning twice, ...). One finding per cause, each input and cell named once, the cells with
    their numbers in the details rather than the text."""
    c = gradlib.compare("sqrt(x0 - 3)", {"x0": 1.0, "x1": 2.0, "x2": 3.0})
    names = [f.title for f in c.diagnosis]
    assert len(names) == len(set(names))
    assert [f.title for f in c.diagnosis if f.method is None] == ["Output not finite", "x1, x2 do not reach any output"]
    undefined = finding(c, "Output not finite")
    assert undefined.text == UNDEFINED + "."
    assert undefined.details == "(y, x0) = nan where y = nan, (y, x1) = 0 where y = nan, (y, x2) = 0 where y = nan."
    assert not [f.title for f in c.diagnosis if re.search(r"\(y, x\d\)", f.text)]   # no cell in any headline
    said = " ".join(f.full for f in c.diagnosis)
    assert said.count("'x1', 'x2'") == 1 and "x1 not used" not in said


def test_a_findings_details_list_every_cell_up_to_the_bound_and_count_the_rest():
    c = gradlib.compare("log(x)", {"x": [-1.0] * 25}, methods=["jacobian"])
    undefined = finding(c, "Output not finite")
    assert undefined.details.count("where y[") == 20 and undefined.details.endswith(" and 605 more cell(s).")
    assert "where y[" not in undefined.text
