"""The diagnosis paths of ``gradlib.compare``, each reached through the public API with its cells and wording pinned:
relu at its kink, finite differences that disagree with methods that are right, the naive loop that happens to
agree, and correct methods that disagree (one of them made wrong on purpose)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib

KINK_ADVICE = ("This is expected at kinks (abs, relu, maximum at a tie) and where the function is not finite; "
               "elsewhere it points at a wrong gradient.")
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
        "differences (tolerance at most 3.3e-05).")


def test_at_relus_kink_the_diagnosis_blames_the_kink_not_the_methods(relu_kink):
    assert titles(relu_kink) == [
        ("naive", "The naive loop returns zeros", "error"),
        ("summed", "tape.gradient(y, x) sums over the elements of y", "error"),
        (None, "Finite differences disagree", "warning")]
    assert finding(relu_kink, "Finite differences disagree").text == (
        "1 cell(s) differ from central finite differences, e.g. (y[0], x[0]) gives 0 vs 1.5 by finite differences. "
        + KINK_ADVICE)
    # a warning about the result itself: the verdict "right" is not given, and no method is said to disagree
    assert "The per-element gradients are right" not in [t for _, t, _ in titles(relu_kink)]
    assert finding(relu_kink, "tape.gradient(y, x) sums over the elements of y").text.startswith(
        "tape.gradient(y, x) gave [0, 3, 0]: the gradient of sum(y), which is the column sums of the Jacobian (for "
        "x[0]: 0 + 0 + 0 = 0).")


def test_at_a_scalar_relus_kink_the_naive_loop_happens_to_agree_and_the_gradient_reads_as_flat():
    c = gradlib.compare("relu(x)", {"x": 0.0}, dtype="float64")
    for method in PER_ELEMENT + ("naive", "summed"):
        assert c.results[method].jacobian.tolist() == [[0.0]], method
    assert c.check.numeric.tolist() == [[0.5]] and c.check.bad_cells == ((0, 0),)
    assert titles(c) == [
        ("naive", "The naive loop happens to agree here", "warning"),
        ("summed", "tape.gradient is the per-element gradient here", "info"),
        (None, "Every gradient with respect to x is zero here", "info"),
        (None, "Finite differences disagree", "warning")]
    assert finding(c, "The naive loop happens to agree here").text == (
        "Every true gradient is zero at this point, so the broken loop's zeros look right by accident.")
    assert finding(c, "tape.gradient is the per-element gradient here").text == (
        "y has a single element, so the gradient of its sum is its gradient.")
    assert finding(c, "Finite differences disagree").text == (
        "1 cell(s) differ from central finite differences, e.g. (y, x) gives 0 vs 0.5 by finite differences. "
        + KINK_ADVICE)


def test_the_diagnosis_names_at_most_four_bad_cells_and_counts_them_all():
    c = gradlib.compare("relu(x)", {"x": [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]}, dtype="float64", methods=["auto"])
    assert c.check.bad_cells == tuple((k, k) for k in range(5))
    assert finding(c, "Finite differences disagree").text == (
        "5 cell(s) differ from central finite differences, e.g. (y[0], x[0]) gives 0 vs 0.5, (y[1], x[1]) gives 0 vs "
        "0.5, (y[2], x[2]) gives 0 vs 0.5, (y[3], x[3]) gives 0 vs 0.5 and 1 more by finite differences. "
        + KINK_ADVICE)


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
    text = finding(c, "Finite differences disagree").text
    assert text.startswith("2 cell(s) differ from central finite differences, e.g. (y[0], x[0]) gives -994252 vs "
                           "-836634, (y[1], x[1]) gives 1e+06 vs 841471 by finite differences.")


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
    assert c.diagnosis[0].text == ("These differ from unstack beyond floating tolerance: forward in 4 cell(s), e.g. "
                                   "(y[0], x0) gives 6 vs 3, (y[0], x1) gives 4 vs 2 and 2 more cell(s).")


def test_a_wrong_method_alone_is_caught_by_finite_differences(monkeypatch):
    monkeypatch.setattr(tf.autodiff, "ForwardAccumulator", _DoubledForwardMode)
    c = gradlib.compare(WRONGED, {"x0": 2.0, "x1": 3.0}, methods=["forward"])
    assert c.reference == "forward" and not c.best.compiled
    assert c.check.bad_cells == ((0, 0), (0, 1), (1, 0), (1, 1))
    np.testing.assert_allclose(c.check.numeric, [[3.0, 2.0], [1.0, 1.0]], rtol=1e-3)   # float32: the true values
    assert titles(c) == [(None, "Finite differences disagree", "warning")]
    assert c.diagnosis[0].text.startswith(
        "4 cell(s) differ from central finite differences, e.g. (y[0], x0) gives 6 vs 3, (y[0], x1) gives 4 vs 2, "
        "(y[1], x0) gives 2 vs 1, (y[1], x1) gives 2 vs 1 by finite differences.")


def test_when_the_methods_are_right_again_nothing_disagrees():
    # the same text after the patch is undone: forward mode is right (and nothing wrong was cached)
    c = gradlib.compare(WRONGED, {"x0": 2.0, "x1": 3.0}, methods=["unstack", "forward"])
    np.testing.assert_array_equal(c.results["forward"].jacobian, [[3.0, 2.0], [1.0, 1.0]])
    assert titles(c) == [("unstack", "The per-element gradients are right", "info")]
