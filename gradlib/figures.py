"""Plotly figures of per-element gradients: pure functions of plain data that return ``go.Figure``.

Every chart is a signature, a sentence and one call to ``_build`` (as in plotly.express). Nothing
here sets a theme, a background or a text colour: Streamlit applies its own light or dark template.
The colours that carry a meaning are fixed, and each reads on both backgrounds (3:1 or more):
red is a wrong answer (``broken`` rows: the naive loop, the summed gradient) and a cell that is
``inf`` or ``nan``; every other row takes a colour from ``PALETTE``, which holds no red. Nothing
is left blank: a bar of height zero, or with no height at all, is marked on the axis (a marker and
a label), and a heatmap cell that is not finite is filled whole in red, its value written in it,
the legend saying what red means.

>>> fig = gradient_bars([[20, 15, 12], [120, 45, 36]], ["y[0]", "y[1]"], ["x0", "x1", "x2"])
>>> [trace.name for trace in fig.data], fig.data[1].y.tolist()
(['y[0]', 'y[1]'], [120.0, 45.0, 36.0])
"""

from __future__ import annotations

import os
from typing import Any, Collection, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._foundations._format import format_number

__all__ = ["BROKEN", "FONT_SIZE", "HESSIAN_VALUES_SHOWN", "LABEL_SIZE", "NOT_CHECKED", "NOT_FINITE", "PALETTE",
           "TITLE_CHARS", "WARM_TIMED", "error_heatmap", "field_heatmap", "gradient_bars", "gradient_table",
           "hessian_heatmap", "image_grid", "jacobian_heatmap", "magnitude_heatmap", "mean_gradient_bars",
           "norm_histogram", "scaling_chart", "timing_bars"]

#: larger than Plotly's default so that charts read on a projector
FONT_SIZE = 15
_NUMBER_FORMAT = ".6~g"
#: red: a wrong answer (a broken row or method) and a cell that is not finite, in every chart
BROKEN = "#dc2626"
#: the colours of the other rows, in order: no red among them, each 3:1 or more on white and on near-black; the first
#: six told apart at a glance (cyan came fifth and was taken for the teal second: the Strategies chart's auto and
#: jacobian lines)
PALETTE = ("#2563eb", "#0d9488", "#7c3aed", "#a16207", "#65a30d", "#64748b", "#c026d3", "#0891b2")
#: several broken rows in one chart: all red, told apart by their fill pattern
_PATTERNS = ("", "/", "x", ".", "\\", "+", "-", "|")
#: values of either sign (a Jacobian): brown below zero, grey at zero, blue above (no red: red means broken)
_DIVERGING = [[0.0, "#a16207"], [0.25, "#d2a76a"], [0.5, "#d4d4d8"], [0.75, "#7ea2f0"], [1.0, "#2563eb"]]
#: values that cannot be negative (an absolute error, a mean of |values|): grey at zero up to blue
_SEQUENTIAL = [[0.0, "#d4d4d8"], [0.5, "#7ea2f0"], [1.0, "#1d4ed8"]]


def gradient_bars(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                  title: str = "Per-element gradients", broken: Collection[str] = (),
                  y_title: str = "gradient") -> go.Figure:
    """Grouped bars: one group per watched element, one bar per row (an output element, or a method).

    Rows named in ``broken`` (wrong answers) are red; a zero is a dash on the axis, ``inf``/``nan`` a red cross.
    ``y_title`` names what the bars are when they are not the gradients themselves (``|gradient|``).
    """
    return _fit_title(_build("bar", matrix, row_labels, col_labels, title=title, x_title="watched element",
                             y_title=y_title, broken=broken))


def jacobian_heatmap(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                     title: str = "Jacobian: d output / d watched element") -> go.Figure:
    """Heatmap of the Jacobian, outputs down and watched elements across, on a scale centred at zero."""
    return _fit_title(_build("heatmap", matrix, row_labels, col_labels, title=title, x_title="watched element",
                             y_title="output element"))


#: a Hessian heatmap writes each value in its cell up to this many watched elements a side (at 390 px, 8 columns
#: leave about 38 px a cell: room for a value as the charts write it, up to about 6 characters at the label size)
HESSIAN_VALUES_SHOWN = 8


