"""A computed Jacobian packaged as a ``GradResult``: labels, the zero columns of integer inputs, and the
warnings that say where NaN came from (poisoned, repaired, or undefined in both modes)."""

from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np

from . import _methods
from ._compute import CompiledRun
from ._problem import Problem
from ._repair import Repair, poisoned_rows
from ._result import GradResult, index_labels, nan_cause, output_name

__all__ = ["package"]


def package(problem: Problem, method: str, requested: str, y: np.ndarray, jac: np.ndarray,
            ran: bool | CompiledRun, poisoned: tuple[int, ...], repair: Repair, seconds: float) -> GradResult:
    """The ``GradResult`` of ``method`` (asked for as ``requested``) on ``problem``; ``ran`` as ``compute`` said."""
    jac = _with_integer_columns(problem, jac)
    row = _methods.TABLE[method]
    name = output_name(n for n, _ in problem.names)
    rows = problem.row_labels(y.shape) if row.per_element else (f"sum({name})",)
    cols = _column_labels(problem.names)
    warnings = problem.warnings
    if isinstance(ran, CompiledRun) and ran.note:
        warnings += (ran.note,)
    if poisoned:
        warnings += (f"NaN in the gradient of finite output(s) {_some(rows, poisoned)}"
                     f": {nan_cause(row.mode)}. method='auto' recomputes such "
                     "cells in the other mode",)
    if repair.rows:
        warnings += (f"repaired NaN poisoning in {_some(rows, repair.rows)}"
                     f": {repair.mode} mode gives these cells finite values",)
    undefined = [r for r in poisoned_rows(y, jac) if r not in repair.rows] if repair.mode else []
    if undefined:
        warnings += (f"NaN in both reverse and forward mode in {_some(rows, undefined)}"
                     f": 0 x inf within the output's own formula, so no "
                     "mode gives a number there",)
    return GradResult(
        y=y, jacobian=jac, row_labels=rows, col_labels=cols, method=method, requested=requested,
        watched=problem.names, dtype=problem.dtype, compiled=bool(ran), per_element=row.per_element,
        broken=row.per_element and not row.correct, reason=row.reason, poisoned_rows=poisoned, repaired_rows=repair.rows,
        warnings=warnings, seconds=seconds, repaired_cells=repair.cells, other_mode=repair.mode,
        compiled_as=ran.compiled_as if isinstance(ran, CompiledRun) else ("graph" if ran else ""),
        compiled_final=ran.final if isinstance(ran, CompiledRun) else True,
        traced=isinstance(ran, CompiledRun) and ran.traced)


@functools.lru_cache(maxsize=256)
def _column_labels(names: tuple[tuple[str, tuple[int, ...]], ...]) -> tuple[str, ...]:
    """The Jacobian's column labels, one per element of each watched input: made once per inputs' names and shapes
    (a warm call of a 256-input problem spent 30 us joining the same 256 labels again)."""
    return tuple(label for name, shape in names for label in index_labels(name, shape))


def _some(labels: Sequence[str], rows: Sequence[int], shown: int = 8) -> str:
    """The labels of ``rows``, the first ``shown`` of them when there are many: a warning stays readable.

    >>> _some(["y[0]", "y[1]", "y[2]"], [0, 1, 2], shown=2)
    'y[0], y[1] and 1 more'
    """
    names = ", ".join(labels[r] for r in rows[:shown])
    return names if len(rows) <= shown else f"{names} and {len(rows) - shown:,} more"


def _with_integer_columns(problem: Problem, jac: np.ndarray) -> np.ndarray:
    """Insert the zero columns of watched integer inputs, which TensorFlow gives no gradient."""
    if all(problem.differentiable):
        return jac
    blocks, start = [], 0
    for (_, shape), ok in zip(problem.names, problem.differentiable):
        size = math.prod(shape)
        blocks.append(jac[:, start:start + size] if ok else np.zeros((jac.shape[0], size), dtype=jac.dtype))
        start += size if ok else 0
    return np.concatenate(blocks, axis=1) if blocks else jac
