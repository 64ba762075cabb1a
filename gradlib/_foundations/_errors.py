"""The exceptions gradlib raises, and the gist of those TensorFlow raises (``error_gist``).

    ValueError
     └── GradlibError              anything gradlib refuses, with a message that says what to do
          ├── ExpressionError      bad function text, options or limits (has .column)
          │    └── InputError      bad input data: a value's numbers, shape or size, a data file or an upload
          └── BatchMixingError     per-sample gradients asked of a function that mixes samples

    UserWarning
     └── NotDifferentiableWarning   an API that returns NumPy ran under a recording tape (gradlib._foundations._runtime)

``InputError`` is a kind of ``ExpressionError`` so that code written when bad inputs raised
``ExpressionError`` still catches them; catch ``InputError`` to tell bad data from a bad function.

>>> try:
...     raise InputError("input 'x' is empty; give it at least one number")
... except ExpressionError as exc:
...     type(exc).__name__, isinstance(exc, GradlibError)
('InputError', True)
"""

from __future__ import annotations

import re

__all__ = ["BatchMixingError", "ExpressionError", "GradlibError", "InputError", "NotDifferentiableWarning",
           "error_gist", "error_sentence", "masked_message"]


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


class NotDifferentiableWarning(UserWarning):
    """A gradlib API that returns NumPy ran while a ``tf.GradientTape`` was recording: its answer is not on the
    tape, so the gradients of anything computed from it (with respect to the model's weights) are ``None``."""


def _with_pointer(message: str, text: str | None, column: int | None) -> str:
    """Append the offending text with a caret under ``column`` (short texts only)."""
    if text is None or column is None or len(text) > 120 or "\n" in text:
        return message
    return f"{message}\n    {text}\n    {' ' * (column - 1)}^"


def masked_message(masked: int, size: int, api: str, where: str, fill: str = "") -> str:
    """Why a NumPy masked array with ``masked`` of ``size`` values masked is refused (every API, the typed function's
    inputs too): NumPy's and TensorFlow's conversions read the values under the mask, so ``x * x`` of ``[1, --]``
    (2 under the mask) answered ``[1, 4]`` and the gradient 4 for the masked value."""
    return (f"{api} takes {where} as a plain array, and {where} is a NumPy masked array with {masked:,} of {size:,} "
            f"values masked: it would be computed with the values under the mask, as if none were. Give "
            f"{fill or where + '.filled(value)'} with the value you mean, or leave the masked elements out")


def error_gist(exc: Exception) -> str:
    """The informative line of an error, without TensorFlow's internals (node names, devices, allocators).

    Keras puts the line after a generic first one, in ANSI bold; TensorFlow wraps it in
    ``{{function_node __wrapped__...}}``, ``[Op:...]`` and, for graphs, a traceback of the user's code.

    >>> error_gist(ValueError("{{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
    ...                       "Incompatible shapes: [2] vs. [3] [Op:AddV2] name: "))
    'Incompatible shapes: [2] vs. [3]'
    """
    lines = [_plain(line) for line in str(exc).splitlines()]
    lines = [line for line in lines if line and not line.startswith(_NOISE)]
    return (lines[0] if lines else type(exc).__name__)[:300]


def error_sentence(exc: Exception) -> str:
    """``error_gist`` ending in one period, for a message that goes on after it (a gist that ended in its own
    period read "[2,3].. The model must run on ...").

    >>> error_sentence(ValueError("Dimensions must be equal, but are 3 and 2.")), error_sentence(ValueError("bad"))
    ('Dimensions must be equal, but are 3 and 2.', 'bad.')
    """
    return error_gist(exc).rstrip(". ") + "."


#: lines of an error message that say nothing to a user (Keras' preamble, a graph's traceback)
_NOISE = ("Exception encountered", "Graph execution error", "Detected at node", "File ", "[[", "Traceback")
_INTERNALS = [
    (r"\x1b\[[0-9;]*m", ""),                            # ANSI colours
    (r"\{\{function_node [^}]*\}\}", ""),                # {{function_node __wrapped__AddV2_device_/job:...}}
    (r" for '\{\{node [^']*'", ""),                      # for '{{node add}} = AddV2[T=DT_FLOAT](a, b)'
    (r"\{\{node [^}]*\}\}", ""),
    (r"\[Op:[^\]]*\]( name: \S*)?", ""),                 # [Op:AddV2] name:
    (r" on /job:\S+", ""),                                # on /job:localhost/replica:0/task:0/device:CPU:0
    (r" by allocator \S+", ""),
    (r"OOM when allocating tensor with shape\[([^\]]*)\] and type (\w+)",
     r"out of memory allocating a tensor of shape [\1] and type \2"),
]


def _plain(line: str) -> str:
    for pattern, replacement in _INTERNALS:
        line = re.sub(pattern, replacement, line)
    return " ".join(line.split()).removesuffix(" name:").strip()
