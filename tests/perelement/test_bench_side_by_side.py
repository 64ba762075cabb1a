"""The MLP bench's side-by-side part: every contender checked and timed in each run, ratios per run and spread."""

from __future__ import annotations

import pytest

from benchmarks import mlp as bench


def test_side_by_side_times_every_contender_in_every_run_and_reports_the_ratios():
    cpu = {}
    medians = bench.side_by_side(size=6, runs=2, calls=3, cpu=cpu)
    assert {bench.TF_TAPE, bench.CALLABLE, bench.EVALUATE} <= set(medians)
    assert all(len(v) == 2 and all(s > 0 for s in v) for v in medians.values())
    assert set(cpu) == set(medians) and all(len(v) == 2 and all(s >= 0 for s in v) for v in cpu.values())
    text = bench.side_by_side_markdown(medians, 6)
    ratio = medians[bench.EVALUATE][1] / medians[bench.CALLABLE][1]
    line = next(line for line in text.splitlines() if line.startswith(f"| {bench.EVALUATE} / {bench.CALLABLE} |"))
    assert f"{ratio:.2f}" in line and line.endswith("of 2 |")


def test_side_by_side_refuses_a_contender_off_the_reference():
    w1, w2, x = bench.mlp_weights(6, 6)
    wrong = lambda: bench.reference_jacobian(w1, w2, x) + 1e-2   # noqa: E731
    with pytest.raises(AssertionError, match=r"wrong is off the reference by 1\.0e-02"):
        bench.side_by_side(size=6, runs=1, calls=1, extra={"wrong": wrong})


def test_the_targets_are_against_the_faster_of_jaxs_modes_in_each_run_and_the_table_names_it():
    medians = {bench.CALLABLE: [3.0, 3.0, 3.0], bench.EVALUATE: [3.0, 3.0, 3.0], bench.JAX_REV: [1.0, 4.0, 6.0],
               bench.JAX_FWD: [2.0, 2.0, 3.0]}
    assert bench.jax_best(medians) == ([1.0, 2.0, 3.0], "jacfwd in 2 of 3 runs, else jacrev")
    assert bench.jax_best({bench.JAX_REV: [1.0], bench.JAX_FWD: [2.0]})[1] == "jacrev"
    text = bench.side_by_side_markdown(medians, 6)
    line = next(line for line in text.splitlines() if line.startswith(f"| {bench.CALLABLE} / {bench.JAX_BEST}"))
    assert "(jacfwd in 2 of 3 runs, else jacrev)" in line
    assert "| 3.00 | 1.50 | 1.00 |" in line and line.endswith("at most 1.5: met in 2 of 3 |")


def test_each_pass_shuffles_the_contenders_so_none_always_follows_the_same_one():
    names = ["tape", "callable", "text", "jacrev", "jacfwd"]
    order = bench.passes(names, 60, seed=0)
    assert len(order) == 60 and all(sorted(p) == sorted(names) for p in order)
    assert order == bench.passes(names, 60, seed=0) and order != bench.passes(names, 60, seed=1)   # repeatable
    before = {(p[i - 1], p[i]) for p in order for i in range(1, len(p))}
    assert {b for a, b in before if a == "jacrev"} == set(names) - {"jacrev"}   # jacfwd no longer always after it
    assert {a for a, b in before if b == "callable"} == set(names) - {"callable"}


def test_the_side_by_side_command_runs_only_the_shapes_asked_for(monkeypatch, capsys):
    ran = []

    def side_by_side(size=256, runs=5, calls=60, extra=None, log=None, shape=None, cpu=None):
        ran.append(shape or size)
        cpu.update({bench.CALLABLE: [2.0] * runs, bench.EVALUATE: [1.0] * runs})
        return {bench.CALLABLE: [1.0] * runs, bench.EVALUATE: [1.0] * runs}

    monkeypatch.setattr(bench, "side_by_side", side_by_side)
    assert bench.main(["--side-by-side-only", "--side-by-side-runs", "1", "--side-by-side-shapes", "tall"]) == 0
    assert ran == [bench.SHAPES["tall"]]
    out = capsys.readouterr().out
    assert "hidden 256, CPU time: warm calls" in out   # the CPU time's table beside the wall clock's
    assert f"| {bench.EVALUATE} / {bench.CALLABLE} | 0.50 |" in out   # CPU: 1.0 / 2.0
    assert f"| {bench.EVALUATE} / {bench.CALLABLE} | 1.00 |" in out   # wall: 1.0 / 1.0
    ran.clear()
    assert bench.main(["--side-by-side-only", "--side-by-side-runs", "1"]) == 0
    assert ran == [256, *bench.SHAPES.values()]
    with pytest.raises(SystemExit):
        bench.main(["--side-by-side-only", "--side-by-side-shapes", "square"])
    assert "choose from 256, wide, tall; got 'square'" in capsys.readouterr().err
