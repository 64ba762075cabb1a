"""per_sample_gradients against an independent per-sample tape.jacobian loop, on real (tiny) Keras models."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import keras_models
from gradlib._perelement import _persample
from gradlib import BatchMixingError, GradlibError, per_element_gradients, per_sample_gradients

TINY = {
    "mlp_regressor": {"features": 3, "hidden": (5, 4), "outputs": 2},
    "classifier": {"features": 4, "hidden": (6,), "classes": 3},
    "sequence": {"steps": 5, "features": 2, "units": 3, "outputs": 2, "cell": "conv1d"},
}


def reference(model, x):
    """One eager tape per sample, tape.jacobian of its output: (B, outputs..., inputs...)."""
    out = []
    for b in range(len(x)):
        xb = tf.constant(x[b:b + 1])
        with tf.GradientTape() as tape:
            tape.watch(xb)
            yb = model(xb)
        out.append(tape.jacobian(yb, xb).numpy().reshape(tuple(yb.shape[1:]) + tuple(xb.shape[1:])))
    return np.stack(out)


#: built-in model name -> (its model, its weights, the batch, ``reference`` of them): one answer for every method
_REFERENCES: dict = {}


def _builtin_reference(name, model, x) -> np.ndarray:
    """``reference(model, x)`` computed once per process for the three methods held to it (each eager tape.jacobian
    traces its own loop), not once per method: ``get_model`` returns its cached model, and the answer is computed
    again unless it is the same object with the same weights at the same batch; read-only, so no test can change
    the answer the next one is held to."""
    weights = model.get_weights()
    cached = _REFERENCES.get(name)
    if (cached is None or cached[0] is not model or not np.array_equal(cached[2], x)
            or not all(np.array_equal(a, b) for a, b in zip(cached[1], weights))):
        expected = reference(model, x)
        expected.flags.writeable = False
        _REFERENCES[name] = cached = (model, weights, np.array(x), expected)
    return cached[3]


def batch(name, size=4, seed=1):
    return keras_models.make_batch("random normal", keras_models.sample_shape(name, **TINY[name]), size, seed=seed)


@pytest.mark.parametrize("name", list(TINY))
@pytest.mark.parametrize("method", ["auto", "while_loop", "loop"])
def test_matches_a_per_sample_tape_loop_on_each_builtin_model(name, method):
    model = keras_models.get_model(name, **TINY[name])
    x = batch(name)
    r = per_sample_gradients(model, x, method=method)
    expected = _builtin_reference(name, model, x)
    assert r.jacobian.shape == expected.shape == (4,) + r.output_shape + r.input_shape
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.y, model(x).numpy(), rtol=1e-6, atol=1e-7)
    assert r.method == ("pfor" if method == "auto" else method)
    assert r.compiled == (method != "loop")


def test_sequence_jacobian_keeps_time_and_feature_axes():
    model = keras_models.get_model("sequence", **TINY["sequence"])
    r = per_sample_gradients(model, batch("sequence", size=3))
    assert r.jacobian.shape == (3, 2, 5, 2)
    assert r.col_labels[:3] == ("x[0,0]", "x[0,1]", "x[1,0]")
    assert r.matrix(1).shape == (2, 10)
    np.testing.assert_array_equal(r.matrix(1), r.jacobian[1].reshape(2, 10))


def test_recurrent_model_uses_the_tiled_method_and_is_right():
    """A model that runs a loop (a SimpleRNN): auto takes the tiled method (issue 41), with no warning, and its
    Jacobians are the per-sample loop's; method='while_loop' still runs batch_jacobian without pfor."""
    params = {"steps": 4, "features": 2, "units": 3, "outputs": 2, "cell": "simple_rnn"}
    model = keras_models.get_model("sequence", **params)
    x = keras_models.make_batch("random normal", (4, 2), 3, seed=2)
    r = per_sample_gradients(model, x)
    assert (r.method, r.warnings) == ("tiled", ())
    np.testing.assert_allclose(r.jacobian, reference(model, x), rtol=1e-5, atol=1e-6)
    w = per_sample_gradients(model, x, method="while_loop")
    assert w.method == "while_loop"
    np.testing.assert_allclose(w.jacobian, reference(model, x), rtol=1e-5, atol=1e-6)


