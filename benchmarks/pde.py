"""Benchmark: a PINN's compiled training step, gradlib.pde.residual against hand-written nested tapes (issue 40).

Two cases on tanh MLPs with three hidden layers of 64: Burgers (``u_t + u*u_x - nu*u_xx``, 2 inputs) and a 3-D
Poisson residual (``u_xx + u_yy + u_zz - f``, 3 inputs), each at ``--points`` collocation points. Each contender
is one ``tf.function`` step: the residual, its mean square and the weight gradients, as a user writes it:

- ``nested tapes``: an outer tape around an inner one, the inner gradient's columns taken under the outer tape,
  one outer gradient per second derivative (the baseline);
- ``gradlib.pde``: ``tf.reduce_mean(residual(x) ** 2)`` under the same weight tape.

Both steps run in one process on the same model and points: the first call of each (its trace) is timed, then
``--rounds`` rounds alternate the two (so the machine's load falls on both alike), each round the median of
``--calls`` calls. The ratio is nested tapes' time over gradlib's per round: the median with the lowest and
highest round (the spread, never the best). The two steps' losses and weight gradients are compared.

    python3 -m benchmarks.pde                    # 10,000 points, 5 rounds of 3 calls
    python3 -m benchmarks.pde --quick            # 1,000 points, 3 rounds
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

__all__ = ["CASES", "main", "measure", "ratio_text"]

NU = 0.0032
#: name -> (residual text, coordinates)
CASES = {"burgers 2-64x3-1": ("u_t + u*u_x - nu*u_xx", ("x", "t")),
         "poisson 3-D 3-64x3-1": ("u_xx + u_yy + u_zz + 3*sin(x)*sin(y)*sin(z)", ("x", "y", "z"))}


def _model(inputs: int):
    import keras

    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((inputs,))] + [keras.layers.Dense(64, activation="tanh")
                                                        for _ in range(3)] + [keras.layers.Dense(1)])


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
                laplacian = sum(outer.gradient(columns[k], x)[:, k] for k in range(3))
                r = laplacian + 3 * tf.sin(x[:, 0]) * tf.sin(x[:, 1]) * tf.sin(x[:, 2])
            del outer
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
    return step


def _timed(step, x, calls: int) -> float:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        loss, grads = step(x)
        float(loss), [g.numpy() for g in grads if g is not None]   # wait for every result
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(case: str, points: int, rounds: int, calls: int) -> dict:
    """First calls, per-round medians and the agreement of the two steps on one case."""
    import tensorflow as tf

    coords = CASES[case][1]
    model = _model(len(coords))
    x = tf.random.stateless_uniform((points, len(coords)), seed=(4, 0), minval=-1.0, maxval=1.0)
    steps = {"nested tapes": _by_hand(case, model), "gradlib.pde": _gradlib(case, model)}
    first, results = {}, {}
    for name, step in steps.items():
        start = time.perf_counter()
        results[name] = step(x)
        float(results[name][0])
        first[name] = time.perf_counter() - start
    seconds: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            seconds[name].append(_timed(step, x, calls))
    (loss_a, grads_a), (loss_b, grads_b) = results["nested tapes"], results["gradlib.pde"]
    # the output bias gets None from both (a Laplacian does not depend on it): a None against a tensor is a gap of 1
    gap = max(float(np.max(np.abs(a.numpy() - b.numpy())) / (np.max(np.abs(a.numpy())) + 1e-30))
              if a is not None and b is not None else float(a is not b) for a, b in zip(grads_a, grads_b))
    ratios = [a / b for a, b in zip(seconds["nested tapes"], seconds["gradlib.pde"])]
    return {"case": case, "points": points, "first": first, "seconds": seconds, "ratios": ratios,
            "loss": (float(loss_a), float(loss_b)), "max_rel_gradient_gap": gap}


def ratio_text(ratios: list[float]) -> str:
    """``1.05x [0.98, 1.10]``: nested tapes' time over gradlib's, the median and the spread of the rounds."""
    return f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}, {max(ratios):.2f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1,000 points, 3 rounds")
    args = parser.parse_args(argv)
    points, rounds = (1_000, 3) if args.quick else (args.points, args.rounds)
    print("| case | points | nested tapes (ms) | gradlib.pde (ms) | speed-up (median [spread]) | first calls (s) "
          "| weight gradients: largest relative gap |")
    print("|---|---|---|---|---|---|---|")
    for case in CASES:
        r = measure(case, points, rounds, args.calls)
        ms = {name: 1e3 * statistics.median(s) for name, s in r["seconds"].items()}
        print(f"| {case} | {points:,} | {ms['nested tapes']:.1f} | {ms['gradlib.pde']:.1f} | {ratio_text(r['ratios'])} "
              f"| {r['first']['nested tapes']:.2f} / {r['first']['gradlib.pde']:.2f} "
              f"| {r['max_rel_gradient_gap']:.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
