"""gradlib.crosscheck: the same per-element gradients eagerly, as a graph, under XLA and in forward mode (eagerly and as
a graph) (issue 21.2).

The references are independent of gradlib: closed forms, and one GradientTape per output element run eagerly.
The second half is a corpus of public reports of compiled-vs-eager gradient differences on CPU, each reproduced
here on TensorFlow 2.21: crosscheck must name the mode that differs, or report agreement where the report no
longer reproduces (said in the test's docstring, with the report's address).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._perelement._comparison import _crosscheck


def tape_per_output(fn, x: tf.Tensor) -> np.ndarray:
    """The reference Jacobian: one eager GradientTape per output element, nothing of gradlib's."""
    rows = []
    for i in range(int(tf.size(fn(x)))):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y_i = tf.reshape(fn(x), [-1])[i]
        rows.append(tape.gradient(y_i, x, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy().reshape(-1))
    return np.stack(rows)


@pytest.fixture(autouse=True)
def xla_budget(monkeypatch):
    """Every test may build XLA versions, whatever the process built before (the budget is the server's)."""
    monkeypatch.setattr(_crosscheck, "_builds", 0)


def reported(fn, x: tf.Tensor, jit: bool) -> np.ndarray:
    """The report's compiled computation: tape.jacobian of fn inside tf.function(jit_compile=jit)."""
    def jac(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reshape(fn(x), [-1])
        return tape.jacobian(y, x)
    return tf.function(jac, jit_compile=jit)(x).numpy().reshape(-1, int(tf.size(x)))


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(np.isnan(a), np.isnan(b)) and np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))


def test_every_mode_agrees_on_a_smooth_function_and_gives_its_closed_form():
    c = gradlib.crosscheck(lambda v: v * v, tf.constant([1.0, 2.0]))
    assert c.agrees and c.differing == ()
    assert [m.mode for m in c.modes] == ["eager", "graph", "xla", "forward", "forward_graph"]
    for m in c.modes:
        np.testing.assert_array_equal(m.jacobian, [[2.0, 0.0], [0.0, 4.0]])
        assert m.max_abs == 0.0 and m.nonfinite_here == 0
    assert c.summary.startswith("eager, graph (tf.function), XLA (jit_compile=True), forward mode and forward mode as "
                                "a graph (tf.function) agree")


def test_the_dead_branch_nan_of_xla_is_named_and_counted():
    """The first report of the corpus below: https://github.com/tensorflow/tensorflow/issues/118674 (XLA gradient
    of tf.where evaluates the dead branch). Reproduces on 2.21 (CPU): where(v > 0, sqrt(v), 0) at v = [0, -1, 4]:
    eager and graph give 0 in the branch not taken (columns v[0], v[1]), XLA gives NaN there: 6 cells, XLA only."""
    fn = lambda v: tf.where(v > 0, tf.sqrt(v), 0.0)   # noqa: E731
    x = tf.constant([0.0, -1.0, 4.0])
    c = gradlib.crosscheck(fn, x)
    np.testing.assert_array_equal(c.mode("eager").jacobian, tape_per_output(fn, x))
    np.testing.assert_array_equal(c.mode("xla").jacobian, reported(fn, x, jit=True))
    np.testing.assert_array_equal(c.mode("eager").jacobian, [[0, 0, 0], [0, 0, 0], [0, 0, 0.25]])
    assert c.differing == ("xla",)
    xla = c.mode("xla")
    assert (xla.status, xla.nonfinite_here, xla.nonfinite_reference) == ("differs", 6, 0)
    assert np.isnan(xla.jacobian[:, :2]).all() and xla.jacobian[2, 2] == 0.25
    assert xla.max_abs == 0.0   # the finite cells agree: only the NaN pattern differs
    assert c.summary == "XLA (jit_compile=True) differs from eager: 6 cell(s) are NaN or infinite in XLA only."
    assert xla.details.startswith("(y[0], x[0]) eager 0, XLA nan; (y[0], x[1]) eager 0, XLA nan;")
    assert xla.details.endswith("and 2 more cell(s)")
    assert c.mode("graph").agrees and c.mode("forward").agrees


