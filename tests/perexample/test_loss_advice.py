"""The advice in per_example_gradients' refusals of a loss, followed: each test builds the loss the message says
and checks that it is accepted and gives the per-example loop's losses and gradients (a fresh tape over a batch
holding example i alone, with the same loss).

Found by hunt 55: keras.losses.Circle, which compares the examples with each other, was refused blaming y's shape
("Give y the shape the loss expects (5, 3)"); keras.losses.Dice and Tversky (axis=None: one value of the whole
batch) were told reduction='none', which changes nothing (their values are reduced over every axis already)."""

from __future__ import annotations

import ast
import functools
import re
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras.losses import circle as imported_circle

import gradlib
from gradlib import BatchMixingError, GradlibError, InputError, per_example_gradients

L = keras.layers
RNG = np.random.default_rng(0)
X = RNG.normal(size=(5, 2, 4)).astype("float32")
SOFT = RNG.uniform(size=(5, 2, 3)).astype("float32")   # targets of the (5, 2, 3) sigmoid output
LABELS = np.array([0, 1, 0, 2, 1])


@pytest.fixture(scope="module")
def model():
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((2, 4)), L.Dense(3, activation="sigmoid")])


@pytest.fixture(scope="module")
def embedder():
    keras.utils.set_random_seed(1)
    return keras.Sequential([keras.Input((2, 4)), L.Flatten(), L.Dense(3), L.UnitNormalization()])


def assert_like_loop(model, x, y, loss):
    """Accepted, and each example's loss and gradient equal to that example alone under a fresh tape (rtol 1e-5)."""
    result = per_example_gradients(model, x, y, loss=loss)
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            value = tf.reduce_mean(loss(y[i:i + 1], model(x[i:i + 1])))   # a loss object: the mean of a batch of one
        grads = tape.gradient(value, model.trainable_variables)
        np.testing.assert_allclose(result.losses[i], float(value), rtol=1e-5)
        for g, per_example in zip(grads, result.gradients):
            np.testing.assert_allclose(per_example[i], g.numpy(), rtol=1e-5, atol=1e-6)


REF_LABELS = np.array([0, 1, 2, 0, 1, 2])
REF_EMBEDDINGS = keras.ops.normalize(np.random.default_rng(1).normal(size=(6, 3)).astype("float32"))
#: the refusal of every form of Circle loss ({label}: how it names the loss; {where}: the batch the gap was seen in)
CIRCLE = (r"per_example_gradients: the loss {label} compares the examples with each other \(example \d's loss is "
          r"-?[\d.e+-]+ {where} and -?[\d.e+-]+ alone\): without ref_embeddings, Circle loss takes each example's "
          r"positives and negatives from the other examples of the batch, so no example has a loss of its own; with "
          r"them, remove_diagonal=True \(its default\) drops each example's similarity to the reference at the "
          r"example's own position in the batch\. Either way the batch's Circle loss has no per-example gradient\. "
          r"What has one: Circle loss against fixed references \(embeddings computed beforehand, held constant: a "
          r"different loss, whose gradient does not move the references\) with remove_diagonal=False, "
          r"(?P<advice>loss=lambda y, p: keras\.losses\.circle\(y, p, ref_labels=labels, ref_embeddings=embeddings, "
          r"remove_diagonal=False\))")
PROBE = "among the batch's first 3 examples"   # the probe of the first examples saw the gap


def own_circle(y, p):
    """A loss function of the user's that calls Circle by a name imported from Keras."""
    return imported_circle(y, p) * 1.0


@pytest.mark.parametrize("loss, label, labels, where", [
    (keras.losses.Circle(), "'circle'", LABELS, PROBE),
    (keras.losses.Circle(remove_diagonal=True), "'circle'", LABELS, PROBE),
    (keras.losses.Circle(remove_diagonal=False), "'circle'", LABELS, PROBE),
    ("circle", "'circle'", LABELS, PROBE),
    (keras.losses.circle, "'circle'", LABELS, PROBE),
    (lambda y, p: keras.losses.circle(y, p), "'<lambda>', which calls keras.losses.circle,", LABELS, PROBE),
    (lambda y, p: keras.losses.circle(y, p, ref_labels=REF_LABELS, ref_embeddings=REF_EMBEDDINGS),
     "'<lambda>', which calls keras.losses.circle,", LABELS, PROBE),
    (functools.partial(keras.losses.circle, ref_labels=REF_LABELS, ref_embeddings=REF_EMBEDDINGS,
                       remove_diagonal=True), "'circle'", LABELS, PROBE),
    (own_circle, "'own_circle', which calls keras.losses.circle,", LABELS, PROBE),
    # the first three examples share a label (no negative pair, every loss 0 there): the batch's own check sees it
    (keras.losses.Circle(), "'circle'", np.array([0, 0, 0, 1, 2]), "in this batch of 5"),
], ids=["Circle", "remove_diagonal-True", "remove_diagonal-False", "name", "function", "lambda",
        "lambda-references-remove_diagonal-default", "partial-references-remove_diagonal-True", "own-function",
        "past-the-probe"])
