"""The amortized independence check of per_example_gradients: once per compiled step, batch signature and weights.

Every field that decides whether a step mixes examples is changed at its last good and first bad value, on a step
whose check is already on record: the weights (one ulp of a gate), the batch size, the training flag, the loss's
state and the model. The fingerprint is proved against a reference hashing NumPy's bytes of the weights.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from gradlib import BatchMixingError, per_example_gradients
from gradlib._perexample import _gradients as _perexample
from gradlib._callable import _weights

CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def data(size=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(size, 5)).astype("float32"), rng.integers(0, 3, size)


class GatedCenter(keras.layers.Layer):
    """Subtracts the batch mean, examples 3 onward, only while its (non-trainable) gate exceeds 1: mixing that a
    weight's value switches on, and that a probe of the first three examples never sees."""

    def build(self, shape):
        self.gate = self.add_weight(shape=(), initializer="ones", trainable=False, name="gate")

    def call(self, x):
        on = keras.ops.cast(self.gate > 1.0, x.dtype)
        return keras.ops.concatenate([x[:3], x[3:] - on * keras.ops.mean(x[3:], axis=0)], axis=0)


class TrainingCenter(keras.layers.Layer):
    """Subtracts the batch mean of examples 3 onward in training mode only (as a BatchNormalization would)."""

    def call(self, x, training=False):
        if not training:
            return x
        return keras.ops.concatenate([x[:3], x[3:] - keras.ops.mean(x[3:], axis=0)], axis=0)


def gated_model():
    keras.utils.set_random_seed(3)
    return keras.Sequential([keras.Input((5,)), GatedCenter(), keras.layers.Dense(3)])


def record_of(model):
    """The record of checked signatures of the one compiled step of ``model`` (raises if there is none or several)."""
    (step,) = [_perexample._BATCH_FUNCTIONS._data[k] for k in _perexample._BATCH_FUNCTIONS.keys() if k[0] is model]
    return step[2]


def test_a_mixing_model_is_refused_on_its_first_call():
    model = gated_model()
    model.layers[0].gate.assign(2.0)
    x, y = data()
    with pytest.raises(BatchMixingError, match=r"example [345]'s loss is .* in this batch of 6 and .* alone"):
        per_example_gradients(model, x, y, loss=CCE, norms_only=True)


def test_a_check_on_record_is_not_run_again_and_one_ulp_of_a_weight_runs_it():
    model = gated_model()
    x, y = data()
    first = per_example_gradients(model, x, y, loss=CCE, norms_only=True)   # gate 1: the last good value
    record = record_of(model)
    (signature,) = record.keys()
    recorded = record.get(signature)
    assert np.array_equal(recorded, _weights.weights_fingerprint(model.variables).numpy())
    again = per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    np.testing.assert_array_equal(again.norms, first.norms)
    assert np.array_equal(record.get(signature), recorded)
    model.layers[0].gate.assign(np.nextafter(np.float32(1), np.float32(2)))   # the first bad value: one ulp above
    with pytest.raises(BatchMixingError, match=r"example [345]'s loss is .* in this batch of 6 and .* alone"):
        per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    assert np.array_equal(record.get(signature), recorded)   # a refused check is not recorded


def test_new_weights_are_checked_and_recorded():
    model = gated_model()
    x, y = data()
    per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    record = record_of(model)
    (signature,) = record.keys()
    before = record.get(signature)
    dense = model.layers[1]
    dense.kernel.assign(dense.kernel * 1.5)
    per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    after = record.get(signature)
    assert not np.array_equal(after, before)
    assert np.array_equal(after, _weights.weights_fingerprint(model.variables).numpy())


def test_a_new_batch_size_on_a_checked_step_is_checked():
    model = keras.Sequential([keras.Input((5,)), TrainingCenter(), keras.layers.Dense(3)])
    x, y = data()
    for size in (3, 3):   # examples 0-2 only: nothing mixed (the last good size), twice: on record
        per_example_gradients(model, x[:size], y[:size], loss=CCE, norms_only=True, training=True)
    with pytest.raises(BatchMixingError, match=r"example 3's loss is .* in this batch of 4 and .* alone"):
        per_example_gradients(model, x[:4], y[:4], loss=CCE, norms_only=True, training=True)   # the first bad


def test_a_model_that_mixes_only_in_training_mode_is_caught_when_the_flag_changes():
    model = keras.Sequential([keras.Input((5,)), TrainingCenter(), keras.layers.Dense(3)])
    x, y = data()
    for _ in range(2):
        per_example_gradients(model, x, y, loss=CCE, norms_only=True, training=False)
    with pytest.raises(BatchMixingError, match=r"example [345]'s loss is .* in this batch of 6 and .* alone"):
        per_example_gradients(model, x, y, loss=CCE, norms_only=True, training=True)


MIX = 0.0


