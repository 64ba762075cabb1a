"""Every cache of gradlib, one row per input its answer depends on: a warm request that differs from the one before
it in exactly that input gives the answer a cold process gives, never the one before.

A row is two requests ``a`` and ``b`` that differ in one input (a closure's value, a shape, a dtype, a method, the
text, the watched inputs, a loss, ``training``, the probes). The test makes ``b`` cold (every cache cleared), then
``a`` and ``b`` warm in that order, and asks: the cold answers of ``a`` and ``b`` differ (the input decides the
answer), ``b`` after ``a`` is ``b`` cold in every field of its result (values, method, labels, warnings), and each
cache the row names missed during the warm ``b`` (its key holds that input: a key without it would hit and return
``a``'s entry). ``test_every_cache_has_a_row`` finds every cache in gradlib's modules (an ``LRUCache`` or a
``functools.lru_cache``), so a new cache without a row fails.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._foundations._cache import LRUCache

from answers import CLOCKED, observed, same

X = np.array([1.0, 2.0], np.float32)
XB = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]], np.float32)


def _caches() -> dict[str, object]:
    """Every module-level cache of gradlib, by ``module.name`` (lint and the scan command keep none)."""
    found = {}
    for info in pkgutil.walk_packages(gradlib.__path__, "gradlib."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, LRUCache) or (isinstance(value, functools._lru_cache_wrapper)
                                               and value.__module__ == info.name):
                found[f"{info.name.removeprefix('gradlib.')}.{name}"] = value
    return found


CACHES = _caches()


def _clear() -> None:
    for cache in CACHES.values():
        cache.clear() if isinstance(cache, LRUCache) else cache.cache_clear()


def _counts() -> dict[str, tuple[int, int, int]]:
    """Each cache's (hits, misses, entries)."""
    return {name: (c.hits, c.misses, len(c)) if isinstance(c, LRUCache) else tuple(c.cache_info()[:2]) + (
        c.cache_info().currsize,) for name, c in CACHES.items()}


#: a warning about how often the check ran: it depends on the clock, not on the request
_CLOCKED = "the Jacobian was checked against fn itself on earlier calls only"


def _observed(value):
    """What a result says, without its timings and the probe's note about earlier calls: plain data to compare."""
    return observed(value, timed=("second", "time", "cost"), clocked=(_CLOCKED,) + CLOCKED)


def _times(c):
    return lambda x: x * c


def _maybe_unreached(use):
    return lambda xs: xs[0] * 2.0 + (xs[1] if use else 0.0)


_STE = tf.custom_gradient(lambda x: (tf.round(x), lambda dy: dy))


def _maybe_custom(use):
    return lambda x: (_STE(x) if use else tf.round(x)) * x


def _maybe_moments(use):
    """A sample's variance by tf.nn.moments (refused at second order: its stop_gradient), or computed plainly."""
    return lambda x: (tf.nn.moments(x, axes=[-1])[1] if use else tf.math.reduce_variance(x, axis=-1))[..., None]


def _maybe_loop(use):
    """Each sample's running sum of squares by tf.scan (a while loop: forward over reverse is refused) or by cumsum."""
    return lambda x: (tf.transpose(tf.scan(lambda a, v: a + v * v, tf.transpose(x))) if use
                      else tf.cumsum(x * x, axis=-1))


def _or_refusal(call):
    """The result, or gradlib's refusal (a request a cache must not turn into another's answer)."""
    try:
        return call()
    except gradlib.GradlibError as e:
        return ("refused", str(e))


class Doubled(keras.layers.Layer):
    """x, or 2 x in training: what ``training`` decides, without randomness or batch statistics."""

    def call(self, x, training=None):
        return x * 2.0 if training else x


def _per_example(loss="mse", training=False, norms_only=False):
    model = _SMALL()
    y = np.array([[1.0], [0.0], [2.0]], np.float32)
    return gradlib.per_example_gradients(model, XB, y, loss=loss, training=training, norms_only=norms_only)


@functools.cache
def _SMALL():   # noqa: N802 - one model for every row (the caches key on it)
    model = keras.Sequential([keras.Input((2,)), Doubled(), keras.layers.Dense(1)])
    model.layers[1].set_weights([np.array([[1.0], [-0.5]], np.float32), np.array([0.1], np.float32)])
    return model


