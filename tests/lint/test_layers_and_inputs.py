"""The lint49 classes, each on variants written apart from the reports that prompted them (UNSEEN_37M): a TensorFlow op
given a Keras model's symbolic input or output (a KerasTensor: ValueError, and the program stops there), a NumPy
bridge (``tf.py_func``, ``tf.numpy_function``) on the only path of a layer's weights in its ``call``, the weights a
Keras base class's ``build`` makes read by a value the subclass's ``build`` computes once, an ``Embedding`` fed
computed values (it casts them to integer ids), a TFP distribution's variables when it was given tensors only (an
empty list), and a model call reading the input instead of the value another model's output made from it. Each
variant renames, moves the code into a class, a function or another module of the project; each near miss (what stays
silent) is a real gradient or a case the linter cannot tell. The variants' claims are run under TensorFlow in
``test_the_variants_fail_under_tensorflow_as_their_messages_say``; each class also has a broken and a correct snippet
in the corpus (broken: keras_tensor_converted, py_func_in_layer_call, base_kernel_in_build, embedding_fed_predictions,
tfp_distribution_variables, model_reads_the_input_not_the_warped; correct: data_converted_in_a_custom_loss,
tanh_in_layer_call, base_kernel_in_call, dense_fed_predictions, tfp_variables_asked_for, model_reads_the_warped), run
under TensorFlow by test_lint.py and test_outcomes.py."""

from __future__ import annotations

import textwrap

from gradlib.lint import Project, lint


