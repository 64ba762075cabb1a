"""Benchmark: per-sample gradients of a 64 -> 128 -> 64 -> 10 Keras MLP on a batch of 96, gradlib vs a loop.

gradlib's ``per_sample_gradients`` (one compiled, vectorized call) is timed warm in several rounds, after one
call that compiles; the reference, one eager ``tape.jacobian`` per sample (``method="loop"``), is slow and is
timed ``loop_repeats`` times (median kept). The speedup is the loop's time over each round of gradlib's:
the median with the lowest and highest of the rounds (the spread, not the best). Both results are compared.
``python3 -m benchmarks.mlp`` runs it after its tables (issue 6); on its own:

    python3 -m benchmarks.per_sample [--rounds N] [--recurrent-only]

Then the recurrent models (issue 41, item 4): Keras GRU, LSTM and SimpleRNN models (batch 32, 10 steps, 8 features,
32 units, a Dense head of 4), gradlib's ``per_sample_gradients`` (``auto``) against the ``tf.function`` a user would
write, ``tape.batch_jacobian`` inside it, with pfor (TensorFlow's default) and without (``while_loop``). Each
contender's first call (its tracing included) is timed once and reported apart; gradlib is then called until its
compiled version is final (graph, or XLA once the calls paid for its build: ``SETTLE_SECONDS``, as
``benchmarks.mlp`` does), each contender once more untimed; then in each of the interleaved rounds every contender
is called ``calls`` times warm (tracing not included) and the round's ratio is the peer's mean time over gradlib's
(above 1: gradlib is faster). Each contender returns NumPy (the peers' ``.numpy()`` is
timed, as gradlib's conversion is). The Jacobians are compared with each other.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

import gradlib
import keras
import tensorflow as tf
from gradlib import keras_models
from benchmarks import history

__all__ = ["benchmark_per_sample", "main"]


def benchmark_per_sample(repeats: int = 3, *, batch: int = 96, loop_repeats: int = 1) -> dict[str, Any]:
    """gradlib's warm ``per_sample_gradients`` in ``repeats`` rounds against the per-sample loop, on one batch."""
    model = keras_models.mlp_regressor(features=64, hidden=(128, 64), outputs=10, activation="tanh", seed=0)
    x = keras_models.make_batch("random normal", (64,), batch, seed=0)
    start = time.perf_counter()
    fast = gradlib.per_sample_gradients(model, x)
    first = time.perf_counter() - start
    rounds = [_timed(lambda: gradlib.per_sample_gradients(model, x)) for _ in range(repeats)]
    loop = gradlib.per_sample_gradients(model, x, method="loop", check_independence=False)
    loop_seconds = statistics.median([loop.seconds] + [_timed(lambda: gradlib.per_sample_gradients(
        model, x, method="loop", check_independence=False)) for _ in range(loop_repeats - 1)])
    gradlib_seconds = statistics.median(rounds)
    return {
        "model": "MLP 64 -> 128 -> 64 -> 10 (tanh)", "batch": batch, "method": fast.method,
        "gradlib_first_call_seconds": first, "gradlib_seconds": gradlib_seconds, "loop_seconds": loop_seconds,
        "speedup": loop_seconds / gradlib_seconds,
        "speedup_rounds": [loop_seconds / s for s in rounds],
        "speedup_text": gradlib.format_ratio([loop_seconds / s for s in rounds]), "target_speedup": 20.0,
        "max_abs_diff": float(np.abs(fast.jacobian - loop.jacobian).max()),
    }


#: gradlib is called until its compiled version is final (graph or XLA, ``compiled_final``), within this budget
SETTLE_SECONDS, SETTLE_CALLS = 12.0, 3000


def _settle(call: Callable[[], Any]) -> int:
    """Call gradlib until it settles between graph and XLA (its steady state in a loop); the calls made."""
    calls, start = 0, time.perf_counter()
    while calls < SETTLE_CALLS and time.perf_counter() - start < SETTLE_SECONDS:
        calls += 1
        if call().compiled_final:
            break
    return calls


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


#: the recurrent layers timed, by the name the results use
RECURRENT = {"GRU": "GRU", "LSTM": "LSTM", "SimpleRNN": "SimpleRNN"}


