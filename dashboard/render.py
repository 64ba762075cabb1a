"""How the dashboard shows things: error messages, tables, charts and a whole comparison.

Pages read widgets, call ``dashboard.services`` (the cached door into gradlib) and hand what comes
back to the functions here. Nothing here imports TensorFlow; figures come from ``gradlib.figures``.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any, Callable, Collection, Sequence

import numpy as np
import pandas as pd
import streamlit as st

import gradlib
from gradlib import figures

__all__ = ["MAX_BAR_CELLS", "MAX_HEATMAP_CELLS", "MAX_TABLE_CELLS", "MAX_TABLE_ROWS", "METHOD_LABELS", "METHOD_WHAT",
           "TABLE_HEIGHT", "agreement_frame", "attempt", "broken_beside_correct", "crosscheck_table", "escape",
           "matrix_frame", "method_legend", "nonfinite", "output_label", "show_chart", "show_comparison", "show_error",
           "show_findings", "show_matrix", "show_table", "show_vector", "timing_table", "unexpected_message"]

_LOG = logging.getLogger(__name__)
#: above these sizes a page draws no chart of that kind (and says so): the browser would choke
MAX_BAR_CELLS = 240
MAX_HEATMAP_CELLS = 40_000
MAX_TABLE_CELLS = 600
#: a table with more rows than this scrolls inside a box TABLE_HEIGHT pixels tall, above what follows it
MAX_TABLE_ROWS = 12
TABLE_HEIGHT = 460
#: what each method computes, in a few words; METHOD_LABELS puts the method's name in front
METHOD_WHAT = {name: m.what for name, m in gradlib.METHOD_TABLE.items()}   # gradlib's methods table
METHOD_LABELS = {method: f"{method} ({what})" for method, what in METHOD_WHAT.items()}
_SEVERITY = {"error": st.error, "warning": st.warning, "info": st.info}


# ---------------------------------------------------------------- messages


def attempt(title: str, work: Callable[[], Any]) -> Any | None:
    """Run ``work``; on failure show ``title`` and gradlib's message with ``st.error`` and return ``None``."""
    try:
        return work()
    except gradlib.GradlibError as exc:
        show_error(title, str(exc))
    except Exception as exc:   # a bug, or TensorFlow refusing: a plain message; the details go to the server log
        _LOG.exception("unexpected failure: %s", title)
        show_error(title, unexpected_message(exc))
    return None


def unexpected_message(exc: BaseException) -> str:
    """What a visitor reads about an error gradlib did not expect: plain words, no TensorFlow internals."""
    memory = isinstance(exc, MemoryError) or type(exc).__name__ == "ResourceExhaustedError"
    what = ("the server ran out of memory for this computation; try smaller inputs or fewer methods" if memory
            else "something went wrong on the server while computing this; try other inputs")
    return f"{what}. The details are in the server's log."


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


def show_findings(findings: Sequence[gradlib.Finding], *, shown: Collection[str] = ()) -> None:
    """The diagnosis: one coloured box per finding, worst first (leaving out the texts already ``shown``); a
    finding's details (its cells, one by one) folded away in an expander under its box."""
    order = {"error": 0, "warning": 1, "info": 2}
    for finding in sorted(findings, key=lambda f: order.get(f.severity, 3)):
        if finding.text in shown:
            continue
        who = f" — {finding.method}" if finding.method else ""
        _SEVERITY.get(finding.severity, st.info)(f"**{finding.title}**{who}\n\n{finding.text}")
        if finding.details:
            with st.expander(f"Details: {escape(finding.title)}", expanded=False):
                st.markdown(escape(finding.details))


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
        show_table(matrix_frame(z.tolist(), row_labels, col_labels, index_name))
    else:
        st.dataframe(pd.DataFrame(z, index=list(row_labels), columns=list(col_labels)), height=TABLE_HEIGHT)