def test_function_text_is_accepted_as_evaluate_takes_it():
    c = gradlib.crosscheck("where(x > 0, sqrt(x), 0)", {"x": [0.0, -1.0, 4.0]})
    assert c.differing == ("xla",) and c.col_labels == ("x[0]", "x[1]", "x[2]")
    c = gradlib.crosscheck("x0 * x1", {"x0": 3.0, "x1": 4.0}, watch=["x0"])
    assert c.agrees and c.mode("graph").jacobian.tolist() == [[4.0]]


def test_a_list_and_a_dict_of_tensors_label_their_columns():
    c = gradlib.crosscheck(lambda d: d["a"] * d["b"], {"a": tf.constant([1.0, 2.0]), "b": tf.constant([3.0, 4.0])})
    assert c.col_labels == ("a[0]", "a[1]", "b[0]", "b[1]")
    np.testing.assert_array_equal(c.mode("xla").jacobian, [[3, 0, 1, 0], [0, 4, 0, 2]])
    c = gradlib.crosscheck(lambda xs: xs[0] * xs[1], [tf.constant(3.0), tf.constant(5.0)])
    assert c.col_labels == ("x0", "x1") and c.mode("forward").jacobian.tolist() == [[5.0, 3.0]]


def test_the_result_is_frozen_plain_numpy_data():
    c = gradlib.crosscheck(lambda v: v * v, tf.constant([1.0, 2.0]), modes=["eager", "graph"])
    assert [m.mode for m in c.modes] == ["eager", "graph"]
    assert isinstance(c.y, np.ndarray) and all(isinstance(m.jacobian, np.ndarray) for m in c.modes)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.y = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.modes[0].status = "agrees"


def test_a_mode_that_fails_where_eager_runs_is_named_as_failed():
    """A function that leaves TensorFlow (.numpy()) runs eagerly and cannot be traced: graph, XLA and forward mode
    as a graph fail."""
    c = gradlib.crosscheck(lambda v: v * float(v.numpy()[0]), tf.constant([2.0, 3.0]))
    assert c.differing == ("graph", "xla", "forward_graph")
    assert c.mode("graph").status == "failed" and c.mode("graph").jacobian is None
    assert c.mode("graph").text.startswith("graph (tf.function) failed where eager ran: ")
    assert c.mode("eager").jacobian.tolist() == [[2.0, 0.0], [0.0, 2.0]]   # the tape sees float(...) as a constant


def test_every_modes_jacobian_counts_against_the_limit():
    x = tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(gradlib.ExpressionError, match=r"crosscheck holds 5 Jacobians of 3 x 3 entries, 45 in all; "
                                                      r"at most 20 are allowed\. Pass fewer modes"):
        gradlib.crosscheck(lambda v: v * v, x, limits=gradlib.Limits(max_jacobian=20))
    c = gradlib.crosscheck(lambda v: v * v, x, modes=["eager", "xla"], limits=gradlib.Limits(max_jacobian=20))
    assert c.agrees and [m.mode for m in c.modes] == ["eager", "xla"]


def test_the_eager_reference_is_refused_over_the_eager_pass_limit():
    with pytest.raises(gradlib.ExpressionError, match=r"one reverse pass per output element: 5 here, and at most 4 "
                                                      r"are allowed"):
        gradlib.crosscheck(lambda v: v * v, tf.ones([5]), limits=gradlib.Limits(max_eager_passes=4))


def test_forward_mode_is_left_out_over_its_pass_limit_and_the_rest_still_runs():
    c = gradlib.crosscheck(lambda v: tf.reduce_sum(v * v, keepdims=True), tf.ones([6]),
                           limits=gradlib.Limits(max_eager_passes=5))
    assert c.mode("forward").status == "skipped" and c.agrees
    assert "one eager pass per watched element, 6 here, and at most 5 are allowed" in c.mode("forward").text
    assert c.summary.endswith("Left out: forward mode.")
    np.testing.assert_array_equal(c.mode("xla").jacobian, [[2.0] * 6])


