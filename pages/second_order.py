"""Second order: the seed's question an order higher, the nested-tape mistakes beside what is right, and a
network's Laplacian over a 2-D grid (a small physics example)."""

from __future__ import annotations

from dashboard import frame

TITLE = "Second order"
INTRO = (
    "The seed asks for the gradient of each element of `y`; the next question is the same one an order higher: "
    "the Hessian of each element, each sample's Laplacian (a physics-informed network needs `u_xx` at every "
    "point), a divergence. TensorFlow has no Hessian API: it is built from nested tapes, and the mistakes below "
    "give `None` or a silently wrong number. Everything on this page is computed live by `gradlib`."
)
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import numpy as np
import streamlit as st

import gradlib
from gradlib import examples
from dashboard import progress, render, services
from gradlib import figures


def show_seed() -> None:
    st.markdown("### The seed's function, an order higher")
    st.markdown("`y = [x0·x1·x2, x0²·x1·x2]` at `x = (3, 4, 5)`: `gradlib.hessians(fn, x)` gives one Hessian per "
                "element of `y`.")
    result = render.attempt("The seed's Hessians could not be computed", services.second_order_seed)
    if result is None:
        return
    for k, label in enumerate(result.row_labels):
        st.markdown(f"**Hessian of {label}** (method `{result.method}`)")
        render.show_matrix(result.hessian[k], result.col_labels, result.col_labels)
        st.plotly_chart(figures.hessian_heatmap(result.hessian[k], result.col_labels, title=f"Hessian of {label}"),
                        key=f"seed-{k}", config={"displaylogo": False})


def show_mistake(m: examples.SecondOrderMistake) -> None:
    st.markdown(f"### {m.title}")
    st.markdown(m.explanation)
    broken_col, fixed_col = st.columns(2)
    labels = [f"[{k}]" for k in range(max(len(m.broken), len(m.fixed)))]
    with broken_col:
        st.markdown("**Broken**")
        st.code(m.broken_code, language="python")
        st.caption("What TensorFlow returned just now:")
        st.table(render.matrix_frame([m.broken], [m.target], labels[:len(m.broken)]))
    with fixed_col:
        st.markdown("**Right**")
        st.code(m.fixed_code, language="python")
        if m.fixed_error:
            st.caption("gradlib refuses, because no per-sample Hessian exists here:")
            st.error(m.fixed_error)
            st.caption("Each row's own second derivative, by hand:")
        else:
            st.caption("What TensorFlow returned just now:")
        st.table(render.matrix_frame([m.fixed], [m.target], labels[:len(m.fixed)]))


def show_poisson() -> None:
    st.markdown("### A Laplacian over a 2-D grid")
    st.markdown("`gradlib.laplacian(fn, points)` gives each point's Laplacian at once. For the known solution "
                "`u = sin(πx)·sin(πy)` of the Poisson equation `Δu = −2π²·u`, the residual `Δu + 2π²·u` is zero to "
                "rounding; a small tanh network (untrained) has a Laplacian of its own; the same network with ReLU "
                "has none: its Laplacian is exactly 0, and a residual built on it loses `u_xx` without a word.")
    p = render.attempt("The grid's Laplacians could not be computed", services.second_order_poisson)
    if p is None:
        return
    st.plotly_chart(figures.field_heatmap(p.exact_laplacian, p.xs, p.ys, title="Δu of u = sin(πx)·sin(πy)"),
                    key="exact", config={"displaylogo": False})
    st.markdown(f"Poisson residual `Δu + 2π²·u`: largest {gradlib.format_number(float(np.abs(p.residual).max()), 3)} "
                "over the grid (float64).")
    st.plotly_chart(figures.field_heatmap(p.tanh_laplacian, p.xs, p.ys, title="Δu of a tanh network"),
                    key="tanh", config={"displaylogo": False})
    st.caption(f"Computed with the method `{p.tanh_method}`.")
    st.markdown(f"ReLU network: largest |Δu| = {gradlib.format_number(float(np.abs(p.relu_laplacian).max()))}.")
    for warning in p.relu_warnings:
        st.warning(warning)


#: each computation of the page, what the status box says while it runs, and the cached service that runs it
STEPS = (("the seed's Hessians", "second_order_seed"), ("the nested-tape mistakes", "second_order_mistakes"),
         ("each point's Laplacian over the grid", "second_order_poisson"))


def compute_with_status() -> None:
    """Run the page's computations before its sections, which read the same cached results (a computation that fails
    is reported there, where its section is). A status box at the top names each while it runs, only when what is
    left is expected to take over ``progress.SLOW_SECONDS`` (the first visit: 8-31 s with nothing shown above was the
    complaint); results in the cache show nothing."""
    todo = [(what, name) for what, name in STEPS if progress.expected([name]) > 0]
    if not progress.is_slow(name for _, name in todo):
        for _, name in todo:
            _compute(name)
        return
    seconds = gradlib.format_number(progress.expected(name for _, name in todo), 2)
    with st.status(f"Computing the second-order examples in TensorFlow (about {seconds} s expected)…",
                   expanded=False) as status:
        failed = []
        for k, (what, name) in enumerate(todo):
            status.update(label=f"Computing {what} ({k + 1} of {len(todo)})…")
            if not _compute(name):
                failed.append(what)
        done = [what for what, _ in todo if what not in failed]
        status.update(label=f"Could not compute {', '.join(failed)}: see below" if failed else
                      f"Computed: {', '.join(done[:-1])} and {done[-1]}" if len(done) > 1 else f"Computed: {done[0]}",
                      state="error" if failed else "complete")


def _compute(name: str) -> bool:
    """Run the cached service ``name``; False when it fails (its section runs it again and shows the error)."""
    try:
        getattr(services, name)()
    except Exception:   # noqa: BLE001 - the section below runs it again and shows the error where it belongs
        return False
    progress.finished(name)
    return True


def main() -> None:
    compute_with_status()
    show_seed()
    st.divider()
    mistakes = render.attempt("The nested-tape mistakes could not run", services.second_order_mistakes)
    for m in mistakes or []:
        show_mistake(m)
        st.divider()
    show_poisson()


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
