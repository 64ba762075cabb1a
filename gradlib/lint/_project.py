"""A project: the other modules of the code being linted, read (never run) when one of them imports another.

``gradlib-lint DIR`` (or several files) lints each file with its project in sight: ``from .networks import Actor``
or ``from pkg.nets import Critic`` binds the class or function the other module defines, so a Keras model class,
its base classes and its methods are followed across files. Only a module's definitions are read (imports,
functions, classes and assignments at its top level); its other statements are a script's, never followed.

A module read this way is parsed with its line numbers moved past ``OFFSET`` (the k-th module read starts at
``k * OFFSET``): the interpreter tells the linted file's lines from another module's by their size, reports
findings only on its own lines, and a message naming another module's line is rewritten to name its file
(``line 12 of nets.py``). What cannot be resolved (a module outside the project, a file too large or that does
not parse) stays what it was before: code the linter cannot see.
"""

from __future__ import annotations

import ast
import os
import re

from .._foundations._limits import LIMITS, Limits
from ._source import LintError, parse_source

__all__ = ["MAX_MODULES", "OFFSET", "Project"]

OFFSET = 1_000_000      # line numbers of the k-th module read start at k * OFFSET (a linted file has at most 5,000)
MAX_MODULES = 200       # modules one project parses at most (each at most Limits.max_source_chars characters)
_FOREIGN_LINE = re.compile(r"\bline (\d{7,})\b( \(see the GT\d+ finding there\))?")


class Project:
    """The ``.py`` files under ``root`` (or the ``texts`` given, by path relative to ``root``), read on demand.

    ``resolve`` finds the file a module name means from a given file; ``tree`` parses it once, its lines moved past
    ``OFFSET``. Paths never leave ``root``.
    """

    def __init__(self, root: str = ".", texts: dict[str, str] | None = None, limits: Limits = LIMITS):
        self.root = os.path.abspath(root)
        self.texts = None if texts is None else {_norm(p): t for p, t in texts.items()}
        self.limits = limits
        self._trees: dict[str, ast.Module | None] = {}
        self._paths: list[str] = []                 # the k-th module parsed is at self._paths[k - 1]

    def relative(self, path: str) -> str:
        """``path`` (absolute, or relative to the working directory) as a path relative to the root."""
        if self.texts is not None and _norm(path) in self.texts:
            return _norm(path)
        return _norm(os.path.relpath(os.path.abspath(path), self.root))

    def resolve(self, importer: str | None, module: str | None, level: int, extra: tuple = ()) -> str | None:
        """The project file (relative path) that ``from <level dots><module> import ...`` in ``importer`` means,
        or None: relative imports from the importer's package; absolute ones from the importer's folder, then
        each folder above it up to the root (a script beside its modules, a package at the root), then the
        ``extra`` folders (relative to the root: what the importer's ``sys.path.append("utils")`` added)."""
        parts = [p for p in (module or "").split(".") if p]
        folder = os.path.dirname(importer or "")
        if level:
            for _ in range(level - 1):
                if not folder:
                    return None
                folder = os.path.dirname(folder)
            return self._find(folder, parts)
        while True:
            found = self._find(folder, parts) if parts else None
            if found is not None or not folder:
                break
            folder = os.path.dirname(folder)
        for folder in extra:
            found = found or (self._find(_norm(folder), parts) if parts and not os.path.isabs(folder) else None)
        return found

    def _find(self, folder: str, parts: list[str]) -> str | None:
        base = "/".join([folder] + parts if folder else parts)
        if not base:
            return "__init__.py" if self._exists("__init__.py") else None
        for candidate in (base + ".py", base + "/__init__.py"):
            if self._exists(candidate):
                return candidate
        return None

    def is_package(self, path: str) -> bool:
        return path.endswith("__init__.py")

    def _exists(self, rel: str) -> bool:
        if ".." in rel.split("/"):
            return False
        if self.texts is not None:
            return rel in self.texts
        return os.path.isfile(os.path.join(self.root, rel))

    def tree(self, rel: str) -> ast.Module | None:
        """The module at ``rel`` parsed, its lines moved past ``OFFSET``; None when it cannot be read or parsed,
        is larger than the linter reads, or the project already parsed ``MAX_MODULES`` modules."""
        if rel not in self._trees:
            self._trees[rel] = None
            if len(self._paths) < MAX_MODULES:
                text = self._text(rel)
                tree = _parse(text, self.limits) if text is not None else None
                if tree is not None:
                    self._paths.append(rel)
                    ast.increment_lineno(tree, len(self._paths) * OFFSET)
                    self._trees[rel] = tree
        return self._trees[rel]

    def _text(self, rel: str) -> str | None:
        if self.texts is not None:
            return self.texts.get(rel)
        try:
            with open(os.path.join(self.root, rel), "rb") as handle:
                data = handle.read(4 * self.limits.max_source_chars + 1)
            return data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def place(self, line: int) -> tuple[str, int] | None:
        """(file, line) of a line number of a module read here; None for a line of the linted file."""
        index = line // OFFSET
        if index < 1 or index > len(self._paths):
            return None
        return self._paths[index - 1], line - index * OFFSET

    def rewrite(self, message: str) -> str:
        """``message`` with each other module's line named by its file: ``line 1000012`` -> ``line 12 of nets.py``
        (without "see the finding there": that module linted alone may not see the values that make it one)."""
        def name(match: re.Match) -> str:
            found = self.place(int(match.group(1)))
            return match.group(0) if found is None else f"line {found[1]} of {found[0]}"
        return _FOREIGN_LINE.sub(name, message)


def _norm(path: str) -> str:
    path = os.path.normpath(path).replace(os.sep, "/")
    return "" if path == "." else path


def _parse(text: str, limits: Limits) -> ast.Module | None:
    try:
        return parse_source(text, limits)[1]
    except LintError:
        return None
