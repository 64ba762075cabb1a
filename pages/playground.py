"""Playground: your own function's per-element gradients, every method side by side, checked and shareable."""

from __future__ import annotations

from dashboard import frame

TITLE = "Playground"
INTRO = "Type a function, define its inputs, and compare every way of getting its per-element gradients."
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import dataclasses
from typing import Any

import pandas as pd
import streamlit as st

import gradlib
from gradlib import examples
from dashboard import downloads, frame, render, services, share
from gradlib import figures
from dashboard.share import ShareState

DTYPES = ("float32", "float64", "int32", "int64")
HELP_FUNCTION = (
    "One expression in gradlib's language: + - * / ** @, indexing x[0] and slices, [a, b] to stack, and "
    f"{', '.join(sorted(gradlib.FUNCTIONS))}. Nothing you type is run by Python.")
HELP_SECOND = ("Also compute the Hessian of each output element (every second derivative d²y/dxᵢdxⱼ over the watched "
               "elements), with the TensorFlow code that computes it with nested tapes.")
#: said under a refusal of the Hessians over the limits (``hessians_refused``): gradlib's message names the sizes that
#: fit, and options of its Python API the playground has not
HESSIANS_REFUSED = ("What you can change here, to the sizes named above: fewer watched elements ({fewer}), or a "
                    "smaller y (sum or mean over it). A batch, method= or diagonal= named above are options of "
                    "gradlib's Python API (gradlib.hessians, gradlib.per_sample_hessians), not of this page.")
#: the code's caption, with the loop of one gradient per element, and without it (more outputs than gradlib would loop)
CODE_CAPTION = "Runnable as is: one gradient per element (unstack inside the tape), then tape.jacobian."
CODE_CAPTION_VECTORIZED = ("Runnable as is: tape.jacobian, every element's gradient at once (one backward pass per "
                           "element would be more passes than gradlib runs for this many outputs).")
#: how gradlib's refusals over a limit say so ("at most 250,000 are allowed", "the limits allow 5e+02 MB")
LIMIT_WORDS = "allow"
#: the second-order view draws one heatmap per output element, for at most this many elements
MAX_HESSIAN_FIGURES = 12
HELP_VALUE = "A number (3.0), a vector ([1, 2]) or a matrix ([[1, 2], [3, 4]]), as JSON."
#: the input table's column widths in pixels: all four side by side on a phone (390 px); wider screens share
#: the rest of the width out among them
EDITOR_WIDTHS = {"name": 68, "value": 78, "watched": 72, "dtype": 80}
ss = st.session_state


# ---------------------------------------------------------------- state


def preset_state(key: str) -> ShareState:
    """The playground state of the preset ``key``."""
    p = examples.PRESETS_BY_KEY[key]
    return ShareState(p.outputs, dict(p.inputs), p.watch, (), p.dtype if isinstance(p.dtype, str) else dict(p.dtype))


def apply(state: ShareState, *, title: str | None = None) -> None:
    """Make ``state`` the current one and refill the form with it."""
    ss["pg_state"] = state
    ss["pg_version"] = ss.get("pg_version", 0) + 1      # a new input table widget, filled from the state
    ss["pg_outputs"] = state.outputs
    ss["pg_methods"] = list(state.methods or gradlib.METHODS)
    ss["pg_title"] = title
    ss["pg_notice"] = None


def first_load() -> None:
    """The state of a new session: the share link in the URL, or the seed example (with the link's error)."""
    try:
        state = share.decode(st.query_params.to_dict())
        notice = None
    except gradlib.GradlibError as exc:
        state, notice = None, str(exc)
    apply(state or preset_state("seed"), title=None if state else examples.PRESETS_BY_KEY["seed"].title)
    ss["pg_notice"] = notice
    ss["pg_second"] = state is not None and state.order == 2   # a link may open the Hessians too


def load_preset() -> None:
    """The preset selector's callback: load the chosen preset, then clear the selector for the next choice."""
    key = ss.get("pg_preset")
    if key in examples.PRESETS_BY_KEY:
        apply(preset_state(key), title=examples.PRESETS_BY_KEY[key].title)
    ss["pg_preset"] = None


def restore_widgets() -> str:
    """Refill the widgets Streamlit dropped while another page was shown; return the input table's key."""
    state: ShareState = ss["pg_state"]
    if "pg_outputs" not in ss:
        ss["pg_outputs"] = state.outputs
    if "pg_methods" not in ss:
        ss["pg_methods"] = list(state.methods or gradlib.METHODS)
    table_key = f"pg_inputs_{ss['pg_version']}"
    if table_key not in ss:
        ss["pg_rows"] = share.rows_of(state)
    return table_key


# ---------------------------------------------------------------- widgets


def preset_picker() -> Any:
    """The preset selector; returns the place of its "Loaded:" caption, filled once the form is read."""
    st.selectbox("Load a preset", [p.key for p in examples.PRESETS], index=None, key="pg_preset",
                 format_func=lambda k: examples.PRESETS_BY_KEY[k].title, placeholder="Choose a preset…",
                 on_change=load_preset)
    return st.empty()


