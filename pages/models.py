"""Keras models: per-sample gradients of built-in models on a batch from presets or your own CSV / .npy file."""

from __future__ import annotations

from dashboard import frame

TITLE = "Keras models"
INTRO = (
    "Your real model outputs `y` as a tensor, for a whole batch at once. For each sample `b`, the per-sample "
    "gradients are the Jacobian `d y[b] / d x[b]`: one row per output, one column per input feature "
    "(`tape.batch_jacobian`). gradlib computes them for the whole batch in one compiled, vectorized call, and "
    "refuses models whose samples are not independent (BatchNormalization in training mode). The models "
    "below are built in code with a fixed seed; only input *data* can be uploaded, never a model file."
)
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

from typing import Any

import numpy as np
import streamlit as st

import gradlib
from gradlib import figures, keras_models
from dashboard import model_report, render, services, uploads

SOURCES = ("Preset", "Upload a CSV or .npy file")


# ---------------------------------------------------------------- uploads


def batch_from_upload(data: bytes, filename: str, shape: tuple[int, ...]) -> np.ndarray | None:
    """The uploaded batch, or ``None`` after showing ``st.error`` with what is wrong and where."""
    return render.attempt(f"The file {filename!r} was not accepted",
                          lambda: uploads.load_batch(data, filename, expected_features=int(np.prod(shape)),
                                                     sample_shape=shape))


# ---------------------------------------------------------------- widgets


def model_params(name: str) -> dict[str, Any]:
    """Widgets for the sizes and activations of model ``name``; returns its parameters."""
    d = keras_models.MODELS[name].defaults
    act = st.selectbox("Activation", keras_models.ACTIVATIONS, index=keras_models.ACTIVATIONS.index(d["activation"]),
                       key=f"models_{name}_activation")
    seed = int(st.number_input("Weight seed", 0, 9999, d["seed"], key=f"models_{name}_seed"))
    if name == "sequence":
        cell = st.selectbox("Layer", keras_models.SEQUENCE_CELLS, key="models_sequence_cell", help="conv1d: fastest; simple_rnn and gru run "
                            "a loop over time steps (gradlib then uses a while_loop instead of pfor)")
        return {"steps": st.slider("Time steps", 2, 32, d["steps"], key="models_sequence_steps"),
                "features": st.slider("Features", 1, 8, d["features"], key="models_sequence_features"),
                "units": st.slider("Units", 1, 32, d["units"], key="models_sequence_units"),
                "outputs": st.slider("Outputs", 1, 8, d["outputs"], key="models_sequence_outputs"),
                "cell": cell, "activation": act, "seed": seed}
    features = st.slider("Input features", 1, 64, d["features"], key=f"models_{name}_features")
    layers = st.slider("Hidden layers", 1, 3, len(d["hidden"]), key=f"models_{name}_layers")
    units = st.slider("Units per hidden layer", 1, 128, d["hidden"][0], key=f"models_{name}_units")
    out_key, out_label = ("classes", "Classes") if name == "classifier" else ("outputs", "Outputs")
    outputs = st.slider(out_label, 2 if name == "classifier" else 1, 16, d[out_key], key=f"models_{name}_{out_key}")
    return {"features": features, "hidden": (units,) * layers, out_key: outputs, "activation": act, "seed": seed}


def input_batch(shape: tuple[int, ...], source: str) -> np.ndarray | None:
    """The batch from a preset or an upload (``None`` when there is nothing usable yet)."""
    if source == SOURCES[0]:
        left, mid, right = st.columns(3)
        preset = left.selectbox("Preset", keras_models.BATCH_PRESETS, key="models_preset")
        size = mid.slider("Batch size", 1, 128, 16, key="models_batch")
        seed = int(right.number_input("Data seed", 0, 9999, 0, key="models_data_seed"))
        return keras_models.make_batch(preset, shape, size, seed)
    st.caption(f"One sample per row, {int(np.prod(shape))} numbers separated by commas (a header row is optional), "
               f"or a .npy array of shape (batch,) + {shape}; at most {uploads.MAX_UPLOAD_BYTES // 10**6} MB "
               f"and {keras_models.MAX_BATCH} samples. Numbers only: model files are never loaded.")
    upload = st.file_uploader("Your batch", type=["csv", "npy"], key="models_upload")
    if upload is None:
        st.info("Upload a file and press **Compute** to get its per-sample gradients.")
        return None
    return batch_from_upload(upload.getvalue(), upload.name, shape)


