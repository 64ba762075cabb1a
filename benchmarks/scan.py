"""Benchmark: ``gradlib.scan`` over a whole data set against plain batch gradients over the same batches.

Throughput, side by side in one process, on the 784-512-256-10 Dense classifier (sparse categorical
cross-entropy on logits) over an in-memory data set of ``--examples`` examples, batch 256:

- ``plain batch gradients``: the same ``tf.data`` batches (``from_tensor_slices``, ``batch``, ``prefetch``)
  through one compiled ``tape.gradient`` of the summed loss; each step's gradients are reduced to one number
  that is fetched (so all are computed and nothing big is copied): the unit of time;
- ``gradlib.scan``: every example's loss and gradient norm, warm (its step compiled by an earlier scan, as
  when a data set is scanned again), results in NumPy in the data set's order;
- ``per_example_gradients, batch by batch``: a Python loop over the same batches, one warm
  ``gradlib.per_example_gradients(norms_only=True)`` each (what one would write without ``scan``).

The contenders are timed round-robin in several rounds; each round's times are divided by that round's plain
batch gradients, and the table reports the median ratio with the lowest and highest of the rounds (the spread,
not the best). Every contender's norms are checked against ``per_example_gradients`` on the whole data set.

Small scans: the same contenders on a 32-64-10 classifier over 256 and 2,000 examples (``SMALL_SIZES``), where
a scan's fixed cost per call (checks, building its pipeline) shows: at most 2x the plain batch gradients at
2,000 examples is the target (issue 26).

Memory: a fresh process scans a small data set to warm up, then a generator data set (``from_generator``,
made 500 examples at a time and unbatched) of 12,000 and then one of 60,000 examples with the same model, and
reports its resident memory after each; the growth is measured in ``--memory-runs`` fresh processes.

    python3 -m benchmarks.scan                         # 20,480 examples, 5 rounds; memory in 3 processes
    python3 -m benchmarks.scan --quick                 # 4,096 examples, 3 rounds; memory in 1 process
    python3 -m benchmarks.scan --small                 # only the small scans (256 and 2,000 examples), 7 rounds
    python3 -m benchmarks.scan --json scan.json
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import keras
import numpy as np
import tensorflow as tf

import gradlib
from benchmarks import history

__all__ = ["CONTENDERS", "PLAIN", "SCAN", "SMALL_SIZES", "Row", "main", "markdown", "memory", "memory_child",
           "memory_markdown", "small_model", "small_scans", "targets", "throughput"]

LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
BATCH = 256
FEATURES, CLASSES = 784, 10
PLAIN = "plain batch gradients"
SCAN = "gradlib.scan"
MEMORY_SIZES = (12_000, 60_000)
#: the small scans: a 32-64-10 classifier over this many examples (the fixed cost of a call shows here)
SMALL_SIZES = (256, 2_000)
SMALL_FEATURES = 32
DENSE = "Dense 784-512-256-10"
SMALL = "Dense 32-64-10"
WARM_UP = 2_560
ROOT = Path(__file__).resolve().parents[1]


def dense_model() -> keras.Model:
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((FEATURES,)), keras.layers.Dense(512, activation="relu"),
                             keras.layers.Dense(256, activation="relu"), keras.layers.Dense(CLASSES)])


def small_model() -> keras.Model:
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((SMALL_FEATURES,)), keras.layers.Dense(64, activation="relu"),
                             keras.layers.Dense(CLASSES)])


def data(n: int, features: int = FEATURES) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, features)).astype(np.float32), rng.integers(0, CLASSES, n).astype(np.int32)


@dataclass
class Row:
    """One contender: its time per round, its ratio to the plain batch gradients per round, its norms' error."""

    contender: str
    seconds: list[float] = field(default_factory=list)
    ratio: list[float] = field(default_factory=list)
    max_norm_error: float = math.nan

    def spread(self) -> tuple[float, float, float]:
        """(median, lowest, highest) of the per-round ratios."""
        if not self.ratio:
            return math.nan, math.nan, math.nan
        return statistics.median(self.ratio), min(self.ratio), max(self.ratio)


# ---------------------------------------------------------------- the contenders


def plain_gradients(model: keras.Model) -> Callable:
    @tf.function(autograph=False, reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            total = tf.reduce_sum(LOSS.call(tf.cast(y, LOSS.dtype), model(x, training=False)))
        return tf.add_n([tf.reduce_sum(g) for g in tape.gradient(total, model.trainable_variables)])

    def run(x, y):
        for xb, yb in tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).prefetch(tf.data.AUTOTUNE):
            float(step(xb, yb))
        return None
    return run


def scan(model: keras.Model) -> Callable:
    return lambda x, y: gradlib.scan(model, (x, y), loss=LOSS, batch_size=BATCH).norms


