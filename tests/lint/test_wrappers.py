"""The lint48 classes, each on variants written apart from the reports that prompted them (UNSEEN_37L): a Keras layer
or wrapper the linter assumed differentiable, a term the target leaves out, and three TensorFlow Probability wrappers
read by their contract. Each variant renames, moves the layer into a class, a factory or another module of the
project; each near miss (what stays silent) is a real gradient or a case the linter cannot tell. What TensorFlow does
with the corpus snippets named here is proven in test_lint.py and test_outcomes.py; the variants' claims are run
under TensorFlow in ``test_the_variants_fail_under_tensorflow_as_their_messages_say``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gradlib.lint import Project, lint

CORPUS = Path(__file__).resolve().parent / "lint_corpus"


def _found(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in lint(textwrap.dedent(source).lstrip("\n"))]


FACTORY_LIST = """
import tensorflow as tf


def make_rank_layer():
    return tf.keras.layers.Lambda(lambda z: tf.argsort(z, axis=-1))


entry = tf.keras.Input((5,))
mixed = tf.keras.layers.Dense(4)(entry)
model = tf.keras.Model(entry, [make_rank_layer()(mixed)])
batch = tf.random.normal((3, 5))
with tf.GradientTape() as tape:
    cost = tf.reduce_sum(tf.cast(model(batch)[0], tf.float32))
grads = tape.gradient(cost, model.trainable_variables)
"""

CLASS_ROUND = """
import tensorflow as tf


class Quantize(tf.keras.layers.Layer):
    def call(self, inputs):
        return tf.cast(tf.cast(inputs * 4.0, tf.int32), tf.float32) / 4.0


net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2), Quantize()])
batch = tf.random.normal((3, 2))
with tf.GradientTape() as tape:
    cost = tf.reduce_sum(net(batch) ** 2)
grads = tape.gradient(cost, net.trainable_variables)
"""

PY_FUNC_LAMBDA = """
import numpy as np
import tensorflow as tf

body = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(3)])
sort_layer = tf.keras.layers.Lambda(lambda t: tf.compat.v1.py_func(np.sort, [t], tf.float32), output_shape=(3,))
sorted_out = sort_layer(body.outputs[0])
wrapped = tf.keras.Model(body.inputs, sorted_out)
batch = np.ones((2, 3), dtype=np.float32)
with tf.GradientTape() as tape:
    cost = tf.reduce_sum(wrapped(batch))
