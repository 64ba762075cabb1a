"""A user's function's outputs: called on a batch, joined into rows, labelled by name.

A function may return one tensor or several (a list or tuple, or a dict, as a Keras model of several outputs returns
them). Each per-sample API joins a sample's outputs in that order (``joined_outputs``) and labels the rows by the
outputs' names wherever the user gave them (a Keras model's ``output_names``, a dict's keys: ``output_labels``); a
per-element API stacks a list (``as_output``). The first call on one sample (``sample_output``) checks that every
output keeps the batch axis and is floating point, once per function and sample shape.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import tensorflow as tf

from .._foundations._cache import LRUCache
from .._foundations._errors import GradlibError, error_gist
from ._labels import index_labels, output_name
from ._state import callable_key

__all__ = ["as_output", "call_batch", "joined_outputs", "named_outputs", "output_labels", "output_names",
           "sample_output", "several_outputs", "single_name", "whole_labels", "whole_output", "whole_failure"]


def several_outputs(y: Any, batch: int | None, api: str) -> list[tuple[Any, tf.Tensor]]:
    """A function's several outputs (a list or tuple, or a dict, as a Keras model of several outputs returns them)
    as ``[(index or key, tensor)]`` in that order; ``[]`` for one output.

    Each must keep the batch axis first with ``batch`` rows (``batch`` being the size of the batch fn was called
    on, ``None`` inside a trace of any batch size, where a row count fixed in the graph cannot follow the batch):
    joined as they were, an output ``(out, B)`` or reduced over the batch would be taken for other samples.
    """
    if isinstance(y, dict):
        items = list(y.items())
    elif isinstance(y, (list, tuple)):
        items = list(enumerate(y))
    else:
        return []
    if not items:
        raise GradlibError(f"{api}: fn returned {type(y).__name__}() with no outputs; {api} needs at least one, "
                           "each of shape (B, outputs...)")
    parts = []
    for key, value in items:
        try:
            parts.append((key, tf.convert_to_tensor(value)))
        except (TypeError, ValueError) as exc:
            raise GradlibError(f"{api}: fn's output y[{key!r}] is not a tensor ({type(value).__name__}: "
                               f"{error_gist(exc)}); {api} needs every output as a tensor of shape "
                               "(B, outputs...)") from exc
    for key, t in parts:
        _check_output_rows(key, t, batch, api)
    return parts


def _check_output_rows(key: Any, t: tf.Tensor, batch: int | None, api: str) -> None:
    rows = t.shape[0] if t.shape.rank else None
    if t.shape.rank == 0 or (rows is not None and rows != batch):
        held = "a batch of any size B" if batch is None else f"a batch of {batch:,} sample{'s' * (batch != 1)}"
        want = "B rows" if batch is None else f"{batch:,} row{'s' * (batch != 1)}"
        raise GradlibError(
            f"{api}: fn's output y[{key!r}] has shape {tuple(t.shape)} on {held}: every output must keep the batch "
            f"axis first, one row per sample ({want}, like the batch). {api} joins each sample's outputs; return "
            "each output as (B, outputs...): not transposed, not reduced over the batch")
    if not t.dtype.is_floating:
        raise GradlibError(f"{api}: fn must return floating-point values; its output y[{key!r}] is {t.dtype.name}")


def joined_outputs(y: Any, batch: int | None, api: str) -> tf.Tensor:
    """``y`` as one tensor: itself for one output; several outputs (``several_outputs``) each flattened per sample
    and joined in order along one axis, ``(B, their elements)``, in the most precise of their dtypes."""
    parts = several_outputs(y, batch, api)
    if parts:
        return _join(parts)
    y = tf.convert_to_tensor(y)
    if batch is not None and y.shape.rank and y.shape[0] is not None and y.shape[0] != batch:
        raise GradlibError(
            f"{api}: fn's output has shape {tuple(y.shape)} on a batch of {batch:,} sample{'s' * (batch != 1)}: it "
            f"must keep the batch axis first, one row per sample ({batch:,} row{'s' * (batch != 1)}, like the "
            "batch); return (B, outputs...): not transposed, not reduced over the batch")
    return y


def _join(parts: list[tuple[Any, tf.Tensor]]) -> tf.Tensor:
    dtype = max((t.dtype for _, t in parts), key=lambda d: d.size)
    return tf.concat([tf.reshape(tf.cast(t, dtype), (tf.shape(t)[0], -1)) for _, t in parts], axis=1)


def output_names(fn: Callable) -> tuple[str, ...]:
    """A Keras model's output names (to name the several outputs it returns as a list); ``()`` for a callable."""
    names = getattr(fn, "output_names", None) if hasattr(fn, "trainable_variables") else None
    return tuple(names) if isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names) else ()


