"""Benchmark: the per-sample Laplacian of a tanh MLP, gradlib against the ways people write it (issue 25).

Three shapes, batch 1024, one output: ``50 -> 256 -> 256 -> 256 -> 1`` (the target's), ``10 -> 256 -> 256 ->
256 -> 1`` (few inputs) and ``50 -> 768 -> 768 -> 1`` (wide). Contenders:

- ``nested tapes (guide)``: the TensorFlow guide's way written by hand: in one ``tf.function``, an outer tape
  around an inner one, ``batch_jacobian`` of the gradient, its trace. The baseline;
- ``gradlib auto``: ``gradlib.laplacian(model, x)`` (with its independence check);
- ``gradlib loop``, ``gradlib forward_over_reverse``, ``gradlib nested_tapes``: the same call with that method;
- JAX ``jit(vmap(trace(hessian)))`` when JAX is importable (not here: it is skipped).

Each contender runs in a fresh process (so its first call pays its own tracing and its peak memory is its own):
it builds the model and the batch, notes its resident memory, times the first call, then ``--rounds`` warm calls,
and reports the growth of its peak resident memory over the first note. Ratios are the nested tapes' median warm
time over each round of the contender (the median with the lowest and highest round: the spread, never the
best); every contender's Laplacian is compared with the nested tapes'.

    python3 -m benchmarks.second_order                  # 3 shapes, 5 warm rounds each
    python3 -m benchmarks.second_order --quick          # the 256-wide shape only, 3 rounds
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import history

__all__ = ["BASELINE", "CONTENDERS", "SHAPES", "child", "main", "markdown", "run_shape"]

BATCH = 1024
#: name -> (inputs, hidden widths)
SHAPES = {"50-256x3-1": (50, (256, 256, 256)), "10-256x3-1": (10, (256, 256, 256)), "50-768x2-1": (50, (768, 768))}
BASELINE = "nested tapes (guide)"
CONTENDERS = (BASELINE, "gradlib auto", "gradlib loop", "gradlib forward_over_reverse", "gradlib nested_tapes")
ROOT = Path(__file__).resolve().parents[1]


def _model(inputs: int, widths: tuple[int, ...]):
    import keras

    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((inputs,))] + [keras.layers.Dense(w, activation="tanh") for w in widths]
                            + [keras.layers.Dense(1)])


def _guide(model):
    """The TensorFlow guide's Hessian, reduced to its trace, as a user writes it."""
    import tensorflow as tf

    @tf.function
    def laplacian(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = model(x)
            grad = inner.gradient(y, x)
        hessian = outer.batch_jacobian(grad, x)
        return tf.linalg.trace(hessian)[:, None]

    return lambda x: laplacian(x).numpy()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # kilobytes on Linux


def child(shape: str, contender: str, rounds: int, out: str) -> dict:
    """One contender on one shape, in this (fresh) process."""
    import tensorflow as tf

    import gradlib

    inputs, widths = SHAPES[shape]
    model = _model(inputs, widths)
    x = tf.constant(np.random.default_rng(0).normal(size=(BATCH, inputs)).astype(np.float32))
    model(x[:2])
    if contender == BASELINE:
        call = _guide(model)
    else:
        method = contender.split()[-1]
        call = lambda x: gradlib.laplacian(model, x, method=method).laplacian  # noqa: E731
    before = _peak_mb()
    start = time.perf_counter()
    value = call(x)
    first = time.perf_counter() - start
    seconds = []
    for _ in range(rounds):
        start = time.perf_counter()
        call(x)
        seconds.append(time.perf_counter() - start)
    used = gradlib.laplacian(model, x, method=contender.split()[-1]).method if contender != BASELINE else "-"
    np.save(out, np.asarray(value))
    return {"first": first, "seconds": seconds, "peak_mb": _peak_mb() - before, "method": used}


def run_shape(shape: str, rounds: int, contenders=CONTENDERS) -> list[dict]:
    """Every contender on ``shape``, each in a fresh process; ratios to the baseline's median warm time."""
    import gradlib

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for contender in contenders:
            out = os.path.join(tmp, f"{len(rows)}.npy")
            done = subprocess.run([sys.executable, "-m", "benchmarks.second_order", "--child", shape, contender,
                                   str(rounds), out], capture_output=True, text=True, cwd=ROOT, timeout=1800)
            if done.returncode != 0:
                rows.append({"contender": contender, "error": (done.stderr.strip().splitlines() or ["?"])[-1]})
                continue
            row = {"contender": contender, **json.loads(done.stdout.strip().splitlines()[-1]), "value": np.load(out)}
            rows.append(row)
    base = next(r for r in rows if r["contender"] == BASELINE and "error" not in r)
    middle = statistics.median(base["seconds"])
    for r in rows:
        if "error" in r:
            continue
        r["ratio"] = [middle / s for s in r["seconds"]]
        r["ratio_text"] = gradlib.format_ratio(r["ratio"])
        r["max_rel_diff"] = float(np.max(np.abs(r["value"] - base["value"])) / np.max(np.abs(base["value"])))
    return rows


def markdown(shape: str, rows: list[dict]) -> str:
    lines = [f"### {shape}, batch {BATCH:,}", "",
             "| contender | method | warm median (ms) [min, max] | vs nested tapes | first call (s) | peak memory (MB) "
             "| max rel. diff |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['contender']} | failed: {r['error'][:80]} | | | | | |")
            continue
        ms = [1000 * s for s in r["seconds"]]
        lines.append(f"| {r['contender']} | {r['method']} | {statistics.median(ms):.0f} [{min(ms):.0f}, {max(ms):.0f}] "
                     f"| {r['ratio_text']} | {r['first']:.2f} | {r['peak_mb']:.0f} | {r['max_rel_diff']:.1e} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="the 256-wide shape only, 3 rounds")
    parser.add_argument("--child", nargs=4, metavar=("SHAPE", "CONTENDER", "ROUNDS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        shape, contender, rounds, out = args.child
        print(json.dumps(child(shape, contender, int(rounds), out)))
        return 0
    shapes = ["50-256x3-1"] if args.quick else list(SHAPES)
    rounds = 3 if args.quick else args.rounds
    try:
        import jax  # noqa: F401
        print("JAX is importable, but its contender is not written yet: skipped")
    except ImportError:
        print("JAX is not installed here: its contender is skipped")
    ratios: dict[str, tuple[list[float], str]] = {}
    for shape in shapes:
        rows = run_shape(shape, rounds)
        print(markdown(shape, rows), "\n", flush=True)
        ratios.update({f"{shape}: {BASELINE} / {r['contender']}": (r["ratio"], "higher") for r in rows
                       if "ratio" in r and r["contender"] != BASELINE})
    history.record("second_order", ratios)
    return 0


if __name__ == "__main__":
    sys.exit(main())
