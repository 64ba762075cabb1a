"""per_example_gradients against an independent reference: one eager tape.gradient per example."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import _ghost, _perexample
from gradlib import BatchMixingError, GradlibError, per_example_gradients

B = 6
CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def cce_callable(y_true, y_pred):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(tf.cast(y_true, tf.int32), y_pred)


def dense_model():
    return keras.Sequential([keras.Input((5,)), keras.layers.Dense(7, activation="tanh"), keras.layers.Dense(3)])


def sequence_model():
    """Dense applied to every one of 4 steps (twice), LayerNormalization, pooling over time, a head."""
    return keras.Sequential([keras.Input((4, 3)), keras.layers.Dense(8, activation="tanh"),
                             keras.layers.LayerNormalization(), keras.layers.Dense(6, activation="relu"),
                             keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(3)])


def embedding_model():
    return keras.Sequential([keras.Input((6,), dtype="int32"), keras.layers.Embedding(5, 4),
                             keras.layers.Dense(5, activation="tanh"), keras.layers.GlobalAveragePooling1D(),
                             keras.layers.Dense(3)])


def conv2d_model():
    """Functional: Conv2D same and strided valid, BatchNormalization (inference), Dense."""
    inp = keras.Input((8, 8, 2))
    h = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inp)
    h = keras.layers.Conv2D(3, 3, strides=2, activation="tanh")(h)
    h = keras.layers.BatchNormalization()(h)
    return keras.Model(inp, keras.layers.Dense(3)(keras.layers.Flatten()(h)))


def conv1d_model():
    return keras.Sequential([keras.Input((9, 2)), keras.layers.Conv1D(4, 3, dilation_rate=2, padding="same",
                                                                      activation="tanh"),
                             keras.layers.Conv1D(3, 2, strides=2), keras.layers.GlobalMaxPooling1D(),
                             keras.layers.Dense(3)])


def gru_model():
    return keras.Sequential([keras.Input((4, 3)), keras.layers.GRU(5), keras.layers.Dense(3)])


MODELS = {"dense": dense_model, "sequence": sequence_model, "embedding": embedding_model, "conv2d": conv2d_model,
          "conv1d": conv1d_model, "gru": gru_model}


def data(name, size=B, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size)
    shapes = {"dense": (5,), "sequence": (4, 3), "conv2d": (8, 8, 2), "conv1d": (9, 2), "gru": (4, 3)}
    if name == "embedding":   # 6 tokens from a vocabulary of 5: every example repeats a token
        return rng.integers(0, 5, (size, 6)).astype("int32"), labels
    return rng.normal(size=(size,) + shapes[name]).astype("float32"), labels


def built(name):
    keras.utils.set_random_seed(7)
    return MODELS[name]()


def reference(model, x, y, loss):
    """Losses, norms and gradients from one eager tape.gradient per example (a batch of one)."""
    losses, grads = [], []
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            pred = model(x[i:i + 1], training=False)
            value = loss(y[i:i + 1], pred) if isinstance(loss, keras.losses.Loss) else loss(y[i:i + 1], pred)[0]
        g = tape.gradient(value, model.trainable_variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        grads.append([tf.convert_to_tensor(t).numpy() for t in g])
        losses.append(float(value))
    per_variable = [np.stack([g[k] for g in grads]) for k in range(len(grads[0]))]
    norms = np.sqrt(sum(np.square(g.reshape(len(x), -1)).sum(axis=1) for g in per_variable))
    return np.array(losses), norms, per_variable


def close(actual, expected, rtol=1e-4):
    """Within ``rtol`` relative to the scale of ``expected``."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * max(float(np.abs(expected).max()), 1e-12))


def batch_gradient(model, x, y, loss):
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(_perexample.loss_vector(loss, tf.constant(y), model(x, training=False)))
    return [tf.convert_to_tensor(g).numpy() for g in tape.gradient(total, model.trainable_variables)]


def check_against_the_loop(name, loss):
    """Losses, norms (both paths), gradients and clipped means against the loop; returns both results."""
    model = built(name)
    x, y = data(name)
    losses, norms, grads = reference(model, x, y, loss)
    full = per_example_gradients(model, x, y, loss=loss)
    fast = per_example_gradients(model, x, y, loss=loss, norms_only=True)
    for result in (full, fast):
        close(result.losses, losses)
        close(result.norms, norms)
    assert len(full.gradients) == len(model.trainable_variables) and fast.gradients is None
    for mine, theirs in zip(full.gradients, grads):
        close(mine, theirs)
    clip = float(np.median(norms))
    factors = np.minimum(1.0, clip / norms)
    for result in (full, fast):
        for mine, theirs in zip(result.clipped_mean(clip), grads):
            close(mine, np.tensordot(factors, theirs, axes=1) / B)
    return model, full, fast


