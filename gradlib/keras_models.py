"""Built-in Keras models defined in code, input batches (presets or a user's CSV / .npy), and one report.

Models are only ever *built here*, from code, with a fixed seed: no model file is ever loaded from a user
(``keras.models.load_model`` has had ``safe_mode`` bypasses). Users may upload input *data*, which
``load_batch`` parses as numbers only (CSV) or with ``np.load(..., allow_pickle=False)`` (.npy).

>>> model = get_model("mlp_regressor", features=3, hidden=(4,), outputs=2)
>>> model.input_shape, model.output_shape
((None, 3), (None, 2))
>>> load_batch(b"a,b,c\\n1,2,3\\n4,5,6\\n", "x.csv", expected_features=3).tolist()
[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
"""

from __future__ import annotations

import csv
import io
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import keras
import numpy as np
import tensorflow as tf

from ._api import per_element_gradients
from ._cache import LRUCache
from ._errors import ExpressionError
from ._limits import LIMITS, Limits
from ._persample import PerSampleResult, per_sample_gradients

__all__ = ["ACTIVATIONS", "LOGITS_LOSS", "LOOP_SAMPLES", "MAX_BATCH", "MAX_LAYERS", "MAX_UNITS",
           "MAX_UPLOAD_BYTES", "MODELS", "PRESETS", "RECURRENT_CELLS", "SEQUENCE_CELLS",
           "benchmark_per_sample", "classifier", "fit", "get_model", "load_batch", "logits_classifier",
           "make_batch", "mlp_regressor", "ModelReport", "ModelSpec", "Pitfalls", "pitfalls", "report",
           "sample_shape", "sequence_model"]

ACTIVATIONS = ("tanh", "relu", "sigmoid", "gelu", "softplus", "linear")
SEQUENCE_CELLS = ("conv1d", "simple_rnn", "gru")
RECURRENT_CELLS = ("simple_rnn", "gru")
MAX_UNITS = 256            # features, hidden units, outputs, steps: each at most this
MAX_LAYERS = 4             # hidden layers of the MLPs
MAX_BATCH = 512            # samples in one batch
MAX_UPLOAD_BYTES = 2_000_000
LOOP_SAMPLES = 4           # the per-sample loop is timed on at most this many samples, then scaled
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


#: the loss of a classifier whose outputs are logits (``logits_classifier``)
LOGITS_LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def logits_classifier(features: int, hidden: int, classes: int, seed: int = 0) -> keras.Model:
    """``features -> Dense(hidden, relu) -> Dense(classes)`` logits, for ``LOGITS_LOSS``; weights drawn from ``seed``.

    >>> logits_classifier(64, 8, 10).output_shape
    (None, 10)
    """
    init = keras.initializers.GlorotUniform
    return keras.Sequential([
        keras.Input((features,)),
        keras.layers.Dense(hidden, activation="relu", kernel_initializer=init(seed=seed), name="hidden"),
        keras.layers.Dense(classes, kernel_initializer=init(seed=seed + 1), name="logits"),
    ], name="logits_classifier")


def fit(model: keras.Model, x: np.ndarray, y: np.ndarray, *, epochs: int, batch_size: int = 128,
        learning_rate: float = 1e-2, seed: int = 0, progress: Callable[[float, str], None] | None = None) -> float:
    """Train ``model`` with Adam on ``LOGITS_LOSS``, the examples in an order drawn from ``seed``; the seconds it took.

    ``progress(fraction, text)`` is called after each epoch.
    """
    model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss=LOGITS_LOSS)
    report = [keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: progress(
        (epoch + 1) / epochs, f"Training: epoch {epoch + 1} of {epochs}, loss {logs['loss']:.3f}"))] if progress else []
    order = np.random.default_rng(seed).permutation(len(x))   # fit's own shuffle would draw from a global seed
    start = time.perf_counter()
    model.fit(x[order], y[order], epochs=epochs, batch_size=batch_size, shuffle=False, verbose=0, callbacks=report)
    return time.perf_counter() - start


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

PRESETS = ("random normal", "uniform [-1, 1]", "ramp", "zeros")


def make_batch(preset: str, shape: tuple[int, ...], batch_size: int, seed: int = 0) -> np.ndarray:
    """A float32 batch of shape ``(batch_size,) + shape`` from a preset; ``ramp`` goes from -1 to 1.

    >>> make_batch("ramp", (3,), 2).tolist()
    [[-1.0, -0.6000000238418579, -0.20000000298023224], [0.20000000298023224, 0.6000000238418579, 1.0]]
    """
    if preset not in PRESETS:
        raise ExpressionError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
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


