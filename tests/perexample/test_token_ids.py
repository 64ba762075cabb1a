"""A token id outside an Embedding's table is a fault of x, and per_example_gradients says so: the bad id, where it
is and the layer's input_dim (it said "Check that y holds the targets", blaming the labels, when the bad id sat
past the examples its eager probe runs)."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import gradlib
from gradlib import per_example_gradients

LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def _model():
    keras.utils.set_random_seed(5)
    return keras.Sequential([keras.Input((3,), dtype="int32"), keras.layers.Embedding(5, 2, name="tokens"),
                             keras.layers.Flatten(), keras.layers.Dense(2)])


def test_a_token_id_at_input_dim_names_x_the_id_and_the_layer():
    x = np.array([[0, 1, 2]] * 7 + [[3, 7, 1]], np.int32)   # the bad id in the last example, past the eager probe
    with pytest.raises(gradlib.InputError, match=r"per_example_gradients: x holds the token id 7 at x\[7, 1\] \(1 "
                                                 r"id\(s\) out of range in all\), outside the table of the Embedding "
                                                 r"layer 'tokens': its input_dim is 5, so ids must be 0 \.\. 4 .*"
                                                 r"input_dim at least 8") as info:
        per_example_gradients(_model(), x, np.array([0, 1] * 4), loss=LOSS)
    assert "holds the targets" not in str(info.value)


def test_the_first_id_of_the_table_and_the_last_pass_and_match_a_plain_loop():
    """The check refuses nothing in range: ids 0 and 4 (and -5, Keras' first row from the end) are computed, and the
    losses are those of a plain per-example loop."""
    model, x, y = _model(), np.array([[0, 4, -5], [4, 4, 0]], np.int32), np.array([1, 0])
    r = per_example_gradients(model, x, y, loss=LOSS)
    expected = [float(LOSS(y[i:i + 1], model(x[i:i + 1]))) for i in range(2)]
    np.testing.assert_allclose(r.losses, expected, rtol=1e-5)


def test_in_a_dict_of_inputs_the_message_names_the_input():
    tok, feat = keras.Input((3,), dtype="int32", name="tok"), keras.Input((2,), name="feat")
    out = keras.layers.Dense(2)(keras.layers.Concatenate()([keras.layers.Flatten()(keras.layers.Embedding(9, 2)(tok)),
                                                           feat]))
    model = keras.Model([tok, feat], out)
    x = {"tok": np.array([[1, 2, 3], [4, 9, 1]], np.int32), "feat": np.ones((2, 2), np.float32)}
    with pytest.raises(gradlib.InputError, match=r"x\['tok'\] holds the token id 9 at x\['tok'\]\[1, 1\] .* its "
                                                 r"input_dim is 9"):
        per_example_gradients(model, x, np.array([0, 1]), loss=LOSS)


def test_an_embedding_behind_another_layer_still_gets_x_named_not_only_the_labels():
    """An Embedding that reads a layer's output, not the input, is not checked beforehand; TensorFlow's gather error
    from the compiled batch then names x's token ids first."""
    tok = keras.Input((3,), dtype="int32")
    out = keras.layers.Dense(2)(keras.layers.Flatten()(keras.layers.Embedding(5, 2)(keras.layers.Identity()(tok))))
    x = np.array([[0, 1, 2]] * 7 + [[3, 7, 1]], np.int32)
    with pytest.raises(gradlib.InputError, match=r"is not in \[0, 5\)\. Check that x holds valid inputs \(token ids "
                                                 r"below each Embedding's input_dim"):
        per_example_gradients(keras.Model(tok, out), x, np.array([0, 1] * 4), loss=LOSS)
