"""Per-example gradients: find flipped labels in real digits by gradient norm, and see DP-SGD's clipping."""

from __future__ import annotations

from dashboard import frame

TITLE = "Per-example gradients"
INTRO = (
    "`tape.gradient(loss, model.trainable_variables)` gives the gradient of the **summed** loss of a batch. "
    "`gradlib.per_example_gradients` gives each example's own: its loss, the norm of its gradient with respect "
    "to all the weights, and (if asked) the gradient itself, from one forward and one backward pass. Here a "
    "small classifier is trained on scikit-learn's 1,797 handwritten digits (shipped with the package: nothing "
    "is downloaded) with a share of the labels **flipped on purpose**. An example whose label the model cannot "
    "fit has a large loss and a large gradient, so ranking by either finds the flipped labels. The norm is what "
    "DP-SGD clips: each example's gradient is cut to a norm *C* before averaging; below you see what that does "
    "to the mean gradient, and where the norm and the loss disagree."
)
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import render, services
from gradlib import figures

#: the clip norms offered (DP-SGD's C)
CLIP_NORMS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
DEFAULTS = {"flip": 10, "seed": 0, "k": 100, "clip": 1.0}
#: how many of the top examples are drawn as images
IMAGES = 16
#: images per row: four stay readable on a 390 px phone screen
IMAGE_COLUMNS = 4
ss = st.session_state


def settings_form() -> dict[str, float]:
    """The form: nothing is computed again until it is submitted, and only new data retrains."""
    with st.form("pe_form", enter_to_submit=False):
        left, mid, right, last = st.columns(4)
        flip = left.slider("Labels flipped (%)", 0, 40, DEFAULTS["flip"], key="pe_flip",
                           help="This share of the 1,797 labels is changed to another digit before training")
        seed = mid.number_input("Seed", 0, 9999, DEFAULTS["seed"], key="pe_seed",
                                help="Chooses the flipped labels, the initial weights and the batch order")
        k = right.slider("Top-k by gradient norm", 10, 400, DEFAULTS["k"], step=10, key="pe_k",
                         help="How many of the largest gradient norms to inspect")
        clip = last.select_slider("Clip norm C (DP-SGD)", CLIP_NORMS, value=DEFAULTS["clip"], key="pe_clip")
        submitted = st.form_submit_button("Train and analyse", type="primary", key="pe_submit")
        st.caption("Changing k or C reuses the trained model; a new share of flipped labels or a new seed retrains "
                   "(a few seconds).")
    if submitted or "pe_settings" not in ss:
        ss["pe_settings"] = {"flip": int(flip), "seed": int(seed), "k": int(k), "clip": float(clip)}
    return ss["pe_settings"]


def show_training(training) -> None:
    data = training.data
    cols = st.columns(4)
    cols[0].metric("Accuracy, given labels", f"{training.accuracy(data.given):.1%}")
    cols[1].metric("Accuracy, true labels", f"{training.accuracy(data.true):.1%}")
    cols[2].metric("Training", f"{training.train_seconds:.1f} s")
    cols[3].metric("Per-example norms, first call", f"{1000 * training.gradient_seconds:.0f} ms",
                   help=f"All {len(data.true):,} examples in one call, the first on this model: one call, tracing "
                        f"included (not a warm time); gradlib method: {training.method}")


def show_catch(training, k: int) -> None:
    data = training.data
    flipped = int(data.flipped.sum())
    caught, by_loss = training.caught(k), training.caught_by_loss(k)
    st.markdown("### How many flipped labels the top-k catches")
    cols = st.columns(3)
    cols[0].metric(f"Flipped in the top {k}", f"{caught} of {k}",
                   help="Of the k largest gradient norms, how many have a flipped label")
    cols[1].metric("Flipped labels found", f"{caught / flipped:.0%}" if flipped else "no flips",
                   help=f"{flipped} labels were flipped in all")
    cols[2].metric("Expected at random", f"{k * flipped / len(data.true):.1f} of {k}")
    verdict = ("the loss finds more of them here" if by_loss > caught else
               "the gradient norm finds more of them here" if caught > by_loss else "both find as many here")
    st.caption(f"Ranking by loss instead catches {by_loss} of {k}, by gradient norm {caught} of {k}: {verdict}. The "
               f"two rankings are close on a classifier (Spearman rank correlation {training.rank_correlation():.2f} "
               "over all examples), so the norm is not a better detector of flipped labels than the loss. What it "
               "adds is how far one example pulls the weights, which DP-SGD caps: below, the examples the two "
               "rankings disagree on.")


