"""Benchmark: per-example gradients of a training loss, every way side by side in one process.

Three Keras models (the 784-512-256-10 Dense classifier at batch 256, a model applying Dense layers to every
step of a sequence, a Conv2D model), one loss (sparse categorical cross-entropy on logits) and these
contenders:

- ``plain batch gradient``: ``tape.gradient`` of the summed loss in a ``tf.function``: the unit of time
  (it gives no per-example anything, it is what one training step costs);
- ``per-example loop``: one eager ``tape.gradient`` per example (the reference for the norms);
- ``tf.vectorized_map``: the per-example gradient function vectorized, compiled;
- ``tape.jacobian``: of the loss vector with respect to the weights, compiled (pfor);
- ``gradlib norms only`` / ``gradlib gradients``: ``gradlib.per_example_gradients`` warm, through its
  public API (results converted to NumPy, like every contender's);
- ``jax.jit(jax.vmap(jax.grad))``: the same model written in JAX, only when JAX is importable.

The contenders are timed interleaved, call by call: in each round every contender is called in turn (norms,
plain, ``vectorized_map``, ...; the order rotates from round to round), ``CALLS`` times over (once when a call
takes more than ``SLOW_SECONDS``), so a burst of load on a shared machine hits neighbouring calls of every
contender alike. Each call is timed twice: wall clock (``time.perf_counter``) and the process's CPU time
(``time.process_time``, every thread's: what the call computed, not the time it waited for a core). A round's
time is the median of its calls; its ratio is that over the same round's plain batch gradient. The tables give
the median ratio of the rounds with their quartiles and their lowest and highest (the spread), never the best;
``--runs`` repeats the whole measurement (a fresh model each time) and reports each run's median and quartiles
beside the rounds of all runs pooled. Every contender's norms are checked against the loop's.

    python3 -m benchmarks.per_example                   # all three models, 3 runs of 9 rounds
    python3 -m benchmarks.per_example --quick           # smaller batches, 1 run of 3 rounds
    python3 -m benchmarks.per_example --problems dense --runs 3 --rounds 15 \
        --contenders "plain batch gradient,tf.vectorized_map (compiled),gradlib norms only"
    python3 -m benchmarks.per_example --json pe.json --csv pe.csv
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import keras
import numpy as np
import pandas as pd
import tensorflow as tf

import gradlib
from benchmarks import history

__all__ = ["CONTENDERS", "NORMS", "PLAIN", "PROBLEMS", "Problem", "Row", "headline", "main", "markdown", "per_run", "pooled",
           "quartiles", "run_problem", "spread_text", "targets"]

#: full per-example gradients of the 784-512-256-10 model at batch 256 are 137 million floats: the benchmark
#: lifts the default limits, which protect a shared server
BENCH_LIMITS = gradlib.Limits(max_elements=4_000_000, max_jacobian=400_000_000)
LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
#: a warm contender is called this many times per round, interleaved with the others (the median is that round's
#: time), once when its first call took more than SLOW_SECONDS
CALLS, SLOW_SECONDS = 5, 0.5
#: the default number of runs and rounds per run
RUNS, ROUNDS = 3, 9
PLAIN = "plain batch gradient"
NORMS = "gradlib norms only"


def loss_vector(loss: keras.losses.Loss, y: tf.Tensor, logits: tf.Tensor) -> tf.Tensor:
    """The unreduced per-example losses of a Keras loss (what ``loss(y, logits)`` averages)."""
    return loss.call(tf.cast(y, loss.dtype), logits)


@dataclass(frozen=True)
class Problem:
    """A model, a batch and what the rows call it."""

    name: str
    description: str
    build: Callable[[], keras.Model]
    x_shape: tuple[int, ...]
    classes: int
    batch: int


def dense_model() -> keras.Model:
    return keras.Sequential([keras.Input((784,)), keras.layers.Dense(512, activation="relu"),
                             keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)])


def sequence_model() -> keras.Model:
    """Two Dense layers applied to each of 16 steps (the exact T x T ghost norm), pooled, a Dense head."""
    return keras.Sequential([keras.Input((16, 64)), keras.layers.Dense(128, activation="tanh"),
                             keras.layers.Dense(128, activation="tanh"), keras.layers.GlobalAveragePooling1D(),
                             keras.layers.Dense(10)])


def conv_model() -> keras.Model:
    return keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
                             keras.layers.Conv2D(32, 3, strides=2, activation="relu"), keras.layers.Flatten(),
                             keras.layers.Dense(10)])


PROBLEMS = {
    "dense": Problem("dense", "Dense 784-512-256-10 (relu)", dense_model, (784,), 10, 256),
    "sequence": Problem("sequence", "Dense(128) twice over 16 steps of 64 features, pooled, Dense(10)",
                        sequence_model, (16, 64), 10, 128),
    "conv2d": Problem("conv2d", "Conv2D 16 (3x3, same) and 32 (3x3, stride 2) on 28x28x1, Dense(10)",
                      conv_model, (28, 28, 1), 10, 128),
}


@dataclass
class Row:
    """One contender on one problem: its first call, its warm time per round (wall and CPU) and its ratios to the
    plain gradient's in the same round; ``runs`` holds each run's number of rounds (pooled rows: several)."""

    problem: str
    contender: str
    batch: int = 0
    method: str = ""
    first_s: float = math.nan
    warm_s: list[float] = field(default_factory=list)        # one median per round
    ratio: list[float] = field(default_factory=list)         # warm / plain batch gradient, per round
    max_norm_error: float = math.nan                          # max relative error of the norms against the loop
    error: str = ""
    cpu_s: list[float] = field(default_factory=list)         # the process's CPU time, one median per round
    cpu_ratio: list[float] = field(default_factory=list)     # CPU time / the plain gradient's CPU time, per round
    runs: list[int] = field(default_factory=list)            # rounds per run, in order

    @property
    def warm_median_s(self) -> float:
        return statistics.median(self.warm_s) if self.warm_s else math.nan

    def spread(self) -> tuple[float, float, float]:
        """(median, lowest, highest) of the per-round ratios."""
        if not self.ratio:
            return math.nan, math.nan, math.nan
        return statistics.median(self.ratio), min(self.ratio), max(self.ratio)


# ---------------------------------------------------------------- the contenders


def norms_of(grads: Sequence[Any]) -> np.ndarray:
    """Per-example L2 norms over all variables of per-example gradients ``(B, ...)`` each."""
    return np.sqrt(sum(np.square(np.asarray(g).reshape(len(g), -1)).sum(axis=1) for g in grads))


def per_example_loop(model: keras.Model) -> Callable:
    """One eager tape per example: losses, then norms from the gradients."""
    def run(x, y):
        grads = []
        for i in range(len(x)):
            with tf.GradientTape() as tape:
                value = LOSS(y[i:i + 1], model(x[i:i + 1], training=False))
            grads.append([g.numpy() for g in tape.gradient(value, model.trainable_variables)])
        return norms_of([np.stack([g[k] for g in grads]) for k in range(len(grads[0]))])
    return run


def plain_gradient(model: keras.Model) -> Callable:
    @tf.function(autograph=False, reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            total = tf.reduce_sum(loss_vector(LOSS, y, model(x, training=False)))
        return tape.gradient(total, model.trainable_variables)
    return lambda x, y: [g.numpy() for g in step(x, y)]


def vectorized_map(model: keras.Model) -> Callable:
    @tf.function(autograph=False, reduce_retracing=True)
    def step(x, y):
        def one(example):
            xi, yi = example
            with tf.GradientTape() as tape:
                value = loss_vector(LOSS, yi[None], model(xi[None], training=False))[0]
            return tape.gradient(value, model.trainable_variables)
        return tf.vectorized_map(one, (x, y))
    return lambda x, y: norms_of([g.numpy() for g in step(x, y)])


def loss_jacobian(model: keras.Model) -> Callable:
    @tf.function(autograph=False, reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            losses = loss_vector(LOSS, y, model(x, training=False))
        return tape.jacobian(losses, model.trainable_variables)
    return lambda x, y: norms_of([g.numpy() for g in step(x, y)])


def gradlib_norms(model: keras.Model) -> Callable:
    return lambda x, y: gradlib.per_example_gradients(model, x, y, loss=LOSS, norms_only=True, limits=BENCH_LIMITS)


def gradlib_gradients(model: keras.Model) -> Callable:
    return lambda x, y: gradlib.per_example_gradients(model, x, y, loss=LOSS, limits=BENCH_LIMITS)


def jax_available() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def jax_vmap_grad(model: keras.Model) -> Callable:
    """``jax.jit(jax.vmap(jax.grad(loss)))`` of the same layers and weights, written in JAX."""
    import jax
    import jax.numpy as jnp

    layers = [layer for layer in model.layers if layer.weights]
    params = [[jnp.asarray(w.numpy()) for w in layer.weights] for layer in layers]

    def forward(params, x):
        h = x
        for layer, p in zip(model.layers, _expand(model.layers, params)):
            h = _jax_layer(jax, jnp, layer, p, h)
        return h

    def one(params, x, y):
        logits = forward(params, x[None])[0]
        return -jax.nn.log_softmax(logits)[y]

    step = jax.jit(jax.vmap(jax.grad(one), in_axes=(None, 0, 0)))

    def run(x, y):
        grads = jax.tree_util.tree_leaves(step(params, jnp.asarray(x), jnp.asarray(y)))
        return norms_of([np.asarray(g) for g in grads])
    return run


def _expand(layers: Sequence[Any], params: list) -> list:
    it = iter(params)
    return [next(it) if layer.weights else [] for layer in layers]


def _jax_layer(jax: Any, jnp: Any, layer: Any, p: list, h: Any) -> Any:
    activation = {"relu": jax.nn.relu, "tanh": jnp.tanh, "linear": lambda v: v}
    if isinstance(layer, keras.layers.Dense):
        return activation[layer.activation.__name__](h @ p[0] + p[1])
    if isinstance(layer, keras.layers.Conv2D):
        z = jax.lax.conv_general_dilated(h, p[0], layer.strides, layer.padding.upper(),
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return activation[layer.activation.__name__](z + p[1])
    if isinstance(layer, keras.layers.GlobalAveragePooling1D):
        return h.mean(axis=1)
    if isinstance(layer, keras.layers.Flatten):
        return h.reshape(h.shape[0], -1)
    raise NotImplementedError(f"no JAX version of {type(layer).__name__}")


CONTENDERS: dict[str, Callable[[keras.Model], Callable]] = {
    PLAIN: plain_gradient,
    "per-example loop (eager)": per_example_loop,
    "tf.vectorized_map (compiled)": vectorized_map,
    "tape.jacobian of the loss vector (compiled)": loss_jacobian,
    NORMS: gradlib_norms,
    "gradlib gradients": gradlib_gradients,
    "jax.jit(jax.vmap(jax.grad))": jax_vmap_grad,
}


# ---------------------------------------------------------------- timing


def _norms(out: Any) -> np.ndarray | None:
    if isinstance(out, gradlib.PerExampleResult):
        return out.norms
    return out if isinstance(out, np.ndarray) else None


def _method(out: Any) -> str:
    return out.method if isinstance(out, gradlib.PerExampleResult) else ""


def _timed(fn: Callable, x: np.ndarray, y: np.ndarray) -> tuple[float, float, Any]:
    """``(wall seconds, CPU seconds of the process, output)`` of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(x, y)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def run_problem(problem: Problem, *, rounds: int, batch: int | None = None, contenders: Sequence[str] | None = None,
                progress: Callable[[str], None] = lambda message: None) -> list[Row]:
    """Time every contender on ``problem`` in ``rounds`` interleaved rounds; norms checked against the loop."""
    keras.utils.set_random_seed(0)
    model = problem.build()
    rng = np.random.default_rng(0)
    size = batch or problem.batch
    x = rng.normal(size=(size,) + problem.x_shape).astype(np.float32)
    y = rng.integers(0, problem.classes, size).astype(np.int32)
    names = [n for n in (contenders or CONTENDERS) if n != "jax.jit(jax.vmap(jax.grad))" or jax_available()]
    if PLAIN not in names:
        names.insert(0, PLAIN)
    rows = {name: Row(problem.name, name, size) for name in names}
    functions: dict[str, Callable] = {}
    reference = per_example_loop(model)(x, y)
    for name in names:   # first calls (tracing included), and the correctness check
        progress(f"{problem.name}: first call of {name}")
        try:
            functions[name] = CONTENDERS[name](model)
            rows[name].first_s, _, out = _timed(functions[name], x, y)
            rows[name].method = _method(out)
            norms = _norms(out)
            if norms is not None:
                rows[name].max_norm_error = float(np.max(np.abs(norms - reference) / np.abs(reference)))
        except Exception as exc:   # noqa: BLE001 - a contender that cannot run is reported in its row
            rows[name].error = f"{type(exc).__name__}: {gradlib.error_gist(exc)}"[:200]
            functions.pop(name, None)
    slow = {name for name in functions if rows[name].first_s > SLOW_SECONDS}
    for r in range(rounds):
        progress(f"{problem.name}: round {r + 1} of {rounds}")
        _round(functions, rows, slow, r, x, y)
    for row in rows.values():
        row.runs = [len(row.warm_s)] if row.warm_s else []
    return list(rows.values())