def hessian_heatmap(matrix: Any, labels: Sequence[str], *, title: str = "Hessian") -> go.Figure:
    """Heatmap of one output element's Hessian: watched elements down and across, on a scale centred at zero, each
    value written in its cell (up to ``HESSIAN_VALUES_SHOWN`` a side) and named on hover with its row and column."""
    fig = _build("heatmap", matrix, labels, labels, title=title, x_title="watched element", y_title="watched element")
    # a cell is a second derivative, not the Jacobian's "d row / d column"
    fig.update_traces(hovertemplate="∂² / ∂%{y} ∂%{x} = %{customdata}<extra></extra>")
    if len(labels) <= HESSIAN_VALUES_SHOWN:   # the values' trace writes the finite cells; the red marks their own
        values = fig.data[0]
        values.update(text=np.where(np.isfinite(np.asarray(values.z, dtype=float)), values.customdata, ""),
                      texttemplate="%{text}", textfont={"size": LABEL_SIZE})
    return _fit_title(fig)


def field_heatmap(values: Any, xs: Sequence[float], ys: Sequence[float], *, title: str,
                  colourbar_title: str = "") -> go.Figure:
    """A value over a 2-D grid (``values[i, j]`` at ``(xs[j], ys[i])``), on a scale centred at zero.

    >>> field_heatmap([[0.0, 1.0], [-1.0, 2.0]], [0, 1], [0, 1], title="u").data[0].zmid
    0
    """
    z = np.asarray(values, dtype=float)
    finite = np.isfinite(z)
    heat = go.Heatmap(z=np.where(finite, z, np.nan), x=list(xs), y=list(ys), colorscale=_DIVERGING, zmid=0,
                      colorbar={"thickness": 14, "tickformat": ".3~g", "outlinewidth": 0,
                                "title": {"text": colourbar_title, "side": "right"}},
                      hovertemplate="x = %{x:.3~g}, y = %{y:.3~g}: %{z:.4~g}<extra></extra>")
    fig = go.Figure(heat)
    fig.update_layout(title={"text": title}, height=380, margin={"l": 50, "r": 20, "t": 60, "b": 50},
                      font={"size": FONT_SIZE}, xaxis={"title": {"text": "x"}, "constrain": "domain"},
                      yaxis={"title": {"text": "y"}, "scaleanchor": "x", "constrain": "domain"})
    return _fit_title(fig)


def magnitude_heatmap(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                      title: str = "Mean |Jacobian|") -> go.Figure:
    """Heatmap of a quantity that cannot be negative (``|J|``, an error), on a sequential scale from zero."""
    return _fit_title(_build("magnitude", matrix, row_labels, col_labels, title=title, x_title="watched element",
                             y_title="output element"))


def error_heatmap(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                  title: str = "Finite-difference check: absolute error", unchecked: Any = None) -> go.Figure:
    """Heatmap of the absolute difference between the gradients and their finite-difference estimate; the cells
    where ``unchecked`` (a mask of the matrix's shape) is true are the ones the check left out, named so, in slate."""
    return _fit_title(_build("magnitude", matrix, row_labels, col_labels, title=title, x_title="watched element",
                             y_title="output element", left_out=unchecked))


def gradient_table(matrix: Any, row_labels: Sequence[str], col_labels: Sequence[str], *,
                   title: str = "Per-element gradients") -> go.Figure:
    """Table of the Jacobian: one row per output element (or method), one column per watched element."""
    return _fit_title(_build("table", matrix, row_labels, col_labels, title=title, x_title="", y_title=""))


