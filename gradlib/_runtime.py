"""Process-wide settings for a long-lived, shared server: TensorFlow threads, and a bound on concurrent work."""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Iterator

import tensorflow as tf

from ._errors import GradlibError

__all__ = ["WAIT_SECONDS", "WORK_SLOTS", "work_slot"]

#: how many gradient computations may run at once in this process (each may allocate a Jacobian)
WORK_SLOTS = int(os.environ.get("GRADLIB_WORK_SLOTS", "2"))
#: how long a request waits for a free slot before it is refused
WAIT_SECONDS = float(os.environ.get("GRADLIB_WAIT_SECONDS", "60"))
_slots = threading.BoundedSemaphore(WORK_SLOTS)
_held = threading.local()   # how deeply this thread already holds a slot (nested calls take no second one)


def _configure_threads() -> None:
    """Set TensorFlow's thread pools once, before its runtime starts (later calls would raise)."""
    threads = int(os.environ.get("GRADLIB_TF_THREADS", str(min(os.cpu_count() or 2, 4))))
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError:
        pass  # TensorFlow already started (the host application configured it): keep its settings


_configure_threads()


@contextlib.contextmanager
def work_slot() -> Iterator[None]:
    """Hold one of ``WORK_SLOTS`` while computing; refuse with a clear message if none frees up in time.

    Re-entrant per thread: ``compare`` holds a slot while each ``run`` inside it nests without taking another.
    """
    depth = getattr(_held, "depth", 0)
    if depth == 0 and not _slots.acquire(timeout=WAIT_SECONDS):
        raise GradlibError(f"the server is busy: {WORK_SLOTS} computations are running; try again in a moment")
    _held.depth = depth + 1
    try:
        yield
    finally:
        _held.depth = depth
        if depth == 0:
            _slots.release()
