"""What users bring to the second order: their own activations, layers and precisions, against a plain loop of
nested tapes per sample (``loop_of_tapes``, one eager pair of tapes per sample and output element)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib

X = np.random.default_rng(7).normal(size=(3, 2))
ZERO = tf.UnconnectedGradients.ZERO


def loop_of_tapes(model, x):
    """Each sample's Hessians ``(B, out, d, d)``: one eager pair of tapes per sample and output element."""
    out = []
    for row in np.asarray(x):
        per_output = []
        for k in range(int(tf.size(model(tf.constant(row[None]))))):
            xb = tf.constant(row[None])
            with tf.GradientTape() as outer:
                outer.watch(xb)
                with tf.GradientTape() as inner:
                    inner.watch(xb)
                    y_k = tf.reshape(model(xb), [-1])[k]
                grad = inner.gradient(y_k, xb, unconnected_gradients=ZERO)[0]
            per_output.append(outer.jacobian(grad, xb, unconnected_gradients=ZERO)[:, 0, :].numpy())
        out.append(per_output)
    return np.array(out)


def laplacians(model, x):
    return np.trace(loop_of_tapes(model, x), axis1=2, axis2=3)


def mlp(activation, seed=0, dtype="float64"):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input((2,), dtype=dtype), keras.layers.Dense(3, activation=activation, dtype=dtype),
                             keras.layers.Dense(1, dtype=dtype)])


# ---------------------------------------------------------------- activations of one's own


def test_a_lambda_activation_whose_source_cannot_be_read_is_not_an_oserror():
    """keras.activations.serialize reads a lambda's source: built where there is none (exec, python -c, a REPL), it
    raised "OSError: could not get source code" out of laplacian, per_sample_hessians and hessians."""
    scope = {"tf": tf}
    exec("activation = lambda z: tf.tanh(z) ** 3", scope)   # noqa: S102 - our own constant text: no source file
    model = mlp(scope["activation"], seed=1)
    r = gradlib.laplacian(model, X)
    np.testing.assert_allclose(r.laplacian, laplacians(model, X), rtol=1e-9, atol=1e-12)
    assert r.method != "forward_laplacian"
    h = gradlib.hessians(model, tf.constant(X[:1]))
    np.testing.assert_allclose(h.hessian, loop_of_tapes(model, X[:1])[0], rtol=1e-9, atol=1e-12)


def relu(z):   # the user's own smooth activation, named as Keras' piecewise-linear one
    return tf.nn.softplus(z)


def test_a_smooth_function_of_ones_own_named_relu_is_not_called_piecewise_linear():
    model = mlp(relu, seed=2)
    r = gradlib.laplacian(model, X)
    np.testing.assert_allclose(r.laplacian, laplacians(model, X), rtol=1e-9, atol=1e-12)
    assert np.abs(r.laplacian).min() > 1e-3
    assert not [w for w in r.warnings if "piecewise linear" in w], r.warnings


def tanh(z):   # the user's own piecewise-linear activation, named as Keras' smooth one
    return tf.nn.relu(z)


def test_a_piecewise_linear_function_of_ones_own_still_gets_the_zero_warning():
    """Named 'tanh', it was taken for Keras' tanh: a Laplacian of exactly 0 came with no warning at all."""
    model = mlp(tanh, seed=3)
    r = gradlib.laplacian(model, X)
    assert not r.laplacian.any() and not laplacians(model, X).any()
    assert any(w.startswith("the Laplacian is exactly 0 everywhere here: either fn is linear or piecewise linear")
               for w in r.warnings), r.warnings


@pytest.mark.parametrize("activation", ["hard_sigmoid", "sparse_sigmoid"])
def test_keras_piecewise_linear_activations_are_named_when_the_laplacian_is_zero(activation):
    model = mlp(activation, seed=4)
    r = gradlib.laplacian(model, X * 2)
    assert not r.laplacian.any() and not laplacians(model, X * 2).any()
    name = model.layers[0].name
    assert any("exactly 0 everywhere" in w and f"'{name}' ({activation})" in w for w in r.warnings), r.warnings


class ReLU(keras.layers.Layer):   # a smooth layer of one's own, named as Keras' ReLU layer
    def call(self, z):
        return tf.nn.softplus(z)


