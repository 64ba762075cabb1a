"""Which method runs within the limits: refuse an explicit method over them, or pick one for ``auto``.

Every decision reads the estimates of ``gradlib._perelement._cost`` and the ``Limits`` of the request, before anything
is allocated. A method is ``(name, compiled)``: compiled ``forward`` is vectorized, eager ``forward`` a loop.

>>> from gradlib._perelement._cost import Profile
>>> from gradlib._foundations._limits import Limits
>>> p = Profile(m=22_500, n=1, itemsize=4, forward=45_302, elements=45_302, watched_work=22_501,
...             watched_elements=22_501, operations=2)
>>> plan_auto(p, usual="jacobian", compiled=True, compilable=True, limits=Limits())
('forward', True, 0)
"""

from __future__ import annotations

from . import _cost, _methods
from .._foundations._errors import ExpressionError
from .._foundations._format import format_number
from .._foundations._limits import Limits

__all__ = ["NO_METHOD_FITS", "check_method", "eager_passes", "plan_auto", "plan_repair"]

NO_METHOD_FITS = "Watch fewer inputs, reduce the output (for example with sum or mean) or use smaller inputs"


def eager_passes(method: str, m: int, n: int, compiled: bool) -> int:
    """Passes of an eager Python loop (0 for a vectorized or compiled method)."""
    passes = _methods.TABLE[method].passes if method in _methods.TABLE else ""
    return 0 if compiled else {"outputs": m, "inputs": n}.get(passes, 0)


def check_method(method: str, profile: _cost.Profile, compiled: bool, limits: Limits) -> str:
    """Refuse an eager loop too long, or a method whose memory or work exceeds ``limits``, before it runs.

    Eager ``unstack`` costs more than linear time in the outputs (each backward pass goes through the
    m-wide unstack), so a few thousand outputs would hold the process for minutes.
    """
    passes = eager_passes(method, profile.m, profile.n, compiled)
    if passes > limits.max_eager_passes:
        what = {"outputs": "output element", "inputs": "watched element"}[_methods.TABLE[method].passes]
        vectorized = _fits("jacobian", compiled, profile, limits) or _fits("jacobian", True, profile, limits)
        advice = ("Use method='jacobian' or 'auto', which vectorize the passes" if vectorized
                  else _advice(profile, limits, method))
        raise ExpressionError(f"method {method!r} runs one eager pass per {what}: {passes:,} here, and at most "
                              f"{limits.max_eager_passes:,} are allowed. {advice}")
    cost = _cost.estimate(method, profile, compiled)
    if not _cost.fits(cost, limits):
        raise _cost.refusal(cost, limits, _advice(profile, limits, method))
    return method


def plan_auto(profile: _cost.Profile, usual: str, compiled: bool, compilable: bool,
              limits: Limits, *, reverse_only: bool = False) -> tuple[str, bool, int]:
    """``auto``'s ``(method, compiled, chunk)``: its ``usual`` choice if that fits ``limits``, else the first that does.

    When no method fits at once, a vectorized one may still run in chunks of passes (``chunk`` > 0) whose
    memory fits, if the work of them all does: compiled only (eagerly, each chunk traced anew held about
    2.4 times its estimate, measured), so only when ``compilable``. ``compiled``: whether the usual choice
    runs compiled; ``compilable``: whether this problem may run compiled at all. ``reverse_only``: forward
    mode is not a candidate (fn defines its own gradient, which only reverse mode follows).
    """
    if reverse_only and usual == "forward":
        usual = "jacobian" if compiled else "unstack"
    candidates = [c for c in _candidates(usual, compiled, compilable) if not (reverse_only and c[0] == "forward")]
    for candidate in candidates:
        if _fits(*candidate, profile, limits):
            return (*candidate, 0)
    chunkable = ("jacobian",) if reverse_only else ("jacobian", "forward")
    for method in sorted(chunkable, key=lambda k: profile.m if k == "jacobian" else profile.n):
        cost = _cost.chunked(method, profile, limits.max_bytes) if compilable else None
        if cost is not None and _cost.fits(cost, limits):
            return method, True, cost.chunk
    allowed = [(k, g) for k, g in candidates if eager_passes(k, profile.m, profile.n, g) <= limits.max_eager_passes]
    cheapest = min((_cost.estimate(k, profile, g) for k, g in allowed), key=lambda c: _over(c, limits))
    raise _cost.refusal(cheapest, limits, NO_METHOD_FITS,
                        who=f"no method fits the limits: the cheapest, {cheapest.method!r},")


def plan_repair(chosen: str, compiled: bool, profile: _cost.Profile, rows: int, compilable: bool,
                limits: Limits) -> tuple[str, int, str]:
    """The other mode for repairing ``rows`` NaN-poisoned rows: ``(method, chunk, why not)``.

    ``chunk`` > 0 runs it compiled, in chunks of passes that fit the memory limit (reverse mode: the
    poisoned rows only); ``why not`` is "" when it may run.
    """
    other = "forward" if chosen != "forward" else "jacobian"
    passes = eager_passes(other, profile.m, profile.n, compiled)
    if passes > limits.max_eager_passes:
        return other, 0, f"{other!r}, would run {passes:,} eager passes (at most {limits.max_eager_passes:,})"
    cost = _cost.estimate(other, profile, compiled)
    if _cost.fits(cost, limits):
        return other, 0, ""
    passes = rows if other == "jacobian" else None
    chunks = _cost.chunked(other, profile, limits.max_bytes, passes) if compilable else None
    if chunks is not None and _cost.fits(chunks, limits):
        return other, chunks.chunk, ""
    return other, 0, str(_cost.refusal(cost, limits, "")).replace("method ", "", 1)


def _candidates(usual: str, compiled: bool, compilable: bool) -> list[tuple[str, bool]]:
    """The correct methods ``auto`` may run, as ``(method, compiled)`` in order of preference: its usual first."""
    loops = [("unstack", False), ("forward", False)]   # little memory, and at most max_eager_passes passes
    if compiled:
        return [(usual, True), ("forward" if usual == "jacobian" else "jacobian", True)] + loops
    others = [("jacobian", False)] + [loop for loop in loops if loop[0] != usual]
    return [(usual, False)] + others + ([("forward", True)] if compilable else [])


def _fits(method: str, compiled: bool, profile: _cost.Profile, limits: Limits) -> bool:
    return (eager_passes(method, profile.m, profile.n, compiled) <= limits.max_eager_passes
            and _cost.fits(_cost.estimate(method, profile, compiled), limits))


def _over(cost: _cost.Cost, limits: Limits) -> float:
    return max(cost.bytes / limits.max_bytes, cost.work / limits.max_flops)


def _advice(profile: _cost.Profile, limits: Limits, method: str) -> str:
    """What to do instead of ``method``: a method that fits, if there is one."""
    for other, compiled in (("forward", True), ("jacobian", True), ("unstack", False)):
        if other != method and _fits(other, compiled, profile, limits):
            cost = _cost.estimate(other, profile, compiled)
            return (f"Use method={other!r} (about {_cost.size_text(cost.bytes)}, {format_number(cost.work, 2)} operations) "
                    "or method='auto', which takes a method within the limits")
    for other in ("jacobian", "forward"):
        cost = _cost.chunked(other, profile, limits.max_bytes)
        if cost is not None and _cost.fits(cost, limits):
            return f"Use method='auto', which can run {other!r} within the limits: {cost.detail}"
    return NO_METHOD_FITS