def loaded_preset() -> examples.Preset | None:
    """The preset whose function is the current one, if the current state came from a preset."""
    return next((p for p in examples.PRESETS if p.title == ss.get("pg_title")), None)


def show_loaded(slot: Any) -> None:
    """The "Loaded: <preset>" caption, while the current function is still that preset's."""
    preset = loaded_preset()
    if preset is not None:
        slot.caption(f"Loaded: **{preset.title}** — {preset.description}")
    elif ss.get("pg_title"):
        slot.caption(ss["pg_title"])


def input_form(table_key: str) -> tuple[bool, str, list[dict[str, Any]], list[str]]:
    """The form: function, input table, methods. Nothing is computed until it is submitted."""
    with st.form("pg_form", enter_to_submit=False):
        outputs = st.text_area("Function (the outputs y)", key="pg_outputs", max_chars=share.MAX_LENGTHS["outputs"],
                               height=90, help=HELP_FUNCTION)
        st.markdown("**Inputs** — one row per tensor; untick *watch* to treat it as a constant.")
        edited = st.data_editor(
            pd.DataFrame(ss["pg_rows"], columns=["name", "value", "watched", "dtype"]), key=table_key,
            num_rows="dynamic", hide_index=True, column_config={
                "name": st.column_config.TextColumn("name", max_chars=32, required=True, width=EDITOR_WIDTHS["name"],
                                                    validate=r"^[A-Za-z][A-Za-z0-9_]{0,31}$"),
                "value": st.column_config.TextColumn("value", max_chars=share.MAX_VALUE_CHARS, required=True,
                                                     width=EDITOR_WIDTHS["value"], help=HELP_VALUE),
                "watched": st.column_config.CheckboxColumn("watch", default=True, width=EDITOR_WIDTHS["watched"],
                                                           help="Differentiate with respect to this input"),
                "dtype": st.column_config.SelectboxColumn("dtype", options=DTYPES, default="float32",
                                                          required=True, width=EDITOR_WIDTHS["dtype"])})
        methods = st.multiselect("Methods to compare", gradlib.METHODS, key="pg_methods",
                                 help=render.method_legend(gradlib.METHODS), max_selections=len(gradlib.METHODS))
        st.caption(f"At most {gradlib.LIMITS.max_inputs} inputs and a Jacobian of "
                   f"{services.APP_LIMITS.max_jacobian:,} entries on this server.")
        submitted = st.form_submit_button("Compute", type="primary", key="pg_submit")
    return submitted, outputs or "", edited.to_dict("records"), list(methods)


def submit(outputs: str, rows: list[dict[str, Any]], methods: list[str]) -> bool:
    """Validate the form again on the server; on success make it the current state."""
    if not methods:
        render.show_error("Nothing to compare", "choose at least one method in 'Methods to compare'")
        return False
    chosen = () if set(methods) == set(gradlib.METHODS) else tuple(methods)
    state = render.attempt("These inputs cannot be used", lambda: share.from_rows(outputs, rows, chosen))
    if state is None:
        return False
    preset = loaded_preset()
    still_preset = preset is not None and same_function(state, preset_state(preset.key))
    ss["pg_state"], ss["pg_notice"] = state, None
    ss["pg_title"] = ss["pg_title"] if still_preset else None   # the user's own function: no "Loaded:" caption
    return True


def same_function(a: ShareState, b: ShareState) -> bool:
    """The same function of the same inputs, watched and typed alike (the methods may differ)."""
    return (a.outputs, share.rows_of(a)) == (b.outputs, share.rows_of(b))


# ---------------------------------------------------------------- results


def show_extras(state: ShareState, best: gradlib.GradResult) -> None:
    """The TensorFlow code, the downloads and the share link of the current state."""
    st.markdown("### TensorFlow code for your function")
    code = render.attempt("The TensorFlow code could not be written", lambda: services.code_for(state))
    if code is not None:
        st.caption(CODE_CAPTION if "tf.unstack" in code else CODE_CAPTION_VECTORIZED)
        st.code(code, language="python")
    st.markdown("### Downloads")
    st.caption("Each file names the function, the inputs, the watched inputs and the dtypes it was computed from "
               "(the CSV in its first lines, which start with #).")
    left, right, _ = st.columns([1, 1, 3])
    left.download_button("Download CSV", downloads.csv_text(state, best), file_name="per_element_gradients.csv",
                         mime="text/csv", key="pg_download_csv", on_click="ignore")
    right.download_button("Download JSON", downloads.json_text(state, best), file_name="per_element_gradients.json",
                          mime="application/json", key="pg_download_json", on_click="ignore")
    st.markdown("### Share this state")
    state = dataclasses.replace(state, order=2 if ss.get("pg_second") else 1)   # the toggle above, as it is now
    try:
        params = share.encode(state)
    except gradlib.GradlibError as exc:
        st.info(render.escape(str(exc)))
        return
    st.caption("This link opens the playground with this function, these inputs and these options"
               + (", the Hessians shown." if state.order == 2 else "."))
    st.code(share.link(state, st.context.url), language=None, wrap_lines=True)
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)   # the address bar holds the same link


