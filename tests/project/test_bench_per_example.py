"""The per-example benchmark's pure parts: rows, ratios per round, the tables and the targets; no timing checked."""

from __future__ import annotations

import json

import keras
import numpy as np
import pytest

from benchmarks import per_example as bench

TINY = bench.Problem("tiny", "Dense 6-5-3", lambda: keras.Sequential(
    [keras.Input((6,)), keras.layers.Dense(5, activation="relu"), keras.layers.Dense(3)]), (6,), 3, 4)
CHEAP = [bench.PLAIN, "per-example loop (eager)", "tf.vectorized_map (compiled)", bench.NORMS, "gradlib gradients"]


def test_every_contender_runs_gets_the_loops_norms_and_a_ratio_per_round():
    rows = bench.run_problem(TINY, rounds=2, contenders=CHEAP)
    assert [r.contender for r in rows] == CHEAP
    by = {r.contender: r for r in rows}
    assert not any(r.error for r in rows)
    assert by[bench.PLAIN].ratio == by[bench.PLAIN].cpu_ratio == [1.0, 1.0]
    for row in rows:
        assert len(row.warm_s) == len(row.ratio) == len(row.cpu_s) == len(row.cpu_ratio) == 2 and row.runs == [2]
        np.testing.assert_allclose(row.ratio, np.array(row.warm_s) / np.array(by[bench.PLAIN].warm_s))
        np.testing.assert_allclose(row.cpu_ratio, np.array(row.cpu_s) / np.array(by[bench.PLAIN].cpu_s))
    for name in CHEAP[1:]:
        assert by[name].max_norm_error < 1e-5, name
    assert (by[bench.NORMS].method, by["gradlib gradients"].method) == ("ghost", "layerwise")


def test_a_failing_contender_is_reported_in_its_row(monkeypatch):
    def broken(model):
        raise RuntimeError("no such thing\nsecond line")
    monkeypatch.setitem(bench.CONTENDERS, "tf.vectorized_map (compiled)", broken)
    rows = bench.run_problem(TINY, rounds=1, contenders=[bench.PLAIN, "tf.vectorized_map (compiled)"])
    assert rows[1].error == "RuntimeError: no such thing" and rows[1].warm_s == []
    assert "failed: RuntimeError: no such thing" in bench.markdown(rows, TINY)


def row(contender, warm, plain, cpu=None, cpu_plain=None, runs=None):
    cpu = cpu or []
    return bench.Row("dense", contender, 256, warm_s=warm, ratio=[w / p for w, p in zip(warm, plain)], cpu_s=cpu,
                     cpu_ratio=[c / p for c, p in zip(cpu, cpu_plain or [])], runs=runs or [len(warm)])


def test_targets_are_judged_round_by_round():
    plain = [1.0, 1.0, 2.0]
    rows = [row(bench.PLAIN, plain, plain), row(bench.NORMS, [0.8, 0.9, 1.0], plain),
            row("tf.vectorized_map (compiled)", [25.0, 20.0, 20.0], plain)]
    assert bench.targets(rows) == [
        "gradlib norms only / plain batch gradient (wall): 0.8x (quartiles 0.65-0.85, range 0.5-0.9) over 3 rounds "
        "of 1 run(s); run medians 0.8x (target at most 0.8: met by 1 of 1 run medians, in 2 of 3 rounds; moonshot "
        "0.5: 0 of 1 run medians)",
        "tf.vectorized_map / gradlib norms only (wall): 22.2x (quartiles 21.1-26.7, range 20-31.2) over 3 rounds of "
        "1 run(s); run medians 22.2x (target at least 25: met by 0 of 1 run medians, in 1 of 3 rounds)"]


def test_targets_are_judged_per_run_on_wall_and_cpu_time():
    plain, runs = [1.0, 1.0, 1.0, 1.0], [2, 2]
    rows = [row(bench.PLAIN, plain, plain, plain, plain, runs),
            row(bench.NORMS, [0.4, 0.6, 0.9, 1.1], plain, [0.5, 0.5, 0.7, 0.9], plain, runs),
            row("tf.vectorized_map (compiled)", [20.0, 30.0, 30.0, 30.0], plain, [20.0, 20.0, 30.0, 30.0], plain, runs)]
    lines = bench.targets(rows)
    assert lines[0].endswith("run medians 0.5x, 1x (target at most 0.8: met by 1 of 2 run medians, in 2 of 4 "
                             "rounds; moonshot 0.5: 1 of 2 run medians)")
    assert lines[1].startswith("gradlib norms only / plain batch gradient (CPU time): 0.6x (quartiles 0.5-0.75, "
                               "range 0.5-0.9)")
    assert lines[1].endswith("run medians 0.5x, 0.8x (target at most 0.8: met by 2 of 2 run medians, in 3 of 4 "
                             "rounds; moonshot 0.5: 1 of 2 run medians)")
    assert "run medians 50x, 30.3x (target at least 25: met by 2 of 2" in lines[2]
    assert "run medians 40x, 38.1x" in lines[3] and lines[3].startswith("tf.vectorized_map / gradlib norms only (CPU")


