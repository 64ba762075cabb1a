"""Which batches' independence has been checked: the weights' fingerprint and the bounded record of checks.

``per_example_gradients`` proves that a batch's examples do not mix by computing each example's loss alone
(``_gradients.check_independent``): about one more forward pass of the batch, which made the norms cost 1.3-1.7
plain batch gradients instead of 0.5-0.7 (issue 41). Whether a traced step mixes examples is decided by its graph
(the model, loss, kind, training flag: the compiled function's key), the batch's shapes and the values of the
variables the graph reads (a weight can gate a batch-mixing term: ``x + (alpha > 1) * mean(x, axis=0)``). So the
check runs once per compiled step, batch signature (the batch size included) and weights' fingerprint, and again
whenever any of them changes; each step keeps a ``record`` of the fingerprint each signature was last checked at.
``per_sample_gradients``' tiled method (recurrent models, ``_perelement._tiled``) keeps the same fingerprint per
traced step and batch shape, computed in the same call as its Jacobians.

The fingerprint is computed inside the traced step on every call (no separate call, no ``.numpy()`` of the
weights): every floating-point variable of the model (trainable or not: a BatchNormalization's moving statistics
too), its bits read as an int32 matrix ``W_j`` (a view, not a copy: the last axis its columns), and ``sum_j u_j^T W_j
V_j`` modulo ``2**32``, with fixed odd pseudo-random multipliers ``u_j`` (one per row) and ``V_j`` (two per column:
two 32-bit sums). A change of any single word, one ulp of one weight included, changes both sums (a product of odd
numbers is invertible modulo ``2**32``); several changes cancel in both only if they are tuned to the multipliers
(for changes that are not, about one chance in ``2**64``). It costs two matrix-vector products of the weights'
bits (what reading them once costs), against a training step's ``2 B`` multiply-adds per weight, and allocates a
row and a column of each variable, nothing of the weights' size. Variables that are not floats (a random layer's
seed state, which changes on every training-mode call) are not read: no graph's mixing depends on them.

>>> import keras
>>> layer = keras.layers.Dense(2)
>>> layer.build((None, 3))
>>> before = weights_fingerprint(layer.variables).numpy()
>>> _ = layer.kernel.assign(layer.kernel + 0.0)   # the same bits: the same fingerprint
>>> (weights_fingerprint(layer.variables).numpy() == before).tolist()
[True, True]
>>> _ = layer.bias.assign([0.0, 1e-30])   # one weight changed: both words change
>>> (weights_fingerprint(layer.variables).numpy() != before).tolist()
[True, True]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from .._foundations._cache import LRUCache

__all__ = ["FINGERPRINT_SPEC", "SIGNATURES", "record", "weights_fingerprint"]

#: the fingerprint's shape and dtype: two 32-bit sums (the traced step's input and output)
FINGERPRINT_SPEC = tf.TensorSpec((2,), tf.int32)
#: batch signatures a compiled step remembers the last checked fingerprint of (a step lives in a bounded cache)
SIGNATURES = 16


def weights_fingerprint(variables: Sequence[Any]) -> tf.Tensor:
    """The ``(2,)`` int32 fingerprint of the floating-point ``variables``' values (traceable; see the module)."""
    total = tf.zeros((1, 2), tf.int32)
    for j, v in enumerate(v for v in variables if tf.as_dtype(_dtype(v)).is_floating):
        words = _words(v)
        u, w = _multipliers(j, *words.shape)
        total += tf.matmul(u, tf.matmul(words, w))   # int32 arithmetic wraps modulo 2**32
    return total[0]


def _multipliers(j: int, rows: int, cols: int) -> tuple[tf.Tensor, tf.Tensor]:
    """Odd pseudo-random ``(1, rows)`` and ``(cols, 2)`` int32 multipliers for the ``j``-th variable (fixed)."""
    rng = np.random.default_rng((20, 26, j, rows, cols))
    u, w = (rng.integers(-2 ** 31, 2 ** 31, shape, dtype=np.int64) | 1 for shape in ((1, rows), (cols, 2)))
    return tf.constant(u.astype(np.int32)), tf.constant(w.astype(np.int32))


def _dtype(v: Any) -> Any:
    return getattr(v, "dtype", tf.float32)


def _words(v: Any) -> tf.Tensor:
    """The variable's bits as an int32 matrix, its last axis the columns (a view: no copy of a 32-bit float's; a
    16-bit float's widened, a float64's split in two words per weight)."""
    t = tf.convert_to_tensor(v)
    shape = t.shape.as_list()
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    if t.dtype.size == 2:
        t = tf.cast(tf.bitcast(t, tf.int16), tf.int32)
    else:
        t = tf.bitcast(t, tf.int32)
    return tf.reshape(t, [rows, -1])


def record() -> LRUCache:
    """A compiled step's record: batch signature -> the fingerprint of the weights it was last checked at. It lives
    and dies with the step (kept beside it in the step's cache), so an evicted step's checks are forgotten too."""
    return LRUCache(maxsize=SIGNATURES)
