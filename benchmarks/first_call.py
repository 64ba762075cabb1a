"""Benchmark: where the first call's time goes, for issue 40 item 3 (``gradlib.pde``'s training step) and issue 41
item 3 (``gradlib.laplacian`` on the second-order bench's model).

Each run is a fresh process (a first call pays TensorFlow's one-time costs in its own process), the two calls
alternating (L P L P ...: the machine's load falls on both alike). A process times one first call and splits it:

- ``laplacian``: ``gradlib.laplacian(model, x)`` on ``benchmarks.second_order``'s 50-256x3-1 model and 1,024 samples
  (``auto``: the chunked forward Laplacian). ``trace``: the time spent in TensorFlow's ``get_concrete_function``
  during the call (gradlib's traces: the rules' chunk loop and the model's own call, which gradlib compares with
  the rules' y, and any trace gradlib reads for a check); ``run``: everything else (graph optimization and the
  first run, gradlib's eager calls and checks); ``warm``: the second call.
- ``pde``: ``benchmarks.pde``'s compiled Burgers step at 10,000 points (the residual, its mean square and the weight
  gradients), after that bench's own warm-up step. ``trace``: ``get_concrete_function``; ``run``: the first call
  after it (graph optimization and one run); ``warm``: the second call.

Wall-clock and CPU seconds (all threads) of each part are printed as the median with the lowest and highest run
(the spread, never the best), with the load average before and after.

    python3 -m benchmarks.first_call              # 5 runs of each
    python3 -m benchmarks.first_call --runs 3
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

__all__ = ["CALLS", "laplacian", "main", "pde"]

PARTS = ("trace", "run", "first", "warm")


def _timed(call) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


@contextlib.contextmanager
def _tracing():
    """A one-item list that holds the wall-clock seconds spent in ``tf.function``'s ``get_concrete_function`` (the
    outermost calls only) while the block runs: TensorFlow's method wrapped, then restored."""
    from tensorflow.python.eager.polymorphic_function.polymorphic_function import Function

    original, seconds, depth = Function.get_concrete_function, [0.0], [0]

    def timed(self, *args, **kwargs):
        depth[0] += 1
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            depth[0] -= 1
            seconds[0] += (time.perf_counter() - start) if depth[0] == 0 else 0.0
    Function.get_concrete_function = timed
    try:
        yield seconds
    finally:
        Function.get_concrete_function = original


def laplacian() -> dict:
    """One first call of ``gradlib.laplacian`` on the second-order bench's model, split."""
    import tensorflow as tf

    import gradlib
    from benchmarks import second_order

    inputs, widths = second_order.SHAPES["50-256x3-1"]
    model = second_order._model(inputs, widths)
    x = tf.constant(np.random.default_rng(0).normal(size=(second_order.BATCH, inputs)).astype(np.float32))
    model(x[:2])
    with _tracing() as traced:
        first = _timed(lambda: gradlib.laplacian(model, x))
    warm = _timed(lambda: gradlib.laplacian(model, x))
    return {"trace": (traced[0], None), "run": (first[0] - traced[0], None), "first": first, "warm": warm}


def pde() -> dict:
    """One first call of ``benchmarks.pde``'s gradlib step on Burgers at 10,000 points, split."""
    from benchmarks import pde as bench

    case = "burgers 2-64x3-1"
    model = bench._model(len(bench.CASES[case][1]))
    x = bench._points(case, 10_000)
    step = bench._gradlib(case, model)
    bench._warm_up()
    trace = _timed(lambda: step.get_concrete_function(x))
    run = _timed(lambda: bench._call(step, x))
    first = (trace[0] + run[0], trace[1] + run[1])
    return {"trace": trace, "run": run, "first": first, "warm": _timed(lambda: bench._call(step, x))}


CALLS = {"laplacian": laplacian, "pde": pde}


def _child(name: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "benchmarks.first_call", "--child", name], capture_output=True,
                         text=True, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}, {max(values):.2f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", choices=sorted(CALLS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(CALLS[args.child]()))
        return 0
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"]
    runs: dict[str, list[dict]] = {name: [] for name in CALLS}
    for _ in range(args.runs):
        for name in CALLS:
            runs[name].append(_child(name))
    after = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"]
    print(f"{args.runs} fresh processes each, alternating; load average {' '.join(load)} before, "
          f"{' '.join(after)} after; seconds, median [lowest, highest run]")
    print("| call | part | wall (s) | CPU (s, all threads) |\n|---|---|---|---|")
    for name, rows in runs.items():
        for part in PARTS:
            cpu = [r[part][1] for r in rows if r[part][1] is not None]
            print(f"| {name} | {part} | {_spread([r[part][0] for r in rows])} | {_spread(cpu) if cpu else '-'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
