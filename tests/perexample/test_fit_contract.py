"""per_example_gradients and scan against what model.fit computes for one example: a plain loop, each example
run alone as a batch of one under its own GradientTape, with the loss model.fit would use (its reduction, the
logits Keras keeps on a softmax output)."""

from __future__ import annotations

import re

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import per_example_gradients

L = keras.layers


def loop(model, x, y, loss, training=False):
    """Each example's loss and gradient norm, as a batch of one, in a compiled tf.function (as model.fit runs it)."""
    @tf.function
    def one(xi, yi):
        with tf.GradientTape() as tape:
            value = tf.reduce_sum(loss(yi, model(xi, training=training)))   # model.fit's gradient of a (1, T) loss
        grads = tape.gradient(value, model.trainable_variables)
        return value, tf.sqrt(tf.add_n([tf.reduce_sum(tf.square(tf.convert_to_tensor(g))) for g in grads]))

    out = [one(x[i:i + 1], y[i:i + 1]) for i in range(len(x))]
    return np.array([float(v) for v, _ in out]), np.array([float(n) for _, n in out])


def confident_softmax_classifier():
    """A softmax output whose mistakes are confident: examples 0-2 have losses of 32, 105 and 204."""
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((5,)), L.Dense(3, activation="softmax")])
    kernel, bias = model.get_weights()
    model.set_weights([60 * kernel, bias])
    return model, np.random.default_rng(0).normal(size=(4, 5)).astype("float32"), np.array([0, 1, 2, 0])


@pytest.mark.parametrize("norms_only", [False, True])
def test_a_confidently_wrong_softmax_output_is_computed_from_its_logits_not_refused(norms_only):
    """Keras' crossentropy reads the logits it keeps on a softmax output (``_keras_logits``); the probe's one-example
    slices dropped them, so the loss took clipped probabilities there (16.1 against 204.3) and the call was refused
    as a loss broadcasting y: the mislabelled examples a scan looks for were the ones that could not be scanned."""
    model, x, y = confident_softmax_classifier()
    loss = keras.losses.SparseCategoricalCrossentropy()
    losses, norms = loop(model, x, y, loss)
    assert losses[2] > 200   # from the logits: clipped probabilities give -log(1e-7) = 16.1
    r = per_example_gradients(model, x, y, loss=loss, norms_only=norms_only)
    np.testing.assert_allclose(r.losses, losses, rtol=1e-4)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-4)
    scanned = gradlib.scan(model, (x, y), loss=loss, batch_size=4)
    np.testing.assert_allclose(scanned.losses, losses, rtol=1e-4)


def sequence_tagger(mask_zero: bool):
    """Token ids -> 3 tags at each of 4 steps (an Embedding with mask_zero masks the loss at the padding)."""
    keras.utils.set_random_seed(2)
    return keras.Sequential([keras.Input((4,), dtype="int32"), L.Embedding(6, 3, mask_zero=mask_zero),
                             L.Dense(3)])


@pytest.mark.parametrize("mask_zero", [False, True], ids=["plain", "masked"])
@pytest.mark.parametrize("reduction", ["sum", "sum_over_batch_size", "none"])
def test_a_sequence_loss_reduces_its_steps_as_the_loss_reduces_a_batch_of_one(reduction, mask_zero):
    """With reduction='sum' model.fit sums each example's steps; gradlib averaged them whatever the reduction, so
    every loss and norm of this 4-step tagger without a mask was a quarter of model.fit's. With reduction='none'
    (or None) the loss is not reduced at all, and model.fit's tape.gradient differentiates the sum of its values:
    gradlib averaged those too (a loss of 1.40 where model.fit's is 5.62, a quarter again)."""
    model = sequence_tagger(mask_zero)
    x = np.array([[1, 2, 3, 4], [5, 1, 0, 0], [2, 2, 2, 0], [3, 0, 0, 0]], np.int32)
    y = np.array([[0, 1, 2, 0], [1, 1, 0, 0], [2, 0, 1, 2], [0, 2, 2, 1]])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=reduction)
    losses, norms = loop(model, x, y, loss)
    for norms_only in (False, True):
        r = per_example_gradients(model, x, y, loss=loss, norms_only=norms_only)
        np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
        np.testing.assert_allclose(r.norms, norms, rtol=1e-5)
    np.testing.assert_allclose(gradlib.scan(model, (x, y), loss=loss, batch_size=4).norms, norms, rtol=1e-5)


