"""The same per-element gradients computed five ways, eagerly, as a graph, under XLA and in forward mode (eagerly and
as a graph), compared.

TensorFlow's compiled gradients are not always its eager ones. Under XLA (``jit_compile=True``) the gradient of
``tf.where(v > 0, tf.sqrt(v), 0)`` is NaN in the branch not taken, where eager and graph give 0
(tensorflow/tensorflow#118674); the gradient of ``tf.reduce_max`` of an input holding NaN is 0 under XLA and NaN
eagerly (#118673). A user who trains with ``jit_compile=True`` gets those numbers, not gradlib's. ``crosscheck``
computes the Jacobian

* ``eager``: one reverse pass per output in a Python loop, each op run as it is called (the reference);
* ``graph``: ``tape.jacobian`` inside a ``tf.function``, as a user writes it (its reverse passes vectorized by pfor,
  which has no fallback there: where pfor cannot vectorize, as for a gradient through nested ``tf.cond``,
  tensorflow/tensorflow#108936 and #44502, the mode fails, and that is what the user meets);
* ``xla``: that ``tf.function`` with ``jit_compile=True``;
* ``forward``: one eager ``ForwardAccumulator`` pass per watched element (another mode, not another compiler);
* ``forward_graph``: those passes vectorized inside a ``tf.function``, as ``auto`` runs forward mode compiled. It is
  not the eager forward mode: where fn defines its own gradient (``tf.custom_gradient``, a straight-through
  estimator), eager forward mode follows it as the tape does, and forward mode in a graph differentiates the
  operations fn runs instead (0 for ``round``), silently,

and says, mode by mode, how far each is from ``eager``: the largest absolute and relative difference over the
cells finite in both, and the cells that are NaN or infinite in one of the two only. A mode agrees when the NaN
and infinity pattern is the same and the finite cells are within ``XLA_RTOL`` (by dtype, relative to the largest
finite magnitude, at least 1): the test ``gradlib._perelement._compiled.agree`` applies before ``auto`` adopts XLA.

Every mode holds a Jacobian, so the limits count them all; each mode is checked against the memory and work limits
before it runs, and a mode over them is left out with the reason (the eager reference cannot be: then the whole
check is refused). TensorFlow never frees XLA's compiled code, so the XLA versions are cached per problem and a
process builds at most ``XLA_BUILDS`` of them; after that the ``xla`` mode is left out, and says why.

>>> import tensorflow as tf
>>> c = crosscheck(lambda v: tf.where(v > 0, tf.sqrt(v), 0.0), tf.constant([0.0, -1.0, 4.0]))
>>> c.differing, c.mode("graph").agrees
(('xla',), True)
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import tensorflow as tf

from .. import _cost, _methods
from ..._foundations import _runtime
from ..._foundations._cache import LRUCache
from ..._callable._forms import check_callable
from ..._callable._outputs import whole_failure
from ..._foundations._errors import ExpressionError, GradlibError, error_gist
from ..._foundations._format import format_number
from ..._foundations._limits import LIMITS, Limits
from ..._foundations._runtime import returns_numpy
from .._api import prepare
from .._compiled import XLA_RTOL, agree
from .._compute import custom_gradient
from ._findings import Finding
from .._problem import Problem, callable_problem, jacobian_advice
from .._result import index_labels

__all__ = ["COMPARE_MODES", "MODES", "MODE_NAMES", "XLA_BUILDS", "CrossCheck", "ModeCheck", "crosscheck",
           "crosscheck_problem", "findings"]

#: the modes, in the order they are computed and shown; the first is the reference
MODES = ("eager", "graph", "xla", "forward", "forward_graph")
#: the modes ``compare`` cross-checks: it runs forward mode itself, as a method, and compares it with the others
COMPARE_MODES = ("eager", "graph", "xla")
#: how each mode is named in text
MODE_NAMES = {"eager": "eager", "graph": "graph (tf.function)", "xla": "XLA (jit_compile=True)",
              "forward": "forward mode", "forward_graph": "forward mode as a graph (tf.function)"}
#: the same, short, inside a sentence
_SHORT = {"eager": "eager", "graph": "the graph", "xla": "XLA", "forward": "forward mode",
          "forward_graph": "forward mode as a graph"}
#: XLA versions crosscheck builds per process at most (TensorFlow keeps each one's code for the process's life:
#: about 0.5 MB, measured in ``gradlib._compiled``); its own budget, so it never takes ``auto``'s
XLA_BUILDS = 64
#: cells named in a mode's details
SHOWN_CELLS = 4

#: (problem key, jit) -> the traced Jacobian of that problem
_TRACED = LRUCache(maxsize=32)
_builds = 0
_builds_lock = threading.Lock()


@dataclass(frozen=True)
class ModeCheck:
    """One mode against the eager reference.

    ``status``: ``"reference"``, ``"agrees"``, ``"differs"``, ``"failed"`` (it raised where eager ran) or
    ``"skipped"`` (over the limits, or not built: ``text`` says why). The numbers are NaN unless it ran.
    """

    mode: str
    status: str
    text: str                          # one sentence that names the mode
    jacobian: np.ndarray | None = None
    max_abs: float = math.nan          # largest |difference| over the cells finite in both
    max_rel: float = math.nan          # the same, relative to the reference's largest finite magnitude (at least 1)
    nonfinite_here: int = 0            # cells NaN or infinite in this mode, where eager differs
    nonfinite_reference: int = 0       # cells NaN or infinite eagerly, where this mode has a finite number
    details: str = ""                  # the first differing cells, with both values

    @property
    def agrees(self) -> bool:
        return self.status in ("reference", "agrees")

    @property
    def differs(self) -> bool:
        """It ran and gave other numbers, or it failed where eager ran."""
        return self.status in ("differs", "failed")


@dataclass(frozen=True)
class CrossCheck:
    """The Jacobian of one function in every mode, and how each mode compares with eager (plain NumPy data)."""

    y: np.ndarray
    modes: tuple[ModeCheck, ...]
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    tolerance: float

    def mode(self, name: str) -> ModeCheck:
        """The check of mode ``name`` (one of ``MODES``)."""
        for check in self.modes:
            if check.mode == name:
                return check
        raise KeyError(f"crosscheck has no mode {name!r}; it has {', '.join(c.mode for c in self.modes)}")

    @property
    def differing(self) -> tuple[str, ...]:
        """The modes that gave other numbers than eager, or failed where eager ran."""
        return tuple(c.mode for c in self.modes if c.differs)

    @property
    def agrees(self) -> bool:
        """Every mode that ran agrees with eager (a mode left out is not counted)."""
        return not self.differing

    @property
    def summary(self) -> str:
        """One sentence per mode that differs, or that every mode agrees; the modes left out are named."""
        ran = [c for c in self.modes if c.status != "skipped"]
        skipped = [c for c in self.modes if c.status == "skipped"]
        left_out = [MODE_NAMES[c.mode] for c in skipped]
        if self.differing:
            text = " ".join(c.text for c in self.modes if c.differs)
        elif len(ran) < 2:   # only the reference ran: nothing was compared, so nothing can be said to agree
            why = "; ".join(dict.fromkeys(c.text.split(" was left out: ", 1)[-1].rstrip(".") for c in skipped))
            return (f"Nothing was compared: only eager ran ({_join(left_out)} left out: {why})." if skipped else
                    "Nothing was compared: only eager ran.")
        else:
            text = (f"{_join([MODE_NAMES[c.mode] for c in ran])} agree (within {self.tolerance:g}, relative to the "
                    "largest finite gradient or to 1 if that is smaller, and NaN and infinity in the same cells).")
        return text + (f" Left out: {_join(left_out)}." if left_out else "")


@returns_numpy("gradlib.crosscheck")
def crosscheck(fn: Callable | str, xs: Any, *, watch: Sequence[str] | None = None,
               dtype: str | Mapping[str, str] = "float32", modes: Sequence[str] = MODES,
               limits: Limits = LIMITS) -> CrossCheck:
    """The per-element gradients of ``fn`` at ``xs`` computed eagerly, as a graph, under XLA and in forward mode.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``.

    Args:
        fn: a callable taking ``xs`` as given (as ``per_element_gradients`` takes it), or function text in
            gradlib's language (as ``evaluate`` takes it; ``xs`` is then its inputs by name).
        xs: a tensor, a list or a dict of tensors (for a callable), or input name -> value (for text).
        watch, dtype: for function text only, as in ``evaluate``.
        modes: which of ``MODES`` to compute; ``"eager"``, the reference, always runs.
        limits: every mode's Jacobian is counted against ``max_jacobian``, and each mode is checked against the
            memory and work limits before it runs.

    Returns:
        A ``CrossCheck``: ``differing`` names the modes whose gradients differ from eager, ``summary`` says how.

    Raises:
        ExpressionError: an option or a limit is not acceptable (the eager reference would be over them).
        GradlibError: ``fn`` fails eagerly, or does not return a floating-point tensor.
    """
    _check_modes(modes)
    if isinstance(fn, str):
        problem = prepare("crosscheck", fn, xs, ["auto"], watch=watch, dtype=dtype, limits=limits)[2]
    else:
        _check_callable_options(fn, watch, dtype)
        problem = callable_problem(fn, xs, api="crosscheck", limits=limits)
    with _runtime.work_slot():
        return crosscheck_problem(problem, modes, limits)


def crosscheck_problem(problem: Problem, modes: Sequence[str] = MODES, limits: Limits = LIMITS, *,
                       chosen_modes: bool = True) -> CrossCheck:
    """``crosscheck`` of a built problem (``compare`` calls this with its own, and its fixed modes: then
    ``chosen_modes=False``, and a refusal does not tell its caller to pass fewer modes)."""
    names = [(name, shape) for (name, shape), floats in zip(problem.names, problem.differentiable) if floats]
    cols = tuple(label for name, shape in names for label in index_labels(name, shape))
    y, reference = _eager(problem, limits, len(set(modes) | {"eager"}), chosen_modes)
    rows = problem.row_labels(y.shape)
    rtol = XLA_RTOL.get(reference.dtype, 1e-4)
    checks = [ModeCheck("eager", "reference", "eager is the reference: one reverse pass per output, run as called.",
                        reference, 0.0, 0.0)]
    for mode in (m for m in MODES if m in modes and m != "eager"):
        refusal = _over_limits(mode, problem, y.size, limits) if problem.xs else (
            "no floating-point input is watched, so there is nothing to differentiate")
        if refusal:
            checks.append(ModeCheck(mode, "skipped", f"{MODE_NAMES[mode]} was left out: {refusal}."))
            continue
        try:
            my, jac = _RUNNERS[mode](problem)
        except _NotBuilt as exc:
            checks.append(ModeCheck(mode, "skipped", f"{MODE_NAMES[mode]} was left out: {exc}."))
            continue
        except GradlibError:
            raise
        except Exception as exc:   # noqa: BLE001 - the mode itself failed where eager ran: that is the finding
            checks.append(ModeCheck(mode, "failed", f"{MODE_NAMES[mode]} failed where eager ran: "
                                    f"{type(exc).__name__}: {error_gist(exc).rstrip('.')}."))
            continue
        checks.append(_because(_compare(mode, (y, reference), (my, jac), rows, cols, rtol), problem))
    return CrossCheck(y, tuple(checks), rows, cols, rtol)


def _because(check: ModeCheck, problem: Problem) -> ModeCheck:
    """``check``, naming the cause when forward mode as a graph differs on a function that defines its own gradient."""
    name = custom_gradient(problem) if check.mode == "forward_graph" and check.differs else ""
    if not name:
        return check
    return replace(check, text=check.text + f" fn defines its own gradient (tf.custom_gradient; op type {name!r}), "
                   "which eager reverse and forward mode follow and forward mode in a graph does not: gradlib runs "
                   "reverse mode on it and refuses method='forward'.")


def findings(check: CrossCheck) -> tuple[Finding, ...]:
    """One diagnosis finding per mode that differs from eager or fails where eager runs (none when all agree)."""
    return tuple(Finding(None, _TITLES[c.status].format(name=MODE_NAMES[c.mode]),
                         c.text + (_CONSEQUENCE[c.mode] if c.status == "differs" else _FAILURE[c.mode]),
                         "warning", details=c.details) for c in check.modes if c.differs)


#: a finding's title by the mode's status
_TITLES = {"differs": "{name} gives other gradients than eager", "failed": "{name} fails where eager runs"}
#: what a difference in each mode means for the user
_CONSEQUENCE = {
    "graph": " A tf.function of this gradient gets these numbers.",
    "xla": (" The results above are not XLA's (gradlib keeps XLA only where it agrees with the graph), but a "
            "tf.function(jit_compile=True) of this gradient, such as a training step compiled with XLA, gets them. "
            "Known causes: XLA differentiates the branch of tf.where not taken (tensorflow/tensorflow#118674) and "
            "drops the NaN of reduce_max's gradient (tensorflow/tensorflow#118673)."),
    "forward": " Forward and reverse mode differentiate the same function: where they differ, a NaN or infinity "
               "in one of them usually comes from 0 times an infinite derivative.",
    "forward_graph": " gradlib refuses forward mode on a function that defines its own gradient (tf.custom_gradient), "
                     "which forward mode in a graph does not follow; otherwise a NaN or infinity in one of them "
                     "usually comes from 0 times an infinite derivative. A tf.autodiff.ForwardAccumulator in a "
                     "tf.function gets these numbers.",
}


#: what a failure of each mode means for the user
_FAILURE = {"graph": " A tf.function of this gradient fails the same way.",
            "xla": " A tf.function(jit_compile=True) of this gradient fails the same way.",
            "forward": " tf.autodiff.ForwardAccumulator fails the same way on this function.",
            "forward_graph": " tf.autodiff.ForwardAccumulator in a tf.function fails the same way on this function."}


# ---------------------------------------------------------------- checks


def _check_modes(modes: Any) -> None:
    if isinstance(modes, str) or not modes or any(m not in MODES for m in modes):
        raise ExpressionError(f"crosscheck got modes={modes!r}; pass a list of names from {', '.join(MODES)}")


def _check_callable_options(fn: Any, watch: Any, dtype: Any) -> None:
    check_callable(fn, "crosscheck", text=True)
    if watch is not None or dtype != "float32":
        raise ExpressionError("crosscheck takes watch= and dtype= with function text only; for a callable, pass "
                              "the tensors to differentiate as xs, in the dtype wanted")


def _check_eager(problem: Problem, m: int, copies: int, limits: Limits, chosen_modes: bool = True) -> None:
    """The reference must fit: ``m`` eager passes, and ``copies`` Jacobians of ``m`` x ``n`` entries."""
    n = problem.width
    if copies * m * n > limits.max_jacobian:
        raise ExpressionError(
            f"crosscheck holds {copies} Jacobians of {m:,} x {n:,} entries, {copies * m * n:,} in all; at most "
            f"{limits.max_jacobian:,} are allowed. " + ("Pass fewer modes; or: " if chosen_modes else "")
            + jacobian_advice(m, n, len(problem.names), limits.max_jacobian // copies))
    if m > limits.max_eager_passes:
        raise ExpressionError(
            f"crosscheck's eager reference runs one reverse pass per output element: {m:,} here, and at most "
            f"{limits.max_eager_passes:,} are allowed. Reduce the output (for example with sum or mean) to at most "
            f"{limits.max_eager_passes:,} elements")
    cost = _cost.estimate("unstack", _profile(problem, m), False)   # an upper bound of the loop below
    if not _cost.fits(cost, limits):
        raise _cost.refusal(cost, limits, "Reduce the output or watch fewer inputs", who="crosscheck's eager reference")


def _over_limits(mode: str, problem: Problem, m: int, limits: Limits) -> str:
    """Why ``mode`` may not run within ``limits`` ("" when it may)."""
    n = problem.float_width
    if mode == "forward" and n > limits.max_eager_passes:
        return (f"it runs one eager pass per watched element, {n:,} here, and at most {limits.max_eager_passes:,} "
                "are allowed")
    cost = _cost.estimate("forward" if mode.startswith("forward") else "jacobian", _profile(problem, m),
                          mode != "forward")
    if not _cost.fits(cost, limits):
        return str(_cost.refusal(cost, limits, "", who="it"))
    return ""


def _profile(problem: Problem, m: int) -> _cost.Profile:
    return problem.profile or _cost.Profile.of_callable(m, problem.float_width, problem.itemsize)


# ---------------------------------------------------------------- the modes


class _NotBuilt(Exception):
    """A mode that was not built (the process's XLA budget is spent): left out, not failed."""


def _eager(problem: Problem, limits: Limits, copies: int, chosen_modes: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The reference: ``y`` and one eager reverse pass per output (``tape.gradient`` with a one-hot cotangent)."""
    xs, cs = problem.xs, problem.cs
    try:
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xs)
            y = problem.f(xs, cs)
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed: say so, with its message
        raise whole_failure("crosscheck", exc, xs) from exc
    m = int(y.shape.num_elements())
    if m == 0:   # every mode 'agreed' on nothing
        raise GradlibError("crosscheck: fn returned an empty tensor: there is no element to differentiate. Return "
                           "at least one element")
    _check_eager(problem, m, copies, limits, chosen_modes)
    n = problem.float_width
    rows = np.zeros((m, n), y.dtype.as_numpy_dtype)
    for i in range(m if xs else 0):
        cotangent = tf.reshape(tf.one_hot(i, m, dtype=y.dtype), tf.shape(y))
        grads = tape.gradient(y, xs, output_gradients=cotangent, unconnected_gradients=_methods.ZERO)
        rows[i] = np.concatenate([g.numpy().reshape(-1) for g in grads])
    return y.numpy(), rows


def _tape_jacobian(f: Callable, xs: list, cs: list):
    """``(y, J)`` as a TensorFlow user computes it: ``tape.jacobian(y, xs)``, each input's block flattened."""
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = f(xs, cs)
    m = int(y.shape.num_elements())
    blocks = tape.jacobian(y, xs, unconnected_gradients=_methods.ZERO, experimental_use_pfor=True)
    return y, tf.concat([tf.reshape(b, [m, -1]) for b in blocks], axis=1)


def _traced(problem: Problem, jit: bool) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobian from ``tape.jacobian`` in a ``tf.function`` (with XLA if ``jit``), traced once per problem."""
    def build():
        if jit and not _reserve_build():
            raise _NotBuilt(f"this process has built its {XLA_BUILDS} XLA versions (TensorFlow never frees them)")
        return _methods.compile_method(_tape_jacobian, problem.f, problem.xs, problem.cs, jit_compile=jit)

    traced = build() if problem.key is None else _TRACED.get_or_create((problem.key, jit), build)
    y, jac = traced(problem.xs, problem.cs)
    return y.numpy(), jac.numpy()


def _forward(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    y, jac = _methods.forward_loop(problem.f, problem.xs, problem.cs)
    return y.numpy(), jac.numpy()


def _forward_graph(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Forward mode as ``auto`` runs it compiled: the passes vectorized inside a ``tf.function``, traced once."""
    def build():
        return _methods.compile_method(_methods.forward, problem.f, problem.xs, problem.cs)

    traced = build() if problem.key is None else _TRACED.get_or_create((problem.key, "forward"), build)
    y, jac = traced(problem.xs, problem.cs)
    return y.numpy(), jac.numpy()


_RUNNERS = {"graph": lambda p: _traced(p, False), "xla": lambda p: _traced(p, True), "forward": _forward,
            "forward_graph": _forward_graph}


def _reserve_build() -> bool:
    global _builds
    with _builds_lock:
        if _builds >= XLA_BUILDS:
            return False
        _builds += 1
        return True


# ---------------------------------------------------------------- comparing


def _compare(mode: str, reference: tuple[np.ndarray, np.ndarray], other: tuple[np.ndarray, np.ndarray],
             rows: tuple[str, ...], cols: tuple[str, ...], rtol: float) -> ModeCheck:
    """``mode``'s numbers against eager's: the verdict of ``agree`` and the numbers behind it."""
    ref, jac = reference[1], other[1].reshape(reference[1].shape)
    odd = (np.isnan(ref) != np.isnan(jac)) | (np.isinf(ref) & (ref != jac)) | (np.isinf(jac) & (ref != jac))
    finite = np.isfinite(ref) & np.isfinite(jac)
    scale = max(1.0, float(np.abs(ref[np.isfinite(ref)]).max(initial=0.0)))
    with np.errstate(invalid="ignore"):
        gap = np.where(finite, np.abs(ref.astype(np.float64) - jac), 0.0)
    max_abs = float(gap.max(initial=0.0))
    why = agree((reference[0].reshape(-1), ref), (other[0].reshape(-1), jac))
    here, there = int((odd & ~np.isfinite(jac)).sum()), int((odd & np.isfinite(jac)).sum())
    name = MODE_NAMES[mode]
    if not why:
        return ModeCheck(mode, "agrees", f"{name} agrees with eager (largest difference {format_number(max_abs, 3)}).",
                         jac, max_abs, max_abs / scale)
    short = _SHORT[mode]
    parts = ([f"{here:,} cell(s) are NaN or infinite in {short} only"] if here else []) + (
        [f"{there:,} cell(s) are NaN or infinite eagerly but finite in {short}"] if there else [])
    if max_abs / scale > rtol:
        parts.append(f"finite cells differ by up to {format_number(max_abs, 3)} (relative {max_abs / scale:.3g}, "
                     f"over the tolerance {rtol:g})")
    y, my = reference[0].reshape(-1), other[0].reshape(-1)
    outputs = np.flatnonzero(~_same(y, my, rtol))
    if outputs.size:
        parts.append(f"its output y differs in {outputs.size:,} element(s)")
    cells = np.argwhere(odd | (gap > rtol * scale))
    shown = [f"({rows[r]}) eager {format_number(y[r])}, {short} {format_number(my[r])}" for r in outputs[:SHOWN_CELLS]]
    shown += [f"({rows[r]}, {cols[c]}) eager {format_number(ref[r, c])}, {short} {format_number(jac[r, c])}"
              for r, c in cells[:SHOWN_CELLS]]
    more = outputs.size + len(cells) - len(shown)
    details = "; ".join(shown) + (f"; and {more:,} more cell(s)" if more else "")
    return ModeCheck(mode, "differs", f"{name} differs from eager: {'; '.join(parts)}.", jac, max_abs,
                     max_abs / scale, here, there, details)


def _same(reference: np.ndarray, other: np.ndarray, rtol: float) -> np.ndarray:
    """Per cell: the same NaN or infinity, or finite and within ``rtol`` of the reference's largest magnitude."""
    scale = max(1.0, float(np.abs(reference[np.isfinite(reference)]).max(initial=0.0)))
    with np.errstate(invalid="ignore"):
        close = np.abs(reference.astype(np.float64) - other) <= rtol * scale
    return np.where(np.isfinite(reference) & np.isfinite(other), close,
                    (np.isnan(reference) & np.isnan(other)) | (reference == other))


def _join(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""
