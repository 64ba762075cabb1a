"""One problem's compiled gradient method: a traced graph, promoted to XLA only once XLA can repay itself.

A ``Compiled`` starts as a traced graph, which is the cheapest to build. XLA (``jit_compile=True``) runs
large problems faster but takes longer to build than the graph did, so a problem is promoted only when

* one warm graph call takes at least ``XLA_MIN_SECONDS`` (below that there is little left to gain), and
* the time already spent in warm graph calls reaches ``XLA_PAYBACK`` times what building the graph cost:
  the ski-rental rule, so a problem called a few times (a dashboard) never pays for XLA, while one called
  in a loop (training, a benchmark) soon does.

The XLA version is then tried against the graph in interleaved calls (XLA, graph, XLA, ...), so that a
burst of load on a shared machine slows both alike, and kept only if the median of its calls is faster
than the graph's median by ``XLA_GAIN``; an op XLA cannot compile leaves the graph in place for good.

Speed alone never decides: XLA's gradients can differ from the graph's (for ``tf.where(v > 0, tf.sqrt(v), 0)``
the graph gives 0 in the branch not taken and XLA gives NaN: tensorflow/tensorflow#118674). So every XLA call
of the trial also runs the graph on the same inputs, and the caller gets the graph's numbers until XLA is
adopted; XLA is adopted only if it agreed on every call (``agree``: the same NaN and infinity pattern, finite
cells within ``XLA_RTOL`` of the graph's, relative to the largest finite magnitude). Once adopted, an XLA
answer with any NaN or infinity is checked against the graph again. A disagreement drops XLA for good, and
the next result says so once (``Compiled.run``'s note).

TensorFlow never frees XLA's compiled code, even once the function is gone (dropped graphs are collected;
the measurement is in docs/performance.md, "Where the constants come from"). So a process builds at most
``XLA_MAX_BUILDS`` XLA versions in its life; after that, every problem stays on its graph.

>>> import tensorflow as tf
>>> from gradlib._perelement import _methods
>>> spec = tf.TensorSpec([2], tf.float32)
>>> c = Compiled(lambda jit: _methods.compile_method(_methods.jacobian, lambda xs, cs: xs[0] ** 2, [spec], [],
...                                                  jit_compile=jit))
>>> y, J = c([tf.constant([1.0, 2.0])], [])
>>> J.tolist(), c.uses_xla
([[2.0, 0.0], [0.0, 4.0]], False)
"""

from __future__ import annotations

import math
import statistics
import sys
import threading
import time
from typing import Callable

import numpy as np

from .._callable._trace import call_traced, fixed_caller

__all__ = ["SAMPLES", "TRIAL_SAMPLES", "XLA_GAIN", "XLA_MAX_BUILDS", "XLA_MIN_SECONDS", "XLA_PAYBACK", "XLA_RTOL",
           "Compiled", "agree"]

#: a warm graph call faster than this leaves too little for XLA to win back its compile time (the bench run
#: behind the bar: docs/performance.md, "Where the constants come from")
XLA_MIN_SECONDS = 5e-4
#: promote once warm graph calls have taken this many times the graph's own build (trace + first run)
XLA_PAYBACK = 2.0
#: keep XLA only when its best warm call takes at most this fraction of the graph's best
XLA_GAIN = 0.9
#: timed warm graph calls before XLA may be considered (their best must reach ``XLA_MIN_SECONDS``)
SAMPLES = 3
#: interleaved warm calls of each version in the trial that decides between them (their medians are compared)
TRIAL_SAMPLES = 5
#: XLA versions built per process at most: TensorFlow keeps XLA's compiled code for the life of the process
XLA_MAX_BUILDS = 32
#: XLA's numbers agree with the graph's when they differ by at most this, relative to the largest finite
#: magnitude of the graph's (XLA fuses and reorders float operations: float32 sums differ in the last bits)
XLA_RTOL = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-10}
_builds = 0
_builds_lock = threading.Lock()


