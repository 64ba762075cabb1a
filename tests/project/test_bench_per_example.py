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
    assert by[bench.PLAIN].ratio == [1.0, 1.0]
    for row in rows:
        assert len(row.warm_s) == len(row.ratio) == 2
        np.testing.assert_allclose(row.ratio, np.array(row.warm_s) / np.array(by[bench.PLAIN].warm_s))
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


def row(contender, warm, plain):
    return bench.Row("dense", contender, 256, warm_s=warm, ratio=[w / p for w, p in zip(warm, plain)])


def test_targets_are_judged_round_by_round():
    plain = [1.0, 1.0, 2.0]
    rows = [row(bench.PLAIN, plain, plain), row(bench.NORMS, [0.8, 0.9, 1.0], plain),
            row("tf.vectorized_map (compiled)", [25.0, 20.0, 20.0], plain)]
    assert bench.targets(rows) == [
        "gradlib norms only / plain batch gradient: 0.8x [0.5, 0.9] (target at most 0.8: met in 2 of 3 rounds)",
        "tf.vectorized_map / gradlib norms only: 22.2x [20, 31.2] (target at least 25: met in 1 of 3 rounds)"]


def test_the_headline_ratios_are_the_rows_per_round_ratios_and_the_vmap_speed_up():
    plain = [1.0, 2.0]
    rows = [row(bench.PLAIN, plain, plain), row(bench.NORMS, [0.5, 1.5], plain),
            row("tf.vectorized_map (compiled)", [20.0, 30.0], plain)]
    assert bench.headline(rows) == {
        f"dense: {bench.NORMS} / {bench.PLAIN}": ([0.5, 0.75], "lower"),
        f"dense: tf.vectorized_map / {bench.NORMS}": ([40.0, 20.0], "higher")}


def test_the_command_writes_the_tables_json_and_csv(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench, "PROBLEMS", {"tiny": TINY})
    monkeypatch.setattr(bench, "CONTENDERS", {k: v for k, v in bench.CONTENDERS.items() if k in CHEAP})
    out, csv = tmp_path / "pe.json", tmp_path / "pe.csv"
    assert bench.main(["--problems", "tiny", "--rounds", "1", "--json", str(out), "--csv", str(csv)]) == 0
    text = capsys.readouterr().out
    assert "**Dense 6-5-3, batch 4**" in text and "| gradlib norms only | ghost |" in text
    saved = json.loads(out.read_text())
    assert [r["contender"] for r in saved] == CHEAP and saved[0]["spread"] == [1.0, 1.0, 1.0]
    assert csv.read_text().splitlines()[0].startswith("problem,batch,contender,method,first_ms,warm_ms,x_plain")


def test_an_unknown_problem_is_refused(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--problems", "huge"])
    assert "unknown problem 'huge'; choose from dense, sequence, conv2d" in capsys.readouterr().err
