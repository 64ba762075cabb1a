"""How the dashboard shows things: error messages, tables, charts and a whole comparison.

Pages read widgets, call ``dashboard.services`` (the cached door into gradlib) and hand what comes
back to the functions here. Nothing here imports TensorFlow; figures come from ``gradlib.figures``.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

import gradlib
from gradlib import figures

__all__ = ["MAX_BAR_CELLS", "MAX_HEATMAP_CELLS", "MAX_TABLE_CELLS", "METHOD_LABELS", "attempt", "broken_beside_correct",
           "escape", "matrix_frame", "show_chart", "show_comparison", "show_error", "show_findings", "show_matrix",
           "show_vector"]

_LOG = logging.getLogger(__name__)
#: above these sizes a page draws no chart of that kind (and says so): the browser would choke
MAX_BAR_CELLS = 240
MAX_HEATMAP_CELLS = 40_000
MAX_TABLE_CELLS = 600
METHOD_LABELS = {"unstack": "unstack (per element, reverse mode)", "jacobian": "jacobian (tape.jacobian)",
                 "forward": "forward (forward mode)", "naive": "naive loop (broken)",
                 "summed": "summed tape.gradient (column sums)", "auto": "auto (gradlib's choice)"}
_SEVERITY = {"error": st.error, "warning": st.warning, "info": st.info}


# ---------------------------------------------------------------- messages


def attempt(title: str, work: Callable[[], Any]) -> Any | None:
    """Run ``work``; on failure show ``title`` and gradlib's message with ``st.error`` and return ``None``."""
    try:
        return work()
    except gradlib.GradlibError as exc:
        show_error(title, str(exc))
    except Exception as exc:   # a bug, or TensorFlow refusing: a message, never a traceback
        _LOG.exception("unexpected failure: %s", title)
        show_error(title, f"unexpected {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}")
    return None


def show_error(title: str, message: str) -> None:
    """An ``st.error`` with a bold title, the message, and the caret pointer (if any) in a code block."""
    lines = message.split("\n")
    pointer = [line for line in lines[1:] if line.startswith("    ")]
    text = " ".join(line for line in lines if line not in pointer)
    body = f"**{escape(title)}**\n\n{escape(text)}"
    if pointer:
        body += "\n\n```text\n" + "\n".join(p[4:] for p in pointer).replace("```", "'''") + "\n```"
    st.error(body)


def escape(text: str) -> str:
    """Text shown literally by Streamlit's Markdown (``x0*x1`` stays ``x0*x1``, ``$`` is not LaTeX)."""
    return re.sub(r"([\\`*_{}\[\]()#+!|<>~$-])", r"\\\1", text)


def show_findings(findings: Sequence[gradlib.Finding]) -> None:
    """The diagnosis: one coloured box per finding, worst first."""
    order = {"error": 0, "warning": 1, "info": 2}
    for finding in sorted(findings, key=lambda f: order.get(f.severity, 3)):
        who = f" — {finding.method}" if finding.method else ""
        _SEVERITY.get(finding.severity, st.info)(f"**{finding.title}**{who}\n\n{finding.text}")


# ---------------------------------------------------------------- tables and charts


def matrix_frame(rows: Sequence[Sequence[float]], row_labels: Sequence[str], col_labels: Sequence[str],
                 index_name: str = "") -> pd.DataFrame:
    """A labelled table of a matrix (``None`` cells stay visible as None)."""
    frame = pd.DataFrame([list(r) for r in rows], index=list(row_labels), columns=list(col_labels), dtype=object)
    frame.index.name = index_name or None
    return frame.map(_format_cell)


def show_matrix(rows: Any, row_labels: Sequence[str], col_labels: Sequence[str], *, index_name: str = "") -> None:
    """A small matrix as a plain table (readable text), a large one as a scrollable data frame."""
    z = np.asarray(rows, dtype=np.float64)
    if z.size <= MAX_TABLE_CELLS:
        st.table(matrix_frame(z.tolist(), row_labels, col_labels, index_name))
    else:
        st.dataframe(pd.DataFrame(z, index=list(row_labels), columns=list(col_labels)), height=420)


def show_chart(figure_fn: Callable[..., Any], rows: Any, row_labels: Sequence[str], col_labels: Sequence[str],
               limit: int, *, key: str, **kwargs: Any) -> None:
    """Draw a chart of ``rows`` unless it has more than ``limit`` cells (then say why it is not drawn)."""
    cells = len(row_labels) * len(col_labels)
    if cells > limit:
        st.caption(f"No chart: {cells:,} values are more than this chart shows ({limit:,}); download the CSV instead.")
        return
    st.plotly_chart(figure_fn(rows, row_labels, col_labels, **kwargs), key=key, config={"displaylogo": False})


def show_vector(values: np.ndarray, labels: Sequence[str], name: str = "y") -> None:
    """A vector as a two-column table: the element's label and its value."""
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    frame = pd.DataFrame({name: [_format_cell(v) for v in flat]}, index=list(labels))
    frame.index.name = "element"
    if flat.size <= MAX_TABLE_CELLS:
        st.table(frame)
    else:
        st.dataframe(frame, height=300)


def _format_cell(value: Any) -> str:
    if value is None:
        return "None"
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.6g}"


# ---------------------------------------------------------------- a whole comparison


