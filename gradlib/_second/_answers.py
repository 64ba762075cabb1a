"""What the second-order functions return: frozen dataclasses of plain NumPy data, each with ``to_frame()``.

>>> r = HessianResult(y=np.array([1.0]), jacobian=np.zeros((1, 2)), hessian=np.array([[[2.0, 1.0], [1.0, 0.0]]]),
...                   method="loop", row_labels=("y[0]",), col_labels=("a", "b"))
>>> r.to_frame().query("value != 0").values.tolist()
[['y[0]', 'a', 'a', 2.0], ['y[0]', 'a', 'b', 1.0], ['y[0]', 'b', 'a', 1.0]]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["DivergenceResult", "HessianResult", "HvpResult", "LaplacianResult", "PerSampleHessians", "labels"]


def labels(name: str, shape: tuple[int, ...]) -> tuple[str, ...]:
    """Labels of a tensor's elements in C order: ``x`` for a scalar, ``x[1]``, ``W[1,2]``.

    >>> labels("W", (2, 2))
    ('W[0,0]', 'W[0,1]', 'W[1,0]', 'W[1,1]')
    """
    if not shape:
        return (name,)
    return tuple(f"{name}[{','.join(map(str, idx))}]" for idx in np.ndindex(*shape))


def _frame(columns: dict):
    import pandas as pd

    return pd.DataFrame(columns)


@dataclass(frozen=True, eq=False)
class HessianResult:
    """``hessian[k, i, j]`` = d^2 y_k / dx_i dx_j, over ``y``'s elements (flattened) and the watched elements ``x``
    (flattened in order, as the Jacobian's columns): shape ``(y.size, n, n)``."""

    y: np.ndarray
    jacobian: np.ndarray
    hessian: np.ndarray
    method: str
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    cost: str = ""
    #: NaN cells of a finite output, ``(k, i, j)`` rows; those ``auto`` recomputed in forward over forward mode
    poisoned_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), int))
    repaired_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), int))

    def to_frame(self):
        """One row per entry: ``output``, ``input_i``, ``input_j``, ``value``."""
        m, n = len(self.row_labels), len(self.col_labels)
        return _frame({"output": np.repeat(self.row_labels, n * n), "input_i": np.tile(np.repeat(self.col_labels, n), m),
                       "input_j": np.tile(self.col_labels, m * n), "value": self.hessian.reshape(-1)})


@dataclass(frozen=True, eq=False)
class PerSampleHessians:
    """Per-sample second derivatives: ``hessians`` ``(B, out, d, d)`` (``None`` when only the diagonal was asked
    for) and ``diagonal`` ``(B, out, d)``; ``out`` and ``d`` are a sample's output and input elements, flattened."""

    y: np.ndarray
    jacobian: np.ndarray
    hessians: np.ndarray | None
    diagonal: np.ndarray
    method: str
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    cost: str = ""
    #: NaN cells of a finite output: ``(b, k, i, j)`` rows of ``hessians`` (``(b, k, j)`` of ``diagonal`` when only
    #: it was asked for); those ``auto`` recomputed in forward over forward mode
    poisoned_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), int))
    repaired_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), int))

    def to_frame(self):
        """One row per sample, output and input element of the diagonal: ``sample``, ``output``, ``input``,
        ``value``."""
        b, m, n = self.diagonal.shape
        return _frame({"sample": np.repeat(np.arange(b), m * n), "output": np.tile(np.repeat(self.row_labels, n), b),
                       "input": np.tile(self.col_labels, b * m), "value": self.diagonal.reshape(-1)})


@dataclass(frozen=True, eq=False)
class LaplacianResult:
    """``laplacian[b, k]`` = the sum over a sample's inputs of d^2 y[b, k] / dx[b, i]^2: shape ``(B, out)``.
    ``standard_error`` is set for an estimate (``method='hutchinson'``), ``None`` for an exact method."""

    y: np.ndarray
    laplacian: np.ndarray
    standard_error: np.ndarray | None
    method: str
    row_labels: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    cost: str = ""
    probes: int = 0
    #: NaN cells of a finite output, ``(b, k)`` rows; those ``auto`` recomputed in forward over forward mode
    poisoned_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))
    repaired_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))

    def to_frame(self):
        b, m = self.laplacian.shape
        columns = {"sample": np.repeat(np.arange(b), m), "output": np.tile(self.row_labels, b),
                   "laplacian": self.laplacian.reshape(-1)}
        if self.standard_error is not None:
            columns["standard_error"] = self.standard_error.reshape(-1)
        return _frame(columns)


@dataclass(frozen=True, eq=False)
class DivergenceResult:
    """``divergence[b]`` = the sum over i of d y[b, i] / dx[b, i] (the trace of each sample's Jacobian): ``(B,)``."""

    y: np.ndarray
    divergence: np.ndarray
    standard_error: np.ndarray | None
    method: str
    warnings: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    cost: str = ""
    probes: int = 0
    #: NaN samples of finite outputs, ``(b,)`` rows; those ``auto`` recomputed in forward mode
    poisoned_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), int))
    repaired_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), int))

    def to_frame(self):
        columns = {"sample": np.arange(self.divergence.shape[0]), "divergence": self.divergence}
        if self.standard_error is not None:
            columns["standard_error"] = self.standard_error
        return _frame(columns)


@dataclass(frozen=True, eq=False)
class HvpResult:
    """``hvp[k]`` = H_k v: the Hessian of ``y``'s element ``k`` times the direction ``v``: shape ``(y.size, n)``."""

    y: np.ndarray
    hvp: np.ndarray
    method: str
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    #: NaN cells of a finite output, ``(k, i)`` rows; those ``auto`` recomputed in forward over forward mode
    poisoned_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))
    repaired_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))

    def to_frame(self):
        m, n = self.hvp.shape
        return _frame({"output": np.repeat(self.row_labels, n), "input": np.tile(self.col_labels, m),
                       "value": self.hvp.reshape(-1)})
