"""Independent checks of a Jacobian: central finite differences in float64, and agreement between methods."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Sequence

import math

import numpy as np

from ..._foundations._format import format_number
from .._result import GradResult

__all__ = ["KINK_TITLE", "MAX_FD_COLUMNS", "UNCHECKED", "agreement", "Agreement", "differing_cells",
           "finite_differences", "FiniteDifferenceCheck"]

#: the title of the diagnosis that explains a bad cell at a kink (``_findings``), named by the check's summary
KINK_TITLE = "Finite differences straddle a kink"
#: finite differences evaluate the function 2n times; beyond this many watched elements the check is skipped
MAX_FD_COLUMNS = 256
_TOLERANCES = {"float32": (2e-3, 2e-3), "float64": (1e-5, 1e-6)}   # (rtol, atol relative to the scale of J)


#: why a cell of the finite-difference check could not be checked (0: it was checked)
UNCHECKED = {
    1: "the function is not defined (NaN) just below {x}",
    2: "the function is not defined (NaN) just above {x}",
    3: "the function is not defined (NaN) on either side of {x}",
    4: "the function is infinite just beside {x}",
    5: "{x} is an integer input: TensorFlow gives it no gradient (0), while the function's derivative is "
       "what finite differences measure, so the two are not comparable",
}


@dataclass(frozen=True, eq=False)
class FiniteDifferenceCheck:
    """Central differences against a Jacobian, cell by cell.

    ``reason[i, j]`` is 0 where the cell was checked, else a key of ``UNCHECKED`` saying why it could not be:
    the function is undefined or infinite on one side of the point, or the column belongs to an integer input
    (TensorFlow gives it no gradient, so there is nothing like to compare with). ``passed`` needs every cell
    checked and within tolerance.
    """

    numeric: np.ndarray          # (m, n) central-difference Jacobian, computed in float64
    error: np.ndarray            # (m, n) |analytic - numeric|
    tolerance: np.ndarray        # (m, n) what each cell may differ by
    step: float
    skipped: str = ""            # why the check did not run ("" when it ran)
    reason: np.ndarray | None = None   # (m, n) int8: 0 checked, else a key of UNCHECKED
    analytic: np.ndarray | None = None   # (m, n) the Jacobian that was checked
    steps: np.ndarray | None = None      # (n,) the step taken in each column: step * max(1, |x_j|)
    #: (2, m, n) the one-sided slopes below and above the point, for the bad cells' columns (NaN elsewhere);
    #: None when they were not measured (no bad cell, or no evaluations left for them)
    slopes: np.ndarray | None = None
    kinks: np.ndarray | None = None      # (m, n) bad cells at a kink: a different, steady slope on each side

    @property
    def _checked(self) -> np.ndarray:
        return np.ones(self.numeric.shape, bool) if self.reason is None else self.reason == 0

    @property
    def bad_cells(self) -> tuple[tuple[int, int], ...]:
        """Checked cells whose analytic value differs from central differences beyond the tolerance."""
        bad = ~(self.error <= self.tolerance) & np.isfinite(self.numeric) & self._checked
        return tuple((int(r), int(c)) for r, c in np.argwhere(bad))

    @property
    def unchecked_cells(self) -> tuple[tuple[int, int], ...]:
        """Cells that could not be checked (see ``reason``); empty when the check was skipped as a whole."""
        if self.skipped or self.reason is None:
            return ()
        return tuple((int(r), int(c)) for r, c in np.argwhere(self.reason != 0))

    @property
    def passed(self) -> bool:
        """True only when every cell was checked and agrees."""
        return not self.skipped and not self.bad_cells and not self.unchecked_cells

    @property
    def max_error(self) -> float:
        """The largest error over the checked cells."""
        finite = self.error[np.isfinite(self.error) & self._checked]
        return float(finite.max()) if finite.size else 0.0

    @property
    def max_tolerance(self) -> float:
        """The largest tolerance over the checked cells (0 when none was checked)."""
        finite = self.tolerance[np.isfinite(self.tolerance) & self._checked]
        return float(finite.max()) if finite.size else 0.0

    def unchecked(self, row_labels: Sequence[str], col_labels: Sequence[str], limit: int = 4) -> list[str]:
        """One sentence per reason: which cells (the first ``limit``) could not be checked, and why.

        >>> check = finite_differences(lambda v: np.sqrt(v), np.array([0.0]), np.array([[np.inf]]), "float64")
        >>> check.passed, check.unchecked(["y[0]"], ["x"])
        (False, ['(y[0], x) could not be checked: the function is not defined (NaN) just below x'])
        """
        sentences = []
        for code, text in UNCHECKED.items():
            cells = [] if self.reason is None else np.argwhere(self.reason == code)
            if not len(cells):
                continue
            shown = ", ".join(f"({row_labels[r]}, {col_labels[c]})" for r, c in cells[:limit])
            more = f" and {len(cells) - limit} more" if len(cells) > limit else ""
            columns = sorted({int(c) for _, c in cells})
            where = ", ".join(col_labels[c] for c in columns[:limit]) + (", ..." if len(columns) > limit else "")
            if code == 5:
                values = ", ".join(format_number(self.numeric[r, c]) for r, c in cells[:limit])
                text += f" (finite differences give {values}{', ...' if len(cells) > limit else ''})"
            sentences.append(f"{shown}{more} could not be checked: " + text.format(x=where))
        return sentences

    def differences(self, row_labels: Sequence[str], col_labels: Sequence[str], limit: int = 4,
                    cells: Sequence[tuple[int, int]] | None = None) -> str:
        """The first ``limit`` of ``cells`` (the bad cells by default) as ``(y[0], x) gives 1 vs 2 by finite
        differences``."""
        cells = self.bad_cells if cells is None else tuple(cells)
        shown = []
        for r, c in cells[:limit]:
            mine = format_number(self.analytic[r, c]) if self.analytic is not None else "?"
            shown.append(f"({row_labels[r]}, {col_labels[c]}) gives {mine} vs {format_number(self.numeric[r, c])}")
        more = f" and {len(cells) - limit} more" if len(cells) > limit else ""
        return ", ".join(shown) + more + " by finite differences"

    def summary(self, row_labels: Sequence[str], col_labels: Sequence[str]) -> str:
        """The check in one paragraph: how many cells were checked, how many agree, which were not checked."""
        if self.skipped:
            return f"Finite-difference check skipped: {self.skipped}."
        total, unchecked, bad = self.numeric.size, len(self.unchecked_cells), self.bad_cells
        checked = total - unchecked
        if not checked:
            head = "No cell could be checked against finite differences."
        elif bad:
            head = (f"{len(bad)} of {checked} checked cell(s) differ from central finite differences, e.g. "
                    f"{self.differences(row_labels, col_labels)} (tolerance at most "
                    f"{format_number(self.max_tolerance, 3)}).")
            kinked = 0 if self.kinks is None else int(np.count_nonzero(self.kinks))
            if kinked:
                lead = (("It is" if kinked == 1 else f"All {kinked} are") if kinked == len(bad) else
                        f"{kinked} of them {'is' if kinked == 1 else 'are'}")
                head += f" {lead} at a kink, where the function has no derivative (the diagnosis \"{KINK_TITLE}\")."
        else:
            every = "every cell" if not unchecked else f"all {checked} checked cell(s)"
            head = (f"Central differences in float64 agree with {every} (largest error "
                    f"{format_number(self.max_error, 3)}, step {format_number(self.step)}, tolerance at most "
                    f"{format_number(self.max_tolerance, 3)}).")
        return " ".join([head] + [s + "." for s in self.unchecked(row_labels, col_labels)])


@dataclass(frozen=True)
class Agreement:
    """How far one method's result is from the reference (rows, or column sums for ``summed``), cell by cell.

    Every cell counts, the non-finite ones included: NaN agrees only with NaN, inf only with inf of the same
    sign. ``max_abs_diff`` is the largest difference between cells finite on both sides; ``differing`` counts
    the cells that disagree (non-finite ones included), ``nonfinite`` those of them that are NaN or infinite on one
    side at least (no difference measures them: NaN against inf differs by no number), and ``example`` names the
    first.
    """

    method: str
    max_abs_diff: float
    agrees: bool
    against: str      # "rows of <reference>" or "column sums of <reference>"
    differing: int = 0
    example: str = ""     # "(y[0], x1): nan vs 0"
    nonfinite: int = 0


def finite_differences(f, x: np.ndarray, analytic: np.ndarray, dtype: str, *, step: float = 1e-6,
                       max_flops: float = float("inf"), integer_columns: np.ndarray | None = None
                       ) -> FiniteDifferenceCheck:
    """Check ``analytic`` (m x n) against central differences of ``f`` (flat float64 x -> flat float64 y).

    Cells where ``f`` is undefined or infinite on a side of the point, and the columns in
    ``integer_columns`` (a boolean mask of length n), are not checked; ``reason`` says why. Where a cell
    disagrees, the one-sided slopes below and above the point are measured at the step and at a tenth of it
    (one more evaluation at the point and 4 per such column, when ``max_flops`` leaves room): a slope that
    differs between the sides but not with the step is a kink, where the function has no derivative (``kinks``).

    >>> check = finite_differences(lambda v: v * v, np.array([1.0, 2.0]), np.array([[2.0, 0], [0, 4.0]]), "float64")
    >>> check.passed
    True
    >>> relu = finite_differences(lambda v: np.maximum(v, 0), np.array([0.0]), np.array([[0.0]]), "float64")
    >>> relu.numeric.tolist(), relu.slopes[:, 0, 0].tolist(), relu.kinks.tolist()
    ([[0.5]], [0.0, 1.0], [[True]])
    """
    m, n = analytic.shape
    if n > MAX_FD_COLUMNS or 2 * n > max_flops:
        empty = np.full((m, n), np.nan)
        why = (f"{n} watched elements (the check runs up to {MAX_FD_COLUMNS})" if n > MAX_FD_COLUMNS
               else f"{2 * n} evaluations of this function would exceed the work allowed for one request: at most "
                    f"{format_number(math.floor(max_flops))} fit")
        return FiniteDifferenceCheck(empty, empty, empty, step, skipped=why)
    numeric = np.empty((m, n))
    reason = np.zeros((m, n), np.int8)
    with np.errstate(all="ignore"):
        _central_differences(f, x, numeric, reason, step)
    if integer_columns is not None:
        reason[:, np.asarray(integer_columns, bool)] = 5
    rtol, atol = _TOLERANCES.get(dtype, _TOLERANCES["float32"])
    scale = float(np.abs(numeric[np.isfinite(numeric) & (reason == 0)]).max(initial=1.0))
    tolerance = atol * max(scale, 1.0) + rtol * np.abs(numeric)
    with np.errstate(invalid="ignore"):
        error = np.abs(analytic - numeric)
    steps = step * np.maximum(1.0, np.abs(x.astype(np.float64)))
    check = FiniteDifferenceCheck(numeric, error, tolerance, step, reason=reason, analytic=analytic, steps=steps)
    columns = sorted({c for _, c in check.bad_cells})
    if not columns or 2 * n + 1 + 4 * len(columns) > max_flops:
        return check
    with np.errstate(all="ignore"):
        slopes, kinks = _one_sided(f, x, steps, columns, tolerance)
    kinks &= ~(error <= tolerance) & np.isfinite(numeric) & (reason == 0)
    return dataclasses.replace(check, slopes=slopes, kinks=kinks)


def _one_sided(f, x: np.ndarray, steps: np.ndarray, columns: Sequence[int], tolerance: np.ndarray):
    """The slopes below and above ``x`` in ``columns``, and where they make a kink (see ``finite_differences``)."""
    f0 = f(x)
    slopes = np.full((2,) + tolerance.shape, np.nan)
    kinks = np.zeros(tolerance.shape, bool)
    for j in columns:
        sides = []
        for h in (steps[j], steps[j] / 10):
            up, down = x.copy(), x.copy()
            up[j] += h
            down[j] -= h
            sides.append(((f0 - f(down)) / h, (f(up) - f0) / h))
        (below, above), (below_fine, above_fine) = sides
        jump = np.abs(above_fine - below_fine)
        drift = np.maximum(np.abs(below - below_fine), np.abs(above - above_fine))
        kinks[:, j] = (jump > tolerance[:, j]) & (100 * drift < jump)   # NaN anywhere: False
        slopes[:, :, j] = below_fine, above_fine
    return slopes, kinks


def _central_differences(f, x: np.ndarray, out: np.ndarray, reason: np.ndarray, step: float) -> None:
    for j in range(out.shape[1]):
        h = step * max(1.0, abs(float(x[j])))
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        above, below = f(up), f(down)
        out[:, j] = (above - below) / (2 * h)
        nan_below, nan_above = np.isnan(below), np.isnan(above)
        reason[:, j] = np.select([nan_below & nan_above, nan_below, nan_above, np.isinf(above) | np.isinf(below)],
                                 [3, 1, 2, 4], 0)


def agreement(result: GradResult, reference: GradResult, reference_name: str) -> Agreement:
    """Compare ``result`` with ``reference``, every cell: rows for per-element methods, column sums for ``summed``.

    >>> import numpy as np
    >>> from .._result import GradResult
    >>> def r(j): return GradResult(np.zeros(1), np.array([j]), ("y[0]",), ("a", "b"), "m", "m", (("a", ()), ("b", ())))
    >>> a = agreement(r([np.inf, np.nan]), r([np.inf, 0.0]), "auto")
    >>> a.example, a.max_abs_diff, a.differing, a.nonfinite
    ('(y[0], b): nan vs 0', 0.0, 1, 1)
    """
    if result.per_element:
        target, mine, against = reference.jacobian, result.jacobian, f"rows of {reference_name}"
        rows = reference.row_labels
    else:
        with np.errstate(invalid="ignore"):
            target = reference.jacobian.sum(axis=0, keepdims=True)
        mine, against, rows = result.jacobian, f"column sums of {reference_name}", ("sum(y)",)
    if target.shape != mine.shape:
        return Agreement(result.requested, float("inf"), False, against, max(target.size, mine.size),
                         f"shape {mine.shape} vs {target.shape}")
    differing = np.argwhere(differing_cells(mine, target, result.dtype, reference.dtype))
    finite = np.isfinite(target) & np.isfinite(mine)
    with np.errstate(invalid="ignore"):
        diff = np.abs(target - mine)
    max_diff = float(diff[finite].max()) if finite.any() else 0.0
    example = ""
    if len(differing):
        r, c = differing[0]
        example = (f"({rows[r]}, {reference.col_labels[c]}): {format_number(mine[r, c])} vs "
                   f"{format_number(target[r, c])}")
    nonfinite = int(np.count_nonzero(~finite[tuple(differing.T)])) if len(differing) else 0
    return Agreement(result.requested, max_diff, not len(differing), against, len(differing), example, nonfinite)


def differing_cells(mine: np.ndarray, target: np.ndarray, *dtypes: str) -> np.ndarray:
    """A boolean mask of the cells where ``mine`` differs from ``target`` (same shapes), non-finite cells included.

    Finite cells differ beyond the float32 tolerance if any of ``dtypes`` is float32, else float64's; NaN
    matches only NaN, and inf only inf of the same sign.

    >>> differing_cells(np.array([1.0, np.nan, np.inf, np.nan]), np.array([1.0, np.nan, np.inf, 0.0]), "float64")
    array([False, False, False,  True])
    """
    rtol, atol = _TOLERANCES["float32" if "float32" in dtypes else "float64"]
    finite = np.isfinite(target) & np.isfinite(mine)
    scale = max(1.0, float(np.abs(target[finite]).max(initial=0.0)))
    with np.errstate(invalid="ignore"):
        close = np.where(finite, np.abs(target - mine) <= atol * scale + rtol * np.abs(target), mine == target)
    return ~(close | (np.isnan(target) & np.isnan(mine)))

