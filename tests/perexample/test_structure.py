"""What model.fit accepts, per example: several inputs or outputs, loss names, a loss per output with weights, the
compiled loss. Every form against the loop Keras itself defines: for each example ``i``, one GradientTape around
``model.compute_loss(y=y[i:i+1], y_pred=model(x[i:i+1]))`` of the model compiled with that loss."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import GradlibError, per_example_gradients, scan

B = 5
CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def two_inputs(dict_inputs=False):
    """A functional model taking 'age' (3 features) and 'text' (4 token ids: an Embedding)."""
    keras.utils.set_random_seed(4)
    age, text = keras.Input((3,), name="age"), keras.Input((4,), name="text", dtype="int32")
    h = keras.layers.Concatenate()([keras.layers.Dense(5, activation="tanh")(age),
                                    keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(6, 3)(text))])
    out = keras.layers.Dense(3)(h)
    return keras.Model({"age": age, "text": text} if dict_inputs else [age, text], out)


def two_outputs(dict_outputs=False):
    """A functional model with a classifier head 'cls' (3 logits) and a regression head 'reg' (2 values)."""
    keras.utils.set_random_seed(5)
    inp = keras.Input((4,))
    h = keras.layers.Dense(6, activation="tanh")(inp)
    cls, reg = keras.layers.Dense(3, name="cls")(h), keras.layers.Dense(2, name="reg")(h)
    return keras.Model(inp, {"cls": cls, "reg": reg} if dict_outputs else [cls, reg])


def batch(seed=0):
    rng = np.random.default_rng(seed)
    return {"age": rng.normal(size=(B, 3)).astype("float32"), "text": rng.integers(0, 6, (B, 4)).astype("int32"),
            "x": rng.normal(size=(B, 4)).astype("float32"), "cls": rng.integers(0, 3, B),
            "reg": rng.normal(size=(B, 2)).astype("float32")}


def rows(nest, i):
    return tf.nest.map_structure(lambda t: t[i:i + 1], nest)


def keras_loop(model, x, y, **compiled):
    """Losses and gradients from one tape per example around Keras' own loss of the model compiled with ``compiled``."""
    model.compile(**compiled)
    losses, grads = [], []
    for i in range(B):
        with tf.GradientTape() as tape:
            value = model.compute_loss(y=rows(y, i), y_pred=model(rows(x, i), training=False))
        g = tape.gradient(value, model.trainable_variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        grads.append([tf.convert_to_tensor(t).numpy() for t in g])
        losses.append(float(value))
    per_variable = [np.stack([g[k] for g in grads]) for k in range(len(grads[0]))]
    norms = np.sqrt(sum(np.square(g.reshape(B, -1)).sum(axis=1) for g in per_variable))
    return np.array(losses), norms, per_variable


def close(actual, expected, rtol=1e-4):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * max(float(np.abs(expected).max()), 1e-12))


def check(model, x, y, reference, **kwargs):
    losses, norms, grads = reference
    full = per_example_gradients(model, x, y, **kwargs)
    fast = per_example_gradients(model, x, y, norms_only=True, **kwargs)
    for result in (full, fast):
        close(result.losses, losses)
        close(result.norms, norms)
    for mine, theirs in zip(full.gradients, grads):
        close(mine, theirs)
    for mine, theirs in zip(fast.mean(), grads):
        close(mine, theirs.mean(axis=0))
    return full


@pytest.mark.parametrize("dict_inputs", [False, True], ids=["list_model", "dict_model"])
def test_two_inputs_as_a_list_a_tuple_or_a_dict_match_the_loop(dict_inputs):
    model, d = two_inputs(dict_inputs), batch()
    as_dict = {"age": d["age"], "text": d["text"]}
    reference = keras_loop(model, as_dict if dict_inputs else [d["age"], d["text"]], d["cls"], loss=CCE)
    forms = [as_dict] if dict_inputs else [[d["age"], d["text"]], (d["age"], d["text"]), as_dict]
    for x in forms:
        r = check(model, x, d["cls"], reference, loss=CCE)
        assert r.method == "layerwise"   # the Dense and Embedding rules ran on the two branches


