"""The "Second order" page's data, from gradlib: the seed's function an order higher, the nested-tape mistakes,
and a small physics example (Laplacians over a 2-D grid). Plain data; pages reach it through
``dashboard.services``.

>>> seed().hessian[1].tolist()
[[40.0, 30.0, 24.0], [30.0, 0.0, 9.0], [24.0, 9.0, 0.0]]
"""

from __future__ import annotations

import gradlib
from gradlib import examples

__all__ = ["GRID", "mistakes", "poisson", "seed"]

#: points per side of the page's grid on [0, 1]^2
GRID = 33


def seed() -> gradlib.HessianResult:
    """The seed's ``y = [x0 x1 x2, x0^2 x1 x2]`` at ``(3, 4, 5)``: the Hessian of each element."""
    return gradlib.hessians(lambda x: [x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]], [3.0, 4.0, 5.0])


def mistakes() -> list[examples.SecondOrderMistake]:
    """Every nested-tape mistake, run now beside what is right."""
    return examples.second_order_mistakes()


def poisson(grid: int = GRID) -> examples.PoissonExample:
    """Laplacians over a ``grid`` x ``grid`` grid: a known solution's (and its Poisson residual), a tanh and a ReLU
    network's."""
    return examples.poisson_example(grid)