def test_xla_is_left_out_once_the_process_has_built_its_share(monkeypatch):
    monkeypatch.setattr(_crosscheck, "XLA_BUILDS", 0)
    c = gradlib.crosscheck(lambda v: v * v * 3.0, tf.constant([1.0, 2.0]))
    assert c.mode("xla").status == "skipped" and "built its 0 XLA versions" in c.mode("xla").text
    assert c.differing == ()


def test_options_are_checked():
    with pytest.raises(gradlib.ExpressionError, match=r"crosscheck got modes=\['jit'\]; pass a list of names from "
                                                      r"eager, graph, xla, forward"):
        gradlib.crosscheck(lambda v: v, tf.ones([2]), modes=["jit"])
    with pytest.raises(gradlib.ExpressionError, match="watch= and dtype= with function text only"):
        gradlib.crosscheck(lambda v: v, tf.ones([2]), dtype="float64")
    with pytest.raises(gradlib.InputError, match="requires floating-point inputs"):
        gradlib.crosscheck(lambda v: v, tf.constant([1, 2], tf.int32))


# ---------------------------------------------------------------- in compare: a finding


def test_compare_makes_a_difference_between_modes_a_finding_that_names_the_mode():
    """tensorflow/tensorflow#118673 in function text: max(x) of an input holding NaN. Eager and the graph give NaN,
    XLA gives 0 and 1 (and its max is 2, not NaN: tensorflow/tensorflow#119990): one warning that names XLA, its
    cells folded into the details."""
    c = gradlib.compare("max(x)", {"x": [1.0, 2.0, math.nan]}, methods=["jacobian"], crosscheck=True)
    assert c.crosscheck.differing == ("xla",) and c.crosscheck_note == ""
    [f] = [f for f in c.diagnosis if "eager" in f.title]
    assert (f.title, f.severity, f.method) == ("XLA (jit_compile=True) gives other gradients than eager", "warning", None)
    assert f.text.startswith("XLA (jit_compile=True) differs from eager: 3 cell(s) are NaN or infinite eagerly but "
                             "finite in XLA; its output y differs in 1 element(s). The results above are not XLA's")
    assert f.details == ("(y) eager nan, XLA 2; (y, x[0]) eager nan, XLA 0; (y, x[1]) eager nan, XLA 1; "
                         "(y, x[2]) eager nan, XLA 0")
    assert [m.mode for m in c.crosscheck.modes] == ["eager", "graph", "xla"]   # compare runs forward as a method


def test_compare_cross_checks_only_when_asked():
    c = gradlib.compare("max(x)", {"x": [1.0, 2.0, math.nan]}, methods=["jacobian"])
    assert c.crosscheck is None and not [f for f in c.diagnosis if "eager" in f.title]


def test_compare_says_the_xla_nan_of_a_guarded_where_once_in_the_dead_branch_finding():
    """where(x > 0, sqrt(x), 0): the dead-branch finding explains why XLA gives NaN; the measurement joins it
    instead of a second box about the same cause."""
    c = gradlib.compare("where(x > 0, sqrt(x), 0)", {"x": [0.0, -1.0, 4.0]}, methods=["jacobian"], crosscheck=True)
    assert c.crosscheck.differing == ("xla",)
    about_xla = [f for f in c.diagnosis if "XLA" in f.text]
    assert [f.title for f in about_xla] == ["where(): the branch not taken has a non-finite derivative"]
    assert about_xla[0].text.endswith("Measured here: XLA (jit_compile=True) differs from eager: 6 cell(s) are NaN "
                                      "or infinite in XLA only.")
    assert "(y[0], x[0]) eager 0, XLA nan" in about_xla[0].details