def show_table(frame: pd.DataFrame) -> None:
    """``st.table(frame)``; taller than ``MAX_TABLE_ROWS`` rows, in a box of fixed height that scrolls."""
    if len(frame) <= MAX_TABLE_ROWS:
        st.table(frame)
        return
    st.caption(f"{len(frame):,} rows: scroll inside the table to see them all.")
    with st.container(height=TABLE_HEIGHT, border=False):
        st.table(frame)


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
        show_table(frame)
    else:
        st.dataframe(frame, height=TABLE_HEIGHT)


def nonfinite(values: Any) -> tuple[int, int]:
    """How many of ``values`` are NaN or infinite, and how many there are.

    >>> nonfinite([[1.0, float("nan")], [float("inf"), 0.0]])
    (2, 4)
    """
    z = np.asarray(values, dtype=np.float64)
    return int((~np.isfinite(z)).sum()), int(z.size)


def _format_cell(value: Any) -> str:
    return "None" if value is None else gradlib.format_number(float(value))


# ---------------------------------------------------------------- a whole comparison


def output_label(row_labels: Sequence[str]) -> str:
    """The output's name as its rows carry it: ``y``, or ``out`` when an input is named ``y`` (a header or caption
    that said ``y`` there named the input).

    >>> output_label(["out[0]", "out[1]"]), output_label(["y"]), output_label([])
    ('out', 'y', 'y')
    """
    return row_labels[0].partition("[")[0] if len(row_labels) else "y"


def show_comparison(comparison: gradlib.Comparison, *, key: str) -> None:
    """Everything a comparison holds, in order: y, the gradients, naive and summed, agreement, check, diagnosis."""
    best = comparison.best
    y = output_label(best.row_labels)
    st.markdown(f"### {y}")
    st.caption(f"{y} has shape {list(best.y.shape)}; the per-element rows below are computed by "
               f"{METHOD_LABELS.get(comparison.reference, comparison.reference)} (method {best.method!r}).")
    show_vector(best.y, best.row_labels, y)
    shown = _show_warnings(comparison)
    st.markdown("### Per-element gradients")
    st.caption(f"Row i is the gradient of the i-th element of {y}; one column per watched element.")
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
    _show_crosscheck(comparison)
    shown |= _show_check(comparison, key=key)
    st.markdown("### Diagnosis")
    show_findings(comparison.diagnosis, shown=shown)   # each thing is said once: failures and a skipped check above
    _show_timings(comparison, key=key)


def _show_warnings(comparison: gradlib.Comparison) -> set[str]:
    """The methods' warnings the diagnosis does not explain, and their failures; returns the failures' texts."""
    seen = {f.text for f in comparison.diagnosis} | {w for f in comparison.diagnosis for w in f.explains}
    for name, result in comparison.results.items():
        for warning in result.warnings:
            if warning not in seen:
                seen.add(warning)
                st.warning(escape(warning))
    for name, message in comparison.errors.items():
        show_error(f"Method {name} failed", message)
    return set(comparison.errors.values())


def _show_broken_beside_correct(comparison: gradlib.Comparison, *, key: str) -> None:
    rows, labels, broken = broken_beside_correct(comparison)
    if not rows:
        return
    best = comparison.best
    st.markdown("### Naive and summed beside the correct result")
    st.caption("The naive loop iterates y after the tape block (zeros); tape.gradient(y, x) returns the column "
               "sums of the rows below it.")
    show_matrix(rows, labels, best.col_labels, index_name="method")
    show_chart(figures.gradient_bars, rows, labels, best.col_labels, MAX_BAR_CELLS, key=f"{key}_broken_bars",
               title="Naive and summed against the correct rows", broken=broken)


