"""The checks a training step must not run, run once and eagerly: ``gradlib.pde.check(model, x, coords=...)``.

* **Points that mix.** ``gradlib.pde`` takes each point's derivative as the gradient of a sum over the points,
  which is that point's own only if no point's output depends on another's coordinates. As in
  ``per_sample_gradients``, a random projection of the whole batch's gradient must equal what the per-point
  gradients predict (``gradlib._callable._mixing.find_mixing``).
* **NaN or infinite values** in the outputs, their first derivatives and their second derivatives along each
  coordinate.
* **Second derivatives that are 0 everywhere**: a piecewise-linear network (ReLU, or no activation) has
  ``u_xx = 0`` wherever it is defined, so a residual with second derivatives cannot train it.

The answer is plain data (a ``PdeCheck``), with one sentence per finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from .._foundations._errors import GradlibError
from .._foundations._format import format_number
from .._callable._mixing import (PROJECTION_SEED, find_mixing, held_outputs, held_refusal, mixing_text, moved_batch,
                                 moved_samples)
from .._callable._random import is_random
from .._callable._state import callable_key
from .._callable._trace import lowest_float, trace
from .._callable._updates import refuse_updating
from ._derivatives import Plan, check_model, check_x, compute, entry_point, forward_columns
from ._names import Derivative, check_names

__all__ = ["PdeCheck", "check", "independence"]

_API = "gradlib.pde.check"


@dataclass(frozen=True)
class PdeCheck:
    """What ``check`` found: ``findings`` holds one sentence per problem (empty: none)."""

    points: int
    coords: tuple[str, ...]
    outputs: tuple[str, ...]
    independent: bool
    finite: bool
    #: the outputs whose second derivatives along every coordinate are exactly 0 at every point
    flat: tuple[str, ...]
    findings: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Whether nothing was found."""
        return not self.findings


@entry_point
def check(model: Callable, x: Any, coords: Sequence[str] = ("x", "t"), outputs: Sequence[str] | None = None
          ) -> PdeCheck:
    """Check, once and eagerly, that ``gradlib.pde``'s derivatives of ``model`` at ``x`` mean what they say.

    Args:
        model, x, coords, outputs: as ``gradlib.pde.derivatives`` takes them.

    Returns:
        A ``PdeCheck``: whether the points are independent, whether every value and derivative is finite, the
        outputs whose second derivatives are all 0, and a sentence per finding.

    Raises:
        GradlibError: called inside a ``tf.function`` (the checks read numbers: run them before training), or
            anything ``derivatives`` refuses.
    """
    if not tf.executing_eagerly():
        raise GradlibError(f"{_API} reads numbers, so it runs eagerly: call it once before training, outside "
                           "tf.function (the training step then calls gradlib.pde.residual or derivatives)")
    coords, outputs = check_names(coords, outputs, _API)
    wanted = [Derivative(f"{o}{'_' if k else ''}{''.join(coords[j] for j in along)}", n, along)
              for n, o in enumerate(outputs) for k, along in enumerate(_directions(len(coords)))]
    plan = Plan(coords, outputs, tuple(wanted))
    check_model(model, plan, _API)
    x = check_x(x, coords, _API)
    refuse_updating(model, x, _API, what="model")   # its two eager calls (values, mixing) would be two functions
    values = {name: value.numpy() for name, value in compute(model, x, plan, _API).items()}
    mixing = independence(model, x, plan, _API)
    nonfinite = [text for o in outputs for text in [_nonfinite(o, values, x.numpy(), coords)] if text]
    flat = tuple(o for o in outputs if _flat(o, coords, values))
    findings = ([mixing] if mixing else []) + nonfinite + [_flat_text(o, coords, len(x)) for o in flat]
    return PdeCheck(int(x.shape[0]), coords, outputs, not mixing, not nonfinite, flat, tuple(findings))


def _directions(d: int) -> list[tuple[int, ...]]:
    """The value, each first derivative and each pure second derivative: ``()``, ``(j,)``, ``(j, j)``."""
    return [()] + [(j,) for j in range(d)] + [(j, j) for j in range(d)]


def independence(model: Callable, x: tf.Tensor, plan: Plan, api: str) -> str:
    """The mixing test alone, eagerly (a residual's first call): "" when the points are independent, else why not.

    One call of the model gives both sides: each output's first derivatives (the gradient of its sum over the
    points, as ``gradlib.pde`` takes them) and the projection, so a random model (Dropout with training=True) is
    compared with its own draw, not blamed for mixing by a second call's.
    """
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        columns = [tf.cast(c, x.dtype) for c in forward_columns(model, x, plan.outputs, api)]
        y = tf.stack(columns, axis=1)
    firsts = [tape.gradient(c, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) for c in columns]
    u, g = _projection(tape, y, x)
    del tape
    jac = np.stack([f.numpy() for f in firsts], axis=1)
    return _mixing_text(model, x, jac, u, g) or _held_text(model, x, plan, api)


