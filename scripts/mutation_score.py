"""The kill rate of the last mutation run (`make mutate`), per module, from mutmut's result files.

Usage: python scripts/mutation_score.py [--survivors] PATTERN...   (the mutant-name patterns given to mutmut run)
       python scripts/mutation_score.py --sample [--survivors | --markdown]   (the sampled run, `make mutate-sample`)

A mutant is detected when a test fails on it (killed) or it makes the tests hang (timeout). The rate is
detected / all mutants run; the second rate leaves out the mutants docs/mutation.md lists as equivalent
(a change no test can see, because the behaviour is the same), each listed by name with its reason.

The sampled run (scripts/mutation_sample.py) runs a seeded random sample of mutants per module, so its rate is an
estimate: ``--sample`` prints, per module, the mutants mutmut generated, the number sampled, their verdicts, the
rate over the sampled mutants that got a verdict and its 95% Wilson score interval.
"""

from __future__ import annotations

import fnmatch
import json
import math
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# 255 is mutmut's worker exiting with -1: pytest could not run the tests (mutmut 3.8 counts it as a timeout; it is
# no detection, so here it is an error)
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 36: "timeout",
          -24: "timeout", 24: "timeout", 152: "timeout", 255: "error", None: "not run"}
DETECTED = ("killed", "timeout")
# a verdict on the tests: detected, survived, or reached by no test (a gap too); errors and skips are none
VERDICTS = ("killed", "timeout", "survived", "no tests")
SAMPLE_RESULTS = ROOT / "mutants" / "mutation-sample.json"
# z for a two-sided 95% interval
Z95 = 1.959963984540054


