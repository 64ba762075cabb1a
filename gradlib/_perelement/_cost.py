"""What each gradient method costs before it runs: its peak memory and its work, one function per method.

Every method differentiates the same function, but they allocate very differently. For ``m`` outputs and
``n`` watched elements:

* ``jacobian`` vectorizes ``m`` reverse passes at once (pfor): an ``m x m`` identity of cotangents, and
  every tensor of the backward pass ``m`` times over;
* ``forward`` (compiled) vectorizes ``n`` forward-mode passes the same way: ``n x n`` tangents, and every
  tangent of the function ``n`` times over;
* ``unstack``, ``naive`` and eager ``forward`` run one pass at a time, in a Python loop: little memory, but
  each pass dispatches every operation of the function from Python, which costs far more than small
  tensors' arithmetic (``EAGER_OP_WORK``, ``FORWARD_OP_FACTOR``). Eager ``unstack`` also differentiates the
  ``m``-way unstack in every pass, one operation per output: its time grows as ``m**2``;
* ``summed`` is one reverse pass;
* ``structured`` (function text, or a callable's traced ops) propagates an ``(size, n)`` Jacobian through every node: ``n`` times
  the watched part's work, and no pass at all.

The estimates count elements of the function's own tensors (from its checked syntax tree; see
``Profile.of_program``): ``elements`` held by the forward pass, and for the part that depends on the
watched inputs (the only part a gradient flows through) its ``watched_elements`` and ``watched_work``.
A backward or forward-mode pass is counted as twice that part. Measured on this machine, the growth of
peak RSS came out between 0.4 and 0.8 times the estimate (it errs high): ``a*b*s`` with m = 22,500,
jacobian, 4.0 GB for 6.1 GB estimated; ``sum(tanh(a*x))`` with n = 1,000, forward, 1.2 GB for 1.5 GB;
``tanh(a*x)`` with m = 10,000, jacobian, 0.87 GB for 2.0 GB; ``sum(tanh(A*x), axis=1)`` with A 300 x 300,
jacobian in float64, 457 MB for 871 MB, and in chunks of 33 passes 58 MB for 99 MB. Work is in
floating-point operations, with each eager operation dispatched from Python counted as ``EAGER_OP_WORK``.
``chunked`` is the cost of a vectorized method run a chunk of passes at a time, for ``auto`` when nothing
fits at once.

For a Python callable (``per_element_gradients``) gradlib cannot see the intermediates: its profile
counts only the inputs and outputs, so the estimate is a lower bound.

>>> p = Profile(m=22_500, n=1, itemsize=4, forward=45_302, elements=45_302, watched_work=22_501,
...             watched_elements=22_501, operations=2)
>>> f"{jacobian(p, compiled=True).bytes:.3g}", f"{forward(p, compiled=True).bytes:.3g}"
('6.08e+09', '5.41e+05')
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, Iterable

from .._foundations._errors import ExpressionError
from .._foundations._format import format_apart, format_number
from .._foundations._limits import Limits

__all__ = ["COSTS", "Cost", "EAGER_OP_WORK", "Profile", "chunked", "estimate", "fits", "refusal", "size_text",
           "structured"]

#: one eager TensorFlow operation dispatched from Python, in floating-point operations: its dispatch time
#: against the rate of large element-wise work (the measurements: docs/performance.md, "Where the constants
#: come from")
EAGER_OP_WORK = 50_000
#: an eager forward-mode pass dispatches each operation's JVP through a tf.function: one operation costs about
#: this many reverse-mode dispatches (docs/performance.md, "Where the constants come from")
FORWARD_OP_FACTOR = 20


@dataclass(frozen=True)
class Profile:
    """What the cost of differentiating one function depends on.

    Args:
        m: output elements. n: watched floating-point elements. itemsize: bytes per element.
        forward: work of one forward pass. elements: elements the forward pass holds (the tape keeps them).
        watched_work, watched_elements: the same for the part of the function that depends on the
            watched inputs: one backward or forward-mode pass costs about twice that.
        operations: TensorFlow operations in that part (what an eager pass dispatches from Python).
        known: False when the intermediates are unknown (a callable): the estimate is then a lower bound.
    """

    m: int
    n: int
    itemsize: int
    forward: float
    elements: float
    watched_work: float
    watched_elements: float
    operations: int
    known: bool = True

    @classmethod
    def of_program(cls, program, watched: Iterable[str], n: int, itemsize: int) -> Profile:
        """The profile of a checked ``Program`` (``gradlib._language._syntax``) with the inputs ``watched``."""
        names = frozenset(watched)
        grad = [p for p in program.parts if p.names & names]
        return cls(m=math.prod(program.shape), n=n, itemsize=itemsize, forward=program.flops,
                   elements=sum(p.size for p in program.parts), watched_work=sum(p.work for p in grad),
                   watched_elements=sum(p.size for p in grad), operations=max(len(grad), 1))

    @classmethod
    def of_callable(cls, m: int, n: int, itemsize: int) -> Profile:
        """A callable's profile: only its inputs and outputs are known (a lower bound)."""
        return cls(m=m, n=n, itemsize=itemsize, forward=m + n, elements=m + n, watched_work=m + n,
                   watched_elements=m + n, operations=1, known=False)

    @property
    def pass_work(self) -> float:
        """Work of one backward (or forward-mode) pass."""
        return 2.0 * self.watched_work

    @property
    def pass_elements(self) -> float:
        """Elements one backward (or forward-mode) pass allocates."""
        return 2.0 * self.watched_elements


