"""Command line: ``python -m gradlib.lint FILE...`` (``-`` reads standard input).

Prints ``path:line:col: GTnnn message`` per finding; exits 0 when every file is clean, 1 when
something was found, 2 when a file could not be read or parsed (that error wins over findings).
"""

from __future__ import annotations

import argparse
import sys

from . import RULES, LintError, lint

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradlib.lint",
                                     description="Find GradientTape mistakes in Python files without running them.")
    parser.add_argument("files", nargs="*", metavar="FILE", help="Python files to check; - reads standard input")
    parser.add_argument("--rules", action="store_true", help="list the rules and exit")
    args = parser.parse_args(argv)
    if args.rules:
        for rule in RULES:
            print(f"{rule.code}  {rule.title}. Points at: {rule.points_at}. Fix: {rule.fix}.")
        return 0
    if not args.files:
        parser.error("give at least one FILE (or - for standard input)")
    status = 0
    for path in args.files:
        status = max(status, _check(path))
    return status


def _check(path: str) -> int:
    try:
        data = sys.stdin.buffer.read() if path == "-" else _read(path)
        findings = lint(data)
    except LintError as err:
        print(f"{path}:{err.line or 1}:{err.col or 0}: error {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"{path}: error cannot read the file: {err.strerror or err}", file=sys.stderr)
        return 2
    for finding in findings:
        print(f"{path}:{finding.line}:{finding.col}: {finding.rule} {finding.message}")
    return 1 if findings else 0


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        data = handle.read(10_000_001)
    if len(data) > 10_000_000:
        raise LintError("gradlib.lint: the file is larger than 10 MB; this is not a source file to lint.")
    return data


if __name__ == "__main__":
    sys.exit(main())
