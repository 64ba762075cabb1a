"""Built-in Keras models, input batches from presets and uploads, the page's report and the benchmark."""

import io
import pathlib

import numpy as np
import pytest

from gradlib import ExpressionError, GradlibError, keras_models
from gradlib.keras_models import MODELS, get_model, load_batch, make_batch, sample_shape


def weights(model):
    return [w.numpy() for w in model.weights]


def test_the_registry_lists_three_models_with_their_input_shapes():
    assert {"mlp_regressor", "classifier", "sequence"} <= set(MODELS)
    assert sample_shape("mlp_regressor", features=5) == (5,)
    assert sample_shape("sequence", steps=7, features=2) == (7, 2)
    for spec in MODELS.values():
        assert spec.title and spec.description


def test_models_are_deterministic_for_a_seed_and_differ_across_seeds():
    a = keras_models.mlp_regressor(features=3, hidden=(4,), outputs=2, seed=7)
    b = keras_models.mlp_regressor(features=3, hidden=(4,), outputs=2, seed=7)
    c = keras_models.mlp_regressor(features=3, hidden=(4,), outputs=2, seed=8)
    for wa, wb in zip(weights(a), weights(b)):
        np.testing.assert_array_equal(wa, wb)
    assert not np.array_equal(weights(a)[0], weights(c)[0])
    assert np.abs(weights(a)[1]).sum() > 0   # biases are not all zero: the model is not odd-symmetric


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _sequence_by_hand(cell: str, weights_: list, x: np.ndarray) -> np.ndarray:
    """The sequence model written out in NumPy from its weights: Conv1D + mean pooling, SimpleRNN or GRU, Dense."""
    *body, dense_w, dense_b = weights_
    if cell == "conv1d":
        kernel, bias = body                                   # (width, features, units), (units,)
        width = kernel.shape[0]
        windows = np.stack([x[:, t:t + width] for t in range(x.shape[1] - width + 1)], axis=1)   # (B, T', w, F)
        h = np.tanh(np.einsum("btwf,wfu->btu", windows, kernel) + bias).mean(axis=1)
    elif cell == "simple_rnn":
        kernel, recurrent, bias = body
        h = np.zeros((x.shape[0], kernel.shape[1]))
        for t in range(x.shape[1]):
            h = np.tanh(x[:, t] @ kernel + h @ recurrent + bias)
    else:   # Keras's GRU: gates z, r, candidate; reset applied after the recurrent product (reset_after=True)
        kernel, recurrent, bias = body
        u = recurrent.shape[0]
        h = np.zeros((x.shape[0], u))
        for t in range(x.shape[1]):
            xz, xr, xh = np.split(x[:, t] @ kernel + bias[0], 3, axis=1)
            hz, hr, hh = np.split(h @ recurrent + bias[1], 3, axis=1)
            z, r = _sigmoid(xz + hz), _sigmoid(xr + hr)
            h = z * h + (1 - z) * np.tanh(xh + r * hh)
    return h @ dense_w + dense_b


@pytest.mark.parametrize("cell", ["conv1d", "simple_rnn", "gru"])
def test_sequence_models_compute_what_their_layers_say(cell):
    model = keras_models.sequence_model(steps=4, features=2, units=3, outputs=5, cell=cell)
    x = np.random.default_rng(3).normal(size=(2, 4, 2)).astype(np.float32)
    y = model(x).numpy()
    assert y.shape == (2, 5)
    np.testing.assert_allclose(y, _sequence_by_hand(cell, weights(model), x.astype(np.float64)), rtol=1e-5, atol=1e-6)
    assert np.abs(y[0] - y[1]).max() > 1e-3   # each sample its own output


def test_the_classifier_outputs_probabilities():
    model = get_model("classifier", features=3, classes=4)
    p = model(make_batch("random normal", (3,), 5)).numpy()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)
    assert (p > 0).all()


def test_get_model_caches_by_parameters():
    assert get_model("mlp_regressor", features=3) is get_model("mlp_regressor", features=3)
    assert get_model("mlp_regressor", features=3) is not get_model("mlp_regressor", features=4)


@pytest.mark.parametrize("name, params, message", [
    ("mlp", {}, "unknown model 'mlp'; choose one of mlp_regressor, classifier, sequence"),
    ("classifier", {"activation": "swish!"}, "activation must be one of tanh, relu"),
    ("mlp_regressor", {"hidden": (8,) * 5}, r"hidden must be 1 to 4 layer sizes"),
    ("mlp_regressor", {"outputs": 10_000}, "outputs must be a whole number from 1 to 256; got 10000"),
    ("mlp_regressor", {"features": 2.5}, "features must be a whole number"),
    ("sequence", {"cell": "lstm"}, "cell must be one of conv1d, simple_rnn, gru"),
    ("classifier", {"outputs": 3}, "classifier has no parameter 'outputs'"),
])
def test_bad_model_parameters_are_refused(name, params, message):
    with pytest.raises(ExpressionError, match=message):
        get_model(name, **params)


