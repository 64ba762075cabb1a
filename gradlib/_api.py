"""The public entry points: ``evaluate`` (function text) and ``per_element_gradients`` (a callable)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Hashable, Mapping, NamedTuple, Sequence

import numpy as np
import tensorflow as tf

from . import _cost, _methods, _plan, _runtime
from ._cache import LRUCache
from ._compiled import Compiled
from ._errors import ExpressionError, GradlibError, error_gist
from ._inputs import Input, check_inputs, compute_dtype, nonfinite_warnings, promotion_warnings
from ._language import parse
from ._limits import LIMITS, Limits
from ._result import GradResult, index_labels, nan_cause
from ._state import fingerprint

__all__ = ["CORRECT_METHODS", "METHODS", "Problem", "Ran", "error_gist", "evaluate", "float_tensor",
           "per_element_gradients", "prepare", "run"]

#: every method, in the order the app lists them (gradlib._methods.TABLE: one row each)
METHODS = tuple(_methods.TABLE)
CORRECT_METHODS = tuple(name for name, m in _methods.TABLE.items() if m.correct and m.eager is not None)
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
#: (first calls measured on this shared machine under load: 0.7 s at 16 outputs, 10 s at 64, 110 s at 256),
#: so above this it runs eagerly even if asked
UNSTACK_GRAPH_ROWS = 16
#: (problem key, method) -> Compiled, or None where tracing failed (auto then runs eagerly)
_COMPILED = LRUCache(maxsize=64)
#: problem key -> number of outputs, so warm calls skip the eager pass that sizes the output
_OUTPUT_SIZES = LRUCache(maxsize=128)
#: problem key -> [seconds spent in eager auto calls], for the ski-rental rule
_EAGER_SECONDS = LRUCache(maxsize=128)
_EAGER = {name: m.eager for name, m in _methods.TABLE.items() if m.eager is not None}
_GRAPH = {name: m.graph for name, m in _methods.TABLE.items() if m.graph is not None}
_CHUNKED = {name: m.chunked for name, m in _methods.TABLE.items() if m.chunked is not None}


@dataclass(frozen=True)
class Problem:
    """What every method needs: ``f(xs, cs)``, the watched tensors, the constants, and how to label them."""

    f: Callable[[list, list], Any]
    xs: list
    cs: list
    names: tuple[tuple[str, tuple[int, ...]], ...]   # every watched input, in column order
    differentiable: tuple[bool, ...]                  # per watched input: float (True) or integer (False)
    dtype: str
    key: Hashable | None                              # identifies f for the compiled cache; None: never compile
    warnings: tuple[str, ...] = ()
    size: int | None = None                           # the number of outputs, when known without running f
    profile: _cost.Profile | None = None              # what the methods cost, when f's intermediates are known


def evaluate(
    outputs: str,
    inputs: Mapping[str, Any],
    *,
    watch: Sequence[str] | None = None,
    method: str = "auto",
    dtype: str | Mapping[str, str] = "float32",
    compiled: bool | None = None,
    limits: Limits = LIMITS,
) -> GradResult:
    """Per-element gradients of the function ``outputs`` (text) at ``inputs``.

    Args:
        outputs: one expression in gradlib's language, such as ``"[x0*x1*x2, x0*x1*x2*x0]"``.
        inputs: input name -> number, nested list or array.
        watch: the inputs to differentiate with respect to; ``None`` watches every input.
        method: one of ``METHODS``; ``"auto"`` picks the fastest correct one.
        dtype: ``"float32"`` or ``"float64"``, or a mapping name -> dtype (``"int32"`` reproduces the
            integer-watch pitfall: TensorFlow gives such inputs no gradient).
        compiled: run inside a cached ``tf.function``; ``None`` decides by the problem's size.
        limits: the bounds checked before anything is allocated, for the method that runs (``auto`` takes
            a method within them) and for the repair of NaN-poisoned rows.

    Returns:
        A ``GradResult``. ``evaluate("x*x", {"x": [1, 2]}).jacobian`` is ``[[2, 0], [0, 4]]``.

    Raises:
        ExpressionError: the text, an input, an option or a limit is not acceptable.
    """
    _, _, problem = prepare("evaluate", outputs, inputs, [method], watch=watch, dtype=dtype, limits=limits)
    return run(problem, method, compiled=compiled, limits=limits)


def prepare(api: str, outputs: str, inputs: Mapping[str, Any], methods: Sequence[str], *,
            watch: Sequence[str] | None, dtype: str | Mapping[str, str], limits: Limits):
    """The one preamble of ``evaluate`` and ``compare``: ``(program, inputs, problem)``, all checked.

    ``api`` names the caller in error messages. Methods, inputs, the text and the sizes are checked here,
    before anything is allocated; a bad method is an ``ExpressionError`` (an option) in both APIs.
    """
    if isinstance(methods, str) or not methods:
        raise ExpressionError(f"{api} needs a non-empty list of method names from {', '.join(METHODS)}; "
                              f"got {methods!r}")
    for method in methods:
        _check_method(method, api)
    checked = check_inputs(inputs, watch=watch, dtype=dtype, limits=limits)
    program = parse(outputs, {i.name: i.shape for i in checked}, limits=limits)
    problem = _expression_problem(program, checked)
    _check_size(math.prod(program.shape), problem, limits)
    return program, checked, problem


def per_element_gradients(fn: Callable, xs: Any, *, method: str = "auto", compiled: bool | None = None,
                          limits: Limits = LIMITS) -> GradResult:
    """Per-element gradients of ``fn(xs)`` with respect to ``xs``: the Jacobian, row by row.

    Args:
        fn: a callable (a Python function, a Keras model) taking ``xs`` as given and returning a tensor.
        xs: a tensor, or a list of tensors (like the seed's ``x = [tf.constant(3.0), ...]``).
        method: one of ``METHODS``.
        compiled: run inside a cached ``tf.function`` (keyed on ``fn``); ``None`` decides by size.

    Example:
        >>> x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
        >>> r = per_element_gradients(lambda x: tf.stack([x[0]*x[1]*x[2], x[0]*x[1]*x[2]*x[0]]), x)
        >>> r.jacobian.tolist()
        [[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]

    Raises:
        GradlibError: an input is not floating point, or ``fn`` does not return a tensor.
    """
    _check_method(method, "per_element_gradients")
    single = not isinstance(xs, (list, tuple))
    tensors = [float_tensor(x, "per_element_gradients", "xs" if single else f"xs[{k}]")
               for k, x in enumerate([xs] if single else xs)]
    if not tensors:
        raise GradlibError("per_element_gradients needs at least one tensor in xs; got an empty list")
    _check_one_dtype(tensors)
    names = ("x",) if single else tuple(f"x{k}" for k in range(len(tensors)))

    def f(watched: list, _cs: list):
        return _as_output(fn(watched[0] if single else list(watched)))

    key = _callable_key(fn, single, tensors)
    problem = Problem(f, tensors, [], tuple((n, tuple(t.shape)) for n, t in zip(names, tensors)),
                      (True,) * len(tensors), tensors[0].dtype.name, key)
    return run(problem, method, compiled=compiled, limits=limits)


def run(problem: Problem, method: str, *, compiled: bool | None = None, limits: Limits = LIMITS) -> GradResult:
    """Run ``method`` on ``problem`` and package the result (``auto``: choose, then repair poisoned rows)."""
    with _runtime.work_slot():
        return _run(problem, method, compiled, limits)


def _run(problem: Problem, method: str, compiled: bool | None, limits: Limits) -> GradResult:
    start = time.perf_counter()
    m, n = _output_size(problem), _width(problem)
    _check_size(m, problem, limits)
    profile = problem.profile or _cost.Profile.of_callable(m, _float_width(problem), _itemsize(problem))
    use_graph = _use_graph(method, m, n, problem, compiled)
    if method == "auto":
        chosen, use_graph, chunk = _plan.plan_auto(profile, _choose(m, n, use_graph), use_graph,
                                                   _can_compile(problem, compiled), limits)
    else:
        chosen, chunk = _plan.check_method(method, profile, use_graph, limits), 0
    if chunk:
        y, jac, graph = _compute_chunked(problem, chosen, chunk)
    else:
        y, jac, graph = _compute(problem, chosen, use_graph, fallback=compiled is None)
    if method == "auto" and not graph and problem.key is not None:
        _EAGER_SECONDS.get_or_create(problem.key, lambda: [0.0])[0] += time.perf_counter() - start
    poisoned = _poisoned_rows(y, jac) if chosen in CORRECT_METHODS else ()
    repair = _Repair()
    notes: tuple[str, ...] = ()
    if poisoned and method == "auto":
        jac, poisoned, repair, notes = _repair_poisoned(problem, profile, chosen, bool(graph), jac, poisoned,
                                                        _can_compile(problem, compiled), limits)
    if chunk:
        notes += (f"computed in chunks of {chunk:,} vectorized passes, to keep the estimated peak memory within "
                  f"{_cost.size_text(limits.max_bytes)}",)
    seconds = time.perf_counter() - start
    result = _package(problem, chosen, method, y, jac, graph, poisoned, repair, seconds)
    return replace(result, warnings=result.warnings + notes) if notes else result


def _can_compile(problem: Problem, compiled: bool | None) -> bool:
    return problem.key is not None and bool(problem.xs) and compiled is not False


def _repair_poisoned(problem: Problem, profile: _cost.Profile, chosen: str, graph: bool, jac: np.ndarray,
                     poisoned: tuple[int, ...], can_compile: bool, limits: Limits):
    """``(J, still poisoned, repair, notes)``: the poisoned rows recomputed in the other mode, within ``limits``.

    Every NaN cell left after the repair is NaN in both modes: undefined there, not poisoned.
    """
    other, chunk, why_not = _plan.plan_repair(chosen, graph, profile, len(poisoned), can_compile, limits)
    if why_not:
        return jac, poisoned, _Repair(), (f"NaN poisoning not repaired: the other mode, {why_not}",)
    if chunk:
        fixed = _compute_chunked(problem, other, chunk, poisoned if other == "jacobian" else None)[1]
    else:
        fixed = _compute(problem, other, graph, fallback=True)[1]
    jac, repair = _repair(jac, fixed, poisoned, other)
    return jac, (), repair, ()


# ---------------------------------------------------------------- building problems


def _expression_problem(program, inputs: Sequence[Input]) -> Problem:
    dtype = compute_dtype(inputs)
    tf_dtype = tf.as_dtype(dtype)
    watched = [i for i in inputs if i.watched]
    floats = [i for i in watched if i.dtype.startswith("float")]
    consts = [i for i in inputs if i not in floats]
    xs = [tf.constant(i.value, dtype=tf_dtype) for i in floats]
    cs = [tf.constant(i.value.astype(i.dtype)) for i in consts]
    x_names, c_names = [i.name for i in floats], [i.name for i in consts]

    def f(xs_: list, cs_: list):
        env = dict(zip(x_names, xs_))
        # Integer inputs enter as constants and are cast inside: exactly why TensorFlow gives them no gradient.
        env.update({name: tf.cast(c, tf_dtype) for name, c in zip(c_names, cs_)})
        return program.build(env, tf_dtype)

    signature = tuple((i.name, i.shape, i.dtype, i.watched) for i in inputs)
    key = ("expression", program.key, signature, dtype)
    warnings = nonfinite_warnings(inputs) + promotion_warnings(inputs) + tuple(
        f"input {i.name!r} is {i.dtype}: TensorFlow's tape does not watch integer tensors, so its gradients are "
        f"None (shown as 0). Use float32 or float64 to differentiate with respect to it"
        for i in watched if i not in floats)
    unused = [i.name for i in watched if i.name not in program.names]
    if unused:
        warnings += (f"watched input(s) {', '.join(map(repr, unused))} do not appear in the function: "
                     "their gradients are zero",)
    profile = _cost.Profile.of_program(program, [i.name for i in floats], sum(i.size for i in floats),
                                       tf_dtype.size)
    return Problem(f, xs, cs, tuple((i.name, i.shape) for i in watched),
                   tuple(i in floats for i in watched), dtype, key, warnings, math.prod(program.shape), profile)


def float_tensor(x: Any, api: str, where: str) -> tf.Tensor:
    """``x`` as a floating-point tensor for ``api``; Python ints become float32, integer tensors are refused."""
    try:
        tensor = tf.convert_to_tensor(x.value() if isinstance(x, tf.Variable) else x)
    except (TypeError, ValueError) as exc:
        raise GradlibError(f"{api} could not turn {where} into a tensor: {exc}") from None
    if tensor.dtype.is_integer and isinstance(x, (int, list, tuple)):
        tensor = tf.cast(tensor, tf.float32)   # Python numbers: the user meant real numbers
    if not tensor.dtype.is_floating:
        why = ("TensorFlow's tape does not watch integer tensors, so every gradient would be None"
               if tensor.dtype.is_integer else "only real floating-point tensors have gradients here")
        raise GradlibError(f"{api} requires floating-point inputs, but {where} is {tensor.dtype.name}: {why}. "
                           f"Cast it first: tf.cast({where}, tf.float32)")
    return tensor


def _check_one_dtype(tensors: list) -> None:
    dtypes = sorted({t.dtype.name for t in tensors})
    if len(dtypes) > 1:
        raise GradlibError(f"per_element_gradients needs xs of one dtype to lay their gradients side by side; got "
                           f"{', '.join(dtypes)}. Cast them to one, for example tf.cast(x, tf.float64)")


def _as_output(y: Any) -> tf.Tensor:
    if isinstance(y, (list, tuple)):
        y = tf.stack(y)   # inside the tape: stacking is differentiable, unlike iterating afterwards
    try:
        y = tf.convert_to_tensor(y)
    except (TypeError, ValueError):
        raise GradlibError(f"fn must return a tensor (or a list of tensors); it returned {type(y).__name__}") from None
    if not y.dtype.is_floating:
        raise GradlibError(f"fn returned a {y.dtype.name} tensor: only floating-point outputs have gradients. "
                           "Return a float tensor (cast with tf.cast(y, tf.float32) if you must)")
    return y


def _callable_key(fn: Callable, single: bool, tensors: list) -> Hashable | None:
    try:
        hash(fn)
    except TypeError:
        return None
    # The values fn reads (a NumPy array, a number in a closure or a global) are frozen into a trace: a
    # changed value must mean a new key, or the compiled graph would keep answering with the old one.
    return ("callable", fn, single, tuple((tuple(t.shape), t.dtype.name) for t in tensors), fingerprint(fn))


# ---------------------------------------------------------------- choosing and running


def _check_method(method: Any, api: str) -> None:
    if method not in METHODS:
        raise ExpressionError(f"{api} got method={method!r}; choose one of {', '.join(METHODS)}")


def _width(problem: Problem) -> int:
    return sum(math.prod(shape) for _, shape in problem.names)


def _float_width(problem: Problem) -> int:
    return sum(int(x.shape.num_elements()) for x in problem.xs)


def _itemsize(problem: Problem) -> int:
    return tf.as_dtype(problem.dtype).size


def _check_size(m: int, problem: Problem, limits: Limits) -> None:
    n = _width(problem)
    if m * n > limits.max_jacobian:
        raise ExpressionError(
            f"the Jacobian would have {m:,} x {n:,} = {m * n:,} entries; at most {limits.max_jacobian:,} are allowed. "
            "Watch fewer inputs or reduce the output (for example with sum or mean)")


def _choose(m: int, n: int, graph: bool = False) -> str:
    """Reverse mode when outputs are no more than inputs, forward mode when inputs are fewer.

    Eagerly a forward pass costs ``FORWARD_PASS_COST`` reverse passes, so eager auto takes the seed's
    ``unstack`` until outputs exceed that many times the inputs. Compiled, both are vectorized.

    >>> _choose(2, 3), _choose(300, 200, graph=True), _choose(20, 10), _choose(40, 10)
    ('unstack', 'forward', 'unstack', 'forward')
    """
    if graph:
        return "jacobian" if m <= n else "forward"
    return "unstack" if m <= FORWARD_PASS_COST * n else "forward"


def _use_graph(method: str, m: int, n: int, problem: Problem, compiled: bool | None) -> bool:
    """Whether to run ``method`` as a cached graph; ``compiled=None`` decides by the passes it needs.

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
    if method not in _GRAPH:
        return False
    if method == "unstack":
        return bool(compiled) and m <= UNSTACK_GRAPH_ROWS
    if compiled is not None:
        return compiled
    return method == "jacobian" or n > EAGER_PASSES


def _output_size(problem: Problem) -> int:
    """How many outputs ``f`` has: one eager pass the first time a problem is seen, remembered after."""
    if problem.size is not None:
        return problem.size

    def size() -> int:
        try:
            return int(_to_numpy(problem.f(problem.xs, problem.cs)).size)
        except GradlibError:
            raise
        except Exception as exc:   # noqa: BLE001 - the user's function failed: say so, with its message
            shapes = ", ".join(str(tuple(x.shape)) for x in problem.xs)
            raise GradlibError(f"fn failed on inputs of shape {shapes}: {type(exc).__name__}: {error_gist(exc)}") from exc

    return size() if problem.key is None else _OUTPUT_SIZES.get_or_create(problem.key, size)


class Ran(NamedTuple):
    """How a compiled call ran (a true value): its version, and whether gradlib's choice of version is final."""

    tier: str      # "graph" or "xla"
    final: bool


def _compute(problem: Problem, method: str, use_graph: bool, *, fallback: bool = True):
    """``(y, J, compiled)``: run ``method`` compiled (cached; ``compiled`` is then a ``Ran``) or eagerly (False).

    With ``fallback``, a function that cannot be traced (it calls ``.numpy()``, or branches in Python on a
    tensor's value) runs eagerly instead, and the cache remembers not to trace it again.
    """
    if not problem.xs:   # nothing differentiable is watched: every column is zero
        y = _to_numpy(problem.f([], problem.cs))
        return y, np.zeros((y.size if method != "summed" else 1, 0)), False
    compiled = _compiled(problem, method, fallback) if use_graph else None
    if compiled is not None:
        y, jac, tier = compiled.run(problem.xs, problem.cs)
        return y, jac, Ran(tier, compiled.settled)
    y, jac = _EAGER[method](problem.f, problem.xs, problem.cs)
    return _to_numpy(y), _to_numpy(jac), False


def _compute_chunked(problem: Problem, method: str, chunk: int, indices: Sequence[int] | None = None):
    """``(y, J, True)`` from ``chunk`` vectorized passes at a time (``jacobian``: rows, ``forward``: columns).

    ``indices``: only those rows (or columns); the others are NaN. One traced function of fixed shape serves
    every chunk (the last one repeats its final index, and the repeats are cut). Chunks run compiled only:
    eagerly, each chunk was traced anew and memory grew to about 2.4 times the estimate.
    """
    by_rows = method == "jacobian"
    m, n = _output_size(problem), _float_width(problem)
    wanted = np.arange(m if by_rows else n) if indices is None else np.asarray(indices)
    step = _chunk_function(problem, method, chunk)
    jac = np.full((m, n), np.nan)
    for start in range(0, len(wanted), chunk):
        part_of = wanted[start:start + chunk]
        index = tf.constant(np.concatenate([part_of, np.repeat(part_of[-1:], chunk - len(part_of))]), tf.int32)
        y, part = step(problem.xs, problem.cs, index)
        part = part.numpy()
        if by_rows:
            jac[part_of] = part[:len(part_of)]
        else:
            jac[:, part_of] = part[:, :len(part_of)]
    y = y.numpy()
    return y, jac.astype(y.dtype), True


def _chunk_function(problem: Problem, method: str, chunk: int) -> Callable:
    """The cached traced chunk of ``method`` for ``problem``."""
    specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (problem.xs, problem.cs)]
    f, step = problem.f, _CHUNKED[method]

    def build():
        traced = tf.function(lambda xs, cs, index: step(f, xs, cs, index), autograph=False, reduce_retracing=False)
        try:
            return traced.get_concrete_function(*specs, tf.TensorSpec([chunk], tf.int32))
        except GradlibError:
            raise
        except Exception as exc:   # noqa: BLE001 - f cannot be traced (it calls .numpy(), say): say so
            raise GradlibError(f"this problem needs {method!r} in chunks of {chunk:,} passes to stay within the "
                               f"memory limit, which needs fn traced into a tf.function, and tracing failed: "
                               f"{type(exc).__name__}: {error_gist(exc)}. Watch fewer inputs or reduce the output"
                               ) from exc

    return _COMPILED.get_or_create((problem.key, method, "chunk", chunk), build)


def _compiled(problem: Problem, method: str, fallback: bool) -> Compiled | None:
    key = (problem.key, method)
    specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (problem.xs, problem.cs)]
    f, graph_method = problem.f, _GRAPH[method]   # the closure keeps specs, not the tensors of this call

    def build(jit: bool):
        return _methods.compile_method(graph_method, f, *specs, jit_compile=jit)

    try:
        compiled = _COMPILED.get_or_create(key, lambda: Compiled(build))
        return compiled if compiled is not None or fallback else Compiled(build)   # compiled=True: show why
    except GradlibError:
        raise
    except Exception:   # noqa: BLE001 - not traceable; the eager run re-raises any genuine error
        if not fallback:
            raise
        _COMPILED.get_or_create(key, lambda: None)
        return None