@pytest.mark.parametrize("dict_outputs", [False, True], ids=["list_outputs", "dict_outputs"])
def test_two_outputs_with_a_loss_and_a_weight_per_output_match_the_loop(dict_outputs):
    model, d = two_outputs(dict_outputs), batch(1)
    losses = {"cls": CCE, "reg": "mean_squared_error"}
    weights = {"cls": 0.3, "reg": 2.0}
    reference = keras_loop(model, d["x"], {"cls": d["cls"], "reg": d["reg"]}, loss=losses, loss_weights=weights)
    check(model, d["x"], {"cls": d["cls"], "reg": d["reg"]}, reference, loss=losses, loss_weights=weights)
    check(model, d["x"], [d["cls"], d["reg"]], reference, loss=[CCE, "mse"], loss_weights=[0.3, 2.0])
    # the weights matter: without them, another answer
    plain = per_example_gradients(model, d["x"], [d["cls"], d["reg"]], loss=[CCE, "mse"], norms_only=True)
    assert not np.allclose(plain.losses, reference[0], rtol=1e-2)


def test_dict_outputs_keyed_otherwise_than_their_layers_are_matched_by_their_keys_as_keras_does():
    """Found by hunt 42: keras.Model(x, {"z": ..., "a": ...}) with unnamed layers was refused ("y['z'] is not one of
    the outputs ('dense', 'dense_1')") where model.fit takes y, loss and loss_weights keyed by the dict's keys."""
    keras.utils.set_random_seed(6)
    inp = keras.Input((4,))
    h = keras.layers.Dense(6, activation="tanh")(inp)
    model = keras.Model(inp, {"z": keras.layers.Dense(2)(h), "a": keras.layers.Dense(3)(h)})
    d = batch(3)
    y = {"z": d["reg"], "a": d["cls"]}
    losses, weights = {"z": "mean_squared_error", "a": CCE}, {"z": 2.0, "a": 0.3}
    reference = keras_loop(model, d["x"], y, loss=losses, loss_weights=weights)
    check(model, d["x"], y, reference, loss=losses, loss_weights=weights)
    check(model, d["x"], y, reference)   # the compiled loss (keras_loop compiled it)
    check(model, d["x"], [d["cls"], d["reg"]], reference, loss=[CCE, "mse"], loss_weights=[0.3, 2.0])   # flattened


def test_one_loss_for_every_output_and_an_output_without_a_loss_match_the_loop():
    model, d = two_outputs(), batch(2)
    targets = [d["reg"][:, :1] * np.ones((1, 3), np.float32), d["reg"]]
    reference = keras_loop(model, d["x"], targets, loss="mse")
    check(model, d["x"], targets, reference, loss="mse")
    only_reg = keras_loop(model, d["x"], targets, loss=["mse", "mse"], loss_weights=[0.0, 1.0])   # Keras fails on None
    check(model, d["x"], targets, only_reg, loss=[None, "mse"])


@pytest.mark.parametrize("name", ["sparse_categorical_crossentropy", "SparseCategoricalCrossentropy", "crossentropy"])
def test_a_loss_named_as_keras_takes_it_matches_the_loop(name):
    keras.utils.set_random_seed(6)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                              keras.layers.Dense(3, activation="softmax")])
    d = batch(3)
    check(model, d["x"], d["cls"], keras_loop(model, d["x"], d["cls"], loss=name), loss=name)