def broken_beside_correct(comparison: gradlib.Comparison) -> tuple[list[list[float]], list[str], list[str]]:
    """The rows of the naive and summed results followed by the correct rows, their labels, and the broken labels."""
    rows: list[list[float]] = []
    labels: list[str] = []
    for name in ("naive", "summed"):
        result = comparison.results.get(name)
        if result is not None:
            rows += result.jacobian.tolist()
            labels += [f"{name}: {label}" for label in result.row_labels]
    if not rows:
        return [], [], []
    broken = list(labels)
    best = comparison.best
    rows += best.jacobian.tolist()
    labels += [f"correct: {label}" for label in best.row_labels]
    return rows, labels, broken


def _show_agreement(comparison: gradlib.Comparison) -> None:
    st.markdown("### Agreement across methods")
    if not comparison.agreement:
        st.info(f"None of the chosen methods ran, so there is nothing to compare; the results above are "
                f"{comparison.reference!r}'s.")
        return
    frame = agreement_frame(comparison)
    show_table(frame)
    st.caption(method_legend(list(frame.index)))


def agreement_frame(comparison: gradlib.Comparison) -> pd.DataFrame:
    """One row per chosen method: those that ran, how far from the reference; those that failed or were left out,
    with why (a method that did not run is never dropped from the table)."""
    rows = [{"method": a.method, "agrees": "yes" if a.agrees else "NO", "max |difference|": _max_difference(a),
             "cells that differ": f"{a.differing}: {a.example}" if a.differing else "0", "compared with": a.against}
            for a in comparison.agreement]
    for verdict, reasons in (("failed", comparison.errors), ("left out", comparison.skipped)):
        rows += [{"method": method, "agrees": verdict, "max |difference|": "", "cells that differ": "",
                  "compared with": "", "why": why} for method, why in reasons.items()]
    return pd.DataFrame(rows).fillna("").set_index("method")


def _max_difference(a: gradlib.Agreement) -> str:
    """The largest difference between cells finite on both sides; where NaN or inf is on one side only, no number
    measures those cells (a bare 0 beside NO read as a disagreement of nothing), so the cell says so."""
    largest = gradlib.format_number(a.max_abs_diff, 3)
    if not a.nonfinite:
        return largest
    cells = "1 cell differs" if a.nonfinite == 1 else f"{a.nonfinite} cells differ"
    return f"{largest} between finite cells; {cells} in NaN or inf"


def _show_crosscheck(comparison: gradlib.Comparison) -> None:
    """The same gradients eagerly, as a graph and under XLA, when the comparison has them (or why not)."""
    cross, note = comparison.crosscheck, comparison.crosscheck_note
    if cross is None and not note:
        return
    st.markdown("### Eager, graph and XLA")
    if cross is None:
        st.info(f"The cross-check was left out: {escape(note)}")
        return
    show_table(crosscheck_table(cross))
    st.caption("The same per-element gradients computed eagerly (one reverse pass per output: the reference), as a "
               "graph (tf.function) and compiled with XLA (tf.function(jit_compile=True)). A mode agrees when it has "
               f"NaN and infinity in the same cells and its finite cells are within {cross.tolerance:g} of eager's, "
               "relative to the largest finite gradient or to 1 if that is smaller (so gradients below 1 are compared by "
               "their absolute difference: the max relative row). "
               + ("Where a mode differs, the diagnosis below says how." if cross.differing else escape(cross.summary)))


def crosscheck_table(cross: Any) -> pd.DataFrame:
    """One column per mode of a ``gradlib.CrossCheck`` (a row per mode ran past a 390 px screen): whether it agrees
    with eager, and by how much it differs.

    The cells NaN or infinite in one mode only are counted both ways: in this mode only, and eagerly only.
    """
    verdict = {"reference": "reference", "agrees": "yes", "differs": "NO", "failed": "failed", "skipped": "left out"}
    rows = [{"mode": m.mode, "agrees with eager": verdict[m.status],
             "max |difference|": "" if math.isnan(m.max_abs) else gradlib.format_number(m.max_abs, 3),
             "max relative": "" if math.isnan(m.max_rel) else gradlib.format_number(m.max_rel, 3),
             "NaN/inf here only": "" if m.status in ("failed", "skipped") else str(m.nonfinite_here),
             "NaN/inf eager only": "" if m.status in ("failed", "skipped") else str(m.nonfinite_reference)}
            for m in cross.modes]
    return pd.DataFrame(rows).set_index("mode").T.rename_axis("compared with eager")