def _squared(y, p):
    return keras.ops.mean(keras.ops.square(y - p), axis=-1)


def _absolute(y, p):
    return keras.ops.mean(keras.ops.abs(y - p), axis=-1)


def _compiled_with(fn):
    """per_example_gradients with the loss a model was compiled with: a plain function, which model.compile wraps
    (one model, compiled again for each request, so the variables' names are the same)."""
    model = _PLAIN()
    model.compile(loss=fn)
    return gradlib.per_example_gradients(model, XB, np.array([[1.0], [0.0], [2.0]], np.float32))


@functools.cache
def _PLAIN():   # noqa: N802 - one model, compiled anew by each request of the compiled-function row
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.layers[0].set_weights([np.array([[1.0], [-0.5]], np.float32), np.array([0.1], np.float32)])
    return model


def _scan(loss):
    model = _SMALL()
    y = np.array([[1.0], [0.0], [2.0]], np.float32)
    return gradlib.scan(model, tf.data.Dataset.from_tensor_slices((XB, y)), loss=loss, batch_size=2)


_RUNS: list = []


def _maybe_counting(use):
    """A function that changes a value it reads (its runs, counted in a list), or one that does not."""
    if use:
        def counting(x):
            _RUNS.append(1)
            return x * 2.0
        return counting
    return lambda x: x * 3.0


def _maybe_random(use):
    """A function that draws at every call (Dropout's way), or one that does not."""
    return lambda x: x * 2.0 + (tf.random.uniform(tf.shape(x)) if use else 0.0)


_COUNT = tf.Variable(0.0)


def _maybe_updating(use):
    """A function whose output reads a variable it updates (refused before any call), or one that only reads it."""
    return lambda x: x * (_COUNT.assign_add(1.0) if use else _COUNT + 1.0)


_LAP = lambda x: tf.reduce_sum(x ** 3, axis=1, keepdims=True)  # noqa: E731
_CUBE = lambda x: x ** 3  # noqa: E731
_SQUARE = lambda x: x * x  # noqa: E731
#: mixes the batch through a statistic under stop_gradient: only the held pass sees it (``_mixing``)
_STATISTIC = lambda x: tf.tanh(x / tf.stop_gradient(tf.math.reduce_std(x, axis=0)))  # noqa: E731

