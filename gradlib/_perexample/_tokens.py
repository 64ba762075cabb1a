"""Token ids outside an Embedding's table, refused with what is wrong, where, and what to do.

TensorFlow's gather takes an Embedding's rows. On CPU an id outside the table fails inside the compiled batch
(``indices[3,0,1] = 7 is not in [0, 5)``, the label of no input); on GPU it gives a row of zeros: a loss and
gradient norm computed for an input the model cannot read, without any error. So every Embedding that reads a
model input directly has its ids checked before they reach the gather: in NumPy for a batch in memory
(``check_token_ids``), and inside a compiled step for a streamed one (``token_id_faults``: the faulty examples'
ids are set to 0 so that the step runs, and each example's first fault is returned to be refused on the host).
An Embedding behind another layer is not checked (its ids are computed); TensorFlow's own error then comes
with ``GATHER_HINT``.

>>> import keras
>>> model = keras.Sequential([keras.Input((2,), dtype="int32"), keras.layers.Embedding(5, 2, name="tokens")])
>>> check_token_ids(model, np.array([[0, 4], [7, 1]]), "f")
Traceback (most recent call last):
...
gradlib._foundations._errors.InputError: f: x holds the token id 7 at x[1, 0] (1 id(s) out of range in all), outside the table \
of the Embedding layer 'tokens': its input_dim is 5, so ids must be 0 .. 4 (or -1 .. -5, counted from the end). \
Fix the ids in x, or build the Embedding with input_dim at least 8 (the largest id + 1)
"""

from __future__ import annotations

import re
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from .._foundations._errors import InputError

__all__ = ["GATHER_HINT", "GATHER_OUT_OF_RANGE", "check_token_ids", "token_id_error", "token_id_faults", "token_tables"]

#: TensorFlow's message when a gather (an Embedding's lookup) gets an index outside its table
GATHER_OUT_OF_RANGE = re.compile(r"indices\[[\d,]*\] = -?\d+ is not in \[0, \d+\)")
#: what to check when TensorFlow's gather error comes out of a compiled batch
GATHER_HINT = ("x holds valid inputs (token ids below each Embedding's input_dim: a gather out of range is most "
               "often one)")


def token_tables(model: Any, x: Any) -> list[tuple[int, str, Any]]:
    """``(leaf, path, layer)`` for every Embedding that reads a model input directly: ``leaf`` is the input's
    position in ``tf.nest.flatten(x)`` and ``path`` its name (``x``, ``x[1]``, ``x['tokens']``). ``x`` is a
    nest of arrays or tensors shaped as the model's inputs; only its structure is read."""
    try:
        inputs = list(model.inputs or [])
    except (AttributeError, ValueError):   # a subclassed model not yet built: TensorFlow's error is said then
        return []
    named = tf.nest.flatten(_paths(x, "x"))
    if isinstance(x, dict):
        by_input = [named.index(f"x[{t.name!r}]") if f"x[{t.name!r}]" in named else None for t in inputs]
    else:
        by_input = list(range(len(named))) if len(named) == len(inputs) else []
    tables = []
    for layer in _all_layers(model):
        if not isinstance(layer, keras.layers.Embedding):
            continue
        try:
            source = next((i for i, t in enumerate(inputs) if layer.input is t), None)
        except (AttributeError, ValueError):   # never called: it reads no model input
            continue
        if source is not None and source < len(by_input) and by_input[source] is not None:
            tables.append((by_input[source], named[by_input[source]], layer))
    return tables


def check_token_ids(model: Any, x: Any, api: str, scope: str = "in all") -> None:
    """Refuse a token id outside the table of an Embedding that reads a model input directly (NumPy, on the host):
    the message names the input, the id, where it is, how many there are ``scope`` and the layer's ``input_dim``."""
    arrays = [np.asarray(t) for t in tf.nest.flatten(x)]
    for leaf, path, layer in token_tables(model, x):
        ids = arrays[leaf]
        bad = np.argwhere((ids < -layer.input_dim) | (ids >= layer.input_dim))   # Keras counts -1 from the end
        if bad.size:
            where = tuple(int(i) for i in bad[0])
            raise token_id_error(api, path, where, ids[where].item(), len(bad), scope, layer, ids.max().item())


def token_id_error(api: str, path: str, where: tuple[int, ...], value: Any, count: int, scope: str, layer: Any,
                   largest: Any) -> InputError:
    """The refusal of the id ``value`` at ``path[where]`` (``count`` bad ids ``scope``, the largest ``largest``)."""
    dim = layer.input_dim
    enough = (f"{largest + 1!r} (the largest id + 1)" if value >= 0 else
              f"{max(largest + 1, -value)!r} (so that {value!r} counts from the end, and every id is below it)")
    return InputError(
        f"{api}: {path} holds the token id {value!r} at {path}[{', '.join(map(str, where))}] ({count:,} id(s) out of "
        f"range {scope}), outside the table of the Embedding layer {layer.name!r}: its input_dim is {dim:,}, so ids "
        f"must be 0 .. {dim - 1:,} (or -1 .. {-dim:,}, counted from the end). Fix the ids in {path}, or build the "
        f"Embedding with input_dim at least {enough}")


def token_id_faults(tables: list[tuple[int, str, Any]], x: Any) -> tuple[Any, list[tf.Tensor]]:
    """``(x with every faulty example's checked ids set to 0, faults)``, traceable, for the ``tables`` of ``x``.

    ``faults`` holds one ``(B, 3 + k)`` int64 tensor per table, ``k`` the axes of an example of its input: each
    example's number of ids out of range, the first such id, the example's largest id, and where that first id
    sits in the example (one index per axis). An example without a fault has a count of 0 and is left as it is.
    """
    flat = tf.nest.flatten(x)
    faults, safe = [], list(flat)
    for leaf, _, layer in tables:
        ids = tf.reshape(tf.cast(flat[leaf], tf.int64), [tf.shape(flat[leaf])[0], -1])
        bad = (ids < -layer.input_dim) | (ids >= layer.input_dim)
        first = tf.argmax(tf.cast(bad, tf.int32), axis=1, output_type=tf.int64)
        where = tf.transpose(tf.unravel_index(first, tf.shape(flat[leaf], out_type=tf.int64)[1:]))
        faults.append(tf.concat([tf.stack([tf.reduce_sum(tf.cast(bad, tf.int64), axis=1),
                                           tf.gather(ids, first, batch_dims=1), tf.reduce_max(ids, axis=1)], axis=1),
                                 where], axis=1))
        faulty = tf.reduce_any(bad, axis=1)
        mask = tf.reshape(faulty, tf.concat([tf.shape(faulty), tf.ones([tf.rank(flat[leaf]) - 1], tf.int32)], 0))
        safe[leaf] = tf.where(mask, tf.zeros_like(safe[leaf]), safe[leaf])
    return tf.nest.pack_sequence_as(x, safe), faults


def _paths(x: Any, path: str) -> Any:
    """``x`` with each leaf replaced by its name (``x[0]``, ``x['tokens']``), for ``tf.nest.flatten``'s order."""
    if isinstance(x, dict):
        return {k: _paths(v, f"{path}[{k!r}]") for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_paths(v, f"{path}[{i}]") for i, v in enumerate(x))
    return path


def _all_layers(model: Any) -> list:
    flatten = getattr(model, "_flatten_layers", None)
    return list(flatten(include_self=False, recursive=True)) if flatten else list(getattr(model, "layers", []))
