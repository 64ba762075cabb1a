"""The exceptions gradlib raises.

    ValueError
     └── GradlibError              anything gradlib refuses, with a message that says what to do
          ├── ExpressionError      bad function text, inputs, options or limits (has .column)
          └── BatchMixingError     per-sample gradients asked of a function that mixes samples
"""

from __future__ import annotations

__all__ = ["BatchMixingError", "ExpressionError", "GradlibError"]


class GradlibError(ValueError):
    """Base class of every error gradlib raises on purpose."""


class ExpressionError(GradlibError):
    """The function text, an input, an option or a limit is not acceptable.

    ``column`` is the 1-based column in ``text`` where the problem starts, or
    ``None`` when the problem is not in the text (an input, an option).
    """

    def __init__(self, message: str, *, text: str | None = None, column: int | None = None):
        self.text = text
        self.column = column
        super().__init__(_with_pointer(message, text, column))


class BatchMixingError(GradlibError):
    """The samples of a batch are not independent, so per-sample gradients do not exist."""


def _with_pointer(message: str, text: str | None, column: int | None) -> str:
    """Append the offending text with a caret under ``column`` (short texts only)."""
    if text is None or column is None or len(text) > 120 or "\n" in text:
        return message
    return f"{message}\n    {text}\n    {' ' * (column - 1)}^"
