"""Shared fixtures for the gradlib tests (keep this small: one fixture per shared need), and the hook that keeps each
module- or session-scoped fixture of the tests to one run under pytest-xdist."""

from __future__ import annotations

import functools
import gc
import os
import resource
import sys
import time

import pytest

SEED_TEXT = "[x0*x1*x2, x0*x1*x2*x0]"
SEED_INPUTS = {"x0": 3.0, "x1": 4.0, "x2": 5.0}


@pytest.fixture
def seed():
    """The seed question's function and inputs: y = [x0*x1*x2, x0*x1*x2*x0] at x = (3, 4, 5)."""
    return SEED_TEXT, dict(SEED_INPUTS)


def shared_fixture_groups(items) -> dict[str, str]:
    """nodeid -> xdist group, for every test of a file that uses a module- or session-scoped fixture of the tests.

    pytest-xdist runs such a fixture once per worker that runs one of its tests (a mkdocs build, a wheel build, a
    TensorFlow subprocess, a Streamlit run): a file's tests in one group run on one worker, so its fixtures run
    once. A session fixture shared by several files (tests/lint's ``tf_verdicts``) joins them into one group. The
    fixtures of pytest and its plugins (``tmp_path_factory``: baseid "") are not the tests' work and join nothing.
    Tests already in a group (the browser tests) keep theirs."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    def grouped(item) -> bool:
        return item.get_closest_marker("xdist_group") is None and hasattr(item, "_fixtureinfo")

    for item in filter(grouped, items):
        file = item.nodeid.split("::")[0]
        for definition in (d for defs in item._fixtureinfo.name2fixturedefs.values() for d in defs if d.baseid):
            if definition.scope == "module":
                root(file)
            elif definition.scope == "session":
                parent[root(f"session:{definition.argname}:{definition.baseid}")] = root(file)
    return {item.nodeid: root(item.nodeid.split("::")[0]) for item in filter(grouped, items)
            if item.nodeid.split("::")[0] in parent}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Put each file with a shared fixture in one xdist group (`make test` runs `--dist loadgroup`). tryfirst: the
    group must be set before xdist reads it; tests/browser/conftest.py's hook (registered later) runs before this
    one, so the browser tests already carry their group."""
    groups = shared_fixture_groups(items)
    for item in items:
        if item.nodeid in groups:
            item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))


def pytest_collection_finish(session):
    """Move what collection built (thousands of test items, TensorFlow's and Keras' modules) out of the garbage
    collector's reach: without it every full collection of the oldest generation walks all of it again, in each
    xdist worker, for objects that live until the session ends. Tests' own garbage is collected as before. Then
    scan the installed packages for Streamlit components once a process (``_scan_components_once``)."""
    gc.collect()
    gc.freeze()
    _scan_components_once()


def _scan_components_once() -> None:
    """Where the collected tests imported AppTest: each AppTest's first run scans every installed distribution's
    metadata for Streamlit components (~700 files parsed, ~0.5 s of CPU), the same answer each time, since no test
    installs a package; it is scanned once a process and each run gets its own copy of the list."""
    if "streamlit.testing.v1" not in sys.modules:
        return
    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    manifest_scanner.scan_component_manifests = functools.wraps(scan)(lambda: list(scan()))


def pytest_sessionstart(session):
    """The run's wall clock starts (``pytest_terminal_summary`` reports the CPU the run used beside it)."""
    session.config.stash[_STARTED] = time.monotonic()


def pytest_terminal_summary(terminalreporter, config):
    """In the process that prints the summary (xdist's controller, or the only one): the CPU time the run used,
    this process and every child it waited for (the xdist workers and what they started: the Streamlit servers,
    Chromium, the fresh interpreters), beside its wall time. ``make test`` prints it, so the README's figures of
    what the suite costs come from a command of the project: where every core is busy, the wall time cannot fall
    below this CPU time divided by the cores."""
    if "PYTEST_XDIST_WORKER" not in os.environ and _STARTED in config.stash:
        terminalreporter.write_line(cpu_line(time.monotonic() - config.stash[_STARTED]))


def cpu_line(wall: float) -> str:
    """The CPU this process and its waited-for children used so far, beside ``wall`` seconds and the cores."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = own.ru_utime + children.ru_utime, own.ru_stime + children.ru_stime
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    # the sum of the two whole numbers shown, so that the line adds up (1.4 + 2.4 shown as 1 + 2 = 3, not 4)
    shown = round(user), round(system)
    return (f"CPU time of this run: {shown[0]} s user + {shown[1]} s system = {sum(shown)} s over {wall:.0f} s "
            f"of wall time: on average {(user + system) / max(wall, 1e-9):.2f} of the {cores} cores busy")


_STARTED = pytest.StashKey[float]()
