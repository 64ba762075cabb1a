"""scripts/mutation_score.py's arithmetic for the sampled mutation run (`make mutate-sample`, docs/mutation.md):
the 95% Wilson interval against its closed form and published values, the module of a mutant name, the
seeded per-module sample, and the per-module table (each module's verdicts counted in its own row)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("mutation_score", ROOT / "scripts" / "mutation_score.py")
score = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(score)


def _names(module: str, count: int, function: str = "x_f") -> list[str]:
    return [f"{module}.{function}__mutmut_{i}" for i in range(1, count + 1)]


# ---------------------------------------------------------------- the Wilson interval


@pytest.mark.parametrize("k, n, low, high", [
    (15, 20, 0.5313, 0.8881),
    (20, 20, 0.8389, 1.0),      # all killed: the interval still has a lower bound below 1
    (0, 10, 0.0, 0.2775),       # none killed: the interval still has an upper bound above 0
    (81, 263, 0.2553, 0.3662),
])
def test_wilson_interval_matches_published_values(k, n, low, high):
    got = score.wilson(k, n)
    assert got == pytest.approx((low, high), abs=5e-4)


def test_wilson_interval_against_the_closed_form_quadratic():
    # the bounds are the two roots p of (p - k/n)^2 = z^2 p (1 - p) / n
    z = score.Z95
    for k, n in [(1, 3), (7, 9), (12, 25), (19, 20)]:
        p_hat = k / n
        a = 1 + z * z / n
        b = -(2 * p_hat + z * z / n)
        c = p_hat * p_hat
        roots = sorted(((-b - math.sqrt(b * b - 4 * a * c)) / (2 * a), (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)))
        assert score.wilson(k, n) == pytest.approx(tuple(roots), abs=1e-12)
        low, high = score.wilson(k, n)
        assert low < p_hat < high   # the interval is not centred on k/n, but contains it


def test_wilson_interval_refuses_impossible_counts():
    with pytest.raises(ValueError, match=r"0 <= k <= n, got k=5, n=4"):
        score.wilson(5, 4)
    assert score.wilson(0, 0) == (0.0, 1.0)


# ---------------------------------------------------------------- names, sampling, the table


@pytest.mark.parametrize("name, module", [
    ("gradlib._second._tapes.x_run__mutmut_3", "gradlib._second._tapes"),
    ("gradlib._perexample._gradients.x\u01c1PerExample\u01c1norms__mutmut_12", "gradlib._perexample._gradients"),
    ("gradlib.x_evaluate__mutmut_1", "gradlib"),                  # gradlib/__init__.py
    ("gradlib.lint.__main__.x_main__mutmut_2", "gradlib.lint.__main__"),
    ("dashboard.share.x_link__mutmut_5", "dashboard.share"),
])
def test_module_of_a_mutant_name(name, module):
    assert score.module_of(name) == module


def test_module_of_refuses_a_name_that_is_no_mutant():
    with pytest.raises(ValueError, match=r"not a mutmut mutant name: 'gradlib\._second'"):
        score.module_of("gradlib._second")


def test_sample_is_stratified_seeded_and_independent_of_other_modules():
    a, b, c = _names("pkg.a", 50), _names("pkg.b", 30), _names("pkg.c", 4)
    drawn = score.sample(a + b + c, 10, seed=7)
    assert sorted(drawn) == ["pkg.a", "pkg.b", "pkg.c"]
    assert [len(drawn[m]) for m in ("pkg.a", "pkg.b", "pkg.c")] == [10, 10, 4]   # a small module: all of it
    assert set(drawn["pkg.a"]) <= set(a) and set(drawn["pkg.b"]) <= set(b) and drawn["pkg.c"] == sorted(c)
    assert len(set(drawn["pkg.a"])) == 10                                       # without replacement
    # reproducible, whatever the order the names come in
    assert score.sample(list(reversed(a + b + c)), 10, seed=7) == drawn
    # a module's sample does not depend on the other modules present
    assert score.sample(a, 10, seed=7)["pkg.a"] == drawn["pkg.a"]
    # another seed, another sample (50 choose 10: the same one by chance is out of the question)
    assert score.sample(a, 10, seed=8)["pkg.a"] != drawn["pkg.a"]
    # not simply the first names, nor the same positions in every module
    assert drawn["pkg.a"] != sorted(a)[:10]
    with pytest.raises(ValueError, match=r"at least 1 mutant per module, got 0"):
        score.sample(a, 0, seed=7)


def test_sample_is_uniform_over_a_module():
    # every mutant of a module is about equally likely to be drawn: 2000 seeds, 5 of 20 each time
    names = _names("pkg.m", 20)
    hits = dict.fromkeys(names, 0)
    for seed in range(2000):
        for name in score.sample(names, 5, seed)["pkg.m"]:
            hits[name] += 1
    # expected 500 each (binomial sd ~19): a generator stuck on some names would be far outside
    assert all(400 < count < 600 for count in hits.values()), hits


def test_sample_table_counts_each_module_in_its_own_row():
    statuses = {
        **dict.fromkeys(_names("pkg.a", 8), "killed"),
        **dict.fromkeys(_names("pkg.a", 2, "x_g"), "survived"),
        **dict.fromkeys(_names("pkg.b", 3), "killed"),
        "pkg.b.x_g__mutmut_1": "timeout",
        "pkg.b.x_g__mutmut_2": "no tests",
        "pkg.b.x_g__mutmut_3": "error",
        "pkg.b.x_g__mutmut_4": "not run",
    }
    rows = {r["module"]: r for r in score.sample_table({"pkg.a": 100, "pkg.b": 40}, statuses)}
    a, b = rows["pkg.a"], rows["pkg.b"]
    assert (a["mutants"], a["sampled"], a["killed"], a["survived"], a["detected"], a["judged"]) == (100, 10, 8, 2, 8, 10)
    assert a["rate"] == pytest.approx(0.8)
    assert (a["low"], a["high"]) == pytest.approx(score.wilson(8, 10))
    # b: a timeout is detected, a mutant no test reaches is not; an error and a mutant not run have no verdict
    assert (b["mutants"], b["sampled"], b["killed"], b["timeout"], b["no tests"], b["other"]) == (40, 7, 3, 1, 1, 2)
    assert (b["detected"], b["judged"]) == (4, 5)
    assert b["rate"] == pytest.approx(0.8)
    assert (b["low"], b["high"]) == pytest.approx(score.wilson(4, 5))


def test_the_markdown_row_gives_the_run_out_of_the_sampled_and_the_interval():
    statuses = {**dict.fromkeys(_names("pkg.a", 9), "killed"), "pkg.a.x_g__mutmut_1": "survived",
                "pkg.a.x_g__mutmut_2": "not run"}
    (row,) = score.sample_table({"pkg.a": 1234}, statuses)
    low, high = score.wilson(9, 10)
    assert score.markdown_row(row) == f"| `pkg.a` | 1,234 | 10 of 11 | 9 | 1 | 0 | 90% | {low:.0%} to {high:.0%} |"
    assert (f"{low:.0%}", f"{high:.0%}") == ("60%", "98%")


# ---------------------------------------------------------------- confirming mutmut's verdicts alone

_sample_spec = importlib.util.spec_from_file_location("mutation_sample", ROOT / "scripts" / "mutation_sample.py")
sampler = importlib.util.module_from_spec(_sample_spec)
_sample_spec.loader.exec_module(sampler)


def test_confirm_runs_only_the_detected_mutants_again_alone_and_keeps_their_own_verdict(tmp_path, monkeypatch):
    """A timeout or a kill in mutmut's forked child is run again in a fresh interpreter, with the mutant switched
    on and only the tests that reach it; its exit code replaces mutmut's (a fake timeout becomes a survivor). A
    survivor, a mutant no test reaches and one not run are not run again."""
    (tmp_path / "mutants").mkdir()
    (tmp_path / "mutants" / "mutmut-stats.json").write_text(score.json.dumps({
        "tests_by_mangled_function_name": {"pkg.m.x_f": ["tests/t.py::test_f"], "pkg.m.x_g": ["tests/t.py::test_g"],
                                           "pkg.m.x_h": ["tests/t.py::test_h"]},
        "duration_by_test": {"tests/t.py::test_f": 1.0, "tests/t.py::test_g": 2.0, "tests/t.py::test_h": 0.5}}))
    monkeypatch.setattr(sampler, "ROOT", tmp_path)
    runs = []

    def run(command, cwd, env, stdout, stderr, timeout):
        runs.append((command[-1], env["MUTANT_UNDER_TEST"], cwd, timeout))
        if env["MUTANT_UNDER_TEST"] == "pkg.m.x_h__mutmut_1":
            raise sampler.subprocess.TimeoutExpired(command, timeout)
        return sampler.subprocess.CompletedProcess(command, {"pkg.m.x_f__mutmut_1": 0, "pkg.m.x_g__mutmut_2": 1}[
            env["MUTANT_UNDER_TEST"]])

    monkeypatch.setattr(sampler.subprocess, "run", run)
    codes = {"pkg.m.x_f__mutmut_1": -24, "pkg.m.x_g__mutmut_2": 1, "pkg.m.x_h__mutmut_1": -24,
             "pkg.m.x_f__mutmut_3": 0, "pkg.m.x_g__mutmut_4": 33, "pkg.m.x_f__mutmut_5": None}
    confirmed = sampler._confirm(codes, log=None)
    assert confirmed == {**codes, "pkg.m.x_f__mutmut_1": 0, "pkg.m.x_g__mutmut_2": 1, "pkg.m.x_h__mutmut_1": -24}
    assert sorted(runs) == [("tests/t.py::test_f", "pkg.m.x_f__mutmut_1", tmp_path / "mutants", 130.0),
                            ("tests/t.py::test_g", "pkg.m.x_g__mutmut_2", tmp_path / "mutants", 140.0),
                            ("tests/t.py::test_h", "pkg.m.x_h__mutmut_1", tmp_path / "mutants", 125.0)]
    assert score.STATUS[confirmed["pkg.m.x_f__mutmut_1"]] == "survived"
