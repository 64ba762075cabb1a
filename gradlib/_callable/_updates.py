"""A user's function that updates a variable it also reads: refused by name before anything calls it.

A Keras layer whose ``call`` counts its calls into a weight and scales by the count (``n.assign_add(1); z * n``), a
function that reads a running statistic it then moves: each call computes another function of the inputs. An API
calls fn many times (its probes, a tape per sample, the independence check), so its answer mixed calls that no call
of the user's gives (``per_sample_gradients`` answered 4.0 where the user's own call gives 1.0), and every call moved
the user's state (the count was 4 after it). ``refuse_updating`` traces fn once for its arguments' signature (a
``tf.function`` trace runs no op: the variable is untouched) and refuses it when an output depends on a read of a
variable the same trace writes (``_random.updated_read``), naming the variable; the verdict is remembered per
function (its ``callable_key``) and signature, so a warm call pays a lookup.

Not refused: a variable written but not read into an output (a metric's totals, BatchNormalization's moving statistics
in training mode, which the mixing check refuses in its own words, a call counter the output ignores): every call gives
the same answer, though the variable moves with each of gradlib's calls as with the user's. A function that cannot be
traced (NumPy on a tensor) is not read here: the random check's two calls see one that changes between calls.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

import tensorflow as tf

from .._foundations._cache import LRUCache
from .._foundations._errors import InputError
from ._random import updated_read
from ._state import callable_key, objects_read
from ._trace import trace

__all__ = ["refuse_updating", "updating_variable"]

#: (fn's key, its arguments' signature) -> the variable fn updates and reads into its output, or ""
_VERDICTS = LRUCache(maxsize=128)
#: ``updating_variable``'s default key: fn's own ``callable_key`` at the signature
_OWN = object()


def refuse_updating(fn: Callable, args: Any, api: str, key: Hashable | None = _OWN, what: str = "fn") -> None:
    """Refuse ``fn`` when its output depends on a variable it also updates (``updating_variable``), before any call:
    ``args`` is what fn would be called with (a tensor, a list or dict of them), read for its signature only;
    ``key``: the caller's key of fn at this signature (its ``callable_key``; ``None``: not remembered); ``what``:
    how the refusal names fn (``"model"``)."""
    name = updating_variable(fn, args, key)
    if name:
        layer = f" (a weight of the layer {name.rsplit('/', 1)[0]!r})" if "/" in name else ""
        raise InputError(
            f"{api} cannot take this {what}: it updates the variable {name!r}{layer} and its output depends on that "
            f"variable, so every call computes another function of the inputs (gradlib calls the {what} more than "
            "once: each call would differentiate another one, and move your variable). Do the update outside the "
            f"{what} (after the gradients, as a training step does), or pass one that only reads the variable; "
            f"gradlib has not called the {what}, so the variable is as it was")


def updating_variable(fn: Callable, args: Any, key: Hashable | None = _OWN) -> str:
    """The name of a variable ``fn`` updates and reads into its output when called with ``args``' signature (the
    layer's path in a Keras variable's name, ``count/variable``), or ``""``; remembered per fn and signature (``key``,
    a ``callable_key`` holding both, else fn's own; ``None``: not remembered, for a caller that remembers its own).

    >>> n = tf.Variable(0.0, name="calls")
    >>> updating_variable(lambda z: z * n.assign_add(1.0), tf.ones(2)), float(n.numpy())
    ('calls', 0.0)
    >>> updating_variable(lambda z: z * n, tf.ones(2))
    ''
    """
    if key is _OWN:   # the shapes and dtypes as plain tuples: making the specs cost 20 us of every warm call
        key = callable_key(fn, "updates", tuple((tuple(t.shape), t.dtype.name) for t in tf.nest.flatten(args)))
    read = lambda: _read(fn, tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), args))  # noqa: E731
    return read() if key is None else _VERDICTS.get_or_create(key, read)


def _read(fn: Callable, specs: Any) -> str:
    try:
        concrete = trace(fn, [specs])
    except Exception:   # noqa: BLE001 - not traceable: nothing read here (see the module)
        return ""
    handle = updated_read(concrete.graph)
    if not handle:
        return ""
    outer = next((id(external) for external, internal in concrete.graph.captures if internal.op.name == handle), None)
    keras_path = next((str(v.path) for v in _keras_variables(fn) if id(getattr(v, "handle", None)) == outer), "")
    if keras_path:
        return keras_path
    return next((v.name.split(":")[0] for v in concrete.graph.variables if id(v.handle) == outer), handle)


def _keras_variables(fn: Callable) -> list:
    """The Keras variables of ``fn`` (a layer, a model, a metric) and of the objects it reads (``objects_read``):
    named by their path (``count/variable``), where TensorFlow's own name for the same variable was made unique
    (``count_1/variable_1``)."""
    out = []
    for obj in [fn, *objects_read(fn)]:
        variables = getattr(obj, "variables", None)
        if isinstance(variables, (list, tuple)):
            out += [v for v in variables if hasattr(v, "path")]
    return out
