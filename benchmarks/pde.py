"""Benchmark: a PINN's compiled training step, gradlib.pde.residual against nested tapes and DeepXDE (issue 40).

Two cases on tanh MLPs with three hidden layers of 64: Burgers (``u_t + u*u_x - nu*u_xx``, 2 inputs) and a 3-D
Poisson residual (``u_xx + u_yy + u_zz - f``, 3 inputs), each at ``--points`` collocation points. Each contender
is one ``tf.function`` step: the residual, its mean square and the weight gradients, as a user writes it:

- ``nested tapes``: an outer tape around an inner one, the inner gradient's columns taken under the outer tape,
  one outer gradient per second derivative (the baseline);
- ``DeepXDE``: ``dde.grad.jacobian`` / ``dde.grad.hessian`` of its TensorFlow 2 backend (``tf.gradients`` with
  its per-step memo), as DeepXDE's own training step calls them (a benchmark-only extra,
  ``requirements-bench.txt``: skipped with a line when it is not installed);
- ``gradlib.pde``: ``tf.reduce_mean(residual(x) ** 2)`` under the same weight tape.

All steps run in one process on the same model and points. After a small warm-up step of the bench's own (so that
the contender timed first does not pay TensorFlow's one-time costs), the first call of each is timed, its trace
included, and printed with its trace apart (the fair bar for gradlib's first call is nested tapes' beside it); then
``--rounds`` rounds, each calling the contenders in turn ``--calls`` times (A B C A B C ...: the machine's load
falls on all alike) and taking each one's median. A ratio is a contender's time over gradlib's in one round, in
wall-clock time and in the process's CPU time (all threads: the work done, which other processes on a shared
machine disturb less); printed as the median with the lowest and highest round (the spread, never the best).
Unless ``--no-memory``, each step also runs alone in a fresh process, which prints the peak of its resident memory
over its calls above what it held before them (after its trace and first call; Linux only). Every contender's loss and weight gradients are compared with nested tapes'.

    python3 -m benchmarks.pde                    # 10,000 points, 15 rounds of 3 calls, memory
    python3 -m benchmarks.pde --quick            # 1,000 points, 3 rounds, no memory
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from benchmarks import history

__all__ = ["CASES", "main", "measure", "ratio_text"]

NU = 0.0032
#: name -> (residual text, coordinates)
CASES = {"burgers 2-64x3-1": ("u_t + u*u_x - nu*u_xx", ("x", "t")),
         "poisson 3-D 3-64x3-1": ("u_xx + u_yy + u_zz + 3*sin(x)*sin(y)*sin(z)", ("x", "y", "z"))}
BASELINE, DEEPXDE, GRADLIB = "nested tapes", "DeepXDE", "gradlib.pde"


def _model(inputs: int):
    import keras

    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((inputs,))] + [keras.layers.Dense(64, activation="tanh")
                                                        for _ in range(3)] + [keras.layers.Dense(1)])


def _source(case: str, x):
    import tensorflow as tf

    return 3 * tf.sin(x[:, 0]) * tf.sin(x[:, 1]) * tf.sin(x[:, 2])


def _by_hand(case: str, model):
    """The step with nested tapes written out (the inner gradient's columns taken under the outer tape)."""
    import tensorflow as tf

    @tf.function
    def step(x):
        with tf.GradientTape() as weights:
            with tf.GradientTape(persistent=True) as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    u = model(x)[:, 0]
                g = inner.gradient(u, x)
                columns = [g[:, k] for k in range(x.shape[1])]
            if case.startswith("burgers"):
                u_xx = outer.gradient(columns[0], x)[:, 0]
                r = columns[1] + u * columns[0] - NU * u_xx
            else:
                r = sum(outer.gradient(columns[k], x)[:, k] for k in range(3)) + _source(case, x)
            del outer
            loss = tf.reduce_mean(r ** 2)
        return loss, weights.gradient(loss, model.trainable_variables)
    return step


def _deepxde(case: str, model):
    """The step as DeepXDE's TensorFlow 2 backend computes a PDE's derivatives, or None without DeepXDE."""
    os.environ.setdefault("DDE_BACKEND", "tensorflow")
    try:
        import deepxde as dde
    except ImportError:
        return None
    import tensorflow as tf

    @tf.function
    def step(x):
        dde.grad.clear()   # DeepXDE's memo holds one step's derivatives (its model clears it per step)
        with tf.GradientTape() as weights:
            u = model(x)
            if case.startswith("burgers"):
                u_x, u_t = dde.grad.jacobian(u, x, i=0, j=0), dde.grad.jacobian(u, x, i=0, j=1)
                r = u_t + u * u_x - NU * dde.grad.hessian(u, x, i=0, j=0)
            else:
                r = sum(dde.grad.hessian(u, x, i=k, j=k) for k in range(3)) + _source(case, x)[:, None]
            loss = tf.reduce_mean(r ** 2)
        return loss, weights.gradient(loss, model.trainable_variables)
    return step


def _gradlib(case: str, model):
    import tensorflow as tf
    import gradlib.pde

    text, coords = CASES[case]
    residual = gradlib.pde.residual(text, model, coords=coords, constants={"nu": NU} if "nu" in text else None)

    @tf.function
    def step(x):
        with tf.GradientTape() as weights:
            loss = tf.reduce_mean(residual(x) ** 2)
        return loss, weights.gradient(loss, model.trainable_variables)
    step.residual = residual   # read after the first call: whether it took the forward jet
    return step


def _steps(case: str, model) -> dict:
    steps = {BASELINE: _by_hand(case, model), DEEPXDE: _deepxde(case, model), GRADLIB: _gradlib(case, model)}
    return {name: step for name, step in steps.items() if step is not None}


def _points(case: str, points: int):
    import tensorflow as tf

    return tf.random.stateless_uniform((points, len(CASES[case][1])), seed=(4, 0), minval=-1.0, maxval=1.0)


def _call(step, x) -> tuple[float, float]:
    """One call's wall-clock and CPU seconds, waiting for every result."""
    wall, cpu = time.perf_counter(), time.process_time()
    loss, grads = step(x)
    float(loss), [g.numpy() for g in grads if g is not None]
    return time.perf_counter() - wall, time.process_time() - cpu


def _gap(grads_a, grads_b) -> float:
    """The largest relative gap between two lists of weight gradients (a None against a tensor: 1)."""
    return max(float(np.max(np.abs(a.numpy() - b.numpy())) / (np.max(np.abs(a.numpy())) + 1e-30))
               if a is not None and b is not None else float(a is not b) for a, b in zip(grads_a, grads_b))


def measure(case: str, points: int, rounds: int, calls: int) -> dict:
    """First calls, per-round medians (wall and CPU), ratios to gradlib and agreement with nested tapes."""
    model = _model(len(CASES[case][1]))
    x = _points(case, points)
    steps = _steps(case, model)
    _warm_up()
    first, traced, results = {}, {}, {}
    for name, step in steps.items():
        start = time.perf_counter()
        step.get_concrete_function(x)   # the trace alone: AutoGraph, the step's ops, its weight gradients
        traced[name] = time.perf_counter() - start
        results[name] = step(x)   # the same trace: graph optimization and one run
        float(results[name][0])
        first[name] = time.perf_counter() - start
    wall: dict[str, list[float]] = {name: [] for name in steps}
    cpu: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(rounds):
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in steps}
        for _ in range(calls):
            for name, step in steps.items():
                times[name].append(_call(step, x))
        for name, pairs in times.items():
            wall[name].append(statistics.median(w for w, _ in pairs))
            cpu[name].append(statistics.median(c for _, c in pairs))
    ratios = {name: {"wall": [a / b for a, b in zip(wall[name], wall[GRADLIB])],
                     "cpu": [a / b for a, b in zip(cpu[name], cpu[GRADLIB])]} for name in steps if name != GRADLIB}
    base_loss, base_grads = results[BASELINE]
    gaps = {name: _gap(base_grads, grads) for name, (_, grads) in results.items() if name != BASELINE}
    losses = {name: float(loss) for name, (loss, _) in results.items()}
    return {"case": case, "points": points, "first": first, "traced": traced, "wall": wall, "cpu": cpu,
            "ratios": ratios, "jet": steps[GRADLIB].residual._jet is True,
            "loss": losses, "gaps": gaps, "base_loss": float(base_loss)}


