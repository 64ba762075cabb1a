"""Per-example gradients of a training loss with respect to a Keras model's weights, and their norms.

``tape.gradient(loss, model.trainable_variables)`` gives the gradient of the *summed* loss; a Python loop
over the examples is hundreds of times slower. Here one forward pass records, for every layer with a rule in
``_ghost`` (Dense, Embedding, Conv1D/2D, normalization), the layer's input and its pre-activation output ``z``;
one backward pass of the summed loss gives ``dL_i/dz_i`` for every example at once (example ``i``'s loss
depends on no other example's ``z``), and each layer's rule turns that into per-example gradient norms (or,
when asked, the gradients). Variables of any other layer (or read by more than one call) take a loop over the
examples, each run alone as a batch of one: always correct, only slower. Each example's loss in the batch is
compared with its loss alone on the first call of a compiled step for each batch signature, and again whenever
the model's weights change (``_callable._weights``: a fingerprint of the weights computed in the same pass); a model whose
examples are not independent (BatchNormalization in training mode, a batch-centering layer) has no per-example
gradients and is refused.

>>> import keras
>>> model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, use_bias=False)])
>>> model.set_weights([np.array([[1.0], [2.0]], np.float32)])
>>> r = per_example_gradients(model, [[1.0, 0.0], [0.0, 3.0]], [0.0, 0.0], loss=lambda y, p: 0.5 * p[:, 0] ** 2)
>>> r.losses.tolist(), r.norms.tolist(), r.method
([0.5, 18.0], [1.0, 18.0], 'layerwise')
>>> [g.tolist() for g in r.gradients]    # example 0: p * x = 1 * [1, 0]; example 1: 6 * [0, 3]
[[[[1.0], [0.0]], [[0.0], [18.0]]]]
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import keras
import numpy as np
import tensorflow as tf

from .._foundations import _runtime
from . import _structure
from .._foundations._cache import LRUCache
from .._foundations._errors import (BatchMixingError, ExpressionError, GradlibError, InputError, error_gist,
                                   error_sentence)
from .._foundations._format import format_number
from .._callable import _weights
from ._ghost import Capture, accepts, rule_for
from .._foundations._limits import LIMITS, Limits
from .._callable._random import draws_random, random_objects
from .._callable._trace import fixed_caller, trace
from .._callable._forms import refuse_stateful
from .._callable._updates import refuse_updating
from .._callable._state import plain_model
from .._foundations._runtime import returns_numpy
from ._tokens import GATHER_HINT, GATHER_OUT_OF_RANGE, check_token_ids

try:   # Keras' call context: how a model's training flag reaches the layers inside a layer that takes none (private)
    from keras.src.backend.common import global_state as _keras_state
    from keras.src.layers.layer import CallContext as _CallContext
except ImportError:   # pragma: no cover - a Keras that moved it: every model is one opaque call (the loop: right)
    _keras_state = _CallContext = None

__all__ = ["PROBE_EXAMPLES", "PerExampleResult", "Route", "check_first_examples", "check_floats", "check_independent",
           "loss_vector", "per_example_gradients", "per_example_terms", "weighted_gradient"]

#: how many examples the independence probe runs jointly and one by one
PROBE_EXAMPLES = 3
#: examples the per-example loop runs at once (``tf.map_fn``'s ``parallel_iterations``): its memory in flight
PARALLEL_EXAMPLES = 8
#: floats a recurrent layer keeps per step and per unit of its gates and input (activations and what their
#: backward pass keeps): the resident memory measured per example (B = 512, 20 steps, 32 units, 8 inputs) was
#: 4 per unit for SimpleRNN, 7.2 for GRU and 5.5 for LSTM (tests/perexample/test_gradients.py measures the SimpleRNN)
RECURRENT_FLOATS_PER_STATE = 8
#: compiled per-batch functions kept per process (each holds its model)
_BATCH_FUNCTIONS = LRUCache(maxsize=32)


@dataclass(frozen=True)
class Route:
    """How a model's per-example gradients are computed; decided when the per-batch function is traced.

    ``method``: ``ghost`` (norms from the per-layer rules, no per-example gradient materialized), ``layerwise``
    (per-example gradients from the per-layer rules), ``loop`` (each example run alone, as a batch of one, in a
    ``tf.while_loop``), joined by ``+`` when both kinds ran. ``fallback``: the layers whose variables took the
    loop. The floats the computation allocates at most are ``floats_per_example * B + floats_per_batch``:
    per example its activations (every layer's output, a recurrent layer's steps: the batch's forward pass
    itself), its rules' work and what is returned; per batch the loop's ``PARALLEL_EXAMPLES`` examples in
    flight, each with its activations and its gradient.
    """

    method: str
    fallback: tuple[str, ...]
    floats_per_example: int
    floats_per_batch: int = 0


@dataclass(frozen=True, eq=False)
class PerExampleResult:
    """Per-example losses, gradient norms and (unless ``norms_only``) gradients, as NumPy data.

    ``gradients[k][i]`` is example ``i``'s gradient of its loss with respect to ``model.trainable_variables[k]``;
    ``norms[i]`` the L2 norm of example ``i``'s gradient over all trainable variables together. ``regularization``
    is the gradient of the model's weight regularization (its variables' ``kernel_regularizer`` and the like, the
    terms of ``model.losses`` that depend on no example), one array per trainable variable, ``None`` without
    any: it is in no example's loss or gradient, and ``mean`` and ``clipped_mean`` add it once, as ``model.fit``
    adds it once per batch.
    """

    losses: np.ndarray
    norms: np.ndarray
    gradients: list[np.ndarray] | None
    method: str
    variable_names: tuple[str, ...]
    fallback: tuple[str, ...]
    seconds: float
    warnings: tuple[str, ...] = ()
    regularization: list[np.ndarray] | None = field(default=None, repr=False)
    _reweighted: Callable[[np.ndarray], list[np.ndarray]] | None = field(default=None, repr=False)

    @property
    def batch_size(self) -> int:
        return int(self.losses.shape[0])

    def clip_factors(self, clip_norm: float) -> np.ndarray:
        """``min(1, clip_norm / ||g_i||)`` per example (1 for a zero gradient): what DP-SGD scales each by."""
        clip_norm = _check_clip_norm(clip_norm)
        with np.errstate(divide="ignore"):
            return np.where(self.norms > clip_norm, clip_norm / self.norms, 1.0)

    def clipped_mean(self, clip_norm: float) -> list[np.ndarray]:
        """DP-SGD's clipped mean (without noise): ``mean_i g_i * min(1, clip_norm / ||g_i||)``, per variable, plus
        ``regularization`` (not clipped: it depends on no example).

        From the stored gradients when there are any, otherwise with one re-weighted backward pass of the
        whole batch (the gradient of ``sum_i w_i L_i``), not one per example. ``clip_norm=np.inf`` gives the
        plain mean gradient. With ``training=True`` and random layers (Dropout), that pass draws new randomness,
        as a second pass does in TensorFlow Privacy's fast clipping; stored gradients do not.
        """
        weights = self.clip_factors(clip_norm) / self.batch_size
        if self.gradients is not None:
            means = [np.tensordot(weights.astype(g.dtype), g, axes=1) for g in self.gradients]
        elif self._reweighted is None:
            raise GradlibError("this PerExampleResult has neither gradients nor its model: compute it again")
        else:
            means = self._reweighted(weights)
        if self.regularization is None:
            return means
        return [m + r.astype(m.dtype) for m, r in zip(means, self.regularization)]

    def mean(self) -> list[np.ndarray]:
        """The batch gradient ``model.fit`` takes, per variable: the mean of the per-example gradients (the gradient
        of the mean loss) plus ``regularization``. That is model.fit's for a loss that averages over the batch (Keras'
        default ``reduction="sum_over_batch_size"``); one reduced by ``"sum"`` (or not at all) gives model.fit the
        sum of the per-example gradients, ``B`` times this mean."""
        return self.clipped_mean(np.inf)


@returns_numpy("gradlib.per_example_gradients")
def per_example_gradients(model: Any, x: Any, y: Any, *, loss: Any = None, loss_weights: Any = None,
                          norms_only: bool = False, training: bool = False,
                          limits: Limits = LIMITS) -> PerExampleResult:
    """Each example's loss, gradient norm and gradient with respect to ``model.trainable_variables``.

    Returns NumPy, on no tape: under a recording tape it warns (``gradlib.NotDifferentiableWarning``).

    Args:
        model: a Keras model (Sequential, functional or subclassed); layers without a fast rule are handled by
            the per-example loop.
        x: the batch as the model takes it, ``(B, ...)``: floats, or integer token ids for an Embedding; for a
            model with several inputs a list of such arrays (in the order of ``model.inputs``) or a dict keyed by
            input name, as ``model.fit`` takes them.
        y: the targets, ``(B, ...)``; for a model with several outputs a list or a dict keyed by output name.
        loss: a Keras loss object (its unreduced values, reduced over any axes after the batch axis as the loss
            reduces a batch of one: summed for ``reduction="sum"`` or none, averaged otherwise), a callable
            ``(y_true, y_pred) -> (B,)``, a Keras loss name (``"sparse_categorical_crossentropy"``), or one of
            these per output (a list, or a dict keyed by output name). ``None``: the loss the model was compiled
            with (refused for a model whose class overrides ``train_step`` or ``compute_loss``).
        loss_weights: for a model with several outputs, one weight per output (a list or dict): example ``i``'s
            loss is ``sum_k loss_weights[k] * L_k``, as Keras adds them. ``None``: the compiled weights, or 1.
        norms_only: compute the losses and norms only (the fast path; ``gradients`` is ``None``).
        training: the ``training`` argument of the model's layers (Dropout active, BatchNormalization refused).
            Random layers draw anew on every call (not seeded by gradlib); each example's loss and gradient come
            from the same draw.
        limits: ``max_elements`` bounds ``x`` and ``y``; ``max_jacobian`` the floats allocated per batch.

    Returns:
        A ``PerExampleResult``. Example ``i``'s loss is the loss function's on it alone; the model's weight
        regularization (``kernel_regularizer`` and the like) depends on no example and is in none of them: its
        gradient is ``regularization``, which ``mean`` and ``clipped_mean`` add once, as ``model.fit`` adds it
        once per batch. A loss the model adds during its call (an ``activity_regularizer``, ``add_loss``) depends
        on the examples and is refused.

    Example:
        >>> import keras
        >>> model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        >>> loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        >>> r = per_example_gradients(model, np.ones((4, 3), np.float32), [0, 1, 0, 1], loss=loss)
        >>> r.losses.shape, r.norms.shape, [g.shape for g in r.gradients]
        ((4,), (4,), [(4, 3, 2), (4, 2)])

    Raises:
        ExpressionError: a request over the limits (a kind of ``GradlibError``).
        GradlibError: a bad model, batch or loss; a model that adds a loss during its call (``add_loss``).
        BatchMixingError: an example's loss depends on other examples (BatchNormalization in training mode),
            checked per batch signature and weights (docs/guide/per-example.md says what is checked when).
        InputError: labels the loss broadcasts across the batch, or the model and loss failing on this batch.
    """
    _check_model(model)
    xt, yt = _check_batch(model, x, y, limits)
    check_token_ids(model, xt, "per_example_gradients")
    loss = _check_loss(model, loss, loss_weights, yt)
    losses, norms, grads, plan, seconds = _computed(model, loss, norms_only, bool(training), xt, yt, limits)
    reweighted = None if grads is not None else functools.partial(_reweighted, model, loss, bool(training), xt, yt)
    variables = model.trainable_variables   # read once for both (a Keras model walks its layers for it)
    return PerExampleResult(losses=losses, norms=norms, gradients=grads, method=plan.method,
                            variable_names=tuple(v.path for v in variables), fallback=plan.fallback,
                            seconds=seconds, warnings=_warnings(losses, norms) + _random_warning(model, training),
                            regularization=_regularization_gradient(model, variables), _reweighted=reweighted)


def _computed(model: Any, loss: Any, norms_only: bool, training: bool, xt: Any, yt: Any, limits: Limits):
    """The checked batch's ``(losses, norms, gradients or None, plan, seconds)``, in a work slot: the compiled step
    for this model, loss and signature (traced once), the floats it allocates bounded, the batch's mixing checked
    (where the step's record has no check of this batch signature at these weights, ``_callable._weights``)."""
    kind = "norms" if norms_only else "gradients"
    with _runtime.work_slot():
        start = time.perf_counter()
        compiled, plan, record, caller = _compiled(model, loss, kind, training, xt, yt)
        check_floats(plan, _structure.batch_size(xt), limits, "per_example_gradients", "for this batch",
                     "Use a batch of at most {n}", "" if plan.method.startswith("ghost") or norms_only else
                     "norms_only=True")
        signature = (_structure.signature(xt), _structure.signature(yt))   # the batch size included
        last = record.get(signature)
        out = _run_compiled(compiled, caller, xt, yt, last)
        losses, norms = out[0].numpy(), out[1].numpy()
        if bool(out[5]):   # checked on this call (elsewhere both sides are the losses): independent, then on record
            check_independent(out[2].numpy(), out[3].numpy(), "per_example_gradients", loss=loss, training=training)
            record.put(signature, out[4])
        grads = [t.numpy() for t in out[6:]] if kind == "gradients" else None
        return losses, norms, grads, plan, time.perf_counter() - start


# ---------------------------------------------------------------- the per-batch computation (traceable)


def per_example_terms(model: Any, loss: Any, x: tf.Tensor, y: tf.Tensor, *, training: bool = False,
                      gradients: bool = False, verify: tf.Tensor | None = None, api: str = "per_example_gradients"
                      ) -> tuple[tf.Tensor, tf.Tensor, list[tf.Tensor] | None, Route, tuple]:
    """``(losses, norms, gradients or None, plan, check)`` of one batch, as tensors: runs inside ``tf.function``.

    One forward pass through the model's layers (each rule's layer run by its rule), one backward pass of the
    summed loss to each rule's ``z``, each rule's norms or gradients, and, for the variables no rule covers,
    a loop over the examples, each run alone as a batch of one (``_one_by_one``). Call it inside a
    ``tf.function`` (or ``strategy.run``); the model must be built. The ``plan`` is plain Python, fixed at trace
    time. ``check`` is ``(joint, alone)``: each example's loss computed in the batch and alone, two ``(B,)``
    tensors that ``check_independent`` compares (see there for what their equality proves); where the loop did not
    run, the alone side costs a forward pass, and a bool tensor ``verify`` runs it only where true (elsewhere both
    are ``losses``: ``per_example_gradients`` checks once per step, batch signature and weights, ``_callable._weights``).
    ``api`` names the caller in a refusal of the loss.
    """
    vector = functools.partial(loss_vector, loss, api=api)   # (y_true, y_pred) -> (B,)
    recorder = _Recorder(training)
    with tf.GradientTape(persistent=True) as tape:
        outputs = recorder.forward(model, x)
        losses = recorder.read(lambda: vector(y, outputs))   # a loss that reads a weight is a use
        total = tf.reduce_sum(losses)
    claimed, fallback = recorder.split(model)
    random = training and _random_layers(model)
    if random and fallback:   # one random draw per example: its whole gradient comes from the loop's pass
        claimed, fallback = [], list(model.trainable_variables)
    dz = tape.gradient(total, [c.z for c in claimed], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    acc = _accumulated(losses.dtype, model.trainable_variables)
    alone, looped = _one_by_one(model, vector, x, y, fallback, training, gradients, losses.dtype, acc)
    if random and fallback:
        losses = alone
    if gradients:
        by_variable = {id(v): j for v, j in zip(fallback, looped)}
        for c, g in zip(claimed, dz):
            by_variable.update(zip(map(id, c.rule.variables(c.layer)), c.rule.gradients(c.layer, c.a, g)))
        grads = [tf.cast(by_variable[id(v)], acc) for v in model.trainable_variables]
        norm_sq = tf.add_n([_row_sq(t) for t in grads])
    else:
        grads = None
        terms = [c.rule.norm_sq(c.layer, c.a, g) for c, g in zip(claimed, dz)] + looped
        norm_sq = tf.add_n([tf.cast(t, acc) for t in terms])
    check = _check_pair(model, vector, x, y, training, random, losses, alone if fallback else None, verify)
    plan = _route(model, recorder, claimed, fallback, gradients)
    return losses, tf.sqrt(norm_sq), grads, plan, check


def _check_pair(model: Any, vector: Callable, x: Any, y: tf.Tensor, training: bool, random: bool,
                losses: tf.Tensor, alone: tf.Tensor | None, verify: tf.Tensor | None) -> tuple[tf.Tensor, tf.Tensor]:
    """``(joint, alone)`` for ``check_independent`` (``vector(y, y_pred)``: the loss's ``loss_vector``). The loop's
    losses (``alone``) come free; otherwise the alone side is one more forward pass (``_alone_losses``), run only
    where ``verify`` (a bool tensor) holds, ``(losses, losses)`` elsewhere: nothing compared. With random layers in
    training mode both sides are inference passes."""
    if random:   # the batch's draws differ from any other pass's: both sides of the check run in inference mode
        both = lambda: (vector(y, model(x, training=False)), _alone_losses(model, vector, x, y, False))  # noqa: E731
    elif alone is not None:
        return losses, alone
    else:
        both = lambda: (losses, _alone_losses(model, vector, x, y, training))  # noqa: E731
    if verify is None:
        return both()
    return tf.cond(verify, both, lambda: (losses, losses))


def weighted_gradient(model: Any, loss: Any, x: tf.Tensor, y: tf.Tensor, weights: tf.Tensor, *,
                      training: bool = False) -> list[tf.Tensor]:
    """The gradient of ``sum_i weights[i] * L_i`` per trainable variable: one backward pass (traceable).

    With ``weights = min(1, C / ||g_i||) / B`` this is DP-SGD's clipped mean gradient (before noise).
    """
    with tf.GradientTape() as tape:
        losses = loss_vector(loss, y, model(x, training=training))
        total = tf.reduce_sum(tf.stop_gradient(tf.cast(weights, losses.dtype)) * losses)
    grads = tape.gradient(total, model.trainable_variables)   # ZERO here fails on a Keras variable's string dtype
    # a variable the loss does not reach (an output without a loss) gets zeros; an Embedding's IndexedSlices a tensor
    return [tf.zeros(v.shape, v.dtype) if g is None else tf.convert_to_tensor(g)
            for v, g in zip(model.trainable_variables, grads)]


def loss_vector(loss: Any, y_true: Any, y_pred: Any, *, added: bool = False,
                api: str = "per_example_gradients") -> tf.Tensor:
    """The per-example losses ``(B,)``: a Keras loss unreduced, then reduced over the axes after the batch as
    model.fit reduces a batch of one (the sum for a reduction in ``_SUMMED``, otherwise the mean); a callable's
    values; for a ``PerOutputLoss``, the weighted sum of each output's.

    A Keras loss applies the Keras mask of ``y_pred`` (``Masking``, ``Embedding(mask_zero=True)``) as
    ``loss(y_true, y_pred)`` does on a batch of one example: the mean over that example's unmasked elements
    (0 when it has none), or their sum for a reduction in ``_SUMMED``. ``added``: the loss is one of several
    outputs' that Keras adds (``_refuse_broadcast``). ``api`` names the caller in a refusal.
    """
    if isinstance(loss, _structure.PerOutputLoss):
        return loss.total(y_true, y_pred, functools.partial(loss_vector, added=len(loss.losses) > 1, api=api), api)
    if isinstance(loss, _structure.CompiledFunction):   # model.compile's wrapper around a loss function
        loss = loss.wrapper()
    if isinstance(loss, keras.losses.Loss):
        mask = getattr(y_pred, "_keras_mask", None)   # read before any conversion drops it
        values = loss.call(keras.ops.convert_to_tensor(y_true, dtype=loss.dtype),
                           keras.ops.convert_to_tensor(y_pred, dtype=loss.dtype))
        mask = _both_masks(mask, getattr(values, "_keras_mask", None))
        values = tf.convert_to_tensor(values)
        if added:
            _refuse_broadcast(loss, values, api)
        summed = getattr(loss, "reduction", None) in _SUMMED   # model.fit sums a sequence's steps then, not averages
        if mask is not None:
            values = _masked_mean(values, mask, summed)
        elif values.shape.rank is not None and values.shape.rank > 1:
            reduce = tf.reduce_sum if summed else tf.reduce_mean
            values = reduce(values, axis=list(range(1, values.shape.rank)))
    else:
        try:
            values = tf.convert_to_tensor(loss(y_true, y_pred))
        except (TypeError, ValueError, tf.errors.InvalidArgumentError) as exc:
            raise GradlibError(f"{api}: the loss failed on y_true of shape {tuple(y_true.shape)} and "
                               f"y_pred of shape {tuple(y_pred.shape)}: {error_sentence(exc)} {_PARTS}") from exc
    if values.shape.rank == 0:
        raise _one_number_error(loss, y_pred, api)
    if values.shape.rank != 1:
        raise GradlibError(
            f"{api} needs one loss per example, shape (B,), but the loss returned shape "
            f"{tuple(values.shape)}. Reduce the axes after the batch in your loss, e.g. tf.reduce_mean(..., "
            f"axis={list(range(1, values.shape.rank))})")
    if not values.dtype.is_floating:
        raise GradlibError(f"{api}: the loss must return floating-point values, not {values.dtype.name}")
    return values


def _one_number_error(loss: Any, y_pred: Any, api: str) -> GradlibError:
    """The refusal of a loss that returned one number for the whole batch, with the fix for its kind: the axes of a
    Keras loss taking ``axis`` (Dice, Tversky: ``axis=None`` reduces the batch too), ``call`` of another Keras 3
    loss object, ``reduction='none'`` for a Keras 2 one (which reduces the batch by default), a function's values."""
    head = f"{api} needs one loss per example, shape (B,), but the loss returned one number for the whole "
    fn = getattr(loss, "fn", loss) if isinstance(loss, keras.losses.Loss) or inspect.isfunction(loss) else None
    axis = _parameter(fn, "axis")
    if axis is not None:
        axes = tuple(range(1, max(2, y_pred.shape.rank or 2)))
        given = getattr(loss, "_fn_kwargs", {}).get("axis", axis.default)
        cls = getattr(keras.losses, fn.__name__.title(), None)   # keras.losses.dice's class is keras.losses.Dice
        made = (f"keras.losses.{cls.__name__}(axis={axes})" if isinstance(cls, type) and
                getattr(cls(), "fn", None) is fn else f"functools.partial({fn.__module__}.{fn.__name__}, axis={axes})")
        return GradlibError(
            f"{head}batch: {_loss_name(loss)!r} has axis={given!r}, so it reduces every axis, the batch's included "
            f"(one value of the whole batch, which has no per-example gradient). Give it the axes after the batch, "
            f"axis={axes}, so each example gets its own value: loss={made}")
    if isinstance(loss, keras.losses.Loss):
        return GradlibError(
            f"{head}batch: the call of the Keras loss object {_loss_name(loss)!r} reduces the batch. Make its call "
            "return one value per example (reduce only the axes after the batch); Keras reduces the batch itself")
    if hasattr(loss, "reduction"):
        return GradlibError(
            f"{head}batch: it reduces the batch, as a Keras 2 (tf_keras) loss object does by default. Make it with "
            "reduction='none', or use the Keras 3 loss (keras.losses)")
    return GradlibError(f"{head}batch: the loss function reduces the batch. Return one value per example (reduce only "
                        "the axes after the batch)")


def _parameter(fn: Any, name: str) -> inspect.Parameter | None:
    """The parameter ``name`` of the function ``fn``; ``None`` without one (or a signature Python cannot read)."""
    try:
        return inspect.signature(fn).parameters.get(name) if fn is not None else None
    except (TypeError, ValueError):
        return None


#: the reductions of a Keras loss under which model.fit sums an example's elements (a sequence's steps): ``"sum"``,
#: and none at all (``None``, ``"none"``: Keras returns the values unreduced, and model.fit's ``tape.gradient``
#: differentiates their sum; gradlib averaged them, a 4-step loss of 1.40 where model.fit's is 5.62)
_SUMMED = ("sum", "none", None)
#: why a loss may see fewer examples than the batch, and what it must be then
_PARTS = ("The loss is also called on parts of the batch (its first examples, one example alone), so it must compute "
          "each example's loss from that example's y_true and y_pred only: a loss that reads an array of the whole "
          "batch (sample weights it closes over) cannot be split by example; put such weights in y instead")


def _refuse_broadcast(loss: Any, values: tf.Tensor, api: str) -> None:
    """Refuse an unreduced Keras loss (``reduction=None`` or ``"none"``) of several values per example added to other
    outputs' losses: Keras' ``CompileLoss`` adds the outputs' losses with ``+``, which broadcasts each other output's
    loss over those values, so model.fit's gradient counts it once per value (4 times beside a 4-step sequence's
    unreduced loss: 8.59 where the steps summed and the other loss add up to 5.47, hunt 53)."""
    if getattr(loss, "reduction", "") not in (None, "none") or values.shape.rank is None or values.shape.rank < 2:
        return
    per_example = values.shape[1:].num_elements()
    if per_example == 1:
        return
    what = f"{per_example} values" if per_example is not None else "a number of values"
    raise GradlibError(
        f"{api}: the loss {getattr(loss, 'name', type(loss).__name__)!r} has reduction="
        f"{loss.reduction!r} and returns {what} per example (shape {tuple(values.shape[1:])} after the batch), "
        "beside the losses of other outputs; Keras adds the outputs' losses with broadcasting, so model.fit counts "
        "each other output's loss once per value of this one. Give this loss reduction='sum' (each example's values "
        "summed, as model.fit differentiates them) or 'sum_over_batch_size'")


def _alone(api: str, values: np.ndarray) -> np.ndarray:
    """One example's loss, computed alone: refused unless it is one value."""
    if values.shape != (1,):
        raise GradlibError(f"{api}: the loss returned shape {values.shape} for one example alone; "
                           f"it must return one value per example. {_PARTS}")
    return values


def _both_masks(a: Any, b: Any) -> Any:
    """Keras' ``Loss.__call__``: the mask of the predictions and the mask of the loss values, and-ed."""
    if a is None or b is None:
        return a if b is None else b
    return tf.logical_and(tf.cast(a, tf.bool), tf.cast(b, tf.bool))


def _masked_mean(values: tf.Tensor, mask: Any, summed: bool = False) -> tf.Tensor:
    """Each example's mean loss over its unmasked elements, 0 without any (Keras' ``divide_no_nan``); their sum
    when ``summed``."""
    weights = tf.cast(mask, values.dtype)
    rank, mask_rank = values.shape.rank, weights.shape.rank
    if mask_rank == rank + 1 and weights.shape[-1] == 1:   # Keras' squeeze_or_expand_to_same_rank
        weights = tf.squeeze(weights, -1)
    elif rank == mask_rank + 1 and values.shape[-1] == 1:
        values = tf.squeeze(values, -1)
    elif rank < mask_rank:   # one value per example (a function's own mean) weighs each unmasked step alike
        values = tf.broadcast_to(tf.reshape(values, tf.concat([tf.shape(values), tf.ones([mask_rank - rank], tf.int32)],
                                                              0)), tf.shape(weights))
    weights = tf.broadcast_to(weights, tf.shape(values))
    axes = list(range(1, values.shape.rank))
    if not axes:
        return values * weights
    if summed:
        return tf.reduce_sum(values * weights, axis=axes)
    return tf.math.divide_no_nan(tf.reduce_sum(values * weights, axis=axes), tf.reduce_sum(weights, axis=axes))


def _row_sq(t: tf.Tensor) -> tf.Tensor:
    """Each example's sum of squares: ``(B, ...) -> (B,)``."""
    t = tf.reshape(t, [tf.shape(t)[0], -1])
    return tf.reduce_sum(tf.square(t), axis=1)


def _one_by_one(model: Any, vector: Callable, x: Any, y: tf.Tensor, variables: list, training: bool,
                gradients: bool, dtype: tf.DType, acc: tf.DType) -> tuple[tf.Tensor | None, list[tf.Tensor]]:
    """Each example run alone, as a batch of one, in a ``tf.while_loop``: ``(its losses, [terms])``
    (``vector(y, y_pred)``: the loss's ``loss_vector``).

    The terms are, for ``variables``, each example's gradients (``gradients``) or its squared norm: exactly the
    per-example loop's. Nothing is vectorized across examples: pfor's jacobian ran a backward pass of the whole
    batch per example (memory ``B^2`` times an example's activations: +6.8 GB for a SimpleRNN of 1,411 weights
    at B = 512) and its rule for grouped convolutions gave kernel gradients 130-160% off. Here memory is the
    gradients returned plus ``PARALLEL_EXAMPLES`` examples' passes in flight. ``(None, [])`` without variables.
    The losses come in ``dtype``, the terms in ``acc`` (``_accumulated``).
    """
    if not variables:
        return None, []

    def one(example):
        xi, yi = (tf.nest.map_structure(lambda t: t[None], part) for part in example)
        with tf.GradientTape() as tape:
            value = tf.cast(vector(yi, model(xi, training=training))[0], dtype)
        grads = tape.gradient(value, variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        grads = [tf.cast(tf.convert_to_tensor(g), acc) for g in grads]   # an Embedding's come as IndexedSlices
        if gradients:
            return (value, *grads)
        return value, tf.add_n([tf.reduce_sum(tf.square(g)) for g in grads])

    shapes = [tuple(v.shape) for v in variables] if gradients else [()]
    signature = (tf.TensorSpec((), dtype), *(tf.TensorSpec(shape, acc) for shape in shapes))
    out = tf.map_fn(one, (x, y), fn_output_signature=signature, parallel_iterations=PARALLEL_EXAMPLES)
    return out[0], list(out[1:])


def _accumulated(dtype: tf.DType, variables: list = ()) -> tf.DType:
    """The dtype of the gradients and norms: the widest of the losses' and the trainable variables', at least 32
    bits. A half-precision loss (a loss function computing in a mixed_float16 model's float16) had them summed in
    float16: squared norms overflowed past 65,504, and the rest lost the digits the backward check compares (17.1406
    from the batch where 17.1499 alone: refused as a backward pass that mixes the examples, hunt 53). A float32 loss
    (a Keras loss computes in floatx) of a float64 model had its float64 gradients' norms rounded to float32."""
    sizes = [dtype] + [tf.as_dtype(v.dtype) for v in variables if tf.as_dtype(v.dtype).is_floating]
    widest = max(sizes, key=lambda d: d.size)
    return tf.float32 if widest.size < 4 else widest


def _alone_losses(model: Any, vector: Callable, x: Any, y: tf.Tensor, training: bool) -> tf.Tensor:
    """Each example's loss computed alone, as a batch of one: ``tf.vectorized_map`` of the forward pass
    (``vector(y, y_pred)``: the loss's ``loss_vector``).

    pfor runs the function once per example by construction, so no example can see another (an op pfor cannot
    vectorize runs in a while_loop instead); it costs about one more forward pass of the batch.
    """
    def one(example):
        xi, yi = (tf.nest.map_structure(lambda t: t[None], part) for part in example)
        return vector(yi, model(xi, training=training))[0]

    return tf.vectorized_map(one, (x, y))


def _random_layers(model: Any) -> bool:
    """Whether a layer draws random numbers in training mode: it holds a Keras ``SeedGenerator`` or a
    ``tf.random.Generator`` under any name (Dropout's ``seed_generator``, RandomFlip's ``generator``)."""
    return draws_random(model)


def _route(model: Any, recorder: "_Recorder", claimed: list[Capture], fallback: list, gradients: bool) -> Route:
    owners: dict[int, str] = {}
    for layer in _layers(model):   # outermost first: a GRU, not its cell
        owners.update((id(v), layer.name) for v in layer.trainable_variables if id(v) not in owners)
    names = tuple(dict.fromkeys(owners.get(id(v), v.path) for v in fallback))
    kinds = (("layerwise" if gradients else "ghost") if claimed else "", "loop" if fallback else "")
    method = "+".join(kind for kind in kinds if kind)
    sizes = sum(math.prod(v.shape) for v in fallback)
    floats = recorder.floats + sum(c.rule.floats(c.layer, c.a) for c in claimed) + (sizes if gradients else 1)
    if gradients:
        floats += sum(math.prod(v.shape) for v in model.trainable_variables)
    fixed = PARALLEL_EXAMPLES * (recorder.floats + 2 * sizes) if fallback else 0
    return Route(method=method, fallback=names, floats_per_example=int(floats), floats_per_batch=int(fixed))


# ---------------------------------------------------------------- running the model layer by layer


class _Recorder:
    """Runs a model through its layers, letting each rule run the calls it covers and recording them.

    Functional and Sequential models are walked node by node with Keras' own graph runner (private API of
    Keras 3's ``Functional``; without it, or for a subclassed model, the whole model is one opaque call and
    every variable takes the per-example loop: slower, still right). A Sequential or functional model whose
    class defines its own ``call`` (``gradlib._callable._state.plain_model``) is such an opaque call too: walking its
    layers ran the bare layers, not its call.
    """

    def __init__(self, training: bool):
        self.training = training
        self.captures: list[Capture] = []
        self.others: list[Any] = []   # operations run as they are: their variables take the loop
        self.reads: Counter = Counter()   # variable -> how many calls read it (a rule's own call included)
        self.floats = 0   # floats of one example's activations: every call's outputs, a recurrent layer's steps

    def forward(self, model: Any, x: Any) -> Any:
        """The model's outputs on ``x``, walked inside the call context ``model(x, training=...)`` enters
        (``_call_context``); without Keras' call context to enter, the model is one opaque call."""
        if _CallContext is None:   # pragma: no cover
            return self.opaque(model, x)
        with _call_context(model, self.training):
            return self.run(model, x)

    def run(self, model: Any, x: Any) -> Any:
        if plain_model(model):   # its layers are its call; a class of one's own may compute anything in its call
            graph = getattr(model, "_functional", None) if isinstance(model, keras.Sequential) else model
            if hasattr(graph, "_run_through_graph") and hasattr(graph, "_standardize_inputs"):
                inputs = graph._standardize_inputs(x)
                out = graph._run_through_graph(inputs, operation_fn=lambda op: functools.partial(self.call, op))
                return out[0] if isinstance(out, (list, tuple)) and len(out) == 1 else out
            if isinstance(model, keras.Sequential):
                for layer in model.layers:
                    x = self.call(layer, x)
                return x
        return self.opaque(model, x)

    def opaque(self, model: Any, x: Any) -> Any:
        """``model(x, training=...)`` as one call: all of its variables take the per-example loop."""
        _refuse_training_batchnorm(model, self.training)
        self.others.append(model)
        return self.read(lambda: model(x, training=self.training), model, x)

    def call(self, op: Any, *args: Any, **kwargs: Any) -> Any:
        if _takes_training(op):
            kwargs["training"] = self.training   # as Keras does: the model's training reaches every layer
        if isinstance(op, keras.layers.BatchNormalization) and kwargs.get("training") and op.trainable:
            raise _mixing_error(f"layer {op.name!r} is a BatchNormalization called in training mode: it normalizes "
                                "each example with statistics of the whole batch")
        extra = {k: v for k, v in kwargs.items() if k != "training" and v is not None}
        if isinstance(op, keras.Model) and len(args) == 1 and not extra:
            return self.run(op, args[0])
        rule = rule_for(op)
        if rule is not None and len(args) == 1 and not extra and accepts(rule, op, args[0]) and _covers(rule, op):
            y, a, z = rule.forward(op, args[0], self.training)
            self.captures.append(Capture(op, rule, a, z))
            self.reads.update(_variable_key(v) for v in rule.variables(op))
            self.floats += _example_floats(y) + (_example_floats(z) if z is not y else 0)
            return y
        if isinstance(op, keras.layers.Layer):
            _refuse_training_batchnorm(op, self.training)
            self.others.append(op)
        return self.read(lambda: op(*args, **kwargs), op, args[0] if args else None)

    def read(self, fn: Callable[[], Any], op: Any = None, x: Any = None) -> Any:
        """``fn()``, counting the variables it reads (one read per call) and its output's floats per example."""
        with tf.GradientTape() as watch:
            out = fn()
        self.reads.update({_variable_key(v) for v in watch.watched_variables()})
        self.floats += _example_floats(out) + _recurrent_floats(op, x)
        return out

    def split(self, model: Any) -> tuple[list[Capture], list]:
        """The captures whose rule accounts for all of its variables' gradient, and every other variable.

        A rule's variable must have been read by its own call only: a layer called twice, or a weight also read
        elsewhere (an Embedding's matrix reused as an output layer, in a Lambda or in the loss) has gradient
        terms the rule does not see, and goes to the loop.
        """
        calls = Counter(id(c.layer) for c in self.captures)
        elsewhere = Counter(id(v) for op in self.others for v in op.trainable_variables)
        for c in self.captures:
            elsewhere.update(id(v) for v in c.rule.variables(c.layer))
        claimed = [c for c in self.captures if calls[id(c.layer)] == 1   # a shared layer: its gradients add up
                   and all(elsewhere[id(v)] == 1 and self.reads[_variable_key(v)] == 1
                           for v in c.rule.variables(c.layer))]
        mine = {id(v) for c in claimed for v in c.rule.variables(c.layer)}
        return claimed, [v for v in model.trainable_variables if id(v) not in mine]


@contextlib.contextmanager
def _call_context(model: Any, training: bool):
    """Keras' call context as ``model(x, training=training)`` enters it, for the walk through the model's layers.

    Keras passes ``training`` only to a layer whose ``call`` takes it; a layer called inside another one's ``call``
    reads it from this context. Walked without it, a Dropout inside a wrapper layer whose ``call`` takes no
    ``training`` stayed at inference under ``training=True`` (every loss was ``model(x, training=False)``'s, under
    a warning of one random draw), and a sublayer whose ``call`` defaults to ``training=True`` ran in training mode
    under ``training=False`` (refused as batch mixing). As Keras does on entering, the model's added losses are
    cleared; the previous context (``None`` outside any call) is restored after.
    """
    previous = _keras_state.get_global_attribute("current_call_ctx")
    context = _CallContext(entry_layer=model)
    context.training = training   # what CallContext.get_value("training") reads (an attribute in Keras 3.10 too)
    _keras_state.set_global_attribute("current_call_ctx", context)
    model._clear_losses()
    try:
        yield
    finally:
        _keras_state.set_global_attribute("current_call_ctx", previous)


def _variable_key(v: Any) -> int:
    """One key for a Keras variable and the ``tf.Variable`` it wraps (what a tape's ``watched_variables`` gives)."""
    return id(v.value) if isinstance(v, keras.Variable) else id(v)


def _example_floats(out: Any) -> int:
    """Floats of one example in ``out`` (tensors of shape ``(B, ...)``)."""
    return sum(math.prod(t.shape[1:]) for t in tf.nest.flatten(out)
               if tf.is_tensor(t) and t.shape.rank and t.shape[1:].is_fully_defined())


def _recurrent_floats(op: Any, x: Any) -> int:
    """What a recurrent layer keeps of one example for its backward pass: a few state-sized tensors per step."""
    if not isinstance(op, (keras.layers.RNN, keras.layers.Bidirectional)) or not tf.is_tensor(x) \
            or x.shape.rank != 3 or x.shape[1] is None:
        return 0
    layers = [op.forward_layer, op.backward_layer] if isinstance(op, keras.layers.Bidirectional) else [op]
    return RECURRENT_FLOATS_PER_STATE * x.shape[1] * sum(_gate_width(layer.cell) + x.shape[2] for layer in layers)


def _gate_width(cell: Any) -> int:
    """The width of a recurrent cell's gates (``units`` for SimpleRNN, ``3 * units`` for GRU, ``4 *`` for LSTM)."""
    kernel = getattr(cell, "recurrent_kernel", None)
    if kernel is not None and len(kernel.shape) == 2:
        return int(kernel.shape[-1])
    return sum(tf.nest.flatten(getattr(cell, "state_size", 0)))


def _takes_training(op: Any) -> bool:
    """Whether Keras' functional runner gives ``op`` the model's training flag (replacing the one its call in the
    graph was made with): every layer, whose ``_call_context_args`` hold ``training``, also one whose ``call`` takes
    none (it passes the flag on to the layers it calls); otherwise an operation whose ``call`` takes it."""
    context = getattr(op, "_call_context_args", None)
    if context is not None:
        return "training" in context
    call = getattr(op, "call", None)
    try:
        return call is not None and "training" in inspect.signature(call).parameters
    except (TypeError, ValueError):
        return False


def _covers(rule: Any, layer: Any) -> bool:
    """The rule's variables are exactly the layer's trainable ones (a frozen kernel leaves the layer to others)."""
    return sorted(map(id, rule.variables(layer))) == sorted(map(id, layer.trainable_variables))


def _layers(model: Any) -> list:
    flatten = getattr(model, "_flatten_layers", None)
    return list(flatten(include_self=False, recursive=True)) if flatten else list(getattr(model, "layers", []))


def _refuse_training_batchnorm(op: Any, training: bool) -> None:
    """An opaque layer or model run in training mode: refuse it if it holds a trainable BatchNormalization."""
    if not training:
        return
    for layer in [op] + _layers(op):
        if isinstance(layer, keras.layers.BatchNormalization) and layer.trainable:
            where = f"{op.name!r} contains {layer.name!r}," if layer is not op else f"{op.name!r} is"
            raise _mixing_error(f"{where} a BatchNormalization run in training mode: "
                                "it normalizes each example with statistics of the whole batch")


def _mixing_error(why: str, api: str = "per_example_gradients", training: bool = True) -> BatchMixingError:
    """The refusal of a batch whose examples mix. Only ``per_example_gradients`` takes ``training``; where the model
    already ran at training=False (``gradlib.scan`` always, per_example_gradients when asked), advising
    training=False is no fix."""
    fix = ("Use training=False (BatchNormalization then uses its moving statistics), or a model without batch "
           "statistics" if api == "per_example_gradients" and training else
           f"{api} runs the model in inference mode (training=False); use a model that computes each example from its "
           "own input there")
    return BatchMixingError(f"{api}: the examples of the batch are not independent ({why}), so per-example gradients "
                            f"do not exist. {fix} (LayerNormalization is per example)")


# ---------------------------------------------------------------- compiling once per model, loss and shapes


def _compiled(model: Any, loss: Any, kind: str, training: bool, x: tf.Tensor,
              y: tf.Tensor) -> tuple[Any, Route, LRUCache, Callable | None]:
    """The traced per-batch function for this model, loss, kind and batch signature (cached, bounded), its route,
    its record of checked batch signatures (``_callable._weights``; a step not cached, for a loss that cannot be a key,
    is traced and checked on every call) and its ``fixed_caller`` (``_run_compiled``)."""
    specs = (_structure.specs(x), _structure.specs(y))
    create = lambda: _trace(model, loss, kind, training, specs, x, y)  # noqa: E731
    try:
        key: Hashable | None = (model, _structure.model_state(model), loss, _structure.loss_state(loss), kind, training,
                                _structure.signature(specs), tuple(map(id, model.trainable_variables)))
        hash(key)
    except TypeError:
        key = None
    return _BATCH_FUNCTIONS.get_or_create(key, create) if key is not None else create()


def _trace(model: Any, loss: Any, kind: str, training: bool, specs: tuple, x: tf.Tensor, y: tf.Tensor):
    """Build the model and check the batch eagerly on a few examples, then trace the per-batch function once. A
    model whose output reads a variable its call updates is refused first, before any call (``_callable._updates``)."""
    refuse_updating(lambda xb: model(xb, training=training), x, "per_example_gradients", None, "model")
    _check_independent(model, loss, x, y, training)
    plans: list[Route] = []

    def body(xb, yb, last, unchecked):   # the weights' fingerprint, and the check where it is not the last checked
        fingerprint = _weights.weights_fingerprint(model.variables)
        verify = tf.logical_or(unchecked, tf.reduce_any(tf.not_equal(fingerprint, last)))
        losses, norms, grads, plan, check = per_example_terms(model, loss, xb, yb, training=training,
                                                              gradients=kind == "gradients", verify=verify)
        plans.append(plan)
        return (losses, norms, *check, fingerprint, verify, *(grads or ()))

    try:
        concrete = trace(body, (*specs, _weights.FINGERPRINT_SPEC, tf.TensorSpec((), tf.bool)))
    except GradlibError:
        raise
    except (TypeError, ValueError, NotImplementedError, tf.errors.OpError) as exc:
        if _in_strategy_scope(exc):
            raise _scope_error() from exc
        raise GradlibError(f"per_example_gradients could not run the model on a batch of {_shapes(x)}: "
                           f"{error_gist(exc)}") from exc
    return concrete, plans[-1], _weights.record(), fixed_caller(concrete)


def _scope_error() -> GradlibError:
    """A model with layers the per-example loop takes (no per-layer rule: GRU, LSTM, ...), in a ``tf.distribute``
    strategy's scope: the compiled step would take the loop's gradients of the model's variables in the
    cross-replica context, which TensorFlow refuses. Outside the scope the same model is computed right."""
    return GradlibError(
        "per_example_gradients cannot run in a tf.distribute strategy's scope for this model: its per-example loop "
        "(for the layers without a per-layer rule) takes gradients of the model's variables, which TensorFlow refuses "
        "there (\"DistributedVariable.handle is not available outside the replica context\"). Call it after the "
        "`with strategy.scope():` block (a model built in the scope is read the same), or scan a data set with "
        "gradlib.scan(model, data, strategy=strategy), which runs in the replicas")


def _run_compiled(compiled: Any, caller: Callable | None, x: tf.Tensor, y: tf.Tensor,
                  last: tf.Tensor | None) -> list[tf.Tensor]:
    """The traced function on this batch (``last``: the weights' fingerprint its batch signature was last checked
    at, ``None`` when never); a failure of the user's model or loss on it (labels out of range, say) is said in one
    line, with the shapes it had. Where ``x`` and ``y`` are one tensor each, through the step's ``fixed_caller``: the
    structured call binds them to its signature again on every call (0.5-1 ms of CPU of the 8-10 ms warm norms call
    of the 784-512-256-10 model at batch 256), which the step's cache key (their shapes past the batch axis and
    dtypes) already decided."""
    flags = (tf.zeros((2,), tf.int32) if last is None else last, tf.constant(last is None))
    try:
        if caller is not None and isinstance(x, tf.Tensor) and isinstance(y, tf.Tensor):
            return caller([x, y, *flags], [])
        return compiled(x, y, *flags)
    except tf.errors.OpError as exc:
        what = (f"{GATHER_HINT} and y the targets the loss expects" if GATHER_OUT_OF_RANGE.search(str(exc)) else
                "y holds the targets the loss expects (e.g. labels below the number of classes)")
        raise InputError(f"per_example_gradients: the model and loss failed on this batch (x of shape "
                         f"{tuple(x.shape)}, y of shape {tuple(y.shape)}): {error_sentence(exc)} Check that {what}"
                         ) from None


def _regularization_gradient(model: Any, variables: list | None = None) -> list[np.ndarray] | None:
    """The gradient of the weight regularization (``model.losses``' terms from the variables' regularizers), per
    trainable variable (``variables``: ``model.trainable_variables`` when already read); ``None`` when no trainable
    variable has a regularizer. In a ``tf.distribute`` strategy's scope it runs in the replicas (``_in_replica``):
    there the eager gradient failed with "DistributedVariable.handle is not available outside the replica context"."""
    variables = model.trainable_variables if variables is None else variables
    if all(getattr(v, "regularizer", None) is None for v in variables):
        return None

    def gradient() -> list[tf.Tensor]:
        with tf.GradientTape() as tape:
            total = tf.add_n([tf.cast(v.regularizer(v), tf.float64) for v in variables
                              if getattr(v, "regularizer", None) is not None])
        grads = tape.gradient(total, variables)   # ZERO fails on a Keras variable's string dtype: None is zeros
        return [tf.zeros(v.shape, v.dtype) if g is None else tf.convert_to_tensor(g) for v, g in zip(variables, grads)]

    return [g.numpy() for g in _in_replica(gradient)]


def _reweighted(model: Any, loss: Any, training: bool, x: tf.Tensor, y: tf.Tensor, weights: np.ndarray) -> list[np.ndarray]:
    """``weighted_gradient`` of the stored batch, compiled once per model, loss and signature; in a
    ``tf.distribute`` strategy's scope run eagerly in its replicas (``_in_replica``): tracing the pass there takes
    the gradients of its variables in the cross-replica context, which TensorFlow refuses (``clipped_mean`` ended in
    "DistributedVariable.handle is not available outside the replica context", hunt 48)."""
    w = tf.constant(weights, tf.float64)
    with _runtime.work_slot():
        if _cross_replica():
            means = [g.numpy() for g in _in_replica(
                lambda: weighted_gradient(model, loss, x, y, w, training=training))]
        else:
            means = [g.numpy() for g in _weighted_pass(model, loss, training, x, y)(x, y, w)]
        if _weighted_pass_holds(model, loss, training, x, y, weights):
            return means
        grads = _computed(model, loss, False, training, x, y, LIMITS)[2]
        return [np.tensordot(weights.astype(g.dtype), g, axes=1) for g in grads]


def _weighted_pass(model: Any, loss: Any, training: bool, x: tf.Tensor, y: tf.Tensor) -> Any:
    """``weighted_gradient`` traced for this model, loss and batch signature (cached, bounded)."""
    specs = (_structure.specs(x), _structure.specs(y), tf.TensorSpec((None,), tf.float64))
    key = (model, _structure.model_state(model), loss, _structure.loss_state(loss), "weighted", training,
           _structure.signature(specs), tuple(map(id, model.trainable_variables)))
    create = lambda: trace(  # noqa: E731
        lambda xb, yb, w: weighted_gradient(model, loss, xb, yb, w, training=training), specs)
    return _BATCH_FUNCTIONS.get_or_create(key, create)


def _weighted_pass_holds(model: Any, loss: Any, training: bool, x: Any, y: Any, weights: np.ndarray) -> bool:
    """Whether one backward pass of ``sum_i w_i L_i`` is ``sum_i w_i g_i`` on the examples weighted least (the most
    clipped), run eagerly: it is where the backward pass is linear in its cotangent, and a ``tf.custom_gradient``
    that clips each element (``tf.clip_by_value(dy, ...)``) is not: ``clip(w_i dy_i)`` is not ``w_i clip(dy_i)``
    (the norms are right, each example's cotangent being 1 as alone, and the clipped mean was 0.11 off at a scale of
    0.058). Where it does not hold, ``_reweighted`` weights the per-example gradients instead."""
    training = training and not _random_layers(model)   # Dropout's draws differ between passes: inference mode
    picked = tf.constant(np.argsort(weights, kind="stable")[:PROBE_EXAMPLES])
    xk, yk = (tf.nest.map_structure(lambda t: tf.gather(t, picked), part) for part in (x, y))
    wk = tf.constant(weights[picked.numpy()], tf.float64)
    try:
        joint, alone = _in_replica(lambda: (weighted_gradient(model, loss, xk, yk, wk, training=training), [
            _alone_gradient(model, loss, _structure.rows(xk, i, i + 1), _structure.rows(yk, i, i + 1), training)
            for i in range(int(picked.shape[0]))]))
    except GradlibError:
        raise
    except Exception:   # noqa: BLE001 - not checked (the model failed eagerly): the weighted per-example gradients
        return False
    for j, g in enumerate(joint):
        expected = sum(float(w) * a[j].numpy() for w, a in zip(wk.numpy(), alone))
        scale = max(float(np.abs(expected).max(initial=0.0)), 1e-30)
        if not np.allclose(np.asarray(g, np.float64), expected, rtol=1e-4, atol=1e-6 * scale):
            return False
    return True


def _alone_gradient(model: Any, loss: Any, x: Any, y: Any, training: bool) -> list[tf.Tensor]:
    """One example's loss gradient per trainable variable, run alone (float64; zeros where it does not reach)."""
    with tf.GradientTape() as tape:
        value = loss_vector(loss, y, model(x, training=training))[0]
    grads = tape.gradient(value, model.trainable_variables)
    return [tf.zeros(v.shape, tf.float64) if g is None else tf.cast(tf.convert_to_tensor(g), tf.float64)
            for v, g in zip(model.trainable_variables, grads)]


# ---------------------------------------------------------------- checks


def _check_model(model: Any) -> None:
    if not isinstance(model, keras.layers.Layer):
        given = _structure.given_model(model)
        how = "" if given != type(model).__name__ else "; build one with keras.Sequential or the functional API"
        raise GradlibError(f"per_example_gradients needs a Keras model, got {given}{how}")
    refuse_stateful(model, "per_example_gradients")


def _check_loss(model: Any, loss: Any, loss_weights: Any, y: Any) -> Any:
    return _structure.resolve_loss(model, loss, loss_weights, y, "per_example_gradients")


def _check_batch(model: Any, x: Any, y: Any, limits: Limits) -> tuple[Any, Any]:
    return _structure.check_batch(model, x, y, limits, "per_example_gradients")


def _shapes(x: Any) -> str:
    """``shape (6, 5)``, or each leaf's shape for several inputs: for messages."""
    shapes = [tuple(t.shape) for t in tf.nest.flatten(x)]
    return f"shape {shapes[0]}" if len(shapes) == 1 else f"shapes {', '.join(map(str, shapes))}"


def check_floats(plan: Route, batch: int, limits: Limits, api: str, where: str, fix: str, other: str = "",
                 scale: int = 1) -> None:
    """Refuse a ``batch`` whose floats under ``plan`` exceed ``limits.max_jacobian`` (``api`` names the caller;
    ``where`` says what ``batch`` is). ``fix`` names the largest batch that fits, times ``scale`` (``{n}``: "Use a
    batch of at most {n}"); when not even one example fits, only ``other`` (what else to change) is advised."""
    floats = plan.floats_per_example * batch + plan.floats_per_batch
    if floats > limits.max_jacobian:
        largest = max(limits.max_jacobian - plan.floats_per_batch, 0) // max(plan.floats_per_example, 1)
        one = plan.floats_per_example + plan.floats_per_batch
        advice = [fix.format(n=f"{largest * scale:,}") if largest else f"Even one example needs {one:,} floats"]
        advice += [other] if other else []
        raise ExpressionError(
            f"{api} would allocate about {floats:,} floats {where} ({plan.floats_per_example:,} per example, method "
            f"{plan.method}); at most {limits.max_jacobian:,} are allowed. {', or '.join(advice)}")


def _check_clip_norm(clip_norm: Any) -> float:
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, (int, float, np.floating, np.integer)) \
            or not clip_norm > 0:
        raise ExpressionError(f"clip_norm must be a positive number (np.inf for no clipping), got {clip_norm!r}")
    return float(clip_norm)


def check_first_examples(model: Any, loss: Any, x: Any, y: Any, api: str, *, training: bool = False) -> None:
    """Check a batch's structure against the model and run the eager probe of ``_check_independent`` on its first
    examples: the clear messages about the model, the loss and the labels, without tracing anything (``scan``'s
    probe before it traces its own step)."""
    xt, yt = _structure.check_batch(model, x, y, LIMITS, api)
    _check_independent(model, loss, xt, yt, training, api)


def _probe_losses(losses: Callable[[], np.ndarray], k: int, x: Any) -> np.ndarray:
    """``losses()``, the probe's losses of the first ``k`` examples of the batch ``x``; a refusal of them says so, since
    a shape in its message is the probe's (a (B, 3) loss on a batch of 6 was "returned shape (3, 3)")."""
    try:
        return losses()
    except GradlibError as exc:
        n = _structure.batch_size(x)
        if k == n:
            raise
        raise type(exc)(f"{exc} (on the batch's first {k} of {n} examples, which gradlib checks before the whole "
                        "batch)") from exc   # its kind kept: an ExpressionError stays one


def _check_independent(model: Any, loss: Any, x: tf.Tensor, y: tf.Tensor, training: bool,
                       api: str = "per_example_gradients") -> None:
    """Build the model on the first examples, and refuse it if their losses change with the batch around them.

    The losses of the first examples computed together must equal each computed alone: first the loss alone
    on the model's outputs (a loss that broadcasts labels of the wrong shape across the batch mixes examples:
    the labels are blamed; a loss comparing the examples, Keras' Circle, is refused as such), then the model.
    Random layers (Dropout) make two training-mode passes differ anyway, so such models are probed in inference
    mode; BatchNormalization in training mode is refused by name. The traced step then compares the whole batch
    (``check_independent``, once per batch signature and weights); this early probe gives the clear messages
    before anything is traced. ``api`` names the caller in the refusals.
    """
    vector = functools.partial(loss_vector, loss, api=api)   # (y_true, y_pred) -> (B,)
    attempt = functools.partial(_attempt, api=api)
    _refuse_training_batchnorm(model, training)
    k = min(PROBE_EXAMPLES, _structure.batch_size(x))
    mode = training and not _random_layers(model)
    xk, yk = _structure.rows(x, 0, k), _structure.rows(y, 0, k)
    if training and not mode:   # a loss added in training mode only (model.fit's): the probe below runs at inference
        attempt(lambda: model(xk, training=True), xk)
        _refuse_added_losses(model, api)
    pred = attempt(lambda: model(xk, training=mode), xk)
    _refuse_added_losses(model, api)
    joint = _probe_losses(lambda: attempt(lambda: vector(yk, pred).numpy(), xk), k, x)
    if joint.shape != (k,):
        raise GradlibError(f"the loss returned shape {joint.shape} for {k} examples; it must return one value per example")
    if k < 2:
        return
    rows = np.concatenate([_alone(api, attempt(lambda: vector(_structure.rows(yk, i, i + 1),
                                                          tf.nest.map_structure(lambda t: _example(t, i), pred)
                                                          ).numpy(), xk)) for i in range(k)])
    i = _first_gap(joint, rows)
    if i is not None:
        raise _loss_mixing_error(loss, y, pred, api, f"example {i}'s loss is {format_number(joint[i])} among the "
                                 f"batch's first {k} examples and {format_number(rows[i])} alone")
    alone = np.concatenate([_alone(api, attempt(lambda: vector(_structure.rows(yk, i, i + 1), model(
        _structure.rows(xk, i, i + 1), training=mode)).numpy(), xk)) for i in range(k)])
    i = _first_gap(joint, alone)
    again = _first_gap(joint, attempt(lambda: vector(yk, model(xk, training=True)).numpy(), xk)) \
        if i is not None and mode else None
    if again is not None:
        raise GradlibError(
            f"{api}: the model draws random numbers in training mode outside a layer gradlib knows "
            f"as random (example {again}'s loss changed between two passes over the same batch): gradlib recognizes a "
            "random layer by its seed_generator, as Keras' Dropout and GaussianNoise have, and runs every example's "
            "loss and gradient from one draw. Draw with keras.random and a keras.random.SeedGenerator kept as the "
            "layer's seed_generator attribute, or use training=False")
    if i is not None:
        raise _mixing_error(f"example {i}'s loss is {format_number(joint[i])} in a batch of {k} and "
                            f"{format_number(alone[i])} alone", api, training)
    _check_backward(model, loss, xk, yk, mode, api)


def _loss_mixing_error(loss: Any, y: Any, pred: Any, api: str, gap: str) -> GradlibError:
    """The refusal of a loss whose values on the same model outputs change with the batch around each example (``gap``
    says how): a loss comparing the examples with each other (Keras' Circle, or one where y has the output's shape,
    so nothing broadcasts) has no per-example loss; otherwise y broadcasts against the output and is blamed."""
    outputs, targets = tf.nest.flatten(pred), tf.nest.flatten(y)
    if _compares_examples(loss):
        return _circle_error(loss, api, gap)
    if len(outputs) == 1 and len(targets) == 1 and tuple(targets[0].shape[1:]) == tuple(outputs[0].shape[1:]):
        return BatchMixingError(
            f"{api}: the loss compares the examples with each other ({gap}); y has the model output's "
            f"shape per example, {tuple(outputs[0].shape[1:])}, so y's shape is not the cause: the loss reads other "
            "examples than its own (a batch statistic, a contrastive or metric-learning loss, or an axis of the "
            "batch's taken for another), so no example has a loss of its own, and such a loss has no per-example "
            "gradient. A loss with one must compute each example's "
            "value from that example's y_true and y_pred only")
    target = (f"for this output, {tuple(targets[0].shape[:1]) + tuple(outputs[0].shape[1:])} for a "
              "regression loss, " if len(outputs) == 1 else "")
    return InputError(
        f"{api}: the loss mixes the examples: on the same model outputs, {gap}. y has {_shapes(y)} "
        f"and the model's output {_shapes(pred)}: the loss broadcasts one against the other. Give y the shape the "
        f"loss expects ({target}or labels with a loss for labels such as SparseCategoricalCrossentropy)")


def _circle_error(loss: Any, api: str, gap: str) -> BatchMixingError:
    """The refusal of a Circle loss (``_compares_examples``) whose examples' losses change with the batch (``gap``)."""
    return BatchMixingError(
        f"{api}: the loss {_circle_label(loss)} compares the examples with each other ({gap}): without "
        "ref_embeddings, Circle loss takes each example's positives and negatives from the other examples of the "
        "batch, so no example has a loss of its own; with them, remove_diagonal=True (its default) drops each "
        "example's similarity to the reference at the example's own position in the batch. Either way the "
        "batch's Circle loss has no per-example gradient. What has one: Circle loss against fixed references "
        "(embeddings computed beforehand, held constant: a different loss, whose gradient does not move the "
        "references) with remove_diagonal=False, loss=lambda y, p: keras.losses.circle(y, p, "
        "ref_labels=labels, ref_embeddings=embeddings, remove_diagonal=False)")


def _compares_examples(loss: Any) -> bool:
    """Whether ``loss`` is or calls (or has, for one of a model's outputs) Keras' Circle loss, which compares the
    examples: ``keras.losses.Circle`` or ``"circle"``, the function ``keras.losses.circle`` given as it is, in a
    ``functools.partial``, or called by a function of the user's (a lambda). A lambda calling it was blamed on y's
    shape ("the loss broadcasts one against the other"), and one against references with remove_diagonal=True too."""
    if isinstance(loss, _structure.PerOutputLoss):
        return any(_compares_examples(part) for part in loss.losses)
    return _calls_circle(loss, depth=2)


def _is_circle(loss: Any) -> bool:
    """Whether ``loss`` is Keras' Circle itself: the function, its class, or a Keras loss object wrapping it (``fn``)."""
    return any(value is keras.losses.circle or value is keras.losses.Circle
               for value in (loss, getattr(loss, "fn", None)))


def _calls_circle(fn: Any, depth: int) -> bool:
    """Whether ``fn`` is Keras' Circle (``_is_circle``, through ``functools.partial``) or a Python function whose
    code names it: a global or closure variable holding it, or ``circle``/``Circle`` read from a Keras (or
    TensorFlow) module, as ``keras.losses.circle(y, p)`` does; the functions it names are read ``depth`` deep.
    The code is only read (its names), never run."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if _is_circle(fn):
        return True
    if depth <= 0:
        return False
    if not hasattr(fn, "__code__") and callable(getattr(fn, "fn", None)):   # a Keras wrapper, model.compile's
        return _calls_circle(fn.fn, depth - 1)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    names = _code_names(code)
    scope = [getattr(fn, "__globals__", {}).get(name) for name in names] + _closure_values(fn)
    if names & {"circle", "Circle"} and any(inspect.ismodule(v) and v.__name__.split(".")[0] in ("keras", "tensorflow")
                                            for v in scope):
        return True
    return any(_calls_circle(v, depth - 1) for v in scope if callable(v) and not inspect.isclass(v))


def _code_names(code: Any) -> set[str]:
    """The global and attribute names ``code`` reads, its nested functions' (lambdas, comprehensions) included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _code_names(const)
    return names


def _closure_values(fn: Any) -> list:
    """The values of ``fn``'s closure cells (an empty cell left out)."""
    values = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:
            pass
    return values


def _circle_label(loss: Any) -> str:
    """How a Circle refusal names the loss: ``'circle'`` for Keras' own; a function of the user's by its name and
    what it calls (``'<lambda>', which calls keras.losses.circle,``)."""
    if isinstance(loss, _structure.PerOutputLoss):
        loss = next(part for part in loss.losses if _compares_examples(part))
    inner = loss
    while isinstance(inner, functools.partial):
        inner = inner.func
    if _is_circle(inner):
        return repr(getattr(inner, "name", None) or "circle")
    name = getattr(getattr(inner, "fn", inner), "__name__", type(inner).__name__)
    partial = "a functools.partial of " if inner is not loss else ""
    return f"{partial}{name!r}, which calls keras.losses.circle,"


def _loss_name(loss: Any) -> str:
    if isinstance(loss, _structure.PerOutputLoss):
        return next(getattr(p, "name", "circle") for p in loss.losses if _compares_examples(p))
    return getattr(loss, "name", None) or getattr(getattr(loss, "fn", loss), "__name__", type(loss).__name__)


def _attempt(fn: Callable[[], Any], xb: Any, api: str = "per_example_gradients") -> Any:
    """``fn()``, the user's model or loss run by the probe: a failure is said, with its message and the shapes."""
    try:
        return fn()
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's model or loss failed: say so, with its message
        raise GradlibError(f"{api} could not run the model and loss on a batch of "
                           f"{_shapes(xb)}: {type(exc).__name__}: {error_gist(exc)}") from exc


def _check_backward(model: Any, loss: Any, x: Any, y: Any, training: bool, api: str) -> None:
    """Refuse a model whose backward pass mixes the first examples, though their losses do not mix.

    The rules take each example's ``g = dL_i/dz`` from one backward pass of the summed loss; a ``tf.custom_gradient``
    that reads the whole batch's cotangent (``tf.clip_by_norm`` over every axis, a gradient normalized by the
    batch) changes ``g`` with the other examples while every loss stays the same, and the norms were silently
    the batch's. Each example's norm from the batch's pass (run eagerly, no check) must equal its gradient's norm
    alone, as a batch of one; in a ``tf.distribute`` strategy's scope both run in its replicas (``_in_replica``). A
    failure of either is the user's model failing (a custom gradient that cannot run on one example, say) and is
    said; skipping the check then returned the batch's norms silently.
    """
    k = _structure.batch_size(x)

    def both():
        norms = per_example_terms(model, loss, x, y, training=training, verify=tf.constant(False))[1]
        alone = [_alone_norm(model, loss, _structure.rows(x, i, i + 1), _structure.rows(y, i, i + 1), training)
                 for i in range(k)]
        return tf.cast(norms, tf.float64), tf.constant(alone, tf.float64)

    try:
        norms, alone = (t.numpy() for t in _in_replica(both))
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's model failed: say so, with its message
        if _in_strategy_scope(exc):
            other = ", or gradlib.scan with strategy=" if api != "gradlib.scan" else " with strategy="
            raise GradlibError(
                f"{api} could not check the model's backward pass in this tf.distribute strategy's "
                f"scope ({type(tf.distribute.get_strategy()).__name__}): the eager gradients of its variables are not "
                f"available there, even in its replicas. Call {api} outside `strategy.scope()`{other}") from exc
        raise GradlibError(
            f"{api} could not check the model's backward pass on its first {k} examples, together "
            f"and each alone (a batch of one): {type(exc).__name__}: {error_sentence(exc)} The model must run on "
            "a batch of any size, one included (a tf.custom_gradient written for one batch size cannot)") from exc
    scale = float(np.abs(alone[np.isfinite(alone)]).max(initial=0.0))
    if np.allclose(norms, alone, rtol=1e-4, atol=1e-6 * scale, equal_nan=True):
        return
    i = int(np.nanargmax(np.abs(norms.astype(np.float64) - alone)))
    raise BatchMixingError(
        f"{api}: the backward pass mixes the examples: example {i}'s gradient norm is "
        f"{format_number(norms[i])} from the batch's backward pass and {format_number(alone[i])} alone, though its "
        f"loss is the same in a batch of {len(norms)} and alone. A tf.custom_gradient (or a gradient override) "
        "in the model reads the whole batch's gradient, as tf.clip_by_norm over every axis does, so each example's "
        "gradient depends on the others. Make the custom gradient act on each example's rows alone (e.g. "
        "tf.clip_by_norm(dy, c, axes=[1]) for a (batch, features) tensor); with no such gradient in the model, a "
        "per-layer rule of gradlib is wrong for one of its layers: please report it")


def _in_replica(fn: Callable[[], Any]) -> Any:
    """``fn()``, which takes eager gradients of the model's variables: in a ``tf.distribute`` strategy's scope (the
    cross-replica context) TensorFlow refuses them (``_in_strategy_scope``), so there ``fn`` runs in the strategy's
    replicas (``strategy.run``, every replica on the same examples) and the first replica's result is kept."""
    if not _cross_replica():
        return fn()
    strategy = tf.distribute.get_strategy()
    return tf.nest.map_structure(lambda t: strategy.experimental_local_results(t)[0], strategy.run(fn))


def _cross_replica() -> bool:
    """Whether this runs in a ``tf.distribute`` strategy's scope, outside its replicas (the cross-replica context)."""
    return tf.distribute.has_strategy() and tf.distribute.in_cross_replica_context()


def _in_strategy_scope(exc: Exception) -> bool:
    """Whether ``exc`` is TensorFlow refusing eager gradients of a ``tf.distribute`` strategy's variables inside its
    scope (cross-replica context): "ValueError: DistributedVariable.handle is not available outside the replica
    context or a `tf.distribute.Strategy.update()` call" (TF 2.x, MirroredStrategy)."""
    return isinstance(exc, ValueError) and "outside the replica context" in str(exc) and tf.distribute.has_strategy()


def _alone_norm(model: Any, loss: Any, x: Any, y: Any, training: bool) -> float:
    """The norm of one example's loss gradient over the model's trainable variables, run alone (float64)."""
    with tf.GradientTape() as tape:
        value = loss_vector(loss, y, model(x, training=training))[0]
    grads = tape.gradient(value, model.trainable_variables)
    return math.sqrt(sum(float(tf.reduce_sum(tf.square(tf.cast(tf.convert_to_tensor(g), tf.float64))))
                         for g in grads if g is not None))


def _refuse_added_losses(model: Any, api: str) -> None:
    """Refuse a model that added losses during its call (just made): an ``activity_regularizer`` or ``add_loss``.

    ``model.fit`` adds them to the batch's loss; they depend on the examples (Keras averages an activity
    regularizer over the batch), and the per-example losses here are the loss function's only: the gradients
    would silently leave them out. ``model.losses`` after a call holds those terms and one per regularized weight.
    """
    weights = sum(getattr(v, "regularizer", None) is not None for v in model.trainable_weights)
    added = len(model.losses) - weights
    if added <= 0:
        return
    named = [layer.name for layer in [model] + _layers(model)
             if getattr(layer, "activity_regularizer", None) is not None]
    what = (f"an activity_regularizer on layer {named[0]!r}" if named else "a layer that calls add_loss in its call")
    raise GradlibError(
        f"{api}: the model adds {added} loss term(s) of its own during its call ({what}); model.fit "
        "adds them to the batch's loss, and they depend on the examples, but each example's loss here is the loss "
        "function's only, so its gradient would leave them out. Remove the activity_regularizer (or the add_loss), "
        "or give the model that activation as an output with a loss of its own; weight regularizers "
        "(kernel_regularizer and the like) are supported")


def _example(t: tf.Tensor, i: int) -> tf.Tensor:
    """``t[i:i + 1]`` with its Keras mask and the logits Keras keeps on a softmax or sigmoid output
    (``_keras_logits``), as Keras would give them for that example alone: a crossentropy reads those logits, and
    without them it took the probabilities, clipped at 1e-7 (a confident mistake's loss of 204 became 16.1, and
    the probe blamed y's shape)."""
    out = t[i:i + 1]
    for name in ("_keras_mask", "_keras_logits"):
        value = getattr(t, name, None)
        if value is not None:
            setattr(out, name, value[i:i + 1])
    return out


def check_independent(joint: np.ndarray, alone: np.ndarray, api: str, numbers: np.ndarray | None = None,
                      loss: Any = None, training: bool = False) -> None:
    """Refuse a batch whose examples' losses differ between the batch and each example alone.

    ``joint`` are the losses the batch's pass computed (the values the gradients are taken at), ``alone`` each
    example's loss as a batch of one, computed by a pass that cannot mix examples (the per-example loop, or
    pfor over single examples), both on every call and for every example (``numbers``: the examples' numbers
    for the message, by default their positions). Equal, they prove that every loss reported is the
    per-example loop's; a layer that mixes the batch changes them (a batch-centering layer, one mixing only
    some examples, one that appears only at some batch sizes). Not proved: mixing that leaves every loss value
    unchanged (a term cancelled by ``stop_gradient``). With random layers in training mode both sides are
    computed in inference mode. A Circle ``loss`` (``_compares_examples``) is refused as the cause: the probe of the
    first examples misses it where they hold no positive or no negative pair (every loss 0 there).
    """
    i = _first_gap(joint, alone)
    if i is not None:
        number = int(numbers[i]) if numbers is not None else i
        gap = (f"example {number}'s loss is {format_number(joint[i])} in this batch of {joint.shape[0]} and "
               f"{format_number(alone[i])} alone")
        raise _circle_error(loss, api, gap) if _compares_examples(loss) else _mixing_error(gap, api, training)


def _first_gap(joint: np.ndarray, alone: np.ndarray) -> int | None:
    """The example where two loss vectors differ most, beyond float rounding; ``None`` when they agree."""
    scale = max(1.0, float(np.abs(joint[np.isfinite(joint)]).max(initial=0.0)))
    if np.allclose(joint, alone, rtol=1e-4, atol=1e-5 * scale, equal_nan=True):
        return None
    gap = np.where(np.isnan(joint) & np.isnan(alone), 0.0, np.abs(joint - alone))
    return int(np.nanargmax(np.where(np.isnan(gap), np.inf, gap)))


def _random_warning(model: Any, training: bool) -> tuple[str, ...]:
    """What a result of a model with random layers in training mode is: one draw's, not a per-example loop's."""
    names = random_objects(model) if training else ()
    if not names:
        return ()
    return (f"the model draws random numbers in training mode (layers {', '.join(map(repr, names[:4]))}): each "
            "example's loss and gradient come from one draw, this call's (the batch's own pass, or the per-example "
            "loop's for the layers it runs), so a per-example loop or another call draws other noise and gives other "
            "numbers; each is the gradient of its example's loss under its draw. Use training=False for the "
            "gradients of one deterministic function",)


def _warnings(losses: np.ndarray, norms: np.ndarray) -> tuple[str, ...]:
    if not np.isfinite(losses).all():
        return (f"{int((~np.isfinite(losses)).sum())} example(s) have a loss that is not finite; their norms and "
                "gradients are not finite either",)
    if not np.isfinite(norms).all():
        return (f"{int((~np.isfinite(norms)).sum())} example(s) have a gradient norm that is not finite",)
    return ()
