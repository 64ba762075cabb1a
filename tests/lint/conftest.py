"""One TensorFlow subprocess per session runs every program of the lint tests (lint_programs.all_programs).

run_programs.py is a script run in that subprocess: never collect or import it here (it imports TensorFlow and
quiets its logger)."""

from __future__ import annotations

import pytest

collect_ignore = ["run_programs.py"]


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory) -> dict[str, dict]:
    """name -> what the program gave under TensorFlow ({"got", "want"} or {"error"})."""
    from lint_programs import all_programs, run_programs
    return run_programs(all_programs(), tmp_path_factory.mktemp("programs"))