def batch_by_batch(model: keras.Model) -> Callable:
    def run(x, y):
        batches = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).prefetch(tf.data.AUTOTUNE)
        return np.concatenate([gradlib.per_example_gradients(model, xb, yb, loss=LOSS, norms_only=True).norms
                               for xb, yb in batches])
    return run


CONTENDERS: dict[str, Callable[[keras.Model], Callable]] = {
    PLAIN: plain_gradients,
    SCAN: scan,
    "per_example_gradients, batch by batch": batch_by_batch,
}


def throughput(examples: int, rounds: int, log: Callable[[str], None] = lambda m: None, *,
               small: bool = False) -> list[Row]:
    """Each contender once to warm up (and to check its norms), then ``rounds`` timed round-robin rounds;
    ``small``: on the 32-64-10 classifier instead of the 784-512-256-10 one."""
    model = small_model() if small else dense_model()
    x, y = data(examples, SMALL_FEATURES if small else FEATURES)
    reference = np.concatenate([gradlib.per_example_gradients(model, x[i:i + 1024], y[i:i + 1024], loss=LOSS,
                                                              norms_only=True).norms for i in range(0, examples, 1024)])
    functions = {name: make(model) for name, make in CONTENDERS.items()}
    rows = {name: Row(name) for name in functions}
    for name, fn in functions.items():
        log(f"warm-up: {name}")
        norms = fn(x, y)
        if norms is not None:
            rows[name].max_norm_error = float(np.max(np.abs(norms - reference) / reference))
    for r in range(rounds):
        for name, fn in functions.items():
            log(f"round {r + 1} of {rounds}: {name}")
            gc.collect()
            start = time.perf_counter()
            fn(x, y)
            rows[name].seconds.append(time.perf_counter() - start)
        for row in rows.values():
            row.ratio.append(row.seconds[-1] / rows[PLAIN].seconds[-1])
    return list(rows.values())


def small_scans(rounds: int, log: Callable[[str], None] = lambda m: None) -> dict[int, list[Row]]:
    """``throughput`` on the 32-64-10 classifier at each of ``SMALL_SIZES``."""
    return {n: throughput(n, rounds, lambda m, n=n: log(f"{n:,} examples, {m}"), small=True) for n in SMALL_SIZES}


# ---------------------------------------------------------------- memory, in fresh processes


def generated(n: int) -> tf.data.Dataset:
    """``n`` examples made as they are read (500 at a time), handed out one by one: nothing of size ``n``."""
    def chunks():
        rng = np.random.default_rng(1)
        for start in range(0, n, 500):
            m = min(500, n - start)
            yield rng.normal(size=(m, FEATURES)).astype(np.float32), rng.integers(0, CLASSES, m).astype(np.int32)

    spec = (tf.TensorSpec((None, FEATURES), tf.float32), tf.TensorSpec((None,), tf.int32))
    return tf.data.Dataset.from_generator(chunks, output_signature=spec).unbatch()


def resident_bytes() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))


def memory_child(sizes: Sequence[int]) -> dict[str, int]:
    """In this (fresh) process: a warm-up scan, then a generator data set of each size in turn; memory after each.

    The warm-up (``WARM_UP`` examples) lets the process's first scan set up what any first scan sets up
    (TensorFlow's thread and memory pools, the traced step), so that the sizes are compared like for like.
    """
    model, out = dense_model(), {}
    gradlib.scan(model, generated(WARM_UP), loss=LOSS, batch_size=BATCH)
    for n in sizes:
        result = gradlib.scan(model, generated(n), loss=LOSS, batch_size=BATCH)
        assert len(result) == n
        del result
        gc.collect()
        out[str(n)] = resident_bytes()
    return out