def _round(functions: dict[str, Callable], rows: dict[str, Row], slow: set[str], r: int, x: np.ndarray,
           y: np.ndarray) -> None:
    """One round: every contender called in turn (the order rotated by ``r``), ``CALLS`` times over (``slow`` ones
    once); each row gets the median wall and CPU time of its calls and their ratios to the plain gradient's."""
    order = list(functions)
    order = order[r % len(order):] + order[:r % len(order)]
    walls: dict[str, list[float]] = {name: [] for name in order}
    cpus: dict[str, list[float]] = {name: [] for name in order}
    for k in range(CALLS):
        for name in order:
            if k and name in slow:
                continue
            wall, cpu, _ = _timed(functions[name], x, y)
            walls[name].append(wall)
            cpus[name].append(cpu)
    for name in order:
        rows[name].warm_s.append(statistics.median(walls[name]))
        rows[name].cpu_s.append(statistics.median(cpus[name]))
    plain = rows[PLAIN]
    for name in order:
        rows[name].ratio.append(rows[name].warm_s[-1] / plain.warm_s[-1])
        rows[name].cpu_ratio.append(rows[name].cpu_s[-1] / plain.cpu_s[-1] if plain.cpu_s[-1] > 0 else math.nan)


def pooled(rows: Sequence[Row]) -> list[Row]:
    """The rows of several runs, one per problem and contender, their rounds concatenated in run order (``runs``
    the rounds of each), the first run's first call, the largest norm error and the first error."""
    out: dict[tuple[str, str], Row] = {}
    for row in rows:
        key = (row.problem, row.contender)
        if key not in out:
            out[key] = Row(row.problem, row.contender, row.batch, row.method, row.first_s,
                           max_norm_error=row.max_norm_error, error=row.error)
        merged = out[key]
        merged.warm_s += row.warm_s
        merged.ratio += row.ratio
        merged.cpu_s += row.cpu_s
        merged.cpu_ratio += row.cpu_ratio
        merged.runs += row.runs or ([0] if not row.warm_s else [])
        merged.max_norm_error = max(merged.max_norm_error, row.max_norm_error) \
            if not math.isnan(row.max_norm_error) else merged.max_norm_error
        merged.error = merged.error or row.error
    return list(out.values())


