"""The second-order methods as rows of one table: what each computes, what it costs, what it needs.

Every row is read by the same three stages: ``applicable`` (does the row fit this request at all), ``cost``
(estimated work, peak memory, and how many passes it writes out one by one into its graph, which is what
its first call pays to trace) and ``choose`` (``auto``: the cheapest estimate among the exact rows within the
limits; never an opt-in row, and never a row whose trace alone is estimated past ``FIRST_CALL_SECONDS``).

A request is a ``Shape``: ``batch`` samples of ``inputs`` elements each, ``outputs`` elements per sample, and
a ``kind`` (``hessian``, ``diagonal``, ``laplacian``, ``divergence``). What one forward pass of the function
costs per sample (``macs``, ``floats``, ``layers``) is read from a Keras model's Dense layers, or guessed for
any other callable (``measured=False``: the estimate says so).

>>> from gradlib._foundations._limits import LIMITS
>>> s = Shape(batch=1024, inputs=50, outputs=1, kind="laplacian", itemsize=4, macs=144_128, floats=769,
...           layers=4, tileable=True, dense=True)
>>> choose(s, LIMITS)
'forward_laplacian'
>>> [row.name for row in TABLE if row.opt_in]
['hutchinson']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

from .._foundations._format import format_apart, format_number
from .._foundations._errors import ExpressionError
from .._foundations._limits import Limits

__all__ = ["CHUNK_FLOATS", "FIRST_CALL_SECONDS", "HELD_PASSES", "KINDS", "LOOP_SECONDS", "PARALLEL_CHUNKS",
           "SECOND_METHODS", "TABLE", "Cost", "SecondMethod", "Shape", "check_budget", "check_method", "choose", "chunk_rows", "row"]

#: what the second-order functions compute: full Hessians, their diagonals, their traces, a Jacobian's trace
KINDS = ("hessian", "diagonal", "laplacian", "divergence")
#: ``auto`` never picks a method whose first call (its trace) is estimated past this many seconds
FIRST_CALL_SECONDS = 2.0
#: multiply-adds per second a compiled pass sustains (docs/performance.md, "Second order": where it comes from)
RATE = 1.5e10
#: rows per vectorized pass of the tiled methods (copies of the batch, one per tangent or probe), at most
TILE_ROWS = 16_384
#: the forward Laplacian's chunks: elements of one chunk's carried Jacobian (rows x inputs x widest layer), at most
#: (4 MB in float32, which the bench machine's 32 MB L3 cache holds with room for the chunk's other arrays; the
#: round-robin rows of ``benchmarks.second_order`` compare the chunks with the rules on the whole batch)
CHUNK_FLOATS = 2 ** 20
#: first-call seconds per while loop in fn (a Keras recurrent layer's time loop, a tf.scan), by method: per pass written
#: into the graph (``loop``, the forward methods) or once (``nested_tapes``: pfor converts the loop's second
#: derivative). Second derivatives through a loop trace and optimize for long, where the table without loops said
#: 0.8-2.2 s: ``loop`` took 6.2-15.9 s for a Keras LSTM(4), GRU or Masking + LSTM over 4 steps of 2 features (8
#: passes), 11.4 s for an LSTM over 8 steps (16 passes), 3.5 s for a SimpleRNN (8), 2.6-3.1 s for a 2-step tf.scan
#: (3); ``nested_tapes`` 21.6-23.4 s for the LSTM and Masking + LSTM (8 inputs), 14-18 s for the tf.scan (one
#: machine's 2 cores; several times that while another process shares them)
LOOP_SECONDS = {"pass": 1.0, "pfor": 20.0}
#: the held pass's passes through fn written into every method's graph (``_callable._mixing.held_outputs``: fn's
#: value and derivatives up to the second order on the batch and on two moved batches): a 2-step tf.scan's first
#: ``laplacian(method='loop')`` took 1.0 s with one value pass and 2.9 s with these (hunt 59)
HELD_PASSES = 3
#: the forward Laplacian's chunks computed at the same time (``tf.map_fn``'s ``parallel_iterations``)
PARALLEL_CHUNKS = 2


@dataclass(frozen=True)
class Shape:
    """One request, as the cost estimates see it."""

    batch: int
    inputs: int                 # d: elements of one sample
    outputs: int                # elements of one sample's output
    kind: str
    itemsize: int               # bytes per element of the computation's dtype
    macs: float                 # multiply-adds of one forward pass, per sample
    floats: float               # activations one forward pass keeps, per sample
    layers: int                 # ops along the longest path (what a trace writes out per pass), at least 1
    tileable: bool              # fn takes any batch: the tiled methods may run it on copies of the batch
    dense: bool                 # a Keras Sequential of Dense layers the forward rules cover
    probes: int = 0             # Hutchinson's random probes
    measured: bool = True       # macs and floats were read from the model (False: guessed)
    widest: int = 0             # the widest layer (the forward rules carry a Jacobian that wide)
    loops: int = 0              # while loops in fn (a Keras LSTM's, GRU's, a tf.scan): ``LOOP_SECONDS`` each


@dataclass(frozen=True)
class Cost:
    """A method's estimate for one ``Shape``."""

    flops: float               # multiply-adds
    bytes: float               # peak memory
    unrolled: int              # passes written out one by one into the graph
    trace_seconds: float       # estimated first-call overhead

    @property
    def seconds(self) -> float:
        return self.flops / RATE + self.trace_seconds

    def text(self) -> str:
        return (f"~{format_number(self.flops, 2)} multiply-adds, ~{format_number(self.bytes / 1e6, 2)} MB peak, "
                f"{self.unrolled:,} unrolled passes, first call ~{format_number(self.trace_seconds, 2)} s")


