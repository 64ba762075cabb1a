"""Independent checks of a Jacobian: central finite differences in float64, and agreement between methods."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._result import GradResult

#: finite differences evaluate the function 2n times; beyond this many watched elements the check is skipped
MAX_FD_COLUMNS = 256
_TOLERANCES = {"float32": (2e-3, 2e-3), "float64": (1e-5, 1e-6)}   # (rtol, atol relative to the scale of J)


@dataclass(frozen=True, eq=False)
class FiniteDifferenceCheck:
    """Central differences against a Jacobian, cell by cell."""

    numeric: np.ndarray          # (m, n) central-difference Jacobian, computed in float64
    error: np.ndarray            # (m, n) |analytic - numeric|
    tolerance: np.ndarray        # (m, n) what each cell may differ by
    step: float
    skipped: str = ""            # why the check did not run ("" when it ran)

    @property
    def bad_cells(self) -> tuple[tuple[int, int], ...]:
        bad = ~(self.error <= self.tolerance) & np.isfinite(self.numeric)
        return tuple((int(r), int(c)) for r, c in np.argwhere(bad))

    @property
    def passed(self) -> bool:
        return not self.skipped and not self.bad_cells

    @property
    def max_error(self) -> float:
        finite = self.error[np.isfinite(self.error)]
        return float(finite.max()) if finite.size else 0.0


@dataclass(frozen=True)
class Agreement:
    """How far one method's result is from the reference (rows, or column sums for ``summed``)."""

    method: str
    max_abs_diff: float
    agrees: bool
    against: str      # "rows of <reference>" or "column sums of <reference>"


def finite_differences(f, x: np.ndarray, analytic: np.ndarray, dtype: str, *, step: float = 1e-6,
                       max_flops: float = float("inf")) -> FiniteDifferenceCheck:
    """Check ``analytic`` (m x n) against central differences of ``f`` (flat float64 x -> flat float64 y).

    >>> check = finite_differences(lambda v: v * v, np.array([1.0, 2.0]), np.array([[2.0, 0], [0, 4.0]]), "float64")
    >>> check.passed
    True
    """
    m, n = analytic.shape
    if n > MAX_FD_COLUMNS or 2 * n > max_flops:
        empty = np.full((m, n), np.nan)
        why = (f"{n} watched elements (the check runs up to {MAX_FD_COLUMNS})" if n > MAX_FD_COLUMNS
               else f"{2 * n} evaluations of this function would exceed the work allowed for one request")
        return FiniteDifferenceCheck(empty, empty, empty, step, skipped=why)
    numeric = np.empty((m, n))
    with np.errstate(all="ignore"):
        _central_differences(f, x, numeric, step)
    rtol, atol = _TOLERANCES.get(dtype, _TOLERANCES["float32"])
    scale = float(np.abs(numeric[np.isfinite(numeric)]).max(initial=1.0))
    tolerance = atol * max(scale, 1.0) + rtol * np.abs(numeric)
    with np.errstate(invalid="ignore"):
        error = np.abs(analytic - numeric)
    return FiniteDifferenceCheck(numeric, error, tolerance, step)


def _central_differences(f, x: np.ndarray, out: np.ndarray, step: float) -> None:
    for j in range(out.shape[1]):
        h = step * max(1.0, abs(float(x[j])))
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        out[:, j] = (f(up) - f(down)) / (2 * h)


def agreement(result: GradResult, reference: GradResult, reference_name: str) -> Agreement:
    """Compare ``result`` with ``reference``: rows for per-element methods, column sums for ``summed``.

    Rows whose output is not finite, or that either side reports as NaN-poisoned, are left out: there the
    methods are expected to differ, and the diagnosis says so.
    """
    if result.per_element:
        keep = np.isfinite(reference.y.reshape(-1))
        keep[list(result.poisoned_rows) + list(reference.poisoned_rows)] = False
        target, mine, against = reference.jacobian[keep], result.jacobian[keep], f"rows of {reference_name}"
    else:
        target, mine = reference.jacobian.sum(axis=0, keepdims=True), result.jacobian
        against = f"column sums of {reference_name}"
    if target.shape != mine.shape:
        return Agreement(result.requested, float("inf"), False, against)
    rtol, atol = _TOLERANCES["float32" if "float32" in (result.dtype, reference.dtype) else "float64"]
    finite = np.isfinite(target) & np.isfinite(mine)
    scale = max(1.0, float(np.abs(target[finite]).max(initial=0.0)))
    same_pattern = np.array_equal(np.isfinite(target), np.isfinite(mine))
    with np.errstate(invalid="ignore"):
        diff = np.abs(target - mine)[finite]
    max_diff = float(diff.max()) if diff.size else 0.0
    agrees = same_pattern and np.allclose(mine[finite], target[finite], rtol=rtol, atol=atol * scale)
    return Agreement(result.requested, max_diff, bool(agrees), against)
