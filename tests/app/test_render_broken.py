"""The Bug and Playground pages' "naive and summed beside the correct result" rows, labelled by method."""

from __future__ import annotations

import numpy as np

import gradlib
from dashboard import render


def test_the_broken_rows_are_labelled_by_their_method_and_followed_by_the_correct_rows():
    comparison = gradlib.compare("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5},
                                 methods=["summed", "naive", "auto"])
    rows, labels, broken = render.broken_beside_correct(comparison)
    assert labels == ["naive: y[0]", "naive: y[1]", "summed: sum(y)", "correct: y[0]", "correct: y[1]"]
    assert broken == labels[:3]
    np.testing.assert_allclose(rows, [[0, 0, 0], [0, 0, 0], [140, 60, 48], [20, 15, 12], [120, 45, 36]])


def test_without_a_broken_method_there_is_nothing_to_show():
    comparison = gradlib.compare("x*x", {"x": [1.0, 2.0]}, methods=["auto"])
    assert render.broken_beside_correct(comparison) == ([], [], [])
