"""One method computed on one problem: eagerly, compiled (a bounded cache of traced functions), or in chunks.

Every way returns ``(y, J, ran)`` as NumPy arrays: ``ran`` is ``False`` for an eager run, a ``CompiledRun``
(which version ran, and whether that choice is final) for a cached compiled one, and ``True`` for chunks.
Which method runs, and how, is the engine's choice (``gradlib._perelement._engine``); this module only carries it out.

>>> import tensorflow as tf
>>> from gradlib._perelement._problem import callable_problem
>>> p = callable_problem(lambda x: x * x, tf.constant([1.0, 2.0]))
>>> y, J, ran = compute(p, "jacobian", compiled=False)
>>> J.tolist(), ran
([[2.0, 0.0], [0.0, 4.0]], False)
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, NamedTuple, Sequence

import numpy as np
import tensorflow as tf

from . import _methods
from .._foundations._cache import LRUCache
from .._callable._outputs import whole_failure
from ._compiled import Compiled
from .._foundations._errors import GradlibError, error_sentence
from ._problem import Problem
from .._callable._trace import defined_gradient, trace

__all__ = ["CompiledRun", "PY_FUNCTION_OPS", "calls_py_function", "cached_compiled", "compute", "compute_chunked",
           "custom_gradient", "output_size", "to_numpy", "unreached"]

#: the ops of ``tf.py_function`` / ``tf.numpy_function``: Python run inside TensorFlow
PY_FUNCTION_OPS = frozenset({"EagerPyFunc", "PyFunc", "PyFuncStateless"})


#: (problem key, method) -> Compiled, or None where tracing failed (auto then runs eagerly)
_JACOBIAN_FUNCTIONS = LRUCache(maxsize=64)
#: problem key -> number of outputs, so warm calls skip the eager pass that sizes the output
_OUTPUT_SIZES = LRUCache(maxsize=128)
#: problem key -> the xs no tape path leads from to the output
_UNREACHED = LRUCache(maxsize=128)
#: problem key -> the gradient fn defines itself ("" when none), read from one trace of fn
_CUSTOM_GRADIENTS = LRUCache(maxsize=128)


class CompiledRun(NamedTuple):
    """How a compiled call ran (a true value): its version, and whether gradlib's choice of version is final."""

    compiled_as: str      # "graph" or "xla"
    final: bool
    note: str = ""   # once, after XLA was dropped for giving other numbers than the graph: why
    traced: bool = False   # this call traced or built what it ran (or tried XLA beside the graph): not a warm call


def output_size(problem: Problem) -> int:
    """How many outputs ``f`` has: one eager pass the first time a problem is seen, remembered after. No tape: a
    problem over the limits is refused before any gradient work."""
    if problem.size is not None:
        return problem.size

    def size() -> int:
        try:
            return int(to_numpy(problem.f(problem.xs, problem.cs)).size)
        except GradlibError:
            raise
        except Exception as exc:   # noqa: BLE001 - the user's function failed: say so, with its message
            raise whole_failure(problem.api, exc, problem.xs) from exc

    return size() if problem.key is None else _OUTPUT_SIZES.get_or_create(problem.key, size)


def unreached(problem: Problem) -> tuple[int, ...]:
    """The positions in ``problem.xs`` from which no path the tape follows leads to ``f``'s output (their gradients
    are all 0): one eager pass under a tape and one backward pass of the sum, the first time a problem is seen
    (after its result: a problem refused by the limits never gets here); ``()`` for function text (it names unused
    inputs itself)."""
    if problem.size is not None or not problem.xs:
        return ()

    def read() -> tuple[int, ...]:
        try:
            with tf.GradientTape() as tape:
                tape.watch(problem.xs)
                y = problem.f(problem.xs, problem.cs)
        except Exception:   # noqa: BLE001 - fn ran for the result just given: a failure here says nothing new
            return ()
        return _disconnected(tape, y, problem.xs)

    return read() if problem.key is None else _UNREACHED.get_or_create(problem.key, read)


