"""Benchmark: the seed's loop, eager ``tape.jacobian``, every gradlib method, ``auto`` and JAX, side by side.

Everything runs in one process on one function, the tanh MLP ``x -> tanh(W2 @ tanh(W1 @ x))`` with
``W1, W2`` of shape n x n, over growing n. Each row has the first call (tracing included) and the warm
call, and their ratios to the seed loop and to ``jax.jit(jax.jacrev(f))`` (when JAX is importable; it is
not a requirement). On a shared machine absolute times drift: compare the ratios of one run.

    python -m benchmarks.mlp                        # sizes 16, 64, 256, 1024
    python -m benchmarks.mlp --quick                # sizes 16, 64, 256, fewer repeats
    python -m benchmarks.mlp --sizes 64,256 --repeats 7 --csv bench.csv --json bench.json
    python -m benchmarks.mlp --side-by-side-only    # only the interleaved runs below, at n = 256

Side by side (``side_by_side``, printed first): on the 256-wide MLP (then on the shapes of ``SHAPES``: a wide
hidden layer, and a tall Jacobian), JAX ``jit(jacrev)`` and ``jit(jacfwd)`` (when importable; the ratios with a
target are to the faster of the two in each run, named in the table),
TensorFlow's own ``tf.function`` tape jacobian, gradlib ``auto`` on the callable and ``evaluate`` on the text,
warm, one call of each in turn (interleaved, so that a burst of load on the shared machine hits them all; the
order shuffled anew for each pass, ``passes``, so that no contender always follows the same one), in
several runs; each run's medians and their ratios, and the spread of the ratios over the runs (not the best).

It uses gradlib's public API only: what ran (graph or XLA, and whether that choice is final) comes from
each result's ``compiled_as`` and ``compiled_final``. The Strategies page has its own, smaller timing
(``dashboard/scaling.py``).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
import tensorflow as tf

import gradlib
from benchmarks import history

__all__ = ["EXPRESSION", "JAX_BEST", "SHAPES", "SIZES", "Row", "contenders", "jax_best", "main", "measure",
           "mlp_suite", "mlp_weights", "passes", "reference_jacobian", "seed_loop", "side_by_side", "side_by_side_markdown", "side_ratios", "steady", "table",
           "tape_jacobian", "targets", "tf_mlp"]

SIZES = (16, 64, 256, 1024)
QUICK_SIZES = (16, 64, 256)
#: eager Python loops over elements (gradlib's eager unstack and forward) are skipped above this size
EAGER_LOOP_MAX = 256
#: gradlib compiles ``unstack`` only this small (its trace grows as outputs squared) and runs it eagerly above;
#: the row's "ran" column shows what really ran either way
UNSTACK_COMPILED_MAX = 16
#: a warm compiled contender is called until its tier (graph or XLA) is settled, within this budget
SETTLE_SECONDS, SETTLE_CALLS = 12.0, 3000
#: an eager ``auto`` contender is called up to this many times, in case it switches to compiled
AUTO_EAGER_CALLS = 40
#: a contender whose first call takes longer than this is timed warm only once
SLOW_SECONDS = 1.0
EXPRESSION = "tanh(W2 @ tanh(W1 @ x))"
#: the default limits protect a shared server and refuse a 1024 x 1024 input; the benchmark lifts them
BENCH_LIMITS = gradlib.Limits(max_elements=4_000_000, max_jacobian=4_000_000, max_flops=1e12)


@dataclass
class Row:
    """One contender at one size: what ran, how long its first and warm calls took, and how right it was."""

    size: int
    outputs: int
    inputs: int
    contender: str
    method: str = ""
    compiled: bool = False
    xla: bool = False
    first_s: float = math.nan
    warm_s: float = math.nan          # the fastest warm call
    warm_median_s: float = math.nan
    warmup_calls: int = 0             # calls made before timing warm (until the compiled tier settled)
    max_error: float = math.nan       # against an independent float64 NumPy Jacobian
    error: str = ""                   # why the contender could not run, if it could not
    warm_speedup_vs_seed: float = math.nan   # seed loop warm / this warm: how many times faster
    first_vs_seed: float = math.nan          # this first call / seed loop: the target is at most 0.5
    warm_vs_jax: float = math.nan            # this warm / jax.jit(jax.jacrev) warm: the target is at most 3


# ---------------------------------------------------------------- the problem


def mlp_weights(outputs: int, inputs: int, hidden: int | None = None, *, seed: int = 0):
    """``W1`` (hidden x inputs), ``W2`` (outputs x hidden) and ``x`` (inputs), float32, scaled for tanh."""
    rng = np.random.default_rng(seed)
    hidden = hidden or max(outputs, inputs)
    w1 = (rng.standard_normal((hidden, inputs)) / math.sqrt(inputs)).astype(np.float32)
    w2 = (rng.standard_normal((outputs, hidden)) / math.sqrt(hidden)).astype(np.float32)
    return w1, w2, rng.standard_normal(inputs).astype(np.float32)


def reference_jacobian(w1: np.ndarray, w2: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The MLP's Jacobian by hand in float64: ``diag(1 - y**2) W2 diag(1 - h**2) W1``."""
    w1, w2, x = (a.astype(np.float64) for a in (w1, w2, x))
    h = np.tanh(w1 @ x)
    y = np.tanh(w2 @ h)
    return (1 - y**2)[:, None] * (w2 * (1 - h**2)[None, :]) @ w1