grads = tape.gradient(cost, wrapped.trainable_variables)
"""


@pytest.mark.parametrize("source, line, rule", [
    (FACTORY_LIST, 5, "GT010"),          # a Lambda made by a factory, the model's outputs a list of one
    (CLASS_ROUND, 6, "GT010"),           # the Lambda written as a layer class: casts to int and back
    (PY_FUNC_LAMBDA, 5, "GT002"),        # tf.compat.v1.py_func in a lambda, after a Sequential's outputs
])
def test_a_layer_without_a_gradient_is_caught_however_it_is_written(source, line, rule):
    assert (line, rule) in _found(source)


def test_a_near_miss_of_the_lambda_class_stays_silent():
    smooth = FACTORY_LIST.replace("tf.argsort(z, axis=-1)", "tf.sort(z, axis=-1)").replace(
        "tf.cast(model(batch)[0], tf.float32)", "model(batch)[0]")
    assert _found(smooth) == []                                     # tf.sort has a gradient
    branching = FACTORY_LIST.replace("lambda z: tf.argsort(z, axis=-1)", "lambda z: tf.argsort(z) if z.shape[0] else z")
    assert _found(branching) == []                                  # a branch: can't tell


def test_a_layer_class_that_reads_its_weights_directly_or_branches_is_not_taken_for_a_lambda():
    """Its weights read only inside the cast too (``inputs * self.k`` cast to int) is a Lambda without a gradient for
    them as well (lint51, keras#6926: TensorFlow gives [None, None, None]); read directly as well, it is not."""
    weighted = CLASS_ROUND.replace("    def call(self, inputs):\n",
                                   "    def build(self, shape):\n        self.k = self.add_weight(shape=(2,))\n\n"
                                   "    def call(self, inputs):\n").replace("inputs * 4.0", "inputs * self.k")
    assert (9, "GT010") in _found(weighted)
    assert _found(weighted.replace("tf.float32) / 4.0", "tf.float32) / 4.0 + self.k")) == []
    branching = CLASS_ROUND.replace("        return tf.cast(", "        if inputs is None:\n            return inputs\n"
                                    "        return tf.cast(")
    assert _found(branching) == []


QUANT = """
import tensorflow as tf


class Quantize(tf.keras.layers.Layer):
    def call(self, inputs, training=None):
        return tf.round(inputs)
"""
TRAIN = """
import tensorflow as tf

from nets.quant import Quantize

net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2), Quantize()])
batch = tf.random.normal((3, 2))
with tf.GradientTape() as tape:
    cost = tf.reduce_sum(net(batch))
grads = tape.gradient(cost, net.trainable_variables)
"""


def test_a_layer_class_from_another_module_of_the_project_is_read_there(tmp_path):
    for name, text in {"nets/__init__.py": "", "nets/quant.py": QUANT, "train.py": TRAIN}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    alone = lint((tmp_path / "train.py").read_text())
    assert list(alone) == []                                # alone, Quantize is unseen: can't tell
    whole = lint((tmp_path / "train.py").read_text(), project=Project(tmp_path), path="train.py")
    (note,) = whole                                         # the cause is in the other file: named there
    assert (note.rule, note.line) == ("GT010", 9) and "line 6 of nets/quant.py" in note.message
    assert "is None" in note.message


TWO_OUTPUTS = """
import tensorflow as tf


class Encoder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.body = tf.keras.layers.Dense(4)
        self.summary_head = tf.keras.layers.Dense(2)

    def call(self, tokens):
        states = self.body(tokens)
        summary = self.summary_head(tf.reduce_mean(states, axis=1))
        return [states, summary]


enc = Encoder()
batch = tf.random.normal((2, 3, 5))
with tf.GradientTape() as tape:
    states = enc(batch)[0]
    cost = tf.reduce_mean(states ** 2)
grads = tape.gradient(cost, enc.trainable_variables)
"""


def test_one_output_of_a_model_returning_a_list_read_is_gt017_on_the_request():
    (found,) = lint(textwrap.dedent(TWO_OUTPUTS).lstrip("\n"))
    assert (found.line, found.rule) == (21, "GT017") and "self.summary_head" in found.message
    assert "is None" in found.message


@pytest.mark.parametrize("change", [
    ("states = enc(batch)[0]", "states = enc(batch)[1]"),                    # the summary reads the body too
    ("states = enc(batch)[0]", "states, _ = enc(batch)"),                    # unpacked: which is read, not told
    ("grads = tape.gradient(cost, enc.trainable_variables)",
     "grads = tape.gradient(cost, enc.body.trainable_variables)"),          # only the body's variables asked
])
def test_a_near_miss_of_the_dropped_output_stays_silent(change):
    assert _found(TWO_OUTPUTS.replace(*change)) == []


LAMBDA_LOSS = """
import tensorflow as tf

critic = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
score_loss = lambda wanted, got: tf.reduce_mean(tf.square(wanted))
states = tf.random.normal((4, 3))
wanted = tf.ones((4, 1))
with tf.GradientTape() as tape:
    value = score_loss(wanted, critic(states))
grads = tape.gradient(value, critic.trainable_variables)
"""

SUMMED = """
import tensorflow as tf

gen = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3)])
head = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
noise = tf.random.normal((5, 2))
with tf.GradientTape() as tape:
    sample = gen(noise)
    adv = tf.reduce_mean(head(sample))
    l2 = tf.add_n([tf.reduce_sum(w ** 2) for w in gen.trainable_variables])
    objective = l2
grads = tape.gradient(objective, gen.trainable_variables + head.trainable_variables)
"""


def test_a_loss_that_leaves_out_the_model_s_term_is_caught_where_it_is_made():
    assert (4, "GT017") in _found(LAMBDA_LOSS)            # a lambda loss never reading its prediction
    found = _found(SUMMED)
    assert (9, "GT017") in found and (11, "GT017") in found     # where the target's value is made: l2's line
    message = next(f.message for f in lint(textwrap.dedent(SUMMED).lstrip("\n")) if f.line == 9)
    assert "adv (line 8)" in message and "is None" in message


def test_a_loss_using_every_term_or_reading_the_prediction_is_silent():
    assert _found(LAMBDA_LOSS.replace("tf.square(wanted)", "tf.square(wanted - got)")) == []
    assert _found(SUMMED.replace("objective = l2", "objective = adv + l2")) == []


TFD_IMPORTED = """
import tensorflow as tf
from tensorflow_probability import distributions as tfd

skill = tf.Variable([0.2, 0.4])
spread = tf.Variable([1.0, 2.0])
belief = tfd.Normal(loc=skill, scale=tf.nn.softplus(spread))
with tf.GradientTape() as tape:
    surprise = -tf.reduce_sum(belief.log_prob([0.0, 1.0]))
grads = tape.gradient(surprise, [skill, spread])
"""


def test_a_tfp_distribution_keeps_a_variable_and_freezes_a_tensor_made_before_the_tape():
    assert _found(TFD_IMPORTED) == [(6, "GT007"), (9, "GT007")]
    assert _found(TFD_IMPORTED.replace("scale=tf.nn.softplus(spread)", "scale=spread")) == []
    assert _found(TFD_IMPORTED.replace("belief = tfd", "with tf.GradientTape() as tape:\n    belief = tfd")
                  .replace("with tf.GradientTape() as tape:\n    surprise", "    surprise")) == []


def test_a_tfp_wrapper_asked_for_raises_and_its_variables_do_not():
    deferred = ("import tensorflow as tf\nimport tensorflow_probability as tfp\n\nraw = tf.Variable(0.5)\n"
                "width = tfp.util.DeferredTensor(raw, tf.math.softplus)\nwith tf.GradientTape() as tape:\n"
                "    area = width * 3.0\ngrads = tape.gradient(area, width)\n")
    (found,) = lint(deferred)
    assert (found.line, found.rule) == (8, "GT017") and "raises ValueError" in found.message
    assert lint(deferred.replace("tape.gradient(area, width)", "tape.gradient(area, raw)")) == []
    assert lint(deferred.replace("tape.gradient(area, width)", "tape.gradient(area, width.trainable_variables)")) == []
    copied = deferred.replace("tfp.util.DeferredTensor(raw, tf.math.softplus)",
                              "tfp.util.TransformedVariable(raw, tfp.bijectors.Softplus())")
    assert [(f.line, f.rule) for f in lint(copied)] == [(8, "GT017")]        # asked for itself: ValueError
    found = lint(copied.replace("tape.gradient(area, width)", "tape.gradient(area, raw)"))
    assert [(f.line, f.rule) for f in found] == [(5, "GT017"), (8, "GT017")], "read once, when it is made"
    assert "new variable whose initial value is read from raw once" in found[0].message


def test_the_variants_fail_under_tensorflow_as_their_messages_say(tf_snippets):
    sources = {name: textwrap.dedent(src).lstrip("\n").replace("grads = ", "result = ")
               for name, src in {"factory_list": FACTORY_LIST, "class_round": CLASS_ROUND, "py_func": PY_FUNC_LAMBDA,
                                 "two_outputs": TWO_OUTPUTS, "lambda_loss": LAMBDA_LOSS, "summed": SUMMED,
                                 "tfd_imported": TFD_IMPORTED, "sparse": SPARSE}.items()}
    verdicts = {name: run["verdict"] for name, run in tf_snippets.run(sources).items()}
    assert verdicts == dict.fromkeys(sources, "none"), verdicts


SPARSE = """
import tensorflow as tf


def propagate(features, adjacency):
    mask = tf.SparseTensor(indices=adjacency.indices, values=tf.zeros_like(adjacency.values) + 1.0,
                           dense_shape=adjacency.dense_shape)
    return tf.sparse.sparse_dense_matmul(mask, features)


feats = tf.random.normal((3, 2))
adj = tf.sparse.from_dense(tf.constant([[0.0, 0.3, 0.0], [0.3, 0.0, 0.6], [0.0, 0.6, 0.0]]))
with tf.GradientTape() as tape:
    tape.watch(adj.values)
    out = tf.reduce_sum(propagate(feats, adj) ** 2)
grads = tape.gradient(out, adj.values)
"""


def test_a_sparse_tensor_s_values_replaced_by_a_constant_is_gt010_and_kept_values_are_silent():
    assert _found(SPARSE) == [(5, "GT010"), (15, "GT010")]
    assert _found(SPARSE.replace("tf.zeros_like(adjacency.values) + 1.0", "adjacency.values * 2.0")) == []
    unseen = SPARSE.replace("tf.sparse.from_dense(", "make_sparse(").replace(
        "import tensorflow as tf", "import tensorflow as tf\nfrom g import make_sparse")
    assert _found(unseen) == []                                     # made by unseen code: can't tell
