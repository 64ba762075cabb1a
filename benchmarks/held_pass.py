"""Benchmark: what the per-sample APIs' held pass costs (hunt59pde), before it and after, check on and off.

The held pass (``gradlib._callable._mixing.held_outputs``) takes fn's value and derivatives, up to the order the API
answers, on the batch and on two moved batches. This script times ``per_sample_gradients``, ``laplacian``,
``per_sample_hessians`` and ``divergence`` (``auto``, a Keras model) with ``check_independence`` True and False, in
gradlib as it is in two checkouts (``--before``, ``--after``: the roots of two worktrees), each (checkout, flag) in
a fresh process that imports gradlib from that root. The runs alternate the checkouts' order, so that a drift of the
shared machine's load falls on both. Each process makes one untimed call of an unrelated function (TensorFlow's and
gradlib's own start-up), then per case times the first call (its tracing included) and the median of ``--calls``
warm calls. Printed per case: each side's median over the runs, and the ratios after / before (and, after, the
unchecked over the checked) per run: their median with the lowest and highest (the spread, never the best).

Models: the brief's MLP ``2 -> 64 -> 64 -> 1`` (tanh, 256 points; ``2 -> 64 -> 64 -> 2`` for ``divergence``; the
Laplacian also of a lambda calling it, which takes a tape method and the held pass: the model's own takes the forward
rules, which have no held pass),
``benchmarks.per_sample``'s ``64 -> 128 -> 64 -> 10`` (batch 96) and ``benchmarks.second_order``'s
``10 -> 256 x 3 -> 1`` (batch 1024).

    git worktree add --detach /tmp/before 5753718
    python3 -m benchmarks.held_pass --before /tmp/before [--after .] [--runs 5] [--calls 15]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["CASES", "child", "main", "report"]

ROOT = Path(__file__).resolve().parents[1]
#: case -> (api, inputs, hidden widths, outputs, batch)
CASES = {
    "per_sample_gradients 2-64x2-1 B256": ("per_sample_gradients", 2, (64, 64), 1, 256),
    "laplacian 2-64x2-1 B256": ("laplacian", 2, (64, 64), 1, 256),
    "laplacian 2-64x2-1 B256, fn = lambda t: model(t)": ("laplacian", 2, (64, 64), 1, 256),
    "per_sample_hessians 2-64x2-1 B256": ("per_sample_hessians", 2, (64, 64), 1, 256),
    "divergence 2-64x2-2 B256": ("divergence", 2, (64, 64), 2, 256),
    "per_sample_gradients 64-128-64-10 B96": ("per_sample_gradients", 64, (128, 64), 10, 96),
    "laplacian 10-256x3-1 B1024": ("laplacian", 10, (256, 256, 256), 1, 1024),
}


def child(root: str, check: bool, calls: int) -> dict:
    """In a fresh process: gradlib imported from ``root``, every case's first call and warm median (seconds)."""
    sys.path.insert(0, root)
    origin = importlib.util.find_spec("gradlib").origin
    assert Path(origin).resolve().is_relative_to(Path(root).resolve()), origin   # this checkout's gradlib
    import numpy as np
    import keras
    import gradlib

    gradlib.per_sample_gradients(lambda t: t * t, np.ones((2, 2), np.float32))   # start-up, untimed
    out = {}
    for case, (api, inputs, widths, outputs, batch) in CASES.items():
        keras.utils.set_random_seed(0)
        model = keras.Sequential([keras.Input((inputs,))] + [keras.layers.Dense(w, activation="tanh") for w in widths]
                                 + [keras.layers.Dense(outputs)])
        x = np.random.default_rng(0).normal(size=(batch, inputs)).astype(np.float32)
        call = getattr(gradlib, api)
        if "lambda" in case:   # not a Keras model: a tape method (a Keras model's Laplacian takes the forward rules)
            model = (lambda m: lambda t: m(t))(model)
        start = time.perf_counter()
        method = call(model, x, check_independence=check).method
        first = time.perf_counter() - start
        warm = []
        for _ in range(calls):
            start = time.perf_counter()
            call(model, x, check_independence=check)
            warm.append(time.perf_counter() - start)
        out[case] = {"first": first, "warm": statistics.median(warm), "method": method}
    return out


def _spawn(root: str, check: bool, calls: int) -> dict:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": root}
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", root, str(int(check)),
                           str(calls)], capture_output=True, text=True, env=env, cwd=root, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def report(runs: list[dict]) -> str:
    """The table: per case and field, each side's medians over the runs and the ratios' median and spread."""
    lines = ["| case | field | before check | after check | before no check | after no check | after/before check "
             "| after/before no check | after: no check/check | method (before, after) |", "|" + "---|" * 10]
    for case in CASES:
        for field in ("warm", "first"):
            def times(side, check):
                return [r[side][check][case][field] for r in runs]
            cells = [f"{1000 * statistics.median(times(s, c)):.1f} ms" for c in ("1", "0") for s in ("before", "after")]
            cells = [cells[0], cells[1], cells[2], cells[3]]
            ratios = [[a / b for a, b in zip(times(sa, ca), times(sb, cb))]
                      for sa, ca, sb, cb in (("after", "1", "before", "1"), ("after", "0", "before", "0"),
                                             ("after", "0", "after", "1"))]
            methods = f"{runs[0]['before']['1'][case]['method']}, {runs[0]['after']['1'][case]['method']}"
            lines.append(f"| {case} | {field} | " + " | ".join(cells) + " | "
                         + " | ".join(_spread(r) for r in ratios) + f" | {methods} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.held_pass", description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=False, help="the root of the checkout before (a worktree)")
    parser.add_argument("--after", default=str(ROOT), help="the root of the checkout after (default: this one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=15, help="warm calls per case and process")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1] == "1", int(args.child[2]))))
        return 0
    if not args.before:
        parser.error("--before is required")
    runs = []
    for k in range(args.runs):
        sides = [("before", args.before), ("after", args.after)]
        run: dict = {"before": {}, "after": {}}
        for side, root in sides if k % 2 == 0 else sides[::-1]:
            for check in (True, False) if k % 2 == 0 else (False, True):
                run[side][str(int(check))] = _spawn(root, check, args.calls)
        runs.append(run)
        print(f"run {k + 1}/{args.runs} done", file=sys.stderr, flush=True)
    print(report(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
