"""An mkdocs hook: the docstrings' doctests (``>>>`` lines and their output) shown as Python code blocks.

gradlib's docstrings carry runnable examples as bare doctests (``python -m pytest`` runs them); Markdown would
read them as paragraphs, and their output (``[(2,), ()]``) as reference links. This fences each one first.
"""

from __future__ import annotations

import re

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

__all__ = ["DoctestFences", "on_config"]

_PROMPT = re.compile(r"^(\s*)>>> ")


class _Fence(Preprocessor):
    """Wrap each run of lines that starts with ``>>>`` (up to a blank line) in a ```pycon fence."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fenced = None   # the indent of the open fence
        in_code = False   # inside a code block the text fenced itself
        for line in lines:
            if fenced is None and line.lstrip().startswith("```"):
                in_code = not in_code
                out.append(line)
            elif fenced is None and not in_code and _PROMPT.match(line):
                fenced = _PROMPT.match(line).group(1)
                out += [f"{fenced}```pycon", line]
            elif fenced is not None and not line.strip():
                out += [f"{fenced}```", line]
                fenced = None
            else:
                out.append(line)
        return out + ([f"{fenced}```"] if fenced is not None else [])


class DoctestFences(Extension):
    """The Markdown extension that registers the fence (before the fenced-code preprocessor)."""

    def extendMarkdown(self, md):  # noqa: N802 (Markdown's name)
        md.preprocessors.register(_Fence(md), "doctest_fences", 40)


@event_priority(100)   # before mkdocstrings reads the Markdown extensions
def on_config(config):
    """Add the extension to the site's Markdown, which mkdocstrings also renders docstrings with."""
    config.markdown_extensions.append(DoctestFences())
    return config
