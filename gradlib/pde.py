"""PDE residuals for physics-informed networks: derivatives by coordinate name, as tensors a training step uses.

``derivatives`` gives a network's values and derivatives at collocation points by name (``u_x``, ``u_xt``,
``v_y``), ``residual`` turns a typed equation (``"u_t + u*u_x - nu*u_xx"``, in gradlib's expression language:
parsed, never executed) into a callable ``x -> (N,)``, and ``check`` runs, once and eagerly, what a training
step must not: whether the model mixes points, NaN, a piecewise-linear network whose second derivatives are 0.

Unlike gradlib's inspection APIs (which return NumPy), ``derivatives`` and ``residual`` take and return
``tf.Tensor``s that stay on the caller's tapes: they are differentiable with respect to the model's weights,
eagerly and inside the caller's ``tf.function`` training step. Only what is asked is computed: one backward pass
per output for every first derivative, one more per first derivative whose second derivatives are asked (the
Laplacian ``u_xx + u_yy`` along x and y only; ``u_xt`` without the full Hessian), orders 3 and 4 by repeating.
Each point's derivative is the gradient of a sum over the points, which holds when the model does not mix
points: ``check`` says whether it does, and a residual's first call refuses a model that does
(first called inside a ``tf.function``: tested at fixed points, eagerly, in a thread of its own).

>>> import tensorflow as tf
>>> u = lambda x: tf.sin(x[:, :1]) * tf.exp(-x[:, 1:])            # u(x, t) = sin(x) exp(-t)
>>> x = tf.constant([[0.0, 0.0], [1.0, 2.0]], tf.float64)
>>> d = derivatives(u, x, coords=("x", "t"), want=["u_x", "u_xx", "u_xt"])
>>> [round(float(v), 6) for v in d["u_xt"]]                       # -cos(x) exp(-t)
[-1.0, -0.073122]
>>> heat = residual("u_t - nu*u_xx", u, coords=("x", "t"), constants={"nu": 1.0})
>>> [abs(float(r)) < 1e-12 for r in heat(x)]                       # an exact solution: 0 at every point
[True, True]
"""

from __future__ import annotations

from ._pde._check import PdeCheck, check
from ._pde._residual import Residual, residual
from ._pde._derivatives import derivatives

__all__ = ["PdeCheck", "Residual", "check", "derivatives", "residual"]
