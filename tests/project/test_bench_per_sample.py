"""The per-sample benchmark: gradlib against the per-sample loop on one batch, the same answer, ratios per round."""

import pytest

from benchmarks.per_sample import benchmark_per_sample


def test_benchmark_compares_both_on_the_same_batch():
    out = benchmark_per_sample(repeats=2, batch=3)
    assert out["batch"] == 3 and out["method"] == "pfor"
    assert out["max_abs_diff"] < 1e-5
    assert out["speedup"] == pytest.approx(out["loop_seconds"] / out["gradlib_seconds"])
    assert len(out["speedup_rounds"]) == 2 and min(out["speedup_rounds"]) <= out["speedup"] <= max(out["speedup_rounds"])


def test_each_reported_time_and_ratio_is_the_one_it_names_on_a_clock_the_test_controls(monkeypatch):
    """``speedup == loop / gradlib`` restates the definition; with every call's seconds set here, the first call,
    the median of the warm rounds, the median of the loop's repeats and each round's ratio are pinned."""
    import dataclasses
    import types

    import gradlib
    from benchmarks import per_sample

    clock = [0.0]
    fast = iter([0.3, 0.02, 0.05, 0.01])     # the compiling first call, then three warm rounds (median 0.02)
    slow = iter([1.0, 3.0, 2.0])             # the loop: its own seconds, then two timed repeats (median 2.0)
    real = gradlib.per_sample_gradients

    def timed(fn, x, **kwargs):
        r = real(fn, x, **kwargs)
        seconds = next(slow if kwargs.get("method") == "loop" else fast)
        clock[0] += seconds
        return dataclasses.replace(r, seconds=seconds)

    monkeypatch.setattr(gradlib, "per_sample_gradients", timed)
    monkeypatch.setattr(per_sample, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    out = per_sample.benchmark_per_sample(repeats=3, batch=3, loop_repeats=3)
    assert out["gradlib_first_call_seconds"] == pytest.approx(0.3)
    assert out["gradlib_seconds"] == pytest.approx(0.02) and out["loop_seconds"] == pytest.approx(2.0)
    assert out["speedup"] == pytest.approx(100.0)
    assert out["speedup_rounds"] == pytest.approx([100.0, 40.0, 200.0])   # in the rounds' order, not sorted
    assert out["speedup_text"] == gradlib.format_ratio([100.0, 40.0, 200.0])
