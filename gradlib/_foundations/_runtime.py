"""The process around the computations: a bound on concurrent work, TensorFlow's retracing advice kept out of
gradlib's own calls, (opt-in, for a long-lived shared server) TensorFlow's thread pools, and the warning when an
API that returns NumPy runs under a recording tape (``returns_numpy``, at the end).

Importing gradlib changes no process-wide TensorFlow setting: the thread pools stay as the host program set
them until it calls ``configure_threads``, and the logger filter is on TensorFlow's logger only while a
gradlib computation runs, and drops only the retracing advice of the threads inside one.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import os
import queue
import sys
import threading
import warnings
from typing import Any, Callable, Iterator, TypeVar

from ._errors import GradlibError, NotDifferentiableWarning

__all__ = ["WAIT_SECONDS", "WORK_SLOTS", "configure_threads", "default_threads", "executing_eagerly", "inside", "quiet",
           "recording", "returns_numpy", "tracing", "work_slot", "warning_text"]

#: how many gradient computations may run at once in this process (each may allocate a Jacobian)
WORK_SLOTS = int(os.environ.get("GRADLIB_WORK_SLOTS", "2"))
#: how long a request waits for a free slot before it is refused
WAIT_SECONDS = float(os.environ.get("GRADLIB_WAIT_SECONDS", "60"))


class _Slots:
    """``threading.BoundedSemaphore(count)``'s ``acquire`` and ``release`` on a queue of tokens written in C
    (``queue.SimpleQueue``): one Python call each, where the semaphore's ``Condition`` made eight a work slot."""

    def __init__(self, count: int) -> None:
        self._count, self._tokens = count, queue.SimpleQueue()
        for _ in range(count):
            self._tokens.put(None)

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        try:
            self._tokens.get(blocking, timeout)
        except queue.Empty:
            return False
        return True

    def release(self) -> None:
        if self._tokens.qsize() >= self._count:
            raise ValueError("Semaphore released too many times")
        self._tokens.put(None)


_slots = _Slots(WORK_SLOTS)
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


#: tf.get_logger() without importing TF: ``logging.getLogger`` gives one object per name for the process's life
_TF_LOGGER = logging.getLogger("tensorflow")


def _use_filter(delta: int) -> None:
    global _filter_users
    with _filter_lock:
        _filter_users += delta
        if delta > 0 and _filter_users == 1:
            _TF_LOGGER.addFilter(_FILTER)
        elif delta < 0 and _filter_users == 0:
            _TF_LOGGER.removeFilter(_FILTER)


def work_slot(traces: bool = True) -> "_Slot":
    """Hold one of ``WORK_SLOTS`` while computing; refuse with a clear message if none frees up in time.

    Re-entrant per thread: ``compare`` holds a slot while each ``run`` inside it nests without taking another.
    While held, TensorFlow's retracing advice from this thread is dropped (``_OwnRetracingAdvice``). ``traces=False``:
    the work only runs functions already traced (a warm call's settled graph), so no advice can come, and the filter
    is not put on the logger (four Python calls fewer); nothing inside such a slot may take a nested one and trace.
    """
    return _Slot() if traces else _RunOnlySlot()


class _Slot:
    """``work_slot``'s context manager: a class, not a generator (``contextlib.contextmanager`` cost 1 us of each warm
    call, where a warm ``per_element_gradients`` on the tall MLP spends 0.2 ms around its graph)."""

    __slots__ = ("depth",)
    traces = True

    def __enter__(self) -> None:
        self.depth = depth = getattr(_held, "depth", 0)
        if depth == 0 and not _slots.acquire(timeout=WAIT_SECONDS):
            raise GradlibError(f"the server is busy: {WORK_SLOTS} computations are running; try again in a moment")
        _held.depth = depth + 1
        if depth == 0 and self.traces:
            _use_filter(+1)

    def __exit__(self, *exc: object) -> None:
        depth = self.depth
        _held.depth = depth
        if depth == 0:
            if self.traces:
                _use_filter(-1)
            _slots.release()


class _RunOnlySlot(_Slot):
    """``work_slot(traces=False)``: the slot without the logger's filter (no ``__init__``: a Python call fewer)."""

    __slots__ = ()
    traces = False


# ---- A NumPy answer under a recording tape -------------------------------------------------------------------------
# gradlib's inspection APIs (``evaluate``, ``per_element_gradients``, ``per_sample_hessians``, ``laplacian`` ...)
# return NumPy arrays. Inside a user's ``tf.GradientTape`` a NumPy array is a constant: the tape records nothing
# from it, and ``tape.gradient(loss, model.trainable_variables)`` of a loss built on it is a list of ``None``
# (silently, the linter's GT002 for gradlib itself). Each such API is wrapped in ``returns_numpy``: called while
# a tape (or a ``tf.autodiff.ForwardAccumulator``) is recording on this thread, it warns once per call site with
# this class, naming the API and, where one exists, the tensor API to use instead (``gradlib.pde``).
#
# Only the outermost gradlib call warns: an API that calls another, or runs its own tapes, does not warn again,
# and a tape paused by ``tape.stop_recording()`` does not record, so it does not warn either.
#
# The test for "a tape is recording" is TensorFlow's own ``could_possibly_record()``
# (``tensorflow/python/eager/record.py`` since TensorFlow 2.13, ``tape.py`` before), reached defensively: if
# neither exists, gradlib does not warn rather than fail.