def fit_batch_gradient(model, x, y, loss):
    """The gradient model.fit takes on this batch: of the loss reduced over the batch plus sum(model.losses)."""
    with tf.GradientTape() as tape:
        value = loss(y, model(x, training=False))
        value = value + tf.add_n(model.losses)
    return [tf.convert_to_tensor(g).numpy() for g in tape.gradient(value, model.trainable_variables)]


@pytest.mark.parametrize("mirrored", [False, True], ids=["", "in-a-mirrored-scope"])
@pytest.mark.parametrize("norms_only", [False, True])
def test_weight_regularization_is_in_no_example_and_added_once_to_the_mean_as_model_fit_adds_it(norms_only, mirrored):
    """mean() and clipped_mean() left the regularizers' gradient out: with L2(0.1) on a kernel and L1 on a bias,
    mean() differed from model.fit's batch gradient by up to 0.158, silently. Each example's loss and gradient stay
    the loss function's (the loop without regularization); the regularization is added once, not clipped.
    In a MirroredStrategy's scope the regularization's eager gradient ended in TensorFlow's "ValueError:
    DistributedVariable.handle is not available outside the replica context" (hunt 57); the references run outside."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"]) if mirrored else tf.distribute.get_strategy()
    keras.utils.set_random_seed(1)
    with strategy.scope():
        model = keras.Sequential([keras.Input((5,)),
                                  L.Dense(4, activation="tanh", kernel_regularizer=keras.regularizers.L2(0.1)),
                                  L.Dense(3, bias_regularizer="l1")])
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4, 5)).astype("float32"), np.array([0, 2, 1, 2])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses, norms = loop(model, x, y, loss)
    with strategy.scope():
        r = per_example_gradients(model, x, y, loss=loss, norms_only=norms_only)
        mean, clipped = r.mean(), r.clipped_mean(float(np.median(norms)))
    np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-5)
    fit = fit_batch_gradient(model, x, y, loss)
    for mine, theirs in zip(mean, fit):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    clip = float(np.median(norms))
    factors = np.minimum(1.0, clip / norms)
    assert factors.min() < 1
    per_example = []   # each example's gradient of the loss function alone, eagerly
    for i in range(4):
        with tf.GradientTape() as tape:
            value = loss(y[i:i + 1], model(x[i:i + 1]))
        per_example.append([g.numpy() for g in tape.gradient(value, model.trainable_variables)])
    regularization = [g - np.mean([p[k] for p in per_example], axis=0) for k, g in enumerate(fit)]
    for k, mine in enumerate(clipped):   # the clipped examples, then the regularization once, unclipped
        expected = sum(f * p[k] for f, p in zip(factors, per_example)) / 4 + regularization[k]
        np.testing.assert_allclose(mine, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("api", ["per_example_gradients", "scan"])
def test_an_activity_regularizer_is_refused_not_left_out(api):
    """Keras adds an activity regularizer's term (averaged over the batch) to model.fit's loss; the per-example losses
    left it out silently (3.79 against model.fit's 4.71 for example 2 here, alone as a batch of one)."""
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((5,)), L.Dense(4, activity_regularizer=keras.regularizers.L2(0.1),
                                                         name="hidden"), L.Dense(3)])
    x, y = np.random.default_rng(0).normal(size=(4, 5)).astype("float32"), np.array([0, 2, 1, 2])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with pytest.raises(gradlib.GradlibError, match=r"the model adds 1 loss term\(s\) of its own during its call \(an "
                                                   r"activity_regularizer on layer 'hidden'\).*Remove the activity_"):
        if api == "scan":
            gradlib.scan(model, (x, y), loss=loss, batch_size=2)
        else:
            per_example_gradients(model, x, y, loss=loss)