def test_a_layer_class_of_ones_own_named_relu_is_not_called_piecewise_linear():
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((2,), dtype="float64"), keras.layers.Dense(3, dtype="float64"),
                              ReLU(dtype="float64"), keras.layers.Dense(1, dtype="float64")])
    r = gradlib.laplacian(model, X)
    np.testing.assert_allclose(r.laplacian, laplacians(model, X), rtol=1e-9, atol=1e-12)
    assert not [w for w in r.warnings if "piecewise linear" in w], r.warnings


# ---------------------------------------------------------------- precisions


def _activation_left_at_float32():
    """A float64 model with an Activation layer given no dtype: Keras computes that layer in float32."""
    keras.utils.set_random_seed(6)
    return keras.Sequential([keras.Input((2,), dtype="float64"), keras.layers.Dense(3, dtype="float64"),
                             keras.layers.Activation("tanh"), keras.layers.Dense(2, dtype="float64")])


def _cast_to_float32(x):
    return tf.cast(tf.tanh(tf.cast(x, tf.float32)) ** 3, tf.float64)


@pytest.mark.parametrize("fn", [_activation_left_at_float32(), _cast_to_float32], ids=["activation", "cast"])
def test_a_float64_batch_through_float32_is_checked_at_float32_not_refused_as_mixing(fn):
    """The independence check took float64's tolerance (1e-10) from the batch: a float32 step inside fn (its rounding,
    about 1e-7) was refused as "the samples of the batch are not independent", with nothing mixing them."""
    expected = loop_of_tapes(fn, X)
    r = gradlib.laplacian(fn, X)
    np.testing.assert_allclose(r.laplacian, np.trace(expected, axis1=2, axis2=3), rtol=1e-5, atol=1e-6)
    d = gradlib.per_sample_hessians(fn, X, method="loop")
    np.testing.assert_allclose(d.hessians, expected, rtol=1e-5, atol=1e-6)


def test_a_float64_function_that_mixes_the_batch_by_1e_7_is_still_refused():
    # the check keeps float64's tolerance where fn computes in float64 throughout
    def mixing(x):
        return x ** 3 + 1e-6 * tf.roll(x, 1, axis=0) ** 2

    with pytest.raises(gradlib.BatchMixingError, match=r"laplacian: the samples of the batch are not independent"):
        gradlib.laplacian(mixing, X)


# ---------------------------------------------------------------- functions that cannot be traced or differentiated twice


def _untraceable(x):
    scale = float(tf.reduce_max(tf.abs(x)).numpy())   # a step outside TensorFlow: runs eagerly only
    return tf.reduce_sum(x ** 3, axis=-1, keepdims=True) / scale


def test_hvp_of_an_untraceable_fn_is_refused_with_why_not_a_raw_attributeerror():
    """hvp let TensorFlow's "AttributeError: 'SymbolicTensor' object has no attribute 'numpy'" out."""
    x, v = tf.constant([1.0, 2.0]), tf.constant([1.0, 0.0])
    with pytest.raises(gradlib.GradlibError, match=r"fn failed when hvp traced its forward_over_reverse: "
                                                   r"AttributeError: .*numpy.*fn must run as a graph: no .numpy\(\)"):
        gradlib.hvp(_untraceable, x, v)


def test_second_order_of_an_untraceable_fn_says_it_must_run_as_a_graph():
    with pytest.raises(gradlib.GradlibError, match=r"fn failed when hessians traced it .*The second order runs fn "
                                                   r"inside a tf.function .*no .numpy\(\), float\(\)"):
        gradlib.hessians(_untraceable, tf.constant([1.0, 2.0]))
    with pytest.raises(gradlib.GradlibError, match=r"fn failed when laplacian traced it .*must run as a graph"):
        gradlib.laplacian(_untraceable, X)


def test_an_op_whose_gradient_has_no_gradient_is_named_as_such():
    # softsign: TensorFlow registers no gradient for SoftsignGrad, so a plain pair of tapes fails as well
    with pytest.raises(Exception, match="SoftsignGrad"):   # noqa: B017 - the reference fails too
        loop_of_tapes(lambda x: tf.nn.softsign(x), X[:1])
    with pytest.raises(gradlib.GradlibError, match=r"no entry for: SoftsignGrad.*TensorFlow has no gradient for the "
                                                   r"gradient of an op fn uses"):
        gradlib.laplacian(lambda x: tf.nn.softsign(x), X)


# ---------------------------------------------------------------- several inputs


