"""Per-sample Hessians, Laplacians and divergences against closed forms and a plain per-sample loop of tapes."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib

TAPES = ("nested_tapes", "loop", "forward_over_reverse")
RNG = np.random.default_rng(25)
X = RNG.normal(size=(4, 3))


def field(x):
    """Per sample: [a^2 b, sin(a) c] of (a, b, c)."""
    a, b, c = x[:, 0], x[:, 1], x[:, 2]
    return tf.stack([a * a * b, tf.sin(a) * c], axis=1)


def field_hessians(x):
    out = np.zeros((len(x), 2, 3, 3))
    for s, (a, b, c) in enumerate(x):
        out[s, 0] = [[2 * b, 2 * a, 0], [2 * a, 0, 0], [0, 0, 0]]
        out[s, 1] = [[-np.sin(a) * c, 0, np.cos(a)], [0, 0, 0], [np.cos(a), 0, 0]]
    return out


def mlp(inputs=3, widths=(6, 5), activation="tanh", outputs=2, dtype="float64", seed=0):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input((inputs,), dtype=dtype)]
                            + [keras.layers.Dense(w, activation=activation, dtype=dtype) for w in widths]
                            + [keras.layers.Dense(outputs, dtype=dtype)])


def loop_of_tapes(model, x):
    """The reference: one eager pair of tapes per sample, nothing vectorized, nothing shared."""
    out = []
    for row in x:
        xb = tf.constant(row[None])
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xb)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(xb)
                y = model(xb)[0]
                rows = [y[k] for k in range(y.shape[0])]
            grads = [inner.gradient(r, xb)[0] for r in rows]
            entries = [[g[j] for j in range(xb.shape[1])] for g in grads]
        out.append([[outer.gradient(e, xb)[0].numpy() for e in per_output] for per_output in entries])
    return np.array(out)


@pytest.mark.parametrize("method", TAPES)
def test_per_sample_hessians_equal_the_closed_form(method):
    r = gradlib.per_sample_hessians(field, X, method=method)
    np.testing.assert_allclose(r.hessians, field_hessians(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.diagonal, np.diagonal(field_hessians(X), axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
    assert r.method == method and r.col_labels == ("x[0]", "x[1]", "x[2]")


def test_a_sample_of_several_axes_is_flattened_in_order():
    x = RNG.normal(size=(2, 3, 1))
    r = gradlib.per_sample_hessians(lambda v: field(tf.reshape(v, (-1, 3))), x)
    np.testing.assert_allclose(r.hessians, field_hessians(x[:, :, 0]), rtol=1e-9, atol=1e-12)
    assert r.col_labels == ("x[0,0]", "x[1,0]", "x[2,0]")


@pytest.fixture(scope="module")
def tanh_model():
    model = mlp()
    return model, loop_of_tapes(model, X)


@pytest.mark.parametrize("method", TAPES + ("forward_laplacian", "auto"))
def test_laplacian_and_diagonal_of_a_keras_mlp_equal_a_loop_of_tapes(tanh_model, method):
    model, reference = tanh_model
    lap = gradlib.laplacian(model, X, method=method)
    np.testing.assert_allclose(lap.laplacian, np.trace(reference, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
    diag = gradlib.per_sample_hessians(model, X, diagonal=True, method=method)
    np.testing.assert_allclose(diag.diagonal, np.diagonal(reference, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
    assert diag.hessians is None
    if method == "auto":
        assert lap.method == "forward_laplacian" and diag.method == "forward_laplacian"


def test_float32_agrees_to_2e_4(tanh_model):
    model64, reference = tanh_model
    model32 = mlp(dtype="float32")
    model32.set_weights([w.astype("float32") for w in model64.get_weights()])
    for method in ("loop", "forward_laplacian"):
        r = gradlib.laplacian(model32, X.astype("float32"), method=method)
        np.testing.assert_allclose(r.laplacian, np.trace(reference, axis1=2, axis2=3), rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "softplus", "silu", "elu", "exponential", "relu", "linear"])
def test_every_forward_rule_s_derivatives_equal_tensorflow_s_own(activation):
    from gradlib._second._taylor import RULES   # the rule table itself: each row against TensorFlow's gradients

    z = tf.constant(np.linspace(-2.5, 2.5, 11) + 0.01, tf.float64)
    fn = keras.activations.get(activation)
    with tf.GradientTape() as outer:
        outer.watch(z)
        with tf.GradientTape() as inner:
            inner.watch(z)
            value = fn(z)
        first = inner.gradient(value, z)
    second = outer.gradient(first, z)
    second = tf.zeros_like(z) if second is None else second
    for got, want in zip(RULES[activation](z), (value, first, second)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


def test_a_layer_without_a_rule_goes_to_a_tape_method_and_stays_right():
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((3,), dtype="float64"), keras.layers.Dense(4, activation="tanh", dtype="float64"),
                              keras.layers.UnitNormalization(dtype="float64"), keras.layers.Dense(1, dtype="float64")])
    r = gradlib.laplacian(model, X)
    assert r.method != "forward_laplacian"
    np.testing.assert_allclose(r.laplacian, np.trace(loop_of_tapes(model, X), axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
    with pytest.raises(gradlib.ExpressionError, match=r"cannot use method='forward_laplacian': .*layer rules only"):
        gradlib.laplacian(model, X, method="forward_laplacian")


def tanh(z):   # the user's own activation, named as Keras' one: serialize calls it 'tanh' too
    return 3.0 * tf.tanh(z) ** 3


def test_an_activation_function_of_ones_own_named_tanh_is_not_given_keras_tanh_s_rule():
    """auto took forward_laplacian with the rule of Keras' tanh: a Laplacian 2.2 off on values of about 2."""
    model = mlp(widths=(4,), activation=tanh, seed=4)
    expected = loop_of_tapes(model, X)
    lap, diag = gradlib.laplacian(model, X), gradlib.per_sample_hessians(model, X, diagonal=True)
    assert lap.method != "forward_laplacian" and diag.method != "forward_laplacian"
    np.testing.assert_allclose(lap.laplacian, np.trace(expected, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(diag.diagonal, np.diagonal(expected, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
    with pytest.raises(gradlib.ExpressionError, match=r"cannot use method='forward_laplacian'"):
        gradlib.laplacian(model, X, method="forward_laplacian")


def test_a_function_that_mixes_the_batch_is_refused_not_summed():
    # tensorflow#38428: batch_jacobian of the gradient gives the derivative of the batch's sum ([3, 3], not [2, 2])
    def mixing(x):
        return x * x + x * tf.roll(x, 1, axis=0)

    with pytest.raises(gradlib.BatchMixingError, match=r"not independent.*tensorflow#38428"):
        gradlib.per_sample_hessians(mixing, [[1.0], [2.0]], diagonal=True, method="nested_tapes")
    with pytest.raises(gradlib.BatchMixingError, match=r"laplacian: the samples of the batch are not independent"):
        gradlib.laplacian(lambda x: x ** 3 + tf.reduce_mean(x, axis=0, keepdims=True), X[:, :1])


def test_a_relu_network_s_zero_laplacian_is_named_with_its_layers():
    model = mlp(widths=(6,), activation="relu", outputs=1)
    r = gradlib.laplacian(model, X)
    assert not r.laplacian.any()
    name = model.layers[0].name
    assert any("exactly 0 everywhere" in w and f"'{name}' (relu)" in w for w in r.warnings)


def test_hutchinson_is_unbiased_within_its_standard_error(tanh_model):
    model, reference = tanh_model
    exact = np.trace(reference, axis1=2, axis2=3)
    r = gradlib.laplacian(model, X, method="hutchinson", probes=400)
    assert r.standard_error.shape == exact.shape and (r.standard_error > 0).all()
    assert (np.abs(r.laplacian - exact) < 5 * r.standard_error + 1e-12).all()
    with pytest.raises(gradlib.ExpressionError, match=r"probes=8 with method='auto'; probes are for"):
        gradlib.laplacian(model, X, probes=8)


@pytest.mark.parametrize("method", TAPES + ("auto",))
def test_divergence_equals_the_closed_form(method):
    r = gradlib.divergence(lambda x: x * x * x, X, method=method)
    np.testing.assert_allclose(r.divergence, (3 * X * X).sum(axis=1), rtol=1e-9)


def test_divergence_estimate_and_its_refusals():
    r = gradlib.divergence(lambda x: x * x * x, X, method="hutchinson", probes=200)
    assert (np.abs(r.divergence - (3 * X * X).sum(axis=1)) < 5 * r.standard_error + 1e-12).all()
    with pytest.raises(gradlib.GradlibError, match=r"needs a vector field: .*maps 3 inputs to 2 outputs"):
        gradlib.divergence(field, X)


def test_requests_over_the_limits_are_refused_with_both_numbers():
    with pytest.raises(gradlib.ExpressionError, match=r"would return 72 second-order entries \(4 x 2 outputs x 3 x 3 "
                                                      r"inputs\); at most 50 are allowed"):
        gradlib.per_sample_hessians(field, X, limits=gradlib.Limits(max_hessian=50))
    with pytest.raises(gradlib.ExpressionError, match=r"method 'nested_tapes' would need ~.* MB at its peak here .*; "
                                                      r"at most 0\.001 MB are allowed"):
        gradlib.laplacian(field, X, method="nested_tapes", limits=gradlib.Limits(max_bytes=1_000))
    with pytest.raises(gradlib.ExpressionError, match=r"no exact second-order method fits .*method='hutchinson'"):
        gradlib.laplacian(field, X, limits=gradlib.Limits(max_bytes=1_000))


def test_inputs_that_are_not_a_float_batch_are_refused():
    with pytest.raises(gradlib.InputError, match=r"needs a batch of shape \(B, features...\), but x has shape \(3,\)"):
        gradlib.laplacian(field, [1.0, 2.0, 3.0])
    with pytest.raises(gradlib.InputError, match=r"requires floating-point inputs, but x is int32"):
        gradlib.laplacian(field, tf.constant([[1, 2, 3]]))


@pytest.mark.parametrize("x", [
    [np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)],
    (np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)),
])
def test_several_arrays_for_a_function_that_is_not_a_model_of_that_many_inputs_are_refused_with_what_to_do(x):
    # never TensorFlow's "non-rectangular sequence"; a Keras model's several inputs are taken
    # (tests/second/test_own_functions.py), and so is a dict for any function
    with pytest.raises(gradlib.InputError, match=r"laplacian takes x as one array of shape \(B, d\).*got 2 arrays for "
                                                 r"an fn that is not a Keras model of that many inputs"):
        gradlib.laplacian(lambda v: v[0][:, :1] * v[1][:, :1], x)


# ---------------------------------------------------------------- Pins (found by the sampled mutation run)


def test_hutchinson_standard_error_is_the_spread_of_its_probes_over_root_probes():
    # f(x) = x M: v^T J v = v^T M v for each +-1 probe v; the estimate is their mean and its standard error their
    # sample standard deviation over sqrt(probes), computed here from the same probes in NumPy (the check "within
    # 5 standard errors" above let a spread of q + mean instead of q - mean pass: _tapes.x_hutchinson__mutmut_112)
    from gradlib._second._tapes import PROBE_SEED
    m = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 4.0], [2.0, 1.0, 0.25]])
    probes = 16
    r = gradlib.divergence(lambda x: tf.matmul(x, tf.constant(m)), X, method="hutchinson", probes=probes)
    uniform = tf.random.stateless_uniform((probes,) + X.shape, seed=PROBE_SEED, dtype=tf.float32).numpy()
    v = np.where(uniform < 0.5, -1.0, 1.0)                                   # (S, B, d)
    q = np.einsum("sbi,ij,sbj->sb", v, m, v)
    np.testing.assert_allclose(r.divergence, q.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(r.standard_error, q.std(axis=0, ddof=1) / np.sqrt(probes), rtol=1e-12)
    assert (r.standard_error > 0).all()   # the off-diagonal terms vary with the probe


def test_diagonals_over_the_limit_are_counted_as_diagonals_and_refused():
    # 4 samples x 2 outputs x 3 inputs = 24 entries; a diagonal counted as one entry per output (8) was let through
    # (_runner.x__check_cells__mutmut_12)
    with pytest.raises(gradlib.ExpressionError, match=r"would return 24 second-order entries \(4 x 2 outputs x 3 "
                                                      r"inputs\); at most 20 are allowed"):
        gradlib.per_sample_hessians(field, X, diagonal=True, limits=gradlib.Limits(max_hessian=20))
    assert gradlib.per_sample_hessians(field, X, diagonal=True, limits=gradlib.Limits(max_hessian=24)).diagonal.shape \
        == (4, 2, 3)


def test_the_piecewise_warning_names_the_piecewise_layers_and_not_the_linear_ones():
    # a ReLU layer and a linear output layer give exactly 0: only the ReLU layer is the cause
    # (_curvature.x_piecewise_warning__mutmut_29 also listed 'out' (linear))
    from gradlib._second._curvature import piecewise_warning
    text = piecewise_warning(np.zeros((2, 1)), [("hidden", "relu"), ("out", "linear")], "the Laplacian")
    assert text.startswith("the Laplacian is exactly 0 everywhere here: the model is piecewise linear (layers "
                           "'hidden' (relu)), so its second derivative is 0 wherever it exists")


@pytest.mark.parametrize("bad, shape, held", [(lambda v: tf.transpose(v), (3, 1), "a batch of 1 sample"),
                                              (lambda v: tf.reduce_sum(v, axis=0, keepdims=True), (1, 3),
                                               "a batch of 4 samples")])
def test_one_of_several_outputs_that_does_not_keep_the_batch_axis_is_refused_by_name(bad, shape, held):
    # the join shared with per_sample_gradients names the output; before, tf.concat failed ("fn failed ...: Shapes
    # of all inputs must match") or a batch-reduced output was taken for other samples' rows
    two = lambda v: {"cube": v ** 3, "bad": bad(v)}  # noqa: E731
    with pytest.raises(gradlib.GradlibError, match=rf"fn's output y\['bad'\] has shape \({shape[0]}, {shape[1]}\) on "
                                                   rf"{held}: every output must keep the batch axis first"):
        gradlib.laplacian(two, X, check_independence=False)


# ---------------------------------------------------------------- what users bring (issue 35)


class Center(keras.layers.Layer):
    """Subtracts the batch's mean: each sample's output depends on every sample."""

    def call(self, x):
        return x - tf.reduce_mean(x, axis=0, keepdims=True)


def batchnorm_model():
    keras.utils.set_random_seed(11)
    model = keras.Sequential([keras.Input((3,), dtype="float64"), keras.layers.Dense(4, "tanh", dtype="float64"),
                              keras.layers.BatchNormalization(dtype="float64"), keras.layers.Dense(1, dtype="float64")])
    model.layers[1].moving_mean.assign([0.1, -0.2, 0.3, 0.0])   # statistics of its own, not the identity's
    model.layers[1].moving_variance.assign([0.5, 2.0, 1.5, 1.0])
    return model


def centering_model():
    keras.utils.set_random_seed(12)
    return keras.Sequential([keras.Input((3,), dtype="float64"), keras.layers.Dense(4, "tanh", dtype="float64"),
                             Center(dtype="float64"), keras.layers.Dense(1, "tanh", dtype="float64")])


MIXING = {"BatchNormalization in training mode": lambda: (lambda x, m=batchnorm_model(): m(x, training=True)),
          "a layer that subtracts the batch mean": centering_model}


@pytest.mark.parametrize("method", ("auto",) + TAPES + ("hutchinson",))
@pytest.mark.parametrize("name", MIXING)
def test_models_that_mix_the_samples_are_refused_at_second_order_by_every_method(name, method):
    fn = MIXING[name]()
    with pytest.raises(gradlib.BatchMixingError, match=r"laplacian: the samples of the batch are not independent"):
        gradlib.laplacian(fn, X, method=method)
    if method != "hutchinson":
        with pytest.raises(gradlib.BatchMixingError, match=r"per_sample_hessians: the samples of the batch are not "
                                                           r"independent"):
            gradlib.per_sample_hessians(fn, X, method=method)


@pytest.mark.parametrize("method", ("auto",) + TAPES)
def test_batchnorm_in_inference_mode_equals_a_loop_of_tapes(method):
    model = batchnorm_model()
    reference = loop_of_tapes(model, X)
    r = gradlib.per_sample_hessians(model, X, method=method)
    np.testing.assert_allclose(r.hessians, reference, rtol=1e-9, atol=1e-12)
    lap = gradlib.laplacian(model, X, method=method)
    np.testing.assert_allclose(lap.laplacian, np.trace(reference, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)


def embedding_model():
    keras.utils.set_random_seed(13)
    return keras.Sequential([keras.Input((4,), dtype="int32", name="tokens"), keras.layers.Embedding(10, 3),
                             keras.layers.Flatten(), keras.layers.Dense(1, activation="tanh")])


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_an_embedding_model_is_refused_at_second_order_by_its_token_ids(dtype):
    # ids cast to floats gave a Hessian of exactly 0 with a warning that blamed ReLU or abs
    model, ids = embedding_model(), np.array([[1, 2, 3, 4], [0, 5, 9, 2]]).astype(dtype)
    refusal = (r"cannot differentiate this model by its input 'tokens': the model declares it int32 \(token ids, "
               r"which an Embedding looks up\).*every derivative \(first or second\) would be 0. Differentiate with "
               r"respect to the embedded vectors instead")
    for api in (gradlib.laplacian, gradlib.per_sample_hessians, gradlib.hessians):
        with pytest.raises(gradlib.InputError, match=api.__name__ + " " + refusal):
            api(model, ids)
    with pytest.raises(gradlib.InputError, match="hvp " + refusal):
        gradlib.hvp(model, ids.astype("float32"), np.ones((2, 4), "float32"))


MEMORY = """
import resource, numpy as np, keras, gradlib
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((100,)), keras.layers.Dense(32, activation="tanh"), keras.layers.Dense(1)])
x = np.random.default_rng(0).normal(size=(400, 100)).astype("float32")
gradlib.per_sample_hessians(model, x[:2])   # TensorFlow's own start-up is not the call's
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
r = gradlib.per_sample_hessians(model, x)
print(r.hessians.size, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)
"""


def test_a_per_sample_hessian_at_the_limit_s_last_good_value_stays_within_the_memory_limit():
    import subprocess
    import sys
    from pathlib import Path

    # 400 samples x 1 output x 100 x 100 inputs: exactly the default max_hessian. Its peak, in a process of its
    # own (ru_maxrss is the process's), measured 107 MB against the 2 GB of max_bytes
    out = subprocess.run([sys.executable, "-c", MEMORY], capture_output=True, text=True, timeout=600,
                         cwd=Path(__file__).resolve().parents[2], env={**__import__("os").environ,
                                                                      "PYTHONPATH": str(Path(__file__).parents[2])})
    size, grown = (int(n) for n in out.stdout.split()[-2:])
    assert size == gradlib.LIMITS.max_hessian == 4_000_000
    assert grown <= gradlib.LIMITS.max_bytes, f"the call grew the process by {grown:,} bytes"
    x = np.zeros((400, 100), "float32")
    with pytest.raises(gradlib.ExpressionError, match=r"would return 4,000,000 second-order entries \(400 x 1 outputs "
                                                      r"x 100 x 100 inputs\); at most 3,999,999 are allowed"):
        gradlib.per_sample_hessians(lambda v: v[:, :1], x, limits=gradlib.Limits(max_hessian=3_999_999))


def _forward_rules():
    from gradlib._second._taylor import RULES   # the rule table itself: a new rule joins the test below
    return sorted(RULES)


@pytest.mark.parametrize("activation", _forward_rules())
def test_every_forward_rule_through_layers_of_unequal_widths_equals_a_loop_of_tapes(activation):
    """Issue 35, item 3, at second order: each rule carried through layers that widen, narrow and end in several
    outputs (3 -> 7 -> 2 -> 4), a batch of 5, against plain nested tapes per sample in float64."""
    model = mlp(inputs=3, widths=(7, 2), activation=activation, outputs=4, seed=35)
    x = RNG.normal(size=(5, 3)) * 0.8 + 0.1   # off relu's kink
    # a linear network's Hessians are 0 (the closed form; the tape returns None for them)
    reference = np.zeros((5, 4, 3, 3)) if activation == "linear" else loop_of_tapes(model, x)
    lap = gradlib.laplacian(model, x, method="forward_laplacian")
    diag = gradlib.per_sample_hessians(model, x, diagonal=True, method="forward_laplacian")
    np.testing.assert_allclose(lap.laplacian, np.trace(reference, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(diag.diagonal, np.diagonal(reference, axis1=2, axis2=3), rtol=1e-9, atol=1e-12)