def load_batch(data: bytes, filename: str, *, expected_features: int, sample_shape: tuple[int, ...] | None = None,
               max_bytes: int = MAX_UPLOAD_BYTES, max_rows: int = MAX_BATCH) -> np.ndarray:
    """Parse an uploaded batch: a numeric CSV (one sample per row, header optional) or a ``.npy`` array.

    Args:
        data: the file's bytes.
        filename: its name; the extension (``.csv`` or ``.npy``) decides the parser.
        expected_features: the number of input elements of one sample (a CSV row's length).
        sample_shape: the shape of one sample, if not ``(expected_features,)``; the batch is reshaped to it.
        max_bytes: larger files are refused before parsing.
        max_rows: at most this many samples.

    Returns:
        A float32 array of shape ``(B,) + sample_shape``.

    Raises:
        ExpressionError: the file is too large, empty, not numeric, ragged, non-finite or of the wrong shape.
    """
    shape = tuple(sample_shape) if sample_shape is not None else (expected_features,)
    _check_upload(data, filename, max_bytes)
    if filename.lower().endswith(".npy"):
        x = _load_npy(data, shape, expected_features)
    else:
        x = _load_csv(data, expected_features).reshape((-1,) + shape)
    if x.shape[0] > max_rows:
        raise ExpressionError(f"the file holds {x.shape[0]:,} samples; at most {max_rows:,} are accepted")
    return x


def _check_upload(data: bytes, filename: str, max_bytes: int) -> None:
    if not filename.lower().endswith((".csv", ".npy")):
        raise ExpressionError(f"upload a .csv or .npy file of input data; got {filename!r} "
                              "(model files are never loaded: the models are built in code)")
    if len(data) > max_bytes:
        raise ExpressionError(f"the file is {len(data) / 1e6:.1f} MB; at most {max_bytes / 1e6:.1f} MB are accepted")
    if not data.strip():
        raise ExpressionError(f"the file {filename!r} is empty")


def _load_csv(data: bytes, features: int) -> np.ndarray:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExpressionError(f"the CSV is not UTF-8 text (byte {exc.start}); save it as a plain CSV") from None
    rows = _csv_rows(text)
    if rows and _is_header(rows[0][1]):
        rows = rows[1:]
    if not rows:
        raise ExpressionError("the CSV has no data rows: put one sample per row, numbers separated by commas")
    width = len(rows[0][1])
    if width != features:
        hint = " separated by commas" if any(";" in c or "\t" in c for c in rows[0][1]) else ""
        raise ExpressionError(f"the CSV has {width} column(s) per row, but the model takes {features} input "
                              f"value(s) per sample: put one sample per row with {features} numbers{hint}")
    values = np.array([_parse_row(n, row, width) for n, row in rows])
    bad = _overflowing(values)
    if len(bad):
        (r, c), more = bad[0], f" ({len(bad) - 1} more value(s) too)" if len(bad) > 1 else ""
        raise ExpressionError(f"row {rows[r][0]}, column {c + 1}: {rows[r][1][c].strip()[:20]!r} is outside float32's "
                              f"range (about ±3.4e38), in which the models compute: it would become infinite{more}. "
                              "Scale the data down")
    return values.astype(np.float32)


