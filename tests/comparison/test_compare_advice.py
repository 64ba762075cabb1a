"""compare(crosscheck=True) refusals give advice its caller can follow."""

import pytest

import gradlib


def test_compare_does_not_tell_its_caller_to_pass_fewer_modes():
    """compare(crosscheck=True) runs fixed modes (eager, graph, XLA): a cross-check over max_jacobian was left out
    with 'Pass fewer modes', which neither compare nor the playground can do."""
    c = gradlib.compare("x*x", {"x": [1.0, 2.0, 3.0, 4.0]}, methods=["unstack"], crosscheck=True,
                        limits=gradlib.Limits(max_jacobian=20))
    assert c.crosscheck is None
    assert c.crosscheck_note.startswith("crosscheck holds 3 Jacobians of 4 x 4 entries, 48 in all; at most 20")
    assert "Pass fewer modes" not in c.crosscheck_note and c.crosscheck_note.endswith(
        "It fits with at most 1 output for these 4 watched elements (reduce the output, for example with sum or "
        "mean), or at most 1 watched element for these 4 outputs (use a smaller input)")
    followed = gradlib.compare("sum(x*x)", {"x": [1.0, 2.0, 3.0, 4.0]}, methods=["unstack"], crosscheck=True,
                               limits=gradlib.Limits(max_jacobian=20))   # the advice followed: one output
    assert followed.crosscheck is not None and followed.crosscheck_note == ""
    with pytest.raises(gradlib.GradlibError, match="at most 20 are allowed. Pass fewer modes"):
        gradlib.crosscheck("x*x", {"x": [1.0, 2.0, 3.0, 4.0]}, limits=gradlib.Limits(max_jacobian=20))
