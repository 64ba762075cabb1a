"""What ``model.fit`` accepts, for the per-example APIs: ``x`` and ``y`` as an array, a list or a dict of arrays,
and the loss as a Keras loss, a callable, a loss's name, or one per output with weights.

A model with several inputs takes ``x`` as a list (in the order of ``model.inputs``) or a dict keyed by input
name; a model with several outputs takes ``y`` the same way, and a loss per output (a list in output order, a
dict keyed by output name, or one loss for every output) weighted by ``loss_weights``. Example ``i``'s loss is
``sum_k loss_weights[k] * L_k(y_k[i:i+1], y_pred_k[i:i+1])``: what Keras' ``CompileLoss`` computes for a batch of
one (the model's own ``model.losses`` aside: ``_gradients`` says how they are treated). ``loss=None`` takes the
loss (and weights) the model was compiled with.
A name is resolved as ``model.compile`` resolves it (``keras.losses.get``, wrapped in ``LossFunctionWrapper``).

>>> resolve_loss(None, "mean_squared_error", None, np.zeros((2, 1)), "f").name
'mean_squared_error'
>>> describe({"age": tf.zeros((4, 1)), "text": tf.zeros((4, 7))})
'a dict with keys age, text'
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Hashable

import keras
import numpy as np
import tensorflow as tf

from .._foundations._errors import ExpressionError, GradlibError, InputError, error_sentence
from .._foundations._limits import Limits
from .._callable._forms import refuse_composite
from .._callable._state import fingerprint

try:   # the wrapper model.compile puts around a loss function (squeezes y_true to y_pred's rank, as Keras does)
    from keras.src.losses import LossFunctionWrapper
except ImportError:   # pragma: no cover - a Keras that moved it: names are refused, loss objects still work
    LossFunctionWrapper = None

__all__ = ["CompiledFunction", "PerOutputLoss", "batch_size", "check_batch", "describe", "given_model", "leaves", "loss_state",
           "model_state", "pick", "resolve_loss", "rows", "signature", "specs"]

Nest = Any   # a tensor, or a list / dict of nests


@dataclass(frozen=True)
class PerOutputLoss:
    """One loss per output of a model, weighted: example ``i``'s loss is ``sum_k weights[k] * L_k`` (hashable).

    ``keys[k]`` picks output ``k`` from ``y`` and from the model's output: an output name (a dict is indexed by it,
    a list at its position in ``names``), a position, or ``None`` for a model with one output.
    """

    keys: tuple[str | int | None, ...]
    losses: tuple[Any, ...]
    weights: tuple[float, ...]
    names: tuple[str, ...] = ()

    def total(self, y_true: Nest, y_pred: Nest, single: Callable[[Any, Any, Any], tf.Tensor],
              api: str = "per_example_gradients") -> tf.Tensor:
        """``sum_k weights[k] * single(losses[k], y_k, y_pred_k)``: ``single`` gives one output's ``(B,)`` losses
        (``api`` names the caller when a part is missing)."""
        values = []
        for key, loss, weight in zip(self.keys, self.losses, self.weights):
            value = single(loss, pick(y_true, key, self.names, "y", api),
                           pick(y_pred, key, self.names, "the model's output", api))
            values.append(value if weight == 1.0 else value * tf.cast(weight, value.dtype))
        return tf.add_n([tf.cast(v, values[0].dtype) for v in values])


@dataclass(frozen=True)
class CompiledFunction:
    """A loss function (not a Keras loss object) a model was compiled with, as ``model.compile`` takes it: wrapped in
    Keras' ``LossFunctionWrapper`` (``wrapper``), which casts the targets and predictions to its dtype (float32 for a
    mixed_float16 model's float16 output), matches their ranks, and reduces the values after the batch axis as a Keras
    loss does (a mean over a sequence's steps, over its unmasked ones under a Keras mask). Called bare, a function
    returning a value per step was refused, and one on a float16 output computed in float16 (hunt 53)."""

    fn: Callable

    def wrapper(self) -> Any:
        return _wrapped(self.fn)


@functools.lru_cache(maxsize=64)
def _wrapped(fn: Callable) -> Any:
    """One ``LossFunctionWrapper`` per function, as ``model.compile`` makes it, so that the compiled steps are reused."""
    return LossFunctionWrapper(fn, name=getattr(fn, "__name__", None))


def _compiled_function(loss: Any) -> Any:
    """A plain loss function of a compiled model as ``CompiledFunction``; anything else (a loss object, a name,
    ``None``) as it is."""
    if LossFunctionWrapper is None or isinstance(loss, (str, type, keras.losses.Loss)) or not callable(loss):
        return loss
    return CompiledFunction(loss)


def loss_state(loss: Any) -> tuple:
    """The numbers and arrays each loss function reads besides its arguments (``gradlib._callable._state.fingerprint``).

    A traced per-batch step freezes them, so they belong in its cache key: ``lambda y, p: mse(y, p / T)`` with a
    global ``T`` changed between calls gave the losses and gradients of the old ``T``, silently.
    """
    return tuple(fingerprint(one.fn if isinstance(one, CompiledFunction) else one)
                 for one in (loss.losses if isinstance(loss, PerOutputLoss) else (loss,)))


def model_state(model: Any) -> tuple:
    """The numbers and arrays a model's call reads besides its weights (``gradlib._callable._state.fingerprint``: a
    subclassed model's ``self.temperature``, a custom layer's ``self.scale`` inside a Sequential).

    A traced per-batch step freezes them too, so they belong in its cache key beside ``loss_state``: a custom layer's
    scale changed from 2 to 5 between calls gave the losses of scale 2 (19.04 where the model's call gives 119.02).
    """
    return fingerprint(model)


# ---------------------------------------------------------------- the batch


def check_batch(model: Any, x: Any, y: Any, limits: Limits, api: str) -> tuple[Nest, Nest]:
    """``x`` and ``y`` as nests of tensors (lists and dicts kept, a one-element one unwrapped for a model with one
    input or output), every leaf numeric with the same number of examples, each of ``x`` and ``y`` within
    ``limits.max_elements`` over its leaves; ``x`` shaped as the model's inputs when the model declares them."""
    inputs, outputs = _input_names(model), _output_names(model)
    xs = _match(_nest(x, "x", api, len(inputs) if inputs else None), inputs, "x", "input", api)
    ys = _match(_nest(y, "y", api, len(outputs) if outputs else None), outputs, "y", "output", api)
    for name, nest in (("x", xs), ("y", ys)):
        total = sum(t.shape.num_elements() for t in tf.nest.flatten(nest))
        if total > limits.max_elements:
            raise InputError(f"{name} has {total:,} elements; at most {limits.max_elements:,} are allowed. "
                             "Use a smaller batch")
    _check_examples(xs, ys, api)
    return xs, ys


def _nest(value: Any, path: str, api: str, expected: int | None) -> Nest:
    if _is_dict(value):
        return {str(k): _nest(v, f"{path}[{k!r}]", api, None) for k, v in _items(value)}
    if isinstance(value, (list, tuple)) and _several(value, expected):
        return [_nest(v, f"{path}[{i}]", api, None) for i, v in enumerate(value)]
    return _leaf(value, path, api)


def _several(value: list | tuple, expected: int | None) -> bool:
    """A list of arrays (or dicts) is several inputs; a nested list of numbers is one array, unless the model
    takes exactly as many inputs as the list has items."""
    arrays = any(hasattr(v, "__array__") or tf.is_tensor(v) or _is_dict(v) for v in value)
    return arrays or (expected is not None and expected > 1 and len(value) == expected)


def _leaf(value: Any, path: str, api: str) -> tf.Tensor:
    refuse_composite(value, api, path)
    try:
        t = tf.convert_to_tensor(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{api} could not turn {path} into a tensor: {error_sentence(exc)} Give {path} as an array "
                         "of numbers of shape (B, ...)") from None
    if not (t.dtype.is_floating or t.dtype.is_integer):
        raise InputError(f"{api} needs {path} of numbers (floats, or integer ids/labels), got {t.dtype.name} of "
                         f"shape {tuple(t.shape)}; encode it as numbers first")
    if t.shape.rank == 0 or t.shape[0] == 0:
        raise InputError(f"{api} needs {path} with a batch axis and at least one example, got shape {tuple(t.shape)}")
    return t


def _match(nest: Nest, names: list[str] | None, what: str, kind: str, api: str) -> Nest:
    """Check ``nest`` against the model's declared inputs or outputs (``names``; ``None`` when it declares none)."""
    if names is None:
        return nest
    if len(names) == 1:
        if isinstance(nest, list) and len(nest) == 1 and tf.is_tensor(nest[0]):
            return nest[0]
        if _is_dict(nest) and list(nest) == names and tf.is_tensor(nest[names[0]]):
            return nest[names[0]]
        if not tf.is_tensor(nest):
            raise GradlibError(f"{api} takes {what} as one array of shape (B, ...) for this model: it has one {kind} "
                               f"({names[0]!r}), but {what} is {describe(nest)}")
        return nest
    listing = ", ".join(map(repr, names))
    fix = (f"give {what} as a list of {len(names)} arrays in that order, or a dict keyed by {kind} name")
    if tf.is_tensor(nest):
        if kind == "output":
            return nest   # the loss decides: one loss for all outputs needs a y per output (checked with it)
        raise GradlibError(f"{api}: the model has {len(names)} {kind}s ({listing}), but {what} is one array of shape "
                           f"{tuple(nest.shape)}; {fix}")
    if isinstance(nest, list) and len(nest) != len(names):
        raise GradlibError(f"{api}: the model has {len(names)} {kind}s ({listing}), but {what} is {describe(nest)}; "
                           f"{fix}")
    if _is_dict(nest):
        unknown = [k for k in nest if k not in names]
        missing = [k for k in names if k not in nest]
        if unknown or (missing and kind == "input"):
            bad = f"{what}[{unknown[0]!r}] is not one of them" if unknown else f"{what} has no {missing[0]!r}"
            raise GradlibError(f"{api}: the model has {len(names)} {kind}s ({listing}), and {bad}; {fix}")
    return nest


def _check_examples(xs: Nest, ys: Nest, api: str) -> None:
    """Every leaf of ``x`` and ``y`` has the same number of examples; the message names the first that differs."""
    every = list(leaves(xs, "x")) + list(leaves(ys, "y"))
    first_path, first = every[0]
    for path, t in every[1:]:
        if t.shape[0] != first.shape[0]:
            if path == "y" and first_path == "x":
                raise InputError(f"{api} got {first.shape[0]} examples in x but {t.shape[0]} targets in y; pass one "
                                 "target per example")
            raise InputError(f"{api} got {first.shape[0]} examples in {first_path} but {t.shape[0]} in {path} (shape "
                             f"{tuple(t.shape)}); every input and target needs one row per example")


# ---------------------------------------------------------------- the loss


def resolve_loss(model: Any, loss: Any, loss_weights: Any, y: Nest, api: str) -> Any:
    """The loss to compute: a Keras loss or a callable for one output, or a ``PerOutputLoss``.

    ``y``'s leaves (tensors or specs) have the batch axis: ``"crossentropy"`` is chosen from their ranks.

    ``loss=None`` takes the model's compiled loss and (unless given) its ``loss_weights``; a name becomes the Keras
    loss ``model.compile`` would make of it; a list or dict gives one loss per output (``None``: no loss for that
    output), one loss alone applies to every output. ``y`` (a nest, tensors or specs) gives the outputs of a model
    that does not declare them.
    """
    if loss is None:
        loss, loss_weights = _compiled_loss(model, loss_weights, api)
    if isinstance(loss, PerOutputLoss):
        return loss
    names = _output_names(model)
    if names is None and _is_container(y):
        names = [str(k) for k in y] if _is_dict(y) else None
        keys: list[Any] = list(names) if names else list(range(len(y)))
        if names and len(names) > 1 and any(isinstance(_plain(v), list) for v in (loss, loss_weights)):
            raise GradlibError(f"{api}: this model declares no output order (a subclassed model), so a list of "
                               f"losses or weights cannot be matched to y's keys {', '.join(map(repr, names))}; "
                               "give loss (and loss_weights) as a dict keyed like y")
    else:
        keys = list(names) if names and len(names) > 1 else [None]
    per_output = _per_output(loss, keys, names, "loss", api)
    weights = _per_output(1.0 if loss_weights is None else loss_weights, keys, names, "loss_weights", api)
    dtype = _output_dtype(model)
    terms = [(k, _one_loss(l, api, functools.partial(_shapes, model, k, y, names), dtype), _check_weight(w, api))
             for k, l, w in zip(keys, per_output, weights) if l is not None]
    if not terms:
        raise GradlibError(f"{api} got no loss for any output (every one is None); give loss= for at least one")
    if len(terms) == 1 and terms[0][0] is None and terms[0][2] == 1.0 and not _is_container(y):
        return terms[0][1]
    _check_targets(terms, y, names, api)
    return PerOutputLoss(keys=tuple(t[0] for t in terms), losses=tuple(t[1] for t in terms),
                         weights=tuple(t[2] for t in terms), names=tuple(names or ()))


#: the methods through which model.fit computes its loss: a model that overrides one may not minimize its compiled loss
FIT_HOOKS = ("train_step", "compute_loss")


def _compiled_loss(model: Any, loss_weights: Any, api: str) -> tuple[Any, Any]:
    _check_fit_hooks(model, api)
    loss = getattr(model, "loss", None)
    if loss is None:
        raise GradlibError(f"{api} needs loss=: the model was not compiled with a loss. Pass loss= a Keras loss "
                           "(keras.losses.SparseCategoricalCrossentropy(from_logits=True)), a name such as "
                           "'mean_squared_error', a callable (y_true, y_pred) -> (B,), or compile the model")
    if loss_weights is None:
        try:
            loss_weights = model.get_compile_config().get("loss_weights")
        except (AttributeError, NotImplementedError, TypeError, ValueError):
            loss_weights = None
    loss = _plain(loss)
    if isinstance(loss, dict):
        loss = {k: _compiled_function(v) for k, v in loss.items()}
    elif isinstance(loss, list):
        loss = [_compiled_function(v) for v in loss]
    return _compiled_function(loss), _plain(loss_weights)


def _check_fit_hooks(model: Any, api: str) -> None:
    """Refuse to take the compiled loss of a model whose class overrides how model.fit computes its loss: that code
    is the user's, gradlib cannot read it, and the compiled loss may be none of what it minimizes (a GAN's
    train_step, a compute_loss that adds a term), so every per-example gradient would be of another loss."""
    overridden = [name for name in FIT_HOOKS
                  if getattr(type(model), name, None) is not getattr(keras.Model, name, None)]
    if overridden:
        which = " and ".join(f"{name}()" for name in overridden)
        raise GradlibError(
            f"{api}: {type(model).__name__} overrides {which}, so the loss model.fit minimizes need not be the one it "
            f"was compiled with, and gradlib cannot read your {which}. Pass loss= the per-example loss it computes "
            "(a Keras loss, a name such as 'mean_squared_error', or a callable (y_true, y_pred) -> (B,))")


def _per_output(value: Any, keys: list, names: list[str] | None, what: str, api: str) -> list:
    """``value`` spread over the outputs ``keys``: a list by position, a dict by name, anything else to each."""
    value = _plain(value)
    n = len(keys)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise GradlibError(f"{api} got {what} as a list of {len(value)}, but the model has {n} output(s)"
                               f"{_listing(names)}; give one per output, in order")
        return list(value)
    if isinstance(value, dict):
        if n == 1 and keys == [None] and len(value) == 1 and (names is None or list(value) == names):
            return list(value.values())
        known = [k for k in keys if isinstance(k, str)] or [str(k) for k in names or ()]   # one output: its name
        unknown = [k for k in value if k not in known]
        if unknown:
            raise GradlibError(f"{api} got {what}[{unknown[0]!r}], but the model's outputs are named "
                               f"{', '.join(map(repr, known)) or '(no names: give a list)'}; key {what} by output name")
        if what == "loss_weights" and any(k not in value for k in known):
            missing = next(k for k in known if k not in value)
            raise GradlibError(f"{api} got no loss_weights[{missing!r}]; give a weight for every output")
        return [value.get(k) for k in keys]
    if what == "loss_weights" and n > 1 and value != 1.0:
        raise GradlibError(f"{api} got loss_weights={value!r} for a model with {n} outputs{_listing(names)}; give a "
                           "list or dict of one weight per output")
    return [value] * n


def _one_loss(loss: Any, api: str, shapes: Callable[[], tuple | None], dtype: str | None = None) -> Any:
    if isinstance(loss, str):
        return _named_loss(loss, api, shapes, dtype)
    if isinstance(loss, (keras.losses.Loss, CompiledFunction)) or (callable(loss) and not isinstance(loss, type)):
        return loss
    raise ExpressionError(
        f"{api} needs loss= a Keras loss object, a callable (y_true, y_pred) -> (B,), a Keras loss name or one of "
        f"these per output, got {loss!r}. For example loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True)"
        " or loss='sparse_categorical_crossentropy'")


def _named_loss(name: str, api: str, shapes: Callable[[], tuple | None], dtype: str | None = None) -> Any:
    if name.lower() in ("crossentropy", "ce"):
        name = _crossentropy(name, api, shapes())
    try:
        return _keras_loss(name, dtype)
    except ValueError:
        known = [n for n in dir(keras.losses) if not n.startswith("_") and n not in ("get", "serialize", "deserialize",
                                                                                      "Loss")] + list(_ALIASES)
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ExpressionError(f"{api} got loss={name!r}, which is not a Keras loss name; {hint}use a name from "
                              "keras.losses, such as 'sparse_categorical_crossentropy' or 'mean_squared_error'") from None


def _crossentropy(name: str, api: str, shapes: tuple | None) -> str:
    """The crossentropy ``model.compile`` picks for ``"crossentropy"`` from the target's and the output's shapes."""
    if shapes is None:
        raise GradlibError(f"{api} cannot choose the crossentropy for loss={name!r}: the model does not declare its "
                           "output shapes (a subclassed model); name it: 'binary_crossentropy', "
                           "'categorical_crossentropy' or 'sparse_categorical_crossentropy'")
    true, pred = shapes
    if pred[-1] == 1:
        return "binary_crossentropy"
    sparse = len(true) < len(pred) or (true[-1] == 1 and pred[-1] is not None and pred[-1] > 1)
    return "sparse_categorical_crossentropy" if sparse else "categorical_crossentropy"


def _shapes(model: Any, key: Any, y: Nest, names: list[str] | None) -> tuple | None:
    """``(target shape, output shape)`` of output ``key``, both with the batch axis; ``None`` when not declared."""
    try:
        outputs = list(model.outputs)
    except (AttributeError, ValueError, TypeError):
        return None
    index = 0 if key is None else key if isinstance(key, int) else list(names or ()).index(key)
    return tuple(pick(y, key, tuple(names or ()), "y").shape), tuple(outputs[index].shape)


#: the short names keras.losses.get also knows
_ALIASES = ("mse", "mae", "mape", "msle", "kld", "bce")


@functools.lru_cache(maxsize=64)
def _keras_loss(name: str, dtype: str | None = None) -> keras.losses.Loss:
    """The loss ``model.compile(loss=name)`` makes, computing in ``dtype`` when that is float64 (a float64 model's
    outputs): a Keras loss computes in floatx, and a float64 model's losses came out float32 (1.7e-6 off a float64
    loop). One object per name and dtype, so that the compiled steps are reused."""
    wide = {"dtype": dtype} if dtype == "float64" else {}
    loss = keras.losses.get(name)
    if isinstance(loss, keras.losses.Loss):
        return type(loss).from_config({**loss.get_config(), **wide}) if wide else loss
    if LossFunctionWrapper is None:   # pragma: no cover
        raise ValueError(f"this Keras has no LossFunctionWrapper to wrap {name!r} in")
    return LossFunctionWrapper(loss, name=name, **wide)


def _output_dtype(model: Any) -> str | None:
    """The floating dtype of the model's outputs, where it declares them; ``None`` otherwise."""
    try:
        dtypes = {str(t.dtype) for t in keras.tree.flatten(model.outputs)}
    except (AttributeError, TypeError, ValueError):
        return None
    return "float64" if dtypes == {"float64"} else None


def _check_weight(weight: Any, api: str) -> float:
    if isinstance(weight, bool) or not isinstance(weight, (int, float, np.integer, np.floating)) \
            or not np.isfinite(weight):
        raise GradlibError(f"{api} needs loss_weights of finite numbers, got {weight!r}")
    return float(weight)


def _check_targets(terms: list, y: Nest, names: list[str] | None, api: str) -> None:
    """Every output with a loss has its target in ``y``."""
    if len(terms) > 1 and not _is_container(y):
        raise GradlibError(f"{api}: the model has {len(terms)} outputs with a loss{_listing(names)}, but y is one "
                           f"array of shape {tuple(y.shape)}; give y as a list of one target per output, or a dict "
                           "keyed by output name")
    for key, _, _ in terms:
        pick(y, key, tuple(names or ()), "y", api)


def pick(nest: Nest, key: str | int | None, names: tuple[str, ...], what: str,
         api: str = "per_example_gradients") -> Any:
    """Output ``key``'s part of ``nest`` (``y`` or the model's output): by name from a dict, by position from a list;
    the only output (``key`` ``None``) is the nest itself or its one element."""
    if key is None:
        return tf.nest.flatten(nest)[0] if _is_container(nest) and len(nest) == 1 else nest
    try:
        if _is_dict(nest):
            return nest[key if isinstance(key, str) else names[key]]
        if isinstance(nest, (list, tuple)):
            return nest[key if isinstance(key, int) else names.index(key)]
    except (KeyError, IndexError, ValueError):
        pass
    raise GradlibError(f"{api}: {what} has no part for the output {key!r} ({what} is {describe(nest)}); give one "
                       "per output with a loss, as a list in output order or a dict keyed by output name")


# ---------------------------------------------------------------- nests


def batch_size(nest: Nest) -> int:
    """The number of examples: the first axis of the first leaf."""
    return int(tf.nest.flatten(nest)[0].shape[0])


def rows(nest: Nest, start: int, stop: int) -> Nest:
    """Examples ``start:stop`` of every leaf."""
    return tf.nest.map_structure(lambda t: t[start:stop], nest)


def specs(nest: Nest) -> Nest:
    """The nest's ``TensorSpec``s with the batch axis free: a ``tf.function``'s input signature."""
    return tf.nest.map_structure(lambda t: tf.TensorSpec((None,) + tuple(t.shape[1:]), t.dtype), nest)


def signature(nest: Nest) -> Hashable:
    """A hashable key for the structure, shapes and dtypes of a nest of tensors or specs (for compiled caches)."""
    if _is_dict(nest):
        return ("dict", tuple((k, signature(v)) for k, v in sorted(_items(nest))))
    if isinstance(nest, (list, tuple)):
        return (type(nest).__name__, tuple(signature(v) for v in nest))
    if not hasattr(nest, "shape"):   # a spec TensorFlow keys itself (a distributed data set's PerReplicaSpec)
        return nest
    return (tuple(nest.shape.as_list()) if nest.shape.rank is not None else None, nest.dtype.name)


def describe(nest: Nest) -> str:
    """``one array of shape (4, 3)``, ``a list of 2 arrays``, ``a dict with keys a, b``: for messages."""
    if _is_dict(nest):
        return f"a dict with keys {', '.join(map(str, nest))}"
    if isinstance(nest, (list, tuple)):
        return f"a {type(nest).__name__} of {len(nest)} arrays"
    shape = getattr(nest, "shape", None)
    return f"one array of shape {tuple(shape)}" if shape is not None else f"{type(nest).__name__}"


def leaves(nest: Nest, path: str):
    """``(name, leaf)`` for every leaf: ``x``, or ``x[0]``, ``x['age']`` ... (for messages)."""
    if _is_dict(nest):
        for k, v in _items(nest):
            yield from leaves(v, f"{path}[{k!r}]")
    elif isinstance(nest, (list, tuple)):
        for i, v in enumerate(nest):
            yield from leaves(v, f"{path}[{i}]")
    else:
        yield path, nest


def _is_dict(value: Any) -> bool:
    return isinstance(value, Mapping) or (hasattr(value, "keys") and hasattr(value, "items")
                                          and not hasattr(value, "__array__"))


def _is_container(value: Any) -> bool:
    return _is_dict(value) or isinstance(value, (list, tuple))


def _items(value: Any) -> list:
    return list(value.items())


def _plain(value: Any) -> Any:
    """Keras' tracking wrappers (``ListWrapper``, ``_DictWrapper`` of a compiled loss) as a plain list or dict."""
    if _is_dict(value):
        return dict(_items(value))
    if isinstance(value, (list, tuple)):
        return list(value)
    return value


def _listing(names: list[str] | None) -> str:
    return f" ({', '.join(map(repr, names))})" if names else ""


def _input_names(model: Any) -> list[str] | None:
    try:
        inputs = model.inputs
    except (AttributeError, ValueError):
        return None
    return [str(getattr(t, "name", i)) for i, t in enumerate(inputs)] if inputs else None


def _output_names(model: Any) -> list[str] | None:
    try:
        outputs = model.outputs
    except (AttributeError, ValueError):
        return None
    if not outputs:
        return None
    struct = getattr(model, "_outputs_struct", None)
    if isinstance(struct, dict) and len(struct) == len(outputs):
        # keras.Model(x, {"p": ..., "q": ...}) returns that dict, and model.fit takes y and loss keyed by its keys
        # (output_names are its layers' names then); in the order of model.outputs, the dict flattened
        return [str(k) for k in keras.tree.flatten({k: k for k in struct})]
    names = getattr(model, "output_names", None)
    return [str(n) for n in names] if names and len(names) == len(outputs) else [f"output_{i}" for i in
                                                                                  range(len(outputs))]


def given_model(model: Any) -> str:
    """How a refusal names an object that is not a Keras 3 model: ``Sequential`` alone told a user who passed a
    ``tf_keras.Sequential`` to build one with ``keras.Sequential``; a Keras 2 (tf_keras) model is named as such."""
    name = type(model).__name__
    if type(model).__module__.split(".")[0] == "tf_keras":
        return (f"a tf_keras (Keras 2) {name}, which is not a Keras 3 model: build it with Keras 3 (import keras), "
                "or take each sample's Jacobian with per_sample_gradients, which calls any model")
    return name