def test_runs_are_pooled_round_after_round_and_split_back():
    first = row(bench.NORMS, [0.5, 0.7], [1.0, 1.0], [0.4, 0.6], [1.0, 1.0])
    second = row(bench.NORMS, [0.9], [1.0], [0.8], [1.0])
    second.max_norm_error, first.max_norm_error = 2e-7, 1e-7
    [merged] = bench.pooled([first, second])
    assert merged.ratio == [0.5, 0.7, 0.9] and merged.cpu_ratio == [0.4, 0.6, 0.8] and merged.runs == [2, 1]
    assert merged.max_norm_error == 2e-7
    assert bench.per_run(merged.ratio, merged.runs) == [[0.5, 0.7], [0.9]]


def test_quartiles_and_their_text():
    assert bench.quartiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (3.0, 2.0, 4.0, 1.0, 5.0)
    assert bench.quartiles([float("nan"), 2.0]) == (2.0,) * 5
    assert bench.spread_text([0.5, 0.6, 0.7, 0.8, 2.0]) == "0.7x (quartiles 0.6-0.8, range 0.5-2)"
    assert bench.spread_text([]) == "n/a" and bench.spread_text([0.5]) == "0.5x"


def test_a_round_interleaves_the_contenders_call_by_call(monkeypatch):
    calls = []
    functions = {name: (lambda n: lambda x, y: calls.append(n))(name) for name in ("a", bench.PLAIN, "slow")}
    rows = {name: bench.Row("p", name) for name in functions}
    monkeypatch.setattr(bench, "CALLS", 3)
    bench._round(functions, rows, {"slow"}, 1, None, None)
    assert calls == [bench.PLAIN, "slow", "a", bench.PLAIN, "a", bench.PLAIN, "a"]   # rotated by the round
    assert all(len(r.warm_s) == len(r.cpu_s) == len(r.ratio) == 1 for r in rows.values())


def test_the_headline_ratios_are_the_rows_per_round_ratios_and_the_vmap_speed_up():
    plain = [1.0, 2.0]
    rows = [row(bench.PLAIN, plain, plain), row(bench.NORMS, [0.5, 1.5], plain),
            row("tf.vectorized_map (compiled)", [20.0, 30.0], plain)]
    assert bench.headline(rows) == {
        f"dense: {bench.NORMS} / {bench.PLAIN}": ([0.5, 0.75], "lower"),
        f"dense: tf.vectorized_map / {bench.NORMS}": ([40.0, 20.0], "higher")}
    rows = [row(bench.PLAIN, plain, plain, plain, plain), row(bench.NORMS, [0.5, 1.5], plain, [0.5, 1.0], plain),
            row("tf.vectorized_map (compiled)", [20.0, 30.0], plain, [10.0, 30.0], plain)]
    cpu = bench.headline(rows)
    assert cpu[f"dense: {bench.NORMS} / {bench.PLAIN} (CPU)"] == ([0.5, 0.5], "lower")
    assert cpu[f"dense: tf.vectorized_map / {bench.NORMS} (CPU)"] == ([20.0, 30.0], "higher")


def test_the_command_writes_the_tables_json_and_csv(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench, "PROBLEMS", {"tiny": TINY})
    monkeypatch.setattr(bench, "CONTENDERS", {k: v for k, v in bench.CONTENDERS.items() if k in CHEAP})
    out, csv = tmp_path / "pe.json", tmp_path / "pe.csv"
    assert bench.main(["--problems", "tiny", "--rounds", "1", "--runs", "2", "--json", str(out), "--csv", str(csv)]) == 0
    text = capsys.readouterr().out
    assert "**Dense 6-5-3, batch 4**" in text and "| gradlib norms only | ghost |" in text
    saved = json.loads(out.read_text())
    assert [r["contender"] for r in saved] == CHEAP and saved[0]["spread"] == [1.0, 1.0, 1.0]
    assert all(r["runs"] == [1, 1] and len(r["ratio"]) == len(r["cpu_ratio"]) == 2 for r in saved)
    assert csv.read_text().splitlines()[0].startswith("problem,batch,contender,method,first_ms,warm_ms,x_plain")


def test_an_unknown_problem_is_refused(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--problems", "huge"])
    assert "unknown problem 'huge'; choose from dense, sequence, conv2d" in capsys.readouterr().err
