"""The linter's rule and its claim hold on ordinary rewrites of a corpus case (lint_variants.py), and the
sentences that state a secondary fact appear only where they are true (issue 36, item 4).

A variant must get its corpus snippet's rules with the same claims about TensorFlow (test_outcomes.py's
``claim``) and the same coverage sentence, and be flagged on its marked line. Whether TensorFlow agrees with the
claims is test_outcomes.py's (the variants are in its table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradlib import lint
from lint_programs import marks
from lint_variants import VARIANTS
from test_outcomes import claim

CORPUS = Path(__file__).resolve().parent / "lint_corpus"


def _said(findings) -> set[tuple[str, frozenset]]:
    return {(f.rule, frozenset(claim(f.message) or ())) for f in findings}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_variant_gets_the_rule_and_the_claim_of_its_corpus_case(name):
    base, source = VARIANTS[name]
    original, variant = lint((CORPUS / base).read_text()), lint(source)
    assert marks(source) <= {(f.line, f.rule) for f in variant}, [str(f) for f in variant]
    assert _said(variant) == _said(original), ([str(f) for f in variant], [str(f) for f in original])
    # the count of findings may differ: a cause moved off the call's line adds the note on the call
    assert variant.coverage().split("; ", 1)[1] == original.coverage().split("; ", 1)[1], variant.coverage()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_fully_followed_variant_claims_nothing_about_what_it_could_not_follow(name):
    result = lint(VARIANTS[name][1])
    assert result.complete and result.checked == result.calls >= 1
    assert "could not" not in result.coverage() and "assume" not in result.coverage(), result.coverage()


@pytest.mark.parametrize("name", [n for n, (base, _) in VARIANTS.items() if base.endswith("wrapped.py")])
def test_a_value_wrapped_back_into_a_tensor_is_never_said_to_raise(name):
    for finding in lint(VARIANTS[name][1]):
        assert "raises" not in finding.message and "never reached" not in finding.message, finding.message
        assert "is None (zeros with unconnected_gradients=ZERO)" in finding.message, finding.message


@pytest.mark.parametrize("name", [n for n, (base, _) in VARIANTS.items() if base.endswith("np_mean_target.py")])
def test_a_numpy_target_is_never_said_to_give_none(name):
    for finding in lint(VARIANTS[name][1]):
        assert "is None" not in finding.message and "is zeros" not in finding.message, finding.message
        assert "raises AttributeError, since its target" in finding.message, finding.message


@pytest.mark.parametrize("source, note", [
    (VARIANTS["np_target_sum"][1], False),                 # the cause is in the call itself: no note
    (VARIANTS["np_target_split_over_lines"][1], True),     # the call starts on another line than its cause
    (VARIANTS["wrapped_sum"][1], True),
])
def test_the_note_on_the_call_appears_only_when_the_cause_is_on_another_line(source, note):
    notes = [f for f in lint(source) if "the cause is on line" in f.message]
    assert bool(notes) == note, [str(f) for f in lint(source)]
    for finding in notes:
        cause = int(finding.message.split("the cause is on line ")[1].split(" ")[0])
        assert cause != finding.line and (cause, finding.rule) in marks(source)


def test_never_reached_is_said_only_after_an_augmented_assignment_of_a_variable():
    augmented = (CORPUS / "broken" / "augassign_variable.py").read_text()
    rebound = augmented.replace("bias += 1.0", "bias = bias + 1.0")
    (note,) = [f for f in lint(augmented) if f.line == 7]
    assert "never reached: line 4 raises RuntimeError first" in note.message
    assert all("never reached" not in f.message for f in lint(rebound)), [str(f) for f in lint(rebound)]
    assert any("is None" in f.message for f in lint(rebound) if f.line == 7)


def test_tf_sign_is_said_to_give_zeros_and_tf_round_none():
    sign = (CORPUS / "broken" / "sign.py").read_text()
    rounded = sign.replace("tf.sign(x)", "tf.round(x)")
    assert {frozenset(claim(f.message)) for f in lint(sign)} == {frozenset({"zeros"})}
    assert {frozenset(claim(f.message)) for f in lint(rounded)} == {frozenset({"none"})}
    assert all("tf.sign" not in f.message for f in lint(rounded))
