"""benchmarks.split: one warm call of a callable's structured Jacobian, split into its compiled run and the rest."""

from __future__ import annotations

import pytest

from benchmarks import split as bench
from benchmarks.mlp import SHAPES
from tensorflow.python.eager import execute


def test_the_split_times_the_compiled_run_inside_the_whole_call_and_restores_it():
    run = execute.execute
    medians = bench.split(SHAPES["tall"], rounds=2, calls=3)
    assert execute.execute is run   # the timing wrapper is gone once measured
    kind = "graph" if "compiled graph in place" in medians else "xla"
    assert {"whole call", f"compiled {kind} in place", "Python around the graph", f"compiled {kind} alone"} <= set(
        medians)
    for whole, inside, rest in zip(medians["whole call"], medians[f"compiled {kind} in place"],
                                   medians["Python around the graph"]):
        assert 0 < inside < whole and rest == pytest.approx(whole - inside)
    assert all(len(seconds) == 2 for seconds in medians.values())


def test_the_command_prints_one_row_per_part_with_its_median_and_spread(capsys):
    assert bench.main(["--rounds", "1", "--calls", "2"]) == 0
    out = capsys.readouterr().out
    assert "1024 outputs, 64 inputs, hidden 256" in out and "| whole call |" in out
    assert "| Python around the graph |" in out and bench.AFTER not in out