F = TypeVar("F", bound=Callable[..., Any])
#: how many gradlib APIs are running in this context (only the outermost warns)
_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("gradlib_api_depth", default=0)
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _could_possibly_record() -> Callable[[], bool] | None:
    """TensorFlow's ``could_possibly_record``, wherever this version keeps it (``None`` if nowhere). Read from the
    modules TensorFlow has loaded (``import tensorflow`` loads both), never imported here: a gradlib call imports
    nothing (tests/language/test_sandbox.py)."""
    for module in ("tensorflow.python.eager.record", "tensorflow.python.eager.tape"):
        found = getattr(sys.modules.get(module), "could_possibly_record", None)
        if callable(found):
            return found
    return None


def recording() -> bool:
    """Whether a gradient tape or forward accumulator is recording on this thread (``False`` if unknown).

    >>> import tensorflow as tf
    >>> with tf.GradientTape() as tape:
    ...     inside_tape = recording()
    ...     with tape.stop_recording():
    ...         paused = recording()
    >>> recording(), inside_tape, paused
    (False, True, False)
    """
    if "tensorflow" not in sys.modules:   # no TensorFlow loaded: no tape can be recording
        return False
    probe = _could_possibly_record()
    try:
        return bool(probe()) if probe is not None else False
    except Exception:   # a TensorFlow whose internals changed: no warning rather than a failure
        return False


def tracing() -> bool:
    """Whether this thread is tracing a ``tf.function`` (building a graph: tensors there have no values).

    >>> import tensorflow as tf
    >>> tracing(), bool(tf.function(lambda: tf.constant(tracing()))())
    (False, True)
    """
    return not executing_eagerly()


def executing_eagerly() -> bool:
    """``tf.executing_eagerly()`` (``True`` with no TensorFlow loaded), in one Python call where TensorFlow's makes
    three: the flag that ``Context.executing_eagerly`` returns, read from the process's context; TensorFlow's own
    function where that cannot be read (no context made yet, another TensorFlow's internals).

    >>> import tensorflow as tf
    >>> executing_eagerly(), bool(tf.function(lambda: tf.constant(executing_eagerly()))())
    (True, False)
    """
    try:
        return sys.modules["tensorflow.python.eager.context"]._context._thread_local_data.is_eager
    except (KeyError, AttributeError):
        tf = sys.modules.get("tensorflow")
        return tf is None or tf.executing_eagerly()


@contextlib.contextmanager
def inside() -> Iterator[None]:
    """Mark the code in the block as gradlib's own: the APIs it calls do not warn (re-entrant)."""
    token = _DEPTH.set(_DEPTH.get() + 1)
    try:
        yield
    finally:
        _DEPTH.reset(token)


def returns_numpy(api: str, instead: str = "") -> Callable[[F], F]:
    """Wrap the public API named ``api`` (``"gradlib.laplacian"``) so that, called under a recording tape, it warns
    that its NumPy answer is not differentiable; ``instead`` names the tensor API to use, if one exists."""
    def wrap(function: F) -> F:
        @functools.wraps(function)
        def api_call(*args: Any, **kwargs: Any) -> Any:
            if _DEPTH.get() == 0 and tracing():
                raise GradlibError(
                    f"{api} was called inside a tf.function, where its inputs are symbolic tensors with no values: "
                    "it runs eagerly and returns NumPy arrays. Call it outside the tf.function"
                    + (f", or use {instead}, which return tensors and run inside one" if instead else ""))
            if _DEPTH.get() == 0 and recording():
                warnings.warn(warning_text(api, instead), NotDifferentiableWarning, stacklevel=_user_level())
            token = _DEPTH.set(_DEPTH.get() + 1)   # ``inside()``, without a generator's context manager (1 us)
            try:
                return function(*args, **kwargs)
            finally:
                _DEPTH.reset(token)
        api_call.returns_numpy = api   # type: ignore[attr-defined]   (read by the tests: which APIs warn)
        return api_call  # type: ignore[return-value]
    return wrap


def quiet(function: F) -> F:
    """Run ``function`` (a demonstration on gradlib's own functions, no user's weights) as gradlib's own work: the
    APIs it calls do not warn."""
    @functools.wraps(function)
    def own_work(*args: Any, **kwargs: Any) -> Any:
        with inside():
            return function(*args, **kwargs)
    return own_work  # type: ignore[return-value]


def warning_text(api: str, instead: str = "") -> str:
    """The warning's text for ``api``."""
    use = (f"for derivatives a training step can differentiate, use {instead}, which return tensors on your tape"
           if instead else "compute what you differentiate with TensorFlow operations on the tape")
    return (f"{api} returns NumPy arrays, and it was called while a tf.GradientTape is recording: its answer is a "
            f"constant to the tape, so tape.gradient of anything computed from it with respect to the model's "
            f"weights is None. Call it outside the tape (or inside tape.stop_recording()) to inspect values; {use}.")


def _user_level() -> int:
    """The ``stacklevel`` that points ``warnings.warn`` (called in ``api_call``) at the first frame outside gradlib."""
    frame, level = sys._getframe(2), 2   # 1: api_call, 2: its caller
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
