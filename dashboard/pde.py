"""The "PDE residuals" page's data: a residual of a small seeded tanh network (or a typed closed form u) over a
grid, every derivative by name, the nested tapes that compute the same, their classic mistakes run live, and one
training step whose weight gradients are compared with nested tapes'. Plain data; pages reach it through
``dashboard.services``.

The app does model work of its own here (the seeded networks, the nested-tape reference, the mistakes), so this
module imports TensorFlow and Keras, as ``model_report`` and ``digits`` do. A typed text goes through gradlib's
expression language only (``gradlib.pde.residual``): it is never passed to eval.

>>> v = view(State("burgers", grid=3))
>>> v.residual.shape, v.names[:3]
((3, 3), ('u', 'u_x', 'u_t'))
"""

from __future__ import annotations

import contextlib
import math
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterator

import keras
import numpy as np
import tensorflow as tf

import gradlib
import gradlib.pde

from .limits import PDE_GRID

__all__ = ["PRESETS", "Mistake", "PdePreset", "State", "Step", "View", "check_state", "code", "derivative_names",
           "mistakes", "model_of", "nested_derivative", "points", "training_step", "view"]


@dataclass(frozen=True)
class PdePreset:
    """An equation on a domain: the residual's text, its coordinates, the network's outputs, its constants."""

    label: str
    text: str
    coords: tuple[str, ...]
    outputs: tuple[str, ...]
    constants: tuple[tuple[str, float], ...]
    #: each coordinate's interval; the grid spans the first two, the others are fixed at ``State.t``
    domain: tuple[tuple[float, float], ...]


PRESETS = {
    "burgers": PdePreset("Burgers (1-D + t)", "u_t + u*u_x - nu*u_xx", ("x", "t"), ("u",),
                         (("nu", 0.01 / math.pi),), ((-1.0, 1.0), (0.0, 1.0))),
    "heat": PdePreset("Heat (2-D + t)", "u_t - k*(u_xx + u_yy)", ("x", "y", "t"), ("u",), (("k", 0.1),),
                      ((0.0, 1.0), (0.0, 1.0), (0.0, 1.0))),
    "poisson": PdePreset("Poisson (2-D)", "u_xx + u_yy + 2*pi**2*sin(pi*x)*sin(pi*y)", ("x", "y"), ("u",), (),
                         ((0.0, 1.0), (0.0, 1.0))),
    "navier_stokes": PdePreset("Navier–Stokes (2-D, steady, x-momentum)",
                               "u*u_x + v*u_y + p_x - nu*(u_xx + u_yy)", ("x", "y"), ("u", "v", "p"),
                               (("nu", 0.01),), ((0.0, 1.0), (0.0, 1.0))),
}


@dataclass(frozen=True)
class State:
    """Everything that decides the page's numbers (the cache key and the share link)."""

    preset: str = "burgers"
    text: str = ""          # the residual; "" is the preset's
    closed_form: str = ""   # a typed u(coords); "" is the seeded network
    grid: int = 33
    t: float = 0.5          # the fixed value of every coordinate past the first two

    @property
    def equation(self) -> PdePreset:
        return PRESETS[self.preset]

    @property
    def residual_text(self) -> str:
        return self.text.strip() or self.equation.text


def check_state(state: State) -> State:
    """``state`` if every input is acceptable; else a ``gradlib.ExpressionError`` naming the input and the fix."""
    if state.preset not in PRESETS:
        raise gradlib.ExpressionError(f"PDE page: preset {state.preset!r} is not one of {', '.join(PRESETS)}")
    if isinstance(state.grid, bool) or not isinstance(state.grid, int) or not PDE_GRID[0] <= state.grid <= PDE_GRID[1]:
        raise gradlib.ExpressionError(f"PDE page: grid {state.grid!r} points per side is outside the app's limit: "
                                      f"give a whole number from {PDE_GRID[0]} to {PDE_GRID[1]}")
    if not math.isfinite(state.t):
        raise gradlib.ExpressionError(f"PDE page: t = {state.t!r} is not a finite number")
    return state