def _held_text(model: Callable, x: tf.Tensor, plan: Plan, api: str) -> str:
    """"" unless the derivatives of a held point (``_mixing.held_rows``: each pass holds half the points) change
    when the others move (``_mixing.held``): a batch statistic under ``tf.stop_gradient`` mixes values only,
    which the projection cannot see, and ``gradlib.pde`` then answered that batch's derivatives as each point's.
    ``_mixing.tower`` compares the derivatives up to the plan's order (a point at a boundary where the ansatz is 0
    keeps its value); where one moved, the plan's derivatives are computed on that moved batch and compared. A random
    model's calls differ anyway (not checked: asked only where a derivative moved)."""
    def columns(t: tf.Tensor) -> tf.Tensor:
        return tf.stack([tf.cast(c, t.dtype) for c in forward_columns(model, t, plan.outputs, api)], axis=1)

    moved_points = moved_samples(held_outputs(columns, x, api, max(plan.order, 1)).numpy(), x.dtype.name)
    if moved_points and is_random(columns, x, callable_key(model, "random")):   # asked only where a value moved
        return ""
    given = compute(model, x, plan, api, jet=False) if moved_points else {}
    passes: dict[int, dict] = {}   # the plan on each moved batch, computed once (each holds half the points)
    for b in moved_points:
        if b % 2 not in passes:
            passes[b % 2] = compute(model, moved_batch(x, b), plan, api, jet=False)
        moved = passes[b % 2]
        names = [d.name for d in plan.wanted if d.along] or [d.name for d in plan.wanted]
        refusal = held_refusal(api, b, np.array([float(given[n][b]) for n in names]),
                               np.array([float(moved[n][b]) for n in names]), x.dtype.name, "derivatives",
                               "hessians")
        if refusal:
            return refusal.removeprefix(f"{api}: ")
    return ""


def _projection(tape: tf.GradientTape, y: tf.Tensor, x: tf.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The test's random cotangent ``u`` and ``u^T dy/dx`` over the whole batch."""
    u = tf.random.stateless_normal(tf.shape(y), seed=PROJECTION_SEED, dtype=y.dtype)
    g = tape.gradient(y, x, output_gradients=u, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return u.numpy(), g.numpy()


def _mixing_text(model: Callable, x: tf.Tensor, jac: np.ndarray, u: np.ndarray, g: np.ndarray) -> str:
    """"" when the per-point first derivatives ``jac`` ``(B, out, d)`` predict ``g``, else why the points mix."""
    found, _ = find_mixing(jac, u, g, x.dtype.name)
    precision = _precision(model, x) if found is not None else x.dtype.name   # a trace only where a gap is seen
    if precision != x.dtype.name:
        found, _ = find_mixing(jac, u, g, precision)
    if found is None:
        return ""
    return (f"{mixing_text(found)}: gradlib.pde takes each point's derivative as the gradient of a sum over the "
            "points, so its derivatives here are not each point's own. Call the model with training=False (a "
            "BatchNormalization in training mode mixes points) or remove the layer that mixes them")


def _precision(model: Callable, x: tf.Tensor) -> str:
    """The least precise float the model computes in on ``x`` (``lowest_float`` of its trace), the tolerance of the
    mixing test: a mixed_float16 policy, or float64 points cast to a float32 Input, makes the per-point derivatives
    and the tape's projection agree to that precision only (float64's tolerance called such points mixed). ``x``'s
    own dtype when the model cannot be traced (the derivatives above ran it eagerly)."""
    spec = tf.TensorSpec((None,) + tuple(x.shape[1:]), x.dtype)
    try:
        return lowest_float(trace(lambda t: model(t), [spec]).graph, x.dtype.name)
    except Exception:   # noqa: BLE001 - not traceable: x's dtype, as before
        return x.dtype.name


def _nonfinite(output: str, values: dict[str, np.ndarray], x: np.ndarray, coords: tuple[str, ...]) -> str:
    """Where ``output`` or a derivative of it is NaN or infinite, in one sentence ("" where none is)."""
    mine = {name: value for name, value in values.items() if name == output or name.startswith(f"{output}_")}
    bad = {name: ~np.isfinite(value) for name, value in mine.items() if not np.isfinite(value).all()}
    if not bad:
        return ""
    points = np.flatnonzero(np.any(list(bad.values()), axis=0))
    at = ", ".join(f"{c} = {format_number(float(v), 4)}" for c, v in zip(coords, x[points[0]]))
    return (f"{', '.join(bad)} {'is' if len(bad) == 1 else 'are'} NaN or infinite at {len(points)} of "
            f"{values[output].size} points (the first: point {points[0]}, at {at}); a loss built on them is NaN too")


def _flat(output: str, coords: tuple[str, ...], values: dict[str, np.ndarray]) -> bool:
    return all(np.all(values[f"{output}_{c}{c}"] == 0) for c in coords)


def _flat_text(output: str, coords: tuple[str, ...], points: int) -> str:
    names = ", ".join(f"{output}_{c}{c}" for c in coords)
    return (f"every second derivative of {output} ({names}) is exactly 0 at all {points} points: {output} is "
            "piecewise linear in the coordinates (a ReLU network, or one without activation), so its second "
            "derivatives are 0 wherever they exist and a residual that uses them cannot train it. Use a smooth "
            "activation (tanh, sin, softplus); if the solution is linear, this is its true answer")