def tf_mlp(w1: np.ndarray, w2: np.ndarray) -> Callable[[tf.Tensor], tf.Tensor]:
    """A fresh TensorFlow function object each call (a new identity, so gradlib traces it anew)."""
    t1, t2 = tf.constant(w1), tf.constant(w2)
    return lambda x: tf.tanh(tf.linalg.matvec(t2, tf.tanh(tf.linalg.matvec(t1, x))))


def seed_loop(f: Callable, x: tf.Tensor) -> np.ndarray:
    """The seed's accepted answer: unstack inside a persistent tape, one ``gradient`` per element (eager)."""
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = f(x)
        t = tf.unstack(y)
    rows = [g.gradient(y_i, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) for y_i in t]
    return tf.stack(rows).numpy()


def tape_jacobian(f: Callable, x: tf.Tensor) -> np.ndarray:
    """Eager ``tape.jacobian`` (pfor), as a user would write it without ``tf.function``."""
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    return g.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy()


def jax_available() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def jax_jacobian(w1: np.ndarray, w2: np.ndarray, mode: str = "rev") -> Callable[[np.ndarray], np.ndarray]:
    """``jax.jit(jax.jacrev(f))`` (or ``jacfwd``) of the same MLP, a fresh jit each call."""
    import jax
    import jax.numpy as jnp

    j1, j2 = jnp.asarray(w1), jnp.asarray(w2)
    transform = jax.jacrev if mode == "rev" else jax.jacfwd
    jitted = jax.jit(transform(lambda x: jnp.tanh(j2 @ jnp.tanh(j1 @ x))))
    return lambda x: np.asarray(jitted(x).block_until_ready())


# ---------------------------------------------------------------- timing


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def steady(call: Callable[[], Any], out: Any) -> int:
    """Call a gradlib contender until it is in its steady state; return the calls made.

    A compiled result waits for gradlib to settle its tier (graph or XLA); an eager ``auto`` result may
    switch to compiled once its eager calls have cost a trace (the ski-rental rule). Others are steady.
    """
    if not isinstance(out, gradlib.GradResult) or not (out.compiled or out.requested == "auto"):
        return 0
    calls, start = 0, time.perf_counter()
    while calls < SETTLE_CALLS and time.perf_counter() - start < SETTLE_SECONDS:
        if (out.compiled and out.compiled_final) or (not out.compiled and calls >= AUTO_EAGER_CALLS):
            break
        out = call()
        calls += 1
    return calls


