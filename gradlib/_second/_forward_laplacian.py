"""The forward Laplacian run in chunks of the batch, carrying each layer's Jacobian only as far as it is needed.

``gradlib._second._taylor.forward_laplacian`` holds the rules (Li et al., 2023, arXiv 2307.08214): for
``z = h W + b`` and ``a = s(z)``, ``Jz = J W``, ``Lz = L W``, ``Ja = s'(z) Jz`` and
``La = s'(z) Lz + s''(z) sum_i Jz_i^2``. Run on a whole batch of 1,024 samples, 50 inputs and 256 units, each
carried Jacobian is ``1024 x 50 x 256`` floats (52 MB in float32), and every elementwise step after its matrix
product (the scaling by ``s'``, the squares, their sum) streams it through memory again: the products were half
the time. Here the same rules run on chunks of ``_orders.chunk_rows`` samples (a ``tf.map_fn``, two chunks at a
time), so that a chunk's carried Jacobian stays in the cache; ``_orders``' estimate counts what the chunks hold.
The batch padded with zeros to whole chunks: each padded sample is computed on its own and dropped.

For a Laplacian the chunk's recurrence also leaves out what no later step reads: the squares of a layer whose
activation has no second derivative (``linear``, ``relu``: ``s''`` is 0 wherever it exists, and the term is 0),
and the Jacobian past the last layer that has one (a Dense tanh network's linear output layer needs only
``L W``). The Jacobian is then not returned (``None``): ``laplacian`` returns none. Hessian diagonals keep the
whole recurrence of ``forward_laplacian``, chunk by chunk.

>>> import numpy as np
>>> kernels = [(np.array([[2.0]]), np.array([0.0]), "tanh")]
>>> y, jac, lap = chunked_forward_laplacian(kernels, tf.constant([[0.5]], tf.float64), "laplacian")
>>> bool(abs(float(lap[0, 0]) + 8 * np.tanh(1.0) * (1 - np.tanh(1.0) ** 2)) < 1e-12), jac
(True, None)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from ._orders import PARALLEL_CHUNKS, chunk_rows
from ._taylor import RULES, forward_laplacian

__all__ = ["chunked_forward_laplacian"]

#: activations whose second derivative is 0 wherever it exists: their layer adds no squares to the Laplacian
_NO_SECOND = ("linear", "relu")


def chunked_forward_laplacian(kernels: list[tuple[Any, Any, str]], x: tf.Tensor, kind: str):
    """``(y, jacobian, value)`` as ``forward_laplacian`` gives them, computed chunk by chunk; for a Laplacian the
    Jacobian is ``None`` (not computed). ``x`` is ``(B, d)`` with a static shape."""
    dtype = tf.as_dtype(kernels[0][0].dtype) if hasattr(kernels[0][0], "dtype") else x.dtype
    batch, inputs = (int(n) for n in x.shape)
    rows = chunk_rows(batch, inputs, max(int(k.shape[1]) for k, _, _ in kernels))
    if kind == "laplacian":
        step = lambda h: _laplacian(kernels, h)  # noqa: E731
        signature = (dtype, dtype)
    else:
        step = lambda h: forward_laplacian(kernels, h, kind)  # noqa: E731
        signature = (x.dtype, x.dtype, x.dtype)
    if rows >= batch:
        parts = step(tf.cast(x, dtype) if kind == "laplacian" else x)
    else:
        parts = _by_chunks(step, x if kind != "laplacian" else tf.cast(x, dtype), rows, signature)
    parts = [tf.cast(p, x.dtype) for p in parts]
    return (parts[0], None, parts[1]) if kind == "laplacian" else tuple(parts)


def _by_chunks(step, x: tf.Tensor, rows: int, signature: tuple) -> list[tf.Tensor]:
    """``step`` on chunks of ``rows`` samples, the batch padded with zeros to a whole number of chunks (the padded
    samples are computed and dropped: each sample's numbers depend on its own row only)."""
    batch, inputs = (int(n) for n in x.shape)
    chunks = -(-batch // rows)
    padded = tf.pad(x, [[0, chunks * rows - batch], [0, 0]])
    outs = tf.map_fn(step, tf.reshape(padded, (chunks, rows, inputs)), fn_output_signature=signature,
                     parallel_iterations=PARALLEL_CHUNKS)
    return [tf.reshape(o, (chunks * rows,) + tuple(o.shape[2:]))[:batch] for o in outs]


def _laplacian(kernels: list[tuple[Any, Any, str]], h: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """``(y, Laplacian)`` of one chunk ``(rows, d)``: the recurrence with only the terms a later step reads."""
    squares = [activation not in _NO_SECOND for _, _, activation in kernels]
    jac = lap = None         # the first layer: J is the identity, L is 0 (h is x itself)
    for i, (kernel, bias, activation) in enumerate(kernels):
        w = tf.cast(tf.convert_to_tensor(kernel), h.dtype)
        z = tf.matmul(h, w) + (tf.cast(tf.convert_to_tensor(bias), h.dtype) if bias is not None else 0)
        h, d1, d2 = RULES[activation](z)
        carry = any(squares[i + 1:])     # a later layer squares its Jacobian: this one's must be carried
        if lap is None:      # Jz is the kernel itself, the same for every sample
            lap = d2 * tf.reduce_sum(tf.square(w), axis=0) if squares[i] else tf.zeros_like(z)
            jac = d1[:, None, :] * w[None] if carry else None
            continue
        jz = _times(jac, w) if jac is not None and (squares[i] or carry) else None
        lap = d1 * tf.matmul(lap, w) + (d2 * tf.reduce_sum(tf.square(jz), axis=1) if squares[i] else 0)
        jac = d1[:, None, :] * jz if carry else None
    return h, lap


def _times(carried: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
    """``(B, d, k) @ (k, m)`` as one matrix product of ``(B * d, k)`` by ``(k, m)``."""
    shape = tf.shape(carried)
    product = tf.matmul(tf.reshape(carried, (-1, shape[2])), w)
    return tf.reshape(product, (shape[0], shape[1], int(w.shape[1])))
