"""Run gradlib.lint on real code: every .py/.ipynb file that mentions GradientTape, per repository.

Usage: python scripts/lint_corpus.py [--findings] [--json FILE] [--alone] PATH...

Each PATH is a git directory (a bare repository or a ``.git`` folder, e.g. what the ``fetch`` tool brings:
the files are read from its HEAD commit, nothing is checked out) or a plain directory of checkouts (every
file under it). Notebooks: the code cells are joined in order; IPython magics and shell lines
(``%...``, ``!...`` and their continuation lines) become ``pass  # ...`` and cells starting with ``%%`` become
comments, so line numbers still count cell lines.

Per repository it prints: the commit, files linted, gradient calls (``.gradient``/``.jacobian``/
``.batch_jacobian`` calls with two arguments: ``LintResult.calls``, or counted in the syntax tree for a file the
linter refused), calls checked (from ``LintResult.checked`` when the gradlib.lint imported counts them; else "n/a"),
calls with a finding on their line, findings by rule, files not checked completely or refused (too large, not
Python 3), the reasons calls were not followed (one reason a call: they add up to the calls not checked; a refused
file's calls count under "the file was not linted"), and the time spent in ``lint`` (total and slowest file). ``--findings`` also prints every
finding with its source line, for reading by hand. gradlib is imported from PYTHONPATH when it is set (to
measure another checkout), else from this checkout. The files are read, parsed and linted, never run.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))   # PYTHONPATH first: another checkout can be measured

from gradlib.lint import LintError, lint  # noqa: E402

try:                                             # a linter that reads a whole project (issue 37); else file by file
    from gradlib.lint import Project  # noqa: E402
except ImportError:
    Project = None

__all__ = ["Repo", "all_files", "lint_repo", "main", "notebook_code", "source_files"]

_GRADIENT_METHODS = ("gradient", "jacobian", "batch_jacobian")
_MARK = "GradientTape"
_MAGIC = re.compile(r"%{1,2}[A-Za-z]|![^=]")   # %matplotlib, !pip ...; not "% (a, b)" or "!=" continuing a line


@dataclass
class Repo:
    """What linting one repository gave."""

    name: str
    commit: str
    files: int = 0
    calls: int = 0
    checked: int | None = None
    flagged_calls: int = 0
    not_checked: Counter = field(default_factory=Counter)
    by_rule: Counter = field(default_factory=Counter)
    incomplete: int = 0
    refused: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    slowest: tuple[float, str] = (0.0, "")
    assumed: int = 0
    findings: list = field(default_factory=list)      # (path, line, rule, source line, message)


def notebook_code(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The code cells of a notebook as one source, and for each of its lines (cell number, line in cell)."""
    cells = json.loads(text).get("cells", [])
    lines, where = [], []
    for number, cell in enumerate((c for c in cells if c.get("cell_type") == "code"), start=1):
        source = cell.get("source", "")
        cell_lines = ("".join(source) if isinstance(source, list) else source).splitlines()
        magic_cell = bool(cell_lines) and cell_lines[0].lstrip().startswith("%%")
        continued = False
        for k, line in enumerate(cell_lines, start=1):
            stripped = line.lstrip()
            if magic_cell:
                line = "# " + line                     # a cell magic: the whole cell is not Python
            elif continued:
                line = "# " + line                     # the rest of a continued shell line
                continued = stripped.endswith("\\")
            elif _MAGIC.match(stripped) or (stripped.endswith("?") and "#" not in stripped):
                line = line[:len(line) - len(stripped)] + "pass  # " + stripped
                continued = stripped.endswith("\\")      # a shell line continued on the next
            lines.append(line)
            where.append((number, k))
        lines.append("")
        where.append((number, len(cell_lines) + 1))
    return "\n".join(lines) + "\n", where


def gradient_calls(tree: ast.AST) -> list[int]:
    """The lines of the ``.gradient``/``.jacobian``/``.batch_jacobian`` calls with at least two arguments (what
    ``LintResult.calls`` counts; used for a file the linter refused, and for a linter that does not count)."""
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in _GRADIENT_METHODS and len(n.args) + len(n.keywords) >= 2]


def source_files(path: Path) -> tuple[str, str, list[tuple[str, str]]]:
    """(name, commit, [(file path, text)]) for every .py/.ipynb file mentioning GradientTape under ``path``."""
    name, commit, files = all_files(path)
    return name, commit, [(p, t) for p, t in files if _MARK in t]


def all_files(path: Path) -> tuple[str, str, list[tuple[str, str]]]:
    """(name, commit, [(file path, text)]) for every .py/.ipynb file under ``path`` (the project's modules)."""
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        return _git_files(path)
    files = [(str(p.relative_to(path)), p.read_text(errors="replace")) for p in sorted(path.rglob("*"))
             if p.suffix in (".py", ".ipynb") and p.is_file()]
    return path.name, "(working tree)", files


