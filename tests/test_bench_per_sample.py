"""The per-sample benchmark: gradlib against the per-sample loop on one batch, the same answer, ratios per round."""

import pytest

from benchmarks.per_sample import benchmark_per_sample


def test_benchmark_compares_both_on_the_same_batch():
    out = benchmark_per_sample(repeats=2, batch=3)
    assert out["batch"] == 3 and out["method"] == "pfor"
    assert out["max_abs_diff"] < 1e-5
    assert out["speedup"] == pytest.approx(out["loop_seconds"] / out["gradlib_seconds"])
    assert len(out["speedup_rounds"]) == 2 and min(out["speedup_rounds"]) <= out["speedup"] <= max(out["speedup_rounds"])
