"""per_sample_gradients on recurrent Keras models (issue 41, item 4): the tiled method against an independent
per-sample eager loop, its check (once per batch shape and weights' fingerprint) and where it hands over."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import BatchMixingError, GradlibError, per_sample_gradients
from gradlib._perelement import _persample
from gradlib._perelement._tiled import TILED_OUTPUTS

STEPS, FEATURES = 4, 3
LAYERS = {"GRU": keras.layers.GRU, "LSTM": keras.layers.LSTM, "SimpleRNN": keras.layers.SimpleRNN}


def recurrent(kind, *, units=5, outputs=2, sequences=False, masking=False, seed=0):
    init = keras.initializers.GlorotUniform(seed=seed)
    body = [keras.layers.Masking(0.0)] if masking else []
    body += [LAYERS[kind](units, return_sequences=sequences, kernel_initializer=init),
             keras.layers.Dense(outputs, kernel_initializer=init)]
    return keras.Sequential([keras.Input((STEPS, FEATURES))] + body)


def batch(size=3, seed=1):
    return np.random.default_rng(seed).normal(size=(size, STEPS, FEATURES)).astype(np.float32)


def reference(fn, x):
    """One eager tape per sample, each output element's gradient with respect to that sample alone: (B, out, in)."""
    out = []
    for b in range(len(x)):
        xb = tf.constant(x[b:b + 1])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xb)
            rows = tf.unstack(tf.reshape(fn(xb), [-1]))
        out.append(np.stack([tape.gradient(r, xb).numpy()[0] for r in rows]))
    return np.stack(out)


def close(r, fn, x):
    expected = reference(fn, x)
    np.testing.assert_allclose(r.jacobian.reshape(expected.shape), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.y, fn(x).numpy(), rtol=1e-5, atol=1e-6)


def steps_of(fn):
    """The cached tiled steps of ``fn``."""
    return [step for key, step in _persample._TILED_STEPS._data.items() if key[0] is fn]


@pytest.mark.parametrize("kind", list(LAYERS))
def test_each_recurrent_kind_takes_the_tiled_method_and_equals_the_per_sample_loop(kind):
    """First call (the checking step) and second (the tiled pass alone) both equal the eager per-sample loop."""
    model, x = recurrent(kind), batch()
    first = per_sample_gradients(model, x)
    second = per_sample_gradients(model, x)
    for r in (first, second):
        assert (r.method, r.warnings, r.compiled) == ("tiled", (), True)
        assert r.jacobian.shape == (3, 2, STEPS, FEATURES)
        close(r, model, x)


@pytest.mark.parametrize("kind", list(LAYERS))
def test_return_sequences_and_masking(kind):
    """return_sequences=True (a sample's output is steps x 2) and a Masking layer whose mask zeroes some steps' rows."""
    model = recurrent(kind, sequences=True)
    r = per_sample_gradients(model, batch())
    assert r.method == "tiled" and r.jacobian.shape == (3, STEPS, 2, STEPS, FEATURES)
    close(r, model, batch())
    masked, x = recurrent(kind, masking=True), batch()
    x[0, 2:] = 0.0   # sample 0's last two steps are masked out: their columns are zero
    r = per_sample_gradients(masked, x)
    assert r.method == "tiled"
    close(r, masked, x)
    assert not r.jacobian[0, :, 2:].any() and r.jacobian[1, :, 2:].any()


class Mixer(keras.layers.Layer):
    """Adds ``alpha`` times the batch's mean: the samples mix exactly when ``alpha`` is not zero."""

    def build(self, shape):
        self.alpha = self.add_weight(shape=(), initializer="zeros", name="alpha")

    def call(self, h):
        return h + self.alpha * tf.reduce_mean(h, axis=0, keepdims=True)


def mixing_model(kind="GRU"):
    init = keras.initializers.GlorotUniform(seed=3)
    return keras.Sequential([keras.Input((STEPS, FEATURES)), LAYERS[kind](4, kernel_initializer=init), Mixer(),
                             keras.layers.Dense(2, kernel_initializer=init)])


@pytest.mark.parametrize("kind", list(LAYERS))
def test_a_recurrent_model_that_mixes_samples_is_refused_on_every_call(kind):
    model = mixing_model(kind)
    model.layers[1].alpha.assign(0.5)
    for method in ("auto", "auto", "tiled"):
        with pytest.raises(BatchMixingError, match="the samples of the batch are not independent"):
            per_sample_gradients(model, batch(), method=method)


def test_the_weights_fingerprint_decides_when_the_check_runs_again(monkeypatch):
    """Last good / first bad: the same bits are not checked again; one weight changed (alpha from 0 to 1e-3, which
    mixes) is, and refused; once refused, the model's step hands over to the while_loop (right again at alpha 0)."""
    model, x = mixing_model(), batch()
    mixer = model.layers[1]
    assert per_sample_gradients(model, x).method == "tiled"
    (step,) = steps_of(model)
    ran = []
    real = step.checked
    monkeypatch.setattr(step, "checked", lambda v: ran.append(1) or real(v))
    mixer.alpha.assign(0.0)   # the same bits: not checked again
    per_sample_gradients(model, x)
    assert ran == []
    mixer.alpha.assign(1e-3)
    with pytest.raises(BatchMixingError):
        per_sample_gradients(model, x)
    assert ran == [1]
    mixer.alpha.assign(0.0)
    again = per_sample_gradients(model, x)
    assert again.method == "while_loop" and ran == [1]
    close(again, model, x)
    model2 = mixing_model()   # a fresh model: its step was never refused
    r = per_sample_gradients(model2, x)
    assert r.method == "tiled"
    close(r, model2, x)