def timing_bars(seconds: Mapping[str, float], *, title: str = "Time per method",
                broken: Collection[str] = (), log: bool = False) -> go.Figure:
    """Horizontal bars of the seconds each method took (one bar per method, top down in the given order; the
    methods in ``broken`` are red); with ``log``, a log axis and each bar labelled with its time, so a bar 1,000
    times shorter than another stays readable.

    The bars lie down: standing, each bar's label had to fit its width, and Plotly shrank it to fit (about 6 px
    tall at 390 px, beside method names turned 30 degrees that took half the plot). Lying down, a label runs
    along its bar at the chart's font size, never under ``LABEL_SIZE``, and a long name breaks over lines.
    """
    names, values = list(seconds), list(seconds.values())
    fig = _build("bar", [values], ["seconds"], names, title=title, x_title="method",
                 y_title="seconds (log scale)" if log else "seconds")
    for trace in fig.data:   # _build stands bars up: lay each one down, its marks (a zero, a nan) with it
        trace.update(x=trace.y, y=trace.x, hovertemplate="%{y}: %{customdata} s<extra></extra>")
        if trace.type == "bar":
            trace.update(orientation="h", cliponaxis=False,
                         marker_color=[BROKEN if name in broken else PALETTE[0] for name in names])
        else:
            trace.update(textposition="middle right", marker_symbol=[
                "line-ns-open" if symbol == "line-ew-open" else symbol for symbol in trace.marker.symbol])
    fig.update_layout(showlegend=False, height=_TIMING_BASE + _TIMING_ROW * len(names),
                      uniformtext={"minsize": LABEL_SIZE, "mode": "show"})
    fig.update_xaxes(title_text=fig.layout.yaxis.title.text)
    fig.update_yaxes(title_text=None, autorange="reversed", tickvals=names,
                     ticktext=[_wrap(str(name), _NAME_CHARS) for name in names])
    if log:
        fig.update_traces(text=[_seconds_text(s) for s in values], textposition="outside", selector={"type": "bar"})
        fig.update_xaxes(type="log", **_decade_ticks(values))
    return _fit_title(fig)


#: the most characters of a chart title on one line: Streamlit writes titles 17 px bold, and at 390 px wide the
#: Models page's 48 characters ('Jacobian of sample 0: d output / d input feature') ran off the chart's edge
TITLE_CHARS = 40
#: px a title's every line after the first adds to the top margin (and to the chart's height)
_TITLE_LINE = 24


def _fit_title(fig: go.Figure, *, line: int = _TITLE_LINE) -> go.Figure:
    """``fig`` with its title broken into lines of at most ``TITLE_CHARS`` characters (after a colon if that fits,
    else in lines of about equal length), and the top margin and the height grown by ``line`` px for each line
    added: Plotly never wraps a title, and one wider than the chart is cut at its edge. (Plotly keeps the first
    line in the middle of the top margin and writes the others downwards, towards the plot.)"""
    text = fig.layout.title.text or ""
    lines = _title_lines(text)
    if len(lines) > 1:
        extra = line * (len(lines) - 1)
        fig.update_layout(title_text="<br>".join(lines), height=fig.layout.height + extra,
                          margin_t=fig.layout.margin.t + extra)
    return fig


def _title_lines(text: str) -> list[str]:
    """``text`` as the fewest lines of at most ``TITLE_CHARS`` characters (a longer word keeps a line of its own).

    >>> _title_lines("Jacobian of sample 0: d output / d input feature")
    ['Jacobian of sample 0:', 'd output / d input feature']
    >>> _title_lines("Naive and summed against the correct rows, again")
    ['Naive and summed against', 'the correct rows, again']
    """
    if len(text) <= TITLE_CHARS:
        return [text]
    head, colon, tail = text.partition(": ")
    if colon and len(head) < TITLE_CHARS and len(tail) <= TITLE_CHARS:
        return [head + ":", tail]
    fewest = len(_wrap(text, TITLE_CHARS).split("<br>"))
    width = -(-len(text) // fewest)   # lines of about equal length, as few as at the full width
    while len(_wrap(text, width).split("<br>")) > fewest:
        width += 1
    return _wrap(text, width).split("<br>")


#: the smallest text a chart writes on or beside its marks, in px (Plotly shrinks a bar's label to fit its bar)
LABEL_SIZE = 12
#: px of a timing chart's title and time axis, and px per method (room for a name over two lines)
_TIMING_BASE, _TIMING_ROW = 140, 46
#: characters of a method name per line on a timing chart's axis (about 110 px at 390 px wide)
_NAME_CHARS = 16


def _wrap(text: str, width: int) -> str:
    """``text`` broken at spaces into lines of at most ``width`` characters (a longer word keeps its own line),
    joined with Plotly's ``<br>``.

    >>> _wrap("per-sample tape.jacobian loop", 16)
    'per-sample<br>tape.jacobian<br>loop'
    """
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines) or text


