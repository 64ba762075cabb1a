"""Live demonstrations of second order: the nested-tape mistakes, each run side by side with what is right (the
seed's broken loop, an order up), and a small physics example (Laplacians over a 2-D grid).

>>> [m.name for m in second_order_mistakes()]
['gradient_after_outer_block', 'watched_by_inner_only', 'batch_jacobian_of_mixed_rows', 'where_branch_not_taken']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import tensorflow as tf

from .._foundations._runtime import quiet
from .._foundations._errors import BatchMixingError, ExpressionError
from ._samplewise import laplacian, per_sample_hessians

__all__ = ["PoissonExample", "SecondOrderMistake", "poisson_example", "second_order_mistakes"]


@dataclass(frozen=True)
class SecondOrderMistake:
    """One mistake: its code and what TensorFlow returned just now, next to the right code and its answer.

    ``broken`` and ``fixed`` are lists of numbers, ``None`` in each cell of a result TensorFlow returned as None;
    ``fixed_error`` is the refusal gradlib gives instead of a number, when there is no right number to give;
    ``target`` is the name the code gives the result (``d2y``, ``lap``).
    """

    name: str
    title: str
    explanation: str
    broken_code: str
    broken: list
    fixed_code: str
    fixed: list
    fixed_error: str = ""
    target: str = "d2y"


def _numbers(t, size: int = 1) -> list:
    """The numbers of ``t``; a None result (a gradient of ``size`` elements TensorFlow did not compute) is ``size``
    Nones, so its table has as many cells as the right one."""
    return [None] * size if t is None else [float(v) for v in np.asarray(t).reshape(-1)]


def _after_block() -> SecondOrderMistake:
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
    dy = inner.gradient(y, x)
    broken = outer.gradient(dy, x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
        dy = inner.gradient(y, x)
    fixed = outer.gradient(dy, x)
    return SecondOrderMistake(
        "gradient_after_outer_block", "The inner gradient taken after the outer tape's block",
        "The outer tape records only what runs inside its block. Taken after it, the first derivative is not on "
        "the outer tape's record, so its derivative is None. Take the inner gradient inside the outer block.",
        "with tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
        "        inner.watch(x)\n        y = x ** 3\ndy = inner.gradient(y, x)  # outside `outer`\n"
        "d2y = outer.gradient(dy, x)", _numbers(broken, x.shape.num_elements()),
        "with tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
        "        inner.watch(x)\n        y = x ** 3\n    dy = inner.gradient(y, x)  # in `outer`\n"
        "d2y = outer.gradient(dy, x)", _numbers(fixed))


def _inner_only() -> SecondOrderMistake:
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
        dy = inner.gradient(y, x)
    broken = outer.gradient(dy, x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
        dy = inner.gradient(y, x)
    fixed = outer.gradient(dy, x)
    return SecondOrderMistake(
        "watched_by_inner_only", "A tensor watched only by the inner tape",
        "A tf.constant is recorded only by a tape that watches it. The inner tape does, the outer one does not, so "
        "the outer tape has no path from x to the first derivative: None. Watch x on both tapes (a tf.Variable is "
        "watched by every tape).",
        "with tf.GradientTape() as outer:\n    with tf.GradientTape() as inner:\n        inner.watch(x)\n"
        "        y = x ** 3\n    dy = inner.gradient(y, x)\nd2y = outer.gradient(dy, x)",
        _numbers(broken, x.shape.num_elements()),
        "with tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
        "        inner.watch(x)\n        y = x ** 3\n    dy = inner.gradient(y, x)\nd2y = outer.gradient(dy, x)",
        _numbers(fixed))


def _mixed_rows() -> SecondOrderMistake:
    x = tf.constant([[1.0], [2.0]])

    def f(x):
        return x ** 2 + 0.5 * tf.reverse(x, [0]) ** 2   # each row's output reads the other row

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    broken = outer.batch_jacobian(dy, x)
    error = ""
    try:
        per_sample_hessians(f, x, diagonal=True)
    except BatchMixingError as exc:
        error = str(exc)
    return SecondOrderMistake(
        "batch_jacobian_of_mixed_rows", "batch_jacobian of a gradient when the batch rows interact",
        "batch_jacobian assumes each row's output depends on that row's input only. Here y[b] = x[b]^2 + "
        "x[other]^2 / 2: the true d2y[b]/dx[b]^2 is 2, but the gradient of the batch's sum mixes the rows and "
        "batch_jacobian silently returns 3 (tensorflow#38428). gradlib checks every sample and refuses.",
        "with tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
        "        inner.watch(x)\n        y = f(x)\n    dy = inner.gradient(y, x)\nd2y = outer.batch_jacobian(dy, x)",
        _numbers(broken), "gradlib.per_sample_hessians(\n    f, x, diagonal=True)", [2.0, 2.0], error)


def _dead_branch(x):
    a = x[:, 0]
    return tf.stack([tf.where(a > 0, tf.sqrt(tf.abs(a)), tf.zeros_like(a)), x[:, 1] ** 2], axis=1)


def _branch_not_taken() -> SecondOrderMistake:
    x = tf.constant([[0.0, 3.0]])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = _dead_branch(x)
        jac = inner.batch_jacobian(y, x)
    broken = tf.linalg.trace(outer.batch_jacobian(jac, x))
    fixed = laplacian(_dead_branch, x)
    return SecondOrderMistake(
        "where_branch_not_taken", "NaN from the branch of where() not taken",
        "y = [where(x0 > 0, sqrt(|x0|), 0), x1^2] at x0 = 0: the Laplacians are 0 and 2. Nested tapes differentiate "
        "both branches of where() and every output's path: the sqrt branch, not taken, gets a zero derivative, and "
        "0 times its infinite second derivative is NaN, in x1^2's Laplacian too. gradlib finds such cells and "
        "recomputes them in forward over forward mode, which follows only the branch taken and each output's own "
        "path, and says so in .warnings: " + " ".join(fixed.warnings),
        "with tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
        "        inner.watch(x)\n        y = f(x)\n    j = inner.batch_jacobian(y, x)\n"
        "h = outer.batch_jacobian(j, x)\nlap = tf.linalg.trace(h)", _numbers(broken),
        "gradlib.laplacian(f, x).laplacian", _numbers(fixed.laplacian), target="lap")


@quiet
def second_order_mistakes() -> list[SecondOrderMistake]:
    """Every mistake, run now."""
    return [_after_block(), _inner_only(), _mixed_rows(), _branch_not_taken()]


@dataclass(frozen=True, eq=False)
class PoissonExample:
    """Laplacians over the grid ``xs`` x ``ys`` (``[i, j]`` at ``(xs[j], ys[i])``), float64."""

    xs: np.ndarray
    ys: np.ndarray
    exact_laplacian: np.ndarray      # of u = sin(pi x) sin(pi y)
    residual: np.ndarray             # its Poisson residual: laplacian(u) - f, with f = -2 pi^2 u
    tanh_laplacian: np.ndarray       # of a small tanh network (untrained)
    relu_laplacian: np.ndarray       # of the same network with ReLU: exactly 0
    tanh_method: str
    relu_warnings: tuple[str, ...]


def _network(activation: str):
    import keras

    keras.utils.set_random_seed(7)
    return keras.Sequential([keras.Input((2,), dtype="float64"),
                             keras.layers.Dense(16, activation=activation, dtype="float64"),
                             keras.layers.Dense(16, activation=activation, dtype="float64"),
                             keras.layers.Dense(1, dtype="float64")])


def _solution(p):
    return (tf.sin(np.pi * p[:, 0]) * tf.sin(np.pi * p[:, 1]))[:, None]


@quiet
def poisson_example(grid: int = 33) -> PoissonExample:
    """The Laplacian of a known solution of the Poisson equation, of a tanh network and of a ReLU network, over a
    ``grid`` x ``grid`` grid on the unit square (``grid`` from 2 to 201)."""
    if isinstance(grid, bool) or not isinstance(grid, int) or not 2 <= grid <= 201:
        raise ExpressionError(f"poisson_example got grid={grid!r}; give a whole number from 2 to 201")
    xs = ys = np.linspace(0.0, 1.0, grid)
    gx, gy = np.meshgrid(xs, ys)
    points = np.stack([gx.reshape(-1), gy.reshape(-1)], axis=1)
    exact = laplacian(_solution, points).laplacian[:, 0].reshape(grid, grid)
    f = -2 * np.pi ** 2 * np.sin(np.pi * gx) * np.sin(np.pi * gy)
    tanh = laplacian(_network("tanh"), points)
    relu = laplacian(_network("relu"), points)
    return PoissonExample(xs, ys, exact, exact - f, tanh.laplacian[:, 0].reshape(grid, grid),
                          relu.laplacian[:, 0].reshape(grid, grid), tanh.method, relu.warnings)