@dataclass(frozen=True)
class SecondMethod:
    """One row: a way to compute second derivatives per sample (or of one function of many inputs)."""

    name: str
    summary: str
    kinds: tuple[str, ...]
    exact: bool                 # False: an estimate (returns its standard error)
    opt_in: bool                # auto never picks it
    needs_tiling: bool          # runs fn on copies of the batch
    needs_dense: bool           # only for the forward rules' layers
    estimate: Callable[[Shape], Cost]

    def applicable(self, s: Shape) -> str:
        """Why this row cannot serve ``s`` ('' when it can)."""
        if s.kind not in self.kinds:
            return f"{self.name} does not compute {s.kind} (it computes {', '.join(self.kinds)})"
        if self.needs_dense and not s.dense:
            return (f"{self.name} has layer rules only for a Keras Sequential of Dense layers with "
                    "the common activations")
        if self.needs_tiling and not s.tileable:
            return f"{self.name} runs fn on copies of the batch, and this fn takes one fixed input"
        return ""

    def cost(self, s: Shape) -> Cost:
        """The row's estimate, and for every row that calls fn, the held pass's passes through fn's while loops
        (``HELD_PASSES``)."""
        c = self.estimate(s)
        if self.needs_dense or not s.loops:   # the forward Laplacian's rules run no held pass and take no loop
            return c
        return replace(c, trace_seconds=c.trace_seconds + LOOP_SECONDS["pass"] * HELD_PASSES * s.loops)


def _forward(s: Shape) -> float:
    return s.batch * s.macs


def _result_bytes(s: Shape) -> float:
    per = {"hessian": s.inputs * s.inputs, "diagonal": s.inputs, "laplacian": 1, "divergence": 1}[s.kind]
    return s.itemsize * s.batch * s.outputs * (per + s.inputs)   # the result and the Jacobian beside it


def _trace(unrolled: int, s: Shape, base: float, per_pass_layer: float) -> float:
    """A first call's tracing: a base, and each pass written out into the graph, per layer it goes through."""
    return base + per_pass_layer * max(unrolled, 1) * s.layers


def _loops(unrolled: int, s: Shape) -> float:
    """A first call's seconds for fn's while loops, ``LOOP_SECONDS["pass"]`` per loop and pass written out."""
    return LOOP_SECONDS["pass"] * max(unrolled, 1) * s.loops


def _directions(s: Shape) -> int:
    """Second-order passes per sample: one per output and input element (a Jacobian's trace: one per input)."""
    return s.inputs if s.kind == "divergence" else s.outputs * s.inputs


# Each row's factors (work per direction, tracing per unrolled pass and layer, activations held) are fitted to the
# bench's shapes: docs/performance.md, "Second order", lists the measurements they come from.


def _nested(s: Shape) -> Cost:
    k = _directions(s)
    held = s.itemsize * s.batch * s.floats * k * 3     # pfor holds every direction's backward pass at once
    return Cost(_forward(s) * (3 + 4 * k), held + _result_bytes(s) * (s.inputs if s.kind != "divergence" else 1),
                0, 1.0 + 0.1 * s.layers + LOOP_SECONDS["pfor"] * s.loops)


def _loop(s: Shape) -> Cost:
    """Its first call's memory counts the trace of its ``k`` unrolled passes (``_trace``: a base and a part per pass
    and layer, in bytes), which outweighs the computation on small batches: 348-364 MB for 500 passes through 4
    layers where the computation needs 2 MB (docs/performance.md, "The loop's first call")."""
    k = _directions(s)
    return Cost(_forward(s) * (3 + 2.5 * k),
                s.itemsize * s.batch * s.floats * 40 + _result_bytes(s) + _trace(k, s, 60e6, 0.2e6), k,
                _trace(k, s, 0.3, 0.03) + _loops(k, s))