def test_every_form_of_circle_is_refused_with_circle_s_advice(embedder, loss, label, labels, where):
    """A lambda calling keras.losses.circle, or one against references with remove_diagonal=True, was blamed on y's
    shape ("the loss broadcasts one against the other. Give y the shape the loss expects (for this output, (5, 3)
    ..."), and a Circle whose first three examples had no negative pair on the model ("Use training=False ...").
    Each refusal's advice, followed, is accepted and gives the per-example loop's losses and gradients."""
    with pytest.raises(BatchMixingError) as info:
        per_example_gradients(embedder, X, labels, loss=loss)
    made = re.fullmatch(CIRCLE.format(label=re.escape(label), where=re.escape(where)), str(info.value))
    assert made, str(info.value)
    keywords = dict(re.findall(r"(\w+)=(\w+)", made["advice"].split("circle(y, p, ")[1]))
    assert keywords.keys() == {"ref_labels", "ref_embeddings", "remove_diagonal"}, made["advice"]
    assert_like_loop(embedder, X, labels, advised_circle(ast.literal_eval(keywords["remove_diagonal"])))


@functools.lru_cache
def advised_circle(remove_diagonal):
    """The loss the advice says to build, against fixed references (one object per setting: its step is traced once)."""
    return lambda y, p: keras.losses.circle(y, p, ref_labels=REF_LABELS, ref_embeddings=REF_EMBEDDINGS,
                                            remove_diagonal=remove_diagonal)


def test_a_loss_reading_the_batch_with_y_of_the_outputs_shape_is_not_blamed_on_y(model):
    centered = lambda y, p: keras.ops.mean((p - keras.ops.mean(p, axis=0) - y) ** 2, axis=(1, 2))  # noqa: E731
    with pytest.raises(BatchMixingError, match=r"compares the examples with each other .*y has the model output's "
                                               r"shape per example, \(2, 3\), so y's shape is not the cause.*no per-example"):
        per_example_gradients(model, X, SOFT, loss=centered)


def test_labels_broadcast_against_the_outputs_are_still_blamed(model):
    with pytest.raises(InputError, match=r"the loss broadcasts one against the other. Give y the shape the loss "
                                         r"expects \(for this output, \(5, 2, 3\) for a regression loss"):
        per_example_gradients(model, X, SOFT[:, 0, 0], loss="mse")
    assert_like_loop(model, X, SOFT, keras.losses.MeanSquaredError())   # y of that shape


def followed(message):
    """The loss a refusal says to build: ``loss=keras.losses.Cls(axis=(...))`` or ``functools.partial(f, axis=...)``."""
    made = re.search(r"loss=(keras\.losses\.(\w+)|functools\.partial\(([\w.]+), )\(?axis=(\([\d, ]+\))\)", message)
    axis = ast.literal_eval(made[4])
    if made[2]:
        return getattr(keras.losses, made[2])(axis=axis)
    module, _, name = made[3].rpartition(".")
    return functools.partial(getattr(sys.modules[module], name), axis=axis)


def own_dice(y, p, axis=None):
    """A loss function of the user's taking ``axis`` (None: every axis, the batch's too)."""
    return 1 - 2 * keras.ops.sum(y * p, axis=axis) / (keras.ops.sum(y + p, axis=axis) + 1e-3)


@pytest.mark.parametrize("loss, made", [
    (keras.losses.Dice(), r"keras.losses.Dice\(axis=\(1, 2\)\)"), ("dice", r"keras.losses.Dice\(axis=\(1, 2\)\)"),
    (keras.losses.dice, r"keras.losses.Dice\(axis=\(1, 2\)\)"),
    (keras.losses.Tversky(alpha=0.5, beta=0.5), r"keras.losses.Tversky\(axis=\(1, 2\)\)"),
    (own_dice, r"functools.partial\([\w.]*own_dice, axis=\(1, 2\)\)"),
])
def test_a_loss_with_axis_none_is_told_the_axes_after_the_batch_and_they_work(model, loss, made):
    with pytest.raises(GradlibError, match=r"one number for the whole batch: '\w+' has axis=None, so it reduces every "
                                           rf"axis, the batch's included.*axis=\(1, 2\).*loss={made}") as info:
        per_example_gradients(model, X, SOFT, loss=loss)
    assert "reduction='none'" not in str(info.value)
    assert_like_loop(model, X, SOFT, followed(str(info.value)))