def _git_files(git_dir: Path) -> tuple[str, str, list[tuple[str, str]]]:
    def git(*args, data=None):
        return subprocess.run(["git", f"--git-dir={git_dir}", *args], input=data, capture_output=True,
                              check=True).stdout
    commit = git("rev-parse", "HEAD").decode().strip()
    listing = git("ls-tree", "-r", "-z", "HEAD").decode("utf-8", "replace").split("\0")
    wanted = []
    for row in filter(None, listing):
        meta, name = row.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and name.endswith((".py", ".ipynb")) and mode != "120000":
            wanted.append((name, sha))
    out = git("cat-file", "--batch", data="".join(f"{sha}\n" for _, sha in wanted).encode())
    files, at = [], 0
    for name, _ in wanted:
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split()
        if header[-1] == b"missing":         # listed in the snapshot but not brought (its largest files)
            at = header_end + 1
            continue
        size = int(header[2])
        blob = out[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
        files.append((name, blob.decode("utf-8", "replace")))
    parent = git_dir.parent if git_dir.name in (".git", "repo") else git_dir
    parent = parent.parent if parent.name == "repo" else parent
    return parent.name.replace("+", "/"), commit, files


def lint_repo(path: Path, alone: bool = False) -> Repo:
    name, commit, every = all_files(path)
    project = None if alone or Project is None else \
        Project("", {p: t for p, t in every if p.endswith(".py") and len(t) < 1_000_000})
    files = [(p, t) for p, t in every if _MARK in t]
    repo = Repo(name, commit)
    for file_path, text in files:
        where = None
        if file_path.endswith(".ipynb"):
            try:
                text, where = notebook_code(text)
            except (ValueError, AttributeError, TypeError):
                repo.refused["not a readable notebook"] += 1
                continue
        repo.files += 1
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            repo.refused["not Python 3 (does not parse)"] += 1
            continue
        calls = gradient_calls(tree)
        start = time.perf_counter()
        try:
            result = lint(text) if project is None else lint(text, project=project, path=file_path)
        except LintError as err:
            why = str(err).split(":")[0][:60]
            repo.refused[why] += 1
            repo.calls += len(calls)
            repo.not_checked[f"{_REFUSED}: {_why(why)}"] += len(calls)
            continue
        finally:
            spent = time.perf_counter() - start
            repo.seconds += spent
            repo.slowest = max(repo.slowest, (spent, file_path))
        checked = getattr(result, "checked", None)
        if checked is not None:           # the linter's own count of the calls, one reason for each it did not follow
            repo.calls += result.calls
            repo.checked = (repo.checked or 0) + checked
            repo.assumed += getattr(result, "assumed", 0)
            repo.not_checked.update(_why(why) for _, why in getattr(result, "not_checked", ()))
        else:
            repo.calls += len(calls)
        repo.flagged_calls += len({line for line in calls} & {f.line for f in result})
        if not result.complete:
            repo.incomplete += 1
            repo.findings.append((file_path, "incomplete", "", result.reason))
        source_lines = text.splitlines()
        for finding in result:
            repo.by_rule[finding.rule] += 1
            place = f"{file_path}:{finding.line}" if where is None else \
                f"{file_path}#cell{where[finding.line - 1][0]}:{where[finding.line - 1][1]}"
            repo.findings.append((place, finding.rule, source_lines[finding.line - 1].strip(), finding.message))
    return repo


_REFUSED = "the file was not linted"


def _why(text: str) -> str:
    """A reason a call was not followed, without its names and numbers (so that reasons can be counted)."""
    return re.sub(r"`[^`]*`|\b\d+\b", "_", text)[:80]


def _row(repo: Repo) -> str:
    rules = " ".join(f"{k}:{v}" for k, v in sorted(repo.by_rule.items())) or "-"
    checked = "n/a" if repo.checked is None else str(repo.checked)
    refused = sum(repo.refused.values())
    return (f"{repo.name:40} {repo.commit[:12]} files {repo.files:4} calls {repo.calls:4} checked {checked:>4} "
            f"with a finding {repo.flagged_calls:3} findings {sum(repo.by_rule.values()):3} [{rules}] "
            f"incomplete {repo.incomplete} refused {refused} "
            f"lint {repo.seconds:6.2f} s (slowest {repo.slowest[0]:.2f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="git directories or directories of checkouts")
    parser.add_argument("--findings", action="store_true", help="print every finding with its source line")
    parser.add_argument("--json", type=Path, help="write the counts (and findings) to this JSON file")
    parser.add_argument("--alone", action="store_true", help="lint each file alone (not with its project's modules)")
    args = parser.parse_args(argv)
    repos = []
    for path in args.paths:
        repo = lint_repo(path, args.alone)
        repos.append(repo)
        print(_row(repo), flush=True)
        if args.findings:
            for place, rule, line, message in repo.findings:
                print(f"    {place}: {rule} | {line}\n        {message[:300]}")
        for why, count in sorted(repo.refused.items()):
            print(f"    refused {count}: {why}")
        for why, count in repo.not_checked.most_common(3):
            print(f"    not followed {count}: {why}")
    total = Repo("TOTAL", "", sum(r.files for r in repos), sum(r.calls for r in repos),
                 None if all(r.checked is None for r in repos) else sum(r.checked or 0 for r in repos),
                 sum(r.flagged_calls for r in repos), sum((r.not_checked for r in repos), Counter()),
                 sum((r.by_rule for r in repos), Counter()), sum(r.incomplete for r in repos),
                 sum((r.refused for r in repos), Counter()), sum(r.seconds for r in repos),
                 max((r.slowest for r in repos), default=(0.0, "")), sum(r.assumed for r in repos))
    print(_row(total))
    if total.checked is not None:
        print(f"    followed by assuming a value from code it cannot see is a variable or a watched tensor: "
              f"{total.assumed} of the {total.checked} checked")
        print(f"    not followed: {total.calls - total.checked} calls, one reason each")
        for why, count in total.not_checked.most_common():
            print(f"    not followed {count}: {why}")
    if args.json:
        args.json.write_text(json.dumps([{**{k: v for k, v in vars(r).items() if k != "findings"},
                                          "findings": r.findings} for r in repos + [total]], indent=1, default=list))
    return 0


if __name__ == "__main__":
    sys.exit(main())
