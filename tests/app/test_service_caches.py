"""Every cached service of the app (``st.cache_data`` / ``st.cache_resource`` in dashboard.services), one row per
parameter: two calls differing in exactly that parameter give different answers, and the second is what the
uncached function gives for it (a parameter the cache did not key on, or an ``_underscored`` one that Streamlit
skips, would return the first call's answer).

The services are called directly, outside a Streamlit run (Streamlit then keeps the cache in memory, as it does
per server). ``test_every_parameter_of_every_service_has_a_row`` reads each cached service's signature, so a new
service or a new parameter without a row fails.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import streamlit as st

from answers import observed, same
from dashboard import pde as _pde
from dashboard import services

X = {"x": [1.0, 2.0], "y": [0.5, -1.0]}
SAMPLE = np.array([[0.5, -1.0, 2.0, 0.25]], np.float32)
_SMALL, _HEAT = {"grid": 4}, {"preset": "heat", "grid": 4}   # the PDE page's states, on a small grid


def _services() -> dict[str, object]:
    return {name: value for name, value in vars(services).items()
            if hasattr(value, "__wrapped__") and hasattr(value, "clear") and callable(value)
            and type(value).__module__.startswith("streamlit")}


SERVICES = _services()

#: (service, parameter, arguments of the first call, the differing value of the parameter); keywords by name
ROWS = [
    ("compare", "outputs", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", methods=("jacobian",)), "x*x*y"),
    ("compare", "inputs", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", methods=("jacobian",)),
     {"x": [1.0, 3.0], "y": [0.5, -1.0]}),
    ("compare", "watch", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", methods=("jacobian",)), ("x",)),
    ("compare", "dtype", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", methods=("jacobian",)),
     "float64"),
    ("compare", "methods", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", methods=("jacobian",)),
     ("jacobian", "naive")),
    ("compare", "limits", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", methods=("jacobian",)),
     services.APP_LIMITS.__class__(max_jacobian=3)),
    ("compare", "crosscheck", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", methods=("jacobian",)),
     True),
    ("hessians", "outputs", dict(outputs="x*x*y", inputs=X, watch=None, dtype="float32"), "x*y*y"),
    ("hessians", "inputs", dict(outputs="x*x*y", inputs=X, watch=None, dtype="float32"),
     {"x": [1.0, 3.0], "y": [0.5, -1.0]}),
    ("hessians", "watch", dict(outputs="x*x*y", inputs=X, watch=None, dtype="float32"), ("x",)),
    ("hessians", "dtype", dict(outputs="x*x*y", inputs=X, watch=None, dtype="float32"), "float64"),
    ("tensorflow_code", "outputs", dict(outputs="x*y", inputs=X, watch=None, dtype="float32"), "x+y"),
    ("tensorflow_code", "inputs", dict(outputs="x*y", inputs=X, watch=None, dtype="float32"),
     {"x": [1.0, 3.0], "y": [0.5, -1.0]}),
    ("tensorflow_code", "watch", dict(outputs="x*y", inputs=X, watch=None, dtype="float32"), ("x",)),
    ("tensorflow_code", "dtype", dict(outputs="x*y", inputs=X, watch=None, dtype="float32"), "float64"),
    ("tensorflow_code", "order", dict(outputs="x*y", inputs=X, watch=None, dtype="float32", order=1), 2),
    ("lint", "source", dict(source="import tensorflow as tf\nx = 1\n"),
     "import tensorflow as tf\nwith tf.GradientTape() as t:\n    y = x * x\nfor y_i in y:\n"
     "    t.gradient(y_i, x)\n"),
    ("lint_project", "files", dict(files=(("a.py", "import tensorflow as tf\nx = 1\n"),)),
     (("a.py", "import tensorflow as tf\nwith tf.GradientTape() as t:\n    y = x * x\nfor y_i in y:\n"
               "    t.gradient(y_i, x)\n"),)),
    ("demonstrate", "name", dict(name="iterate_outside"), "integer_watch"),
    ("scaling", "sizes", dict(sizes=(2,), methods=("jacobian",), shape="square", repeats=1), (3,)),
    ("scaling", "methods", dict(sizes=(2,), methods=("jacobian",), shape="square", repeats=1), ("forward",)),
    ("scaling", "shape", dict(sizes=(2,), methods=("jacobian",), shape="square", repeats=1), "wide"),
    ("scaling", "repeats", dict(sizes=(2,), methods=("jacobian",), shape="square", repeats=1), 3),
    ("model_report", "name", dict(name="classifier", params={"features": 4, "classes": 2}, x=SAMPLE,
                                  time_loop=False), "mlp_regressor"),
    ("model_report", "params", dict(name="classifier", params={"features": 4, "classes": 2}, x=SAMPLE,
                                    time_loop=False), {"features": 4, "classes": 3}),
    ("model_report", "x", dict(name="classifier", params={"features": 4, "classes": 2}, x=SAMPLE, time_loop=False),
     SAMPLE * 2),
    ("model_report", "time_loop", dict(name="classifier", params={"features": 4, "classes": 2}, x=SAMPLE,
                                       time_loop=False), True),
    ("sample_pitfalls", "name", dict(name="classifier", params={"features": 4, "classes": 2}, sample=SAMPLE[0]),
     "mlp_regressor"),
    ("sample_pitfalls", "params", dict(name="classifier", params={"features": 4, "classes": 2}, sample=SAMPLE[0]),
     {"features": 4, "classes": 3}),
    ("sample_pitfalls", "sample", dict(name="classifier", params={"features": 4, "classes": 2}, sample=SAMPLE[0]),
     SAMPLE[0] * 2),
    ("digits_training", "flip_percent", dict(flip_percent=0, seed=0), 20),
    ("digits_training", "seed", dict(flip_percent=0, seed=0), 1),
    ("digits_clipping", "flip_percent", dict(flip_percent=0, seed=0, clip_norm=1.0), 20),
    ("digits_clipping", "seed", dict(flip_percent=0, seed=0, clip_norm=1.0), 1),
    ("digits_clipping", "clip_norm", dict(flip_percent=0, seed=0, clip_norm=1.0), 0.1),
    # the PDE page's services take one frozen state: a row for each field of it that decides the answer
    *[("pde_view", "state", dict(state=_pde.State(**first)), _pde.State(**{**first, **change})) for first, change in (
        (_SMALL, {"preset": "poisson"}), (_SMALL, {"text": "u_t + u_x"}), (_SMALL, {"closed_form": "sin(x)*t"}),
        (_SMALL, {"grid": 5}), (_HEAT, {"t": 0.2}))],
    ("pde_mistakes", "state", dict(state=_pde.State()), _pde.State("navier_stokes")),
    *[("pde_step", "state", dict(state=_pde.State(**first)), _pde.State(**{**first, **change})) for first, change in (
        (_SMALL, {"preset": "heat"}), (_SMALL, {"text": "u_t + u_x"}), (_SMALL, {"grid": 5}), (_HEAT, {"t": 0.2}))],
]


def _counting_clock():
    """A clock whose k-th interval is k ms: a scaling's timings depend on its calls alone, not on the machine."""
    state = {"now": 0.0, "reads": 0}

    def clock() -> float:
        state["reads"] += 1
        state["now"] += 0.001 * state["reads"]
        return state["now"]
    return clock


