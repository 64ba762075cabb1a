"""Benchmark: the per-sample Laplacian of a tanh MLP, gradlib against the ways people write it (issue 25).

Three shapes, batch 1024, one output: ``50 -> 256 -> 256 -> 256 -> 1`` (the target's), ``10 -> 256 -> 256 ->
256 -> 1`` (few inputs) and ``50 -> 768 -> 768 -> 1`` (wide). Contenders:

- ``nested tapes (guide)``: the TensorFlow guide's way written by hand: in one ``tf.function``, an outer tape
  around an inner one, ``batch_jacobian`` of the gradient, its trace. The baseline;
- ``gradlib auto``: ``gradlib.laplacian(model, x)`` (with its independence check);
- ``gradlib loop``, ``gradlib forward_over_reverse``, ``gradlib nested_tapes``: the same call with that method;
- JAX ``jit(vmap(trace(hessian)))`` when JAX is importable (not here: it is skipped).

Each contender runs in a fresh process (so its first call pays its own tracing and its peak memory is its own):
it builds the model and the batch, times the first call (tracing included), then ``--rounds`` warm calls. Peak
memory is read from Linux's high-water mark of resident memory (``VmHWM``, reset through ``/proc/self/clear_refs``
before the call it measures): its growth over the resident memory before the first call (tracing included) and
before the last warm call (the computation alone); a gradlib row prints beside them the cost model's estimate of
its peak (``result.cost``). Ratios are the nested tapes' median warm time over each round of the contender (the
median with the lowest and highest round: the spread, never the best); every contender's Laplacian is compared
with the nested tapes'.

Then, in one more fresh process, the contenders of ``INTERLEAVED`` run round-robin (``--interleaved`` rounds,
the order rotated each round), so that each round's ratio (the nested tapes' time in that round over the
contender's) compares calls made under the same load: the headline ratios. ``forward rules, whole batch`` is
the forward Laplacian's rules on the whole batch at once (``gradlib._second._taylor.forward_laplacian`` in a
``tf.function``), as gradlib ran them before they ran in chunks.

    python3 -m benchmarks.second_order                  # 3 shapes, 5 warm rounds each, 9 interleaved rounds
    python3 -m benchmarks.second_order --quick          # the 256-wide shape only, 3 rounds, 5 interleaved
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import history

__all__ = ["BASELINE", "CONTENDERS", "INTERLEAVED", "SHAPES", "child", "interleave", "main", "markdown",
           "markdown_interleaved", "run_shape"]

BATCH = 1024
#: name -> (inputs, hidden widths)
SHAPES = {"50-256x3-1": (50, (256, 256, 256)), "10-256x3-1": (10, (256, 256, 256)), "50-768x2-1": (50, (768, 768))}
BASELINE = "nested tapes (guide)"
CONTENDERS = (BASELINE, "gradlib auto", "gradlib loop", "gradlib forward_over_reverse", "gradlib nested_tapes")
WHOLE = "forward rules, whole batch"
#: the contenders run round-robin in one process
INTERLEAVED = (BASELINE, "gradlib auto", WHOLE)
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


def _whole(model):
    """The forward Laplacian written by hand on the whole batch at once, in one ``tf.function``: the rules gradlib
    ran before its chunks (``z = h W + b``: ``Jz = J W``, ``Lz = L W``; tanh: ``Ja = t' Jz``,
    ``La = t' Lz + t'' sum_i Jz_i^2``), for the bench's models (tanh layers, a linear output)."""
    import tensorflow as tf

    layers = [(layer.kernel, layer.bias, layer.get_config()["activation"]) for layer in model.layers]

    @tf.function
    def rules(x):
        h, jac, lap = x, None, None
        for kernel, bias, activation in layers:
            z = tf.matmul(h, kernel) + bias
            jz = kernel[None] if jac is None else tf.reshape(tf.matmul(tf.reshape(jac, (-1, jac.shape[2])), kernel),
                                                             (-1, jac.shape[1], kernel.shape[1]))
            lz = 0.0 if lap is None else tf.matmul(lap, kernel)
            if activation == "linear":
                h, jac, lap = z, jz, lz
                continue
            t = tf.tanh(z)
            d1, d2 = 1 - t * t, -2 * t * (1 - t * t)
            h, jac, lap = t, d1[:, None, :] * jz, d1 * lz + d2 * tf.reduce_sum(tf.square(jz), axis=1)
        return lap

    return lambda x: rules(x).numpy()


def _call(model, contender: str):
    import gradlib

    if contender == BASELINE:
        return _guide(model)
    if contender == WHOLE:
        return _whole(model)
    method = contender.split()[-1]
    return lambda x: gradlib.laplacian(model, x, method=method).laplacian


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(field + ":"))


def _reset_peak() -> float:
    """Reset the high-water mark of resident memory to the resident memory now (Linux); that memory in MB."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    return _status_kb("VmRSS") / 1024


def _peak_mb() -> float:
    return _status_kb("VmHWM") / 1024


def _rise_mb(before: float) -> float:
    """The high-water mark's rise since ``before``, at least 0: the kernel stores the mark only at some events and
    reads the larger of it and the resident memory now, so a call that frees memory can read a fraction of a MB
    below the resident memory measured at the reset (CI saw -0.16 MB on a tiny shape)."""
    return max(0.0, _peak_mb() - before)


def _estimate_mb(cost: str) -> float:
    """The cost model's peak from ``result.cost`` (``~1.1e+10 multiply-adds, ~34 MB peak, ...``)."""
    return float(cost.split("~")[2].split(" MB")[0])


def child(shape: str, contender: str, rounds: int, out: str) -> dict:
    """One contender on one shape, in this (fresh) process."""
    import tensorflow as tf

    import gradlib

    inputs, widths = SHAPES[shape]
    model = _model(inputs, widths)
    x = tf.constant(np.random.default_rng(0).normal(size=(BATCH, inputs)).astype(np.float32))
    model(x[:2])
    call = _call(model, contender)
    before = _reset_peak()
    start = time.perf_counter()
    value = call(x)
    first = time.perf_counter() - start
    first_peak = _rise_mb(before)
    seconds = []
    for i in range(rounds):
        before = _reset_peak() if i == rounds - 1 else before
        start = time.perf_counter()
        call(x)
        seconds.append(time.perf_counter() - start)
    warm_peak = _rise_mb(before)
    used, estimate = "-", None
    if contender.startswith("gradlib"):
        r = gradlib.laplacian(model, x, method=contender.split()[-1])
        used, estimate = r.method, _estimate_mb(r.cost)
    np.save(out, np.asarray(value))
    return {"first": first, "seconds": seconds, "peak_mb": first_peak, "warm_peak_mb": warm_peak,
            "estimate_mb": estimate, "method": used}


def interleave(shape: str, rounds: int) -> dict:
    """The ``INTERLEAVED`` contenders round-robin in this (fresh) process, the order rotated each round: per
    contender its warm times and, per round, the nested tapes' time in that round over its own."""
    import tensorflow as tf

    inputs, widths = SHAPES[shape]
    model = _model(inputs, widths)
    x = tf.constant(np.random.default_rng(0).normal(size=(BATCH, inputs)).astype(np.float32))
    model(x[:2])
    calls = {name: _call(model, name) for name in INTERLEAVED}
    for call in calls.values():   # first calls (tracing) before any round
        call(x)
    seconds = {name: [] for name in INTERLEAVED}
    for i in range(rounds):
        order = INTERLEAVED[i % len(INTERLEAVED):] + INTERLEAVED[:i % len(INTERLEAVED)]
        for name in order:
            start = time.perf_counter()
            calls[name](x)
            seconds[name].append(time.perf_counter() - start)
    return {name: {"seconds": s, "ratio": [b / t for b, t in zip(seconds[BASELINE], s)]}
            for name, s in seconds.items()}


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
             "| contender | method | warm median (ms) [min, max] | vs nested tapes | first call (s, tracing included) "
             "| peak memory (MB): first call, warm call, estimate | max rel. diff |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['contender']} | failed: {r['error'][:80]} | | | | | |")
            continue
        ms = [1000 * s for s in r["seconds"]]
        estimate = "-" if r.get("estimate_mb") is None else f"{r['estimate_mb']:.3g}"
        lines.append(f"| {r['contender']} | {r['method']} | {statistics.median(ms):.0f} [{min(ms):.0f}, {max(ms):.0f}] "
                     f"| {r['ratio_text']} | {r['first']:.2f} | {r['peak_mb']:.0f}, {r['warm_peak_mb']:.0f}, {estimate} "
                     f"| {r['max_rel_diff']:.1e} |")
    return "\n".join(lines)