def output_labels(fn: Callable, x: tf.Tensor, shape: tuple[int, ...], model: Callable | None = None,
                  inputs: Iterable[str] = (), api: str = "per_sample_gradients") -> tuple[str, ...]:
    """A sample's output elements labelled as ``PerSampleResult.row_labels`` labels them, for the second-order APIs.

    ``fn`` is called on ``x`` (a batch; the call is remembered per function and sample shape), ``shape`` is a single
    output's per-sample shape as the caller reports it, and ``model`` the user's model whose output names name the
    outputs (``fn`` itself by default; a different one when ``fn`` joins its several inputs); ``inputs`` are the
    inputs' names, which a single output's label never takes (``output_name``).
    """
    names = output_names(fn if model is None else model)
    _, outputs = sample_output(fn, x, api)
    if outputs:
        return tuple(label for name, part in named_outputs(outputs, names) for label in index_labels(name, part))
    return index_labels(single_name(names, inputs), shape)


def single_name(names: tuple[str, ...], inputs: Iterable[str] = ()) -> str:
    """A model's one output by its name (``model.output_names``), anything else ``y``; never an input's name
    (``output_name``: a row's label is never a column's)."""
    inputs = tuple(inputs)
    return names[0] if len(names) == 1 and names[0] and names[0] not in inputs else output_name(inputs)


def named_outputs(outputs: tuple[tuple[Any, tuple[int, ...]], ...], names: tuple[str, ...]) -> tuple:
    """Several outputs' keys as names: a dict's keys; a list's indices by the model's output names, else ``y0``..."""
    named = len(names) == len(outputs) and len(set(names)) == len(names)
    return tuple(((names[key] if named else f"y{key}") if isinstance(key, int) else str(key), shape)
                 for key, shape in outputs)


def call_batch(fn: Callable, x: tf.Tensor, api: str) -> Any:
    """``fn(x)`` with any failure turned into a GradlibError that says which shape it was given."""
    try:
        y = fn(x)
        return y if isinstance(y, (list, tuple, dict)) else tf.convert_to_tensor(y)
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed: say so, with its message
        raise GradlibError(f"{api}: fn failed on a batch of shape {tuple(x.shape)}: {type(exc).__name__}: "
                           f"{error_gist(exc)}{signature_advice(fn, x)}") from exc


def signature_advice(fn: Callable, x: tf.Tensor) -> str:
    """What to change when ``fn`` is a ``tf.function`` whose fixed ``input_signature`` does not take ``x``'s shape
    (a per-sample API calls fn on batches of any size, one sample first): "" for anything else."""
    specs = getattr(fn, "input_signature", None)
    if not specs or len(specs) != 1 or not isinstance(specs[0], tf.TensorSpec):
        return ""
    fixed = specs[0].shape
    if fixed.is_compatible_with(x.shape):
        return ""
    wanted = [None] + list(x.shape[1:])
    return (f". fn is a tf.function whose input_signature fixes its input to shape {fixed}, and a batch of any "
            f"size is called here: declare tf.TensorSpec({wanted}, tf.{x.dtype.name}) (a leading None for the batch) "
            "or pass fn.python_function")


#: (fn, a sample's shape and dtype, fn's fingerprint) -> its output's per-sample shape: warm calls skip the eager
#: call that sizes the output (on the Models page's MLP it cost about 6 of a warm call's 7 ms)
_OUTPUT_SHAPES = LRUCache(maxsize=128)


def sample_output(fn: Callable, x: tf.Tensor, api: str) -> tuple[tuple[int, ...], tuple]:
    """``_check_output``, remembered for ``fn`` and ``x``'s per-sample shape (checked once per function)."""
    key = callable_key(fn, "output", (None,) + tuple(x.shape[1:]), x.dtype.name)
    check = lambda: _check_output(fn, x, api)  # noqa: E731
    return check() if key is None else _OUTPUT_SHAPES.get_or_create(key, check)