def test_compare_leaves_the_cross_check_out_over_its_limits_and_still_answers():
    c = gradlib.compare("x*x", {"x": list(range(300))}, methods=["jacobian"], crosscheck=True)
    assert c.crosscheck is None and c.results["jacobian"].jacobian[299, 299] == 598
    assert c.crosscheck_note.startswith("crosscheck's eager reference runs one reverse pass per output element: "
                                        "300 here, and at most 256 are allowed")


# ---------------------------------------------------------------- the corpus: public reports, reproduced on 2.21
# Each report's own computation is redone with plain TensorFlow (``reported``: tape.jacobian in a tf.function, with
# or without XLA; ``tape_per_output``: eagerly), independent of gradlib, to show whether it reproduces here; then
# crosscheck must say the same: name the mode that differs, or agree where the report no longer reproduces.


def assert_names_xla(fn, x: tf.Tensor, also: tuple[str, ...] = ()) -> gradlib.CrossCheck:
    """The report reproduces (eager and XLA differ, computed plainly), and crosscheck names XLA with those numbers
    (and the modes ``also``, when forward mode differs from eager as well)."""
    eager, xla = tape_per_output(fn, x), reported(fn, x, jit=True)
    assert not same(eager, xla), "the report no longer reproduces: make it an agreement test"
    c = gradlib.crosscheck(fn, x)
    assert c.differing == ("xla", *also) and c.summary.startswith("XLA (jit_compile=True) differs from eager")
    assert same(c.mode("eager").jacobian, eager) and same(c.mode("xla").jacobian, xla)
    assert same(c.mode("graph").jacobian, reported(fn, x, jit=False))
    return c


def assert_agrees(fn, x: tf.Tensor, expected, modes=_crosscheck.MODES) -> gradlib.CrossCheck:
    """The report does not reproduce here (eager, graph and XLA give the same, computed plainly), and crosscheck
    reports agreement, with the expected Jacobian in every mode of ``modes``."""
    eager = tape_per_output(fn, x)
    assert same(eager, reported(fn, x, jit=False)) and same(eager, reported(fn, x, jit=True))
    c = gradlib.crosscheck(fn, x, modes=modes)
    assert c.agrees and c.differing == ()
    for m in c.modes:
        assert same(m.jacobian, np.asarray(expected, np.float32)), m.mode
    return c


COMPILERS = ("eager", "graph", "xla")


def test_report_118674_where_reciprocal_row_no_longer_differs():
    """https://github.com/tensorflow/tensorflow/issues/118674, its where(x > 0, 1/x, 1) row: the report has eager 0
    and XLA NaN at x = 0. Not reproduced on 2.21 (CPU): eager gives NaN too (the reciprocal's gradient is
    -dy * y * y, and 0 * inf is NaN), so eager, graph and XLA agree, NaN in the column of x = 0. Forward mode does
    not differentiate the branch not taken: it gives the true 0 there, and crosscheck names it."""
    fn, x = lambda v: tf.where(v > 0, 1.0 / v, 1.0), tf.constant([0.0, 4.0])
    c = assert_agrees(fn, x, [[math.nan, 0.0], [math.nan, -0.0625]], modes=COMPILERS)
    assert c.summary.startswith("eager, graph (tf.function) and XLA (jit_compile=True) agree")
    c = gradlib.crosscheck(fn, x, modes=["eager", "forward"])
    assert c.differing == ("forward",) and c.mode("forward").jacobian.tolist() == [[0.0, 0.0], [0.0, -0.0625]]
    assert c.summary == "forward mode differs from eager: 2 cell(s) are NaN or infinite eagerly but finite in forward mode."
    c = gradlib.crosscheck(fn, x)   # forward mode as a graph does the same
    assert c.differing == ("forward", "forward_graph")
    assert same(c.mode("forward_graph").jacobian, c.mode("forward").jacobian)


