"""The "Second order" page's data: the seed's function an order higher, the nested-tape mistakes, and a small
physics example (the Laplacian over a 2-D grid, and the Poisson residual of a known solution), as plain data.

The physics example's functions are written in TensorFlow (a function of the grid points, a small Keras
network), so this module, like ``model_report`` and ``digits``, imports TensorFlow; pages reach it through
``dashboard.services``.

>>> seed().hessian[1].tolist()
[[40.0, 30.0, 24.0], [30.0, 0.0, 9.0], [24.0, 9.0, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
import numpy as np
import tensorflow as tf

import gradlib

__all__ = ["GRID", "Poisson", "mistakes", "poisson", "seed"]

#: points per side of the page's grid on [0, 1]^2
GRID = 33


def seed() -> gradlib.HessianResult:
    """The seed's ``y = [x0 x1 x2, x0^2 x1 x2]`` at ``(3, 4, 5)``: the Hessian of each element."""
    x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
    return gradlib.hessians(lambda x: tf.stack([x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]]), x)


def mistakes() -> list[gradlib.SecondOrderMistake]:
    return gradlib.second_order_mistakes()


@dataclass(frozen=True, eq=False)
class Poisson:
    """Laplacians over the grid ``xs`` x ``ys`` (``[i, j]`` at ``(xs[j], ys[i])``)."""

    xs: np.ndarray
    ys: np.ndarray
    exact_laplacian: np.ndarray      # of u = sin(pi x) sin(pi y), by gradlib
    residual: np.ndarray             # its Poisson residual: laplacian(u) - f, with f = -2 pi^2 u
    tanh_laplacian: np.ndarray       # of a small tanh network (untrained)
    relu_laplacian: np.ndarray       # of the same network with ReLU: exactly 0
    tanh_method: str
    relu_warnings: tuple[str, ...]


def _network(activation: str) -> keras.Model:
    keras.utils.set_random_seed(7)
    return keras.Sequential([keras.Input((2,), dtype="float64"),
                             keras.layers.Dense(16, activation=activation, dtype="float64"),
                             keras.layers.Dense(16, activation=activation, dtype="float64"),
                             keras.layers.Dense(1, dtype="float64")])


def _exact(p):
    return (tf.sin(np.pi * p[:, 0]) * tf.sin(np.pi * p[:, 1]))[:, None]


def poisson(grid: int = GRID) -> Poisson:
    """The Laplacian of a known solution, of a tanh network and of a ReLU network over a ``grid`` x ``grid`` grid."""
    xs = ys = np.linspace(0.0, 1.0, grid)
    gx, gy = np.meshgrid(xs, ys)
    points = np.stack([gx.reshape(-1), gy.reshape(-1)], axis=1)
    exact = gradlib.laplacian(_exact, points).laplacian[:, 0].reshape(grid, grid)
    f = -2 * np.pi ** 2 * np.sin(np.pi * gx) * np.sin(np.pi * gy)
    tanh = gradlib.laplacian(_network("tanh"), points)
    relu = gradlib.laplacian(_network("relu"), points)
    return Poisson(xs, ys, exact, exact - f, tanh.laplacian[:, 0].reshape(grid, grid),
                   relu.laplacian[:, 0].reshape(grid, grid), tanh.method, relu.warnings)
