"""Command line: ``gradlib-lint FILE...`` or ``python -m gradlib.lint FILE...`` (``-`` reads standard input).

A FILE may be a directory: every ``.py`` file under it is checked (hidden folders, ``__pycache__`` and virtual
environments skipped). The files are read as one project: an import of another module of the project
(``from .networks import Actor``, ``from pkg.nets import Critic``, a script's ``import nets``) is followed into that
module's classes and functions, read but never run. The project's root is the working directory when every FILE is
inside it, else the folder that holds them all; a module is looked up from the importing file's folder up to it.

Prints ``path:line:col: GTnnn message`` per finding, and at the end one line on standard error saying how many
gradient calls could be followed (the rules speak only for those; ``--quiet`` drops it).
The exit status (the worst over all files):
0 every file checked was checked completely and is clean; 1 something was found; 3 a file could not be
checked completely (a bound of the analysis was reached, or the linter failed inside: what was found is
printed, and a line on standard error says why); 2 a file could not be read, decoded or parsed.
A file larger than the linter checks at once (``Limits.max_source_chars``/``max_source_lines``, or
``MAX_BYTES``) is skipped with a note on standard error and does not change the status. A file that cannot be
read or parsed gets one line on standard error, and the summary line counts only the files that were checked (none:
no summary). When the reader of standard output goes away (``gradlib-lint --rules | head -1``), the command stops
quietly, with no traceback: status 0 for ``--rules``, else 3 (not everything was checked or printed).

This module imports only the standard library and ``gradlib.lint`` (never TensorFlow, NumPy or pandas),
so a pre-commit hook answers in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import RULES, LintError, Project, lint
from ._rules import coverage_sentence

__all__ = ["EXIT_CODES", "MAX_BYTES", "main"]

#: the largest file (or standard input) read, in bytes
MAX_BYTES = 10_000_000
#: exit status -> meaning, in the order a worse status wins (2 beats 3 beats 1 beats 0)
EXIT_CODES = {0: "every file was checked completely and no GradientTape mistake was found (a file too large to "
                 "check is skipped with a note)",
              1: "a mistake was found (each is printed as path:line:col: GTnnn message)",
              3: "a file could not be checked completely (what was found is printed; standard error says why)",
              2: "a file could not be read, decoded or parsed"}
_RANK = {0: 0, 1: 1, 3: 2, 2: 3}


def main(argv: list[str] | None = None) -> int:
    """Run the command; a closed standard output (the reader stopped: ``| head -1``) ends it quietly."""
    try:
        status = _main(argv)
        sys.stdout.flush()              # inside the try: a closed pipe found at exit would print a traceback
        return status
    except BrokenPipeError:
        _drop_stdout()
        return 3


def _drop_stdout() -> None:
    """Point standard output at the null device: Python flushes it again at exit, and that write must go nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):           # a stand-in for standard output with no file descriptor
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (kept open until exit, as standard output is)


def _main(argv: list[str] | None) -> int:
    epilog = "exit status:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in EXIT_CODES.items())
    parser = argparse.ArgumentParser(prog=_prog(sys.argv[0] if sys.argv else ""), epilog=epilog,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Find GradientTape mistakes in Python files without running them.")
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="Python files or directories to check (one project); - reads standard input")
    parser.add_argument("--rules", action="store_true", help="list the rules and exit")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no closing summary line (how many gradient calls could be followed) on standard error")
    args = parser.parse_args(argv)
    if args.rules:
        try:
            for rule in RULES:
                print(f"{rule.code}  {rule.title}. Points at: {rule.points_at}. Fix: {rule.fix}.")
            sys.stdout.flush()
        except BrokenPipeError:         # `--rules | head -1`: the reader had what it wanted
            _drop_stdout()
        return 0
    if not args.files:
        parser.error("give at least one FILE (or - for standard input)")
    status, tally = 0, _Tally()
    files = _expand(args.files)
    project = Project(_root([f for f in files if f != "-"]))
    for path in files:
        status = max(status, _check(path, tally, project), key=_RANK.__getitem__)
    if not args.quiet and (tally.files or tally.skipped):
        print(tally.line(), file=sys.stderr)
    return status


class _Tally:
    """What all the files together found and could follow, for the closing summary line."""

    def __init__(self):
        self.files = self.skipped = self.found = self.calls = self.checked = self.assumed = 0
        self.whys: list[str] = []

    def add(self, result) -> None:
        self.files += 1
        self.found += len(result)
        self.calls += result.calls
        self.checked += result.checked
        self.assumed += result.assumed
        self.whys += [why for _, why in result.not_checked]

    def line(self) -> str:
        """``gradlib.lint: No GradientTape mistake of these kinds in the 7 of 9 gradient calls that could be
        followed (2 could not: ...). 3 files checked.``"""
        files = f"{self.files} file{'s' if self.files != 1 else ''} checked"
        skipped = f", {self.skipped} skipped (too large)" if self.skipped else ""
        return f"gradlib.lint: {coverage_sentence(self.found, self.calls, self.checked, self.whys, self.assumed)} {files}{skipped}."


def _prog(argv0: str) -> str:
    """The name the user typed: ``gradlib-lint`` for the console script, else ``python -m gradlib.lint``."""
    name = os.path.basename(argv0)
    return "gradlib-lint" if name.startswith("gradlib-lint") else "python -m gradlib.lint"


_SKIPPED_DIRS = {"__pycache__", "venv", "env", "site-packages", "node_modules", "build", "dist"}


def _expand(paths: list[str]) -> list[str]:
    """The files to check: each path given, a directory replaced by the ``.py`` files under it, sorted."""
    files = []
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            files.append(path)
            continue
        for folder, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
            files += [os.path.normpath(os.path.join(folder, n)) for n in sorted(names) if n.endswith(".py")]
    return files


def _root(files: list[str]) -> str:
    """The project's root: the working directory when it holds every file, else their common folder."""
    here = os.path.abspath(os.getcwd())
    folders = [os.path.dirname(os.path.abspath(f)) for f in files]
    if all(f == here or f.startswith(here + os.sep) for f in folders):
        return here
    return os.path.commonpath(folders) if folders else here


def _check(path: str, tally: _Tally, project: Project | None = None) -> int:
    try:
        result = lint(_read(path), project=None if path == "-" else project, path=path)
    except LintError as err:
        if err.too_large:   # gradlib.lint's advice names limits=, which the command does not take
            size, advised, _ = str(err).partition(". Split it, or pass limits=")
            print(f"{path}: skipped (not checked): {size}{'; split it to lint it' if advised else ''}", file=sys.stderr)
            tally.skipped += 1
            return 0
        print(f"{path}:{err.line or 1}:{err.col or 0}: error {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"{path}: error cannot read the file: {err.strerror or err}", file=sys.stderr)
        return 2
    tally.add(result)
    for finding in result:
        print(f"{path}:{finding.line}:{finding.col}: {finding.rule} {finding.message}")
    if not result.complete:
        print(f"{path}: incomplete gradlib.lint could not check this file completely: {result.reason}. What it found "
              "is printed above; the rest was not checked.", file=sys.stderr)
        return 3
    return 1 if result else 0


def _read(path: str) -> bytes:
    """The bytes of ``path`` (``-``: standard input), reading at most one byte past ``MAX_BYTES``."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        what = "standard input is"
    else:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        what = "the file is"
    if len(data) > MAX_BYTES:
        raise LintError(f"gradlib.lint: {what} larger than {MAX_BYTES:,} bytes; this is not a source file to lint "
                        "(split it, or lint the files one by one).", too_large=True)
    return data


if __name__ == "__main__":
    sys.exit(main())
