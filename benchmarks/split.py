"""Benchmark: one warm call of a callable's structured Jacobian split into its compiled graph and the Python around it.

    python -m benchmarks.split                 # the tall shape of benchmarks.mlp (1024 outputs of 64 inputs)
    python -m benchmarks.split --shape wide --calls 300
    python -m benchmarks.split --after-jax     # each gradlib call right after a JAX jacfwd call, as the bench interleaves
    python -m benchmarks.split --python-calls  # how many Python functions one warm call enters (not timed)

Per round, interleaved: the whole call ``gradlib.per_element_gradients(fn, x)`` (auto); within those same calls,
TensorFlow's execution of the compiled function (its ``execute`` of the function's call, the graph or XLA running,
timed in place: read from TensorFlow's own module, so that the bench uses gradlib's public face only); the same
execution alone in a loop of its own, on the inputs it was given in place (its weights stay in the CPU's caches
there, so it is faster than in place); and JAX's ``jit(jacfwd)`` when importable. The Python around the graph is the
whole call less the execution in place: the callable's key and fingerprint, the plan, calling the concrete function,
the outputs made NumPy, the finiteness check, the packaging. Medians per round, then their median and spread. With ``--after-jax`` each timed gradlib call (whole, and the graph alone) comes
right after an untimed call of JAX's ``jit(jacfwd)``, as in ``benchmarks.mlp``'s interleaved rounds (JAX's own calls
are then timed after an untimed gradlib call): what the two runtimes cost each other on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Sequence

import tensorflow as tf

import gradlib
from benchmarks.mlp import SHAPES, steady, jax_available, jax_jacobian, mlp_weights, tf_mlp
from tensorflow.python.eager import execute

__all__ = ["AFTER", "main", "python_calls", "split"]

#: the title's note on a run with ``--after-jax``
AFTER = "; each timed call right after an untimed call of the other runtime"


def _median_call(call, calls: int, before=lambda: None) -> float:
    times = []
    for _ in range(calls):
        before()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _whole_and_in_place(call, calls: int, before) -> tuple[float, float, tuple]:
    """Median seconds of ``calls`` whole calls, of TensorFlow's function executions inside each (summed per call),
    and the arguments of the last execution (to run it alone)."""
    run, inside, last = execute.execute, [], {}

    def timed_execute(*args, **kwargs):
        start = time.perf_counter()
        try:
            return run(*args, **kwargs)
        finally:
            inside[-1] += time.perf_counter() - start
            last["call"] = (args, kwargs)

    def timed_call():
        inside.append(0.0)
        call()

    execute.execute = timed_execute
    try:
        whole = _median_call(timed_call, calls, before)
    finally:
        execute.execute = run
    if not last:
        raise AssertionError("the whole call executed no compiled function: gradlib ran eagerly")
    return whole, statistics.median(inside), last["call"]


def split(shape: tuple[int, int, int], rounds: int = 5, calls: int = 200,
          after_jax: bool = False) -> dict[str, list[float]]:
    """Per contender, its median warm seconds in each of ``rounds`` rounds of ``calls`` calls (rounds interleaved);
    ``after_jax``: each gradlib call right after an untimed JAX call, and each JAX call after an untimed gradlib one."""
    w1, w2, x = mlp_weights(*shape)
    f, xt = tf_mlp(w1, w2), tf.constant(x)
    whole_call = lambda: gradlib.per_element_gradients(f, xt)   # noqa: E731
    steady(whole_call, whole_call())   # until the compiled version is settled (graph or XLA), as benchmarks.mlp
    result = whole_call()
    if result.method != "structured" or not result.compiled_final:
        raise AssertionError(f"auto ran {result.method!r} (settled: {result.compiled_final}), not the settled "
                             "structured Jacobian this splits")
    kind = result.compiled_as   # "graph" or "xla"
    executed = _whole_and_in_place(whole_call, 1, lambda: None)[2]
    calls_of = {f"compiled {kind} alone": lambda: execute.execute(*executed[0], **executed[1])}
    jax_call = None
    if jax_available():
        jac, xj = jax_jacobian(w1, w2, "fwd"), x
        jax_call = lambda: jac(xj)   # noqa: E731 - NumPy, as benchmarks.mlp times it
        calls_of["jax.jit(jax.jacfwd)"] = jax_call
    if after_jax and jax_call is None:
        raise SystemExit("--after-jax needs JAX (pip install jax)")
    before_of = {name: (whole_call if name.startswith("jax") else jax_call) if after_jax else (lambda: None)
                 for name in calls_of}
    names = ["whole call", f"compiled {kind} in place", "Python around the graph", *calls_of]
    medians: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(rounds):
        whole, in_place, _ = _whole_and_in_place(whole_call, calls, jax_call if after_jax else lambda: None)
        medians["whole call"].append(whole)
        medians[f"compiled {kind} in place"].append(in_place)
        medians["Python around the graph"].append(whole - in_place)
        for name, call in calls_of.items():
            medians[name].append(_median_call(call, calls, before_of[name]))
    return medians


def python_calls(shape: tuple[int, int, int], calls: int = 3) -> tuple[str, list[int]]:
    """The settled version (``"graph"`` or ``"xla"``) and, for each of ``calls`` warm calls, how many Python functions
    it enters (``sys.setprofile``'s "call" events: gradlib's and TensorFlow's Python, not C): a count the machine's
    load does not move, where its time does."""
    w1, w2, x = mlp_weights(*shape)
    f, xt = tf_mlp(w1, w2), tf.constant(x)
    whole_call = lambda: gradlib.per_element_gradients(f, xt)   # noqa: E731
    steady(whole_call, whole_call())
    for _ in range(3):   # the settled version's first calls through its fixed caller are behind
        result = whole_call()
    counts = []
    for _ in range(calls):
        count = [0]

        def profile(frame, event, arg, count=count):
            count[0] += event == "call"

        sys.setprofile(profile)
        try:
            whole_call()
        finally:
            sys.setprofile(None)
        counts.append(count[0] - 1)   # the lambda itself not counted
    return result.compiled_as, counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.split", description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="tall")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--after-jax", action="store_true", help="each timed call right after the other runtime's")
    parser.add_argument("--python-calls", action="store_true", help="count the Python calls of a warm call instead")
    args = parser.parse_args(argv)
    shape = SHAPES[args.shape]
    if args.python_calls:
        kind, counts = python_calls(shape)
        print(f"one warm call, {args.shape}, settled on {kind}: Python calls per call {counts}")
        return 0
    medians = split(shape, args.rounds, args.calls, args.after_jax)
    print(f"### one warm call, {args.shape}: {shape[0]} outputs, {shape[1]} inputs, hidden {shape[2]} "
          f"({args.rounds} rounds of {args.calls} calls, median per round, ms{AFTER if args.after_jax else ''})\n")
    print("| part | " + " | ".join(f"round {r + 1}" for r in range(args.rounds)) + " | median [lowest, highest] |")
    print("|---|" + "---:|" * (args.rounds + 1))
    for name, seconds in medians.items():
        print(f"| {name} | " + " | ".join(f"{s * 1e3:.3f}" for s in seconds) +
              f" | {statistics.median(seconds) * 1e3:.3f} [{min(seconds) * 1e3:.3f}, {max(seconds) * 1e3:.3f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
