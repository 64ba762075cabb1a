"""Which functions and layers are random (gradlib._callable._random): two calls that differ, or a generator held.

A random fn has another derivative at every call, and a method that combines several calls of it mixes draws
(tests/second/test_random_fn.py, tests/perelement/test_persample_random.py). The verdict is asked once per function
and sample shape: a warm call of a deterministic fn calls it no more.
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from gradlib._callable._random import PROBE_SAMPLES, is_random, random_objects

X = tf.constant(np.arange(24, dtype=np.float32).reshape(12, 2))


def test_two_calls_that_differ_are_random_and_a_function_is_not():
    dropout = keras.layers.Dropout(0.5)
    assert is_random(lambda x: dropout(x, training=True), X)
    assert is_random(lambda x: x + tf.random.normal(tf.shape(x)), X)
    generator = tf.random.Generator.from_seed(3)
    assert is_random(lambda x: x * generator.uniform(tf.shape(x)), X)
    assert not is_random(lambda x: dropout(x, training=False), X)
    assert not is_random(lambda x: x + tf.random.stateless_normal(tf.shape(x), seed=(1, 2)), X)


def test_outputs_in_a_dict_are_compared_and_nan_equals_nan():
    assert not is_random(lambda x: {"a": x * np.nan, "b": x}, X)
    assert is_random(lambda x: {"a": x, "b": tf.random.uniform(tf.shape(x))}, X)


def test_the_verdict_is_remembered_per_function_and_sample_shape():
    calls = []

    def fn(x):
        calls.append(int(x.shape[0]))
        return x * 2.0

    assert not is_random(fn, X)
    assert calls == [PROBE_SAMPLES] * 3   # a trace and two calls on the first samples, not on the whole batch
    assert not is_random(fn, X[:3]) and calls == [PROBE_SAMPLES] * 3   # another batch size: the same sample shape
    assert not is_random(fn, tf.zeros((4, 3))) and len(calls) == 6     # another sample shape: asked again
    assert not is_random(fn, X, None) and len(calls) == 9              # key None: not remembered


def test_a_failing_function_is_not_this_check_s_to_report():
    def fn(x):
        raise RuntimeError("boom")
    assert not is_random(fn, X)


def test_keras_random_layers_are_found_by_any_generator_they_hold():
    image = keras.Sequential([keras.Input((4, 4, 1)), keras.layers.RandomFlip(name="flip"),
                              keras.layers.RandomRotation(0.1, name="rotation"),
                              keras.layers.Flatten(), keras.layers.Dense(1)])
    assert random_objects(image) == ("flip", "rotation")   # their SeedGenerator is .generator
    dense = keras.Sequential([keras.Input((3,)), keras.layers.Dropout(0.2, name="drop"),
                              keras.layers.GaussianNoise(0.1, name="noise"),
                              keras.layers.Dense(1)])
    assert random_objects(dense) == ("drop", "noise")


class _Held(keras.layers.Layer):
    def __init__(self, generator, **kwargs):
        super().__init__(**kwargs)
        self.draws = generator

    def call(self, x):
        return x


def test_a_layer_of_one_s_own_holding_a_generator_under_any_name_is_random():
    for generator in (keras.random.SeedGenerator(1), tf.random.Generator.from_seed(1)):
        model = keras.Sequential([keras.Input((3,)), _Held(generator, name="held"), keras.layers.Dense(1)])
        assert random_objects(model) == ("held",)


def test_a_recurrent_layer_without_dropout_draws_nothing():
    """An LSTM cell holds a SeedGenerator whatever its dropout: at 0 it draws nothing."""
    plain = keras.Sequential([keras.Input((3, 4)), keras.layers.LSTM(2), keras.layers.Dense(1)])
    dropped = keras.Sequential([keras.Input((3, 4)), keras.layers.GRU(2, dropout=0.2), keras.layers.Dense(1)])
    assert random_objects(plain) == () and len(random_objects(dropped)) == 1


def test_infinite_outputs_equal_at_both_calls_are_not_random():
    assert not is_random(lambda x: tf.exp(tf.exp(10 * x)), X)


def _drifting(rel: float):
    """A fn whose every call scales its output by another ``1 + rel * calls``: two calls differ by ``rel``."""
    calls = []

    def fn(x):
        calls.append(1)
        return (x + 1.0) * (1.0 + rel * len(calls))
    return fn


def test_the_threshold_is_100_ulps_not_a_loose_tolerance():
    # a gap of 1e-3 relative (about 8000 ulps of float32) is another draw: a loose tolerance (1e5 ulps) misses it
    assert is_random(_drifting(1e-3), X, None)
    assert is_random(_drifting(1e-4), X, None)   # about 840 ulps: still beyond 100
    # a gap of 1e-6 relative (about 8 ulps) is rounding, not randomness
    assert not is_random(_drifting(1e-6), X, None)


# ---------------------------------------------------------------- the trace's random ops (hunt 47)


def coin(x):
    """One coin per call: the whole output is x or 2 x; two calls agree half the time."""
    return tf.where(tf.random.uniform([]) < 0.5, x, 2.0 * x)


def test_a_function_drawing_one_coin_per_call_is_random_every_time():
    """Two calls missed it half the time (10 of 20 on main), and "not random" was then remembered."""
    assert all(is_random(lambda x: coin(x), X, None) for _ in range(20))
    assert all(is_random(lambda x, k=k: coin(x) + 0.0 * k, X) for k in range(20))   # 20 fresh keys, remembered


def test_a_coin_in_a_while_loop_or_a_nested_function_is_found():
    inner = tf.function(coin)
    assert is_random(lambda x: tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, coin(a)), (0, x))[1], X, None)
    assert is_random(lambda x: inner(x), X, None)
    assert is_random(lambda x: tf.cond(tf.reduce_sum(x) > 0, lambda: coin(x), lambda: x), X, None)


def test_a_keras_seed_generator_is_random_and_a_constant_seed_is_not():
    seeds = keras.random.SeedGenerator(3)
    assert is_random(lambda x: x + 0.0 * keras.random.normal(tf.shape(x), seed=seeds), X, None)   # 0 *: no gap
    seed = tf.Variable([1, 2])   # read, never written: the same numbers at every call
    for fn in [lambda x: x + tf.random.stateless_normal(tf.shape(x), seed=(1, 2)),
               lambda x: x + tf.random.stateless_uniform(tf.shape(x), seed=seed),
               lambda x: x * tf.random.stateless_normal([], seed=tf.cast(x[0, :2], tf.int32))]:   # seeded by x
        calls = [fn(X).numpy() for _ in range(3)]
        assert all(np.array_equal(calls[0], c) for c in calls[1:])   # deterministic indeed
        assert not is_random(fn, X, None)


def test_a_function_that_cannot_be_traced_is_probed_by_its_calls():
    assert not is_random(lambda x: tf.constant(np.asarray(x) * 2.0), X, None)
    assert is_random(lambda x: tf.constant(np.asarray(x) + np.random.default_rng().normal()), X, None)
