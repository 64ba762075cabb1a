"""gradlib.crosscheck: the same per-element gradients eagerly, as a graph, under XLA and in forward mode (issue 21.2).

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
from gradlib import _crosscheck


def tape_per_output(fn, x: tf.Tensor) -> np.ndarray:
    """The reference Jacobian: one eager GradientTape per output element, nothing of gradlib's."""
    rows = []
    for i in range(int(tf.size(fn(x)))):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y_i = tf.reshape(fn(x), [-1])[i]
        rows.append(tape.gradient(y_i, x, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy().reshape(-1))
    return np.stack(rows)


def test_every_mode_agrees_on_a_smooth_function_and_gives_its_closed_form():
    c = gradlib.crosscheck(lambda v: v * v, tf.constant([1.0, 2.0]))
    assert c.agrees and c.differing == ()
    assert [m.mode for m in c.modes] == ["eager", "graph", "xla", "forward"]
    for m in c.modes:
        np.testing.assert_array_equal(m.jacobian, [[2.0, 0.0], [0.0, 4.0]])
        assert m.max_abs == 0.0 and m.nonfinite_here == 0
    assert c.summary.startswith("eager, graph (tf.function), XLA (jit_compile=True) and forward mode agree")


def test_the_dead_branch_nan_of_xla_is_named_and_counted():
    """tensorflow/tensorflow#118674: where(v > 0, sqrt(v), 0) at v = [0, -1, 4]: eager and graph give 0 in the
    branch not taken (columns v[0], v[1]), XLA gives NaN there: 6 cells, in XLA only."""
    fn = lambda v: tf.where(v > 0, tf.sqrt(v), 0.0)   # noqa: E731
    x = tf.constant([0.0, -1.0, 4.0])
    c = gradlib.crosscheck(fn, x)
    np.testing.assert_array_equal(c.mode("eager").jacobian, tape_per_output(fn, x))
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
    """A function that leaves TensorFlow (.numpy()) runs eagerly and cannot be traced: graph and XLA fail."""
    c = gradlib.crosscheck(lambda v: v * float(v.numpy()[0]), tf.constant([2.0, 3.0]))
    assert c.differing == ("graph", "xla")
    assert c.mode("graph").status == "failed" and c.mode("graph").jacobian is None
    assert c.mode("graph").text.startswith("graph (tf.function) failed where eager ran: ")
    assert c.mode("eager").jacobian.tolist() == [[2.0, 0.0], [0.0, 2.0]]   # the tape sees float(...) as a constant


def test_every_modes_jacobian_counts_against_the_limit():
    x = tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(gradlib.ExpressionError, match=r"crosscheck holds 4 Jacobians of 3 x 3 entries, 36 in all; "
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
    XLA gives 0 and 1: one warning that names XLA, its cells folded into the details."""
    c = gradlib.compare("max(x)", {"x": [1.0, 2.0, math.nan]}, methods=["jacobian"], crosscheck=True)
    assert c.crosscheck.differing == ("xla",) and c.crosscheck_note == ""
    [f] = [f for f in c.diagnosis if "eager" in f.title]
    assert (f.title, f.severity, f.method) == ("XLA (jit_compile=True) gives other gradients than eager", "warning", None)
    assert f.text.startswith("XLA (jit_compile=True) differs from eager: 3 cell(s) are NaN or infinite eagerly but "
                             "finite in XLA. The results above are not XLA's")
    assert f.details == "(y, x[0]) eager nan, XLA 0; (y, x[1]) eager nan, XLA 1; (y, x[2]) eager nan, XLA 0"
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