def _to_numpy(value: Any) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _poisoned_rows(y: np.ndarray, jac: np.ndarray) -> tuple[int, ...]:
    """Rows whose output is finite but whose gradient holds NaN: 0 x inf in this mode (an infinite entry is a
    true infinite derivative, as for sqrt at 0, and is not counted)."""
    finite_y = np.isfinite(y.reshape(-1))
    bad = np.isnan(jac).any(axis=1)
    return tuple(int(i) for i in np.flatnonzero(finite_y & bad))


@dataclass(frozen=True)
class _Repair:
    """What auto's second mode fixed: whole rows, single cells, and which mode it was ("" when not run)."""

    rows: tuple[int, ...] = ()
    cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))
    mode: str = ""


def _repair(jac: np.ndarray, other: np.ndarray, rows: tuple[int, ...], other_method: str) -> tuple[np.ndarray, _Repair]:
    """Take the other mode's entry wherever this one is NaN and the other's is finite, in ``rows`` only."""
    jac = jac.copy()
    take = np.zeros(jac.shape, bool)
    take[list(rows)] = np.isnan(jac[list(rows)]) & np.isfinite(other[list(rows)])
    jac[take] = other[take]
    fixed = tuple(r for r in rows if take[r].any() and not np.isnan(jac[r]).any())
    return jac, _Repair(fixed, np.argwhere(take), "forward" if other_method == "forward" else "reverse")