def _network(preset: PdePreset, activation: str = "tanh") -> keras.Model:
    """The page's small seeded network: coords -> 16 -> 16 -> outputs, float64."""
    keras.utils.set_random_seed(40)
    return keras.Sequential([keras.Input((len(preset.coords),), dtype="float64"),
                             keras.layers.Dense(16, activation=activation, dtype="float64", name="hidden_1"),
                             keras.layers.Dense(16, activation=activation, dtype="float64", name="hidden_2"),
                             keras.layers.Dense(len(preset.outputs), dtype="float64", name="output")], name="network")


def _constants(preset: PdePreset) -> dict[str, float]:
    return {"pi": math.pi, **dict(preset.constants)}


def model_of(state: State) -> Callable:
    """The seeded network, or the typed closed form ``u(coords)`` built through gradlib's language (no eval)."""
    preset = state.equation
    if not state.closed_form.strip():
        return _network(preset)
    if len(preset.outputs) != 1:
        raise gradlib.ExpressionError(f"PDE page: a typed closed form gives one output (u); the preset "
                                      f"{preset.label} has {', '.join(preset.outputs)}: pick a one-output preset")
    with _where("the closed form u"):
        value = gradlib.pde.residual(state.closed_form, lambda x: 0.0 * x[:, :1], coords=preset.coords,
                                     outputs=("unused",), constants={"pi": math.pi}, check_independence=False)
    return lambda x: value(x)[:, None]


@contextlib.contextmanager
def _where(field_name: str) -> Iterator[None]:
    """Name the page's input in a gradlib refusal of it (the message keeps its column and caret)."""
    try:
        yield
    except gradlib.ExpressionError as exc:
        raise gradlib.ExpressionError(f"In {field_name}: {exc}") from None