def show_disagreements(training, k: int) -> None:
    """The examples in the top k by one ranking and not by the other, with both ranks, loss and norm."""
    norm_only, loss_only = training.disagreements(k)
    st.markdown(f"### Where the gradient norm and the loss disagree (top {k})")
    if not len(norm_only):
        st.caption(f"The top {k} by gradient norm and by loss are the same examples.")
        return
    ranks = {name: np.argsort(np.argsort(-v, kind="stable"), kind="stable") + 1
             for name, v in (("norm", training.norms), ("loss", training.losses))}
    data = training.data
    for title, rows in ((f"In the top {k} by gradient norm only: a large gradient at a smaller loss", norm_only),
                        (f"In the top {k} by loss only: a large loss with a smaller gradient", loss_only)):
        st.caption(title)
        st.dataframe(pd.DataFrame({"example": rows, "rank by norm": ranks["norm"][rows], "rank by loss": ranks["loss"][rows],
                                   "gradient norm": training.norms[rows], "loss": training.losses[rows],
                                   "flipped": data.flipped[rows]}),
                     hide_index=True, height=min(320, 38 + 35 * len(rows)), key=f"pe_disagree_{title[:20]}")


def show_top(training, k: int) -> None:
    data = training.data
    top = training.order[:k]
    st.markdown(f"### The {min(IMAGES, k)} examples with the largest gradient norms")
    titles = [f"label {data.given[i]}, pred {training.predicted[i]}<br>"
              f"{'flipped (true ' + str(data.true[i]) + ')' if data.flipped[i] else 'label kept'}" for i in top[:IMAGES]]
    st.plotly_chart(figures.image_grid(data.images[top[:IMAGES]], titles, columns=IMAGE_COLUMNS,
                                       title="Largest gradient norm first, left to right"), key="pe_images",
                    config={"displaylogo": False})
    st.markdown(f"### The top {k}, as a table")
    table = pd.DataFrame({"rank": np.arange(1, len(top) + 1), "example": top, "gradient norm": training.norms[top],
                          "loss": training.losses[top], "given": data.given[top], "predicted": training.predicted[top],
                          "true": data.true[top], "flipped": data.flipped[top]})
    st.dataframe(table, hide_index=True, height=320, key="pe_table")


def show_clipping(clip, training) -> None:
    st.markdown(f"### DP-SGD: each gradient clipped to norm C = {clip.clip_norm:g}")
    cols = st.columns(4)
    cols[0].metric("Examples clipped", f"{clip.clipped:,} of {clip.total:,}", help="Those whose gradient norm exceeds C")
    cols[1].metric("Plain mean: norm", f"{clip.plain_total:.4g}")
    cols[2].metric("Clipped mean: norm", f"{clip.clipped_total:.4g}",
                   help="Never more than C: it is the mean of vectors of norm at most C")
    cols[3].metric("Cosine of the two", f"{clip.cosine:.3f}" if np.isfinite(clip.cosine) else "none",
                   help=None if np.isfinite(clip.cosine) else "A mean gradient is zero: there is no angle to measure")
    st.plotly_chart(figures.mean_gradient_bars(clip.plain_norms, clip.clipped_norms, clip.variable_names,
                                               clip_norm=clip.clip_norm), key="pe_clip_bars",
                    config={"displaylogo": False})
    st.caption("The clipped mean is mean_i g_i · min(1, C / ‖g_i‖), computed from the norms and one re-weighted "
               "backward pass over the whole set (no noise added here). Clipping caps how much any one example, "
               "a flipped label included, can move the weights.")


def main() -> None:
    settings = settings_form()
    training = render.attempt("The classifier could not be trained",
                              lambda: services.digits_training(settings["flip"], settings["seed"]))
    if training is None:
        return
    show_training(training)
    st.markdown("### The distribution of per-example gradient norms")
    groups = np.where(training.data.flipped, "label flipped", "label kept")
    st.plotly_chart(figures.norm_histogram(training.norms, groups, clip_norm=settings["clip"],
                                           colors={"label flipped": figures.BROKEN, "label kept": figures.PALETTE[0]}),
                    key="pe_hist",
                    config={"displaylogo": False})
    show_catch(training, settings["k"])
    show_top(training, settings["k"])
    show_disagreements(training, settings["k"])
    clip = render.attempt("Clipping failed", lambda: services.digits_clipping(settings["flip"], settings["seed"],
                                                                             settings["clip"]))
    if clip is not None:
        show_clipping(clip, training)


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
