"""Run snippets under TensorFlow: what each gradient call itself did, by the line it is written on, and what the
snippet's ``result`` is.

Usage: python outcomes.py FILE...   Prints {file: {"calls": [[line, outcome], ...], "crash": [line, error] or null,
"verdict": ...}}.
``tape.gradient``, ``jacobian`` and ``batch_jacobian`` are wrapped for the run: each call records "none" (a
gradient is None), "zeros" (one is all zeros), "empty" (no gradient at all: sources that were an empty list),
"real", "symbolic" (traced by tf.function: no value to read) or
the name of the exception it raised, at the line of the innermost frame of the snippet. "crash" is where the
snippet stopped on an exception that no gradient call raised (``v += 1``, ``optimizer.minimize(tensor)``, or
code after a call that used the None it got). "verdict" is one word for the whole snippet, from the gradient(s) it
leaves in ``result``: "raised: <error>" (the snippet stopped on an exception), "none" (a gradient is None), "zeros"
(one is all zeros), "real" (all real), "empty" (no gradient at all: proves nothing) or "no result". Both come from
one run of each snippet (the wrapped calls return what TensorFlow's own return and re-raise what they raise).
The snippets are the test suite's own code, so running them here is fine; user text never comes here.
"""

import contextlib
import io
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel("ERROR")

_RECORD: list = []
_PATH = [""]
_DEPTH = [0]          # jacobian calls gradient inside: only the call the snippet wrote is recorded


def _leaves(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _line() -> int:
    """The line of the innermost frame of the running snippet (where the gradient call is written)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename != _PATH[0]:
        frame = frame.f_back
    return frame.f_lineno if frame is not None else 0


def _outcome(grads) -> str:
    leaves = _leaves(grads)
    if not leaves:
        return "empty"
    if any(g is None for g in leaves):
        return "none"
    if not tf.executing_eagerly():
        return "symbolic"
    if any(not np.any(np.asarray(tf.convert_to_tensor(g))) for g in leaves):
        return "zeros"
    return "real"


def _wrap(method):
    def recorded(self, *args, **kwargs):
        if _DEPTH[0]:
            return method(self, *args, **kwargs)
        line = _line()
        _DEPTH[0] += 1
        try:
            grads = method(self, *args, **kwargs)
        except Exception as err:
            _RECORD.append([line, type(err).__name__])
            err.recorded = True
            raise
        finally:
            _DEPTH[0] -= 1
        _RECORD.append([line, _outcome(grads)])
        return grads
    return recorded


for _name in ("gradient", "jacobian", "batch_jacobian"):
    setattr(tf.GradientTape, _name, _wrap(getattr(tf.GradientTape, _name)))


def _crash_line(err: Exception) -> int:
    tb, line = err.__traceback__, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _PATH[0]:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _verdict(namespace: dict) -> str:
    """The snippet's one verdict from the gradient(s) it left in ``result``."""
    if "result" not in namespace:
        return "no result"
    grads = _leaves(namespace["result"])
    if not grads:
        return "empty"
    if any(g is None for g in grads):
        return "none"
    if any(not np.any(np.asarray(tf.convert_to_tensor(g))) for g in grads):
        return "zeros"
    return "real"


def run(path: str) -> dict:
    _RECORD.clear()
    _PATH[0] = os.path.abspath(path)
    namespace = {"__name__": "snippet"}
    tf.keras.utils.set_random_seed(0)
    crash = None
    try:
        with open(path) as handle, contextlib.redirect_stdout(io.StringIO()):
            exec(compile(handle.read(), _PATH[0], "exec"), namespace)
    except Exception as err:
        if not getattr(err, "recorded", False):
            crash = [_crash_line(err), type(err).__name__]
        verdict = f"raised: {type(err).__name__}: {str(err)[:200]}"
    else:
        verdict = _verdict(namespace)
    return {"calls": list(_RECORD), "crash": crash, "verdict": verdict}


if __name__ == "__main__":
    print(json.dumps({path: run(path) for path in sys.argv[1:]}))