def recurrent_model(kind: str, *, steps: int = 10, features: int = 8, units: int = 32, outputs: int = 4,
                    seed: int = 0) -> keras.Model:
    """A Keras ``kind`` layer (``GRU``, ``LSTM``, ``SimpleRNN``) over ``(steps, features)`` and a Dense head."""
    layer = getattr(keras.layers, RECURRENT[kind])
    init = keras.initializers.GlorotUniform(seed=seed)
    return keras.Sequential([keras.Input((steps, features)), layer(units, kernel_initializer=init),
                             keras.layers.Dense(outputs, kernel_initializer=init)], name=kind.lower())


def batch_jacobian_function(model: keras.Model, use_pfor: bool) -> Callable:
    """What a user writes: ``tape.batch_jacobian`` of the model inside a ``tf.function`` (without pfor TensorFlow
    needs a persistent tape)."""
    @tf.function
    def jacobian(x):
        with tf.GradientTape(persistent=not use_pfor) as tape:
            tape.watch(x)
            y = model(x)
        return tape.batch_jacobian(y, x, experimental_use_pfor=use_pfor)

    return jacobian


def benchmark_recurrent(kind: str, rounds: int = 7, *, calls: int = 5, batch: int = 32, steps: int = 10,
                        features: int = 8) -> dict[str, Any]:
    """gradlib against the ``tf.function`` batch_jacobian (pfor and while_loop) on one recurrent model, interleaved."""
    model = recurrent_model(kind, steps=steps, features=features)
    x = keras_models.make_batch("random normal", (steps, features), batch, seed=0).astype(np.float32)
    contenders = {"gradlib": lambda: gradlib.per_sample_gradients(model, x).jacobian}
    for name, pfor in (("pfor", True), ("while_loop", False)):
        f = batch_jacobian_function(model, pfor)
        contenders[name] = lambda f=f: f(x).numpy()
    first, answers = {}, {}
    for name, call in contenders.items():
        start = time.perf_counter()
        answers[name] = call()
        first[name] = time.perf_counter() - start
    warmup = _settle(lambda: gradlib.per_sample_gradients(model, x))
    for name, call in contenders.items():   # each one's second call (gradlib's first unchecked one) is not timed
        call()
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, call in contenders.items():
            times[name].append(_timed(lambda: [call() for _ in range(calls)]) / calls)
    ratios = {name: [p / g for p, g in zip(times[name], times["gradlib"])] for name in ("pfor", "while_loop")}
    last = gradlib.per_sample_gradients(model, x)
    return {"model": f"{kind} {steps} steps x {features} features, 32 units, Dense 4", "batch": batch,
            "method": last.method, "compiled_as": last.compiled_as, "warmup_calls": warmup,
            "first_call_seconds": first, "warm_seconds": {k: statistics.median(v) for k, v in times.items()},
            "ratio_rounds": ratios, "ratio_text": {k: gradlib.format_ratio(v) for k, v in ratios.items()},
            "max_abs_diff": max(float(np.abs(answers["gradlib"] - answers[k]).max()) for k in ratios)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.per_sample")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--recurrent-only", action="store_true")
    args = parser.parse_args(argv)
    ratios: dict[str, tuple[list[float], str]] = {}
    if not args.recurrent_only:
        result = benchmark_per_sample(repeats=args.rounds)
        for key, value in result.items():
            print(f"- {key}: {value}")
        ratios["per-sample loop / gradlib per_sample_gradients"] = (result["speedup_rounds"], "higher")
    for kind in RECURRENT:
        result = benchmark_recurrent(kind, args.rounds)
        print(f"\n### {result['model']}, batch {result['batch']}: gradlib method {result['method']} "
              f"({result['compiled_as']}, after {result['warmup_calls']} warm-up calls)")
        print("- first call (tracing included), s: " + ", ".join(f"{k} {v:.2f}" for k, v in
                                                               result["first_call_seconds"].items()))
        print("- warm median per call, ms: " + ", ".join(f"{k} {1e3 * v:.2f}" for k, v in
                                                        result["warm_seconds"].items()))
        for peer, text in result["ratio_text"].items():
            print(f"- tf.function batch_jacobian ({peer}) / gradlib, per round: {text}")
            ratios[f"tf.function batch_jacobian ({peer}) / gradlib per_sample_gradients, {kind}"] = (
                result["ratio_rounds"][peer], "higher")
        print(f"- max |J gradlib - J batch_jacobian|: {result['max_abs_diff']:.2e}")
    history.record("per_sample", ratios)
    return 0


if __name__ == "__main__":
    sys.exit(main())
