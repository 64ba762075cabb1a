"""``python -m gradlib.scan`` and the ``gradlib-scan`` command: see ``gradlib.scan._cli`` (and ``--help``).

TensorFlow writes start-up lines to the process's standard error while it is imported (absl's "All log
messages before absl::InitializeLog() ...", oneDNN and CPU-feature notes), from C++, where neither Python's
logging nor ``TF_CPP_MIN_LOG_LEVEL`` reaches them all. The command's standard error is for its own messages,
so ``main`` imports TensorFlow with file descriptor 2 pointed at the null device first (not for ``--help``,
which needs no TensorFlow), and sets ``TF_CPP_MIN_LOG_LEVEL=3`` for its later C++ notes unless the user
chose a level: at 2, oneDNN's "E0000 ... oneDNN supports DT_INT32 only on platforms with AVX-512. Falling back to
the default Eigen-based implementation" (a note logged as an error, at the first int32 op of a Circle loss, say)
came before the command's one line. A failure of TensorFlow's still reaches the user as the command's own line.
The command names itself as the user typed it: ``gradlib-scan`` or ``python -m gradlib.scan``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, Sequence

from . import _cli

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command (``argv`` defaults to ``sys.argv[1:]``) with TensorFlow's start-up lines kept off stderr."""
    args = sys.argv[1:] if argv is None else list(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if "tensorflow" not in sys.modules and not {"-h", "--help"} & set(args):
        with _stderr_silenced():
            try:
                import tensorflow  # noqa: F401
            except ImportError:
                pass   # the command imports it again where it needs it, and reports the error in one line
    return _cli.main(args, prog=_prog(sys.argv[0]))


def _prog(script: str) -> str:
    """The command's name as the user typed it: ``gradlib-scan`` (the console script) or ``python -m gradlib.scan``.

    >>> _prog("/venv/bin/gradlib-scan"), _prog("/src/gradlib/scan/__main__.py")
    ('gradlib-scan', 'python -m gradlib.scan')
    """
    name = os.path.basename(script)
    return "gradlib-scan" if name.startswith("gradlib-scan") else _cli.PROG   # gradlib-scan.exe on Windows


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 (what C++ writes to) on the null device for the duration; Python's ``sys.stderr`` too."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


if __name__ == "__main__":
    sys.exit(main())
