"""Every finding of the diagnosis (gradlib._perelement._comparison._findings), one row: a case where it appears,
saying the secondary fact it states (which input, which cells), and a near case where it must NOT appear.

``test_every_finding_has_a_row`` reads the titles out of ``_findings.py`` itself (each ``Finding(...)`` call and the
table of cell statuses), so a new finding without a row fails. The findings that say what TensorFlow does with a
gradient call (None, zeros with ``unconnected_gradients=ZERO``, the sum over y) are checked against TensorFlow,
run here on the same case.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import Limits, compare
from gradlib._perelement._comparison import _findings

METHODS = ["jacobian", "naive", "summed", "auto"]

#: title pattern -> (case where it appears, a pattern its text must match there, a near case where it must not)
#: a case: (text, inputs, keywords of compare)
ROWS = {
    "The naive loop returns zeros": (("x*x", {"x": [1.0, 2.0]}, {}), r"the gradient is None \(zeros with "
                                     r"unconnected_gradients=ZERO\)", ("relu(x)", {"x": [-1.0, -2.0]}, {})),
    "The naive loop happens to agree here": (("relu(x)", {"x": [-1.0, -2.0]}, {}), r"Every true gradient is zero",
                                             ("relu(x)", {"x": [1.0, -2.0]}, {})),
    r"tape.gradient\(y, x\) sums over the elements of y": (
        ("x*x", {"x": [1.0, 2.0]}, {}), r"gave \[2, 4\]: the gradient of sum\(y\).*for x\[0\]: 2 \+ 0 = 2",
        ("sum(x*x)", {"x": [1.0, 2.0]}, {})),
    "tape.gradient happens to agree here": (("relu(x)", {"x": [-1.0, -2.0]}, {}), r"Every true gradient is zero",
                                            ("relu(x)", {"x": [1.0, -2.0]}, {})),
    "tape.gradient is the per-element gradient here": (("sum(x*x)", {"x": [1.0, 2.0]}, {}), r"single element",
                                                       ("x*x", {"x": [1.0, 2.0]}, {})),
    ".* does not give the per-element gradients": None,   # every wrong method has words of its own (naive, summed)
    "'n' is an integer input: no gradient": (
        ("x*n", {"x": [1.0, 2.0], "n": [3, 4]}, {"dtype": {"x": "float32", "n": "int32"}}),
        r"every method gives 0 for 'n' \(None without unconnected_gradients=ZERO\)",
        ("x*n", {"x": [1.0, 2.0], "n": [3.0, 4.0]}, {})),
    "z does not reach any output": (("x*x", {"x": [1.0, 2.0], "z": 1.0}, {}), r"'z' do not appear",
                                    ("x*z", {"x": [1.0, 2.0], "z": 1.0}, {})),
    "Every gradient with respect to x is zero here$": (("relu(x)", {"x": [-1.0, -2.0]}, {}), r"no output changes",
                                                       ("relu(x)", {"x": [-1.0, 2.0]}, {})),
    "Every gradient with respect to x is zero here, at a kink": (
        ("relu(x)", {"x": [0.0, -2.0]}, {}), r"at \(y\[0\], x\[0\]\) it has a kink",
        ("relu(x)", {"x": [-1.0, -2.0]}, {})),
    "Infinite derivative": (("sqrt(x)", {"x": [0.0, 1.0]}, {}), r"like sqrt at 0", ("sqrt(x)", {"x": [0.5, 1.0]}, {})),
    "NaN poisoning": (("x*x", {"x": [float("nan"), 1.0]}, {}), r"gives NaN where the true value is finite",
                      ("x*x", {"x": [2.0, 1.0]}, {})),
    "NaN poisoning repaired": (("log(x)", {"x": [0.0, 1.0]}, {}), r"mode gave NaN here",
                               ("log(x)", {"x": [0.5, 1.0]}, {})),
    "No mode gives a number here": (("sqrt(x*x)", {"x": [0.0, 1.0]}, {}), r"0 x inf",
                                    ("sqrt(x*x)", {"x": [0.5, 1.0]}, {})),
    "Output not finite": (("log(x)", {"x": [0.0, 1.0]}, {}), r"", ("log(x)", {"x": [0.5, 1.0]}, {})),
    "Input warning": (("x*x", {"x": [float("nan"), 1.0]}, {}), r"NaN or infinite", ("x*x", {"x": [2.0, 1.0]}, {})),
    "Finite-difference check skipped": (("x*x", {"x": [1.0, 2.0]}, {"limits": Limits(max_flops=200)}), r"",
                                        ("x*x", {"x": [1.0, 2.0]}, {})),
    "Finite differences straddle a kink": (("relu(x)", {"x": [0.0, -2.0]}, {}), r"x\[0\]",
                                           ("relu(x)", {"x": [-1.0, -2.0]}, {})),
    "Finite differences disagree": (("where(x > 0, sqrt(x), 0.0)", {"x": [0.0, 1.0]}, {}), r"",
                                    ("where(x > 0, sqrt(x), 0.0)", {"x": [0.5, 1.0]}, {})),
    "Cells the finite-difference check could not check": (("sqrt(x)", {"x": [0.0, 1.0]}, {}), r"",
                                                          ("sqrt(x)", {"x": [0.5, 1.0]}, {})),
    "The per-element gradients are right": (("x*x", {"x": [1.0, 2.0]}, {}), r"",
                                            ("x*n", {"x": [1.0, 2.0], "n": [3, 4]},
                                             {"dtype": {"x": "float32", "n": "int32"}})),
    "Correct methods disagree": None,   # a correct method differing beyond tolerance: no text of the language makes one
}


def _titles_in_the_module() -> list[str]:
    """Each finding's title in _findings.py, as a pattern (a formatted part matches anything)."""
    tree = ast.parse(Path(_findings.__file__).read_text())
    titles = []

    def pattern(node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return re.escape(node.value)
        if isinstance(node, ast.JoinedStr):
            return "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".*" for v in node.values)
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Finding" and len(node.args) > 1:
            titles.append(pattern(node.args[1]))
        if isinstance(node, ast.Dict):   # the table of cell statuses: code -> (method, title, text, severity)
            titles += [pattern(v.elts[1]) for v in node.values if isinstance(v, ast.Tuple) and len(v.elts) == 4]
    return [t for t in titles if t is not None]


def _example(title_pattern: str) -> str:
    """A concrete title that a row's key matches, to match against the module's patterns."""
    if title_pattern == ".* does not give the per-element gradients":
        return "x does not give the per-element gradients"
    return title_pattern.replace("\\", "").rstrip("$")


def test_every_finding_has_a_row():
    titles = _titles_in_the_module()
    assert len(titles) >= 15, titles
    examples = [_example(key) for key in ROWS]
    missing = [t for t in titles if t != ".*" and not any(re.fullmatch(t, e) for e in examples)]
    assert not missing, f"findings without a row: {missing}"


def _findings_of(case) -> list:
    text, inputs, keywords = case
    return list(compare(text, inputs, methods=METHODS, **keywords).diagnosis)


def _matching(findings, key):
    return [f for f in findings if re.fullmatch(key, f.title)]


@pytest.mark.parametrize("key", [k for k, row in ROWS.items() if row is not None])
def test_a_finding_appears_where_it_holds_and_not_in_the_near_case(key):
    present, says, absent = ROWS[key]
    found = _matching(_findings_of(present), key)
    assert found, f"{key!r} is missing where it holds: {[f.title for f in _findings_of(present)]}"
    assert any(re.search(says, f.full) for f in found), [f.full for f in found]
    assert not _matching(_findings_of(absent), key), f"{key!r} appears where it does not hold: {absent}"


# ---------------------------------------------------------------- what TensorFlow does, as the findings say


def test_the_naive_loop_gets_none_and_zeros_with_zero_as_its_finding_says():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert all(tape.gradient(y_i, x) is None for y_i in y)
    zeros = [tape.gradient(y_i, x, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy() for y_i in y]
    np.testing.assert_array_equal(zeros, np.zeros((2, 2)))


def test_an_integer_input_gets_none_and_zeros_with_zero_as_its_finding_says():
    x, n = tf.constant([1.0, 2.0]), tf.constant([3, 4])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, n])
        y = x * tf.cast(n, tf.float32)
    assert tape.gradient(y, n) is None
    np.testing.assert_array_equal(tape.gradient(y, n, unconnected_gradients=tf.UnconnectedGradients.ZERO), [0, 0])


