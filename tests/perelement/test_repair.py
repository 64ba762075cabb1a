"""Pins of auto's repair merge (gradlib/_perelement/_repair.py), for the survivors `make mutate` found after the engine split."""

from __future__ import annotations

import numpy as np

from gradlib._perelement import _repair

nan = np.nan


def test_a_row_repaired_in_part_keeps_its_nan_and_is_not_called_repaired():
    # cell (0, 0) is taken from the other mode; (0, 1) is NaN in both modes, so row 0 is not repaired
    jac, repair = _repair._merge(np.array([[nan, nan], [nan, 3.0]]), np.array([[1.0, nan], [2.0, 9.0]]),
                                 (0, 1), "jacobian")
    np.testing.assert_array_equal(jac, [[1.0, nan], [2.0, 3.0]])
    assert repair.rows == (1,)
    assert repair.cells.tolist() == [[0, 0], [1, 0]]
    assert repair.mode == "reverse"  # the other method was reverse mode (tape.jacobian), not forward


def test_the_repairing_mode_is_named_forward_only_for_forward():
    assert _repair._merge(np.array([[nan]]), np.array([[1.0]]), (0,), "forward")[1].mode == "forward"
    assert _repair._merge(np.array([[nan]]), np.array([[1.0]]), (0,), "unstack")[1].mode == "reverse"


def test_rows_outside_the_poisoned_ones_are_left_as_they_are():
    jac, repair = _repair._merge(np.array([[nan], [nan]]), np.array([[1.0], [2.0]]), (1,), "forward")
    np.testing.assert_array_equal(jac, [[nan], [2.0]])
    assert repair.rows == (1,) and repair.cells.tolist() == [[1, 0]]
