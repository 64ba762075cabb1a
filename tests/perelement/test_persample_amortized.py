"""per_sample_gradients' independence check, amortized: once per compiled function, batch shape and weights.

Each field that decides whether a traced function mixes samples is changed at its last good and first bad value on
a function whose check is already on record: a (non-trainable) weight by one ulp, the batch size, the function;
a refusal is never put on record, so a mixing model stays refused whatever its weights do; ``loop`` and
``check_independence=False`` are covered too. Whether the check ran is read from the call count of
``_check_independent`` (the comparison a skipped check does not reach).
"""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from gradlib import BatchMixingError, per_sample_gradients
from gradlib._callable._weights import weights_fingerprint
from gradlib._perelement import _persample


class GatedMix(keras.layers.Layer):
    """Adds the batch's mean to samples 3 onward while its non-trainable gate exceeds 1: mixing a weight's value
    switches on, that a batch of three never shows."""

    def build(self, shape):
        self.gate = self.add_weight(shape=(), initializer="ones", trainable=False, name="gate")

    def call(self, x):
        on = keras.ops.cast(self.gate > 1.0, x.dtype)
        return keras.ops.concatenate([x[:3], x[3:] + on * keras.ops.mean(x, axis=0)], axis=0)


def gated():
    keras.utils.set_random_seed(4)
    return keras.Sequential([keras.Input((3,)), GatedMix(), keras.layers.Dense(2, activation="tanh")])


def batch(size=6, seed=0):
    return np.random.default_rng(seed).normal(size=(size, 3)).astype("float32")


@pytest.fixture
def checks(monkeypatch):
    """The number of times the check compared a projection with the Jacobians (a list: ``len`` is the count)."""
    calls = []
    real = _persample._check_independent
    monkeypatch.setattr(_persample, "_check_independent", lambda *a: calls.append(1) or real(*a))
    return calls


def reference(model, x):
    """Each sample's Jacobian from its own tape, one sample at a time (batches of one cannot mix)."""
    out = []
    for b in range(len(x)):
        xb = tf.constant(x[b:b + 1])
        with tf.GradientTape() as tape:
            tape.watch(xb)
            y = model(xb)
        out.append(tape.jacobian(y, xb).numpy()[0, :, 0, :])
    return np.stack(out)


def test_a_check_on_record_is_not_run_again_and_one_ulp_of_a_weight_runs_it(checks):
    model, x = gated(), batch()
    first = per_sample_gradients(model, x)   # gate 1: the last good value
    assert len(checks) == 1
    np.testing.assert_allclose(first.jacobian, reference(model, x), rtol=1e-5, atol=1e-6)
    again = per_sample_gradients(model, x)
    assert len(checks) == 1   # on record: not compared again
    np.testing.assert_array_equal(again.jacobian, first.jacobian)
    model.layers[0].gate.assign(np.nextafter(np.float32(1), np.float32(2)))   # the first bad value: one ulp above
    with pytest.raises(BatchMixingError, match="not independent"):
        per_sample_gradients(model, x)
    assert len(checks) == 2


def test_a_mixing_model_stays_refused_when_its_weights_change(checks):
    model, x = gated(), batch()
    model.layers[0].gate.assign(2.0)
    for scale in (1.0, 1.0, 0.5):   # refused, refused again (a refusal is not on record), new weights: refused
        dense = model.layers[1]
        dense.kernel.assign(dense.kernel * scale)
        with pytest.raises(BatchMixingError, match="not independent"):
            per_sample_gradients(model, x)
    assert len(checks) == 3


def test_new_weights_are_checked_and_a_model_that_starts_mixing_is_caught(checks):
    model, x = gated(), batch()
    per_sample_gradients(model, x)
    dense = model.layers[1]
    dense.kernel.assign(dense.kernel * 1.5)   # new trainable weights, still independent: checked, passes
    r = per_sample_gradients(model, x)
    assert len(checks) == 2
    np.testing.assert_allclose(r.jacobian, reference(model, x), rtol=1e-5, atol=1e-6)
    per_sample_gradients(model, x)
    assert len(checks) == 2
    model.layers[0].gate.assign(1.5)
    with pytest.raises(BatchMixingError, match="not independent"):
        per_sample_gradients(model, x)


def test_a_new_batch_size_is_checked():
    model, x = gated(), batch()
    model.layers[0].gate.assign(2.0)   # mixes samples 3 onward: a batch of three does not show it
    for _ in range(2):
        per_sample_gradients(model, x[:3])   # the last good size, twice: on record
    with pytest.raises(BatchMixingError, match="not independent"):
        per_sample_gradients(model, x[:4])   # the first bad size, same compiled function


def test_another_function_with_the_same_weights_is_checked(checks):
    model, x = gated(), batch()
    per_sample_gradients(model, x)
    mixing = lambda t: model(t) + tf.reduce_mean(t, axis=0)[:2]  # noqa: E731 - reads the same weights
    with pytest.raises(BatchMixingError, match="not independent"):
        per_sample_gradients(mixing, x)
    assert len(checks) == 2


def test_an_unchecked_call_puts_nothing_on_record(checks):
    model, x = gated(), batch()
    model.layers[0].gate.assign(2.0)
    per_sample_gradients(model, x, check_independence=False)
    per_sample_gradients(model, x, check_independence=False)
    assert checks == []
    with pytest.raises(BatchMixingError, match="not independent"):
        per_sample_gradients(model, x)


def test_the_loop_method_checks_every_call(checks):
    model, x = gated(), batch(size=4)
    for _ in range(2):
        per_sample_gradients(model, x, method="loop")
    assert len(checks) == 2


def test_the_record_is_the_steps_and_holds_the_weights_fingerprint():
    model, x = gated(), batch()
    per_sample_gradients(model, x)
    (entry,) = [v for v in _persample._SAMPLE_FUNCTIONS._data.values()
                if any(w is model.layers[0].gate.value for w in v[0].variables)]
    record = entry[3]
    (signature,) = record.keys()
    assert signature == ((6, 3), "float32")
    read = entry[0].variables   # every variable fn's graph reads, the non-trainable gate included
    assert sorted(id(v) for v in read) == sorted(id(v.value) for v in model.variables)
    assert np.array_equal(record.get(signature), weights_fingerprint(sorted(read, key=lambda v: v.name)).numpy())
