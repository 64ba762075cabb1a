"""How numbers are written: in gradlib's messages and labels, and in the app's and the benchmarks' timings.

A count is a whole number with thousands separators, a computed value has six significant digits (fewer for
an estimate), and a timing ratio is three significant digits and an ``x``; measured in several rounds, the
median with the lowest and highest round (the spread, never the best).

>>> format_number(1234567), format_number(0.1 + 0.2), format_number(3.2e9, 2), format_number(float("-inf"))
('1,234,567', '0.3', '3.2e+09', '-inf')
>>> format_ratio(2.4), format_ratio([1.6, 2.3, 1.9]), format_ratio(1053.48)
('2.4x', '1.9x [1.6, 2.3]', '1,053x')
"""

from __future__ import annotations

import math
import statistics
from numbers import Integral, Real
from typing import Callable, Sequence

__all__ = ["format_apart", "format_number", "format_ratio"]


def format_number(value: Real, digits: int = 6) -> str:
    """A number as a message or a label writes it.

    An integer (a count, a size) is written whole, with thousands separators; any other number with
    ``digits`` significant digits (the shortest form: ``2.0`` is ``2``); ``inf``, ``-inf`` and ``nan`` by name.

    Args:
        value: a Python or NumPy number.
        digits: significant digits of a number that is not an integer (2 for an estimate, 3 for an error).

    Returns:
        The text, like ``12,345``, ``0.333333`` or ``1.2e+10``.

    Example:
        >>> format_number(12345), format_number(12345.0), format_number(1 / 3), format_number(2.5e-9, 3)
        ('12,345', '12345', '0.333333', '2.5e-09')
    """
    if isinstance(value, Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    return f"{float(value):.{digits}g}"


def format_apart(need: float, most: float, write: Callable[[float, int], str] | None = None) -> tuple[str, str]:
    """An estimate and the limit it passes, written with 2 significant digits or as many more as tell them apart:
    "about 1e+09 ... at most 1e+09 are allowed" reads as if the estimate fitted.

    ``write(value, digits)`` writes one number (default ``format_number``).

    >>> format_apart(1_000_003_600.0, 1e9), format_apart(2e9, 1e9)
    (('1.000004e+09', '1e+09'), ('2e+09', '1e+09'))
    """
    write = write or format_number
    for digits in range(2, 18):
        texts = write(need, digits), write(most, digits)
        if texts[0] != texts[1]:
            break
    return texts


def format_ratio(ratio: Real | Sequence[Real]) -> str:
    """A timing ratio, like ``2.4x``; of several rounds, their median and the lowest and highest: ``1.9x [1.6, 2.3]``.

    Three significant digits, and whole numbers with thousands separators from 100 on (``1,053x``): on a
    shared machine the digits beyond are noise. ``n/a`` when nothing was measured (NaN, or no rounds).

    Args:
        ratio: one ratio (time over time), or one per round of a measurement.

    Returns:
        The text.

    Example:
        >>> format_ratio(0.0421), format_ratio(12.34), format_ratio([20.0, 12.0, 10.0]), format_ratio([7.0])
        ('0.0421x', '12.3x', '12x [10, 20]', '7x')
        >>> format_ratio(float("nan")), format_ratio([])
        ('n/a', 'n/a')
    """
    if isinstance(ratio, Real):
        return "n/a" if math.isnan(ratio) else f"{_digits(ratio)}x"
    rounds = [float(r) for r in ratio]
    if not rounds:
        return "n/a"
    middle = format_ratio(statistics.median(rounds))
    return middle if len(rounds) == 1 else f"{middle} [{_digits(min(rounds))}, {_digits(max(rounds))}]"


def _digits(value: float) -> str:
    return "n/a" if math.isnan(value) else (f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}")
