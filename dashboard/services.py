"""The dashboard's one cached door into gradlib: every ``st.cache_data`` wrapper lives here.

Every cache is bounded (entries, bytes and age) and keyed on everything that decides its result.
Nothing here imports TensorFlow directly; gradlib does.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Sequence

import numpy as np
import pandas as pd
import streamlit as st

import gradlib
from gradlib import examples
from gradlib.lint import LintError, Project

from . import digits
from .limits import APP_LIMITS, LINT_LIMITS, LINT_PROJECT
from . import model_report as _model_report
from . import scaling as _scaling
from . import pde as _pde
from . import second_order as _second_order
from .share import ShareState

__all__ = ["APP_LIMITS", "LINT_LIMITS", "MAX_ENTRIES", "TTL", "code_for", "compare", "compare_state", "demonstrate",
           "hessians", "hessians_state", "pde_mistakes", "pde_step", "pde_view",
           "digits_clipping", "digits_training", "lint", "lint_project",
           "model_report", "sample_pitfalls", "scaling", "second_order_mistakes",
           "second_order_poisson", "second_order_seed", "tensorflow_code"]

#: how long a cached result lives, and how many of each kind the shared server keeps
TTL = "1h"
MAX_ENTRIES = 64


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, max_size="256MB", show_spinner="Computing per-element gradients…")
def compare(outputs: str, inputs: dict[str, Any], watch: tuple[str, ...] | None, dtype: str | dict[str, str],
            methods: tuple[str, ...], limits: gradlib.Limits = APP_LIMITS,
            crosscheck: bool = False) -> gradlib.Comparison:
    """``gradlib.compare``, cached on every argument that decides the result."""
    return gradlib.compare(outputs, inputs, watch=watch, dtype=dtype, methods=methods, limits=limits,
                           crosscheck=crosscheck)


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, max_size="64MB", show_spinner="Computing the Hessians…")
def hessians(outputs: str, inputs: dict[str, Any], watch: tuple[str, ...] | None,
             dtype: str | dict[str, str]) -> gradlib.HessianResult:
    """``gradlib.evaluate(..., order=2)`` with the app's limits, cached on every argument that decides it."""
    return gradlib.evaluate(outputs, inputs, watch=watch, dtype=dtype, limits=APP_LIMITS, order=2)


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, show_spinner=False)
def tensorflow_code(outputs: str, inputs: dict[str, Any], watch: tuple[str, ...] | None,
                    dtype: str | dict[str, str], order: int = 1) -> str:
    """``gradlib.tensorflow_code`` with the app's limits (the same as ``compare``'s), cached on every argument."""
    return gradlib.tensorflow_code(outputs, inputs, watch=watch, dtype=dtype, limits=APP_LIMITS, order=order)


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, max_size="16MB", show_spinner=False)
def lint(source: str) -> gradlib.LintResult:
    """``gradlib.lint`` with the page's limits, cached on the source (the code is read, never run).

    gradlib.lint holds one of the process's work slots while it runs, and its analysis stops at the limits'
    wall-clock bound (``max_source_seconds``) and work bounds; the result then says it is incomplete. A source
    over the page's size is refused with what the page can do (gradlib.lint's own advice names ``limits=``).
    """
    try:
        return gradlib.lint(source, limits=LINT_LIMITS)
    except LintError as err:
        if not err.too_large:
            raise
        size = str(err).split(". Split it, or pass limits=")[0]
        raise LintError(f"{size}. Paste a part of at most {LINT_LIMITS.max_source_lines:,} lines and "
                        f"{LINT_LIMITS.max_source_chars:,} characters, or run gradlib-lint on your machine "
                        f"(it checks up to {gradlib.LIMITS.max_source_lines:,} lines of a file)",
                        too_large=True) from None


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, max_size="32MB", show_spinner="Checking the files…")
def lint_project(files: tuple[tuple[str, str], ...]) -> tuple[tuple[str, Any], ...]:
    """Each file of a project (path, source) linted with the others in sight (their imports followed, nothing run),
    cached on all the files: (path, ``LintResult``), or (path, why it was not checked) for a file ``gradlib.lint``
    refuses or that the project's time (``LINT_PROJECT.max_seconds``, shared by all its files) did not reach."""
    project = Project(texts=dict(files), limits=LINT_LIMITS)
    deadline, results = time.monotonic() + LINT_PROJECT.max_seconds, []
    for path, source in files:
        left = deadline - time.monotonic()
        if left <= 0:
            results.append((path, f"not checked: the files before it used the {LINT_PROJECT.max_seconds:g} s a "
                                  "project is given; check it on its own, or upload fewer files"))
            continue
        limits = dataclasses.replace(LINT_LIMITS, max_source_seconds=min(LINT_LIMITS.max_source_seconds, left))
        try:
            results.append((path, gradlib.lint(source, limits=limits, project=project, path=path)))
        except gradlib.LintError as err:
            results.append((path, f"cannot be checked: {err}"))
    return tuple(results)