#: (the input that differs, the caches that must miss on it, request(variant), variant a, variant b)
ROWS = [
    ("a closure's value (first order, XLA)", ["_perelement._compute._JACOBIAN_FUNCTIONS",
                                              "_perelement._compute._OUTPUT_SIZES", "_perelement._probe._SHARES"],
     lambda c: gradlib.per_element_gradients(_times(c), X, method="jacobian", compiled=True), 2.0, 3.0),
    ("a closure's value (auto compiled: the structured Jacobian read from the trace)", ["_perelement._opgraph._READINGS"],
     lambda c: gradlib.per_element_gradients(_times(c), X, compiled=True), 2.0, 3.0),
    ("a closure's value (a warm call of auto, answered from its recipe)", ["_perelement._warm._RECIPES"],
     lambda c: [gradlib.per_element_gradients(_times(c), tf.constant(X), compiled=True) for _ in range(6)][-1],
     2.0, 3.0),
    ("a closure's value (auto, eager)", ["_perelement._engine._EAGER_SECONDS"],
     lambda c: gradlib.per_element_gradients(_times(c), X), 2.0, 3.0),
    ("what a closure changes itself (read from its source)", ["_callable._state.mutated"],
     lambda use: gradlib.per_element_gradients(_maybe_counting(use), X, compiled=True), True, False),
    ("which inputs a closure reaches", ["_perelement._compute._UNREACHED"],
     lambda use: gradlib.per_element_gradients(_maybe_unreached(use), [X, X]), True, False),
    ("whether a closure defines its gradient", ["_perelement._compute._CUSTOM_GRADIENTS"],
     lambda use: _or_refusal(lambda: gradlib.per_element_gradients(
         _maybe_custom(use), np.array([0.3, 0.6], np.float32), method="forward", compiled=True)), True, False),
    ("the method (first order)", ["_perelement._compute._JACOBIAN_FUNCTIONS", "_perelement._cost.estimate"],
     lambda m: gradlib.per_element_gradients(_SQUARE, X, method=m, compiled=True), "jacobian", "forward"),
    ("the shape (first order)", ["_perelement._compute._JACOBIAN_FUNCTIONS", "_perelement._package._column_labels",
                                 "_callable._labels._small_labels", "_perelement._cost.estimate"],
     lambda n: gradlib.per_element_gradients(_SQUARE, np.arange(1, n + 1, dtype=np.float32), compiled=True), 2, 3),
    ("the dtype (first order)", ["_perelement._compute._JACOBIAN_FUNCTIONS", "_perelement._compute._OUTPUT_SIZES"],
     lambda d: gradlib.per_element_gradients(_SQUARE, X.astype(d), method="jacobian", compiled=True),
     np.float32, np.float64),
    ("the text", ["_language._syntax._parse_cached", "_perelement._request._REQUESTS"],
     lambda t: gradlib.evaluate(t, {"x": X}), "x*x", "x*x*x"),
    ("the watched inputs", ["_perelement._request._REQUESTS"],
     lambda w: gradlib.evaluate("x*y*y", {"x": X, "y": X}, watch=[w]), "x", "y"),
    ("an input's rank, where structured gives up at run time", ["_perelement._engine._NOT_STRUCTURED"],
     lambda rank: gradlib.evaluate("A @ x", {"A": np.ones((2,) * (rank - 2) + (3, 3), np.float32),
                                             "x": np.ones(3, np.float32)}, watch=["x"], compiled=True), 3, 2),
    ("the shape (crosscheck)", ["_perelement._comparison._crosscheck._TRACED"],
     lambda n: gradlib.crosscheck(_SQUARE, np.arange(1, n + 1, dtype=np.float32)), 2, 3),
    ("a closure's value (per sample)", ["_perelement._persample._SAMPLE_FUNCTIONS",
                                        "_callable._outputs._OUTPUT_SHAPES"],
     lambda c: gradlib.per_sample_gradients(_times(c), XB), 2.0, 3.0),
    ("check_independence (per sample: the step without it has no held pass)",
     ["_perelement._persample._SAMPLE_FUNCTIONS"],
     lambda check: _or_refusal(lambda: gradlib.per_sample_gradients(_STATISTIC, XB, check_independence=check)),
     False, True),
    ("whether a closure is random (per sample)", ["_callable._random._VERDICTS"],
     lambda use: gradlib.per_sample_gradients(_maybe_random(use), XB), True, False),
    ("whether a closure updates a variable it reads (per sample)", ["_callable._updates._VERDICTS"],
     lambda use: _or_refusal(lambda: gradlib.per_sample_gradients(_maybe_updating(use), XB)), True, False),
    ("a closure's value (per sample, loop)", ["_perelement._persample._PRECISIONS"],
     lambda c: gradlib.per_sample_gradients(_times(c), XB, method="loop"), 2.0, 3.0),
    ("a closure's value (per sample, loop, over LOOP_ROWS outputs)", ["_perelement._persample._LOOP_STEPS"],
     lambda c: gradlib.per_sample_gradients(lambda x: tf.tile(x * c, [1, 33]), XB, method="loop"), 2.0, 3.0),
    ("a closure's value (per sample, tiled)", ["_perelement._persample._TILED_STEPS"],
     lambda c: gradlib.per_sample_gradients(_times(c), XB, method="tiled"), 2.0, 3.0),
    ("the batch size (per sample, tiled: traced for the exact shape)", ["_perelement._persample._TILED_STEPS"],
     lambda n: gradlib.per_sample_gradients(_SQUARE, XB[:n], method="tiled"), 2, 3),
    ("an input's shape (per sample, a dict)", ["_callable._forms._JOINED"],
     lambda k: gradlib.per_sample_gradients(lambda d: d["a"][:, :1] * tf.reduce_sum(d["b"], 1, keepdims=True),
                                            {"a": XB, "b": np.ones((3, k), np.float32)}), 2, 3),
    ("a closure's value (Hessians)", ["_second._runner._COMPILED"],
     lambda c: gradlib.hessians(lambda x: x ** 3 * c, X), 2.0, 3.0),
    ("whether a closure defines its gradient (Hessians)", ["_second._runner._DEFINED"],
     lambda use: _or_refusal(lambda: gradlib.hessians(_maybe_custom(use), np.array([0.3, 0.6], np.float32),
                                                      method="forward_over_reverse")), True, False),
    ("whether a closure's variance is tf.nn.moments' (Laplacian)", ["_second._runner._CUT"],
     lambda use: _or_refusal(lambda: gradlib.laplacian(_maybe_moments(use), XB)), True, False),
    ("whether a closure runs a while loop (Laplacian)", ["_second._runner._LOOPS"],
     lambda use: _or_refusal(lambda: gradlib.laplacian(_maybe_loop(use), XB, method="forward_over_reverse")), True,
     False),
    ("check_independence (Laplacian: the step without it has no held pass)", ["_second._runner._COMPILED"],
     lambda check: _or_refusal(lambda: gradlib.laplacian(_STATISTIC, XB, check_independence=check)), False, True),
    ("the method (Hessians)", ["_second._runner._COMPILED"],
     lambda m: gradlib.hessians(_CUBE, X, method=m), "loop", "nested_tapes"),
    ("the probes (Laplacian)", ["_second._runner._COMPILED"],
     lambda p: gradlib.laplacian(_LAP, XB, method="hutchinson", probes=p), 4, 8),
    ("the method (hvp)", ["_second._hessians._HVP"],
     lambda m: gradlib.hvp(_CUBE, X, X, method=m), "forward_over_reverse", "reverse_over_reverse"),
    ("a closure's value (hvp)", ["_second._hessians._HVP"],
     lambda c: gradlib.hvp(lambda x: x ** 3 * c, X, X), 2.0, 3.0),
    ("the loss (per example)", ["_perexample._gradients._BATCH_FUNCTIONS", "_perexample._structure._keras_loss"],
     lambda loss: _per_example(loss=loss), "mse", "mae"),
    ("the function a model was compiled with (per example)",
     ["_perexample._gradients._BATCH_FUNCTIONS", "_perexample._structure._wrapped"], _compiled_with, _squared, _absolute),
    ("training (per example)", ["_perexample._gradients._BATCH_FUNCTIONS"],
     lambda training: _per_example(training=training), False, True),
    ("the loss (scan)", ["_perexample._scan._COMPILED", "_perexample._scan._PROBED"], _scan, "mse", "mae"),
    ("a built-in model's parameter", ["keras_models._MODELS"],
     lambda classes: gradlib.keras_models.get_model("classifier", classes=classes), 3, 4),
]