def measure(row: Row, call: Callable[[], Any], jacobian_of: Callable[[Any], np.ndarray], reference: np.ndarray,
            repeats: int) -> Row:
    """Fill ``row`` with the first call, the steady warm calls and the error of ``call``'s Jacobian."""
    gc.collect()
    row.first_s, out = _timed(call)
    row.max_error = float(np.abs(jacobian_of(out) - reference).max())
    row.warmup_calls = steady(call, out)
    warm = []
    for _ in range(1 if row.first_s > SLOW_SECONDS else repeats):
        seconds, out = _timed(call)
        warm.append(seconds)
    row.warm_s, row.warm_median_s = min(warm), statistics.median(warm)
    if isinstance(out, gradlib.GradResult):   # what ran in the timed warm calls
        row.method, row.compiled, row.xla = out.method, out.compiled, out.compiled_as == "xla"
        row.max_error = max(row.max_error, float(np.abs(out.jacobian - reference).max()))
    return row


def _jacobian_of(out: Any) -> np.ndarray:
    return out.jacobian if isinstance(out, gradlib.GradResult) else np.asarray(out)


# ---------------------------------------------------------------- the suites


def contenders(size: int) -> list[tuple[str, bool]]:
    """(name, runs) for every contender of the MLP suite at ``size`` (some loops are skipped when large)."""
    small = size <= EAGER_LOOP_MAX
    out = [("seed loop (unstack, eager)", True), ("tape.jacobian (eager)", True)]
    for method in gradlib.CORRECT_METHODS:          # every correct row of the methods table; an eager loop only small
        out.append((f"gradlib {method} eager", not gradlib.METHOD_TABLE[method].passes or small))
        out.append((f"gradlib {method} compiled", method != "unstack" or size <= UNSTACK_COMPILED_MAX))
    # auto checks a callable's answer against the callable itself while that costs at most 10% of a call;
    # check=False beside it shows what the check (and its bookkeeping) costs, first call and warm
    out += [("gradlib auto", True), ("gradlib auto check=False", True), (f"evaluate({EXPRESSION!r}) auto", True)]
    if jax_available():
        out += [("jax.jit(jax.jacrev)", True), ("jax.jit(jax.jacfwd)", True)]
    return out


def _call_for(name: str, w1: np.ndarray, w2: np.ndarray, x: np.ndarray) -> Callable[[], Any]:
    f, xt = tf_mlp(w1, w2), tf.constant(x)
    if name.startswith("seed loop"):
        return lambda: seed_loop(f, xt)
    if name.startswith("tape.jacobian"):
        return lambda: tape_jacobian(f, xt)
    if name.startswith("jax.jit"):
        jac, xj = jax_jacobian(w1, w2, "rev" if "jacrev" in name else "fwd"), np.asarray(x)
        return lambda: jac(xj)
    if name.startswith("evaluate"):
        inputs = {"W1": w1, "W2": w2, "x": x}
        return lambda: gradlib.evaluate(EXPRESSION, inputs, watch=["x"], limits=BENCH_LIMITS)
    _, method, mode = (name.split() + ["", ""])[:3]
    compiled = {"eager": False, "compiled": True}.get(mode)
    check = mode != "check=False"
    return lambda: gradlib.per_element_gradients(f, xt, method=method, compiled=compiled, check=check)


def mlp_suite(size: int, repeats: int, log: Callable[[str], None] = print) -> list[Row]:
    """Every contender on the ``size``-wide MLP, in one process, with ratios to the seed loop and JAX."""
    w1, w2, x = mlp_weights(size, size)
    reference = reference_jacobian(w1, w2, x)
    rows = []
    for name, runs in contenders(size):
        if not runs:
            log(f"  n={size}: skipping {name} (an eager loop of {size} passes; see EAGER_LOOP_MAX)")
            continue
        row = Row(size, size, size, name)
        try:
            rows.append(measure(row, _call_for(name, w1, w2, x), _jacobian_of, reference, repeats))
        except Exception as exc:   # noqa: BLE001 - report it in the table and go on with the others
            row.error = f"{type(exc).__name__}: {gradlib.error_gist(exc)}"[:160]
            rows.append(row)
        log(f"  n={size}: {name}: first {row.first_s * 1e3:.1f} ms, warm {row.warm_s * 1e3:.2f} ms {row.error}")
    return _with_ratios(rows)