def module_of(name: str) -> str:
    """The module of a mutant name: ``gradlib._second._tapes.xǁTapeǁrun__mutmut_3`` -> ``gradlib._second._tapes``.

    mutmut names a function ``x_<name>`` and a method ``xǁ<class>ǁ<name>``; a package's ``__init__`` is the package.
    """
    match = re.match(r"^(.+?)\.x(?:_|\u01c1)", name)
    if match is None:
        raise ValueError(f"not a mutmut mutant name: {name!r} (expected <module>.x_<function>__mutmut_<n>)")
    return match.group(1)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: ``k`` successes in ``n`` trials, (low, high) in [0, 1].

    Unlike the normal approximation it stays inside [0, 1] and is not empty at k = 0 or k = n (a sample of 20
    mutants all killed gives 0.839 to 1, not 1 to 1).
    """
    if not 0 <= k <= n:
        raise ValueError(f"wilson needs 0 <= k <= n, got k={k!r}, n={n!r}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def sample(names: list[str] | set[str], size: int, seed: int) -> dict[str, list[str]]:
    """A seeded random sample of ``size`` mutants per module (all of a module's if it has fewer), sorted.

    Stratified: each module draws from its own generator, seeded by ``seed`` and the module's name, so a module's
    sample depends only on the seed, the size and its own mutants, never on which other modules are sampled.
    """
    if size < 1:
        raise ValueError(f"the sample size must be at least 1 mutant per module, got {size!r}")
    by_module: dict[str, list[str]] = defaultdict(list)
    for name in names:
        by_module[module_of(name)].append(name)
    out = {}
    for module, members in sorted(by_module.items()):
        rng = random.Random(f"{seed}:{module}")
        out[module] = sorted(rng.sample(sorted(members), min(size, len(members))))
    return out


def generated() -> dict[str, int]:
    """Module -> the number of mutants mutmut generated for it (every mutant in mutants/, run or not)."""
    counts: Counter = Counter()
    for meta in (ROOT / "mutants").rglob("*.py.meta"):
        for name in json.loads(meta.read_text())["exit_code_by_key"]:
            counts[module_of(name)] += 1
    return dict(counts)


def sample_table(sizes: dict[str, int], statuses: dict[str, str]) -> list[dict]:
    """One row per module of a sampled run: its mutants, the sample's verdicts, the rate and its 95% interval.

    ``sizes``: module -> mutants generated; ``statuses``: sampled mutant name -> status. The rate is detected over
    the sampled mutants with a verdict (``VERDICTS``: a mutant no test reaches counts as not detected); errors and
    mutants not run are counted in ``other`` and left out of it.
    """
    by_module: dict[str, Counter] = defaultdict(Counter)
    for name, status in statuses.items():
        by_module[module_of(name)][status] += 1
    rows = []
    for module, counts in sorted(by_module.items()):
        judged = sum(counts[s] for s in VERDICTS)
        detected = sum(counts[s] for s in DETECTED)
        low, high = wilson(detected, judged)
        rows.append({"module": module, "mutants": sizes.get(module, 0), "sampled": sum(counts.values()),
                     "killed": counts["killed"], "timeout": counts["timeout"], "survived": counts["survived"],
                     "no tests": counts["no tests"], "other": sum(counts.values()) - judged, "detected": detected,
                     "judged": judged, "rate": detected / judged if judged else float("nan"), "low": low,
                     "high": high})
    return rows


def load_sample() -> dict:
    """mutants/mutation-sample.json: ``exit_codes`` (mutant name -> mutmut's exit code), ``samples`` (module ->
    [size, seed] it was drawn with) and ``seconds_by_room`` (wall time of each room's runs)."""
    if not SAMPLE_RESULTS.exists():
        return {"exit_codes": {}, "samples": {}, "seconds_by_room": {}}
    recorded = json.loads(SAMPLE_RESULTS.read_text())
    if "samples" not in recorded:   # the first format: one size and seed for every module
        recorded["samples"] = {module_of(name): [recorded["size"], recorded["seed"]] for name in recorded["exit_codes"]}
    return recorded


def markdown_row(r: dict) -> str:
    """One module's row of docs/mutation.md's table of the sampled run."""
    rate = f"{r['rate']:.0%}" if r["judged"] else "-"
    interval = f"{r['low']:.0%} to {r['high']:.0%}" if r["judged"] else "-"
    return (f"| `{r['module']}` | {r['mutants']:,} | {r['judged']} of {r['sampled']} | {r['killed'] + r['timeout']} "
            f"| {r['survived']} | {r['no tests']} | {rate} | {interval} |")


def print_sample(show: bool, markdown: bool = False) -> int:
    """Print the table of the sampled run recorded in mutants/mutation-sample.json (scripts/mutation_sample.py)."""
    if not SAMPLE_RESULTS.exists():
        print("no sampled results: run `make mutate-sample` first")
        return 1
    recorded = load_sample()
    statuses = {name: STATUS.get(code, "suspicious") for name, code in recorded["exit_codes"].items()}
    rows = sample_table(generated(), statuses)
    sizes = sorted({tuple(v) for m, v in recorded["samples"].items() if any(r["module"] == m for r in rows)})
    print("sample (mutants per module, seed): " + ", ".join(f"{size}, seed {seed}" for size, seed in sizes))
    if markdown:
        print("| module | mutants | run of sampled | detected | survived | no tests | rate | 95% interval |")
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        for r in rows:
            print(markdown_row(r))
        return 0
    print(f"{'module':<34} {'mutants':>7} {'sampled':>7} {'killed':>6} {'timeout':>7} {'survived':>8} "
          f"{'no tests':>8} {'other':>5} {'rate':>6}  95% interval")
    for r in rows:
        print(f"{r['module']:<34} {r['mutants']:>7} {r['sampled']:>7} {r['killed']:>6} {r['timeout']:>7} "
              f"{r['survived']:>8} {r['no tests']:>8} {r['other']:>5} {r['rate']:>6.1%}  "
              f"{r['low']:.1%} to {r['high']:.1%}")
    detected, judged = sum(r["detected"] for r in rows), sum(r["judged"] for r in rows)
    low, high = wilson(detected, judged)
    print(f"{'all (pooled, unweighted)':<34} {sum(r['mutants'] for r in rows):>7} {sum(r['sampled'] for r in rows):>7} "
          f"{sum(r['killed'] for r in rows):>6} {sum(r['timeout'] for r in rows):>7} "
          f"{sum(r['survived'] for r in rows):>8} {sum(r['no tests'] for r in rows):>8} "
          f"{sum(r['other'] for r in rows):>5} {detected / max(judged, 1):>6.1%}  {low:.1%} to {high:.1%}")
    if show:
        listed = equivalent()
        for name, status in sorted(statuses.items()):
            if status not in DETECTED:
                print(f"{status}: {name}" + ("  (listed as equivalent)" if name in listed else ""))
    return 0


def results(patterns: list[str]) -> dict[str, str]:
    """Mutant name -> status, for the mutants matching ``patterns`` (every mutant if none are given)."""
    out = {}
    for meta in sorted((ROOT / "mutants").rglob("*.py.meta")):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            if not patterns or any(fnmatch.fnmatch(name, p) for p in patterns):
                out[name] = STATUS.get(code, "suspicious")
    return out


def equivalent() -> set[str]:
    """The mutants docs/mutation.md explains as equivalent: every mutant name in its section of that title."""
    doc = ROOT / "docs" / "mutation.md"
    if not doc.exists():
        return set()
    section = doc.read_text().partition("## Survivors that are equivalent")[2].partition("\n## ")[0]
    return set(re.findall(r"`((?:gradlib|dashboard)\.[^`\s]+__mutmut_\d+)`", section))


def _other(counts: Counter) -> int:
    """Mutants neither killed, timed out, survived nor without tests: errors, suspicious, skipped."""
    return sum(counts.values()) - sum(counts[s] for s in ("killed", "timeout", "survived", "no tests"))


def main(argv: list[str]) -> int:
    show = "--survivors" in argv
    if "--sample" in argv:
        return print_sample(show, markdown="--markdown" in argv)
    patterns = [a for a in argv if not a.startswith("--")]
    found = results(patterns)
    ran = {name: status for name, status in found.items() if status != "not run"}
    if not ran:
        print("no mutation results: run `make mutate` first")
        return 1
    by_module: dict[str, Counter] = defaultdict(Counter)
    for name, status in ran.items():
        by_module[module_of(name)][status] += 1
    print(f"{'module':<20} {'mutants':>8} {'killed':>7} {'timeout':>8} {'survived':>9} {'no tests':>9} {'other':>6} "
          f"{'rate':>7}")
    total: Counter = Counter()
    for module, counts in sorted(by_module.items()):
        total.update(counts)
        n = sum(counts.values())
        rate = sum(counts[s] for s in DETECTED) / n
        print(f"{module:<20} {n:>8} {counts['killed']:>7} {counts['timeout']:>8} {counts['survived']:>9} "
              f"{counts['no tests']:>9} {_other(counts):>6} {rate:>7.1%}")
    n = sum(total.values())
    detected = sum(total[s] for s in DETECTED)
    print(f"{'all':<20} {n:>8} {total['killed']:>7} {total['timeout']:>8} {total['survived']:>9} "
          f"{total['no tests']:>9} {_other(total):>6} {detected / n:>7.1%}")
    listed = equivalent() & {name for name, status in ran.items() if status not in DETECTED}
    print(f"kill rate: {detected}/{n} = {detected / n:.1%}; leaving out the {len(listed)} equivalent mutants listed "
          f"in docs/mutation.md: {detected}/{n - len(listed)} = {detected / max(n - len(listed), 1):.1%}")
    if len(found) > len(ran):
        print(f"({len(found) - len(ran)} mutants matching the patterns were not run)")
    # a name listed as equivalent that a test detects is stale (the code changed and mutmut renumbered its mutants)
    stale = sorted(name for name in equivalent() if ran.get(name) in DETECTED)
    for name in stale:
        print(f"listed as equivalent in docs/mutation.md, but detected: {name}")
    if show:
        for name, status in sorted(ran.items()):
            if status not in DETECTED and name not in listed:
                print(f"{status}: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
