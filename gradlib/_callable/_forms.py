"""A user's inputs in the forms gradlib takes them, checked once, with one wording per refusal.

Two families take inputs two ways. A per-element API (``per_element_gradients``, ``hessians``, ``hvp``,
``crosscheck``) takes ``xs`` as ``tape.gradient`` does: one tensor, a list of tensors or a dict of them by name
(``xs_form``). A per-sample API (``per_sample_gradients``, ``per_sample_hessians``, ``laplacian``, ``divergence``)
takes a batch with the samples first, or a Keras model's several inputs as ``model.fit`` takes them, joined along
their features (``sample_batch``). Every tensor of either passes ``checked_tensor``: floating point (Python numbers
become float32), not empty, within ``limits.max_elements``. The refusal of one bad input is the same in every API
of a family, with the API's name first (``tests/callable/`` runs each through each).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from .._foundations._cache import LRUCache
from .._foundations._errors import InputError, masked_message
from .._foundations._limits import Limits
from ._state import objects_read
from ._updates import refuse_updating

__all__ = ["check_callable", "checked_tensor", "float_tensor", "given_form", "joined", "refuse_composite",
           "refuse_discrete_inputs", "refuse_stateful", "sample_batch", "several_inputs", "to_batch", "xs_form"]


def check_callable(fn: Any, api: str, text: bool = False) -> None:
    """Refuse an ``fn`` that cannot be called (``text``: function text is taken too, as ``crosscheck`` takes it),
    or a Keras model with a stateful layer (``refuse_stateful``)."""
    if not callable(fn) and not (text and isinstance(fn, str)):
        raise InputError(f"{api} needs fn to be a callable (a Python function or a Keras model"
                         f"{', or function text' if text else ''}); got {type(fn).__name__}")
    refuse_stateful(fn, api)
    refuse_discrete_inputs(fn, api)


def refuse_discrete_inputs(fn: Any, api: str) -> None:
    """Refuse a Keras model with an integer input (token ids, which an Embedding looks up), whatever dtype x has.

    Ids are discrete: TensorFlow has no gradient through the lookup, and ids given as floats are cast back to
    integers inside the model, so every first and second derivative came out exactly 0: second order said it with a
    warning that blamed ReLU or abs, ``per_sample_gradients`` with none (hunt 54: an Embedding model on float ids
    answered all-zero Jacobians), ``per_element_gradients`` with a warning that its own check had failed.
    """
    try:
        inputs = list(getattr(fn, "inputs", None) or []) if hasattr(fn, "layers") else []
    except (AttributeError, ValueError, TypeError):   # a subclassed model not built yet: it declares no inputs
        return
    for t in inputs:
        dtype = tf.as_dtype(getattr(t, "dtype", None) or "float32")
        if dtype.is_integer or dtype.is_bool:
            name = str(getattr(t, "name", "x")).split(":")[0]
            raise InputError(
                f"{api} cannot differentiate this model by its input {name!r}: the model declares it {dtype.name} "
                "(token ids, which an Embedding looks up), and ids are discrete: TensorFlow has no gradient through "
                "the lookup, and ids given as floats are cast back to integers, so every derivative (first or "
                "second) would be 0. Differentiate with respect to the embedded vectors instead (a model that starts "
                "at the Embedding's output), or use gradlib.per_example_gradients for the weights")


def refuse_stateful(fn: Any, api: str) -> None:
    """Refuse a Keras model (or layer) with a layer built ``stateful=True`` (a recurrent layer that keeps its state
    from one batch to the next), or a function that reads one (in its closure, a global, an attribute of ``self``:
    ``_state.objects_read``), before anything calls it: every call changes that state, so each of the calls an
    API makes (its probes, its checks) sees another function, and the first probes had already changed the user's
    state before the opaque refusal that followed (hunt 47), or before an answer that no call of the user's has
    (``per_element_gradients`` of ``lambda x: model(x)``, hunt 48)."""
    named = _stateful_layers(fn)
    what = f"a model with a stateful layer ({named[0]!r}, built with stateful=True)" if named else ""
    if not named and not _is_layer(fn):
        for obj in objects_read(fn):
            named = _stateful_layers(obj)
            if named:
                name = str(getattr(obj, "name", type(obj).__name__))
                what = (f"fn: it reads the layer {name!r}, built with stateful=True" if obj is named[1] else
                        f"fn: it reads the model {name!r}, which has a stateful layer ({named[0]!r}, built with "
                        "stateful=True)")
                break
    if named:
        raise InputError(
            f"{api} cannot take {what}: that layer carries its state from one call to the next, so every call "
            "(gradlib calls it more than once) changes the state and computes another function of the inputs. Build "
            "the layer with stateful=False for gradients (copy the weights with set_weights); gradlib has not called "
            "it, so its state is as it was")


def _is_layer(obj: Any) -> bool:
    return getattr(obj, "_flatten_layers", None) is not None


def _stateful_layers(obj: Any) -> tuple:
    """``(name, layer)`` of the first layer of ``obj`` (itself included) built with ``stateful=True``, or ``()``."""
    flatten = getattr(obj, "_flatten_layers", None)
    if flatten is None or isinstance(obj, type):
        return ()
    try:
        layers = list(flatten(include_self=True, recursive=True))
    except (TypeError, AttributeError):
        return ()
    for layer in layers:
        if getattr(layer, "stateful", False) is True:
            return str(getattr(layer, "name", type(layer).__name__)), layer
    return ()


def refuse_composite(x: Any, api: str, where: str) -> None:
    """Refuse a ``tf.RaggedTensor`` or ``tf.SparseTensor`` by name, with the dense form to give instead: TensorFlow's
    own refusal to convert one was opaque ("object of type 'RaggedTensor' has no len()"), or printed every index.
    A NumPy masked array with values masked too: TensorFlow read the values under the mask, silently."""
    if isinstance(x, tf.RaggedTensor):
        raise InputError(f"{api} takes {where} as a dense array, and {where} is a tf.RaggedTensor (rows of "
                         f"different lengths, shape {tuple(x.shape)}). Pad its rows to one length "
                         f"({where}.to_tensor()) and, for a Keras model, mask the padding (keras.layers.Masking, "
                         "or Embedding(mask_zero=True))")
    if isinstance(x, tf.SparseTensor):
        raise InputError(f"{api} takes {where} as a dense array, and {where} is a tf.SparseTensor of dense shape "
                         f"{tuple(x.shape)}. Give tf.sparse.to_dense({where}): the derivatives are then over every "
                         "element, the zeros included")
    if isinstance(x, np.ma.MaskedArray) and np.ma.is_masked(x):
        raise InputError(masked_message(int(np.ma.count_masked(x)), x.size, api, where))



def float_tensor(x: Any, api: str, where: str) -> tf.Tensor:
    """``x`` as a floating-point tensor for ``api``; Python ints become float32, integer tensors are refused."""
    refuse_composite(x, api, where)
    try:
        tensor = tf.convert_to_tensor(x.value() if isinstance(x, tf.Variable) else x)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{api} could not turn {where} into a tensor: {exc}") from None
    if tensor.dtype.is_integer and isinstance(x, (int, float, list, tuple)):
        tensor = tf.cast(tensor, tf.float32)   # Python numbers: the user meant real numbers
    if not tensor.dtype.is_floating:
        why = ("TensorFlow's tape does not watch integer tensors, so every gradient would be None"
               if tensor.dtype.is_integer else "only real floating-point tensors have gradients here")
        raise InputError(f"{api} requires floating-point inputs, but {where} is {tensor.dtype.name}: {why}. "
                         f"Cast it first: tf.cast({where}, tf.float32)")
    return tensor


def checked_tensor(x: Any, api: str, where: str, limits: Limits) -> tf.Tensor:
    """``float_tensor``, not empty and within ``limits.max_elements``."""
    tensor = float_tensor(x, api, where)
    _check_elements(tensor, api, where, limits)
    return tensor


def _check_elements(tensor: tf.Tensor, api: str, where: str, limits: Limits) -> None:
    n = tensor.shape.num_elements()
    if n == 0:
        raise InputError(f"{api} got an empty {where}: shape {tuple(tensor.shape)}; give it at least one element")
    if n > limits.max_elements:
        raise InputError(f"{api}: {where} has {n:,} elements; at most {limits.max_elements:,} are allowed")


# ---------------------------------------------------------------- the per-element family: xs as tape.gradient takes it


def xs_form(xs: Any, api: str, limits: Limits, where: str = "xs") -> tuple[str, tuple[str, ...], list[tf.Tensor]]:
    """``(form, names, tensors)`` of ``xs``: form is ``single``, ``list`` or ``dict``; ``names`` label the columns
    (``x``; ``x0``, ``x1``, ...; the dict's keys), the tensors follow that order, checked and of one dtype."""
    if isinstance(xs, dict):
        keys = list(xs)
        if keys and not all(isinstance(k, str) and k for k in keys):
            raise InputError(f"{api} takes {where} as a dict with names (non-empty strings) as keys; got keys {keys!r}")
        form, names, items, wheres = "dict", tuple(keys), [xs[k] for k in keys], [f"{where}[{k!r}]" for k in keys]
    elif isinstance(xs, (list, tuple)):   # as tape.gradient takes it: a list is a list of tensors
        if xs and all(isinstance(part, (list, tuple)) for part in xs):
            raise InputError(f"{api} takes {where} as a tensor, a list of tensors or a dict of them, and {where} is a "
                             f"nested Python list, which could mean one tensor or a list of them. Give "
                             f"tf.constant({where}) for one tensor, or a list of tensors")
        form, names, items = "list", tuple(f"x{k}" for k in range(len(xs))), list(xs)
        wheres = [f"{where}[{k}]" for k in range(len(xs))]
    else:
        form, names, items, wheres = "single", ("x",), [xs], [where]
    if not items:
        raise InputError(f"{api} needs at least one tensor in {where}; got an empty {type(xs).__name__}")
    tensors = [checked_tensor(x, api, w, limits) for x, w in zip(items, wheres)]
    dtypes = sorted({t.dtype.name for t in tensors})
    if len(dtypes) > 1:
        raise InputError(f"{api} needs {where} of one dtype to lay their derivatives side by side; got "
                         f"{', '.join(dtypes)}. Cast them to one, for example tf.cast(x, tf.float64)")
    return form, names, tensors


def given_form(form: str, names: tuple[str, ...], tensors: list) -> Any:
    """``tensors`` in the form ``xs`` came in (``xs_form``'s ``form`` and ``names``), as fn gets them."""
    return tensors[0] if form == "single" else dict(zip(names, tensors)) if form == "dict" else list(tensors)


# ---------------------------------------------------------------- the per-sample family: a batch, the samples first

#: where a per-sample API sends a function of the whole batch (or of a few tensors)
WHOLE = {"per_sample_gradients": "per_element_gradients"}


def to_batch(x: Any, api: str, where: str, limits: Limits) -> tf.Tensor:
    """``x`` as one checked floating-point batch of rank 2 or more (``checked_tensor``); several arrays given for
    an ``fn`` that is not a Keras model of that many inputs are refused (they would be stacked as samples)."""
    if isinstance(x, dict) or (isinstance(x, (list, tuple)) and x and all(
            hasattr(part, "shape") and len(getattr(part, "shape", ())) >= 2 for part in x)):
        raise InputError(f"{api} takes {where} as one array of shape (B, d), the samples first, or a Keras model's "
                         f"several inputs as a list in the order of model.inputs; got "
                         f"{'a dict' if isinstance(x, dict) else f'{len(x)} arrays'} for an fn that is not a Keras "
                         "model of that many inputs. Give several inputs of a function as a dict by name (fn then "
                         "gets the dict), or join them into one array")
    tensor = float_tensor(x, api, where)
    _check_rank(tensor, api, where)
    _check_elements(tensor, api, where, limits)
    return tensor


def _check_rank(tensor: tf.Tensor, api: str, where: str) -> None:
    if tensor.shape.rank is None or tensor.shape.rank < 2:
        raise InputError(f"{api} needs a batch of shape (B, features...), but {where} has shape "
                         f"{tuple(tensor.shape)}. For a single sample, add a batch axis: {where}[None, :]; for one "
                         f"function of a few tensors, use gradlib.{WHOLE.get(api, 'hessians')}")


def sample_batch(fn: Callable, x: Any, api: str, limits: Limits) -> tuple[Callable, tf.Tensor, tuple]:
    """``(g, batch, inputs)``: ``fn`` and ``x`` as one function of one checked batch. A Keras model's several inputs
    (a list in the order of ``model.inputs``, or a dict by name, as ``model.fit`` takes them; a dict for any
    callable, which then gets the dict) are joined along their flattened features: each sample's derivatives are
    then over every input's elements, in that order; ``inputs`` is ``((name, per-sample shape), ...)``, else ``()``."""
    check_callable(fn, api)
    parts = several_inputs(fn, x, api)
    if not parts:
        tensor = to_batch(x, api, "x", limits)
        refuse_updating(fn, tensor, api)
        return fn, tensor, ()
    g, tensor = joined(fn, parts, isinstance(x, dict))
    _check_elements(tensor, api, "x", limits)
    refuse_updating(g, tensor, api)
    return g, tensor, tuple((name, tuple(t.shape[1:])) for name, t in parts)


def several_inputs(fn: Callable, x: Any, api: str) -> list[tuple[str, tf.Tensor]]:
    """A Keras model's several inputs given as ``model.fit`` takes them, as ``[(name, batch)]`` (in a list for a
    list, named by the model's inputs; in the dict's order for a dict); ``[]`` for one input.

    A dict is always several inputs; a list only when ``fn`` is a model with that many inputs (for any other
    callable a list is one batch, a list of per-sample rows).
    """
    inputs = getattr(fn, "inputs", None) if hasattr(fn, "trainable_variables") else None
    try:
        names = [str(getattr(t, "name", f"x{k}")).split(":")[0] for k, t in enumerate(inputs)] if inputs else []
    except TypeError:
        names = []
    if isinstance(x, dict):
        items = [(str(k), v) for k, v in x.items()]
    elif len(names) > 1 and isinstance(x, (list, tuple)) and len(x) == len(names):
        items = list(zip(names, x))
    else:
        return []
    parts = [(name, float_tensor(v, api, f"x[{name!r}]")) for name, v in items]
    for name, t in parts:
        if t.shape.rank is None or t.shape.rank < 2 or t.shape[0] != parts[0][1].shape[0]:
            raise InputError(f"{api} needs every input as a batch of shape (B, features...) with "
                             f"the same B; x[{name!r}] has shape {tuple(t.shape)} and x[{parts[0][0]!r}] "
                             f"{tuple(parts[0][1].shape)}")
    if len({t.dtype for _, t in parts}) > 1:
        raise InputError(f"{api} needs the inputs in one dtype to lay their derivatives side by side; got "
                         + ", ".join(f"x[{name!r}] {t.dtype.name}" for name, t in parts) + ". Cast them to one")
    return parts


#: (fn, how x was given, the inputs' names and shapes) -> fn of the joined batch, kept so its cache key holds
_JOINED = LRUCache(maxsize=32)


def joined(fn: Callable, parts: list[tuple[str, tf.Tensor]], as_dict: bool) -> tuple[Callable, tf.Tensor]:
    """``(g, x)``: the inputs joined along their flattened features into one batch ``x``, and ``g(x)`` = ``fn``
    of the inputs split back, as the dict or list they came in (so the Jacobian is over one tensor)."""
    names = tuple(name for name, _ in parts)
    shapes = tuple(tuple(t.shape[1:]) for _, t in parts)
    sizes = [math.prod(shape) for shape in shapes]

    def create():
        def of_joined(x):
            pieces = [tf.reshape(p, (-1,) + shape) for p, shape in zip(tf.split(x, sizes, axis=1), shapes)]
            return fn(dict(zip(names, pieces)) if as_dict else pieces)
        return of_joined

    try:
        g = _JOINED.get_or_create((fn, as_dict, names, shapes), create)
    except TypeError:   # fn is not hashable: a new one, not cached
        g = create()
    x = tf.concat([tf.reshape(t, (t.shape[0], -1)) for _, t in parts], axis=1)
    return g, x