def test_each_sample_matches_per_element_gradients_on_that_sample():
    model = keras_models.get_model("classifier", **TINY["classifier"])
    x = batch("classifier", size=3)
    r = per_sample_gradients(model, x)
    for b in range(3):
        single = per_element_gradients(model, x[b:b + 1])
        np.testing.assert_allclose(r.matrix(b), single.jacobian, rtol=1e-5, atol=1e-6)
    assert r.row_labels == ("y[0]", "y[1]", "y[2]") and r.col_labels[-1] == "x[3]"


def test_multidimensional_outputs_against_the_closed_form():
    # y[b] = outer(x[b], x[b]): d y[b,i,j] / d x[b,k] = delta_ik x_j + x_i delta_jk
    x = np.array([[1.0, 2.0], [3.0, -1.0]], dtype=np.float32)
    r = per_sample_gradients(lambda t: t[:, :, None] * t[:, None, :], x)
    eye = np.eye(2)
    expected = np.einsum("ik,bj->bijk", eye, x) + np.einsum("bi,jk->bijk", x, eye)
    assert r.jacobian.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(r.jacobian, expected)


def test_mean_abs_is_the_batch_mean_of_the_absolute_jacobian():
    x = np.array([[1.0, -2.0], [-3.0, 4.0]], dtype=np.float32)
    r = per_sample_gradients(lambda t: t * t, x)
    np.testing.assert_allclose(r.mean_abs, [[4.0, 0.0], [0.0, 6.0]])


def bn_model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                             keras.layers.Dense(2)])


def test_batchnorm_in_training_mode_is_refused():
    model = bn_model()
    x = batch("mlp_regressor", size=5)
    with pytest.raises(BatchMixingError, match=r"not independent.*call the model with training=False"):
        per_sample_gradients(lambda t: model(t, training=True), x)


def test_batchnorm_in_inference_mode_passes_and_is_right():
    model = bn_model()
    x = batch("mlp_regressor", size=5)
    r = per_sample_gradients(lambda t: model(t, training=False), x)
    np.testing.assert_allclose(r.jacobian, reference(model, x), rtol=1e-5, atol=1e-6)


def test_batch_statistics_without_layers_are_caught_too():
    with pytest.raises(BatchMixingError, match="per_element_gradients on the whole batch"):
        per_sample_gradients(lambda t: t - tf.reduce_mean(t, axis=0), np.ones((3, 2), np.float32))


