"""The PDE bench on a tiny shape: both steps run, agree, and the table's ratio says nested tapes over gradlib."""

from __future__ import annotations

from benchmarks import pde


def test_both_steps_agree_and_the_ratio_is_nested_tapes_over_gradlib():
    for case in pde.CASES:
        r = pde.measure(case, points=20, rounds=2, calls=1)
        assert r["max_rel_gradient_gap"] < 1e-4 and abs(r["loss"][0] - r["loss"][1]) <= 1e-5 * abs(r["loss"][0])
        seconds = r["seconds"]
        assert len(r["ratios"]) == 2 and r["ratios"][0] == seconds["nested tapes"][0] / seconds["gradlib.pde"][0]
    assert pde.ratio_text([1.0, 2.0, 1.5]) == "1.50x [1.00, 2.00]"
