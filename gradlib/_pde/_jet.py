"""The forward jet: a Dense network's value, first and second derivatives along the named coordinates in one pass.

For a Keras ``Sequential`` of plain ``Dense`` layers whose activations have forward rules
(``gradlib._second._taylor``: tanh, sigmoid, softplus, silu, elu, exponential, relu, linear), each layer carries
the value, one first derivative per coordinate the plan names and one second derivative per pair it names
(``u_xx``, ``u_xt``), instead of differentiating the network's backward pass again with nested tapes. Its ops
are plain matrix products and elementwise rules on the kernels, so the caller's weight tape differentiates
them like any other (a training step's weight gradients are nested tapes' own, to rounding).

Only orders 1 and 2 are carried. Any other model (a layer or activation without a rule, a subclass that may
compute something else, mixed precision, a model not built yet) or plan (order 3 or 4) goes to nested tapes:
this rule set can only be incomplete, never wrong.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from .._callable._state import same_output
from .._second._taylor import dense_layers, forward_jet, plain_dtypes

__all__ = ["jet_agrees", "jet_kernels", "jet_values"]


def jet_kernels(model: Callable, plan: Any) -> list:
    """The model's ``[(kernel, bias, activation)]`` when the jet computes ``plan`` for it, else ``[]``."""
    if not 1 <= plan.order <= 2:
        return []
    try:
        kernels, _ = dense_layers(model)
    except (AttributeError, ValueError, TypeError):   # a Dense not built yet has no kernel: nested tapes build it
        return []
    if not kernels or not plain_dtypes(kernels, list(model.layers)):
        return []
    first, last = kernels[0][0].shape, kernels[-1][0].shape
    fits = int(first[0]) == len(plan.coords) and int(last[1]) == len(plan.outputs)
    return kernels if fits else []


def jet_values(kernels: list, x: tf.Tensor, plan: Any) -> dict[str, tf.Tensor]:
    """Each asked derivative by name, ``(N,)``, from one forward pass of the jet."""
    firsts = tuple(sorted({d.along[0] for d in plan.wanted if len(d.along) == 1}))
    pairs = tuple(sorted({d.along for d in plan.wanted if len(d.along) == 2}))
    y, first, second = forward_jet(kernels, x, firsts, pairs)
    found = {0: lambda d: y, 1: lambda d: first[d.along[0]], 2: lambda d: second[d.along]}
    return {d.name: found[len(d.along)](d)[:, d.output] for d in plan.wanted}


def jet_agrees(model: Callable, x: tf.Tensor, plan: Any) -> bool:
    """Whether the jet's outputs equal the model's own call at ``x`` (to its dtype's rounding), read eagerly once
    (a residual's first eager call): a second guard beside the structural proof of ``dense_layers``. True where
    the jet does not apply; False where the model's call fails (nested tapes then report it)."""
    kernels = jet_kernels(model, plan)
    if not kernels:
        return True
    y, _, _ = forward_jet(kernels, x, (), ())
    try:
        called = tf.reshape(tf.cast(model(x), y.dtype), tf.shape(y))
    except Exception:   # noqa: BLE001 - the user's model failed: the tape path calls it and says so
        return False
    return same_output(y.numpy(), called.numpy(), y.dtype.name)
