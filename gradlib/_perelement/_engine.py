"""How one method runs on one problem: ``auto``'s choice, the computation, the repair, the packaged result.

``run_method`` is the worker behind ``gradlib.evaluate``, ``per_element_gradients`` and ``compare``: it sizes
the output, decides between reverse and forward mode (``_choose``) and between a compiled and an eager run
(``_use_compiled``), asks the cost plan (``gradlib._perelement._plan``) whether that fits the limits, computes
(``gradlib._perelement._compute``), repairs NaN-poisoned rows in the other mode (``gradlib._perelement._repair``) and packages a
``GradResult`` (``gradlib._perelement._package``).

>>> import tensorflow as tf
>>> from gradlib._foundations._limits import LIMITS
>>> from gradlib._perelement._problem import callable_problem
>>> r = run_method(callable_problem(lambda x: x * x, tf.constant([1.0, 2.0])), "auto", None, LIMITS)
>>> r.jacobian.tolist(), r.method, r.compiled
([[2.0, 0.0], [0.0, 4.0]], 'unstack', False)
"""

from __future__ import annotations

import time
from dataclasses import replace

import tensorflow as tf

from . import _cost, _methods, _opgraph, _plan, _probe, _structured, _warm
from .._foundations._cache import LRUCache
from ._compute import (CompiledRun, cached_compiled, calls_py_function, compute, compute_chunked, custom_gradient,
                       output_size, unreached)
from .._callable._random import RANDOM, is_random
from .._foundations._errors import GradlibError, error_gist
from .._foundations._limits import Limits
from ._methods import CORRECT_METHODS
from ._package import package
from ._problem import Problem, check_size
from ._repair import Repair, poisoned_rows, repair_poisoned
from ._result import GradResult

__all__ = ["EAGER_PASSES", "FORWARD_PASS_COST", "TRACE_SECONDS", "UNSTACK_COMPILED_ROWS", "run_method"]

#: a problem seen for the first time runs eagerly if it needs at most this many passes: on the tanh MLP, eager
#: unstack and a traced, vectorized Jacobian cost the same first call at about 48-64 passes
EAGER_PASSES = 32
#: an eager forward-mode pass costs about this many eager reverse passes (TensorFlow dispatches every op's JVP
#: through a tf.function), so eager auto prefers reverse mode until outputs exceed 3 x inputs
FORWARD_PASS_COST = 3
#: about what tracing one problem costs here; once eager calls of a problem have taken this long in all, auto
#: compiles it (the ski-rental rule: never more than about twice the time of the better choice in hindsight)
TRACE_SECONDS = 0.3
#: compiled ``unstack`` traces one backward pass per output, each as wide as the output: tracing grows as m**2
#: (the first calls behind this bar: docs/performance.md, "Where the constants come from"), so above this it
#: runs eagerly even if asked
UNSTACK_COMPILED_ROWS = 16
#: problem key -> [seconds spent in eager auto calls], for the ski-rental rule
_EAGER_SECONDS = LRUCache(maxsize=128)
#: problem keys whose structured Jacobian was refused while tracing: auto does not try them again
_NOT_STRUCTURED = LRUCache(maxsize=128)


