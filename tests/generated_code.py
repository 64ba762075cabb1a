"""Shared by the tests of generated TensorFlow code: run the script gradlib wrote and compare it with gradlib."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import numpy as np
from fresh_tf import run

__all__ = ["assert_script_matches"]


def assert_script_matches(code: str, result, folder: Path) -> None:
    """Run ``code`` (``tensorflow_code``'s script) as in a fresh interpreter (tests/fresh_tf.py: forked from a server
    that imported TensorFlow): its ``y`` and ``rows`` must equal ``result``'s output and Jacobian."""
    script = folder / "generated.py"
    script.write_text(code)
    done = run([sys.executable, str(script)], timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = dict(line.partition(": ")[::2] for line in done.stdout.splitlines())
    np.testing.assert_allclose(ast.literal_eval(printed["y"]), result.y, rtol=1e-12)
    rows = np.array([np.concatenate([np.ravel(g) for g in row]) for row in ast.literal_eval(printed["rows"])])
    np.testing.assert_allclose(rows, result.jacobian, rtol=1e-10, atol=1e-12)
