"""The exceptions gradlib raises.

    ValueError
     └── GradlibError              anything gradlib refuses, with a message that says what to do
          ├── ExpressionError      bad function text, options or limits (has .column)
          │    └── InputError      bad input data: a value's numbers, shape or size, a data file or an upload
          └── BatchMixingError     per-sample gradients asked of a function that mixes samples

``InputError`` is a kind of ``ExpressionError`` so that code written when bad inputs raised
``ExpressionError`` still catches them; catch ``InputError`` to tell bad data from a bad function.

>>> try:
...     raise InputError("input 'x' is empty; give it at least one number")
... except ExpressionError as exc:
...     type(exc).__name__, isinstance(exc, GradlibError)
('InputError', True)
"""

from __future__ import annotations

__all__ = ["BatchMixingError", "ExpressionError", "GradlibError", "InputError"]


class GradlibError(ValueError):
    """Base class of every error gradlib raises on purpose."""


class ExpressionError(GradlibError):
    """The function text, an option or a limit is not acceptable (bad input data: ``InputError``, a subclass).

    ``column`` is the 1-based column in ``text`` where the problem starts, or
    ``None`` when the problem is not in the text (an input, an option).
    """

    def __init__(self, message: str, *, text: str | None = None, column: int | None = None):
        self.text = text
        self.column = column
        super().__init__(_with_pointer(message, text, column))


class InputError(ExpressionError):
    """Input data is not acceptable: a value's numbers, shape or size, or a data file's contents.

    Raised for the values given to ``evaluate``, ``compare`` and ``check_inputs``, the batches given to
    ``per_sample_gradients`` and ``per_example_gradients``, the arrays and files given to ``scan``, and the
    files uploaded to the app. The message names the value or file and where in it the problem is.
    """


class BatchMixingError(GradlibError):
    """The samples of a batch are not independent, so per-sample gradients do not exist."""


def _with_pointer(message: str, text: str | None, column: int | None) -> str:
    """Append the offending text with a caret under ``column`` (short texts only)."""
    if text is None or column is None or len(text) > 120 or "\n" in text:
        return message
    return f"{message}\n    {text}\n    {' ' * (column - 1)}^"