def test_with_the_independence_check_off_nothing_is_refused_and_each_block_is_batch_jacobians():
    # y = t * mean(t over the batch) mixes the samples: no per-sample gradient exists. Three candidate answers
    # differ here: a sample alone (its own mean) gives 2 t; the true diagonal block of the whole Jacobian is
    # mean + t / B; tape.batch_jacobian, which the check guards, sums every sample's dependence on this
    # sample into its block: mean + sum(t) / B = 2 mean. With the check off that is what comes back, unrefused.
    x = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], np.float32)
    mixing = lambda t: t * tf.reduce_mean(t, axis=0)  # noqa: E731
    with pytest.raises(BatchMixingError):
        per_sample_gradients(mixing, x)
    r = per_sample_gradients(mixing, x, check_independence=False)
    mean = x.mean(axis=0)
    np.testing.assert_allclose(r.jacobian, np.stack([np.diag(2 * mean)] * 3), rtol=1e-6)
    np.testing.assert_allclose(r.y, x * mean, rtol=1e-6)   # y is the batch's own output
    assert r.warnings == ()
    # for independent samples the check changes nothing: the same per-sample Jacobians, checked or not
    model = keras_models.get_model("mlp_regressor", **TINY["mlp_regressor"])
    xb = batch("mlp_regressor")
    unchecked = per_sample_gradients(model, xb, check_independence=False)
    np.testing.assert_allclose(unchecked.jacobian, reference(model, xb), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(unchecked.jacobian, per_sample_gradients(model, xb).jacobian)


def test_auto_falls_back_to_the_while_loop_when_pfor_fails(monkeypatch):
    real = _persample._concrete

    def no_pfor(fn, spec, *, use_pfor, **kwargs):
        if use_pfor:
            raise ValueError("no converter for op Foo")
        return real(fn, spec, use_pfor=use_pfor, **kwargs)

    monkeypatch.setattr(_persample, "_concrete", no_pfor)
    fn = lambda t: tf.sin(t)  # noqa: E731  (a fresh callable: nothing cached)
    x = np.array([[0.0, 1.0]], dtype=np.float32)
    r = per_sample_gradients(fn, x)
    assert r.method == "while_loop"
    np.testing.assert_allclose(r.jacobian[0], np.diag(np.cos([0.0, 1.0])), rtol=1e-6)
    with pytest.raises(GradlibError, match=r"pfor could not vectorize.*no converter for op Foo.*method='while_loop'"):
        per_sample_gradients(lambda t: tf.sin(t), x, method="pfor")


def test_compiled_functions_are_cached_per_model_and_bounded():
    model = keras_models.get_model("mlp_regressor", **TINY["mlp_regressor"])
    per_sample_gradients(model, batch("mlp_regressor"))
    size = len(_persample._SAMPLE_FUNCTIONS)
    per_sample_gradients(model, batch("mlp_regressor", size=7, seed=3))   # another batch size: same trace
    assert len(_persample._SAMPLE_FUNCTIONS) == size


class _TraceLog:
    """Where the functions below record each trace: an attribute, which the compiled cache's key does not read
    (a global list would be read: its contents would change the key)."""

    traced: list


def _scaling(k: int, log: _TraceLog):
    def f(t):
        if not tf.executing_eagerly():   # the Python body runs only when TensorFlow traces it
            log.traced.append(k)
        return t * float(k)
    return f


def test_the_compiled_cache_holds_32_functions_and_drops_the_least_recently_used():
    log = _TraceLog()
    log.traced = []
    fns = [_scaling(k, log) for k in range(33)]
    x = np.array([[1.0, 2.0]], np.float32)

    def run(k):
        r = per_sample_gradients(fns[k], x, method="pfor", check_independence=False)
        np.testing.assert_array_equal(r.jacobian[0], k * np.eye(2))

    for k in range(32):   # 32 fresh functions fill the cache (README: per-sample functions, 32)
        run(k)
    run(0)                # still cached: the 32nd most recent, and now the most recent
    run(32)               # one more evicts the least recently used: 1, not 0 (not first in, first out)
    run(1)
    run(0)
    # a fresh function is traced three times: once for the variables it updates and once for is_random's verdict
    # (its random ops; both remembered for 128 functions, so not again for 1), once in the compiled Jacobian (the
    # batch: check_independence=False traces no held pass, which traced it three more times)
    assert log.traced == [k for k in range(32) for _ in range(3)] + [32] * 3 + [1]


@pytest.mark.parametrize("x, error, message", [
    (np.ones(3, np.float32), gradlib.InputError, r"needs a batch of shape \(B, features...\), but x has shape \(3,\)"),
    (np.ones((2, 3), np.int32), gradlib.InputError,
     "requires floating-point inputs, but x is int32: TensorFlow's tape does not watch integer"),
    (np.ones((0, 3), np.float32), gradlib.InputError, r"got an empty x: shape \(0, 3\); give it at least one"),
    ("abc", gradlib.InputError, "requires floating-point inputs, but x is string: only real floating-point"),
])
def test_bad_batches_are_refused(x, error, message):
    with pytest.raises(error, match=message):
        per_sample_gradients(lambda t: t, x)


def test_a_batch_over_the_element_limit_is_an_input_error_that_states_both_numbers():
    with pytest.raises(gradlib.InputError, match=r"x has 12 elements; at most 10 are allowed"):
        per_sample_gradients(lambda t: t, np.ones((4, 3), np.float32), limits=gradlib.Limits(max_elements=10))


def test_a_function_that_drops_the_batch_axis_is_refused():
    with pytest.raises(GradlibError, match="must return one row per sample"):
        per_sample_gradients(lambda t: tf.reduce_sum(t), np.ones((2, 2), np.float32))


def test_a_model_given_the_wrong_shape_fails_with_a_gradlib_error():
    model = keras_models.get_model("mlp_regressor", **TINY["mlp_regressor"])
    with pytest.raises(GradlibError, match=r"fn failed on a batch of shape \(1, 5\)"):
        per_sample_gradients(model, np.ones((2, 5), np.float32))


@pytest.mark.parametrize("error", [KeyError("weights"), RuntimeError("no session"), ZeroDivisionError("boom")])
def test_any_error_the_callable_raises_becomes_a_gradlib_error_like_per_element_gradients(error):
    def fn(x):
        raise error

    name = type(error).__name__
    with pytest.raises(GradlibError, match=rf"fn failed on a batch of shape \(1, 2\): {name}: .*") as info:
        per_sample_gradients(fn, np.ones((2, 2), np.float32))
    assert info.value.__cause__ is error
    with pytest.raises(GradlibError, match=rf"fn failed on inputs of shape \(2, 2\): {name}: "):
        per_element_gradients(fn, tf.ones((2, 2)))


def test_a_callable_that_fails_only_when_traced_becomes_a_gradlib_error():
    def fn(x):
        if x.shape[0] is None:   # the compiled per-sample Jacobian traces with an unknown batch size
            raise RuntimeError("needs a known batch size")
        return x * 2.0

    with pytest.raises(GradlibError, match=r"fn failed inside the compiled per-sample Jacobian on a batch of shape "
                                           r"\(\d, 2\): RuntimeError: needs a known batch size"):
        per_sample_gradients(fn, np.ones((2, 2), np.float32))


@pytest.mark.parametrize("value", [np.inf, np.nan])
def test_an_all_non_finite_batch_is_not_called_batch_mixing(value):
    model = keras_models.get_model("mlp_regressor", **TINY["mlp_regressor"])
    r = per_sample_gradients(model, np.full((4, 3), value, np.float32))
    assert r.jacobian.shape == (4, 2, 3) and np.isnan(r.jacobian).all()   # not a made-up finite number anywhere
    assert np.isnan(r.y).all()
    assert "x holds NaN or infinite values; the results there are not finite" in r.warnings
    assert ("the samples' independence could only be checked where the probe's Jacobian is finite: it holds NaN or "
            "infinite values") in r.warnings


def test_mixing_is_still_caught_when_some_entries_are_not_finite():
    def mixes(x):   # sample 0's output depends on sample 1's input; sample 2 is infinite
        return x + tf.roll(x, shift=1, axis=0)

    x = np.array([[1.0, 2.0], [3.0, 4.0], [np.inf, 1.0]], np.float32)
    with pytest.raises(BatchMixingError, match=r"the samples of the batch are not independent: the input of sample "):
        per_sample_gradients(mixes, x)


def test_unknown_method_is_refused():
    with pytest.raises(GradlibError, match="method='jacfwd'; choose one of auto, pfor, while_loop, tiled, loop"):
        per_sample_gradients(lambda t: t, np.ones((2, 2), np.float32), method="jacfwd")


def test_too_large_a_jacobian_is_refused_before_computing():
    small = gradlib.Limits(max_jacobian=100)
    with pytest.raises(GradlibError, match=r"would have 256 entries.*at most 100"):
        per_sample_gradients(lambda t: t, np.ones((4, 8), np.float32), limits=small)


def test_per_element_gradients_accepts_a_keras_model():
    model = keras_models.get_model("mlp_regressor", **TINY["mlp_regressor"])
    x = batch("mlp_regressor", size=1)
    r = per_element_gradients(model, x)
    np.testing.assert_allclose(r.jacobian, reference(model, x)[0], rtol=1e-5, atol=1e-6)
    assert r.correct


def _shift(t):
    """y[b] = x[b] + x[b - 3]: samples mix, but only from the fourth sample on (past a 3-sample probe)."""
    return t + tf.concat([tf.zeros_like(t[:3]), t[:-3]], axis=0)


@pytest.mark.parametrize("method", ["auto", "while_loop", "loop"])
def test_mixing_past_the_first_samples_is_caught(method):
    # batch_jacobian returned 2*I blocks here (the sum over the samples each input reaches), with no error
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    with pytest.raises(BatchMixingError, match=r"not independent: the input of sample [0-4] changes the output of "
                                               r"another sample \(a random projection of dy/dx differs"):
        per_sample_gradients(_shift, x, method=method)


def test_mixing_between_the_last_two_samples_of_a_large_batch_is_caught():
    def last_pair(t):   # only y[B-1] sees another sample: x[B-2], weakly
        last = tf.one_hot(tf.shape(t)[0] - 1, tf.shape(t)[0])[:, None]
        return t + 1e-3 * last * tf.roll(t, 1, axis=0)

    x = np.random.default_rng(0).standard_normal((500, 3)).astype(np.float32)
    with pytest.raises(BatchMixingError, match=r"the input of sample 498 changes the output of another sample"):
        per_sample_gradients(last_pair, x)


def test_independent_samples_with_large_and_tiny_values_pass_the_check():
    x = np.concatenate([np.full((4, 3), 1e4), np.full((4, 3), 1e-4)]).astype(np.float32)
    r = per_sample_gradients(lambda t: tf.sin(t) * t * t, x)
    expected = np.cos(x) * x ** 2 + 2 * x * np.sin(x)
    np.testing.assert_allclose(np.einsum("bii->bi", r.jacobian), expected, rtol=1e-3)


def test_a_model_with_two_inputs_takes_a_list_or_a_dict_as_model_fit_does_and_equals_the_loop():
    """A two-input functional model was refused ("could not turn x into a tensor"), then refused by name."""
    keras.utils.set_random_seed(8)
    age, income = keras.Input((3,), name="age"), keras.Input((2, 2), name="income")
    h = keras.layers.Concatenate()([keras.layers.Dense(4, activation="tanh")(age), keras.layers.Flatten()(income)])
    model = keras.Model([age, income], keras.layers.Dense(2)(h))
    rng = np.random.default_rng(3)
    x1, x2 = rng.normal(size=(4, 3)).astype("float32"), rng.normal(size=(4, 2, 2)).astype("float32")
    # the reference: one tape per sample, the Jacobian with respect to each input, laid side by side
    expected = []
    for b in range(4):
        a, c = tf.constant(x1[b:b + 1]), tf.constant(x2[b:b + 1])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([a, c])
            y = model([a, c])[0]
        ja, jc = tape.jacobian(y, a)[:, 0], tape.jacobian(y, c)[:, 0]
        expected.append(np.concatenate([ja.numpy().reshape(2, -1), jc.numpy().reshape(2, -1)], axis=1))
    for x in ([x1, x2], {"age": x1, "income": x2}):
        r = per_sample_gradients(model, x)
        assert r.jacobian.shape == (4, 2, 7) and r.inputs == (("age", (3,)), ("income", (2, 2)))
        np.testing.assert_allclose(r.jacobian, np.stack(expected), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r.y, model([x1, x2]).numpy(), rtol=1e-6)
        assert r.col_labels == ("age[0]", "age[1]", "age[2]", "income[0,0]", "income[0,1]", "income[1,0]",
                                "income[1,1]")
    swapped = per_sample_gradients(model, {"income": x2, "age": x1})   # a dict's order decides the columns
    np.testing.assert_allclose(swapped.jacobian, np.concatenate([np.stack(expected)[..., 3:], np.stack(expected)[..., :3]],
                                                                axis=-1), rtol=1e-5, atol=1e-6)
    with pytest.raises(gradlib.InputError, match=r"the same B; x\['income'\] has shape \(3, 2, 2\) and x\['age'\] \(4, 3\)"):
        per_sample_gradients(model, [x1, x2[:3]])
    # a plain callable still takes a list of per-sample rows as one batch
    rows = per_sample_gradients(lambda t: t * t, [np.array([1.0, 2.0]), np.array([3.0, 4.0])])
    assert rows.jacobian.tolist() == [[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]
    assert rows.inputs == () and rows.col_labels == ("x[0]", "x[1]")


def test_a_warm_call_does_not_run_fn_eagerly_again_to_size_its_output():
    """Each call ran fn eagerly on the first sample to check its output: about 6 of a warm call's 7 ms on the
    Models page's MLP, where a tf.function batch_jacobian took 1 ms."""
    calls = {True: 0, False: 0}   # a dict, not a list of numbers: the compiled cache's fingerprint reads those

    def fn(x):
        calls[tf.executing_eagerly()] += 1
        return x * x

    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    first = per_sample_gradients(fn, x)
    eager_first = calls[True]
    again = per_sample_gradients(fn, x)
    assert eager_first >= 1 and calls[True] == eager_first   # the second call ran fn eagerly not once
    np.testing.assert_array_equal(again.jacobian, first.jacobian)
    other = per_sample_gradients(fn, x[:, :1])                      # another sample shape is checked anew
    assert calls[True] > eager_first and other.jacobian.shape == (3, 1, 1)
    # of two samples neither: both held passes (the first held, then the second) are in the compiled step (hunt
    # 59; before, the pass that holds the second ran eagerly on every call)
    per_sample_gradients(fn, x[:2])
    before = calls[True]
    per_sample_gradients(fn, x[:2])
    assert calls[True] == before


def test_method_loop_traces_fn_once_per_function_and_shape():
    """It traced fn again on every call (to read the precision it computes in), though it runs fn eagerly."""
    log = _TraceLog()
    log.traced = []

    def fn(t):
        if not tf.executing_eagerly():   # the Python body runs eagerly once per sample, traced only when traced
            log.traced.append(tuple(t.shape))
        return tf.tanh(t) * t[:, :1]

    x = np.random.default_rng(3).normal(size=(4, 3)).astype("float32")
    first = per_sample_gradients(fn, x, method="loop")
    for _ in range(2):
        again = per_sample_gradients(fn, x, method="loop")
    other = per_sample_gradients(fn, x + 1, method="loop")           # other values, the same shape
    assert log.traced == [(4, 3), (4, 3), (4, 3)]   # the read of the variables it updates, is_random's read of its
    # random ops (per sample shape), the precision
    per_sample_gradients(fn, x[:2], method="loop")                   # another batch shape is traced once more
    assert log.traced == [(4, 3), (4, 3), (4, 3), (2, 3), (2, 3)]   # the updates read again for this shape
    np.testing.assert_array_equal(again.jacobian, first.jacobian)
    np.testing.assert_allclose(other.jacobian, reference(fn, x + 1), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("rows", [1, _persample.LOOP_ROWS, _persample.LOOP_ROWS + 1])
def test_method_loop_equals_a_tape_loop_on_either_side_of_its_row_bound(rows):
    """Up to LOOP_ROWS output elements a gradient each, past it tape.jacobian: the same Jacobians."""
    w = np.random.default_rng(rows).normal(size=(3, rows)).astype("float32")
    fn = lambda t: tf.sin(t @ w) * t[:, :1]  # noqa: E731
    x = np.random.default_rng(4).normal(size=(3, 3)).astype("float32")
    r = per_sample_gradients(fn, x, method="loop")
    assert r.jacobian.shape == (3, rows, 3)
    np.testing.assert_allclose(r.jacobian, reference(fn, x), rtol=1e-5, atol=1e-6)


def _counting_traces(monkeypatch) -> list:
    """A counter of TensorFlow's traces: every tf.function trace (an eager tape.jacobian's pfor function too)
    builds its graph through ``func_graph_from_py_func``."""
    from tensorflow.python.framework import func_graph

    real, count = func_graph.func_graph_from_py_func, [0]

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(func_graph, "func_graph_from_py_func", counting)
    return count


def test_method_loop_past_its_row_bound_traces_once_per_function_and_shape_not_once_per_sample(monkeypatch):
    # issue 39: past LOOP_ROWS outputs, the eager tape.jacobian traced a new pfor function for every sample (8 here,
    # and 8 more on every call); its step is now traced once per function and sample shape
    fn = lambda t: tf.tile(tf.tanh(t) * t[:, :1], [1, 40])  # noqa: E731 - 80 outputs per sample
    x = np.random.default_rng(39).normal(size=(8, 2)).astype("float32")
    count = _counting_traces(monkeypatch)
    first = per_sample_gradients(fn, x, method="loop")
    assert count[0] <= 4, count[0]   # the step, the reads of fn's precision, its updates and is_random's: not one
    # per sample
    count[0] = 0
    again = per_sample_gradients(fn, x, method="loop")
    assert count[0] == 0, count[0]
    monkeypatch.undo()
    np.testing.assert_allclose(first.jacobian, reference(fn, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(again.jacobian, first.jacobian)


def test_method_loop_past_its_row_bound_still_takes_a_function_that_cannot_be_traced():
    # NumPy on the tensor: no trace of fn exists, so each sample takes the eager tape.jacobian (the constant it
    # makes has no gradient, as the eager tape says: the Jacobian of the NumPy part is 0)
    fn = lambda t: tf.tile(t * tf.constant(np.cos(t.numpy())), [1, 40])  # noqa: E731
    x = np.array([[0.5, 1.0], [2.0, -1.0]], np.float32)
    r = per_sample_gradients(fn, x, method="loop", check_independence=False)
    np.testing.assert_allclose(r.jacobian, reference(fn, x), rtol=1e-6)


@pytest.mark.parametrize("method, builds", [("pfor", 1), ("while_loop", 1), ("loop", 1), ("tiled", 2)])
def test_a_call_says_whether_it_traced_or_built_what_it_ran(method, builds):
    """``traced``: the first call for a function and batch shape traces; the tiled method also runs its fast pass
    for the first time on the second call (that pass optimises its graph then); every later call is warm. A new
    batch shape traces again for tiled (traced for the batch's exact shape) and loop (which traces fn on the batch
    once per shape to read the precision it computes in); pfor and while_loop are traced for any batch size."""
    import keras

    model = keras.Sequential([keras.Input((3, 2)), keras.layers.SimpleRNN(2), keras.layers.Dense(1)])
    x = np.random.default_rng(5).normal(size=(4, 3, 2)).astype(np.float32)
    flags = [gradlib.per_sample_gradients(model, x, method=method, check_independence=False).traced
             for _ in range(builds + 2)]
    assert flags == [True] * builds + [False, False]
    assert gradlib.per_sample_gradients(model, x[:3], method=method, check_independence=False).traced == (
        method in ("tiled", "loop"))
    if method in ("pfor", "while_loop"):   # the check's step is another trace (it holds the held pass)
        assert gradlib.per_sample_gradients(model, x, method=method).traced


def test_check_independence_is_in_the_key_and_its_absence_traces_no_held_pass():
    """Without the check the compiled step holds no held pass (three more passes of fn: 4 -> 11 ms a warm call of a
    small MLP), so the flag is in the key: a checked call answered from the unchecked trace would have no held pass
    and answer a batch statistic's Jacobians. Both flags answer an independent function as a loop of tapes does."""
    log = _TraceLog()
    log.traced = []
    w = tf.constant([[0.5, -1.0, 2.0], [1.0, 0.3, -0.2]], tf.float32)

    def independent(t):
        if not tf.executing_eagerly():
            log.traced.append(tuple(t.shape))
        return tf.tanh(t @ w)

    x = np.random.default_rng(59).normal(size=(4, 2)).astype(np.float32)
    expected = reference(independent, x)
    for check in (False, True, False, True):   # cold then warm, each flag after the other
        r = per_sample_gradients(independent, x, method="pfor", check_independence=check)
        np.testing.assert_allclose(r.jacobian, expected, rtol=1e-5, atol=1e-6)
    # the variables' and is_random's reads (4, 2), the unchecked step (None, 2), the checked step: (None, 2) and
    # the held pass's three towers (the batch, then its even and its odd samples held)
    assert log.traced == [(4, 2), (4, 2), (None, 2)] + [(None, 2)] * 4
    mixing = lambda t: tf.tanh(t / tf.stop_gradient(tf.math.reduce_std(t, axis=0)) @ w)   # noqa: E731
    per_sample_gradients(mixing, x, method="pfor", check_independence=False)   # answered, its trace kept
    with pytest.raises(BatchMixingError, match="when the other samples move"):
        per_sample_gradients(mixing, x, method="pfor")
