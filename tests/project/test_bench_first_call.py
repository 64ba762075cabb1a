"""The first-call split bench: its parts add up to the first call, and its table prints every part of every call."""

import pytest

from benchmarks import first_call


@pytest.mark.parametrize("name", sorted(first_call.CALLS))
def test_a_first_call_splits_into_its_trace_and_the_rest(name):
    r = first_call.CALLS[name]()
    assert r["trace"][0] > 0 and r["run"][0] > 0
    assert r["first"][0] == pytest.approx(r["trace"][0] + r["run"][0])
    assert r["warm"][0] > 0 and r["first"][1] > 0


def test_the_table_prints_each_part_with_its_spread(monkeypatch, capsys):
    row = {"trace": (0.1, None), "run": (0.2, 0.3), "first": (0.3, 0.4), "warm": (0.05, 0.06)}
    monkeypatch.setattr(first_call, "_child", lambda name: row)
    assert first_call.main(["--runs", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "| laplacian | trace | 0.10 [0.10, 0.10] | - |" in lines
    assert "| pde | run | 0.20 [0.20, 0.20] | 0.30 [0.30, 0.30] |" in lines