def per_run(values: Sequence[float], runs: Sequence[int]) -> list[list[float]]:
    """``values`` (the rounds of all runs) split into each run's rounds."""
    out, at = [], 0
    for n in runs:
        out.append(list(values[at:at + n]))
        at += n
    return out


def quartiles(values: Sequence[float]) -> tuple[float, float, float, float, float]:
    """``(median, lower quartile, upper quartile, lowest, highest)`` of ``values`` (NaNs left out)."""
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return (math.nan,) * 5
    if len(values) == 1:
        return (values[0],) * 5
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return statistics.median(values), q1, q3, min(values), max(values)


def spread_text(values: Sequence[float]) -> str:
    """``0.62x (quartiles 0.58-0.66, range 0.5-0.9)``: the median of the rounds, then their spread."""
    median, q1, q3, low, high = quartiles(values)
    if math.isnan(median):
        return "n/a"
    if len(values) == 1:
        return gradlib.format_ratio(median)
    d = lambda v: gradlib.format_ratio(v)[:-1]  # noqa: E731 - the digits, without the x
    return f"{gradlib.format_ratio(median)} (quartiles {d(q1)}-{d(q3)}, range {d(low)}-{d(high)})"


# ---------------------------------------------------------------- reporting


def frame(rows: Sequence[Row]) -> pd.DataFrame:
    """One line per contender: times in ms, the ratios to the plain gradient (wall and CPU) with their spread."""
    out = []
    for row in rows:
        median, low, high = row.spread()
        _, q1, q3, _, _ = quartiles(row.ratio)
        cpu, cpu_q1, cpu_q3, cpu_low, cpu_high = quartiles(row.cpu_ratio)
        out.append({"problem": row.problem, "batch": row.batch, "contender": row.contender, "method": row.method,
                    "first_ms": 1000 * row.first_s, "warm_ms": 1000 * row.warm_median_s,
                    "x_plain": median, "x_plain_low": low, "x_plain_high": high, "x_plain_q1": q1, "x_plain_q3": q3,
                    "cpu_x_plain": cpu, "cpu_x_plain_q1": cpu_q1, "cpu_x_plain_q3": cpu_q3,
                    "cpu_x_plain_low": cpu_low, "cpu_x_plain_high": cpu_high, "rounds": len(row.ratio),
                    "runs": len(row.runs), "max_norm_error": row.max_norm_error, "error": row.error})
    return pd.DataFrame(out)


