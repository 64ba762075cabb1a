"""Built-in Keras models and input batches from presets."""

import pathlib

import numpy as np
import pytest

from gradlib import ExpressionError, keras_models
from gradlib.keras_models import MODELS, get_model, make_batch, sample_shape


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


@pytest.mark.parametrize("name", sorted(MODELS))
def test_get_model_keys_its_cache_on_the_seed(name):
    # each seed's cached model has the weights its builder gives for that seed; a key without the seed
    # returned the first seed's model for every later seed
    small = {"mlp_regressor": {"features": 3, "hidden": (4,)}, "classifier": {"features": 3, "hidden": (4,)},
             "sequence": {"steps": 4, "features": 2, "units": 3}}[name]
    models = {seed: get_model(name, seed=seed, **small) for seed in (11, 12)}
    for seed, model in models.items():
        built = MODELS[name].build(**MODELS[name].params(seed=seed, **small))
        for got, want in zip(weights(model), weights(built), strict=True):
            np.testing.assert_array_equal(got, want)
        assert get_model(name, seed=seed, **small) is model   # the same seed: the same (cached) model
    assert not np.array_equal(weights(models[11])[0], weights(models[12])[0])


@pytest.mark.parametrize("name, params, message", [
    ("mlp", {}, "unknown model 'mlp'; choose one of mlp_regressor, classifier, sequence"),
    ("classifier", {"activation": "swish!"}, "activation must be one of tanh, relu"),
    ("mlp_regressor", {"hidden": (8,) * 5}, r"hidden must be 1 to 4 layer sizes"),
    ("mlp_regressor", {"outputs": 10_000}, "outputs must be a whole number from 1 to 256; got 10000"),
    ("mlp_regressor", {"features": 2.5}, "features must be a whole number"),
    ("sequence", {"cell": "lstm"}, "cell must be one of conv1d, simple_rnn, gru"),
    ("classifier", {"outputs": 3}, "classifier has no parameter 'outputs'; it takes features, hidden, classes, "
                                   "activation, seed$"),
])
def test_bad_model_parameters_are_refused(name, params, message):
    with pytest.raises(ExpressionError, match=message):
        get_model(name, **params)


def test_presets_have_the_asked_shape_and_ramp_spans_minus_one_to_one():
    x = make_batch("ramp", (3, 2), 4)
    assert x.shape == (4, 3, 2) and x.dtype == np.float32
    assert x.min() == -1.0 and x.max() == 1.0
    assert not make_batch("zeros", (2,), 3).any()
    # (mutation run: no test drew the uniform preset, which drew a single number when its size was lost)
    u = make_batch("uniform [-1, 1]", (3, 2), 4)
    assert u.shape == (4, 3, 2) and u.dtype == np.float32 and -1.0 <= u.min() < u.max() <= 1.0
    assert not np.array_equal(make_batch("random normal", (2,), 3, seed=0), make_batch("random normal", (2,), 3, seed=1))
    with pytest.raises(ExpressionError, match=r"unknown preset 'gauss'; choose one of random normal, uniform \[-1, 1\], ramp, zeros$"):
        make_batch("gauss", (2,), 3)


def test_no_user_model_file_is_ever_loaded():
    root = pathlib.Path(keras_models.__file__).parent.parent
    source = "".join(p.read_text() for folder in ("gradlib", "dashboard", "pages") for p in (root / folder).rglob("*.py"))
    assert "load_model(" not in source and "allow_pickle=True" not in source
