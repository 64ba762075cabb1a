"""When the app shows that it is working: only for work expected to take over ``SLOW_SECONDS``.

A status box on every load, even when the answer comes from the cache in milliseconds, teaches a visitor to ignore
it; none at all leaves them before a 16 s first computation. A page names its computations with their expected
seconds (``EXPECTED``: measured on this machine, for a computation the process has not run within the cache's
lifetime) and asks ``expected`` what is left: a computation this process finished less than ``FRESH_SECONDS`` ago
is in the cache (``dashboard.services`` keeps it an hour) and costs nothing.

>>> expected(["unknown"], done={}, now=0.0)
0.0
"""

from __future__ import annotations

import time
from typing import Iterable, Mapping

__all__ = ["EXPECTED", "FRESH_SECONDS", "SLOW_SECONDS", "expected", "finished", "forget", "is_slow"]

#: work expected to take longer than this shows a progress indicator naming what runs; quicker work shows nothing
SLOW_SECONDS = 2.0
#: a computation finished this recently is still in its cache (``services.TTL`` is one hour): keep a margin
FRESH_SECONDS = 55 * 60.0
#: a service's expected seconds on a cache miss, measured on the 2-core shared machine (load 7): a fresh process,
#: TensorFlow imported, the Second order page's three in its order took 19.2 s (the first pays TensorFlow's and
#: Keras' warm-up), 8.5 s and 1.9 s; run again, 1.5 s, 3.4 s and 1.3 s. The larger of each pair is kept.
EXPECTED = {"second_order_seed": 19.0, "second_order_mistakes": 8.5, "second_order_poisson": 1.9}

#: service name -> when this process last finished it (``time.monotonic``)
_DONE: dict[str, float] = {}


def expected(names: Iterable[str], done: Mapping[str, float] | None = None, now: float | None = None) -> float:
    """The seconds the services ``names`` are expected to take now: ``EXPECTED`` for each not finished within
    ``FRESH_SECONDS`` (by ``done``, default this process's record), nothing for one in the cache."""
    done = _DONE if done is None else done
    now = time.monotonic() if now is None else now
    return sum(EXPECTED.get(name, 0.0) for name in names if now - done.get(name, -FRESH_SECONDS * 2) > FRESH_SECONDS)


def is_slow(names: Iterable[str]) -> bool:
    """True when the services ``names`` are expected to take over ``SLOW_SECONDS`` together."""
    return expected(names) > SLOW_SECONDS


def finished(name: str) -> None:
    """Record that this process computed the service ``name`` just now (its answer is in the cache)."""
    _DONE[name] = time.monotonic()


def forget() -> None:
    """Forget what this process computed (after the services' caches are cleared: everything is expected anew)."""
    _DONE.clear()