def test_crossentropy_by_shape_is_chosen_per_output_as_keras_chooses_it_also_in_scan():
    """'crossentropy': sparse for integer labels of a softmax, binary for a sigmoid, categorical for one-hot."""
    keras.utils.set_random_seed(10)
    inp = keras.Input((4,))
    h = keras.layers.Dense(6, activation="tanh")(inp)
    heads = [keras.layers.Dense(3, activation="softmax"), keras.layers.Dense(1, activation="sigmoid"),
             keras.layers.Dense(3, activation="softmax")]
    model = keras.Model(inp, [head(h) for head in heads])
    d = batch(9)
    y = [d["cls"], (d["reg"][:, :1] > 0).astype("float32"), np.eye(3, dtype="float32")[d["cls"]]]
    reference = keras_loop(model, d["x"], y, loss=["crossentropy"] * 3, loss_weights=[1.0, 2.0, 0.5])  # Keras: a list
    r = per_example_gradients(model, d["x"], y, loss="crossentropy", loss_weights=[1.0, 2.0, 0.5], norms_only=True)
    close(r.losses, reference[0])
    close(r.norms, reference[1])
    scanned = gradlib.scan(model, (d["x"], y), loss="crossentropy", loss_weights=[1.0, 2.0, 0.5], batch_size=4)
    close(scanned.norms, reference[1])


def test_mse_by_name_squeezes_the_targets_as_keras_does():
    """``y`` of shape (B,) for an output (B, 1): Keras' wrapper squeezes, so each example's loss is its own."""
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    d = batch(4)
    y = d["reg"][:, 0]
    check(model, d["x"], y, keras_loop(model, d["x"], y, loss="mse"), loss="mse")
    # one output, one weight: Keras scales the loss by it
    weighted = keras_loop(model, d["x"], y, loss="mse", loss_weights=2.5)
    r = per_example_gradients(model, d["x"], y, loss="mse", loss_weights=2.5, norms_only=True)
    close(r.losses, weighted[0])
    close(r.norms, weighted[1])


def test_loss_none_takes_the_compiled_loss_and_weights():
    model, d = two_outputs(True), batch(5)
    y = {"cls": d["cls"], "reg": d["reg"]}
    reference = keras_loop(model, d["x"], y, loss={"cls": CCE, "reg": "mae"}, loss_weights={"cls": 1.5, "reg": 0.25})
    check(model, d["x"], y, reference)   # keras_loop compiled the model: loss=None reads it
    assert gradlib.scan(model, (d["x"], y), batch_size=2).losses.tolist() == pytest.approx(reference[0].tolist(),
                                                                                          rel=1e-4)


class DictHeads(keras.Model):
    """A subclassed model (no declared inputs or outputs) taking and returning dicts."""

    def __init__(self):
        super().__init__()
        self.cls, self.reg = keras.layers.Dense(3), keras.layers.Dense(2)

    def call(self, x):
        return {"reg": self.reg(tf.concat([x["age"], x["x"]], axis=1)), "cls": self.cls(x["age"])}


def test_a_subclassed_model_with_dict_outputs_matches_the_loop_and_refuses_a_list_of_losses():
    keras.utils.set_random_seed(9)
    model, d = DictHeads(), batch(8)
    x, y = {"age": d["age"], "x": d["x"]}, {"reg": d["reg"], "cls": d["cls"]}
    model(x)
    losses = {"reg": "mse", "cls": CCE}
    reference = keras_loop(model, x, y, loss=losses, loss_weights={"reg": 3.0, "cls": 0.5})
    r = per_example_gradients(model, x, y, loss=losses, loss_weights={"reg": 3.0, "cls": 0.5}, norms_only=True)
    close(r.losses, reference[0])
    close(r.norms, reference[1])
    with pytest.raises(GradlibError, match=r"declares no output order .* give loss \(and loss_weights\) as a dict"):
        per_example_gradients(model, x, y, loss=[CCE, "mse"])
    with pytest.raises(GradlibError, match=r"cannot choose the crossentropy for loss='ce': .* name it"):
        per_example_gradients(model, x, y, loss={"reg": "mse", "cls": "ce"})


def test_loss_none_on_a_model_never_compiled_is_refused_with_the_fix():
    d = batch()
    with pytest.raises(GradlibError, match=r"needs loss=: the model was not compiled with a loss.*or compile the "
                                           "model"):
        per_example_gradients(two_outputs(), d["x"], [d["cls"], d["reg"]])


