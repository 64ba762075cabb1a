"""PDE residuals: a physics-informed network's residual over its domain, each derivative by name, the nested tapes
that compute the same (and their classic mistakes, run live), and a training step's weight gradients."""

from __future__ import annotations

from dashboard import frame

TITLE = "PDE residuals"
INTRO = (
    "A physics-informed network is trained on its equation's residual at collocation points: `u_t + u·u_x − ν·u_xx` "
    "needs `u_x`, `u_t` and `u_xx` at every point, **inside** the training step. `gradlib.pde` gives them by name "
    "as tensors that stay on your tape. Pick an equation on a small seeded tanh network, type your own residual, or "
    "type a closed-form `u` to check that an exact solution gives a zero residual. Everything here is computed live."
)
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import streamlit as st

import gradlib
from dashboard import pde, render, services, share
from dashboard.limits import PDE_GRID
from gradlib import figures

_KEYS = {"equation": "pde_equation", "residual": "pde_residual", "u": "pde_u", "grid": "pde_grid", "t": "pde_t"}
_DEFAULTS = {"equation": "burgers", "residual": "", "u": "", "grid": 33, "t": 0.5}
_CONFIG = {"displaylogo": False}


def restore_link() -> None:
    """On a session's first run, the inputs a share link carries (a bad link: an error, the defaults kept)."""
    ss = st.session_state
    if "pde_restored" in ss:
        return
    ss["pde_restored"] = True
    for key, value in _DEFAULTS.items():
        ss.setdefault(_KEYS[key], value)
    found = render.attempt("This link's inputs cannot be used", lambda: share.decode_pde(st.query_params.to_dict()))
    for key, value in (found or {}).items():
        if key == "equation" and value not in pde.PRESETS:
            render.show_error("This link's inputs cannot be used", f"share link: equation {value!r} is not one of "
                              f"{', '.join(pde.PRESETS)}; the default is kept")
            continue
        if key == "grid" and not PDE_GRID[0] <= value <= PDE_GRID[1]:
            render.show_error("This link's inputs cannot be used", f"share link: grid {value} points per side is "
                              f"outside the app's limit, {PDE_GRID[0]} to {PDE_GRID[1]}; the default is kept")
            continue
        ss[_KEYS[key]] = value


def inputs() -> pde.State:
    """The form: an equation, an optional typed residual or closed form u, the grid and the fixed t."""
    with st.form("pde_form"):
        st.selectbox("Equation", list(pde.PRESETS), key=_KEYS["equation"],
                     format_func=lambda k: pde.PRESETS[k].label)
        st.text_input("Residual (empty: the equation's own)", key=_KEYS["residual"],
                      max_chars=share.PDE_LENGTHS["residual"],
                      help="gradlib's expression language: outputs (u, v, p), derivatives by name (u_x, u_xt), "
                           "coordinates, the equation's constants and pi. Parsed, never executed.")
        st.text_input("Closed-form u (empty: the seeded tanh network)", key=_KEYS["u"],
                      max_chars=share.PDE_LENGTHS["u"], placeholder="sin(pi*x)*exp(-t)",
                      help="A function of the coordinates, in gradlib's expression language: an exact solution "
                           "gives a zero residual.")
        st.number_input("Grid points per side", min_value=PDE_GRID[0], max_value=PDE_GRID[1], step=1,
                        key=_KEYS["grid"])
        st.number_input("Fixed value of the coordinates past the first two (heat: t)", key=_KEYS["t"], format="%.3f")
        st.form_submit_button("Compute")
    ss = st.session_state
    return pde.State(ss[_KEYS["equation"]], ss[_KEYS["residual"]], ss[_KEYS["u"]], int(ss[_KEYS["grid"]]),
                     float(ss[_KEYS["t"]]))


def show_residual(state: pde.State, view: pde.View) -> None:
    a, b = view.axes
    fig = figures.field_heatmap(view.residual, view.xs, view.ys,
                                title=f"Residual {state.residual_text} over ({a}, {b})", colourbar_title="residual")
    fig.update_layout(xaxis={"title": {"text": a}}, yaxis={"title": {"text": b}})
    st.plotly_chart(fig, key="pde_residual_map", config=_CONFIG)
    largest = float(abs(view.residual).max())
    st.markdown(f"Largest |residual| over the {state.grid}×{state.grid} grid: **{gradlib.format_number(largest, 3)}**"
                + (" (the closed form's residual: zero to rounding means an exact solution)"
                   if state.closed_form.strip() else " (an untrained network: not zero)" if largest else
                   " (zero on the untrained network too: so is every weight gradient of mean(residual²), and a "
                   "training step on it changes nothing)"))


def show_derivative(view: pde.View) -> None:
    st.markdown("### Each derivative by name")
    name = st.selectbox("Derivative", view.names, key="pde_derivative")
    a, b = view.axes
    fig = figures.field_heatmap(view.values[name], view.xs, view.ys, title=f"{name} over ({a}, {b})",
                                colourbar_title=name)
    fig.update_layout(xaxis={"title": {"text": a}}, yaxis={"title": {"text": b}})
    st.plotly_chart(fig, key="pde_derivative_map", config=_CONFIG)
    st.caption(f"Largest |gradlib.pde − nested tapes| for {name}: "
               f"{gradlib.format_number(view.nested_difference[name], 3)}")


def show_mistakes(state: pde.State) -> None:
    st.markdown("### The same with nested tapes, and their classic mistakes")
    st.code(pde.code(state), language="python")
    for m in render.attempt("The mistakes could not be run", lambda: services.pde_mistakes(state)) or []:
        st.markdown(f"**{m.title}**")
        wrong, right = st.columns(2)
        with wrong:
            st.code(m.code, language="python")
        with right:
            st.caption("What TensorFlow gave just now:")
            st.warning(m.outcome)
            st.caption("What to do:")
            st.success(m.right)


def show_step(state: pde.State) -> None:
    st.markdown("### A training step: the weight gradients of mean(residual²)")
    if state.closed_form.strip():
        st.info("A closed-form u has no weights to train: clear it to run the network's training step.")
        return
    step = render.attempt("The training step could not be run", lambda: services.pde_step(state))
    if step is None:
        return
    rows = [{"weight": n, "|gradient|": "None" if g != g else gradlib.format_number(g, 4)}
            for n, g in zip(step.variables, step.norms)]
    st.dataframe(rows, hide_index=True, width="stretch")
    st.markdown(f"{len(step.variables) - step.missing} of {len(step.variables)} weights have a gradient"
                + (" (a None is a weight the residual does not reach, in nested tapes too)" if step.missing else "")
                + ".")
    if step.max_difference is None:
        st.caption("A typed residual has no hand-written nested-tape reference here; pick an equation to compare.")
    else:
        st.markdown(f"Largest |gradlib.pde − nested tapes| over every weight gradient: "
                    f"**{gradlib.format_number(step.max_difference, 3)}**")


def show_link(state: pde.State) -> None:
    fields = {"equation": state.preset, "residual": state.text, "u": state.closed_form, "grid": state.grid,
              "t": state.t}
    url = render.attempt("This state cannot be shared", lambda: share.link_pde(fields, st.context.url))
    if url is not None:
        st.caption("Share these inputs:")
        st.code(url, language=None, wrap_lines=True)


restore_link()
state = inputs()
view = render.attempt("The residual could not be computed", lambda: services.pde_view(state))
if view is not None:
    show_residual(state, view)
    show_derivative(view)
show_mistakes(state)
show_step(state)
show_link(state)
