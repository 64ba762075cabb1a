"""Each finding's message says what TensorFlow does with the gradient call, and TensorFlow agrees.

Every snippet of the lint corpus (tests/lint/lint_corpus, every folder), every program of lint_programs.py, every
rule's example, every variant of lint_variants.py and every public report's reproducer (fix_programs.py) is run
under TensorFlow in one subprocess (lint_corpus/outcomes.py, by conftest.py's ``tf_snippets``), which records what
each gradient call itself did, by the line it is written on: None, zeros, a real gradient, or the exception it
raised; and where the snippet stopped on an exception no gradient call raised. The linter, which never runs the
code, must have said the same: each finding's claim (the first outcome its message states: "is None", "is zeros",
"raises SomeError", "a wrong number") is checked against the call on the finding's line when TensorFlow ran one
there, else against what the failing calls of the snippet (or its crash) did. A snippet added to any of these joins
the table; none is skipped, and none is marked as expected to fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradlib import lint
from gradlib.lint import RULES
from fix_programs import REPORTS
from lint_programs import PROGRAMS
from lint_variants import VARIANTS

CORPUS = Path(__file__).resolve().parent / "lint_corpus"
FILES = sorted(CORPUS.glob("*/*.py")) + sorted(CORPUS.glob("unseen/*/*.py"))
# The rule examples leave their gradient in a name of their own: what matters here is each call's own outcome.
SNIPPETS = {**{str(p.relative_to(CORPUS)): p.read_text() for p in FILES if p.parent.name != "lint_corpus"},
            **{f"programs/{name}": program.source for name, program in PROGRAMS.items()},
            **{f"rules/{rule.code}": rule.example for rule in RULES},
            **{f"variants/{name}": source for name, (_, source) in VARIANTS.items()},
            **{f"reports/{report.name}": report.source for report in REPORTS}}

_CLAIM = re.compile(r"\bis (None|zeros|an empty list)\b|\braises (\w+Error(?: or \w+Error)?)|\b(a wrong number)\b")


def claim(message: str) -> set[str] | None:
    """What a message says the gradient call does: {"none"}, {"zeros"}, {"empty"} (an empty list, no gradient at
    all), the exception names it may raise, or
    {"real", "zeros"} for a wrong number (a value, but not the right one); None when it says nothing."""
    found = _CLAIM.search(message)
    if found is None:
        return None
    if found.group(1):
        return {"empty"} if found.group(1) == "an empty list" else {found.group(1).lower()}
    if found.group(2):
        return set(found.group(2).split(" or "))
    return {"real", "zeros"}


@pytest.fixture(scope="module")
def outcomes(tf_snippets) -> dict[str, dict]:
    """name -> {"calls": {line: set of outcomes}, "crash": (line, error) or None}, from one subprocess (conftest.py's
    ``tf_snippets``, which runs lint_corpus/outcomes.py)."""
    found = {}
    for name, run in tf_snippets.run(SNIPPETS).items():
        calls: dict[int, set] = {}
        for line, outcome in run["calls"]:
            calls.setdefault(line, set()).add(outcome)
        found[name] = {"calls": calls, "crash": run["crash"] and tuple(run["crash"])}
    return found


def allowed(run: dict, line: int) -> set[str]:
    """What a finding on ``line`` may claim: what the call there did, when TensorFlow ran one there that failed (in
    a loop, one pass may work and the next raise); else (the cause of a failure elsewhere, or a call that worked but
    feeds one that failed, GT008's inner gradient) what the snippet's failing calls did or the error it stopped on."""
    here = run["calls"].get(line, set())
    if here - {"real"}:
        return here
    failed = {outcome for outcomes in run["calls"].values() for outcome in outcomes if outcome != "real"}
    return failed | ({run["crash"][1]} if run["crash"] else set()) or here


#: snippets with a finding TensorFlow contradicts (known false positives), each a strict xfail with the reason
CONTRADICTED = {
    "unseen/correct/r37r_tf42000.py": "GT020 says the call raises ValueError, but each run makes its own tf.function, "
                                      "so nothing is traced twice (the twin of tensorflow#42000: test_lint.py)",
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=CONTRADICTED[name])]
                                               if name in CONTRADICTED else []) for name in sorted(SNIPPETS)])
def test_each_finding_says_what_tensorflow_did(name, outcomes):
    run, findings = outcomes[name], lint(SNIPPETS[name])
    assert run["calls"] or run["crash"] or not findings, f"{name} ran no gradient call: make it runnable"
    wrong = []
    for finding in findings:
        said, did = claim(finding.message), allowed(run, finding.line)
        if said is None or not said & did:
            wrong.append(f"{finding} -- TensorFlow: {sorted(did)}")
    assert not wrong, "\n".join(wrong)


def test_the_table_covers_every_rule_and_every_kind_of_outcome():
    said = {frozenset(claim(f.message) or ()) for name in SNIPPETS for f in lint(SNIPPETS[name])}
    assert {frozenset({"none"}), frozenset({"zeros"}), frozenset({"AttributeError"}), frozenset({"RuntimeError"}),
            frozenset({"TypeError", "AttributeError"}), frozenset({"real", "zeros"}), frozenset({"empty"}),
            frozenset({"ValueError"})} <= said, said
    assert {f.rule for name in SNIPPETS for f in lint(SNIPPETS[name])} == {rule.code for rule in RULES}
    assert len(SNIPPETS) >= 200, len(SNIPPETS)


def test_no_finding_is_on_line_0_or_names_an_empty_expression():
    """tensorflow#38119 once gave GT007 on line 0 naming ``: the diagnosis blamed the read of `model2.input` (an
    attribute of the model, with no position) as an operation on the model's weights. Every finding of every snippet
    is on a line of that snippet, names no empty expression and points at no line 0."""
    bad = []
    for name, source in SNIPPETS.items():
        lines = len(source.splitlines())
        bad += [f"{name}: {f}" for f in lint(source)
                if not 1 <= f.line <= lines or "``" in f.message or re.search(r"\bline 0\b", f.message)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("message, said", [
    ("so the gradient with respect to x is None (zeros with unconnected_gradients=ZERO).", {"none"}),
    ("so the gradient with respect to x is zeros (the call asks for unconnected_gradients=ZERO).", {"zeros"}),
    ("tape.gradient raises TypeError or AttributeError: the target is a Python number", {"TypeError",
                                                                                          "AttributeError"}),
    ("the second raises RuntimeError. ... a float value times an int raises InvalidArgumentError", {"RuntimeError"}),
    ("returns a wrong number, not None and no error", {"real", "zeros"}),
    ("so this is an empty list, and it stays empty. ... apply_gradients raises ValueError", {"empty"}),
    ("takes the value out of TensorFlow", None),
])
def test_the_claim_is_the_first_outcome_a_message_states(message, said):
    assert claim(message) == said
