"""Every piecewise rule at its kink and at its ties, in every method, equal to TensorFlow's own tape.

One table, ``KINKS``: for each function of the language that is not differentiable everywhere (a kink, a tie, a
jump, a point where its derivative is a convention), the cases that sit exactly there, each with the same
computation written in plain TensorFlow. The reference is a fresh ``tf.GradientTape`` per output element over
that TensorFlow code (float64): TensorFlow's convention at the kink (``relu'(0) = 0``, ``maximum`` gives a tie to
its first argument, ``abs'(0) = 0``, ``reduce_max`` shares a tie) is the answer. Every first-order method and
every second-order method that ``evaluate`` offers is held to it; ``structured`` has rules of its own
(``gradlib._perelement._structured.RULES``), the others are TensorFlow's modes run in other orders.

``SMOOTH`` names every other function of the table (differentiable wherever it is defined): a function added to
``OPERATIONS`` without a row in one of the two fails ``test_every_function_of_the_language_is_classified``.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from gradlib import CORRECT_METHODS, evaluate
from gradlib._language._operations import OPERATIONS
from gradlib._second._orders import TABLE as SECOND_TABLE

#: function -> [(text, inputs, the same in TensorFlow: a function of the dict of inputs)]; the inputs sit on the kink
KINKS = {
    "relu": [("relu(x)", {"x": [-1.0, 0.0, 2.0]}, lambda v: tf.nn.relu(v["x"])),
             ("relu(matmul(W, x))", {"W": [[1.0, -1.0], [2.0, 0.5]], "x": [0.0, 0.0]},
              lambda v: tf.nn.relu(tf.linalg.matvec(v["W"], v["x"])))],
    "maximum": [("maximum(matmul(W, x), 0.0)", {"W": [[1.0, -1.0], [2.0, 0.5]], "x": [0.0, 0.0]},
                 lambda v: tf.maximum(tf.linalg.matvec(v["W"], v["x"]), 0.0)),
                ("maximum(x, x)", {"x": [0.0, 1.5]}, lambda v: tf.maximum(v["x"], v["x"])),
                ("maximum(x, y)", {"x": [0.0, 1.5, -1.0], "y": [0.0, 1.5, 2.0]},
                 lambda v: tf.maximum(v["x"], v["y"])),
                ("maximum(0.0, x)", {"x": [0.0, 1.0]}, lambda v: tf.maximum(tf.constant(0.0, tf.float64), v["x"])),
                ("maximum(x, y)", {"x": [[0.0, 1.0]], "y": [0.0, 3.0]}, lambda v: tf.maximum(v["x"], v["y"]))],
    "minimum": [("minimum(x, x)", {"x": [0.0, 1.5]}, lambda v: tf.minimum(v["x"], v["x"])),
                ("minimum(x, y)", {"x": [0.0, 1.5, -1.0], "y": [0.0, 1.5, 2.0]},
                 lambda v: tf.minimum(v["x"], v["y"])),
                ("minimum(1.0, x)", {"x": [1.0, 0.0]}, lambda v: tf.minimum(tf.constant(1.0, tf.float64), v["x"]))],
    "abs": [("abs(x)", {"x": [0.0, -2.0, 3.0]}, lambda v: tf.abs(v["x"])),
            ("abs(x - y)", {"x": [1.0, 2.0], "y": [1.0, 0.0]}, lambda v: tf.abs(v["x"] - v["y"]))],
    "clip": [("clip(x, lo, hi)", {"x": [-1.0, 0.0, 0.5, 1.0, 2.0], "lo": 0.0, "hi": 1.0},
              lambda v: tf.minimum(tf.maximum(v["x"], v["lo"]), v["hi"])),
             ("clip(x, x, x)", {"x": [0.5]}, lambda v: tf.minimum(tf.maximum(v["x"], v["x"]), v["x"])),
             ("clip(x, lo, hi)", {"x": [0.0, 1.0], "lo": 1.0, "hi": 1.0},   # lo == hi: both bounds at once
              lambda v: tf.minimum(tf.maximum(v["x"], v["lo"]), v["hi"]))],
    "where": [("where(x > 0, x, -x)", {"x": [0.0, -1.0, 2.0]}, lambda v: tf.where(v["x"] > 0, v["x"], -v["x"])),
              ("where(x >= 0, x * x, x)", {"x": [0.0, -1.0]}, lambda v: tf.where(v["x"] >= 0, v["x"] ** 2, v["x"])),
              ("where(x == y, x, y)", {"x": [1.0, 2.0], "y": [1.0, 3.0]},
               lambda v: tf.where(v["x"] == v["y"], v["x"], v["y"]))],
    "sign": [("sign(x) * x", {"x": [0.0, -1.0, 2.0]}, lambda v: tf.sign(v["x"]) * v["x"])],
    "floor": [("floor(x) + x", {"x": [1.0, -2.0, 0.5]}, lambda v: tf.floor(v["x"]) + v["x"])],
    "round": [("round(x) * x", {"x": [0.5, 1.5, -0.5, 2.0]}, lambda v: tf.round(v["x"]) * v["x"])],
    "elu": [("elu(x)", {"x": [0.0, -1.0, 1.0]}, lambda v: tf.nn.elu(v["x"]))],
    "max": [("max(x)", {"x": [1.0, 1.0, 0.0]}, lambda v: tf.reduce_max(v["x"])),
            ("max(x, axis=1)", {"x": [[2.0, 2.0], [1.0, 0.0]]}, lambda v: tf.reduce_max(v["x"], axis=1))],
    "min": [("min(x)", {"x": [0.0, 0.0, 1.0]}, lambda v: tf.reduce_min(v["x"]))],
    "prod": [("prod(x)", {"x": [0.0, 2.0, 3.0]}, lambda v: tf.reduce_prod(v["x"])),
             ("prod(x)", {"x": [0.0, 0.0, 3.0]}, lambda v: tf.reduce_prod(v["x"]))],
    "pow": [("pow(x, 2.0)", {"x": [0.0, -1.0]}, lambda v: tf.pow(v["x"], tf.constant(2.0, tf.float64))),
            ("pow(x, y)", {"x": [0.0, 2.0], "y": [2.0, 0.0]}, lambda v: tf.pow(v["x"], v["y"]))],
}
#: every other function: differentiable wherever it is defined (a pole, like log at 0, is not a kink)
SMOOTH = {"sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sigmoid", "square", "softplus", "log1p", "expm1", "erf",
          "gelu", "sinh", "cosh", "atan", "asin", "acos", "sum", "mean", "logsumexp", "norm", "atan2", "matmul", "dot",
          "softmax", "log_softmax", "cross_entropy", "transpose", "reshape", "concat", "stack", "cumsum"}

CASES = [pytest.param(text, inputs, tf_code, id=f"{name}:{text}:{k}")
         for name, rows in KINKS.items() for k, (text, inputs, tf_code) in enumerate(rows)]


def _tensors(inputs: dict) -> dict:
    return {k: tf.constant(np.asarray(v, np.float64)) for k, v in inputs.items()}


def _tape_jacobian(tf_code, inputs: dict) -> np.ndarray:
    """TensorFlow's own answer: one fresh tape per output element, every input watched, float64."""
    v = _tensors(inputs)
    names = list(v)
    rows = []
    for i in range(int(tf.size(tf_code(v)))):
        with tf.GradientTape() as tape:
            tape.watch([v[n] for n in names])
            y_i = tf.reshape(tf_code(v), [-1])[i]
        grads = tape.gradient(y_i, [v[n] for n in names], unconnected_gradients=tf.UnconnectedGradients.ZERO)
        rows.append(np.concatenate([np.ravel(g.numpy()) for g in grads]))
    return np.array(rows)