@dataclass(frozen=True)
class Cost:
    """One method's estimated peak memory (bytes) and work (floating-point operations), and why."""

    method: str
    bytes: float
    work: float
    detail: str
    chunk: int = 0    # vectorized passes per chunk, when the method runs in chunks (0: all at once)


def unstack(p: Profile, compiled: bool) -> Cost:
    """``m`` reverse passes, one at a time; each also rebuilds the ``m``-wide gradient of the unstack."""
    dispatch = 0 if compiled else (p.operations + p.m) * EAGER_OP_WORK
    work = p.forward + p.m * (p.pass_work + p.m + p.n + dispatch)
    concurrent = p.m if compiled else 1   # compiled, its m unrolled passes may run side by side
    memory = p.elements + concurrent * p.pass_elements + p.m + 2 * p.m * p.n
    return Cost("unstack", memory * p.itemsize, work, _loop_detail(p.m, "reverse", p.operations + p.m, compiled))


def naive(p: Profile, compiled: bool) -> Cost:
    """``m`` passes that each find no path from ``y_i`` to the inputs and return zeros."""
    work = p.forward + p.m * (p.n + (0 if compiled else 2 * EAGER_OP_WORK))
    return Cost("naive", (p.elements + 2 * p.m * p.n) * p.itemsize, work, f"{p.m:,} eager passes")


def summed(p: Profile, compiled: bool) -> Cost:
    """One reverse pass."""
    return Cost("summed", (p.elements + p.pass_elements + p.n) * p.itemsize, p.forward + p.pass_work,
                "one reverse pass")


def jacobian(p: Profile, compiled: bool) -> Cost:
    """``m`` reverse passes vectorized: an ``m x m`` identity, and every backward tensor ``m`` times over."""
    return _vectorized("jacobian", p, p.m, p.m, "reverse")


def forward(p: Profile, compiled: bool) -> Cost:
    """Compiled: ``n`` forward-mode passes vectorized. Eager: a Python loop of ``n`` passes."""
    if compiled:
        return _vectorized("forward", p, p.n, p.n, "forward-mode")
    dispatch = p.operations * EAGER_OP_WORK * FORWARD_OP_FACTOR
    work = p.forward + p.n * (p.pass_work + p.m + p.n + dispatch)
    memory = p.elements + p.pass_elements + p.n * p.n + 2 * p.m * p.n
    return Cost("forward", memory * p.itemsize, work, _loop_detail(p.n, "forward-mode", p.operations, False))


def structured(p: Profile, compiled: bool) -> Cost:
    """The Jacobian propagated through a typed function (``gradlib._perelement._structured``): every node that
    depends on the watched inputs holds a ``(size, n)`` Jacobian and does ``n`` times its own work on it (an
    upper bound: an input's identity block costs nothing to multiply). A callable's profile comes from one trace of it
    (``gradlib._perelement._opgraph.read``), which shows its real intermediates."""
    work = p.forward + p.n * p.watched_work
    memory = p.elements + p.n * p.watched_elements + 2 * p.m * p.n
    detail = f"the Jacobian propagated through the function's {p.operations:,} operations, {p.n:,} columns each"
    return Cost("structured", memory * p.itemsize, work, detail)