@pytest.mark.parametrize("x, match", [
    (lambda d: d["age"], r"the model has 2 inputs \('age', 'text'\), but x is one array of shape \(5, 3\); give x "
                         "as a list of 2 arrays in that order, or a dict keyed by input name"),
    (lambda d: [d["age"], d["text"], d["age"]], r"has 2 inputs .* but x is a list of 3 arrays"),
    (lambda d: {"age": d["age"], "txt": d["text"]}, r"x\['txt'\] is not one of them; .* dict keyed by input name"),
    (lambda d: {"age": d["age"]}, r"x has no 'text'"),
    (lambda d: {"age": d["age"], "text": d["text"][:4]},
     r"5 examples in x\['age'\] but 4 in x\['text'\] \(shape \(4, 4\)\); every input and target needs one row"),
    (lambda d: [d["age"], d["text"].astype(str)], r"needs x\[1\] of numbers .* got string of shape \(5, 4\); encode"),
    (lambda d: [d["age"], [[1, 2], [3]]], r"could not turn x\[1\] into a tensor.*Give x\[1\] as an array"),
    (lambda d: [d["age"], tf.ragged.constant([[1.0, 2.0]] * 4 + [[3.0]])],   # hunt 48: "... has no len()"
     r"^per_example_gradients takes x\[1\] as a dense array, and x\[1\] is a tf.RaggedTensor \(rows of different "
     r"lengths, shape \(5, None\)\). Pad its rows to one length \(x\[1\].to_tensor\(\)\)"),
    (lambda d: [d["age"], tf.sparse.from_dense(d["text"])],
     r"^per_example_gradients takes x\[1\] as a dense array, and x\[1\] is a tf.SparseTensor of dense shape "
     r"\(5, 4\). Give tf.sparse.to_dense\(x\[1\]\)"),
])
def test_a_wrong_structure_of_x_names_the_input_its_shape_and_the_fix(x, match):
    d = batch()
    with pytest.raises(GradlibError, match=match):
        per_example_gradients(two_inputs(), x(d), d["cls"], loss=CCE)


@pytest.mark.parametrize("kwargs, match", [
    (dict(y=lambda d: d["cls"], loss=[CCE, "mse"]), r"the model has 2 outputs with a loss \('cls', 'reg'\), but y is "
                                                    r"one array of shape \(5,\); give y as a list"),
    (dict(y=lambda d: [d["cls"], d["reg"]], loss=[CCE]), r"loss as a list of 1, but the model has 2 output\(s\) "
                                                         r"\('cls', 'reg'\)"),
    (dict(y=lambda d: [d["cls"], d["reg"]], loss={"cls": CCE, "regr": "mse"}),
     r"loss\['regr'\], but the model's outputs are named 'cls', 'reg'"),
    (dict(y=lambda d: [d["cls"], d["reg"]], loss=[CCE, "mse"], loss_weights=0.5),
     r"loss_weights=0.5 for a model with 2 outputs .* one weight per output"),
    (dict(y=lambda d: [d["cls"], d["reg"]], loss=[CCE, "mse"], loss_weights=[1.0, "2"]),
     r"loss_weights of finite numbers, got '2'"),
    (dict(y=lambda d: {"cls": d["cls"]}, loss=[CCE, "mse"]), r"y has no part for the output 'reg'"),
    (dict(y=lambda d: [d["cls"], d["reg"]], loss=[None, None]), r"no loss for any output"),
])
def test_a_wrong_loss_or_target_structure_is_refused_with_the_fix(kwargs, match):
    d = batch()
    y = kwargs.pop("y")(d)
    with pytest.raises(GradlibError, match=match):
        per_example_gradients(two_outputs(), d["x"], y, **kwargs)


def test_a_dict_data_set_is_scanned_as_the_loop_gives_it():
    model, d = two_inputs(True), batch(6)
    x = {"age": d["age"], "text": d["text"]}
    losses, norms, _ = keras_loop(model, x, d["cls"], loss=CCE)
    pipeline = tf.data.Dataset.from_tensor_slices((x, d["cls"]))   # what a Keras input pipeline yields, unbatched
    for data in (pipeline, (x, d["cls"])):
        r = gradlib.scan(model, data, loss=CCE, batch_size=2)   # 5 examples: a padded last batch
        close(r.losses, losses)
        close(r.norms, norms)
    with pytest.raises(GradlibError, match=r"its x\['age'\] has shape \(None, 3\) for a model that takes \(None, 3\): "
                                           "it looks batched already"):
        gradlib.scan(model, pipeline.batch(2), loss=CCE)