def run_method(problem: Problem, method: str, compiled: bool | None, limits: Limits) -> GradResult:
    """Run ``method`` on ``problem`` and package the result (``auto``: choose, then repair poisoned rows)."""
    start = time.perf_counter()
    m = output_size(problem)
    _check_outputs(m, problem)
    check_size(m, problem, limits)
    read = _check_structured(problem) if method == "structured" else None
    if method == "forward":
        _check_custom_gradient(problem)
    profile = read or problem.profile or _cost.Profile.of_callable(m, problem.float_width, problem.itemsize)
    chosen, use_compiled, chunk = _plan_method(problem, method, profile, compiled, limits)
    fast = None
    if method == "auto" and use_compiled and not chunk:
        fast = _from_structure(problem, profile, chosen, limits, start)
        if fast is not None:
            return fast
        fast = _from_graph(problem, chosen, limits)
    chosen, y, jac, ran, notes = ("structured", *fast, ()) if fast else _computed(problem, method, chosen,
                                                                                   use_compiled, chunk, compiled)
    if method == "auto" and not ran and problem.key is not None:
        _EAGER_SECONDS.get_or_create(problem.key, lambda: [0.0])[0] += time.perf_counter() - start
    # the structured fast path returns only answers without NaN or infinity (``_structured_if_cheaper``): no row of
    # it is poisoned, and a warm call skips the pass over the Jacobian that would say so
    poisoned = poisoned_rows(y, jac) if chosen in CORRECT_METHODS and not fast else ()
    repair = Repair()
    if poisoned and method == "auto" and chosen != "forward" and custom_gradient(problem):
        notes += ("NaN poisoning not repaired: the other mode, forward mode, would not follow the gradient fn defines "
                  "itself (tf.custom_gradient)",)
    elif poisoned and method == "auto" and _random(problem):
        notes += (f"NaN poisoning not repaired: {RANDOM}, and a repair calls fn again: its cells would come from "
                  "another draw than the rest of the Jacobian",)
    elif poisoned and method == "auto":
        jac, poisoned, repair, notes = repair_poisoned(problem, profile, chosen, bool(ran), jac, poisoned,
                                                       _compilable(problem, compiled), limits)
    if problem.check and chosen in CORRECT_METHODS:
        notes += _probe.check_result(problem, y, jac, time.perf_counter() - start, custom_gradient)
    notes += _unreached_note(problem)
    if chunk:
        notes += (f"computed in chunks of {chunk:,} vectorized passes, to keep the estimated peak memory within "
                  f"{_cost.size_text(limits.max_bytes)}",)
    seconds = time.perf_counter() - start
    result = package(problem, chosen, method, y, jac, ran, poisoned, repair, seconds)
    if fast:
        _remember_warm(problem, compiled, limits, m, ran, result)
    return replace(result, warnings=result.warnings + notes) if notes else result


def _random(problem: Problem) -> bool:
    """Whether ``problem.f`` gives another output at a second call at the same point (asked only where a repair
    would call it again: a rare path, so not remembered)."""
    return is_random(lambda _: problem.f(problem.xs, problem.cs), tf.zeros((1, 1)), None)


def _remember_warm(problem: Problem, compiled: bool | None, limits: Limits, m: int, ran, result: GradResult) -> None:
    """Keep what ``auto`` decided for a callable whose structured Jacobian ran settled (graph or XLA chosen for
    good) with nothing said once, so that the same request answers warm (``gradlib._perelement._warm``). The recipe
    holds while the same compiled function is kept, structured is not refused, auto still compiles the problem
    (where its eager history decided that) and ``check`` has retired (``gradlib._perelement._probe.retired``)."""
    entry = cached_compiled(problem.key, "structured")
    if (problem.api != "per_element_gradients" or entry is None or not isinstance(ran, CompiledRun) or not ran.final
            or ran.traced or ran.note):
        return
    key, check = problem.key, problem.check
    by_history = compiled is None and min(m, FORWARD_PASS_COST * problem.width) <= EAGER_PASSES

    def holds() -> bool:
        return (cached_compiled(key, "structured") is entry and _NOT_STRUCTURED.get(key) is None
                and (not by_history or _EAGER_SECONDS.get(key, [0.0])[0] >= TRACE_SECONDS)
                and (not check or _probe.retired(key)))

    warm = replace(result, warnings=problem.warnings + _unreached_note(problem))
    _warm.remember(_warm.recipe_key(key, compiled, check, limits), _warm.Recipe(entry, holds, warm))


