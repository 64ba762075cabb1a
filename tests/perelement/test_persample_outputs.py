"""per_sample_gradients of a function of several outputs (a list or dict, as a multi-output Keras model returns them)
against an independent loop: each sample run alone through the model under its own tape, ``tape.jacobian`` of each
output, flattened and joined in order. Before, several outputs were stacked and refused: [(1, 1), (1, 3)] failed to
stack, and [(B, 1), (B, 1)] became (2, B, 1), 'not one row per sample'."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from gradlib import BatchMixingError, GradlibError, per_sample_gradients

X = np.random.default_rng(7).normal(size=(4, 3)).astype("float32")


def reference(fn, x):
    """``(y, J)``: each sample alone, one tape, ``tape.jacobian`` of each output; outputs joined in their order."""
    ys, jacs = [], []
    for b in range(len(x)):
        xb = tf.constant(x[b:b + 1])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xb)
            out = fn(xb)
        parts = list(out.values()) if isinstance(out, dict) else list(out)
        jacs.append(np.concatenate([tape.jacobian(p, xb).numpy().reshape(int(np.prod(p.shape[1:])), -1)
                                    for p in parts]))
        ys.append(np.concatenate([p.numpy().reshape(-1) for p in parts]))
    return np.stack(ys), np.stack(jacs)


def two_output_model():
    """A functional model with two heads of different widths: a price (1) and a kind (3 softmax)."""
    keras.utils.set_random_seed(3)
    i = keras.Input((3,))
    h = keras.layers.Dense(5, activation="tanh")(i)
    return keras.Model(i, [keras.layers.Dense(1, name="price")(h),
                           keras.layers.Dense(3, activation="softmax", name="kind")(h)])


#: (the weights of a two_output_model, its ``reference`` at X): one answer for the three methods held to it
_TWO_OUTPUT_REFERENCES: list = []


def _two_output_reference(model) -> tuple[np.ndarray, np.ndarray]:
    """``reference(model, X)`` of a ``two_output_model()``, computed once for the three methods' tests (8 eager
    tape.jacobian calls, each tracing its own loop), not once per method: each test builds the model afresh from
    the same seed, and the answer is computed again unless the weights are those it was computed with; read-only."""
    weights = model.get_weights()
    for known, answer in _TWO_OUTPUT_REFERENCES:
        if len(known) == len(weights) and all(np.array_equal(a, b) for a, b in zip(known, weights)):
            return answer
    answer = reference(model, X)
    for array in answer:
        array.flags.writeable = False
    _TWO_OUTPUT_REFERENCES.append((weights, answer))
    return answer


@pytest.mark.parametrize("method", ["auto", "while_loop", "loop"])
def test_a_model_of_two_outputs_of_different_widths_matches_a_loop_of_tapes(method):
    model = two_output_model()
    r = per_sample_gradients(model, X, method=method)
    y, jac = _two_output_reference(model)
    assert r.jacobian.shape == (4, 4, 3) and r.output_shape == (4,)
    np.testing.assert_allclose(r.jacobian, jac, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.y, y, rtol=1e-6, atol=1e-7)
    assert r.outputs == (("price", (1,)), ("kind", (3,)))
    assert r.row_labels == ("price[0]", "kind[0]", "kind[1]", "kind[2]")
    assert r.matrix(2).shape == (4, 3)
    # the price's row is the price head's own gradient, not the kind head's
    np.testing.assert_allclose(r.matrix(2)[0], jac[2, 0], rtol=1e-5, atol=1e-6)


def test_a_model_of_dict_outputs_joins_them_in_the_order_of_its_keys():
    keras.utils.set_random_seed(4)
    i = keras.Input((3,))
    h = keras.layers.Dense(4, activation="tanh")(i)
    model = keras.Model(i, {"z": keras.layers.Dense(2, name="zz")(h), "a": keras.layers.Dense(1, name="aa")(h)})
    keys = list(model(X[:1]).keys())
    r = per_sample_gradients(model, X)
    y, jac = reference(model, X)
    np.testing.assert_allclose(r.jacobian, jac, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.y, y, rtol=1e-6, atol=1e-7)
    assert [name for name, _ in r.outputs] == keys
    assert r.row_labels == tuple(f"{k}[{i}]" for k in keys for i in range({"z": 2, "a": 1}[k]))


def test_a_function_of_a_dict_and_of_a_tuple_of_outputs_with_shaped_outputs():
    fn = lambda x: {"sq": x[:, :, None] * x[:, None, :], "s": tf.sin(x[:, 1])}  # noqa: E731 - (B, 3, 3) and (B,)
    r = per_sample_gradients(fn, X)
    y, jac = reference(fn, X)
    np.testing.assert_allclose(r.jacobian, jac, rtol=1e-6, atol=1e-6)
    assert r.outputs == (("sq", (3, 3)), ("s", ()))
    assert r.row_labels[:2] == ("sq[0,0]", "sq[0,1]") and r.row_labels[-1] == "s"
    pair = lambda x: (x[:, :1] ** 2, 3.0 * x)  # noqa: E731
    r = per_sample_gradients(pair, X, method="loop")
    np.testing.assert_allclose(r.jacobian, reference(pair, X)[1], rtol=1e-6)
    assert r.row_labels == ("y0[0]", "y1[0]", "y1[1]", "y1[2]")


def test_two_inputs_and_two_outputs_name_their_columns_and_rows():
    keras.utils.set_random_seed(5)
    a, b = keras.Input((2,), name="a"), keras.Input((1,), name="b")
    h = keras.layers.Dense(4, activation="tanh")(keras.layers.Concatenate()([a, b]))
    model = keras.Model([a, b], [keras.layers.Dense(1, name="p")(h), keras.layers.Dense(2, name="q")(h)])
    r = per_sample_gradients(model, [X[:, :2], X[:, 2:]])
    _, jac = reference(lambda v: model([v[:, :2], v[:, 2:]]), X)
    np.testing.assert_allclose(r.jacobian, jac, rtol=1e-5, atol=1e-6)
    assert r.row_labels == ("p[0]", "q[0]", "q[1]") and r.col_labels == ("a[0]", "a[1]", "b[0]")


def test_a_model_of_one_output_is_unchanged():
    keras.utils.set_random_seed(6)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="tanh"),
                              keras.layers.Reshape((2, 1))])
    r = per_sample_gradients(model, X)
    assert r.outputs == () and r.jacobian.shape == (4, 2, 1, 3) and r.row_labels == ("y[0,0]", "y[1,0]")
    _, jac = reference(lambda v: [model(v)], X)
    np.testing.assert_allclose(r.jacobian.reshape(4, 2, 3), jac, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", ["auto", "loop"])
def test_an_output_that_does_not_keep_the_batch_axis_first_is_refused_by_name(method):
    transposed = lambda x: [x[:, :1], tf.transpose(x)]  # noqa: E731 - (B, 1) and (3, B)
    with pytest.raises(GradlibError, match=r"fn's output y\[1\] has shape \(3, 1\) on a batch of 1 sample: every "
                                           r"output must keep the batch axis first, one row per sample \(1 row, like "
                                           r"the batch\)\. per_sample_gradients joins .*: not transposed"):
        per_sample_gradients(transposed, X, method=method, check_independence=False)


@pytest.mark.parametrize("method, held", [("auto", "a batch of any size B"), ("pfor", "a batch of any size B"),
                                          ("loop", "a batch of 4 samples")])
def test_an_output_reduced_over_the_batch_is_refused_by_name(method, held):
    # one sample alone cannot tell: the mean of one row is a row; the batch can (1 row for 4 samples)
    reduced = lambda x: {"each": x * 2.0, "mean": tf.reduce_mean(x, axis=0, keepdims=True)}  # noqa: E731
    with pytest.raises(GradlibError, match=rf"fn's output y\['mean'\] has shape \(1, 3\) on {held}: every output must "
                                           r"keep the batch axis first"):
        per_sample_gradients(reduced, X, method=method)


@pytest.mark.parametrize("method", ["auto", "pfor", "while_loop", "loop"])
def test_a_single_output_reduced_over_the_batch_is_refused_by_name(method):
    """Found by hunt 42: one output, (1, 3) for 4 samples, met batch_jacobian's bare "Condition x == y did not hold"."""
    with pytest.raises(GradlibError, match=r"per_sample_gradients: the output of fn does not keep the batch axis first"
                                           r"|per_sample_gradients: fn's output has shape \(1, 3\) on a batch of 4 "
                                           r"samples: it must keep the batch axis first"):
        per_sample_gradients(lambda x: tf.reduce_mean(x, axis=0, keepdims=True), X, method=method)


