"""Built-in Keras models defined in code, and input batches from presets.

Models are only ever *built here*, from code, with a fixed seed: no model file is ever loaded from a user
(``keras.models.load_model`` has had ``safe_mode`` bypasses). The app parses uploaded input data itself
(``dashboard.uploads``), as numbers only.

>>> model = get_model("mlp_regressor", features=3, hidden=(4,), outputs=2)
>>> model.input_shape, model.output_shape
((None, 3), (None, 2))
>>> make_batch("uniform [-1, 1]", sample_shape("sequence", steps=5, features=2), 4).shape
(4, 5, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import keras
import numpy as np

from ._foundations._cache import LRUCache
from ._foundations._errors import ExpressionError

__all__ = ["ACTIVATIONS", "MAX_BATCH", "MAX_LAYERS", "MAX_UNITS", "MODELS", "BATCH_PRESETS", "RECURRENT_CELLS",
           "SEQUENCE_CELLS", "classifier", "get_model", "make_batch", "mlp_regressor", "ModelSpec", "sample_shape",
           "sequence_model"]

#: the activations a built-in model may use
ACTIVATIONS = ("tanh", "relu", "sigmoid", "gelu", "softplus", "linear")
#: the cells ``sequence_model`` can be built with
SEQUENCE_CELLS = ("conv1d", "simple_rnn", "gru")
#: the recurrent ones among them
RECURRENT_CELLS = ("simple_rnn", "gru")
MAX_UNITS = 256            # features, hidden units, outputs, steps: each at most this
MAX_LAYERS = 4             # hidden layers of the MLPs
MAX_BATCH = 512            # samples in one batch
_MODELS = LRUCache(maxsize=8)


# ---------------------------------------------------------------- models


def _dense(units: int, activation: str, seed: int, k: int) -> keras.layers.Dense:
    """A Dense layer whose weights depend only on ``seed`` and its position ``k``."""
    return keras.layers.Dense(units, activation=activation,
                              kernel_initializer=keras.initializers.GlorotUniform(seed=seed * 1000 + k),
                              bias_initializer=keras.initializers.RandomNormal(stddev=0.1, seed=seed * 1000 + 500 + k))


def mlp_regressor(features: int = 8, hidden: tuple[int, ...] = (32, 32), outputs: int = 3,
                  activation: str = "tanh", seed: int = 0) -> keras.Model:
    """A multilayer perceptron with a linear output: ``features -> hidden... -> outputs``.

    >>> mlp_regressor(features=4, hidden=(8, 8), outputs=2).output_shape
    (None, 2)
    """
    layers = [_dense(units, activation, seed, k) for k, units in enumerate(hidden)]
    layers.append(_dense(outputs, "linear", seed, len(hidden)))
    return keras.Sequential([keras.Input((features,))] + layers, name="mlp_regressor")


def classifier(features: int = 8, hidden: tuple[int, ...] = (16,), classes: int = 4, activation: str = "relu",
               seed: int = 0) -> keras.Model:
    """A small classifier whose outputs are class probabilities (a softmax: they sum to one).

    >>> float(classifier(features=3, classes=2)(np.ones((1, 3))).numpy().sum())
    1.0
    """
    layers = [_dense(units, activation, seed, k) for k, units in enumerate(hidden)]
    layers.append(_dense(classes, "softmax", seed, len(hidden)))
    return keras.Sequential([keras.Input((features,))] + layers, name="classifier")


def sequence_model(steps: int = 12, features: int = 3, units: int = 8, outputs: int = 2, cell: str = "conv1d",
                   activation: str = "tanh", seed: int = 0) -> keras.Model:
    """A small model over a sequence of shape ``(steps, features)``: Conv1D + pooling, or a SimpleRNN / GRU.

    >>> sequence_model(steps=5, features=2, cell="gru").input_shape
    (None, 5, 2)
    """
    init = keras.initializers.GlorotUniform(seed=seed * 1000)
    if cell == "conv1d":
        body = [keras.layers.Conv1D(units, min(3, steps), activation=activation, kernel_initializer=init),
                keras.layers.GlobalAveragePooling1D()]
    elif cell == "simple_rnn":
        body = [keras.layers.SimpleRNN(units, activation=activation, kernel_initializer=init,
                                       recurrent_initializer=keras.initializers.Orthogonal(seed=seed * 1000 + 1))]
    else:
        body = [keras.layers.GRU(units, activation=activation, kernel_initializer=init,
                                 recurrent_initializer=keras.initializers.Orthogonal(seed=seed * 1000 + 1))]
    head = _dense(outputs, "linear", seed, 1)
    return keras.Sequential([keras.Input((steps, features))] + body + [head], name=f"sequence_{cell}")


@dataclass(frozen=True)
class ModelSpec:
    """A built-in model: how to build it, its default parameters and the shape of one input sample."""

    name: str
    title: str
    description: str
    build: Callable[..., keras.Model]
    defaults: Mapping[str, Any]
    sample_shape: Callable[[Mapping[str, Any]], tuple[int, ...]]
    output_names: Callable[[Mapping[str, Any]], tuple[str, ...]] = field(
        default=lambda p: tuple(f"y[{k}]" for k in range(p["outputs"])))

    def params(self, **given: Any) -> dict[str, Any]:
        """The defaults updated with ``given``, each checked (unknown names and bad values are refused)."""
        unknown = sorted(set(given) - set(self.defaults))
        if unknown:
            raise ExpressionError(f"{self.name} has no parameter {unknown[0]!r}; it takes {', '.join(self.defaults)}")
        params = {**self.defaults, **given}
        for key, value in params.items():
            params[key] = _check_param(self.name, key, value)
        return params


#: the built-in models by name (``get_model`` builds one)
MODELS: dict[str, ModelSpec] = {
    spec.name: spec for spec in (
        ModelSpec("mlp_regressor", "MLP regressor",
                  "Dense layers with a linear output: each output is a smooth function of every feature.",
                  mlp_regressor, {"features": 8, "hidden": (32, 32), "outputs": 3, "activation": "tanh", "seed": 0},
                  lambda p: (p["features"],)),
        ModelSpec("classifier", "Small classifier",
                  "Dense layers with a softmax output: the class probabilities sum to one, so the summed "
                  "gradient (tape.gradient(y, x)) is zero, whatever the per-class gradients are.",
                  classifier, {"features": 8, "hidden": (16,), "classes": 4, "activation": "relu", "seed": 0},
                  lambda p: (p["features"],), lambda p: tuple(f"p(class {k})" for k in range(p["classes"]))),
        ModelSpec("sequence", "Sequence model",
                  "A (steps, features) sequence through a Conv1D with average pooling, or a SimpleRNN / GRU, "
                  "then a linear head: the Jacobian shows which time steps matter.",
                  sequence_model, {"steps": 12, "features": 3, "units": 8, "outputs": 2, "cell": "conv1d",
                                   "activation": "tanh", "seed": 0},
                  lambda p: (p["steps"], p["features"])),
    )
}


def _check_param(model: str, key: str, value: Any) -> Any:
    if key == "activation":
        return _check_choice(model, key, value, ACTIVATIONS)
    if key == "cell":
        return _check_choice(model, key, value, SEQUENCE_CELLS)
    if key == "hidden":
        if isinstance(value, int):
            value = (value,)
        if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= MAX_LAYERS:
            raise ExpressionError(f"{model}: hidden must be 1 to {MAX_LAYERS} layer sizes, like (32, 32); got {value!r}")
        return tuple(_check_int(model, key, v) for v in value)
    if key == "seed":
        return _check_int(model, key, value, low=0, high=2**20)
    return _check_int(model, key, value)


def _check_choice(model: str, key: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ExpressionError(f"{model}: {key} must be one of {', '.join(choices)}; got {value!r}")
    return value


def _check_int(model: str, key: str, value: Any, low: int = 1, high: int = MAX_UNITS) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ExpressionError(f"{model}: {key} must be a whole number from {low} to {high}; got {value!r}")
    return int(value)


def _spec(name: str) -> ModelSpec:
    if name not in MODELS:
        raise ExpressionError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}")
    return MODELS[name]


def get_model(name: str, **params: Any) -> keras.Model:
    """The built-in model ``name`` with ``params``, built once and cached (bounded): same params, same model.

    >>> get_model("classifier", classes=3) is get_model("classifier", classes=3)
    True
    """
    spec = _spec(name)
    checked = spec.params(**params)
    key = (name, tuple(sorted(checked.items())))
    return _MODELS.get_or_create(key, lambda: spec.build(**checked))


def sample_shape(name: str, **params: Any) -> tuple[int, ...]:
    """The shape of one input sample of model ``name`` (without the batch axis).

    >>> sample_shape("sequence", steps=5, features=2)
    (5, 2)
    """
    spec = _spec(name)
    return spec.sample_shape(spec.params(**params))


# ---------------------------------------------------------------- input batches

#: the kinds of input batch ``make_batch`` makes
BATCH_PRESETS = ("random normal", "uniform [-1, 1]", "ramp", "zeros")


def make_batch(preset: str, shape: tuple[int, ...], batch_size: int, seed: int = 0) -> np.ndarray:
    """A float32 batch of shape ``(batch_size,) + shape`` from a preset; ``ramp`` goes from -1 to 1.

    >>> make_batch("ramp", (3,), 2).tolist()
    [[-1.0, -0.6000000238418579, -0.20000000298023224], [0.20000000298023224, 0.6000000238418579, 1.0]]
    """
    if preset not in BATCH_PRESETS:
        raise ExpressionError(f"unknown preset {preset!r}; choose one of {', '.join(BATCH_PRESETS)}")
    _check_int("batch", "batch_size", batch_size, high=MAX_BATCH)
    full = (batch_size,) + tuple(shape)
    rng = np.random.default_rng(seed)
    if preset == "random normal":
        x = rng.normal(size=full)
    elif preset == "uniform [-1, 1]":
        x = rng.uniform(-1.0, 1.0, size=full)
    elif preset == "ramp":
        x = np.linspace(-1.0, 1.0, math.prod(full)).reshape(full)
    else:
        x = np.zeros(full)
    return x.astype(np.float32)
