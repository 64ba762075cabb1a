"""The benchmark history (benchmarks.history) and its comparison (benchmarks.compare): what is recorded, and which
ratios are named worse, at the threshold's last good and first bad value, missing, new, or on a first record."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from benchmarks import compare, history

ROOT = history.ROOT


def entry(ratios, bench="per_example", options="--problems dense", commit="a" * 40):
    return {"bench": bench, "options": options, "commit": commit, "dirty": False, "date": "2026-12-05T07:00:00Z",
            "load": 1.0, "ratios": {name: history.summary(*value) for name, value in ratios.items()}}


def write(path, *entries):
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def run(path, *args):
    return subprocess.run([sys.executable, "-m", "benchmarks.compare", "--history", str(path), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_record_appends_one_line_with_the_commit_and_the_spread(tmp_path, monkeypatch):
    monkeypatch.delenv(history.ENV, raising=False)
    assert history.record("x", {"a / b": ([1.0, 2.0, 4.0], "lower")}) is None   # no history named: nothing written
    path = tmp_path / "h.jsonl"
    monkeypatch.setenv(history.ENV, str(path))
    history.record("x", {"a / b": ([1.0, 2.0, 4.0], "lower"), "failed": ([], "lower")}, options="--quick")
    history.record("x", {"c / d": ([3.0], "higher")}, options="")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 2
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert lines[0]["commit"] == head and lines[0]["options"] == "--quick" and lines[0]["bench"] == "x"
    assert lines[0]["ratios"] == {"a / b": {"median": 2.0, "low": 1.0, "high": 4.0, "rounds": 3, "better": "lower"}}
    assert lines[1]["ratios"]["c / d"]["better"] == "higher"
    with pytest.raises(ValueError, match="better must be 'lower' or 'higher'"):
        history.summary([1.0], "faster")


def test_a_lower_is_better_ratio_20_percent_worse_passes_and_a_hair_more_fails(tmp_path):
    last_good = 0.5 * 1.2
    first_bad = float(np.nextafter(last_good, np.inf))
    name = "dense: gradlib norms only / plain batch gradient"
    ok = run(write(tmp_path / "ok.jsonl", entry({name: ([0.5], "lower")}), entry({name: ([last_good], "lower")})))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"ok       {name}: 0.5x [0.5, 0.5] -> 0.6x [0.6, 0.6] (20% worse; lower is better)" in ok.stdout
    bad = run(write(tmp_path / "bad.jsonl", entry({name: ([0.5], "lower")}), entry({name: ([first_bad], "lower")})))
    assert bad.returncode == 1
    assert f"WORSE    {name}" in bad.stdout
    assert f"per_example: {name} got more than 20% worse" in bad.stderr


def test_a_higher_is_better_speed_up_20_percent_lower_passes_and_a_hair_more_fails():
    last_good = 25.0 * 0.8
    first_bad = float(np.nextafter(last_good, -np.inf))
    name = "dense: tf.vectorized_map / gradlib norms only"
    for value, worse in ((last_good, False), (first_bad, True), (40.0, False)):
        (c,) = compare.compare([entry({name: ([25.0], "higher")}), entry({name: ([value], "higher")})])
        assert c.worse == ([name] if worse else []) and c.failed == worse
    assert compare.worse_by(25.0, 20.0, "higher") == pytest.approx(0.2)
    assert compare.worse_by(0.5, 0.4, "lower") == pytest.approx(-0.2)


def test_only_the_last_two_records_of_a_benchmark_and_its_options_are_compared():
    name = "r"
    records = [entry({name: ([1.0], "lower")}), entry({name: ([10.0], "lower")}),   # an old regression, recovered
               entry({name: ([1.0], "lower")}, options="--quick"),
               entry({name: ([1.1], "lower")}), entry({name: ([5.0], "lower")}, bench="scan")]
    by = {(c.bench, c.options): c for c in compare.compare(records)}
    assert not by[("per_example", "--problems dense")].failed   # 10 -> 1.1: better
    assert by[("per_example", "--quick")].previous is None   # a quick run is not compared with a full one
    assert by[("scan", "--problems dense")].previous is None


def test_a_ratio_missing_from_the_last_record_is_named_and_fails_and_a_new_one_does_not(tmp_path):
    path = write(tmp_path / "h.jsonl", entry({"kept": ([1.0], "lower"), "gone": ([2.0], "lower")}),
                 entry({"kept": ([1.0], "lower"), "added": ([3.0], "higher")}))
    done = run(path)
    assert done.returncode == 1
    assert "MISSING  gone: 2x [2, 2] before, not in the last record" in done.stdout
    assert "new      added: 3x [3, 3]" in done.stdout
    assert "per_example: gone is missing" in done.stderr
    (c,) = compare.compare(compare.load(path))
    assert c.missing == ["gone"] and c.worse == []


def test_a_first_record_an_empty_history_and_no_history_pass_and_say_so(tmp_path):
    first = run(write(tmp_path / "one.jsonl", entry({"r": ([1.0], "lower")})))
    assert first.returncode == 0 and "first record (aaaaaaaaaa, 2026-12-05T07:00:00Z, load 1.0): nothing to compare yet" \
        in first.stdout
    empty = run(write(tmp_path / "empty.jsonl"))
    assert empty.returncode == 0 and "holds no record yet" in empty.stdout
    none = run(tmp_path / "absent.jsonl")
    assert none.returncode == 0 and "no benchmark history at" in none.stdout


def test_a_broken_line_is_named_not_a_traceback(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(entry({"r": ([1.0], "lower")})) + "\n{not json\n")
    done = run(path)
    assert done.returncode == 2 and "h.jsonl, line 2: not JSON" in done.stderr and "Traceback" not in done.stderr
    path.write_text('{"bench": "x"}\n')
    assert "line 1: a record needs 'bench' and a 'ratios' object" in run(path).stderr


def test_the_tracked_history_is_a_valid_history():
    records = compare.load(history.HISTORY)
    assert records, "make bench has recorded nothing yet"
    for record in records:
        assert len(record["commit"]) == 40 and record["ratios"]
        for ratio in record["ratios"].values():
            assert ratio["low"] <= ratio["median"] <= ratio["high"] and ratio["better"] in ("lower", "higher")


def test_the_benchmarks_hand_the_history_their_per_round_ratios():
    from benchmarks import mlp, scan

    medians = {mlp.EVALUATE: [1.0, 2.0], mlp.CALLABLE: [2.0, 2.0], mlp.JAX_REV: [0.5, 1.0]}
    assert mlp.side_ratios(medians) == {f"{mlp.EVALUATE} / {mlp.CALLABLE}": ([0.5, 1.0], "lower"),
                                        f"{mlp.EVALUATE} / {mlp.JAX_REV}": ([2.0, 2.0], "lower"),
                                        f"{mlp.CALLABLE} / {mlp.JAX_REV}": ([4.0, 2.0], "lower")}
    # with both of JAX's modes, the targets' ratios are to the faster one in each run
    both = medians | {mlp.JAX_FWD: [0.25, 4.0]}
    ratios = mlp.side_ratios(both)
    assert ratios[f"{mlp.CALLABLE} / {mlp.JAX_BEST}"] == ([8.0, 2.0], "lower")
    assert ratios[f"{mlp.EVALUATE} / {mlp.JAX_BEST}"] == ([4.0, 2.0], "lower")
    assert ratios[f"{mlp.CALLABLE} / {mlp.JAX_FWD}"] == ([8.0, 0.5], "lower")
    large = [scan.Row(scan.PLAIN, ratio=[1.0]), scan.Row(scan.SCAN, ratio=[1.5, 1.7])]
    small = {256: [scan.Row(scan.SCAN, ratio=[3.0])]}
    assert scan._scan_ratios(large, small) == [("", [1.5, 1.7]), (f" ({scan.SMALL}, 256 examples)", [3.0])]


README_CLAIM = re.compile(r"^- `(?P<name>[^`]+)`: \*\*(?P<text>[^*]+)\*\*\s+\(record\s+`(?P<bench>\w+)`\s+at\s+commit\s+"
                          r"`(?P<commit>[0-9a-f]{10})`,\s+(?P<date>[\dT:Z-]+)", re.M)


def test_the_readme_s_speed_claims_are_records_of_the_history():
    section = (ROOT / "README.md").read_text().split("## Speed", 1)[1].split("\n## ", 1)[0]
    claims = list(README_CLAIM.finditer(section))
    assert claims, "the README's Speed section states no ratio from the history"
    records = compare.load(history.HISTORY)
    for claim in claims:
        found = [r for r in records if r["bench"] == claim["bench"] and r["commit"].startswith(claim["commit"])
                 and r["date"].startswith(claim["date"]) and claim["name"] in r["ratios"]]
        assert found, f"no record of {claim['name']!r} by {claim['bench']} at {claim['commit']}"
        assert compare.ratio_text(found[-1]["ratios"][claim["name"]]) == claim["text"]