@st.cache_data(max_entries=len(examples.DEMOS) + 1, ttl=TTL, show_spinner="Running the demonstration in TensorFlow…")
def demonstrate(name: str) -> examples.Demo:
    """``gradlib.examples.demonstrate(name)``, computed live once per hour."""
    return examples.demonstrate(name)


@st.cache_data(max_entries=1, ttl=TTL, show_spinner="Computing the seed's Hessians…")
def second_order_seed() -> gradlib.HessianResult:
    """The seed's function an order higher (``dashboard.second_order.seed``), computed live once per hour."""
    return _second_order.seed()


@st.cache_data(max_entries=1, ttl=TTL, show_spinner="Running the nested-tape mistakes in TensorFlow…")
def second_order_mistakes() -> list[examples.SecondOrderMistake]:
    """Every nested-tape mistake and its fix, run live once per hour."""
    return _second_order.mistakes()


@st.cache_data(max_entries=1, ttl=TTL, max_size="16MB", show_spinner="Computing Laplacians over the grid…")
def second_order_poisson() -> examples.PoissonExample:
    """The physics example over the page's grid (fixed: nothing the visitor types decides it)."""
    return _second_order.poisson()


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, max_size="64MB",
               show_spinner="Computing the residual and every derivative over the grid, and again by nested tapes…")
def pde_view(state: _pde.State) -> _pde.View:
    """The PDE page's residual and derivatives (``dashboard.pde.view``), keyed on every input (the whole state)."""
    return _pde.view(state)


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, show_spinner="Running the nested-tape mistakes in TensorFlow…")
def pde_mistakes(state: _pde.State) -> list[_pde.Mistake]:
    """The PDE page's nested-tape mistakes for the state's equation (``dashboard.pde.mistakes``)."""
    return _pde.mistakes(state)


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, show_spinner="Running one training step, and again by nested tapes…")
def pde_step(state: _pde.State) -> _pde.Step:
    """The PDE page's training step (``dashboard.pde.training_step``), keyed on every input."""
    return _pde.training_step(state)


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, show_spinner=False)
def scaling(sizes: tuple[int, ...], methods: tuple[str, ...], shape: str, repeats: int) -> pd.DataFrame:
    """``dashboard.scaling.scaling``, cached on every argument (the page shows progress between calls).

    gradlib's own limits, not ``APP_LIMITS``: the sizes are the page's fixed ``SIZES``, and eager ``unstack`` at
    256 outputs (about 3.5e9 estimated operations) is exactly the slow case the page exists to show.
    """
    return _scaling.scaling(list(sizes), methods=methods, shape=shape, repeats=repeats)


@st.cache_data(max_entries=16, ttl=TTL, show_spinner="Computing per-sample gradients…")
def model_report(name: str, params: dict[str, Any], x: np.ndarray, time_loop: bool) -> _model_report.ModelReport:
    """``dashboard.model_report.report``, cached on every argument (the app's limits apply)."""
    return _model_report.report(name, params, x, time_loop=time_loop, limits=APP_LIMITS)


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, show_spinner=False)
def sample_pitfalls(name: str, params: dict[str, Any], sample: np.ndarray) -> _model_report.Pitfalls:
    """``dashboard.model_report.pitfalls``, cached on every argument (the app's limits apply)."""
    return _model_report.pitfalls(name, params, sample, limits=APP_LIMITS)


@st.cache_data(max_entries=8, ttl=TTL, max_size="64MB", show_spinner=False)
def digits_training(flip_percent: int, seed: int) -> digits.Training:
    """``digits.train``, cached on its settings, with a progress bar while it trains (replayed empty on a hit)."""
    bar = st.progress(0.0, text="Training a small classifier on 1,797 digits…")
    training = digits.train(flip_percent, seed, progress=lambda fraction, text: bar.progress(fraction, text=text))
    bar.empty()
    return training


@st.cache_data(max_entries=MAX_ENTRIES, ttl=TTL, show_spinner="Clipping each example's gradient…")
def digits_clipping(flip_percent: int, seed: int, clip_norm: float) -> digits.Clipping:
    """``digits.clipping`` of the cached training with these settings, cached on all three."""
    return digits.clipping(digits_training(flip_percent, seed), clip_norm)


def compare_state(state: ShareState, methods: Sequence[str]) -> gradlib.Comparison:
    """``compare`` for a playground state (its own methods, or ``methods`` when it names none), with the gradients
    also computed eagerly, as a graph and under XLA (the playground shows where they differ)."""
    return compare(state.outputs, state.inputs, state.watch, state.dtype, tuple(state.methods or methods),
                   crosscheck=True)


def code_for(state: ShareState, order: int = 1) -> str:
    """The TensorFlow code of a playground state: its per-element gradients, or (``order=2``) its Hessians."""
    return tensorflow_code(state.outputs, state.inputs, state.watch, state.dtype, order)


def hessians_state(state: ShareState) -> gradlib.HessianResult:
    """``hessians`` for a playground state: the Hessian of each element of its function."""
    return hessians(state.outputs, state.inputs, state.watch, state.dtype)