class Scale(L.Layer):
    """A layer of its own weights, without a rule: its variables take the per-example loop."""

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w


@pytest.mark.parametrize("layers", [[L.Dropout(0.5)], [Scale(), L.Dropout(0.5)], [L.GaussianNoise(1.0)]],
                         ids=["dropout", "dropout_loop", "noise"])
def test_in_training_mode_each_examples_loss_and_gradient_come_from_one_draw(layers):
    """Random layers draw anew on every call, so no loop can replay the draw; a closed form checks it instead. The
    last bias's gradient of a softmax crossentropy is ``p - onehot(y)``: the probabilities it gives must be the
    ones of the reported loss, ``-log p_y`` (a loss from one pass and a gradient from another would differ)."""
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((5,)), L.Dense(6, activation="tanh"), *layers, L.Dense(3)])
    x, y = np.random.default_rng(0).normal(size=(5, 5)).astype("float32"), np.array([0, 2, 1, 1, 0])
    r = per_example_gradients(model, x, y, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                              training=True)
    p = r.gradients[-1] + np.eye(3)[y]
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(r.losses, -np.log(p[np.arange(5), y]), rtol=1e-5)
    np.testing.assert_allclose(r.norms, np.sqrt(sum(np.square(g.reshape(5, -1)).sum(1) for g in r.gradients)),
                               rtol=1e-5)


def test_a_float64_model_matches_the_loop_in_float64():
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((5,), dtype="float64"), L.Dense(4, activation="tanh", dtype="float64"),
                              L.Dense(3, dtype="float64")])
    x, y = np.random.default_rng(0).normal(size=(3, 5)), np.array([0, 2, 1])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, dtype="float64")
    losses, norms = loop(model, x, y, loss)
    r = per_example_gradients(model, x, y, loss=loss)
    assert r.losses.dtype == np.float64 and all(g.dtype == np.float64 for g in r.gradients)
    np.testing.assert_allclose(r.losses, losses, rtol=1e-12)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-12)


def test_a_mixed_float16_model_matches_the_loop_at_half_precision():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        keras.utils.set_random_seed(3)
        model = keras.Sequential([keras.Input((5,)), L.Dense(4, activation="tanh"), L.Dense(3, dtype="float32")])
    finally:
        keras.mixed_precision.set_global_policy("float32")
    x, y = np.random.default_rng(0).normal(size=(3, 5)).astype("float32"), np.array([0, 2, 1])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses, norms = loop(model, x, y, loss)
    r = per_example_gradients(model, x, y, loss=loss)
    assert "loop" in r.method   # the float16 layer has no rule: its textbook call is not what runs
    np.testing.assert_allclose(r.losses, losses, rtol=2e-3)
    np.testing.assert_allclose(r.norms, norms, rtol=2e-3)


def test_a_dense_layer_on_integer_features_is_computed_as_keras_promotes_them():
    """Keras' Dense runs on int32 features (ops.matmul promotes them to the kernel's float32); the Dense rule's
    tf.matmul refused them, and the call failed with 'Input 'b' of 'MatMul' Op has type float32 that does not match
    type int32'."""
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((5,), dtype="int32"), L.Dense(4, activation="tanh"), L.Dense(3)])
    x, y = np.random.default_rng(0).integers(0, 4, (4, 5)).astype("int32"), np.array([0, 2, 1, 2])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses, norms = loop(model, x, y, loss)
    for norms_only in (False, True):
        r = per_example_gradients(model, x, y, loss=loss, norms_only=norms_only)
        assert r.fallback == ()
        np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
        np.testing.assert_allclose(r.norms, norms, rtol=1e-5)