# ---------------------------------------------------------------- results


def show_sample(rep: model_report.ModelReport, b: int, *, key: str) -> None:
    """Sample ``b``: its outputs, its Jacobian heatmap and its saliency bars."""
    r = rep.result
    st.markdown(f"### Sample {b}")
    render.show_vector(r.y[b], rep.output_names)
    matrix = r.matrix(b)
    render.show_chart(figures.jacobian_heatmap, matrix, rep.output_names, r.col_labels, render.MAX_HEATMAP_CELLS,
                   key=f"{key}_heatmap", title=f"Jacobian of sample {b}: d output / d input feature")
    render.show_chart(figures.gradient_bars, np.abs(matrix), rep.output_names, r.col_labels, render.MAX_BAR_CELLS,
                   key=f"{key}_saliency", title=f"Saliency of sample {b}: |d y_k / d x_j|", y_title="|gradient|")


def show_pitfalls(rep: model_report.ModelReport, p: model_report.Pitfalls, b: int, *, key: str) -> None:
    """The naive loop and the summed gradient on sample ``b``, beside the right rows."""
    st.markdown("### The pitfalls on this model")
    st.caption("naive: `for y_i in y: tape.gradient(y_i, x)` after the tape block (all zeros). summed: "
               "`tape.gradient(y, x)`, the gradient of the sum of the outputs (the column sums of the right rows; "
               "zero for a softmax classifier, whose probabilities always sum to one).")
    rows = np.vstack([p.naive, p.summed[None], p.exact])
    labels = ([f"naive: {n}" for n in rep.output_names] + ["summed: sum(y)"]
              + [f"correct: {n}" for n in rep.output_names])
    render.show_matrix(rows, labels, rep.result.col_labels, index_name="method")
    render.show_chart(figures.gradient_bars, rows, labels, rep.result.col_labels, render.MAX_BAR_CELLS,
                      key=f"{key}_pitfalls", title="Naive and summed against the correct rows",
                      broken=[label for label in labels if not label.startswith("correct:")])
    diff = float(np.abs(p.exact - rep.result.matrix(b)).max())
    st.caption(f"per_element_gradients on sample {b} alone agrees with the batch result: max |difference| = "
               f"{gradlib.format_number(diff, 2)}.")


