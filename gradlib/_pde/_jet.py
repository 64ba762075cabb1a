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

import concurrent.futures
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from .._callable._mixing import PROJECTION_SEED
from .._callable._state import same_output
from .._second._taylor import dense_layers, forward_jet, plain_dtypes

__all__ = ["GUARD_POINTS", "fixed_points", "in_thread", "jet_agrees", "jet_kernels", "jet_values", "rowwise"]

#: the points the guard compares the jet with the model's own call at (at most): a jet built from the wrong rules
#: computes another function, which differs at every generic point, so a few points spread over the batch show it as
#: well as all of them, at a fixed cost (not a pass over every point of a large batch)
GUARD_POINTS = 64


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


def rowwise(model: Callable) -> bool:
    """Whether ``model`` is proved to map each point alone: a Keras ``Sequential`` of plain ``Dense`` layers
    (``dense_layers``: a matrix product by row and an elementwise activation), whose points cannot mix."""
    try:
        return bool(dense_layers(model)[0])
    except (AttributeError, ValueError, TypeError):   # a Dense not built yet: not proved
        return False


def jet_values(kernels: list, x: tf.Tensor, plan: Any) -> dict[str, tf.Tensor]:
    """Each asked derivative by name, ``(N,)``, from one forward pass of the jet."""
    firsts = tuple(sorted({d.along[0] for d in plan.wanted if len(d.along) == 1}))
    pairs = tuple(sorted({d.along for d in plan.wanted if len(d.along) == 2}))
    y, first, second = forward_jet(kernels, x, firsts, pairs)
    found = {0: lambda d: y, 1: lambda d: first[d.along[0]], 2: lambda d: second[d.along]}
    return {d.name: found[len(d.along)](d)[:, d.output] for d in plan.wanted}


def jet_agrees(model: Callable, x: tf.Tensor, plan: Any) -> bool:
    """Whether the jet's value and first derivatives equal the model's own call and its tape gradient (to its
    dtype's rounding), read eagerly once: a second guard beside the structural proof of ``dense_layers``. True
    where the jet does not apply; False where the model's call fails (nested tapes then report it).

    Eagerly, at ``GUARD_POINTS`` of ``x``'s points spread evenly over the batch (its first and last included).
    Inside a trace (a residual first called in the caller's ``tf.function``), ``x`` has no values: the guard runs
    eagerly in a thread of its own (TensorFlow's graphs and tapes are per thread: there it is outside the caller's
    graph and tapes, and its own tape records, which under ``tf.init_scope`` it would not) at ``GUARD_POINTS``
    fixed points drawn uniformly in ``[-1, 1]`` per coordinate. The second derivatives come from the same rules as the first, which
    this guard checks; they are not compared (a tape's second pass would cost what the jet saves).
    """
    kernels = jet_kernels(model, plan)
    if not kernels:
        return True
    if tf.executing_eagerly():
        return _agrees(model, kernels, _spread(x), len(plan.coords))

    return in_thread(lambda: _agrees(model, kernels, fixed_points(x, len(plan.coords)), len(plan.coords)))


def fixed_points(x: tf.Tensor, d: int) -> tf.Tensor:
    """``GUARD_POINTS`` points drawn uniformly in ``[-1, 1]`` per coordinate in ``x``'s dtype (as many as ``x`` has
    where its trace fixes fewer): where a check must run on values while the caller traces (in ``in_thread``)."""
    count = GUARD_POINTS if x.shape[0] is None else max(2, min(int(x.shape[0]), GUARD_POINTS))
    return tf.random.stateless_uniform((count, d), seed=PROJECTION_SEED, minval=-1.0, maxval=1.0, dtype=x.dtype)


def in_thread(work: Callable[[], Any]) -> Any:
    """``work()`` run eagerly in a thread of its own: TensorFlow's graphs and tapes are per thread, so there it is
    outside the caller's graph and tapes, and its own tapes record (under ``tf.init_scope`` they would not)."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(work).result()


def _spread(x: tf.Tensor) -> tf.Tensor:
    """At most ``GUARD_POINTS`` of ``x``'s rows, evenly spaced from the first to the last."""
    n = int(x.shape[0])
    return x if n <= GUARD_POINTS else tf.gather(x, np.linspace(0, n - 1, GUARD_POINTS).round().astype(np.int64))


def _agrees(model: Callable, kernels: list, x: tf.Tensor, d: int) -> bool:
    """The jet's ``y`` against the model's call and a random projection of its first derivatives against the
    model's tape gradient of that projection, at the points ``x`` (eagerly)."""
    y, first, _ = forward_jet(kernels, x, tuple(range(d)), ())
    u = tf.random.stateless_normal(tf.shape(y), seed=PROJECTION_SEED, dtype=y.dtype)
    try:
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(x)
            called = tf.reshape(tf.cast(model(x), y.dtype), tf.shape(y))
        g = tape.gradient(called, x, output_gradients=u, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    except Exception:   # noqa: BLE001 - the user's model failed: the tape path calls it and says so
        return False
    predicted = tf.stack([tf.reduce_sum(u * tf.cast(first[j], y.dtype), axis=1) for j in range(d)], axis=1)
    return (same_output(y.numpy(), called.numpy(), y.dtype.name)
            and same_output(predicted.numpy(), tf.cast(g, y.dtype).numpy(), y.dtype.name))