class BatchMean(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return keras.ops.mean(keras.ops.square(y_true - y_pred))


class ExampleMean(keras.losses.Loss):   # the advice followed: only the axes after the batch reduced
    def call(self, y_true, y_pred):
        return keras.ops.mean(keras.ops.square(y_true - y_pred), axis=(1, 2))


@pytest.mark.parametrize("loss, match, fixed", [
    (BatchMean(), r"the call of the Keras loss object 'batch_mean' reduces the batch. Make its call return one value "
                  r"per example \(reduce only the axes after the batch\)", ExampleMean()),
    (lambda y, p: tf.reduce_mean((y - p) ** 2), r"the loss function reduces the batch. Return one value per example "
                                                r"\(reduce only the axes after the batch\)",
     lambda y, p: tf.reduce_mean((y - p) ** 2, axis=[1, 2])),
    (lambda y, p: (y - p) ** 2, r"returned shape \(3, 2, 3\). Reduce the axes after the batch in your loss, e.g. "
                                r"tf.reduce_mean\(..., axis=\[1, 2\]\)",
     lambda y, p: tf.reduce_mean((y - p) ** 2, axis=[1, 2])),
])
def test_a_loss_reducing_too_much_or_too_little_is_told_what_to_reduce_and_that_works(model, loss, match, fixed):
    with pytest.raises(GradlibError, match=match):
        per_example_gradients(model, X, SOFT, loss=loss)
    assert_like_loop(model, X, SOFT, fixed)


def test_sample_weights_a_loss_closes_over_are_refused_and_work_in_y(model):
    weights = np.linspace(0.5, 2.0, 5).astype("float32")
    with pytest.raises(GradlibError, match=r"put such weights in y instead"):
        per_example_gradients(model, X, SOFT, loss=lambda y, p: tf.reduce_mean((y - p) ** 2, axis=[1, 2]) * weights)
    y = np.concatenate([SOFT, np.broadcast_to(weights[:, None, None], (5, 2, 1))], axis=-1)   # the weight beside y
    assert_like_loop(model, X, y, lambda y, p: tf.reduce_mean((y[..., :3] - p) ** 2, axis=[1, 2]) * y[:, 0, 3])


@pytest.mark.parametrize("reduction", ["sum", "sum_over_batch_size"])
def test_an_unreduced_sequence_loss_beside_another_output_takes_the_reductions_it_is_told(reduction):
    keras.utils.set_random_seed(0)
    x = keras.Input((4,), dtype="int32")
    h = L.Embedding(6, 3)(x)
    model = keras.Model(x, {"tags": L.Dense(3, name="tags")(h), "reg": L.Dense(2, name="reg")(L.Flatten()(h))})
    xs, y = RNG.integers(0, 6, size=(5, 4)), {"tags": RNG.integers(0, 3, size=(5, 4)), "reg": RNG.normal(size=(5, 2))}
    unreduced = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    with pytest.raises(GradlibError, match=r"Give this loss reduction='sum' .* or 'sum_over_batch_size'"):
        per_example_gradients(model, xs, y, loss={"tags": unreduced, "reg": "mse"})
    tags = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=reduction)
    result = per_example_gradients(model, xs, y, loss={"tags": tags, "reg": "mse"})
    for i in range(5):   # model.fit's loss of a batch of one: the outputs' losses added
        with tf.GradientTape() as tape:
            out = model(xs[i:i + 1])
            value = tags(y["tags"][i:i + 1], out["tags"]) + keras.losses.MeanSquaredError()(y["reg"][i:i + 1],
                                                                                             out["reg"])
        grads = tape.gradient(value, model.trainable_variables)
        np.testing.assert_allclose(result.losses[i], float(value), rtol=1e-5)
        for g, per_example in zip(grads, result.gradients):
            np.testing.assert_allclose(per_example[i], tf.convert_to_tensor(g).numpy(), rtol=1e-5, atol=1e-6)


def test_a_tf_keras_loss_object_is_told_reduction_none_or_the_keras_3_loss_and_both_work():
    tf_keras = pytest.importorskip("tf_keras")
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), L.Dense(2)])
    x, y = RNG.normal(size=(4, 3)).astype("float32"), np.arange(4) % 2
    with pytest.raises(GradlibError, match=r"as a Keras 2 \(tf_keras\) loss object does by default. Make it with "
                                           r"reduction='none', or use the Keras 3 loss \(keras.losses\)"):
        per_example_gradients(model, x, y, loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    assert_like_loop(model, x, y, tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none"))
    assert_like_loop(model, x, y, keras.losses.SparseCategoricalCrossentropy(from_logits=True))