def _package(problem: Problem, method: str, requested: str, y: np.ndarray, jac: np.ndarray, graph: bool,
             poisoned: tuple[int, ...], repair: _Repair, seconds: float) -> GradResult:
    jac = _with_integer_columns(problem, jac)
    rows = ("sum(y)",) if method == "summed" else index_labels("y", y.shape)
    cols = tuple(label for name, shape in problem.names for label in index_labels(name, shape))
    warnings = problem.warnings
    mode = "forward" if method == "forward" else "reverse"
    if poisoned:
        warnings += (f"NaN in the gradient of finite output(s) {_some(rows, poisoned)}"
                     f": {nan_cause(mode)}. method='auto' recomputes such "
                     "cells in the other mode",)
    if repair.rows:
        warnings += (f"repaired NaN poisoning in {_some(rows, repair.rows)}"
                     f": {repair.mode} mode gives these cells finite values",)
    undefined = [r for r in _poisoned_rows(y, jac) if r not in repair.rows] if repair.mode else []
    if undefined:
        warnings += (f"NaN in both reverse and forward mode in {_some(rows, undefined)}"
                     f": 0 x inf within the output's own formula, so no "
                     "mode gives a number there",)
    row = _methods.TABLE[method]
    return GradResult(
        y=y, jacobian=jac, row_labels=rows, col_labels=cols, method=method, requested=requested,
        watched=problem.names, dtype=problem.dtype, compiled=bool(graph), per_element=row.per_element,
        broken=row.per_element and not row.correct, reason=row.reason, poisoned_rows=poisoned, repaired_rows=repair.rows,
        warnings=warnings, seconds=seconds, repaired_cells=repair.cells, other_mode=repair.mode,
        compiled_as=graph.tier if isinstance(graph, Ran) else ("graph" if graph else ""),
        compiled_final=graph.final if isinstance(graph, Ran) else True)


def _some(labels: Sequence[str], rows: Sequence[int], shown: int = 8) -> str:
    """The labels of ``rows``, the first ``shown`` of them when there are many: a warning stays readable.

    >>> _some(["y[0]", "y[1]", "y[2]"], [0, 1, 2], shown=2)
    'y[0], y[1] and 1 more'
    """
    names = ", ".join(labels[r] for r in rows[:shown])
    return names if len(rows) <= shown else f"{names} and {len(rows) - shown:,} more"


def _with_integer_columns(problem: Problem, jac: np.ndarray) -> np.ndarray:
    """Insert the zero columns of watched integer inputs, which TensorFlow gives no gradient."""
    if all(problem.differentiable):
        return jac
    blocks, start = [], 0
    for (_, shape), ok in zip(problem.names, problem.differentiable):
        size = math.prod(shape)
        blocks.append(jac[:, start:start + size] if ok else np.zeros((jac.shape[0], size), dtype=jac.dtype))
        start += size if ok else 0
    return np.concatenate(blocks, axis=1) if blocks else jac


