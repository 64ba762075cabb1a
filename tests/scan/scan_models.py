"""Models and data the gradlib.scan tests share with their subprocesses (``--model scan_models:classifier``).

Run as a script it measures memory: ``python scan_models.py memory 12000 60000`` scans a generator data set of
each size (after one warm-up scan) and prints the resident memory after each, in JSON.
"""

from __future__ import annotations

import json
import sys

import numpy as np

FEATURES, CLASSES = 5, 3


def classifier():
    """A small Dense classifier with fixed weights (the same in every process)."""
    import keras

    model = keras.Sequential([keras.Input((FEATURES,)), keras.layers.Dense(7, activation="tanh"),
                              keras.layers.Dense(CLASSES)])
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) for w in model.get_weights()])
    return model


def classifier64():
    """``classifier`` in float64 (its layers' dtype; floatx stays float32), with float64 weights."""
    import keras

    model = keras.Sequential([keras.Input((FEATURES,), dtype="float64"),
                              keras.layers.Dense(7, activation="tanh", dtype="float64"),
                              keras.layers.Dense(CLASSES, dtype="float64")])
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape) for w in model.get_weights()])
    return model


def sequence_classifier():
    """A classifier of token sequences of any length (Embedding, Dense, average over time), with fixed weights."""
    import keras

    model = keras.Sequential([keras.Input((None,), dtype="int32"), keras.layers.Embedding(9, 4),
                              keras.layers.Dense(5, activation="tanh"), keras.layers.GlobalAveragePooling1D(),
                              keras.layers.Dense(CLASSES)])
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) for w in model.get_weights()])
    return model


def sequences(lengths, seed: int = 8):
    """Token sequences of the given lengths and their labels, and a data set of them (``TensorSpec((None,))``)."""
    import tensorflow as tf

    rng = np.random.default_rng(seed)
    tokens = [rng.integers(1, 9, n).astype(np.int32) for n in lengths]
    labels = rng.integers(0, CLASSES, len(lengths)).astype(np.int32)
    spec = (tf.TensorSpec((None,), tf.int32), tf.TensorSpec((), tf.int32))
    return tokens, labels, tf.data.Dataset.from_generator(lambda: zip(tokens, labels), output_signature=spec)


def two_inputs():
    """A classifier of two inputs, ``a`` and ``b``, of the same shape (swapping them changes every number)."""
    import keras

    a, b = keras.Input((FEATURES,), name="a"), keras.Input((FEATURES,), name="b")
    hidden = keras.layers.Concatenate()([keras.layers.Dense(4, activation="tanh")(a), keras.layers.Dense(2)(b)])
    model = keras.Model([a, b], keras.layers.Dense(CLASSES)(hidden))
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) for w in model.get_weights()])
    return model


def cross_entropy(y_true, y_pred):
    """A loss as a plain callable: sparse cross-entropy on logits, one value per example."""
    import tensorflow as tf

    return tf.nn.sparse_softmax_cross_entropy_with_logits(tf.cast(y_true, tf.int32), y_pred)


def batch_mean(y_true, y_pred):
    """A loss that reduces the batch to one number (refused: it has no per-example values)."""
    import tensorflow as tf

    return tf.reduce_mean(y_pred)


def arrays(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, FEATURES)).astype(np.float32), rng.integers(0, CLASSES, n).astype(np.int32)


def generated(n: int):
    """A ``from_generator`` data set of ``n`` examples, made as it is read (nothing of size ``n`` is ever held).

    The generator makes them 500 at a time (Python is slow one by one), and ``unbatch`` hands them out singly.
    """
    import tensorflow as tf

    def chunks():
        for start in range(0, n, 500):
            i = np.arange(start, min(n, start + 500))
            yield np.sin(np.outer(i % 97, np.arange(1, FEATURES + 1))).astype(np.float32), (i % CLASSES).astype(np.int32)

    return tf.data.Dataset.from_generator(chunks, output_signature=(tf.TensorSpec((None, FEATURES), tf.float32),
                                                                    tf.TensorSpec((None,), tf.int32))).unbatch()


def resident_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def memory(sizes: list[int]) -> dict[str, int]:
    """Resident memory after scanning a generator data set of each size in turn, after a warm-up scan.

    The warm-up lets the process's first scan set up what any first scan sets up (TensorFlow's pools, the
    traced step), so that the sizes are compared like for like.
    """
    import gc

    import keras

    import gradlib

    model, loss = classifier(), keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    gradlib.scan(model, generated(2560), loss=loss, batch_size=256)
    out = {}
    for n in sizes:
        result = gradlib.scan(model, generated(n), loss=loss, batch_size=256)
        assert len(result) == n
        del result
        gc.collect()
        out[str(n)] = resident_bytes()
    return out


if __name__ == "__main__" and sys.argv[1:2] == ["memory"]:
    print(json.dumps(memory([int(n) for n in sys.argv[2:]])))