def _decade_ticks(seconds: Any) -> dict[str, Any]:
    """A log axis from half a decade under the shortest bar to beyond the longest one's label, at least a decade
    long, with one tick per power of ten named in the unit the bars use (``1 ms``, ``1 s``): Plotly's own log
    ticks labelled the steps in between ``2`` and ``5`` with no unit, and read ``10, 5, 2, 1, 5, 2, 0.1`` downwards.
    Over more than ``_DECADES_NAMED`` powers of ten every other one is named (the others keep a tick mark): at
    390 px a decade is about 36 px long and ``100 ms`` about 38 px, so names side by side ran together.

    >>> _decade_ticks([0.0042, 0.35])["ticktext"]
    ['10 ms', '100 ms', '1 s']
    >>> _decade_ticks([0.00042, 3.5])["ticktext"], _decade_ticks([0.00042, 3.5])["minor"]["tickvals"]
    (['1 ms', '100 ms', '10 s'], [0.01, 1.0])
    """
    positive = [float(s) for s in seconds if np.isfinite(s) and s > 0]
    if not positive:
        return {}
    low = np.log10(min(positive)) - 0.5
    top = np.log10(max(positive))
    # room for the longest bar's label beyond it: about 50 px, of a plot 230 px long on a phone
    high = max(top + max(0.35, 0.3 * (top - low)), low + 1.0)
    values = [10.0 ** k for k in range(int(np.ceil(low)), int(np.floor(high)) + 1)]
    named = values if len(values) <= _DECADES_NAMED else values[::2]
    return {"range": [low, high], "tickvals": named, "ticktext": [_seconds_text(v) for v in named],
            "minor": {"tickvals": [v for v in values if v not in named], "ticks": "outside", "ticklen": 4}}


#: the most powers of ten a timing axis names side by side (each about 38 px wide at 390 px)
_DECADES_NAMED = 4


def _seconds_text(seconds: float) -> str:
    """``0.0042`` -> ``4.2 ms``; ``3.5`` -> ``3.5 s``."""
    return f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


#: the ``timed`` value of a warm point in ``scaling_chart``'s frame: any other value is a single call, drawn apart
WARM_TIMED = "warm median"


def scaling_chart(frame: Any, *, x: str = "size", title: str = "Time as the problem grows") -> go.Figure:
    """Log-log lines of seconds against ``x``, one line per method; with a ``compiled`` column, a filled marker
    is a point that ran compiled and an open one a point that ran eagerly. With a ``timed`` column, only the points
    timed ``WARM_TIMED`` make the lines; each other point is a cross of its own, named by its ``timed`` value (a
    first call, tracing included, is not a point of a warm line)."""
    warm = frame["timed"] == WARM_TIMED if "timed" in frame else np.ones(len(frame), dtype=bool)
    lines = frame.assign(seconds=frame["seconds"].where(warm))
    table = lines.pivot_table(index="method", columns=x, values="seconds", aggfunc="median", sort=False, dropna=False)
    if table.notna().to_numpy().any():
        table = table.dropna(how="all")
    fig = _build("line", table.to_numpy(), [str(m) for m in table.index], [float(v) for v in table.columns],
                 title=title, x_title=_AXIS_TITLES.get(x, x), y_title="seconds (log scale)")
    if "compiled" in frame:
        compiled = frame.pivot_table(index="method", columns=x, values="compiled", aggfunc="max", sort=False)
        for trace, row in zip(fig.data, compiled.reindex(index=table.index, columns=table.columns).to_numpy()):
            how = ["compiled" if flag is True or flag == 1 else "eager" for flag in row]
            trace.update(marker={"symbol": ["circle" if h == "compiled" else "circle-open" for h in how], "size": 10},
                         customdata=how, hovertemplate=f"{trace.name}<br>%{{x}}: %{{y:.3~g}} s, %{{customdata}}<extra></extra>")
    singles = frame[~warm].groupby(["method", "timed"], sort=False) if "timed" in frame else ()
    for (method, timed), points in singles:
        fig.add_scatter(x=points[x].astype(float).tolist(), y=points["seconds"].tolist(), mode="markers",
                        name=f"{method}: {timed}", marker={"symbol": "x", "size": 11},
                        hovertemplate=f"{method}<br>%{{x}}: %{{y:.3~g}} s, {timed}<extra></extra>")
    return _fit_title(fig)