def _computed(problem: Problem, method: str, chosen: str, use_compiled: bool, chunk: int, compiled: bool | None):
    """``(chosen, y, J, ran, notes)``: ``chosen`` run as planned; where fn's own ops fail under it because fn calls
    ``tf.py_function``, eager forward mode instead (or the refusal that says what to do)."""
    try:
        if chunk:
            return (chosen, *compute_chunked(problem, chosen, chunk), ())
        return (chosen, *compute(problem, chosen, use_compiled, fallback=compiled is None), ())
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - fn's own ops failed under this method: tf.py_function is one cause
        _refuse_py_function(problem, exc, method, chosen, eager_forward=chosen == "forward" and not use_compiled
                            and not chunk)
        y, jac, ran = compute(problem, "forward", False)
        return "forward", y, jac, ran, (
            "fn calls tf.py_function, which TensorFlow can differentiate only once per gradient call and pfor cannot "
            "vectorize: computed by eager forward mode, one pass per input",)


def _plan_method(problem: Problem, method: str, profile: _cost.Profile, compiled: bool | None,
                 limits: Limits) -> tuple[str, bool, int]:
    """What runs: ``(method, compiled or eager, chunk)``; the size of a chunk of passes, 0 for all at once. ``auto``
    chooses within the limits, in reverse mode where fn defines its own gradient (forward mode would not follow
    it); a method asked for by name is refused if it does not fit."""
    m, n = output_size(problem), problem.width
    use_compiled = _use_compiled(method, m, n, problem, compiled)
    if method != "auto":
        return _plan.check_method(method, profile, use_compiled, limits), use_compiled, 0
    chosen, use_compiled, chunk = _plan.plan_auto(profile, _choose(m, n, use_compiled), use_compiled,
                                                  _compilable(problem, compiled), limits)
    if chosen == "forward" and custom_gradient(problem):
        chosen, use_compiled, chunk = _plan.plan_auto(profile, _choose(m, n, use_compiled), use_compiled,
                                                      _compilable(problem, compiled), limits, reverse_only=True)
    return chosen, use_compiled, chunk


def _refuse_py_function(problem: Problem, exc: Exception, method: str, chosen: str, eager_forward: bool) -> None:
    """Re-raise ``exc`` (fn failed under ``chosen``) unless fn calls ``tf.py_function``: then refuse with what to do,
    or return when ``auto`` may still run eager forward mode, the one mode that takes it."""
    where = calls_py_function(problem)
    if not where:
        raise exc
    advice = _py_function_advice(where, custom_gradient(problem), method, eager_forward=eager_forward)
    if advice:
        whose = " (auto's choice)" if method == "auto" else ""
        raise GradlibError(f"fn calls tf.py_function, which method={chosen!r}{whose} cannot differentiate "
                           f"here: TensorFlow keeps its gradient for one gradient call only and pfor cannot "
                           f"vectorize it ({type(exc).__name__}: {error_gist(exc)}). {advice}") from exc


def _py_function_advice(where: str, defined: str, method: str, eager_forward: bool) -> str:
    """What to do once a method failed on fn's ``tf.py_function`` (``where``: ``calls_py_function``'s answer);
    ``""`` when ``auto`` may still run eager forward mode, the one mode that takes it. Never the advice that failed."""
    if where == "tf.function":
        return ("It runs inside a tf.function of fn's own, where even eager forward mode fails on it (TensorFlow "
                "replays its gradient once per call of that tf.function): call it outside the tf.function (auto then "
                "takes eager forward mode), write it with TensorFlow ops, or take each output element's gradient "
                "with a tf.GradientTape of its own (fn called once per element)")
    if defined:
        return (f"Eager forward mode, the one mode that takes it, does not follow the gradient fn also defines "
                f"itself (tf.custom_gradient; op type {defined!r}), so no method of gradlib's can differentiate this "
                "fn: write the tf.py_function part with TensorFlow ops, or take each output element's gradient with "
                "a tf.GradientTape of its own (fn called once per element)")
    if eager_forward:
        return "Eager forward mode, the one mode that takes it, failed too: write the function with TensorFlow ops"
    if method == "auto":
        return ""
    return ("Use method='forward' with compiled=False (or method='auto', which falls back to it), or write the "
            "function with TensorFlow ops")


