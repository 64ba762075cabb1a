"""Why zeros? What the tape records and what it does not, each point shown by a live TensorFlow computation."""

from __future__ import annotations

from dashboard import frame

TITLE = "Why zeros?"
INTRO = (
    "A `tf.GradientTape` is a recording: while its `with` block runs, it notes every TensorFlow operation "
    "applied to a watched tensor (or to anything computed from one). `tape.gradient(target, sources)` then "
    "walks that record backwards. A gradient comes out as `None` (or zeros, with "
    "`unconnected_gradients=tf.UnconnectedGradients.ZERO`) whenever the record holds no path from the "
    "sources to the target: the target was made outside the block, left TensorFlow, or the source was "
    "never watched. Each case below runs in TensorFlow as this page loads; `None` in a table is what "
    "TensorFlow returned."
)
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import streamlit as st

from gradlib import examples
from dashboard import render, services

def show_demo(demo: examples.Demo) -> None:
    """One pitfall: the explanation, the broken code and its live result, the fix and its live result."""
    st.markdown(f"### {demo.title}")
    st.markdown(demo.explanation)
    rows_of = list(demo.targets) or [f"y[{k}]" if len(demo.fixed) > 1 else "y" for k in range(len(demo.fixed))]
    broken_col, fixed_col = st.columns(2)
    if demo.broken is not None:
        with broken_col:
            st.markdown("**Broken**")
            st.code(demo.broken_code, language="python")
            st.caption("What TensorFlow returned just now:")
            st.table(render.matrix_frame(demo.broken, rows_of[:len(demo.broken)], demo.labels, "gradient of"))
    with fixed_col if demo.broken is not None else broken_col:
        st.markdown("**Fixed**" if demo.broken is not None else "**Shown**")
        st.code(demo.fixed_code, language="python")
        st.caption("What TensorFlow returned just now:")
        st.table(render.matrix_frame(demo.fixed, rows_of, demo.labels, "gradient of"))
    if demo.note:
        st.info(demo.note)


def main() -> None:
    st.markdown("**The cases:** " + " · ".join(f"{k + 1}. {name.replace('_', ' ')}"
                                              for k, name in enumerate(examples.DEMOS)))
    for name in examples.DEMOS:
        demo = render.attempt(f"The demonstration {name!r} could not run", lambda name=name: services.demonstrate(name))
        if demo is not None:
            show_demo(demo)
        st.divider()
    st.page_link("pages/playground.py", label="Check your own function in the playground", icon=":material/science:")


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