def _with_ratios(rows: list[Row]) -> list[Row]:
    seed = next((r for r in rows if r.contender.startswith("seed loop")), None)
    jax_row = next((r for r in rows if r.contender == "jax.jit(jax.jacrev)"), None)
    for r in rows:
        if seed is not None:
            r.warm_speedup_vs_seed = seed.warm_s / r.warm_s
            r.first_vs_seed = r.first_s / seed.warm_s
        if jax_row is not None:
            r.warm_vs_jax = r.warm_s / jax_row.warm_s
    return rows


def per_sample_suite(repeats: int) -> dict[str, Any]:
    """Issue 6's per-sample gradients of a 64 -> 128 -> 64 -> 10 Keras MLP on a batch of 96, vs a loop."""
    from .per_sample import benchmark_per_sample

    try:
        return benchmark_per_sample(repeats)
    except Exception as exc:   # noqa: BLE001 - the MLP tables stand on their own
        return {"error": f"{type(exc).__name__}: {gradlib.error_gist(exc)}"}


# ---------------------------------------------------------------- side by side, interleaved

CALLABLE, EVALUATE, TF_TAPE, JAX_REV, JAX_FWD = ("gradlib auto (callable)", f"evaluate({EXPRESSION!r})",
                                                 "tf.function tape.jacobian", "jax.jit(jax.jacrev)",
                                                 "jax.jit(jax.jacfwd)")
#: not a contender: in each run, the faster of JAX's two modes (reverse for a wide Jacobian, forward for a tall one)
JAX_BEST = "JAX's best of jacrev, jacfwd"
#: the ratios the issue sets targets for, (numerator, denominator, target): against JAX's best mode in each run; the
#: ratios to each mode alone have none (the history keeps the one to jacrev, recorded before the best was)
SIDE_RATIOS = ((EVALUATE, CALLABLE, 1.15), (EVALUATE, JAX_BEST, 1.5), (CALLABLE, JAX_BEST, 1.5),
               (EVALUATE, JAX_REV, math.nan), (CALLABLE, JAX_REV, math.nan), (CALLABLE, JAX_FWD, math.nan))


def jax_best(medians: dict[str, list[float]]) -> tuple[list[float], str]:
    """Per run, the faster median of JAX's ``jacrev`` and ``jacfwd``, and which won: ``"jacfwd"`` (every run),
    ``"jacrev"``, or ``"jacfwd in 2 of 5 runs, else jacrev"``; ``([], "")`` without both.

    >>> jax_best({JAX_REV: [2.0, 1.0], JAX_FWD: [1.0, 3.0]})
    ([1.0, 1.0], 'jacfwd in 1 of 2 runs, else jacrev')
    """
    if JAX_REV not in medians or JAX_FWD not in medians:
        return [], ""
    pairs = list(zip(medians[JAX_REV], medians[JAX_FWD]))
    forward = sum(f < r for r, f in pairs)
    which = ("jacfwd" if forward == len(pairs) else "jacrev" if not forward else
             f"jacfwd in {forward} of {len(pairs)} runs, else jacrev")
    return [min(pair) for pair in pairs], which


def _ratios(medians: dict[str, list[float]], top: str, bottom: str) -> list[float]:
    """``top`` over ``bottom`` per run (``bottom`` may be ``JAX_BEST``); ``[]`` when either is missing."""
    under = jax_best(medians)[0] if bottom == JAX_BEST else medians.get(bottom, [])
    return [a / b for a, b in zip(medians.get(top, []), under)]


def _tf_tape_jacobian(f: Callable, xt: tf.Tensor) -> Callable[[], np.ndarray]:
    @tf.function
    def jac(x):
        with tf.GradientTape() as g:
            g.watch(x)
            y = f(x)
        return g.jacobian(y, x)
    return lambda: jac(xt).numpy()