def show_timing(rep: model_report.ModelReport, *, key: str) -> None:
    """gradlib's compiled batch call against what a TensorFlow user would write, and against a per-sample loop."""
    st.markdown("### Timing")
    for missing in rep.missing:
        st.warning(render.escape(f"Not timed: {missing}. The gradients above are computed and checked; only this "
                                 "timing is missing."))
    if not rep.missing and rep.loop_samples == 0:
        st.caption("The per-sample loop and tape.batch_jacobian were not timed (switch it on above).")
        return
    n = rep.result.batch_size
    suffix = "" if rep.batch_jacobian_pfor else " (while_loop)"
    cols = st.columns(3)
    for col, label, ratio in ((cols[0], "tf.function tape.batch_jacobian" + suffix, rep.compiled_batch_jacobian_speedup),
                              (cols[1], "eager tape.batch_jacobian" + suffix, rep.batch_jacobian_speedup),
                              (cols[2], "per-sample tape.jacobian loop", rep.speedup)):
        col.metric(f"{label} / gradlib", gradlib.format_ratio(ratio),
                   help="Its seconds over gradlib's: above 1x gradlib is faster, below 1x it is slower")
    low, high = rep.gradlib_spread
    st.caption(f"Which is which: **tape.batch_jacobian** is one `tape.batch_jacobian(y, x)` on all {n} samples, "
               "as a TensorFlow user would write it: inside a `tf.function` (traced once, untimed; the median of "
               f"{model_report.REPEATS} warm calls) and eagerly (one call)"
               + ("" if rep.batch_jacobian_pfor else ", with experimental_use_pfor=False on a persistent tape: eager "
                  "pfor re-vectorizes a recurrent layer for tens of seconds")
               + ". The **per-sample loop** runs one eager tape and `tape.jacobian` per sample"
               + ("" if rep.batch_jacobian_pfor else " (also without pfor)")
               + f"; it was timed on "
               f"{rep.loop_samples} of {n} samples and scaled to {n}. **gradlib** is `per_sample_gradients` on all of "
               f"them, compiled once: the median of {model_report.REPEATS} warm calls "
               f"({1000 * low:.3g} to {1000 * high:.3g} ms). Each contender's Jacobians were checked against "
               "gradlib's. Timed on a shared server: ratios drift from run to run.")
    st.markdown("**What ran, and why the faster one is faster**\n\n"
                + "\n".join(f"- {line}" for line in model_report.comparison_lines(rep)))
    st.plotly_chart(figures.timing_bars(rep.seconds(), title="Seconds for the whole batch (log scale)", log=True),
                    key=f"{key}_timing", config={"displaylogo": False})


def show_report(name: str, params: dict[str, Any], x: np.ndarray, time_loop: bool) -> None:
    rep = render.attempt("Per-sample gradients could not be computed", lambda: services.model_report(name, params, x, time_loop))
    if rep is None:
        return
    r = rep.result
    cols = st.columns(4)
    cols[0].metric("Batch", f"{r.batch_size} x {r.input_shape}")
    cols[1].metric("Jacobian shape", str(r.jacobian.shape))
    cols[2].metric("Method", r.method)
    cols[3].metric("gradlib time (warm)", f"{1000 * rep.gradlib_seconds:.1f} ms")
    for warning in r.warnings:
        st.warning(render.escape(warning))
    b = int(st.number_input("Sample", 0, r.batch_size - 1, 0, key=f"models_sample_{r.batch_size}",
                            help="Which sample of the batch to show"))
    show_sample(rep, b, key="models")
    st.markdown("### Mean over the batch")
    st.caption("The mean of |d y_k / d x_j| over all samples: which features matter to which output, on average.")
    render.show_chart(figures.magnitude_heatmap, r.mean_abs, rep.output_names, r.col_labels, render.MAX_HEATMAP_CELLS,
                   key="models_mean", title="Mean |Jacobian| over the batch")
    p = render.attempt("The pitfalls could not be computed", lambda: services.sample_pitfalls(name, params, x[b]))
    if p is not None:
        show_pitfalls(rep, p, b, key="models")
    show_timing(rep, key="models")


def request_form(name: str, source: str) -> tuple[dict[str, Any], np.ndarray | None, bool]:
    """The model's sizes, the batch and the timing switch in one form: a widget change recomputes nothing until
    **Compute** is pressed (a form's widgets keep their submitted values until then)."""
    with st.form(f"models_form_{name}", enter_to_submit=False):
        with st.expander("Sizes and activation", expanded=True):
            params = model_params(name)
        x = input_batch(keras_models.sample_shape(name, **params), source)
        time_loop = st.toggle("Time the per-sample loop and an eager tape.batch_jacobian too (a few seconds; "
                              "longer for recurrent layers)", value=True, key="models_time_loop")
        st.form_submit_button("Compute", type="primary", key="models_submit")
    return params, x, time_loop


def main() -> None:
    names = list(keras_models.MODELS)
    name = st.selectbox("Model", names, format_func=lambda n: keras_models.MODELS[n].title, key="models_model")
    st.caption(keras_models.MODELS[name].description)
    source = st.radio("Input batch", SOURCES, horizontal=True, key="models_source")
    params, x, time_loop = request_form(name, source)
    if x is not None:
        show_report(name, params, x, time_loop)


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