def method_legend(methods: Sequence[str]) -> str:
    """One line that says what each of ``methods`` computes (the tables and chips show the bare names).

    >>> method_legend(["unstack", "naive"])
    'unstack: per element, reverse mode · naive: the broken loop: zeros'
    """
    return " · ".join(f"{m}: {METHOD_WHAT.get(m, m)}" for m in methods)


def _show_check(comparison: gradlib.Comparison, *, key: str) -> set[str]:
    """The check's verdict and its error heatmap; returns the texts shown that the diagnosis would repeat."""
    check = comparison.check
    best = comparison.best
    st.markdown("### Finite-difference check")
    summary = escape(check.summary(best.row_labels, best.col_labels))
    if check.skipped:
        st.info(summary)
        return {check.skipped}
    if check.passed:
        st.success(f"Finite-difference check passed. {summary}")
    else:
        st.warning(f"Finite-difference check: {summary}")
    checked = check.reason == 0 if check.reason is not None else np.ones(check.error.shape, bool)
    if checked.any():   # an unchecked cell has no error to draw: it is named "not checked", and the summary says why
        show_chart(figures.error_heatmap, np.where(checked, check.error, np.nan), best.row_labels, best.col_labels,
                   MAX_HEATMAP_CELLS, key=f"{key}_fd", unchecked=~checked)
    return set()


def _show_timings(comparison: gradlib.Comparison, *, key: str) -> None:
    st.markdown("### Timings")
    if not comparison.results:
        st.caption("None of the chosen methods ran, so there is nothing to time.")
        return
    frame, seconds = timing_table(comparison)
    broken = {name for name, r in comparison.results.items() if r.broken or not r.per_element}
    left, right = st.columns([2, 3])
    with left:
        st.table(frame.set_index("method"))
        repeats = max((len(t.warm) for t in comparison.timings.values()), default=0)
        st.caption(f"The first call of a method may trace or fill a cache, so it is shown apart (tracing included); "
                   f"the warm time is the median of {repeats} calls that traced nothing, each run as the one before "
                   "it (when they fit in half a second; their range in brackets), and the chart shows it (log scale); "
                   "a method without warm calls is charted by its first call, labelled so. On a shared server: "
                   "compare ratios, not absolute times.")
    with right:
        st.plotly_chart(figures.timing_bars(seconds, broken=broken, log=True), key=f"{key}_timings",
                        config={"displaylogo": False})


def timing_table(comparison: gradlib.Comparison) -> tuple[pd.DataFrame, dict[str, float]]:
    """The timings table (first call apart, warm median and range) and the seconds the chart shows per method:
    the warm median, or the first call (labelled so) when no warm call was timed."""
    rows, seconds = [], {}
    for name, r in comparison.results.items():
        t = comparison.timings.get(name)
        first = t.first if t else r.seconds
        warm = t.warm if t else ()
        ran = r.method + (" compiled" if r.compiled else "")
        if warm and t.ran_as and t.ran_as != ran:   # auto compiled (or XLA was adopted) after the first call
            ran += f"; warm: {t.ran_as}"
        rows.append({"method": name, "ran as": ran,
                     "first ms": f"{1000 * first:.3g}",
                     "warm ms": (f"{1000 * t.median:.3g} ({1000 * min(warm):.3g}-{1000 * max(warm):.3g})" if warm
                                 else "not timed")})
        seconds[name if warm else f"{name} (first call)"] = t.median if warm else first
    return pd.DataFrame(rows), seconds