def show_second_order(state: ShareState) -> None:
    """The second-order view: one Hessian heatmap per output element (the first ``MAX_HESSIAN_FIGURES``), and the
    TensorFlow code that computes them."""
    st.markdown("## Second order")
    refused: list[str] = []
    result = render.attempt("The Hessians cannot be computed", lambda: hessians_or_refusal(state, refused))
    if result is None:
        if any(LIMIT_WORDS in text for text in refused):   # over the server's limits, not a wrong input
            st.caption(hessians_refused(state))
        return
    m, n = len(result.row_labels), len(result.col_labels)
    st.caption(f"The Hessian of each element of {render.output_label(result.row_labels)} over the {n} watched "
               f"element(s), method `{result.method}`"
               + (f"; the first {MAX_HESSIAN_FIGURES} of {m} elements are drawn." if m > MAX_HESSIAN_FIGURES else "."))
    for warning in result.warnings:
        st.warning(render.escape(warning))
    bad, total = render.nonfinite(result.hessian)
    if bad:
        st.warning(f"{bad:,} of the {total:,} second derivatives are NaN or infinite (marked in the charts). A cell "
                   "that only NaN poisoning made NaN (0 times an infinite derivative in the branch of where\\(\\) "
                   "not taken, or on another element's path) is recomputed and named in the warnings above; these "
                   "are not finite on their own element's path: its value is not finite (an overflow such as exp of "
                   "a large number) or a derivative in the branch taken is infinite (sqrt or log at 0), unless a "
                   "warning above says that the repair did not run.")
    if n * n > render.MAX_HEATMAP_CELLS:
        st.caption(f"No charts: each Hessian has {n:,} x {n:,} = {n * n:,} values, more than a chart shows "
                   f"({render.MAX_HEATMAP_CELLS:,}). Watch fewer inputs.")
    else:
        for k, label in enumerate(result.row_labels[:MAX_HESSIAN_FIGURES]):
            st.plotly_chart(figures.hessian_heatmap(result.hessian[k], result.col_labels, title=f"Hessian of {label}"),
                            key=f"pg_hessian_{k}", config={"displaylogo": False})
    show_hessian_code(state)


def hessians_refused(state: ShareState) -> str:
    """What the page can change after a refusal over the limits. Unticking *watch* is offered only when another
    input stays watched: with one watched input it leaves none, which is refused too."""
    watched = [name for name in state.inputs if state.watch is None or name in state.watch]
    fewer = (f"give {watched[0]} fewer values" if len(watched) == 1 else
             "untick *watch* on an input, or give the watched inputs fewer values")
    return HESSIANS_REFUSED.format(fewer=fewer)


def hessians_or_refusal(state: ShareState, refused: list[str]) -> gradlib.HessianResult:
    """``services.hessians_state``; a refusal's text is also put in ``refused`` (then raised again)."""
    try:
        return services.hessians_state(state)
    except gradlib.GradlibError as exc:
        refused.append(str(exc))
        raise


def show_hessian_code(state: ShareState) -> None:
    """The TensorFlow code computing the state's Hessians."""
    st.markdown("### TensorFlow code for the Hessians")
    st.caption("Runnable as is: nested tapes, the inner gradient taken inside the outer tape's block, then the outer "
               "tape's jacobian.")
    code = render.attempt("The TensorFlow code could not be written", lambda: services.code_for(state, order=2))
    if code is not None:
        st.code(code, language="python")


def main() -> None:
    if "pg_state" not in ss:
        first_load()
    # a run that stops at an error, or a visit to another page, draws no toggle, and Streamlit then drops its state: set
    # it again (from the copy kept below), so the second-order view and order=2 in the link come back
    ss["pg_second"] = bool(ss.get("pg_second", ss.get("pg_second_kept", False)))
    if ss.get("pg_notice"):
        render.show_error("This share link cannot be opened", ss["pg_notice"])
        st.caption("The seed example is loaded instead.")
    loaded = preset_picker()
    table_key = restore_widgets()
    submitted, outputs, rows, methods = input_form(table_key)
    # the choice sits under the form, near the top: at the bottom of the results it was 6,600 px down the page
    second = st.toggle("Second order (Hessians)", key="pg_second", help=HELP_SECOND)
    ss["pg_second_kept"] = second   # not a widget's key: it outlives a visit to another page
    if second:
        st.caption("The Hessians are drawn after the first-order results, under **Second order**.")
    if submitted and not submit(outputs, rows, methods):
        return                                   # the form keeps what was typed; nothing below is stale
    show_loaded(loaded)                          # after the submit: a computed function of one's own is no preset
    state: ShareState = ss["pg_state"]
    comparison = render.attempt("This function cannot be computed",
                             lambda: services.compare_state(state, gradlib.METHODS))
    if comparison is None:
        return
    st.markdown("## Results")
    render.attempt("The results cannot be shown", lambda: render.show_comparison(comparison, key="pg"))
    render.attempt("The code, downloads and link cannot be shown", lambda: show_extras(state, comparison.best))
    if second:
        show_second_order(state)


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
