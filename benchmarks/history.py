"""The benchmark history: every headline ratio of a benchmark run, with the commit it measured, one JSON line per run.

Each benchmark module measures its contenders side by side in one process and reduces them to ratios (gradlib's
time over a peer's, per round); at the end of its ``main`` it hands those per-round ratios to ``record``, which
appends one line to the history file: the benchmark's name, its command-line options, the commit (and whether
the work tree had changes), the date, the load average, and per ratio its median, lowest and highest round and
which direction is better. ``python3 -m benchmarks.compare`` compares the last two lines of each benchmark.

Nothing is recorded unless ``BENCH_HISTORY`` names the file (``make bench`` sets it to ``benchmarks/history.jsonl``,
which is tracked): a quick run by hand leaves the history alone.

Why a JSON-lines file of our own rather than pytest-benchmark or asv: both store absolute times per test or per
commit and compare those, and absolute times on a shared machine drift by more than the regressions we look for
(docs/performance.md: load averages 3-13 during the runs). Our headline numbers are ratios measured side by side
in one process, with their spread over rounds; neither tool records a ratio computed inside the benchmark (asv
would also rebuild an environment per commit). A line per run is diffable in review, and needs no dependency.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Mapping, Sequence

__all__ = ["ENV", "HISTORY", "record", "summary"]

#: the environment variable naming the history file (unset or empty: nothing is recorded)
ENV = "BENCH_HISTORY"
#: the tracked history file ``make bench`` writes
HISTORY = Path(__file__).resolve().with_name("history.jsonl")
ROOT = HISTORY.parent.parent


def summary(values: Sequence[float], better: str) -> dict:
    """One ratio's per-round ``values`` as recorded: median, lowest, highest, rounds, and ``better``
    (``"lower"`` for a time over a peer's, ``"higher"`` for a speed-up)."""
    if better not in ("lower", "higher"):
        raise ValueError(f"better must be 'lower' or 'higher', got {better!r}")
    values = [float(v) for v in values]
    return {"median": statistics.median(values), "low": min(values), "high": max(values), "rounds": len(values),
            "better": better}


def record(bench: str, ratios: Mapping[str, tuple[Sequence[float], str]], *, path: str | os.PathLike | None = None,
           options: str | None = None) -> dict | None:
    """Append one run of ``bench`` to the history: ``ratios`` maps each headline ratio's name to its per-round values
    and the better direction. ``path`` defaults to ``$BENCH_HISTORY``; without either nothing is written and
    ``None`` returned. Ratios without any value (a contender that failed) are left out: compare calls them missing."""
    path = path if path is not None else os.environ.get(ENV, "")
    kept = {name: summary(values, better) for name, (values, better) in ratios.items() if len(values)}
    if not path or not kept:
        return None
    commit, dirty = _commit()
    line = {"bench": bench, "options": " ".join(sys.argv[1:]) if options is None else options, "commit": commit,
            "dirty": dirty, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "load": round(os.getloadavg()[0], 2), "ratios": kept}
    with open(path, "a") as fh:
        fh.write(json.dumps(line, sort_keys=True) + "\n")
    print(f"recorded {len(kept)} ratio(s) of {bench} at {commit[:10]}{' (dirty)' if dirty else ''} in {path}")
    return line


def _commit() -> tuple[str, bool]:
    """The checked-out commit and whether tracked files differ from it (``"unknown"`` outside a git checkout)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                check=True, timeout=30).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown", True
    changed = [line for line in status.splitlines() if not line.endswith(HISTORY.name)]
    return commit, bool(changed)
