"""The lint50 classes, each on variants written apart from the reports that prompted them (UNSEEN_37M, UNSEEN_37N and
tensorflow#97599): a list of variables no tracker fills (a TFP distribution or bijector that holds a TF1 template, a
Python function or tensors only, whose ``trainable_variables`` is an empty tuple; raw ``tf.Variable``\\ s in a Keras 3
Layer or Model, which it does not list), and a variable an inner derivative does not read (a bias a network adds last,
a term added apart from the inner source, a target linear in the source), whose outer gradient is None; lint49's notes
(a KerasTensor reached through ``model.inputs``, in a list or in a tf.function; every weight a cause leaves None named);
and a layer of a functional model called on its own while all the model's variables are asked for. Each variant
renames, moves the code into a function, a class or another module of the project; each near miss (what stays silent)
is a real gradient or a case the linter cannot tell. The variants' claims are run under TensorFlow in
``test_the_variants_fail_under_tensorflow_as_their_messages_say``; each class also has a broken and a correct snippet
in the corpus (broken: tfp_flow_on_a_template, raw_variables_in_a_keras_layer, bias_drops_out_of_the_derivative,
layer_called_apart_from_its_model; correct: tfp_flow_on_a_network, add_weight_in_a_keras_layer,
bias_kept_by_a_data_term, model_called_beside_its_layer), run under TensorFlow by test_lint.py and test_outcomes.py."""

from __future__ import annotations

import textwrap

from gradlib.lint import Project, lint


