"""Every correction gradlib.lint offers on the corpus runs under TensorFlow and gives the right gradient.

For each broken corpus snippet (tests/lint/lint_corpus) and each rule's example, every finding that carries a corrected
source is applied: the corrected program runs under TensorFlow (one subprocess for the session:
fix_programs.outcomes) and its gradient must equal a closed form written by hand from the program's own values
(fix_programs.REFERENCES): not None, not "some real number", the right one. The table also pins which findings
offer a correction at all.
"""

from __future__ import annotations

from fix_programs import corpus_corrections, outcomes, references, wrong_gradients


def test_exactly_the_corrections_with_a_closed_form_are_offered():
    assert sorted(corpus_corrections()) == sorted(references())


def test_every_offered_correction_runs_and_gives_the_closed_form_gradient():
    fixed = {name: outcome for name, outcome in outcomes().items() if name.startswith("fix/")}
    assert len(fixed) == len(references()) >= 40
    assert wrong_gradients(fixed) == {}


def test_a_wrong_gradient_a_none_and_an_error_are_each_caught():
    assert set(wrong_gradients({"right": {"got": [[2.0, 4.0]], "want": [[2.0, 4.0]]},
                                "wrong": {"got": [[2.0, 4.0]], "want": [[2.0, 5.0]]},
                                "shape": {"got": [[2.0, 2.0]], "want": [2.0]},
                                "none": {"got": [None], "want": [1.0]},
                                "raised": {"error": "NameError: name 'x' is not defined"}})) == \
        {"wrong", "shape", "none", "raised"}