def _disconnected(tape: tf.GradientTape, y: Any, xs: list) -> tuple[int, ...]:
    """Which of ``xs`` the tape finds no path from to ``y`` (one backward pass of the sum)."""
    if not xs or not tf.is_tensor(y) or not y.dtype.is_floating or not y.shape.num_elements():
        return ()
    try:
        grads = tape.gradient(y, xs)
    except Exception:   # noqa: BLE001 - a gradient the tape cannot take here: the method that runs says why
        return ()
    return tuple(i for i, g in enumerate(grads) if g is None)


def compute(problem: Problem, method: str, compiled: bool, *, fallback: bool = True):
    """``(y, J, ran)``: run ``method`` compiled (cached; ``ran`` is then a ``CompiledRun``) or eagerly (False).

    With ``fallback``, a function that cannot be traced (it calls ``.numpy()``, or branches in Python on a
    tensor's value) runs eagerly instead, and the cache remembers not to trace it again.
    """
    if not problem.xs:   # nothing differentiable is watched: every column is zero
        y = to_numpy(problem.f([], problem.cs))
        return y, np.zeros((y.size if _methods.TABLE[method].per_element else 1, 0)), False
    entry = _cached_compiled(problem, method, fallback) if compiled else None
    if entry is not None:
        y, jac, compiled_as, note, built = entry.run(problem.xs, problem.cs)
        return y, jac, CompiledRun(compiled_as, entry.settled, note, built)
    y, jac = _methods.TABLE[method].eager(problem.f, problem.xs, problem.cs)
    return to_numpy(y), to_numpy(jac), False


def cached_compiled(key: Hashable, method: str) -> Compiled | None:
    """The ``Compiled`` of ``method`` kept for the problem of ``key`` now, or ``None`` (never traced, evicted, or
    not traceable); it counts no hit or miss."""
    return _JACOBIAN_FUNCTIONS.get((key, method))  # type: ignore[return-value]


def calls_py_function(problem: Problem) -> str:
    """Where ``f`` runs Python inside TensorFlow (``tf.py_function``): ``"fn"`` (in its own ops), ``"tf.function"``
    (only inside a ``tf.function`` it calls), ``""`` (nowhere, or ``f`` cannot be traced). Traced once to read its ops.

    Such an op's gradient replays a tape that TensorFlow keeps for one gradient call only, and pfor cannot
    vectorize it: every method but eager forward mode fails on it, with errors that do not say why (a raw
    ``KeyError: b'pyfunc_1'``, or a shape ``None`` somewhere). Inside a ``tf.function`` of fn's own, eager forward
    mode fails too; one fresh tape per output element still works. Called only after a method failed.
    """
    specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (problem.xs, problem.cs)]
    try:
        graph_def = trace(problem.f, specs).graph.as_graph_def()
    except Exception:   # noqa: BLE001 - not traceable at all: then it is not this
        return ""
    if any(node.op in PY_FUNCTION_OPS for node in graph_def.node):
        return "fn"
    nested = (node for function in graph_def.library.function for node in function.node_def)
    return "tf.function" if any(node.op in PY_FUNCTION_OPS for node in nested) else ""


def custom_gradient(problem: Problem) -> str:
    """The name of a gradient ``f`` defines itself (``tf.custom_gradient``, a ``gradient_override_map``), or ``""``.

    Reverse mode (``tape.gradient``) follows such a gradient; forward mode inside a ``tf.function`` differentiates
    the operations ``f`` runs instead (a straight-through ``round`` gets 0 where the tape gives 1), with no error.
    ``f`` is traced once per problem (``gradlib._callable._trace.defined_gradient``). Function text has none.

    >>> import tensorflow as tf
    >>> from gradlib._perelement._problem import callable_problem
    >>> ste = tf.custom_gradient(lambda x: (tf.round(x), lambda dy: dy))
    >>> custom_gradient(callable_problem(lambda x: ste(x) * x, tf.constant([0.3]))).startswith("CustomGradient-")
    True
    >>> custom_gradient(callable_problem(lambda x: tf.round(x) * x, tf.constant([0.3])))
    ''
    """
    if problem.structure is not None or not problem.xs:
        return ""

    def read() -> str:
        specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (problem.xs, problem.cs)]
        return defined_gradient(problem.f, specs)

    return read() if problem.key is None else _CUSTOM_GRADIENTS.get_or_create(problem.key, read)