def norm_histogram(norms: Any, groups: Sequence[str], *, clip_norm: float | None = None,
                   title: str = "Per-example gradient norms", colors: Mapping[str, str] | None = None) -> go.Figure:
    """Overlaid histograms of per-example gradient norms, one per group, with a dashed line at ``clip_norm``;
    ``colors`` gives a group its colour (the others take the palette's, in order)."""
    values = np.asarray(norms, dtype=np.float64).reshape(-1)
    labels = np.asarray(groups, dtype=object).reshape(-1)
    if values.shape != labels.shape:
        raise ValueError(f"{values.size} norms but {labels.size} group labels; pass one label per norm")
    bins = {"start": 0.0, "end": float(values.max(initial=0.0)) * 1.0001 or 1.0}
    bins["size"] = bins["end"] / 40
    names = list(dict.fromkeys(labels.tolist()))
    palette = iter(c for c in PALETTE if c not in (colors or {}).values())
    fig = go.Figure([go.Histogram(x=values[labels == g], name=str(g), xbins=bins, opacity=0.7,
                                  marker_color=(colors or {}).get(g) or next(palette),
                                  hovertemplate=f"{g}<br>norm %{{x}}: %{{y}} examples<extra></extra>")
                     for g in names])
    if clip_norm is not None:
        # the label above the plot: inside it, it was drawn over the tallest bars (which sit near the clip norm)
        fig.add_vline(x=clip_norm, line_dash="dash", annotation_text=f"clip norm {clip_norm:g}",
                      annotation_position="top", annotation_yanchor="bottom")
    fig.update_layout(title={"text": title}, font={"size": FONT_SIZE}, barmode="overlay", height=420,
                      margin={"l": 10, "r": 10, "t": 60, "b": 10}, legend=_LEGEND_BELOW)
    fig.update_xaxes(title_text="L2 norm of the example's gradient (all weights)")
    fig.update_yaxes(title_text="examples")
    # the clip norm's label stands in the top margin, as the image grid's captions do
    return _fit_title(fig, line=2 * _TITLE_LINE if clip_norm is not None else _TITLE_LINE)