#: the other shapes of the side-by-side runs, (outputs, inputs, hidden): a wide hidden layer, and a tall Jacobian
#: (many outputs of few inputs); the square 256-wide MLP is (256, 256, 256)
SHAPES = {"wide": (256, 256, 1024), "tall": (1024, 64, 256)}


def side_by_side(size: int = 256, runs: int = 5, calls: int = 60, extra: dict[str, Callable] | None = None,
                 log: Callable[[str], None] = lambda m: None,
                 shape: tuple[int, int, int] | None = None,
                 cpu: dict[str, list[float]] | None = None) -> dict[str, list[float]]:
    """Per contender, its median warm seconds in each of ``runs`` runs of ``calls`` interleaved calls.

    Every contender is checked against the float64 reference first and called until steady (gradlib's tier
    settled). ``extra``: more contenders, name -> a call returning a Jacobian or a ``GradResult``. ``shape``:
    ``(outputs, inputs, hidden)`` instead of the ``size``-wide square MLP. ``cpu``: a dict filled in the same way
    with the medians of the same calls' CPU time (``time.process_time``: every thread of the process, not the time
    spent waiting for a core on a loaded machine).
    """
    w1, w2, x = mlp_weights(*(shape or (size, size, size)))
    reference = reference_jacobian(w1, w2, x)
    f, xt = tf_mlp(w1, w2), tf.constant(x)
    inputs = {"W1": w1, "W2": w2, "x": x}
    calls_of: dict[str, Callable[[], Any]] = {TF_TAPE: _tf_tape_jacobian(f, xt),
                                              CALLABLE: lambda: gradlib.per_element_gradients(f, xt),
                                              EVALUATE: lambda: gradlib.evaluate(EXPRESSION, inputs, watch=["x"],
                                                                                 limits=BENCH_LIMITS)}
    if jax_available():
        jac, jac_fwd, xj = jax_jacobian(w1, w2), jax_jacobian(w1, w2, "fwd"), np.asarray(x)
        calls_of[JAX_REV], calls_of[JAX_FWD] = (lambda: jac(xj)), (lambda: jac_fwd(xj))
    calls_of.update(extra or {})
    for name, call in calls_of.items():
        out = call()
        error = float(np.abs(_jacobian_of(out) - reference).max())
        if error > 1e-4:
            raise AssertionError(f"{name} is off the reference by {error:.1e}")
        steady(call, out)
        log(f"side by side: {name} checked and warm")
    medians: dict[str, list[float]] = {name: [] for name in calls_of}
    cpu = {} if cpu is None else cpu
    cpu.update({name: [] for name in calls_of})
    for r in range(runs):
        times: dict[str, list[float]] = {name: [] for name in calls_of}
        cpu_times: dict[str, list[float]] = {name: [] for name in calls_of}
        gc.collect()
        for order in passes(list(calls_of), calls, seed=r):
            for name in order:
                start = time.process_time()
                times[name].append(_timed(calls_of[name])[0])
                cpu_times[name].append(time.process_time() - start)
        for name in calls_of:
            medians[name].append(statistics.median(times[name]))
            cpu[name].append(statistics.median(cpu_times[name]))
        log(f"side by side: run {r + 1} of {runs} done")
    return medians


def passes(names: list[str], calls: int, seed: int = 0) -> list[list[str]]:
    """The order of each of ``calls`` passes over the contenders: shuffled anew for each pass (seeded, so a run is
    repeatable). In one fixed order each contender always ran right after the same one: JAX's jacfwd right after
    JAX's jacrev, on the same weights still in the CPU's cache, and gradlib right after the 8 ms of TensorFlow's
    tape jacobian, which evicts them; the position, not the contender, then decided part of its time."""
    rng = random.Random(seed)
    out = []
    for _ in range(calls):
        order = list(names)
        rng.shuffle(order)
        out.append(order)
    return out