def markdown_interleaved(shape: str, result: dict) -> str:
    import gradlib

    rounds = len(result[BASELINE]["seconds"])
    lines = [f"#### {shape}, batch {BATCH:,}: round-robin in one process, {rounds} rounds", "",
             "| contender | warm median (ms) [min, max] | nested tapes / contender, per round |", "|---|---|---|"]
    for name, r in result.items():
        ms = [1000 * s for s in r["seconds"]]
        lines.append(f"| {name} | {statistics.median(ms):.0f} [{min(ms):.0f}, {max(ms):.0f}] "
                     f"| {gradlib.format_ratio(r['ratio'])} |")
    return "\n".join(lines)


def _run_interleaved(shape: str, rounds: int) -> dict | str:
    """``interleave`` in a fresh process: its result, or the last line of its error."""
    done = subprocess.run([sys.executable, "-m", "benchmarks.second_order", "--interleave", shape, str(rounds)],
                          capture_output=True, text=True, cwd=ROOT, timeout=3600)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="the 256-wide shape only, 3 rounds")
    parser.add_argument("--interleaved", type=int, default=9, help="round-robin rounds (0: none)")
    parser.add_argument("--child", nargs=4, metavar=("SHAPE", "CONTENDER", "ROUNDS", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--interleave", nargs=2, metavar=("SHAPE", "ROUNDS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        shape, contender, rounds, out = args.child
        print(json.dumps(child(shape, contender, int(rounds), out)))
        return 0
    if args.interleave:
        print(json.dumps(interleave(args.interleave[0], int(args.interleave[1]))))
        return 0
    shapes = ["50-256x3-1"] if args.quick else list(SHAPES)
    rounds = 3 if args.quick else args.rounds
    interleaved = min(args.interleaved, 5) if args.quick else args.interleaved
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
        if interleaved:
            result = _run_interleaved(shape, interleaved)
            if isinstance(result, str):
                print(f"#### {shape}: the round-robin run failed: {result}\n", flush=True)
                continue
            print(markdown_interleaved(shape, result), "\n", flush=True)
            ratios.update({f"{shape}: {BASELINE} / {name} (round-robin)": (r["ratio"], "higher")
                           for name, r in result.items() if name != BASELINE})
    history.record("second_order", ratios)
    return 0


if __name__ == "__main__":
    sys.exit(main())