def _vectorized(method: str, p: Profile, batch: int, basis: int, mode: str) -> Cost:
    work = p.forward + batch * (p.pass_work + basis + p.m + p.n)
    memory = p.elements + batch * (basis + p.pass_elements) + 2 * p.m * p.n
    detail = (f"{batch:,} {mode} passes vectorized: a {batch:,} x {basis:,} identity and {batch:,} copies of "
              f"the pass's {_count(p.pass_elements)} values")
    return Cost(method, memory * p.itemsize, work, detail)


def chunked(method: str, p: Profile, max_bytes: float, passes: int | None = None) -> Cost | None:
    """``jacobian`` or compiled ``forward`` in chunks of as many vectorized passes as fit ``max_bytes``.

    Each chunk repeats the forward pass; ``None`` when not even one pass at a time fits. ``passes``: only
    that many of the rows (or columns), such as the NaN-poisoned rows of a repair.

    >>> p = Profile(m=22_500, n=1, itemsize=4, forward=45_302, elements=45_302, watched_work=22_501,
    ...             watched_elements=22_501, operations=2)
    >>> chunked("jacobian", p, 2e9).detail
    '22,500 reverse passes vectorized in 4 chunks of 7,405'
    """
    basis, mode = (p.m, "reverse") if method == "jacobian" else (p.n, "forward-mode")
    total = basis if passes is None else passes
    fixed, per_pass = p.elements + 2 * p.m * p.n, basis + p.pass_elements
    chunk = min(int((max_bytes / p.itemsize - fixed) // per_pass), total)
    if chunk < 1:
        return None
    count = math.ceil(total / chunk)
    work = count * p.forward + total * (p.pass_work + basis + p.m + p.n)
    detail = f"{total:,} {mode} passes vectorized in {count:,} chunks of {chunk:,}"
    return Cost(method, (fixed + chunk * per_pass) * p.itemsize, work, detail, chunk)


def _loop_detail(passes: int, mode: str, operations: int, compiled: bool) -> str:
    if compiled:
        return f"{passes:,} {mode} passes"
    return f"{passes:,} eager {mode} passes of {operations:,} operations each"


#: method -> its cost function ``(profile, compiled) -> Cost``
COSTS: dict[str, Callable[[Profile, bool], Cost]] = {
    "unstack": unstack, "naive": naive, "summed": summed, "jacobian": jacobian, "forward": forward,
    "structured": structured}


@functools.lru_cache(maxsize=1024)
def estimate(method: str, profile: Profile, compiled: bool) -> Cost:
    """The cost of running ``method`` (not ``auto``) on ``profile``, compiled or eagerly.

    Made once per method, profile and mode (all three frozen): a warm ``evaluate`` asks for three estimates, which
    took about 40 us of its 1 ms formatting the same detail text again (docs/performance.md, issue 26)."""
    return COSTS[method](profile, compiled)


def fits(cost: Cost, limits: Limits) -> bool:
    """Whether ``cost`` is within ``limits``' memory and work bounds."""
    return cost.bytes <= limits.max_bytes and cost.work <= limits.max_flops


def refusal(cost: Cost, limits: Limits, advice: str, who: str = "") -> ExpressionError:
    """The error for a method over its limits: ``who`` (the method) would need the estimate, the limit, ``advice``.

    >>> p = Profile.of_callable(m=3, n=2, itemsize=4)
    >>> str(refusal(summed(p, True), Limits(max_bytes=10), "Try less."))
    "method 'summed' would need about 68 bytes of memory at its peak (one reverse pass); at most 10 bytes are allowed. Try less."
    """
    if cost.bytes > limits.max_bytes:
        need, most = format_apart(cost.bytes, limits.max_bytes, size_text)
        what = f"about {need} of memory at its peak ({cost.detail}); at most {most} are allowed"
    else:
        need, most = format_apart(cost.work, float(limits.max_flops), format_number)
        what = (f"about {need} floating-point operations ({cost.detail}); at most {most} are allowed for one "
                "request")
    return ExpressionError(f"{who or f'method {cost.method!r}'} would need {what}. {advice}".rstrip())


def size_text(nbytes: float, digits: int = 2) -> str:
    """Bytes for people: ``size_text(6.07e9)`` is ``'6.1 GB'``; ``digits`` significant digits at the least."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            if nbytes < 10 * scale or digits > 2:
                return f"{format_number(nbytes / scale, max(digits, 2))} {unit}"
            return f"{format_number(round(nbytes / scale))} {unit}"
    return f"{format_number(round(nbytes))} bytes"


def _count(elements: float) -> str:
    return format_number(round(elements))