def _tiled_rows(s: Shape, copies: int) -> tuple[int, int]:
    """(rows per pass, passes) when ``copies`` copies of the batch are run in chunks of at most TILE_ROWS rows."""
    per_pass = max(1, min(copies, TILE_ROWS // max(s.batch, 1)))
    return per_pass * s.batch, math.ceil(copies / per_pass)


def _forward_over_reverse(s: Shape) -> Cost:
    if not s.tileable:   # one Hessian-vector product per output and input element, vectorized: passes of at most
        # TILE_ROWS pairs, each pair one copy of the single input's activations, as a tiled pass's rows are
        # (_tapes.forward_over_reverse_one; its use_pfor=False fallback loops over them in one pass, holding less)
        pairs = s.inputs * s.outputs
        rows, passes = _tiled_rows(replace(s, batch=1), pairs)
        return Cost(_forward(s) * 9 * pairs, s.itemsize * rows * s.floats * 18 + _result_bytes(s),
                    passes, _trace(passes, s, 0.3, 0.4) + _loops(passes, s))
    rows, passes = _tiled_rows(s, s.inputs)
    per_output = 1 if s.kind == "divergence" else s.outputs
    work = 4 if s.kind == "divergence" else 9
    return Cost(_forward(s) * work * s.inputs * per_output, s.itemsize * rows * s.floats * 18 + _result_bytes(s),
                passes * per_output, _trace(passes * per_output, s, 0.3, 0.4) + _loops(passes * per_output, s))


def chunk_rows(batch: int, inputs: int, widest: int) -> int:
    """The forward Laplacian's samples per chunk: as many as keep ``rows x inputs x widest`` within
    ``CHUNK_FLOATS`` (a power of two, at least 1), never more than the batch.

    >>> chunk_rows(1024, 50, 256), chunk_rows(1024, 10, 256), chunk_rows(3, 50, 256), chunk_rows(9, 5000, 5000)
    (64, 256, 3, 1)
    """
    rows = 1
    while rows * 2 * inputs * max(widest, 1) <= CHUNK_FLOATS:
        rows *= 2
    return max(1, min(rows, batch))


def _forward_laplacian(s: Shape) -> Cost:
    """Per chunk being computed (``PARALLEL_CHUNKS`` at a time), the carried Jacobian and what each layer makes of
    it (its product by the kernel, the squares, the next Jacobian: 4 such arrays; a Hessian diagonal carries its
    own beside the Jacobian: 8); over the whole batch, the model's own call (checked against the rules' y), the
    batch padded to whole chunks and its copy into the loop, and the result."""
    widest = max(s.widest, s.outputs)
    rows = chunk_rows(s.batch, s.inputs, widest)
    live = rows * min(PARALLEL_CHUNKS, math.ceil(s.batch / rows))
    carried = s.itemsize * live * widest * s.inputs * (4 if s.kind == "laplacian" else 8)
    whole = s.itemsize * (s.batch + rows) * (2 * s.floats + 2 * s.inputs)
    return Cost(_forward(s) * (1 + 1.5 * s.inputs), carried + whole + _result_bytes(s), 1, 0.3)


def _hutchinson(s: Shape) -> Cost:
    rows, passes = _tiled_rows(s, s.probes)
    per_output = 1 if s.kind == "divergence" else s.outputs
    return Cost(_forward(s) * 9 * s.probes * per_output, s.itemsize * rows * s.floats * 6 + _result_bytes(s),
                passes * per_output, _trace(passes * per_output, s, 0.3, 0.4) + _loops(passes * per_output, s))


#: the second-order methods, one ``SecondMethod`` row each (public as ``gradlib.SECOND_METHOD_TABLE``)
TABLE: tuple[SecondMethod, ...] = (
    SecondMethod("nested_tapes", "the TensorFlow guide's way: batch_jacobian of a batch_jacobian taken inside an outer "
                 "tape (pfor; a while_loop where pfor fails). The baseline", KINDS, True, False, False, False, _nested),
    SecondMethod("loop", "a loop over input dimensions (DeepXDE's way): each element of the gradient differentiated "
                 "again, one backward pass each", KINDS, True, False, False, False, _loop),
    SecondMethod("forward_over_reverse", "tf.autodiff.ForwardAccumulator over a GradientTape: one Hessian-vector "
                 "product per input element, the batch copied once per element (in chunks)", KINDS, True, False,
                 False, False, _forward_over_reverse),
    SecondMethod("forward_laplacian", "value, Jacobian and Laplacian (or Hessian diagonal) carried forward through "
                 "each Dense layer by its activation's rule (a Keras Sequential of Dense layers only)",
                 ("diagonal", "laplacian"), True, False, False, True, _forward_laplacian),
    SecondMethod("hutchinson", "an unbiased estimate from random +-1 probes v (v^T H v, or v^T J v for a divergence), "
                 "with its standard error; opt-in", ("laplacian", "divergence"), False, True, True, False,
                 _hutchinson),
)
#: every second-order method's name, ``auto`` first
SECOND_METHODS = ("auto",) + tuple(r.name for r in TABLE)
_BY_NAME = {r.name: r for r in TABLE}


def row(name: str) -> SecondMethod:
    return _BY_NAME[name]


def check_method(api: str, method: object, kind: str) -> None:
    names = ["auto"] + [r.name for r in TABLE if kind in r.kinds]
    if method not in names:
        raise ExpressionError(f"{api} got method={method!r}; choose one of {', '.join(names)}")


def choose(s: Shape, limits: Limits, exclude: tuple[str, ...] = ()) -> str:
    """``auto``'s choice: the exact, applicable row with the lowest estimated time (warm work and first-call
    tracing) within the limits, among those whose first call is estimated under ``FIRST_CALL_SECONDS`` when there
    are any (else the fastest, and the call says what its first call cost); refused, with the leanest row's
    numbers, when none fits. The rows named in ``exclude`` are not candidates."""
    quick, slow, nearest = [], [], None
    for r in TABLE:
        if r.opt_in or r.applicable(s) or r.name in exclude:
            continue
        c = r.cost(s)
        if c.bytes <= limits.max_bytes and c.unrolled <= limits.max_unrolled:
            (quick if c.trace_seconds <= FIRST_CALL_SECONDS else slow).append((c.seconds, r.name))
        elif nearest is None or c.bytes < nearest[1].bytes:
            nearest = (r.name, c)
    if quick or slow:
        return min(quick or slow)[1]
    name, c = nearest
    raise ExpressionError(
        f"no exact second-order method fits this request ({sizes(s)}): the leanest, {name}, needs {c.text()}, and the limits allow "
        f"{format_number(limits.max_bytes / 1e6, 2)} MB and {limits.max_unrolled:,} unrolled passes. "
        f"{smaller(s, lambda t: _any_fits(t, limits, exclude))}"
        + (", or method='hutchinson' for an estimate" if s.kind in row("hutchinson").kinds else ""))


def _any_fits(s: Shape, limits: Limits, exclude: tuple[str, ...]) -> bool:
    """Some exact row ``auto`` would consider fits ``s`` within the limits."""
    return any(_fits(r.name, limits)(s) for r in TABLE if not (r.opt_in or r.applicable(s) or r.name in exclude))


def sizes(s: Shape) -> str:
    """``4 samples x 3 outputs x 2 inputs``; without the samples for one function's Hessians (a batch of one)."""
    inner = f"{s.outputs:,} output{'s' if s.outputs != 1 else ''} x {s.inputs:,} input{'s' if s.inputs != 1 else ''}"
    return f"{s.batch:,} samples x {inner}" if s.batch > 1 else inner


def smaller(s: Shape, fits: Callable[[Shape], bool] | None = None) -> str:
    """What to make smaller: the batch of a per-sample request, to the largest that ``fits`` (the estimates are per
    sample, so a batch that fits here fits when called); fewer watched elements or outputs for one function's
    Hessians (``hessians``, ``evaluate(order=2)``: a batch of one, which no caller chose)."""
    if s.batch <= 1:
        return "Watch fewer elements or return fewer outputs"
    if fits is None:
        return "Use a smaller batch"
    low, high = 0, s.batch - 1          # the largest batch in 1 .. batch - 1 that fits (0: not even one sample)
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if fits(replace(s, batch=mid)) else (low, mid - 1)
    return f"Use a batch of at most {low:,}" if low else "Even one sample is over: return fewer outputs per sample"


def _fits(name: str, limits: Limits) -> Callable[[Shape], bool]:
    def fits(s: Shape) -> bool:
        c = row(name).cost(s)
        return c.bytes <= limits.max_bytes and c.unrolled <= limits.max_unrolled
    return fits


def check_budget(name: str, s: Shape, limits: Limits) -> None:
    """Refuse a named method whose estimate passes the limits, with both numbers; method='auto' is advised only when
    a method it would choose fits (else it too would be refused)."""
    c = row(name).cost(s)
    auto = ", or method='auto'" if _any_fits(s, limits, ()) else ""
    if c.bytes > limits.max_bytes:
        need, most = format_apart(c.bytes / 1e6, limits.max_bytes / 1e6)
        raise ExpressionError(f"method {name!r} would need ~{need} MB at its peak here ({sizes(s)}); at most {most} MB "
                              f"are allowed. {smaller(s, _fits(name, limits))}{auto}")
    if c.unrolled > limits.max_unrolled:
        raise ExpressionError(f"method {name!r} would write {c.unrolled:,} passes one by one into its graph here; at "
                              f"most {limits.max_unrolled:,} are allowed (each costs trace time). "
                              + ("Use method='auto'" if auto else f"{smaller(s, _fits(name, limits))}"))