def _unreached_note(problem: Problem) -> tuple[str, ...]:
    """The xs no path the tape follows leads from to fn's output: their columns are 0 whatever the method, and the
    usual cause is fn reading a variable itself (gradlib hands fn a copy of each tensor's value), not its argument."""
    names = [problem.names[i][0] for i in unreached(problem)]
    if not names:
        return ()
    return (f"no path the tape can follow leads from {', '.join(map(repr, names))} to fn's output, so every gradient "
            "with respect to it is 0. fn gets each tensor of xs as its argument (a tf.Variable as a copy of its "
            "value): if fn reads a variable or another tensor directly instead of its argument, that use is not "
            "differentiated",)


def _check_outputs(m: int, problem: Problem) -> None:
    """Refuse a function with no output element: it has no row to differentiate (every method failed on it, in NumPy)."""
    if m == 0:
        who = "fn returned an empty tensor" if problem.structure is None else "the function has no output element"
        raise GradlibError(f"{who}: there is no element to differentiate. Return at least one element")


def _check_custom_gradient(problem: Problem) -> None:
    """Refuse forward mode on a function that defines its own gradient: it would differentiate fn's operations, not
    that gradient, and so give another Jacobian than ``tape.gradient`` (compiled: silently)."""
    name = custom_gradient(problem)
    if name:
        # the reverse methods fail on a tf.py_function (they differentiate it more than once): then none is left
        instead = ("No reverse method takes it either: fn also calls tf.py_function. Write the tf.py_function part "
                   "with TensorFlow ops, or take each output element's gradient with a tf.GradientTape of its own (fn "
                   "called once per element)") if calls_py_function(problem) else (
                   "Use method='jacobian' or 'unstack' (reverse mode), or method='auto', which takes them for such a "
                   "function")
        raise GradlibError(f"method='forward' cannot differentiate this fn: it defines its own gradient "
                           f"(tf.custom_gradient; op type {name!r}), which tape.gradient follows and forward mode "
                           "does not (inside a tf.function, forward mode differentiates the operations fn runs: a "
                           f"straight-through round gets 0 where the tape gives 1). {instead}")


def _check_structured(problem: Problem) -> _cost.Profile | None:
    """Refuse method ``structured`` on function text that calls an operation without a rule, or on a callable whose
    trace has an op without one (or cannot be traced); a callable's profile as its trace shows it (None for text)."""
    if problem.structure is not None:
        why, profile = _structured.unsupported(problem.structure[0]), None
    elif not problem.xs:
        return None
    else:
        reading = _opgraph.read(problem.f, problem.xs, problem.cs, problem.key)
        why, profile = reading.why, reading.profile
    if why:
        raise _structured.NotApplicable(f"method 'structured' cannot run here: {why}; use method='auto', which "
                                        "takes a tape method then")
    return profile


def _from_structure(problem: Problem, profile: _cost.Profile, chosen: str, limits: Limits,
                    start: float) -> GradResult | None:
    """``auto``'s choice of ``structured`` for function text run compiled (``gradlib._perelement._structured``): when
    every operation has a rule, its estimate fits ``limits`` and is below that of ``chosen`` (the tape method auto
    would run), and every cell is finite. ``None``: ``chosen`` runs instead (with its repair of NaN-poisoned rows).
    It shares the compiled cache with the other methods; a refusal found while tracing (``@`` of stacks of
    matrices) is remembered, so such a function is traced for it once."""
    if problem.structure is None or problem.key is None or problem.check or problem.key in _NOT_STRUCTURED.keys():
        return None
    if _structured.unsupported(problem.structure[0]):
        return None
    fast = _structured_if_cheaper(problem, profile, chosen, limits)
    if fast is None:
        return None
    return package(problem, "structured", "auto", *fast, (), Repair(), time.perf_counter() - start)