@pytest.mark.parametrize("loss", [CCE, cce_callable], ids=["keras_loss", "callable"])
@pytest.mark.parametrize("name", ["dense", "sequence", "embedding", "conv2d", "conv1d"])
def test_matches_a_per_example_tape_loop(name, loss):
    _, full, fast = check_against_the_loop(name, loss)
    assert (full.method, fast.method, fast.fallback) == ("layerwise", "ghost", ())


def test_a_layer_without_a_rule_takes_the_vectorized_path_and_matches_the_loop_too():
    model, full, fast = check_against_the_loop("gru", CCE)
    # the GRU has no rule: its variables take the vectorized jacobian; the Dense head keeps its rule
    assert (full.method, fast.method, fast.fallback) == ("layerwise+pfor", "ghost+pfor", (model.layers[0].name,))


@pytest.mark.parametrize("name", ["dense", "sequence", "embedding", "conv2d", "conv1d"])
def test_per_example_gradients_sum_to_the_batch_gradient_of_the_summed_loss(name):
    model = built(name)
    x, y = data(name)
    r = per_example_gradients(model, x, y, loss=CCE)
    for mine, batch in zip(r.gradients, batch_gradient(model, x, y, CCE)):
        close(mine.sum(axis=0), batch)
    for mine, batch in zip(r.mean(), batch_gradient(model, x, y, CCE)):
        close(mine, batch / B)


def shortcut_norm_sq(a, g):
    """The WRONG per-token shortcut: sum_t ||a_t||^2 ||g_t||^2 (drops the cross terms between steps)."""
    return tf.reduce_sum(tf.reduce_sum(tf.square(a), axis=2) * tf.reduce_sum(tf.square(g), axis=2), axis=1)


def test_the_per_token_shortcut_is_wrong_on_sequences_and_this_suite_catches_it(monkeypatch):
    model = built("sequence")
    x, y = data("sequence")
    _, norms, _ = reference(model, x, y, CCE)
    monkeypatch.setattr(_ghost, "sequence_norm_sq", shortcut_norm_sq)
    _perexample._COMPILED.clear()
    wrong = per_example_gradients(model, x, y, loss=CCE, norms_only=True).norms
    assert np.max(np.abs(wrong - norms) / norms) > 0.05   # the loop comparison above would fail
    monkeypatch.undo()
    _perexample._COMPILED.clear()
    close(per_example_gradients(model, x, y, loss=CCE, norms_only=True).norms, norms)


@pytest.mark.parametrize("steps, k, o", [(3, 16, 16), (40, 2, 3)], ids=["pairs_of_steps", "outer_product"])
def test_sequence_norm_sq_equals_the_brute_force_in_both_of_its_forms(steps, k, o):
    rng = np.random.default_rng(3)
    a, g = rng.normal(size=(4, steps, k)), rng.normal(size=(4, steps, o))
    expected = np.square(np.einsum("btk,bto->bko", a, g)).sum(axis=(1, 2))
    close(_ghost.sequence_norm_sq(tf.constant(a), tf.constant(g)).numpy(), expected, rtol=1e-10)
    assert not np.allclose(shortcut_norm_sq(tf.constant(a), tf.constant(g)).numpy(), expected, rtol=1e-2)


def test_repeated_tokens_add_their_gradient_rows_before_the_norm():
    model = built("embedding")
    x = np.array([[1, 1, 1, 1, 1, 1], [0, 1, 2, 3, 4, 0]], dtype="int32")
    y = np.array([0, 2])
    _, norms, grads = reference(model, x, y, CCE)
    r = per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    close(r.norms, norms)
    full = per_example_gradients(model, x, y, loss=CCE)
    close(full.gradients[0], grads[0])
    assert np.count_nonzero(np.abs(full.gradients[0][0]).sum(axis=1)) == 1   # example 0 touches one row only


