"""NaN-poisoned rows, and ``auto``'s repair of them in the other mode.

A row is poisoned when its output is finite but its gradient holds NaN: ``0 x inf`` inside one mode's pass
(reverse mode multiplies a zero cotangent by an infinite local derivative, forward mode a zero tangent). The
other mode often gives the cell a finite value; a cell NaN in both modes is undefined there, not poisoned.

>>> import numpy as np
>>> poisoned_rows(np.array([1.0, 2.0, np.nan]), np.array([[1.0, np.nan], [2.0, 3.0], [np.nan, 0.0]]))
(0,)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _cost, _plan
from ._compute import compute, compute_chunked
from .._foundations._limits import Limits
from ._problem import Problem

__all__ = ["Repair", "poisoned_rows", "repair_poisoned"]


def poisoned_rows(y: np.ndarray, jac: np.ndarray) -> tuple[int, ...]:
    """Rows whose output is finite but whose gradient holds NaN: 0 x inf in this mode (an infinite entry is a
    true infinite derivative, as for sqrt at 0, and is not counted)."""
    finite_y = np.isfinite(y.reshape(-1))
    bad = np.isnan(jac).any(axis=1)
    return tuple(int(i) for i in np.flatnonzero(finite_y & bad))


@dataclass(frozen=True)
class Repair:
    """What auto's second mode fixed: whole rows, single cells, and which mode it was ("" when not run)."""

    rows: tuple[int, ...] = ()
    cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))
    mode: str = ""


def repair_poisoned(problem: Problem, profile: _cost.Profile, chosen: str, compiled: bool, jac: np.ndarray,
                    poisoned: tuple[int, ...], compilable: bool, limits: Limits):
    """``(J, still poisoned, repair, notes)``: the poisoned rows recomputed in the other mode, within ``limits``.

    Every NaN cell left after the repair is NaN in both modes: undefined there, not poisoned.
    """
    other, chunk, why_not = _plan.plan_repair(chosen, compiled, profile, len(poisoned), compilable, limits)
    if why_not:
        return jac, poisoned, Repair(), (f"NaN poisoning not repaired: the other mode, {why_not}",)
    if chunk:
        fixed = compute_chunked(problem, other, chunk, poisoned if other == "jacobian" else None)[1]
    else:
        fixed = compute(problem, other, compiled, fallback=True)[1]
    jac, repair = _merge(jac, fixed, poisoned, other)
    return jac, (), repair, ()


def _merge(jac: np.ndarray, other: np.ndarray, rows: tuple[int, ...], other_method: str) -> tuple[np.ndarray, Repair]:
    """Take the other mode's entry wherever this one is NaN and the other's is finite, in ``rows`` only.

    >>> jac, repair = _merge(np.array([[np.nan, 1.0]]), np.array([[2.0, 5.0]]), (0,), "forward")
    >>> jac.tolist(), repair.rows, repair.cells.tolist(), repair.mode
    ([[2.0, 1.0]], (0,), [[0, 0]], 'forward')
    """
    jac = jac.copy()
    take = np.zeros(jac.shape, bool)
    take[list(rows)] = np.isnan(jac[list(rows)]) & np.isfinite(other[list(rows)])
    jac[take] = other[take]
    fixed = tuple(r for r in rows if take[r].any() and not np.isnan(jac[r]).any())
    return jac, Repair(fixed, np.argwhere(take), "forward" if other_method == "forward" else "reverse")
