"""The tiled per-sample Jacobian: the batch repeated once per output element, one backward pass with one-hot rows.

For a function whose samples are independent, sample ``b``'s Jacobian row ``k`` is the gradient of ``y[b, k]``
with respect to ``x[b]``. Repeat the batch ``n`` times (``n`` a sample's output elements), run ``fn`` once on the
``n * B`` rows, and send back cotangent ``e_k`` on every row of block ``k``: one backward pass gives every row of
every sample's Jacobian. ``batch_jacobian`` gets the same rows from ``n`` backward passes, either one after the
other (``while_loop``) or vectorized by pfor, which for a model that runs a loop itself (a Keras GRU, LSTM or
SimpleRNN: a ``tf.while_loop`` over the steps) traced for 6-11 s and ran 1.5-3x slower than this on those three
models (``python3 -m benchmarks.per_sample``).

What it assumes and how that is proved: the answer is right only when ``fn`` computes each sample alone, the same
at any batch size and with no random draws. ``checked_body`` runs the check every per-sample method runs
(``_mixing.find_mixing``: a random projection of the whole batch's ``dy/dx``, on the batch as given, against the
Jacobians) and compares the tiled ``y`` with ``fn(x)``; passing it proves both that the samples do not mix and that
these Jacobians are the batch's own (the projection's equality, for a random ``u``, leaves no other Jacobian). It
runs on the first call of a compiled function for each batch size, and again whenever the fingerprint of the
floating-point variables the function reads changes (``_callable._weights``); otherwise the call is the tiled
pass alone. What it allocates: the model's forward pass over ``n`` copies of the batch (``n`` times one forward
pass's activations), which is why ``TILED_OUTPUTS`` bounds ``n``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import tensorflow as tf

from .._callable import _weights
from .._callable._mixing import PROJECTION_SEED, held_outputs
from .._callable._outputs import joined_outputs
from .._callable._trace import trace

__all__ = ["TILED_OUTPUTS", "checked_body", "fast_build", "tiled_jacobian"]

#: a sample's output elements up to which the tiled method runs (its forward pass holds that many copies of the
#: batch's); past it ``auto`` takes batch_jacobian's while_loop, which holds one
TILED_OUTPUTS = 64
_ZERO = tf.UnconnectedGradients.ZERO


def tiled_jacobian(fn: Callable, x: tf.Tensor, out_shape: Sequence[int], api: str) -> tuple[tf.Tensor, tf.Tensor]:
    """``(y, J)`` from one forward and one backward pass over ``x`` repeated ``n`` times (traceable): ``y`` is the
    first copy's output, ``J`` of shape ``(B, *out_shape, *x.shape[1:])``."""
    n, b = math.prod(out_shape), tf.shape(x)[0]
    tiled = tf.tile(x, [n] + [1] * (x.shape.rank - 1))   # row k * B + b is sample b
    with tf.GradientTape() as tape:
        tape.watch(tiled)
        y = joined_outputs(fn(tiled), tiled.shape[0], api)   # n * B rows, static when the batch is
        flat = tf.reshape(y, [n * b, n])
        flat = tf.cast(flat, x.dtype) if flat.dtype != x.dtype and flat.dtype.is_floating else flat
    ones = tf.repeat(tf.eye(n, dtype=flat.dtype), b, axis=0)   # block k's rows get e_k
    rows = tape.gradient(flat, tiled, output_gradients=ones, unconnected_gradients=_ZERO)
    jac = tf.transpose(tf.reshape(rows, [n, b, -1]), [1, 0, 2])
    shape = tf.concat([[b], tf.constant(list(out_shape), tf.int32), tf.shape(x)[1:]], axis=0)
    return y[:b], tf.reshape(jac, shape)


def fast_build(fn: Callable, spec: tf.TensorSpec, out_shape: Sequence[int], variables: Sequence[Any],
               api: str) -> Callable[[bool], Any]:
    """``build(jit_compile) -> concrete ([x], []) -> (y, J, fingerprint)``: the tiled pass and the ``variables``'
    fingerprint in one call, as ``_compiled.Compiled`` takes it (a graph first, XLA once the calls have paid for its
    build and it agreed with the graph and ran faster)."""
    def body(xs, cs):
        return (*tiled_jacobian(fn, xs[0], out_shape, api), _weights.weights_fingerprint(variables))

    return lambda jit: trace(body, [[spec], []], jit_compile=jit)


def checked_body(fn: Callable, out_shape: Sequence[int], variables: Sequence[Any], api: str) -> Callable:
    """The checking step: ``x -> (y, J, u, g, y_called, fingerprint, ends)``: the tiled ``(y, J)``, ``fn(x)`` itself
    (``y_called``), the check's random cotangent ``u`` and ``g = u^T d fn(x) / dx``, the fingerprint of the
    ``variables`` (``_callable._weights``) the check holds for, and the held pass
    (``_mixing.held_outputs``: a batch statistic under stop_gradient is the same on the repeated batch)."""
    def body(x):
        fingerprint = _weights.weights_fingerprint(variables)
        with tf.GradientTape() as tape:   # fn(x) first: an output reduced over the batch is refused at its own size
            tape.watch(x)
            called = joined_outputs(fn(x), x.shape[0], api)
        y, jac = tiled_jacobian(fn, x, out_shape, api)
        u = tf.random.stateless_normal(tf.shape(called), seed=PROJECTION_SEED, dtype=called.dtype)
        g = tape.gradient(called, x, output_gradients=u, unconnected_gradients=_ZERO)
        return y, jac, u, g, called, fingerprint, held_outputs(fn, x, api)

    return body
