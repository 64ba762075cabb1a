"""The PDE bench on a tiny shape: every step runs and agrees with nested tapes, and each ratio is the other's time
over gradlib's, in wall-clock and CPU time."""

from __future__ import annotations

from benchmarks import pde


def test_every_step_agrees_and_each_ratio_is_the_others_time_over_gradlibs():
    for case in pde.CASES:
        r = pde.measure(case, points=20, rounds=2, calls=1)
        assert set(r["gaps"]) == set(r["wall"]) - {pde.BASELINE} and pde.GRADLIB in r["gaps"]
        for name, gap in r["gaps"].items():
            assert gap < 1e-4, (case, name, gap)
            assert abs(r["loss"][name] - r["base_loss"]) <= 1e-5 * abs(r["base_loss"]), (case, name)
        for name, ratios in r["ratios"].items():
            assert len(ratios["wall"]) == len(ratios["cpu"]) == 2
            assert ratios["wall"][1] == r["wall"][name][1] / r["wall"][pde.GRADLIB][1]
            assert ratios["cpu"][0] == r["cpu"][name][0] / r["cpu"][pde.GRADLIB][0]
    assert pde.ratio_text([1.0, 2.0, 1.5]) == "1.50x [1.00, 2.00]"
