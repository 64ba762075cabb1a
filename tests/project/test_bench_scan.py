"""The scan benchmark's parts: every contender's norms, a ratio per round, the tables and targets; no timing checked."""

from __future__ import annotations

import numpy as np

from benchmarks import scan as bench


def test_every_contender_gets_the_norms_and_a_ratio_per_round():
    rows = bench.throughput(600, rounds=2)   # 3 batches, the last one partial
    by = {r.contender: r for r in rows}
    assert list(by) == list(bench.CONTENDERS)
    assert by[bench.PLAIN].ratio == [1.0, 1.0]
    for row in rows:
        assert len(row.seconds) == len(row.ratio) == 2
        np.testing.assert_allclose(row.ratio, np.array(row.seconds) / np.array(by[bench.PLAIN].seconds))
    for name in list(by)[1:]:
        assert by[name].max_norm_error < 1e-5, name
    table = bench.markdown(rows, 600)
    assert "| gradlib.scan |" in table and "600 examples" in table


def test_memory_table_and_targets_from_given_runs():
    mb = 2**20
    runs = [{"12000": 800 * mb, "60000": 801 * mb}, {"12000": 800 * mb, "60000": 806 * mb}]
    row = bench.Row(bench.SCAN, seconds=[1.0, 1.0, 1.0], ratio=[0.9, 2.5, 1.1])
    assert "| 2 | 800.0 | 806.0 | +6.00 |" in bench.memory_markdown(runs)
    lines = bench.targets([row], runs)
    assert lines[0] == "gradlib.scan / plain batch gradients: 1.1x [0.9, 2.5] (target at most 2: met in 2 of 3 rounds)"
    assert lines[1].startswith("memory growth 12,000 -> 60,000 examples: +3.50 MB [+1.00, +6.00]")
    assert lines[1].endswith("met in 1 of 2 processes)")


def test_the_memory_child_scans_every_size(monkeypatch):
    monkeypatch.setattr(bench, "WARM_UP", 300)
    out = bench.memory_child([300, 700])
    assert set(out) == {"300", "700"} and all(v > 0 for v in out.values())


def test_the_data_set_scan_bench_checks_its_norms_and_gives_one_ratio_a_round():
    from benchmarks import scan_dataset
    ratios = scan_dataset.ratios(examples=40, rounds=2)
    assert len(ratios) == 2 and all(r > 0 for r in ratios)