class Compiled:
    """A traced method for one problem (fixed shapes and dtypes) that may switch itself to XLA.

    Args:
        build: ``build(jit_compile) -> concrete function`` taking ``(xs, cs)`` and returning ``(y, J)``.
    """

    def __init__(self, build: Callable[[bool], Callable]):
        start = time.perf_counter()
        self._build = build
        self.graph = build(False)           # tracing happens here, so a failure leaves nothing in the cache
        self.build_seconds = time.perf_counter() - start   # the first call adds its graph optimisation
        self.xla: Callable | None = None
        self.uses_xla = False                     # True while calls run the XLA version
        self.settled = False                 # True once the choice between graph and XLA is final
        self.calls = 0
        self.spent = 0.0                     # seconds spent in warm graph calls so far
        self.best = {"graph": math.inf, "xla": math.inf}   # fastest warm call of each version
        self.samples = {"graph": 0, "xla": 0}
        self.trial: dict[str, list[float]] = {"graph": [], "xla": []}   # interleaved calls once XLA is built
        self._warm = False                   # the first graph call has run
        self._busy = False                   # one thread is building XLA; the others keep the graph
        self.disagreement = ""               # why XLA was dropped for giving other numbers than the graph
        self._said = False                   # whether a result has carried that disagreement yet
        self._lock = threading.Lock()
        self._callers: dict = {}             # the settled version -> its ``fixed_caller`` (``settled_run``)

    def __call__(self, xs: list, cs: list) -> tuple[np.ndarray, np.ndarray]:
        """``(y, J)`` as NumPy arrays, from whichever version is current."""
        return self.run(xs, cs)[:2]

    def run(self, xs: list, cs: list) -> tuple:
        """``(y, J, compiled_as, note, built)``: the arrays (and any further outputs of the function after ``J``, all
        compared between graph and XLA alike), which version computed them (``"graph"`` or ``"xla"``),
        once after XLA was dropped for disagreeing with the graph, why (``""`` otherwise), and whether this call did
        more than run that version (the graph's first run, which optimises it; building XLA; a trial call of XLA
        beside the graph): then its seconds are not a warm call's."""
        compiled_as, fn = self._next()
        built = not self._warm or compiled_as == "promote"
        if compiled_as == "promote":
            *outs, compiled_as = self._promote(xs, cs)
        else:
            start = time.perf_counter()
            outs = self._settled_call(fn, xs, cs)
            self._record(compiled_as, time.perf_counter() - start)
            if compiled_as == "xla":
                *outs, compiled_as = self._checked(xs, cs, outs)
                built = built or compiled_as != "xla"   # the graph ran beside XLA: the trial
        return (*outs, compiled_as, self._note(), built)

    def settled_run(self, xs: list, cs: list) -> tuple | None:
        """``(y, J, compiled_as)`` of a warm call once the choice of version is final and nothing is left to say:
        what ``run`` then does (a settled ``_record`` keeps no time), without its bookkeeping. ``None`` before that, or
        for an answer with NaN or infinity: from XLA ``run`` checks it against the graph, and the caller's cold path
        answers either version's (its one finiteness check, which it need not repeat)."""
        with self._lock:
            if not (self.settled and self._warm) or self._busy or (self.disagreement and not self._said):
                return None
            self.calls += 1
            compiled_as, fn = ("xla", self.xla) if self.uses_xla else ("graph", self.graph)
            if fn is None:
                return None
            caller = self._callers[fn] if fn in self._callers else self._caller(fn)
        outs = _arrays(caller(xs, cs)) if caller is not None else _run(fn, xs, cs)
        finite, every = np.isfinite, np.logical_and.reduce   # ufuncs: no Python call, where ``.all()`` makes one
        if not (every(finite(outs[0]), axis=None) and every(finite(outs[1]), axis=None)):
            return None
        return (*outs, compiled_as)

    def _caller(self, fn: Callable) -> Callable | None:
        """The ``fixed_caller`` of ``fn``, the settled version (under the lock): made once; a dropped one is not
        kept."""
        if fn not in self._callers:
            self._callers = {fn: fixed_caller(fn)}
        return self._callers[fn]

    def _settled_call(self, fn: Callable, xs: list, cs: list) -> tuple:
        """``_run`` of ``fn``; once the choice of version is final and ``fn`` is the one chosen, through its
        ``fixed_caller``, as ``settled_run`` calls it (a warm ``evaluate`` then calls its graph as a warm callable
        does).
        Until then every call is timed as the graph's and XLA's trial has always timed them."""
        with self._lock:
            chosen = self.settled and self._warm and fn is (self.xla if self.uses_xla else self.graph)
            caller = self._caller(fn) if chosen else None
        tf = sys.modules.get("tensorflow")
        if caller is None or tf is None or not all(isinstance(t, tf.Tensor) for t in (*xs, *cs)):
            return _run(fn, xs, cs)   # values that are not tensors: the ordinary call binds them (``call_traced``)
        return tuple(t.numpy() for t in caller(xs, cs))

    def _checked(self, xs: list, cs: list, outs: tuple) -> tuple:
        """An XLA answer made safe: during the trial, or when it holds NaN or infinity, the graph runs on the same
        inputs; the graph's numbers are returned unless XLA is adopted, and a disagreement drops XLA."""
        if self.uses_xla and all(np.isfinite(a).all() for a in outs[:2]):
            return (*outs, "xla")
        graph = _run(self.graph, xs, cs)
        why = agree(graph, outs)
        if why:
            self._drop(why)
        return (*outs, "xla") if self.uses_xla and not why else (*graph, "graph")

    def _drop(self, why: str) -> None:
        with self._lock:
            self.xla, self.uses_xla, self.settled = None, False, True
            self.disagreement = ("XLA's gradients differ from the graph's for this function (" + why + "), so it "
                                 "runs as a graph only; see tensorflow/tensorflow#118674 for one known cause")

    def _note(self) -> str:
        with self._lock:
            if not self.disagreement or self._said:
                return ""
            self._said = True
            return self.disagreement

    def _next(self) -> tuple[str, Callable | None]:
        with self._lock:
            self.calls += 1
            if self.uses_xla:
                return "xla", self.xla
            if self.xla is not None and not self.settled:   # the trial: alternate, XLA first
                if len(self.trial["xla"]) <= len(self.trial["graph"]):
                    return "xla", self.xla
                return "graph", self.graph
            if self.settled or self._busy or not self._due():
                return "graph", self.graph
            if not _reserve_build():
                self.settled = True
                return "graph", self.graph
            self._busy = True
            return "promote", None

    def _due(self) -> bool:
        return (self.samples["graph"] >= SAMPLES and self.best["graph"] >= XLA_MIN_SECONDS
                and self.spent >= XLA_PAYBACK * self.build_seconds)

    def _promote(self, xs: list, cs: list) -> tuple[np.ndarray, np.ndarray, str]:
        """Build and run the XLA version (its first run compiles) beside the graph on the same inputs; on any
        failure, or other numbers than the graph's, keep the graph for good. The graph's numbers are returned."""
        try:
            xla = self._build(True)
            why = agree(_run(self.graph, xs, cs), _run(xla, xs, cs))
        except Exception:   # noqa: BLE001 - e.g. an op without an XLA kernel: the graph is correct, keep it
            xla, why = None, ""
        with self._lock:
            self._busy = False
            self.xla, self.settled = xla, xla is None   # the trial decides between them (see _record)
        if why:
            self._drop(why)
        return (*_run(self.graph, xs, cs), "graph")   # y, J and any further outputs

    def _record(self, compiled_as: str, seconds: float) -> None:
        with self._lock:
            if not self._warm:
                self._warm = True
                self.build_seconds += seconds
                return
            if self.settled:
                return
            self.samples[compiled_as] += 1
            self.best[compiled_as] = min(self.best[compiled_as], seconds)
            if self.xla is not None:
                self._trial(compiled_as, seconds)
                return
            self.spent += seconds
            if self.samples["graph"] >= SAMPLES and self.best["graph"] < XLA_MIN_SECONDS:
                self.settled = True

    def _trial(self, compiled_as: str, seconds: float) -> None:
        """Record one interleaved call; once both versions have ``TRIAL_SAMPLES``, keep the faster median."""
        self.trial[compiled_as].append(seconds)
        if min(len(calls) for calls in self.trial.values()) < TRIAL_SAMPLES:
            return
        keep = statistics.median(self.trial["xla"]) <= XLA_GAIN * statistics.median(self.trial["graph"])
        self.xla, self.uses_xla, self.settled = (self.xla if keep else None), keep, True