def markdown(rows: Sequence[Row], problem: Problem) -> str:
    lines = [f"**{problem.description}, batch {rows[0].batch}**", "",
             "| contender | gradlib method | first call ms | warm ms (median of rounds) | wall / plain batch gradient "
             "(median of rounds, quartiles, range) | CPU time / plain batch gradient's | norms: max relative error "
             "vs loop |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        if row.error:
            lines.append(f"| {row.contender} | | | | failed: {row.error} | | |")
            continue
        error = "" if math.isnan(row.max_norm_error) else f"{row.max_norm_error:.1e}"
        lines.append(f"| {row.contender} | {row.method} | {1000 * row.first_s:,.1f} | {1000 * row.warm_median_s:,.2f} | "
                     f"{spread_text(row.ratio)} | {spread_text(row.cpu_ratio)} | {error} |")
    return "\n".join(lines)


def _judged(name: str, values: Sequence[float], runs: Sequence[int], bound: float, lower: bool,
            moonshot: float | None = None) -> str:
    """One target line: the pooled rounds' median and spread, each run's median, and where the bound held."""
    held = (lambda v: v <= bound) if lower else (lambda v: v >= bound)
    medians = [statistics.median(r) for r in per_run(values, runs) if r]
    text = (f"{name}: {spread_text(values)} over {len(values)} rounds of {len(medians)} run(s); run medians "
            f"{', '.join(gradlib.format_ratio(m) for m in medians)} (target at {'most' if lower else 'least'} "
            f"{bound:g}: met by {sum(map(held, medians))} of {len(medians)} run medians, in "
            f"{sum(map(held, values))} of {len(values)} rounds")
    if moonshot is not None:
        text += f"; moonshot {moonshot:g}: {sum(m <= moonshot for m in medians)} of {len(medians)} run medians"
    return text + ")"


def targets(rows: Sequence[Row]) -> list[str]:
    """Issue 41's two speed targets on the Dense problem, judged per run and per round (same run, same load), on
    wall-clock time and on CPU time. ``rows``: ``run_problem``'s, or ``pooled`` over several runs."""
    by = {row.contender: row for row in rows if row.problem == "dense"}
    norms, vmap = by.get(NORMS), by.get("tf.vectorized_map (compiled)")
    if norms is None or not norms.ratio:
        return []
    runs = norms.runs or [len(norms.ratio)]
    out = [_judged(f"gradlib norms only / {PLAIN} (wall)", norms.ratio, runs, 0.8, True, 0.5)]
    if norms.cpu_ratio:
        out.append(_judged(f"gradlib norms only / {PLAIN} (CPU time)", norms.cpu_ratio, runs, 0.8, True, 0.5))
    if vmap is not None and vmap.warm_s:
        out.append(_judged("tf.vectorized_map / gradlib norms only (wall)",
                           [v / n for v, n in zip(vmap.warm_s, norms.warm_s)], runs, 25, False))
    if vmap is not None and vmap.cpu_s and norms.cpu_s:
        out.append(_judged("tf.vectorized_map / gradlib norms only (CPU time)",
                           [v / n for v, n in zip(vmap.cpu_s, norms.cpu_s)], runs, 25, False))
    return out


def headline(rows: Sequence[Row]) -> dict[str, tuple[list[float], str]]:
    """The ratios the history keeps (``benchmarks.history``): per problem, gradlib's norms and gradients over the
    plain batch gradient, and ``tf.vectorized_map`` over gradlib's norms (a speed-up), per round; the same on the
    CPU times, named with ``(CPU)``."""
    out: dict[str, tuple[list[float], str]] = {}
    for problem in dict.fromkeys(row.problem for row in rows):
        by = {row.contender: row for row in rows if row.problem == problem}
        for name in (NORMS, "gradlib gradients"):
            if name in by:
                out[f"{problem}: {name} / {PLAIN}"] = (by[name].ratio, "lower")
                if by[name].cpu_ratio:
                    out[f"{problem}: {name} / {PLAIN} (CPU)"] = (by[name].cpu_ratio, "lower")
        vmap, norms = by.get("tf.vectorized_map (compiled)"), by.get(NORMS)
        if vmap is not None and norms is not None:
            out[f"{problem}: tf.vectorized_map / {NORMS}"] = ([v / n for v, n in zip(vmap.warm_s, norms.warm_s)],
                                                             "higher")
            if vmap.cpu_s and norms.cpu_s:
                out[f"{problem}: tf.vectorized_map / {NORMS} (CPU)"] = (
                    [v / n for v, n in zip(vmap.cpu_s, norms.cpu_s)], "higher")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.per_example", description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", default=",".join(PROBLEMS), help="comma-separated: " + ", ".join(PROBLEMS))
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds per run")
    parser.add_argument("--runs", type=int, default=RUNS, help="runs, each with a fresh model, reported apart")
    parser.add_argument("--batch", type=int, default=None, help="override every problem's batch size")
    parser.add_argument("--quick", action="store_true", help="batch 32, 1 run of 3 rounds")
    parser.add_argument("--contenders", help="comma-separated contenders to time (the plain gradient always runs)")
    parser.add_argument("--json", help="write every row, with the per-round times, here")
    parser.add_argument("--csv", help="write the summary table here")
    args = parser.parse_args(argv)
    names = [p.strip() for p in args.problems.split(",") if p.strip()]
    unknown = [n for n in names if n not in PROBLEMS]
    if unknown:
        parser.error(f"unknown problem {unknown[0]!r}; choose from {', '.join(PROBLEMS)}")
    chosen = [c.strip() for c in args.contenders.split(",")] if args.contenders else None
    if chosen and any(c not in CONTENDERS for c in chosen):
        parser.error(f"unknown contender {next(c for c in chosen if c not in CONTENDERS)!r}; choose from "
                     f"{', '.join(CONTENDERS)}")
    runs, rounds, batch = (1, 3, 32) if args.quick else (max(args.runs, 1), args.rounds, args.batch)
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}, JAX "
          f"{'importable' if jax_available() else 'not importable (its row is skipped)'}; {runs} run(s) of {rounds} "
          f"rounds, {CALLS} interleaved calls per round; load average {_load()}", flush=True)
    everything: list[Row] = []
    for name in names:
        rows = []
        for run in range(runs):
            rows += run_problem(PROBLEMS[name], rounds=rounds, batch=batch, contenders=chosen,
                                progress=lambda m: print(f"  run {run + 1}: {m}", file=sys.stderr, flush=True))
        rows = pooled(rows)
        everything += rows
        print("\n" + markdown(rows, PROBLEMS[name]), flush=True)
    print(f"\nload average at the end: {_load()}")
    for line in targets(everything):
        print(line)
    history.record("per_example", headline(everything))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{**asdict(r), "spread": r.spread()} for r in everything], f, indent=1)
    if args.csv:
        frame(everything).to_csv(args.csv, index=False)
    return 0


def _load() -> str:
    try:
        return ", ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "n/a"


if __name__ == "__main__":
    sys.exit(main())
