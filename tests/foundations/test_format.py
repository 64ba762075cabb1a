"""How numbers are written in messages, labels and timings (gradlib.format_number, gradlib.format_ratio)."""

import numpy as np
import pytest

from gradlib import format_number, format_ratio


@pytest.mark.parametrize("value, digits, text", [
    (4_000_000, 6, "4,000,000"),                 # a count: whole, with separators
    (np.int64(1_000_000), 6, "1,000,000"),       # NumPy's integers are counts too
    (4_000_000.0, 6, "4e+06"),                   # a computed value: significant digits
    (np.float32(0.1), 6, "0.1"),
    (2 / 3, 6, "0.666667"),
    (2 / 3, 3, "0.667"),
    (4e9, 2, "4e+09"),                           # an estimate
    (-0.0, 6, "-0"),
    (float("nan"), 6, "nan"), (np.inf, 6, "inf"), (-np.inf, 3, "-inf"),
    (True, 6, "1"),                              # a bool is not a count
])
def test_numbers_are_written_as_counts_or_significant_digits(value, digits, text):
    assert format_number(value, digits) == text


@pytest.mark.parametrize("ratio, text", [
    (2.4, "2.4x"), (2.4567, "2.46x"), (0.5, "0.5x"), (99.96, "100x"), (100.4, "100x"), (1053.48, "1,053x"),
    (np.float64(12.0), "12x"), (float("nan"), "n/a"),
    ([1.6, 2.3, 1.9], "1.9x [1.6, 2.3]"),        # rounds in any order: the median, then the lowest and highest
    ([4.0, 1.0, 2.0, 3.0], "2.5x [1, 4]"),       # an even count: the mean of the middle two
    ([150.0, 90.0, 1200.5], "150x [90, 1,200]"),
    (np.array([3.0]), "3x"),                     # one round has no spread
    ([], "n/a"),
])
def test_ratios_are_three_digits_and_rounds_show_their_spread(ratio, text):
    assert format_ratio(ratio) == text