def test_every_cache_has_a_row():
    named = {name for _, caches, *_ in ROWS for name in caches}
    assert named == set(CACHES), f"caches without a row: {sorted(set(CACHES) - named)}; rows naming no cache: " \
                                 f"{sorted(named - set(CACHES))}"


@pytest.mark.parametrize("field, caches, request_, a, b", ROWS, ids=[row[0] for row in ROWS])
def test_a_request_differing_in_one_input_is_not_answered_from_the_cache(field, caches, request_, a, b, monkeypatch):
    _clear()
    cold_b = _observed(request_(b))
    _clear()
    cold_a = _observed(request_(a))
    assert not same(cold_a, cold_b), f"{field}: the two requests have the same answer, so the row tests nothing"
    kept = {name: set(c.keys()) for name, c in CACHES.items() if isinstance(c, LRUCache)}
    asked: dict[int, list] = {}
    original, original_get = LRUCache.get_or_create, LRUCache.get

    def recording(cache, key, create):
        asked.setdefault(id(cache), []).append(key)
        return original(cache, key, create)

    def recording_get(cache, key, default=None):
        asked.setdefault(id(cache), []).append(key)
        return original_get(cache, key, default)

    monkeypatch.setattr(LRUCache, "get_or_create", recording)
    monkeypatch.setattr(LRUCache, "get", recording_get)
    before = _counts()
    warm_b = _observed(request_(b))
    after = _counts()
    monkeypatch.undo()
    assert same(warm_b, cold_b), f"{field}: the second request was answered otherwise than cold"
    for name in caches:
        cache = CACHES[name]
        if isinstance(cache, LRUCache):
            reused = [k for k in asked.get(id(cache), []) if k in kept[name]]
            assert not reused, f"{field}: {name} answered the second request from the first's entry {reused[0]!r}"
            assert kept[name] or asked.get(id(cache)), f"{field}: the requests never reach {name}"
        else:   # functools: keyed on every argument by construction; the row must reach it with new arguments
            assert after[name][1] > before[name][1], f"{field}: the second request never made a new {name} entry"
