"""Every cost estimate that decides a refusal or ``auto``'s choice, pinned at two shapes (or more) against its
closed form.

First order: each row of ``gradlib._perelement._cost.COSTS`` (eager and compiled) and ``chunked``; second order:
each row of ``gradlib._second._orders.TABLE``. The closed forms are written out here, term by term, from the
models the modules' docstrings describe; the two shapes use unequal primes for m, n and the rest, so a dropped or
swapped factor (m for n, a missing itemsize, one pass too few) changes the number. A new row without a closed form
fails ``test_every_estimate_has_a_closed_form``.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from gradlib._perelement import _cost
from gradlib._perelement._cost import EAGER_OP_WORK as E, FORWARD_OP_FACTOR as F, Profile
from gradlib._second import _orders
from gradlib._second._orders import RATE, TILE_ROWS, Shape

P1 = Profile(m=7, n=11, itemsize=4, forward=101, elements=53, watched_work=37, watched_elements=29, operations=3)
P2 = Profile(m=113, n=5, itemsize=8, forward=1009, elements=431, watched_work=307, watched_elements=211,
             operations=13)


def _first(method: str, p: Profile, compiled: bool) -> tuple[float, float]:
    """(bytes, work): the closed forms, term by term."""
    m, n, size = p.m, p.n, p.itemsize
    pass_work, pass_elements = 2 * p.watched_work, 2 * p.watched_elements
    if method == "unstack":
        dispatch = 0 if compiled else (p.operations + m) * E
        return ((p.elements + (m if compiled else 1) * pass_elements + m + 2 * m * n) * size,
                p.forward + m * (pass_work + m + n + dispatch))
    if method == "naive":
        return (p.elements + 2 * m * n) * size, p.forward + m * (n + (0 if compiled else 2 * E))
    if method == "summed":
        return (p.elements + pass_elements + n) * size, p.forward + pass_work
    if method == "jacobian":   # m vectorized reverse passes over an m x m identity
        return (p.elements + m * (m + pass_elements) + 2 * m * n) * size, p.forward + m * (pass_work + m + m + n)
    if method == "forward" and compiled:   # n vectorized forward-mode passes over an n x n identity
        return (p.elements + n * (n + pass_elements) + 2 * m * n) * size, p.forward + n * (pass_work + n + m + n)
    if method == "forward":   # eager: a loop of n passes, each dispatching every operation's JVP
        return ((p.elements + pass_elements + n * n + 2 * m * n) * size,
                p.forward + n * (pass_work + m + n + p.operations * E * F))
    if method == "structured":
        return (p.elements + n * p.watched_elements + 2 * m * n) * size, p.forward + n * p.watched_work
    raise KeyError(method)


FIRST = [(method, p, compiled) for method in sorted(_cost.COSTS) for p in (P1, P2) for compiled in (False, True)]


def test_every_estimate_has_a_closed_form():
    for method in _cost.COSTS:
        _first(method, P1, True)
    assert {row.name for row in _orders.TABLE} == set(SECOND)


@pytest.mark.parametrize("method, p, compiled", FIRST,
                         ids=[f"{m}-{'P1' if p is P1 else 'P2'}-{'compiled' if c else 'eager'}" for m, p, c in FIRST])
def test_a_first_order_estimate_is_its_closed_form(method, p, compiled):
    cost = _cost.estimate(method, p, compiled)
    assert (cost.bytes, cost.work) == pytest.approx(_first(method, p, compiled), rel=1e-12)
    assert cost.method == method


@pytest.mark.parametrize("method, basis", [("jacobian", "m"), ("forward", "n")])
@pytest.mark.parametrize("p", [P1, P2], ids=["P1", "P2"])
def test_a_chunked_estimate_is_its_closed_form(method, basis, p):
    b = getattr(p, basis)
    fixed, per_pass = p.elements + 2 * p.m * p.n, b + 2 * p.watched_elements
    chunk = 3 if b > 3 else 1
    budget = (fixed + chunk * per_pass) * p.itemsize   # exactly room for `chunk` passes at once
    cost = _cost.chunked(method, p, budget)
    count = math.ceil(b / chunk)
    assert (cost.chunk, cost.bytes) == (chunk, budget)
    assert cost.work == pytest.approx(count * p.forward + b * (2 * p.watched_work + b + p.m + p.n), rel=1e-12)
    if chunk > 1:   # one byte less: one pass fewer at once
        assert _cost.chunked(method, p, budget - 1).chunk == chunk - 1
    assert _cost.chunked(method, p, (fixed + per_pass) * p.itemsize - 1) is None   # not one pass fits


# ---------------------------------------------------------------- second order

S1 = Shape(batch=3, inputs=5, outputs=2, kind="laplacian", itemsize=4, macs=17, floats=13, layers=2, tileable=True,
           dense=True, probes=7, widest=19)
S2 = Shape(batch=4_099, inputs=7, outputs=3, kind="hessian", itemsize=8, macs=23, floats=11, layers=5,
           tileable=False, dense=True, probes=9, widest=2)
S3 = Shape(batch=5, inputs=6, outputs=2, kind="divergence", itemsize=4, macs=29, floats=31, layers=3, tileable=True,
           dense=False, probes=5, widest=0)
#: tiled in several passes: 4,099 rows leave room for 3 copies in a pass of TILE_ROWS
S4 = Shape(batch=4_099, inputs=7, outputs=3, kind="laplacian", itemsize=8, macs=23, floats=11, layers=5,
           tileable=True, dense=True, probes=9, widest=2)
#: the forward Laplacian in chunks: 64 samples (64 x 50 x 256 floats, the last power of two within 2**20), 2 at a time,
#: 1,000 samples in 16 chunks (the last one padded)
S5 = Shape(batch=1_000, inputs=50, outputs=1, kind="laplacian", itemsize=4, macs=144_128, floats=769, layers=4,
           tileable=True, dense=True, probes=3, widest=256)


def _result(s: Shape) -> float:
    per = {"hessian": s.inputs ** 2, "diagonal": s.inputs, "laplacian": 1, "divergence": 1}[s.kind]
    return s.itemsize * s.batch * s.outputs * (per + s.inputs)


def _k(s: Shape) -> int:
    return s.inputs if s.kind == "divergence" else s.outputs * s.inputs


def _tiles(s: Shape, copies: int) -> tuple[int, int]:
    per = max(1, min(copies, TILE_ROWS // s.batch))
    return per * s.batch, math.ceil(copies / per)


def _nested(s):
    k = _k(s)
    return (s.batch * s.macs * (3 + 4 * k),
            s.itemsize * s.batch * s.floats * k * 3 + _result(s) * (s.inputs if s.kind != "divergence" else 1),
            0, 1.0 + 0.1 * s.layers)


def _loop(s):
    k = _k(s)
    return (s.batch * s.macs * (3 + 2.5 * k), s.itemsize * s.batch * s.floats * 40 + _result(s) + 60e6 + 0.2e6 * k * s.layers, k,
            0.3 + 0.03 * k * s.layers)


def _for(s):
    if not s.tileable:   # one input: its output x input pairs vectorized, 16,384 a pass, each one input's rows
        pairs = s.inputs * s.outputs
        per_pass = min(pairs, 16_384)
        u = -(-pairs // per_pass)
        return (s.batch * s.macs * 9 * pairs, s.itemsize * per_pass * s.floats * 18 + _result(s), u,
                0.3 + 0.4 * u * s.layers)
    rows, passes = _tiles(s, s.inputs)
    per_output = 1 if s.kind == "divergence" else s.outputs
    u = passes * per_output
    return (s.batch * s.macs * (4 if s.kind == "divergence" else 9) * s.inputs * per_output,
            s.itemsize * rows * s.floats * 18 + _result(s), u, 0.3 + 0.4 * u * s.layers)


def _laplacian(s):
    """In chunks of the largest power of two of samples whose carried Jacobian (rows x inputs x widest) holds in
    2**20 floats, two chunks at a time: 4 such arrays each (8 for a Hessian diagonal); over the whole batch plus one
    chunk of padding, the model's floats twice and the inputs twice."""
    widest = max(s.widest, s.outputs)
    rows = min(s.batch, 2 ** max(0, math.floor(math.log2(2 ** 20 / (s.inputs * widest)))))
    live = rows * min(2, -(-s.batch // rows))
    carried = s.itemsize * live * widest * s.inputs * (4 if s.kind == "laplacian" else 8)
    whole = s.itemsize * (s.batch + rows) * (2 * s.floats + 2 * s.inputs)
    return s.batch * s.macs * (1 + 1.5 * s.inputs), carried + whole + _result(s), 1, 0.3


def _hutchinson(s):
    rows, passes = _tiles(s, s.probes)
    per_output = 1 if s.kind == "divergence" else s.outputs
    u = passes * per_output
    return (s.batch * s.macs * 9 * s.probes * per_output, s.itemsize * rows * s.floats * 6 + _result(s), u,
            0.3 + 0.4 * u * s.layers)


SECOND = {"nested_tapes": _nested, "loop": _loop, "forward_over_reverse": _for, "forward_laplacian": _laplacian,
          "hutchinson": _hutchinson}


@pytest.mark.parametrize("name", sorted(SECOND))
@pytest.mark.parametrize("s", [S1, S2, S3, S4, S5], ids=["S1", "S2", "S3", "S4", "S5"])
def test_a_second_order_estimate_is_its_closed_form(name, s):
    cost = _orders.row(name).cost(s)
    flops, peak, unrolled, trace = SECOND[name](s)
    assert (cost.flops, cost.bytes, cost.unrolled) == pytest.approx((flops, peak, unrolled), rel=1e-12)
    assert cost.trace_seconds == pytest.approx(trace, rel=1e-12)
    assert cost.seconds == pytest.approx(flops / RATE + trace, rel=1e-12)


# ---------------------------------------------------------------- the function's own work (what max_flops refuses)

#: function -> (text of x, a vector of k elements (and A, 3 x k), the closed form of its work in k): every node counts
#: the elements it produces, plus its row's ``work`` per element of the tensors it is given; matmul 2 per product
WORK = {
    "clip": ("clip(x, 0.0, 1.0)", lambda k: k + 1 + 1 + k + 1 * (k + 1 + 1)),
    "softmax": ("softmax(x)", lambda k: k + k + 4 * k),
    "log_softmax": ("log_softmax(x)", lambda k: k + k + 4 * k),
    "logsumexp": ("logsumexp(x)", lambda k: k + 1 + 4 * k),
    "norm": ("norm(x)", lambda k: k + 1 + 1 * k),
    "cross_entropy": ("cross_entropy(x, x)", lambda k: k + k + 1 + 6 * 2 * k),
    "matmul": ("matmul(A, x)", lambda k: 3 * k + k + 3 + 2 * 3 * k),
}


def test_every_function_with_work_of_its_own_has_a_closed_form():
    from gradlib._language._operations import OPERATIONS
    assert {name for name, row in OPERATIONS.items() if row.work} | {"matmul"} == set(WORK)


@pytest.mark.parametrize("k", [2, 5])
@pytest.mark.parametrize("name", sorted(WORK))
def test_the_work_of_a_function_is_its_closed_form(name, k):
    from gradlib._language._syntax import parse
    text, closed = WORK[name]
    assert parse(text, {"x": (k,), "A": (3, k)}).flops == closed(k)


#: a while loop's first-call seconds (``_orders.LOOP_SECONDS``): 1 s per loop and pass written out (loop, the forward
#: methods), 20 s per loop once for nested_tapes (pfor converts it), and 3 s per loop for the held pass's three
#: passes through fn (``_orders.HELD_PASSES``, hunt 59); forward_laplacian takes Dense layers only
LOOP_EXTRA = {"nested_tapes": lambda s, u: (20.0 + 3.0) * s.loops, "loop": lambda s, u: (max(u, 1) + 3.0) * s.loops,
              "forward_over_reverse": lambda s, u: (max(u, 1) + 3.0) * s.loops,
              "hutchinson": lambda s, u: (max(u, 1) + 3.0) * s.loops, "forward_laplacian": lambda s, u: 0.0}


@pytest.mark.parametrize("name", sorted(SECOND))
@pytest.mark.parametrize("s", [S1, S2, S5], ids=["S1", "S2", "S5"])
def test_a_second_order_estimate_adds_its_while_loops_first_call_seconds(name, s):
    """Three loops in fn: each adds its closed form to the first call (mutants58: nested_tapes charged 1 s a loop
    where it is 20, loop charged one pass too few)."""
    looped = dataclasses.replace(s, loops=3)
    _, _, unrolled, trace = SECOND[name](looped)
    assert _orders.row(name).cost(looped).trace_seconds == pytest.approx(trace + LOOP_EXTRA[name](looped, unrolled),
                                                                         rel=1e-12)
