"""A pytest plugin for `make mutate` (setup.cfg, [mutmut] pytest_add_cli_args): run the fastest tests first.

mutmut runs the tests that reached a mutated function against each mutant and stops at the first failure (-x),
in no particular order. Sorting them by the durations mutmut measured in its stats run (mutmut-stats.json in the
mutants/ directory it runs from) lets a test of a few milliseconds kill a mutant before the generated-code tests
(a fresh Python importing TensorFlow each, seconds apiece) start. A surviving mutant still runs every one of its
tests: the order changes what a run costs, never a verdict. Outside a mutation run (no stats file) it does nothing.

It also widens a test id pytest cannot find a second time in one process: a parametrized id with a backslash or a
non-ASCII character (pytest escapes them, e.g. ``[x\\(1\\)]`` or ``[x\\xb7W]``) is found by the first
``pytest.main`` and not by the next, so in mutmut's forked children (the fork server has already collected once)
it gave a usage error, which mutmut counts as a timeout: a mutant "detected" by no test. Such an id is replaced by
its test function, all of whose cases run: more tests than mutmut chose, never fewer.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["pytest_collection_modifyitems", "pytest_load_initial_conftests"]


def pytest_collection_modifyitems(session, config, items) -> None:
    stats = Path("mutmut-stats.json")
    if not stats.exists():
        return
    duration = json.loads(stats.read_text()).get("duration_by_test", {})
    items.sort(key=lambda item: duration.get(item.nodeid, float("inf")))   # stable: ties keep pytest's order


def pytest_load_initial_conftests(early_config, parser, args: list[str]) -> None:
    seen, out = set(), []
    for arg in args:
        if "::" in arg and "[" in arg and ("\\" in arg or not arg.isascii()):
            arg = arg.split("[", 1)[0]
            if arg in seen:
                continue
            seen.add(arg)
        out.append(arg)
    args[:] = out
