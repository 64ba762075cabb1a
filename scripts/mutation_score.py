"""The kill rate of the last mutation run (`make mutate`), per module, from mutmut's result files.

Usage: python scripts/mutation_score.py [--survivors] PATTERN...   (the mutant-name patterns given to mutmut run)

A mutant is detected when a test fails on it (killed) or it makes the tests hang (timeout). The rate is
detected / all mutants run; the second rate leaves out the mutants docs/mutation.md lists as equivalent
(a change no test can see, because the behaviour is the same), each listed by name with its reason.
"""

from __future__ import annotations

import fnmatch
import json
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
    patterns = [a for a in argv if not a.startswith("--")]
    found = results(patterns)
    ran = {name: status for name, status in found.items() if status != "not run"}
    if not ran:
        print("no mutation results: run `make mutate` first")
        return 1
    by_module: dict[str, Counter] = defaultdict(Counter)
    for name, status in ran.items():
        by_module[name.split(".x")[0]][status] += 1
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
