"""The abstract interpreter on issue 22's cases, each program proven under TensorFlow (conftest.py).

Broken programs: the linter flags exactly the marked (line, rule) pairs (plus the note on the gradient call's
line) and TensorFlow raises or gives None/zeros. Correct twins: no finding and a real gradient.
"""

from __future__ import annotations

import pytest

from gradlib import lint
from lint_programs import PROGRAMS, marks

STEPS = ("mark", "all breaks", "late watch")
NAMES = [name for name, p in PROGRAMS.items() if p.step in STEPS]


def _call_lines(source: str) -> set[int]:
    return {i for i, line in enumerate(source.splitlines(), start=1)
            if any(m in line for m in (".gradient(", ".jacobian(", ".batch_jacobian("))}


@pytest.mark.parametrize("name", NAMES)
def test_tensorflow_agrees_with_the_label(name, tf_verdicts):
    verdict = tf_verdicts[name]
    if PROGRAMS[name].broken:
        assert verdict in ("none", "zeros") or verdict.startswith("raised"), verdict
    else:
        assert verdict == "real", verdict


@pytest.mark.parametrize("name", NAMES)
def test_the_linter_flags_exactly_the_marked_lines(name):
    program = PROGRAMS[name]
    result = lint(program.source)
    assert result.complete, result.reason
    found = {(f.line, f.rule) for f in result}
    expected = marks(program.source)
    assert bool(expected) == program.broken
    assert expected <= found, [str(f) for f in result]
    extra = {(line, rule) for line, rule in found - expected if line not in _call_lines(program.source)}
    assert not extra, [str(f) for f in result]


def test_a_python_number_target_is_said_to_raise_typeerror_and_a_tensor_target_to_give_none(tf_verdicts):
    (cause,) = [f for f in lint(PROGRAMS["float_then_power"].source) if f.line == 7]
    assert "the target loss is a Python number, so tape.gradient raises TypeError" in cause.message
    assert tf_verdicts["float_then_power"].startswith("raised: TypeError")
    (cause,) = [f for f in lint(PROGRAMS["square_of_float"].source) if f.line == 7]
    assert "the gradient with respect to x is None" in cause.message and tf_verdicts["square_of_float"] == "none"
