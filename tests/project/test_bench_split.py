"""benchmarks.split: one warm call of a callable's structured Jacobian, split into its compiled run and the rest."""

from __future__ import annotations

import re

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


def test_python_calls_counts_the_warm_call_s_python_the_same_on_each_call_and_not_the_cold_path(capsys):
    kind, counts = bench.python_calls(SHAPES["tall"], calls=2)
    assert kind in ("graph", "xla") and len(counts) == 2
    assert counts[0] == counts[1] and 10 < counts[0] < 200   # deterministic; a cold call enters thousands
    assert bench.main(["--python-calls"]) == 0   # settled anew (graph or XLA, as the load decides)
    printed = re.search(r"settled on (graph|xla): Python calls per call \[(\d+), (\d+), (\d+)\]",
                        capsys.readouterr().out)
    assert printed and len(set(printed.groups()[1:])) == 1