def test_clipping_scales_each_example_not_the_mean_nor_each_variable():
    model = built("dense")
    x, y = data("dense", size=8)
    _, norms, grads = reference(model, x, y, CCE)
    clip = float(np.median(norms))
    assert (norms > clip).any() and (norms < clip).any()   # some examples are clipped, some are not
    factors = np.minimum(1.0, clip / norms)
    expected = [np.tensordot(factors, g, axes=1) / 8 for g in grads]
    r = per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    np.testing.assert_allclose(r.clip_factors(clip), factors, rtol=1e-5)
    assert int((r.clip_factors(clip) < 1).sum()) == int((norms > clip).sum())
    for mine, theirs in zip(r.clipped_mean(clip), expected):
        close(mine, theirs)
    mean = [g.mean(axis=0) for g in grads]
    scale = min(1.0, clip / np.sqrt(sum(np.square(m).sum() for m in mean)))
    wrong = {
        "no min(1, .)": [np.tensordot(clip / norms, g, axes=1) / 8 for g in grads],
        "the mean clipped": [m * scale for m in mean],
        "each variable clipped": [np.tensordot(np.minimum(1, clip / np.sqrt(np.square(g.reshape(8, -1)).sum(1))), g,
                                               axes=1) / 8 for g in grads],
    }
    for name, candidate in wrong.items():
        gap = max(float(np.abs(c - e).max() / np.abs(e).max()) for c, e in zip(candidate, expected))
        assert gap > 1e-2, name   # each wrong clip is far outside the 1e-4 the right one meets
    for mine, theirs in zip(r.clipped_mean(np.inf), mean):
        close(mine, theirs)


def test_the_gradients_follow_trainable_variables_and_skip_frozen_layers():
    model = built("dense")
    model.layers[0].trainable = False
    x, y = data("dense")
    r = per_example_gradients(model, x, y, loss=CCE)
    assert [g.shape[1:] for g in r.gradients] == [tuple(v.shape) for v in model.trainable_variables] == [(7, 3), (3,)]
    _, norms, grads = reference(model, x, y, CCE)
    close(r.norms, norms)


def test_a_layer_called_twice_takes_the_vectorized_path_and_stays_right():
    shared = keras.layers.Dense(5, activation="tanh")
    inp = keras.Input((5,))
    model = keras.Model(inp, keras.layers.Dense(3)(shared(shared(inp))))
    x, y = data("dense")
    _, norms, grads = reference(model, x, y, CCE)
    r = per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    assert r.method == "ghost+pfor" and r.fallback == (shared.name,)
    close(r.norms, norms)


def test_a_keras_loss_over_a_sequence_averages_the_steps_like_keras():
    model = keras.Sequential([keras.Input((4, 3)), keras.layers.Dense(2)])
    x, y = data("sequence")[0], np.random.default_rng(1).normal(size=(B, 4, 2)).astype("float32")
    mse = keras.losses.MeanSquaredError()
    losses, norms, _ = reference(model, x, y, mse)
    r = per_example_gradients(model, x, y, loss=mse, norms_only=True)
    close(r.losses, losses)
    close(r.norms, norms)
    assert r.losses.mean() == pytest.approx(float(mse(y, model(x))), rel=1e-5)


def test_the_per_batch_function_runs_inside_a_users_tf_function_and_strategy_run():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope():
        model = built("sequence")
    x, y = data("sequence")
    expected = reference(model, x, y, CCE)
    step = tf.function(lambda xb, yb: _perexample.losses_and_norms(model, CCE, xb, yb))
    losses, norms = strategy.run(step, args=(tf.constant(x), tf.constant(y)))
    close(losses.numpy(), expected[0])
    close(norms.numpy(), expected[1])


def test_compiled_once_per_model_loss_and_signature_whatever_the_batch_size():
    model = built("dense")
    before = len(_perexample._COMPILED)
    for size in (3, 5, 9):
        x, y = data("dense", size=size)
        per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    assert len(_perexample._COMPILED) == before + 1


# ---------------------------------------------------------------- refusals