def image_grid(images: Any, titles: Sequence[str], *, columns: int = 8, title: str = "Examples") -> go.Figure:
    """Small grayscale images (``(n, height, width)``, 0 is white) in a grid, each under its own title."""
    stack = np.asarray(images, dtype=np.float64)
    if stack.ndim != 3 or stack.shape[0] != len(titles):
        raise ValueError(f"images must have shape (n, height, width) with one title each; got {stack.shape} "
                         f"and {len(titles)} titles")
    rows = max(1, -(-len(titles) // columns))
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=list(titles), horizontal_spacing=0.02,
                        vertical_spacing=0.3 / rows)
    for k, image in enumerate(stack):
        fig.add_trace(go.Heatmap(z=image, colorscale="gray_r", showscale=False, zmin=0, zmax=1,
                                 hovertemplate=f"{titles[k]}<br>pixel (%{{y}}, %{{x}}): %{{z:.2f}}<extra></extra>"),
                      row=k // columns + 1, col=k % columns + 1)
    fig.update_xaxes(visible=False, constrain="domain")
    fig.update_yaxes(visible=False, autorange="reversed", constrain="domain")
    for name in [key for key in fig.layout if key.startswith("yaxis")]:   # each image square on its own x axis:
        fig.layout[name].scaleanchor = "x" + name.removeprefix("yaxis")    # all on "x", only the first one was
    fig.update_annotations(font={"size": LABEL_SIZE})   # 11 px under each digit read small on a phone
    fig.update_layout(title={"text": title}, font={"size": FONT_SIZE}, height=80 + 170 * rows,
                      margin={"l": 10, "r": 10, "t": 80, "b": 10})
    # the captions of the first row rise into the top margin: a title's added line (written downwards from the
    # margin's middle) needs twice its height there, or it lands on them
    return _fit_title(fig, line=2 * _TITLE_LINE)


def mean_gradient_bars(plain: Sequence[float], clipped: Sequence[float], names: Sequence[str], *,
                       clip_norm: float, title: str = "Mean gradient: plain and clipped") -> go.Figure:
    """Grouped bars of the L2 norm of the plain and the clipped mean gradient, one group per variable; the path all
    the variables share (``model/``) is said once, in the axis title, and each group is named by the rest of its
    path (at 390 px the names in full were turned and took half the chart, and a third of its width).

    >>> fig = mean_gradient_bars([2.0, 1.0], [1.0, 0.5], ["net/dense/kernel", "net/dense/bias"], clip_norm=1)
    >>> list(fig.layout.xaxis.ticktext), fig.layout.xaxis.title.text
    (['kernel', 'bias'], 'variable (in net/dense/)')
    """
    names = [str(name) for name in names]
    shared = _shared_path(names)
    fig = _build("bar", [list(plain), list(clipped)], ["plain mean", f"clipped mean (C = {clip_norm:g})"], names,
                 title=title, x_title=f"variable (in {shared})" if shared else "variable",
                 y_title="L2 norm of the mean gradient")
    fig.update_xaxes(tickvals=names, ticktext=[name.removeprefix(shared) for name in names])
    return _fit_title(fig)


def _shared_path(names: Sequence[str]) -> str:
    """The folders (up to a ``/``) that every one of two or more ``names`` begins with, ``""`` when none.

    >>> _shared_path(["m/hidden/kernel", "m/hidden/bias", "m/out/bias"]), _shared_path(["m/a", "n/a"])
    ('m/', '')
    """
    if len(names) < 2:
        return ""
    common = os.path.commonprefix(list(names))
    return common[:common.rfind("/") + 1]


_AXIS_TITLES = {"size": "problem size (log scale)", "outputs": "number of outputs (log scale)",
                "inputs": "number of watched inputs (log scale)"}


# ---------------------------------------------------------------- the one builder


def _build(kind: str, matrix: Any, row_labels: Sequence[str], col_labels: Sequence[Any], *, title: str,
           x_title: str, y_title: str, broken: Collection[str] = (), left_out: Any = None) -> go.Figure:
    """Draw ``matrix`` (rows x columns) as ``kind``: "bar", "heatmap", "magnitude", "table" or "line" (log-log);
    a heatmap's ``left_out`` cells (a boolean mask) hold no value and are named as not checked."""
    z = _check_matrix(matrix, row_labels, col_labels)
    height = _height(kind, len(row_labels))
    extra = {} if left_out is None else {"left_out": np.broadcast_to(np.asarray(left_out, dtype=bool), z.shape)}
    traces = _TRACES[kind](z, list(row_labels), list(col_labels), height=height, broken=set(broken), **extra)
    fig = go.Figure(traces)
    fig.update_layout(
        title={"text": title}, font={"size": FONT_SIZE}, height=height, margin=_MARGIN,
        legend=_LEGEND_BELOW, barmode="group" if kind == "bar" else None,
        scattermode="group" if kind == "bar" else None)   # the zero and inf marks sit on their own bar
    if kind != "table":
        fig.update_xaxes(title_text=x_title, type="log" if kind == "line" else None)
        fig.update_yaxes(title_text=y_title, type="log" if kind == "line" else None,
                         autorange="reversed" if kind in _HEATMAPS else None)
    if kind in _HEATMAPS and len(traces) > 1:   # the legend names the red cells: below the axis title, not on it
        fig.update_layout(height=height + _LEGEND_ROOM, margin={**_MARGIN, "b": _MARGIN["b"] + _LEGEND_ROOM})
    if kind in ("bar", "line") and len(row_labels) > 1:   # the legend's room, so that the plot keeps its height
        fig.update_layout(height=height + _LEGEND_ROOM)
    if kind == "line":   # one tick per power of ten: Plotly's default log ticks crowd the axis
        fig.update_xaxes(dtick=1)
        fig.update_yaxes(dtick=1, exponentformat="power")
    return fig


_MARGIN = {"l": 10, "r": 10, "t": 60, "b": 10}
#: every legend under the whole chart, at the container's bottom: Plotly keeps the plot, its tick labels and the
#: axis title above it. At y = -0.2 of the plot it was drawn over the axis title, and over tick labels turned to
#: fit a phone (the Per-example page's variable names at 390 px)
_LEGEND_BELOW = {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0, "xanchor": "left"}
#: px under a chart's x axis for its legend (one line; Plotly reserves what more lines take)
_LEGEND_ROOM = 34
_HEATMAPS = ("heatmap", "magnitude")


def _bars(z: np.ndarray, rows: list[str], cols: list[Any], *, broken: set[str], **_: Any) -> list[go.BaseTraceType]:
    traces: list[go.BaseTraceType] = []
    n_broken = 0
    for i, row in enumerate(rows):
        if row in broken:
            colour, pattern = BROKEN, _PATTERNS[n_broken % len(_PATTERNS)]
            n_broken += 1
        else:
            colour, pattern = PALETTE[(i - n_broken) % len(PALETTE)], ""
        group, hover = str(i), f"{row}<br>%{{x}}: %{{customdata}}<extra></extra>"
        values = z[i]
        traces.append(go.Bar(name=row, x=cols, y=np.where(np.isfinite(values), values, np.nan), customdata=_texts(values),
                             marker={"color": colour, "pattern": {"shape": pattern}}, offsetgroup=group,
                             legendgroup=group, hovertemplate=hover))
        marks = _marks(values)
        if marks.any():   # a bar of height zero, or a value with no height at all, is marked on the axis
            finite = np.isfinite(values[marks])
            traces.append(go.Scatter(
                x=[c for c, m in zip(cols, marks) if m], y=np.zeros(int(marks.sum())), customdata=_texts(values[marks]),
                mode="markers+text", text=["" if f else t for f, t in zip(finite, _texts(values[marks]))],
                textposition="top center",
                marker={"symbol": ["line-ew-open" if f else "x" for f in finite], "size": 16,
                        "color": [colour if f else BROKEN for f in finite],
                        "line": {"width": 3, "color": [colour if f else BROKEN for f in finite]}},
                offsetgroup=group, legendgroup=group, showlegend=False, name=row, cliponaxis=False,
                hovertemplate=hover))
    return traces


def _heatmap(z: np.ndarray, rows: list[str], cols: list[Any], *, height: int, sequential: bool = False,
             left_out: np.ndarray | None = None, **_: Any) -> list[go.BaseTraceType]:
    colourbar = {"thickness": 14, "nticks": _colourbar_ticks(height), "tickformat": ".3~g", "outlinewidth": 0}
    scale = {"colorscale": _SEQUENTIAL, "zmin": 0} if sequential else {"colorscale": _DIVERGING, "zmid": 0}
    left_out = np.zeros(z.shape, dtype=bool) if left_out is None else left_out
    z = np.where(left_out, np.nan, z)
    finite = np.isfinite(z)
    if sequential and finite.any():
        scale["zmax"] = float(np.max(z[finite])) or 1.0
    texts = np.array([_texts(r) for r in z], dtype=object).reshape(z.shape)
    heat = go.Heatmap(z=np.where(finite, z, np.nan), x=cols, y=rows, xgap=1, ygap=1, colorbar=colourbar,
                      customdata=texts, hoverongaps=False, showscale=bool(finite.any()),
                      hovertemplate="d %{y} / d %{x} = %{customdata}<extra></extra>", **scale)
    cell = (height - _MARGIN["t"] - _MARGIN["b"] - 60) / max(1, len(rows))   # px per row, roughly
    marked = []
    if (~finite & ~left_out).any():
        marked.append(_cells(~finite & ~left_out, rows, cols, texts, colour=BROKEN, name=NOT_FINITE, cell=cell))
    if left_out.any():
        unchecked = np.full(z.shape, "not checked", dtype=object)
        marked.append(_cells(left_out, rows, cols, unchecked, colour=PALETTE[5], name=NOT_CHECKED, cell=cell))
        heat.customdata = np.where(left_out, "not checked", texts)
    return [heat, *marked]


#: the legend's entry for the cells that hold no number
NOT_FINITE = "not a number (nan) or infinite (inf)"
#: the legend's entry for the cells a check left out (the finite-difference check's, whose summary says why)
NOT_CHECKED = "not checked (the summary says why)"


def _cells(where: np.ndarray, rows: list[str], cols: list[Any], texts: np.ndarray, *, colour: str, name: str,
           cell: float) -> go.Heatmap:
    """The cells ``where`` is true, each filled whole in ``colour`` over the value heatmap (which leaves them
    empty), with its text written in it where a cell is large enough, and named on hover and in the legend.
    Small marks on empty cells read as broken drawing when a whole row or column holds no number."""
    return go.Heatmap(
        z=np.where(where, 1.0, np.nan), x=cols, y=rows, xgap=1, ygap=1, zmin=0, zmax=1,
        colorscale=[[0.0, colour], [1.0, colour]], showscale=False, hoverongaps=False,
        text=np.where(where, texts, ""), texttemplate="%{text}" if cell >= 20 else "",
        textfont={"color": "#ffffff", "size": LABEL_SIZE}, customdata=texts, name=name, showlegend=True,
        hovertemplate="d %{y} / d %{x} = %{customdata}<extra></extra>")


def _magnitude(z: np.ndarray, rows: list[str], cols: list[Any], **kwargs: Any) -> list[go.BaseTraceType]:
    return _heatmap(z, rows, cols, sequential=True, **kwargs)


def _table(z: np.ndarray, rows: list[str], cols: list[Any], **_: Any) -> list[go.Table]:
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


def _lines(z: np.ndarray, rows: list[str], cols: list[Any], **_: Any) -> list[go.Scatter]:
    return [go.Scatter(name=row, x=cols, y=z[i], mode="lines+markers", line={"color": PALETTE[i % len(PALETTE)]},
                       hovertemplate=f"{row}<br>%{{x}}: %{{y:.3~g}} s<extra></extra>")
            for i, row in enumerate(rows)]


_TRACES = {"bar": _bars, "heatmap": _heatmap, "magnitude": _magnitude, "table": _table, "line": _lines}


def _check_matrix(matrix: Any, rows: Sequence[str], cols: Sequence[Any]) -> np.ndarray:
    z = np.asarray(matrix, dtype=np.float64)
    if z.ndim != 2 or z.shape != (len(rows), len(cols)):
        raise ValueError(f"the matrix has shape {z.shape}, but there are {len(rows)} row labels and "
                         f"{len(cols)} column labels; pass one label per row and per column")
    return z


def _marks(values: np.ndarray) -> np.ndarray:
    """The cells a bar cannot show: exact zeros (no height) and values that are not finite."""
    return ~np.isfinite(values) | (values == 0)


def _texts(values: np.ndarray) -> list[str]:
    """Each value as the charts write it: 6 significant digits, or ``inf``/``-inf``/``nan``."""
    return [format_number(v) for v in np.asarray(values, dtype=np.float64).ravel()]


def _cell(value: float) -> Any:
    """A number for the table, or its name when it is not finite (Plotly would print it blank)."""
    return float(value) if np.isfinite(value) else str(value)


def _height(kind: str, rows: int) -> int:
    if kind == "table":
        return 100 + 36 * (rows + 1)
    if kind in _HEATMAPS:
        return min(900, 240 + 30 * rows)
    return 440


def _colourbar_ticks(height: int) -> int:
    """The most colour-bar labels that fit beside a heatmap this tall without touching (about 40 px each)."""
    plot = height - _MARGIN["t"] - _MARGIN["b"] - 60   # minus the x axis: its labels and title
    return max(2, plot // 40)
