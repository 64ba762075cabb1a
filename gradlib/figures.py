"""Plotly figures of per-element gradients: pure functions of plain data that return ``go.Figure``.

Every chart is a signature, a sentence and one call to ``_build`` (as in plotly.express). Nothing
here sets a theme or a colour that only reads on a light background: Streamlit applies its own
light or dark template, and the heatmap's diverging scale reads on both.

>>> fig = gradient_bars([[20, 15, 12], [120, 45, 36]], ["y[0]", "y[1]"], ["x0", "x1", "x2"])
>>> [trace.name for trace in fig.data], fig.data[1].y.tolist()
(['y[0]', 'y[1]'], [120.0, 45.0, 36.0])
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

#: larger than Plotly's default so that charts read on a projector
FONT_SIZE = 15
_NUMBER_FORMAT = ".6~g"


def gradient_bars(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                  title: str = "Per-element gradients") -> go.Figure:
    """Grouped bars: one group per watched element, one bar per row (an output element, or a method)."""
    return _build("bar", matrix, row_labels, col_labels, title=title, x_title="watched element",
                  y_title="gradient")


def jacobian_heatmap(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                     title: str = "Jacobian: d output / d watched element") -> go.Figure:
    """Heatmap of the Jacobian, outputs down and watched elements across, on a scale centred at zero."""
    return _build("heatmap", matrix, row_labels, col_labels, title=title, x_title="watched element",
                  y_title="output element")


def error_heatmap(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                  title: str = "Finite-difference check: absolute error") -> go.Figure:
    """Heatmap of the absolute difference between the gradients and their finite-difference estimate."""
    return _build("heatmap", matrix, row_labels, col_labels, title=title, x_title="watched element",
                  y_title="output element")


def gradient_table(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                   title: str = "Per-element gradients") -> go.Figure:
    """Table of the Jacobian: one row per output element (or method), one column per watched element."""
    return _build("table", matrix, row_labels, col_labels, title=title, x_title="", y_title="")


def timing_bars(seconds: Mapping[str, float], *, title: str = "Time per method") -> go.Figure:
    """Bars of the seconds each method took (one bar per method)."""
    return _build("bar", [list(seconds.values())], ["seconds"], list(seconds), title=title, x_title="method",
                  y_title="seconds")


def scaling_chart(frame: Any, *, x: str = "size", title: str = "Time as the problem grows") -> go.Figure:
    """Log-log lines of seconds against ``x``, one line per method; with a ``compiled`` column, a filled marker
    is a point that ran compiled and an open one a point that ran eagerly."""
    table = frame.pivot_table(index="method", columns=x, values="seconds", aggfunc="median", sort=False)
    fig = _build("line", table.to_numpy(), [str(m) for m in table.index], [float(v) for v in table.columns],
                 title=title, x_title=_AXIS_TITLES.get(x, x), y_title="seconds (log scale)")
    if "compiled" in frame:
        compiled = frame.pivot_table(index="method", columns=x, values="compiled", aggfunc="max", sort=False)
        for trace, row in zip(fig.data, compiled.reindex(index=table.index, columns=table.columns).to_numpy()):
            how = ["compiled" if flag is True or flag == 1 else "eager" for flag in row]
            trace.update(marker={"symbol": ["circle" if h == "compiled" else "circle-open" for h in how], "size": 10},
                         customdata=how, hovertemplate=f"{trace.name}<br>%{{x}}: %{{y:.3~g}} s, %{{customdata}}<extra></extra>")
    return fig


_AXIS_TITLES = {"size": "problem size (log scale)", "outputs": "number of outputs (log scale)",
                "inputs": "number of watched inputs (log scale)"}


# ---------------------------------------------------------------- the one builder


def _build(kind: str, matrix: Any, row_labels: Sequence[str], col_labels: Sequence[Any], *, title: str,
           x_title: str, y_title: str) -> go.Figure:
    """Draw ``matrix`` (rows x columns) as ``kind``: "bar", "heatmap", "table" or "line" (log-log)."""
    z = _check_matrix(matrix, row_labels, col_labels)
    traces = _TRACES[kind](z, list(row_labels), list(col_labels))
    fig = go.Figure(traces)
    fig.update_layout(
        title={"text": title}, font={"size": FONT_SIZE}, height=_height(kind, len(row_labels)),
        margin={"l": 10, "r": 10, "t": 60, "b": 10}, legend={"orientation": "h", "y": -0.2},
        barmode="group" if kind == "bar" else None)
    if kind != "table":
        fig.update_xaxes(title_text=x_title, type="log" if kind == "line" else None)
        fig.update_yaxes(title_text=y_title, type="log" if kind == "line" else None,
                         autorange="reversed" if kind == "heatmap" else None)
    if kind == "line":   # one tick per power of ten: Plotly's default log ticks crowd the axis
        fig.update_xaxes(dtick=1)
        fig.update_yaxes(dtick=1, exponentformat="power")
    return fig


def _bars(z: np.ndarray, rows: list[str], cols: list[Any]) -> list[go.Bar]:
    return [go.Bar(name=row, x=cols, y=z[i], hovertemplate=f"{row}<br>%{{x}}: %{{y:.6~g}}<extra></extra>")
            for i, row in enumerate(rows)]


def _heatmap(z: np.ndarray, rows: list[str], cols: list[Any]) -> list[go.Heatmap]:
    return [go.Heatmap(z=z, x=cols, y=rows, colorscale="RdBu", zmid=0, xgap=1, ygap=1,
                       hovertemplate="d %{y} / d %{x} = %{z:.6~g}<extra></extra>")]


def _table(z: np.ndarray, rows: list[str], cols: list[Any]) -> list[go.Table]:
    line = {"color": "rgba(128, 128, 128, 0.45)"}
    clear = "rgba(0, 0, 0, 0)"
    columns = [rows] + [[_cell(v) for v in z[:, j]] for j in range(z.shape[1])]
    return [go.Table(
        columnwidth=[2] + [1] * len(cols),
        header={"values": [""] + [str(c) for c in cols], "line": line, "fill": {"color": clear},
                "font": {"size": FONT_SIZE + 1}, "align": "center", "height": 34},
        cells={"values": columns, "line": line, "fill": {"color": clear}, "font": {"size": FONT_SIZE},
               "format": [None] + [_NUMBER_FORMAT] * len(cols), "align": ["left"] + ["right"] * len(cols),
               "height": 32})]


def _lines(z: np.ndarray, rows: list[str], cols: list[Any]) -> list[go.Scatter]:
    return [go.Scatter(name=row, x=cols, y=z[i], mode="lines+markers",
                       hovertemplate=f"{row}<br>%{{x}}: %{{y:.3~g}} s<extra></extra>") for i, row in enumerate(rows)]


_TRACES = {"bar": _bars, "heatmap": _heatmap, "table": _table, "line": _lines}


def _check_matrix(matrix: Any, rows: Sequence[str], cols: Sequence[Any]) -> np.ndarray:
    z = np.asarray(matrix, dtype=np.float64)
    if z.ndim != 2 or z.shape != (len(rows), len(cols)):
        raise ValueError(f"the matrix has shape {z.shape}, but there are {len(rows)} row labels and "
                         f"{len(cols)} column labels; pass one label per row and per column")
    return z


def _cell(value: float) -> Any:
    """A number for the table, or its name when it is not finite (Plotly would print it blank)."""
    return float(value) if np.isfinite(value) else str(value)


def _height(kind: str, rows: int) -> int:
    if kind == "table":
        return 100 + 36 * (rows + 1)
    if kind == "heatmap":
        return min(900, 160 + 30 * rows)
    return 440