def test_presets_have_the_asked_shape_and_ramp_spans_minus_one_to_one():
    x = make_batch("ramp", (3, 2), 4)
    assert x.shape == (4, 3, 2) and x.dtype == np.float32
    assert x.min() == -1.0 and x.max() == 1.0
    assert not make_batch("zeros", (2,), 3).any()
    assert not np.array_equal(make_batch("random normal", (2,), 3, seed=0), make_batch("random normal", (2,), 3, seed=1))
    with pytest.raises(ExpressionError, match="unknown preset 'gauss'"):
        make_batch("gauss", (2,), 3)


# ---------------------------------------------------------------- uploads


def npy(array, **kw):
    buf = io.BytesIO()
    np.save(buf, array, **kw)
    return buf.getvalue()


def test_csv_with_and_without_header():
    expected = [[1.0, 2.0], [3.5, -4.0]]
    assert load_batch(b"a,b\n1,2\n3.5,-4\n", "x.csv", expected_features=2).tolist() == expected
    assert load_batch(b"1,2\r\n3.5,-4\r\n\r\n", "X.CSV", expected_features=2).tolist() == expected


def test_csv_is_reshaped_to_the_sample_shape():
    x = load_batch(b"1,2,3,4,5,6\n", "seq.csv", expected_features=6, sample_shape=(3, 2))
    assert x.shape == (1, 3, 2) and x[0, 2].tolist() == [5.0, 6.0]


@pytest.mark.parametrize("data, message", [
    (b"1,2,3\n4,5\n", "the CSV is ragged: row 2 has 2 value\\(s\\), but the first row has 3"),
    (b"x,y,z\n1,2,3\n4,abc,6\n", "row 3, column 2: 'abc' is not a number"),
    (b"1,2,3\n4,nan,6\n", "row 2, column 2: 'nan' is not a finite number"),
    (b"1,2,3\n4,5,inf\n", "row 2, column 3: 'inf' is not a finite number"),
    (b"1,2\n3,4\n", r"the CSV has 2 column\(s\) per row, but the model takes 3 input value\(s\) per sample"),
    (b"1,2;3,4\n", "row 1, column 2: '2;3' is not a number \\(separate values with commas\\)"),
    (b"a;b;c\n1;2;3\n", r"has 1 column\(s\) per row.*with 3 numbers separated by commas"),
    (b"a,b,c\n", "the CSV has no data rows"),
    (b"", "the file 'x.csv' is empty"),
    (b"1,2,\xff\n", "the CSV is not UTF-8 text"),
    (b"1_0,2,3\n", "row 1, column 1: '1_0' is not a number"),
    (b"1,2,3\n4,1e300,-1e39\n", r"row 2, column 2: '1e300' is outside float32's range \(about ±3\.4e38\), in which "
                                r"the models compute: it would become infinite \(1 more value\(s\) too\)\. Scale"),
    (b"1,2,3\n" + b"1" * 140_000 + b",2,3\n", r"the CSV cannot be read at line 2: a field is longer than 131,072 "
                                            r"characters\. Put one number per field, separated by commas"),
])
def test_bad_csv_uploads_are_refused_with_where(data, message):
    with pytest.raises(ExpressionError, match=message):
        load_batch(data, "x.csv", expected_features=3)


def test_npy_batches_and_single_samples_load():
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    got = load_batch(npy(x), "x.npy", expected_features=3)
    assert got.dtype == np.float32 and got.tolist() == x.tolist()
    assert load_batch(npy(np.ones(3, np.int16)), "x.npy", expected_features=3).shape == (1, 3)
    seq = load_batch(npy(np.ones((4, 6))), "x.npy", expected_features=6, sample_shape=(3, 2))
    assert seq.shape == (4, 3, 2)