def bn_model():
    return keras.Sequential([keras.Input((5,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                             keras.layers.Dense(3)])


def test_batchnorm_in_training_mode_is_refused():
    x, y = data("dense")
    with pytest.raises(BatchMixingError, match=r"not independent.*BatchNormalization.*Use training=False"):
        per_example_gradients(bn_model(), x, y, loss=CCE, training=True)


def test_batchnorm_inside_a_subclassed_model_in_training_mode_is_refused():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.body = bn_model()

        def call(self, x, training=None):
            return self.body(x, training=training)

    x, y = data("dense")
    with pytest.raises(BatchMixingError, match="BatchNormalization run in training mode"):
        per_example_gradients(Net(), x, y, loss=CCE, training=True)


def test_batchnorm_in_inference_mode_passes_and_is_right():
    model = bn_model()
    x, y = data("dense")
    _, norms, grads = reference(model, x, y, CCE)
    r = per_example_gradients(model, x, y, loss=CCE)
    close(r.norms, norms)
    for mine, theirs in zip(r.gradients, grads):
        close(mine, theirs)


def test_dropout_in_training_mode_is_not_mistaken_for_batch_mixing():
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dropout(0.5),
                              keras.layers.Dense(3)])
    x, y = data("dense")
    trained = per_example_gradients(model, x, y, loss=CCE, training=True, norms_only=True)
    inference = per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    assert trained.method == inference.method == "ghost"
    assert not np.allclose(trained.losses, inference.losses)   # dropout was active in training mode
    close(inference.norms, reference(model, x, y, CCE)[1])


def test_a_custom_layer_that_mixes_the_batch_is_caught_by_the_probe():
    class Center(keras.layers.Layer):
        def call(self, x):
            return x - keras.ops.mean(x, axis=0)

    model = keras.Sequential([keras.Input((5,)), Center(), keras.layers.Dense(3)])
    x, y = data("dense")
    with pytest.raises(BatchMixingError, match=r"example \d's loss is .* in a batch of 3 and .* alone"):
        per_example_gradients(model, x, y, loss=CCE)


@pytest.mark.parametrize("kwargs, match", [
    ({"loss": "mse"}, r"loss= a Keras loss object or a callable .* got 'mse'"),
    ({"loss": lambda t, p: tf.square(p)}, r"one loss per example, shape \(B,\), but the loss returned shape \(3, 3\)"),
])
def test_bad_losses_are_refused_with_what_to_do(kwargs, match):
    x, y = data("dense", size=3)
    with pytest.raises(GradlibError, match=match):
        per_example_gradients(built("dense"), x, y, **kwargs)


def test_bad_batches_and_models_are_refused():
    x, y = data("dense")
    with pytest.raises(gradlib.InputError, match="6 examples in x but 5 targets in y"):
        per_example_gradients(built("dense"), x, y[:5], loss=CCE)
    with pytest.raises(GradlibError, match="needs a Keras model, got function"):
        per_example_gradients(lambda t: t, x, y, loss=CCE)
    with pytest.raises(GradlibError, match="several inputs"):
        per_example_gradients(built("dense"), {"a": x}, y, loss=CCE)
    with pytest.raises(GradlibError, match=r"takes x as one array of shape \(B, \.\.\.\)"):
        per_example_gradients(built("dense"), [x, x], y, loss=CCE)
    r = per_example_gradients(built("dense"), x.tolist(), tuple(y.tolist()), loss=CCE, norms_only=True)
    # nested lists and tuples of numbers are one batch: the same norms as the arrays give
    np.testing.assert_allclose(r.norms, per_example_gradients(built("dense"), x, y, loss=CCE, norms_only=True).norms,
                               rtol=1e-6)
    assert r.norms.shape == (B,) and (r.norms > 0).all()
    with pytest.raises(GradlibError, match=r"at least one example, got shape \(0, 5\)"):
        per_example_gradients(built("dense"), x[:0], y[:0], loss=CCE)


@pytest.mark.parametrize("clip", [0, -1.0, float("nan"), "1", True])
def test_bad_clip_norms_are_refused(clip):
    x, y = data("dense")
    r = per_example_gradients(built("dense"), x, y, loss=CCE, norms_only=True)
    with pytest.raises(GradlibError, match="clip_norm must be a positive number"):
        r.clipped_mean(clip)


def test_the_floats_allocated_are_bounded_by_the_limits():
    x, y = data("dense")
    small = gradlib.Limits(max_jacobian=200)
    with pytest.raises(GradlibError, match=r"allocate about [\d,]+ floats .* at most 200 .* or norms_only=True"):
        per_example_gradients(built("dense"), x, y, loss=CCE, limits=small)
    assert per_example_gradients(built("dense"), x, y, loss=CCE, norms_only=True, limits=small).norms.shape == (B,)