def _src(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


def _found(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in lint(_src(source))]


# ---------------------------------------------------------------------------- a TFP object that tracks nothing

CHAIN = """
import tensorflow as tf
from tensorflow_probability import bijectors as B, distributions as D

offset = tf.Variable(0.5)
spread = tf.Variable(0.3)


def warped(base):
    steps = B.Chain([B.Shift(offset * 2.0), B.Scale(tf.exp(spread))])
    return D.TransformedDistribution(base, steps)


model = warped(D.Normal(0.0, 1.0))
data = tf.constant([0.2, 1.4, 0.9])
with tf.GradientTape() as tape:
    cost = -tf.reduce_sum(model.log_prob(data))
grads = tape.gradient(cost, model.variables)
"""

CLOSURE = """
import tensorflow as tf
import tensorflow_probability as tfp

kernel = tf.Variable(tf.random.normal((3, 6)) * 0.1)


def shift_and_log_scale(z):
    out = tf.matmul(z, kernel)
    return out[..., :3], tf.tanh(out[..., 3:])


maf = tfp.bijectors.MaskedAutoregressiveFlow(shift_and_log_scale_fn=shift_and_log_scale)
q = tfp.distributions.TransformedDistribution(tfp.distributions.Sample(tfp.distributions.Normal(0.0, 1.0), [3]), maf)
with tf.GradientTape() as g:
    loss = -tf.reduce_mean(q.log_prob(tf.random.normal((10, 3))))
grads = g.gradient(loss, maf.trainable_variables)
"""

TEMPLATE = """
import tensorflow as tf
import tensorflow_probability as tfp


def _net(x, out_units):
    w = tf.compat.v1.get_variable("w", [x.shape[-1], 2 * out_units], initializer=tf.zeros_initializer())
    return tf.matmul(x, w)


def shift_scale(x, output_units, **kwargs):
    out = _net(x, output_units)
    return out[..., :output_units], out[..., output_units:]


fn = tf.compat.v1.make_template("coupling", shift_scale)
inverse_flow = tfp.bijectors.Invert(tfp.bijectors.RealNVP(num_masked=2, shift_and_log_scale_fn=fn))
dist = tfp.distributions.TransformedDistribution(tfp.distributions.MultivariateNormalDiag(tf.zeros(4)), inverse_flow)
with tf.GradientTape() as tape:
    loss = -tf.reduce_mean(dist.log_prob(tf.random.normal((6, 4))))
grads = tape.gradient(loss, dist.trainable_variables)
"""


def test_a_tfp_object_holding_tensors_a_function_or_a_template_has_no_variables_gt021():
    for source, line, why in ((CHAIN, 17, "`offset * 2.0` is a tensor"), (CLOSURE, 16, "is a Python function"),
                              (TEMPLATE, 20, "`tf.compat.v1.make_template(...)` is a TF1 template")):
        found = lint(_src(source))
        assert [(f.line, f.rule) for f in found] == [(line, "GT021")], found
        assert "is an empty tuple" in found[0].message and why in found[0].message
        assert "raises ValueError" in found[0].message


def test_a_tfp_object_given_a_variable_a_network_or_unseen_code_is_silent():
    assert _found(CHAIN.replace("B.Shift(offset * 2.0)", "B.Shift(offset)")) == []
    assert _found(CLOSURE.replace("maf.trainable_variables", "[kernel]")) == []
    network = CLOSURE.replace("shift_and_log_scale_fn=shift_and_log_scale",
                              "shift_and_log_scale_fn=tfp.bijectors.AutoregressiveNetwork(params=2, hidden_units=[4])")
    assert _found(network) == []
    assert _found(CHAIN.replace("B.Chain([B.Shift(offset * 2.0), B.Scale(tf.exp(spread))])",
                                "B.Chain([B.BatchNormalization(), B.Scale(tf.exp(spread))])")) == []
    unseen = CHAIN.replace("steps = B.Chain(", "steps = make_steps(").replace(
        "from tensorflow_probability import bijectors as B, distributions as D",
        "from tensorflow_probability import distributions as D\nfrom flows import make_steps")
    assert _found(unseen) == []


# ---------------------------------------------------------------------------- raw tf.Variables in a Keras 3 layer

AFFINE = """
import tensorflow as tf
from tensorflow import keras


class Affine(keras.layers.Layer):
    \"\"\"A per-feature scale and shift.\"\"\"

    def __init__(self, width, name=None):
        super(Affine, self).__init__(name=name)
        self.params = [tf.Variable(tf.ones(width)), tf.Variable(tf.zeros(width))]

    def call(self, inputs):
        scale, shift = self.params
        return inputs * scale + shift


head = Affine(3)
batch = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    err = tf.reduce_sum(head(batch) ** 2)
grads = tape.gradient(err, head.trainable_weights)
"""
LINE_MODULE = """
import tensorflow as tf


class Line(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.slope = tf.Variable(1.0)
        self.bias = tf.Variable(0.0)

    def call(self, x):
        return self.slope * x + self.bias
"""
LINE_FIT = """
import tensorflow as tf

from lines import Line

line = Line()
xs = tf.constant([0.0, 1.0, 2.0])
with tf.GradientTape() as tape:
    mse = tf.reduce_mean((line(xs) - 3.0 * xs) ** 2)
grads = tape.gradient(mse, line.trainable_variables)
"""


def test_raw_tf_variables_in_a_keras_layer_are_not_tracked_gt021_where_made_and_on_the_request():
    found = lint(_src(AFFINE))
    assert [(f.line, f.rule) for f in found] == [(10, "GT021"), (10, "GT021"), (21, "GT021")]
    assert "`self.params[0]` is a tf.Variable, which Keras 3 does not track" in found[0].message
    assert "`self.params[1]`" in found[1].message and "is an empty list" in found[0].message


def test_a_keras_model_of_another_module_holding_raw_variables_is_flagged_where_they_are_made(tmp_path):
    for name, text in {"lines.py": LINE_MODULE, "fit.py": LINE_FIT}.items():
        (tmp_path / name).write_text(_src(text))
    assert lint(_src(LINE_FIT)) == []                     # alone, the class is unseen: can't tell
    found = lint(_src(LINE_FIT), project=Project(tmp_path), path="fit.py")
    assert [(f.line, f.rule) for f in found] == [(9, "GT021")]
    assert "`self.slope`, `self.bias`" in found[0].message


def test_keras_weights_a_tf_module_or_a_layer_beside_the_variables_are_silent():
    weights = AFFINE.replace("self.params = [tf.Variable(tf.ones(width)), tf.Variable(tf.zeros(width))]",
                             "self.params = [self.add_weight(shape=(width,), initializer='ones'), "
                             "self.add_weight(shape=(width,), initializer='zeros')]")
    assert _found(weights) == []
    module = AFFINE.replace("class Affine(keras.layers.Layer):", "class Affine(tf.Module):").replace(
        "super(Affine, self).__init__(name=name)", "super().__init__(name=name)").replace(
        "def call(self, inputs):", "def __call__(self, inputs):").replace("trainable_weights", "trainable_variables")
    assert _found(module) == []                            # a tf.Module tracks variables in a list
    beside = AFFINE.replace("self.params = [", "self.dense = keras.layers.Dense(3)\n        self.params = [")
    assert _found(beside) == []                            # some tracked: not an empty list (the rest not said)


# ---------------------------------------------------------------------------- what an inner derivative reads

POTENTIAL = """
import tensorflow as tf

slope = tf.Variable(1.5)
offset = tf.Variable(0.2)


def potential(q):
    return slope * tf.sin(q) + offset


q = tf.linspace(0.0, 1.0, 5)
with tf.GradientTape() as outer:
    with tf.GradientTape() as g:
        g.watch(q)
        e = potential(q)
    force = -g.gradient(e, q)
    loss = tf.reduce_sum((force - 1.0) ** 2)
grads = outer.gradient(loss, [slope, offset])
"""
FIELD = """
import tensorflow as tf

body = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="softplus"), tf.keras.layers.Dense(16)])
field = tf.keras.Sequential([tf.keras.Input((3,)), body, tf.keras.layers.Dense(1)])
points = tf.random.uniform((32, 3))
with tf.GradientTape() as tape:
    with tf.GradientTape() as tape2:
        tape2.watch(points)
        phi = field(points)
    grad_phi = tape2.gradient(phi, points)
    residual = tf.reduce_sum(grad_phi, axis=1) - 1.0
    loss = tf.reduce_mean(tf.square(residual))
grads = tape.gradient(loss, field.trainable_variables)
"""
UNIT = """
import tensorflow as tf

u = tf.keras.layers.Dense(1)
x = tf.random.normal((8, 2))
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = 3.0 * u(x) + 1.0
    dy = inner.gradient(y, x)
    loss = tf.reduce_sum(dy ** 2)
grads = outer.gradient(loss, u.trainable_variables)
"""
HESSIAN = """
import tensorflow as tf

a, b = tf.Variable(5.0), tf.Variable(3.0)


def f(p, r):
    return 3 * p ** 2 + 2 * p * r


with tf.GradientTape(persistent=True) as second:
    with tf.GradientTape() as first:
        z = f(a, b)
    slopes = first.gradient(z, [a, b])
grads = second.gradient(slopes[1], [a, b])
"""


def test_a_variable_an_inner_derivative_does_not_read_gets_gt017_on_the_request():
    for source, line, said in ((POTENTIAL, 18, "offset is in `e` only in a term that does not depend"),
                               (FIELD, 13, "the bias of field's last layer"), (UNIT, 11, "the bias of u (in"),
                               (HESSIAN, 14, "`z` is linear in b")):
        found = lint(_src(source))
        assert [(f.line, f.rule) for f in found] == [(line, "GT017")], found
        assert said in found[0].message and " is None " in found[0].message


def test_a_multiplied_term_an_activation_last_no_bias_or_a_data_term_is_silent():
    assert _found(POTENTIAL.replace("+ offset\n", "+ offset * q\n")) == []
    assert _found(POTENTIAL.replace("loss = tf.reduce_sum((force - 1.0) ** 2)",
                                    "loss = tf.reduce_sum((force - 1.0) ** 2) + tf.reduce_sum(e ** 2)")) == []
    assert _found(FIELD.replace("tf.keras.layers.Dense(1)])", "tf.keras.layers.Dense(1, activation=\"tanh\")])")) == []
    assert _found(FIELD.replace("tf.keras.layers.Dense(1)])", "tf.keras.layers.Dense(1, use_bias=False)])")) == []
    assert _found(FIELD.replace("phi = field(points)", "phi = tf.exp(field(points))")) == []
    assert _found(FIELD.replace("loss = tf.reduce_mean(tf.square(residual))",
                                "loss = tf.reduce_mean(tf.square(residual)) + tf.reduce_mean(phi ** 2)")) == []
    assert _found(HESSIAN.replace("slopes[1]", "slopes[0]")) == []
    assert _found(UNIT.replace("u = tf.keras.layers.Dense(1)", "from nets import u")) == []


VARIANTS = {"chain": CHAIN, "closure": CLOSURE, "template": TEMPLATE, "affine": AFFINE, "potential": POTENTIAL,
            "field": FIELD, "unit": UNIT, "hessian": HESSIAN}


def test_the_variants_fail_under_tensorflow_as_their_messages_say(tf_snippets):
    sources = {name: _src(src).replace("grads = ", "result = ") for name, src in VARIANTS.items()}
    verdicts = {name: run["verdict"] for name, run in tf_snippets.run(sources).items()}
    empty = ("chain", "closure", "template", "affine")
    assert verdicts == {name: "empty" if name in empty else "none" for name in VARIANTS}, verdicts


# ---------------------------------------------------------------------------- lint49's notes: a KerasTensor reached
# another way (an item of model.inputs, unpacked, in a list, inside a tf.function), and every weight build read named

FIRST_INPUT = """
import tensorflow as tf

inp = tf.keras.Input((4,))
scorer = tf.keras.Model(inp, tf.keras.layers.Dense(1)(inp))
batch = tf.random.normal((3, 4))
with tf.GradientTape() as tape:
    anchor = tf.convert_to_tensor(scorer.inputs[0])
    cost = tf.reduce_mean(scorer(batch) ** 2) + tf.reduce_sum(anchor)
grads = tape.gradient(cost, scorer.trainable_variables)
"""
UNPACKED = FIRST_INPUT.replace("anchor = tf.convert_to_tensor(scorer.inputs[0])", "anchor, = scorer.inputs").replace(
    "tf.reduce_sum(anchor)", "tf.reduce_sum(tf.square(anchor))")
LISTED = FIRST_INPUT.replace("anchor = tf.convert_to_tensor(scorer.inputs[0])",
                             "anchor = tf.concat([batch, scorer.input], axis=0)")
TRACED = """
import tensorflow as tf

inp = tf.keras.Input((4,))
scorer = tf.keras.Model(inp, tf.keras.layers.Dense(1)(inp))


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        anchor = tf.stop_gradient(scorer.output)
        cost = tf.reduce_mean((scorer(x) - anchor) ** 2)
    return tape.gradient(cost, scorer.trainable_variables)


grads = train_step(tf.random.normal((3, 4)))
"""


def test_a_keras_tensor_reached_through_the_list_or_in_a_tf_function_raises_gt019_there():
    for source, line in ((FIRST_INPUT, 7), (UNPACKED, 8), (LISTED, 7), (TRACED, 10)):
        found = lint(_src(source))
        assert (line, "GT019") in [(f.line, f.rule) for f in found], found
        said = next(f.message for f in found if f.line == line)
        assert "raises ValueError" in said and "the program stops here" in said
    assert "scorer.inputs[0]" in lint(_src(UNPACKED))[0].message
    assert "when the tf.function is traced" in lint(_src(TRACED))[0].message


def test_the_data_a_keras_op_or_a_new_model_from_the_keras_tensors_is_silent():
    assert _found(FIRST_INPUT.replace("tf.convert_to_tensor(scorer.inputs[0])", "tf.convert_to_tensor(batch)")) == []
    assert _found(FIRST_INPUT.replace("tf.convert_to_tensor(scorer.inputs[0])",
                                      "tf.keras.ops.sum(scorer.inputs[0]) * 0.0")) == []
    assert _found(TRACED.replace("tf.stop_gradient(scorer.output)", "tf.stop_gradient(scorer(x))")) == []


BUILT_TWICE = """
import tensorflow as tf


class ScaledDense(tf.keras.layers.Dense):
    def build(self, input_shape):
        super().build(input_shape)
        self.gain = self.add_weight(name="gain", shape=(self.units,), initializer="ones")
        self.scaled = self.kernel * self.gain

    def call(self, inputs):
        return tf.matmul(inputs, self.scaled) + self.bias


layer = ScaledDense(2)
x = tf.random.normal((4, 3))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x) ** 2)
grads = tape.gradient(loss, layer.trainable_variables)
"""


def test_a_value_build_computes_from_two_weights_names_both_where_and_on_the_request():
    found = lint(_src(BUILT_TWICE))
    assert [(f.line, f.rule) for f in found] == [(8, "GT007"), (19, "GT007")]
    for finding in found:
        assert "self.gain" in finding.message and "kernel" in finding.message
        assert "with respect to each" in finding.message or "for each of" in finding.message


RAISING = {"first_input": FIRST_INPUT, "unpacked": UNPACKED, "listed": LISTED, "traced": TRACED}


def test_the_keras_tensor_variants_raise_value_error_where_the_messages_say(tf_snippets):
    sources = {name: _src(src).replace("grads = ", "result = ") for name, src in {**RAISING,
                                                                                "built_twice": BUILT_TWICE}.items()}
    runs = tf_snippets.run(sources)
    crashes = {n: tuple(runs[n]["crash"] or ()) for n in RAISING}
    assert crashes == {"first_input": (7, "ValueError"), "unpacked": (8, "ValueError"), "listed": (7, "ValueError"),
                       "traced": (15, "ValueError")}, runs            # traced: raised out of train_step's call
    assert runs["built_twice"]["verdict"] == "none"


# ---------------------------------------------------------------------------- the next class of the misses: a layer of
# a functional model called on its own while all the model's variables are asked for (so51257037)

ENCODER_ONLY = """
import tensorflow as tf


def build(width):
    encode = tf.keras.layers.Dense(width, activation="tanh", name="encode")
    decode = tf.keras.layers.Dense(3, name="decode")
    source = tf.keras.Input((3,))
    return encode, tf.keras.Model(source, decode(encode(source)))


encode, autoencoder = build(2)
batch = tf.random.normal((6, 3))
with tf.GradientTape() as tape:
    codes = encode(batch)
    sparsity = tf.reduce_sum(tf.abs(codes))
grads = tape.gradient(sparsity, autoencoder.trainable_variables)
"""


def test_a_layer_of_a_functional_model_called_on_its_own_leaves_the_others_none_gt017():
    found = lint(_src(ENCODER_ONLY))
    assert [(f.line, f.rule) for f in found] == [(16, "GT017")], found
    assert "other layers of autoencoder (decode" in found[0].message and " is None " in found[0].message


def test_the_model_called_too_its_own_layer_asked_for_or_an_unseen_layer_is_silent():
    assert _found(ENCODER_ONLY.replace("tf.reduce_sum(tf.abs(codes))",
                                       "tf.reduce_sum(tf.abs(codes)) + tf.reduce_sum(autoencoder(batch))")) == []
    assert _found(ENCODER_ONLY.replace("autoencoder.trainable_variables", "encode.trainable_variables")) == []
    unseen = ENCODER_ONLY.replace('decode = tf.keras.layers.Dense(3, name="decode")', "decode = make_decoder()")
    assert _found(unseen) == []


def test_the_layer_called_apart_gives_none_for_the_other_layers_under_tensorflow(tf_snippets):
    runs = tf_snippets.run({"encoder_only": _src(ENCODER_ONLY).replace("grads = ", "result = ")})
    assert runs["encoder_only"]["verdict"] == "none"