class ExtraPenalty(keras.Model):
    """model.fit minimizes the compiled loss plus a penalty of its own: no compiled loss says so."""

    def __init__(self):
        super().__init__()
        self.dense = L.Dense(2)

    def call(self, x):
        return self.dense(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        return super().compute_loss(x, y, y_pred, sample_weight, training) + 0.1 * keras.ops.sum(y_pred ** 2)


class OwnStep(keras.Model):
    """A train_step of its own (a GAN's, a custom loop): what it minimizes is its own code."""

    def __init__(self):
        super().__init__()
        self.dense = L.Dense(2)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        return {}


@pytest.mark.parametrize("api", ["per_example_gradients", "gradlib.scan"])
@pytest.mark.parametrize("cls, which", [(ExtraPenalty, "compute_loss()"), (OwnStep, "train_step()")])
def test_a_model_that_overrides_how_fit_computes_its_loss_must_name_its_loss(api, cls, which):
    """With loss=None gradlib took the compiled loss ('mse'), which is not what ExtraPenalty's model.fit minimizes:
    every per-example gradient was of another loss, silently. Given loss=, it computes that loss, checked against the
    per-example loop."""
    keras.utils.set_random_seed(3)
    model = cls()
    model.compile(loss="mse")
    x = np.random.default_rng(3).normal(size=(4, 3)).astype("float32")
    y = np.zeros((4, 2), "float32")
    model(x)
    with pytest.raises(gradlib.GradlibError, match=rf"^{api}: {cls.__name__} overrides {re.escape(which)}, so the loss "
                                                   r"model.fit minimizes need not be the one it was compiled with.*"
                                                   r"Pass loss= the per-example loss it computes"):
        if api == "gradlib.scan":
            gradlib.scan(model, (x, y), batch_size=2)
        else:
            per_example_gradients(model, x, y)
    r = per_example_gradients(model, x, y, loss="mean_squared_error")
    losses, norms = loop(model, x, y, lambda yt, yp: tf.reduce_mean(tf.square(yt - yp)))
    np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-5)


def test_a_model_of_keras_own_classes_still_takes_its_compiled_loss():
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((3,)), L.Dense(2)])
    model.compile(loss="mse")
    x = np.random.default_rng(3).normal(size=(4, 3)).astype("float32")
    r = per_example_gradients(model, x, np.zeros((4, 2), "float32"))
    losses, _ = loop(model, x, np.zeros((4, 2), "float32"), lambda yt, yp: tf.reduce_mean(tf.square(yt - yp)))
    np.testing.assert_allclose(r.losses, losses, rtol=1e-5)


class Twice(L.Layer):
    """Doubles its input in training mode: a layer whose call depends on the training flag, without randomness."""

    def __init__(self, default=None, **kwargs):
        super().__init__(**kwargs)
        self.default = default

    def call(self, x, training=None):
        return x * 2.0 if (self.default if training is None else training) else x


class Wrapper(L.Layer):
    """Calls its inner layer from a call that takes no training argument: Keras passes the model's flag on to the
    inner layer through its call context."""

    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner

    def call(self, x):
        return self.inner(x)


def wrapped_model(inner, recorded=None):
    """Dense, the wrapper of ``inner``, Dense; ``recorded``: the training flag the wrapper's call in a functional
    graph was made with (Keras' functional runner replaces it with the model's flag)."""
    keras.utils.set_random_seed(4)
    if recorded is None:
        return keras.Sequential([keras.Input((4,)), L.Dense(5), Wrapper(inner), L.Dense(3)])
    x = keras.Input((4,))
    return keras.Model(x, L.Dense(3)(Wrapper(inner)(L.Dense(5)(x), training=recorded)))


@pytest.mark.parametrize("training, default, recorded", [(True, None, None), (False, True, None), (True, None, False)],
                         ids=["training", "inference", "recorded_otherwise"])