@pytest.mark.parametrize("conv", [dict(kernel_size=(3, 2), strides=2, padding="same"),
                                  dict(kernel_size=3, dilation_rate=2, padding="valid"),
                                  dict(kernel_size=3, dilation_rate=2, padding="same"),
                                  dict(kernel_size=(2, 4), padding="same")],
                         ids=["strided_same", "dilated_valid", "dilated_same", "even_same"])
def test_conv2d_strides_dilation_padding_and_non_square_kernels_match_the_loop(conv):
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((9, 7, 2)), keras.layers.Conv2D(3, activation="tanh", **conv),
                              keras.layers.Flatten(), keras.layers.Dense(3)])
    x = np.random.default_rng(2).normal(size=(5, 9, 7, 2)).astype("float32")
    y = np.array([0, 1, 2, 0, 1])
    _, norms, grads = reference(model, x, y, CCE)
    fast = per_example_gradients(model, x, y, loss=CCE, norms_only=True)
    assert fast.method == "ghost"
    close(fast.norms, norms)
    for mine, theirs in zip(per_example_gradients(model, x, y, loss=CCE).gradients, grads):
        close(mine, theirs)


def test_a_functional_graph_with_a_skip_connection_and_a_nested_model_is_walked_layer_by_layer():
    keras.utils.set_random_seed(2)
    inner = keras.Sequential([keras.Input((6,)), keras.layers.Dense(6, activation="tanh"),
                              keras.layers.LayerNormalization()])
    inp = keras.Input((5,))
    h = keras.layers.Dense(6, activation="relu")(inp)
    h = keras.layers.Add()([h, inner(h)])
    model = keras.Model(inp, keras.layers.Dense(3)(keras.layers.Concatenate()([h, inp])))
    x, y = data("dense")
    _, norms, grads = reference(model, x, y, cce_callable)
    fast = per_example_gradients(model, x, y, loss=cce_callable, norms_only=True)
    assert (fast.method, fast.fallback) == ("ghost", ())   # every Dense and the LayerNormalization had its rule
    close(fast.norms, norms)
    for mine, theirs in zip(per_example_gradients(model, x, y, loss=cce_callable).gradients, grads):
        close(mine, theirs)


def _matmul_floats(steps: int, k: int, o: int) -> int:
    """Floats ``sequence_norm_sq`` allocates for one example, counted in its traced graph: the outputs of its
    matrix products (a a^T and g g^T, T x T each, or a^T g, k x o); for one step, the two squared vectors."""
    graph = tf.function(_ghost.sequence_norm_sq).get_concrete_function(
        tf.TensorSpec((1, steps, k)), tf.TensorSpec((1, steps, o))).graph
    kinds = ("Square",) if steps == 1 else ("BatchMatMulV2", "BatchMatMulV3", "MatMul")
    return sum(int(np.prod(out.shape)) for op in graph.get_operations() if op.type in kinds for out in op.outputs)


@pytest.mark.parametrize("steps, features, units, expected", [
    (6, 12, 16, 2 * 6 * 6),      # T (k + o) = 174 < k o = 208: the two T x T products
    (20, 3, 4, (3 + 1) * 4),     # many steps: a^T g, (k + 1 for the bias) x o
    (1, 5, 3, (5 + 1) + 3),      # one step: |a|^2 |g|^2
])
def test_a_dense_layers_floats_per_example_are_what_its_norm_allocates(steps, features, units, expected):
    # the estimate decides whether a batch is refused: T times too low let a batch through that does not fit
    model = keras.Sequential([keras.Input((steps, features)), keras.layers.Dense(units), keras.layers.Flatten()])
    x = np.ones((2, steps, features), np.float32)
    y = np.zeros((2, steps * units), np.float32)
    _, _, _, plan = _perexample.per_example_terms(model, keras.losses.MeanSquaredError(), x, y)
    assert plan.method == "ghost" and plan.floats_per_example == expected == _matmul_floats(steps, features + 1, units)
    per_batch = rf"would allocate about {2 * expected:,} floats for this batch \({expected:,} per example"
    with pytest.raises(GradlibError, match=per_batch):
        per_example_gradients(model, x, y, loss=keras.losses.MeanSquaredError(), norms_only=True,
                              limits=gradlib.Limits(max_jacobian=2 * expected - 1))
    r = per_example_gradients(model, x, y, loss=keras.losses.MeanSquaredError(), norms_only=True,
                              limits=gradlib.Limits(max_jacobian=2 * expected))   # exactly at the limit: computed
    assert r.norms.shape == (2,)