def side_by_side_markdown(medians: dict[str, list[float]], size: int = 256, title: str = "") -> str:
    """Each contender's median warm ms per run, then the ratios per run with their median [lowest, highest]."""
    runs = len(next(iter(medians.values())))
    lines = [f"**tanh MLP, {title or f'n = {size}'}: warm calls interleaved, {runs} runs (median of each run's calls, "
             "ms)**", "",
             "| contender | " + " | ".join(f"run {r + 1}" for r in range(runs)) + " |",
             "|---|" + "---:|" * runs]
    lines += [f"| {name} | " + " | ".join(f"{s * 1e3:.3f}" for s in seconds) + " |" for name, seconds in medians.items()]
    lines += ["", "| ratio | " + " | ".join(f"run {r + 1}" for r in range(runs)) + " | median [lowest, highest] | "
              "target |", "|---|" + "---:|" * (runs + 2)]
    for top, bottom, target in SIDE_RATIOS + tuple((n, CALLABLE, math.nan) for n in medians
                                                   if n not in (CALLABLE, EVALUATE, TF_TAPE, JAX_REV, JAX_FWD)):
        ratios = _ratios(medians, top, bottom)
        if not ratios:
            continue
        goal = "" if math.isnan(target) else f"at most {target:g}: met in {sum(r <= target for r in ratios)} of {runs}"
        shown = f"{bottom} ({jax_best(medians)[1]})" if bottom == JAX_BEST else bottom
        lines.append(f"| {top} / {shown} | " + " | ".join(f"{r:.2f}" for r in ratios) + f" | "
                     f"{gradlib.format_ratio(ratios)} | {goal} |")
    return "\n".join(lines)


def side_ratios(medians: dict[str, list[float]]) -> dict[str, tuple[list[float], str]]:
    """The issue's side-by-side ratios per run, as ``benchmarks.history`` records them (lower is better)."""
    return {f"{top} / {bottom}": (_ratios(medians, top, bottom), "lower") for top, bottom, _ in SIDE_RATIOS
            if _ratios(medians, top, bottom)}


# ---------------------------------------------------------------- the command


def _ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else (f"{seconds * 1e3:,.0f}" if seconds >= 1 else f"{seconds * 1e3:.3g}")


def _x(ratio: float) -> str:
    return "-" if math.isnan(ratio) else gradlib.format_ratio(ratio)


