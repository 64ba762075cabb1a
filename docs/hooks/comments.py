"""A griffe extension: a module constant's ``#:`` comment (Sphinx's convention, used across gradlib) is its docstring.

gradlib documents its public constants with ``#:`` lines right above the assignment, or a ``#`` comment at the end
of its line (``MAX_UNITS = 256  # ...``); griffe reads only a string literal below it. mkdocstrings loads this file
(mkdocs.yml, the python handler's ``extensions``), and so does tests/project/test_docs.py.
"""

from __future__ import annotations

import griffe

__all__ = ["CommentDocstrings"]


class CommentDocstrings(griffe.Extension):
    """Give a module-level attribute without a docstring the comment that documents it."""

    def on_attribute_instance(self, *, node, attr, agent, **kwargs) -> None:
        if attr.docstring is not None or not attr.parent or not attr.parent.is_module or attr.lineno is None:
            return
        lines = getattr(agent, "code", "").splitlines()
        above = []
        number = attr.lineno - 2
        while number >= 0 and lines[number].lstrip().startswith("#:"):
            above.insert(0, lines[number].lstrip()[2:].strip())
            number -= 1
        text = " ".join(above)
        if not text and attr.lineno <= len(lines) and "  # " in lines[attr.lineno - 1]:
            text = lines[attr.lineno - 1].split("  # ", 1)[1].strip()
        if text:
            attr.docstring = griffe.Docstring(text[:1].upper() + text[1:], lineno=attr.lineno, parent=attr)
