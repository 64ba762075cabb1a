"""Strategies: time the methods as the problem grows, and which method to pick when."""

from __future__ import annotations

from dashboard import frame

TITLE = "Strategies"
INTRO = ("Reverse mode costs one backward pass per **output**; forward mode one forward pass per **input**. "
         "Time the methods as the problem grows and see where each one wins.")
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import pandas as pd
import streamlit as st

from dashboard import render, scaling, services
from gradlib import figures

SIZES = (2, 4, 8, 16, 32, 64, 128, 256)
SHAPES = {"square": "square: as many outputs as inputs", "wide": "wide: few outputs, many inputs",
          "tall": "tall: many outputs, few inputs"}
#: the dimension that grows with the size, per shape (the chart's x axis)
GROWING = {"square": "size", "wide": "inputs", "tall": "outputs"}
TIMED_METHODS = ("unstack", "jacobian", "forward", "structured", "auto")
ss = st.session_state

GUIDE = """\
| Situation | Pick | Why |
|---|---|---|
| Called more than once, any shape (a training step, a loop you repeat) | `jacobian`, compiled | one vectorized call (pfor) replaces all the passes; `tf.function` traces once, then each call costs about a millisecond at the sizes below |
| One call of a small problem | `unstack`, eager | no trace to pay for (tracing costs tenths of a second); its cost grows with the number of outputs |
| Many outputs, few inputs, eager | `forward` (forward mode) | one pass per **input** instead of per output; eagerly each forward pass costs about three reverse passes, so it wins only when outputs outnumber inputs by more than that |
| A typed function (the text), called more than once | `structured` | the Jacobian assembled from the function's operations (a diagonal per element-wise function, a matrix per product), with no backward pass; `auto` takes it, compiled, where its estimate is the lowest |
| You are not sure | `auto` | runs eagerly while a problem is small and new, and compiles it once its eager calls have cost about as much as a trace (0.3 s); the timing below calls it until it has settled, so its warm time is the one it keeps |
| Never | `naive` loop, or `tape.gradient` on a vector | zeros, or the column sums: not per-element gradients |
"""
#: how a point is drawn: a filled marker ran compiled, an open one eagerly
MARKERS_NOTE = ("Filled markers ran as a compiled tf.function, open markers eagerly (the `compiled` column). A line "
                "joins warm times only; a cross is a method whose first call was too slow to repeat within the page's "
                f"budget: that one call, not ranked, {scaling.ONE_CALL!r} in the `timed` column when it traced (a "
                f"compiled method's first call) and {scaling.ONE_UNTRACED!r} when it did not (an eager call).")


def timing_form() -> tuple[bool, list[int], str, list[str], int]:
    """The form: sizes, shape, methods and repeats. Nothing is timed until it is submitted."""
    with st.form("st_form", enter_to_submit=False):
        left, right = st.columns(2)
        # wrap=True: in a column Streamlit keeps the chips on one row that scrolls sideways, and 'structured' and
        # 'auto' were hidden (at 390 px, and at 1366 px too), so nobody could see they were chosen
        sizes = left.multiselect("Problem sizes", SIZES, default=[4, 16, 64, 128], key="st_sizes",
                                 max_selections=len(SIZES), wrap=True)
        shape = right.selectbox("Shape of the Jacobian", list(SHAPES), format_func=SHAPES.get, key="st_shape")
        methods = left.multiselect("Methods", TIMED_METHODS, default=list(TIMED_METHODS), key="st_methods",
                                   help=render.method_legend(TIMED_METHODS), wrap=True)
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
    return scaling.with_ratios(pd.concat(frames, ignore_index=True))


def show_timing(timings: pd.DataFrame, shape: str) -> None:
    """The log-log chart (compiled or eager per point), what this run measured, and the table."""
    x = GROWING.get(shape, "size")
    st.markdown("### Time as the problem grows")
    st.plotly_chart(figures.scaling_chart(timings, x=x, title=f"Seconds against {x} ({shape} Jacobian)"),
                    key="st_chart", config={"displaylogo": False})
    st.caption(MARKERS_NOTE)
    st.markdown("### What this run measured")
    st.markdown("\n".join(f"- {line}" for line in scaling.measured_lines(timings)))
    st.markdown("### All timings")
    st.dataframe(timings, hide_index=True)
    st.caption("Measured on this shared server, one process: compare ratios between methods, not absolute times.")


def main() -> None:
    st.markdown("## Which method to pick when")
    st.markdown(GUIDE)
    st.markdown("## Time them yourself")
    st.markdown(f"The problem is a small tanh network, `{scaling.EXPRESSION}`, differentiated with respect to `x`; "
                f"*wide* has {scaling.NARROW} outputs, *tall* {scaling.NARROW} inputs. Each warm time is the median of "
                "the repeats, timed once a method's calls run as the one before them (nothing traced: `auto` "
                "compiling, XLA tried); the first call is its own column (tracing included when gradlib compiles "
                f"the method; an eager call traces nothing). A first call over {scaling.SLOW_SECONDS:g} s is not "
                "repeated: it is shown as one call, labelled with whether it traced, and not ranked.")
    submitted, sizes, shape, methods, repeats = timing_form()
    if submitted:
        timings = run_timing(sizes, shape, methods, repeats)
        if timings is not None:
            ss["st_result"] = (timings, shape)
    if "st_result" in ss:
        show_timing(*ss["st_result"])
    else:
        st.info("Press **Run the timing** to measure; nothing runs until you do.")


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