def compute_chunked(problem: Problem, method: str, chunk: int, indices: Sequence[int] | None = None):
    """``(y, J, ran)`` from ``chunk`` vectorized passes at a time (``jacobian``: rows, ``forward``: columns); ``ran``
    is a ``CompiledRun`` that says whether this call traced the chunk's function.

    ``indices``: only those rows (or columns); the others are NaN. One traced function of fixed shape serves
    every chunk (the last one repeats its final index, and the repeats are cut). Chunks run compiled only:
    eagerly, each chunk was traced anew and memory grew to about 2.4 times the estimate.
    """
    by_rows = method == "jacobian"
    m, n = output_size(problem), problem.float_width
    wanted = np.arange(m if by_rows else n) if indices is None else np.asarray(indices)
    traced = (problem.key, method, "chunk", chunk) not in _JACOBIAN_FUNCTIONS.keys()
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
    return y, jac.astype(y.dtype), CompiledRun("graph", True, "", traced)


def to_numpy(value: Any) -> np.ndarray:
    """A tensor (or anything array-like) as a NumPy array."""
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _chunk_function(problem: Problem, method: str, chunk: int) -> Callable:
    """The cached traced chunk of ``method`` for ``problem``."""
    specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (problem.xs, problem.cs)]
    f, step = problem.f, _methods.TABLE[method].chunked

    def build():
        try:
            return trace(lambda xs, cs, index: step(f, xs, cs, index), [*specs, tf.TensorSpec([chunk], tf.int32)])
        except GradlibError:
            raise
        except Exception as exc:   # noqa: BLE001 - f cannot be traced (it calls .numpy(), say): say so
            raise GradlibError(f"this problem needs {method!r} in chunks of {chunk:,} passes to stay within the "
                               f"memory limit, which needs fn traced into a tf.function, and tracing failed: "
                               f"{type(exc).__name__}: {error_sentence(exc)} Watch fewer inputs or reduce the output"
                               ) from exc

    return _JACOBIAN_FUNCTIONS.get_or_create((problem.key, method, "chunk", chunk), build)


def _cached_compiled(problem: Problem, method: str, fallback: bool) -> Compiled | None:
    """The cached ``Compiled`` of ``method`` for ``problem``; ``None`` (with ``fallback``) if it cannot be traced."""
    key = (problem.key, method)
    try:
        entry = _JACOBIAN_FUNCTIONS.get_or_create(key, lambda: Compiled(_builder(problem, method)))
        if entry is None and not fallback:   # compiled=True: trace again, to show why it fails
            return Compiled(_builder(problem, method))
        return entry
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - not traceable; the eager run re-raises any genuine error
        if not fallback:   # compiled=True: say why in one line (tf.py_function: the engine says what to use)
            if calls_py_function(problem):
                raise
            raise GradlibError(f"compiled=True could not trace fn into a tf.function for method {method!r}: "
                               f"{type(exc).__name__}: {error_sentence(exc)} Use compiled=None (gradlib then runs fn "
                               "eagerly when it cannot be traced) or compiled=False") from exc
        _JACOBIAN_FUNCTIONS.get_or_create(key, lambda: None)
        return None


def _builder(problem: Problem, method: str) -> Callable[[bool], Callable]:
    """``build(jit_compile)`` of ``method`` for ``problem``'s shapes and dtypes: made only when the cache misses (a
    warm call spent 20-40 us making the specs again), and it keeps the specs, not this call's tensors."""
    specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (problem.xs, problem.cs)]
    f, traced = problem.f, _methods.TABLE[method].compiled

    def build(jit: bool):
        return _methods.compile_method(traced, f, *specs, jit_compile=jit)

    return build