@pytest.mark.parametrize("method", ["auto", "loop"])
def test_a_model_of_two_outputs_that_mixes_the_batch_is_still_refused(method):
    keras.utils.set_random_seed(8)
    i = keras.Input((3,))
    h = keras.layers.Dense(4)(i)
    model = keras.Model(i, [keras.layers.Dense(1)(h), keras.layers.BatchNormalization()(h)])
    with pytest.raises(BatchMixingError, match="the samples of the batch are not independent"):
        per_sample_gradients(lambda v: model(v, training=True), X, method=method)
    centered = lambda x: [x[:, :1], x - tf.reduce_mean(x, axis=0)]  # noqa: E731 - (B, 3): the batch's mean
    with pytest.raises(BatchMixingError, match="the samples of the batch are not independent"):
        per_sample_gradients(centered, X, method=method)
    np.testing.assert_allclose(per_sample_gradients(lambda v: model(v, training=False), X, method=method).jacobian,
                               reference(lambda v: model(v, training=False), X)[1], rtol=1e-5, atol=1e-6)


def test_no_outputs_and_an_output_of_integers_are_refused():
    with pytest.raises(GradlibError, match=r"fn returned list\(\) with no outputs; per_sample_gradients needs at "
                                           r"least one"):
        per_sample_gradients(lambda x: [], X)
    with pytest.raises(GradlibError, match=r"fn must return floating-point values; its output y\['n'\] is int32"):
        per_sample_gradients(lambda x: {"x": x, "n": tf.cast(x, tf.int32)}, X)


def test_a_model_s_one_named_output_labels_its_rows():
    """A functional model's single output was labelled ``y[0]`` though several outputs were labelled by name."""
    keras.utils.set_random_seed(9)
    i = keras.Input((3,))
    model = keras.Model(i, keras.layers.Dense(2, name="price")(keras.layers.Dense(4, activation="tanh")(i)))
    for method in ("auto", "loop"):
        r = per_sample_gradients(model, X, method=method)
        assert r.row_labels == ("price[0]", "price[1]") and r.output_name == "price" and r.outputs == ()
        np.testing.assert_allclose(r.jacobian, reference(lambda v: [model(v)], X)[1], rtol=1e-5, atol=1e-6)