def test_report_118674_where_log_row_agrees_as_the_report_says():
    """https://github.com/tensorflow/tensorflow/issues/118674, its where(x > 0, log(x), -100) row: NaN in both
    paths, as the report itself says (log(0) = -inf already in the forward pass); forward mode gives the true 0."""
    fn, x = lambda v: tf.where(v > 0, tf.math.log(v), -100.0), tf.constant([0.0, 1.0])
    assert_agrees(fn, x, [[math.nan, 0.0], [math.nan, 1.0]], modes=COMPILERS)
    assert gradlib.crosscheck(fn, x).differing == ("forward", "forward_graph")


@pytest.mark.parametrize("reduce", [tf.reduce_max, tf.reduce_min])
def test_report_118673_reduce_max_of_nan_drops_the_nan_under_xla(reduce):
    """https://github.com/tensorflow/tensorflow/issues/118673 (XLA gradient of reduce_max/reduce_min returns 0
    instead of NaN when the input holds NaN). Reproduces on 2.21 (CPU): eager NaN in every cell, XLA finite (and
    XLA's value is finite too, as tensorflow/tensorflow#119990 reports)."""
    c = assert_names_xla(lambda v: reduce(v), tf.constant([1.0, 2.0, math.nan]))
    assert np.isnan(c.mode("eager").jacobian).all() and np.isfinite(c.mode("xla").jacobian).all()
    assert c.mode("xla").nonfinite_reference == 3 and c.mode("xla").nonfinite_here == 0


def test_report_118713_where_on_a_mean_tie_takes_the_other_branch_under_xla():
    """https://github.com/tensorflow/tensorflow/issues/118713 (tf.where gradient mismatch under XLA, reported with
    a polymorphic input shape). Reproduces on 2.21 (CPU) with the fixed shape [3, 5] too: XLA's row mean of x
    differs from eager's in the last bit, x[0, 2] sits exactly on the mean, so `x > mean` picks the other branch
    (sin instead of cos) in that one cell: the loss differs, and its gradient by about 0.031, not NaN."""
    def loss(x):
        mask = x > tf.reduce_mean(x, axis=1, keepdims=True)
        y = tf.where(mask, tf.math.sin(x), tf.math.cos(x))
        return tf.reduce_sum(y * tf.reshape(tf.linspace(0.17, 1.13, tf.size(y)), tf.shape(y)))

    c = assert_names_xla(loss, tf.reshape(tf.linspace(-1.0, 1.0, 15), [3, 5]))
    xla = c.mode("xla")
    assert xla.nonfinite_here == 0 and 0.02 < xla.max_abs < 0.04
    assert xla.details == "(y) eager 6.09342, XLA 5.66016; (y, x[0,2]) eager 0.201203, XLA 0.232065"
    assert "finite cells differ by up to 0.0309" in c.summary


def test_report_jax_38096_xla_simplifies_sqrt_abs_square_in_tensorflow_too():
    """https://github.com/jax-ml/jax/issues/38096 (jit(grad(f)) != grad(f) for sqrt(abs(x*x)) at the smallest
    normal float32: XLA simplifies the expression before the gradient). A JAX report whose cause is XLA's: it
    reproduces in TensorFlow 2.21 (CPU): eagerly x*x underflows to 0 and the gradient is NaN, XLA gives 0. Forward
    mode differs too: sqrt's infinite derivative at 0 times x[1]'s tangent of 0 makes (y[0], x[1]) NaN. The true
    derivative of y[0] = |x[0]| is 1: no mode gives it."""
    c = assert_names_xla(lambda v: tf.sqrt(tf.abs(tf.square(v))), tf.constant([1.1754944e-38, 1.0]),
                         also=("forward", "forward_graph"))
    assert np.isnan(c.mode("eager").jacobian[0, 0]) and c.mode("xla").jacobian[0, 0] == 0.0
    assert np.isnan(c.mode("forward").jacobian[0]).all() and c.mode("forward").nonfinite_here == 1