def show_comparison(comparison: gradlib.Comparison, *, key: str) -> None:
    """Everything a comparison holds, in order: y, the gradients, naive and summed, agreement, check, diagnosis."""
    best = comparison.best
    st.markdown("### y")
    st.caption(f"y has shape {list(best.y.shape)}; the per-element rows below are computed by "
               f"{METHOD_LABELS.get(comparison.reference, comparison.reference)} (method {best.method!r}).")
    show_vector(best.y, best.row_labels)
    _show_warnings(comparison)
    st.markdown("### Per-element gradients")
    st.caption("Row i is the gradient of the i-th element of y; one column per watched element.")
    show_matrix(best.jacobian, best.row_labels, best.col_labels, index_name="d output / d")
    left, right = st.columns(2)
    with left:
        show_chart(figures.gradient_bars, best.jacobian, best.row_labels, best.col_labels, MAX_BAR_CELLS,
                   key=f"{key}_bars")
    with right:
        show_chart(figures.jacobian_heatmap, best.jacobian, best.row_labels, best.col_labels, MAX_HEATMAP_CELLS,
                   key=f"{key}_heatmap")
    _show_broken_beside_correct(comparison, key=key)
    _show_agreement(comparison)
    _show_check(comparison, key=key)
    st.markdown("### Diagnosis")
    show_findings(comparison.diagnosis)
    _show_timings(comparison, key=key)


def _show_warnings(comparison: gradlib.Comparison) -> None:
    seen = {f.text for f in comparison.diagnosis}   # the diagnosis already explains these
    for name, result in comparison.results.items():
        for warning in result.warnings:
            if warning not in seen:
                seen.add(warning)
                st.warning(escape(warning))
    for name, message in comparison.errors.items():
        show_error(f"Method {name} failed", message)


def _show_broken_beside_correct(comparison: gradlib.Comparison, *, key: str) -> None:
    rows, labels = broken_beside_correct(comparison)
    if not rows:
        return
    best = comparison.best
    st.markdown("### Naive and summed beside the correct result")
    st.caption("The naive loop iterates y after the tape block (zeros); tape.gradient(y, x) returns the column "
               "sums of the rows below it.")
    show_matrix(rows, labels, best.col_labels, index_name="method")
    show_chart(figures.gradient_bars, rows, labels, best.col_labels, MAX_BAR_CELLS, key=f"{key}_broken_bars",
               title="Naive and summed against the correct rows")


def broken_beside_correct(comparison: gradlib.Comparison) -> tuple[list[list[float]], list[str]]:
    """The rows of the naive and summed results followed by the correct rows, with their labels."""
    rows: list[list[float]] = []
    labels: list[str] = []
    for name in ("naive", "summed"):
        result = comparison.results.get(name)
        if result is not None:
            rows += result.jacobian.tolist()
            labels += [f"{'naive' if name == 'naive' else 'summed'}: {label}" for label in result.row_labels]
    if not rows:
        return [], []
    best = comparison.best
    rows += best.jacobian.tolist()
    labels += [f"correct: {label}" for label in best.row_labels]
    return rows, labels


def _show_agreement(comparison: gradlib.Comparison) -> None:
    st.markdown("### Agreement across methods")
    if not comparison.agreement:
        st.info(f"None of the chosen methods ran, so there is nothing to compare; the results above are "
                f"{comparison.reference!r}'s.")
        return
    frame = pd.DataFrame([{
        "method": a.method, "agrees": "yes" if a.agrees else "NO", "max |difference|": f"{a.max_abs_diff:.3g}",
        "compared with": a.against,
        "what it computes": METHOD_LABELS.get(a.method, a.method),
    } for a in comparison.agreement]).set_index("method")
    st.table(frame)


def _show_check(comparison: gradlib.Comparison, *, key: str) -> None:
    check = comparison.check
    best = comparison.best
    st.markdown("### Finite-difference check")
    if check.skipped:
        st.info(f"Finite-difference check skipped: {escape(check.skipped)}.")
        return
    summary = (f"largest error {check.max_error:.3g} (step {check.step:g}); "
               f"tolerance {float(np.max(check.tolerance)):.3g} at most")
    if check.passed:
        st.success(f"Finite-difference check passed: central differences in float64 agree with every cell; {summary}.")
    else:
        cells = ", ".join(f"({best.row_labels[r]}, {best.col_labels[c]})" for r, c in check.bad_cells[:6])
        st.warning(f"Finite-difference check: {len(check.bad_cells)} cell(s) differ, e.g. {escape(cells)}; {summary}.")
    show_chart(figures.error_heatmap, check.error, best.row_labels, best.col_labels, MAX_HEATMAP_CELLS,
               key=f"{key}_fd")


def _show_timings(comparison: gradlib.Comparison, *, key: str) -> None:
    st.markdown("### Timings")
    seconds = {name: r.seconds for name, r in comparison.results.items()}
    frame = pd.DataFrame([{"method": name, "ran as": r.method, "compiled": "yes" if r.compiled else "no",
                           "milliseconds": f"{1000 * r.seconds:.2f}"} for name, r in comparison.results.items()])
    left, right = st.columns([2, 3])
    with left:
        st.table(frame.set_index("method"))
        st.caption("One run each on a shared server: compare ratios, not absolute times.")
    with right:
        st.plotly_chart(figures.timing_bars(seconds), key=f"{key}_timings", config={"displaylogo": False})