def test_a_layer_inside_a_layer_without_a_training_argument_gets_the_models_flag(training, default, recorded):
    """gradlib walks the model's layers itself, outside the call context model(x, training=...) enters, so a layer
    inside one whose call takes no training argument never saw the flag: under training=True this doubling layer
    stayed off, and under training=False one defaulting to training mode stayed on. Both were refused as "the
    backward pass mixes the examples" (a norm of 18.8 from the batch where it is 3.56 alone). Keras' functional
    runner gives every layer the model's flag, also one whose call takes none and one called with another flag
    when the graph was built (``Wrapper(...)(h, training=False)``); gradlib kept that one's, and was refused so
    again (a norm of 2.91 from the batch where it is 6.39 alone)."""
    model = wrapped_model(Twice(default), recorded)
    x, y = np.random.default_rng(0).normal(size=(5, 4)).astype("float32"), np.array([0, 2, 1, 1, 0])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses, norms = loop(model, x, y, loss, training)
    for norms_only in (False, True):
        r = per_example_gradients(model, x, y, loss=loss, norms_only=norms_only, training=training)
        np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
        np.testing.assert_allclose(r.norms, norms, rtol=1e-5)
    if not training:   # scan runs the model at inference
        np.testing.assert_allclose(gradlib.scan(model, (x, y), loss=loss, batch_size=5).norms, norms, rtol=1e-5)


@pytest.mark.parametrize("recorded", [None, False], ids=["sequential", "recorded_otherwise"])
def test_a_dropout_inside_a_layer_without_a_training_argument_draws_under_training_true(recorded):
    """Silently wrong before: the Dropout in the wrapper never saw training=True, so every loss was the model's at
    inference ([0.992, 0.879, 1.25, ...], where a loop's Dropout of 0.9 gave [1.10, 1.10, 1.55, ...]), under a
    warning that they came from one random draw; and so again where the wrapper's call in the graph was made with
    training=False, which Keras' functional runner replaces with the model's flag."""
    model = wrapped_model(L.Dropout(0.5), recorded)
    x, y = np.random.default_rng(0).normal(size=(6, 4)).astype("float32"), np.arange(6) % 3
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    at_inference, _ = loop(model, x, y, loss, False)
    r = per_example_gradients(model, x, y, loss=loss, training=True)
    assert r.warnings and "draws random numbers" in r.warnings[0]
    assert not np.isclose(r.losses, at_inference, rtol=1e-3).all()
    p = r.gradients[-1] + np.eye(3)[y]   # the last bias's gradient p - onehot(y): the probabilities of the losses
    np.testing.assert_allclose(np.exp(-r.losses), p[np.arange(6), y], rtol=1e-4, atol=1e-6)


class PenaltyInTraining(L.Layer):
    """Adds a loss of its activations in training mode only, as model.fit calls it."""

    def call(self, x, training=None):
        if training:
            self.add_loss(10.0 * tf.reduce_mean(tf.square(x)))
        return x