def _src(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


def _found(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in lint(_src(source))]


OUTPUT_PENALTY = """
import tensorflow as tf

entry = tf.keras.Input((3,))
net = tf.keras.Model(entry, tf.keras.layers.Dense(2)(entry))


def penalty(batch):
    return tf.reduce_sum(tf.square(net.output))


data = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    cost = tf.reduce_mean(net(data)) + penalty(data)
grads = tape.gradient(cost, net.trainable_variables)
"""

PENALTY_CLASS = """
import tensorflow as tf


class InputPenalty:
    def __init__(self, model):
        self.points = model.input
        self.model = model

    def __call__(self, wanted, got):
        points = tf.cast(self.points, tf.float32)
        return tf.reduce_mean((wanted - got) ** 2) + tf.reduce_mean(points)


source = tf.keras.Input((5,))
clf = tf.keras.Model(source, tf.keras.layers.Dense(1)(source))
loss_fn = InputPenalty(clf)
rows = tf.random.normal((6, 5))
with tf.GradientTape() as tape:
    total = loss_fn(tf.ones((6, 1)), clf(rows))
grads = tape.gradient(total, clf.trainable_variables)
"""


def test_a_tensorflow_op_given_a_keras_tensor_raises_there_and_nothing_after_is_said():
    found = lint(_src(OUTPUT_PENALTY))
    assert [(f.line, f.rule) for f in found] == [(8, "GT019")]
    assert "raises ValueError" in found[0].message and "net.output" in found[0].message
    found = lint(_src(PENALTY_CLASS))                 # read in __init__ (line 6), converted in __call__ (line 10)
    assert [(f.line, f.rule) for f in found] == [(6, "GT019"), (10, "GT019")]
    assert all("raises ValueError" in f.message for f in found) and "on line 10" in found[0].message


HELPER = """
import tensorflow as tf


def input_gradient_loss(points, model):
    points = tf.convert_to_tensor(points)
    with tf.GradientTape() as inner:
        inner.watch(points)
        out = model(points)
    return tf.reduce_mean(inner.gradient(out, points) ** 2)
"""
FIT = """
import tensorflow as tf

from regularizers import input_gradient_loss

inp = tf.keras.Input((4,))
regressor = tf.keras.Model(inp, tf.keras.layers.Dense(1)(inp))
batch = tf.random.normal((3, 4))
with tf.GradientTape() as tape:
    cost = tf.reduce_mean(regressor(batch) ** 2) + input_gradient_loss(regressor.input, regressor)
grads = tape.gradient(cost, regressor.trainable_variables)
"""


def test_model_input_handed_to_a_helper_of_another_module_is_named_where_it_is_read(tmp_path):
    for name, text in {"regularizers.py": HELPER, "fit.py": FIT}.items():
        (tmp_path / name).write_text(_src(text))
    assert lint(_src(FIT)) == []                           # alone, the helper is unseen: can't tell
    (note,) = lint(_src(FIT), project=Project(tmp_path), path="fit.py")
    assert (note.rule, note.line) == ("GT019", 9) and "raises ValueError" in note.message
    assert "regressor.input" in note.message


def test_the_data_itself_or_a_keras_op_on_the_keras_tensor_is_silent():
    assert _found(OUTPUT_PENALTY.replace("tf.square(net.output)", "tf.square(net(batch))")) == []
    assert _found(PENALTY_CLASS.replace("tf.cast(self.points, tf.float32)", "tf.ones((6, 5))")) == []
    keras_op = OUTPUT_PENALTY.replace("tf.reduce_sum(tf.square(net.output))", "tf.keras.ops.sum(net.output) * 0.0")
    assert _found(keras_op) == []                          # a Keras op takes a KerasTensor: not flagged


NUMPY_DENSE = """
import numpy as np
import tensorflow as tf


def soft_clip(values):
    return np.clip(values, -1.0, 1.0).astype(np.float32)


class ClippedDense(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.kernel = self.add_weight(shape=(3, 2), initializer="ones")

    def call(self, features):
        mixed = tf.matmul(features, self.kernel)
        return tf.numpy_function(soft_clip, [mixed], tf.float32)


model = ClippedDense()
batch = tf.random.normal((5, 3))
with tf.GradientTape() as tape:
    cost = tf.reduce_sum(model(batch))
grads = tape.gradient(cost, model.trainable_variables)
"""

PY_FUNC_METHOD = """
import numpy as np
import tensorflow as tf


class Squash(tf.keras.layers.Layer):
    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], 1), initializer="ones")

    def squash(self, z):
        return np.tanh(z).astype(np.float32)

    def call(self, x):
        return tf.compat.v1.py_func(self.squash, [tf.matmul(x, self.w)], tf.float32)


squash = Squash()
xs = tf.random.normal((4, 2))
squash(xs)
with tf.GradientTape() as tape:
    out = tf.reduce_mean(squash(xs))
grads = tape.gradient(out, squash.trainable_variables)
"""


def test_a_numpy_bridge_on_the_weights_only_path_in_call_is_gt002():
    assert _found(NUMPY_DENSE) == [(16, "GT002"), (23, "GT002")]
    assert _found(PY_FUNC_METHOD) == [(13, "GT002"), (21, "GT002")]


def test_a_bridge_on_the_input_alone_or_a_weight_read_outside_it_is_silent():
    after = NUMPY_DENSE.replace("        mixed = tf.matmul(features, self.kernel)\n", "").replace(
        "return tf.numpy_function(soft_clip, [mixed], tf.float32)",
        "return tf.matmul(tf.numpy_function(soft_clip, [features], tf.float32), self.kernel)")
    assert _found(after) == []
    plus = PY_FUNC_METHOD.replace("tf.float32)\n", "tf.float32) + tf.reduce_sum(self.w)\n", 1)
    assert _found(plus) == []


MASKED_DENSE = """
import tensorflow as tf


class MaskedDense(tf.keras.layers.Dense):
    def build(self, input_shape):
        super().build(input_shape)
        self.masked = self.kernel * tf.linalg.band_part(tf.ones((input_shape[-1], self.units)), 0, -1)

    def call(self, inputs):
        return tf.matmul(inputs, self.masked) + self.bias


layer = MaskedDense(3)
feed = tf.random.normal((2, 3))
layer(feed)
with tf.GradientTape() as tape:
    cost = tf.reduce_sum(layer(feed) ** 2)
grads = tape.gradient(cost, layer.trainable_variables)
"""

SCALED_CONV = """
from tensorflow import keras
import tensorflow as tf


class ScaledConv(keras.layers.Conv1D):
    def build(self, shape):
        super().build(shape)
        self.scaled = self.kernel / tf.norm(self.kernel)

    def call(self, signal):
        return tf.nn.conv1d(signal, self.scaled, stride=1, padding="VALID")


conv = ScaledConv(2, 3, use_bias=False)
wave = tf.random.normal((1, 8, 1))
conv(wave)
with tf.GradientTape() as tape:
    energy = tf.reduce_sum(conv(wave) ** 2)
grads = tape.gradient(energy, [conv.kernel])
"""


def test_a_base_class_weight_read_by_a_value_build_computes_once_is_gt007():
    assert _found(MASKED_DENSE) == [(7, "GT007"), (18, "GT007")]
    assert _found(SCALED_CONV) == [(8, "GT007"), (19, "GT007")]


def test_computed_in_call_or_without_the_base_build_is_silent():
    in_call = MASKED_DENSE.replace("self.masked = self.kernel *", "self.mask =").replace(
        "tf.matmul(inputs, self.masked)", "tf.matmul(inputs, self.kernel * self.mask)")
    assert _found(in_call) == []
    assert _found(SCALED_CONV.replace("super().build(shape)", "pass")) == []    # no kernel made in sight: can't tell


EMBEDDED = """
import tensorflow as tf
from tensorflow.keras.layers import Dense, Embedding, Flatten

tokens = tf.keras.Input((6,))
scores = Dense(9, activation="relu")(tokens)
looked_up = Embedding(9, 4)(scores)
flat = Flatten()(looked_up)
tagger = tf.keras.Model(tokens, Dense(2)(flat))
batch = tf.random.normal((3, 6))
with tf.GradientTape() as tape:
    cost = tf.reduce_mean(tagger(batch) ** 2)
grads = tape.gradient(cost, tagger.trainable_variables)
"""

EAGER_LOOKUP = """
import tensorflow as tf

table = tf.keras.layers.Embedding(10, 3)
position = tf.Variable([1.0, 4.0])
with tf.GradientTape() as tape:
    picked = table(position * 2.0)
    cost = tf.reduce_sum(picked)
grads = tape.gradient(cost, position)
"""


def test_an_embedding_fed_computed_values_is_gt010():
    assert _found(EMBEDDED) == [(6, "GT010")]
    assert _found(EAGER_LOOKUP) == [(6, "GT010"), (8, "GT010")]


def test_an_embedding_fed_integer_data_is_silent():
    ids = EMBEDDED.replace("tokens = tf.keras.Input((6,))", "tokens = tf.keras.Input((6,), dtype='int32')").replace(
        'scores = Dense(9, activation="relu")(tokens)', "scores = tokens").replace(
        "tf.random.normal((3, 6))", "tf.constant([[1, 2, 3, 4, 5, 6]] * 3)")
    assert _found(ids) == []
    assert _found(EAGER_LOOKUP.replace("grads = tape.gradient(cost, position)",
                                       "grads = tape.gradient(cost, table.trainable_variables)")) == []


BERNOULLI = """
import tensorflow as tf
from tensorflow_probability import distributions as tfd

coef = tf.Variable([0.3, -0.1, 0.2])
design = tf.random.normal((5, 3))


def model_of(c):
    return tfd.Bernoulli(logits=tf.linalg.matvec(design, c))


with tf.GradientTape() as tape:
    belief = model_of(coef)
    cost = -tf.reduce_sum(belief.log_prob([1, 0, 1, 1, 0]))
grads = tape.gradient(cost, belief.variables)
"""


def test_a_tfp_distribution_made_from_tensors_has_no_variables_gt021():
    found = lint(_src(BERNOULLI))
    assert [(f.line, f.rule) for f in found] == [(15, "GT021")]
    assert "is an empty list" in found[0].message and "[coef]" in found[0].message


def test_a_distribution_given_a_variable_or_made_by_unseen_code_is_silent():
    assert _found(BERNOULLI.replace("logits=tf.linalg.matvec(design, c)", "logits=c")) == []
    unseen = BERNOULLI.replace("return tfd.Bernoulli(", "return make_bernoulli(").replace(
        "from tensorflow_probability import distributions as tfd", "from likelihoods import make_bernoulli")
    assert _found(unseen) == []


ALIGNED = """
import tensorflow as tf


def dense_net(units):
    return tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(units)])


locate, read = dense_net(1), dense_net(2)
frames = tf.random.normal((3, 4))
with tf.GradientTape() as tape:
    shifted = frames + locate(frames)
    guess = read(frames)
    cost = tf.reduce_sum(guess ** 2)
grads = tape.gradient(cost, locate.trainable_variables + read.trainable_variables)
"""


def test_a_model_reading_the_input_instead_of_the_value_made_from_it_is_flagged_where_it_reads():
    found = lint(_src(ALIGNED))
    assert [(f.line, f.rule) for f in found] == [(12, "GT017"), (14, "GT017")]
    assert "reads frames, not shifted (line 11)" in found[0].message


def test_the_model_reading_the_value_made_from_the_input_is_silent():
    assert _found(ALIGNED.replace("guess = read(frames)", "guess = read(shifted)")) == []
    both = ALIGNED.replace("cost = tf.reduce_sum(guess ** 2)", "cost = tf.reduce_sum(guess ** 2 + shifted)")
    assert _found(both) == []


VARIANTS = {"bernoulli": BERNOULLI, "aligned": ALIGNED, "output_penalty": OUTPUT_PENALTY,
            "penalty_class": PENALTY_CLASS, "numpy_dense": NUMPY_DENSE, "py_func_method": PY_FUNC_METHOD,
            "masked_dense": MASKED_DENSE, "scaled_conv": SCALED_CONV, "embedded": EMBEDDED,
            "eager_lookup": EAGER_LOOKUP}


def test_the_variants_fail_under_tensorflow_as_their_messages_say(tf_snippets):
    sources = {name: _src(src).replace("grads = ", "result = ") for name, src in VARIANTS.items()}
    runs = tf_snippets.run(sources)
    verdicts = {name: run["verdict"] for name, run in runs.items()}
    raising, empty = ("output_penalty", "penalty_class"), ("bernoulli",)
    assert {n: v for n, v in verdicts.items() if n not in raising + empty} == dict.fromkeys(
        set(sources) - set(raising + empty), "none")
    assert {n: verdicts[n] for n in empty} == dict.fromkeys(empty, "empty")
    crashed = {n: (runs[n]["crash"] or [None, None])[1] for n in raising}
    assert crashed == dict.fromkeys(raising, "ValueError"), runs
