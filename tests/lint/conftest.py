"""Shared fixture for the lint tests: every program in ``lint_programs`` run under TensorFlow once, in one
subprocess (tests/lint_corpus/prove.py), so each rule's claim about TensorFlow is proven, not assumed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import fresh_tf
import lint_programs

PROVE = Path(__file__).resolve().parent / "lint_corpus" / "prove.py"


@pytest.fixture(scope="session")
def tf_verdicts(tmp_path_factory) -> dict[str, str]:
    """name -> what TensorFlow did: "real", "none", "zeros" or "raised: ..." (see prove.py)."""
    folder = tmp_path_factory.mktemp("lint_programs")
    paths = []
    for name, program in lint_programs.PROGRAMS.items():
        path = folder / f"{name}.py"
        path.write_text(program.source)
        paths.append(str(path))
    done = fresh_tf.run([sys.executable, str(PROVE), *paths], timeout=600,   # a child of the TensorFlow fork server
                        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 0, done.stderr[-3000:]
    return {Path(path).stem: verdict for path, verdict in json.loads(done.stdout).items()}