def test_a_tuple_of_inputs_is_scanned_and_a_triple_is_refused():
    model, d = two_inputs(), batch(7)
    _, norms, _ = keras_loop(model, [d["age"], d["text"]], d["cls"], loss=CCE)
    pipeline = tf.data.Dataset.from_tensor_slices(((d["age"], d["text"]), d["cls"]))
    for data in (((d["age"], d["text"]), d["cls"]), pipeline):
        close(gradlib.scan(model, data, loss=CCE, batch_size=3).norms, norms)
    with pytest.raises(GradlibError, match=r"got a tuple of 3 items; .* give x as a list or dict of arrays"):
        gradlib.scan(model, (d["age"], d["text"], d["cls"]), loss=CCE)
    with pytest.raises(GradlibError, match=r"three parts .* sample weights are not supported"):
        gradlib.scan(model, pipeline.map(lambda x, y: (x, y, 1.0)), loss=CCE)
    with pytest.raises(gradlib.InputError, match=r"5 examples in x\[0\] but 4 in x\[1\]"):
        gradlib.scan(model, ((d["age"], d["text"][:4]), d["cls"]), loss=CCE)


# ---------------------------------------------------------------- Pins (found by the sampled mutation run)


def test_one_target_for_a_subclassed_model_with_two_outputs_is_refused_also_with_a_loss_weight():
    # the model returns a dict of two outputs and declares none; y is one array. With a loss weight the loss goes
    # through the per-output path, whose "only output" is the model's output as it is: a loss of the first output
    # alone would be a wrong number (gradlib._perexample._structure.x_pick__mutmut_5 computed one)
    keras.utils.set_random_seed(9)
    model, d = DictHeads(), batch(8)
    x = {"age": d["age"], "x": d["x"]}
    y = np.zeros_like(model(x)["cls"])   # the shape of one output, the first in tf.nest's order ("cls" < "reg")
    for weights in (None, 2.0):
        with pytest.raises(GradlibError, match=r"could not run the model and loss on a batch"):
            per_example_gradients(model, x, y, loss="mse", loss_weights=weights)


def test_a_dict_of_losses_for_a_one_output_model_must_name_its_output():
    # a key that is not the output's name, or a second key, is refused, never applied as the one loss
    # (gradlib._perexample._structure.x__per_output__mutmut_9 applied the first value)
    keras.utils.set_random_seed(9)
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(2, name="head")(inputs))
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 2), "float32")
    # the message names the one output (it said "(no names: give a list)", and blamed 'head' itself below)
    with pytest.raises(GradlibError, match=r"got loss\['wrong'\], but the model's outputs are named 'head'; key"):
        per_example_gradients(model, x, y, loss={"wrong": "mse"})
    with pytest.raises(GradlibError, match=r"got loss\['extra'\], but the model's outputs are named 'head'; key"):
        per_example_gradients(model, x, y, loss={"head": "mse", "extra": "mae"})
    named = per_example_gradients(model, x, y, loss={"head": "mse"})
    close(named.losses, per_example_gradients(model, x, y, loss="mse").losses)


@pytest.mark.parametrize("kind", ["ragged", "sparse"])
def test_scan_names_a_ragged_or_sparse_x_and_the_dense_form(kind):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    x = tf.ragged.constant([[1.0, 2.0], [3.0]]) if kind == "ragged" else tf.sparse.from_dense([[1.0, 0.0], [0.0, 2.0]])
    what = r"tf.RaggedTensor \(rows" if kind == "ragged" else r"tf.SparseTensor of dense shape \(2, 2\)"
    with pytest.raises(GradlibError, match=rf"^gradlib.scan takes x as a dense array, and x is a {what}"):
        scan(model, (x, np.array([0, 1])), loss=CCE, batch_size=2)