def test_npy_holding_a_pickle_is_refused_without_unpickling():
    data = npy(np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(ExpressionError, match="dtype object; only real numbers are accepted"):
        load_batch(data, "evil.npy", expected_features=2)


@pytest.mark.parametrize("data, message", [
    (npy(np.ones((2, 4))), r"shape \(2, 4\), but the model takes samples of shape \(3,\)"),
    (npy(np.array([[1.0, np.nan, 2.0]])), r"NaN or infinite value at index \(0, 1\)"),
    (npy(np.array([[1.0, 2.0, 1e300], [1e300, 1.0, 1.0]])),
     r"the \.npy array holds 1e\+300 at index \(0, 2\), outside float32's range \(about ±3\.4e38\), in which the "
     r"models compute: it would become infinite \(1 more value\(s\) too\)"),
    (npy(np.array([["a", "b", "c"]])), "only real numbers are accepted"),
    (npy(np.ones((0, 3))), r"shape \(0, 3\)"),
    (b"not an npy file", "not a valid .npy array"),
])
def test_bad_npy_uploads_are_refused(data, message):
    with pytest.raises(ExpressionError, match=message):
        load_batch(data, "x.npy", expected_features=3)


def test_an_npy_header_claiming_a_huge_array_is_refused_before_allocating():
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**12, 3)})
    forged = buf.getvalue() + np.ones(6).tobytes()
    with pytest.raises(ExpressionError, match=r"claims shape \(1000000000000, 3\), larger than the file"):
        load_batch(forged, "x.npy", expected_features=3)


def test_oversized_uploads_and_model_files_are_refused():
    with pytest.raises(ExpressionError, match=r"the file is 3.0 MB; at most 2.0 MB are accepted"):
        load_batch(b"1," * 1_500_000, "big.csv", expected_features=3)
    with pytest.raises(ExpressionError, match=r"upload a .csv or .npy file.*model files are never loaded"):
        load_batch(b"\x89HDF\r\n", "model.h5", expected_features=3)
    with pytest.raises(ExpressionError, match="holds 5 samples; at most 4 are accepted"):
        load_batch(b"1,2,3\n" * 5, "x.csv", expected_features=3, max_rows=4)


def test_no_user_model_file_is_ever_loaded():
    source = "".join(p.read_text() for p in pathlib.Path(keras_models.__file__).parent.glob("*.py"))
    assert "load_model(" not in source and "allow_pickle=True" not in source


# ---------------------------------------------------------------- the page's report and the benchmark


def test_report_matches_the_model_and_times_the_loop_on_a_few_samples():
    params = {"features": 3, "hidden": (4,), "classes": 3}
    x = make_batch("random normal", (3,), 6, seed=5)
    r = keras_models.report("classifier", params, x)
    assert r.output_names == ("p(class 0)", "p(class 1)", "p(class 2)")
    assert r.result.jacobian.shape == (6, 3, 3)
    np.testing.assert_allclose(r.result.y, get_model("classifier", **params)(x).numpy(), rtol=1e-6)
    assert r.loop_samples == 4 and r.loop_seconds > 0 and r.gradlib_seconds > 0
    assert r.speedup == pytest.approx(r.loop_seconds / r.gradlib_seconds)


def test_report_applies_the_limits():
    small = keras_models.Limits(max_jacobian=10)
    with pytest.raises(GradlibError, match="at most 10 are allowed"):
        keras_models.report("mlp_regressor", {"features": 2, "outputs": 2}, np.ones((4, 2)), limits=small)


def test_pitfalls_show_zeros_and_column_sums_beside_the_right_answer():
    params = {"features": 3, "hidden": (4,), "classes": 3}
    x = make_batch("random normal", (3,), 4, seed=5)
    batch = keras_models.report("classifier", params, x, time_loop=False).result
    p = keras_models.pitfalls("classifier", params, x[2])
    np.testing.assert_allclose(p.exact, batch.matrix(2), rtol=1e-5, atol=1e-6)
    assert np.abs(p.exact).max() > 1e-3
    assert not p.naive.any() and p.naive.shape == p.exact.shape       # the loop after the tape: all zeros
    np.testing.assert_allclose(p.summed, p.exact.sum(axis=0), atol=1e-6)  # the sum: column sums ...
    np.testing.assert_allclose(p.summed, 0.0, atol=1e-6)                  # ... zero for a softmax


def test_pitfalls_on_a_regressor_are_not_zero():
    params = {"features": 2, "hidden": (3,), "outputs": 2}
    p = keras_models.pitfalls("mlp_regressor", params, np.array([0.3, -0.7]))
    np.testing.assert_allclose(p.summed, p.exact.sum(axis=0), rtol=1e-5, atol=1e-6)
    assert np.abs(p.summed).max() > 1e-3


def test_benchmark_compares_both_on_the_same_batch():
    out = keras_models.benchmark_per_sample(repeats=1, batch=3)
    assert out["batch"] == 3 and out["method"] == "pfor"
    assert out["max_abs_diff"] < 1e-5
    assert out["speedup"] == pytest.approx(out["loop_seconds"] / out["gradlib_seconds"])
