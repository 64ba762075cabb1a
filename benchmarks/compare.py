"""Compare the last two records of each benchmark in the history and name every ratio that got worse.

    python3 -m benchmarks.compare                       # benchmarks/history.jsonl, 20% threshold
    python3 -m benchmarks.compare --history h.jsonl --threshold 0.1

Records are grouped by benchmark and command-line options (a ``--quick`` run is compared with ``--quick`` runs
only). For each group with two records or more, each ratio of the previous record is compared with the same ratio
of the last: a ratio where lower is better got worse when ``last > previous * (1 + threshold)``, one where higher
is better when ``last < previous * (1 - threshold)`` (20% by default: 0.5x to 0.6x is not worse, a hair above is).
A ratio the previous record had and the last one lacks (a contender that failed, a row that vanished) is named
as missing. The exit code is 1 when any ratio got worse or went missing, else 0 (a first record, with nothing to
compare yet, included). Medians are compared; each ratio's spread over its rounds is printed beside it, since a
20% change inside the rounds' spread may be the machine's load rather than the code.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from benchmarks.history import HISTORY

__all__ = ["THRESHOLD", "Comparison", "compare", "load", "main", "ratio_text", "worse_by"]

THRESHOLD = 0.20


@dataclass
class Comparison:
    """One benchmark's last two records: the ratios that got worse, went missing, or are new, as lines to print."""

    bench: str
    options: str
    previous: dict | None
    last: dict
    worse: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.worse or self.missing)


def load(path: str | Path) -> list[dict]:
    """The history's records in file order; a line that is not a JSON record is an error naming its line."""
    records = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}, line {number}: not JSON ({exc.msg})") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("ratios"), dict) or "bench" not in entry:
            raise ValueError(f"{path}, line {number}: a record needs 'bench' and a 'ratios' object")
        records.append(entry)
    return records


def worse_by(previous: float, last: float, better: str) -> float:
    """How much worse ``last`` is than ``previous``, as a fraction (negative: better)."""
    return last / previous - 1 if better == "lower" else 1 - last / previous


def _is_worse(previous: float, last: float, better: str, threshold: float) -> bool:
    if better == "lower":
        return last > previous * (1 + threshold)
    return last < previous * (1 - threshold)


def compare(records: Sequence[dict], threshold: float = THRESHOLD) -> list[Comparison]:
    """Each (benchmark, options) group's last record against the one before it (``previous`` None: a first record)."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for entry in records:
        groups.setdefault((entry["bench"], entry.get("options", "")), []).append(entry)
    return [_compare_two(bench, options, runs[-2] if len(runs) > 1 else None, runs[-1], threshold)
            for (bench, options), runs in groups.items()]


def _compare_two(bench: str, options: str, previous: dict | None, last: dict, threshold: float) -> Comparison:
    out = Comparison(bench, options, previous, last)
    if previous is None:
        out.lines.append(f"  first record ({_at(last)}): nothing to compare yet")
        return out
    out.lines.append(f"  {_at(previous)} -> {_at(last)}")
    for name, before in previous["ratios"].items():
        after = last["ratios"].get(name)
        if after is None:
            out.missing.append(name)
            out.lines.append(f"  MISSING  {name}: {ratio_text(before)} before, not in the last record")
            continue
        better = after.get("better", before.get("better", "lower"))
        change = worse_by(before["median"], after["median"], better)
        bad = _is_worse(before["median"], after["median"], better, threshold)
        if bad:
            out.worse.append(name)
        verdict = "WORSE   " if bad else "ok      "
        out.lines.append(f"  {verdict} {name}: {ratio_text(before)} -> {ratio_text(after)} ({abs(change):.0%} {'worse' if change > 0 else 'better'}; "
                         f"{better} is better)")
    for name in last["ratios"].keys() - previous["ratios"].keys():
        out.lines.append(f"  new      {name}: {ratio_text(last['ratios'][name])}")
    return out


def _at(entry: dict) -> str:
    dirty = " with changes" if entry.get("dirty") else ""
    return f"{str(entry.get('commit', 'unknown'))[:10]}{dirty}, {entry.get('date', '?')}, load {entry.get('load', '?')}"


def ratio_text(ratio: dict) -> str:
    """A recorded ratio as `0.6x [0.4, 0.9]`: its median [lowest, highest] round, three significant digits."""
    return f"{_number(ratio['median'])}x [{_number(ratio['low'])}, {_number(ratio['high'])}]"


def _number(value: float) -> str:
    """Three significant digits, without an exponent for large values (2,477, not 2.48e+03)."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--history", default=str(HISTORY), help="the JSON-lines history (default %(default)s)")
    parser.add_argument("--threshold", type=float, default=THRESHOLD, help="fraction worse that fails (0.2)")
    args = parser.parse_args(argv)
    path = Path(args.history)
    if not path.exists():
        print(f"no benchmark history at {path}: run `make bench` to record one")
        return 0
    try:
        comparisons = compare(load(path), args.threshold)
    except ValueError as exc:
        print(f"benchmarks.compare: {exc}", file=sys.stderr)
        return 2
    if not comparisons:
        print(f"{path} holds no record yet: run `make bench` to record one")
    for c in comparisons:
        print(f"{c.bench}{f' ({c.options})' if c.options else ''}:")
        print("\n".join(c.lines))
    failed = [c for c in comparisons if c.failed]
    for c in failed:
        what = [f"{n} got more than {args.threshold:.0%} worse" for n in c.worse] + [f"{n} is missing" for n in c.missing]
        print(f"{c.bench}: " + "; ".join(what), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
