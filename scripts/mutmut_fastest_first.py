"""A pytest plugin for `make mutate` (setup.cfg, [mutmut] pytest_add_cli_args): run the fastest tests first.

mutmut runs the tests that reached a mutated function against each mutant and stops at the first failure (-x),
in no particular order. Sorting them by the durations mutmut measured in its stats run (mutmut-stats.json in the
mutants/ directory it runs from) lets a test of a few milliseconds kill a mutant before the generated-code tests
(a fresh Python importing TensorFlow each, seconds apiece) start. A surviving mutant still runs every one of its
tests: the order changes what a run costs, never a verdict. Outside a mutation run (no stats file) it does nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["pytest_collection_modifyitems"]


def pytest_collection_modifyitems(session, config, items) -> None:
    stats = Path("mutmut-stats.json")
    if not stats.exists():
        return
    duration = json.loads(stats.read_text()).get("duration_by_test", {})
    items.sort(key=lambda item: duration.get(item.nodeid, float("inf")))   # stable: ties keep pytest's order