def _warm_up() -> None:
    """TensorFlow's one-time costs of a process (AutoGraph's first conversion, the first graph's optimizers, the
    first gradient), paid by a small step of its own, so that the contender timed first does not pay them."""
    import tensorflow as tf

    v = tf.Variable(tf.ones((4, 4)))

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.tanh(tf.matmul(x, v)) ** 2)
        return loss, tape.gradient(loss, v)
    float(step(tf.ones((3, 4)))[0])


def ratio_text(ratios: list[float]) -> str:
    """``1.05x [0.98, 1.10]``: a contender's time over gradlib's, the median and the spread of the rounds."""
    return f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}, {max(ratios):.2f}]"


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(key))


def memory(case: str, name: str, points: int, calls: int = 3) -> float:
    """The peak resident memory (MB) of ``calls`` calls of one step, alone in this process, above the memory held
    before them: traced and called once first, the peak then reset (Linux's ``/proc/self/clear_refs``), so that
    neither the imports nor the trace count."""
    model = _model(len(CASES[case][1]))
    x = _points(case, points)
    step = _steps(case, model)[name]
    _call(step, x)
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")   # resets VmHWM, the peak resident size, to the present one
    before = _status_kb("VmRSS")
    for _ in range(calls):
        _call(step, x)
    return (_status_kb("VmHWM") - before) / 1024


