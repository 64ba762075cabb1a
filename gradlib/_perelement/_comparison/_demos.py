"""Live demonstrations of why per-element gradients come out as zeros or None, each computed on call."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass

import numpy as np
import tensorflow as tf

from ..._foundations._errors import ExpressionError
from ..._foundations._runtime import quiet
from .._methods import ZERO

__all__ = ["DEMOS", "Demo", "demonstrate"]


@dataclass(frozen=True)
class Demo:
    """One pitfall: broken and fixed code, and what TensorFlow returned for each just now.

    ``broken`` and ``fixed`` are gradient rows (a list per output); ``None`` marks a gradient that
    TensorFlow returned as None. ``targets`` names what each row is the gradient of, as the printed code calls it
    (``y0`` for ``g.gradient(y0, x)``); empty: ``y``, or ``y[k]`` when there are several rows.
    """

    name: str
    title: str
    explanation: str
    broken_code: str
    fixed_code: str
    broken: list | None
    fixed: list
    labels: tuple[str, ...]
    note: str = ""
    targets: tuple[str, ...] = ()


def _values(grads, sizes=None) -> list:
    """One flat row from per-input gradients; a None gradient becomes None in each of its cells."""
    sizes = sizes or [1] * len(grads)
    row: list = []
    for g, size in zip(grads, sizes):
        row += [None] * size if g is None else [float(v) for v in np.asarray(g).reshape(-1)]
    return row


def _seed():
    x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
    return x, lambda x: tf.stack([x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]])


def _iterate_outside() -> Demo:
    x, f = _seed()
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = f(x)
    broken = [_values(g.gradient(y_i, x)) for y_i in y]   # exactly the printed code: None, one per x
    zeros = [_values(g.gradient(y_i, x, unconnected_gradients=ZERO)) for y_i in y]
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = f(x)
        parts = tf.unstack(y)
    fixed = [_values(g.gradient(y_i, x)) for y_i in parts]
    return Demo("iterate_outside", "Iterating y after the tape block",
                "`for y_i in y` runs unstack after recording stopped: each y_i is a new tensor the tape never saw.",
                "with tf.GradientTape(persistent=True) as g:\n    g.watch(x)\n    y = tf.stack([...])\n"
                "# after the block: None for every x\n[g.gradient(y_i, x) for y_i in y]",
                "with tf.GradientTape(persistent=True) as g:\n    g.watch(x)\n    y = tf.stack([...])\n"
                "    parts = tf.unstack(y)  # inside the tape\n[g.gradient(y_i, x) for y_i in parts]",
                broken, fixed, ("x0", "x1", "x2"),
                "With unconnected_gradients=tf.UnconnectedGradients.ZERO the broken loop gives "
                f"{_rows_text(zeros)} instead of None: zeros that look like an answer.")


def _rows_text(rows: list) -> str:
    """``[[0.0, 0.0], [0.0, 0.0]]`` -> ``[[0, 0], [0, 0]]``, as TensorFlow computed them."""
    return "[" + ", ".join("[" + ", ".join("None" if v is None else f"{v:g}" for v in r) + "]" for r in rows) + "]"


def _numpy_round_trip() -> Demo:
    x = tf.constant([0.0, 1.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.constant(np.sin(x.numpy()))   # leaves TensorFlow: the tape sees a constant
    broken = [_values([g.gradient(y, x)], [2])]
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.sin(x)
    fixed = [_values([g.gradient(y, x)])]
    return Demo("numpy_round_trip", "A NumPy round trip inside the tape",
                "x.numpy() and np.sin leave TensorFlow; tf.constant brings back a value with no history.",
                "y = tf.constant(np.sin(x.numpy()))\ng.gradient(y, x)   # None",
                "y = tf.sin(x)\ng.gradient(y, x)   # cos(x)", broken, fixed, ("x[0]", "x[1]"),
                "The fixed gradient is [cos(0), cos(1)] = [1, 0.54].")


def _slice_outside() -> Demo:
    x = tf.constant([2.0, 3.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        y0_inside = y[0]
    y0_outside = y[0]
    broken = [_values([g.gradient(y0_outside, x)], [2])]
    fixed = [_values([g.gradient(y0_inside, x)])]
    return Demo("slice_outside", "Slicing y outside the tape",
                "y[0] is a strided_slice op; run outside the block, it is not recorded, so y[0] is unconnected.",
                "with g: y = x * x\ny0 = y[0]\ng.gradient(y0, x)   # None",
                "with g:\n    y = x * x\n    y0 = y[0]\ng.gradient(y0, x)   # [4, 0]", broken, fixed, ("x[0]", "x[1]"),
                targets=("y0",))


def _integer_watch() -> Demo:
    n = tf.constant([1, 2])
    with _quiet(tf.get_logger(), "The dtype of the watched tensor must be floating"), tf.GradientTape() as g:
        g.watch(n)   # TensorFlow logs a warning here; the demo shows the outcome instead
        y = tf.cast(n, tf.float32) ** 2
    broken = [_values([g.gradient(y, n)], [2])]
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x ** 2
    fixed = [_values([g.gradient(y, x)])]
    return Demo("integer_watch", "Watching an integer tensor",
                "The tape only records floating-point tensors; watching an int32 tensor is ignored with a log warning.",
                "n = tf.constant([1, 2])\ng.watch(n)\ny = tf.cast(n, tf.float32) ** 2\ng.gradient(y, n)   # None",
                "x = tf.constant([1.0, 2.0])\ng.watch(x)\ny = x ** 2\ng.gradient(y, x)   # [2, 4]",
                broken, fixed, ("x[0]", "x[1]"))


@contextlib.contextmanager
def _quiet(logger: logging.Logger, message: str):
    """Drop one known log message for the duration (a filter: the logger's level stays as it is)."""
    def keep(record: logging.LogRecord) -> bool:
        return message not in record.getMessage()

    logger.addFilter(keep)
    try:
        yield
    finally:
        logger.removeFilter(keep)


def _variable_replaced() -> Demo:
    v = tf.Variable(3.0)
    v = v + 1.0            # now a plain Tensor: no longer watched automatically
    with tf.GradientTape() as g:
        y = v * v
    broken = [_values([g.gradient(y, v)])]
    w = tf.Variable(3.0)
    w.assign_add(1.0)      # still the same Variable
    with tf.GradientTape() as g:
        y = w * w
    fixed = [_values([g.gradient(y, w)])]
    return Demo("variable_replaced", "A variable replaced by a tensor",
                "v = v + 1 rebinds v to a Tensor; the tape watches trainable Variables automatically, not Tensors.",
                "v = tf.Variable(3.0)\nv = v + 1.0\nwith g: y = v * v\ng.gradient(y, v)   # None",
                "v = tf.Variable(3.0)\nv.assign_add(1.0)\nwith g: y = v * v\ng.gradient(y, v)   # 8",
                broken, fixed, ("v",))


def _stack_is_differentiable() -> Demo:
    x = [tf.constant(3.0), tf.constant(4.0)]
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.stack([x[0] * x[1], x[0] + x[1]])
    jac = g.jacobian(y, x)
    fixed = np.stack([np.asarray(j) for j in jac], axis=1).tolist()
    return Demo("stack_is_differentiable", "tf.stack is differentiable",
                "The seed's answer claims tf.stack is not differentiable. It is: its gradient unstacks the upstream "
                "gradient. Here the Jacobian through tf.stack is [[x1, x0], [1, 1]] = [[4, 3], [1, 1]].",
                "", "with g:\n    y = tf.stack([x0 * x1, x0 + x1])\ng.jacobian(y, [x0, x1])",
                None, fixed, ("x0", "x1"))


def _nan_poisoning() -> Demo:
    from .._api import evaluate

    text, inputs = "[exp(exp(10*x0)), 2*x1]", {"x0": 1.0, "x1": 1.0}
    broken = evaluate(text, inputs, method="jacobian").jacobian.tolist()
    fixed = evaluate(text, inputs, method="auto").jacobian.tolist()
    return Demo("nan_poisoning", "NaN poisoning through a stacked output",
                "y[0] = exp(exp(10)) overflows to inf. Reverse mode sends y[1]'s zero upstream gradient through "
                "y[0]'s branch: 0 x inf = NaN lands in y[1]'s row, although y[1] = 2*x1 does not involve x0.",
                "y = tf.stack([tf.exp(tf.exp(10 * x0)),\n              2 * x1])\n# row 1: [nan, 2]\ntape.jacobian(y, [x0, x1])",
                "gradlib.evaluate('[exp(exp(10*x0)), 2*x1]',\n                 ...)  # row 1: [0, 2]", broken, fixed, ("x0", "x1"),
                "gradlib's auto recomputes the poisoned rows in forward mode, where the inf stays in its own row.")


_DEMOS = {d.__name__[1:]: d for d in (_iterate_outside, _numpy_round_trip, _slice_outside, _integer_watch,
                                       _variable_replaced, _stack_is_differentiable, _nan_poisoning)}
#: the names of the pitfalls ``demonstrate`` computes live
DEMOS = tuple(_DEMOS)


@quiet
def demonstrate(name: str) -> Demo:
    """Run the demonstration ``name`` (one of ``DEMOS``) live and return what TensorFlow gave.

    >>> demonstrate("iterate_outside").fixed
    [[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]
    """
    if name not in _DEMOS:
        raise ExpressionError(f"demonstrate got {name!r}; choose one of {', '.join(DEMOS)}")
    return _DEMOS[name]()