def _answer(call):
    try:
        return observed(call())
    except Exception as e:   # noqa: BLE001 - a refusal is an answer too (the limits row)
        return ("refused", type(e).__name__, str(e))


def test_every_parameter_of_every_service_has_a_row():
    assert SERVICES, "no cached service found: the search for st.cache_* services is broken"
    expected = {(name, p) for name, fn in SERVICES.items() for p in inspect.signature(fn.__wrapped__).parameters}
    rows = {(service, parameter) for service, parameter, *_ in ROWS}
    assert rows == expected, f"without a row: {sorted(expected - rows)}; not a parameter: {sorted(rows - expected)}"


@pytest.mark.parametrize("service, parameter, first, value", ROWS, ids=[f"{r[0]}.{r[1]}" for r in ROWS])
def test_a_call_differing_in_one_parameter_is_not_answered_from_the_cache(service, parameter, first, value,
                                                                          monkeypatch):
    original = services._scaling.scaling
    monkeypatch.setattr(services._scaling, "scaling", lambda *a, **k: original(*a, clock=_counting_clock(), **k))
    cached = SERVICES[service]
    second = {**first, parameter: value}
    cached.clear()
    expected = _answer(lambda: cached.__wrapped__(**second))
    # on a cleared cache the first call is computed, as the uncached function would (each service is computed
    # three times, not four: the digits trainings and the PDE grids are the slow rows of the suite)
    assert not same(_answer(lambda: cached(**first)), expected), \
        f"{service}: {parameter} changes nothing in the answer, so this row tests nothing"
    assert same(_answer(lambda: cached(**second)), expected), \
        f"{service}: a call differing only in {parameter} got the cached answer of the first"


def test_the_services_are_streamlit_caches():
    # the search above finds st.cache_data / st.cache_resource functions: a plain function is not one of them
    assert type(services.compare) is type(st.cache_data(lambda: 0))