def test_an_unused_input_gets_none_and_zeros_with_zero_as_its_finding_says():
    finding = _matching(_findings_of(("x*x", {"x": [1.0, 2.0], "z": 1.0}, {})), "z does not reach any output")[0]
    assert "tape.gradient gives None for them, zeros with unconnected_gradients=ZERO" in finding.text
    x, z = tf.constant([1.0, 2.0]), tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * x
    assert tape.gradient(y, z) is None
    assert tape.gradient(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy() == 0.0


def test_a_flat_input_and_a_kink_get_zeros_from_the_tape_as_their_findings_say():
    # "no output changes with it" (relu below 0) and "TensorFlow takes the derivative as 0" (relu at 0): zeros,
    # not None, from a plain tape
    for x0, title in [(-1.0, "Every gradient with respect to x is zero here$"),
                      (0.0, "Every gradient with respect to x is zero here, at a kink")]:
        assert _matching(_findings_of(("relu(x)", {"x": [x0, -2.0]}, {})), title)
        x = tf.constant([x0, -2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.relu(x)
        np.testing.assert_array_equal(tape.gradient(y, x), [0.0, 0.0])


def test_tape_gradient_gives_the_column_sums_its_finding_shows():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    shown = re.search(r"gave \[(.*?)\]", _matching(_findings_of(("x*x", {"x": [1.0, 2.0]}, {})),
                                                   r"tape.gradient\(y, x\) sums over the elements of y")[0].text)
    np.testing.assert_array_equal([float(v) for v in shown.group(1).split(", ")], tape.gradient(y, x).numpy())


def test_gradlib_is_the_package_under_test():
    assert Path(gradlib.__file__).resolve().parents[1] == Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the finite-difference check's own summary

#: a sentence of ``FiniteDifferenceCheck.summary`` -> (a case that says it, a near case that must not)
SUMMARY = {
    r"differ from central finite differences": (("relu(x)", [0.0, -2.0]), ("x*x", [1.0, 2.0])),
    r"It is at a kink, where the function has no derivative": (("relu(x)", [0.0, -2.0]),
                                                                ("where(x > 0, sqrt(x), 0.0)", [0.0, 1.0])),
    r"\(y\[0\], x\[0\]\) could not be checked: the function is not defined \(NaN\) just below x\[0\]": (
        ("sqrt(x)", [0.0, 1.0]), ("sqrt(x)", [0.5, 1.0])),
    r"agree with every cell": (("x*x", [1.0, 2.0]), ("sqrt(x)", [0.0, 1.0])),
    r"agree with all 3 checked cell\(s\)": (("sqrt(x)", [0.0, 1.0]), ("x*x", [1.0, 2.0])),
    r"No cell could be checked": (("sqrt(x)", [0.0]), ("sqrt(x)", [0.0, 1.0])),
}


def _summary(case) -> str:
    text, x = case
    c = compare(text, {"x": x}, methods=["jacobian"])
    return c.check.summary(c.best.row_labels, c.best.col_labels)


@pytest.mark.parametrize("sentence", sorted(SUMMARY))
def test_a_sentence_of_the_check_summary_appears_only_where_it_holds(sentence):
    present, absent = SUMMARY[sentence]
    assert re.search(sentence, _summary(present)), _summary(present)
    assert not re.search(sentence, _summary(absent)), _summary(absent)