def two_input_model():
    keras.utils.set_random_seed(8)
    a, b = keras.Input((3,), name="a", dtype="float64"), keras.Input((2,), name="b", dtype="float64")
    joined = keras.layers.Concatenate(dtype="float64")([a, keras.layers.Dense(2, activation="tanh", dtype="float64")(b)])
    return keras.Model([a, b], keras.layers.Dense(2, activation="softplus", dtype="float64")(joined))


XA, XB = np.random.default_rng(9).normal(size=(2, 3)), np.random.default_rng(10).normal(size=(2, 2))


def joined_hessians(call, xa, xb):
    """The reference: per sample, one watched vector of both inputs' elements, split inside nested tapes."""
    out = []
    for ra, rb in zip(xa, xb):
        z = tf.constant(np.concatenate([ra, rb])[None])
        per_output = []
        for k in range(int(tf.size(call(z[:, :3], z[:, 3:])))):
            with tf.GradientTape() as outer:
                outer.watch(z)
                with tf.GradientTape() as inner:
                    inner.watch(z)
                    y_k = tf.reshape(call(z[:, :3], z[:, 3:]), [-1])[k]
                grad = inner.gradient(y_k, z)[0]
            per_output.append(outer.jacobian(grad, z)[:, 0, :].numpy())
        out.append(per_output)
    return np.array(out)