def _from_graph(problem: Problem, chosen: str, limits: Limits) -> tuple | None:
    """``auto``'s choice of ``structured`` for a callable run compiled (``gradlib._perelement._opgraph``): ``(y, J,
    ran)`` when one trace of fn shows a rule for every op between its watched inputs and its output, the estimate
    from that trace's real intermediates fits ``limits`` and is below that of ``chosen`` (the tape method auto would
    run, estimated on the same intermediates), and every cell is finite. ``None``: ``chosen`` runs instead (with its
    repair of NaN-poisoned rows); a refusal found while building it is remembered, as for function text."""
    if problem.structure is not None or problem.key is None or not problem.xs or problem.key in _NOT_STRUCTURED.keys():
        return None
    profile = _opgraph.read(problem.f, problem.xs, problem.cs, problem.key).profile
    if profile is None:
        return None
    return _structured_if_cheaper(problem, profile, chosen, limits)


def _structured_if_cheaper(problem: Problem, profile: _cost.Profile, chosen: str, limits: Limits) -> tuple | None:
    """``(y, J, ran)`` of ``structured`` run compiled when its estimate on ``profile`` fits ``limits``, is below
    that of ``chosen`` and every cell is finite; ``None`` otherwise. A refusal found while tracing is remembered."""
    cost = _cost.estimate("structured", profile, True)
    if not _cost.fits(cost, limits) or cost.work >= _cost.estimate(chosen, profile, True).work:
        return None
    try:
        y, jac, ran = compute(problem, "structured", True)
    except _structured.NotApplicable:
        _NOT_STRUCTURED.get_or_create(problem.key, lambda: True)
        return None
    return (y, jac, ran) if _structured.finite(y, jac) else None


def _compilable(problem: Problem, compiled: bool | None) -> bool:
    """Whether ``problem`` may run compiled at all: it has a cache key, something to differentiate, and the
    caller did not say ``compiled=False``."""
    return problem.key is not None and bool(problem.xs) and compiled is not False


def _choose(m: int, n: int, compiled: bool = False) -> str:
    """Reverse mode when outputs are no more than inputs, forward mode when inputs are fewer.

    Eagerly a forward pass costs ``FORWARD_PASS_COST`` reverse passes, so eager auto takes the seed's
    ``unstack`` until outputs exceed that many times the inputs. Compiled, both are vectorized.

    >>> _choose(2, 3), _choose(300, 200, compiled=True), _choose(20, 10), _choose(40, 10)
    ('unstack', 'forward', 'unstack', 'forward')
    """
    if compiled:
        return "jacobian" if m <= n else "forward"
    return "unstack" if m <= FORWARD_PASS_COST * n else "forward"


def _use_compiled(method: str, m: int, n: int, problem: Problem, compiled: bool | None) -> bool:
    """Whether to run ``method`` compiled (cached); ``compiled=None`` decides by the passes it needs.

    ``auto`` compiles a problem needing more than ``EAGER_PASSES`` eager passes, or one whose eager calls
    have already cost ``TRACE_SECONDS``. ``jacobian`` is vectorized by pfor, which eagerly re-traces on
    every call: compiled, it traces once. ``unstack`` (m passes) and ``forward`` (n passes) are Python
    loops eagerly, cheap when short; ``unstack`` traces one backward pass per output, so it is compiled
    only when asked, and small.
    """
    if problem.key is None or not problem.xs:
        return False
    if method == "auto":
        if compiled is not None:
            return compiled
        passes = min(m, FORWARD_PASS_COST * n)
        return passes > EAGER_PASSES or _EAGER_SECONDS.get_or_create(problem.key, lambda: [0.0])[0] >= TRACE_SECONDS
    if _methods.TABLE[method].compiled is None:
        return False
    if method == "unstack":
        return bool(compiled) and m <= UNSTACK_COMPILED_ROWS
    if compiled is not None:
        return compiled
    return method == "jacobian" or n > EAGER_PASSES