def _csv_rows(text: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of a CSV with their 1-based line numbers; a field too long for the reader is refused."""
    reader = csv.reader(io.StringIO(text))
    try:
        return [(n, row) for n, row in enumerate(reader, start=1) if any(c.strip() for c in row)]
    except csv.Error as exc:
        why = (f"a field is longer than {csv.field_size_limit():,} characters" if "field limit" in str(exc)
               else f"it is not a valid CSV ({exc})")
        raise ExpressionError(f"the CSV cannot be read at line {reader.line_num}: {why}. Put one number per field, "
                              "separated by commas, one sample per line") from None


def _overflowing(values: np.ndarray) -> np.ndarray:
    """Indices of the finite values that float32 cannot hold (they would become inf): checked after the cast."""
    with np.errstate(over="ignore"):
        narrow = values.astype(np.float32)
    return np.argwhere(np.isfinite(values) & ~np.isfinite(narrow))


def _parse_row(n: int, row: list[str], width: int) -> list[float]:
    if len(row) != width:
        raise ExpressionError(f"the CSV is ragged: row {n} has {len(row)} value(s), but the first row has {width}")
    values = []
    for col, cell in enumerate(row, start=1):
        if not _is_number(cell):
            hint = " (separate values with commas)" if (";" in cell or "\t" in cell) else ""
            raise ExpressionError(f"row {n}, column {col}: {cell.strip()[:20]!r} is not a number{hint}")
        value = float(cell)
        if not math.isfinite(value):
            raise ExpressionError(f"row {n}, column {col}: {cell.strip()!r} is not a finite number; "
                                  "replace NaN and infinite values")
        values.append(value)
    return values


def _is_header(row: list[str]) -> bool:
    """A header row holds names: no cell is a number and some cell has a letter."""
    return not any(_is_number(c) for c in row) and any(ch.isalpha() for c in row for ch in c)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return "_" not in cell   # float() accepts "1_000"; a CSV should not


def _load_npy(data: bytes, shape: tuple[int, ...], features: int) -> np.ndarray:
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0)
        stored, _, dtype = header(stream)
    except (ValueError, TypeError, SyntaxError) as exc:
        raise ExpressionError(f"the file is not a valid .npy array ({exc})") from None
    _check_npy_header(stored, dtype, len(data))
    try:
        x = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        raise ExpressionError(f"the .npy file could not be read: {exc}") from None
    return _check_npy_array(x, shape, features)


def _check_npy_header(stored: tuple[int, ...], dtype: np.dtype, size: int) -> None:
    """Refuse objects (pickles) and arrays larger than the file before anything is allocated."""
    if dtype.hasobject or dtype.kind not in "fiu":
        raise ExpressionError(f"the .npy array has dtype {dtype}; only real numbers are accepted "
                              "(Python objects and pickles are never loaded)")
    if math.prod(stored) * dtype.itemsize > size:
        raise ExpressionError(f"the .npy header claims shape {stored}, larger than the file itself")


def _check_npy_array(x: np.ndarray, shape: tuple[int, ...], features: int) -> np.ndarray:
    if x.shape == shape:
        x = x[None]   # a single sample
    elif x.ndim == 2 and x.shape[1] == features and x.shape[0] > 0:
        x = x.reshape((-1,) + shape)
    elif x.shape[1:] != shape or x.shape[0] == 0:
        raise ExpressionError(f"the .npy array has shape {x.shape}, but the model takes samples of shape {shape}: "
                              f"save an array of shape (batch,) + {shape}")
    bad = np.argwhere(~np.isfinite(x))
    if len(bad):
        raise ExpressionError(f"the .npy array holds a NaN or infinite value at index {tuple(int(i) for i in bad[0])}; "
                              "replace NaN and infinite values")
    over = _overflowing(x)
    if len(over):
        index = tuple(int(i) for i in over[0])
        more = f" ({len(over) - 1} more value(s) too)" if len(over) > 1 else ""
        raise ExpressionError(f"the .npy array holds {float(x[index])!r} at index {index}, outside float32's range "
                              f"(about ±3.4e38), in which the models compute: it would become infinite{more}. "
                              "Scale the data down")
    return x.astype(np.float32)


# ---------------------------------------------------------------- one report for the page


@dataclass(frozen=True, eq=False)
class ModelReport:
    """Per-sample gradients of a built-in model on a batch, and the timings the page shows, as plain data."""

    result: PerSampleResult
    output_names: tuple[str, ...]
    gradlib_seconds: float         # per_sample_gradients on the whole batch, warm (compiled)
    loop_seconds: float            # the per-sample loop, scaled to the whole batch (NaN: not timed)
    loop_samples: int              # how many samples the loop was actually timed on
    batch_jacobian_seconds: float = float("nan")   # one eager tape.batch_jacobian on the whole batch (NaN: not timed)
    batch_jacobian_pfor: bool = True               # whether that call vectorized with pfor (not for recurrent layers)

    @property
    def speedup(self) -> float:
        """How many times faster gradlib's warm call is than the per-sample eager ``tape.jacobian`` loop."""
        return self.loop_seconds / self.gradlib_seconds

    @property
    def batch_jacobian_speedup(self) -> float:
        """How many times faster gradlib's warm call is than one eager ``tape.batch_jacobian``."""
        return self.batch_jacobian_seconds / self.gradlib_seconds


@dataclass(frozen=True, eq=False)
class Pitfalls:
    """One sample's gradients three ways: right (``exact``), the loop after the tape, and the summed gradient."""

    exact: np.ndarray              # (outputs, inputs): per_element_gradients on the sample alone
    naive: np.ndarray              # (outputs, inputs): ``for y_i in y`` after the tape: all zeros
    summed: np.ndarray             # (inputs,): tape.gradient(y, x), the column sums of ``exact``


def report(name: str, params: Mapping[str, Any], x: np.ndarray, *, time_loop: bool = True,
           limits: Limits = LIMITS) -> ModelReport:
    """Per-sample gradients of built-in model ``name`` on batch ``x``, timed against a per-sample loop.

    >>> r = report("mlp_regressor", {"features": 2, "hidden": (3,), "outputs": 2}, np.ones((4, 2)), time_loop=False)
    >>> r.result.jacobian.shape, r.output_names
    ((4, 2, 2), ('y[0]', 'y[1]'))
    """
    spec = _spec(name)
    checked = spec.params(**params)
    model = get_model(name, **checked)
    x = np.asarray(x, dtype=np.float32)
    result = per_sample_gradients(model, x, limits=limits)
    warm = per_sample_gradients(model, x, check_independence=False, limits=limits).seconds
    loop_seconds, k = _time_loop(model, x) if time_loop else (float("nan"), 0)
    use_pfor = checked.get("cell") not in RECURRENT_CELLS
    batch_seconds = _time_batch_jacobian(model, x, use_pfor) if time_loop else float("nan")
    return ModelReport(result=result, output_names=spec.output_names(checked), gradlib_seconds=warm,
                       loop_seconds=loop_seconds, loop_samples=k, batch_jacobian_seconds=batch_seconds,
                       batch_jacobian_pfor=use_pfor)


def pitfalls(name: str, params: Mapping[str, Any], sample: np.ndarray) -> Pitfalls:
    """The naive loop and the summed gradient on one sample of model ``name``, beside the right answer.

    >>> p = pitfalls("classifier", {"features": 2, "classes": 2}, np.array([0.5, -1.0]))
    >>> p.naive.tolist(), bool(abs(p.summed).max() < 1e-6), p.exact.shape
    ([[0.0, 0.0], [0.0, 0.0]], True, (2, 2))
    """
    model = get_model(name, **params)
    one = np.asarray(sample, dtype=np.float32)[None]
    return Pitfalls(exact=per_element_gradients(model, one).jacobian,
                    naive=per_element_gradients(model, one, method="naive").jacobian,
                    summed=per_element_gradients(model, one, method="summed").jacobian[0])


def _time_batch_jacobian(model: keras.Model, x: np.ndarray, use_pfor: bool) -> float:
    """Seconds of what a TensorFlow user would write: one eager ``tape.batch_jacobian`` over the whole batch.

    Eagerly, pfor re-vectorizes the model on every call; for recurrent layers that takes tens of seconds, so
    they run with ``experimental_use_pfor=False`` (a while_loop over the outputs), as a user would have to.
    """
    xt = tf.constant(x, dtype=tf.float32)
    start = time.perf_counter()
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = model(xt)
        flat = tf.reshape(y, [tf.shape(y)[0], -1])
    tape.batch_jacobian(flat, xt, experimental_use_pfor=use_pfor)
    return time.perf_counter() - start


def _time_loop(model: keras.Model, x: np.ndarray) -> tuple[float, int]:
    k = min(len(x), LOOP_SAMPLES)
    seconds = per_sample_gradients(model, x[:k], method="loop", check_independence=False).seconds
    return seconds * len(x) / k, k


# ---------------------------------------------------------------- benchmark


def benchmark_per_sample(repeats: int = 3, *, batch: int = 96, loop_repeats: int = 1) -> dict[str, Any]:
    """Per-sample gradients of a 64 -> 128 -> 64 -> 10 MLP on a batch of 96: gradlib vs a per-sample loop.

    gradlib is timed warm (best of ``repeats``, after one call that compiles); the loop (one eager
    ``tape.jacobian`` per sample) is timed ``loop_repeats`` times, best kept. Both results are compared.
    """
    model = mlp_regressor(features=64, hidden=(128, 64), outputs=10, activation="tanh", seed=0)
    x = make_batch("random normal", (64,), batch, seed=0)
    start = time.perf_counter()
    fast = per_sample_gradients(model, x)
    first = time.perf_counter() - start
    gradlib_seconds = min(_timed(lambda: per_sample_gradients(model, x)) for _ in range(repeats))
    loop = per_sample_gradients(model, x, method="loop", check_independence=False)
    loop_seconds = min([loop.seconds] + [_timed(lambda: per_sample_gradients(
        model, x, method="loop", check_independence=False)) for _ in range(loop_repeats - 1)])
    return {
        "model": "MLP 64 -> 128 -> 64 -> 10 (tanh)", "batch": batch, "method": fast.method,
        "gradlib_first_call_seconds": first, "gradlib_seconds": gradlib_seconds, "loop_seconds": loop_seconds,
        "speedup": loop_seconds / gradlib_seconds, "target_speedup": 20.0,
        "max_abs_diff": float(np.abs(fast.jacobian - loop.jacobian).max()),
    }


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
