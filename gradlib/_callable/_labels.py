"""Row and column labels of a derivative: each element of a user's inputs and outputs by its name and index.

Every API labels the same way: ``x[1]``, ``W[1,2]``, a Keras model's output by its name (``price[0]``), and an output
never by an input's name (``output_name``).
"""

from __future__ import annotations

import functools
import math
from typing import Iterable

import numpy as np

__all__ = ["OUTPUT_NAMES", "index_labels", "output_name"]


def index_labels(name: str, shape: tuple[int, ...]) -> tuple[str, ...]:
    """Labels of the elements of a tensor in C order: ``x`` for a scalar, ``x[1]``, ``W[1,2]``.

    >>> index_labels("W", (2, 2))
    ('W[0,0]', 'W[0,1]', 'W[1,0]', 'W[1,1]')
    """
    if not shape:
        return (name,)
    if math.prod(shape) <= _CACHED_LABELS:
        return _small_labels(name, shape)
    return _labels(name, shape)


#: the names the output's labels take, the first that no input has: ``y`` unless an input is named ``y``
OUTPUT_NAMES = ("y", "out", "output", "f")


def output_name(inputs: Iterable[str]) -> str:
    """The name of the output in its labels (rows ``y[0]``, ``sum(y)``): ``y``, or, when an input is named so, the
    next of ``OUTPUT_NAMES`` that no input has (then ``out2``, ``out3``, ...): a row's label is never a column's.

    >>> output_name(["x", "W"]), output_name(["y"]), output_name(["y", "out", "output", "f", "out2"])
    ('y', 'out', 'out3')
    """
    taken = set(inputs)
    free = (n for n in (*OUTPUT_NAMES, *(f"out{k}" for k in range(2, len(taken) + 3))) if n not in taken)
    return next(free)


#: label sets up to this many elements are cached (a few hundred KB in all); larger ones are rebuilt
_CACHED_LABELS = 4096


def _labels(name: str, shape: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"{name}[{','.join(map(str, idx))}]" for idx in np.ndindex(*shape))


_small_labels = functools.lru_cache(maxsize=256)(_labels)