def _tape_hessians(tf_code, inputs: dict) -> np.ndarray:
    """TensorFlow's own Hessian of each output element: nested tapes, one fresh pair per element and column."""
    v = _tensors(inputs)
    names = list(v)
    flat = tf.concat([tf.reshape(v[n], [-1]) for n in names], 0)

    def unflat(x):
        out, at = {}, 0
        for n in names:
            size = int(tf.size(v[n]))
            out[n] = tf.reshape(x[at:at + size], v[n].shape)
            at += size
        return out
    hessians = []
    for i in range(int(tf.size(tf_code(v)))):
        rows = []
        for j in range(int(flat.shape[0])):
            with tf.GradientTape() as outer:
                outer.watch(flat)
                with tf.GradientTape() as inner:
                    inner.watch(flat)
                    y_i = tf.reshape(tf_code(unflat(flat)), [-1])[i]
                g_j = inner.gradient(y_i, flat, unconnected_gradients=tf.UnconnectedGradients.ZERO)[j]
            rows.append(outer.gradient(g_j, flat, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy())
        hessians.append(np.array(rows))
    return np.array(hessians)


#: (tape function, the case's own TensorFlow lambda) -> its answer: each case's reference is computed once per
#: process, not once per method it is held against (9 first-order and 4 second-order tests share it)
_REFERENCES: dict = {}


def _reference(tape, tf_code, inputs: dict) -> np.ndarray:
    """``tape(tf_code, inputs)``, cached per case (every case has its own lambda) and read-only, so no test can
    change the answer the next one is held to."""
    key = (tape, tf_code)
    if key not in _REFERENCES:
        _REFERENCES[key] = tape(tf_code, inputs)
        _REFERENCES[key].flags.writeable = False
    return _REFERENCES[key]


def test_every_function_of_the_language_is_classified():
    # a new function of the language is either smooth or gets its kink cases here
    assert set(KINKS) | SMOOTH == set(OPERATIONS), sorted(set(OPERATIONS) ^ (set(KINKS) | SMOOTH))
    assert not set(KINKS) & SMOOTH


def test_the_references_sit_on_the_kinks():
    # the tape's answer at relu's kink is 0 (TensorFlow's convention), and maximum's tie goes to its first argument
    np.testing.assert_array_equal(_tape_jacobian(lambda v: tf.nn.relu(v["x"]), {"x": [0.0]}), [[0.0]])
    np.testing.assert_array_equal(_tape_jacobian(lambda v: tf.maximum(v["x"], v["y"]), {"x": [0.0], "y": [0.0]}),
                                  [[1.0, 0.0]])


def test_every_case_has_its_own_reference_key():
    # the cached references are keyed on the case's lambda: two cases sharing one would share an answer
    assert len({id(case.values[2]) for case in CASES}) == len(CASES)


#: every correct method eagerly and compiled, and the default: auto, compiling as it decides
FIRST_ORDER = [(m, False) for m in CORRECT_METHODS] + [(m, True) for m in CORRECT_METHODS] + [("auto", None)]


@pytest.mark.parametrize("method, compiled", FIRST_ORDER,
                         ids=[f"{m}-{ {False: 'eager', True: 'xla', None: 'default'}[c]}" for m, c in FIRST_ORDER])
@pytest.mark.parametrize("text, inputs, tf_code", CASES)
def test_first_order_at_the_kink_is_the_tape(text, inputs, tf_code, method, compiled):
    expected = _reference(_tape_jacobian, tf_code, inputs)
    try:
        r = evaluate(text, inputs, method=method, dtype="float64", compiled=compiled)
    except Exception as e:   # a method may refuse a function it has no rule for, by name: never a wrong number
        if method == "structured" and "has no rule in the structured Jacobian" in str(e):
            return
        raise
    np.testing.assert_array_equal(r.jacobian, expected, err_msg=f"{text} at {inputs}, method={method!r}")


SECOND_ORDER = [row.name for row in SECOND_TABLE if "hessian" in row.kinds] + ["auto"]


@pytest.mark.parametrize("method", SECOND_ORDER)
@pytest.mark.parametrize("text, inputs, tf_code", CASES)
def test_second_order_at_the_kink_is_the_tape(text, inputs, tf_code, method):
    expected = _reference(_tape_hessians, tf_code, inputs)
    r = evaluate(text, inputs, method=method, dtype="float64", order=2)
    np.testing.assert_array_equal(r.hessian, expected, err_msg=f"{text} at {inputs}, method={method!r}")
