"""Every correction gradlib.lint offers on the corpus runs under TensorFlow and gives the right gradient.

For each broken corpus snippet (tests/lint/lint_corpus) and each rule's example, every finding that carries a corrected
source is applied: the corrected program runs under TensorFlow (one subprocess for the session:
fix_programs.outcomes, read through conftest.py's ``program_outcomes``) and its gradient must equal a closed form
written by hand from the program's own values (fix_programs.REFERENCES): not None, not "some real number", the right
one. The table also pins which findings offer a correction at all.
"""

from __future__ import annotations

import pytest
from fix_programs import REPORTS, corpus_corrections, references, wrong_gradients

from gradlib.lint import lint


def test_exactly_the_corrections_with_a_closed_form_are_offered():
    assert sorted(corpus_corrections()) == sorted(references())


def test_every_offered_correction_runs_and_gives_the_closed_form_gradient(program_outcomes):
    fixed = {name: outcome for name, outcome in program_outcomes.items() if name.startswith("fix/")}
    assert len(fixed) == len(references()) >= 40
    assert wrong_gradients(fixed) == {}


def test_a_wrong_gradient_a_none_and_an_error_are_each_caught():
    assert set(wrong_gradients({"right": {"got": [[2.0, 4.0]], "want": [[2.0, 4.0]]},
                                "wrong": {"got": [[2.0, 4.0]], "want": [[2.0, 5.0]]},
                                "shape": {"got": [[2.0, 2.0]], "want": [2.0]},
                                "none": {"got": [None], "want": [1.0]},
                                "raised": {"error": "NameError: name 'x' is not defined"}})) == \
        {"wrong", "shape", "none", "raised"}


_HEAD = "import tensorflow as tf\n"


def _fixed(source: str, rule: str) -> str | None:
    return next((f.fixed for f in lint(_HEAD + source) if f.rule == rule and f.fixed), None)


def test_a_watch_goes_after_the_blocks_own_assignment_of_the_tensor():
    fixed = _fixed("with tf.GradientTape() as g:\n    x = tf.constant(2.0)\n    y = x * x\nd = g.gradient(y, x)\n",
                   "GT003")
    assert fixed.splitlines()[2:5] == ["    x = tf.constant(2.0)", "    g.watch(x)", "    y = x * x"]


@pytest.mark.parametrize("body", [
    "    for k in range(2):\n        x = tf.constant(2.0)\n    y = x * x\n",
    "    with tf.device('/cpu:0'):\n        x = tf.constant(2.0)\n    y = x * x\n",
], ids=["in-a-loop", "in-a-nested-block"])
def test_no_watch_is_offered_when_the_tensor_is_made_deeper_in_the_block(body):
    source = "with tf.GradientTape() as g:\n" + body + "d = g.gradient(y, x)\n"
    assert any(f.rule == "GT003" for f in lint(_HEAD + source))
    assert _fixed(source, "GT003") is None


@pytest.mark.parametrize("uses, offered", [
    ("    y = x * x + 2\n", True),
    ("    y = tf.reduce_sum(tf.cast(x, tf.float32) * w)\n", True),
    ("    y = x * w\n", False),
    ("    y = tf.matmul(x, w)\n", False),
], ids=["itself-and-numbers", "cast-first", "times-another-value", "matmul-another-value"])
def test_dtype_float32_is_offered_only_when_the_int_value_meets_nothing_else(uses, offered):
    source = ("x = tf.constant([[1, 2]])\nw = tf.constant([[3], [4]])\nwith tf.GradientTape() as g:\n    g.watch(x)\n"
              + uses + "d = g.gradient(y, x)\n")
    assert any(f.rule == "GT004" for f in lint(_HEAD + source))
    fixed = _fixed(source, "GT004")
    assert (fixed is not None) == offered
    assert fixed is None or "x = tf.constant([[1, 2]], dtype=tf.float32)" in fixed.splitlines()


def test_every_source_never_watched_is_watched_and_the_corrected_program_gives_the_closed_form():
    """tensorflow/probability#51 asked for two constants and the correction watched the first only (the message named
    it alone): both are named and watched now, in the order asked, and the corrected program lints clean."""
    source = ("a = tf.constant(2.0)\nb = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = a * a * b\n"
              "d = tape.gradient(y, [a, b])\n")
    finding = next(f for f in lint(_HEAD + source) if f.rule == "GT003" and f.fixed)
    assert "tape.watch(a)" in finding.message and "tape.watch(b)" in finding.message
    assert finding.fixed.splitlines()[4:6] == ["    tape.watch(a)", "    tape.watch(b)"] and lint(finding.fixed) == []


def test_no_watch_is_offered_when_the_path_was_computed_before_the_block():
    """tensorflow/probability#51: the Gamma is sampled from the constants before the block, so a watch in the block
    comes too late (the corrected program still gave [None, None]): the message says so, names the value computed
    before, and no correction is offered."""
    source = next(r.source for r in REPORTS if r.name == "tfp51")
    findings = [f for f in lint(source) if f.rule == "GT003" and f.line == 8]
    assert len(findings) == 1 and findings[0].fixed is None
    assert "samples is computed from concentration before the block" in findings[0].message
    assert "tape.watch(rate)" in findings[0].message