def test_report_jax_38097_log_of_exp_rewritten_in_the_value_not_in_the_gradient():
    """https://github.com/jax-ml/jax/issues/38097 (jit(grad(log(exp(x)))) is 1 where exp overflows: XLA rewrites
    log(exp(x)) to x). Partly reproduced in TensorFlow 2.21 (CPU): TensorFlow's XLA rewrites the value (y[0] is 89
    under XLA, inf eagerly) but not the gradient, NaN at x = 89 in every compiler. crosscheck names XLA for its
    output, and its Jacobian equals eager's."""
    fn, x = lambda v: tf.math.log(tf.exp(v)), tf.constant([89.0, 88.0])
    eager = tape_per_output(fn, x)
    assert same(eager, reported(fn, x, jit=True)) and same(eager, [[math.nan, 0.0], [math.nan, 0.0]])
    c = gradlib.crosscheck(fn, x, modes=COMPILERS)
    assert c.differing == ("xla",) and same(c.mode("xla").jacobian, eager)
    assert c.summary == "XLA (jit_compile=True) differs from eager: its output y differs in 1 element(s)."
    assert c.mode("xla").details == "(y[0]) eager inf, XLA 89"


def hessian_row(branches):
    """x -> the gradient of x*x computed inside fn with an inner tape through ``branches`` (tf.cond): crosscheck's
    Jacobian of it is the Hessian, d2(x*x)/dx2 = 2."""
    def fn(x):
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = branches(x)
        return inner.gradient(y, x)
    return fn


def test_report_108936_hessian_through_tf_cond_in_a_tf_function():
    """https://github.com/tensorflow/tensorflow/issues/108936 (GradientTape.jacobian of a gradient through tf.cond
    fails in graph mode with pfor, eager is right; TF 2.20 on GPU). Not reproduced on 2.21 (CPU): the graph and XLA
    vectorize it and every mode gives the Hessian 2."""
    cond = hessian_row(lambda x: tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * x, lambda: x * x))
    assert_agrees(cond, tf.constant([0.5]), [[2.0]], modes=COMPILERS)


def test_report_44502_hessian_through_nested_tf_cond_fails_as_a_graph():
    """https://github.com/tensorflow/tensorflow/issues/44502 (Jacobian of the gradient of a tf.function with nested
    tf.cond fails; TF 2.3, CPU), the same failure as #108936 reports for one tf.cond on TF 2.20. Reproduces on 2.21
    (CPU) with nested tf.cond: tape.jacobian inside tf.function stops with "Encountered an exception while
    vectorizing the jacobian computation", where eager gives the Hessian 2; under XLA it runs, and gives 2."""
    nested = hessian_row(lambda x: tf.cond(tf.reduce_sum(x) > 0.0,
                                           lambda: tf.cond(tf.reduce_sum(x) > 1.0, lambda: x * x, lambda: x * x),
                                           lambda: x * x))
    x = tf.constant([0.5])
    with pytest.raises(ValueError, match="vectorizing the jacobian computation"):
        reported(nested, x, jit=False)
    c = gradlib.crosscheck(nested, x, modes=COMPILERS)
    assert c.differing == ("graph",) and c.mode("eager").jacobian.tolist() == [[2.0]]
    assert c.mode("graph").status == "failed" and c.mode("xla").jacobian.tolist() == [[2.0]]
    assert c.summary.startswith("graph (tf.function) failed where eager ran: ValueError: Encountered an exception "
                                "while vectorizing the jacobian computation")


def test_an_integer_only_input_has_nothing_to_cross_check_and_nothing_fails():
    """compare("n*n", n int32) cross-checked a Jacobian of no columns: tape.jacobian of no sources failed in the
    graph and under XLA, and the diagnosis blamed them."""
    c = gradlib.compare("n*n", {"n": [1, 2]}, dtype={"n": "int32"}, methods=["jacobian"], crosscheck=True)
    assert c.crosscheck.differing == () and [m.status for m in c.crosscheck.modes] == ["reference", "skipped", "skipped"]
    assert "nothing to differentiate" in c.crosscheck.mode("graph").text
    assert [f.title for f in c.diagnosis] == ["'n' is an integer input: no gradient"]
