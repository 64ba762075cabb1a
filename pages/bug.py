"""The bug, side by side: the seed question's zeros, its summed gradient, and the right per-element rows."""

from __future__ import annotations

from dashboard import frame

TITLE = "The bug, side by side"
INTRO = (
    "The seed question: with `x = [3, 4, 5]` and `y = [x0*x1*x2, x0*x1*x2*x0]`, the per-element "
    "gradients of `y` come out as zeros when `y` is a tensor. Every number on this page is computed "
    "by TensorFlow as the page loads."
)
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import streamlit as st

from gradlib import figures, format_number
from gradlib.examples import PRESETS_BY_KEY
from dashboard import render, services

SEED = PRESETS_BY_KEY["seed"]   # y = [x0*x1*x2, x0*x1*x2*x0] at x = (3, 4, 5)
METHODS = ("naive", "summed", "unstack", "jacobian")

#: the code shown side by side: each line at most 44 characters, the width of a column at 1366 px (wider lines
#: scroll sideways, and their ends were out of sight on a laptop)
SEED_CODE = """\
x = [tf.constant(3.0), tf.constant(4.0),
     tf.constant(5.0)]
ZERO = tf.UnconnectedGradients.ZERO
with tf.GradientTape(persistent=True) as g:
    g.watch(x)
    y_as_list = [x[0]*x[1]*x[2],
                 x[0]*x[1]*x[2]*x[0]]
    y_as_tensor = tf.stack(y_as_list)

# summed: one row, the gradient of sum(y)
g.gradient(y_as_tensor, x,
           unconnected_gradients=ZERO)

# per element: all zeros, because the loop
# runs after the tape block
[g.gradient(y_i, x,
            unconnected_gradients=ZERO)
 for y_i in y_as_tensor]
"""

FIXED_CODE = """\
x = [tf.constant(3.0), tf.constant(4.0),
     tf.constant(5.0)]
with tf.GradientTape(persistent=True) as g:
    g.watch(x)
    y_as_list = [x[0]*x[1]*x[2],
                 x[0]*x[1]*x[2]*x[0]]
    y_as_tensor = tf.stack(y_as_list)
    # inside the tape: recorded
    y_elements = tf.unstack(y_as_tensor)

# per element: one row per element of y
[g.gradient(y_i, x) for y_i in y_elements]
# [20, 15, 12], [120, 45, 36]

# or all rows at once, vectorized
g.jacobian(y_as_tensor, x)
"""

WHY = (
    "A `GradientTape` records the operations that run **inside** its `with` block, and nothing else. "
    "`for y_i in y_as_tensor` runs *after* the block, and iterating a tensor is itself an operation "
    "(`unstack`, one slice per element): each `y_i` is a new tensor the tape never saw, so nothing connects "
    "it to `x` and the gradient is unconnected — `None`, or zeros with `UnconnectedGradients.ZERO`. "
    "The list version works because its elements were computed inside the block. `tape.gradient(y, x)` on "
    "the whole tensor is not per element either: for a non-scalar `y` it differentiates `sum(y)`, so it "
    "returns the column sums of the Jacobian. The fix is to unstack *inside* the tape (or call "
    "`tape.jacobian(y, x)`); `tf.stack` is differentiable, whatever the seed's answer says."
)


def _row(values) -> str:
    return "[" + ", ".join(format_number(v) for v in values) + "]"


def main() -> None:
    comparison = render.attempt("The seed example could not be computed",
                             lambda: services.compare(SEED.outputs, SEED.inputs, SEED.watch, SEED.dtype, METHODS))
    if comparison is None:
        return
    naive, summed, best = comparison.results["naive"], comparison.results["summed"], comparison.best
    cols = best.col_labels

    st.markdown("## Three answers to one question")
    broken, summed_col, correct = st.columns(3)
    with broken:
        st.markdown("#### Naive loop: broken")
        st.error("Broken. `[g.gradient(y_i, x) for y_i in y]` after the tape block: every gradient is zero.")
        render.show_matrix(naive.jacobian, naive.row_labels, cols, index_name="d y_i / d")
    with summed_col:
        st.markdown("#### tape.gradient(y, x): summed")
        st.warning(f"Not per element. One row, {_row(summed.jacobian[0])}: the gradient of sum(y), not of any one element.")
        render.show_matrix(summed.jacobian, summed.row_labels, cols)
    with correct:
        st.markdown("#### Per-element rows: correct")
        st.success(f"Correct. y[0] → {_row(best.jacobian[0])}, y[1] → {_row(best.jacobian[1])}.")
        render.show_matrix(best.jacobian, best.row_labels, cols, index_name="d y_i / d")

    sums = best.jacobian.sum(axis=0)
    terms = ", ".join(f"{format_number(a)} + {format_number(b)} = {format_number(s)}"
                      for a, b, s in zip(best.jacobian[0], best.jacobian[1], sums))
    st.markdown(f"**The summed row is the column sums of the correct rows:** {terms}. "
                f"tape.gradient gave {_row(summed.jacobian[0])}.")

    rows, labels, broken_rows = render.broken_beside_correct(comparison)
    st.markdown("## All rows together")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(figures.gradient_table(rows, labels, cols, title="Gradient rows, by method"),
                        key="bug_table", config={"displaylogo": False})
    with right:
        st.plotly_chart(figures.gradient_bars(rows, labels, cols, title="Naive, summed and correct, per x",
                                              broken=broken_rows),
                        key="bug_bars", config={"displaylogo": False})

    st.markdown("## The seed's code, and the corrected code")
    left, right = st.columns(2)
    with left:
        st.markdown("#### The seed's code (zeros)")
        st.code(SEED_CODE, language="python")
    with right:
        st.markdown("#### Corrected: unstack inside the tape")
        st.code(FIXED_CODE, language="python")

    st.markdown("## Why")
    st.markdown(WHY)
    st.markdown("## Diagnosis, computed")
    render.show_findings(comparison.diagnosis)
    st.page_link("pages/playground.py", label="Try your own function in the playground", icon=":material/science:")


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