def _check_output(fn: Callable, x: tf.Tensor, api: str) -> tuple[tuple[int, ...], tuple]:
    """Call ``fn`` once on the first sample (eagerly): the output must keep the batch axis. Returns a sample's
    output shape (several outputs joined) and, for several outputs, ``((index or key, per-sample shape), ...)``."""
    raw = call_batch(fn, x[:1], api)
    parts = several_outputs(raw, 1, api)
    y = _join(parts) if parts else raw
    if y.shape.rank == 0 or y.shape[0] != 1:
        raise GradlibError(
            f"{api}: fn must return one row per sample, but on a batch of shape {tuple(x[:1].shape)} it returned shape "
            f"{tuple(y.shape)}. {api} needs y of shape (B, outputs...); for a function of the whole batch use "
            "per_element_gradients or hessians")
    if not y.dtype.is_floating:
        raise GradlibError(f"{api}: fn must return floating-point values; it returned {y.dtype.name}")
    return tuple(y.shape[1:]), tuple((key, tuple(t.shape[1:])) for key, t in parts)


def as_output(y: Any, api: str) -> tf.Tensor:
    """A per-element API's ``fn(xs)`` as one floating-point tensor: a list or tuple of tensors stacked (inside the
    caller's tape: stacking is differentiable, unlike iterating afterwards)."""
    if isinstance(y, (list, tuple)):
        y = tf.stack(y)
    try:
        y = tf.convert_to_tensor(y)
    except (TypeError, ValueError):
        raise GradlibError(f"{api}: fn must return a tensor (or a list of tensors); it returned "
                           f"{type(y).__name__}") from None
    if not y.dtype.is_floating:
        raise GradlibError(f"{api}: fn returned a {y.dtype.name} tensor: only floating-point outputs have gradients. "
                           "Return a float tensor (cast with tf.cast(y, tf.float32) if you must)")
    return y


def whole_output(y: Any, api: str, names: tuple[str, ...] = ()) -> tuple[tf.Tensor, tuple]:
    """A per-element API's ``fn(xs)`` as one tensor, and its named parts ``((name, shape), ...)``.

    Outputs with names are joined, each flattened, in order: a dict by its keys, a Keras model's list of outputs by
    ``names`` (its ``output_names``, one per output, distinct). A list or tuple without names is stacked (the seed's
    ``[x0*x1, x0**2]``, one row per element), and its parts are ``()``: its rows are ``y[0]``, ``y[1]``, ...
    """
    named = isinstance(y, (list, tuple)) and len(names) == len(y) and len(set(names)) == len(names)
    if not isinstance(y, dict) and not named:
        return as_output(y, api), ()
    items = [(str(k), v) for k, v in y.items()] if isinstance(y, dict) else list(zip(names, y))
    if not items:
        raise GradlibError(f"{api}: fn returned an empty dict: there is no output to differentiate. Return at least "
                           "one")
    parts = [(name, as_output(value, api)) for name, value in items]
    dtype = max((t.dtype for _, t in parts), key=lambda d: d.size)
    joined = tf.concat([tf.reshape(tf.cast(t, dtype), [-1]) for _, t in parts], axis=0)
    return joined, tuple((name, tuple(t.shape)) for name, t in parts)


def whole_labels(shape: tuple[int, ...], parts: tuple, names: tuple[str, ...],
                 inputs: Iterable[str]) -> tuple[str, ...]:
    """The rows of a per-element API's result: each named part's elements by its name (``price[0,1]``, ``kind[0]``);
    a Keras model's one output by its name; else ``y[...]`` (never an input's name: ``single_name``)."""
    if parts:
        return tuple(label for name, part in parts for label in index_labels(name, part))
    return index_labels(single_name(names, inputs), shape)


def whole_failure(api: str, exc: BaseException, tensors: Iterable[Any]) -> GradlibError:
    """A per-element API's refusal of an ``fn`` that failed on its inputs (``tensors``), in one wording for the
    family: which API, the inputs' shapes, and fn's own error."""
    shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
    return GradlibError(f"{api}: fn failed on inputs of shape {shapes}: {type(exc).__name__}: {error_gist(exc)}")
