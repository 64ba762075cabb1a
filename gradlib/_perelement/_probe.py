"""A callable's Jacobian checked against the callable itself: one random direction, three extra calls.

The seed's lesson is that every operation must run inside the tape. A user's function that leaves TensorFlow
(NumPy on ``v.numpy()``, ``float(v)``, ``tf.numpy_function``, an integer cast) gives the tape a constant where a
variable was: ``lambda v: tf.constant(np.sin(v.numpy())) * v`` gets ``sin(v)`` as its derivative, where the
true one is ``cos(v) * v + sin(v)``, with no error anywhere. The function itself still knows the truth, so
``check`` moves every watched element at once along one fixed random direction ``d`` (each element by at most
``h * max(1, |x|)``) and compares the slope the Jacobian predicts, ``J @ d``, with the function's own change:

* the one-sided slopes ``(f(x + h d) - f(x)) / h`` and ``(f(x) - f(x - h d)) / h`` bracket the true slope of a
  smooth function (their gap is its curvature), and at a kink (``relu``, ``abs``) every subgradient TensorFlow
  may pick lies between them, so a Jacobian is called wrong only outside that bracket, by more than the
  rounding of the three evaluations and ``RTOL``;
* ``f(x)`` is evaluated a second time: a function that gives another output at the same point (Dropout with
  ``training=True``) has another Jacobian at every call, and is said to be random instead.

Only float32 and float64 are checked (in float16 no step is both above rounding and below curvature).

>>> import numpy as np, tensorflow as tf
>>> from gradlib._perelement._problem import callable_problem
>>> p = callable_problem(lambda v: tf.constant(np.sin(v.numpy())) * v, tf.constant([1.0, 2.0, 3.0]))
>>> y = p.f(p.xs, []).numpy()
>>> print(check(p, y, np.diag(np.sin([1.0, 2.0, 3.0])))[:57])
the Jacobian disagrees with fn itself: along a random dir
>>> check(p, y, np.diag(np.cos([1.0, 2.0, 3.0]) * [1, 2, 3] + np.sin([1.0, 2.0, 3.0])))
''
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
import tensorflow as tf

from .._foundations._cache import LRUCache
from .._foundations._errors import GradlibError, error_gist
from .._foundations._format import format_number
from ._problem import Problem
from .._callable._random import RANDOM
from .._callable._trace import lowest_float, trace

__all__ = ["MAX_SHARE", "RTOL", "STEPS", "check", "check_result", "direction", "retired"]

#: the step along the direction, by dtype: about the cube root of the dtype's epsilon (rounding vs curvature)
STEPS = {"float32": 5e-3, "float64": 6e-6}
#: a slope may leave the one-sided bracket by this much, relative to the largest slope of its output
RTOL = {"float32": 1e-2, "float64": 1e-6}
#: the check keeps running on a problem's calls while it costs at most this share of the call it checks
MAX_SHARE = 0.1
#: problem key -> [the check's cost over its call's, whether its skipping was said, the warning its last check gave]
_SHARES = LRUCache(maxsize=128)
#: the causes named when the Jacobian and the function disagree
CAUSES = ("NumPy or .numpy()/float() on a watched tensor", "tf.numpy_function", "a cast to an integer",
          "tf.stop_gradient")


def check(problem: Problem, y: np.ndarray, jac: np.ndarray) -> str:
    """``""`` when ``jac`` (``(m, n)`` over ``problem.xs``) agrees with ``problem.f`` along ``direction``,
    otherwise a warning that says how it disagrees and why that happens. Three calls of ``f``.

    The step and the tolerance are those of the least precise float ``f`` computes in (``_precision``), read only
    where the input's own disagree: a float64 batch through a float32 Keras model (NumPy's default float into
    Keras' default layers) or a mixed_float16 model is computed to float32's or float16's precision, and float64's
    step of 6e-6 measured float32 rounding, not the slope ("Part of fn is invisible to the tape" for a plain Dense
    model whose Jacobian was right, hunt 54). A model computing in half precision is not checked (see above)."""
    warning = _check_at(problem, y, jac, problem.dtype)
    if warning and not warning.startswith(RANDOM):
        precision = _precision(problem)
        if precision != problem.dtype:
            return _check_at(problem, y, jac, precision) if precision in STEPS else ""
    return warning


def _precision(problem: Problem) -> str:
    """The least precise float ``problem.f`` computes in on its tensors (``lowest_float`` of one trace); the input's
    dtype where ``f`` cannot be traced (it then ran eagerly, and its precision is not read)."""
    try:   # the signature too: a constant that is not a tensor leaves the input's dtype, not an error of the check
        signature = [[tf.TensorSpec.from_tensor(t) for t in problem.xs],
                     [tf.TensorSpec.from_tensor(tf.convert_to_tensor(c)) for c in problem.cs]]
        return lowest_float(trace(problem.f, signature).graph, problem.dtype)
    except Exception:   # noqa: BLE001 - not traceable: the input's dtype, as before
        return problem.dtype


def _check_at(problem: Problem, y: np.ndarray, jac: np.ndarray, dtype: str) -> str:
    """``check`` with the step, rounding and tolerance of ``dtype``."""
    if dtype not in STEPS or not problem.xs:
        return ""
    h = STEPS[dtype]
    d = direction(problem.xs)
    try:
        again, plus, minus = (_call(problem, h * s * d) for s in (0.0, 1.0, -1.0))
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed at a nearby point: say so
        return f"the Jacobian could not be checked against fn itself: {type(exc).__name__}: {error_gist(exc)}"
    y = np.asarray(y, np.float64).ravel()
    eps = float(np.finfo(dtype).eps)
    if np.nanmax(np.abs(again - y) - 100 * eps * np.maximum(1.0, np.abs(y)), initial=0.0) > 0:
        return (f"{RANDOM}, so every call has another Jacobian; fix its randomness (training=False) to get the "
                "gradients of one function")
    rounding = 8 * eps * (np.abs(again) + np.abs(plus) + np.abs(minus)) / h
    predicted = np.asarray(jac, np.float64) @ d
    ahead, behind = (plus - again) / h, (again - minus) / h
    scale = np.maximum.reduce([np.abs(ahead), np.abs(behind), np.abs(predicted)])
    slack = RTOL[dtype] * scale + rounding
    outside = (predicted < np.minimum(ahead, behind) - slack) | (predicted > np.maximum(ahead, behind) + slack)
    outside &= np.isfinite(predicted) & np.isfinite(ahead) & np.isfinite(behind)
    if not outside.any():
        return ""
    i = int(np.argmax(np.where(outside, np.abs(predicted - (ahead + behind) / 2), -1)))
    return (f"the Jacobian disagrees with fn itself: along a random direction v, {int(outside.sum()):,} of "
            f"{y.size:,} output(s) change at another rate than J @ v predicts (output {i}: J @ v = "
            f"{format_number(predicted[i])}, fn's own finite difference = {format_number((ahead[i] + behind[i]) / 2)}"
            f"). Part of fn is invisible to the tape, so its gradients are wrong: {', '.join(CAUSES)}. Keep every "
            "operation on watched tensors in TensorFlow (check=False skips this check)")


def check_result(problem: Problem, y: np.ndarray, jac: np.ndarray, seconds: float,
                 custom_gradient: Callable[[Problem], str] = lambda problem: "") -> tuple[str, ...]:
    """``check``'s warning (if any) for an answer that took ``seconds``, while checking stays cheap.

    Every call of a problem is checked while the check costs at most ``MAX_SHARE`` of the call it checks; after
    that only the problem's first call was, and the first unchecked result says so once; a warning the last check
    gave (fn random, or invisible to the tape) is given again with every later result, which it concerns as much. A disagreement is
    expected where fn defines its own gradient (``custom_gradient(problem)`` names it): then that is said instead.
    """
    if problem.key is None:
        return tuple(_explained(w, problem, custom_gradient) for w in filter(None, [check(problem, y, jac)]))
    state = _SHARES.get_or_create(problem.key, lambda: [0.0, False, ""])
    if state[0] > MAX_SHARE:
        if state[2]:   # what the last check found holds for every call of this problem: said again, not re-checked
            return (state[2],)
        if state[1]:
            return ()
        state[1] = True
        return (f"the Jacobian was checked against fn itself on earlier calls only: the check costs "
                f"{100 * state[0]:.0f}% of a call here, over the {100 * MAX_SHARE:.0f}% it may take",)
    start = time.perf_counter()
    warning = check(problem, y, jac)
    state[0] = (time.perf_counter() - start) / max(seconds, 1e-9)
    state[2] = _explained(warning, problem, custom_gradient) if warning else ""
    return (state[2],) if warning else ()


def retired(key) -> bool:
    """Whether ``check_result`` has nothing left to do or say for the problem of ``key``: its check costs over
    ``MAX_SHARE`` of a call and the result that said so has been given (every later call returns ``()``)."""
    state = _SHARES.get(key)
    return state is not None and state[0] > MAX_SHARE and state[1] and not state[2]


def _explained(warning: str, problem: Problem, custom_gradient: Callable[[Problem], str]) -> str:
    """``warning`` of a disagreement, or, where fn defines its own gradient, that this explains it (a custom
    gradient, a straight-through estimator, need not be the derivative of fn's output)."""
    name = custom_gradient(problem) if warning.startswith("the Jacobian disagrees") else ""
    if not name:
        return warning + (_unseen_gradient_note(problem) if warning.startswith("the Jacobian disagrees") else "")
    return (f"fn defines its own gradient (tf.custom_gradient; op type {name!r}): the Jacobian follows it, as "
            "tape.gradient does, and it differs from fn's own finite differences, as such a gradient may "
            "(a straight-through estimator does by design): t" + warning.split(". Part of fn", 1)[0][1:] + ".")


def _unseen_gradient_note(problem: Problem) -> str:
    """Where fn cannot be traced, gradlib cannot see a gradient fn defines itself (it reads one from a trace): say
    that this, too, would explain the disagreement (the Jacobian then follows that gradient, as tape.gradient does)."""
    specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (problem.xs, problem.cs)]
    try:
        trace(problem.f, specs)
    except Exception:   # noqa: BLE001 - not traceable: a custom gradient in it is out of sight
        return (" If fn defines its own gradient (tf.custom_gradient, a straight-through estimator), that explains it "
                "too and the Jacobian follows that gradient as tape.gradient does: gradlib finds such a gradient in a "
                "trace of fn, and fn cannot be traced here")
    return ""


def direction(xs: list) -> np.ndarray:
    """The fixed random direction: unit length over all watched elements, each scaled by ``max(1, |x|)``."""
    values = np.concatenate([np.asarray(x.numpy(), np.float64).ravel() for x in xs])
    u = np.random.default_rng(20261201).standard_normal(values.size)
    return u / np.linalg.norm(u) * np.maximum(1.0, np.abs(values))


def _call(problem: Problem, step: np.ndarray) -> np.ndarray:
    """``f`` at the watched tensors moved by ``step`` (flat), as a flat float64 array."""
    moved, start = [], 0
    for x in problem.xs:
        size = int(x.shape.num_elements())
        moved.append(x + tf.constant(step[start:start + size].reshape(x.shape), x.dtype))
        start += size
    out = problem.f(moved, problem.cs)
    return np.asarray(out.numpy() if hasattr(out, "numpy") else out, np.float64).ravel()
