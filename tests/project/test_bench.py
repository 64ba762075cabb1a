"""The benchmark command's parts (the reference Jacobian, the files it writes) and the Strategies page's timing.

Timings are not checked (the machine is shared); shapes, columns, ratios' definition and results are.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from benchmarks import mlp as bench
from dashboard import scaling


def test_reference_jacobian_matches_gradlib_and_the_seed_loop():
    w1, w2, x = bench.mlp_weights(5, 7, 6, seed=1)
    expected = bench.reference_jacobian(w1, w2, x)
    assert expected.shape == (5, 7)
    got = gradlib.per_element_gradients(bench.tf_mlp(w1, w2), tf.constant(x)).jacobian
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bench.seed_loop(bench.tf_mlp(w1, w2), tf.constant(x)), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("shape", "outputs", "inputs"), [("square", 12, 12), ("wide", 8, 12), ("tall", 12, 8)])
def test_scaling_frame_has_one_row_per_size_and_method_says_how_each_ran_and_ratios_to_the_fastest(
        shape, outputs, inputs):
    frame = scaling.scaling([4, 12], methods=("unstack", "jacobian", "auto"), shape=shape, repeats=1)
    assert list(frame.columns) == ["size", "outputs", "inputs", "method", "ran as", "compiled", "seconds", "ratio"]
    assert frame[["size", "method"]].values.tolist() == [[4, "unstack"], [4, "jacobian"], [4, "auto"],
                                                         [12, "unstack"], [12, "jacobian"], [12, "auto"]]
    last = frame[frame["size"] == 12]
    assert (last["outputs"].tolist(), last["inputs"].tolist()) == ([outputs] * 3, [inputs] * 3)
    assert frame.loc[frame["method"] == "unstack", "compiled"].tolist() == [False, False]   # an eager loop
    assert frame.loc[frame["method"] == "jacobian", "compiled"].tolist() == [True, True]   # pfor, traced once
    assert set(frame["ran as"]) <= {"unstack", "jacobian", "forward"} and (frame["seconds"] > 0).all()
    for _, group in frame.groupby("size"):
        np.testing.assert_allclose(group["ratio"], group["seconds"] / group["seconds"].min())
        assert group["ratio"].min() == 1.0


def test_scaling_refuses_an_unknown_shape():
    with pytest.raises(gradlib.GradlibError, match=r"scaling got shape='round'; choose one of square, wide, tall"):
        scaling.scaling([4], shape="round")


def test_the_command_writes_csv_and_json_with_ratios_to_the_seed_loop(tmp_path, capsys):
    csv, out = tmp_path / "b.csv", tmp_path / "b.json"
    assert bench.main(["--sizes", "4", "--repeats", "1", "--no-per-sample", "--csv", str(csv), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["mlp"]
    names = [r["contender"] for r in rows]
    assert names[:2] == ["seed loop (unstack, eager)", "tape.jacobian (eager)"] and "gradlib auto" in names
    assert names[names.index("gradlib auto") + 1] == "gradlib auto check=False"   # what the check costs, beside it
    assert all(r["max_error"] < 1e-5 for r in rows)
    seed = rows[0]
    assert seed["warm_speedup_vs_seed"] == 1.0
    auto = rows[names.index("gradlib auto")]
    assert auto["warm_speedup_vs_seed"] == pytest.approx(seed["warm_s"] / auto["warm_s"])
    assert csv.read_text().splitlines()[0].startswith("size,outputs,inputs,contender,method,compiled,xla")
    assert "| seed loop (unstack, eager) |" in capsys.readouterr().out


@pytest.mark.parametrize("name, expected", [("gradlib auto", ("auto", None, True)),
                                            ("gradlib auto check=False", ("auto", None, False)),
                                            ("gradlib jacobian compiled", ("jacobian", True, True))])
def test_each_gradlib_contender_calls_with_its_own_options(monkeypatch, name, expected):
    seen = []
    monkeypatch.setattr(gradlib, "per_element_gradients",
                        lambda f, x, *, method, compiled, check: seen.append((method, compiled, check)))
    w1, w2, x = bench.mlp_weights(3, 3)
    bench._call_for(name, w1, w2, x)()
    assert seen == [expected]


def test_measure_and_the_ratios_read_a_clock_the_test_controls(monkeypatch):
    """The ratios' definition restated proves little; with each call's seconds set here, the first call, the
    fastest and the median warm call, and each ratio's direction (the seed loop's time over the contender's) show."""
    import types

    clock = [0.0]

    def contender(durations):
        steps = iter(durations)

        def call():
            clock[0] += next(steps)
            return np.eye(2)
        return call

    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    seed = bench.measure(bench.Row(2, 2, 2, "seed loop (unstack, eager)"), contender([0.5, 0.3, 0.1, 0.2]),
                         np.asarray, np.eye(2), repeats=3)
    fast = bench.measure(bench.Row(2, 2, 2, "gradlib auto"), contender([0.05, 0.002, 0.001, 0.004]),
                         np.asarray, np.eye(2), repeats=3)
    slow = bench.measure(bench.Row(2, 2, 2, "slow"), contender([2.0, 1.5, 9.0]), np.asarray, np.eye(2), repeats=3)
    assert (seed.first_s, seed.warm_s, seed.warm_median_s) == pytest.approx((0.5, 0.1, 0.2))
    assert (fast.first_s, fast.warm_s, fast.warm_median_s) == pytest.approx((0.05, 0.001, 0.002))
    assert (slow.first_s, slow.warm_s, slow.warm_median_s) == pytest.approx((2.0, 1.5, 1.5))   # over 1 s: one warm call
    assert seed.max_error == 0.0
    bench._with_ratios([seed, fast, slow])
    assert (seed.warm_speedup_vs_seed, fast.warm_speedup_vs_seed, slow.warm_speedup_vs_seed) == pytest.approx(
        (1.0, 100.0, 0.1 / 1.5))
    assert fast.first_vs_seed == pytest.approx(0.5)   # gradlib's first call over the seed loop's warm one


def test_scaling_times_the_warm_calls_on_a_clock_the_test_controls(monkeypatch):
    """``seconds > 0`` holds for any timing; with each call's seconds set here, the untimed first call, the median
    of the warm ones, the single timing of a slow point and the ratio to the fastest are pinned."""
    import types

    clock = [0.0]
    durations = {"unstack": iter([0.2, 0.3, 0.1, 0.2]), "jacobian": iter([0.5, 0.01, 0.03, 0.02]),
                 "forward": iter([scaling.SLOW_SECONDS + 1.0])}   # a first call over SLOW_SECONDS: timed once
    real = gradlib.evaluate

    def timed(*args, method, **kwargs):
        clock[0] += next(durations[method])
        return real(*args, method=method, **kwargs)

    monkeypatch.setattr(gradlib, "evaluate", timed)
    monkeypatch.setattr(scaling, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    frame = scaling.scaling([4], methods=("unstack", "jacobian", "forward"), repeats=3)
    assert frame["seconds"].tolist() == pytest.approx([0.2, 0.02, scaling.SLOW_SECONDS + 1.0])
    assert frame["ratio"].tolist() == pytest.approx([10.0, 1.0, (scaling.SLOW_SECONDS + 1.0) / 0.02])