def points(state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grid: its two axes and the points ``(grid*grid, len(coords))`` (row i, column j at ``(a[j], b[i])``)."""
    preset, n = state.equation, state.grid
    a, b = (np.linspace(lo, hi, n) for lo, hi in preset.domain[:2])
    ga, gb = np.meshgrid(a, b)
    columns = [ga.reshape(-1), gb.reshape(-1)] + [np.full(n * n, state.t) for _ in preset.coords[2:]]
    return a, b, np.stack(columns, axis=1)


def derivative_names(preset: PdePreset) -> tuple[str, ...]:
    """Every output, first derivative, and second derivative along each coordinate (plus the first mixed one)."""
    names = list(preset.outputs)
    for o in preset.outputs:
        names += [f"{o}_{c}" for c in preset.coords] + [f"{o}_{c}{c}" for c in preset.coords]
        names.append(f"{o}_{preset.coords[0]}{preset.coords[1]}")
    return tuple(names)


@dataclass(frozen=True)
class View:
    """The residual and every derivative over the grid (``[i, j]`` at ``(xs[j], ys[i])``), and their agreement
    with nested tapes (largest absolute difference, by name)."""

    xs: np.ndarray
    ys: np.ndarray
    axes: tuple[str, str]
    residual: np.ndarray
    names: tuple[str, ...]
    values: dict[str, np.ndarray] = field(repr=False)
    nested_difference: dict[str, float] = field(repr=False)


def view(state: State) -> View:
    """The page's main result for ``state``."""
    state, preset = check_state(state), state.equation
    model, (xs, ys, pts) = model_of(state), points(state)
    x = tf.constant(pts, tf.float64)
    with _where("the residual"):
        res = gradlib.pde.residual(state.residual_text, model, coords=preset.coords, outputs=preset.outputs,
                                   constants=_constants(preset))(x)
    names = derivative_names(preset)
    got = gradlib.pde.derivatives(model, x, coords=preset.coords, outputs=preset.outputs, want=list(names))
    shape = (state.grid, state.grid)
    values = {k: v.numpy().reshape(shape) for k, v in got.items()}
    diffs = {k: float(np.max(np.abs(got[k].numpy() - nested_derivative(model, x, preset, k).numpy())))
             for k in names}
    return View(xs, ys, preset.coords[:2], res.numpy().reshape(shape), names, values, diffs)


def nested_derivative(model: Callable, x: tf.Tensor, preset: PdePreset, name: str) -> tf.Tensor:
    """The derivative ``name`` (``u``, ``u_x``, ``u_xt``) by hand-written nested tapes: the reference."""
    output, _, wrt = name.partition("_")
    k, cols = preset.outputs.index(output), [preset.coords.index(c) for c in wrt]
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = model(x)[:, k]
        first = inner.gradient(y, x)[:, cols[0]] if cols else y
    if len(cols) < 2:
        return first
    return outer.gradient(first, x)[:, cols[1]]


@dataclass(frozen=True)
class Mistake:
    """A classic nested-tape mistake: its code and what TensorFlow gave just now, beside what is right."""

    title: str
    code: str
    outcome: str
    right: str


def mistakes(state: State) -> list[Mistake]:
    """The three mistakes, run now on the page's first output and first coordinate."""
    preset = check_state(state).equation
    x = tf.constant(points(State(state.preset, grid=5, t=state.t))[2], tf.float64)
    o, c = preset.outputs[0], preset.coords[0]
    return [_outside(x, preset, o, c), _relu(x, preset, o, c), _round_trip(x, preset, o, c)]


def _outside(x: tf.Tensor, preset: PdePreset, o: str, c: str) -> Mistake:
    model = _network(preset)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            u = model(x)[:, 0]
    u_x = inner.gradient(u, x)[:, 0]   # outside the outer tape's block: not recorded
    got = outer.gradient(u_x, x)
    code = ("with tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
            "        inner.watch(x)\n        u = model(x)[:, 0]\n"
            f"{o}_{c} = inner.gradient(u, x)[:, 0]   # after the outer block\n{o}_{c}{c} = outer.gradient({o}_{c}, x)")
    return Mistake(f"The inner gradient taken outside the outer tape: {o}_{c}{c}", code,
                   f"outer.gradient returned {got!r}", f"take inner.gradient inside the outer `with` block, or use "
                   f"gradlib.pde.derivatives(model, x, want=['{o}_{c}{c}'])")


def _relu(x: tf.Tensor, preset: PdePreset, o: str, c: str) -> Mistake:
    model = _network(preset, "relu")
    got = gradlib.pde.derivatives(model, x, coords=preset.coords, outputs=preset.outputs, want=[f"{o}_{c}{c}"])
    largest = float(np.max(np.abs(got[f"{o}_{c}{c}"].numpy())))
    check = gradlib.pde.check(model, x, coords=preset.coords, outputs=preset.outputs)
    return Mistake(f"A ReLU network's second derivative: {o}_{c}{c}",
                   "model = keras.Sequential([..., Dense(16, activation='relu'), ...])\n"
                   f"{o}_{c}{c} = outer.gradient({o}_{c}, x)",
                   f"largest |{o}_{c}{c}| over the points: {gradlib.format_number(largest)}",
                   " ".join(check.findings) or "use a smooth activation (tanh) for a residual with second derivatives")


def _round_trip(x: tf.Tensor, preset: PdePreset, o: str, c: str) -> Mistake:
    model = _network(preset)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", gradlib.NotDifferentiableWarning)
        with tf.GradientTape(persistent=True) as tape:
            d = gradlib.pde.derivatives(model, x, coords=preset.coords, outputs=preset.outputs, want=[f"{o}_{c}"])
            loss = tf.reduce_mean(tf.constant(d[f"{o}_{c}"].numpy()) ** 2)   # the NumPy round trip
            lap = gradlib.laplacian(model, x.numpy()).laplacian              # NumPy too: gradlib warns
            lap_loss = tf.reduce_mean(tf.constant(lap) ** 2)
        nones = [sum(g is None for g in tape.gradient(each, model.trainable_variables)) for each in (loss, lap_loss)]
    weights = len(model.trainable_variables)   # one tape.gradient per loss, as the printed code takes: not their sum
    counts = (f"{nones[0]} of {weights} weight gradients are None, with .numpy() and with gradlib.laplacian alike"
              if nones[0] == nones[1] else f"{nones[0]} of {weights} weight gradients are None with .numpy(), "
              f"{nones[1]} of {weights} with gradlib.laplacian")
    warned = [str(w.message).split(":")[0] for w in seen if issubclass(w.category, gradlib.NotDifferentiableWarning)]
    return Mistake("A NumPy round trip inside the training step",
                   f"with tf.GradientTape() as tape:\n    {o}_{c} = ...numpy()   # or gradlib.laplacian(...)\n"
                   f"    loss = tf.reduce_mean({o}_{c} ** 2)\ntape.gradient(loss, model.trainable_variables)",
                   counts + (f"; gradlib warned: {warned[0]}" if warned else ""),
                   "keep the tensors: gradlib.pde.derivatives / gradlib.pde.residual stay on the tape")


@dataclass(frozen=True)
class Step:
    """One training step's weight gradients of ``mean(residual**2)``: gradlib.pde's against nested tapes'."""

    variables: tuple[str, ...]
    norms: tuple[float, ...]
    #: how many weights' gradients are None (a weight the residual does not reach: the output layer's bias when
    #: the residual names only derivatives, in nested tapes too)
    missing: int
    max_difference: float | None   # None: no nested-tape reference for a typed residual


def training_step(state: State) -> Step:
    """The weight gradients of the mean squared residual, by gradlib.pde and (for a preset) by nested tapes."""
    state, preset = check_state(state), state.equation
    if state.closed_form.strip():
        raise gradlib.ExpressionError("PDE page: a typed closed form has no weights; the training step needs the "
                                      "network (clear the closed form)")
    model, x = _network(preset), tf.constant(points(state)[2], tf.float64)
    res = gradlib.pde.residual(state.residual_text, model, coords=preset.coords, outputs=preset.outputs,
                               constants=_constants(preset))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(res(x) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    names = tuple(v.path for v in model.trainable_variables)
    norms = tuple(float(tf.norm(g)) if g is not None else float("nan") for g in grads)
    difference = None
    if not state.text.strip():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(_nested_residual(model, x, preset) ** 2)
        ref = tape.gradient(loss, model.trainable_variables)
        difference = max(_difference(g, r) for g, r in zip(grads, ref))
    return Step(names, norms, sum(g is None for g in grads), difference)


def _difference(got: tf.Tensor | None, ref: tf.Tensor | None) -> float:
    """Largest absolute difference; two ``None`` (a weight the residual does not reach, in both) agree."""
    if got is None or ref is None:
        return 0.0 if got is None and ref is None else math.inf
    return float(np.max(np.abs(got.numpy() - ref.numpy())))


def _nested_residual(model: Callable, x: tf.Tensor, preset: PdePreset) -> tf.Tensor:
    """The preset's residual by hand-written nested tapes (the reference)."""
    d = {n: nested_derivative(model, x, preset, n) for n in derivative_names(preset)}
    c = dict(preset.constants)
    if preset is PRESETS["burgers"]:
        return d["u_t"] + d["u"] * d["u_x"] - c["nu"] * d["u_xx"]
    if preset is PRESETS["heat"]:
        return d["u_t"] - c["k"] * (d["u_xx"] + d["u_yy"])
    if preset is PRESETS["poisson"]:
        return d["u_xx"] + d["u_yy"] + 2 * math.pi ** 2 * tf.sin(math.pi * x[:, 0]) * tf.sin(math.pi * x[:, 1])
    return d["u"] * d["u_x"] + d["v"] * d["u_y"] + d["p_x"] - c["nu"] * (d["u_xx"] + d["u_yy"])


def code(state: State) -> str:
    """The nested-tape code a user writes for the preset's derivatives."""
    preset = state.equation
    o, (a, b) = preset.outputs[0], preset.coords[:2]
    return (f"x = tf.constant(points)            # (N, {len(preset.coords)}): {', '.join(preset.coords)}\n"
            "with tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
            f"        inner.watch(x)\n        {o} = model(x)[:, 0]\n"
            f"    g = inner.gradient({o}, x)       # inside outer\n"
            f"    {o}_{a}, {o}_{b} = g[:, 0], g[:, 1]\n{o}_{a}{a} = outer.gradient({o}_{a}, x)[:, 0]\n"
            f"# the same with gradlib, tensors on your tape:\n"
            f"r = gradlib.pde.residual({state.residual_text!r}, model,\n"
            f"                         coords={preset.coords}, outputs={preset.outputs})(x)")
