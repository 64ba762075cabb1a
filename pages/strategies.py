"""Strategies: time the methods as the problem grows, and which method to pick when."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import frame, render, scaling, services
from gradlib import figures

SIZES = (2, 4, 8, 16, 32, 64, 128, 256)
SHAPES = {"square": "square: as many outputs as inputs", "wide": "wide: few outputs, many inputs",
          "tall": "tall: many outputs, few inputs"}
#: the dimension that grows with the size, per shape (the chart's x axis)
GROWING = {"square": "size", "wide": "inputs", "tall": "outputs"}
TIMED_METHODS = ("unstack", "jacobian", "forward", "auto")
ss = st.session_state

GUIDE = """\
| Situation | Pick | Why |
|---|---|---|
| A few outputs, many inputs (a loss per sample, a small head on a big input) | `unstack` or `jacobian` (reverse mode) | one backward pass per output; `tape.jacobian` vectorizes them |
| Many outputs, a few inputs (a curve, a trajectory of a few parameters) | `forward` (forward mode) | one forward pass per input, whatever the number of outputs |
| Both large, in a loop you repeat | `jacobian` or `forward`, compiled | `tf.function` traces once; the vectorized passes amortize |
| One-off, small problems (up to ~32 passes) | `unstack`, eager | tracing a `tf.function` costs more than it saves; `auto` compiles a small problem once you call it repeatedly |
| You are not sure | `auto` | gradlib picks the mode by the shape, and repairs NaN-poisoned rows |
| Never | `naive` loop, or `tape.gradient` on a vector | zeros, or the column sums: not per-element gradients |
"""


def timing_form() -> tuple[bool, list[int], str, list[str], int]:
    """The form: sizes, shape, methods and repeats. Nothing is timed until it is submitted."""
    with st.form("st_form", enter_to_submit=False):
        left, right = st.columns(2)
        sizes = left.multiselect("Problem sizes", SIZES, default=[4, 16, 64, 128], key="st_sizes",
                                 max_selections=len(SIZES))
        shape = right.selectbox("Shape of the Jacobian", list(SHAPES), format_func=SHAPES.get, key="st_shape")
        methods = left.multiselect("Methods", TIMED_METHODS, default=list(TIMED_METHODS), key="st_methods",
                                   format_func=lambda m: render.METHOD_LABELS.get(m, m))
        repeats = right.number_input("Repeats (the median is kept)", min_value=1, max_value=5, value=3, step=1,
                                     key="st_repeats")
        submitted = st.form_submit_button("Run the timing", type="primary", key="st_run")
    return submitted, sorted(int(s) for s in sizes), shape, list(methods), int(repeats)


def run_timing(sizes: list[int], shape: str, methods: list[str], repeats: int) -> pd.DataFrame | None:
    """Time each method at each size (each pair cached), with a progress bar; ``None`` after showing an error."""
    if not sizes or not methods:
        render.show_error("Nothing to time", "choose at least one size and one method")
        return None
    if not (set(sizes) <= set(SIZES) and set(methods) <= set(TIMED_METHODS) and shape in SHAPES
            and 1 <= repeats <= 5):   # the widgets bound these; the server checks again
        render.show_error("This timing is not offered", f"sizes come from {SIZES}, methods from {TIMED_METHODS}, "
                       "shapes from square, wide, tall, and 1 to 5 repeats")
        return None
    jobs = [(size, method) for size in sizes for method in methods]
    bar = st.progress(0.0, text="Starting…")
    frames = []
    for k, (size, method) in enumerate(jobs):
        bar.progress(k / len(jobs), text=f"Timing {method} at size {size} ({k + 1} of {len(jobs)})…")
        timing = render.attempt(f"Timing {method} at size {size} failed",
                            lambda size=size, method=method: services.scaling((size,), (method,), shape, repeats))
        if timing is None:
            bar.empty()
            return None
        frames.append(timing)
    bar.progress(1.0, text=f"Done: {len(sizes)} sizes × {len(methods)} methods.")
    timings = pd.concat(frames, ignore_index=True)
    timings["ratio"] = timings["seconds"] / timings.groupby("size")["seconds"].transform("min")
    return timings


def show_timing(timings: pd.DataFrame, shape: str) -> None:
    """The log-log chart, the fastest method per size, and the table."""
    x = GROWING.get(shape, "size")
    st.markdown("### Time as the problem grows")
    st.plotly_chart(figures.scaling_chart(timings, x=x, title=f"Seconds against {x} ({shape} Jacobian)"),
                    key="st_chart", config={"displaylogo": False})
    fastest = timings.loc[timings.groupby("size")["seconds"].idxmin(), ["size", "outputs", "inputs", "method", "seconds"]]
    st.markdown("### Fastest method per size")
    st.table(fastest.assign(seconds=fastest["seconds"].map(lambda s: f"{s:.4g}")).set_index("size"))
    st.markdown("### All timings")
    st.dataframe(timings, hide_index=True)
    st.caption("Measured on this shared server, one process: compare ratios between methods, not absolute times.")


def main() -> None:
    frame.ensure_routed()
    st.title("Strategies")
    st.markdown("Reverse mode costs one backward pass per **output**; forward mode one forward pass per "
                "**input**. Time the methods as the problem grows and see where each one wins.")
    st.markdown("## Which method to pick when")
    st.markdown(GUIDE)
    st.markdown("## Time them yourself")
    st.markdown(f"The problem is a small tanh network, `{scaling.EXPRESSION}`, differentiated with respect to `x`; "
                f"*wide* has {scaling.NARROW} outputs, *tall* {scaling.NARROW} inputs. Each time is the median of the "
                "repeats, after one untimed call that traces the compiled methods.")
    submitted, sizes, shape, methods, repeats = timing_form()
    if submitted:
        timings = run_timing(sizes, shape, methods, repeats)
        if timings is not None:
            ss["st_result"] = (timings, shape)
    if "st_result" in ss:
        show_timing(*ss["st_result"])
    else:
        st.info("Press **Run the timing** to measure; nothing runs until you do.")


main()