def test_one_ulp_of_one_weight_means_a_new_check():
    model, x = recurrent("SimpleRNN"), batch()
    per_sample_gradients(model, x)
    (step,) = steps_of(model)
    before = step.last.copy()
    per_sample_gradients(model, x)
    assert np.array_equal(step.last, before)   # the same weights: the record is the same fingerprint
    bias = model.layers[-1].bias
    bias.assign(np.nextafter(bias.numpy(), np.float32(1.0)))
    r = per_sample_gradients(model, x)
    assert not np.array_equal(step.last, before)   # checked at the new fingerprint
    close(r, model, x)


def test_each_batch_shape_is_its_own_step_and_check():
    """The key's batch shape: batch 3 then 4 are two steps, each checked on its first call."""
    model = recurrent("GRU")
    for size in (3, 4, 3):
        x = batch(size)
        close(per_sample_gradients(model, x), model, x)
    assert sorted(s.last is not None for s in steps_of(model)) == [True, True]
    assert len(steps_of(model)) == 2


def test_an_output_that_depends_on_the_batch_size_takes_the_while_loop():
    """Not mixing, but not the same at the repeated batch's size: the tiled check fails, auto hands over to
    batch_jacobian's while_loop (today's answer, unchanged), and method='tiled' says it does not hold."""
    gru = recurrent("GRU")
    fn = lambda x: gru(x) * tf.cast(tf.shape(x)[0], tf.float32)  # noqa: E731
    x = batch(3)
    r = per_sample_gradients(fn, x)
    w = per_sample_gradients(fn, x, method="while_loop")
    assert r.method == "while_loop" and any("while_loop" in m for m in r.warnings)
    np.testing.assert_allclose(r.jacobian, w.jacobian, rtol=1e-6)
    np.testing.assert_allclose(r.jacobian, 3.0 * reference(gru, x).reshape(r.jacobian.shape), rtol=1e-5, atol=1e-6)
    with pytest.raises(GradlibError, match="method 'tiled' does not hold for this function"):
        per_sample_gradients(fn, x, method="tiled")


@pytest.mark.parametrize("outputs, method", [(TILED_OUTPUTS, "tiled"), (TILED_OUTPUTS + 1, "while_loop")])
def test_the_tiled_method_is_bounded_by_a_sample_s_outputs(outputs, method):
    """Last good / first bad: TILED_OUTPUTS outputs per sample run tiled (that many copies of the batch), one more
    takes the while_loop; asked for by name, one more is refused before anything runs."""
    model, x = recurrent("SimpleRNN", units=2, outputs=outputs), batch(2)
    r = per_sample_gradients(model, x)
    assert r.method == method
    close(r, model, x)
    if method == "while_loop":
        with pytest.raises(gradlib.ExpressionError, match=f"{outputs:,} here, and at most {TILED_OUTPUTS} are allowed"):
            per_sample_gradients(model, x, method="tiled")


def two_heads(state=False):
    """A recurrent model of several outputs: two Dense heads, or the LSTM's own ``return_state`` ([out, h, c])."""
    init = keras.initializers.GlorotUniform(seed=4)
    i = keras.Input((STEPS, FEATURES))
    if state:
        return keras.Model(i, list(keras.layers.LSTM(3, return_state=True, kernel_initializer=init)(i)))
    h = keras.layers.GRU(4, kernel_initializer=init)(i)
    return keras.Model(i, [keras.layers.Dense(2, kernel_initializer=init, name="price")(h),
                           keras.layers.Dense(1, kernel_initializer=init, name="kind")(h)])


def joined(model):
    return lambda v: tf.concat([tf.reshape(t, [tf.shape(t)[0], -1]) for t in model(v)], axis=1)


@pytest.mark.parametrize("state", [False, True])
def test_a_recurrent_model_of_several_outputs_takes_the_tiled_method(state):
    """Found by hunt 51: the tiled pass ran fn on B * n rows, known in the trace, and took every output's static row
    count for one not following the batch: a two-headed GRU, or an LSTM's return_state, was refused ("fn's output
    y[0] has shape (18, 2) on a batch of any size B") where the per-sample loop answers."""
    model, x = two_heads(state), batch()
    for method in ("auto", "tiled", "auto"):   # the checking step, then the tiled pass alone
        r = per_sample_gradients(model, x, method=method)
        assert r.method == "tiled"
        expected = reference(joined(model), x)
        assert r.jacobian.shape == expected.shape[:2] + (STEPS, FEATURES)
        np.testing.assert_allclose(r.jacobian.reshape(expected.shape), expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r.y, joined(model)(x).numpy(), rtol=1e-5, atol=1e-6)
    if state:   # the last output is the cell state: its rows are not the hidden state's
        assert not np.allclose(r.jacobian[:, 3:6], r.jacobian[:, 6:9])


def test_a_recurrent_output_reduced_over_the_batch_is_still_refused_at_the_batch_s_size():
    gru = recurrent("GRU")
    reduced = lambda v: [gru(v), tf.reduce_mean(gru(v), axis=0, keepdims=True)]  # noqa: E731 - (B, 2), (1, 2)
    for method in ("auto", "tiled"):
        with pytest.raises(GradlibError, match=r"fn's output y\[1\] has shape \(1, 2\) on a batch of 3 samples: every "
                                               r"output must keep the batch axis first"):
            per_sample_gradients(reduced, batch(), method=method)
