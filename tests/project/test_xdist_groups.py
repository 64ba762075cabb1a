"""tests/conftest.py's xdist groups: every test of a file with a module- or session-scoped fixture of the tests runs
on one worker (`make test` runs `--dist loadgroup`), so such a fixture (a mkdocs build, a TensorFlow subprocess)
runs once, not once per worker."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

_SPEC = importlib.util.spec_from_file_location("tests_root_conftest", Path(__file__).resolve().parents[1] / "conftest.py")
_CONFTEST = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_CONFTEST)


def _fixture(argname: str, scope: str, baseid: str):
    return SimpleNamespace(argname=argname, scope=scope, baseid=baseid)


def _item(nodeid: str, *fixtures, group: str | None = None):
    marker = pytest.mark.xdist_group(group).mark if group else None
    return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: marker if name == "xdist_group" else None,
                           _fixtureinfo=SimpleNamespace(name2fixturedefs={f.argname: [f] for f in fixtures}))


TMP = _fixture("tmp_path_factory", "session", "")   # pytest's own: not the tests' work
SITE = _fixture("site", "module", "tests/project/test_docs.py")
VERDICTS = _fixture("tf_verdicts", "session", "tests/lint")
SEED = _fixture("seed", "function", "tests")


def test_a_file_with_a_module_fixture_is_one_group_even_its_tests_that_do_not_use_it():
    items = [_item("tests/project/test_docs.py::test_builds", SITE, TMP),
             _item("tests/project/test_docs.py::test_limits_table", SEED),
             _item("tests/project/test_readme.py::test_seed", SEED, TMP)]
    assert _CONFTEST.shared_fixture_groups(items) == {
        "tests/project/test_docs.py::test_builds": "tests/project/test_docs.py",
        "tests/project/test_docs.py::test_limits_table": "tests/project/test_docs.py"}


def test_the_files_that_share_a_session_fixture_are_one_group():
    items = [_item("tests/lint/test_interp.py::test_a", VERDICTS), _item("tests/lint/test_interp.py::test_b"),
             _item("tests/lint/test_rules_new.py::test_c", VERDICTS), _item("tests/lint/test_x.py::test_d", TMP)]
    groups = _CONFTEST.shared_fixture_groups(items)
    assert set(groups) == {"tests/lint/test_interp.py::test_a", "tests/lint/test_interp.py::test_b",
                           "tests/lint/test_rules_new.py::test_c"}
    assert len(set(groups.values())) == 1 and "@" not in next(iter(groups.values()))   # xdist splits names at @


def test_a_test_already_in_a_group_keeps_it():
    items = [_item("tests/browser/test_pages.py::test_a", _fixture("app_server", "session", "tests/browser"),
                   group="browser")]
    assert _CONFTEST.shared_fixture_groups(items) == {}


def test_every_load_test_is_in_the_folder_the_load_run_collects():
    """`make test`'s second run collects one folder, not the whole suite (~25 s of CPU to select one test): a load
    test put anywhere else would be run by neither of its two runs."""
    root = Path(__file__).resolve().parents[2]
    line = next(s for s in (root / "Makefile").read_text().splitlines() if "pytest -m load" in s)
    folder = root / line.split("pytest -m load")[1].split()[0]
    marked = {p for p in (root / "tests").rglob("*.py")
              if "pytest.mark.load" in p.read_text() and p != Path(__file__).resolve()}
    assert marked and folder.is_dir()
    assert {p for p in marked if folder not in p.parents} == set(), line
