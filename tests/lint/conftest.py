"""Shared fixtures for the lint tests: snippets run under TensorFlow (tests/lint_corpus/outcomes.py), each distinct
source once a session, so each rule's claim about TensorFlow is proven, not assumed."""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from pathlib import Path

import pytest

import fix_programs
import fresh_tf
import lint_programs

OUTCOMES = Path(__file__).resolve().parent / "lint_corpus" / "outcomes.py"


class Snippets:
    """Runs snippets under TensorFlow in a child of the fork server (tests/fresh_tf.py), one subprocess a call, and
    keeps each run by its source text: the corpus, the programs and the rule examples are asked for by several test
    files (what each gradient call did, test_outcomes.py; the snippet's verdict, test_lint.py and ``tf_verdicts``),
    and a source already run is not run again. Each call gets its own copy of the results."""

    def __init__(self, folder: Path):
        self._folder, self._runs, self._calls = folder, {}, 0

    def run(self, sources: dict[str, str]) -> dict[str, dict]:
        """name -> {"calls": [[line, outcome], ...], "crash": [line, error] or None, "verdict": ...} (outcomes.py)."""
        new = list(dict.fromkeys(source for source in sources.values() if source not in self._runs))
        if new:
            self._calls += 1
            batch = self._folder / f"batch{self._calls}"
            batch.mkdir()
            names = {source: name for name, source in reversed(sources.items())}   # the first name of each source
            paths = {}
            for index, source in enumerate(new):
                path = batch / f"{index:04d}_{re.sub(r'[^A-Za-z0-9_.-]', '_', names[source]).removesuffix('.py')}.py"
                path.write_text(source)
                paths[str(path)] = source
            done = fresh_tf.run([sys.executable, str(OUTCOMES), *paths], timeout=600,
                                env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
            assert done.returncode == 0, done.stderr[-3000:]
            for path, run in json.loads(done.stdout).items():
                self._runs[paths[path]] = run
        return {name: copy.deepcopy(self._runs[source]) for name, source in sources.items()}


@pytest.fixture(scope="session")
def tf_snippets(tmp_path_factory) -> Snippets:
    """The session's snippets run under TensorFlow, by source text (``Snippets``)."""
    return Snippets(tmp_path_factory.mktemp("snippets"))


@pytest.fixture(scope="session")
def tf_verdicts(tf_snippets) -> dict[str, str]:
    """lint_programs' name -> what TensorFlow did: "real", "none", "zeros" or "raised: ..." (see outcomes.py)."""
    runs = tf_snippets.run({name: program.source for name, program in lint_programs.PROGRAMS.items()})
    return {name: run["verdict"] for name, run in runs.items()}


@pytest.fixture(scope="session")
def program_outcomes() -> dict[str, dict]:
    """What each program of fix_programs.all_programs gave under TensorFlow (``fix_programs.outcomes``). A fixture, so
    that test_fixes_run.py and test_reports.py, which both read it, run on one xdist worker (tests/conftest.py) and
    its one subprocess runs once a session, not once in each worker."""
    return fix_programs.outcomes()
