"""gradlib.pde.check on a model that computes in less precision than its points: a mixed_float16 or mixed_bfloat16
policy, or float64 points through a model whose Input is float32 (Keras casts them). The per-point derivatives and
the tape's projection over the batch then agree to the model's precision, not the points': the check said "the
samples of the batch are not independent ... remove the layer that mixes them" (a gap of 2.2e-08 at a scale of
0.86 against float64's tolerance of 1e-10) for points that are independent. A model that does mix them is still
found, in half precision too."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from gradlib.pde import check


def mlp(policy="float32", dtype=None, width=16):
    keras.mixed_precision.set_global_policy(policy)
    try:
        keras.utils.set_random_seed(0)
        kw = {"dtype": dtype} if dtype else {}
        return keras.Sequential([keras.Input((2,)), keras.layers.Dense(width, activation="tanh", **kw),
                                 keras.layers.Dense(width, activation="tanh", **kw),
                                 keras.layers.Dense(1, dtype=dtype or "float32")])
    finally:
        keras.mixed_precision.set_global_policy("float32")


class Center(keras.layers.Layer):
    def call(self, t):
        return t - keras.ops.mean(t, axis=0, keepdims=True)


POINTS = np.random.default_rng(0).uniform(-1, 1, (5, 2))


@pytest.mark.parametrize("policy, dtype, points", [("mixed_float16", None, "float32"),
                                                   ("mixed_bfloat16", None, "float32"),
                                                   ("float32", "float64", "float64"),
                                                   ("float32", None, "float64")],
                         ids=["mixed_float16", "mixed_bfloat16", "float64 layers, float32 Input", "float32 model"])
def test_independent_points_in_a_less_precise_model_are_not_said_to_mix(policy, dtype, points):
    result = check(mlp(policy, dtype), tf.constant(POINTS.astype(points)), coords=("x", "t"))
    assert result.independent, result.findings
    assert not any("not independent" in f for f in result.findings)


def test_a_wide_bfloat16_model_on_many_independent_points_is_not_said_to_mix():
    """bfloat16 keeps 8 bits: this model's per-point derivatives and projection differ by about 1% of their scale,
    which the tolerance of 1e-2 (float16's) called mixing on a CPU with native bf16 kernels."""
    points = np.random.default_rng(1).uniform(-1, 1, (64, 2)).astype("float32")
    result = check(mlp("mixed_bfloat16", width=64), tf.constant(points), coords=("x", "t"))
    assert result.independent, result.findings


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_a_half_precision_model_that_mixes_is_still_found(policy):
    keras.mixed_precision.set_global_policy(policy)
    try:
        keras.utils.set_random_seed(0)
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(16, activation="tanh"), Center(),
                                  keras.layers.Dense(1, dtype="float32")])
    finally:
        keras.mixed_precision.set_global_policy("float32")
    result = check(model, tf.constant(POINTS.astype("float32")), coords=("x", "t"))
    assert not result.independent
    assert any("not independent" in f for f in result.findings)