def _memory_alone(case: str, name: str, points: int) -> float:
    out = subprocess.run([sys.executable, "-m", "benchmarks.pde", "--memory-of", name, "--case", case,
                          "--points", str(points)], capture_output=True, text=True, timeout=600, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _print(r: dict, memory_mb: dict | None) -> None:
    ms = {name: 1e3 * statistics.median(s) for name, s in r["wall"].items()}
    for name, ratios in r["ratios"].items():
        print(f"| {r['case']} | {r['points']:,} | {name} / gradlib.pde | {ms[name]:.1f} / {ms[GRADLIB]:.1f} "
              f"| {ratio_text(ratios['wall'])} | {ratio_text(ratios['cpu'])} "
              f"| {r['first'][name]:.2f} / {r['first'][GRADLIB]:.2f} "
              f"| {'' if memory_mb is None else f'{memory_mb[name]:.0f} / {memory_mb[GRADLIB]:.0f}'} "
              f"| {r['gaps'][GRADLIB if name == BASELINE else name]:.1e} |",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1,000 points, 3 rounds, no memory")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory runs")
    parser.add_argument("--memory-of", help=argparse.SUPPRESS)   # a child: one step's memory, in MB
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_of:
        print(memory(args.case, args.memory_of, args.points))
        return 0
    points, rounds = (1_000, 3) if args.quick else (args.points, args.rounds)
    os.environ.setdefault("DDE_BACKEND", "tensorflow")
    if importlib.util.find_spec("deepxde") is None:
        print("DeepXDE is not installed: it is skipped (make bench-deps installs it, requirements-bench.txt)")
    print(f"{rounds} rounds of {args.calls} calls each, interleaved; ratios: the other's time over gradlib.pde's "
          "(above 1: gradlib is faster), median [lowest, highest round]")
    print("| case | points | contender / gradlib.pde | median ms (wall) | speed-up, wall | speed-up, CPU "
          "| first calls, trace included (s) | peak memory of the calls (MB) | gradlib's weight gradients: largest relative gap to "
          "nested tapes' (DeepXDE's on its row) |")
    print("|---|---|---|---|---|---|---|---|---|")
    recorded, firsts = {}, []
    for case in CASES:
        r = measure(case, points, rounds, args.calls)
        memory_mb = None if args.quick or args.no_memory else {
            name: _memory_alone(case, name, points) for name in r["wall"]}
        _print(r, memory_mb)
        firsts.append(f"{r['case']}: " + ", ".join(f"{name} {r['first'][name]:.2f} s ({r['traced'][name]:.2f} trace + "
                                                   f"{r['first'][name] - r['traced'][name]:.2f} optimization and run)"
                                                   for name in r["first"])
                      + ("; gradlib.pde took the forward jet" if r["jet"] else
                         "; gradlib.pde took NESTED TAPES (the forward jet's guard refused it)"))
        recorded |= {f"{case}: {name} / gradlib.pde (CPU)": (ratios["cpu"], "higher")
                     for name, ratios in r["ratios"].items()}
    print("First calls: each step's first call, its trace included (AutoGraph, the residual's and the weight "
          "gradients' ops, then graph optimization and one run), after a warm-up step of the bench's own:")
    for line in firsts:
        print(f"- {line}")
    history.record("pde", recorded)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