def table(rows: list[Row]) -> str:
    """A Markdown table of one size's rows."""
    head = ("| contender | ran | first call ms | warm ms | warm: x faster than seed | first / seed | "
            "warm / JAX jacrev | max error |\n|---|---|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for r in rows:
        ran = r.method + (" compiled" if r.compiled else "") + (" +XLA" if r.xla else "") if r.method else "-"
        ran = f"failed: {r.error}" if r.error else ran
        lines.append(f"| {r.contender} | {ran} | {_ms(r.first_s)} | {_ms(r.warm_s)} | {_x(r.warm_speedup_vs_seed)} | "
                     f"{_x(r.first_vs_seed)} | {_x(r.warm_vs_jax)} | {r.max_error:.1e} |")
    return "\n".join(lines)


def targets(rows: list[Row]) -> list[str]:
    """The issue's targets on the 256-wide MLP, checked against this run's ratios."""
    out = []
    for r in rows:
        if r.size != 256 or r.contender not in ("gradlib auto", f"evaluate({EXPRESSION!r}) auto"):
            continue
        checks = [("warm >= 100x faster than the seed loop", r.warm_speedup_vs_seed >= 100),
                  ("first call <= 0.5 x the seed loop", r.first_vs_seed <= 0.5)]
        if not math.isnan(r.warm_vs_jax):
            checks.append(("warm <= 3x JAX jit(jacrev)", r.warm_vs_jax <= 3))
        out += [f"{'PASS' if ok else 'FAIL'}  {r.contender}: {what}" for what, ok in checks]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(QUICK_SIZES if args.quick else SIZES)
    repeats = args.repeats or (3 if args.quick else 7)
    print(f"benchmarks.mlp: sizes {sizes}, repeats {repeats}, TensorFlow {tf.__version__}, "
          f"JAX {'yes' if jax_available() else 'not installed'}; one process", flush=True)
    shapes = args.side_by_side_shapes.split(",")
    if not set(shapes) <= {"256", *SHAPES}:
        _parser().error(f"--side-by-side-shapes: choose from 256, {', '.join(SHAPES)}; "
                        f"got {args.side_by_side_shapes!r}")
    if 256 in sizes or args.side_by_side_only:   # the sizes: printed first, before the long tables
        ratios = {}
        if "256" in shapes:
            cpu: dict[str, list[float]] = {}
            medians = side_by_side(256, args.side_by_side_runs, log=lambda m: print(m, file=sys.stderr, flush=True),
                                   cpu=cpu)
            print("\n### side by side\n\n" + side_by_side_markdown(medians), flush=True)
            print("\n" + side_by_side_markdown(cpu, title="n = 256, CPU time"), flush=True)
            ratios = side_ratios(medians)
        for name, shape in ((name, shape) for name, shape in SHAPES.items() if name in shapes):
            cpu = {}
            medians = side_by_side(shape=shape, runs=args.side_by_side_runs,
                                   log=lambda m: print(m, file=sys.stderr, flush=True), cpu=cpu)
            title = f"{name}: {shape[0]} outputs, {shape[1]} inputs, hidden {shape[2]}"
            print("\n" + side_by_side_markdown(medians, title=title), flush=True)
            print("\n" + side_by_side_markdown(cpu, title=title + ", CPU time"), flush=True)
            ratios |= {f"{name}: {key}": value for key, value in side_ratios(medians).items()}
        history.record("mlp", ratios)
        if args.side_by_side_only:
            return 0
    rows: list[Row] = []
    for size in sizes:
        suite = mlp_suite(size, repeats, log=lambda m: print(m, file=sys.stderr, flush=True))
        rows += suite
        print(f"\n### tanh MLP, n = {size} (outputs = inputs = {size})\n\n{table(suite)}", flush=True)
    per_sample = None if args.no_per_sample else per_sample_suite(repeats)
    if per_sample is not None:
        print("\n### per-sample gradients (issue 6)\n\n" + "\n".join(f"- {k}: {v}" for k, v in per_sample.items()))
    lines = targets(rows)
    if lines:
        print("\n### targets (256-wide MLP, ratios of this run)\n\n" + "\n".join(f"- {t}" for t in lines))
    _write(rows, per_sample, args)
    return 0


def _write(rows: list[Row], per_sample: dict[str, Any] | None, args: argparse.Namespace) -> None:
    if args.csv:
        pd.DataFrame([asdict(r) for r in rows]).to_csv(args.csv, index=False)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"mlp": [asdict(r) for r in rows], "per_sample": per_sample,
                       "targets": targets(rows)}, fh, indent=2, default=float)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mlp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help="comma-separated MLP widths (default 16,64,256,1024)")
    parser.add_argument("--repeats", type=int, help="timed warm calls per contender (default 7; quick: 3)")
    parser.add_argument("--quick", action="store_true", help="sizes 16,64,256 and 3 repeats")
    parser.add_argument("--no-per-sample", action="store_true", help="skip the per-sample (Keras) suite")
    parser.add_argument("--side-by-side-runs", type=int, default=5, help="runs of the interleaved n = 256 comparison")
    parser.add_argument("--side-by-side-only", action="store_true", help="only the interleaved n = 256 comparison")
    parser.add_argument("--side-by-side-shapes", default=",".join(["256", *SHAPES]),
                        help=f"comma-separated shapes of the side-by-side runs: 256 (the square MLP), "
                             f"{', '.join(SHAPES)} (default all)")
    parser.add_argument("--csv", metavar="PATH", help="write one row per contender and size")
    parser.add_argument("--json", metavar="PATH", help="write the rows, the per-sample suite and the targets")
    return parser


if __name__ == "__main__":
    sys.exit(main())