def memory(runs: int, log: Callable[[str], None] = lambda m: None) -> list[dict[str, int]]:
    out = []
    for r in range(runs):
        log(f"memory: fresh process {r + 1} of {runs}")
        done = subprocess.run([sys.executable, "-m", "benchmarks.scan", "--memory-child"], capture_output=True,
                              text=True, timeout=900, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if done.returncode != 0:
            raise RuntimeError(f"the memory process failed: {done.stderr[-2000:]}")
        out.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return out


# ---------------------------------------------------------------- reporting


def markdown(rows: Sequence[Row], examples: int, model: str = DENSE) -> str:
    lines = [f"**{model}, {examples:,} examples in memory, batch {BATCH}**", "",
             "| contender | seconds (median of rounds) | examples/s | time / plain batch gradients (median [lowest, "
             "highest] of rounds) | norms: max relative error vs per_example_gradients |",
             "|---|---:|---:|---:|---:|"]
    for row in rows:
        seconds = statistics.median(row.seconds)
        error = "" if math.isnan(row.max_norm_error) else f"{row.max_norm_error:.1e}"
        lines.append(f"| {row.contender} | {seconds:.3f} | {examples / seconds:,.0f} | "
                     f"{gradlib.format_ratio(row.ratio)} | {error} |")
    return "\n".join(lines)


def memory_markdown(runs: Sequence[dict[str, int]]) -> str:
    small, large = (str(n) for n in MEMORY_SIZES)
    growth = [(r[large] - r[small]) / 2**20 for r in runs]
    return "\n".join([
        f"**Memory: a generator data set of {int(large):,} examples against one of {int(small):,}, same process "
        f"(Dense 784-512-256-10, batch {BATCH})**", "",
        "| fresh process | resident MB after 12,000 | after 60,000 | growth MB |", "|---:|---:|---:|---:|",
        *[f"| {i + 1} | {r[small] / 2**20:,.1f} | {r[large] / 2**20:,.1f} | {g:+.2f} |"
          for i, (r, g) in enumerate(zip(runs, growth))],
        "", f"growth: median {statistics.median(growth):+.2f} MB [lowest {min(growth):+.2f}, highest {max(growth):+.2f}]"])


def targets(rows: Sequence[Row], runs: Sequence[dict[str, int]], small: dict[int, list[Row]] | None = None) -> list[str]:
    """The issues' targets: scan at most 2x the plain batch gradients (on the large set, and on the small model's
    2,000 examples); a few MB of growth, 12k to 60k."""
    out = []
    scans = ([("", rows)] if rows else []) + [(f" ({SMALL}, {n:,} examples)", r) for n, r in (small or {}).items()]
    for label, group in scans:
        scan_row = next(r for r in group if r.contender == SCAN)
        out.append(f"gradlib.scan / plain batch gradients{label}: {gradlib.format_ratio(scan_row.ratio)} (target at "
                   f"most 2: met in {sum(r <= 2 for r in scan_row.ratio)} of {len(scan_row.ratio)} rounds)")
    if runs:
        growth = [(r[str(MEMORY_SIZES[1])] - r[str(MEMORY_SIZES[0])]) / 2**20 for r in runs]
        out.append(f"memory growth 12,000 -> 60,000 examples: {statistics.median(growth):+.2f} MB [{min(growth):+.2f}, "
                   f"{max(growth):+.2f}] (target a few MB, here at most 4: met in {sum(g <= 4 for g in growth)} of "
                   f"{len(growth)} processes)")
    return out


def _scan_ratios(rows: Sequence[Row], small: dict[int, list[Row]]) -> list[tuple[str, list[float]]]:
    """(label, scan's per-round ratios to the plain batch gradients) of the large set and each small scan."""
    groups = ([("", rows)] if rows else []) + [(f" ({SMALL}, {n:,} examples)", r) for n, r in small.items()]
    return [(label, next(r for r in group if r.contender == SCAN).ratio) for label, group in groups]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.scan", description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=20_480)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-runs", type=int, default=3, help="fresh processes for the memory measurement")
    parser.add_argument("--quick", action="store_true", help="4,096 examples, 3 rounds, 1 memory process")
    parser.add_argument("--small", action="store_true", help="only the small scans (32-64-10, 256 and 2,000 examples)")
    parser.add_argument("--small-rounds", type=int, default=7, help="rounds of the small scans")
    parser.add_argument("--json", help="write the rows and the memory runs here")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(MEMORY_SIZES)))
        return 0
    examples, rounds, runs = (4096, 3, 1) if args.quick else (args.examples, args.rounds, args.memory_runs)
    if args.small:
        rounds = runs = 0
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}; {rounds} rounds, {runs} memory process(es), "
          f"small scans {args.small_rounds} rounds", flush=True)
    log = lambda m: print(f"  {m}", file=sys.stderr, flush=True)  # noqa: E731
    rows = throughput(examples, rounds, log) if rounds else []
    if rows:
        print("\n" + markdown(rows, examples), flush=True)
    small = small_scans(args.small_rounds, log)
    for n, group in small.items():
        print("\n" + markdown(group, n, SMALL), flush=True)
    memory_runs = memory(runs, log) if runs else []
    if memory_runs:
        print("\n" + memory_markdown(memory_runs), flush=True)
    print()
    for line in targets(rows, memory_runs, small):
        print(line)
    history.record("scan", {f"{SCAN} / plain batch gradients{label}": (group_ratio, "lower")
                            for label, group_ratio in _scan_ratios(rows, small)})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": [{**asdict(r), "spread": r.spread()} for r in rows], "memory": memory_runs,
                       "small": {str(n): [{**asdict(r), "spread": r.spread()} for r in group]
                                 for n, group in small.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
