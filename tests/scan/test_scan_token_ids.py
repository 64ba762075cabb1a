"""A token id outside an Embedding's table is refused by gradlib.scan as by per_example_gradients: the id, the
data set's example and position, the layer's input_dim. On CPU TensorFlow's gather failed in the compiled step
with a bare ``indices[3,0,1] = 7 is not in [0, 5)``; on GPU it gathers zeros, and the scan returned a loss and a
norm for an input the model cannot read."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib

LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def _model():
    keras.utils.set_random_seed(5)
    return keras.Sequential([keras.Input((3,), dtype="int32"), keras.layers.Embedding(5, 2, name="tokens"),
                             keras.layers.Flatten(), keras.layers.Dense(2)])


def _loop(model, x, y):
    """Each example alone, under its own tape: its loss and gradient norm."""
    losses, norms = [], []
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            value = LOSS(y[i:i + 1], model(x[i:i + 1]))
        grads = tape.gradient(value, model.trainable_variables)
        losses.append(float(value))
        norms.append(float(np.sqrt(sum(np.sum(np.square(tf.convert_to_tensor(g))) for g in grads))))
    return np.array(losses), np.array(norms)


@pytest.mark.parametrize("as_dataset", [False, True], ids=["arrays", "dataset"])
def test_an_id_past_the_probe_names_x_the_example_and_the_layer(as_dataset):
    x = np.array([[0, 1, 2]] * 7 + [[3, 7, 1]], np.int32)   # example 7, in the second batch
    y = np.array([0, 1] * 4)
    data = tf.data.Dataset.from_tensor_slices((x, y)) if as_dataset else (x, y)
    with pytest.raises(gradlib.InputError, match=r"^gradlib\.scan: x holds the token id 7 at x\[7, 1\] \(1 id\(s\) out "
                                                 r"of range in this batch of 4 examples\), outside the table of the "
                                                 r"Embedding layer 'tokens': its input_dim is 5, .* input_dim at "
                                                 r"least 8"):
        gradlib.scan(_model(), data, loss=LOSS, batch_size=4)


def test_a_negative_id_past_the_end_is_refused_with_the_input_dim_that_would_take_it():
    x = np.array([[0, 1, 2]] * 5 + [[3, -7, 1]], np.int32)
    with pytest.raises(gradlib.InputError, match=r"token id -7 at x\[5, 1\] .* input_dim at least 7 \(so that -7 "
                                                 r"counts from the end"):
        gradlib.scan(_model(), (x, np.zeros(6, np.int32)), loss=LOSS, batch_size=4)


def test_an_id_in_the_first_examples_is_refused_before_the_model_runs():
    x = np.array([[0, 9, 2], [1, 1, 1]], np.int32)
    with pytest.raises(gradlib.InputError, match=r"^gradlib\.scan: x holds the token id 9 at x\[0, 1\] \(1 id\(s\) "
                                                 r"out of range in the data set's first 3 examples\)"):
        gradlib.scan(_model(), (x, np.zeros(2, np.int32)), loss=LOSS, batch_size=4)


def test_in_a_dict_of_inputs_the_message_names_the_input_and_the_example():
    tok, feat = keras.Input((3,), dtype="int32", name="tok"), keras.Input((2,), name="feat")
    flat = keras.layers.Flatten()(keras.layers.Embedding(9, 2, name="words")(tok))
    model = keras.Model([tok, feat], keras.layers.Dense(2)(keras.layers.Concatenate()([flat, feat])))
    x = {"feat": np.ones((6, 2), np.float32), "tok": np.array([[1, 2, 3]] * 4 + [[4, 1, 1], [1, 1, 12]], np.int32)}
    data = tf.data.Dataset.from_tensor_slices((x, np.zeros(6, np.int32)))
    with pytest.raises(gradlib.InputError, match=r"x\['tok'\] holds the token id 12 at x\['tok'\]\[5, 2\] .* layer "
                                                 r"'words': its input_dim is 9"):
        gradlib.scan(model, data, loss=LOSS, batch_size=3)


def test_ids_in_the_table_scan_as_the_per_example_loop_computes_them():
    """0, 4 and -5 (Keras' first row counted from the end) are in the table: the check leaves them as they are."""
    model = _model()
    x = np.array([[0, 4, -5], [4, 4, 0], [1, 2, 3], [-1, 0, 2], [3, 3, 3]], np.int32)
    y = np.array([1, 0, 1, 0, 1])
    losses, norms = _loop(model, x, y)
    for data in ((x, y), tf.data.Dataset.from_tensor_slices((x, y))):
        r = gradlib.scan(model, data, loss=LOSS, batch_size=2)
        np.testing.assert_allclose(r.losses, losses, rtol=1e-5)
        np.testing.assert_allclose(r.norms, norms, rtol=1e-5)


def test_an_embedding_behind_another_layer_gets_x_named_from_tensorflows_error():
    tok = keras.Input((3,), dtype="int32")
    out = keras.layers.Dense(2)(keras.layers.Flatten()(keras.layers.Embedding(5, 2)(keras.layers.Identity()(tok))))
    x = np.array([[0, 1, 2]] * 7 + [[3, 7, 1]], np.int32)
    with pytest.raises(gradlib.GradlibError, match=r"is not in \[0, 5\)\. Check that x holds valid inputs \(token ids "
                                                   r"below each Embedding's input_dim"):
        gradlib.scan(keras.Model(tok, out), (x, np.zeros(8, np.int32)), loss=LOSS, batch_size=4)


class GatherAsOnGPU(keras.layers.Embedding):
    """An Embedding whose lookup behaves as TensorFlow's gather does on GPU: an id outside the table gives zeros."""

    def call(self, inputs):
        ids = tf.cast(inputs, "int32")
        inside = (ids >= 0) & (ids < self.input_dim)
        rows = tf.gather(self.embeddings, tf.where(inside, ids, 0))
        return rows * tf.cast(inside, rows.dtype)[..., None]


def test_an_id_a_gpu_would_read_as_zeros_is_refused_not_scanned():
    """The old scan returned a loss and a norm for example 5 here, computed from a row of zeros."""
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((3,), dtype="int32"), GatherAsOnGPU(5, 2, name="tokens"),
                              keras.layers.Flatten(), keras.layers.Dense(2)])
    x = np.array([[0, 1, 2]] * 5 + [[3, 5, 1]], np.int32)
    with pytest.raises(gradlib.InputError, match=r"token id 5 at x\[5, 1\] .* layer 'tokens': its input_dim is 5"):
        gradlib.scan(model, (x, np.zeros(6, np.int32)), loss=LOSS, batch_size=4)


def test_an_input_of_free_length_names_the_position_within_the_example():
    """An Embedding on ``keras.Input((None,))``: the example's shape is known only from the batch."""
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((None,), dtype="int32"), keras.layers.Embedding(5, 2, name="tokens"),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(2)])
    x = np.array([[0, 1, 2, 3]] * 4 + [[3, 1, 1, 6]], np.int32)
    with pytest.raises(gradlib.InputError, match=r"token id 6 at x\[4, 3\] "):
        gradlib.scan(model, (x, np.zeros(5, np.int32)), loss=LOSS, batch_size=2)


def test_a_label_past_the_classes_is_blamed_on_y():
    """TensorFlow's own message from the compiled step (on CPU) now says what to check, as per_example_gradients'."""
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    x, y = np.ones((8, 2), np.float32), np.array([0, 1, 2, 0, 1, 2, 0, 5])
    with pytest.raises(gradlib.GradlibError, match=r"label value of 5 .*Check that y holds labels below the number "
                                                   r"of classes"):
        gradlib.scan(model, (x, y), loss=LOSS, batch_size=4)