def _reserve_build() -> bool:
    """Count one XLA build against ``XLA_MAX_BUILDS``; False once the process has used them all."""
    global _builds
    with _builds_lock:
        if _builds >= XLA_MAX_BUILDS:
            return False
        _builds += 1
        return True


def agree(reference: tuple[np.ndarray, ...], other: tuple[np.ndarray, ...]) -> str:
    """``""`` when ``other``'s arrays hold the same numbers as ``reference``'s, otherwise what differs.

    The same: NaN in the same cells, the same infinities, and finite cells within ``XLA_RTOL`` (by dtype) of the
    reference's, relative to its largest finite magnitude (at least 1).

    >>> agree((np.array([0.0, 1.0]),), (np.array([0.0, 1.0 + 1e-12]),))
    ''
    >>> agree((np.array([0.0, 1.0]),), (np.array([np.nan, 1.0]),))
    '1 cell(s) are NaN or infinite in one version only'
    """
    for ref, out in zip(reference, other):
        ref, out = np.asarray(ref), np.asarray(out)
        odd = (np.isnan(ref) != np.isnan(out)) | (np.isinf(ref) & (ref != out)) | (np.isinf(out) & (ref != out))
        if odd.any():
            return f"{int(odd.sum()):,} cell(s) are NaN or infinite in one version only"
        finite = np.isfinite(ref)
        if not finite.any():
            continue
        scale = max(1.0, float(np.abs(ref[finite]).max()))
        gap = float(np.abs(ref[finite] - out[finite]).max()) / scale
        rtol = XLA_RTOL.get(ref.dtype, 1e-4)
        if gap > rtol:
            return f"a relative difference of {gap:.3g}, over the tolerance {rtol:g}"
    return ""


def _run(fn: Callable, xs: list, cs: list) -> tuple[np.ndarray, ...]:
    """``(y, J, ...)``: every output of the traced function as NumPy."""
    return tuple(t.numpy() for t in call_traced(fn, xs, cs))


def _arrays(tensors) -> tuple:
    """``tuple(t.numpy() for t in tensors)`` (eager tensors) in one Python call where that makes seven for two
    tensors: what ``numpy()`` returns, a copy of the array over the tensor's buffer (``_numpy_internal``), so that no
    answer shares memory with the user's input or a constant of the graph. TensorFlow's own ``numpy()`` where that
    cannot be read (it then raises TensorFlow's error)."""
    arrays = []
    try:
        for t in tensors:
            a = t._numpy_internal()
            arrays.append(a.copy() if type(a) is np.ndarray else a)
    except Exception:   # noqa: BLE001 - another TensorFlow, or a tensor that cannot be read here
        return tuple(t.numpy() for t in tensors)
    return tuple(arrays)