def test_a_loss_added_in_training_mode_only_is_refused_also_beside_a_random_layer():
    """The probe that counts the model's added losses runs at inference when the model has a random layer, so a loss
    added in training mode only was never seen: with a Dropout beside it, training=True answered losses without the
    term model.fit adds (0.78 for example 0 alone), silently."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), L.Dense(5), PenaltyInTraining(), L.Dropout(0.5), L.Dense(3)])
    x, y = np.random.default_rng(0).normal(size=(6, 4)).astype("float32"), np.arange(6) % 3
    with pytest.raises(gradlib.GradlibError, match=r"the model adds 1 loss term\(s\) of its own during its call \(a "
                                                   r"layer that calls add_loss in its call\)"):
        per_example_gradients(model, x, y, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                              training=True)


def test_an_unreduced_sequence_loss_beside_another_outputs_loss_is_refused():
    """Keras adds the outputs' losses with +: beside an unreduced 4-step loss, another output's loss is broadcast over
    the 4 steps, and model.fit's gradient counts it 4 times (example 0 alone: 8.59, where gradlib answered 2.15, the
    steps averaged; summed, they give 5.47). Refused by name, with the reductions that add it once."""
    keras.utils.set_random_seed(0)
    x = keras.Input((4,), dtype="int32")
    h = L.Embedding(6, 3)(x)
    model = keras.Model(x, {"tags": L.Dense(3, name="tags")(h), "reg": L.Dense(2, name="reg")(L.Flatten()(h))})
    tags = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    model.compile(loss={"tags": tags, "reg": "mse"})
    rng = np.random.default_rng(0)
    xs, y = rng.integers(0, 6, size=(5, 4)), {"tags": rng.integers(0, 3, size=(5, 4)), "reg": rng.normal(size=(5, 2))}
    with pytest.raises(gradlib.GradlibError, match=r"the loss 'sparse_categorical_crossentropy' has reduction='none' and "
                                                   r"returns 4 values per example .*reduction='sum'"):
        per_example_gradients(model, xs, y)


def _half_precision_mlp():
    """A small mixed_float16 model (its output float16, as Keras 3 leaves a last Dense without a dtype)."""
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        keras.utils.set_random_seed(0)
        return keras.Sequential([keras.Input((3,)), L.Dense(4, activation="tanh"), L.Dense(1)])
    finally:
        keras.mixed_precision.set_global_policy("float32")


def test_a_half_precision_loss_has_its_norms_and_gradients_in_float32():
    """A loss computing in a mixed_float16 model's float16 output had its norms summed and its gradients kept in
    float16: the norms lost the digits the backward check compares (161.25 from the batch where 161.19 alone), and
    past 65,504 a squared norm was inf (inf where 632.47 alone): the call was refused as a backward pass that mixes
    the examples."""
    model = _half_precision_mlp()
    x = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")
    y = np.array([[200.0], [0.5], [-150.0], [1.0], [2.0]], np.float32)   # losses below 65,504

    def half(y_true, y_pred):
        return tf.reduce_mean(tf.square(tf.cast(y_true, y_pred.dtype) - y_pred), axis=-1)

    losses, norms = loop(model, x, y, half)
    r = per_example_gradients(model, x, y, loss=half)
    assert r.losses.dtype == np.float16 and r.norms.dtype == np.float32
    assert all(g.dtype == np.float32 for g in r.gradients)
    assert norms.max() ** 2 > 65504   # a squared norm past float16's largest number
    np.testing.assert_allclose(r.losses, losses, rtol=1e-3)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-3)


def compiled_loop(model, x, y):
    """Each example's loss as model.fit computes it from the compiled loss (model.compute_loss on a batch of one), and
    its gradient norm."""
    out = []
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            value = model.compute_loss(x=x[i:i + 1], y=y[i:i + 1], y_pred=model(x[i:i + 1], training=False))
        grads = tape.gradient(value, model.trainable_variables)
        out.append((float(value), float(np.sqrt(sum(np.square(tf.convert_to_tensor(g).numpy()).sum() for g in grads)))))
    return np.array(out).T


def per_step(y_true, y_pred):
    return keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=True)


def squared(y_true, y_pred):
    return tf.reduce_mean(tf.square(tf.cast(y_true, y_pred.dtype) - y_pred), axis=-1)


def test_a_loss_function_a_model_was_compiled_with_is_wrapped_as_model_compile_wraps_it():
    """model.compile wraps a loss function in Keras' LossFunctionWrapper: its values per step are averaged (over the
    unmasked steps under a mask), and a float16 output is cast to float32 first. Taken bare, the tagger's function of
    one value per step was refused ("needs one loss per example"), and on a mixed_float16 model's float16 output the
    losses were computed in float16, silently ([6.555, 0.0772, 20.53] where model.fit's are [6.5602, 0.077191,
    20.537])."""
    model = sequence_tagger(mask_zero=True)
    model.compile(loss=per_step)
    x = np.array([[1, 2, 3, 4], [5, 1, 0, 0], [2, 2, 2, 0], [0, 0, 0, 0]], np.int32)
    y = np.array([[0, 1, 2, 0], [1, 1, 0, 0], [2, 0, 1, 2], [0, 2, 2, 1]])
    losses, norms = compiled_loop(model, x, y)
    r = per_example_gradients(model, x, y)
    np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-5)
    model = _half_precision_mlp()
    model.compile(loss=squared)
    x = np.random.default_rng(1).normal(size=(5, 3)).astype("float32")
    y = np.array([[3.0], [0.5], [-4.0], [1.0], [2.0]], np.float32)
    losses, norms = compiled_loop(model, x, y)
    r = per_example_gradients(model, x, y)
    assert r.losses.dtype == np.float32
    np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
    np.testing.assert_allclose(r.norms, norms, rtol=1e-5)
