"""``GradResult``: what a method computed, as plain data (NumPy arrays, strings, tuples)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._callable._labels import OUTPUT_NAMES, index_labels, output_name
from .._foundations._format import format_number
from ._methods import TABLE

__all__ = ["CELL_STATUS", "OUTPUT_NAMES", "GradResult", "index_labels", "nan_cause", "output_name",
           "output_not_finite"]


@dataclass(frozen=True, eq=False)
class GradResult:
    """Per-element gradients of ``y`` with respect to the watched inputs.

    ``jacobian[i, j]`` is d y_flat[i] / d x_flat[j]: row ``i`` is the gradient of the i-th element
    of ``y`` (C order); columns follow the watched inputs in order, each flattened in C order.
    The ``summed`` method gives one row (the column sums); ``naive`` gives what the broken loop gives.

    Non-finite cells: ``poisoned_rows`` are the rows of finite outputs that hold NaN (0 x inf inside this
    method's pass; an infinite entry is a true infinite derivative and never counts). ``auto`` recomputes
    such cells in the other mode: the cells it fixes are ``repaired_cells`` (NaN poisoning, confirmed), the
    rows left without NaN ``repaired_rows``, and a cell NaN in both modes is undefined rather than poisoned.
    A single other method cannot tell the two apart. ``cell_notes()`` says, per cell, what happened.
    """

    y: np.ndarray
    jacobian: np.ndarray
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    method: str
    requested: str
    watched: tuple[tuple[str, tuple[int, ...]], ...]
    dtype: str = "float32"
    compiled: bool = False
    #: which compiled version ran: "graph" (a traced tf.function) or "xla" (jit_compile); "" when eager
    compiled_as: str = ""
    #: False while gradlib is still trying graph against XLA for this problem (later calls may switch)
    compiled_final: bool = True
    #: True when this call's ``seconds`` include tracing or building what it ran (a compiled method's first call, an
    #: XLA build, a trial of XLA beside the graph, auto compiling a problem it ran eagerly before): not a warm time
    traced: bool = False
    per_element: bool = True
    broken: bool = False
    reason: str = ""
    poisoned_rows: tuple[int, ...] = ()
    repaired_rows: tuple[int, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    repaired_cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))   # (k, 2): row, column
    other_mode: str = ""   # the mode auto recomputed this result's NaN cells in ("" when it did not)

    @property
    def mode(self) -> str:
        """``"forward"`` or ``"reverse"``: how the method that ran differentiates (its row of the methods table)."""
        row = TABLE.get(self.method)
        return row.mode if row is not None else "reverse"

    def cell_status(self) -> np.ndarray:
        """One code of ``CELL_STATUS`` per Jacobian cell, as an (m, n) array of small integers.

        >>> r = GradResult(np.array([0.0, 1.0]), np.array([[np.inf, 0.0], [np.nan, 2.0]]), ("y[0]", "y[1]"),
        ...                ("a", "b"), "jacobian", "jacobian", (("a", ()), ("b", ())))
        >>> [[CELL_STATUS[k] for k in row] for row in r.cell_status().tolist()]
        [['infinite', 'finite'], ['nan', 'finite']]
        """
        with np.errstate(invalid="ignore"):
            finite_y = np.isfinite(self.y.reshape(-1) if self.per_element else np.sum(self.y, keepdims=True).reshape(1))
        jac = self.jacobian
        # a row whose output is not finite has no gradient, whatever number its formula gives (log(x) at -1: -1)
        status = np.select([np.broadcast_to(~finite_y[:, None], jac.shape), np.isinf(jac),
                            np.isnan(jac) & bool(self.other_mode), np.isnan(jac)], [4, 1, 3, 2], 0).astype(np.int8)
        if len(self.repaired_cells):
            status[tuple(np.asarray(self.repaired_cells).T)] = 5
        return status

    def cell_notes(self, limit: int = 1000) -> pd.DataFrame:
        """Every cell that is not a plain finite gradient of a finite output (or was repaired), and what happened.

        Columns: ``output``, ``input``, ``value``, ``status`` (a ``CELL_STATUS`` name) and ``what happened``;
        at most ``limit`` rows. An infinite derivative is reported as such, never as NaN poisoning.

        >>> r = GradResult(np.array([0.0]), np.array([[np.inf, 1.0]]), ("y[0]",), ("a", "b"), "jacobian",
        ...                "jacobian", (("a", ()), ("b", ())))
        >>> r.cell_notes()[["output", "input", "status"]].values.tolist()
        [['y[0]', 'a', 'infinite']]
        """
        status = self.cell_status()
        cells = np.argwhere(status != 0)[:limit]
        with np.errstate(invalid="ignore"):
            y = self.y.reshape(-1) if self.per_element else np.sum(self.y, keepdims=True).reshape(1)
        rows = []
        for r, c in cells.tolist():
            code = int(status[r, c])
            if code == 4:
                text = output_not_finite(float(y[r]), self.row_labels[r], float(self.jacobian[r, c]))
            else:
                text = _CELL_TEXT[code].format(y=self.row_labels[r], x=self.col_labels[c], mode=self.mode,
                                               other=_OTHER_MODE[self.mode], cause=nan_cause(self.mode))
            rows.append({"output": self.row_labels[r], "input": self.col_labels[c],
                         "value": float(self.jacobian[r, c]), "status": CELL_STATUS[code], "what happened": text})
        return pd.DataFrame(rows, columns=["output", "input", "value", "status", "what happened"])

    @property
    def correct(self) -> bool:
        """True when the rows are the per-element gradients (not the naive loop, not the sum)."""
        return self.per_element and not self.broken

    def gradients(self) -> dict[str, np.ndarray]:
        """The Jacobian split per watched input, each of shape ``rows + input shape``."""
        out, start = {}, 0
        lead = (self.jacobian.shape[0],) if not self.per_element else self.y.shape
        for name, shape in self.watched:
            size = math.prod(shape)
            out[name] = self.jacobian[:, start:start + size].reshape(lead + shape)
            start += size
        return out

    def to_frame(self) -> pd.DataFrame:
        """The Jacobian as a table: one row per output element, one column per watched element."""
        return pd.DataFrame(self.jacobian, index=list(self.row_labels), columns=list(self.col_labels))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (non-finite numbers become the strings 'nan', 'inf', '-inf')."""
        return {
            "method": self.method, "requested": self.requested, "dtype": self.dtype, "compiled": self.compiled,
            "compiled_as": self.compiled_as,
            "per_element": self.per_element, "broken": self.broken, "reason": self.reason,
            "y": _jsonable(self.y), "y_shape": list(self.y.shape),
            "row_labels": list(self.row_labels), "col_labels": list(self.col_labels),
            "jacobian": _jsonable(self.jacobian),
            "poisoned_rows": list(self.poisoned_rows), "repaired_rows": list(self.repaired_rows),
            "repaired_cells": np.asarray(self.repaired_cells).tolist(), "other_mode": self.other_mode,
            "warnings": list(self.warnings), "seconds": self.seconds,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_csv(self) -> str:
        """y and the Jacobian in one table: a column ``y (value)`` then one column per watched element.

        >>> import numpy as np
        >>> r = GradResult(np.array([1.0]), np.array([[2.0]]), ("y[0]",), ("y",), "unstack", "unstack", (("y", ()),))
        >>> print(r.to_csv().strip())
        output,y (value),y
        y[0],1.0,2.0
        """
        frame = self.to_frame()
        if self.per_element:
            # Labels are names or name[i,j], so a header with a space cannot clash with an input named "y".
            frame.insert(0, "y (value)", self.y.reshape(-1))
        return frame.to_csv(index_label="output")


#: what happened in a Jacobian cell (``GradResult.cell_status``)
CELL_STATUS = ("finite", "infinite", "nan", "undefined", "output not finite", "repaired")
_OTHER_MODE = {"forward": "reverse", "reverse": "forward"}
_CELL_TEXT = (
    "",
    "{y} is finite but changes infinitely fast with {x} here (like sqrt at 0): the derivative itself is "
    "infinite. This is not NaN poisoning",
    "NaN although {y} is finite: {cause}. method='auto' recomputes such cells in {other} mode",
    "NaN in both reverse and forward mode: 0 x inf within {y}'s own formula (like sqrt(x*x) at 0), so no mode "
    "gives a number here",
    "",   # output not finite: output_not_finite()
    "{mode} mode gave NaN here ({cause}); {other} mode gives the value shown: NaN poisoning, repaired",
)


def nan_cause(mode: str) -> str:
    """How ``mode`` gets NaN in a cell whose output is finite: 0 x inf, often NaN poisoning."""
    zero = ("the gradient the backward pass sends through the other outputs' ops" if mode == "reverse"
            else "the tangent an input carries through the ops on other inputs' paths")
    return (f"0 x inf = NaN in {mode} mode: an infinite local derivative (sqrt at 0, an exp that overflows) met "
            f"a zero, often {zero} (NaN poisoning: the true value is finite)")


def output_not_finite(value: float, y: str = "the output", gradient: float = math.nan) -> str:
    """Why an output that is NaN or infinite has no gradient, whatever number (``gradient``) the formula gives there.

    >>> output_not_finite(float("nan"), "y[0]").split(" (")[0]
    'y[0] is NaN: the function is not defined here'
    >>> output_not_finite(float("-inf"), "y[1]").split(" (")[0]
    'y[1] is -inf: the function has no finite value here'
    """
    if math.isnan(value):
        return (f"{y} is NaN: the function is not defined here (outside its domain, like log or sqrt of a negative "
                "number, or 0/0), so it has no derivative" + (
                    f". The finite gradient given here ({format_number(gradient)}) is the derivative's formula "
                    "evaluated where the function is undefined (as log(x) at x = -1 gives 1/x = -1): it means nothing"
                    if math.isfinite(gradient) else ""))
    return (f"{y} is {format_number(value)}: the function has no finite value here (like 1/x or log(x) at 0), or one "
            "too large for the dtype (an exp that overflows; float32 holds up to about 3.4e38, float64 1.8e308), so "
            "its gradient is not a meaningful number")


def _jsonable(array: np.ndarray) -> Any:
    def clean(v: float) -> Any:
        return v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))

    return np.vectorize(clean, otypes=[object])(array.astype(np.float64)).tolist() if array.ndim else clean(float(array))