def mixing_loss(y_true, y_pred):
    """Cross-entropy plus ``MIX`` times the batch's mean logit for examples 3 onward (read from a global)."""
    ce = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.cast(y_true, tf.int32), y_pred)
    later = tf.concat([tf.zeros_like(ce[:3]), tf.ones_like(ce[3:])], axis=0)
    return ce + MIX * later * tf.reduce_sum(y_pred[3:])   # empty (0) for a batch of at most three


def test_a_loss_whose_state_turns_mixing_on_is_caught():
    global MIX
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
    x, y = data()
    try:
        MIX = 0.0
        for _ in range(2):
            per_example_gradients(model, x, y, loss=mixing_loss, norms_only=True)
        MIX = 1.0
        with pytest.raises(BatchMixingError, match="not independent"):
            per_example_gradients(model, x, y, loss=mixing_loss, norms_only=True)
    finally:
        MIX = 0.0


def test_another_model_with_the_same_weights_is_checked():
    model = gated_model()
    x, y = data()
    per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    other = gated_model()
    other.set_weights(model.get_weights())
    other.layers[0].gate.assign(2.0)
    with pytest.raises(BatchMixingError, match="in this batch of 6"):
        per_example_gradients(other, x, y, loss=CCE, norms_only=True)


def test_gradients_and_norms_are_checked_separately():
    model = gated_model()
    x, y = data()
    per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    model.layers[0].gate.assign(2.0)
    with pytest.raises(BatchMixingError, match="in this batch of 6"):
        per_example_gradients(model, x, y, loss=CCE)   # a step of its own: checked on its first call


# ---------------------------------------------------------------- the fingerprint


def bytes_fingerprint(variables):
    """The fingerprint from each floating-point variable's bytes as NumPy stores them (a ``uint8`` row, not the
    variable), hashed by ``tf.fingerprint`` (FarmHash 64), the hashes in order hashed again, as two int32 words."""
    floats = [v for v in variables if np.issubdtype(np.dtype(v.dtype), np.floating)]
    rows = [np.frombuffer(np.ascontiguousarray(v.numpy()).tobytes(), np.uint8)[None] for v in floats]
    hashes = np.concatenate([tf.fingerprint(tf.constant(r)).numpy() for r in rows], axis=0)
    return tf.fingerprint(tf.constant(hashes.reshape(1, -1))).numpy().reshape(-1).view(np.int32)


def mixed_variables():
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((4, 4, 2)), keras.layers.Conv2D(3, 3), keras.layers.BatchNormalization(),
                              keras.layers.Flatten(), keras.layers.Dense(2), keras.layers.Dropout(0.5)])
    extra = [keras.Variable(np.linspace(-1, 1, 6).reshape(2, 3), dtype="float64"),
             keras.Variable(np.linspace(-2, 2, 5), dtype="float16"), keras.Variable(np.float32(3.0))]
    return model.variables + extra


def test_the_fingerprint_is_the_hash_of_the_floats_bytes_in_order():
    variables = mixed_variables()
    assert any(v.dtype == "int64" for v in variables)   # a seed state: not read
    assert np.array_equal(_weights.weights_fingerprint(variables).numpy(), bytes_fingerprint(variables))
    seed = next(v for v in variables if v.dtype == "int64")
    before = _weights.weights_fingerprint(variables).numpy()
    seed.assign(seed + 1)   # a random layer's draw: not a weight, no new check
    assert np.array_equal(_weights.weights_fingerprint(variables).numpy(), before)


@pytest.mark.parametrize("which", ["first", "last", "middle"])
def test_one_ulp_of_any_weight_changes_the_fingerprint(which):
    variables = mixed_variables()
    before = _weights.weights_fingerprint(variables).numpy()
    for v in [v for v in variables if np.issubdtype(np.dtype(v.dtype), np.floating)]:
        value = np.array(v.numpy())
        flat = value.reshape(-1)
        i = {"first": 0, "last": flat.size - 1, "middle": flat.size // 2}[which]
        old = flat[i]
        flat[i] = np.nextafter(old, np.inf if old <= 0 else -np.inf).astype(value.dtype)
        v.assign(value)
        changed = _weights.weights_fingerprint(variables).numpy()
        assert not np.array_equal(changed, before), (v.path, which)
        flat[i] = old
        v.assign(value)
        assert np.array_equal(_weights.weights_fingerprint(variables).numpy(), before)


def test_swapping_two_weights_or_two_variables_changes_the_fingerprint():
    a, b = keras.Variable(np.arange(6, dtype="float32").reshape(2, 3)), keras.Variable(np.ones((2, 3), "float32"))
    before = _weights.weights_fingerprint([a, b]).numpy()
    assert not np.array_equal(_weights.weights_fingerprint([b, a]).numpy(), before)
    a.assign(np.array([[1, 0, 2], [3, 4, 5]], "float32"))
    assert not np.array_equal(_weights.weights_fingerprint([a, b]).numpy(), before)
