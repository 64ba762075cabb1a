"""The process around the computations: a bound on concurrent work, TensorFlow's retracing advice kept out of
gradlib's own calls, and (opt-in, for a long-lived shared server) TensorFlow's thread pools.

Importing gradlib changes no process-wide TensorFlow setting: the thread pools stay as the host program set
them until it calls ``configure_threads``, and the logger filter is on TensorFlow's logger only while a
gradlib computation runs, and drops only the retracing advice of the threads inside one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from typing import Iterator

from ._errors import GradlibError

__all__ = ["WAIT_SECONDS", "WORK_SLOTS", "configure_threads", "default_threads", "work_slot"]

#: how many gradient computations may run at once in this process (each may allocate a Jacobian)
WORK_SLOTS = int(os.environ.get("GRADLIB_WORK_SLOTS", "2"))
#: how long a request waits for a free slot before it is refused
WAIT_SECONDS = float(os.environ.get("GRADLIB_WAIT_SECONDS", "60"))
_slots = threading.BoundedSemaphore(WORK_SLOTS)
_held = threading.local()   # how deeply this thread already holds a slot (nested calls take no second one)


def default_threads() -> int:
    """``GRADLIB_TF_THREADS`` if set, else the machine's cores up to 4: what ``configure_threads()`` sets."""
    return int(os.environ.get("GRADLIB_TF_THREADS", str(min(os.cpu_count() or 2, 4))))


def configure_threads(threads: int | None = None) -> int:
    """Cap TensorFlow's two thread pools (intra-op and inter-op) for a long-lived server shared by many requests.

    Opt-in: importing gradlib leaves TensorFlow's threads as they are (0, TensorFlow's choice, unless the program
    set them). The dashboard calls this at its start; call it before TensorFlow's runtime starts (before the
    first computation of the process). Calling it again with the same number does nothing.

    Args:
        threads: threads per pool, at least 1; default ``default_threads()`` (``GRADLIB_TF_THREADS``, else
            the machine's cores up to 4).

    Returns:
        The number of threads now set for each pool.

    Raises:
        GradlibError: ``threads`` is not a positive whole number, or TensorFlow's runtime already started
            with other settings (they cannot change any more in this process).
    """
    threads = _check_threads(default_threads() if threads is None else threads)
    import tensorflow as tf   # here, not at import: gradlib.lint's work slot must not load TensorFlow

    now = (tf.config.threading.get_intra_op_parallelism_threads(), tf.config.threading.get_inter_op_parallelism_threads())
    if now == (threads, threads):
        return threads
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError:
        raise GradlibError(f"configure_threads: TensorFlow's runtime already started with {now[0]} intra-op and "
                           f"{now[1]} inter-op threads, which cannot change in this process any more; call "
                           f"gradlib.configure_threads({threads}) before the first computation") from None
    return threads


def _check_threads(threads: object) -> int:
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise GradlibError(f"configure_threads: threads must be a whole number of at least 1, got {threads!r}")
    return threads


class _OwnRetracingAdvice(logging.Filter):
    """TensorFlow's "triggered tf.function retracing" advice, from a thread inside a gradlib computation.

    Each of gradlib's cached functions is traced once by design, so the advice is noise there; a user's own
    retracing (another thread, or outside gradlib's calls) still reaches the logger.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not (getattr(_held, "depth", 0) and "triggered tf.function retracing" in record.getMessage())


_FILTER = _OwnRetracingAdvice()
_filter_lock = threading.Lock()
_filter_users = 0   # computations running now; the filter is on TensorFlow's logger while this is above 0


def _use_filter(delta: int) -> None:
    global _filter_users
    with _filter_lock:
        _filter_users += delta
        if delta > 0 and _filter_users == 1:
            logging.getLogger("tensorflow").addFilter(_FILTER)   # tf.get_logger(), without importing TF
        elif delta < 0 and _filter_users == 0:
            logging.getLogger("tensorflow").removeFilter(_FILTER)


@contextlib.contextmanager
def work_slot() -> Iterator[None]:
    """Hold one of ``WORK_SLOTS`` while computing; refuse with a clear message if none frees up in time.

    Re-entrant per thread: ``compare`` holds a slot while each ``run`` inside it nests without taking another.
    While held, TensorFlow's retracing advice from this thread is dropped (``_OwnRetracingAdvice``).
    """
    depth = getattr(_held, "depth", 0)
    if depth == 0 and not _slots.acquire(timeout=WAIT_SECONDS):
        raise GradlibError(f"the server is busy: {WORK_SLOTS} computations are running; try again in a moment")
    _held.depth = depth + 1
    if depth == 0:
        _use_filter(+1)
    try:
        yield
    finally:
        _held.depth = depth
        if depth == 0:
            _use_filter(-1)
            _slots.release()
