"""Whether an independence check on record still holds: the fingerprint of the weights a traced step reads, and a
compiled step's bounded record of the checks it passed.

Whether a traced function mixes the samples of a batch is decided by its graph, the batch's shapes and the values
of the variables the graph reads (a weight can gate a batch-mixing term: ``x + (alpha > 1) * mean(x, axis=0)``).
A compiled step that checks its batches (``per_example_gradients``, ``per_sample_gradients``) therefore runs the
check once per batch signature and weights' fingerprint, keeping in its ``record`` the fingerprint each signature
was last checked at, and again whenever either changes. Not covered: a function whose mixing depends on the data
of the batch itself (a term switched on by ``x.max() > 5``): a later batch of the same shape at the same weights
is not checked again.

The fingerprint is computed inside the traced step on every call (no separate call, no ``.numpy()`` of the weights):
every floating-point variable of the model (trainable or not: a BatchNormalization's moving statistics too) is
hashed as it is stored, its bytes read in place (``tf.fingerprint``, FarmHash's 64-bit fingerprint of a row of
bytes: no copy of the weights), and the variables' hashes, in order, hashed again into one 64-bit value, returned as
two int32 words. A change of any weight, one ulp of one included, and a swap of two weights or two variables,
changes it except with a chance of about one in ``2**64`` (FarmHash is not built to be inverted, and nothing here is
adversarial: the weights are the user's own). It costs one read of the weights' bytes (the exact sums ``u^T W V``
used before were two integer matrix-vector products, which TensorFlow runs without the vectorized kernels of its
float products), against a training step's ``2 B`` multiply-adds per weight. Variables that are not floats (a random
layer's seed state, which changes on every training-mode call) are not read: no graph's mixing depends on them.

>>> import keras
>>> layer = keras.layers.Dense(2)
>>> layer.build((None, 3))
>>> before = weights_fingerprint(layer.variables).numpy()
>>> _ = layer.kernel.assign(layer.kernel + 0.0)   # the same bits: the same fingerprint
>>> bool((weights_fingerprint(layer.variables).numpy() == before).all())
True
>>> _ = layer.bias.assign([0.0, 1e-30])   # one weight changed: another fingerprint
>>> bool((weights_fingerprint(layer.variables).numpy() == before).all())
False
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from .._foundations._cache import LRUCache

__all__ = ["FINGERPRINT_SPEC", "SIGNATURES", "record", "weights_fingerprint"]

#: the fingerprint's shape and dtype: a 64-bit hash as two 32-bit words (the traced step's input and output)
FINGERPRINT_SPEC = tf.TensorSpec((2,), tf.int32)
#: batch signatures a compiled step remembers the last checked fingerprint of (a step lives in a bounded cache)
SIGNATURES = 16


def weights_fingerprint(variables: Sequence[Any]) -> tf.Tensor:
    """The ``(2,)`` int32 fingerprint of the floating-point ``variables``' values (traceable; see the module)."""
    hashes = [tf.fingerprint(_bytes_row(v)) for v in variables if tf.as_dtype(_dtype(v)).is_floating]
    if not hashes:
        return tf.zeros((2,), tf.int32)
    total = tf.fingerprint(tf.reshape(tf.concat(hashes, axis=0), [1, -1]))   # (1, 8) uint8: the hashes in order
    return tf.bitcast(tf.reshape(total, [2, 4]), tf.int32)


def _dtype(v: Any) -> Any:
    return getattr(v, "dtype", tf.float32)


def _bytes_row(v: Any) -> tf.Tensor:
    """The variable's value as one row ``(1, size)`` (a reshape: its bytes in place), which ``tf.fingerprint``
    hashes whole."""
    return tf.reshape(tf.convert_to_tensor(v), [1, -1])


def record() -> LRUCache:
    """A compiled step's record: batch signature -> the fingerprint of the weights it was last checked at. It lives
    and dies with the step (kept beside it in the step's cache), so an evicted step's checks are forgotten too."""
    return LRUCache(maxsize=SIGNATURES)