@pytest.mark.parametrize("given", ["list", "dict"])
def test_a_keras_model_of_two_inputs_gets_hessians_over_both_inputs_joined(given):
    """It was refused ("a model or function of several inputs is not covered"), though per_sample_gradients takes it."""
    model = two_input_model()
    x = [XA, XB] if given == "list" else {"a": XA, "b": XB}
    expected = joined_hessians(lambda a, b: model([a, b]), XA, XB)
    assert np.abs(expected[:, :, :3, 3:]).max() > 1e-3   # the cross terms between the inputs are there to get right
    r = gradlib.per_sample_hessians(model, x)
    np.testing.assert_allclose(r.hessians, expected, rtol=1e-9, atol=1e-12)
    assert r.col_labels == ("a[0]", "a[1]", "a[2]", "b[0]", "b[1]")
    lap = gradlib.laplacian(model, x, method="forward_over_reverse" if given == "list" else "auto")
    np.testing.assert_allclose(lap.laplacian, np.trace(expected, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)


def test_a_function_of_a_dict_of_inputs_gets_the_same_hessians_as_nested_tapes():
    def fn(d):
        return tf.concat([d["p"][:, :1] ** 2 * tf.sin(d["q"][:, :1]), tf.reduce_sum(d["p"], axis=1, keepdims=True) *
                          d["q"][:, 1:] ** 3], axis=1)

    r = gradlib.per_sample_hessians(fn, {"p": XA, "q": XB})
    np.testing.assert_allclose(r.hessians, joined_hessians(lambda a, b: fn({"p": a, "q": b}), XA, XB), rtol=1e-9,
                               atol=1e-12)
    assert r.col_labels[:1] == ("p[0]",) and r.col_labels[3:] == ("q[0]", "q[1]")


def test_several_inputs_of_unequal_batches_and_a_plain_list_are_refused_with_what_to_do():
    with pytest.raises(gradlib.InputError, match=r"laplacian needs every input as a batch of shape \(B, features...\) "
                                                 r"with the same B; x\['b'\] has shape \(1, 2\)"):
        gradlib.laplacian(two_input_model(), {"a": XA, "b": XB[:1]})
    with pytest.raises(gradlib.InputError, match=r"got 2 arrays for an fn that is not a Keras model of that many "
                                                 r"inputs. Give several inputs of a function as a dict by name"):
        gradlib.laplacian(lambda x: x[0] * x[1], [XA, XA])


# ---------------------------------------------------------------- several outputs


def two_output_model():
    keras.utils.set_random_seed(14)
    i = keras.Input((2,), dtype="float64")
    h = keras.layers.Dense(3, activation="tanh", dtype="float64")(i)
    return keras.Model(i, [keras.layers.Dense(1, dtype="float64")(h),
                           keras.layers.Dense(2, activation="softplus", dtype="float64")(h)])


def test_a_model_of_two_outputs_gets_each_sample_s_outputs_joined():
    """The outputs were stacked: [(B, 1), (B, 2)] failed, and [(B, 1), (B, 1)] became (2, B, 1), the batch axis
    second, refused as batch mixing."""
    model = two_output_model()
    r = gradlib.per_sample_hessians(model, X[:2])
    np.testing.assert_allclose(r.hessians, loop_of_tapes(lambda v: tf.concat(model(v), axis=1), X[:2]), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("check_independence", [True, False])
def test_a_function_of_two_outputs_gets_each_sample_s_laplacians(check_independence):
    # unchecked, the stacked (2, B, 1) was taken for a batch of 2: the Laplacians of the wrong samples
    square = lambda v: [v[:, :1] ** 2 * v[:, 1:], tf.sin(v[:, 1:])]  # noqa: E731 - two (B, 1) outputs
    lap = gradlib.laplacian(square, X[:2], check_independence=check_independence)
    np.testing.assert_allclose(lap.laplacian, np.stack([2 * X[:2, 1], -np.sin(X[:2, 1])], axis=1), rtol=1e-9)


def test_a_function_that_does_not_keep_the_batch_axis_first_is_refused_as_such():
    # (d, B) on a batch of one was (d, 1): taken for d samples of one output, it was refused as batch mixing, or
    # with check_independence=False gave the derivatives of the wrong samples when d == B
    with pytest.raises(gradlib.GradlibError, match=r"fn must return one row per sample, but on a batch of shape "
                                                   r"\(1, 2\) it returned shape \(2, 1\)"):
        gradlib.laplacian(lambda v: tf.transpose(v ** 3), X[:2], check_independence=False)


def named_output_model(outputs="list"):
    """A price (1) and a kind (2, softplus) head, named; as a list, a dict (keys not the layers' names), or the price
    head alone."""
    keras.utils.set_random_seed(15)
    i = keras.Input((2,), dtype="float64")
    h = keras.layers.Dense(3, activation="tanh", dtype="float64")(i)
    price = keras.layers.Dense(1, name="price", dtype="float64")(h)
    kind = keras.layers.Dense(2, activation="softplus", name="kind", dtype="float64")(h)
    return keras.Model(i, {"list": [price, kind], "dict": {"p": price, "k": kind}, "one": price}[outputs])


@pytest.mark.parametrize("outputs, rows", [("list", ("price[0]", "kind[0]", "kind[1]")),
                                           ("dict", ("p[0]", "k[0]", "k[1]")), ("one", ("price[0]",))])
def test_rows_are_labelled_by_output_name_as_per_sample_gradients_labels_them(outputs, rows):
    """Per-sample Hessians and Laplacians labelled every row ``y[k]``; each row is its output's, named."""
    model = named_output_model(outputs)
    heads = {"list": lambda y: y, "dict": lambda y: [y["p"], y["k"]], "one": lambda y: [y]}[outputs]
    expected = loop_of_tapes(lambda v: tf.concat(heads(model(v)), axis=1), X)
    price = loop_of_tapes(lambda v: heads(model(v))[0], X)   # the price head alone
    hessians, laplacian = gradlib.per_sample_hessians(model, X), gradlib.laplacian(model, X)
    assert hessians.row_labels == laplacian.row_labels == gradlib.per_sample_gradients(model, X).row_labels == rows
    np.testing.assert_allclose(hessians.hessians, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(hessians.hessians[:, :1], price, rtol=1e-9, atol=1e-12)   # the row named price
    np.testing.assert_allclose(laplacian.laplacian, np.trace(expected, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)


def test_a_sequential_model_s_output_has_no_name_and_stays_y():
    model = mlp("tanh")
    assert gradlib.per_sample_hessians(model, X).row_labels == gradlib.laplacian(model, X).row_labels == ("y[0]",)


def test_a_kink_of_a_curved_function_is_not_called_linear():
    """abs(x0) * x1 at x0 = 0: its mixed derivative is sign(x0), +-1 on either side, and TensorFlow takes abs's slope
    at 0 as 0, so the Hessian is exactly 0; the warning said fn "is linear or piecewise linear", whose second
    derivative is 0 wherever it exists, which this one's is not (1 at x0 = 1)."""
    fn = lambda x: tf.abs(x[0]) * x[1]   # noqa: E731
    at_kink = gradlib.hessians(fn, tf.constant([0.0, 2.0]))
    assert not at_kink.hessian.any()
    [warning] = [w for w in at_kink.warnings if "exactly 0" in w]
    assert "on a kink (abs(x0) * x1 at x0 = 0" in warning and "Other points tell which" in warning
    assert "either fn is linear or piecewise linear" in warning
    away = gradlib.hessians(fn, tf.constant([1.0, 2.0]))
    assert away.hessian.tolist() == [[[0.0, 1.0], [1.0, 0.0]]]
    assert not [w for w in away.warnings if "exactly 0" in w]
