"""Every method side by side on one function, with the finite-difference check and the diagnosis."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np
import tensorflow as tf

from ..._foundations import _runtime
from .._api import prepare, run
from ._checks import Agreement, FiniteDifferenceCheck, agreement, finite_differences
from .._cost import EAGER_OP_WORK
from ._crosscheck import COMPARE_MODES, MODE_NAMES, CrossCheck, crosscheck_problem, findings as crosscheck_findings
from ._findings import Finding, diagnose
from ..._foundations._errors import ExpressionError, GradlibError, InputError, error_gist
from ._guard import TITLE as DEAD_BRANCH_TITLE, dead_branches
from ..._language._inputs import Input
from ..._language._syntax import Program
from ..._foundations._limits import LIMITS, Limits
from ..._foundations._runtime import returns_numpy
from .._methods import CORRECT_METHODS, METHODS
from .._result import GradResult
from .._structured import NotApplicable, RuleFailed

__all__ = ["REPEATS", "TIMING_SECONDS", "Comparison", "Timing", "compare"]

#: warm calls timed per method after its first call (which may trace, or fill a cache), their median shown
REPEATS = 5
#: the warm calls are timed only when they fit in this many seconds together (judged by the first call)
TIMING_SECONDS = 0.5


@dataclass(frozen=True)
class Timing:
    """One method's seconds: its first call (tracing included, if it traced) and its warm calls, each of which traced
    nothing (``GradResult.traced``) and ran as the call before it did (the method, compiled or not, graph or XLA).

    >>> Timing(0.5, (0.002, 0.001, 0.003)).median, Timing(0.5, ()).median
    (0.002, nan)
    """

    first: float
    warm: tuple[float, ...]   # empty when REPEATS warm calls did not fit in TIMING_SECONDS
    ran_as: str = ""          # how the warm calls ran ("jacobian compiled"), when they were timed

    @property
    def median(self) -> float:
        return float(np.median(self.warm)) if self.warm else float("nan")


@dataclass(frozen=True, eq=False)
class Comparison:
    """The results of several methods on one function, checked and explained.

    ``errors``: the methods that failed, with why; ``skipped``: the methods left out because this problem is
    over their limits (an eager loop of one pass per output, say), with the refusal: nothing went wrong there.
    ``crosscheck``: the gradients eagerly, as a graph and under XLA (``compare(..., crosscheck=True)``), or
    ``None``; ``crosscheck_note``: why it was left out, when it was asked for and could not run.
    """

    results: dict[str, GradResult]
    errors: dict[str, str]
    reference: str
    best: GradResult
    agreement: tuple[Agreement, ...]
    check: FiniteDifferenceCheck
    diagnosis: tuple[Finding, ...]
    skipped: dict[str, str] = field(default_factory=dict)
    timings: dict[str, Timing] = field(default_factory=dict)
    crosscheck: CrossCheck | None = None
    crosscheck_note: str = ""


@returns_numpy("gradlib.compare")
def compare(outputs: str, inputs: Mapping[str, Any], *, watch: Sequence[str] | None = None,
            dtype: str | Mapping[str, str] = "float32", methods: Sequence[str] = METHODS,
            limits: Limits = LIMITS, crosscheck: bool = False) -> Comparison:
    """Run ``methods`` on the function ``outputs`` at ``inputs``; check and explain the results.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``.

    With ``crosscheck``, the gradients are also computed eagerly, as a graph and under XLA (``gradlib.crosscheck``),
    and a mode that differs from eager is a finding of the diagnosis (it costs a trace and an XLA build per function).

    >>> c = compare("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5}, methods=["naive", "auto"])
    >>> c.results["auto"].jacobian.tolist(), c.check.passed, c.diagnosis[0].severity
    ([[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]], True, 'error')
    """
    program, checked, problem = prepare("compare", outputs, inputs, methods, watch=watch, dtype=dtype, limits=limits)
    with _runtime.work_slot():
        return _compare(program, checked, problem, methods, limits, crosscheck)


def _compare(program: Program, checked: Sequence[Input], problem, methods: Sequence[str],
             limits: Limits, crosscheck: bool = False) -> Comparison:
    results, errors, skipped, timings, uncovered = {}, {}, {}, {}, set()
    for method in dict.fromkeys(methods):
        try:
            results[method] = run(problem, method, limits=limits)
            timings[method] = _timing(problem, method, limits, results[method])
        except (InputError, RuleFailed) as exc:   # a bad input; a structured rule that could not place a piece
            errors[method] = str(exc)
        except NotApplicable as exc:   # the method does not cover this function: left out, with the reason
            skipped[method] = str(exc)
            uncovered.add(method)
        except ExpressionError as exc:   # over this method's limits: left out, with the refusal as its note
            skipped[method] = str(exc)
        except GradlibError as exc:
            errors[method] = str(exc)
        except (tf.errors.OpError, ValueError, TypeError, NotImplementedError) as exc:
            errors[method] = f"{method} failed in TensorFlow: {error_gist(exc)}"
    reference = next((m for m in ("auto", *CORRECT_METHODS) if m in results), "auto")
    best = results.get(reference) or run(problem, "auto", limits=limits)
    # each evaluation runs the function eagerly: its arithmetic plus one dispatch per node, as in gradlib._perelement._cost
    evaluation = program.flops + len(program.parts) * EAGER_OP_WORK
    check = finite_differences(_flat_function(program, checked), _watched_vector(checked), best.jacobian, best.dtype,
                               max_flops=limits.max_flops / max(evaluation, 1.0),
                               integer_columns=_integer_columns(checked))
    agreements = tuple(agreement(r, best, reference) for r in results.values())
    findings = diagnose(results, best, check, program.names)
    findings += dead_branches(program, checked, results, best, limits)
    cross, note = _crosscheck(problem, limits) if crosscheck else (None, "")
    if cross is not None:
        findings = _with_crosscheck(findings, cross)
    findings += tuple(Finding(m, f"{m} failed", msg, "warning") for m, msg in errors.items())
    findings += tuple(Finding(m, _LEFT_OUT[m in uncovered], msg, "info") for m, msg in skipped.items())
    return Comparison(results, errors, reference, best, agreements, check, findings, skipped, timings, cross, note)


#: the title of a left-out method's finding: over its limits (False), or not covering the function (True)
_LEFT_OUT = {False: "Left out: this problem is over its limits",
             True: "Left out: the method does not cover this function"}


def _crosscheck(problem, limits: Limits) -> tuple[CrossCheck | None, str]:
    """The cross-check of ``problem``, or why it could not run (over the limits, say): never a failure of compare."""
    try:
        return crosscheck_problem(problem, COMPARE_MODES, limits, chosen_modes=False), ""
    except GradlibError as exc:
        return None, str(exc)


def _with_crosscheck(findings: tuple[Finding, ...], cross: CrossCheck) -> tuple[Finding, ...]:
    """The cross-check's findings added, one per cause: where the dead-branch finding already explains XLA's NaN,
    XLA's measured difference joins it instead of making a box of its own."""
    extra = crosscheck_findings(cross)
    dead = next((i for i, f in enumerate(findings) if f.title == DEAD_BRANCH_TITLE), None)
    xla = cross.mode("xla") if "xla" in cross.differing else None
    if dead is None or xla is None:
        return findings + extra
    merged = replace(findings[dead], text=f"{findings[dead].text} Measured here: {xla.text}",
                     details=" ".join(filter(None, (findings[dead].details, xla.details))))
    others = tuple(f for f in extra if not f.title.startswith(MODE_NAMES["xla"]))
    return findings[:dead] + (merged,) + findings[dead + 1:] + others


def _ran_as(result: GradResult) -> str:
    """How a call ran, as the timings table writes it: ``"jacobian compiled"``, ``"forward"`` (eager)."""
    return result.method + (f" compiled ({result.compiled_as})" if result.compiled_as == "xla" else
                            " compiled" if result.compiled else "")


def _timing(problem, method: str, limits: Limits, first: GradResult) -> Timing:
    """``REPEATS`` warm calls of ``method`` after its first one, when they fit in ``TIMING_SECONDS``: judged by the
    first call (which may trace), by the first warm call, and by the seconds spent. A call that traced (``auto``
    compiling after its eager calls, an XLA build or trial) or ran otherwise than the one before it is not warm:
    the warm calls start again after it."""
    if first.seconds > TIMING_SECONDS:
        return Timing(first.seconds, ())
    warm: list[float] = []
    spent, previous = 0.0, first
    while len(warm) < REPEATS:
        if spent > TIMING_SECONDS or (warm and warm[0] * REPEATS > TIMING_SECONDS):
            return Timing(first.seconds, ())
        result = run(problem, method, limits=limits)
        spent += result.seconds
        alike = (_ran_as(result), result.compiled_as) == (_ran_as(previous), previous.compiled_as)
        warm = warm + [result.seconds] if alike and not result.traced else []
        previous = result
    return Timing(first.seconds, tuple(warm), _ran_as(previous))


def _watched(inputs: Sequence[Input]) -> list[Input]:
    return [i for i in inputs if i.watched]


def _watched_vector(inputs: Sequence[Input]) -> np.ndarray:
    return np.concatenate([i.value.reshape(-1).astype(np.float64) for i in _watched(inputs)])


def _flat_function(program: Program, inputs: Sequence[Input]):
    """The function as flat float64 watched values -> flat float64 y, for finite differences."""
    watched = _watched(inputs)
    fixed = {i.name: tf.constant(i.value, tf.float64) for i in inputs if not i.watched}

    def f(flat: np.ndarray) -> np.ndarray:
        env, start = dict(fixed), 0
        for i in watched:
            env[i.name] = tf.constant(flat[start:start + i.size].reshape(i.shape), tf.float64)
            start += i.size
        return program.build(env, tf.float64).numpy().reshape(-1)

    return f


def _integer_columns(inputs: Sequence[Input]) -> np.ndarray:
    """Per watched element: True for integer inputs, which TensorFlow gives no gradient (nothing to check)."""
    return np.concatenate([np.full(i.size, i.dtype.startswith("int")) for i in _watched(inputs)])
